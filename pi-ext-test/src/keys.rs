//! Named keys and the bytes a terminal sends for them.

/// A key press, sent with [`crate::PiTerminal::press`].
///
/// Encoded as xterm sends it without the kitty keyboard protocol (which the harness's
/// terminal does not offer): the legacy control characters and `CSI`/`SS3` sequences that
/// pi-tui's key parser (`@mariozechner/pi-tui` `keys.js`) reads when the kitty protocol is
/// off. Text is typed with [`crate::PiTerminal::type_text`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// Return: `CR` (pi submits the editor, confirms a selection).
    Enter,
    /// Escape: a lone `ESC` (pi cancels a dialog, interrupts a running turn).
    ///
    /// pi-tui tells a lone `ESC` from the start of an escape sequence by waiting 10 ms for
    /// more bytes, so [`crate::PiTerminal`] pauses briefly before writing anything after it.
    Escape,
    /// Tab: `HT` (pi completes paths and commands).
    Tab,
    /// Shift+Tab: `CSI Z` (pi cycles the thinking level).
    ShiftTab,
    /// Backspace: `DEL` (0x7f), what xterm sends by default.
    Backspace,
    /// Delete: `CSI 3 ~`.
    Delete,
    /// Cursor up: `CSI A`.
    Up,
    /// Cursor down: `CSI B`.
    Down,
    /// Cursor right: `CSI C`.
    Right,
    /// Cursor left: `CSI D`.
    Left,
    /// Home: `CSI H`.
    Home,
    /// End: `CSI F`.
    End,
    /// Page up: `CSI 5 ~`.
    PageUp,
    /// Page down: `CSI 6 ~`.
    PageDown,
    /// Ctrl plus a letter `a`–`z`: the control character (`ctrl+c` is 0x03). pi's terminal
    /// is in raw mode, so `ctrl+c` reaches pi as input (clear the editor; twice quickly to
    /// quit), not as SIGINT.
    Ctrl(char),
    /// Alt plus a character: `ESC` followed by it (xterm's `metaSendsEscape`).
    Alt(char),
}

impl Key {
    /// The bytes a terminal writes for this key.
    ///
    /// Panics for [`Key::Ctrl`] with anything but an ASCII letter.
    #[track_caller]
    pub fn bytes(self) -> Vec<u8> {
        let fixed: &[u8] = match self {
            Key::Enter => b"\r",
            Key::Escape => b"\x1b",
            Key::Tab => b"\t",
            Key::ShiftTab => b"\x1b[Z",
            Key::Backspace => b"\x7f",
            Key::Delete => b"\x1b[3~",
            Key::Up => b"\x1b[A",
            Key::Down => b"\x1b[B",
            Key::Right => b"\x1b[C",
            Key::Left => b"\x1b[D",
            Key::Home => b"\x1b[H",
            Key::End => b"\x1b[F",
            Key::PageUp => b"\x1b[5~",
            Key::PageDown => b"\x1b[6~",
            Key::Ctrl(c) => {
                assert!(
                    c.is_ascii_alphabetic(),
                    "Key::Ctrl takes a letter a-z, got {c:?}"
                );
                return vec![c.to_ascii_lowercase() as u8 & 0x1f];
            }
            Key::Alt(c) => {
                let mut bytes = vec![0x1b];
                bytes.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                return bytes;
            }
        };
        fixed.to_vec()
    }
}
