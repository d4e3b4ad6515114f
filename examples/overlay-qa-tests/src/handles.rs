//! The commands that drive overlays after they opened: stack, toggle,
//! passive, focus and streaming.
