//! Transport: stdin/stdout as protocol lines, with stdout protected from
//! stray prints.
//!
//! Reading and writing run on two dedicated threads: blocking I/O on pipes is
//! cheapest that way, and the async side only sees channels of lines.

use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::thread::JoinHandle;

use tokio::sync::mpsc;

use crate::protocol::split_lines;

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

/// Read `input` on a thread and deliver complete lines. The channel closes
/// at EOF (pi quit or was killed) or on a read error.
pub(crate) fn spawn_reader<R: Read + Send + 'static>(mut input: R) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel(1024);
    std::thread::Builder::new()
        .name("pi-ext-stdin".into())
        .spawn(move || {
            let mut buf = Vec::with_capacity(64 * 1024);
            let mut chunk = vec![0u8; 64 * 1024];
            loop {
                let n = match input.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(_) => break,
                };
                buf.extend_from_slice(&chunk[..n]);
                for line in split_lines(&mut buf) {
                    if tx.blocking_send(line).is_err() {
                        return;
                    }
                }
            }
        })
        .expect("spawning the stdin reader thread");
    rx
}

/// Write lines from the returned channel to `output` on a thread, batching
/// whatever is queued into one flush. The thread ends when every sender is
/// dropped; join it to be sure everything was written.
pub(crate) fn spawn_writer<W: Write + Send + 'static>(
    output: W,
) -> (mpsc::UnboundedSender<Vec<u8>>, JoinHandle<()>) {
    let (tx, mut rx) = mpsc::unbounded_channel::<Vec<u8>>();
    let handle = std::thread::Builder::new()
        .name("pi-ext-stdout".into())
        .spawn(move || {
            let mut out = BufWriter::with_capacity(64 * 1024, output);
            while let Some(line) = rx.blocking_recv() {
                if out.write_all(&line).is_err() {
                    return;
                }
                while let Ok(more) = rx.try_recv() {
                    if out.write_all(&more).is_err() {
                        return;
                    }
                }
                if out.flush().is_err() {
                    return;
                }
            }
        })
        .expect("spawning the stdout writer thread");
    (tx, handle)
}
