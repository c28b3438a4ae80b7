//! Lip sync profiles for one voice: the built-in one, or one calibrated to a speaker from
//! a calibration card they read once (`omote lipsync calibrate --card`, in every binding).
//! A profile travels as its JSON text, which a host keeps with the user's settings and
//! hands to [`crate::VoiceStream::with_profile`] or [`crate::analyse_voice_with_profile`].

use omote_lipsync::Profile;
use omote_lipsync::syllables::{DEFAULT_CARD, calibrated_on_card};

use crate::EmbedError;
use crate::analysis::analyser_input;

/// The calibration card a speaker reads in one take, a short pause after each syllable
/// (30 syllables, six per vowel).
pub const VOICE_CARD: &str = DEFAULT_CARD;

/// The built-in lip sync profile as JSON: what every call uses unless given another, and
/// the starting point of a calibration.
pub fn builtin_voice_profile() -> String {
    Profile::builtin().to_json()
}

/// A lip sync profile calibrated to the speaker of `samples` (mono, at `sample_rate` Hz):
/// one take of them reading a calibration card one syllable at a time, a short pause after
/// each. `card` is its text (syllables separated by spaces, each with one vowel in a
/// five-vowel spelling; `None`: [`VOICE_CARD`]); `base` the profile to calibrate (`None`:
/// the built-in one). Returns the calibrated profile's JSON. A take whose syllables are
/// not heard one by one as the card has them is refused, with both counts.
///
/// ```
/// let silence = vec![0.0f32; 48_000];
/// let e = omote_embed::calibrate_voice_from_card(&silence, 48_000.0, Some("ka ki"), None);
/// assert!(e.unwrap_err().to_string().contains("heard 0 syllables, the card has 2"));
/// ```
pub fn calibrate_voice_from_card(
    samples: &[f32],
    sample_rate: f64,
    card: Option<&str>,
    base: Option<&str>,
) -> Result<String, EmbedError> {
    let samples = analyser_input(samples, sample_rate)?;
    let base = parse_voice_profile(base)?;
    calibrated_on_card(&base, &samples, card.unwrap_or(VOICE_CARD), "the card take")
        .map(|p| p.to_json())
        .map_err(|e| EmbedError::VoiceProfile(e.to_string()))
}

/// A profile from its JSON text, checked; `None`: the built-in one.
pub(crate) fn parse_voice_profile(json: Option<&str>) -> Result<Profile, EmbedError> {
    match json {
        None => Ok(Profile::builtin()),
        // A path where the text belongs (the CLI's `--profile` takes a file): said so.
        Some(json) if !json.trim_start().starts_with(['{', '[']) => Err(EmbedError::VoiceProfile(
            "the voice profile is not a profile's JSON text: give the text (a file's contents), not its path".into(),
        )),
        Some(json) => Profile::from_json(json, "the voice profile")
            .map_err(|e| EmbedError::VoiceProfile(e.to_string())),
    }
}
