//! Why a motion map could not be built, naming the field in map-file terms.

use thiserror::Error;

use super::MIN_POINT_DISTANCE_DEG;

/// Why a motion map could not be built: the field at fault in map-file terms
/// (`point[3].alpha`, `center`, …) and what is wrong with it.
#[derive(Clone, Debug, Error, PartialEq)]
#[error("{field}: {kind}")]
pub struct MotionMapError {
    /// Where: `point[3].alpha`, `point[1].expressions.happy`, `center`, `fade.end`, `point`.
    pub field: String,
    /// What.
    pub kind: MotionMapErrorKind,
}

/// What is wrong in a [`MotionMapError`].
#[derive(Clone, Debug, Error, PartialEq)]
#[non_exhaustive]
pub enum MotionMapErrorKind {
    /// Fewer than three points.
    #[error("a motion map needs at least 3 points, found {count}")]
    TooFewPoints {
        /// How many were given.
        count: usize,
    },
    /// More than [`MAX_MOTION_POINTS`](super::MAX_MOTION_POINTS).
    #[error("{count} points; at most {max} are supported")]
    TooManyPoints {
        /// How many were given.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// NaN or infinite.
    #[error("must be finite")]
    NonFinite,
    /// Outside its allowed interval.
    #[error("{value} is outside [{min}, {max}]")]
    OutOfRange {
        /// The value given.
        value: f64,
        /// Lower bound.
        min: f64,
        /// Upper bound.
        max: f64,
    },
    /// A point without a name.
    #[error("must not be empty")]
    EmptyName,
    /// Two points share a name.
    #[error("`{name}` is already the name of point[{first}]")]
    DuplicateName {
        /// The name.
        name: String,
        /// The earlier point with it.
        first: usize,
    },
    /// Two points at the same place.
    #[error(
        "({alpha}, {beta}) is the position of point[{first}] `{first_name}` (points must be at least {MIN_POINT_DISTANCE_DEG}° apart)"
    )]
    DuplicatePosition {
        /// α of this point.
        alpha: f64,
        /// β of this point.
        beta: f64,
        /// The earlier point there.
        first: usize,
        /// Its name.
        first_name: String,
    },
    /// All points on one line.
    #[error("all points lie on one line; at least three must not be collinear")]
    Collinear,
    /// The centre is on or outside the hull.
    #[error("({alpha}, {beta}) is not strictly inside the convex hull of the points")]
    CenterOutsideHull {
        /// α of the centre.
        alpha: f64,
        /// β of the centre.
        beta: f64,
    },
    /// `fade.end` not after `fade.start`.
    #[error("end ({end}) must be greater than start ({start})")]
    FadeOrder {
        /// `fade.start`.
        start: f64,
        /// `fade.end`.
        end: f64,
    },
    /// An expression name the rig lacks.
    #[error("no channel named `{name}` in the rig")]
    UnknownChannel {
        /// The name.
        name: String,
    },
    /// A map for any avatar (the built-in one) found none of its channels in the rig.
    #[error(
        "the avatar has none of the channels the map drives ({names}): an avatar without \
         them (a VRM without ARKit blendshapes) needs a motion map of its own expressions"
    )]
    NoChannelInRig {
        /// The channels the map drives, comma-separated.
        names: String,
    },
    /// A clip name nobody supplied.
    #[error("no clip named `{name}`")]
    UnknownClip {
        /// The name.
        name: String,
    },
    /// The triangulation came out unusable (points nearly on one line or nearly equal).
    #[error("the points cannot be triangulated: {reason}")]
    Degenerate {
        /// Details.
        reason: String,
    },
}

impl MotionMapError {
    pub(super) fn new(field: impl Into<String>, kind: MotionMapErrorKind) -> Self {
        Self {
            field: field.into(),
            kind,
        }
    }
}
