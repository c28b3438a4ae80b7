//! What a scene reports from one frame, in a fixed-size buffer (nothing allocated).

use crate::rig::ChannelId;

/// Which timeline layer a key belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyLayer {
    /// The acting (the base layer).
    Acting,
    /// Picture-making (the additive layer on top).
    Picture,
}

/// Something that happened in a scene during a frame. Times are the scene's wall time
/// (seconds since it started, the faces' time), not timeline time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SceneEvent {
    /// A voice line started.
    Voice {
        /// Character index.
        character: usize,
        /// Line index in that character's lines.
        line: usize,
        /// When the clip started.
        t: f64,
        /// When its voice starts and ends (absolute), if it has voice.
        voiced: Option<(f64, f64)>,
    },
    /// A line was cut by a skip.
    Cut {
        /// Character index.
        character: usize,
        /// Line index.
        line: usize,
        /// When.
        t: f64,
    },
    /// An expression key started.
    Expression {
        /// Character index.
        character: usize,
        /// The layer.
        layer: KeyLayer,
        /// Its channel.
        channel: ChannelId,
        /// The weight it moves to.
        weight: f32,
        /// When (its exact key time on the wall clock).
        t: f64,
        /// Whether it changes the eye area.
        eye_area: bool,
    },
    /// The timeline reached a wait point and holds.
    Wait {
        /// Wait index.
        wait: usize,
        /// When.
        t: f64,
    },
    /// The player advanced (or auto advance moved on) from a wait.
    Advance {
        /// When.
        t: f64,
    },
    /// The player skipped: lines were cut and the timeline jumped.
    Skip {
        /// When.
        t: f64,
        /// Timeline time before and after the jump.
        from: f32,
        /// Timeline time after the jump.
        to: f32,
    },
}

impl SceneEvent {
    /// When it happened (scene wall time).
    pub fn time(&self) -> f64 {
        match *self {
            Self::Voice { t, .. }
            | Self::Cut { t, .. }
            | Self::Expression { t, .. }
            | Self::Wait { t, .. }
            | Self::Advance { t }
            | Self::Skip { t, .. } => t,
        }
    }
}

/// The events of one frame, in order. Holds up to [`SceneEvents::CAPACITY`]; more are
/// counted in [`dropped`](Self::dropped).
#[derive(Clone, Debug)]
pub struct SceneEvents {
    items: Box<[SceneEvent]>,
    len: usize,
    dropped: u32,
}

impl SceneEvents {
    /// The most events one frame keeps (a frame of a big scene can start many keys).
    pub const CAPACITY: usize = 256;

    pub(crate) fn new() -> Self {
        Self {
            items: vec![SceneEvent::Advance { t: 0.0 }; Self::CAPACITY].into_boxed_slice(),
            len: 0,
            dropped: 0,
        }
    }

    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }

    pub(crate) fn push(&mut self, e: SceneEvent) {
        if self.len < self.items.len() {
            self.items[self.len] = e;
            self.len += 1;
        } else {
            self.dropped = self.dropped.saturating_add(1);
        }
    }

    /// The events, in order.
    pub fn iter(&self) -> impl Iterator<Item = &SceneEvent> {
        self.items[..self.len].iter()
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Events lost since the scene started because a frame had more than
    /// [`CAPACITY`](Self::CAPACITY).
    pub fn dropped(&self) -> u32 {
        self.dropped
    }
}
