//! Terminal notifications (`ctx.ui().notify_terminal`): pi's `notify.ts`
//! and its Rust port (`examples/terminal-notify`) side by side, each in its
//! own pi in a real pseudo-terminal, the test playing a plain terminal, kitty
//! and Windows Terminal; after one prompt both write the same bytes (or run
//! PowerShell with the same script). A hostile title and body (tui-lab's
//! `/notify-hostile`) arrive sanitized; in RPC mode nothing is written.

use std::path::Path;

use pi_ext_e2e::{install_example, Key, PiEnv, Reply, ScriptedModel, DEFAULT_TIMEOUT};

const COLS: u16 = 100;
const ROWS: u16 = 30;

/// The terminal the test plays (what notify.ts looks at).
#[derive(Debug, Clone, Copy)]
enum Terminal {
    /// No variable: OSC 777.
    Plain,
    /// `KITTY_WINDOW_ID`: OSC 99.
    Kitty,
    /// Windows Terminal (`WT_SESSION`): a toast through `powershell.exe`.
    Windows,
}

/// Every OSC 777 and OSC 99 sequence in `output`, whole (from its `ESC ]`
/// to its BEL or `ESC \`).
fn notifications(output: &[u8]) -> Vec<Vec<u8>> {
    let mut found = Vec::new();
    let mut at = 0;
    while at < output.len() {
        let rest = &output[at..];
        let end = if rest.starts_with(b"\x1b]777;") {
            rest.iter().position(|&b| b == 0x07).map(|i| i + 1)
        } else if rest.starts_with(b"\x1b]99;") {
            rest.windows(2).position(|w| w == b"\x1b\\").map(|i| i + 2)
        } else {
            at += 1;
            continue;
        };
        let Some(end) = end else { break };
        found.push(rest[..end].to_vec());
        at += end;
    }
    found
}

/// A `powershell.exe` on `PATH` that records its arguments (NUL-separated)
/// in `<dir>/toast`.
fn fake_powershell(dir: &Path) {
    let script = format!(
        "#!/bin/sh\nprintf '%s\\0' \"$@\" > '{0}/toast.part' && mv '{0}/toast.part' '{0}/toast'\n",
        dir.display()
    );
    let file = dir.join("powershell.exe");
    std::fs::write(&file, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// The arguments the fake PowerShell got, once it ran (bounded wait).
fn toast_arguments(dir: &Path) -> Vec<String> {
    let file = dir.join("toast");
    pi_ext_e2e::wait_until("powershell.exe to run", || file.is_file());
    let bytes = std::fs::read(&file).unwrap();
    bytes
        .split(|&b| b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect()
}

/// What one pi sent when its run settled: the notification sequences it
/// wrote, or the arguments PowerShell got.
#[derive(Debug, PartialEq)]
enum Sent {
    Written(Vec<Vec<u8>>),
    Toast(Vec<String>),
}

/// One prompt in a pi with notify.ts (`port: false`) or the port, in
/// `terminal`.
fn run(port: bool, terminal: Terminal) -> Sent {
    let model = ScriptedModel::start();
    model.push(Reply::text("All done."));
    let env = PiEnv::new(&model);
    let mut pi = if port {
        let dir = install_example(&env, "terminal-notify");
        env.pi().installed(&dir)
    } else {
        env.pi()
            .no_extensions()
            .extension(pi_ext_e2e::pi_example("notify.ts"))
    };
    let bin = env.root().join("fake-bin");
    match terminal {
        Terminal::Plain => {}
        Terminal::Kitty => pi = pi.env("KITTY_WINDOW_ID", "1"),
        Terminal::Windows => {
            std::fs::create_dir_all(&bin).unwrap();
            fake_powershell(&bin);
            let path = std::env::var("PATH").unwrap_or_default();
            pi = pi
                .env("WT_SESSION", "test-session")
                .env("PATH", format!("{}:{path}", bin.display()));
        }
    }
    let pi = pi.terminal(COLS, ROWS);
    pi.type_text("hello");
    pi.press(Key::Enter);
    pi.wait_for_text("All done.");
    let sent = match terminal {
        Terminal::Windows => Sent::Toast(toast_arguments(&bin)),
        _ => {
            let output = pi.wait_for_output("a notification", |o| !notifications(o).is_empty());
            Sent::Written(notifications(&output))
        }
    };
    pi.exit();
    sent
}

#[test]
fn the_port_notifies_like_notify_ts_when_the_run_settles() {
    for terminal in [Terminal::Plain, Terminal::Kitty, Terminal::Windows] {
        let original = run(false, terminal);
        let port = run(true, terminal);
        assert_eq!(port, original, "{terminal:?}");
        // Not an empty match: what notify.ts writes.
        match (terminal, &original) {
            (Terminal::Plain, Sent::Written(w)) => {
                assert_eq!(w, &[b"\x1b]777;notify;Pi;Ready for input\x07".to_vec()])
            }
            (Terminal::Kitty, Sent::Written(w)) => assert_eq!(
                w,
                &[
                    b"\x1b]99;i=1:d=0;Pi\x1b\\".to_vec(),
                    b"\x1b]99;i=1:p=body;Ready for input\x1b\\".to_vec()
                ]
            ),
            (Terminal::Windows, Sent::Toast(args)) => {
                assert_eq!(args[..2], ["-NoProfile", "-Command"]);
                assert!(
                    args[2].contains("CreateTextNode('Ready for input')")
                        && args[2].contains("CreateToastNotifier('Pi')"),
                    "{args:?}"
                );
            }
            other => panic!("unexpected {other:?}"),
        }
    }
}

#[test]
fn a_hostile_title_and_body_arrive_sanitized_and_rpc_mode_writes_nothing() {
    let model = ScriptedModel::start();
    let env = PiEnv::new(&model);
    let dir = install_example(&env, "tui-lab");
    let pi = env.pi().installed(&dir).terminal(COLS, ROWS);
    pi.type_text("/notify-hostile");
    pi.press(Key::Enter);
    pi.wait_for_text("notify_terminal: Ok(Osc777)");
    let output = pi.wait_for_output("the notification", |o| !notifications(o).is_empty());
    assert_eq!(
        notifications(&output),
        [
            b"\x1b]777;notify;Pix]8http://evil.example/\\link[2J;done;ok]8;;\\ next line31m\x07"
                .to_vec()
        ]
    );
    // None of the hostile sequences reached the terminal.
    for hostile in [&b"\x1b]8;;http://evil"[..], b"\x1b]8;;\x1b\\", b"\x9b31m"] {
        assert!(
            !output.windows(hostile.len()).any(|w| w == hostile),
            "{:?} was written",
            String::from_utf8_lossy(hostile)
        );
    }
    pi.exit();

    // RPC mode: pi's stdout is the protocol; the outcome says so.
    let pi = env.pi().installed(&dir).start();
    pi.command_line("/notify-hostile");
    let shown = pi.wait_event(
        |e| {
            e["method"] == "notify"
                && e["message"]
                    .as_str()
                    .is_some_and(|m| m.starts_with("notify_terminal:"))
        },
        DEFAULT_TIMEOUT,
    );
    assert_eq!(shown["message"], "notify_terminal: Err(NoTerminal)");
    assert_eq!(pi.non_json_stdout(), Vec::<String>::new());
}
