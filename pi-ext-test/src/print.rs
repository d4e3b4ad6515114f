//! Running pi in print mode (`pi -p`).

use std::io::Read;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::diag::tail_lines;

/// The outcome of a `pi -p` run (see [`crate::PiBuilder::run_print`]).
#[derive(Debug, Clone)]
pub struct PrintOutput {
    /// pi's exit status.
    pub status: ExitStatus,
    /// Everything pi wrote to stdout.
    pub stdout: String,
    /// Everything pi wrote to stderr.
    pub stderr: String,
}

impl PrintOutput {
    /// Whether pi exited with status 0.
    pub fn success(&self) -> bool {
        self.status.success()
    }

    /// pi's exit code (`None` if killed by a signal).
    pub fn code(&self) -> Option<i32> {
        self.status.code()
    }
}

pub(crate) fn run_print(mut cmd: Command, timeout: Duration) -> PrintOutput {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        // Own process group, so a timeout can also kill whatever pi spawned.
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot spawn pi ({cmd:?}): {e}; is `node` on PATH?"));
    let mut stdout = child.stdout.take().expect("pi stdout");
    let mut stderr = child.stderr.take().expect("pi stderr");
    // Drain both pipes concurrently so neither can fill up and block pi.
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stdout.read_to_end(&mut buf);
        String::from_utf8_lossy(&buf).into_owned()
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stderr.read_to_end(&mut buf);
        String::from_utf8_lossy(&buf).into_owned()
    });
    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for pi") {
            break Some(status);
        }
        if Instant::now() >= deadline {
            #[cfg(unix)]
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", child.id())])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    // pi has exited (or was killed), so both pipes reach EOF unless a grandchild holds them;
    // the join below could then block, so give up on output held open that way.
    let stdout = join_with_deadline(out_reader, Duration::from_secs(5));
    let stderr = join_with_deadline(err_reader, Duration::from_secs(5));
    match status {
        Some(status) => PrintOutput {
            status,
            stdout,
            stderr,
        },
        None => panic!(
            "pi -p timed out after {timeout:?} (killed)\nstdout:\n{}stderr:\n{}",
            tail_lines(&stdout, 30),
            tail_lines(&stderr, 40)
        ),
    }
}

fn join_with_deadline(handle: std::thread::JoinHandle<String>, timeout: Duration) -> String {
    let deadline = Instant::now() + timeout;
    while !handle.is_finished() {
        if Instant::now() >= deadline {
            return "(output still held open by a child process of pi)".to_owned();
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    handle.join().unwrap_or_default()
}
