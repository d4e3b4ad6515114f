//! Transport: stdin/stdout as protocol lines, both taken away from user code
//! (stray prints and child processes cannot touch the protocol streams).
//!
//! Reading is a task on the async runtime when stdin is a pipe or a socket
//! (it always is under the bridge): the call tasks it spawns then start on
//! the same worker thread with no cross-thread wake-up. Otherwise (a
//! terminal, a file, non-Unix) a thread reads and hands lines over a
//! channel. Writing happens in place, from the task that produced the line.

use std::fs::File;
use std::io::{self, Read, Write};
use std::sync::Mutex;

use tokio::sync::mpsc;

use crate::wire::framing::{max_line_bytes, Frame, LineSplitter};

/// Bytes asked for per `read`; a line may span several reads.
const READ_CHUNK: usize = 64 * 1024;

/// Whether the runtime's poller is edge-triggered (epoll, kqueue), so that a
/// short read proves the pipe drained (tokio's own list, minus the rarest).
#[cfg(unix)]
const SHORT_READ_DRAINS: bool = cfg!(any(
    target_os = "linux",
    target_os = "android",
    target_os = "macos",
    target_os = "ios",
    target_os = "freebsd",
    target_os = "netbsd",
    target_os = "openbsd",
    target_os = "dragonfly",
));

/// Take fd 1 for the protocol and point fd 1 at stderr, so that `println!`
/// from user code or a dependency ends up in the log instead of corrupting
/// the protocol stream. Returns the protocol's private handle.
#[cfg(unix)]
pub(crate) fn take_over_stdout() -> io::Result<File> {
    use std::os::fd::AsFd;
    // Flush whatever Rust buffered for the old stdout first.
    io::stdout().flush()?;
    // CLOEXEC: child processes spawned by tools must not inherit the
    // protocol pipe (they would keep it open and could write to it).
    let protocol = rustix::io::fcntl_dupfd_cloexec(io::stdout().as_fd(), 3)?;
    rustix::stdio::dup2_stdout(io::stderr().as_fd())?;
    Ok(File::from(protocol))
}

/// On platforms without fd duplication the protocol uses stdout as is; stray
/// prints then corrupt it, so keep them out of tools there.
#[cfg(not(unix))]
pub(crate) fn take_over_stdout() -> io::Result<File> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "stdout takeover is only implemented on Unix",
    ))
}

/// Take fd 0 for the protocol and point fd 0 at `/dev/null`, so that a child
/// process a tool spawns with an inherited stdin (the default of
/// `std::process::Command::spawn`) reads nothing instead of eating protocol
/// lines. Returns the protocol's private handle (close-on-exec, so children
/// do not inherit it either). Must run before anything reads `io::stdin()`.
#[cfg(unix)]
pub(crate) fn take_over_stdin() -> io::Result<File> {
    use std::os::fd::AsFd;
    let protocol = rustix::io::fcntl_dupfd_cloexec(io::stdin().as_fd(), 3)?;
    let null = File::open("/dev/null")?;
    rustix::stdio::dup2_stdin(null.as_fd())?;
    Ok(File::from(protocol))
}

/// Without fd duplication the protocol reads stdin as is.
#[cfg(not(unix))]
pub(crate) fn take_over_stdin() -> io::Result<File> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "stdin takeover is only implemented on Unix",
    ))
}

/// Where the protocol's outgoing lines go.
pub(crate) enum LineSink {
    /// The protocol's stdout (see [`PipeWriter`]).
    Pipe(PipeWriter),
    /// A channel to an in-process host ([`crate::testing::TestHost`]).
    Channel(mpsc::UnboundedSender<Vec<u8>>),
}

impl LineSink {
    /// Write one encoded line (ending in `\n`). Errors are ignored: the
    /// other side is gone and the process is about to stop anyway.
    pub(crate) fn send(&self, line: Vec<u8>) {
        match self {
            Self::Pipe(out) => out.write_line(line),
            Self::Channel(tx) => {
                let _ = tx.send(line);
            }
        }
    }
}

/// Writes lines to the protocol's stdout from whichever thread produced
/// them, without a writer thread (a hand-off to one costs a wake-up per
/// line). A thread that finds nobody writing writes its line itself; lines
/// that arrive meanwhile are queued whole and written by that same thread
/// in one batch, so lines never interleave, fewer syscalls are made under
/// load, and no thread waits for another one's syscall.
///
/// The fd is blocking: the bridge drains the pipe continuously, so the
/// writing thread blocks at most briefly, and only that one thread (Node
/// never blocks writing to us, so this cannot deadlock). Nothing is
/// buffered beyond the queue, which the writing thread empties before it
/// returns: there is no flush to forget at exit.
pub(crate) struct PipeWriter {
    out: File,
    state: Mutex<Queue>,
}

#[derive(Default)]
struct Queue {
    /// Whether a thread is writing (and will drain `lines`).
    writing: bool,
    /// Complete lines waiting for that thread.
    lines: Vec<u8>,
}

impl PipeWriter {
    /// Write to `out` (the handle [`take_over_stdout`] returned).
    pub(crate) fn new(out: File) -> Self {
        Self {
            out,
            state: Mutex::new(Queue::default()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Queue> {
        // A poisoned lock only means a panic elsewhere while it was held;
        // the queue holds whole lines only, so it is fine.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn write_line(&self, line: Vec<u8>) {
        {
            let mut state = self.lock();
            if state.writing {
                state.lines.extend_from_slice(&line);
                return;
            }
            state.writing = true;
        }
        let mut batch = line;
        loop {
            let _ = (&self.out).write_all(&batch);
            batch.clear();
            let mut state = self.lock();
            if state.lines.is_empty() {
                // Under the lock: a line queued after this check finds
                // `writing` false and writes itself.
                state.writing = false;
                return;
            }
            std::mem::swap(&mut batch, &mut state.lines);
        }
    }
}

/// The protocol's incoming lines.
pub(crate) struct LineSource(Source);

enum Source {
    /// Non-blocking reads of a pipe or socket, driven by the runtime.
    #[cfg(unix)]
    Async {
        input: tokio::io::unix::AsyncFd<File>,
        /// Bytes read but not yet a whole line.
        splitter: LineSplitter,
        chunk: Box<[u8]>,
        /// Frames of the last read not yet handed out.
        frames: std::collections::VecDeque<Frame>,
        done: bool,
    },
    /// A reader thread (see [`LineSource::thread`]).
    Thread(mpsc::Receiver<Frame>),
}

impl LineSource {
    /// Read `input` (the handle [`take_over_stdin`] returned) on the current
    /// runtime when it is a pipe or a socket, else on a thread. Must be
    /// called inside the runtime that will poll it.
    #[cfg(unix)]
    pub(crate) fn new(input: File) -> Self {
        use std::os::unix::fs::FileTypeExt;
        let pollable = input
            .metadata()
            .map(|m| m.file_type().is_fifo() || m.file_type().is_socket())
            .unwrap_or(false);
        // Not for files (epoll cannot wait for them) nor terminals
        // (O_NONBLOCK would leak into the shell that shares the terminal).
        if !pollable {
            return Self::thread(input);
        }
        // O_NONBLOCK is a property of the open file description, which only
        // our private fd uses now (fd 0 points at /dev/null); the bridge's
        // end of the pipe is a separate description.
        if rustix::io::ioctl_fionbio(&input, true).is_err() {
            return Self::thread(input);
        }
        // SAFETY: `register_with_interest` needs the fd to stay open and the
        // same for the `AsyncFd`'s whole life. A `File` owns its fd: it is
        // closed only when the `File` drops, which the `AsyncFd` (owning the
        // `File`) does last, and `as_raw_fd` always returns that one fd.
        let registered = unsafe {
            tokio::io::unix::AsyncFd::register_with_interest(input, tokio::io::Interest::READABLE)
        };
        match registered {
            Ok(input) => Self(Source::Async {
                input,
                splitter: LineSplitter::new(max_line_bytes()),
                chunk: vec![0u8; READ_CHUNK].into_boxed_slice(),
                frames: Default::default(),
                done: false,
            }),
            Err(e) => {
                let (input, _) = e.into_parts();
                let _ = rustix::io::ioctl_fionbio(&input, false);
                Self::thread(input)
            }
        }
    }

    /// Without epoll/kqueue: read `input` on a thread.
    #[cfg(not(unix))]
    pub(crate) fn new(input: File) -> Self {
        Self::thread(input)
    }

    /// Read `input` with blocking reads on a thread that sends complete
    /// lines over a channel (the fallback when the runtime cannot poll it).
    pub(crate) fn thread<R: Read + Send + 'static>(mut input: R) -> Self {
        let (tx, rx) = mpsc::channel(1024);
        std::thread::Builder::new()
            .name("pi-ext-stdin".into())
            .spawn(move || {
                let mut splitter = LineSplitter::new(max_line_bytes());
                let mut chunk = vec![0u8; READ_CHUNK];
                let mut frames = Vec::new();
                loop {
                    let n = match input.read(&mut chunk) {
                        Ok(0) => break,
                        Ok(n) => n,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                        Err(_) => break,
                    };
                    splitter.push(&chunk[..n], &mut frames);
                    for frame in frames.drain(..) {
                        if tx.blocking_send(frame).is_err() {
                            return;
                        }
                    }
                }
            })
            .expect("spawning the stdin reader thread");
        Self(Source::Thread(rx))
    }

    /// The next complete line (without its `\n`), or `None` at EOF (pi quit
    /// or was killed) or on a read error. A partial last line is dropped.
    pub(crate) async fn next_frame(&mut self) -> Option<Frame> {
        match &mut self.0 {
            #[cfg(unix)]
            Source::Async {
                input,
                splitter,
                chunk,
                frames,
                done,
            } => loop {
                if let Some(frame) = frames.pop_front() {
                    return Some(frame);
                }
                if *done {
                    return None;
                }
                let mut ready = match input.readable().await {
                    Ok(ready) => ready,
                    Err(_) => {
                        *done = true;
                        continue;
                    }
                };
                match ready.get_inner().read(chunk) {
                    Ok(0) => *done = true,
                    Ok(n) => {
                        // As tokio does for its own pipes and sockets: with
                        // edge-triggered epoll/kqueue a short read means the
                        // buffer was drained, which saves the read that
                        // would only say EAGAIN. (Data arriving meanwhile
                        // is a new edge, and clear_ready ignores a stale
                        // readiness.)
                        if SHORT_READ_DRAINS && n < chunk.len() {
                            ready.clear_ready();
                        }
                        splitter.push(&chunk[..n], frames);
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => ready.clear_ready(),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => *done = true,
                }
            },
            Source::Thread(rx) => rx.recv().await,
        }
    }
}

#[cfg(unix)]
impl Drop for Source {
    fn drop(&mut self) {
        // Leave the pipe blocking again, as we found it, in case anything
        // else shares its open file description.
        if let Source::Async { input, .. } = self {
            let _ = rustix::io::ioctl_fionbio(input.get_ref(), false);
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::fd::OwnedFd;
    use std::os::unix::net::UnixStream;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
    }

    #[test]
    fn async_source_splits_lines_across_reads_and_ends_at_eof() {
        let rt = runtime();
        // A socket, as the bridge's stdio pipes are.
        let (ours, mut theirs) = UnixStream::pair().unwrap();
        let mut lines = {
            let _rt = rt.enter();
            LineSource::new(File::from(OwnedFd::from(ours)))
        };
        assert!(matches!(lines.0, Source::Async { .. }));
        let long = "x".repeat(3 * READ_CHUNK);
        let writer = std::thread::spawn({
            let long = long.clone();
            move || {
                theirs.write_all(b"{\"a\":1}\n{\"b\"").unwrap();
                std::thread::sleep(std::time::Duration::from_millis(20));
                theirs.write_all(b":2}\r\n").unwrap();
                theirs
                    .write_all(format!("{long}\nno newline").as_bytes())
                    .unwrap();
            }
        });
        let got: Vec<Vec<u8>> = rt.block_on(async {
            let mut got = Vec::new();
            while let Some(frame) = lines.next_frame().await {
                match frame {
                    Frame::Line(line) => got.push(line),
                    other => panic!("{other:?}"),
                }
            }
            got
        });
        writer.join().unwrap();
        assert_eq!(
            got,
            vec![
                b"{\"a\":1}".to_vec(),
                b"{\"b\":2}".to_vec(),
                long.into_bytes()
            ]
        );
    }

    #[test]
    fn a_terminal_or_file_is_read_on_a_thread() {
        let rt = runtime();
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(b"one\ntwo\n").unwrap();
        std::io::Seek::rewind(&mut file).unwrap();
        let mut lines = {
            let _rt = rt.enter();
            LineSource::new(file)
        };
        assert!(matches!(lines.0, Source::Thread(_)));
        rt.block_on(async {
            assert_eq!(lines.next_frame().await, Some(Frame::Line(b"one".to_vec())));
            assert_eq!(lines.next_frame().await, Some(Frame::Line(b"two".to_vec())));
            assert_eq!(lines.next_frame().await, None);
        });
    }

    #[test]
    fn pipe_sink_writes_whole_lines_from_many_threads() {
        let (ours, theirs) = UnixStream::pair().unwrap();
        let sink = std::sync::Arc::new(LineSink::Pipe(PipeWriter::new(File::from(OwnedFd::from(
            ours,
        )))));
        let reader = std::thread::spawn(move || {
            let mut all = String::new();
            let mut theirs = theirs;
            theirs.read_to_string(&mut all).unwrap();
            all
        });
        let line: Vec<u8> = [vec![b'y'; 100_000], vec![b'\n']].concat();
        let writers: Vec<_> = (0..4)
            .map(|_| {
                let (sink, line) = (sink.clone(), line.clone());
                std::thread::spawn(move || {
                    for _ in 0..10 {
                        sink.send(line.clone());
                    }
                })
            })
            .collect();
        for w in writers {
            w.join().unwrap();
        }
        drop(sink);
        let all = reader.join().unwrap();
        let lines: Vec<&str> = all.lines().collect();
        assert_eq!(lines.len(), 40);
        assert!(lines.iter().all(|l| l.len() == 100_000));
    }
}
