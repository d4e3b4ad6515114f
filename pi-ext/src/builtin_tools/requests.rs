//! The bridge's `ops/*` requests, as read from the wire.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// `ops/bash` params.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct BashParams {
    #[serde(default)]
    pub(crate) handle: Option<u64>,
    pub(crate) command: String,
    pub(crate) cwd: PathBuf,
    #[serde(default)]
    pub(crate) timeout: Option<f64>,
    #[serde(default)]
    pub(crate) env: EnvDelta,
}

/// `ops/spawn-hook` params.
#[derive(Deserialize)]
pub(crate) struct SpawnParams {
    pub(crate) command: String,
    pub(crate) cwd: PathBuf,
    #[serde(default)]
    pub(crate) env: EnvDelta,
}

/// `ops/read` params.
#[derive(Deserialize)]
pub(crate) struct ReadParams {
    pub(crate) op: String,
    pub(crate) path: PathBuf,
}

/// `ops/write` and `ops/edit` params.
#[derive(Deserialize)]
pub(crate) struct FileParams {
    pub(crate) op: String,
    pub(crate) path: PathBuf,
    #[serde(default)]
    pub(crate) content: Option<String>,
}

/// `ops/ls` and `ops/find` params (`pattern`, `ignore` and `limit` for a
/// glob, whose `path` is its working directory).
#[derive(Deserialize)]
pub(crate) struct ListParams {
    pub(crate) op: String,
    pub(crate) path: PathBuf,
    #[serde(default)]
    pub(crate) pattern: Option<String>,
    #[serde(default)]
    pub(crate) ignore: Vec<String>,
    #[serde(default)]
    pub(crate) limit: Option<usize>,
}

/// How pi's environment differs from the one this process started with.
#[derive(Debug, Default, Clone, Deserialize, Serialize, PartialEq, Eq)]
pub(crate) struct EnvDelta {
    #[serde(default)]
    set: BTreeMap<String, String>,
    #[serde(default)]
    unset: Vec<String>,
}

impl EnvDelta {
    /// This process's environment with the delta applied.
    pub(super) fn apply(&self) -> BTreeMap<String, String> {
        let mut env: BTreeMap<String, String> = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect();
        for k in &self.unset {
            env.remove(k);
        }
        env.extend(self.set.clone());
        env
    }

    /// The delta from this process's environment to `env`.
    pub(super) fn of(env: &BTreeMap<String, String>) -> Self {
        let base: BTreeMap<String, String> = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect();
        Self {
            set: env
                .iter()
                .filter(|(k, v)| base.get(*k) != Some(v))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            unset: base
                .keys()
                .filter(|k| !env.contains_key(*k))
                .cloned()
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_environment_delta_round_trips() {
        let mut env = EnvDelta::default().apply();
        env.insert("PI_EXT_TEST_SET".into(), "1".into());
        let removed = env.keys().next().cloned().unwrap();
        env.remove(&removed);
        let delta = EnvDelta::of(&env);
        assert_eq!(
            delta.set.get("PI_EXT_TEST_SET").map(String::as_str),
            Some("1")
        );
        assert_eq!(delta.unset, [removed]);
        assert_eq!(delta.apply(), env);
    }
}
