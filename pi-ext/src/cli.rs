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

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Arg, ArgAction, Command};

use crate::dispatch::{log, Dispatcher};
use crate::install::{install, InstallTarget};
use crate::registry::{BinInfo, Registry};
use crate::transport;

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

fn command(bin: &BinInfo, reg: &Registry) -> Command {
    let about = if reg.description.is_empty() {
        format!("pi extension `{}`", reg.name)
    } else {
        format!("pi extension `{}`: {}", reg.name, reg.description)
    };
    Command::new(bin.bin)
        .version(bin.version)
        .about(about)
        .after_help(AFTER_HELP)
        .arg(
            Arg::new("pi-settings-schema")
                .long("pi-settings-schema")
                .action(ArgAction::SetTrue)
                .help("Print the JSON Schema of the extension's settings (for editors) and exit"),
        )
        .arg(
            Arg::new("pi-prepare-arguments")
                .long("pi-prepare-arguments")
                .value_name("TOOL")
                .hide(true)
                .help("Run TOOL's prepare_arguments on the JSON arguments on stdin, print the result and exit (pi's prepareArguments; the bridge runs this)"),
        )
        .arg(
            Arg::new("pi-manifest")
                .long("pi-manifest")
                .action(ArgAction::SetTrue)
                .help("Print the extension's manifest (name, version, tools, schemas) as JSON and exit"),
        )
        .subcommand(
            Command::new("install")
                .about("Install this binary as a pi extension (safe to run again)")
                .arg(
                    Arg::new("project")
                        .long("project")
                        .action(ArgAction::SetTrue)
                        .help("Install into ./.pi/extensions/<name>/ (this project only)"),
                )
                .arg(
                    Arg::new("dev")
                        .long("dev")
                        .action(ArgAction::SetTrue)
                        .help("Development mode: when the binary is rebuilt, pi switches to it without a restart (hot reload)"),
                )
                .arg(
                    Arg::new("dir")
                        .long("dir")
                        .value_name("EXTENSIONS_DIR")
                        .value_parser(clap::value_parser!(PathBuf))
                        .conflicts_with("project")
                        .help("Install into EXTENSIONS_DIR/<name>/"),
                ),
        )
        .subcommand(
            Command::new("pack")
                .about("Write a pi package (package.json, bridge, this binary) that `pi install <dir>` accepts")
                .arg(
                    Arg::new("dir")
                        .required(true)
                        .value_name("DIR")
                        .value_parser(clap::value_parser!(PathBuf)),
                )
                .arg(
                    Arg::new("npm")
                        .long("npm")
                        .action(ArgAction::SetTrue)
                        .help("Write npm packages for `pi install npm:<name>` instead: DIR/<name>/ (the bridge, with optionalDependencies) and DIR/<name>-<platform>/ per platform (the binary, with os/cpu/libc)"),
                )
                .arg(
                    Arg::new("name")
                        .long("name")
                        .value_name("NPM_NAME")
                        .requires("npm")
                        .help("The main npm package's name (default: the extension's name); platform packages are named <NPM_NAME>-<platform>"),
                )
                .arg(
                    Arg::new("binary")
                        .long("binary")
                        .value_name("PLATFORM=PATH")
                        .action(ArgAction::Append)
                        .requires("npm")
                        .value_parser(|arg: &str| crate::npm::parse_binary(arg))
                        .help("A binary built for another platform (npm's name, e.g. darwin-arm64, or Rust's target, e.g. aarch64-apple-darwin); again for each. One for this platform replaces this binary"),
                ),
        )
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
    let matches = match command(&bin, &registry).try_get_matches_from(args) {
        Ok(m) => m,
        Err(e) => {
            // --help/--version land here too, with exit code 0.
            let _ = e.print();
            return ExitCode::from(e.exit_code() as u8);
        }
    };
    if matches.get_flag("pi-manifest") {
        let manifest = registry.manifest();
        let mut out = std::io::stdout().lock();
        let _ = serde_json::to_writer_pretty(&mut out, &manifest);
        let _ = writeln!(out);
        for p in &manifest.problems {
            eprintln!("warning: {p}");
        }
        return ExitCode::SUCCESS;
    }
    if let Some(tool) = matches.get_one::<String>("pi-prepare-arguments") {
        return prepare_arguments(&registry, tool);
    }
    if matches.get_flag("pi-settings-schema") {
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
        return ExitCode::SUCCESS;
    }
    if let Some(sub) = matches.subcommand_matches("install") {
        let target = if sub.get_flag("project") {
            InstallTarget::Project
        } else if let Some(dir) = sub.get_one::<PathBuf>("dir") {
            InstallTarget::Dir(dir.clone())
        } else {
            InstallTarget::Global
        };
        return match install(&registry.manifest(), target, sub.get_flag("dev")) {
            Ok(report) => {
                println!("{report}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: install failed: {e}");
                ExitCode::FAILURE
            }
        };
    }
    if let Some(sub) = matches.subcommand_matches("pack") {
        let dir = sub.get_one::<PathBuf>("dir").expect("required");
        if sub.get_flag("npm") {
            return pack_npm(&registry, dir, sub);
        }
        return match crate::install::pack(&registry.manifest(), dir) {
            Ok(dir) => {
                println!(
                    "packed pi extension `{}` into {}\ninstall it with: pi install {}",
                    registry.name,
                    dir.display(),
                    dir.display()
                );
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: pack failed: {e}");
                ExitCode::FAILURE
            }
        };
    }
    serve(registry)
}

/// `pack --npm`: write the packages and say how to publish them.
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

fn pack_npm(registry: &Registry, dir: &std::path::Path, args: &clap::ArgMatches) -> ExitCode {
    let binaries: Vec<_> = args
        .get_many::<(&'static crate::npm::Platform, PathBuf)>("binary")
        .into_iter()
        .flatten()
        .cloned()
        .collect();
    let name = args.get_one::<String>("name").map(String::as_str);
    match crate::npm::pack_npm(&registry.manifest(), dir, name, &binaries) {
        Ok(packages) => {
            let (main, main_dir) = &packages.main;
            println!("packed pi extension `{}` as npm packages:", registry.name);
            for (name, dir) in &packages.platforms {
                println!("  {name}: {}", dir.display());
            }
            println!("  {main}: {} (the one users install)", main_dir.display());
            println!("publish the platform packages first, then the main one:");
            for (_, dir) in &packages.platforms {
                println!("  npm publish --access public {}", dir.display());
            }
            println!("  npm publish --access public {}", main_dir.display());
            println!("then: pi install npm:{main}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: pack failed: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Serve the protocol on stdin/stdout until EOF or `shutdown`.
fn serve(registry: Registry) -> ExitCode {
    crate::logging::init();
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
    let runtime = match crate::runtime::build(workers) {
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
