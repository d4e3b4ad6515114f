//! `cargo pi-ext package` to `pi install npm:<name>`, as a user without
//! Rust gets it: the packages are packed with `npm pack`, checked with
//! `npm publish --dry-run`, served by an npm registry on 127.0.0.1 (the
//! public one stands in for nothing here), installed by pi itself (which
//! runs `npm install -g`), and run by the real pi. npm must install the
//! host's platform package only; a package whose binary for this platform
//! was never published gives a clear error in pi naming the platform, and
//! pi keeps running.
//!
//! How the builds are kept quick is said in `toolchain_support`.

mod toolchain_support;

use std::path::{Path, PathBuf};
use std::process::Command;

use pi_ext_e2e::json::{notifications, tool_result};
use pi_ext_e2e::{pi_cli, PiEnv, Reply, ScriptedModel};
use serde_json::{json, Value};
use toolchain_support::{
    assert_success, cargo_in, crates_target, new_crate, npm_pack, run, text, NpmRegistry, Tarball,
    BUILD_TIMEOUT, QUICK_TIMEOUT,
};

/// npm, isolated: its own cache, global prefix and HOME (no user
/// `.npmrc`), and the given registry.
fn npm_env(cmd: &mut Command, env: &PiEnv, registry: &str) {
    cmd.env("HOME", env.home())
        .env("npm_config_registry", registry)
        .env("npm_config_cache", env.root().join("npm-cache"))
        .env("npm_config_prefix", env.root().join("npm-global"))
        .env("npm_config_update_notifier", "false")
        .env("npm_config_audit", "false")
        .env("npm_config_fund", "false");
}

fn npm(env: &PiEnv, registry: &str) -> Command {
    let mut cmd = Command::new("npm");
    npm_env(&mut cmd, env, registry);
    cmd
}

/// npm for the author's side (`pack`, `publish --dry-run`), with a cache
/// of its own: `npm pack` keeps what it packed in its cache, and the
/// installs must fetch the tarballs from the registry as a user's npm does.
/// Its registry is a closed port: `publish --dry-run` asks it whether the
/// version exists, and gets its answer (none) at once instead of retrying
/// for a minute.
fn npm_author(env: &PiEnv) -> Command {
    let mut cmd = npm(env, "http://127.0.0.1:9/");
    cmd.env("npm_config_cache", env.root().join("author-npm-cache"))
        .env("npm_config_fetch_retries", "0");
    cmd
}

/// `pi install <source>`, with pi's and npm's environment isolated.
fn pi_install(env: &PiEnv, registry: &str, source: &str) -> String {
    let mut cmd = Command::new(pi_ext_e2e::pi_node());
    cmd.arg(pi_cli())
        .args(["install", source])
        .current_dir(env.cwd())
        .env("PI_CODING_AGENT_DIR", env.agent_dir())
        .env("PI_OFFLINE", "1")
        .env("PI_TELEMETRY", "0");
    npm_env(&mut cmd, env, registry);
    let out = run(&mut cmd, "pi install", QUICK_TIMEOUT);
    assert_success(&out, &format!("pi install {source}"));
    text(&out.stdout)
}

/// Node's platform and CPU here (`linux`, `x64`).
fn node_platform() -> (String, String) {
    let out = run(
        Command::new("node").args(["-p", "process.platform + ' ' + process.arch"]),
        "node -p",
        QUICK_TIMEOUT,
    );
    let said = text(&out.stdout);
    let (os, cpu) = said.trim().split_once(' ').unwrap();
    (os.to_string(), cpu.to_string())
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The package directories `package` wrote into `out` (the main one first).
fn packages_in(out: &Path, base: &str) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort_by_key(|d| (d.file_name().unwrap() != base, d.clone()));
    dirs
}

#[test]
fn npm_packages_install_with_pi_and_run_without_rust() {
    let (os, cpu) = node_platform();
    // A platform that is not this one, with a stand-in binary (it never runs).
    let foreign = if os == "darwin" {
        "linux-arm64-gnu"
    } else {
        "darwin-arm64"
    };
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let fake = env.root().join("fake-binary");
    std::fs::write(&fake, b"not a binary for this machine").unwrap();
    let dir = new_crate(&env, "npm-ext");

    // `package` into its default place, building this machine's binary
    // (dev profile: the release build is the same code path, slower).
    let packaged = run(
        cargo_in(&env)
            .args(["pi-ext", "package", "--profile", "dev", "--binary"])
            .arg(format!("{foreign}={}", fake.display()))
            .current_dir(&dir),
        "cargo pi-ext package",
        BUILD_TIMEOUT,
    );
    assert_success(&packaged, "cargo pi-ext package");
    let said = text(&packaged.stdout);
    assert!(said.contains("then: pi install npm:npm-ext"), "{said}");
    let out = crates_target().join("pi-ext-npm");
    let dirs = packages_in(&out, "npm-ext");
    let names: Vec<String> = dirs
        .iter()
        .map(|d| d.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 3, "{names:?}");
    assert_eq!(names[0], "npm-ext");
    assert!(names.contains(&format!("npm-ext-{foreign}")), "{names:?}");
    let main = read_json(&dirs[0].join("package.json"));
    assert_eq!(main["license"], "MIT OR Apache-2.0", "from Cargo.toml");
    assert!(dirs[0].join("README.md").is_file());
    let optional = main["optionalDependencies"].as_object().unwrap();
    assert_eq!(optional.len(), 2);
    let host = dirs[1..]
        .iter()
        .find(|d| {
            let p = read_json(&d.join("package.json"));
            p["os"] == json!([os]) && p["cpu"] == json!([cpu])
        })
        .expect("a package for this platform")
        .clone();
    let host_name = host.file_name().unwrap().to_string_lossy().into_owned();

    // What `npm publish` would upload, checked by npm itself.
    for dir in &dirs {
        let checked = run(
            npm_author(&env)
                .args(["publish", "--dry-run", "--access", "public"])
                .arg(dir),
            "npm publish --dry-run",
            QUICK_TIMEOUT,
        );
        assert_success(&checked, "npm publish --dry-run");
    }

    // A second main package whose binary for this platform was never
    // published: its own name, the same extension inside.
    let partial_out = env.root().join("partial");
    let partial = run(
        cargo_in(&env)
            .args([
                "pi-ext",
                "package",
                "--profile",
                "dev",
                "--npm-name",
                "partial-ext",
            ])
            .arg("--out")
            .arg(&partial_out)
            .arg("--binary")
            .arg(format!("{foreign}={}", fake.display()))
            .current_dir(&dir),
        "cargo pi-ext package --npm-name partial-ext",
        BUILD_TIMEOUT,
    );
    assert_success(&partial, "cargo pi-ext package --npm-name partial-ext");

    // npm pack, then serve the tarballs as a registry would.
    let tarballs_dir = env.root().join("tarballs");
    let pack = |dir: &Path| -> Tarball { npm_pack(&mut npm_author(&env), dir, &tarballs_dir) };
    let mut tarballs: Vec<Tarball> = dirs.iter().map(|d| pack(d)).collect();
    tarballs.push(pack(&partial_out.join("partial-ext")));
    tarballs.push(pack(&partial_out.join(format!("partial-ext-{foreign}"))));
    let registry = NpmRegistry::serve(&tarballs);

    let said = pi_install(&env, registry.url(), "npm:npm-ext");
    assert!(said.contains("Installed npm:npm-ext"), "{said}");
    pi_install(&env, registry.url(), "npm:partial-ext");

    // npm chose this platform's package only: it read the other's metadata
    // and fetched no tarball of it.
    // pi 0.75+ installs user packages into a project of its own, `<agent>/npm/`
    // (not npm's global root), where npm puts the platform packages beside.
    let modules = env.agent_dir().join("npm/node_modules");
    assert!(modules.join("npm-ext").is_dir());
    let beside: Vec<String> = std::fs::read_dir(&modules)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("npm-ext-"))
        .collect();
    assert_eq!(beside, std::slice::from_ref(&host_name));
    let requested = registry.requested();
    assert!(
        requested.contains(&format!("/npm-ext-{foreign}")),
        "{requested:?}"
    );
    assert!(
        !requested
            .iter()
            .any(|r| r.starts_with(&format!("/-/npm-ext-{foreign}"))),
        "{requested:?}"
    );
    assert!(
        requested.contains(&format!("/-/{host_name}-0.1.0.tgz")),
        "{requested:?}"
    );

    // pi, as the user starts it, with both packages installed.
    let mut pi = env.pi();
    for (key, value) in [
        ("npm_config_prefix", env.root().join("npm-global")),
        ("npm_config_cache", env.root().join("npm-cache")),
    ] {
        pi = pi.env(key, value);
    }
    let pi = pi.env("npm_config_registry", registry.url()).start();
    let all = notifications(&pi.events()).join("\n");
    let platform = host_name.trim_start_matches("npm-ext-");
    assert!(
        all.contains(&format!(
            "pi-ext extension \"npm-ext\": the binary for this platform ({platform}) is in the npm package partial-ext-{platform}, which is not installed"
        )),
        "{all}"
    );
    model.push(Reply::tool("n1", "greet", json!({ "name": "Ada" })));
    model.push(Reply::text("ok"));
    pi.prompt("greet Ada");
    assert_eq!(
        tool_result(model.requests().last().unwrap(), "n1").as_deref(),
        Some("Hello, Ada! (greeting #1)")
    );
    assert!(pi.exit_status().is_none(), "pi keeps running");
}

#[test]
fn the_ci_workflow_builds_every_platform_and_is_not_overwritten() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let dir = new_crate(&env, "ci-ext");
    let write = || {
        run(
            cargo_in(&env)
                .args(["pi-ext", "package", "--ci-workflow"])
                .current_dir(&dir),
            "cargo pi-ext package --ci-workflow",
            QUICK_TIMEOUT,
        )
    };
    let first = write();
    assert_success(&first, "cargo pi-ext package --ci-workflow");
    let workflow = std::fs::read_to_string(dir.join(".github/workflows/pi-ext-npm.yml")).unwrap();
    for target in [
        "x86_64-unknown-linux-gnu",
        "aarch64-unknown-linux-gnu",
        "x86_64-apple-darwin",
        "aarch64-apple-darwin",
        "x86_64-pc-windows-msvc",
    ] {
        assert!(workflow.contains(&format!("target: {target},")), "{target}");
        assert!(
            workflow.contains(&format!("--binary {target}=binaries/{target}/ci-ext")),
            "{target}"
        );
    }
    assert!(
        workflow.contains("cargo pi-ext package --no-build"),
        "{workflow}"
    );
    // Written once: a second run refuses, and the file is as it was.
    let second = write();
    assert!(!second.status.success());
    assert!(
        text(&second.stderr).contains("exists: remove it first"),
        "{}",
        text(&second.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(dir.join(".github/workflows/pi-ext-npm.yml")).unwrap(),
        workflow
    );
}
