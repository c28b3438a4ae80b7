//! VRM expressions: the 18 presets, their categories, and override settings.

use serde::{Deserialize, Serialize};

/// The 18 VRM 1.0 expression presets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub enum ExpressionPreset {
    Happy,
    Angry,
    Sad,
    Relaxed,
    Surprised,
    Aa,
    Ih,
    Ou,
    Ee,
    Oh,
    Blink,
    BlinkLeft,
    BlinkRight,
    LookUp,
    LookDown,
    LookLeft,
    LookRight,
    Neutral,
}

const fn names<const N: usize>(presets: [ExpressionPreset; N]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        out[i] = presets[i].name();
        i += 1;
    }
    out
}

impl ExpressionPreset {
    /// All presets in VRM 1.0 specification order.
    pub const ALL: [Self; 18] = [
        Self::Happy,
        Self::Angry,
        Self::Sad,
        Self::Relaxed,
        Self::Surprised,
        Self::Aa,
        Self::Ih,
        Self::Ou,
        Self::Ee,
        Self::Oh,
        Self::Blink,
        Self::BlinkLeft,
        Self::BlinkRight,
        Self::LookUp,
        Self::LookDown,
        Self::LookLeft,
        Self::LookRight,
        Self::Neutral,
    ];

    /// The five vowels in lip-sync order, A I U E O — the channels of the mouth layer.
    pub const VOWELS: [Self; 5] = [Self::Aa, Self::Ih, Self::Ou, Self::Ee, Self::Oh];
    /// The vowels' names (`aa ih ou ee oh`).
    pub const VOWEL_NAMES: [&'static str; 5] = names(Self::VOWELS);
    /// Both eyes, left, right — the channels of the eyes layer.
    pub const BLINKS: [Self; 3] = [Self::Blink, Self::BlinkLeft, Self::BlinkRight];
    /// The blink channels' names.
    pub const BLINK_NAMES: [&'static str; 3] = names(Self::BLINKS);
    /// Look left, right, up, down (expression-type lookAt).
    pub const LOOKS: [Self; 4] = [
        Self::LookLeft,
        Self::LookRight,
        Self::LookUp,
        Self::LookDown,
    ];
    /// The emotion presets.
    pub const EMOTIONS: [Self; 5] = [
        Self::Happy,
        Self::Angry,
        Self::Sad,
        Self::Relaxed,
        Self::Surprised,
    ];
    /// The emotions' names.
    pub const EMOTION_NAMES: [&'static str; 5] = names(Self::EMOTIONS);

    /// The VRM 1.0 name (`"happy"`, `"blinkLeft"`, …).
    pub const fn name(self) -> &'static str {
        match self {
            Self::Happy => "happy",
            Self::Angry => "angry",
            Self::Sad => "sad",
            Self::Relaxed => "relaxed",
            Self::Surprised => "surprised",
            Self::Aa => "aa",
            Self::Ih => "ih",
            Self::Ou => "ou",
            Self::Ee => "ee",
            Self::Oh => "oh",
            Self::Blink => "blink",
            Self::BlinkLeft => "blinkLeft",
            Self::BlinkRight => "blinkRight",
            Self::LookUp => "lookUp",
            Self::LookDown => "lookDown",
            Self::LookLeft => "lookLeft",
            Self::LookRight => "lookRight",
            Self::Neutral => "neutral",
        }
    }

    /// The preset with this VRM 1.0 name, if any (case-sensitive, as in the spec).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The override category this preset belongs to, if any.
    pub const fn category(self) -> Option<ExpressionCategory> {
        match self {
            Self::Aa | Self::Ih | Self::Ou | Self::Ee | Self::Oh => Some(ExpressionCategory::Mouth),
            Self::Blink | Self::BlinkLeft | Self::BlinkRight => Some(ExpressionCategory::Blink),
            Self::LookUp | Self::LookDown | Self::LookLeft | Self::LookRight => {
                Some(ExpressionCategory::LookAt)
            }
            _ => None,
        }
    }
}

/// The three groups of expressions that other expressions can override.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExpressionCategory {
    /// `blink`, `blinkLeft`, `blinkRight`.
    Blink,
    /// `lookUp`, `lookDown`, `lookLeft`, `lookRight` (and bone gaze).
    LookAt,
    /// `aa`, `ih`, `ou`, `ee`, `oh`.
    Mouth,
}

impl ExpressionCategory {
    /// All categories, in the order used by [`OverrideMultipliers`](crate::mix::OverrideMultipliers).
    pub const ALL: [Self; 3] = [Self::Blink, Self::LookAt, Self::Mouth];

    /// Index into per-category arrays.
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// How an expression overrides a category (VRM 1.0 `overrideBlink` etc.).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum OverrideMode {
    /// No effect on the category.
    #[default]
    None,
    /// Any weight > 0 suppresses the category completely.
    Block,
    /// Suppresses the category in proportion to this expression's weight.
    Blend,
}

impl OverrideMode {
    /// The VRM name: `"none"`, `"block"` or `"blend"`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Block => "block",
            Self::Blend => "blend",
        }
    }

    /// How much an expression with this mode and (binarised) weight counts towards
    /// its category's override sum.
    pub fn amount(self, weight: f32) -> f32 {
        match self {
            Self::None => 0.0,
            Self::Block => {
                if weight > 0.0 {
                    1.0
                } else {
                    0.0
                }
            }
            Self::Blend => weight,
        }
    }
}

/// The description of one expression (one rig channel).
///
/// Field names follow VRM 1.0 (`isBinary`, `overrideBlink`, …) so rig files read like VRM.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExpressionDesc {
    /// Preset name (`"happy"`) or custom name (`"mouthSmileLeft"`).
    pub name: String,
    /// Output is rounded: > 0.5 → 1, else 0.
    #[serde(default)]
    pub is_binary: bool,
    /// Effect on the blink category.
    #[serde(default)]
    pub override_blink: OverrideMode,
    /// Effect on the lookAt category.
    #[serde(default)]
    pub override_look_at: OverrideMode,
    /// Effect on the mouth category.
    #[serde(default)]
    pub override_mouth: OverrideMode,
    /// How closed this expression already leaves the eyes at weight 1 (0 open, 1 shut).
    /// Blinks only add what is left (the modulation of docs/design.md § Blink).
    #[serde(default)]
    pub eye_closure: f32,
}

impl ExpressionDesc {
    /// A plain expression: not binary, no overrides.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            is_binary: false,
            override_blink: OverrideMode::None,
            override_look_at: OverrideMode::None,
            override_mouth: OverrideMode::None,
            eye_closure: 0.0,
        }
    }

    /// Builder-style: set `isBinary`.
    pub fn binary(mut self, is_binary: bool) -> Self {
        self.is_binary = is_binary;
        self
    }

    /// Builder-style: set the three override modes (blink, lookAt, mouth).
    pub fn overrides(
        mut self,
        blink: OverrideMode,
        look_at: OverrideMode,
        mouth: OverrideMode,
    ) -> Self {
        self.override_blink = blink;
        self.override_look_at = look_at;
        self.override_mouth = mouth;
        self
    }

    /// Builder-style: set how closed the eyes are at full weight.
    pub fn eye_closure(mut self, closure: f32) -> Self {
        self.eye_closure = closure;
        self
    }

    /// The override mode this expression applies to `category`.
    pub fn override_for(&self, category: ExpressionCategory) -> OverrideMode {
        match category {
            ExpressionCategory::Blink => self.override_blink,
            ExpressionCategory::LookAt => self.override_look_at,
            ExpressionCategory::Mouth => self.override_mouth,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preset_names_round_trip_and_categories() {
        for p in ExpressionPreset::ALL {
            assert_eq!(ExpressionPreset::from_name(p.name()), Some(p));
        }
        assert_eq!(ExpressionPreset::from_name("Happy"), None);
        let mouth = ExpressionPreset::ALL
            .iter()
            .filter(|p| p.category() == Some(ExpressionCategory::Mouth))
            .count();
        assert_eq!(mouth, 5);
        assert_eq!(ExpressionPreset::Neutral.category(), None);
    }

    #[test]
    fn block_counts_one_blend_counts_weight() {
        assert_eq!(OverrideMode::Block.amount(0.01), 1.0);
        assert_eq!(OverrideMode::Block.amount(0.0), 0.0);
        assert_eq!(OverrideMode::Blend.amount(0.3), 0.3);
        assert_eq!(OverrideMode::None.amount(1.0), 0.0);
    }
}
