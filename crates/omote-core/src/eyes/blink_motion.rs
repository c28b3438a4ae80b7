//! Blink motions: extra channel curves that play with a blink, chosen by the dominant
//! expression (docs/design.md § Blink: a smiling face blinks differently from a surprised one).
//!
//! A motion is a [`ClipDesc`] keyed on the blink's *phase time* instead of seconds:
//! 0–1 while the eyes close, 1–2 while they stay closed, 2–3 while they open
//! ([`BlinkEvent::phase_time`](crate::eyes::BlinkEvent::phase_time)). So one motion fits every
//! blink, whatever its random durations. Tracks are added to the mixed weights before the
//! override pass, scaled by the blink's depth; a track on the `blink` channel itself
//! replaces the blink's own shape.
//!
//! ```
//! use omote_core::{Rig, eyes::{BlinkMotion, BlinkMotionDesc}};
//! let desc: BlinkMotionDesc = serde_json::from_str(r#"{
//!     "expression": "happy",
//!     "clip": {"tracks": {"cheekSquintLeft": {"keys": [
//!         {"t": 0, "v": 0}, {"t": 1, "v": 0.4}, {"t": 2, "v": 0.4}, {"t": 3, "v": 0}]}}}
//! }"#).unwrap();
//! let rig = Rig::standard();
//! let motion = BlinkMotion::new(&desc, &rig).unwrap();
//! let mut w = vec![0.0; rig.len()];
//! motion.add_into(1.5, 0.5, &mut w);
//! assert!((w[rig.channel("cheekSquintLeft").unwrap().index()] - 0.2).abs() < 1e-6);
//! ```

use serde::{Deserialize, Serialize};

use crate::clip::{Clip, ClipDesc};
use crate::curve::{Keyframe, ResponseCurve};
use crate::error::EyesConfigError;
use crate::eyes::blink::BlinkConfig;
use crate::rig::expression::ExpressionPreset;
use crate::rig::{ChannelId, Rig};

/// A blink motion as data.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BlinkMotionDesc {
    /// The expression this motion belongs to (`"happy"`, or a custom expression name).
    pub expression: String,
    /// The expression needs at least this weight to choose its motion.
    #[serde(default = "default_min_weight")]
    pub min_weight: f32,
    /// Curves by channel name, keyed on blink phase time (0–3, see the module docs).
    pub clip: ClipDesc,
    /// Channels that close the eyelids for this expression's blink *in place of* the
    /// `blink` preset (e.g. ARKit `eyeBlinkLeft`/`eyeBlinkRight`). For expressions whose
    /// override rules hide the `blink` preset — a smile usually blends it out — so the
    /// smile still blinks its own way, as the seed's per-expression blink motions do.
    /// They take the blink's weight; names the rig lacks are dropped.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lids: Vec<String>,
}

fn default_min_weight() -> f32 {
    0.3
}

/// The built-in motions for the emotion presets. They use ARKit channel names and are
/// skipped on rigs without them: a smiling (`happy`) blink lifts the cheeks, `relaxed`
/// a little; `angry` and `surprised` blinks pull the brows down a bit, a `sad` blink
/// lifts the inner brows. Each closes the lids with ARKit `eyeBlinkLeft`/`eyeBlinkRight`
/// where the rig has them, so an emotion whose override rules hide the `blink` preset
/// still blinks.
pub fn preset_blink_motions() -> Vec<BlinkMotionDesc> {
    let motion = |expression: ExpressionPreset, tracks: &[(&str, f32)]| BlinkMotionDesc {
        expression: expression.name().to_string(),
        min_weight: default_min_weight(),
        clip: ClipDesc {
            tracks: tracks
                .iter()
                .map(|&(name, peak)| (name.to_string(), bump(peak)))
                .collect(),
        },
        lids: vec!["eyeBlinkLeft".into(), "eyeBlinkRight".into()],
    };
    use ExpressionPreset as P;
    vec![
        motion(
            P::Happy,
            &[
                ("cheekSquintLeft", 0.35),
                ("cheekSquintRight", 0.35),
                ("eyeSquintLeft", 0.2),
                ("eyeSquintRight", 0.2),
            ],
        ),
        motion(
            P::Relaxed,
            &[("cheekSquintLeft", 0.15), ("cheekSquintRight", 0.15)],
        ),
        motion(
            P::Angry,
            &[
                ("browDownLeft", 0.2),
                ("browDownRight", 0.2),
                ("noseSneerLeft", 0.1),
                ("noseSneerRight", 0.1),
            ],
        ),
        motion(
            P::Surprised,
            &[("browDownLeft", 0.15), ("browDownRight", 0.15)],
        ),
        motion(P::Sad, &[("browInnerUp", 0.2)]),
    ]
}

/// 0 → `peak` while closing, `peak` while closed, back to 0 while opening.
fn bump(peak: f32) -> ResponseCurve {
    ResponseCurve::new(vec![
        Keyframe::new(0.0, 0.0, 0.0),
        Keyframe::new(1.0, peak, 0.0),
        Keyframe::new(2.0, peak, 0.0),
        Keyframe::new(3.0, 0.0, 0.0),
    ])
    .expect("keys increase")
}

/// A blink motion resolved against a rig.
#[derive(Clone, Debug, PartialEq)]
pub struct BlinkMotion {
    /// The expression that chooses it.
    pub expression: ChannelId,
    /// The weight the expression needs.
    pub min_weight: f32,
    /// Replaces the blink's shape, if the motion has a `blink` track.
    blink_track: Option<ResponseCurve>,
    /// The other tracks, added on top (resolved like a [`Clip`]'s).
    extra: Vec<(ChannelId, ResponseCurve)>,
    /// Channels that close the lids in place of the blink preset.
    lids: Vec<ChannelId>,
}

impl BlinkMotion {
    /// Resolve `desc` against `rig`; every name must be a rig channel.
    pub fn new(desc: &BlinkMotionDesc, rig: &Rig) -> Result<Self, EyesConfigError> {
        Self::resolve(desc, rig, true).map(|m| m.expect("strict resolution"))
    }

    /// Resolve, dropping tracks the rig lacks (`strict == false`); `None` when the
    /// expression is missing or no track is left.
    fn resolve(
        desc: &BlinkMotionDesc,
        rig: &Rig,
        strict: bool,
    ) -> Result<Option<Self>, EyesConfigError> {
        let Some(expression) = rig.channel(&desc.expression) else {
            return if strict {
                Err(EyesConfigError::UnknownChannel {
                    field: "expression".into(),
                    name: desc.expression.clone(),
                })
            } else {
                Ok(None)
            };
        };
        crate::bounds::OutOfBounds::check("minWeight", desc.min_weight, 0.0, 1.0, "0 to 1")?;
        let blink = rig.preset(ExpressionPreset::Blink);
        let mut blink_track = None;
        let mut extra = ClipDesc::default();
        for (name, curve) in &desc.clip.tracks {
            match rig.channel(name) {
                Some(id) if Some(id) == blink => blink_track = Some(curve.clone()),
                Some(_) => {
                    extra.tracks.insert(name.clone(), curve.clone());
                }
                None if strict => {
                    return Err(EyesConfigError::UnknownChannel {
                        field: format!("clip.tracks.{name}"),
                        name: name.clone(),
                    });
                }
                None => {}
            }
        }
        let mut lids = Vec::new();
        for (i, name) in desc.lids.iter().enumerate() {
            match rig.channel(name) {
                Some(id) if !lids.contains(&id) => lids.push(id),
                Some(_) => {}
                None if strict => {
                    return Err(EyesConfigError::UnknownChannel {
                        field: format!("lids[{i}]"),
                        name: name.clone(),
                    });
                }
                None => {}
            }
        }
        if !strict && blink_track.is_none() && extra.tracks.is_empty() && lids.is_empty() {
            return Ok(None);
        }
        let clip = Clip::new(&extra, rig).expect("names were resolved above");
        let extra = clip
            .channels()
            .map(|id| (id, extra.tracks[rig.channel_name(id)].clone()))
            .collect();
        Ok(Some(Self {
            expression,
            min_weight: desc.min_weight,
            blink_track,
            extra,
            lids,
        }))
    }

    /// The blink channel's value at `phase` (before depth), if this motion reshapes it.
    pub fn blink_shape(&self, phase: f32) -> Option<f32> {
        self.blink_track.as_ref().map(|c| c.eval(phase))
    }

    /// The channels that close the lids in place of the blink preset (empty: the blink
    /// preset closes them).
    pub fn lids(&self) -> &[ChannelId] {
        &self.lids
    }

    /// Add the extra tracks at `phase`, times `scale`, into `weights` (one per channel).
    pub fn add_into(&self, phase: f32, scale: f32, weights: &mut [f32]) {
        for (id, curve) in &self.extra {
            weights[id.index()] += curve.eval(phase) * scale;
        }
    }
}

/// The motions `config` asks for on `rig`: custom ones first (they win for their
/// expression), then the built-in ones for the other expressions. Names the rig lacks
/// are dropped here; [`BlinkConfig::check_rig`] reports them.
pub(crate) fn resolve_motions(config: &BlinkConfig, rig: &Rig) -> Vec<BlinkMotion> {
    let mut out: Vec<BlinkMotion> = Vec::new();
    let presets = if config.preset_motions {
        preset_blink_motions()
    } else {
        Vec::new()
    };
    for desc in config.motions.iter().chain(&presets) {
        if let Ok(Some(m)) = BlinkMotion::resolve(desc, rig, false)
            && !out.iter().any(|o| o.expression == m.expression)
        {
            out.push(m);
        }
    }
    out
}

/// The motion whose expression weighs most in `weights` (and at least its
/// `min_weight`).
pub(crate) fn dominant(motions: &[BlinkMotion], weights: &[f32]) -> Option<usize> {
    let mut best: Option<(usize, f32)> = None;
    for (i, m) in motions.iter().enumerate() {
        let w = weights[m.expression.index()];
        if w >= m.min_weight && w > 0.0 && best.is_none_or(|(_, b)| w > b) {
            best = Some((i, w));
        }
    }
    best.map(|(i, _)| i)
}

impl BlinkConfig {
    /// Check the custom motions against `rig`: every expression and track name must be
    /// one of its channels. (Built-in motions are fitted to the rig silently.)
    pub fn check_rig(&self, rig: &Rig) -> Result<(), EyesConfigError> {
        for (i, desc) in self.motions.iter().enumerate() {
            BlinkMotion::new(desc, rig).map_err(|e| match e {
                EyesConfigError::UnknownChannel { field, name } => {
                    EyesConfigError::UnknownChannel {
                        field: format!("motions[{i}].{field}"),
                        name,
                    }
                }
                EyesConfigError::OutOfRange {
                    field,
                    value,
                    expected,
                } => EyesConfigError::OutOfRange {
                    field: format!("motions[{i}].{field}"),
                    value,
                    expected,
                },
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::look_at::LookAtDesc;
    use crate::rig::expression::ExpressionDesc;

    #[test]
    fn presets_fit_the_standard_rig_and_vanish_on_a_bare_one() {
        let rig = Rig::standard();
        let all = resolve_motions(&BlinkConfig::default(), &rig);
        assert_eq!(all.len(), 5);
        let bare = Rig::new(
            "bare",
            vec![ExpressionDesc::new("happy"), ExpressionDesc::new("blink")],
            LookAtDesc::default(),
        )
        .unwrap();
        assert!(resolve_motions(&BlinkConfig::default(), &bare).is_empty());
    }

    #[test]
    fn custom_motions_win_and_blink_tracks_reshape() {
        let rig = Rig::standard();
        let desc: BlinkMotionDesc = serde_json::from_str(
            r#"{"expression":"happy","minWeight":0.5,"clip":{"tracks":{
                "blink":{"keys":[{"t":0,"v":0},{"t":1.5,"v":1},{"t":3,"v":0}]},
                "mouthSmileLeft":"linear"}}}"#,
        )
        .unwrap();
        let config = BlinkConfig {
            motions: vec![desc],
            ..BlinkConfig::default()
        };
        config.check_rig(&rig).unwrap();
        let motions = resolve_motions(&config, &rig);
        assert_eq!(motions.len(), 5);
        let happy = rig.channel("happy").unwrap();
        let m = motions.iter().find(|m| m.expression == happy).unwrap();
        assert_eq!(m.min_weight, 0.5);
        assert_eq!(m.blink_shape(1.5), Some(1.0));

        let mut w = vec![0.0; rig.len()];
        w[happy.index()] = 0.4;
        assert_eq!(dominant(&motions, &w), None);
        w[happy.index()] = 0.6;
        w[rig.channel("sad").unwrap().index()] = 0.5;
        assert_eq!(
            dominant(&motions, &w).map(|i| motions[i].expression),
            Some(happy)
        );
    }

    #[test]
    fn check_rig_names_the_unknown_track() {
        let mut config = BlinkConfig::default();
        config.motions.push(BlinkMotionDesc {
            expression: "happy".into(),
            min_weight: 0.3,
            clip: ClipDesc {
                tracks: [("nope".to_string(), bump(1.0))].into(),
            },
            lids: Vec::new(),
        });
        let e = config.check_rig(&Rig::standard()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "motions[0].clip.tracks.nope: the rig has no channel `nope`"
        );
    }
}
