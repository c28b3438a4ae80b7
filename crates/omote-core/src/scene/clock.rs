//! `SceneClock`: the scene's timeline time, which stops at wait points until the
//! player advances, while the faces' own time keeps running.

/// A point where the timeline holds until [`advance`](crate::Scene::advance).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wait {
    /// Scene time in seconds.
    pub t: f32,
    /// How long an unattended scene holds here before moving on by itself, when auto
    /// advance is on (bakes without a script, the viewer's autoplay).
    pub hold: f32,
}

/// What one clock step did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ClockStep {
    /// Scene time before and after the step (equal while held); kept in `f64` so hours
    /// of small steps do not drift from the faces' clock.
    pub from: f64,
    pub to: f64,
    /// The wait reached during this step.
    pub reached: Option<usize>,
    /// The wait released during this step (its hold ran out, or a press came before it).
    pub released: Option<usize>,
    /// Whether that release was a press's (which the scene reported when pressed).
    pub pressed: bool,
}

/// Timeline time with wait points. See the module docs.
#[derive(Clone, Debug)]
pub(crate) struct SceneClock {
    waits: Box<[Wait]>,
    /// The first wait not yet reached.
    next: usize,
    time: f64,
    /// The wait being held and for how long (s).
    held: Option<(usize, f32)>,
    /// A release asked for while held, applied on the next step.
    release: bool,
    pub auto_advance: bool,
}

impl SceneClock {
    /// A clock at time 0 (waits sorted here).
    pub fn new(mut waits: Vec<Wait>) -> Self {
        waits.sort_by(|a, b| a.t.total_cmp(&b.t));
        Self {
            waits: waits.into_boxed_slice(),
            next: 0,
            time: 0.0,
            held: None,
            release: false,
            auto_advance: false,
        }
    }

    pub fn time(&self) -> f64 {
        self.time
    }

    pub fn waits(&self) -> &[Wait] {
        &self.waits
    }

    /// The wait being held, if any.
    pub fn held(&self) -> Option<usize> {
        self.held.map(|(i, _)| i)
    }

    /// The next wait ahead (not yet reached), if any.
    pub fn next_wait(&self) -> Option<&Wait> {
        self.waits.get(self.next)
    }

    /// Releases the wait being held (on the next step). `false` when not holding.
    pub fn release(&mut self) -> bool {
        if self.held.is_some() {
            self.release = true;
            true
        } else {
            false
        }
    }

    /// Moves the time to `t` (a skip): waits before `t` count as passed; a wait at
    /// exactly `t` is held.
    pub fn jump_to(&mut self, t: f32) {
        self.time = f64::from(t);
        self.release = false;
        self.held = None;
        self.next = self.waits.partition_point(|w| w.t < t);
        if let Some(w) = self.waits.get(self.next)
            && w.t <= t
        {
            self.held = Some((self.next, 0.0));
            self.next += 1;
        }
    }

    /// One step of `dt` seconds.
    pub fn step(&mut self, dt: f32) -> ClockStep {
        let from = self.time;
        let mut released = None;
        let mut pressed = false;
        let mut dt = dt;
        if let Some((i, held_for)) = self.held.as_mut() {
            *held_for += dt;
            let auto = self.auto_advance && *held_for >= self.waits[*i].hold;
            let leftover = *held_for - self.waits[*i].hold;
            if self.release || auto {
                // Move on by the part of the step after the hold ended; a press came
                // before this step, so the whole step is after it.
                dt = if auto && !self.release {
                    leftover.min(dt)
                } else {
                    dt
                };
                released = Some(*i);
                pressed = self.release;
                self.held = None;
                self.release = false;
            } else {
                return ClockStep {
                    from,
                    to: from,
                    reached: None,
                    released: None,
                    pressed: false,
                };
            }
        }
        let mut to = from + f64::from(dt);
        let mut reached = None;
        if let Some(w) = self.waits.get(self.next)
            && f64::from(w.t) <= to
        {
            to = f64::from(w.t).max(from);
            reached = Some(self.next);
            self.held = Some((self.next, 0.0));
            self.next += 1;
        }
        self.time = to;
        ClockStep {
            from,
            to,
            reached,
            released,
            pressed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_at_a_wait_until_released() {
        let mut c = SceneClock::new(vec![Wait { t: 1.0, hold: 1.0 }]);
        let dt = 0.25;
        let mut reached = 0;
        for _ in 0..20 {
            reached += usize::from(c.step(dt).reached.is_some());
        }
        assert_eq!((c.time(), reached, c.held()), (1.0, 1, Some(0)));
        assert!(c.release());
        // The press came before this step: the timeline moves on by all of it.
        let s = c.step(dt);
        assert_eq!((s.released, s.to), (Some(0), 1.25));
        assert_eq!(c.step(dt).to, 1.5);
        assert!(!c.release(), "nothing to release");
    }

    #[test]
    fn auto_advance_moves_on_after_the_hold() {
        let mut c = SceneClock::new(vec![Wait { t: 0.5, hold: 0.5 }]);
        c.auto_advance = true;
        let steps: Vec<ClockStep> = (0..5).map(|_| c.step(0.25)).collect();
        // Reached after 2 steps, held through 2 more; the hold ends with the 4th.
        assert_eq!(steps[1].reached, Some(0));
        assert_eq!((steps[2].to, steps[2].released), (0.5, None));
        assert_eq!((steps[3].to, steps[3].released), (0.5, Some(0)));
        assert_eq!(steps[4].to, 0.75);
    }

    #[test]
    fn a_jump_passes_earlier_waits_and_holds_one_it_lands_on() {
        let mut c = SceneClock::new(vec![Wait { t: 1.0, hold: 1.0 }, Wait { t: 2.0, hold: 1.0 }]);
        c.jump_to(2.0);
        assert_eq!(c.held(), Some(1));
        assert!(c.next_wait().is_none());
        c.jump_to(1.5);
        assert_eq!((c.held(), c.next_wait().map(|w| w.t)), (None, Some(2.0)));
    }
}
