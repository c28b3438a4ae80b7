//! Camera-angle face correction: a [`MotionMap`] resolved against a rig, writing the
//! blended correction motions into an additive layer every frame.

use crate::clip::Clip;
use crate::mix::layer::Layer;
use crate::rig::{ChannelId, Rig};
use crate::sources::camera::camera_angle::CameraAngle;
use crate::sources::camera::motion_map::{MotionMap, MotionMapError, MotionMapErrorKind};

/// One point's motion with names resolved to channels.
#[derive(Clone, Debug)]
struct Motion {
    values: Box<[(ChannelId, f32)]>,
    clip: Option<Clip>,
}

/// Adds the right correction motions for where the camera is (docs/design.md § Camera correction, 自動顔変形).
///
/// Channel and clip names are resolved once here; [`CameraCorrection::write_into`] and
/// [`CameraCorrection::apply_into`] allocate nothing and hash nothing. Put the result in a
/// dedicated additive layer so it sits on top of the acting without disturbing it:
///
/// ```
/// use std::sync::Arc;
/// use omote_core::camera::{CameraAngle, MotionMapDesc, MotionPointDesc};
/// use omote_core::mix::BlendMode;
/// use omote_core::{CameraCorrection, Face, FaceConfig, FaceInputs, MotionMap, Rig};
/// let rig = Arc::new(Rig::standard());
/// let desc = MotionMapDesc::new(vec![
///     MotionPointDesc::new("front", 0.0, 0.0),
///     MotionPointDesc::new("left", 90.0, 0.0).with("mouthLeft", 0.4),
///     MotionPointDesc::new("high", 0.0, 60.0),
///     MotionPointDesc::new("low", 0.0, -60.0).with("jawOpen", -0.2),
///     MotionPointDesc::new("right", -90.0, 0.0),
/// ]);
/// let mut correction = CameraCorrection::new(MotionMap::new(&desc).unwrap(), &rig).unwrap();
/// let mut face = Face::new(rig.clone(), FaceConfig::raw(), 1);
/// let camera_layer = face.add_layer("camera", BlendMode::Additive);
///
/// // Every frame: the camera's angle from the head's world transform, then the layer.
/// let angle = CameraAngle::new(45.0, 0.0);
/// correction.apply_into(angle, face.layer_mut(camera_layer));
/// let state = face.update(1.0 / 60.0, &FaceInputs::default());
/// assert!((state.weight(rig.channel("mouthLeft").unwrap()) - 0.2).abs() < 1e-6);
/// ```
#[derive(Clone, Debug)]
pub struct CameraCorrection {
    map: MotionMap,
    motions: Box<[Motion]>,
    /// Every channel any motion touches, sorted, deduplicated.
    channels: Box<[ChannelId]>,
    /// Rig-sized buffer for sampling clips (empty when there are none).
    scratch: Box<[f32]>,
    clip_time: f32,
    rig_len: usize,
}

impl CameraCorrection {
    /// Resolve `map` against `rig`. Every expression name must be a rig channel; points
    /// naming a clip are refused (use [`CameraCorrection::with_clips`]).
    pub fn new(map: MotionMap, rig: &Rig) -> Result<Self, MotionMapError> {
        Self::with_clips(map, rig, |_| None)
    }

    /// Resolve `map` against `rig`, looking clips up by name with `clips` (the clips must
    /// have been built for the same rig). Clips play looped, on the clock advanced by
    /// [`CameraCorrection::update`].
    pub fn with_clips<'c>(
        map: MotionMap,
        rig: &Rig,
        clips: impl Fn(&str) -> Option<&'c Clip>,
    ) -> Result<Self, MotionMapError> {
        let mut motions = Vec::with_capacity(map.len());
        let mut channels = Vec::new();
        for (i, p) in map.points().iter().enumerate() {
            let mut values = Vec::with_capacity(p.expressions.len());
            for (name, &w) in &p.expressions {
                let id = rig.channel(name).ok_or_else(|| MotionMapError {
                    field: format!("point[{i}].expressions.{name}"),
                    kind: MotionMapErrorKind::UnknownChannel { name: name.clone() },
                })?;
                values.push((id, w));
                channels.push(id);
            }
            let clip = match &p.clip {
                None => None,
                Some(name) => {
                    let clip = clips(name).ok_or_else(|| MotionMapError {
                        field: format!("point[{i}].clip"),
                        kind: MotionMapErrorKind::UnknownClip { name: name.clone() },
                    })?;
                    if let Some(c) = clip.channels().find(|c| c.index() >= rig.len()) {
                        return Err(MotionMapError {
                            field: format!("point[{i}].clip"),
                            kind: MotionMapErrorKind::UnknownChannel {
                                name: format!("#{} (clip `{name}` is for another rig)", c.0),
                            },
                        });
                    }
                    channels.extend(clip.channels());
                    Some(clip.clone())
                }
            };
            motions.push(Motion {
                values: values.into_boxed_slice(),
                clip,
            });
        }
        channels.sort_unstable();
        channels.dedup();
        let has_clips = motions.iter().any(|m| m.clip.is_some());
        Ok(Self {
            map,
            motions: motions.into_boxed_slice(),
            channels: channels.into_boxed_slice(),
            scratch: vec![0.0; if has_clips { rig.len() } else { 0 }].into_boxed_slice(),
            clip_time: 0.0,
            rig_len: rig.len(),
        })
    }

    /// The map.
    pub fn map(&self) -> &MotionMap {
        &self.map
    }

    /// The channels the correction writes (sorted).
    pub fn channels(&self) -> &[ChannelId] {
        &self.channels
    }

    /// Advance the clip clock by `dt` seconds (only matters for points with clips).
    pub fn update(&mut self, dt: f32) {
        if dt.is_finite() && dt > 0.0 {
            self.clip_time += dt;
            // Keep the clock small so f32 time stays precise over long sessions.
            if self.clip_time > 3600.0 {
                self.clip_time = self.clip_time.rem_euclid(3600.0);
            }
        }
    }

    /// Write the correction for `angle` into `out` (one entry per rig channel): each of
    /// [`CameraCorrection::channels`] is set to Σ weight · motion value, times the map's
    /// fade; other entries are left alone. Returns the fade factor used.
    ///
    /// # Panics
    /// If `out` is shorter than the rig.
    pub fn write_into(&mut self, angle: CameraAngle, out: &mut [f32]) -> f64 {
        assert!(out.len() >= self.rig_len, "one entry per rig channel");
        for c in self.channels.iter() {
            out[c.index()] = 0.0;
        }
        let fade = self.map.fade(angle.alpha_deg, angle.beta_deg);
        if fade <= 0.0 {
            return 0.0;
        }
        let blend = self.map.blend(angle.alpha_deg, angle.beta_deg);
        for (i, w) in blend.iter() {
            let w = (w * fade) as f32;
            if w == 0.0 {
                continue;
            }
            let motion = &self.motions[i];
            for &(c, v) in motion.values.iter() {
                out[c.index()] += w * v;
            }
            if let Some(clip) = &motion.clip {
                let d = clip.duration();
                let t = if d > 0.0 {
                    self.clip_time.rem_euclid(d)
                } else {
                    0.0
                };
                clip.sample_into(t, &mut self.scratch);
                for c in clip.channels() {
                    out[c.index()] += w * self.scratch[c.index()];
                }
            }
        }
        fade
    }

    /// [`CameraCorrection::write_into`] the values of `layer` (an additive layer of the
    /// same rig). Returns the fade factor used.
    pub fn apply_into(&mut self, angle: CameraAngle, layer: &mut Layer) -> f64 {
        self.write_into(angle, layer.values_mut())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clip::ClipDesc;
    use crate::sources::camera::motion_map::{FadeDesc, MotionMapDesc, MotionPointDesc};

    fn desc() -> MotionMapDesc {
        MotionMapDesc::new(vec![
            MotionPointDesc::new("front", 0.0, 0.0).with("happy", 0.1),
            MotionPointDesc::new("left", 90.0, 0.0).with("mouthLeft", 0.4),
            MotionPointDesc::new("high", 0.0, 60.0).with("happy", 0.5),
            MotionPointDesc::new("low", 0.0, -60.0).with("jawOpen", -0.2),
            MotionPointDesc::new("right", -90.0, 0.0),
        ])
    }

    #[test]
    fn writes_the_weighted_sum_and_only_its_channels() {
        let rig = Rig::standard();
        let mut c = CameraCorrection::new(MotionMap::new(&desc()).unwrap(), &rig).unwrap();
        assert_eq!(c.channels().len(), 3);
        let mut out = vec![0.7; rig.len()];
        // (0, 30): halfway between front and high.
        c.write_into(CameraAngle::new(0.0, 30.0), &mut out);
        let at = |n: &str| out[rig.channel(n).unwrap().index()];
        assert!((at("happy") - 0.3).abs() < 1e-6);
        assert_eq!(at("mouthLeft"), 0.0);
        assert_eq!(at("jawOpen"), 0.0);
        assert_eq!(at("sad"), 0.7, "untouched channels stay");
        c.write_into(CameraAngle::new(0.0, -90.0), &mut out);
        let at = |n: &str| out[rig.channel(n).unwrap().index()];
        assert!((at("jawOpen") + 0.2).abs() < 1e-6);
        assert_eq!(at("happy"), 0.0);
    }

    #[test]
    fn unknown_channels_and_clips_name_the_field() {
        let rig = Rig::standard();
        let mut d = desc();
        d.points[2].expressions.insert("smirk".into(), 0.2);
        let e = CameraCorrection::new(MotionMap::new(&d).unwrap(), &rig).unwrap_err();
        assert_eq!(e.field, "point[2].expressions.smirk");
        assert_eq!(
            e.to_string(),
            "point[2].expressions.smirk: no channel named `smirk` in the rig"
        );
        let mut d = desc();
        d.points[1].clip = Some("lean".into());
        let e = CameraCorrection::new(MotionMap::new(&d).unwrap(), &rig).unwrap_err();
        assert_eq!(e.field, "point[1].clip");
        assert!(matches!(e.kind, MotionMapErrorKind::UnknownClip { .. }));
    }

    #[test]
    fn clips_play_looped_with_the_motion_weight() {
        let rig = Rig::standard();
        let clip_desc: ClipDesc = serde_json::from_str(
            r#"{"tracks":{"sad":{"keys":[{"t":0,"v":0,"interp":"linear"},{"t":1,"v":1}]}}}"#,
        )
        .unwrap();
        let clip = Clip::new(&clip_desc, &rig).unwrap();
        let mut d = desc();
        d.points[1].clip = Some("lean".into());
        let map = MotionMap::new(&d).unwrap();
        let mut c =
            CameraCorrection::with_clips(map, &rig, |n| (n == "lean").then_some(&clip)).unwrap();
        let sad = rig.channel("sad").unwrap();
        assert!(c.channels().contains(&sad));
        let mut out = vec![0.0; rig.len()];
        c.update(1.5); // loops to 0.5
        c.write_into(CameraAngle::new(45.0, 0.0), &mut out);
        assert!(
            (out[sad.index()] - 0.25).abs() < 1e-6,
            "{}",
            out[sad.index()]
        );
    }

    #[test]
    fn fade_scales_the_correction_and_reaches_zero_behind() {
        let rig = Rig::standard();
        let mut d = desc();
        d.fade = Some(FadeDesc {
            start: 100.0,
            end: 150.0,
        });
        let mut c = CameraCorrection::new(MotionMap::new(&d).unwrap(), &rig).unwrap();
        let mut layer = Layer::new("camera", crate::mix::BlendMode::Additive, rig.len());
        let left = rig.channel("mouthLeft").unwrap();
        assert_eq!(c.apply_into(CameraAngle::new(90.0, 0.0), &mut layer), 1.0);
        assert!((layer.get(left) - 0.4).abs() < 1e-6);
        let f = c.apply_into(CameraAngle::new(125.0, 0.0), &mut layer);
        assert!((f - 0.5).abs() < 1e-9);
        assert!((layer.get(left) - 0.2).abs() < 1e-6);
        assert_eq!(c.apply_into(CameraAngle::new(180.0, 0.0), &mut layer), 0.0);
        assert_eq!(layer.get(left), 0.0);
    }
}
