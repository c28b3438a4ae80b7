//! The one error type of omote-lipsync. The analyser itself cannot fail once built; only
//! profiles (parsing, building), label files, evaluation manifests and calibration cards
//! can be wrong.

/// What went wrong with a profile, a label file or a manifest.
#[derive(Debug, thiserror::Error)]
pub enum LipsyncError {
    /// A profile's JSON could not be parsed or has the wrong shape.
    #[error("{name}: invalid lip sync profile: {reason}")]
    Profile {
        /// Where the profile came from (file name or `built-in`).
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// A label file (`start end class phone`) is malformed.
    #[error("{name}:{line}: invalid label line: {reason}")]
    Labels {
        /// Label file name.
        name: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// An evaluation data set's manifest (`manifest.tsv`) is malformed.
    #[error("{name}: {reason}")]
    Manifest {
        /// Manifest file name.
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// A calibration card (one recording of syllables read with pauses) does not match its
    /// text.
    #[error("{name}: {reason}")]
    Card {
        /// The recording's name.
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// Not enough frames of some class to build or calibrate a profile.
    #[error("not enough voiced frames to calibrate {class}: {frames} (need {need})")]
    TooFewFrames {
        /// The class (`A`..`N`).
        class: char,
        /// Frames found.
        frames: usize,
        /// Frames needed.
        need: usize,
    },
}
