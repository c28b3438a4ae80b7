//! [`Pacer`]: steps at a fixed rate on the wall clock.

use std::time::{Duration, Instant};

/// Sleeps until step *k* is due: `k · period` after the first step. Steps are due on
/// an absolute schedule, so a slow step does not delay the ones after it.
#[derive(Clone, Debug)]
pub struct Pacer {
    period_s: f64,
    start: Option<Instant>,
}

impl Pacer {
    /// Steps `period_s` seconds apart; 0 (or not a positive finite number) never waits.
    pub fn new(period_s: f64) -> Self {
        Self {
            period_s: if period_s.is_finite() && period_s > 0.0 {
                period_s
            } else {
                0.0
            },
            start: None,
        }
    }

    /// A pacer that never waits.
    pub fn unpaced() -> Self {
        Self::new(0.0)
    }

    /// Sleeps until step `k` is due (the clock starts at the first call).
    pub fn wait_for(&mut self, k: u64) {
        let start = *self.start.get_or_insert_with(Instant::now);
        if self.period_s == 0.0 {
            return;
        }
        let Some(due) = Duration::try_from_secs_f64(k as f64 * self.period_s)
            .ok()
            .and_then(|d| start.checked_add(d))
        else {
            return;
        };
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
    }

    /// Time since the first step.
    pub fn elapsed(&self) -> Duration {
        self.start.map_or(Duration::ZERO, |s| s.elapsed())
    }
}
