//! A port of pi's `examples/extensions/dynamic-resources/`: when pi
//! discovers its resources, the extension adds a skill (`SKILL.md`), a
//! prompt template (`dynamic.md`, the `/dynamic` command) and a theme
//! (`dynamic.json`, named `dynamic-resources`). The files are the
//! original's, built into the binary and written beside the extension
//! (`Ctx::extension_dir`), where the original keeps them beside its
//! `index.ts`.
use std::path::Path;

use pi_ext::events::{ResourcesDiscoverEvent, ResourcesDiscovered};
use pi_ext::prelude::*;

#[extension(name = "dynamic-resources")]
struct DynamicResources;

/// The original's three files, by name.
const FILES: [(&str, &str); 3] = [
    ("SKILL.md", include_str!("../resources/SKILL.md")),
    ("dynamic.md", include_str!("../resources/dynamic.md")),
    ("dynamic.json", include_str!("../resources/dynamic.json")),
];

/// Write `name` into `dir` unless it is there already with this content;
/// its path.
fn written(dir: &Path, name: &str, content: &str) -> Result<String, Error> {
    let path = dir.join(name);
    if std::fs::read_to_string(&path).ok().as_deref() != Some(content) {
        std::fs::write(&path, content)?;
    }
    Ok(path.to_string_lossy().into_owned())
}

#[hook]
async fn resources_discover(
    _event: ResourcesDiscoverEvent,
    ctx: &Ctx,
) -> Result<ResourcesDiscovered, Error> {
    let dir = ctx
        .extension_dir()
        .ok_or("the bridge did not say where the extension is installed")?
        .join("resources");
    std::fs::create_dir_all(&dir)?;
    let [skill, prompt, theme] = FILES.map(|(name, content)| written(&dir, name, content));
    Ok(ResourcesDiscovered {
        skill_paths: vec![skill?],
        prompt_paths: vec![prompt?],
        theme_paths: vec![theme?],
    })
}

pi_ext::main!();
