//! [`TestComponent`]: a [`Component`] driven by hand, as the runtime drives
//! one pi shows: frames at a width, keys, and its timer on a virtual clock.

use std::time::Duration;

use super::snapshot::Snapshot;
use crate::tui::{Area, ChildId, Component, ControlEvent, Cx, Handle, Key, UpdateReceiver};

/// A [`Component`] under test: it is opened as pi opens it
/// ([`Component::on_open`] first), then each call is one event, as the
/// runtime delivers them (updates queued by a [`Handle`] run before the
/// next event). Time is virtual: [`TestComponent::tick`] and
/// [`TestComponent::advance`] fire the timer set with
/// [`Cx::tick_every`] without waiting.
///
/// ```
/// use std::time::Duration;
/// use pi_ext::testing::TestComponent;
/// use pi_ext::tui::{span, Area, Component, Cx, Fg, Frame, Key};
///
/// /// Counts `+` presses and seconds; Enter gives the count back.
/// struct Counter { count: u32, seconds: u32 }
///
/// impl Component for Counter {
///     type Output = u32;
///     fn on_open(&mut self, cx: &mut Cx<Self>) {
///         cx.tick_every(Duration::from_secs(1));
///     }
///     fn on_tick(&mut self, _cx: &mut Cx<Self>) {
///         self.seconds += 1;
///     }
///     fn on_key(&mut self, key: &Key, cx: &mut Cx<Self>) {
///         if key.is("+") { self.count += 1 }
///         if key.is("enter") { cx.done(self.count) }
///     }
///     fn render(&mut self, area: &Area) -> Frame {
///         let mut f = Frame::new(area.width);
///         f.line(span("count ").fg(Fg::Muted) + span(self.count.to_string()).fg(Fg::Accent));
///         f.line(format!("{}s", self.seconds));
///         f
///     }
/// }
///
/// let mut c = TestComponent::new(Counter { count: 0, seconds: 0 });
/// c.type_text("++");
/// c.advance(Duration::from_millis(2500)); // two ticks, no sleep
/// assert_eq!(c.frame(20).to_string(), "count 2\n2s");
/// assert_eq!(c.frame(20).styled().to_string(), "[muted]count [/][accent]2[/]\n2s");
/// c.key("enter");
/// assert_eq!(c.result(), Some(&2));
/// ```
pub struct TestComponent<C: Component> {
    component: C,
    cx: Cx<C>,
    updates: UpdateReceiver<C>,
    /// The timer's period, while it ticks.
    period: Option<Duration>,
    /// Virtual time since the timer last fired (or was set).
    since_tick: Duration,
    elapsed: Duration,
    result: Option<C::Output>,
}

impl<C: Component> std::fmt::Debug for TestComponent<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestComponent")
            .field("area", &self.cx.area())
            .field("period", &self.period)
            .field("elapsed", &self.elapsed)
            .field("open", &self.is_open())
            .finish_non_exhaustive()
    }
}

impl<C: Component> TestComponent<C> {
    /// Open `component` in an 80 × 24 terminal, with the focus: its
    /// [`Component::on_open`] runs now.
    pub fn new(component: C) -> Self {
        let (cx, updates) = Cx::with_updates(Area::new(80, 24));
        let mut this = TestComponent {
            component,
            cx,
            updates,
            period: None,
            since_tick: Duration::ZERO,
            elapsed: Duration::ZERO,
            result: None,
        };
        this.component.on_open(&mut this.cx);
        this.settle();
        this
    }

    /// After an event: the timer's new period, and the value if it closed.
    fn settle(&mut self) {
        if let Some(change) = self.cx.take_tick_change() {
            self.period = change;
            self.since_tick = Duration::ZERO;
        }
        if let Some(value) = self.cx.take_done() {
            self.result = Some(value);
        }
    }

    /// Run what [`Handle::update`] queued, as the runtime does between events.
    fn run_updates(&mut self) {
        while self.is_open() {
            let Some(update) = self.updates.try_next() else {
                break;
            };
            update(&mut self.component, &mut self.cx);
            self.settle();
        }
    }

    /// Fail the test, naming `what`, if the component has closed.
    fn expect_open(&self, what: &str) {
        assert!(
            self.is_open(),
            "{what}: the component already closed (it called `cx.done(..)`); pi delivers it nothing more"
        );
    }

    /// What it draws at `width` columns (the terminal's width, or the
    /// overlay's), laid out as pi shows it: lines wider than `width` cut
    /// with `...`, as the bridge cuts them.
    pub fn frame(&mut self, width: u16) -> Snapshot {
        self.run_updates();
        self.expect_open("frame");
        let area = Area {
            width,
            ..self.cx.area()
        };
        self.cx.set_area(area);
        let frame = self.component.render(&area);
        Snapshot::of_wire(&frame.wire(), width)
    }

    /// Press `key` ([`Key`], or a name: `"enter"`, `"ctrl+c"`, `"q"`).
    pub fn key(&mut self, key: impl Into<Key>) -> &mut Self {
        let key = key.into();
        self.run_updates();
        self.expect_open(&format!("the key {:?}", key.name().unwrap_or(key.data())));
        self.component.on_key(&key, &mut self.cx);
        self.settle();
        self
    }

    /// Press `key` while child overlay `child` ([`Cx::open_child`]) has the
    /// focus: it reaches [`Component::on_child_key`].
    ///
    /// Panics when that child is not open.
    pub fn child_key(&mut self, child: ChildId, key: impl Into<Key>) -> &mut Self {
        let key = key.into();
        self.run_updates();
        self.expect_open(&format!("the key {:?}", key.name().unwrap_or(key.data())));
        assert!(
            self.cx.children().any(|c| c == child),
            "child_key: the child overlay {child:?} is not open (the component closed it, or never opened it)"
        );
        self.component.on_child_key(child, &key, &mut self.cx);
        self.settle();
        self
    }

    /// What child overlay `child` draws at `width` columns
    /// ([`Component::render_child`]), focused as its handle says.
    ///
    /// Panics when that child is not open.
    pub fn child_frame(&mut self, child: ChildId, width: u16) -> Snapshot {
        self.run_updates();
        self.expect_open("child_frame");
        assert!(
            self.cx.children().any(|c| c == child),
            "child_frame: the child overlay {child:?} is not open"
        );
        let area = Area {
            width,
            focused: self.cx.child(child).is_focused(),
            focused_child: None,
            ..self.cx.area()
        };
        let frame = self.component.render_child(child, &area);
        Snapshot::of_wire(&frame.wire(), width)
    }

    /// Its context, to read what its overlay handles say
    /// (`cx().overlay().is_hidden()`, `cx().child(id).is_focused()`,
    /// `cx().children()`).
    pub fn cx(&mut self) -> &mut Cx<C> {
        &mut self.cx
    }

    /// A control of its frame reports `event`, as the bridge reports what
    /// pi-tui's control did with the user's keys (pi-tui's controls run in
    /// pi, not here: [`TestComponent::frame`] shows no lines for them).
    pub fn control(&mut self, event: ControlEvent) -> &mut Self {
        self.run_updates();
        self.expect_open(&format!("the control event {event:?}"));
        self.component.on_control(&event, &mut self.cx);
        self.settle();
        self
    }

    /// Type `text`, one key per character.
    pub fn type_text(&mut self, text: &str) -> &mut Self {
        use unicode_segmentation::UnicodeSegmentation;
        for g in text.graphemes(true) {
            self.key(Key::typed(g));
        }
        self
    }

    /// Fire the timer once, moving the virtual clock to its next tick.
    ///
    /// Panics when the component set no timer ([`Cx::tick_every`]).
    pub fn tick(&mut self) -> &mut Self {
        self.run_updates();
        self.expect_open("tick");
        let Some(period) = self.period else {
            panic!("tick: the component has no timer (it did not call `cx.tick_every(..)`, or stopped it)");
        };
        self.advance(period - self.since_tick);
        self
    }

    /// Move the virtual clock on by `by`, firing the timer each time a
    /// period passes (as tokio's `interval` does, one tick per period;
    /// a period changed in [`Component::on_tick`] starts from that tick).
    /// Returns how many times it fired.
    pub fn advance(&mut self, by: Duration) -> usize {
        let mut left = by;
        let mut fired = 0;
        loop {
            self.run_updates();
            let Some(period) = self.period.filter(|_| self.is_open()) else {
                self.elapsed += left;
                return fired;
            };
            let until = period - self.since_tick;
            if left < until {
                self.since_tick += left;
                self.elapsed += left;
                return fired;
            }
            left -= until;
            self.elapsed += until;
            self.since_tick = Duration::ZERO;
            self.component.on_tick(&mut self.cx);
            fired += 1;
            self.settle();
        }
    }

    /// Virtual time since it opened.
    pub fn elapsed(&self) -> Duration {
        self.elapsed
    }

    /// The timer's period, while one ticks.
    pub fn tick_period(&self) -> Option<Duration> {
        self.period
    }

    /// What it gave [`Cx::done`] when it closed (what
    /// `ctx.ui().custom(..).await` returns); `None` while open.
    pub fn result(&self) -> Option<&C::Output> {
        self.result.as_ref()
    }

    /// [`TestComponent::result`], taken out.
    pub fn into_result(self) -> Option<C::Output> {
        self.result
    }

    /// Whether it is still open (it has not called [`Cx::done`]).
    pub fn is_open(&self) -> bool {
        self.result.is_none()
    }

    /// The component itself, to look at its state.
    pub fn component(&self) -> &C {
        &self.component
    }

    /// A handle to it, as [`Cx::handle`] gives (its updates run before the
    /// next event).
    pub fn handle(&self) -> Handle<C> {
        self.cx.handle()
    }

    /// Give or take the keyboard focus (the frame's cursor shows only with it).
    pub fn focus(&mut self, focused: bool) -> &mut Self {
        let area = Area {
            focused,
            ..self.cx.area()
        };
        self.cx.set_area(area);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::{span, Fg, Frame};

    /// A spinner that stops after three frames, or on a key.
    struct Spinner {
        frame: usize,
        label: String,
    }

    impl Component for Spinner {
        type Output = usize;
        fn on_open(&mut self, cx: &mut Cx<Self>) {
            cx.tick_every(Duration::from_millis(100));
        }
        fn on_tick(&mut self, cx: &mut Cx<Self>) {
            self.frame += 1;
            if self.frame == 3 {
                // Slower from here on.
                cx.tick_every(Duration::from_millis(250));
            }
        }
        fn on_key(&mut self, key: &Key, cx: &mut Cx<Self>) {
            if key.is("escape") {
                cx.done(self.frame);
            }
            if let Some(t) = key.text() {
                self.label.push_str(t);
            }
        }
        fn render(&mut self, area: &Area) -> Frame {
            let mut f = Frame::new(area.width);
            let dots = ["⠋", "⠙", "⠹", "⠸"][self.frame % 4];
            f.line(span(dots).fg(Fg::Accent) + span(format!(" {}", self.label)));
            f
        }
    }

    /// A panic's message.
    fn message(p: Box<dyn std::any::Any + Send>) -> String {
        p.downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_default()
    }

    fn spinner() -> TestComponent<Spinner> {
        TestComponent::new(Spinner {
            frame: 0,
            label: String::new(),
        })
    }

    #[test]
    fn the_virtual_clock_fires_one_tick_per_period_and_follows_a_new_period() {
        let mut c = spinner();
        assert_eq!(c.tick_period(), Some(Duration::from_millis(100)));
        assert_eq!(c.advance(Duration::from_millis(99)), 0);
        assert_eq!(c.advance(Duration::from_millis(1)), 1);
        assert_eq!(c.advance(Duration::from_millis(200)), 2);
        // The third tick set 250 ms: the next comes 250 ms after it.
        assert_eq!(c.advance(Duration::from_millis(249)), 0);
        c.tick();
        assert_eq!(c.component().frame, 4);
        assert_eq!(c.elapsed(), Duration::from_millis(550));
    }

    #[test]
    fn keys_and_text_reach_it_and_done_closes_it() {
        let mut c = spinner();
        c.type_text("ok!");
        assert_eq!(c.frame(10).styled().to_string(), "[accent]⠋[/] ok!");
        // Cut to a narrow terminal as the bridge cuts.
        assert_eq!(c.frame(4).to_string(), "⠋...");
        c.tick().key("escape");
        assert_eq!(c.result(), Some(&1));
        assert!(!c.is_open());
        // Time moves on, but nothing fires for a closed component.
        assert_eq!(c.advance(Duration::from_secs(5)), 0);
        let late = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            c.key("x");
        }))
        .expect_err("a key after done must fail the test");
        let msg = message(late);
        assert!(msg.contains("already closed"), "{msg}");
    }

    #[test]
    fn handle_updates_run_before_the_next_event() {
        let mut c = spinner();
        let handle = c.handle();
        assert!(handle.update(|s, _| s.label = "from a task".into()));
        assert_eq!(c.frame(20).to_string(), "⠋ from a task");
        assert!(handle.update(|s, cx| cx.done(s.frame + 10)));
        assert_eq!(c.advance(Duration::ZERO), 0);
        assert_eq!(c.into_result(), Some(10));
    }

    #[test]
    fn a_tick_without_a_timer_fails_saying_so() {
        struct Still;
        impl Component for Still {
            type Output = ();
            fn on_key(&mut self, _: &Key, _: &mut Cx<Self>) {}
            fn render(&mut self, a: &Area) -> Frame {
                Frame::new(a.width)
            }
        }
        let mut c = TestComponent::new(Still);
        assert!(c.frame(10).is_empty());
        let failure = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            c.tick();
        }))
        .expect_err("no timer");
        let msg = message(failure);
        assert!(msg.contains("tick_every"), "{msg}");
    }
}
