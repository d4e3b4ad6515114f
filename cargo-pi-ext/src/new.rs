//! `cargo pi-ext new`: a ready extension crate.
//!
//! `cargo new --lib` makes the crate (and its git repository), `cargo add`
//! the dependency on pi-ext (and, for the tests, on pi-ext-test); then the template's files replace the library
//! and add the binary, the terminal UI's module, the tests and a README. The template is a real crate
//! named `my-ext` (`templates/`); its names are replaced by the new ones.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;

use crate::cargo::{cargo, run_quietly, run_visibly};

/// `cargo pi-ext new` options.
#[derive(Args, Debug)]
pub(crate) struct NewArgs {
    /// Where to create the crate; its last component is the name, unless --name is given.
    path: PathBuf,
    /// The crate's and the extension's name (lowercase letters, digits, `-`, `_`).
    #[arg(long)]
    name: Option<String>,
    /// Depend on the pi-ext crate at this path instead of the version on crates.io (and on
    /// pi-ext-test beside it, when there is one).
    #[arg(long, value_name = "DIR")]
    pi_ext_path: Option<PathBuf>,
}

/// The template's files: (path in the new crate, contents).
const TEMPLATE: &[(&str, &str)] = &[
    ("src/lib.rs", include_str!("../templates/lib.rs")),
    ("src/main.rs", include_str!("../templates/main.rs")),
    ("src/ui.rs", include_str!("../templates/ui.rs")),
    (
        "tests/extension.rs",
        include_str!("../templates/extension_test.rs"),
    ),
    ("tests/e2e.rs", include_str!("../templates/e2e.rs")),
    ("README.md", include_str!("../templates/README.md")),
];

/// The pi-ext crate of the checkout this tool was built from, if it was
/// built from a checkout of the pi-ext repository (pi-ext is not on
/// crates.io yet, so a new crate depends on it by path). A tool installed
/// from crates.io has no such sibling and uses the version instead.
fn checkout_pi_ext() -> Option<PathBuf> {
    let tool = Path::new(env!("CARGO_MANIFEST_DIR"));
    let pi_ext = tool.parent()?.join("pi-ext");
    let is_pi_ext = std::fs::read_to_string(pi_ext.join("Cargo.toml"))
        .is_ok_and(|toml| toml.contains("name = \"pi-ext\""));
    is_pi_ext.then_some(pi_ext)
}

/// The names the template's `my-ext`, `my_ext` and `MyExt` become.
#[derive(Debug, PartialEq)]
struct Names {
    /// The crate and the extension (`my-ext`).
    package: String,
    /// The library as Rust code names it (`my_ext`).
    krate: String,
    /// The extension's state type (`MyExt`).
    type_name: String,
}

impl Names {
    fn new(name: &str) -> Result<Names> {
        let valid = (1..=64).contains(&name.len())
            && name.starts_with(|c: char| c.is_ascii_lowercase())
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_');
        if !valid {
            bail!(
                "`{name}` cannot name an extension: use 1 to 64 lowercase letters, digits, `-` and `_`, \
                 starting with a letter (choose one with --name)"
            );
        }
        if matches!(name, "pi-ext" | "pi_ext" | "pi-ext-macros" | "test") {
            bail!("`{name}` is taken (pi-ext's own crates, or Rust's `test`): choose another with --name");
        }
        let type_name = name
            .split(['-', '_'])
            .filter(|part| !part.is_empty())
            .map(|part| {
                let mut chars = part.chars();
                let first = chars.next().map(|c| c.to_ascii_uppercase());
                first.into_iter().chain(chars).collect::<String>()
            })
            .collect();
        Ok(Names {
            package: name.to_string(),
            krate: name.replace('-', "_"),
            type_name,
        })
    }

    fn apply(&self, template: &str) -> String {
        template
            .replace("my-ext", &self.package)
            .replace("my_ext", &self.krate)
            .replace("MyExt", &self.type_name)
    }
}

/// Lines added to `[package]` after `edition` (what `cargo publish` asks for).
fn package_fields(names: &Names) -> String {
    format!(
        "description = \"A pi extension written in Rust: {} (change this line)\"\n\
         license = \"MIT OR Apache-2.0\"\n\
         keywords = [\"pi\", \"pi-extension\", \"coding-agent\"]\n",
        names.package
    )
}

/// The release profile a new extension gets (pi-ext's own workspace uses
/// the same): in pi, between two calls, the extension's code is out of the
/// CPU's caches, and one codegen unit with fat LTO makes each call run less
/// distinct code and the binary smaller (pi-ext's BENCHMARKS.md, row 1a),
/// for a slower release build.
const RELEASE_PROFILE: &str = "\n\
    # What pi runs (`cargo pi-ext package`): fat LTO and one codegen unit make\n\
    # each call cheaper and the binary smaller, for a slower release build.\n\
    [profile.release]\n\
    strip = true\n\
    lto = \"fat\"\n\
    codegen-units = 1\n";

/// Whether the crate at `dir` is its workspace's root (not a member that
/// `cargo new` added to an enclosing workspace).
fn is_own_workspace(dir: &Path, manifest: &Path) -> bool {
    let located = run_quietly(
        cargo().current_dir(dir).args([
            "locate-project",
            "--workspace",
            "--message-format",
            "plain",
        ]),
        "cargo locate-project",
    );
    let Ok(root) = located else {
        return false;
    };
    matches!(
        (Path::new(root.trim()).canonicalize(), manifest.canonicalize()),
        (Ok(a), Ok(b)) if a == b
    )
}

/// `toml` with `fields` added to `[package]`, after its `edition` line (or
/// at its end). Cargo.toml is the one `cargo new` just wrote.
fn with_package_fields(toml: &str, fields: &str) -> String {
    let mut out = String::with_capacity(toml.len() + fields.len());
    let mut in_package = false;
    let mut added = false;
    for line in toml.lines() {
        let header = line.trim_start().starts_with('[');
        if header && in_package && !added {
            out.push_str(fields);
            added = true;
        }
        if header {
            in_package = line.trim() == "[package]";
        }
        out.push_str(line);
        out.push('\n');
        if in_package && !added && line.trim_start().starts_with("edition") {
            out.push_str(fields);
            added = true;
        }
    }
    if !added {
        out.push_str(fields);
    }
    out
}

pub(crate) fn run(args: &NewArgs) -> Result<()> {
    let name = match &args.name {
        Some(name) => name.clone(),
        None => args
            .path
            .file_name()
            .and_then(|n| n.to_str())
            .map(String::from)
            .with_context(|| {
                format!(
                    "{} has no name to use: give one with --name",
                    args.path.display()
                )
            })?,
    };
    let names = Names::new(&name)?;
    // cargo new refuses an existing destination itself; say so before it.
    if args.path.exists() {
        bail!("{} already exists", args.path.display());
    }
    run_visibly(
        cargo()
            .args(["new", "--lib", "--name", &names.package])
            .arg(&args.path),
        "cargo new",
    )?;
    let dir = &args.path;
    let pi_ext_path = args.pi_ext_path.clone().or_else(checkout_pi_ext);
    let mut add = cargo();
    add.current_dir(dir).args(["add", "--quiet"]);
    match &pi_ext_path {
        Some(path) => {
            let path = std::path::absolute(path)?;
            add.arg("pi-ext").arg("--path").arg(path);
        }
        None => {
            add.arg(format!("pi-ext@{}", env!("CARGO_PKG_VERSION")));
        }
    }
    run_visibly(&mut add, "cargo add pi-ext")?;
    // The end-to-end kit, from the same checkout (its sibling) or version.
    let mut add = cargo();
    add.current_dir(dir).args(["add", "--quiet", "--dev"]);
    let kit = match &pi_ext_path {
        Some(path) => Some(std::path::absolute(path)?.with_file_name("pi-ext-test")),
        None => None,
    };
    match kit.filter(|kit| kit.join("Cargo.toml").is_file()) {
        Some(kit) => {
            add.arg("pi-ext-test").arg("--path").arg(kit);
        }
        None => {
            add.arg(format!("pi-ext-test@{}", env!("CARGO_PKG_VERSION")));
        }
    }
    run_visibly(&mut add, "cargo add --dev pi-ext-test")?;

    let manifest = dir.join("Cargo.toml");
    let toml = std::fs::read_to_string(&manifest)
        .with_context(|| format!("reading {}", manifest.display()))?;
    let mut toml = with_package_fields(&toml, &package_fields(&names));
    // Cargo reads profiles at a workspace's root only (and warns about
    // the others): a crate made inside a workspace gets none.
    if is_own_workspace(dir, &manifest) && !toml.contains("[profile.release]") {
        toml.push_str(RELEASE_PROFILE);
    }
    std::fs::write(&manifest, toml).with_context(|| format!("writing {}", manifest.display()))?;
    for (file, template) in TEMPLATE {
        let path = dir.join(file);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, names.apply(template))
            .with_context(|| format!("writing {}", path.display()))?;
    }

    let n = &names.package;
    println!(
        "\ncreated the pi extension `{n}` in {dir}{from}\n\nnext:\n  \
         cd {dir}\n  \
         cargo test             # the tool, command, hook and UI without pi; then a tool call in the real pi\n  \
         cargo run -- install   # build it and add it to pi ($PI_CODING_AGENT_DIR or ~/.pi/agent/extensions/{n}/)\n  \
         pi                     # then ask: \"greet Ada\"\n\n\
         or, while you edit:\n  \
         cargo pi-ext dev       # rebuild on every change; a running pi switches to each build",
        dir = dir.display(),
        from = match &pi_ext_path {
            Some(p) => format!(" (pi-ext from {})", p.display()),
            None => String::new(),
        },
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_extension_rule_and_become_rust_names() {
        let names = Names::new("weather-now_2").unwrap();
        assert_eq!(
            names,
            Names {
                package: "weather-now_2".into(),
                krate: "weather_now_2".into(),
                type_name: "WeatherNow2".into(),
            }
        );
        for bad in [
            "",
            "My-Ext",
            "2fast",
            "-x",
            "a b",
            "pi-ext",
            "test",
            &"a".repeat(65),
        ] {
            assert!(Names::new(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_template_is_renamed_everywhere() {
        let names = Names::new("weather").unwrap();
        for (file, template) in TEMPLATE {
            let out = names.apply(template);
            assert!(
                !out.contains("my-ext") && !out.contains("my_ext") && !out.contains("MyExt"),
                "{file}"
            );
        }
        let lib = names.apply(TEMPLATE[0].1);
        assert!(lib.contains("#[extension(name = \"weather\""));
        assert!(lib.contains("pub struct Weather {"));
        assert!(lib.contains("#[command(name = \"weather-stats\")]"));
        assert!(names.apply(TEMPLATE[1].1).contains("use weather as _;"));
        assert!(names.apply(TEMPLATE[2].1).contains("`/weather-hello`"));
    }

    #[test]
    fn package_fields_go_after_edition_in_the_package_table() {
        let toml =
            "[package]\nname = \"x\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[dependencies]\n";
        assert_eq!(
            with_package_fields(toml, "license = \"MIT\"\n"),
            "[package]\nname = \"x\"\nversion = \"0.1.0\"\nedition = \"2024\"\nlicense = \"MIT\"\n\n[dependencies]\n"
        );
        // No edition line: at the end of [package].
        let toml = "[package]\nname = \"x\"\n[dependencies]\n";
        assert_eq!(
            with_package_fields(toml, "license = \"MIT\"\n"),
            "[package]\nname = \"x\"\nlicense = \"MIT\"\n[dependencies]\n"
        );
    }

    #[test]
    fn a_build_from_this_checkout_finds_its_pi_ext() {
        let found = checkout_pi_ext().expect("built from the repository");
        assert!(found.join("bridge/index.js").is_file());
    }
}
