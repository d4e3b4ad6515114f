//! Where an extension's two settings files are: the global one under pi's
//! agent dir and the project one under the session's working directory.

use std::io;
use std::path::{Path, PathBuf};

/// Where an extension's settings files are. See the
/// [module docs](super#files).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsPaths {
    /// `<agent dir>/pi-ext/settings/<extension>.json`.
    pub global: PathBuf,
    /// `<cwd>/.pi/pi-ext/settings/<extension>.json`.
    pub project: PathBuf,
}

impl SettingsPaths {
    /// The files of extension `name` for a session in `cwd`, with the agent
    /// dir (`$PI_CODING_AGENT_DIR`, else `~/.pi/agent`).
    ///
    /// # Errors
    ///
    /// When the home directory is unknown, or when `name` cannot be a file
    /// name (empty, `.`, `..`, or containing a path separator).
    pub fn for_extension(name: &str, cwd: &Path) -> io::Result<Self> {
        Self::with_agent_dir(&crate::util::pi_dirs::agent_dir()?, name, cwd)
    }

    /// Like [`for_extension`](Self::for_extension) with an explicit agent
    /// dir.
    ///
    /// # Errors
    ///
    /// When `name` cannot be a file name (empty, `.`, `..`, or containing a
    /// path separator), with [`io::ErrorKind::InvalidInput`].
    pub fn with_agent_dir(agent_dir: &Path, name: &str, cwd: &Path) -> io::Result<Self> {
        if name.is_empty()
            || name == "."
            || name == ".."
            || name.contains(['/', '\\'])
            || name.contains('\0')
        {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("`{name}` is not a valid extension name for a settings file"),
            ));
        }
        let file = format!("{name}.json");
        Ok(SettingsPaths {
            global: agent_dir.join("pi-ext").join("settings").join(&file),
            project: cwd.join(".pi").join("pi-ext").join("settings").join(&file),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths() {
        let p = SettingsPaths::with_agent_dir(Path::new("/a"), "demo", Path::new("/w")).unwrap();
        assert_eq!(p.global, Path::new("/a/pi-ext/settings/demo.json"));
        assert_eq!(p.project, Path::new("/w/.pi/pi-ext/settings/demo.json"));
        for bad in ["", ".", "..", "a/b", "a\\b"] {
            let e = SettingsPaths::with_agent_dir(Path::new("/a"), bad, Path::new("/w"));
            assert_eq!(
                e.unwrap_err().kind(),
                io::ErrorKind::InvalidInput,
                "{bad:?}"
            );
        }
    }
}
