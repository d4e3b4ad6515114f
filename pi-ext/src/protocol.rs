//! The bridge ⇄ extension protocol: newline-delimited JSON-RPC over the
//! binary's stdin and stdout.
//!
#![doc = include_str!("../PROTOCOL.md")]

pub use crate::wire::{codes, RpcError, MAX_DEPTH, PROTOCOL_VERSION, SDK_VERSION};
