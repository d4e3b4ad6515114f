//! The commands whose overlays only lay out and draw: animation, anchors,
//! margins, overflow, edge, percent, max height and the side panel.
