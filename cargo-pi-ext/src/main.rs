//! `cargo pi-ext`: the tool chain of pi-ext extension authors.
//!
//! - `cargo pi-ext new <path>`: a ready extension crate (library + a
//!   three-line binary, one tool, one command, one hook, a test, a README).
//! - `cargo pi-ext dev`: build, install with hot reload, rebuild when a file
//!   changes; a running pi switches to each new build.
//! - `cargo pi-ext package`: the npm packages for `pi install npm:<name>`
//!   (a main package and one per platform), and a CI workflow that builds
//!   every platform.
//!
//! It drives the ordinary `cargo` (and the extension binary's own
//! `install` and `pack`); it writes no build logic of its own.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

mod cargo;
mod dev;
mod new;
mod package;
mod workflow;

/// cargo runs `cargo-pi-ext pi-ext <args>` for `cargo pi-ext <args>`.
#[derive(Parser)]
#[command(name = "cargo", bin_name = "cargo")]
enum CargoCli {
    /// The pi-ext tool chain: new, dev, package.
    PiExt(PiExt),
}

#[derive(Args)]
#[command(
    version,
    about = "The pi-ext tool chain: create, develop and package pi extensions written in Rust",
    after_help = "Run `cargo pi-ext <command> --help` for a command's options."
)]
struct PiExt {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Create an extension crate: a library with one tool, one command and one
    /// hook, a three-line binary, a test and a README; `cargo test` passes in it.
    New(new::NewArgs),
    /// Build, install with hot reload, and rebuild on every change: a running
    /// pi switches to each new build. Ctrl+C stops it.
    Dev(dev::DevArgs),
    /// Write the npm packages for `pi install npm:<name>`: a main package and
    /// one per platform (builds this platform's binary; others with --binary).
    Package(package::PackageArgs),
}

/// Which binary of which package (shared by `dev` and `package`).
#[derive(Args, Debug, Clone, Default)]
struct Selection {
    /// The package (in a workspace with several extension packages).
    #[arg(short = 'p', long = "package", value_name = "PACKAGE")]
    package: Option<String>,
    /// The binary (in a package with several).
    #[arg(long = "bin", value_name = "NAME")]
    bin: Option<String>,
    /// The Cargo.toml to use (default: the one cargo finds from here).
    #[arg(long = "manifest-path", value_name = "PATH")]
    manifest_path: Option<PathBuf>,
}

fn main() -> ExitCode {
    let CargoCli::PiExt(cli) = CargoCli::parse();
    let result = match cli.command {
        Command::New(args) => new::run(&args),
        Command::Dev(args) => dev::run(&args),
        Command::Package(args) => package::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
