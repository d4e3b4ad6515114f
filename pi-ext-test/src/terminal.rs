//! Running pi interactively in a pseudo-terminal and reading what it painted.

use std::collections::VecDeque;
use std::ffi::OsStr;
use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, ExitStatus, MasterPty, PtySize};

use crate::diag::tail_lines;
use crate::keys::Key;
use crate::rpc::PiBuilder;
use crate::screen::Screen;
use crate::watched::Watched;
use crate::{DEFAULT_TIMEOUT, STARTUP_TIMEOUT};

/// What the terminal calls itself: pi paints with 24-bit colours under `COLORTERM=truecolor`
/// (its themes are `#rrggbb`), and chalk's bold/italic need a colour-capable `TERM`.
const TERMINAL_ENV: &[(&str, &str)] = &[("TERM", "xterm-256color"), ("COLORTERM", "truecolor")];

/// Variables that would make pi or chalk paint differently from a plain xterm: CI and
/// colour overrides (chalk turns styling off under `CI`), a terminal's own identification
/// (kitty/iTerm/WezTerm/Ghostty make pi query image cell sizes), multiplexers, the
/// background hint that picks the light theme, and a fixed size.
/// A test that sets one with [`PiBuilder::env`] keeps it.
const CLEARED_ENV: &[&str] = &[
    "CI",
    "NO_COLOR",
    "FORCE_COLOR",
    "TF_BUILD",
    "TEAMCITY_VERSION",
    "TERM_PROGRAM",
    "TERM_PROGRAM_VERSION",
    "TMUX",
    "STY",
    "KITTY_WINDOW_ID",
    "GHOSTTY_RESOURCES_DIR",
    "WEZTERM_PANE",
    "ITERM_SESSION_ID",
    "WT_SESSION",
    "COLORFGBG",
    "LINES",
    "COLUMNS",
];

/// Rows of scrollback the terminal keeps above the screen.
const SCROLLBACK: usize = 1000;

/// Raw output bytes kept for [`PiTerminal::output`] (the oldest are dropped beyond this).
const OUTPUT_KEPT: usize = 4 << 20;

/// Raw output bytes shown in a panic message (after leaving out colour codes).
const OUTPUT_SHOWN: usize = 1500;

/// How long the harness waits after a lone `ESC` before writing more: pi-tui waits 10 ms for
/// the rest of an escape sequence, so an `ESC` followed at once by `[A` would read as one key.
const ESCAPE_GAP: Duration = Duration::from_millis(60);

/// The model pi's footer names (the harness always runs `--model fake-model`).
const FOOTER_MODEL: &str = "fake-model";

/// How pi's window titles start (`π - <cwd name>`, with the session name in between if set).
const TITLE_PREFIX: &str = "π - ";

impl PiBuilder<'_> {
    /// Runs pi interactively (no `--mode`) in a `cols`×`rows` pseudo-terminal and waits (up
    /// to [`STARTUP_TIMEOUT`]) until pi has bound extensions and takes input (see
    /// [`PiTerminal::wait_ready`]).
    #[track_caller]
    pub fn terminal(self, cols: u16, rows: u16) -> PiTerminal {
        let pi = self.spawn_terminal(cols, rows);
        pi.wait_ready(STARTUP_TIMEOUT);
        pi
    }

    /// Like [`PiBuilder::terminal`] without waiting for anything (for tests of startup).
    #[track_caller]
    pub fn spawn_terminal(self, cols: u16, rows: u16) -> PiTerminal {
        let cmd = self.command::<&OsStr>(&[]);
        let mut builder = CommandBuilder::new(cmd.get_program());
        builder.args(cmd.get_args());
        if let Some(dir) = cmd.get_current_dir() {
            builder.cwd(dir);
        }
        for (key, value) in cmd.get_envs() {
            match value {
                Some(value) => builder.env(key, value),
                None => builder.env_remove(key),
            }
        }
        // A variable the test set itself stays (a test playing kitty sets KITTY_WINDOW_ID).
        let set: Vec<&OsStr> = cmd
            .get_envs()
            .filter_map(|(key, value)| value.map(|_| key))
            .collect();
        for key in CLEARED_ENV {
            if !set.contains(&OsStr::new(key)) {
                builder.env_remove(key);
            }
        }
        for (key, value) in TERMINAL_ENV {
            builder.env(key, value);
        }
        PiTerminal::spawn(builder, cols, rows)
    }
}

/// What the terminal saw that is not on screen: synchronized-update brackets, queries.
#[derive(Default)]
struct TerminalEvents {
    /// Inside `CSI ? 2026 h` … `CSI ? 2026 l` (pi paints each frame between these).
    synchronized: bool,
    /// A synchronized update just ended: the screen holds a whole frame.
    frame_ended: bool,
    /// Queries pi sent to the terminal, described (none is answered).
    queries: Vec<String>,
    /// The window title pi set (OSC 0/2).
    title: String,
}

impl TerminalEvents {
    fn query(&mut self, what: &str) {
        if !self.queries.iter().any(|q| q == what) {
            self.queries.push(what.to_owned());
        }
    }
}

impl vt100::Callbacks for TerminalEvents {
    fn set_window_title(&mut self, _: &mut vt100::Screen, title: &[u8]) {
        self.title = String::from_utf8_lossy(title).into_owned();
    }

    fn set_window_icon_name(&mut self, _: &mut vt100::Screen, _: &[u8]) {}

    fn unhandled_csi(
        &mut self,
        _: &mut vt100::Screen,
        i1: Option<u8>,
        _: Option<u8>,
        params: &[&[u16]],
        c: char,
    ) {
        let first = params.first().and_then(|p| p.first()).copied();
        match (i1, c, first) {
            (Some(b'?'), 'h', Some(2026)) => self.synchronized = true,
            (Some(b'?'), 'l', Some(2026)) => {
                self.synchronized = false;
                self.frame_ended = true;
            }
            (Some(b'?'), 'u', _) => self.query("CSI ? u (kitty keyboard protocol flags)"),
            (None, 'n', Some(6)) => self.query("CSI 6 n (cursor position)"),
            (None, 'n', Some(5)) => self.query("CSI 5 n (device status)"),
            (None | Some(b'>' | b'='), 'c', _) => self.query("CSI c (device attributes)"),
            (None, 't', Some(14 | 16 | 18)) => self.query("CSI t (window/cell size)"),
            (Some(b'?'), 'p', _) | (Some(b'$'), 'p', _) => self.query("DECRQM (mode report)"),
            _ => {}
        }
    }

    fn unhandled_osc(&mut self, _: &mut vt100::Screen, params: &[&[u8]]) {
        if params.len() >= 2 && params.last() == Some(&&b"?"[..]) {
            let which = String::from_utf8_lossy(params[0]);
            self.query(&format!("OSC {which} ? (colour query)"));
        }
    }
}

struct TermState {
    parser: vt100::Parser<TerminalEvents>,
    /// The screen as of the last whole frame (never mid-way through a synchronized update).
    published: Screen,
    /// Bumped on every publish, so waits re-check only when something changed.
    frame: u64,
    /// Raw output, at most [`OUTPUT_KEPT`] bytes (the newest).
    output: VecDeque<u8>,
    output_total: u64,
    /// The pty reported EOF or an error: pi and everything holding the terminal are gone.
    closed: bool,
}

impl TermState {
    /// Feeds pi's output to the terminal, publishing the screen after every whole frame and
    /// at the end of a chunk outside a synchronized update.
    fn feed(&mut self, bytes: &[u8]) {
        self.output_total += bytes.len() as u64;
        self.output.extend(bytes);
        let excess = self.output.len().saturating_sub(OUTPUT_KEPT);
        self.output.drain(..excess);
        // Byte by byte, so a frame that ends mid-chunk is published before the next begins.
        for &byte in bytes {
            self.parser.process(&[byte]);
            if std::mem::take(&mut self.parser.callbacks_mut().frame_ended) {
                self.publish();
            }
        }
        if !self.parser.callbacks().synchronized {
            self.publish();
        }
    }

    fn publish(&mut self) {
        self.published = self.snapshot();
        self.frame += 1;
    }

    /// The screen as parsed so far (possibly mid-frame).
    fn snapshot(&self) -> Screen {
        Screen::new(
            self.parser.screen().clone(),
            self.parser.callbacks().title.clone(),
        )
    }
}

type TermShared = Watched<TermState>;

/// pi running interactively in a pseudo-terminal, with the screen parsed as it paints.
///
/// Get one from [`PiBuilder::terminal`] (`env.pi().installed(dir).terminal(100, 30)`): the
/// same command line and isolated environment as RPC mode minus `--mode rpc`, plus
/// `TERM=xterm-256color` and `COLORTERM=truecolor`, and without the variables that would
/// change how pi paints (`CI`, `NO_COLOR`, `TERM_PROGRAM`, `TMUX`, …). pi's stderr shares
/// the terminal, as it does for a user.
///
/// The terminal behaves like an xterm without extensions: it answers no queries. pi asks
/// for the kitty keyboard protocol (`CSI ? u`) at startup and, hearing nothing, turns on
/// xterm's `modifyOtherKeys` after 150 ms and reads legacy key sequences, which is what
/// [`Key`] sends. [`PiTerminal::queries`] lists what pi asked.
///
/// A reader thread feeds everything pi writes into a `vt100` parser and publishes a
/// [`Screen`] after each whole frame (pi brackets its frames in synchronized-update
/// sequences, so a snapshot never shows half a repaint). All methods take `&self`; every wait
/// has a deadline and panics with the current screen, the scrollback's tail and pi's last
/// raw output.
///
/// Dropping it kills pi's whole process group (and anything left in its session).
pub struct PiTerminal {
    shared: Arc<TermShared>,
    writer: Mutex<Box<dyn Write + Send>>,
    master: Mutex<Box<dyn MasterPty + Send>>,
    child: Mutex<Box<dyn portable_pty::Child + Send + Sync>>,
    pid: u32,
    /// When the last write ended in a lone `ESC` (see [`ESCAPE_GAP`]).
    escape_sent: Mutex<Option<Instant>>,
}

impl PiTerminal {
    #[track_caller]
    fn spawn(command: CommandBuilder, cols: u16, rows: u16) -> PiTerminal {
        assert!(cols > 0 && rows > 0, "a terminal needs at least 1x1 cells");
        let pair = portable_pty::native_pty_system()
            .openpty(size(cols, rows))
            .unwrap_or_else(|e| panic!("cannot open a pseudo-terminal: {e}"));
        let child = pair
            .slave
            .spawn_command(command.clone())
            .unwrap_or_else(|e| panic!("cannot spawn pi in a pty ({command:?}): {e}"));
        // Only pi may hold the slave side: then reading the master ends when pi is gone.
        drop(pair.slave);
        let pid = child.process_id().expect("pi's process id");
        let reader = pair.master.try_clone_reader().expect("pty master reader");
        let writer = pair.master.take_writer().expect("pty master writer");
        let parser = vt100::Parser::new_with_callbacks(
            rows.try_into().expect("rows > 0"),
            cols.try_into().expect("cols > 0"),
            SCROLLBACK,
            TerminalEvents::default(),
        );
        let published = Screen::new(parser.screen().clone(), String::new());
        let shared = Arc::new(Watched::new(TermState {
            parser,
            published,
            frame: 0,
            output: VecDeque::new(),
            output_total: 0,
            closed: false,
        }));
        let reader_shared = Arc::clone(&shared);
        std::thread::Builder::new()
            .name(format!("pi-{pid}-pty"))
            .spawn(move || read_output(reader, &reader_shared))
            .expect("spawn pty reader");
        PiTerminal {
            shared,
            writer: Mutex::new(writer),
            master: Mutex::new(pair.master),
            child: Mutex::new(child),
            pid,
            escape_sent: Mutex::new(None),
        }
    }

    /// pi's process id (also its process group and session: the pty made it a session
    /// leader).
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Waits until pi reads what is typed into its editor and returns the screen.
    ///
    /// pi starts its TUI first and binds extensions afterwards (running `session_start`
    /// handlers); until it has finished, a prompt submitted with Enter is cleared from the
    /// editor and dropped without a trace. The last step of binding sets the window title
    /// (`π - <cwd name>`), and from there to waiting for input pi only runs promise
    /// continuations, which Node finishes before it reads the terminal again: so once the
    /// title is set, typed input is handled. It also waits for a frame with the footer
    /// (naming `fake-model`); repaints that binding asked for (a status set in
    /// `session_start`, say) may come after, so wait for those by what they show.
    #[track_caller]
    pub fn wait_ready(&self, timeout: Duration) -> Screen {
        self.wait_for_timeout(
            "pi to bind extensions (window title set) and paint its footer",
            timeout,
            |s| s.title().starts_with(TITLE_PREFIX) && s.contains(FOOTER_MODEL),
        )
    }

    /// Writes raw bytes to pi's terminal input, as a terminal does when keys are pressed or
    /// text is pasted without bracketed paste.
    #[track_caller]
    pub fn send(&self, bytes: impl AsRef<[u8]>) {
        let bytes = bytes.as_ref();
        if bytes.is_empty() {
            return;
        }
        {
            let mut escape_sent = self.escape_sent.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(sent) = escape_sent.take() {
                let ready = sent + ESCAPE_GAP;
                let now = Instant::now();
                if ready > now {
                    std::thread::sleep(ready - now);
                }
            }
            if bytes.last() == Some(&0x1b) {
                *escape_sent = Some(Instant::now());
            }
        }
        let result = {
            let mut writer = self.writer.lock().unwrap_or_else(|e| e.into_inner());
            writer.write_all(bytes).and_then(|()| writer.flush())
        };
        if let Err(e) = result {
            panic!(
                "cannot write {:?} to pi's terminal: {e}\n{}",
                bytes.escape_ascii().to_string(),
                self.diagnostics()
            );
        }
    }

    /// Presses one key (see [`Key`] for the bytes).
    #[track_caller]
    pub fn press(&self, key: Key) {
        self.send(key.bytes());
    }

    /// Types `text` (sent as its UTF-8 bytes; pi's input layer splits it into one key per
    /// character). A `\r` in it is Enter.
    #[track_caller]
    pub fn type_text(&self, text: &str) {
        self.send(text.as_bytes());
    }

    /// The screen as of pi's last whole frame.
    pub fn screen(&self) -> Screen {
        self.shared.lock().published.clone()
    }

    /// Waits (up to [`DEFAULT_TIMEOUT`]) until `check` holds for a frame and returns that
    /// frame; `what` names the awaited state in the panic message.
    #[track_caller]
    pub fn wait_for(&self, what: &str, check: impl FnMut(&Screen) -> bool) -> Screen {
        self.wait_for_timeout(what, DEFAULT_TIMEOUT, check)
    }

    /// Waits until `text` is on one visible row (see [`Screen::contains`]).
    #[track_caller]
    pub fn wait_for_text(&self, text: &str) -> Screen {
        self.wait_for(&format!("{text:?} on screen"), |s| s.contains(text))
    }

    /// Waits until `text` is on no visible row.
    #[track_caller]
    pub fn wait_gone(&self, text: &str) -> Screen {
        self.wait_for(&format!("{text:?} to leave the screen"), |s| {
            !s.contains(text)
        })
    }

    /// [`PiTerminal::wait_for`] with an explicit deadline.
    ///
    /// Checks each new frame once (the current one first). Panics when the deadline passes,
    /// or as soon as pi's terminal closes (pi exited) with `check` still false.
    #[track_caller]
    pub fn wait_for_timeout(
        &self,
        what: &str,
        timeout: Duration,
        mut check: impl FnMut(&Screen) -> bool,
    ) -> Screen {
        let deadline = Instant::now() + timeout;
        let mut checked = None;
        loop {
            // The newest frame if it is one not checked yet, or as it is once pi's
            // terminal has closed.
            let next = self.shared.wait_until(deadline, |state| {
                (checked != Some(state.frame) || state.closed)
                    .then(|| (state.frame, state.published.clone()))
            });
            let Some((frame, screen)) = next else {
                panic!(
                    "timed out after {timeout:?} waiting for {what}\n{}",
                    self.diagnostics()
                );
            };
            if checked != Some(frame) {
                // Checked without the lock: the reader goes on parsing meanwhile.
                checked = Some(frame);
                if check(&screen) {
                    return screen;
                }
                continue;
            }
            let status = self.try_wait_exit(Duration::from_secs(3)).map_or_else(
                || "its terminal closed".to_owned(),
                |s| format!("exit status {s}"),
            );
            panic!(
                "pi exited ({status}) while waiting for {what}\n{}",
                self.diagnostics()
            );
        }
    }

    /// Resizes the terminal to `cols`×`rows`, as a user dragging the window would: the
    /// screen is cut or extended at once (a terminal does not re-wrap pi's old output) and
    /// pi gets `SIGWINCH` to repaint. Wait for the repaint with [`PiTerminal::wait_for`].
    #[track_caller]
    pub fn resize(&self, cols: u16, rows: u16) {
        assert!(cols > 0 && rows > 0, "a terminal needs at least 1x1 cells");
        self.shared.update(|state| {
            state.parser.set_size(
                rows.try_into().expect("rows > 0"),
                cols.try_into().expect("cols > 0"),
            );
            state.publish();
        });
        let result = self
            .master
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .resize(size(cols, rows));
        if let Err(e) = result {
            panic!("cannot resize pi's terminal: {e}\n{}", self.diagnostics());
        }
    }

    /// Quits pi the way a user does, with ctrl+d in the empty editor, and asserts that pi
    /// exits with status 0 and that no process is left in its session (extensions included)
    /// within [`DEFAULT_TIMEOUT`].
    ///
    /// ctrl+d quits only when the editor is empty and no dialog is open; clear it first
    /// (e.g. [`Key::Ctrl`]`('c')` once) if a test typed something it did not submit.
    #[track_caller]
    pub fn exit(&self) {
        self.press(Key::Ctrl('d'));
        let status = self.wait_exit(DEFAULT_TIMEOUT);
        assert!(
            status.success(),
            "pi exited with {status} after ctrl+d\n{}",
            self.diagnostics()
        );
        let deadline = Instant::now() + DEFAULT_TIMEOUT;
        loop {
            let left = self.processes();
            if left.is_empty() {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "pi exited but processes of its session are still running: {left:?}\n{}",
                self.diagnostics()
            );
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// Waits for pi to exit and returns its status; panics after `timeout`.
    #[track_caller]
    pub fn wait_exit(&self, timeout: Duration) -> ExitStatus {
        self.try_wait_exit(timeout).unwrap_or_else(|| {
            panic!(
                "timed out after {timeout:?} waiting for pi to exit\n{}",
                self.diagnostics()
            )
        })
    }

    /// The exit status if pi has exited, without waiting.
    pub fn exit_status(&self) -> Option<ExitStatus> {
        let mut child = self.child.lock().unwrap_or_else(|e| e.into_inner());
        child.try_wait().ok().flatten()
    }

    fn try_wait_exit(&self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.exit_status() {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// The queries pi sent to the terminal (none was answered), described, in first-seen
    /// order, e.g. `"CSI ? u (kitty keyboard protocol flags)"`.
    pub fn queries(&self) -> Vec<String> {
        self.shared.lock().parser.callbacks().queries.clone()
    }

    /// Everything pi wrote to the terminal (escape sequences included), at most the last
    /// 4 MiB.
    pub fn output(&self) -> Vec<u8> {
        self.shared.lock().output.iter().copied().collect()
    }

    /// Waits (up to [`DEFAULT_TIMEOUT`]) until `check` holds for everything pi wrote so far
    /// (as [`PiTerminal::output`] gives it) and returns that output; `what` names the
    /// awaited bytes in the panic message. Panics when the deadline passes, or as soon as
    /// pi's terminal closes with `check` still false.
    #[track_caller]
    pub fn wait_for_output(&self, what: &str, mut check: impl FnMut(&[u8]) -> bool) -> Vec<u8> {
        let deadline = Instant::now() + DEFAULT_TIMEOUT;
        let found = self.shared.wait_until(deadline, |state| {
            let output: Vec<u8> = state.output.iter().copied().collect();
            if check(&output) {
                Some(Some(output))
            } else {
                state.closed.then_some(None)
            }
        });
        match found {
            Some(Some(output)) => output,
            Some(None) => panic!(
                "pi's terminal closed while waiting for {what}\n{}",
                self.diagnostics()
            ),
            None => panic!(
                "timed out after {DEFAULT_TIMEOUT:?} waiting for {what}\n{}",
                self.diagnostics()
            ),
        }
    }

    /// pi's state for a panic message: pid, exit status, queries it sent, the scrollback's
    /// last rows, the screen as parsed so far and the last raw output.
    pub fn diagnostics(&self) -> String {
        let status = match self.exit_status() {
            Some(status) => format!("exited: {status}"),
            None => "still running".to_owned(),
        };
        let (screen, queries, raw, total) = {
            let state = self.shared.lock();
            // Colour codes are most of pi's output; 8x the shown size leaves enough without.
            let recent: Vec<u8> = state
                .output
                .iter()
                .skip(state.output.len().saturating_sub(8 * OUTPUT_SHOWN))
                .copied()
                .collect();
            let mut raw = without_sgr(&recent);
            raw.drain(..raw.len().saturating_sub(OUTPUT_SHOWN));
            (
                state.snapshot(),
                state.parser.callbacks().queries.clone(),
                raw,
                state.output_total,
            )
        };
        let scrollback = screen.scrollback();
        let mut out = format!("--- pi in a terminal (pid {}, {status}) ---\n", self.pid);
        if !queries.is_empty() {
            out.push_str(&format!(
                "terminal queries (unanswered): {}\n",
                queries.join(", ")
            ));
        }
        out.push_str(&format!(
            "scrollback ({} rows), last ones:\n{}",
            scrollback.len(),
            tail_lines(&scrollback.join("\n"), 10)
        ));
        out.push_str(&format!("screen:\n{screen}\n"));
        out.push_str(&format!(
            "last raw output, colour codes (CSI … m) left out ({total} bytes in total):\n    {}\n",
            String::from_utf8_lossy(&raw).escape_debug()
        ));
        out
    }

    /// The live processes in pi's session, pi included while it runs: `(pid, name)`, the
    /// name as the kernel has it (at most 15 bytes of the executable's name, e.g. `node` for
    /// pi and the binary's name for a Rust extension). Read from `/proc`; empty elsewhere.
    pub fn processes(&self) -> Vec<(u32, String)> {
        session_members(self.pid)
    }

    /// Kills (SIGKILL) process `pid` of pi's session, e.g. an extension process found with
    /// [`PiTerminal::processes`], as a crash would end it. Panics if `pid` is not in pi's
    /// session or is pi itself (use [`PiTerminal::kill`] for pi).
    #[track_caller]
    pub fn kill_session_process(&self, pid: u32) {
        assert_ne!(
            pid, self.pid,
            "kill_session_process is for pi's children, not pi"
        );
        let members = session_members(self.pid);
        assert!(
            members.iter().any(|(p, _)| *p == pid),
            "process {pid} is not in pi's session: {members:?}"
        );
        send_kill(i64::from(pid));
    }

    /// Kills pi's process group and every process left in its session, and reaps pi.
    /// Idempotent.
    pub fn kill(&self) {
        let mut child = self.child.lock().unwrap_or_else(|e| e.into_inner());
        // Until pi is reaped its pid (and so its group id) cannot be reused; afterwards only
        // processes still in its session keep that number taken.
        let reaped = matches!(child.try_wait(), Ok(Some(_)));
        if !reaped {
            send_kill(-i64::from(self.pid));
        }
        for (member, _) in session_members(self.pid) {
            send_kill(i64::from(member));
        }
        if !reaped {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for PiTerminal {
    fn drop(&mut self) {
        self.kill();
    }
}

impl std::fmt::Debug for PiTerminal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PiTerminal")
            .field("pid", &self.pid)
            .finish_non_exhaustive()
    }
}

/// `bytes` without SGR sequences (`ESC [` digits and `;`/`:` then `m`).
fn without_sgr(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i..].starts_with(b"\x1b[") {
            let params = bytes[i + 2..]
                .iter()
                .take_while(|b| b.is_ascii_digit() || **b == b';' || **b == b':')
                .count();
            if bytes.get(i + 2 + params) == Some(&b'm') {
                i += params + 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}

fn size(cols: u16, rows: u16) -> PtySize {
    PtySize {
        rows,
        cols,
        pixel_width: 0,
        pixel_height: 0,
    }
}

fn read_output(mut reader: Box<dyn Read + Send>, shared: &TermShared) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => shared.update(|s| s.feed(&buf[..n])),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            // Linux reports EIO once the last process holding the slave side is gone.
            Err(_) => break,
        }
    }
    shared.update(|s| s.closed = true);
}

/// `(pid, name)` of the live processes in session `sid`, read from `/proc/<pid>/stat`.
fn session_members(sid: u32) -> Vec<(u32, String)> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            // `pid (name) state ppid pgrp session …`; the name may hold spaces and parens.
            let open = stat.find('(')?;
            let close = stat.rfind(')')?;
            let name = stat.get(open + 1..close)?.to_owned();
            let mut fields = stat.get(close + 1..)?.split_whitespace();
            let state = fields.next()?;
            let session: u32 = fields.nth(2)?.parse().ok()?;
            (session == sid && state != "Z").then_some((pid, name))
        })
        .collect()
}

/// Sends SIGKILL to process `target` (process group `-target` if negative), ignoring
/// errors: it may be gone already.
fn send_kill(target: i64) {
    let Ok(target) = libc::pid_t::try_from(target) else {
        return;
    };
    // 0, -1 and 1 would address our own group, every process we may signal, or init.
    if (-1..=1).contains(&target) {
        return;
    }
    // SAFETY: kill(2) takes plain integers and touches no memory of ours.
    unsafe {
        libc::kill(target, libc::SIGKILL);
    }
}
