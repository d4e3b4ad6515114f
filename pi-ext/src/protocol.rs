//! The bridge ⇄ extension protocol: newline-delimited JSON-RPC over the
//! binary's stdin and stdout.
//!
#![doc = include_str!("../PROTOCOL.md")]

// The error codes stay internal (`internals::codes` for pi-ext's own tests):
// users meet typed errors (`ApiError`, `UiError`…), not codes.
pub use crate::wire::{RpcError, MAX_DEPTH, PROTOCOL_VERSION, SDK_VERSION};
