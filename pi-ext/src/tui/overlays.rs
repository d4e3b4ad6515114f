//! Overlay handles ([`OverlayCtl`]: pi-tui's `OverlayHandle`) and the child
//! overlays a component opens ([`ChildId`]: pi-tui's `tui.showOverlay`).
//!
//! What a handle does goes to the bridge as an op, in order with the
//! component's frames; what it reads is kept here (hidden: as last set;
//! focused: as pi last reported, and as [`OverlayCtl::focus`] just asked),
//! so a component reads its state in `render` without a round trip.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::overlay::Overlay;

/// Most child overlays a component has open at once
/// ([`super::Cx::open_child`] fails beyond): pi repaints each of them on
/// every frame.
pub const MAX_CHILD_OVERLAYS: usize = 16;

/// A child overlay a component opened with [`super::Cx::open_child`]: it
/// draws with [`super::Component::render_child`] and its keys reach
/// [`super::Component::on_child_key`]. Ids are never reused within one
/// component, so one kept after [`super::Cx::close_child`] reaches nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ChildId(pub(crate) u32);

/// [`super::Cx::open_child`] with [`MAX_CHILD_OVERLAYS`] children open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("a component has at most {MAX_CHILD_OVERLAYS} child overlays open at once (close one with `cx.close_child(id)` first)")]
pub struct TooManyOverlays;

/// One child overlay's state on this side.
#[derive(Debug, Clone, Default)]
pub(crate) struct Child {
    pub(crate) hidden: bool,
    pub(crate) focused: bool,
    /// The width pi draws it at (0 until the bridge says).
    pub(crate) width: u16,
}

/// The component's own overlay state and its children's, plus the ops not
/// yet sent to the bridge.
#[derive(Debug, Default)]
pub(crate) struct Overlays {
    pub(crate) own_hidden: bool,
    pub(crate) children: BTreeMap<u32, Child>,
    next: u32,
    ops: Vec<Value>,
}

impl Overlays {
    /// The ops queued since the last call.
    pub(crate) fn take_ops(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.ops)
    }

    pub(crate) fn open(&mut self, overlay: &Overlay) -> Result<ChildId, TooManyOverlays> {
        if self.children.len() >= MAX_CHILD_OVERLAYS {
            return Err(TooManyOverlays);
        }
        self.next += 1;
        let id = self.next;
        self.children.insert(id, Child::default());
        self.ops
            .push(json!({"op": "open", "child": id, "overlay": overlay.wire()}));
        Ok(ChildId(id))
    }

    /// The child keys go to, if one does.
    pub(crate) fn focused_child(&self) -> Option<ChildId> {
        self.children
            .iter()
            .find(|(_, c)| c.focused)
            .map(|(id, _)| ChildId(*id))
    }

    pub(crate) fn close(&mut self, id: ChildId) -> bool {
        if self.children.remove(&id.0).is_none() {
            return false;
        }
        self.ops.push(json!({"op": "close", "child": id.0}));
        true
    }
}

/// Drives one overlay: the component's own ([`super::Cx::overlay`]) or a
/// child's ([`super::Cx::child`]); pi-tui's `OverlayHandle`.
///
/// ```
/// use pi_ext::tui::{Area, Component, Cx, Frame, Key};
/// use std::time::Duration;
///
/// /// `t` hides the overlay for a second (pi's `/overlay-toggle`).
/// struct Toggle;
/// impl Component for Toggle {
///     type Output = ();
///     fn on_key(&mut self, key: &Key, cx: &mut Cx<Self>) {
///         if key.is("t") {
///             cx.overlay().set_hidden(true);
///             cx.tick_every(Duration::from_secs(1));
///         }
///         if key.is("escape") { cx.done(()) }
///     }
///     fn on_tick(&mut self, cx: &mut Cx<Self>) {
///         cx.overlay().set_hidden(false);
///         cx.stop_ticking();
///     }
///     fn render(&mut self, area: &Area) -> Frame { Frame::new(area.width) }
/// }
/// # let mut cx = Cx::detached(Area::new(40, 10));
/// # Toggle.on_key(&Key::named("t"), &mut cx);
/// # assert!(cx.overlay().is_hidden());
/// ```
///
/// A handle to an overlay that closed does nothing (and reads as closed,
/// hidden and unfocused). On a component shown without
/// [`super::Custom::overlay`], [`OverlayCtl::set_hidden`],
/// [`OverlayCtl::focus`] and [`OverlayCtl::unfocus`] of its own do nothing
/// in pi (it is no overlay).
#[derive(Debug)]
pub struct OverlayCtl<'a> {
    pub(crate) overlays: &'a mut Overlays,
    /// The component's own focus (its [`super::Area::focused`]).
    pub(crate) own_focused: &'a mut bool,
    /// `None`: the component's own overlay.
    pub(crate) child: Option<u32>,
}

impl OverlayCtl<'_> {
    /// Whether it is open (the component's own: always; a child: until
    /// [`super::Cx::close_child`]).
    pub fn is_open(&self) -> bool {
        match self.child {
            None => true,
            Some(id) => self.overlays.children.contains_key(&id),
        }
    }

    /// Hide it (`true`) or show it again (`false`), keeping its state
    /// (pi's `setHidden`). A hidden overlay loses the focus; shown again,
    /// a capturing one takes it back and comes to the front.
    pub fn set_hidden(&mut self, hidden: bool) {
        let op = match self.child {
            None => {
                if self.overlays.own_hidden == hidden {
                    return;
                }
                self.overlays.own_hidden = hidden;
                if hidden {
                    *self.own_focused = false;
                }
                json!({"op": "hidden", "hidden": hidden})
            }
            Some(id) => {
                let Some(c) = self.overlays.children.get_mut(&id) else {
                    return;
                };
                if c.hidden == hidden {
                    return;
                }
                c.hidden = hidden;
                if hidden {
                    c.focused = false;
                }
                json!({"op": "hidden", "child": id, "hidden": hidden})
            }
        };
        self.overlays.ops.push(op);
    }

    /// Whether it is hidden (pi's `isHidden`).
    pub fn is_hidden(&self) -> bool {
        match self.child {
            None => self.overlays.own_hidden,
            Some(id) => self.overlays.children.get(&id).is_none_or(|c| c.hidden),
        }
    }

    /// Give it the keyboard focus and bring it to the front (pi's
    /// `focus`); nothing while it is hidden. Keys then reach it: the
    /// component's own [`super::Component::on_key`], or a child's
    /// [`super::Component::on_child_key`].
    pub fn focus(&mut self) {
        if !self.is_open() || self.is_hidden() {
            return;
        }
        // pi moves the focus at once: read it so in this event's render.
        *self.own_focused = self.child.is_none();
        for (id, c) in self.overlays.children.iter_mut() {
            c.focused = Some(*id) == self.child;
        }
        let op = match self.child {
            None => json!({"op": "focus"}),
            Some(id) => json!({"op": "focus", "child": id}),
        };
        self.overlays.ops.push(op);
    }

    /// Give the focus back (pi's `unfocus`): to the front-most capturing
    /// overlay, else to what had it before this one opened. Nothing if it
    /// has no focus.
    pub fn unfocus(&mut self) {
        if !self.is_open() {
            return;
        }
        let op = match self.child {
            None => {
                *self.own_focused = false;
                json!({"op": "unfocus"})
            }
            Some(id) => {
                if let Some(c) = self.overlays.children.get_mut(&id) {
                    c.focused = false;
                }
                json!({"op": "unfocus", "child": id})
            }
        };
        self.overlays.ops.push(op);
    }

    /// Whether keys go to it (pi's `isFocused`).
    pub fn is_focused(&self) -> bool {
        match self.child {
            None => *self.own_focused,
            Some(id) => self.overlays.children.get(&id).is_some_and(|c| c.focused),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctl<'a>(o: &'a mut Overlays, f: &'a mut bool, child: Option<u32>) -> OverlayCtl<'a> {
        OverlayCtl {
            overlays: o,
            own_focused: f,
            child,
        }
    }

    #[test]
    fn children_are_bounded_and_a_closed_one_does_nothing() {
        let mut o = Overlays::default();
        let mut focused = true;
        let ids: Vec<_> = (0..MAX_CHILD_OVERLAYS)
            .map(|_| o.open(&Overlay::new().non_capturing()).unwrap())
            .collect();
        assert_eq!(o.open(&Overlay::new()), Err(TooManyOverlays));
        assert!(TooManyOverlays.to_string().contains("at most 16"));
        assert!(o.close(ids[0]));
        assert!(!o.close(ids[0]), "twice: nothing");
        let again = o.open(&Overlay::new()).unwrap();
        assert_ne!(again, ids[0], "ids are not reused");
        o.take_ops();
        let mut c = ctl(&mut o, &mut focused, Some(ids[0].0));
        assert!(!c.is_open());
        c.set_hidden(true);
        c.focus();
        c.unfocus();
        assert!(!c.is_focused());
        assert!(o.take_ops().is_empty(), "a closed child sends nothing");
    }

    #[test]
    fn focus_moves_at_once_and_hidden_overlays_keep_state() {
        let mut o = Overlays::default();
        let mut own = true;
        let a = o.open(&Overlay::new().non_capturing()).unwrap();
        let b = o.open(&Overlay::new().non_capturing()).unwrap();
        ctl(&mut o, &mut own, Some(a.0)).focus();
        assert!(!own);
        assert!(ctl(&mut o, &mut own, Some(a.0)).is_focused());
        ctl(&mut o, &mut own, Some(b.0)).focus();
        assert!(!ctl(&mut o, &mut own, Some(a.0)).is_focused());
        ctl(&mut o, &mut own, Some(b.0)).set_hidden(true);
        assert!(!ctl(&mut o, &mut own, Some(b.0)).is_focused());
        // Hidden: focus does nothing.
        ctl(&mut o, &mut own, Some(b.0)).focus();
        assert!(!ctl(&mut o, &mut own, Some(b.0)).is_focused());
        ctl(&mut o, &mut own, None).set_hidden(true);
        ctl(&mut o, &mut own, None).set_hidden(true);
        let ops = o.take_ops();
        assert_eq!(
            ops,
            vec![
                json!({"op": "open", "child": 1, "overlay": {"nonCapturing": true}}),
                json!({"op": "open", "child": 2, "overlay": {"nonCapturing": true}}),
                json!({"op": "focus", "child": 1}),
                json!({"op": "focus", "child": 2}),
                json!({"op": "hidden", "child": 2, "hidden": true}),
                json!({"op": "hidden", "hidden": true}),
            ]
        );
    }
}
