//! What the tool-chain tests share: `cargo-pi-ext` installed as a user
//! installs it, commands run with a deadline, and a throwaway npm
//! registry on 127.0.0.1.
//!
//! Builds: the tool is installed with `cargo install --path cargo-pi-ext`
//! (`--debug`, into a root under the workspace's target directory, with
//! that target directory: it reuses the workspace's build of the tool
//! instead of compiling it from scratch in release mode). The crates `new`
//! makes build in one target directory of their own,
//! `<repo>/target/toolchain-tests/`, shared by every test and run, so
//! pi-ext's dependencies compile once; each test's crate has its own name,
//! so no test's binary replaces another's there.

#![allow(dead_code)] // each test file uses its part

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use pi_ext_e2e::{repo_root, PiEnv};
use serde_json::{json, Value};

/// A cold build of pi-ext's dependencies on a busy 2-core machine takes minutes.
pub const BUILD_TIMEOUT: Duration = Duration::from_secs(900);

/// npm and cargo commands that build nothing.
pub const QUICK_TIMEOUT: Duration = Duration::from_secs(120);

/// The target directory of the workspace (where the tool is built).
fn workspace_target() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target"))
}

/// Where the crates of `cargo pi-ext new` build.
pub fn crates_target() -> PathBuf {
    workspace_target().join("toolchain-tests")
}

/// `cargo install --path cargo-pi-ext`, once per test binary; returns the
/// install root (its `bin/` goes on `PATH`, so `cargo pi-ext` finds it).
pub fn install_tool() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let root = crates_target().join("tool");
        let out = run(
            cargo()
                .args(["install", "--locked", "--offline", "--debug", "--path"])
                .arg(repo_root().join("cargo-pi-ext"))
                .arg("--root")
                .arg(&root)
                .env("CARGO_TARGET_DIR", workspace_target()),
            "cargo install --path cargo-pi-ext",
            BUILD_TIMEOUT,
        );
        assert_success(&out, "cargo install --path cargo-pi-ext");
        assert!(root.join("bin/cargo-pi-ext").is_file());
        root
    })
}

/// `cargo` as the test's cargo, with the installed tool on `PATH`, the
/// shared target directory, and pi's agent directory of `env` (where
/// `install` writes). HOME stays the user's: cargo and rustup live there.
pub fn cargo_in(env: &PiEnv) -> Command {
    let mut cmd = cargo();
    let mut path = vec![install_tool().join("bin")];
    path.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    cmd.env("PATH", std::env::join_paths(path).unwrap())
        .env("CARGO_TARGET_DIR", crates_target())
        // Gigabytes of CI's disk otherwise (Cargo.toml, `[profile.dev]`):
        // no debug info, and no incremental data for crates built once.
        .env("CARGO_PROFILE_DEV_DEBUG", "false")
        .env("CARGO_INCREMENTAL", "0")
        .env("PI_CODING_AGENT_DIR", env.agent_dir())
        // Not the test's own package's variables.
        .env_remove("CARGO_MANIFEST_DIR")
        .env_remove("CARGO_PKG_NAME");
    cmd
}

fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// `cargo pi-ext new <name>` in `<env root>/work/`; returns the crate's directory.
pub fn new_crate(env: &PiEnv, name: &str) -> PathBuf {
    let work = env.root().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let out = run(
        cargo_in(env)
            .args(["pi-ext", "new", name])
            .current_dir(&work),
        "cargo pi-ext new",
        QUICK_TIMEOUT,
    );
    assert_success(&out, "cargo pi-ext new");
    work.join(name)
}

/// Run `cmd` to its end (stdin closed), killing it after `timeout`.
#[track_caller]
pub fn run(cmd: &mut Command, what: &str, timeout: Duration) -> Output {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("could not run {what}: {e}"));
    let reader = |mut stream: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = stream.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = reader(Box::new(child.stdout.take().unwrap()));
    let stderr = reader(Box::new(child.stderr.take().unwrap()));
    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            let err = stderr.join().unwrap_or_default();
            panic!(
                "{what} did not finish within {timeout:?}:\n{}",
                String::from_utf8_lossy(&err)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    }
}

#[track_caller]
pub fn assert_success(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what} failed ({}):\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// An npm package as `npm pack --json` made it, ready to serve.
#[derive(Debug, Clone)]
pub struct Tarball {
    /// Its package.json.
    pub package: Value,
    /// The `.tgz` file.
    pub file: PathBuf,
    /// npm's `integrity` and `shasum` of it.
    pub integrity: String,
    pub shasum: String,
}

/// `npm pack` the package in `dir` into `into`.
pub fn npm_pack(npm: &mut Command, dir: &Path, into: &Path) -> Tarball {
    std::fs::create_dir_all(into).unwrap();
    let out = run(
        npm.args(["pack", "--json", "--pack-destination"])
            .arg(into)
            .arg(dir),
        "npm pack",
        QUICK_TIMEOUT,
    );
    assert_success(&out, "npm pack");
    let packed: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("npm pack --json: {e}: {}", text(&out.stdout)));
    let packed = &packed[0];
    Tarball {
        package: serde_json::from_str(&std::fs::read_to_string(dir.join("package.json")).unwrap())
            .unwrap(),
        file: into.join(packed["filename"].as_str().unwrap()),
        integrity: packed["integrity"].as_str().unwrap().into(),
        shasum: packed["shasum"].as_str().unwrap().into(),
    }
}

/// An npm registry on 127.0.0.1 serving the given tarballs, as the public
/// registry would once they are published: `GET /<name>` answers the
/// package's metadata (its package.json with `dist`), `GET /-/<file>` the
/// tarball; anything else is 404 (npm skips an optional dependency it
/// cannot find, as it would one never published). One request per
/// connection.
pub struct NpmRegistry {
    url: String,
    stop: Arc<AtomicBool>,
    requests: Arc<Mutex<Vec<String>>>,
    accept: Option<JoinHandle<()>>,
}

impl NpmRegistry {
    pub fn serve(tarballs: &[Tarball]) -> NpmRegistry {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/", listener.local_addr().unwrap());
        let mut files = Vec::new();
        let mut packuments = Vec::new();
        for t in tarballs {
            let name = t.package["name"].as_str().unwrap().to_string();
            let version = t.package["version"].as_str().unwrap().to_string();
            let file_name = t.file.file_name().unwrap().to_string_lossy().into_owned();
            let mut manifest = t.package.clone();
            manifest["dist"] = json!({
                "tarball": format!("{url}-/{file_name}"),
                "integrity": t.integrity,
                "shasum": t.shasum,
            });
            let packument = json!({
                "name": name,
                "dist-tags": { "latest": version },
                "versions": { version: manifest },
            });
            packuments.push((format!("/{name}"), packument.to_string().into_bytes()));
            files.push((format!("/-/{file_name}"), t.file.clone()));
        }
        let stop = Arc::new(AtomicBool::new(false));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let accept = {
            let (stop, requests) = (stop.clone(), requests.clone());
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        return;
                    }
                    let Ok(stream) = stream else { continue };
                    let (packuments, files, requests) =
                        (packuments.clone(), files.clone(), requests.clone());
                    std::thread::spawn(move || {
                        answer(stream, &packuments, &files, &requests);
                    });
                }
            })
        };
        NpmRegistry {
            url,
            stop,
            requests,
            accept: Some(accept),
        }
    }

    /// `http://127.0.0.1:<port>/`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The paths requested so far.
    pub fn requested(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

fn answer(
    mut stream: TcpStream,
    packuments: &[(String, Vec<u8>)],
    files: &[(String, PathBuf)],
    requests: &Mutex<Vec<String>>,
) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    // The request head only (GET has no body), at most 64 KiB.
    while !head.ends_with(b"\r\n\r\n") && head.len() < 64 * 1024 {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return,
        }
    }
    let head = String::from_utf8_lossy(&head);
    let mut words = head.split_whitespace();
    let (method, path) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
    let path = path.replace("%2f", "/").replace("%2F", "/");
    requests.lock().unwrap().push(path.clone());
    let body = match method {
        "GET" => packuments
            .iter()
            .find(|(p, _)| *p == path)
            .map(|(_, body)| (body.clone(), "application/json"))
            .or_else(|| {
                files
                    .iter()
                    .find(|(p, _)| *p == path)
                    .and_then(|(_, f)| std::fs::read(f).ok())
                    .map(|bytes| (bytes, "application/octet-stream"))
            }),
        _ => None,
    };
    let (status, body, kind) = match body {
        Some((body, kind)) => ("200 OK", body, kind),
        None => (
            "404 Not Found",
            br#"{"error":"not found"}"#.to_vec(),
            "application/json",
        ),
    };
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\ncontent-type: {kind}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(&body);
}

impl Drop for NpmRegistry {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop.
        let addr = self.url.trim_start_matches("http://").trim_end_matches('/');
        let _ = TcpStream::connect(addr);
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
    }
}
