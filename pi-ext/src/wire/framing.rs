//! Framing: a byte stream cut into protocol lines, with a size limit.
//!
//! Lines end at `\n` only (a trailing `\r` is dropped); JavaScript's other
//! line terminators (U+2028/U+2029) are ordinary characters here. Each byte
//! is looked at once however the stream is chunked: a line that arrives in
//! many reads is not scanned again from its start after every read (that
//! made a multi-megabyte line cost quadratic time). A line longer than the
//! limit is not kept whole: its first bytes are kept (so that the request id
//! can still be read and answered), the rest is skipped up to its `\n`.

/// Default maximum size of one protocol line, in bytes (64 MiB); see
/// [`max_line_bytes`].
pub const DEFAULT_MAX_LINE_BYTES: usize = 64 << 20;

/// Stack for the threads that parse and handle protocol lines: enough for
/// [`crate::wire::MAX_DEPTH`] levels of nesting in a debug build (a few
/// hundred bytes to 2 KiB per level for parsing, converting and dropping).
/// Only the pages used are ever touched.
pub const PARSE_STACK_BYTES: usize = 16 << 20;

/// How many bytes of an over-long line are kept for reading its id.
const KEPT_HEAD: usize = 1024;

/// The line size limit: `PI_EXT_MAX_LINE_BYTES`, else 64 MiB.
pub fn max_line_bytes() -> usize {
    std::env::var("PI_EXT_MAX_LINE_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n: &usize| n > 0)
        .unwrap_or(DEFAULT_MAX_LINE_BYTES)
}

/// One unit the splitter hands out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// A complete line, without its `\n` (and `\r`).
    Line(Vec<u8>),
    /// A line over the limit: its first bytes and its whole length.
    TooLong {
        /// The first bytes of the line (enough to read a leading `"id"`).
        head: Vec<u8>,
        /// The line's length in bytes, without its `\n`.
        len: usize,
    },
}

/// Cuts pushed bytes into [`Frame`]s.
#[derive(Debug)]
pub struct LineSplitter {
    /// Bytes of the line being read (at most the limit).
    buf: Vec<u8>,
    /// The limit, in bytes.
    max: usize,
    /// Skipping the rest of an over-long line: its length so far.
    skipping: Option<usize>,
    /// Bytes examined for a `\n`, over the splitter's life (for tests that
    /// bound the work done).
    examined: u64,
}

impl LineSplitter {
    /// A splitter for lines of at most `max` bytes.
    pub fn new(max: usize) -> Self {
        Self {
            buf: Vec::new(),
            max,
            skipping: None,
            examined: 0,
        }
    }

    /// Add `bytes` read from the stream, pushing every frame they complete
    /// onto `out`.
    pub fn push(&mut self, mut bytes: &[u8], out: &mut impl Extend<Frame>) {
        while !bytes.is_empty() {
            let newline = memchr::memchr(b'\n', bytes);
            self.examined += newline.map_or(bytes.len(), |i| i + 1) as u64;
            let (part, rest) = match newline {
                Some(i) => (&bytes[..i], Some(&bytes[i + 1..])),
                None => (bytes, None),
            };
            if let Some(len) = &mut self.skipping {
                *len += part.len();
            } else if self.buf.len() + part.len() > self.max {
                let keep = KEPT_HEAD.saturating_sub(self.buf.len()).min(part.len());
                self.buf.extend_from_slice(&part[..keep]);
                let len = self.buf.len() + part.len() - keep;
                self.buf.truncate(KEPT_HEAD);
                self.skipping = Some(len);
            } else {
                self.buf.extend_from_slice(part);
            }
            match rest {
                Some(rest) => {
                    out.extend(Some(self.take_frame()));
                    bytes = rest;
                }
                None => break,
            }
        }
    }

    /// The frame of the line that just ended.
    fn take_frame(&mut self) -> Frame {
        match self.skipping.take() {
            Some(len) => Frame::TooLong {
                head: std::mem::take(&mut self.buf),
                len,
            },
            None => {
                let mut line = std::mem::take(&mut self.buf);
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                Frame::Line(line)
            }
        }
    }

    /// Bytes examined so far.
    #[cfg(test)]
    pub(crate) fn examined(&self) -> u64 {
        self.examined
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(chunks: &[&[u8]], max: usize) -> (Vec<Frame>, LineSplitter) {
        let mut s = LineSplitter::new(max);
        let mut out = Vec::new();
        for c in chunks {
            s.push(c, &mut out);
        }
        (out, s)
    }

    #[test]
    fn splits_on_newline_only_and_keeps_the_tail() {
        let (frames, s) = split(
            &[b"{\"a\":\"x\xe2\x80\xa8y\"}\r\n{\"b\"", b":1}\n\n{\"c\""],
            1 << 20,
        );
        assert_eq!(
            frames,
            vec![
                Frame::Line(b"{\"a\":\"x\xe2\x80\xa8y\"}".to_vec()),
                Frame::Line(b"{\"b\":1}".to_vec()),
                Frame::Line(Vec::new()),
            ]
        );
        assert_eq!(s.buf, b"{\"c\"");
    }

    #[test]
    fn a_long_line_in_small_chunks_is_scanned_once() {
        // 8 MiB in 4 KiB reads: the old splitter looked at ~8 GiB.
        let line = vec![b'x'; 8 << 20];
        let mut s = LineSplitter::new(64 << 20);
        let mut out = Vec::new();
        for chunk in line.chunks(4096) {
            s.push(chunk, &mut out);
        }
        s.push(b"\n", &mut out);
        assert_eq!(out.len(), 1);
        assert!(matches!(&out[0], Frame::Line(l) if l.len() == 8 << 20));
        assert_eq!(s.examined(), (8 << 20) + 1);
    }

    #[test]
    fn an_over_long_line_keeps_its_head_and_the_next_line_survives() {
        let mut long = b"{\"id\":7,\"method\":\"tool/call\",\"params\":\"".to_vec();
        long.extend(std::iter::repeat_n(b'y', 10_000));
        long.extend_from_slice(b"\"}\n{\"id\":8}\n");
        let mut s = LineSplitter::new(5_000);
        let mut out = Vec::new();
        for chunk in long.chunks(333) {
            s.push(chunk, &mut out);
        }
        assert_eq!(out.len(), 2, "{out:?}");
        match &out[0] {
            Frame::TooLong { head, len } => {
                assert!(head.starts_with(b"{\"id\":7,"));
                assert_eq!(head.len(), KEPT_HEAD);
                assert_eq!(*len, long.len() - "\n{\"id\":8}\n".len());
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(out[1], Frame::Line(b"{\"id\":8}".to_vec()));
        // Memory stays bounded by the limit while skipping.
        assert!(s.buf.capacity() <= 5_000 + 333);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(128))]

        /// However the stream is cut, lines come out whole and in order, an
        /// over-long line comes out as `TooLong`, and the splitter never
        /// holds more than the limit.
        #[test]
        fn any_chunking_gives_the_same_frames(
            lines in proptest::collection::vec(proptest::collection::vec(0u8..=255, 0..300), 0..20),
            cuts in proptest::collection::vec(1usize..97, 1..50),
        ) {
            const MAX: usize = 200;
            let lines: Vec<Vec<u8>> = lines
                .into_iter()
                .map(|l| l.into_iter().filter(|&b| b != b'\n' && b != b'\r').collect())
                .collect();
            let stream: Vec<u8> = lines.iter().flat_map(|l| l.iter().copied().chain([b'\n'])).collect();
            let mut s = LineSplitter::new(MAX);
            let mut out = Vec::new();
            let mut rest = &stream[..];
            let mut cut = cuts.iter().cycle();
            while !rest.is_empty() {
                let n = (*cut.next().unwrap()).min(rest.len());
                s.push(&rest[..n], &mut out);
                proptest::prop_assert!(s.buf.len() <= MAX.max(KEPT_HEAD));
                rest = &rest[n..];
            }
            proptest::prop_assert_eq!(out.len(), lines.len());
            for (frame, line) in out.iter().zip(&lines) {
                match frame {
                    Frame::Line(got) => proptest::prop_assert_eq!(got, line),
                    Frame::TooLong { head, len } => {
                        proptest::prop_assert!(line.len() > MAX);
                        proptest::prop_assert_eq!(*len, line.len());
                        proptest::prop_assert!(line.starts_with(head));
                    }
                }
            }
            proptest::prop_assert_eq!(s.examined(), stream.len() as u64);
        }
    }
}
