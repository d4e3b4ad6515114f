//! Calls into pi: the connection (`Peer`, per-connection state), the lists
//! it mirrors, and the host APIs (`pi.*`, `ctx.ui`, the event bus, MCP).

pub mod api;
pub(crate) mod bus;
pub(crate) mod connection;
pub mod mcp;
pub(crate) mod mirror;
pub mod ui;
