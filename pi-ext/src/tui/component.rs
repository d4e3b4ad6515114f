//! Custom components: [`Component`], shown with [`Ui::custom`].
//!
//! pi paints on its own thread and never waits for the extension: the
//! component lives here, in the future `custom(..)` returns, and sends pi a
//! new [`Frame`] whenever what it draws changes. The bridge keeps the last
//! frame and hands it to pi on every repaint (cut to the width pi paints at,
//! until a frame for the new width arrives).

use std::future::{Future, IntoFuture};
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::control::ControlEvent;
use super::frame::Frame;
use super::key::Key;
use super::overlay::Overlay;
use super::overlays::{ChildId, OverlayCtl, Overlays, TooManyOverlays};
use crate::host::connection::{Mode, UiMessage};
use crate::host::ui::{ClosedBy, Ui, UiError};

/// Where a component is drawn: its width, the terminal's height, and
/// whether it has the keyboard focus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Area {
    /// Columns to draw in (the terminal's, or the overlay's).
    pub width: u16,
    /// The terminal's rows.
    pub rows: u16,
    /// Whether keys go to this component (the frame's cursor is shown
    /// only then).
    pub focused: bool,
    /// Which of its child overlays ([`Cx::open_child`]) keys go to, if
    /// one does (pi's `handle.isFocused()` of each, read in `render`).
    pub focused_child: Option<ChildId>,
}

impl Area {
    /// An area (for tests of components).
    pub fn new(width: u16, rows: u16) -> Area {
        Area {
            width,
            rows,
            focused: true,
            focused_child: None,
        }
    }
}

/// A custom component: it draws [`Frame`]s and handles keys; pi shows it in
/// place of the editor, or on top of the screen ([`Custom::overlay`]),
/// until it calls [`Cx::done`] (pi's `done(value)`).
///
/// ```
/// use pi_ext::tui::{span, Area, Component, Cx, Fg, Frame, Key};
///
/// /// Counts `+` presses; Enter gives the count back, Escape nothing.
/// struct Counter(u32);
///
/// impl Component for Counter {
///     type Output = Option<u32>;
///
///     fn on_key(&mut self, key: &Key, cx: &mut Cx<Self>) {
///         if key.is("+") { self.0 += 1 }
///         if key.is("enter") { cx.done(Some(self.0)) }
///         if key.is("escape") { cx.done(None) }
///     }
///
///     fn render(&mut self, area: &Area) -> Frame {
///         let mut f = Frame::new(area.width);
///         f.line(span("count=").fg(Fg::Muted) + span(self.0.to_string()).fg(Fg::Accent).bold());
///         f
///     }
/// }
/// # let _ = Counter(0);
/// ```
///
/// The runtime calls `render` after every event and sends the frame only if
/// it changed: there is no `requestRender` to forget, and a tick that
/// changes nothing costs nothing on the wire. Each method runs on the task
/// that awaits [`Ui::custom`]: keep them quick, and feed slow work in
/// through a [`Handle`].
pub trait Component: Send + Sized + 'static {
    /// What [`Cx::done`] gives back (`ctx.ui().custom(..).await` returns it).
    type Output: Send + 'static;

    /// Draw for `area` (called after every event; only changed frames go
    /// to pi).
    fn render(&mut self, area: &Area) -> Frame;

    /// A key was pressed (keys go to the component that has the focus).
    fn on_key(&mut self, key: &Key, cx: &mut Cx<Self>);

    /// A control of its frame reported something ([`Frame::control`]: a
    /// [`super::SelectList`]'s selection moved, was chosen or cancelled; an
    /// [`super::Input`]'s or [`super::TextEditor`]'s text changed or was
    /// submitted; a [`super::SettingsList`]'s value changed; a
    /// [`super::Markdown`] panel was measured). The keys that caused it went
    /// to the control, not to [`Component::on_key`].
    fn on_control(&mut self, event: &ControlEvent, cx: &mut Cx<Self>) {
        let _ = (event, cx);
    }

    /// Called once, before the first frame: start a timer here.
    fn on_open(&mut self, cx: &mut Cx<Self>) {
        let _ = cx;
    }

    /// The timer set with [`Cx::tick_every`] fired.
    fn on_tick(&mut self, cx: &mut Cx<Self>) {
        let _ = cx;
    }

    /// Whether key releases reach [`Component::on_key`] too (pi-tui's
    /// `wantsKeyRelease`; only with the kitty keyboard protocol). Read once,
    /// when the component opens.
    fn wants_key_release(&self) -> bool {
        false
    }

    /// Whether pi's viewport keys (PageUp, PageDown and the other keys that
    /// scroll pi's full-screen transcript) reach [`Component::on_key`]
    /// instead (pi-tui's `capturesViewportInput`, for lists that page, as
    /// pi's own `SettingsList` does). Read once, when the component opens;
    /// an overlay with the focus gets them anyway.
    fn captures_viewport_input(&self) -> bool {
        false
    }

    /// The overlay width to use when [`Custom::overlay`] gives none (pi
    /// reads a component's `width` property for that).
    fn preferred_width(&self) -> Option<u16> {
        None
    }

    /// Draw child overlay `child` ([`Cx::open_child`]) for `area` (its
    /// width; `focused` while keys go to it). Called after every event,
    /// like [`Component::render`]; only changed frames go to pi.
    fn render_child(&mut self, child: ChildId, area: &Area) -> Frame {
        let _ = child;
        Frame::new(area.width)
    }

    /// A key was pressed while child overlay `child` had the focus.
    fn on_child_key(&mut self, child: ChildId, key: &Key, cx: &mut Cx<Self>) {
        let _ = (child, key, cx);
    }
}

/// A component's side of its life: end it, time it, reach it from
/// elsewhere.
pub struct Cx<C: Component> {
    done: Option<C::Output>,
    tick: Option<Option<Duration>>,
    area: Area,
    overlays: Overlays,
    updates: mpsc::UnboundedSender<Update<C>>,
}

impl<C: Component> std::fmt::Debug for Cx<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cx")
            .field("area", &self.area)
            .field("done", &self.done.is_some())
            .finish_non_exhaustive()
    }
}

type Update<C> = Box<dyn FnOnce(&mut C, &mut Cx<C>) + Send>;

/// The updates [`Handle::update`] queued, for the test kit.
pub(crate) struct UpdateReceiver<C: Component>(mpsc::UnboundedReceiver<Update<C>>);

impl<C: Component> UpdateReceiver<C> {
    /// The next queued update, if any.
    pub(crate) fn try_next(&mut self) -> Option<Update<C>> {
        self.0.try_recv().ok()
    }
}

impl<C: Component> Cx<C> {
    /// A context outside pi (for tests of components): `done` and ticks are
    /// recorded, [`Cx::take_done`] reads them.
    pub fn detached(area: Area) -> Cx<C> {
        let (updates, _) = mpsc::unbounded_channel();
        Cx {
            done: None,
            tick: None,
            area,
            overlays: Overlays::default(),
            updates,
        }
    }

    /// A context whose [`Handle`]s reach the returned receiver, for the
    /// test kit's components (it runs the updates itself).
    pub(crate) fn with_updates(area: Area) -> (Cx<C>, UpdateReceiver<C>) {
        let (updates, rx) = mpsc::unbounded_channel();
        let cx = Cx {
            done: None,
            tick: None,
            area,
            overlays: Overlays::default(),
            updates,
        };
        (cx, UpdateReceiver(rx))
    }

    /// A change of the tick period since the last call: `Some(None)` is
    /// [`Cx::stop_ticking`] (for the test kit's virtual clock).
    pub(crate) fn take_tick_change(&mut self) -> Option<Option<Duration>> {
        self.tick.take()
    }

    /// Where the component is drawn from now on.
    pub(crate) fn set_area(&mut self, area: Area) {
        self.area = area;
    }

    /// Close the component; `ctx.ui().custom(..)` returns `Ok(value)`
    /// (pi's `done(value)`). Later events are not delivered.
    pub fn done(&mut self, value: C::Output) {
        self.done = Some(value);
    }

    /// Whether [`Cx::done`] was called.
    pub fn is_done(&self) -> bool {
        self.done.is_some()
    }

    /// What [`Cx::done`] was given, taken out (for tests).
    pub fn take_done(&mut self) -> Option<C::Output> {
        self.done.take()
    }

    /// Call [`Component::on_tick`] every `period` (a game loop); replaces
    /// an earlier period.
    pub fn tick_every(&mut self, period: Duration) {
        self.tick = Some(Some(period.max(Duration::from_millis(1))));
    }

    /// Stop the ticks.
    pub fn stop_ticking(&mut self) {
        self.tick = Some(None);
    }

    /// Where the component is drawn now.
    pub fn area(&self) -> Area {
        Area {
            focused_child: self.overlays.focused_child(),
            ..self.area
        }
    }

    /// The component's own overlay (pi's `OverlayHandle`, which
    /// TypeScript gets from `onHandle`): hide it and show it again, give
    /// and take the focus, read both.
    pub fn overlay(&mut self) -> OverlayCtl<'_> {
        OverlayCtl {
            overlays: &mut self.overlays,
            own_focused: &mut self.area.focused,
            child: None,
        }
    }

    /// Open a child overlay (pi-tui's `tui.showOverlay(component, options)`
    /// from inside a component): it shows what
    /// [`Component::render_child`] draws for its id, and while it has the
    /// focus its keys reach [`Component::on_child_key`]. A capturing one
    /// takes the focus; one with [`Overlay::non_capturing`] gets it with
    /// [`OverlayCtl::focus`]. It stays open until [`Cx::close_child`] or
    /// until the component closes.
    ///
    /// A child is a view of the component, not a component of its own:
    /// pi's examples keep the panels' state in the controller that opened
    /// them (the panels call back into it to move the focus or close), and
    /// in Rust one owner of that state needs no shared, locked handles
    /// between tasks.
    ///
    /// ```
    /// use pi_ext::tui::{Anchor, Area, ChildId, Component, Cx, Frame, Key, Overlay};
    ///
    /// /// A panel beside the dialog; Tab moves the focus into it and back.
    /// struct Dialog { panel: Option<ChildId>, typed: String }
    /// impl Component for Dialog {
    ///     type Output = ();
    ///     fn on_open(&mut self, cx: &mut Cx<Self>) {
    ///         let panel = Overlay::new().non_capturing().anchor(Anchor::TopRight).width(22);
    ///         self.panel = cx.open_child(panel).ok();
    ///     }
    ///     fn on_key(&mut self, key: &Key, cx: &mut Cx<Self>) {
    ///         match (key.name(), self.panel) {
    ///             (Some("tab"), Some(panel)) => cx.child(panel).focus(),
    ///             (Some("escape"), _) => cx.done(()),
    ///             _ => {}
    ///         }
    ///     }
    ///     fn on_child_key(&mut self, child: ChildId, key: &Key, cx: &mut Cx<Self>) {
    ///         if key.is("tab") { cx.child(child).unfocus() }
    ///         else if let Some(t) = key.text() { self.typed.push_str(t) }
    ///     }
    ///     fn render_child(&mut self, _child: ChildId, area: &Area) -> Frame {
    ///         let mut f = Frame::new(area.width);
    ///         f.line(format!("> {}", self.typed));
    ///         f
    ///     }
    ///     fn render(&mut self, area: &Area) -> Frame { Frame::new(area.width) }
    /// }
    /// # let mut d = Dialog { panel: None, typed: String::new() };
    /// # let mut cx = Cx::detached(Area::new(40, 10));
    /// # d.on_open(&mut cx);
    /// # d.on_key(&Key::named("tab"), &mut cx);
    /// # assert!(cx.child(d.panel.unwrap()).is_focused());
    /// ```
    ///
    /// Fails with [`TooManyOverlays`] while [`super::MAX_CHILD_OVERLAYS`]
    /// are open.
    pub fn open_child(&mut self, overlay: Overlay) -> Result<ChildId, TooManyOverlays> {
        self.overlays.open(&overlay)
    }

    /// A child overlay's handle (see [`OverlayCtl`]); one of a closed
    /// child does nothing.
    pub fn child(&mut self, child: ChildId) -> OverlayCtl<'_> {
        OverlayCtl {
            overlays: &mut self.overlays,
            own_focused: &mut self.area.focused,
            child: Some(child.0),
        }
    }

    /// Close a child overlay (pi's `handle.hide()`); the focus goes back
    /// as pi moves it. False if it was closed already.
    pub fn close_child(&mut self, child: ChildId) -> bool {
        self.overlays.close(child)
    }

    /// The open child overlays, oldest first.
    pub fn children(&self) -> impl Iterator<Item = ChildId> + '_ {
        self.overlays.children.keys().map(|id| ChildId(*id))
    }

    /// A handle to reach the component from another task.
    pub fn handle(&self) -> Handle<C> {
        Handle {
            tx: self.updates.clone(),
        }
    }
}

/// Reaches an open component from another task (a download, an event-bus
/// subscription): [`Handle::update`] runs a closure on the component's own
/// task, which then redraws.
pub struct Handle<C: Component> {
    tx: mpsc::UnboundedSender<Update<C>>,
}

impl<C: Component> Clone for Handle<C> {
    fn clone(&self) -> Self {
        Handle {
            tx: self.tx.clone(),
        }
    }
}

impl<C: Component> std::fmt::Debug for Handle<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handle")
            .field("open", &self.is_open())
            .finish()
    }
}

impl<C: Component> Handle<C> {
    /// Run `f` on the component. False when it has closed (nothing ran).
    pub fn update(&self, f: impl FnOnce(&mut C, &mut Cx<C>) + Send + 'static) -> bool {
        self.tx.send(Box::new(f)).is_ok()
    }

    /// Whether the component is still open.
    pub fn is_open(&self) -> bool {
        !self.tx.is_closed()
    }
}

/// A component to show, from [`Ui::custom`]: configure it, then `.await`
/// it for the value it gives to [`Cx::done`].
///
/// The future fails with
/// - [`UiError::NoUi`] in print and json mode and [`UiError::NoTerminal`]
///   in RPC mode (pi has no terminal to show it in), at once;
/// - [`UiError::Cancelled`] when the call that opened it is aborted (the
///   component closes);
/// - [`UiError::Closed`] when pi or the user closed it (an unanswered
///   Escape, the session ending, the extension process restarting);
/// - [`UiError::Failed`] when a method of the component panicked (the
///   component closes, pi keeps running).
///
/// Dropping the future closes the component.
#[must_use = "a component is shown only when awaited"]
pub struct Custom<C: Component> {
    ui: Ui,
    component: C,
    overlay: Option<Overlay>,
}

impl<C: Component> std::fmt::Debug for Custom<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Custom")
            .field("overlay", &self.overlay)
            .finish_non_exhaustive()
    }
}

impl<C: Component> Custom<C> {
    /// Show it on top of pi's screen (see [`Overlay`]) instead of in place
    /// of the editor.
    pub fn overlay(mut self, overlay: Overlay) -> Self {
        self.overlay = Some(overlay);
        self
    }
}

impl Ui {
    /// Show a custom component (pi's `ctx.ui.custom`) in place of the
    /// editor until it calls [`Cx::done`]; see [`Component`] and [`Custom`].
    ///
    /// ```no_run
    /// # use pi_ext::prelude::*;
    /// # use pi_ext::tui::*;
    /// # struct Counter(u32);
    /// # impl Component for Counter { type Output = Option<u32>;
    /// #   fn on_key(&mut self, _: &Key, _: &mut Cx<Self>) {}
    /// #   fn render(&mut self, a: &Area) -> Frame { Frame::new(a.width) } }
    /// #[command(description = "Count key presses")]
    /// async fn count(ctx: &CommandCtx) -> Result<(), Error> {
    ///     match ctx.ui().custom(Counter(0)).await {
    ///         Ok(Some(n)) => ctx.ui().notify(format!("counted {n}"), Level::Info),
    ///         Ok(None) => {}
    ///         Err(UiError::NoUi | UiError::NoTerminal) => {
    ///             ctx.ui().notify("/count needs pi's terminal", Level::Error)
    ///         }
    ///         Err(e) => return Err(e.into()),
    ///     }
    ///     Ok(())
    /// }
    /// # fn main() {}
    /// ```
    pub fn custom<C: Component>(&self, component: C) -> Custom<C> {
        Custom {
            ui: self.clone(),
            component,
            overlay: None,
        }
    }

    /// The error for a terminal-only call in this mode, if any.
    pub(crate) fn terminal_only(&self) -> Result<(), UiError> {
        match self.mode {
            Mode::Interactive => Ok(()),
            Mode::Rpc => Err(UiError::NoTerminal),
            _ => Err(UiError::NoUi),
        }
    }
}

impl<C: Component> IntoFuture for Custom<C> {
    type Output = Result<C::Output, UiError>;
    type IntoFuture = Pin<Box<dyn Future<Output = Self::Output> + Send>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(run(self))
    }
}

/// Closes the component in pi if the future ends without having done so
/// (dropped, panicked, cancelled).
struct Open {
    ui: Ui,
    component: u64,
    request: u64,
    closed: bool,
}

impl Open {
    fn close(&mut self, reason: &str, error: Option<String>) {
        if self.closed {
            return;
        }
        self.closed = true;
        self.ui.shared.ui_routes.close(self.component);
        self.ui.peer.forget(self.request);
        let mut params = json!({ "component": self.component, "reason": reason });
        if let Some(e) = error {
            params["error"] = json!(e);
        }
        self.ui.peer.notify("ui/close", params);
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        self.close("dropped", None);
    }
}

/// Run `f` on the component, turning a panic into an error.
fn guarded<T>(what: &str, f: impl FnOnce() -> T) -> Result<T, UiError> {
    std::panic::catch_unwind(AssertUnwindSafe(f)).map_err(|p| {
        let msg = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "non-string panic payload".into());
        UiError::Failed(format!("the component panicked in {what}: {msg}"))
    })
}

/// What the bridge's answer to `ui/open` means.
fn closed_by(answer: Result<Value, crate::wire::RpcError>) -> UiError {
    match answer {
        Ok(v) => match v["reason"].as_str() {
            Some("unresponsive") => UiError::Closed(ClosedBy::Unresponsive),
            Some("session") => UiError::Closed(ClosedBy::SessionEnded),
            Some("aborted") => UiError::Cancelled,
            Some(other) => UiError::Closed(ClosedBy::Other(other.to_string())),
            None => UiError::Closed(ClosedBy::Other("closed by pi".into())),
        },
        Err(e) if e.code == crate::wire::codes::NO_UI => UiError::NoUi,
        Err(e) => UiError::Failed(e.message),
    }
}

async fn run<C: Component>(custom: Custom<C>) -> Result<C::Output, UiError> {
    let Custom {
        ui,
        mut component,
        overlay,
    } = custom;
    ui.terminal_only()?;
    let (id, mut inbox) = ui.shared.ui_routes.open();
    let (updates_tx, mut updates) = mpsc::unbounded_channel::<Update<C>>();
    let mut cx = Cx::<C> {
        done: None,
        tick: None,
        // No width until the bridge says where pi draws it.
        area: Area {
            width: 0,
            rows: 0,
            focused: true,
            focused_child: None,
        },
        overlays: Overlays::default(),
        updates: updates_tx,
    };
    let mut params = json!({
        "call": ui.call.call,
        "session": ui.call.session,
        "component": id,
        "wantsKeyRelease": component.wants_key_release(),
    });
    if component.captures_viewport_input() {
        params["capturesViewportInput"] = json!(true);
    }
    if let Some(o) = &overlay {
        params["overlay"] = o.wire();
        if let Some(w) = component.preferred_width() {
            params["width"] = json!(w);
        }
    } else if let Some(w) = component.preferred_width() {
        params["width"] = json!(w);
    }
    // on_open runs before pi is asked to show it: overlays it opens there
    // open in pi before it, as pi's examples open theirs in the
    // constructor (so they stack below it and start unfocused).
    let opened = guarded("on_open", || component.on_open(&mut cx));
    let ops = cx.overlays.take_ops();
    if !ops.is_empty() {
        params["ops"] = Value::Array(ops);
    }
    let (request, answer) = ui.peer.start_request("ui/open", params);
    let mut open = Open {
        ui: ui.clone(),
        component: id,
        request,
        closed: false,
    };
    if let Err(e) = opened {
        // Closed as a panic anywhere else closes it: pi shows the error.
        if let UiError::Failed(m) = &e {
            open.close("failed", Some(m.clone()));
        }
        return Err(e);
    }
    tokio::pin!(answer);
    let outcome = drive(
        &mut component,
        &mut cx,
        &mut inbox,
        &mut updates,
        &open,
        &mut answer,
    )
    .await;
    match outcome {
        Ok(value) => {
            open.close("done", None);
            Ok(value)
        }
        Err(Ended::ByPi(e)) => {
            open.closed = true;
            ui.shared.ui_routes.close(id);
            Err(e)
        }
        Err(Ended::Here(e, reason)) => {
            let error = match &e {
                UiError::Failed(m) => Some(m.clone()),
                _ => None,
            };
            open.close(reason, error);
            Err(e)
        }
    }
}

/// How the loop ended without a value.
enum Ended {
    /// pi closed the component (it answered `ui/open`).
    ByPi(UiError),
    /// This side ended it (cancelled, panicked): close it in pi.
    Here(UiError, &'static str),
}

async fn drive<C: Component>(
    component: &mut C,
    cx: &mut Cx<C>,
    inbox: &mut mpsc::UnboundedReceiver<UiMessage>,
    updates: &mut mpsc::UnboundedReceiver<Update<C>>,
    open: &Open,
    answer: &mut Pin<&mut impl Future<Output = Result<Value, crate::wire::RpcError>>>,
) -> Result<C::Output, Ended> {
    let ui = &open.ui;
    let here = |e: UiError| Ended::Here(e, "failed");
    let mut ticker: Option<tokio::time::Interval> = None;
    let mut last: Option<Frame> = None;
    // The last frame sent for each open child overlay.
    let mut last_child: std::collections::BTreeMap<u32, Frame> = Default::default();
    // The last key handled since the last frame (the frame answers it).
    let mut key_seq: Option<u64> = None;
    loop {
        if let Some(change) = cx.tick.take() {
            ticker = change.map(|period| {
                let mut t = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
                t.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                t
            });
        }
        if let Some(v) = cx.done.take() {
            return Ok(v);
        }
        // What the overlay handles did, before the frames that show it.
        let ops = cx.overlays.take_ops();
        if !ops.is_empty() {
            ui.peer.notify(
                "ui/overlay",
                json!({"component": open.component, "ops": ops}),
            );
        }
        cx.area.focused_child = cx.overlays.focused_child();
        // Render when pi has said where; send only what changed.
        if cx.area.width > 0 {
            let frame = guarded("render", || component.render(&cx.area)).map_err(here)?;
            if last.as_ref() != Some(&frame) {
                let mut wire = frame.wire();
                wire["component"] = json!(open.component);
                if let Some(seq) = key_seq.take() {
                    wire["forKey"] = json!(seq);
                }
                ui.peer.notify("ui/frame", wire);
                last = Some(frame);
            }
        }
        last_child.retain(|id, _| cx.overlays.children.contains_key(id));
        let children: Vec<(u32, Area)> = cx
            .overlays
            .children
            .iter()
            .filter(|(_, c)| c.width > 0)
            .map(|(id, c)| {
                let area = Area {
                    width: c.width,
                    rows: cx.area.rows,
                    focused: c.focused,
                    focused_child: None,
                };
                (*id, area)
            })
            .collect();
        for (id, area) in children {
            let frame = guarded("render_child", || {
                component.render_child(ChildId(id), &area)
            })
            .map_err(here)?;
            if last_child.get(&id) != Some(&frame) {
                let mut wire = frame.wire();
                wire["component"] = json!(open.component);
                wire["child"] = json!(id);
                if let Some(seq) = key_seq.take() {
                    wire["forKey"] = json!(seq);
                }
                ui.peer.notify("ui/frame", wire);
                last_child.insert(id, frame);
            }
        }
        if cx.area.width > 0 {
            if let Some(seq) = key_seq.take() {
                // Answered, though nothing changed: the bridge counts the
                // key as heard, and a test host knows it was handled.
                ui.peer
                    .notify("ui/ack", json!({"component": open.component, "seq": seq}));
            }
        }
        key_seq = None;
        // Wait for the next event.
        let tick = async {
            match ticker.as_mut() {
                Some(t) => {
                    t.tick().await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            biased;
            _ = ui.call_cancel.cancelled() => return Err(Ended::Here(UiError::Cancelled, "cancelled")),
            outcome = answer.as_mut() => return Err(Ended::ByPi(closed_by(outcome))),
            msg = inbox.recv() => {
                let Some(msg) = msg else { return Err(Ended::ByPi(UiError::Failed("the connection to pi closed".into()))) };
                key_seq = handle(component, cx, msg, open)?.or(key_seq);
                // A burst of keys costs one frame: take what is queued.
                while let Ok(msg) = inbox.try_recv() {
                    if cx.done.is_some() { break; }
                    key_seq = handle(component, cx, msg, open)?.or(key_seq);
                }
            }
            Some(update) = updates.recv() => {
                guarded("an update", || update(component, cx)).map_err(here)?;
            }
            _ = tick => {
                guarded("on_tick", || component.on_tick(cx)).map_err(here)?;
            }
        }
    }
}

fn handle<C: Component>(
    component: &mut C,
    cx: &mut Cx<C>,
    msg: UiMessage,
    open: &Open,
) -> Result<Option<u64>, Ended> {
    let p = &msg.params;
    match msg.method.as_str() {
        "ui/key" => {
            let key: Key = match serde_json::from_value(p.clone()) {
                Ok(k) => k,
                Err(e) => {
                    crate::util::logging::warn(&format!("bad ui/key params: {e}"));
                    return Ok(None);
                }
            };
            if cx.done.is_some() {
                return Ok(None);
            }
            match p["child"].as_u64() {
                // A key for a child that closed meanwhile: answered, not delivered.
                Some(child) if !cx.overlays.children.contains_key(&(child as u32)) => {}
                Some(child) => {
                    let child = ChildId(child as u32);
                    guarded("on_child_key", || component.on_child_key(child, &key, cx))
                        .map_err(|e| Ended::Here(e, "failed"))?
                }
                None => guarded("on_key", || component.on_key(&key, cx))
                    .map_err(|e| Ended::Here(e, "failed"))?,
            }
            // Tell the bridge an Escape was heard even if nothing changes:
            // it closes components that ignore Escape for a second. (One
            // that closed on it says so with `ui/close` instead.)
            if key.is("escape") && cx.done.is_none() {
                open.ui.peer.notify(
                    "ui/ack",
                    json!({"component": open.component, "seq": key.seq}),
                );
            }
            return Ok(Some(key.seq));
        }
        "ui/control" => {
            let Some(event) = ControlEvent::from_wire(p) else {
                crate::util::logging::warn(&format!("bad ui/control params: {p}"));
                return Ok(None);
            };
            if cx.done.is_some() {
                return Ok(None);
            }
            guarded("on_control", || component.on_control(&event, cx))
                .map_err(|e| Ended::Here(e, "failed"))?;
            // The frame (or an ack) answers the key that caused it.
            return Ok(p["seq"].as_u64());
        }
        "ui/resize" if p["child"].is_u64() => {
            let child = p["child"].as_u64().unwrap_or(0) as u32;
            if let (Some(c), Some(w)) = (cx.overlays.children.get_mut(&child), p["width"].as_u64())
            {
                c.width = w.min(u16::MAX as u64) as u16;
            }
        }
        "ui/focus" if p["child"].is_u64() => {
            let child = p["child"].as_u64().unwrap_or(0) as u32;
            if let (Some(c), Some(f)) =
                (cx.overlays.children.get_mut(&child), p["focused"].as_bool())
            {
                c.focused = f;
            }
        }
        "ui/resize" => {
            if let Some(w) = p["width"].as_u64() {
                cx.area.width = w.min(u16::MAX as u64) as u16;
            }
            if let Some(r) = p["rows"].as_u64() {
                cx.area.rows = r.min(u16::MAX as u64) as u16;
            }
        }
        "ui/focus" => {
            if let Some(f) = p["focused"].as_bool() {
                cx.area.focused = f;
            }
        }
        "ui/closed" => {
            return Err(Ended::ByPi(closed_by(Ok(p.clone()))));
        }
        _ => {}
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::span;

    struct Counter(u32);
    impl Component for Counter {
        type Output = u32;
        fn on_key(&mut self, key: &Key, cx: &mut Cx<Self>) {
            if key.is("+") {
                self.0 += 1;
            }
            if key.is("enter") {
                cx.done(self.0);
            }
        }
        fn render(&mut self, area: &Area) -> Frame {
            let mut f = Frame::new(area.width);
            f.line(span(format!("count={}", self.0)));
            f
        }
    }

    #[test]
    fn a_component_can_be_driven_without_pi() {
        let mut c = Counter(0);
        let mut cx = Cx::detached(Area::new(20, 10));
        c.on_key(&Key::named("+"), &mut cx);
        c.on_key(&Key::named("+"), &mut cx);
        assert_eq!(c.render(&cx.area()).rows()[0].text(), "count=2");
        c.on_key(&Key::named("enter"), &mut cx);
        assert_eq!(cx.take_done(), Some(2));
    }
}
