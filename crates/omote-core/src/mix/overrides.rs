//! The VRM 1.0 expression override rules, applied exactly once per frame.
//!
//! For each category (blink, lookAt, mouth) the expressions *outside* it that override it
//! are summed: `block` counts 1 when its weight > 0, `blend` counts its weight. The
//! category's members are multiplied by `1 − clamp01(sum)`. Binary expressions are
//! rounded first (> 0.5 → 1), the rounded value drives the sums, and a binary expression
//! whose multiplier is below 1 goes to 0. Everything ends in [0, 1].

use crate::rig::OverridePlan;
use crate::sanitize::clamp01;

/// The multipliers each category received this frame (1 = not overridden).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OverrideMultipliers {
    /// Applied to blink, blinkLeft, blinkRight.
    pub blink: f32,
    /// Applied to the look* expressions and to bone gaze.
    pub look_at: f32,
    /// Applied to aa, ih, ou, ee, oh.
    pub mouth: f32,
}

impl Default for OverrideMultipliers {
    fn default() -> Self {
        Self {
            blink: 1.0,
            look_at: 1.0,
            mouth: 1.0,
        }
    }
}

impl OverrideMultipliers {
    /// Multipliers as an array in [`ExpressionCategory`](crate::rig::ExpressionCategory) order.
    pub fn as_array(&self) -> [f32; 3] {
        [self.blink, self.look_at, self.mouth]
    }
}

/// Apply the override rules in place to one frame of raw weights.
pub(crate) fn apply_overrides(plan: &OverridePlan, weights: &mut [f32]) -> OverrideMultipliers {
    clamp_weights(weights);
    apply_overrides_clamped(plan, weights)
}

/// Rule 1 alone: every weight into [0, 1], NaN → 0.
pub(crate) fn clamp_weights(weights: &mut [f32]) {
    for w in weights.iter_mut() {
        *w = clamp01(*w);
    }
}

/// The rules after rule 1, for weights [`clamp_weights`] has already clamped (a face
/// keeps that clamped frame as the player input before the rest runs).
pub(crate) fn apply_overrides_clamped(
    plan: &OverridePlan,
    weights: &mut [f32],
) -> OverrideMultipliers {
    for &i in &plan.binary {
        let w = &mut weights[i as usize];
        *w = if *w > 0.5 { 1.0 } else { 0.0 };
    }
    let mut mult = [1.0f32; 3];
    for (cat, m) in mult.iter_mut().enumerate() {
        let sum: f32 = plan.overriders[cat]
            .iter()
            .map(|&(i, mode)| mode.amount(weights[i as usize]))
            .sum();
        *m = 1.0 - clamp01(sum);
    }
    for (cat, &m) in mult.iter().enumerate() {
        if m >= 1.0 {
            continue;
        }
        for &i in &plan.members[cat] {
            weights[i as usize] *= m;
        }
    }
    // Binary members of an overridden category drop to 0 (after the pass above, so a
    // binary overrider's own value is what counted in the sums).
    for &i in &plan.binary {
        let cat = plan.category_of[i as usize];
        if cat != u8::MAX && mult[cat as usize] < 1.0 {
            weights[i as usize] = 0.0;
        }
    }
    OverrideMultipliers {
        blink: mult[0],
        look_at: mult[1],
        mouth: mult[2],
    }
}
