//! [`VmcRecorder`]: what a marionette received, sampled into an anim at a fixed rate.

use omote_core::{
    Anim,
    anim::{ANIM_FORMAT, ANIM_VERSION, ExpressionTracks},
};

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
/// **A performer's clock is trusted only within limits.** A clock that leaps forward (a
/// restart, a network stall, or a hostile `/VMC/Ext/T` of 1e30) would otherwise ask for
/// an unbounded number of frames:
/// - a gap of up to [`VmcRecorder::MAX_FILL_FRAMES`] frames is filled (the values held);
/// - a longer gap is a **jump**: the timeline restarts at the new time with one frame
///   (the gap's frames are counted in [`VmcRecorder::skipped_frames`], the jump in
///   [`VmcRecorder::restarts`]);
/// - a clock that goes back by more than [`VmcRecorder::MAX_BACKWARD_S`] (a performer
///   restarted at 0) restarts the timeline too, instead of waiting for the old time to
///   come round again; a non-finite time is ignored;
/// - [`VmcRecorder::advance_within`] also takes a cap on the total frames, which the
///   caller derives from its wall clock (the listener allows the real time since the
///   first packet plus a few seconds), so a clock that runs fast cannot outrun real time;
/// - [`VmcRecorder::with_max_values`] caps the whole recording (frames × numbers per
///   frame); frames and channels beyond it are dropped and counted.
///
/// So one `advance` appends at most `MAX_FILL_FRAMES` frames, and the recording never
/// holds more than the caps allow.
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
    restarts: u64,
    max_values: u64,
    dropped_channels: u64,
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
            restarts: 0,
            max_values: u64::MAX,
            dropped_channels: 0,
            seen: Vec::new(),
        }
    }

    /// Caps the recording at `max_values` numbers (frames × (channels + 14): three
    /// rotations and the gaze per frame).
    pub fn with_max_values(mut self, max_values: u64) -> Self {
        self.max_values = max_values;
        self
    }

    fn values_per_frame(channels: usize) -> u64 {
        channels as u64 + 14
    }

    /// Frames that still fit under the value cap.
    fn room(&self) -> usize {
        let per = Self::values_per_frame(self.channels.len());
        let cap = self.max_values / per;
        usize::try_from(cap.saturating_sub(self.head.len() as u64)).unwrap_or(usize::MAX)
    }

    /// Appends the frames due up to performer time `t_s` (seconds) with `receiver`'s
    /// current values; returns how many (at most [`VmcRecorder::MAX_FILL_FRAMES`]).
    /// A non-finite `t_s` is ignored. See the type's docs for jumps.
    pub fn advance(&mut self, t_s: f64, receiver: &VmcReceiver) -> usize {
        self.advance_within(t_s, receiver, usize::MAX)
    }

    /// [`VmcRecorder::advance`], keeping the recording at no more than `max_frames`
    /// frames in all (the frames due beyond it are skipped and counted).
    pub fn advance_within(&mut self, t_s: f64, receiver: &VmcReceiver, max_frames: usize) -> usize {
        if !t_s.is_finite() {
            return 0;
        }
        let next = *self.next_t.get_or_insert(t_s);
        if t_s < next - self.dt - Self::MAX_BACKWARD_S {
            // The clock went back (the performer restarted): carry on from here.
            self.restarts += 1;
            self.next_t = Some(t_s);
            return self.advance_within(t_s, receiver, max_frames);
        }
        if t_s + Self::TOLERANCE_S < next {
            return 0;
        }
        // Frames due: those at next, next + dt, … ≤ t (+ tolerance). Computed, not
        // stepped, so a huge t costs nothing and float precision cannot stall us.
        let due_f = ((t_s + Self::TOLERANCE_S - next) / self.dt).floor() + 1.0;
        let (due, mut skipped) = if due_f > Self::MAX_FILL_FRAMES as f64 {
            // A jump: the timeline restarts at `t` with one frame.
            self.restarts += 1;
            self.next_t = Some(t_s + self.dt);
            (1, (due_f - 1.0).min(u64::MAX as f64) as u64)
        } else {
            let due = due_f as usize;
            self.next_t = Some(next + due as f64 * self.dt);
            (due, 0)
        };
        self.snapshot(receiver);
        let room = self.room().min(max_frames.saturating_sub(self.head.len()));
        let append = due.min(room);
        skipped = skipped.saturating_add((due - append) as u64);
        for _ in 0..append {
            self.push_frame(receiver);
        }
        self.skipped = self.skipped.saturating_add(skipped);
        append
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
        let n = self.head.len() as u64;
        for (name, _) in &self.seen {
            if !self.channels.iter().any(|(c, _)| c == name) {
                // A new channel holds a value for every frame so far: only while it fits.
                if Self::values_per_frame(self.channels.len() + 1).saturating_mul(n.max(1))
                    > self.max_values
                {
                    self.dropped_channels += 1;
                    continue;
                }
                self.channels.push((name.clone(), vec![0.0; n as usize]));
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

    /// Frames of clock jumps that were not filled, and frames over the caps (see the
    /// type's docs); saturates.
    pub fn skipped_frames(&self) -> u64 {
        self.skipped
    }

    /// How often the timeline restarted (a jump forward or a clock gone back).
    pub fn restarts(&self) -> u64 {
        self.restarts
    }

    /// Channel names first seen after the recording was too big to add them.
    pub fn dropped_channels(&self) -> u64 {
        self.dropped_channels
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
            look_at_input: None,
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
        r.apply(&msgs).all_used().unwrap();
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
    fn a_jump_restarts_the_timeline_and_caps_hold() {
        let mut r = VmcReceiver::new();
        blend(&mut r, "A", 0.5);
        let mut rec = VmcRecorder::new(60.0);
        assert_eq!(rec.advance(0.0, &r), 1);
        // A gap under the fill cap is filled.
        assert_eq!(rec.advance(1.0, &r), 60);
        // A hostile clock: one frame per packet, never a fill.
        for t in [1e30, 2e30, 1e5, 1e12, f64::MAX, 3.0] {
            assert!(rec.advance(t, &r) <= 1, "{t}");
        }
        assert_eq!(rec.frames(), 61 + 6);
        assert!(rec.restarts() >= 5 && rec.skipped_frames() > 1_000_000);
        // The total cap from the caller's wall clock.
        let n = rec.frames();
        assert_eq!(rec.advance_within(3.5, &r, n + 2), 2);
        assert_eq!(rec.frames(), n + 2);
        // The value cap.
        let mut rec = VmcRecorder::new(60.0).with_max_values(15 * 100);
        for i in 0..1000 {
            rec.advance(f64::from(i) / 60.0, &r);
        }
        assert_eq!(rec.frames(), 100);
        let anim = rec.finish();
        assert!(anim.validate().is_ok());
        assert!(anim.head.iter().all(|q| q != &[0.0; 4]));
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
