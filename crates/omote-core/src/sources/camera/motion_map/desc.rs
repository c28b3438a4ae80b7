//! The motion map as data: points, centre and fade, as a map file holds them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A motion map as data (what a map file holds).
///
/// In TOML:
///
/// ```toml
/// [center]            # optional, default 0, 0; must lie strictly inside the hull
/// alpha = 0
/// beta = 0
///
/// [fade]              # optional: fade the correction out away from the centre
/// start = 110         # distance from the centre on the (α, β) plane: full below …
/// end = 150           # … and none beyond
///
/// [[point]]
/// name = "left"
/// alpha = 70          # degrees, > 0 toward the avatar's left
/// beta = 0            # degrees, > 0 from above
/// clip = "left-fix"   # optional: a named clip the application supplies
/// [point.expressions] # channel weights added at this angle, each in [-1, 1]
/// mouthLeft = 0.2
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MotionMapDesc {
    /// The point the hull rays start from.
    #[serde(default)]
    pub center: MapCenter,
    /// Optional fade-out of the whole correction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fade: Option<FadeDesc>,
    /// The correction motions and where they sit, in file order (`[[point]]`).
    #[serde(default, rename = "point")]
    pub points: Vec<MotionPointDesc>,
}

impl MotionMapDesc {
    /// A map of these points around the default centre (0, 0) with no fade.
    pub fn new(points: Vec<MotionPointDesc>) -> Self {
        Self {
            points,
            ..Self::default()
        }
    }
}

/// The centre of a motion map (`[center]`), degrees.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MapCenter {
    /// Horizontal angle α.
    #[serde(default)]
    pub alpha: f64,
    /// Vertical angle β.
    #[serde(default)]
    pub beta: f64,
}

/// Fade-out of the whole correction with the distance `r = |(α, β) − centre|` (degrees,
/// on the plane): 1 up to `start`, 0 from `end` on, smoothstep between. With
/// `end ≤ 180 − |centre α|` the correction is 0 all along the cut at α = ±180 (the camera
/// behind the head), so it stays continuous as the camera circles the head.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FadeDesc {
    /// Radius (degrees) where fading starts, in [0, 360).
    pub start: f64,
    /// Radius (degrees) where the correction is gone, in (start, 360].
    pub end: f64,
}

/// One correction motion and its place on the map (`[[point]]`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MotionPointDesc {
    /// A unique, non-empty name (`front`, `left`, `low-left`, …).
    pub name: String,
    /// Horizontal camera angle α in [−180, 180].
    pub alpha: f64,
    /// Vertical camera angle β in [−90, 90].
    pub beta: f64,
    /// Channel weights this motion adds, by channel name, each in [−1, 1].
    #[serde(default)]
    pub expressions: BTreeMap<String, f32>,
    /// A clip, by name, played additively with this motion's weight.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clip: Option<String>,
}

impl MotionPointDesc {
    /// A point with no expressions and no clip.
    pub fn new(name: impl Into<String>, alpha: f64, beta: f64) -> Self {
        Self {
            name: name.into(),
            alpha,
            beta,
            ..Self::default()
        }
    }

    /// Builder-style: add a channel weight.
    pub fn with(mut self, channel: impl Into<String>, weight: f32) -> Self {
        self.expressions.insert(channel.into(), weight);
        self
    }
}
