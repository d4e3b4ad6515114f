//! The extension author's tool chain, as the README shows it: the
//! README's commands, read from it and run in order (`cargo install` of
//! cargo-pi-ext, `cargo pi-ext new`, `cargo test`, `cargo run -- install`,
//! a tool call in the real pi); and the `cargo pi-ext dev` loop switching a
//! running pi to each build.
//!
//! How the builds are kept quick is said in `toolchain_support`.

mod toolchain_support;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pi_ext_e2e::json::{notifications, tool_result, ui_requests};
use pi_ext_e2e::{repo_root, wait_until, PiEnv, PiRpc, Reply, ScriptedModel};
use serde_json::json;
use toolchain_support::{
    assert_success, cargo_in, crates_target, install_tool, new_crate, run, text, BUILD_TIMEOUT,
    QUICK_TIMEOUT,
};

fn greet(pi: &PiRpc, model: &ScriptedModel, id: &str) -> String {
    model.push(Reply::tool(id, "greet", json!({ "name": "Ada" })));
    model.push(Reply::text("ok"));
    pi.prompt("greet Ada");
    tool_result(model.requests().last().unwrap(), id).expect("the greeting reached the model")
}

/// The commands of the README block that starts with `first`, one per
/// line, without the comments.
fn readme_commands(readme: &str, first: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(repo_root().join(readme)).unwrap();
    let start = text
        .find(&format!("```sh\n{first}"))
        .unwrap_or_else(|| panic!("{readme} has no block starting with `{first}`"))
        + "```sh\n".len();
    let block = &text[start..];
    let block = &block[..block.find("```").expect("an unterminated block")];
    block
        .lines()
        .map(|line| line.split('#').next().unwrap().split_whitespace())
        .map(|words| words.map(String::from).collect::<Vec<_>>())
        .filter(|words| !words.is_empty())
        .collect()
}

/// The sequence a new user follows, as the README says it.
const NEW_USER: [&str; 6] = [
    "cargo install --path cargo-pi-ext",
    "cargo pi-ext new my-ext",
    "cd my-ext",
    "cargo test",
    "cargo run -- install",
    "pi",
];

#[test]
fn the_readmes_show_the_sequence_this_file_runs() {
    let said = |readme, first| {
        readme_commands(readme, first)
            .iter()
            .map(|words| words.join(" "))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        said("README.md", "cargo install --path cargo-pi-ext"),
        NEW_USER
    );
    // The tool's own README (crates.io) installs it from there.
    let mut from_crates_io = NEW_USER.map(String::from).to_vec();
    from_crates_io[0] = "cargo install cargo-pi-ext".into();
    assert_eq!(
        said("cargo-pi-ext/README.md", "cargo install cargo-pi-ext"),
        from_crates_io
    );
}

#[test]
fn a_new_user_goes_from_cargo_install_to_a_tool_call_in_pi() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let mut cwd = env.root().join("work");
    std::fs::create_dir_all(&cwd).unwrap();
    let commands = readme_commands("README.md", "cargo install --path cargo-pi-ext");
    let mut ran = Vec::new();
    // Each command of the README, in its order, word for word. Only the
    // tool's install adds flags (toolchain_support: offline, into a root of
    // the test's, reusing the workspace's build); and `pi` is the real pi,
    // started by the harness in RPC mode with the scripted model.
    for words in &commands {
        let line = words.join(" ");
        ran.push(line.clone());
        match words[0].as_str() {
            "cargo" if words[1] == "install" => {
                assert_eq!(words[2..], ["--path", "cargo-pi-ext"]);
                let root = install_tool();
                assert!(root.join("bin/cargo-pi-ext").is_file());
            }
            "cargo" => {
                let mut cargo = cargo_in(&env);
                if words[1] == "test" {
                    // The new crate's e2e test installs pi with npm, as
                    // for a user: into a cache shared by the runs, like
                    // the crates' builds (a fresh target directory, as in
                    // CI, installs from the registry), and nothing of this
                    // test's environment names another pi.
                    cargo
                        .env(pi_ext_test::CACHE_VAR, pi_cache())
                        .env_remove(pi_ext_test::PI_DIR_VAR)
                        .env_remove(pi_ext_test::PI_VERSION_VAR)
                        .env_remove(pi_ext_test::NPM_VAR);
                }
                let started = Instant::now();
                let out = run(
                    cargo.args(&words[1..]).current_dir(&cwd),
                    &line,
                    BUILD_TIMEOUT,
                );
                eprintln!("`{line}` took {:?}", started.elapsed());
                assert_success(&out, &line);
                check_step(&env, &cwd, &line, &text(&out.stdout));
            }
            "cd" => {
                cwd = cwd.join(&words[1]);
                assert!(cwd.is_dir(), "{}", cwd.display());
            }
            "pi" => pi_calls_the_tool(&env, &model, "my-ext"),
            other => panic!("the README runs `{other}`, which this test does not know"),
        }
    }
    assert_eq!(ran, NEW_USER);
}

/// Where the new crate's e2e test installs pi (pi-ext-test's cache).
fn pi_cache() -> std::path::PathBuf {
    crates_target().join("pi-cache")
}

/// What each cargo command of the sequence must have done.
fn check_step(env: &PiEnv, dir: &Path, line: &str, stdout: &str) {
    match line {
        "cargo pi-ext new my-ext" => {
            let dir = dir.join("my-ext");
            for file in [
                "src/lib.rs",
                "src/main.rs",
                "src/ui.rs",
                "tests/extension.rs",
                "tests/e2e.rs",
                "README.md",
            ] {
                assert!(dir.join(file).is_file(), "{file}");
            }
            let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
            assert!(
                manifest.contains("pi-ext = { version = \"0.1.0\", path = "),
                "{manifest}"
            );
            // The e2e kit, a dev-dependency from the same checkout (cargo
            // add gives a path dev-dependency no version).
            let dev = &manifest[manifest.find("[dev-dependencies]").expect(&manifest)..];
            assert!(dev.contains("pi-ext-test = { path = "), "{manifest}");
            // The release profile pi-ext's BENCHMARKS.md measures.
            let release = &manifest[manifest.find("[profile.release]").expect(&manifest)..];
            assert!(
                release.contains("lto = \"fat\"") && release.contains("codegen-units = 1"),
                "{manifest}"
            );
            // What it writes is formatted as `cargo fmt` would.
            let formatted = run(
                cargo_in(env).args(["fmt", "--check"]).current_dir(&dir),
                "cargo fmt --check",
                QUICK_TIMEOUT,
            );
            assert_success(&formatted, "cargo fmt --check in the new crate");
        }
        "cargo test" => {
            // tests/extension.rs in-process, then tests/e2e.rs in the real pi.
            assert!(stdout.contains("test result: ok. 9 passed"), "{stdout}");
            assert!(stdout.contains("test result: ok. 1 passed"), "{stdout}");
            let pi = pi_cache().join(format!("pi-{}", pi_ext_e2e::PI_VERSION));
            assert!(
                pi.join("node_modules/@earendil-works/pi-coding-agent/package.json")
                    .is_file(),
                "the kit installed no pi into {}",
                pi.display()
            );
        }
        "cargo run -- install" => {
            let into = env.extensions_dir().join("my-ext");
            assert!(
                stdout.starts_with(&format!("installed pi extension into {}", into.display())),
                "{stdout}"
            );
        }
        other => panic!("no check for `{other}`"),
    }
}

/// `pi`, as the user starts it: it finds the extension by itself, its hook
/// runs, the model calls its tool, its command answers.
fn pi_calls_the_tool(env: &PiEnv, model: &ScriptedModel, name: &str) {
    let pi = env.pi().start();
    let statuses = ui_requests(&pi.events(), "setStatus")
        .iter()
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        statuses.contains(&format!("{name} ready")),
        "the hook ran: {statuses}"
    );
    assert_eq!(greet(&pi, model, "g1"), "Hello, Ada! (greeting #1)");
    let mark = pi.mark();
    pi.call(json!({ "type": "prompt", "message": format!("/{name}-stats") }));
    wait_until("the command's notification", || {
        notifications(&pi.events_since(mark))
            .iter()
            .any(|n| n == "1 greeting(s) so far")
    });
}

/// `cargo pi-ext dev`, its stderr collected line by line; killed (with
/// what it started) if the test ends early.
struct Dev {
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
}

impl Dev {
    fn start(env: &PiEnv, dir: &Path) -> Dev {
        let mut cmd: Command = cargo_in(env);
        cmd.args(["pi-ext", "dev"])
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        // Its own process group, as a terminal's foreground job: Ctrl+C
        // reaches it and the cargo it runs.
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd.spawn().expect("running cargo pi-ext dev");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let stderr = child.stderr.take().unwrap();
        let sink = lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                sink.lock().unwrap().push(line);
            }
        });
        Dev { child, lines }
    }

    fn output(&self) -> String {
        self.lines.lock().unwrap().join("\n")
    }

    /// Wait until the loop has said `what` in a line of its own from
    /// the `since`th on.
    #[track_caller]
    fn wait_for(&self, since: usize, what: &str, timeout: Duration) {
        self.wait_said(&format!("`{what}`"), timeout, |said| {
            said.iter().skip(since).any(|l| l.contains(what))
        });
    }

    /// The loop's own lines so far, without their prefix.
    fn said(&self) -> Vec<String> {
        self.lines
            .lock()
            .unwrap()
            .iter()
            .filter_map(|l| l.strip_prefix("[pi-ext dev] "))
            .map(String::from)
            .collect()
    }

    /// Wait until the loop's own lines satisfy `done`; returns them.
    #[track_caller]
    fn wait_said(
        &self,
        what: &str,
        timeout: Duration,
        done: impl Fn(&[String]) -> bool,
    ) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        loop {
            let said = self.said();
            if done(&said) {
                return said;
            }
            assert!(
                Instant::now() < deadline,
                "cargo pi-ext dev did not say {what} within {timeout:?}:\n{}",
                self.output()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn signal(&self, signal: i32) {
        // SAFETY: kill(2) on our child's process group; no memory is involved.
        unsafe { libc::kill(-(self.child.id() as i32), signal) };
    }
}

impl Drop for Dev {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            self.signal(libc::SIGKILL);
            let _ = self.child.wait();
        }
    }
}

/// Also: it builds once per real change, and only then. Each check counts
/// the loop's lines up to an outcome the test caused (no waiting for
/// something not to happen): a read, a touch or the same content written
/// again builds nothing, so the next outcome is the next edit's; nothing
/// builds between one outcome and the next edit; a burst of edits folds.
#[test]
fn dev_rebuilds_on_every_change_and_the_running_pi_switches_to_it() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let dir = new_crate(&env, "dev-ext");
    let binary = crates_target().join("debug/dev-ext").display().to_string();
    let lib = dir.join("src/lib.rs");
    let original = std::fs::read_to_string(&lib).unwrap();
    let edit = |greeting: &str| {
        let changed = original.replace("\"Hello, {name}!", &format!("\"{greeting}, {{name}}!"));
        assert_ne!(changed, original);
        std::fs::write(&lib, changed).unwrap();
    };
    let rebuilt = [
        "src/lib.rs changed: rebuilding",
        "built BIN: a running pi switches to it now",
    ];

    let mut dev = Dev::start(&env, &dir);
    // The loop's lines from the `n`th on, the binary's path shown as BIN.
    let said_since = |n: usize| -> Vec<String> {
        dev.said()[n..]
            .iter()
            .map(|l| l.replace(&binary, "BIN"))
            .collect()
    };
    dev.wait_for(0, "installed with hot reload", BUILD_TIMEOUT);
    let pi = env.pi().start();
    let reloads = |since| {
        notifications(&pi.events_since(since))
            .iter()
            .filter(|n| n.contains("reloaded \"dev-ext\""))
            .count()
    };
    assert_eq!(greet(&pi, &model, "g1"), "Hello, Ada! (greeting #1)");

    // Read, touched, written unchanged: nothing to build. Then a change:
    // rebuilt once, and pi runs the new binary (its state starts anew:
    // the template keeps no hot-reload snapshot).
    let seen = dev.said().len();
    std::fs::read(&lib).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&lib)
        .unwrap()
        .set_modified(std::time::SystemTime::now())
        .unwrap();
    std::fs::write(&lib, &original).unwrap();
    let mark = pi.mark();
    edit("Hi");
    dev.wait_for(seen, "a running pi switches to it now", BUILD_TIMEOUT);
    assert_eq!(said_since(seen), rebuilt);
    wait_until("pi's hot reload", || reloads(mark) > 0);
    assert_eq!(greet(&pi, &model, "g2"), "Hi, Ada! (greeting #1)");

    // A file no build uses: built, the binary as it was (and nothing was
    // built after the edit's build).
    let seen = dev.said().len();
    std::fs::write(dir.join("notes.txt"), "not built").unwrap();
    dev.wait_for(seen, "the binary is the same", BUILD_TIMEOUT);
    assert_eq!(
        said_since(seen),
        [
            "notes.txt changed: rebuilding",
            "built BIN: the binary is the same, so a running pi keeps it"
        ]
    );

    // A compile error: shown, the loop goes on, pi keeps the last good
    // build. Nothing was built in between, nor reloaded.
    let seen = dev.said().len();
    std::fs::write(&lib, format!("{original}\nfn broken( {{\n")).unwrap();
    dev.wait_for(seen, "the build failed", BUILD_TIMEOUT);
    assert!(dev.output().contains("error"), "{}", dev.output());
    assert_eq!(
        said_since(seen),
        [
            "src/lib.rs changed: rebuilding",
            "the build failed (see above); waiting for the next change"
        ]
    );
    assert_eq!(greet(&pi, &model, "g3"), "Hi, Ada! (greeting #2)");
    assert_eq!(reloads(mark), 1);

    // Fixed in a burst of 41 edits: at most two builds (one, unless a
    // build began within the burst), switched again. Then the notes
    // change as a marker: once its build is out, so are the burst's.
    let seen = dev.said().len();
    let mark = pi.mark();
    for i in 0..40 {
        edit(&format!("Howdy{i}"));
    }
    edit("Howdy");
    dev.wait_for(seen, "a running pi switches to it now", BUILD_TIMEOUT);
    std::fs::write(dir.join("notes.txt"), "still not built").unwrap();
    dev.wait_said("the notes' build", BUILD_TIMEOUT, |said| {
        let said = &said[seen..];
        said.iter()
            .position(|l| l.starts_with("notes.txt"))
            .is_some_and(|i| i + 1 < said.len())
    });
    let said = said_since(seen);
    let builds = said
        .chunks(2)
        .filter(|b| b[0].contains("src/lib.rs") || b[0].contains(" and 1 more"))
        .count();
    assert!(
        (1..=2).contains(&builds)
            && said
                .chunks(2)
                .all(|b| b[0].ends_with("changed: rebuilding")),
        "{said:#?}"
    );
    let switched = said
        .iter()
        .filter(|l| l.ends_with("switches to it now"))
        .count();
    wait_until("pi's hot reloads", || reloads(mark) >= switched);
    assert_eq!(greet(&pi, &model, "g4"), "Howdy, Ada! (greeting #1)");

    // Ctrl+C stops it.
    dev.signal(libc::SIGINT);
    let deadline = Instant::now() + QUICK_TIMEOUT;
    let status = loop {
        if let Some(status) = dev.child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "dev did not stop on Ctrl+C");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(!status.success(), "{status:?}");
    assert!(pi.exit_status().is_none(), "pi keeps running");
}

/// pi-ext, pi-ext-macros, the e2e kit pi-ext-test and the tool are ready for crates.io: `cargo
/// package` (what `cargo publish` uploads, built once from the packaged
/// sources alone) succeeds without a warning, and each says what crates.io
/// shows. (`cargo publish --dry-run` adds only questions to crates.io's
/// index, which the tests do not reach.)
#[test]
fn the_crates_package_cleanly_for_crates_io() {
    let crates = ["pi-ext", "pi-ext-macros", "pi-ext-test", "cargo-pi-ext"];
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.arg("package");
    for name in crates {
        cmd.args(["-p", name]);
    }
    // The packages are built below, from their files, as `cargo package`'s
    // verification would build them, but in the target directory the crates
    // of `cargo pi-ext new` build in (the same default profile), so pi-ext's
    // dependencies compile once for both. cargo's own verification goes
    // through a local registry whose packages it takes as unchanged while
    // their version is: a changed pi-ext-macros 0.1.0 would not be rebuilt.
    let target = crates_target();
    cmd.args(["--locked", "--offline", "--allow-dirty", "--no-verify"])
        .current_dir(repo_root())
        .env("CARGO_TARGET_DIR", &target);
    let out = run(&mut cmd, "cargo package", BUILD_TIMEOUT);
    assert_success(&out, "cargo package");
    let said = text(&out.stderr);
    assert!(!said.contains("warning"), "{said}");

    // The packages, unpacked side by side into a workspace of their own,
    // each depending on the others' packages (crates.io's place taken by
    // `[patch]`), with the repository's lock file for the same versions.
    let dir = tempfile::Builder::new()
        .prefix("pi-ext-packages-")
        .tempdir()
        .unwrap();
    let mut patch = String::from("[patch.crates-io]\n");
    for name in crates {
        let file = target.join(format!("package/{name}-0.1.0.crate"));
        let unpack = Command::new("tar")
            // `-m`: the files get the time they are unpacked, not the
            // archive's (cargo package writes one fixed time), so cargo
            // sees them as newer than an earlier build in this target
            // directory and compiles them again.
            .arg("-xzmf")
            .arg(&file)
            .arg("-C")
            .arg(dir.path())
            .output()
            .unwrap_or_else(|e| panic!("tar {}: {e}", file.display()));
        assert!(unpack.status.success(), "tar: {}", text(&unpack.stderr));
        patch.push_str(&format!("{name} = {{ path = \"{name}-0.1.0\" }}\n"));
        let manifest =
            std::fs::read_to_string(dir.path().join(format!("{name}-0.1.0/Cargo.toml"))).unwrap();
        for key in [
            "description",
            "license",
            "repository",
            "keywords",
            "categories",
            "readme",
        ] {
            assert!(
                manifest
                    .lines()
                    .any(|l| l.starts_with(&format!("{key} = "))),
                "{name}: no {key} in\n{manifest}"
            );
        }
        if name != "cargo-pi-ext" {
            assert!(manifest.contains("[package.metadata.docs.rs]"), "{name}");
        }
    }
    let members: Vec<String> = crates.iter().map(|n| format!("\"{n}-0.1.0\"")).collect();
    std::fs::write(
        dir.path().join("Cargo.toml"),
        format!(
            "[workspace]\nresolver = \"2\"\nmembers = [{}]\n\n{patch}",
            members.join(", ")
        ),
    )
    .unwrap();
    std::fs::copy(
        repo_root().join("Cargo.lock"),
        dir.path().join("Cargo.lock"),
    )
    .unwrap();
    let mut build = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    build
        .args(["build", "--offline", "--workspace"])
        .current_dir(dir.path())
        .env("CARGO_TARGET_DIR", &target)
        .env_remove("CARGO_MANIFEST_DIR");
    let out = run(&mut build, "cargo build (the packages)", BUILD_TIMEOUT);
    assert_success(&out, "cargo build (the packages)");
    let said = text(&out.stderr);
    for name in crates {
        assert!(
            said.contains(&format!(
                "Compiling {name} v0.1.0 ({}",
                dir.path().display()
            )),
            "{name} was built from its package: {said}"
        );
    }
}
