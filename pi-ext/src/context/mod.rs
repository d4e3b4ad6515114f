//! The contexts: [`Ctx`], what a tool call knows about itself and the pi
//! session; [`CommandCtx`], a command's; [`LoadCtx`], `on_load`'s.

mod command;
mod ctx;
mod load;
mod progress;
mod reads;
mod sessions;

pub use command::{CommandCtx, ContextFile, SystemPromptOptions};
pub use ctx::Ctx;
pub(crate) use ctx::{CallInfo, CallKind};
pub use load::LoadCtx;
