//! [`VmcRecorder`]: what a marionette received, sampled into an anim at a fixed rate.

use omote_core::{ANIM_FORMAT, ANIM_VERSION, Anim, ExpressionTracks};

use crate::names::channel_from_wire;
use crate::receiver::VmcReceiver;

/// Builds an anim from a [`VmcReceiver`]'s state, one frame per `1 / fps` seconds of
/// the performer's clock (`/VMC/Ext/T`, or whatever clock the caller passes).
///
/// Call [`VmcRecorder::advance`] after each packet that applied blend values: every
/// frame due up to that time is appended with the receiver's current values (so a
/// late packet holds the previous values over the frames it missed). Channels appear
/// in first-seen order under their omote names ([`channel_from_wire`]); a channel's
/// frames before it was first received are 0. Bones not received are the identity.
///
/// **Bounded against clock jumps.** A performer clock that leaps forward (a restart,
/// or a hostile `/VMC/Ext/T` of 1e30) would otherwise ask for an unbounded number of
/// frames. One `advance` appends at most [`VmcRecorder::MAX_FILL_FRAMES`] frames; the
/// rest of a longer gap is skipped (counted in [`VmcRecorder::skipped_frames`]) and the
/// recording continues from the new time. A clock that goes back by more than
/// [`VmcRecorder::MAX_BACKWARD_S`] (a performer restarted at 0) resynchronises too,
/// instead of waiting for the old time to come round again. Memory therefore grows
/// by at most `MAX_FILL_FRAMES` frames per packet, and by one frame per `1 / fps` of
/// a steady clock.
///
/// No sockets or clocks here: the caller owns both (`omote-live`'s listener).
#[derive(Clone, Debug)]
pub struct VmcRecorder {
    fps: f32,
    dt: f64,
    channels: Vec<(String, Vec<f32>)>,
    head: Vec<[f32; 4]>,
    left_eye: Vec<[f32; 4]>,
    right_eye: Vec<[f32; 4]>,
    /// Performer time of the next frame, once the first one is recorded.
    next_t: Option<f64>,
    skipped: u64,
    /// Reused per advance: (omote channel, value), sorted by name.
    seen: Vec<(String, f32)>,
}

impl VmcRecorder {
    /// Frames one [`VmcRecorder::advance`] appends at most (10 s at 60 fps).
    pub const MAX_FILL_FRAMES: usize = 600;
    /// Seconds the clock may go back (jitter) before the recording resynchronises.
    pub const MAX_BACKWARD_S: f64 = 1.0;
    /// Float noise tolerated in the performer's clock when deciding a frame is due.
    const TOLERANCE_S: f64 = 1e-4;

    /// An empty recording at `fps` frames per second.
    ///
    /// # Panics
    ///
    /// If `fps` is not a positive finite number.
    pub fn new(fps: f32) -> Self {
        assert!(
            fps.is_finite() && fps > 0.0,
            "VmcRecorder: fps must be positive and finite, got {fps}"
        );
        Self {
            fps,
            dt: 1.0 / f64::from(fps),
            channels: Vec::new(),
            head: Vec::new(),
            left_eye: Vec::new(),
            right_eye: Vec::new(),
            next_t: None,
            skipped: 0,
            seen: Vec::new(),
        }
    }

    /// Appends the frames due up to performer time `t_s` (seconds) with `receiver`'s
    /// current values; returns how many (at most [`VmcRecorder::MAX_FILL_FRAMES`]).
    /// A non-finite `t_s` is ignored.
    pub fn advance(&mut self, t_s: f64, receiver: &VmcReceiver) -> usize {
        if !t_s.is_finite() {
            return 0;
        }
        let next = *self.next_t.get_or_insert(t_s);
        if t_s < next - self.dt - Self::MAX_BACKWARD_S {
            // The clock went back (the performer restarted): carry on from here.
            self.next_t = Some(t_s);
            return self.advance(t_s, receiver);
        }
        if t_s + Self::TOLERANCE_S < next {
            return 0;
        }
        // Frames due: those at next, next + dt, … ≤ t (+ tolerance). Computed, not
        // stepped, so a huge t costs nothing and float precision cannot stall us.
        let due_f = ((t_s + Self::TOLERANCE_S - next) / self.dt).floor() + 1.0;
        let due = if due_f >= Self::MAX_FILL_FRAMES as f64 {
            Self::MAX_FILL_FRAMES
        } else {
            due_f as usize
        };
        self.snapshot(receiver);
        for _ in 0..due {
            self.push_frame(receiver);
        }
        if due_f > due as f64 {
            // A jump: skip the rest of the gap, the next frame is one step after `t`.
            self.skipped = self
                .skipped
                .saturating_add((due_f - due as f64).min(u64::MAX as f64) as u64);
            self.next_t = Some(t_s + self.dt);
        } else {
            self.next_t = Some(next + due as f64 * self.dt);
        }
        due
    }

    /// Reads the receiver's blend values into `seen` and adds new channels.
    fn snapshot(&mut self, r: &VmcReceiver) {
        self.seen.clear();
        self.seen.extend(
            r.blends()
                .iter()
                .map(|(k, v)| (channel_from_wire(k).to_owned(), *v)),
        );
        self.seen.sort_by(|a, b| a.0.cmp(&b.0));
        let n = self.head.len();
        for (name, _) in &self.seen {
            if !self.channels.iter().any(|(c, _)| c == name) {
                self.channels.push((name.clone(), vec![0.0; n]));
            }
        }
    }

    fn push_frame(&mut self, r: &VmcReceiver) {
        for (c, track) in &mut self.channels {
            let v = self
                .seen
                .iter()
                .find(|(name, _)| name == c)
                .map_or(0.0, |s| s.1);
            track.push(v);
        }
        let rot = |name: &str| {
            r.bone(name)
                .map_or([0.0, 0.0, 0.0, 1.0], |b| b.1.to_array())
        };
        self.head.push(rot("Head"));
        self.left_eye.push(rot("LeftEye"));
        self.right_eye.push(rot("RightEye"));
    }

    /// Frames recorded so far.
    pub fn frames(&self) -> usize {
        self.head.len()
    }

    /// Frames of clock jumps that were not filled (see the type's docs); saturates.
    pub fn skipped_frames(&self) -> u64 {
        self.skipped
    }

    /// The frame rate of the recording.
    pub fn fps(&self) -> f32 {
        self.fps
    }

    /// The recording as an anim (gaze angles are not on the wire: they are 0).
    pub fn finish(self) -> Anim {
        let frames = self.head.len();
        Anim {
            format: ANIM_FORMAT.into(),
            version: ANIM_VERSION,
            fps: self.fps,
            duration: frames as f32 / self.fps,
            // What arrived; which override rules the performer applied is unknown.
            expressions: ExpressionTracks(self.channels),
            applied_expressions: None,
            head: self.head,
            left_eye: self.left_eye,
            right_eye: self.right_eye,
            look_at: vec![[0.0, 0.0]; frames],
            events: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::osc::{OscMessage, OscValue};

    fn blend(r: &mut VmcReceiver, name: &str, v: f32) {
        let msgs = [
            OscMessage {
                address: "/VMC/Ext/Blend/Val".into(),
                args: vec![OscValue::Str(name.into()), OscValue::Float(v)],
            },
            OscMessage {
                address: "/VMC/Ext/Blend/Apply".into(),
                args: vec![],
            },
        ];
        r.apply(&msgs).unwrap();
    }

    #[test]
    fn one_frame_per_step_with_new_channels_zero_before() {
        let mut r = VmcReceiver::new();
        let mut rec = VmcRecorder::new(10.0);
        blend(&mut r, "A", 0.5);
        assert_eq!(rec.advance(0.0, &r), 1);
        assert_eq!(rec.advance(0.05, &r), 0);
        blend(&mut r, "Joy", 1.0);
        assert_eq!(rec.advance(0.1, &r), 1);
        // A late packet holds the values over the frames it missed.
        assert_eq!(rec.advance(0.4, &r), 3);
        let anim = rec.finish();
        assert!(anim.validate().is_ok());
        assert_eq!(anim.frames(), 5);
        assert_eq!(anim.expressions.get("aa"), Some(&[0.5; 5][..]));
        assert_eq!(
            anim.expressions.get("happy"),
            Some(&[0.0, 1.0, 1.0, 1.0, 1.0][..])
        );
    }

    #[test]
    fn a_restarted_clock_resynchronises() {
        let r = VmcReceiver::new();
        let mut rec = VmcRecorder::new(10.0);
        rec.advance(100.0, &r);
        assert_eq!(rec.advance(0.0, &r), 1, "back to 0: recording goes on");
        assert_eq!(rec.advance(0.1, &r), 1);
        // Small jitter backwards is not a restart.
        assert_eq!(rec.advance(0.05, &r), 0);
        assert_eq!(rec.frames(), 3);
    }
}
