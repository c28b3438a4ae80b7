//! The anim format: the common output of every command that produces animation.
//!
//! ```json
//! {"format":"omote-anim","version":2,"fps":60,"duration":5.0,
//!  "expressions":{"aa":[0.0,0.1,...],...},"appliedExpressions":{"aa":[...],...},
//!  "head":[[x,y,z,w],...],"leftEye":[...],"rightEye":[...],
//!  "lookAt":[[yaw,pitch],...],"events":[{"t":1.2,"kind":"marker","name":"hello"}]}
//! ```
//! Events also record blinks (`{"kind":"blink","t":..,"closeDuration":..,
//! "holdDuration":..,"openDuration":..,"depth":..,"cause":"spontaneous"}`) and saccades
//! (`{"kind":"saccade","t":..,"duration":..,"yaw":Δdeg,"pitch":Δdeg,"direction":"up-left"}`).
//! One value per frame for every rig expression, in rig order: `expressions` before the
//! VRM 1.0 override rules (what a VRM player takes as input), `appliedExpressions` after
//! them (what the face shows; absent = the same as `expressions`, as in version 1 files,
//! whose `expressions` were the applied weights). Quaternions are x, y, z, w
//! in the VRM frame (+Y up, +Z forward, +X the avatar's left); `head` is the head's full
//! orientation relative to the body; the eyes are the eye bones' rotations relative to
//! their rest pose; `lookAt` is gaze yaw/pitch in degrees (yaw > 0 left, pitch > 0 down),
//! after the lookAt override multiplier, and `lookAtInput` (only when an override changed
//! it) the gaze before it, a VRM player's input.

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};

use crate::eyes::blink::BlinkCause;
use crate::eyes::saccade::SaccadeDirection;
use crate::face::FaceState;
use crate::face::event::FaceEvent;
use crate::rig::Rig;

/// The value of the `format` field.
pub const ANIM_FORMAT: &str = "omote-anim";
/// The version this crate writes. 2: `expressions` are the weights before the override
/// rules and `appliedExpressions` the ones after. Version 1 (only `expressions`, after
/// the rules) still reads.
pub const ANIM_VERSION: u32 = 2;
/// The oldest version this crate reads.
const ANIM_MIN_VERSION: u32 = 1;
/// The lowest frame rate of an anim (and of every `omote` command).
pub const ANIM_MIN_FPS: f32 = 1.0;
/// The highest frame rate of an anim (and of every `omote` command): fast cameras reach
/// 240–1000 fps; beyond that an anim sent over VMC (a frame's packets each frame) is a
/// flood.
pub const ANIM_MAX_FPS: f32 = 1000.0;

/// A baked animation (see the module docs for the JSON form).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Anim {
    /// Always `"omote-anim"`.
    pub format: String,
    /// Format version: [`ANIM_VERSION`] when written, 1 or 2 when read.
    pub version: u32,
    /// Frames per second.
    pub fps: f32,
    /// Length in seconds (`frames / fps`).
    pub duration: f32,
    /// Per-expression weight tracks in rig order, **before** the VRM 1.0 override rules:
    /// what a VRM player takes as input (the VRMA writer, a VRM 1.0 VMC receiver), since
    /// it applies the rules itself. In a version-1 file these were the applied weights.
    pub expressions: ExpressionTracks,
    /// The same tracks (same names, same order) **after** the override rules: what the
    /// face shows (plots, readouts, the viewer, a VRM 0.x receiver). `None` when the file
    /// has none (version 1, VMC recordings, hand-written anims): then they equal
    /// `expressions`. Read it through [`Anim::applied`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub applied_expressions: Option<ExpressionTracks>,
    /// Head orientation per frame, `[x, y, z, w]`.
    pub head: Vec<[f32; 4]>,
    /// Left eye bone rotation per frame.
    pub left_eye: Vec<[f32; 4]>,
    /// Right eye bone rotation per frame.
    pub right_eye: Vec<[f32; 4]>,
    /// Gaze `[yaw, pitch]` in degrees per frame, after the lookAt override multiplier:
    /// what the face shows.
    pub look_at: Vec<[f32; 2]>,
    /// The gaze *before* the lookAt override multiplier, when an expression's
    /// `overrideLookAt` changed it in some frame: what a VRM 1.0 player takes as input
    /// (the VRMA writer), since it applies the override itself. `None`: the same as
    /// `look_at`. Read it through [`Anim::look_at_input`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub look_at_input: Option<Vec<[f32; 2]>>,
    /// Things that happened, in time order.
    #[serde(default)]
    pub events: Vec<AnimEvent>,
}

/// Expression tracks by name, kept in rig order (serialised as a JSON object).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExpressionTracks(pub Vec<(String, Vec<f32>)>);

impl ExpressionTracks {
    /// The track of one expression.
    pub fn get(&self, name: &str) -> Option<&[f32]> {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_slice())
    }
}

impl Serialize for ExpressionTracks {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for ExpressionTracks {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ExpressionTracks;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object of expression name → array of weights")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = m.next_entry::<String, Vec<f32>>()? {
                    if out.iter().any(|(n, _): &(String, Vec<f32>)| *n == k) {
                        return Err(de::Error::custom(format!("expression `{k}` appears twice")));
                    }
                    out.push((k, v));
                }
                Ok(ExpressionTracks(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// Something that happened at a time: a blink, a saccade, a timeline marker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum AnimEvent {
    /// A named point in time (timeline cue, expression change).
    Marker {
        /// Seconds from the start.
        t: f32,
        /// What it marks.
        name: String,
    },
    /// A blink started (see [`BlinkEvent`](crate::eyes::BlinkEvent)).
    Blink {
        /// Seconds from the start.
        t: f32,
        /// Time from open to closed (s).
        close_duration: f32,
        /// Time closed (s).
        hold_duration: f32,
        /// Time from closed to open (s).
        open_duration: f32,
        /// How far it closes the eyes on top of the expression (0–1).
        depth: f32,
        /// Why it happened.
        cause: BlinkCause,
    },
    /// A voice line started (a scene's line).
    Voice {
        /// When the clip started (s).
        t: f32,
        /// When its voice starts, absolute (s); `None` for a line with no voice.
        voiced_start: Option<f32>,
        /// When its voice ends, absolute (s): the mouth hands over 0.2 s before.
        voiced_end: Option<f32>,
        /// The clip (its file name).
        clip: String,
    },
    /// An expression key started (a scene's acting or picture-making key).
    Expression {
        /// When (s).
        t: f32,
        /// The expression's channel name on this rig.
        name: String,
        /// The weight it moves to.
        weight: f32,
        /// `"acting"` or `"picture"`.
        layer: String,
        /// Whether it changes the eye area (blinks keep clear of it).
        eye_area: bool,
    },
    /// A saccade started (see [`SaccadeEvent`](crate::eyes::SaccadeEvent)).
    Saccade {
        /// Seconds from the start.
        t: f32,
        /// How long the jump takes (s).
        duration: f32,
        /// Change of gaze yaw in degrees (> 0: left).
        yaw: f32,
        /// Change of gaze pitch in degrees (> 0: down).
        pitch: f32,
        /// Compass direction.
        direction: SaccadeDirection,
    },
}

impl AnimEvent {
    /// When it happened.
    pub fn time(&self) -> f32 {
        match self {
            Self::Marker { t, .. }
            | Self::Blink { t, .. }
            | Self::Saccade { t, .. }
            | Self::Voice { t, .. }
            | Self::Expression { t, .. } => *t,
        }
    }
}

impl From<FaceEvent> for AnimEvent {
    fn from(e: FaceEvent) -> Self {
        match e {
            FaceEvent::Blink(b) => Self::Blink {
                t: b.t as f32,
                close_duration: b.close_duration,
                hold_duration: b.hold_duration,
                open_duration: b.open_duration,
                depth: b.depth,
                cause: b.cause,
            },
            FaceEvent::Saccade(s) => Self::Saccade {
                t: s.t as f32,
                duration: s.duration,
                yaw: s.yaw_deg,
                pitch: s.pitch_deg,
                direction: s.direction,
            },
        }
    }
}

/// Why an anim is not valid.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AnimError {
    /// `format` or `version` is not ours.
    #[error(
        "not an omote anim (format `{format}`, version {version}); expected format `omote-anim`, version 1 or 2"
    )]
    WrongFormat {
        /// The format given.
        format: String,
        /// The version given.
        version: u32,
    },
    /// `fps` is not in [`ANIM_MIN_FPS`]..=[`ANIM_MAX_FPS`].
    #[error("fps must be between 1 and 1000, got {0}")]
    BadFps(f32),
    /// A track's length differs from the frame count.
    #[error("{field} has {len} frames, expected {expected}")]
    LengthMismatch {
        /// The track, e.g. `expressions.aa` or `head`.
        field: String,
        /// Its length.
        len: usize,
        /// The frame count (length of `head`).
        expected: usize,
    },
    /// `appliedExpressions` does not have the channels of `expressions`, in their order.
    #[error(
        "appliedExpressions must have the channels of expressions in the same order; at position {index}: `{applied}` vs `{expected}`"
    )]
    AppliedMismatch {
        /// Position of the first difference.
        index: usize,
        /// The applied channel there (empty when missing).
        applied: String,
        /// The `expressions` channel there (empty when missing).
        expected: String,
    },
    /// A value is NaN or infinite.
    #[error("{field}[{frame}] is not finite")]
    NonFinite {
        /// The track.
        field: String,
        /// The frame.
        frame: usize,
    },
    /// A weight outside 0–1.
    #[error("{field}[{frame}] is {value}: a weight is 0 to 1")]
    WeightRange {
        /// The track.
        field: String,
        /// The frame.
        frame: usize,
        /// The weight.
        value: f32,
    },
    /// A rotation that is not a unit quaternion (a zero one would turn into NaN).
    #[error("{field}[{frame}] has length {length}: a rotation is a unit quaternion x, y, z, w")]
    NotUnit {
        /// The track.
        field: String,
        /// The frame.
        frame: usize,
        /// Its length.
        length: f32,
    },
}

/// How far a rotation's length may be from 1 (hand-written quaternions to a few digits).
const UNIT_TOLERANCE: f32 = 0.01;

impl Anim {
    /// Number of frames.
    pub fn frames(&self) -> usize {
        self.head.len()
    }

    /// What the face shows: `appliedExpressions`, or `expressions` when the anim has none
    /// (then no override rule changed them, or they already are the applied weights, as
    /// in version 1).
    pub fn applied(&self) -> &ExpressionTracks {
        self.applied_expressions
            .as_ref()
            .unwrap_or(&self.expressions)
    }

    /// The gaze before the lookAt override multiplier (`lookAtInput`, else `lookAt`).
    pub fn look_at_input(&self) -> &[[f32; 2]] {
        self.look_at_input.as_deref().unwrap_or(&self.look_at)
    }

    /// Check the invariants readers rely on: our format, one value per frame in every
    /// track, only finite numbers, weights 0–1, rotations of length 1 (within 0.01),
    /// `appliedExpressions` (if any) shaped like `expressions`.
    pub fn validate(&self) -> Result<(), AnimError> {
        if self.format != ANIM_FORMAT || !(ANIM_MIN_VERSION..=ANIM_VERSION).contains(&self.version)
        {
            return Err(AnimError::WrongFormat {
                format: self.format.clone(),
                version: self.version,
            });
        }
        if !(ANIM_MIN_FPS..=ANIM_MAX_FPS).contains(&self.fps) {
            return Err(AnimError::BadFps(self.fps));
        }
        let n = self.frames();
        let check_len = |field: String, len: usize| {
            if len == n {
                Ok(())
            } else {
                Err(AnimError::LengthMismatch {
                    field,
                    len,
                    expected: n,
                })
            }
        };
        fn check_finite(
            field: &str,
            mut frames: impl Iterator<Item = bool>,
        ) -> Result<(), AnimError> {
            match frames.position(|ok| !ok) {
                Some(frame) => Err(AnimError::NonFinite {
                    field: field.to_string(),
                    frame,
                }),
                None => Ok(()),
            }
        }
        let check_weights =
            |field: &str, v: &[f32]| match v.iter().position(|x| !(0.0..=1.0).contains(x)) {
                Some(frame) => Err(AnimError::WeightRange {
                    field: field.to_string(),
                    frame,
                    value: v[frame],
                }),
                None => Ok(()),
            };
        for (name, v) in &self.expressions.0 {
            let field = format!("expressions.{name}");
            check_len(field.clone(), v.len())?;
            check_finite(&field, v.iter().map(|x| x.is_finite()))?;
            check_weights(&field, v)?;
        }
        if let Some(applied) = &self.applied_expressions {
            let (a, e) = (&applied.0, &self.expressions.0);
            for index in 0..a.len().max(e.len()) {
                let name = |t: &[(String, Vec<f32>)]| t.get(index).map(|c| c.0.clone());
                let (got, want) = (name(a), name(e));
                if got != want {
                    return Err(AnimError::AppliedMismatch {
                        index,
                        applied: got.unwrap_or_default(),
                        expected: want.unwrap_or_default(),
                    });
                }
            }
            for (name, v) in a {
                let field = format!("appliedExpressions.{name}");
                check_len(field.clone(), v.len())?;
                check_finite(&field, v.iter().map(|x| x.is_finite()))?;
                check_weights(&field, v)?;
            }
        }
        for (field, q) in [
            ("head", &self.head),
            ("leftEye", &self.left_eye),
            ("rightEye", &self.right_eye),
        ] {
            check_len(field.to_string(), q.len())?;
            check_finite(field, q.iter().map(|x| x.iter().all(|c| c.is_finite())))?;
            let length = |x: &[f32; 4]| x.iter().map(|c| c * c).sum::<f32>().sqrt();
            if let Some(frame) = q
                .iter()
                .position(|x| (length(x) - 1.0).abs() > UNIT_TOLERANCE)
            {
                return Err(AnimError::NotUnit {
                    field: field.to_string(),
                    frame,
                    length: length(&q[frame]),
                });
            }
        }
        check_len("lookAt".to_string(), self.look_at.len())?;
        check_finite(
            "lookAt",
            self.look_at.iter().map(|x| x.iter().all(|c| c.is_finite())),
        )?;
        if let Some(input) = &self.look_at_input {
            check_len("lookAtInput".to_string(), input.len())?;
            check_finite(
                "lookAtInput",
                input.iter().map(|x| x.iter().all(|c| c.is_finite())),
            )?;
        }
        Ok(())
    }
}

/// Collects [`FaceState`]s frame by frame into an [`Anim`]: `expressions` from
/// [`FaceState::input_expressions`], `appliedExpressions` from
/// [`FaceState::expressions`]. (Bakes allocate as they grow; keep recorders out of
/// shipping per-frame paths.)
#[derive(Clone, Debug)]
pub struct AnimRecorder {
    anim: Anim,
    /// The last few frames' weights, row-major (input then applied, per frame): copied
    /// into the per-channel tracks a block at a time, so a frame costs two copies
    /// instead of a push per channel.
    block: Vec<f32>,
    channels: usize,
}

/// Frames buffered before they are moved into the tracks.
const BLOCK_FRAMES: usize = 64;

impl AnimRecorder {
    /// A recorder for faces on `rig` sampled at `fps`.
    pub fn new(rig: &Rig, fps: f32) -> Self {
        let tracks = || {
            ExpressionTracks(
                rig.channels()
                    .map(|(_, c)| (c.desc.name.clone(), Vec::new()))
                    .collect(),
            )
        };
        let channels = rig.len();
        Self {
            block: Vec::with_capacity(BLOCK_FRAMES * 2 * channels),
            channels,
            anim: Anim {
                format: ANIM_FORMAT.to_string(),
                version: ANIM_VERSION,
                fps,
                duration: 0.0,
                expressions: tracks(),
                applied_expressions: Some(tracks()),
                head: Vec::new(),
                left_eye: Vec::new(),
                right_eye: Vec::new(),
                look_at: Vec::new(),
                look_at_input: Some(Vec::new()),
                events: Vec::new(),
            },
        }
    }

    /// Room for `frames` more frames, so a long bake does not reallocate as it grows.
    pub fn reserve(&mut self, frames: usize) {
        let tracks = self.anim.expressions.0.iter_mut();
        let applied = self
            .anim
            .applied_expressions
            .iter_mut()
            .flat_map(|a| a.0.iter_mut());
        for (_, t) in tracks.chain(applied) {
            t.reserve(frames);
        }
        self.anim.head.reserve(frames);
        self.anim.left_eye.reserve(frames);
        self.anim.right_eye.reserve(frames);
        self.anim.look_at.reserve(frames);
        if let Some(input) = &mut self.anim.look_at_input {
            input.reserve(frames);
        }
    }

    /// Append one frame, and the events that started in it.
    pub fn record(&mut self, state: &FaceState) {
        self.anim
            .events
            .extend(state.events.iter().map(|e| AnimEvent::from(*e)));
        let n = self.channels;
        self.block.extend_from_slice(&state.input_expressions[..n]);
        self.block.extend_from_slice(&state.expressions[..n]);
        if self.block.len() >= BLOCK_FRAMES * 2 * n {
            self.flush();
        }
        self.anim.head.push(state.head.to_array());
        self.anim.left_eye.push(state.left_eye.to_array());
        self.anim.right_eye.push(state.right_eye.to_array());
        self.anim
            .look_at
            .push([state.look_at_yaw_deg, state.look_at_pitch_deg]);
        if let Some(input) = &mut self.anim.look_at_input {
            input.push([state.input_look_at_yaw_deg, state.input_look_at_pitch_deg]);
        }
    }

    /// Moves the buffered frames into the tracks.
    fn flush(&mut self) {
        let n = self.channels;
        if n == 0 {
            self.block.clear();
            return;
        }
        let frames = self.block.len() / (2 * n);
        let copy = |track: &mut Vec<f32>, column: usize, block: &[f32]| {
            let start = track.len();
            track.resize(start + frames, 0.0);
            for (d, row) in track[start..].iter_mut().zip(block.chunks_exact(2 * n)) {
                *d = row[column];
            }
        };
        for (c, (_, track)) in self.anim.expressions.0.iter_mut().enumerate() {
            copy(track, c, &self.block);
        }
        if let Some(applied) = self.anim.applied_expressions.as_mut() {
            for (c, (_, track)) in applied.0.iter_mut().enumerate() {
                copy(track, n + c, &self.block);
            }
        }
        self.block.clear();
    }

    /// Add an event.
    pub fn event(&mut self, event: AnimEvent) {
        self.anim.events.push(event);
    }

    /// Frames recorded so far.
    pub fn frames(&self) -> usize {
        self.anim.head.len()
    }

    /// The finished anim (events sorted by time).
    pub fn finish(mut self) -> Anim {
        self.flush();
        // Written only where an override changed the gaze (most models have none).
        if self.anim.look_at_input.as_ref() == Some(&self.anim.look_at) {
            self.anim.look_at_input = None;
        }
        self.anim.duration = self.anim.head.len() as f32 / self.anim.fps;
        self.anim
            .events
            .sort_by(|a, b| a.time().total_cmp(&b.time()));
        self.anim
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const V1: &str = r#"{"format":"omote-anim","version":1,"fps":30,"duration":0.0667,
        "expressions":{"happy":[0.5,0.6],"blink":[0.5,0.4]},
        "head":[[0,0,0,1],[0,0,0,1]],"leftEye":[[0,0,0,1],[0,0,0,1]],
        "rightEye":[[0,0,0,1],[0,0,0,1]],"lookAt":[[0,0],[0,0]]}"#;

    #[test]
    fn version_1_files_read_with_applied_equal_to_expressions() {
        let anim: Anim = serde_json::from_str(V1).unwrap();
        anim.validate().unwrap();
        assert_eq!(anim.version, 1);
        assert_eq!(anim.applied_expressions, None);
        assert_eq!(anim.applied(), &anim.expressions);
        assert_eq!(anim.applied().get("blink"), Some(&[0.5, 0.4][..]));
        // Written back, it stays without appliedExpressions.
        assert!(!serde_json::to_string(&anim).unwrap().contains("applied"));
    }

    #[test]
    fn applied_expressions_are_validated_like_expressions() {
        let mut anim: Anim = serde_json::from_str(V1).unwrap();
        anim.version = ANIM_VERSION;
        let tracks = |blink: Vec<f32>| {
            ExpressionTracks(vec![
                ("happy".into(), vec![0.5, 0.6]),
                ("blink".into(), blink),
            ])
        };
        anim.applied_expressions = Some(tracks(vec![0.25, 0.16]));
        anim.validate().unwrap();
        assert_eq!(anim.applied().get("blink"), Some(&[0.25, 0.16][..]));
        let json = serde_json::to_string(&anim).unwrap();
        assert!(
            json.contains(r#""appliedExpressions":{"happy":[0.5,0.6],"blink":[0.25,0.16]}"#),
            "{json}"
        );
        assert_eq!(serde_json::from_str::<Anim>(&json).unwrap(), anim);

        let err = |a: &Anim| a.validate().unwrap_err().to_string();
        let mut bad = anim.clone();
        bad.applied_expressions = Some(tracks(vec![0.25]));
        assert_eq!(
            err(&bad),
            "appliedExpressions.blink has 1 frames, expected 2"
        );
        bad.applied_expressions = Some(tracks(vec![0.25, f32::NAN]));
        assert_eq!(err(&bad), "appliedExpressions.blink[1] is not finite");
        bad.applied_expressions = Some(tracks(vec![0.25, 5.0]));
        assert_eq!(
            err(&bad),
            "appliedExpressions.blink[1] is 5: a weight is 0 to 1"
        );
        // A zero rotation would become NaN downstream (a VMC bone, a VRMA).
        let mut zero = anim.clone();
        zero.head[1] = [0.0; 4];
        assert_eq!(
            err(&zero),
            "head[1] has length 0: a rotation is a unit quaternion x, y, z, w"
        );
        let mut rounded = anim.clone();
        rounded.left_eye[0] = [0.0, 0.707, 0.0, 0.707];
        rounded.validate().unwrap();
        let mut swapped = tracks(vec![0.25, 0.16]);
        swapped.0.reverse();
        bad.applied_expressions = Some(swapped);
        assert!(
            err(&bad).contains("position 0: `blink` vs `happy`"),
            "{}",
            err(&bad)
        );
        let mut short = tracks(vec![0.25, 0.16]);
        short.0.pop();
        bad.applied_expressions = Some(short);
        assert!(
            err(&bad).contains("position 1: `` vs `blink`"),
            "{}",
            err(&bad)
        );
        bad = anim.clone();
        bad.version = 3;
        assert!(matches!(
            bad.validate(),
            Err(AnimError::WrongFormat { version: 3, .. })
        ));
    }

    #[test]
    fn blink_and_saccade_events_use_the_documented_json() {
        let blink = AnimEvent::Blink {
            t: 1.5,
            close_duration: 0.07,
            hold_duration: 0.02,
            open_duration: 0.15,
            depth: 1.0,
            cause: BlinkCause::Double,
        };
        let json = serde_json::to_string(&blink).unwrap();
        assert_eq!(
            json,
            r#"{"kind":"blink","t":1.5,"closeDuration":0.07,"holdDuration":0.02,"openDuration":0.15,"depth":1.0,"cause":"double"}"#
        );
        let saccade = AnimEvent::Saccade {
            t: 2.0,
            duration: 0.05,
            yaw: -3.0,
            pitch: 1.0,
            direction: SaccadeDirection::DownRight,
        };
        let json = serde_json::to_string(&saccade).unwrap();
        assert_eq!(
            json,
            r#"{"kind":"saccade","t":2.0,"duration":0.05,"yaw":-3.0,"pitch":1.0,"direction":"down-right"}"#
        );
        for e in [blink, saccade] {
            let back: AnimEvent =
                serde_json::from_str(&serde_json::to_string(&e).unwrap()).unwrap();
            assert_eq!(back, e);
        }
    }
}
