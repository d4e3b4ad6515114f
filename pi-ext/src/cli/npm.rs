//! `pack --npm`: the npm packages that make `pi install npm:<name>` work for
//! users without Rust, as napi-rs and esbuild ship native code.
//!
//! - One package per platform (`<name>-linux-x64-gnu`, `<name>-darwin-arm64`,
//!   …) holds the binary in `bin/` and says where it runs with npm's `os`,
//!   `cpu` and (on Linux) `libc` fields.
//! - The main package (`<name>`) holds the bridge, with the manifest recorded,
//!   and lists every platform package in `optionalDependencies` at its exact
//!   version. npm installs only the platform package that matches the user's
//!   machine; the bridge finds it (`bridge/lib/platform.js`) and names the
//!   platform when there is none.

use std::io;
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::cli::install::{check_name, write_bridge, ENTRY_FILE, SHARED_BRIDGE_FILE};
use crate::util::atomic_file::{copy_atomic, write_atomic, FileMode};

/// A platform npm can tell apart, with Rust's name for it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Platform {
    /// npm's name for it (`linux-x64-gnu`): the platform package's suffix.
    pub(crate) key: &'static str,
    /// Rust's target triple.
    pub(crate) target: &'static str,
    /// Node's `process.platform`, npm's `os`.
    pub(crate) os: &'static str,
    /// Node's `process.arch`, npm's `cpu`.
    pub(crate) cpu: &'static str,
    /// npm's `libc` (Linux only: a glibc binary does not run on musl).
    pub(crate) libc: Option<&'static str>,
}

impl Platform {
    fn exe_suffix(&self) -> &'static str {
        if self.os == "win32" {
            ".exe"
        } else {
            ""
        }
    }
}

const fn platform(
    key: &'static str,
    target: &'static str,
    os: &'static str,
    cpu: &'static str,
    libc: Option<&'static str>,
) -> Platform {
    Platform {
        key,
        target,
        os,
        cpu,
        libc,
    }
}

/// The platforms `pack --npm` knows (the names napi-rs uses).
pub(crate) const PLATFORMS: &[Platform] = &[
    platform(
        "linux-x64-gnu",
        "x86_64-unknown-linux-gnu",
        "linux",
        "x64",
        Some("glibc"),
    ),
    platform(
        "linux-x64-musl",
        "x86_64-unknown-linux-musl",
        "linux",
        "x64",
        Some("musl"),
    ),
    platform(
        "linux-arm64-gnu",
        "aarch64-unknown-linux-gnu",
        "linux",
        "arm64",
        Some("glibc"),
    ),
    platform(
        "linux-arm64-musl",
        "aarch64-unknown-linux-musl",
        "linux",
        "arm64",
        Some("musl"),
    ),
    platform(
        "linux-arm-gnueabihf",
        "armv7-unknown-linux-gnueabihf",
        "linux",
        "arm",
        Some("glibc"),
    ),
    platform("darwin-x64", "x86_64-apple-darwin", "darwin", "x64", None),
    platform(
        "darwin-arm64",
        "aarch64-apple-darwin",
        "darwin",
        "arm64",
        None,
    ),
    platform(
        "win32-x64-msvc",
        "x86_64-pc-windows-msvc",
        "win32",
        "x64",
        None,
    ),
    platform(
        "win32-arm64-msvc",
        "aarch64-pc-windows-msvc",
        "win32",
        "arm64",
        None,
    ),
    platform(
        "freebsd-x64",
        "x86_64-unknown-freebsd",
        "freebsd",
        "x64",
        None,
    ),
];

/// The platform this binary was built for, if npm can name it.
pub(crate) fn host_platform() -> Option<&'static Platform> {
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        "windows" => "win32",
        other => other,
    };
    let cpu = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => other,
    };
    let libc = (os == "linux").then_some(if cfg!(target_env = "musl") {
        "musl"
    } else {
        "glibc"
    });
    PLATFORMS
        .iter()
        .find(|p| p.os == os && p.cpu == cpu && p.libc == libc)
}

/// The platform named by its npm name or its Rust target triple.
pub(crate) fn find_platform(name: &str) -> Option<&'static Platform> {
    PLATFORMS.iter().find(|p| p.key == name || p.target == name)
}

/// `<platform>=<path>` (a `--binary` argument).
///
/// # Errors
///
/// A message saying what is wrong, with the platforms known.
pub(crate) fn parse_binary(arg: &str) -> Result<(&'static Platform, PathBuf), String> {
    let Some((name, path)) = arg
        .split_once('=')
        .filter(|(n, p)| !n.is_empty() && !p.is_empty())
    else {
        return Err(format!(
            "`{arg}` is not PLATFORM=PATH (e.g. aarch64-apple-darwin=target/aarch64-apple-darwin/release/my-ext)"
        ));
    };
    let platform = find_platform(name).ok_or_else(|| {
        let known: Vec<String> = PLATFORMS
            .iter()
            .map(|p| format!("{} ({})", p.key, p.target))
            .collect();
        format!("unknown platform `{name}`; known: {}", known.join(", "))
    })?;
    Ok((platform, PathBuf::from(path)))
}

/// npm's rule for package names (lowercase, URL-safe, at most 214
/// characters, optionally `@scope/`), so that a bad `--name` fails here
/// and not at `npm publish`.
fn check_npm_name(name: &str) -> io::Result<()> {
    let part_ok = |part: &str| {
        !part.is_empty()
            && !part.starts_with(['.', '_'])
            && part.bytes().all(|b| {
                b.is_ascii_lowercase()
                    || b.is_ascii_digit()
                    || matches!(b, b'-' | b'.' | b'_' | b'~')
            })
    };
    let ok = name.len() <= 214
        && match name.strip_prefix('@') {
            Some(scoped) => scoped
                .split_once('/')
                .is_some_and(|(scope, rest)| part_ok(scope) && part_ok(rest)),
            None => part_ok(name),
        };
    if ok {
        return Ok(());
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "invalid npm package name `{name}`: use lowercase letters, digits, `-`, `.`, `_` and `~`, \
             optionally with an `@scope/` prefix"
        ),
    ))
}

/// What [`pack_npm`] wrote.
#[derive(Debug)]
pub(crate) struct NpmPackages {
    /// The main package's name and directory.
    pub(crate) main: (String, PathBuf),
    /// Each platform package's name and directory.
    pub(crate) platforms: Vec<(String, PathBuf)>,
}

/// Write the main package and one package per platform into `out`: the
/// running binary for its own platform (unless `binaries` has one for it)
/// and each of `binaries`. `name` is the main package's npm name (default:
/// the extension's name). A package directory that exists and is not empty
/// is left alone and refused.
///
/// # Errors
///
/// An invalid name, a platform given twice, a missing binary, a package
/// directory in the way, or the I/O error of writing.
pub(crate) fn pack_npm(
    manifest: &crate::Manifest,
    out: &Path,
    name: Option<&str>,
    binaries: &[(&'static Platform, PathBuf)],
) -> io::Result<NpmPackages> {
    let invalid = |message: String| io::Error::new(io::ErrorKind::InvalidInput, message);
    check_name(&manifest.name)?;
    let npm_name = name.unwrap_or(&manifest.name);
    check_npm_name(npm_name)?;
    let mut all: Vec<(&'static Platform, PathBuf)> = Vec::new();
    match host_platform() {
        Some(host) if !binaries.iter().any(|(p, _)| p == &host) => {
            all.push((host, std::env::current_exe()?));
        }
        Some(_) => {}
        None if binaries.is_empty() => {
            return Err(invalid(format!(
                "npm has no platform name for this machine ({}-{}): give the binaries with --binary PLATFORM=PATH",
                std::env::consts::OS,
                std::env::consts::ARCH
            )))
        }
        None => {}
    }
    for (platform, path) in binaries {
        if all.iter().any(|(p, _)| p == platform) {
            return Err(invalid(format!(
                "two binaries for {} ({})",
                platform.key, platform.target
            )));
        }
        if !path.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!(
                    "the binary for {} is not a file: {}",
                    platform.key,
                    path.display()
                ),
            ));
        }
        all.push((platform, path.clone()));
    }
    all.sort_by_key(|(p, _)| p.key);

    // `@scope/name` is written to `out/name`.
    let dir_name = npm_name.rsplit('/').next().unwrap_or(npm_name);
    let main_dir = out.join(dir_name);
    let platform_dirs: Vec<PathBuf> = all
        .iter()
        .map(|(p, _)| out.join(format!("{dir_name}-{}", p.key)))
        .collect();
    for dir in std::iter::once(&main_dir).chain(&platform_dirs) {
        if std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some()) {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!(
                    "{} exists and is not empty: remove it or pack into another directory",
                    dir.display()
                ),
            ));
        }
    }

    let version = &manifest.version;
    let mut platforms = serde_json::Map::new();
    let mut optional = serde_json::Map::new();
    let mut written = Vec::new();
    for ((platform, binary), dir) in all.iter().zip(&platform_dirs) {
        let package = format!("{npm_name}-{}", platform.key);
        let bin = format!("bin/{}{}", manifest.name, platform.exe_suffix());
        copy_atomic(binary, &dir.join(&bin), FileMode::Executable)?;
        let mut json = json!({
            "name": package,
            "version": version,
            "description": format!("The {} binary of {npm_name} (installed by {npm_name}; not for direct use)", platform.key),
            "os": [platform.os],
            "cpu": [platform.cpu],
            "files": ["bin/"],
        });
        if let Some(libc) = platform.libc {
            json["libc"] = json!([libc]);
        }
        write_json(&dir.join("package.json"), &json)?;
        let size = std::fs::metadata(dir.join(&bin))?.len();
        let mut entry = json!({
            "package": package, "bin": bin, "os": platform.os, "cpu": platform.cpu, "size": size,
        });
        if let Some(libc) = platform.libc {
            entry["libc"] = json!(libc);
        }
        platforms.insert(platform.key.to_string(), entry);
        optional.insert(package.clone(), json!(version));
        written.push((package, std::path::absolute(dir)?));
    }

    // No `"type": "module"` (see `install::pack`): jiti loads `index.js`.
    let main = json!({
        "name": npm_name,
        "version": version,
        "description": manifest.description,
        "keywords": ["pi-package", "pi-ext"],
        "files": ["index.js", ENTRY_FILE, SHARED_BRIDGE_FILE],
        "pi": { "extensions": ["./index.js"] },
        "optionalDependencies": optional,
    });
    write_json(&main_dir.join("package.json"), &main)?;
    // The manifest without a size: each platform's binary has its own,
    // and the bridge checks the one it found.
    let config = json!({
        "name": manifest.name,
        "platforms": platforms,
        "log": format!("./{}.log", manifest.name),
        "cache": { "manifest": manifest },
    });
    write_bridge(&main_dir, &config)?;
    Ok(NpmPackages {
        main: (npm_name.to_string(), std::path::absolute(&main_dir)?),
        platforms: written,
    })
}

fn write_json(path: &Path, value: &serde_json::Value) -> io::Result<()> {
    let mut text = serde_json::to_string_pretty(value).map_err(io::Error::other)?;
    text.push('\n');
    write_atomic(path, text.as_bytes(), FileMode::Shared)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(name: &str) -> crate::Manifest {
        let mut m = crate::Registry::from_inventory(None).manifest();
        m.name = name.into();
        m.version = "1.2.3".into();
        m
    }

    fn read(path: &Path) -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn platforms_are_found_by_npm_name_or_rust_target_and_are_unique() {
        assert_eq!(
            find_platform("aarch64-apple-darwin"),
            find_platform("darwin-arm64")
        );
        assert_eq!(find_platform("linux-x64-gnu").unwrap().libc, Some("glibc"));
        assert!(find_platform("x86_64-sun-solaris").is_none());
        for (i, p) in PLATFORMS.iter().enumerate() {
            assert!(p.key.starts_with(&format!("{}-{}", p.os, p.cpu)), "{p:?}");
            for q in &PLATFORMS[i + 1..] {
                assert!(p.key != q.key && p.target != q.target, "{p:?} {q:?}");
            }
        }
        if cfg!(all(
            target_os = "linux",
            target_arch = "x86_64",
            target_env = "gnu"
        )) {
            assert_eq!(host_platform().unwrap().key, "linux-x64-gnu");
        }
    }

    #[test]
    fn binary_arguments_name_a_known_platform_and_a_path() {
        let (p, path) = parse_binary("x86_64-pc-windows-msvc=out/my.exe").unwrap();
        assert_eq!(
            (p.key, path),
            ("win32-x64-msvc", PathBuf::from("out/my.exe"))
        );
        let err = parse_binary("mips-plan9=x").unwrap_err();
        assert!(
            err.contains("unknown platform `mips-plan9`")
                && err.contains("darwin-arm64 (aarch64-apple-darwin)"),
            "{err}"
        );
        assert!(parse_binary("darwin-arm64")
            .unwrap_err()
            .contains("PLATFORM=PATH"));
        assert!(parse_binary("=x").is_err() && parse_binary("darwin-arm64=").is_err());
    }

    #[test]
    fn npm_names_follow_npms_rule() {
        for good in ["my-ext", "@me/my-ext", "a.b_c~d", "x1"] {
            check_npm_name(good).unwrap();
        }
        for bad in [
            "My-Ext",
            "",
            "@me",
            "@/x",
            "a b",
            ".x",
            "_x",
            "@me/",
            &"a".repeat(215),
        ] {
            let err = check_npm_name(bad).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{bad}");
        }
    }

    #[test]
    fn packs_a_main_package_and_one_package_per_platform() {
        let dir = tempfile::tempdir().unwrap();
        let foreign = dir.path().join("foreign-binary");
        std::fs::write(&foreign, b"not really a mac binary").unwrap();
        let windows = dir.path().join("w.exe");
        std::fs::write(&windows, b"MZ").unwrap();
        let out = dir.path().join("npm");
        let binaries = [
            (find_platform("aarch64-apple-darwin").unwrap(), foreign),
            (find_platform("win32-x64-msvc").unwrap(), windows),
        ];
        let packed = pack_npm(&manifest("probe"), &out, Some("@me/probe"), &binaries).unwrap();
        assert_eq!(packed.main.0, "@me/probe");
        assert_eq!(packed.main.1, out.join("probe"));

        let darwin = out.join("probe-darwin-arm64");
        let package = read(&darwin.join("package.json"));
        assert_eq!(package["name"], "@me/probe-darwin-arm64");
        assert_eq!(package["version"], "1.2.3");
        assert_eq!(package["os"], json!(["darwin"]));
        assert_eq!(package["cpu"], json!(["arm64"]));
        assert!(package.get("libc").is_none());
        assert_eq!(
            std::fs::read(darwin.join("bin/probe")).unwrap(),
            b"not really a mac binary"
        );
        assert!(out.join("probe-win32-x64-msvc/bin/probe.exe").is_file());

        let main = read(&out.join("probe/package.json"));
        assert_eq!(main["pi"]["extensions"], json!(["./index.js"]));
        assert_eq!(
            main["optionalDependencies"]["@me/probe-darwin-arm64"],
            "1.2.3"
        );
        assert_eq!(
            main["optionalDependencies"]["@me/probe-win32-x64-msvc"],
            "1.2.3"
        );
        let index = std::fs::read_to_string(out.join("probe/index.js")).unwrap();
        assert!(index.contains(r#""darwin-arm64":{"bin":"bin/probe","cpu":"arm64","os":"darwin","package":"@me/probe-darwin-arm64","size":23}"#), "{index}");
        assert!(
            !index.contains(r#""binary":"#),
            "no binary next to the bridge"
        );

        if let Some(host) = host_platform() {
            let host_dir = out.join(format!("probe-{}", host.key));
            let package = read(&host_dir.join("package.json"));
            assert_eq!(package["cpu"], json!([host.cpu]));
            assert_eq!(package["libc"], json!(host.libc.map(|l| vec![l])));
            let copied = std::fs::metadata(host_dir.join("bin/probe")).unwrap().len();
            let me = std::fs::metadata(std::env::current_exe().unwrap())
                .unwrap()
                .len();
            assert_eq!(copied, me, "the running binary for its own platform");
            assert_eq!(packed.platforms.len(), 3);
        }

        // Packing again into the same place is refused; nothing is lost.
        let err = pack_npm(&manifest("probe"), &out, Some("@me/probe"), &binaries).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        assert!(err.to_string().contains("exists and is not empty"), "{err}");
    }

    #[test]
    fn bad_input_is_refused_before_anything_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("npm");
        let darwin = find_platform("darwin-arm64").unwrap();
        let missing = [(darwin, dir.path().join("nowhere"))];
        let err = pack_npm(&manifest("probe"), &out, None, &missing).unwrap_err();
        assert!(
            err.to_string()
                .contains("the binary for darwin-arm64 is not a file"),
            "{err}"
        );
        let file = dir.path().join("bin");
        std::fs::write(&file, b"x").unwrap();
        let twice = [(darwin, file.clone()), (darwin, file)];
        let err = pack_npm(&manifest("probe"), &out, None, &twice).unwrap_err();
        assert!(
            err.to_string().contains("two binaries for darwin-arm64"),
            "{err}"
        );
        let err = pack_npm(&manifest("probe"), &out, Some("Bad Name"), &[]).unwrap_err();
        assert!(
            err.to_string().contains("invalid npm package name"),
            "{err}"
        );
        let err = pack_npm(&manifest("../x"), &out, None, &[]).unwrap_err();
        assert!(err.to_string().contains("invalid extension name"), "{err}");
        assert!(!out.exists());
    }
}
