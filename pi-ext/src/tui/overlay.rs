//! [`Overlay`]: where and how big a component shown on top of pi's screen
//! is (pi-tui's `OverlayOptions`).

use serde_json::{json, Value};

/// A size: columns (or rows), or a percentage of the terminal's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    /// Absolute columns or rows.
    Cells(u16),
    /// Percent of the terminal's width or height (`"75%"` in TypeScript).
    Percent(u8),
}

impl Size {
    fn wire(self) -> Value {
        match self {
            Size::Cells(n) => json!(n),
            Size::Percent(p) => json!(format!("{p}%")),
        }
    }
}

impl From<u16> for Size {
    fn from(n: u16) -> Self {
        Size::Cells(n)
    }
}

/// Which point of the screen an overlay is placed against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Anchor {
    /// The middle (pi's default).
    #[default]
    Center,
    /// Top left corner.
    TopLeft,
    /// Middle of the top edge.
    TopCenter,
    /// Top right corner.
    TopRight,
    /// Middle of the left edge.
    LeftCenter,
    /// Middle of the right edge.
    RightCenter,
    /// Bottom left corner.
    BottomLeft,
    /// Middle of the bottom edge.
    BottomCenter,
    /// Bottom right corner.
    BottomRight,
}

impl Anchor {
    fn name(self) -> &'static str {
        match self {
            Anchor::Center => "center",
            Anchor::TopLeft => "top-left",
            Anchor::TopCenter => "top-center",
            Anchor::TopRight => "top-right",
            Anchor::LeftCenter => "left-center",
            Anchor::RightCenter => "right-center",
            Anchor::BottomLeft => "bottom-left",
            Anchor::BottomCenter => "bottom-center",
            Anchor::BottomRight => "bottom-right",
        }
    }
}

/// Space an overlay keeps from the terminal's edges.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Margin {
    /// Rows above.
    pub top: u16,
    /// Columns right.
    pub right: u16,
    /// Rows below.
    pub bottom: u16,
    /// Columns left.
    pub left: u16,
}

impl Margin {
    /// The same margin on every side.
    pub fn all(n: u16) -> Self {
        Margin {
            top: n,
            right: n,
            bottom: n,
            left: n,
        }
    }
    /// Only a top margin.
    pub fn top(n: u16) -> Self {
        Margin {
            top: n,
            ..Margin::default()
        }
    }
}

/// Show a component on top of pi's screen instead of in place of the
/// editor (`{overlay: true, overlayOptions}` in TypeScript).
///
/// ```
/// use pi_ext::tui::{Anchor, Margin, Overlay, Size};
/// let doom = Overlay::new()
///     .width(Size::Percent(75))
///     .max_height(Size::Percent(95))
///     .anchor(Anchor::Center)
///     .margin(Margin::top(1));
/// # let _ = doom;
/// ```
///
/// pi's `visible(termWidth, termHeight)` callback is
/// [`Overlay::visible_from`] here: a minimum terminal size, evaluated by
/// the bridge on every repaint (a function cannot cross the process).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[must_use]
pub struct Overlay {
    width: Option<Size>,
    min_width: Option<u16>,
    max_height: Option<Size>,
    anchor: Option<Anchor>,
    offset: Option<(i16, i16)>,
    row: Option<Size>,
    col: Option<Size>,
    margin: Option<Margin>,
    visible_from: Option<(u16, u16)>,
    non_capturing: bool,
}

impl Overlay {
    /// pi's defaults: centered, at most 80 columns wide.
    pub fn new() -> Self {
        Overlay::default()
    }
    /// Width in columns or percent of the terminal's.
    pub fn width(mut self, width: impl Into<Size>) -> Self {
        self.width = Some(width.into());
        self
    }
    /// At least this many columns.
    pub fn min_width(mut self, columns: u16) -> Self {
        self.min_width = Some(columns);
        self
    }
    /// At most this many rows (or percent of the terminal's); longer frames are cut.
    pub fn max_height(mut self, height: impl Into<Size>) -> Self {
        self.max_height = Some(height.into());
        self
    }
    /// Where it is placed.
    pub fn anchor(mut self, anchor: Anchor) -> Self {
        self.anchor = Some(anchor);
        self
    }
    /// Moved from the anchor by `x` columns right and `y` rows down.
    pub fn offset(mut self, x: i16, y: i16) -> Self {
        self.offset = Some((x, y));
        self
    }
    /// At this row (absolute or percent) instead of the anchor's.
    pub fn row(mut self, row: impl Into<Size>) -> Self {
        self.row = Some(row.into());
        self
    }
    /// At this column (absolute or percent) instead of the anchor's.
    pub fn col(mut self, col: impl Into<Size>) -> Self {
        self.col = Some(col.into());
        self
    }
    /// Space from the terminal's edges.
    pub fn margin(mut self, margin: Margin) -> Self {
        self.margin = Some(margin);
        self
    }
    /// Shown only while the terminal is at least `columns` wide and `rows`
    /// high (hidden, not closed, below that).
    pub fn visible_from(mut self, columns: u16, rows: u16) -> Self {
        self.visible_from = Some((columns, rows));
        self
    }
    /// Do not take keyboard focus.
    pub fn non_capturing(mut self) -> Self {
        self.non_capturing = true;
        self
    }

    /// The wire form: pi's `OverlayOptions` without functions, plus
    /// `visible: {minWidth, minHeight}`.
    pub(crate) fn wire(&self) -> Value {
        let mut o = serde_json::Map::new();
        if let Some(w) = self.width {
            o.insert("width".into(), w.wire());
        }
        if let Some(w) = self.min_width {
            o.insert("minWidth".into(), json!(w));
        }
        if let Some(h) = self.max_height {
            o.insert("maxHeight".into(), h.wire());
        }
        if let Some(a) = self.anchor {
            o.insert("anchor".into(), json!(a.name()));
        }
        if let Some((x, y)) = self.offset {
            o.insert("offsetX".into(), json!(x));
            o.insert("offsetY".into(), json!(y));
        }
        if let Some(r) = self.row {
            o.insert("row".into(), r.wire());
        }
        if let Some(c) = self.col {
            o.insert("col".into(), c.wire());
        }
        if let Some(m) = self.margin {
            o.insert(
                "margin".into(),
                json!({"top": m.top, "right": m.right, "bottom": m.bottom, "left": m.left}),
            );
        }
        if let Some((w, h)) = self.visible_from {
            o.insert("visible".into(), json!({"minWidth": w, "minHeight": h}));
        }
        if self.non_capturing {
            o.insert("nonCapturing".into(), json!(true));
        }
        Value::Object(o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlay_options_are_pis() {
        let o = Overlay::new()
            .width(Size::Percent(75))
            .anchor(Anchor::BottomRight)
            .margin(Margin::top(1))
            .visible_from(100, 0);
        assert_eq!(
            o.wire(),
            json!({"width": "75%", "anchor": "bottom-right",
                   "margin": {"top": 1, "right": 0, "bottom": 0, "left": 0},
                   "visible": {"minWidth": 100, "minHeight": 0}})
        );
        assert_eq!(Overlay::new().wire(), json!({}));
    }
}
