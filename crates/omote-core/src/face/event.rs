//! Things a face reports from one frame (a blink started, a saccade started), in a
//! fixed-size buffer so that reporting them allocates nothing.

use crate::eyes::blink::BlinkEvent;
use crate::eyes::saccade::SaccadeEvent;

/// Something that started during a frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FaceEvent {
    /// A blink started.
    Blink(BlinkEvent),
    /// A saccade started.
    Saccade(SaccadeEvent),
}

impl FaceEvent {
    /// When it started, in seconds since the face was created.
    pub fn time(&self) -> f64 {
        match self {
            Self::Blink(e) => e.t,
            Self::Saccade(e) => e.t,
        }
    }
}

/// The events of one frame, in the order they were reported. Holds up to
/// [`FaceEvents::CAPACITY`]; more are counted in [`dropped`](Self::dropped) and lost.
///
/// ```
/// use omote_core::{Face, FaceConfig, FaceEvent, FaceInputs, Rig};
/// let mut face = Face::new(std::sync::Arc::new(Rig::standard()), FaceConfig::default(), 1);
/// face.request_blink().unwrap();
/// let state = face.update(1.0 / 60.0, &FaceInputs::default());
/// assert!(state.events().iter().any(|e| matches!(e, FaceEvent::Blink(_))));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FaceEvents {
    items: [Option<FaceEvent>; FaceEvents::CAPACITY],
    len: usize,
    dropped: u32,
}

impl FaceEvents {
    /// The most events one frame keeps.
    pub const CAPACITY: usize = 8;

    /// An empty buffer.
    pub const fn new() -> Self {
        Self {
            items: [None; Self::CAPACITY],
            len: 0,
            dropped: 0,
        }
    }

    /// Append an event; `false` (and counted as dropped) when full.
    pub fn push(&mut self, event: FaceEvent) -> bool {
        if self.len == Self::CAPACITY {
            self.dropped = self.dropped.saturating_add(1);
            return false;
        }
        self.items[self.len] = Some(event);
        self.len += 1;
        true
    }

    /// Remove everything (the face does this at the start of every update).
    pub fn clear(&mut self) {
        self.items[..self.len].fill(None);
        self.len = 0;
        self.dropped = 0;
    }

    /// Number of events.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Events that did not fit this frame.
    pub fn dropped(&self) -> u32 {
        self.dropped
    }

    /// The events, in order.
    pub fn iter(&self) -> FaceEventsIter<'_> {
        self.items[..self.len].iter().flatten()
    }
}

/// Iterator over the events of a frame.
pub type FaceEventsIter<'a> = std::iter::Flatten<std::slice::Iter<'a, Option<FaceEvent>>>;

impl<'a> IntoIterator for &'a FaceEvents {
    type Item = &'a FaceEvent;
    type IntoIter = FaceEventsIter<'a>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eyes::blink::BlinkCause;

    #[test]
    fn keeps_order_and_counts_overflow() {
        let blink = |t| {
            FaceEvent::Blink(BlinkEvent {
                t,
                close_duration: 0.07,
                hold_duration: 0.02,
                open_duration: 0.15,
                depth: 1.0,
                cause: BlinkCause::Spontaneous,
            })
        };
        let mut ev = FaceEvents::new();
        for i in 0..FaceEvents::CAPACITY + 2 {
            ev.push(blink(i as f64));
        }
        assert_eq!(ev.len(), FaceEvents::CAPACITY);
        assert_eq!(ev.dropped(), 2);
        let times: Vec<f64> = ev.iter().map(FaceEvent::time).collect();
        assert_eq!(times[..3], [0.0, 1.0, 2.0]);
        ev.clear();
        assert!(ev.is_empty() && ev.dropped() == 0);
        assert_eq!(ev, FaceEvents::new());
    }
}
