//! The rig: the channels a face has, with names interned to indices once.

pub(crate) mod arkit;
pub(crate) mod expression;

pub use crate::error::RigError;
pub use crate::look_at::{
    EyeAngles, LookAtDesc, LookAtRangeMap, LookAtType, LookWeights, eye_rotation,
};
pub use arkit::{ARKIT_52, arkit_index, arkit_index_any_spelling, is_arkit_name};
pub use expression::{ExpressionCategory, ExpressionDesc, ExpressionPreset, OverrideMode};

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

/// Index of a channel (an expression) in a [`Rig`]; frames are flat arrays indexed by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ChannelId(pub(crate) u16);

impl ChannelId {
    /// As an array index.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// The most channels a rig may have (indices are `u16`).
pub const MAX_CHANNELS: usize = 4096;

/// A rig described as data (what a rig file holds).
///
/// ```
/// use omote_core::{Rig, RigDesc};
/// let desc: RigDesc = serde_json::from_str(r#"{
///     "name": "demo", "presets": true,
///     "expressions": [{"name": "happy", "overrideBlink": "blend"}, {"name": "wink"}]
/// }"#).unwrap();
/// let rig = Rig::from_desc(&desc).unwrap();
/// assert_eq!(rig.len(), 19); // 18 presets + "wink"
/// assert!(rig.channel("wink").is_some());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RigDesc {
    /// A display name.
    #[serde(default)]
    pub name: String,
    /// Add the 18 VRM presets (plain, no overrides) before `expressions`.
    #[serde(default)]
    pub presets: bool,
    /// Add the 52 ARKit blendshape names as custom channels before `expressions`.
    #[serde(default)]
    pub arkit: bool,
    /// Expressions in channel order; an entry whose name was added by `presets` or
    /// `arkit` replaces that entry's settings instead of adding a channel.
    #[serde(default)]
    pub expressions: Vec<ExpressionDesc>,
    /// Gaze settings; bone gaze with 90° → 10° maps when absent.
    #[serde(default)]
    pub look_at: Option<LookAtDesc>,
}

/// What the runtime knows about one channel.
#[derive(Clone, Debug, PartialEq)]
pub struct ChannelInfo {
    /// The expression's settings.
    pub desc: ExpressionDesc,
    /// The preset this channel is, if any.
    pub preset: Option<ExpressionPreset>,
}

impl ChannelInfo {
    /// The override category the channel belongs to (presets only).
    pub fn category(&self) -> Option<ExpressionCategory> {
        self.preset.and_then(ExpressionPreset::category)
    }
}

/// A face rig: channels (expressions) and gaze settings. Immutable once built; share it
/// between characters with `Arc`.
#[derive(Clone, Debug)]
pub struct Rig {
    name: String,
    channels: Vec<ChannelInfo>,
    by_name: HashMap<String, ChannelId>,
    presets: [Option<ChannelId>; 18],
    look_at: LookAtDesc,
    plan: OverridePlan,
}

/// Precomputed index lists so the per-frame override pass touches only what matters.
#[derive(Clone, Debug, Default)]
pub(crate) struct OverridePlan {
    /// Per category: channels outside it that override it, with their mode.
    pub overriders: [Vec<(u16, OverrideMode)>; 3],
    /// Per category: its member channels.
    pub members: [Vec<u16>; 3],
    /// Per channel: the category index it belongs to, or `u8::MAX`.
    pub category_of: Vec<u8>,
    /// Channels with `isBinary`.
    pub binary: Vec<u16>,
}

impl Rig {
    /// Build a rig from expression descriptions and gaze settings.
    pub fn new(
        name: impl Into<String>,
        expressions: Vec<ExpressionDesc>,
        look_at: LookAtDesc,
    ) -> Result<Self, RigError> {
        if expressions.len() > MAX_CHANNELS {
            return Err(RigError::TooManyChannels {
                count: expressions.len(),
                max: MAX_CHANNELS,
            });
        }
        for (field, map) in look_at.range_maps() {
            if !map.is_valid() {
                return Err(RigError::InvalidRangeMap {
                    field,
                    input_max_value: map.input_max_value,
                    output_scale: map.output_scale,
                });
            }
        }
        if !look_at.offset_from_head_bone.iter().all(|v| v.is_finite()) {
            return Err(RigError::NonFinite {
                field: "lookAt.offsetFromHeadBone".into(),
            });
        }
        let mut by_name = HashMap::with_capacity(expressions.len());
        let mut presets = [None; 18];
        let mut channels = Vec::with_capacity(expressions.len());
        for (i, desc) in expressions.into_iter().enumerate() {
            if desc.name.is_empty() {
                return Err(RigError::EmptyName { index: i });
            }
            if !(desc.eye_closure.is_finite() && (0.0..=1.0).contains(&desc.eye_closure)) {
                return Err(RigError::OutOfRange {
                    field: format!("expressions[{i}].eyeClosure"),
                    value: desc.eye_closure,
                });
            }
            let id = ChannelId(i as u16);
            if by_name.insert(desc.name.clone(), id).is_some() {
                return Err(RigError::DuplicateName { name: desc.name });
            }
            let preset = ExpressionPreset::from_name(&desc.name);
            if let Some(p) = preset {
                presets[p as usize] = Some(id);
            }
            channels.push(ChannelInfo { desc, preset });
        }
        let plan = OverridePlan::new(&channels);
        Ok(Self {
            name: name.into(),
            channels,
            by_name,
            presets,
            look_at,
            plan,
        })
    }

    /// Build a rig from its data description (see [`RigDesc`]).
    pub fn from_desc(desc: &RigDesc) -> Result<Self, RigError> {
        let mut list: Vec<ExpressionDesc> = Vec::new();
        if desc.presets {
            list.extend(
                ExpressionPreset::ALL
                    .iter()
                    .map(|p| ExpressionDesc::new(p.name())),
            );
        }
        if desc.arkit {
            list.extend(ARKIT_52.iter().map(|n| ExpressionDesc::new(*n)));
        }
        let implicit = list.len();
        for e in &desc.expressions {
            match list[..implicit].iter_mut().find(|x| x.name == e.name) {
                Some(slot) => *slot = e.clone(),
                None => list.push(e.clone()),
            }
        }
        Self::new(desc.name.clone(), list, desc.look_at.unwrap_or_default())
    }

    /// The 18 VRM presets plus the 52 ARKit channels with typical VRM settings: the
    /// emotions blend out blink, `blink` is the only thing that closes the eyes.
    /// This is the built-in demo character.
    pub fn standard() -> Self {
        let mut list: Vec<ExpressionDesc> = ExpressionPreset::ALL
            .iter()
            .map(|p| ExpressionDesc::new(p.name()))
            .collect();
        for e in &mut list {
            match e.name.as_str() {
                "happy" => {
                    e.override_blink = OverrideMode::Blend;
                    e.eye_closure = 0.3;
                }
                "angry" | "sad" => e.override_blink = OverrideMode::Blend,
                "relaxed" => {
                    e.override_blink = OverrideMode::Blend;
                    e.eye_closure = 0.5;
                }
                "surprised" => {
                    e.override_blink = OverrideMode::Blend;
                    e.override_mouth = OverrideMode::Blend;
                }
                _ => {}
            }
        }
        list.extend(ARKIT_52.iter().map(|n| ExpressionDesc::new(*n)));
        Self::new("standard", list, LookAtDesc::default_bone()).expect("built-in rig is valid")
    }

    /// Display name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Number of channels.
    pub fn len(&self) -> usize {
        self.channels.len()
    }

    /// Whether the rig has no channels.
    pub fn is_empty(&self) -> bool {
        self.channels.is_empty()
    }

    /// The channel with this name.
    pub fn channel(&self, name: &str) -> Option<ChannelId> {
        self.by_name.get(name).copied()
    }

    /// The channel of a preset, if the rig has it.
    pub fn preset(&self, preset: ExpressionPreset) -> Option<ChannelId> {
        self.presets[preset as usize]
    }

    /// Several presets at once, e.g. `rig.presets(ExpressionPreset::VOWELS)`.
    pub fn presets<const N: usize>(
        &self,
        presets: [ExpressionPreset; N],
    ) -> [Option<ChannelId>; N] {
        presets.map(|p| self.preset(p))
    }

    /// Name of a channel.
    pub fn channel_name(&self, id: ChannelId) -> &str {
        &self.channels[id.index()].desc.name
    }

    /// Everything about a channel.
    pub fn info(&self, id: ChannelId) -> &ChannelInfo {
        &self.channels[id.index()]
    }

    /// All channels in index order.
    pub fn channels(&self) -> impl ExactSizeIterator<Item = (ChannelId, &ChannelInfo)> {
        self.channels
            .iter()
            .enumerate()
            .map(|(i, c)| (ChannelId(i as u16), c))
    }

    /// Gaze settings.
    pub fn look_at(&self) -> &LookAtDesc {
        &self.look_at
    }

    pub(crate) fn plan(&self) -> &OverridePlan {
        &self.plan
    }

    /// The rig as data, e.g. to save it as a rig file.
    pub fn to_desc(&self) -> RigDesc {
        RigDesc {
            name: self.name.clone(),
            presets: false,
            arkit: false,
            expressions: self.channels.iter().map(|c| c.desc.clone()).collect(),
            look_at: Some(self.look_at),
        }
    }
}

impl OverridePlan {
    fn new(channels: &[ChannelInfo]) -> Self {
        let mut plan = Self {
            category_of: vec![u8::MAX; channels.len()],
            ..Self::default()
        };
        for (i, c) in channels.iter().enumerate() {
            let own = c.category();
            if let Some(cat) = own {
                plan.members[cat.index()].push(i as u16);
                plan.category_of[i] = cat.index() as u8;
            }
            for cat in ExpressionCategory::ALL {
                let mode = c.desc.override_for(cat);
                // An expression never overrides its own category.
                if mode != OverrideMode::None && own != Some(cat) {
                    plan.overriders[cat.index()].push((i as u16, mode));
                }
            }
            if c.desc.is_binary {
                plan.binary.push(i as u16);
            }
        }
        plan
    }
}

impl Rig {
    /// Apply the VRM 1.0 override rules in place to one frame of weights (one per
    /// channel), clamping everything to [0, 1]. See [`crate::mix::overrides`].
    ///
    /// ```
    /// use omote_core::{Rig, rig::{ExpressionDesc, LookAtDesc, OverrideMode}};
    /// let rig = Rig::new("x", vec![
    ///     ExpressionDesc::new("happy").overrides(OverrideMode::Blend, OverrideMode::None, OverrideMode::None),
    ///     ExpressionDesc::new("blink"),
    /// ], LookAtDesc::default()).unwrap();
    /// let mut w = [0.25, 1.0];
    /// let m = rig.apply_overrides(&mut w);
    /// assert_eq!((w[1], m.blink), (0.75, 0.75));
    /// ```
    pub fn apply_overrides(&self, weights: &mut [f32]) -> crate::mix::OverrideMultipliers {
        assert_eq!(weights.len(), self.len(), "one weight per channel");
        crate::mix::overrides::apply_overrides(&self.plan, weights)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_rig_has_presets_and_arkit() {
        let rig = Rig::standard();
        assert_eq!(rig.len(), 70);
        for p in ExpressionPreset::ALL {
            let id = rig.preset(p).unwrap();
            assert_eq!(rig.channel_name(id), p.name());
        }
        assert_eq!(rig.channel("jawOpen"), Some(ChannelId(18 + 17)));
    }

    #[test]
    fn duplicate_and_empty_names_are_rejected() {
        let e = Rig::new(
            "x",
            vec![ExpressionDesc::new("a"), ExpressionDesc::new("a")],
            LookAtDesc::default(),
        );
        assert!(matches!(e, Err(RigError::DuplicateName { .. })));
        let e = Rig::new("x", vec![ExpressionDesc::new("")], LookAtDesc::default());
        assert!(matches!(e, Err(RigError::EmptyName { index: 0 })));
    }

    #[test]
    fn desc_entries_replace_implicit_presets() {
        let desc = RigDesc {
            presets: true,
            expressions: vec![ExpressionDesc::new("blink").binary(true)],
            ..RigDesc::default()
        };
        let rig = Rig::from_desc(&desc).unwrap();
        assert_eq!(rig.len(), 18);
        assert!(
            rig.info(rig.preset(ExpressionPreset::Blink).unwrap())
                .desc
                .is_binary
        );
    }

    #[test]
    fn own_category_is_never_an_overrider() {
        let rig = Rig::new(
            "x",
            vec![
                ExpressionDesc::new("blink").overrides(
                    OverrideMode::Block,
                    OverrideMode::None,
                    OverrideMode::None,
                ),
                ExpressionDesc::new("happy").overrides(
                    OverrideMode::Blend,
                    OverrideMode::None,
                    OverrideMode::None,
                ),
            ],
            LookAtDesc::default(),
        )
        .unwrap();
        assert_eq!(rig.plan().overriders[0], vec![(1, OverrideMode::Blend)]);
    }
}
