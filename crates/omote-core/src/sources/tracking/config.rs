//! The retargeter's settings: how tracked scores become rig weights, head and gaze.
//! Every field has a default tuned for MediaPipe FaceLandmarker on a webcam; files give
//! only what they change (`omote retarget --config`, camelCase names).

use crate::bounds::{Bound, Limit, OutOfBounds, check_all, slot};
use serde::{Deserialize, Serialize};

use crate::curve::{Keyframe, ResponseCurve};
use crate::rig::arkit::arkit_index;
use crate::smoothing::OneEuroConfig;

/// Per-axis head limits in degrees (YXZ Euler: yaw about +Y, pitch about +X, roll about +Z).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct HeadLimits {
    /// Max |yaw|.
    pub yaw_deg: f32,
    /// Max |pitch|.
    pub pitch_deg: f32,
    /// Max |roll|.
    pub roll_deg: f32,
}

impl Default for HeadLimits {
    fn default() -> Self {
        Self {
            yaw_deg: 70.0,
            pitch_deg: 50.0,
            roll_deg: 45.0,
        }
    }
}

/// Eye blink mapping.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct EyeMapping {
    /// Scores at or below this count as fully open (MediaPipe reads ~0.3 on a smile).
    pub open_below: f32,
    /// Scores at or above this count as fully closed.
    pub closed_above: f32,
    /// Applied after the thresholds.
    pub curve: ResponseCurve,
    /// Eyes closer than this (after mapping) are linked into one `blink`; beyond it each
    /// eye drives its own channel (a wink).
    pub wink_difference: f32,
    /// Fastest opening, in full opens per second (closing is never slowed).
    pub max_open_speed: f32,
}

impl Default for EyeMapping {
    fn default() -> Self {
        Self {
            open_below: 0.35,
            closed_above: 0.7,
            curve: ResponseCurve::preset("smoothstep").expect("preset"),
            wink_difference: 0.45,
            max_open_speed: 7.0,
        }
    }
}

/// Mouth mapping.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct MouthMapping {
    /// jawOpen → openness.
    pub jaw_curve: ResponseCurve,
    /// Split the mouth into the five vowels; `false` drives only `aa` from the jaw
    /// (the behaviour of docs/design.md § Tracking).
    pub vowels: bool,
    /// Overall gain on the mouth's activity before clamping.
    pub gain: f32,
}

impl Default for MouthMapping {
    fn default() -> Self {
        Self {
            jaw_curve: ResponseCurve::new(vec![
                Keyframe::linear(0.0, 0.0),
                Keyframe::new(0.05, 0.0, 1.6),
                Keyframe::new(0.6, 1.0, 0.0),
            ])
            .expect("valid keys"),
            vowels: true,
            gain: 1.3,
        }
    }
}

/// How the source scores of a rule combine (read from its name, as
/// [`Interp`](crate::curve::Interp) is).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "String")]
pub enum Combine {
    /// Mean of the sources.
    #[default]
    Average,
    /// Largest source.
    Max,
}

impl TryFrom<String> for Combine {
    type Error = String;
    fn try_from(name: String) -> Result<Self, String> {
        match name.as_str() {
            "average" => Ok(Self::Average),
            "max" => Ok(Self::Max),
            _ => Err(format!("`{name}` is not a way to combine: average or max")),
        }
    }
}

/// The most sources an emotion rule combines (a rule keeps them in a fixed array, so a
/// frame allocates nothing); more is an error, not a silent drop.
pub const MAX_EMOTION_SOURCES: usize = 4;

/// One emotion rule: `target = smoothstep((combine(sources) − from) / (to − from))`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EmotionRule {
    /// Rig channel to drive (skipped when the rig lacks it).
    pub target: String,
    /// ARKit names.
    pub sources: Vec<String>,
    /// How to combine the sources.
    #[serde(default)]
    pub combine: Combine,
    /// Score where the target starts to rise.
    pub from: f32,
    /// Score where the target is full.
    pub to: f32,
}

/// Gaze mapping.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct GazeMapping {
    /// Averaged eyeLook score → 0..1 of the lookAt input range (dead zone at rest).
    pub curve: ResponseCurve,
}

impl Default for GazeMapping {
    fn default() -> Self {
        Self {
            curve: ResponseCurve::new(vec![
                Keyframe::linear(0.12, 0.0),
                Keyframe::linear(0.75, 1.0),
            ])
            .expect("valid keys"),
        }
    }
}

/// Smoothing half-lives (seconds) per channel group.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct ShapeSmoothing {
    /// blink, blinkLeft, blinkRight.
    pub eyes: f32,
    /// The vowels.
    pub mouth: f32,
    /// Emotion rules.
    pub emotions: f32,
    /// Perfect-sync ARKit channels.
    pub perfect_sync: f32,
}

impl Default for ShapeSmoothing {
    fn default() -> Self {
        Self {
            eyes: 0.012,
            mouth: 0.03,
            emotions: 0.1,
            perfect_sync: 0.025,
        }
    }
}

/// Tracking-loss behaviour.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct LossConfig {
    /// Seconds without a face before the fallback starts (short dropouts hold the pose).
    pub grace: f32,
    /// Seconds to ease between tracked and procedural/neutral, both ways.
    pub blend_time: f32,
}

impl Default for LossConfig {
    fn default() -> Self {
        Self {
            grace: 0.25,
            blend_time: 0.6,
        }
    }
}

/// Everything about the mapping. Defaults suit MediaPipe FaceLandmarker on a webcam.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct RetargetConfig {
    /// Mirror the user (their left drives the avatar's right).
    pub mirror: bool,
    /// Head limits after calibration.
    pub limits: HeadLimits,
    /// Share of the head rotation given to the neck where a recording drives both bones
    /// (`omote live --record TAKE.vrma`, `omote retarget`'s VRMA;
    /// [`split_neck_head`](crate::tracking::split_neck_head));
    /// the `head` output stays the full orientation, and VMC sends it on `Head`.
    pub neck_share: f32,
    /// Eyes.
    pub eyes: EyeMapping,
    /// Mouth.
    pub mouth: MouthMapping,
    /// Emotion rules, applied in order.
    pub emotions: Vec<EmotionRule>,
    /// Emotions compete: the strongest keeps its value, the others are scaled by
    /// `1 − strongest` (a broad smile lowers the brows, which must not read as anger).
    pub exclusive_emotions: bool,
    /// Pass the 52 ARKit shapes to the rig's channels of those names, in any of their
    /// spellings (`jawOpen`, `JawOpen`, `eyeBlink_L`).
    pub perfect_sync: bool,
    /// Where the rig shows every ARKit shape a preset mapping reads (both blinks; the
    /// seven mouth shapes of the vowels; an emotion rule's sources), leave that mapping
    /// off: the shapes show it already, and both at once open a perfect-sync model's
    /// mouth twice (`aa` and `jawOpen`). Off by default, because the weights also go to
    /// VMC receivers and recordings, where a model without the ARKit clips needs the
    /// presets; turn it on for a model made for perfect sync that shows only itself.
    pub perfect_sync_replaces: bool,
    /// Gaze.
    pub gaze: GazeMapping,
    /// One Euro on the head (speed in degrees per second).
    pub head_filter: OneEuroConfig,
    /// One Euro on gaze yaw and pitch (degrees).
    pub gaze_filter: OneEuroConfig,
    /// Per-group shape smoothing.
    pub smoothing: ShapeSmoothing,
    /// Tracking loss.
    pub loss: LossConfig,
}

impl Default for RetargetConfig {
    fn default() -> Self {
        let rule = |target: &str, sources: &[&str], from, to| EmotionRule {
            target: target.into(),
            sources: sources.iter().map(|s| s.to_string()).collect(),
            combine: Combine::Average,
            from,
            to,
        };
        Self {
            mirror: false,
            limits: HeadLimits::default(),
            neck_share: crate::tracking::NECK_SHARE,
            eyes: EyeMapping::default(),
            mouth: MouthMapping::default(),
            emotions: vec![
                rule("happy", &["mouthSmileLeft", "mouthSmileRight"], 0.3, 0.75),
                rule("angry", &["browDownLeft", "browDownRight"], 0.35, 0.8),
                rule("sad", &["mouthFrownLeft", "mouthFrownRight"], 0.25, 0.65),
                rule(
                    "surprised",
                    &["eyeWideLeft", "eyeWideRight", "browInnerUp"],
                    0.3,
                    0.7,
                ),
            ],
            exclusive_emotions: true,
            perfect_sync: true,
            perfect_sync_replaces: false,
            gaze: GazeMapping::default(),
            head_filter: OneEuroConfig {
                min_cutoff: 1.5,
                beta: 0.05,
                derivative_cutoff: 1.0,
            },
            gaze_filter: OneEuroConfig {
                min_cutoff: 2.0,
                beta: 0.05,
                derivative_cutoff: 1.0,
            },
            smoothing: ShapeSmoothing::default(),
            loss: LossConfig::default(),
        }
    }
}

/// A row of the retarget settings' bounds table (the one bounds engine, `bounds.rs`):
/// a plain number, its name in files, its closed range.
macro_rules! bound {
    ($field:literal, $($f:ident).+, $lo:expr, $hi:expr, $expected:literal) => {
        Bound::num(
            $field,
            slot!(RetargetConfig, $($f).+),
            Limit::At($lo),
            Limit::At($hi),
            $expected,
        )
    };
}

/// Every plain number of [`RetargetConfig`] with its range, one row each. Curves check
/// themselves ([`ResponseCurve`]); emotion rules are checked per rule.
const BOUNDS: &[Bound<RetargetConfig>] = &[
    bound!("limits.yawDeg", limits.yaw_deg, 0.0, 180.0, "0–180 degrees"),
    bound!(
        "limits.pitchDeg",
        limits.pitch_deg,
        0.0,
        90.0,
        "0–90 degrees"
    ),
    bound!(
        "limits.rollDeg",
        limits.roll_deg,
        0.0,
        180.0,
        "0–180 degrees"
    ),
    bound!("neckShare", neck_share, 0.0, 1.0, "a share, 0–1"),
    bound!("eyes.openBelow", eyes.open_below, 0.0, 1.0, "a score, 0–1"),
    bound!(
        "eyes.closedAbove",
        eyes.closed_above,
        0.0,
        1.0,
        "a score, 0–1"
    ),
    bound!("eyes.winkDifference", eyes.wink_difference, 0.0, 1.0, "0–1"),
    bound!(
        "eyes.maxOpenSpeed",
        eyes.max_open_speed,
        0.1,
        1000.0,
        "0.1–1000 opens per second"
    ),
    bound!("mouth.gain", mouth.gain, 0.0, 10.0, "0–10"),
    bound!(
        "headFilter.minCutoff",
        head_filter.min_cutoff,
        0.01,
        100.0,
        "0.01–100 Hz"
    ),
    bound!("headFilter.beta", head_filter.beta, 0.0, 100.0, "0–100"),
    bound!(
        "headFilter.derivativeCutoff",
        head_filter.derivative_cutoff,
        0.01,
        100.0,
        "0.01–100 Hz"
    ),
    bound!(
        "gazeFilter.minCutoff",
        gaze_filter.min_cutoff,
        0.01,
        100.0,
        "0.01–100 Hz"
    ),
    bound!("gazeFilter.beta", gaze_filter.beta, 0.0, 100.0, "0–100"),
    bound!(
        "gazeFilter.derivativeCutoff",
        gaze_filter.derivative_cutoff,
        0.01,
        100.0,
        "0.01–100 Hz"
    ),
    bound!(
        "smoothing.eyes",
        smoothing.eyes,
        0.0,
        10.0,
        "a half-life of 0–10 seconds"
    ),
    bound!(
        "smoothing.mouth",
        smoothing.mouth,
        0.0,
        10.0,
        "a half-life of 0–10 seconds"
    ),
    bound!(
        "smoothing.emotions",
        smoothing.emotions,
        0.0,
        10.0,
        "a half-life of 0–10 seconds"
    ),
    bound!(
        "smoothing.perfectSync",
        smoothing.perfect_sync,
        0.0,
        10.0,
        "a half-life of 0–10 seconds"
    ),
    bound!("loss.grace", loss.grace, 0.0, 60.0, "0–60 seconds"),
    bound!("loss.blendTime", loss.blend_time, 0.0, 60.0, "0–60 seconds"),
];

impl RetargetConfig {
    /// Checks every number against its range (finite, sign, limit): the first one out
    /// of range is the error, named as in files (`limits.yawDeg`). [`Retargeter::new`]
    /// calls it, so no out-of-range setting reaches a frame.
    ///
    /// [`Retargeter::new`]: crate::tracking::Retargeter::new
    pub fn check(&self) -> Result<(), RetargetError> {
        check_all::<_, RetargetError>(BOUNDS, self)?;
        let e = &self.eyes;
        if e.open_below >= e.closed_above {
            return Err(RetargetError::BadEyeThresholds(
                e.open_below,
                e.closed_above,
            ));
        }
        for (i, r) in self.emotions.iter().enumerate() {
            for (name, v) in [("from", r.from), ("to", r.to)] {
                if !(v.is_finite() && (0.0..=1.0).contains(&v)) {
                    return Err(RetargetError::OutOfRange {
                        field: format!("emotions[{i}].{name}"),
                        value: v,
                        expected: "a score, 0–1",
                    });
                }
            }
            if r.from >= r.to {
                return Err(RetargetError::BadRange {
                    rule: i,
                    from: r.from,
                    to: r.to,
                });
            }
            if r.sources.is_empty() || r.sources.len() > MAX_EMOTION_SOURCES {
                return Err(RetargetError::SourceCount {
                    rule: i,
                    count: r.sources.len(),
                });
            }
            if let Some(name) = r.sources.iter().find(|s| arkit_index(s).is_none()) {
                return Err(RetargetError::UnknownSource {
                    rule: i,
                    name: name.clone(),
                });
            }
        }
        Ok(())
    }
}

impl From<OutOfBounds> for RetargetError {
    fn from(e: OutOfBounds) -> Self {
        Self::OutOfRange {
            field: e.field,
            value: e.value,
            expected: e.expected,
        }
    }
}

/// Why a retargeter could not be built.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RetargetError {
    /// A rule names a source that is not an ARKit name.
    #[error("emotions[{rule}].sources: `{name}` is not one of the 52 ARKit names")]
    UnknownSource {
        /// Rule index.
        rule: usize,
        /// The name.
        name: String,
    },
    /// A rule's `from`/`to` are not increasing finite numbers.
    #[error("emotions[{rule}]: `from` ({from}) must be below `to` ({to})")]
    BadRange {
        /// Rule index.
        rule: usize,
        /// Given from.
        from: f32,
        /// Given to.
        to: f32,
    },
    /// A number outside its range (see [`RetargetConfig::check`]).
    #[error("{field} = {value}: must be {expected}")]
    OutOfRange {
        /// The field as named in files (`limits.yawDeg`, `emotions[1].to`).
        field: String,
        /// The value given.
        value: f32,
        /// The range in words.
        expected: &'static str,
    },
    /// A rule with no sources, or more than it can combine.
    #[error("emotions[{rule}].sources: {count} sources: 1 to {MAX_EMOTION_SOURCES} ARKit names")]
    SourceCount {
        /// Rule index.
        rule: usize,
        /// Sources given.
        count: usize,
    },
    /// Eye thresholds are not increasing finite numbers.
    #[error("eyes: `openBelow` ({0}) must be below `closedAbove` ({1})")]
    BadEyeThresholds(f32, f32),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_pass_and_every_bad_number_is_named() {
        assert_eq!(RetargetConfig::default().check(), Ok(()));
        type Break = fn(&mut RetargetConfig);
        let cases: [(Break, &str); 6] = [
            (|c| c.limits.yaw_deg = -10.0, "limits.yawDeg = -10"),
            (|c| c.limits.pitch_deg = f32::NAN, "limits.pitchDeg = NaN"),
            (|c| c.mouth.gain = -1.0, "mouth.gain"),
            (|c| c.head_filter.min_cutoff = 0.0, "headFilter.minCutoff"),
            (|c| c.loss.grace = f32::INFINITY, "loss.grace = inf"),
            (|c| c.emotions[1].to = 1e30, "emotions[1].to"),
        ];
        for (break_it, expected) in cases {
            let mut c = RetargetConfig::default();
            break_it(&mut c);
            let e = c.check().unwrap_err().to_string();
            assert!(e.starts_with(expected), "{e}");
        }
    }
}
