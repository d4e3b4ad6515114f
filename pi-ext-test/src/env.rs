//! An isolated temporary world for one pi process.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use tempfile::TempDir;

use crate::install::PiInstall;
use crate::model::ScriptedModel;
use crate::rpc::PiBuilder;

/// An isolated temporary world for running pi.
///
/// Layout of the temporary directory (deleted on drop):
///
/// - `home/`: used as `HOME` (and the XDG base directories), so nothing touches the real `~/.pi`;
/// - `agent/`: used as `PI_CODING_AGENT_DIR`, holding
///   - `models.json`: one provider `fake` (api `openai-completions`, `apiKey` `"sk-fake"`,
///     compat flags off) with one model `fake-model` whose `baseUrl` is the scripted model's;
///   - `settings.json`: default provider/model, `quietStartup`, the `dark` theme, no install telemetry,
///     compaction off, retries off (so a scripted HTTP error produces exactly one request);
///   - anything the test writes, e.g. `extensions/<name>/index.ts` for auto-discovery;
/// - `cwd/`: pi's working directory (empty, so no `AGENTS.md` or `.pi/` project config).
///
/// Files can be written or edited freely before spawning pi with [`PiEnv::pi`], which runs the
/// pi [`PiInstall::from_env`] names unless [`PiEnv::with_pi`] names another installation.
#[derive(Debug)]
pub struct PiEnv {
    dir: TempDir,
    base_url: String,
    install: PiInstall,
}

impl PiEnv {
    /// Creates the world, pointing the `fake` provider at `model`.
    pub fn new(model: &ScriptedModel) -> PiEnv {
        PiEnv::with_base_url(&model.base_url())
    }

    /// Creates the world, pointing the `fake` provider at an arbitrary OpenAI-compatible base
    /// URL (normally `http://127.0.0.1:PORT/v1`).
    pub fn with_base_url(base_url: &str) -> PiEnv {
        let dir = tempfile::Builder::new()
            .prefix("pi-ext-test-")
            .tempdir()
            .expect("create temp dir for PiEnv");
        let env = PiEnv {
            dir,
            base_url: base_url.to_owned(),
            install: PiInstall::from_env(),
        };
        for sub in [env.home(), env.agent_dir(), env.cwd()] {
            std::fs::create_dir_all(&sub)
                .unwrap_or_else(|e| panic!("create {}: {e}", sub.display()));
        }
        env.write_json(&env.models_path(), &default_models(base_url));
        env.write_json(&env.settings_path(), &default_settings());
        env
    }

    /// Runs `install` instead of [`PiInstall::from_env`]'s pi in every process of this world.
    pub fn with_pi(mut self, install: PiInstall) -> PiEnv {
        self.install = install;
        self
    }

    /// The pi installation this world runs.
    pub fn install(&self) -> &PiInstall {
        &self.install
    }

    /// The temporary directory holding everything else.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// `HOME` for pi.
    pub fn home(&self) -> PathBuf {
        self.root().join("home")
    }

    /// `PI_CODING_AGENT_DIR` for pi.
    pub fn agent_dir(&self) -> PathBuf {
        self.root().join("agent")
    }

    /// pi's working directory.
    pub fn cwd(&self) -> PathBuf {
        self.root().join("cwd")
    }

    /// The base URL written into `models.json`.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// `<agent>/models.json`.
    pub fn models_path(&self) -> PathBuf {
        self.agent_dir().join("models.json")
    }

    /// `<agent>/settings.json`.
    pub fn settings_path(&self) -> PathBuf {
        self.agent_dir().join("settings.json")
    }

    /// `<agent>/extensions`, the global extension directory pi auto-discovers (unless spawned
    /// with `--no-extensions`).
    pub fn extensions_dir(&self) -> PathBuf {
        self.agent_dir().join("extensions")
    }

    /// Writes `contents` to `<agent>/<relative>`, creating parent directories; returns the path.
    pub fn write_agent_file(
        &self,
        relative: impl AsRef<Path>,
        contents: impl AsRef<[u8]>,
    ) -> PathBuf {
        write_file(&self.agent_dir().join(relative), contents.as_ref())
    }

    /// Writes `contents` to `<cwd>/<relative>`, creating parent directories; returns the path.
    pub fn write_cwd_file(
        &self,
        relative: impl AsRef<Path>,
        contents: impl AsRef<[u8]>,
    ) -> PathBuf {
        write_file(&self.cwd().join(relative), contents.as_ref())
    }

    /// Copies `source` to `<agent>/extensions/<name>/<file name of source>` (e.g. `index.ts`
    /// when the fixture is called `index.ts`, otherwise its own name), so that pi auto-discovers
    /// it; returns the destination path.
    ///
    /// pi discovers `extensions/*.ts|js` and `extensions/<dir>/index.ts|js`; to get the latter
    /// from a differently named fixture use [`PiEnv::write_agent_file`] with `index.ts`.
    pub fn install_extension(&self, name: &str, source: impl AsRef<Path>) -> PathBuf {
        let source = source.as_ref();
        let contents = std::fs::read(source)
            .unwrap_or_else(|e| panic!("read extension {}: {e}", source.display()));
        let ext = source.extension().and_then(|e| e.to_str()).unwrap_or("ts");
        self.write_agent_file(format!("extensions/{name}/index.{ext}"), contents)
    }

    /// The current `settings.json` contents.
    pub fn settings(&self) -> Value {
        read_json(&self.settings_path())
    }

    /// Edits `settings.json` in place (call before spawning pi).
    pub fn edit_settings(&self, edit: impl FnOnce(&mut Value)) {
        let mut settings = self.settings();
        edit(&mut settings);
        self.write_json(&self.settings_path(), &settings);
    }

    /// The current `models.json` contents.
    pub fn models(&self) -> Value {
        read_json(&self.models_path())
    }

    /// Edits `models.json` in place (call before spawning pi).
    pub fn edit_models(&self, edit: impl FnOnce(&mut Value)) {
        let mut models = self.models();
        edit(&mut models);
        self.write_json(&self.models_path(), &models);
    }

    /// A builder for a pi process (RPC or print mode) running in this world.
    pub fn pi(&self) -> PiBuilder<'_> {
        PiBuilder::new(self)
    }

    fn write_json(&self, path: &Path, value: &Value) {
        let text = serde_json::to_string_pretty(value).expect("serialise json");
        write_file(path, text.as_bytes());
    }
}

fn write_file(path: &Path, contents: &[u8]) -> PathBuf {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .unwrap_or_else(|e| panic!("create {}: {e}", parent.display()));
    }
    std::fs::write(path, contents).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    path.to_path_buf()
}

fn read_json(path: &Path) -> Value {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("parse {}: {e}", path.display()))
}

fn default_models(base_url: &str) -> Value {
    json!({
        "providers": {
            "fake": {
                "baseUrl": base_url,
                "api": "openai-completions",
                // A literal key: pi 0.77+ takes plain strings as literals; 0.73.1 tries an env
                // var of that name first (there is none). pi sends `Bearer sk-fake`.
                "apiKey": "sk-fake",
                "compat": {
                    "supportsDeveloperRole": false,
                    "supportsReasoningEffort": false,
                    "supportsStore": false,
                    "supportsStrictMode": false
                },
                "models": [{
                    "id": "fake-model",
                    "name": "Fake Model",
                    "reasoning": false,
                    "input": ["text"],
                    "contextWindow": 128000,
                    "maxTokens": 4096,
                    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}
                }]
            }
        }
    })
}

fn default_settings() -> Value {
    json!({
        "defaultProvider": "fake",
        "defaultModel": "fake-model",
        "quietStartup": true,
        // pi 1.x's default is `system` (built from the terminal's colours); tests compare with
        // `dark`, 0.73.1's default.
        "theme": "dark",
        "enableInstallTelemetry": false,
        "compaction": {"enabled": false},
        "retry": {"enabled": false, "provider": {"maxRetries": 0, "timeoutMs": 30000}}
    })
}
