//! pi's overlay test commands (`/overlay-animation`, `/overlay-anchors`,
//! `/overlay-toggle`, …): a port of pi's own
//! `examples/extensions/overlay-qa-tests.ts`.
//!
//! Each command opens one or more overlays ([`pi_ext::tui::Overlay`]) that
//! exercise one part of pi's overlay layout: anchors and margins, sizes in
//! percent, overflow, stacking, hiding and focus.

mod boxes;
mod handles;
mod layout;

pi_ext::main!();
