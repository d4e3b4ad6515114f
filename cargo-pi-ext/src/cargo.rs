//! Running cargo: which package and binary the extension is, building it,
//! and where cargo put the binary (from cargo's own JSON messages).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{anyhow, bail, Context, Result};
use serde_json::Value;

use crate::Selection;

/// The cargo that runs this tool (cargo sets `CARGO` for its subcommands),
/// else the one on `PATH`.
pub(crate) fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// Run `cmd`, failing with what it printed when it fails.
pub(crate) fn run_quietly(cmd: &mut Command, what: &str) -> Result<String> {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("could not run {what}"))?;
    if !out.status.success() {
        bail!(
            "{what} failed ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim_end()
        );
    }
    String::from_utf8(out.stdout).with_context(|| format!("{what} printed something not UTF-8"))
}

/// Run `cmd` with the terminal's stdout and stderr; fail if it fails.
pub(crate) fn run_visibly(cmd: &mut Command, what: &str) -> Result<()> {
    let status = cmd
        .status()
        .with_context(|| format!("could not run {what}"))?;
    if !status.success() {
        bail!("{what} failed ({status})");
    }
    Ok(())
}

/// The extension package and binary the tool works on.
#[derive(Debug, Clone)]
pub(crate) struct Project {
    /// The workspace's root directory (watched by `dev`).
    pub(crate) workspace_root: PathBuf,
    /// Cargo's target directory.
    pub(crate) target_dir: PathBuf,
    /// The package, as `cargo metadata` describes it.
    pub(crate) package: Value,
    /// The binary target's name.
    pub(crate) bin: String,
    manifest_path: Option<PathBuf>,
}

impl Project {
    /// The package's name.
    pub(crate) fn name(&self) -> &str {
        self.package["name"].as_str().unwrap_or_default()
    }

    /// The package's directory.
    pub(crate) fn dir(&self) -> PathBuf {
        let manifest = PathBuf::from(self.package["manifest_path"].as_str().unwrap_or_default());
        manifest.parent().map(Path::to_path_buf).unwrap_or_default()
    }

    /// A package field of Cargo.toml (`license`, `repository`, ...), if set.
    pub(crate) fn field(&self, key: &str) -> Option<&str> {
        self.package[key].as_str().filter(|s| !s.is_empty())
    }

    fn cargo(&self, subcommand: &str) -> Command {
        let mut cmd = cargo();
        cmd.arg(subcommand);
        if let Some(path) = &self.manifest_path {
            cmd.arg("--manifest-path").arg(path);
        }
        cmd
    }
}

/// Find the extension: the package (`-p`, else the one the current
/// directory is in, else the only package with a binary that depends on
/// pi-ext) and its binary (`--bin`, else its only one).
pub(crate) fn project(selection: &Selection) -> Result<Project> {
    let mut cmd = cargo();
    cmd.args(["metadata", "--format-version", "1", "--no-deps"]);
    if let Some(path) = &selection.manifest_path {
        cmd.arg("--manifest-path").arg(path);
    }
    let metadata: Value = serde_json::from_str(&run_quietly(&mut cmd, "cargo metadata")?)
        .context("cargo metadata printed something that is not JSON")?;
    let packages = metadata["packages"].as_array().cloned().unwrap_or_default();
    let bins = |p: &Value| -> Vec<String> {
        p["targets"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|t| {
                t["kind"]
                    .as_array()
                    .is_some_and(|k| k.iter().any(|k| k == "bin"))
            })
            .filter_map(|t| t["name"].as_str().map(String::from))
            .collect()
    };
    let uses_pi_ext = |p: &Value| {
        p["dependencies"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|d| d["name"] == "pi-ext" && d["kind"].is_null())
    };
    let dir_of = |p: &Value| {
        Path::new(p["manifest_path"].as_str().unwrap_or_default())
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default()
    };
    let cwd = std::env::current_dir()?;
    let package = if let Some(name) = &selection.package {
        packages
            .iter()
            .find(|p| p["name"] == name.as_str())
            .ok_or_else(|| anyhow!("no package `{name}` in this workspace"))?
    } else if let Some(here) = packages
        .iter()
        .filter(|p| cwd.starts_with(dir_of(p)))
        .max_by_key(|p| dir_of(p).components().count())
    {
        here
    } else {
        let candidates: Vec<&Value> = packages
            .iter()
            .filter(|p| uses_pi_ext(p) && !bins(p).is_empty())
            .collect();
        match candidates.as_slice() {
            [only] => *only,
            [] => bail!("no package here has a binary that depends on pi-ext (create one with `cargo pi-ext new <name>`)"),
            several => bail!(
                "several extension packages here: choose one with -p ({})",
                several
                    .iter()
                    .filter_map(|p| p["name"].as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    };
    let name = package["name"].as_str().unwrap_or_default();
    if !uses_pi_ext(package) {
        bail!("package `{name}` does not depend on pi-ext: it is not a pi extension");
    }
    let all_bins = bins(package);
    let bin = match (&selection.bin, all_bins.as_slice()) {
        (Some(bin), found) if found.contains(bin) => bin.clone(),
        (Some(bin), found) => bail!(
            "package `{name}` has no binary `{bin}` (it has: {})",
            found.join(", ")
        ),
        (None, [only]) => only.clone(),
        (None, []) => bail!(
            "package `{name}` has no binary: add src/main.rs with `use <your_crate> as _; pi_ext::main!();`"
        ),
        (None, several) => bail!(
            "package `{name}` has several binaries: choose one with --bin ({})",
            several.join(", ")
        ),
    };
    Ok(Project {
        workspace_root: PathBuf::from(metadata["workspace_root"].as_str().unwrap_or_default()),
        target_dir: PathBuf::from(metadata["target_directory"].as_str().unwrap_or_default()),
        package: package.clone(),
        bin,
        manifest_path: selection.manifest_path.clone(),
    })
}

/// `cargo build` the extension's binary in `profile` (cargo's default
/// when `None`), showing cargo's progress and diagnostics on stderr as
/// usual. `Ok(Some(path))`: built; `Ok(None)`: the build failed, and
/// cargo has said why.
pub(crate) fn build(project: &Project, profile: Option<&str>) -> Result<Option<PathBuf>> {
    let mut cmd = project.cargo("build");
    // JSON on stdout (where the binary is), diagnostics rendered for people on stderr.
    cmd.args(["--message-format", "json-render-diagnostics", "--package"])
        .arg(project.name())
        .arg("--bin")
        .arg(&project.bin);
    if let Some(profile) = profile {
        cmd.args(["--profile", profile]);
    }
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .context("could not run cargo build")?;
    let stdout = child.stdout.take().expect("piped");
    let mut executable = None;
    for line in BufReader::new(stdout).lines() {
        let line = line.context("reading cargo's output")?;
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            // A build script's stray output: not ours to interpret.
            continue;
        };
        let is_our_bin = message["reason"] == "compiler-artifact"
            && message["target"]["name"] == project.bin.as_str()
            && message["target"]["kind"]
                .as_array()
                .is_some_and(|k| k.iter().any(|k| k == "bin"));
        if is_our_bin {
            if let Some(path) = message["executable"].as_str() {
                executable = Some(PathBuf::from(path));
            }
        }
    }
    let status = child.wait().context("waiting for cargo build")?;
    if !status.success() {
        return Ok(None);
    }
    executable.map(Some).ok_or_else(|| {
        anyhow!(
            "cargo build succeeded but named no binary `{}`",
            project.bin
        )
    })
}
