//! The extension author's tool chain, as the README shows it: `cargo
//! install` of cargo-pi-ext, `cargo pi-ext new`, `cargo test`, `cargo run
//! -- install`, a tool call in the real pi; and the `cargo pi-ext dev`
//! loop switching a running pi to each build.
//!
//! How the builds are kept quick is said in `toolchain_support`.

mod toolchain_support;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pi_ext_e2e::json::{notifications, tool_result, ui_requests};
use pi_ext_e2e::{wait_until, PiEnv, PiRpc, Reply, ScriptedModel};
use serde_json::json;
use toolchain_support::{
    assert_success, cargo_in, new_crate, run, text, BUILD_TIMEOUT, QUICK_TIMEOUT,
};

fn greet(pi: &PiRpc, model: &ScriptedModel, id: &str) -> String {
    model.push(Reply::tool(id, "greet", json!({ "name": "Ada" })));
    model.push(Reply::text("ok"));
    pi.prompt("greet Ada");
    tool_result(model.requests().last().unwrap(), id).expect("the greeting reached the model")
}

#[test]
fn a_new_user_goes_from_cargo_install_to_a_tool_call_in_pi() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    // cargo install --path cargo-pi-ext (toolchain_support), then:
    let dir = new_crate(&env, "my-ext");
    for file in [
        "src/lib.rs",
        "src/main.rs",
        "tests/extension.rs",
        "README.md",
    ] {
        assert!(dir.join(file).is_file(), "{file}");
    }
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    assert!(
        manifest.contains("pi-ext = { version = \"0.1.0\", path = "),
        "{manifest}"
    );

    let tested = run(
        cargo_in(&env).arg("test").current_dir(&dir),
        "cargo test",
        BUILD_TIMEOUT,
    );
    assert_success(&tested, "cargo test in the new crate");
    let report = text(&tested.stdout);
    assert!(report.contains("test result: ok. 3 passed"), "{report}");
    let formatted = run(
        cargo_in(&env).args(["fmt", "--check"]).current_dir(&dir),
        "cargo fmt --check",
        QUICK_TIMEOUT,
    );
    assert_success(&formatted, "cargo fmt --check in the new crate");

    let installed = run(
        cargo_in(&env)
            .args(["run", "--quiet", "--", "install"])
            .current_dir(&dir),
        "cargo run -- install",
        BUILD_TIMEOUT,
    );
    assert_success(&installed, "cargo run -- install");
    let said = text(&installed.stdout);
    let into = env.extensions_dir().join("my-ext");
    assert!(
        said.starts_with(&format!("installed pi extension into {}", into.display())),
        "{said}"
    );

    // `pi`, as the user starts it: it finds the extension by itself.
    let pi = env.pi().start();
    let statuses = ui_requests(&pi.events(), "setStatus")
        .iter()
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        statuses.contains("my-ext ready"),
        "the hook ran: {statuses}"
    );
    assert_eq!(greet(&pi, &model, "g1"), "Hello, Ada! (greeting #1)");
    let mark = pi.mark();
    pi.call(json!({ "type": "prompt", "message": "/my-ext-stats" }));
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

    /// Wait until the loop has said `what` `n` times.
    #[track_caller]
    fn wait_for(&self, what: &str, n: usize, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        let count = || {
            self.lines
                .lock()
                .unwrap()
                .iter()
                .filter(|l| l.starts_with("[pi-ext dev]") && l.contains(what))
                .count()
        };
        while count() < n {
            assert!(
                Instant::now() < deadline,
                "cargo pi-ext dev did not say `{what}` {n} time(s) within {timeout:?}:\n{}",
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

#[test]
fn dev_rebuilds_on_every_change_and_the_running_pi_switches_to_it() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let dir = new_crate(&env, "dev-ext");
    let lib = dir.join("src/lib.rs");
    let original = std::fs::read_to_string(&lib).unwrap();
    let edit = |greeting: &str| {
        let changed = original.replace("\"Hello, {name}!", &format!("\"{greeting}, {{name}}!"));
        assert_ne!(changed, original);
        std::fs::write(&lib, changed).unwrap();
    };

    let mut dev = Dev::start(&env, &dir);
    dev.wait_for("installed with hot reload", 1, BUILD_TIMEOUT);
    let pi = env.pi().start();
    assert_eq!(greet(&pi, &model, "g1"), "Hello, Ada! (greeting #1)");

    // A change: rebuilt, and pi runs the new binary (its state starts anew:
    // the template keeps no hot-reload snapshot).
    let mark = pi.mark();
    edit("Hi");
    dev.wait_for("src/lib.rs changed: rebuilding", 1, QUICK_TIMEOUT);
    dev.wait_for("a running pi switches to it now", 1, BUILD_TIMEOUT);
    wait_until("pi's hot reload", || {
        notifications(&pi.events_since(mark))
            .iter()
            .any(|n| n.contains("reloaded \"dev-ext\""))
    });
    assert_eq!(greet(&pi, &model, "g2"), "Hi, Ada! (greeting #1)");

    // A compile error: shown, the loop goes on, pi keeps the last good build.
    std::fs::write(&lib, format!("{original}\nfn broken( {{\n")).unwrap();
    dev.wait_for("the build failed", 1, BUILD_TIMEOUT);
    assert!(dev.output().contains("error"), "{}", dev.output());
    assert_eq!(greet(&pi, &model, "g3"), "Hi, Ada! (greeting #2)");

    // Fixed: built again, switched again.
    let mark = pi.mark();
    edit("Howdy");
    dev.wait_for("a running pi switches to it now", 2, BUILD_TIMEOUT);
    wait_until("pi's second hot reload", || {
        notifications(&pi.events_since(mark))
            .iter()
            .any(|n| n.contains("reloaded \"dev-ext\""))
    });
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
