//! The extension binary's command line: serve, `--pi-manifest`, `install`.
//!
//! ```text
//! <bin>                    serve the protocol on stdin/stdout (what the bridge runs)
//! <bin> --pi-manifest      print the manifest as JSON and exit
//! <bin> --pi-settings-schema  print the settings' JSON Schema and exit
//! <bin> --pi-prepare-arguments TOOL  run TOOL's prepare_arguments on the JSON on stdin (the bridge does)
//! <bin> install            write the pi bridge to $PI_CODING_AGENT_DIR/extensions/<name>/
//! <bin> install --project  write it to ./.pi/extensions/<name>/ instead
//! <bin> install --dev      …and switch to a rebuilt binary while pi runs (hot reload)
//! <bin> pack <dir>         write a pi package that `pi install <dir>` accepts
//! <bin> pack <dir> --npm [--name N] [--binary PLATFORM=PATH]...
//!                          write npm packages: a main one and one per platform
//! <bin> --help | --version
//! ```

#[doc(hidden)]
pub mod install;
#[cfg(feature = "pack")]
pub(crate) mod npm;
#[cfg(feature = "pack")]
mod pack;

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use crate::cli::install::{install, InstallTarget};
use crate::registry::{BinInfo, Registry};
use crate::serve::{log, Dispatcher};
use crate::wire::transport;

const AFTER_HELP: &str = "\
Without arguments the binary serves the pi-ext protocol (newline-delimited JSON) on
stdin/stdout; that is how the pi bridge runs it. Run `install` once, then start `pi`:
it discovers the extension with no `-e` flag.

Environment:
  PI_CODING_AGENT_DIR      pi's agent directory (default ~/.pi/agent); `install` writes
                           to its extensions/ folder
  PI_EXT_CANCEL_GRACE_MS   how long a cancelled tool may keep running before it is
                           aborted (default 2000)
  PI_EXT_LOG_DIR           where the bridge writes <name>.log (default: next to the bridge)";

const INSTALL_HELP: &str = "\
Install this binary as a pi extension (safe to run again)

Usage: {bin} install [--project | --dir EXTENSIONS_DIR] [--dev]

Options:
      --project             Install into ./.pi/extensions/<name>/ (this project only)
      --dev                 Development mode: when the binary is rebuilt, pi switches to it
                            without a restart (hot reload)
      --dir EXTENSIONS_DIR  Install into EXTENSIONS_DIR/<name>/
  -h, --help                Print help";

/// What the command line asks for.
#[derive(Debug, PartialEq)]
enum Invocation {
    Serve,
    Manifest,
    SettingsSchema,
    /// `--pi-prepare-arguments TOOL` (hidden: the bridge runs it).
    PrepareArguments(String),
    Install {
        target: InstallTarget,
        dev: bool,
    },
    #[cfg(feature = "pack")]
    Pack {
        dir: PathBuf,
        npm: Option<pack::NpmPack>,
    },
    /// `--help`/`--version`: the text to print.
    Print(String),
}

fn top_help(bin: &BinInfo, reg: &Registry) -> String {
    let about = if reg.description.is_empty() {
        format!("pi extension `{}`", reg.name)
    } else {
        format!("pi extension `{}`: {}", reg.name, reg.description)
    };
    format!(
        "{about}

Usage: {bin} [OPTIONS] [COMMAND]

Commands:
  install  Install this binary as a pi extension (safe to run again)
  pack     Write a pi package (package.json, bridge, this binary) that `pi install <dir>` accepts

Options:
      --pi-settings-schema  Print the JSON Schema of the extension's settings (for editors) and exit
      --pi-manifest         Print the extension's manifest (name, version, tools, schemas) as JSON and exit
  -h, --help                Print help (`{bin} <COMMAND> --help` for a command's)
  -V, --version             Print version

{AFTER_HELP}",
        bin = bin.bin
    )
}

/// Parse the arguments (the first is the program). Four commands and a few
/// flags: lexopt does the lexing, the grammar is written out here (clap cost
/// ~200 KB of every extension binary and ~30 s of its clean build).
fn parse(
    bin: &BinInfo,
    reg: &Registry,
    args: impl IntoIterator<Item = OsString>,
) -> Result<Invocation, String> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_iter(args);
    let mut chosen = None;
    while let Some(arg) = parser.next().map_err(|e| e.to_string())? {
        let next = match arg {
            Long("pi-manifest") => Invocation::Manifest,
            Long("pi-settings-schema") => Invocation::SettingsSchema,
            Long("pi-prepare-arguments") => Invocation::PrepareArguments(
                parser
                    .value()
                    .and_then(|v| v.string())
                    .map_err(|e| e.to_string())?,
            ),
            Short('h') | Long("help") => return Ok(Invocation::Print(top_help(bin, reg))),
            Short('V') | Long("version") => {
                return Ok(Invocation::Print(format!("{} {}", bin.bin, bin.version)))
            }
            Value(cmd) if cmd == "install" => parse_install(bin, &mut parser)?,
            #[cfg(feature = "pack")]
            Value(cmd) if cmd == "pack" => pack::parse(bin, &mut parser)?,
            #[cfg(not(feature = "pack"))]
            Value(cmd) if cmd == "pack" => {
                return Err(format!(
                    "pack: {} was built without pi-ext's Cargo feature `pack`; enable it \
                     (`pi-ext = {{ version = \"…\", features = [\"pack\"] }}`) to pack it",
                    bin.bin
                ))
            }
            Value(cmd) if cmd == "help" => return Ok(Invocation::Print(top_help(bin, reg))),
            other => return Err(other.unexpected().to_string()),
        };
        if chosen.is_some() {
            return Err("give one of --pi-manifest, --pi-settings-schema, install, pack".into());
        }
        chosen = Some(next);
    }
    Ok(chosen.unwrap_or(Invocation::Serve))
}

fn parse_install(bin: &BinInfo, parser: &mut lexopt::Parser) -> Result<Invocation, String> {
    use lexopt::prelude::*;
    let (mut project, mut dev, mut dir) = (false, false, None::<PathBuf>);
    while let Some(arg) = parser.next().map_err(|e| e.to_string())? {
        match arg {
            Long("project") => project = true,
            Long("dev") => dev = true,
            Long("dir") => dir = Some(parser.value().map_err(|e| e.to_string())?.into()),
            Short('h') | Long("help") => {
                return Ok(Invocation::Print(INSTALL_HELP.replace("{bin}", bin.bin)))
            }
            other => return Err(format!("install: {}", other.unexpected())),
        }
    }
    let target = match (project, dir) {
        (true, Some(_)) => return Err("install: --project and --dir exclude each other".into()),
        (true, None) => InstallTarget::Project,
        (false, Some(dir)) => InstallTarget::Dir(dir),
        (false, None) => InstallTarget::Global,
    };
    Ok(Invocation::Install { target, dev })
}

/// Entry point used by [`crate::main!`].
#[doc(hidden)]
pub fn run_main(bin: BinInfo) -> ExitCode {
    run_with_args(bin, std::env::args_os())
}

/// Entry point of a binary that builds its [`Registry`] at run time instead of
/// from what is linked in (pi-ext's own benchmark names its tools after the
/// binary's file name). Not a public API: it changes without notice.
#[doc(hidden)]
pub fn run_with_registry(bin: BinInfo, registry: Registry) -> ExitCode {
    run_registry_with_args(bin, registry, std::env::args_os())
}

fn run_with_args(bin: BinInfo, args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let registry = Registry::from_inventory(Some(&bin));
    run_registry_with_args(bin, registry, args)
}

fn run_registry_with_args(
    bin: BinInfo,
    registry: Registry,
    args: impl IntoIterator<Item = OsString>,
) -> ExitCode {
    let invocation = match parse(&bin, &registry, args) {
        Ok(i) => i,
        Err(e) => {
            // A command's mistakes point to that command's help.
            let command = ["install", "pack"]
                .into_iter()
                .find(|c| e.starts_with(&format!("{c}: ")));
            let help = match command {
                Some(c) => format!("{} {c} --help", bin.bin),
                None => format!("{} --help", bin.bin),
            };
            eprintln!("error: {e}\n\nFor more information, try '{help}'.");
            return ExitCode::from(2);
        }
    };
    match invocation {
        Invocation::Serve => serve(registry),
        Invocation::PrepareArguments(tool) => prepare_arguments(&registry, &tool),
        Invocation::Print(text) => {
            println!("{text}");
            ExitCode::SUCCESS
        }
        Invocation::Manifest => {
            let manifest = registry.manifest();
            let mut out = std::io::stdout().lock();
            let _ = serde_json::to_writer_pretty(&mut out, &manifest);
            let _ = writeln!(out);
            for p in &manifest.problems {
                eprintln!("warning: {p}");
            }
            ExitCode::SUCCESS
        }
        Invocation::SettingsSchema => {
            let schemas: Vec<(String, serde_json::Value)> = registry
                .manifest()
                .extensions
                .into_iter()
                .filter_map(|e| e.settings_schema.map(|s| (e.name, s)))
                .collect();
            let out = match schemas.as_slice() {
                [] => {
                    eprintln!("error: no extension in this binary declares settings");
                    return ExitCode::FAILURE;
                }
                [(_, schema)] => schema.clone(),
                several => serde_json::Value::Object(several.iter().cloned().collect()),
            };
            println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
            ExitCode::SUCCESS
        }
        Invocation::Install { target, dev } => match install(&registry.manifest(), target, dev) {
            Ok(report) => {
                println!("{report}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: install failed: {e}");
                ExitCode::FAILURE
            }
        },
        #[cfg(feature = "pack")]
        Invocation::Pack { dir, npm } => pack::run(&registry, &dir, npm),
    }
}

/// `--pi-prepare-arguments TOOL`: the raw arguments on stdin, the prepared
/// ones on stdout; a failure's message on stderr, exit code 1.
fn prepare_arguments(registry: &Registry, tool: &str) -> ExitCode {
    let fail = |message: String| {
        eprintln!("{message}");
        ExitCode::FAILURE
    };
    let Some(prepare) = registry.tools.get(tool).and_then(|t| t.prepare_arguments) else {
        return fail(format!(
            "this extension has no tool `{tool}` with prepare_arguments"
        ));
    };
    let args: serde_json::Value = match serde_json::from_reader(std::io::stdin().lock()) {
        Ok(v) => v,
        Err(e) => return fail(format!("the arguments are not JSON: {e}")),
    };
    // A panic is the function's failure, told as one line.
    match std::panic::catch_unwind(|| prepare(args)) {
        Ok(Ok(prepared)) => {
            let mut out = std::io::stdout().lock();
            let written = serde_json::to_writer(&mut out, &prepared)
                .map_err(std::io::Error::from)
                .and_then(|()| out.flush());
            match written {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => fail(format!("could not write the prepared arguments: {e}")),
            }
        }
        Ok(Err(message)) => fail(message),
        Err(_) => fail(format!("prepare_arguments of tool `{tool}` panicked")),
    }
}

/// Serve the protocol on stdin/stdout until EOF or `shutdown`.
fn serve(registry: Registry) -> ExitCode {
    crate::util::logging::init();
    let protocol_out = match transport::take_over_stdout() {
        Ok(f) => f,
        Err(e) => {
            log(&format!(
                "could not protect stdout ({e}); stray prints will corrupt the protocol"
            ));
            match std::io::stdout().as_fd_file() {
                Some(f) => f,
                None => return ExitCode::FAILURE,
            }
        }
    };
    let protocol_in = transport::take_over_stdin();
    let workers = std::thread::available_parallelism()
        .map(|n| n.get().clamp(2, 4))
        .unwrap_or(2);
    let runtime = match crate::serve::runtime::Runtime::build(workers) {
        Ok(rt) => rt,
        Err(e) => {
            log(&format!("could not start the async runtime: {e}"));
            return ExitCode::FAILURE;
        }
    };
    let lines = match protocol_in {
        Ok(input) => {
            // Registers the input with this runtime's I/O driver.
            let _runtime = runtime.enter();
            transport::LineSource::new(input)
        }
        Err(e) => {
            log(&format!(
                "could not protect stdin ({e}); child processes of tools may read protocol input"
            ));
            transport::LineSource::thread(std::io::stdin())
        }
    };
    let dispatcher = Dispatcher::new(
        Arc::new(registry),
        transport::LineSink::Pipe(transport::PipeWriter::new(protocol_out)),
    );
    // Serve in a task, not in `block_on` on this thread: the call tasks it
    // spawns then go to the reading worker's own queue, with no wake-up of
    // another thread.
    let serving = runtime.spawn({
        let dispatcher = dispatcher.clone();
        async move { dispatcher.serve(lines).await }
    });
    let served = runtime.block_on(serving);
    drop(dispatcher);
    // Give in-flight answers to cancelled calls a moment, then stop. Answers
    // are written in place, unbuffered: nothing is left to flush.
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            log(&format!("serving failed: {e}"));
            ExitCode::FAILURE
        }
    }
}

trait AsFdFile {
    fn as_fd_file(&self) -> Option<std::fs::File>;
}

impl AsFdFile for std::io::Stdout {
    #[cfg(unix)]
    fn as_fd_file(&self) -> Option<std::fs::File> {
        use std::os::fd::AsFd;
        self.as_fd()
            .try_clone_to_owned()
            .ok()
            .map(std::fs::File::from)
    }
    #[cfg(not(unix))]
    fn as_fd_file(&self) -> Option<std::fs::File> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bin() -> BinInfo {
        BinInfo {
            package: "hello",
            version: "1.2.3",
            description: "",
            bin: "hello",
        }
    }

    fn parsed(args: &[&str]) -> Result<Invocation, String> {
        let reg = Registry::new("hello", "1.2.3");
        let args = std::iter::once("hello").chain(args.iter().copied());
        parse(&bin(), &reg, args.map(OsString::from))
    }

    #[test]
    fn every_form_parses() {
        assert_eq!(parsed(&[]), Ok(Invocation::Serve));
        assert_eq!(parsed(&["--pi-manifest"]), Ok(Invocation::Manifest));
        assert_eq!(
            parsed(&["--pi-settings-schema"]),
            Ok(Invocation::SettingsSchema)
        );
        assert_eq!(
            parsed(&["install"]),
            Ok(Invocation::Install {
                target: InstallTarget::Global,
                dev: false
            })
        );
        assert_eq!(
            parsed(&["install", "--project", "--dev"]),
            Ok(Invocation::Install {
                target: InstallTarget::Project,
                dev: true
            })
        );
        assert_eq!(
            parsed(&["install", "--dir=/x"]),
            Ok(Invocation::Install {
                target: InstallTarget::Dir("/x".into()),
                dev: false
            })
        );
        assert_eq!(
            parsed(&["pack", "out"]),
            Ok(Invocation::Pack {
                dir: "out".into(),
                npm: None
            })
        );
        let Ok(Invocation::Pack { npm: Some(npm), .. }) = parsed(&[
            "pack",
            "out",
            "--npm",
            "--name",
            "@me/x",
            "--binary",
            "darwin-arm64=bin/x",
        ]) else {
            panic!("pack --npm did not parse");
        };
        assert_eq!(npm.name.as_deref(), Some("@me/x"));
        assert_eq!(npm.binaries.len(), 1);
        assert_eq!(npm.binaries[0].1, PathBuf::from("bin/x"));
    }

    #[test]
    fn help_and_version_print_and_name_the_commands() {
        let Ok(Invocation::Print(help)) = parsed(&["--help"]) else {
            panic!()
        };
        for word in ["install", "pack", "--pi-manifest", "PI_CODING_AGENT_DIR"] {
            assert!(help.contains(word), "{word} missing from\n{help}");
        }
        let Ok(Invocation::Print(help)) = parsed(&["install", "-h"]) else {
            panic!()
        };
        assert!(
            help.contains("--project") && help.contains("hello install"),
            "{help}"
        );
        let Ok(Invocation::Print(help)) = parsed(&["pack", "--help"]) else {
            panic!()
        };
        assert!(help.contains("--binary PLATFORM=PATH"), "{help}");
        assert_eq!(parsed(&["-V"]), Ok(Invocation::Print("hello 1.2.3".into())));
    }

    #[test]
    fn mistakes_get_an_error_naming_them() {
        let cases: &[(&[&str], &str)] = &[
            (&["--frobnicate"], "--frobnicate"),
            (&["instal"], "instal"),
            (
                &["install", "--project", "--dir", "x"],
                "exclude each other",
            ),
            (&["install", "--dir"], "--dir"),
            (&["install", "extra"], "extra"),
            (&["pack"], "pack DIR"),
            (&["pack", "a", "b"], "b"),
            (&["pack", "a", "--name", "n"], "go with --npm"),
            (
                &["pack", "a", "--npm", "--binary", "nowhere"],
                "PLATFORM=PATH",
            ),
            (&["install", "--pi-manifest"], "--pi-manifest"),
            (&["--pi-manifest", "install"], "one of"),
            (&["--pi-prepare-arguments"], "--pi-prepare-arguments"),
        ];
        for (args, says) in cases {
            match parsed(args) {
                Err(e) => assert!(
                    e.contains(says),
                    "{args:?}: `{e}` does not mention `{says}`"
                ),
                Ok(i) => panic!("{args:?} parsed as {i:?}"),
            }
        }
    }
}
