//! `<bin> pack`: the extension as a pi package, or as npm packages (feature
//! `pack`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::Invocation;
use crate::cli::npm::Platform;
use crate::registry::{BinInfo, Registry};

const PACK_HELP: &str = "\
Write a pi package (package.json, bridge, this binary) that `pi install <dir>` accepts

Usage: {bin} pack DIR [--npm [--name NPM_NAME] [--binary PLATFORM=PATH]...]

Options:
      --npm                   Write npm packages for `pi install npm:<name>` instead:
                              DIR/<name>/ (the bridge, with optionalDependencies) and
                              DIR/<name>-<platform>/ per platform (the binary, with os/cpu/libc)
      --name NPM_NAME         The main npm package's name (default: the extension's name);
                              platform packages are named <NPM_NAME>-<platform>
      --binary PLATFORM=PATH  A binary built for another platform (npm's name, e.g. darwin-arm64,
                              or Rust's target, e.g. aarch64-apple-darwin); again for each. One
                              for this platform replaces this binary
  -h, --help                  Print help";

/// `pack --npm`'s options.
#[derive(Debug, PartialEq)]
pub(super) struct NpmPack {
    pub(super) name: Option<String>,
    pub(super) binaries: Vec<(&'static Platform, PathBuf)>,
}

pub(super) fn parse(bin: &BinInfo, parser: &mut lexopt::Parser) -> Result<Invocation, String> {
    use lexopt::prelude::*;
    let (mut dir, mut npm, mut name, mut binaries) = (None::<PathBuf>, false, None, Vec::new());
    while let Some(arg) = parser.next().map_err(|e| e.to_string())? {
        match arg {
            Long("npm") => npm = true,
            Long("name") => {
                name = Some(
                    parser
                        .value()
                        .and_then(|v| v.string())
                        .map_err(|e| e.to_string())?,
                )
            }
            Long("binary") => {
                let value = parser
                    .value()
                    .and_then(|v| v.string())
                    .map_err(|e| e.to_string())?;
                binaries.push(
                    crate::cli::npm::parse_binary(&value)
                        .map_err(|e| format!("pack: --binary: {e}"))?,
                );
            }
            Short('h') | Long("help") => {
                return Ok(Invocation::Print(PACK_HELP.replace("{bin}", bin.bin)))
            }
            Value(value) if dir.is_none() => dir = Some(value.into()),
            other => return Err(format!("pack: {}", other.unexpected())),
        }
    }
    let dir = dir.ok_or("pack: the directory to write is missing: `pack DIR`")?;
    if !npm && (name.is_some() || !binaries.is_empty()) {
        return Err("pack: --name and --binary go with --npm".into());
    }
    let npm = npm.then_some(NpmPack { name, binaries });
    Ok(Invocation::Pack { dir, npm })
}

/// `pack --npm`: write the packages and say how to publish them.
fn pack_npm(registry: &Registry, dir: &Path, npm: NpmPack) -> ExitCode {
    match crate::cli::npm::pack_npm(
        &registry.manifest(),
        dir,
        npm.name.as_deref(),
        &npm.binaries,
    ) {
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

/// Run `pack`.
pub(super) fn run(registry: &Registry, dir: &Path, npm: Option<NpmPack>) -> ExitCode {
    match npm {
        Some(npm) => pack_npm(registry, dir, npm),
        None => match crate::cli::install::pack(&registry.manifest(), dir) {
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
        },
    }
}
