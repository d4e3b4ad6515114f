//! pi's directories, as pi itself finds them.

use std::io;
use std::path::PathBuf;

/// pi's agent directory: `$PI_CODING_AGENT_DIR`, else `~/.pi/agent`.
pub(crate) fn agent_dir() -> io::Result<PathBuf> {
    if let Some(dir) = std::env::var_os("PI_CODING_AGENT_DIR").filter(|d| !d.is_empty()) {
        let dir = PathBuf::from(dir);
        if let Ok(rest) = dir.strip_prefix("~") {
            return Ok(home_dir()?.join(rest));
        }
        return Ok(dir);
    }
    Ok(home_dir()?.join(".pi").join("agent"))
}

fn home_dir() -> io::Result<PathBuf> {
    std::env::var_os("HOME")
        .or_else(|| std::env::var_os("USERPROFILE"))
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "HOME is not set"))
}
