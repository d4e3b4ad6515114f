//! A port of pi's `bash-spawn-hook.ts`: pi's own bash tool, with a spawn
//! hook in Rust that sources `~/.profile` before every command and marks
//! its environment with `PI_SPAWN_HOOK=1`. pi's shell runs the command.
use pi_ext::builtin_tools::{BuiltinTool, SpawnContext};

/// The bash-spawn-hook extension.
#[pi_ext::extension(name = "bash-spawn-hook")]
struct BashSpawnHook;

fn bash() -> BuiltinTool {
    BuiltinTool::bash().spawn_hook(|mut spawn: SpawnContext| {
        spawn.command = format!("source ~/.profile\n{}", spawn.command);
        spawn.env.insert("PI_SPAWN_HOOK".into(), "1".into());
        spawn
    })
}
pi_ext::builtin_tool!(bash);

pi_ext::main!();
