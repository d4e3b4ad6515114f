//! `cargo pi-ext package`: the npm packages for `pi install npm:<name>`.
//!
//! The extension binary writes them itself (`<bin> pack <dir> --npm`), so
//! the bridge in them is the one of the pi-ext version the binary was
//! built with. This command builds that binary for this machine (or takes
//! binaries built elsewhere), runs it, and adds what Cargo.toml says about
//! the package (license, repository, homepage, README) to the npm packages.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use clap::Args;
use serde_json::{json, Value};

use crate::cargo::{build, project, run_visibly, Project};
use crate::Selection;

/// `cargo pi-ext package` options.
#[derive(Args, Debug)]
pub(crate) struct PackageArgs {
    #[command(flatten)]
    selection: Selection,
    /// Where to write the packages (default: pi-ext-npm/ in the target directory, emptied first).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// The main npm package's name (default: the crate's name); platform
    /// packages are NAME-PLATFORM (e.g. my-ext-linux-x64-gnu).
    #[arg(long, value_name = "NAME")]
    npm_name: Option<String>,
    /// A binary built for another platform: PLATFORM is npm's name
    /// (darwin-arm64, linux-x64-gnu, win32-x64-msvc, ...) or Rust's target
    /// (aarch64-apple-darwin, ...). Repeat for each.
    #[arg(long = "binary", value_name = "PLATFORM=PATH")]
    binaries: Vec<String>,
    /// Build nothing: package the --binary ones only (one of them must run
    /// on this machine: it writes the packages).
    #[arg(long)]
    no_build: bool,
    /// The cargo profile to build this machine's binary with.
    #[arg(long, value_name = "NAME", default_value = "release")]
    profile: String,
    /// Instead of packaging: write a GitHub Actions workflow that builds
    /// every platform and publishes the packages (at PATH, default
    /// .github/workflows/pi-ext-npm.yml in the workspace).
    #[arg(long, value_name = "PATH", num_args = 0..=1)]
    ci_workflow: Option<Option<PathBuf>>,
}

pub(crate) fn run(args: &PackageArgs) -> Result<()> {
    let project = project(&args.selection)?;
    let npm_name = args
        .npm_name
        .clone()
        .unwrap_or_else(|| project.name().to_string());
    if let Some(path) = &args.ci_workflow {
        return write_workflow(&project, &npm_name, path.as_deref());
    }
    let packer = if args.no_build {
        if args.binaries.is_empty() {
            bail!("--no-build needs the binaries: --binary PLATFORM=PATH for each");
        }
        runnable_binary(&args.binaries)?
    } else {
        eprintln!(
            "[pi-ext package] building {} ({} profile)",
            project.bin, args.profile
        );
        build(&project, Some(&args.profile))?.context("the build failed (see above)")?
    };

    let out = match &args.out {
        Some(out) => out.clone(),
        None => {
            let out = project.target_dir.join("pi-ext-npm");
            // Ours: stale packages of an earlier run must not be published.
            if out.exists() {
                std::fs::remove_dir_all(&out)
                    .with_context(|| format!("could not empty {}", out.display()))?;
            }
            out
        }
    };
    let mut pack = Command::new(&packer);
    pack.arg("pack")
        .arg(&out)
        .args(["--npm", "--name", &npm_name]);
    for binary in &args.binaries {
        pack.args(["--binary", binary]);
    }
    run_visibly(&mut pack, &format!("{} pack --npm", packer.display()))?;

    let base = npm_name.rsplit('/').next().unwrap_or(&npm_name);
    let readme = project.field("readme").map(|r| project.dir().join(r));
    let readme = readme
        .filter(|r| r.is_file())
        .or_else(|| Some(project.dir().join("README.md")).filter(|r| r.is_file()));
    for (dir, main) in package_dirs(&out, base)? {
        describe(&dir, &project, if main { readme.as_deref() } else { None })?;
    }
    Ok(())
}

/// The first of `binaries` (`PLATFORM=PATH`) that runs here: it answers
/// `--pi-manifest`.
fn runnable_binary(binaries: &[String]) -> Result<PathBuf> {
    for spec in binaries {
        let Some((_, path)) = spec.split_once('=') else {
            bail!("`{spec}` is not PLATFORM=PATH");
        };
        let ran = Command::new(path).arg("--pi-manifest").output();
        if ran.is_ok_and(|out| out.status.success()) {
            return Ok(PathBuf::from(path));
        }
    }
    bail!(
        "none of the --binary files runs on this machine, and one has to write the packages: \
         give this machine's build too (or drop --no-build)"
    )
}

/// The package directories `pack --npm` wrote for `base` in `out`, and
/// whether each is the main one.
fn package_dirs(out: &Path, base: &str) -> Result<Vec<(PathBuf, bool)>> {
    let mut dirs = Vec::new();
    for entry in std::fs::read_dir(out).with_context(|| format!("reading {}", out.display()))? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let ours = name == base || name.strip_prefix(base).is_some_and(|r| r.starts_with('-'));
        if ours && entry.path().join("package.json").is_file() {
            dirs.push((entry.path(), name == base));
        }
    }
    dirs.sort();
    Ok(dirs)
}

/// Add what Cargo.toml says (license, repository, homepage) to a
/// package.json, and the README to the main package.
fn describe(dir: &Path, project: &Project, readme: Option<&Path>) -> Result<()> {
    let path = dir.join("package.json");
    let mut package: Value = serde_json::from_str(
        &std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?,
    )
    .with_context(|| format!("{} is not JSON", path.display()))?;
    for (cargo_key, npm_key) in [
        ("license", "license"),
        ("repository", "repository"),
        ("homepage", "homepage"),
    ] {
        if let Some(value) = project.field(cargo_key) {
            package[npm_key] = json!(value);
        }
    }
    if let Some(readme) = readme {
        std::fs::copy(readme, dir.join("README.md"))
            .with_context(|| format!("copying {}", readme.display()))?;
    }
    let mut text = serde_json::to_string_pretty(&package)?;
    text.push('\n');
    std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))
}

fn write_workflow(project: &Project, npm_name: &str, path: Option<&Path>) -> Result<()> {
    let path = match path {
        Some(path) => path.to_path_buf(),
        None => project
            .workspace_root
            .join(".github/workflows/pi-ext-npm.yml"),
    };
    if path.exists() {
        bail!(
            "{} exists: remove it first, or choose another path with --ci-workflow PATH",
            path.display()
        );
    }
    // The package's directory relative to the repository root (the checkout in CI).
    let manifest = project
        .dir()
        .join("Cargo.toml")
        .strip_prefix(&project.workspace_root)
        .map(Path::to_path_buf)
        .unwrap_or_else(|_| PathBuf::from("Cargo.toml"));
    let text = crate::workflow::workflow(&crate::workflow::Workflow {
        package: project.name(),
        bin: &project.bin,
        npm_name,
        manifest: &manifest.to_string_lossy(),
        tool_version: env!("CARGO_PKG_VERSION"),
    });
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    println!(
        "wrote {}: on a tag v*, it builds {} for {} and publishes the npm packages (set the NPM_TOKEN secret)",
        path.display(),
        project.bin,
        crate::workflow::TARGETS
            .iter()
            .map(|t| t.target)
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_dirs_are_the_main_one_and_its_platforms_only() {
        let out = std::env::temp_dir().join(format!("pi-ext-package-dirs-{}", std::process::id()));
        for dir in [
            "my-ext",
            "my-ext-linux-x64-gnu",
            "my-extra",
            "other",
            "my-ext-empty",
        ] {
            std::fs::create_dir_all(out.join(dir)).unwrap();
            if dir != "my-ext-empty" {
                std::fs::write(out.join(dir).join("package.json"), "{}").unwrap();
            }
        }
        let found = package_dirs(&out, "my-ext").unwrap();
        assert_eq!(
            found,
            vec![
                (out.join("my-ext"), true),
                (out.join("my-ext-linux-x64-gnu"), false)
            ]
        );
        std::fs::remove_dir_all(&out).unwrap();
    }
}
