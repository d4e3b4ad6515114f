//! Steps of one part of pi's screen, for running a port beside its original
//! in pi's terminal: one run records, the other waits for what it recorded.

use crate::{PiTerminal, Screen};

/// A run's named steps of one part of the screen (`part` cuts it out, `None`
/// while it is not wholly shown), for comparing a port with its original.
///
/// The original's run (`expected: None`) waits at each step until the part
/// changes from the step before; the port's (`expected: Some(original's
/// steps)`) waits until the part is what the original showed at that step,
/// so a slow frame on either side is never a difference. Every wait is
/// bounded. Press one key per step: after two keys a run could be caught
/// between them.
///
/// ```no_run
/// # use pi_ext_test::{Key, PiTerminal, ScreenSteps};
/// # fn run(pi: &PiTerminal, expected: Option<&[(String, String)]>) -> Vec<(String, String)> {
/// let mut steps = ScreenSteps::new(pi, |s| s.find("My panel").map(|(r, _)| s.styled_row(r)), expected);
/// pi.type_text("/panel");
/// pi.press(Key::Enter);
/// steps.step("opened");
/// pi.press(Key::Down);
/// steps.step("down");
/// steps.into_steps()
/// # }
/// ```
pub struct ScreenSteps<'a, F> {
    pi: &'a PiTerminal,
    part: F,
    expected: Option<&'a [(String, String)]>,
    steps: Vec<(String, String)>,
}

impl<'a, F: Fn(&Screen) -> Option<String>> ScreenSteps<'a, F> {
    /// Steps of `part` of `pi`'s screen; `expected` is the other run's.
    pub fn new(pi: &'a PiTerminal, part: F, expected: Option<&'a [(String, String)]>) -> Self {
        ScreenSteps {
            pi,
            part,
            expected,
            steps: Vec::new(),
        }
    }

    /// Waits for step `name` (see [`ScreenSteps`]), records it and returns
    /// what the part shows. Panics, with the screen, when the wait times
    /// out or the port's run has more steps than the original's.
    #[track_caller]
    pub fn step(&mut self, name: &str) -> &str {
        let part = &self.part;
        let screen = match self.expected {
            Some(expected) => {
                let want = &expected
                    .get(self.steps.len())
                    .unwrap_or_else(|| panic!("step {name:?}: the original's run has no step here"))
                    .1;
                self.pi.wait_for(
                    &format!("step {name:?} as the original drew it:\n{want}"),
                    |s| part(s).as_deref() == Some(want.as_str()),
                )
            }
            None => {
                let before = self.steps.last().map(|(_, shown)| shown.as_str());
                self.pi.wait_for(&format!("step {name:?}"), |s| {
                    part(s).is_some_and(|now| Some(now.as_str()) != before)
                })
            }
        };
        let shown = part(&screen).expect("the part the wait saw");
        self.steps.push((name.to_string(), shown));
        &self.steps.last().expect("just pushed").1
    }

    /// The steps recorded, in order: `(name, what the part showed)`.
    pub fn into_steps(self) -> Vec<(String, String)> {
        self.steps
    }
}
