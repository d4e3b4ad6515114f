//! Agent discovery (the original's `agents.ts`): agents are Markdown files
//! with YAML front matter, in the agent directory's `agents/` (user) and the
//! nearest `.pi/agents/` up from the working directory (project).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_yaml_ng::Value as Yaml;

/// Which agent directories to use (the tool's `agentScope`).
// Variants without doc comments: pi's schema has no text for them.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, pi_ext::schemars::JsonSchema,
)]
#[schemars(crate = "pi_ext::schemars")]
#[serde(rename_all = "lowercase")]
pub enum AgentScope {
    // `~/.pi/agent/agents` only.
    #[default]
    User,
    // The nearest `.pi/agents` only.
    Project,
    // Both, project agents overriding user agents of the same name.
    Both,
}

/// Where an agent was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// The agent directory's `agents/`.
    User,
    /// A project's `.pi/agents/`.
    Project,
}

impl Source {
    /// Its name, as the details and messages spell it.
    pub fn name(self) -> &'static str {
        match self {
            Source::User => "user",
            Source::Project => "project",
        }
    }
}

/// One agent definition.
#[derive(Clone, Debug)]
pub struct AgentConfig {
    /// Its `name`.
    pub name: String,
    /// Its `tools` (`--tools`), if any.
    pub tools: Option<Vec<String>>,
    /// Its `model` (`--model`), if any.
    pub model: Option<String>,
    /// The body: appended to the child's system prompt.
    pub system_prompt: String,
    /// Where it was found.
    pub source: Source,
    /// Its file.
    pub file_path: PathBuf,
}

/// The agents found, and the project's agent directory if there is one.
pub struct Discovery {
    /// The agents, user agents first, overridden in place by project ones.
    pub agents: Vec<AgentConfig>,
    /// The nearest `.pi/agents`, whatever the scope.
    pub project_agents_dir: Option<PathBuf>,
}

/// pi's `parseFrontmatter`: newlines normalized, a BOM dropped, the YAML
/// between a leading `---` and the next `\n---`, and the trimmed body.
/// `Err` for YAML that does not parse (pi's parser throws too).
pub fn parse_frontmatter(content: &str) -> Result<(Yaml, String), String> {
    let content = content.strip_prefix('\u{feff}').unwrap_or(content);
    let normalized = content.replace("\r\n", "\n").replace('\r', "\n");
    if !normalized.starts_with("---") {
        return Ok((Yaml::Null, normalized));
    }
    let Some(end) = normalized[3..].find("\n---").map(|i| i + 3) else {
        return Ok((Yaml::Null, normalized));
    };
    // `slice(4, end)`: the line break after `---` is left out.
    let yaml = normalized.get(4..end).unwrap_or("");
    let body = normalized[end + 4..].trim().to_string();
    if yaml.is_empty() {
        return Ok((Yaml::Null, body));
    }
    let parsed: Yaml = serde_yaml_ng::from_str(yaml).map_err(|e| e.to_string())?;
    Ok((parsed, body))
}

/// A front-matter `tools` value as tool names: `read, bash` or `[read,
/// bash]`; anything else is no tools.
fn parse_tool_list(value: Option<&Yaml>) -> Option<Vec<String>> {
    let raw: Vec<String> = match value {
        Some(Yaml::Sequence(items)) => items
            .iter()
            .filter_map(|t| t.as_str().map(str::to_string))
            .collect(),
        Some(Yaml::String(s)) => s.split(',').map(str::to_string).collect(),
        _ => Vec::new(),
    };
    let tools: Vec<String> = raw
        .iter()
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
        .collect();
    (!tools.is_empty()).then_some(tools)
}

/// The agents in `dir`, in the order Node lists the directory (by name).
fn load_agents_from_dir(dir: &Path, source: Source) -> Result<Vec<AgentConfig>, String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(Vec::new());
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    let mut agents = Vec::new();
    for entry in entries {
        let name = entry.file_name();
        if !name.to_string_lossy().ends_with(".md") {
            continue;
        }
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if !kind.is_file() && !kind.is_symlink() {
            continue;
        }
        let file_path = dir.join(&name);
        let Ok(content) = std::fs::read_to_string(&file_path) else {
            continue;
        };
        let (frontmatter, body) = parse_frontmatter(&content)
            .map_err(|e| format!("{}: invalid front matter: {e}", file_path.display()))?;
        let field = |key: &str| frontmatter.get(key);
        // An agent needs a name and a description (which nothing reads).
        let (Some(Yaml::String(name)), Some(Yaml::String(_))) =
            (field("name"), field("description"))
        else {
            continue;
        };
        agents.push(AgentConfig {
            name: name.clone(),
            tools: parse_tool_list(field("tools")),
            model: field("model").and_then(Yaml::as_str).map(str::to_string),
            system_prompt: body,
            source,
            file_path,
        });
    }
    Ok(agents)
}

/// The nearest `.pi/agents` directory from `cwd` up.
fn find_nearest_project_agents_dir(cwd: &Path) -> Option<PathBuf> {
    cwd.ancestors()
        .map(|dir| dir.join(".pi").join("agents"))
        .find(|candidate| candidate.is_dir())
}

/// The agents `scope` selects from `cwd` (the original's `discoverAgents`).
pub fn discover_agents(
    agent_dir: &Path,
    cwd: &Path,
    scope: AgentScope,
) -> Result<Discovery, String> {
    let user_dir = agent_dir.join("agents");
    let project_agents_dir = find_nearest_project_agents_dir(cwd);
    let user_agents = match scope {
        AgentScope::Project => Vec::new(),
        _ => load_agents_from_dir(&user_dir, Source::User)?,
    };
    let project_agents = match (&project_agents_dir, scope) {
        (Some(dir), AgentScope::Project | AgentScope::Both) => {
            load_agents_from_dir(dir, Source::Project)?
        }
        _ => Vec::new(),
    };
    // A JavaScript Map: a later agent of the same name takes the earlier
    // one's place.
    let mut agents: Vec<AgentConfig> = Vec::new();
    for agent in user_agents.into_iter().chain(project_agents) {
        match agents.iter_mut().find(|a| a.name == agent.name) {
            Some(slot) => *slot = agent,
            None => agents.push(agent),
        }
    }
    Ok(Discovery {
        agents,
        project_agents_dir,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_and_body_are_split_as_pi_splits_them() {
        let (fm, body) =
            parse_frontmatter("\u{feff}---\r\nname: scout\ntools: [read, bash]\n---\n\nHi\n")
                .unwrap();
        assert_eq!(fm.get("name").and_then(Yaml::as_str), Some("scout"));
        assert_eq!(
            parse_tool_list(fm.get("tools")),
            Some(vec!["read".into(), "bash".into()])
        );
        assert_eq!(body, "Hi");
        let (fm, body) = parse_frontmatter("no front matter").unwrap();
        assert!(fm.is_null());
        assert_eq!(body, "no front matter");
        assert!(parse_frontmatter("---\nname: [\n---\n").is_err());
    }

    #[test]
    fn tool_lists_are_strings_or_lists() {
        let list = |s: &str| parse_tool_list(Some(&serde_yaml_ng::from_str(s).unwrap()));
        assert_eq!(
            list("read, grep ,"),
            Some(vec!["read".into(), "grep".into()])
        );
        assert_eq!(list("[read, 3]"), Some(vec!["read".into()]));
        assert_eq!(list("3"), None);
        assert_eq!(list("''"), None);
    }
}
