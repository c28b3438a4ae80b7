//! What a character's eyes are doing: the mode that sets blink rates and saccade holds.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// What a character is doing, as far as its eyes are concerned. Blink rates and the
/// holds between saccades differ per mode (people blink more while talking, and hold
/// their gaze longer while listening).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum EyeMode {
    /// Nobody is talking: frequent small eye movements, a resting blink rate.
    #[default]
    Idle,
    /// The character speaks: blinks come faster, gaze shifts every few seconds.
    Talking,
    /// The character listens: fewer blinks, long holds on the speaker.
    Listening,
    /// The character concentrates (reads, aims, watches): the fewest blinks.
    Focused,
}

impl EyeMode {
    /// All modes.
    pub const ALL: [Self; 4] = [Self::Idle, Self::Talking, Self::Listening, Self::Focused];

    /// The name used in files and on the command line (`"idle"`, `"talking"`, …).
    pub const fn name(self) -> &'static str {
        match self {
            Self::Idle => "idle",
            Self::Talking => "talking",
            Self::Listening => "listening",
            Self::Focused => "focused",
        }
    }

    /// The mode with this name, if any.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.name() == name)
    }
}

impl fmt::Display for EyeMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The name given is not an [`EyeMode`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown eye mode `{0}` (known: idle, talking, listening, focused)")]
pub struct UnknownEyeMode(pub String);

impl FromStr for EyeMode {
    type Err = UnknownEyeMode;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::from_name(s).ok_or_else(|| UnknownEyeMode(s.to_string()))
    }
}

/// One value per [`EyeMode`]. In files all four are given:
/// `{"idle": 3.5, "talking": 2.3, "listening": 4.0, "focused": 6.0}`.
///
/// ```
/// use omote_core::{EyeMode, eyes::PerMode};
/// let m = PerMode::new(3.5, 2.3, 4.0, 6.0);
/// assert_eq!(m.get(EyeMode::Talking), 2.3);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PerMode<T> {
    /// Value in [`EyeMode::Idle`].
    pub idle: T,
    /// Value in [`EyeMode::Talking`].
    pub talking: T,
    /// Value in [`EyeMode::Listening`].
    pub listening: T,
    /// Value in [`EyeMode::Focused`].
    pub focused: T,
}

impl<T: Copy> PerMode<T> {
    /// Values in [`EyeMode::ALL`] order.
    pub const fn new(idle: T, talking: T, listening: T, focused: T) -> Self {
        Self {
            idle,
            talking,
            listening,
            focused,
        }
    }

    /// The value for `mode`.
    pub fn get(&self, mode: EyeMode) -> T {
        match mode {
            EyeMode::Idle => self.idle,
            EyeMode::Talking => self.talking,
            EyeMode::Listening => self.listening,
            EyeMode::Focused => self.focused,
        }
    }

    /// The value for `mode`, to change it.
    pub fn get_mut(&mut self, mode: EyeMode) -> &mut T {
        match mode {
            EyeMode::Idle => &mut self.idle,
            EyeMode::Talking => &mut self.talking,
            EyeMode::Listening => &mut self.listening,
            EyeMode::Focused => &mut self.focused,
        }
    }

    /// `(mode, value)` pairs in [`EyeMode::ALL`] order.
    pub fn iter(&self) -> impl Iterator<Item = (EyeMode, T)> + '_ {
        EyeMode::ALL.into_iter().map(|m| (m, self.get(m)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for m in EyeMode::ALL {
            assert_eq!(m.name().parse::<EyeMode>(), Ok(m));
            assert_eq!(serde_json::to_string(&m).unwrap(), format!("\"{m}\""));
        }
        assert!("Idle".parse::<EyeMode>().is_err());
    }

    #[test]
    fn per_mode_reads_all_four_and_rejects_others() {
        let m: PerMode<f32> =
            serde_json::from_str(r#"{"idle":1,"talking":2,"listening":3,"focused":4}"#).unwrap();
        let got: Vec<f32> = m.iter().map(|(_, v)| v).collect();
        assert_eq!(got, [1.0, 2.0, 3.0, 4.0]);
        assert!(serde_json::from_str::<PerMode<f32>>(r#"{"idle":1,"talking":2}"#).is_err());
    }
}
