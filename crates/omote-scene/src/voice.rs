//! Voice files → lip sync: an audio file's features or track (the track JSON
//! `omote lipsync --format json` wrote is read by `omote_lipsync::export::read_json`).

use std::path::Path;

use omote_audio::AudioError;
use omote_lipsync::{Analyser, ClipFeatures, SAMPLE_RATE, VowelTrack};

/// Lip sync of an audio file (decoded, mixed to mono, resampled to the analyser's rate).
pub fn analyse_file(path: &Path, analyser: &mut Analyser) -> Result<VowelTrack, AudioError> {
    let audio = omote_audio::load_mono(path, SAMPLE_RATE)?;
    Ok(analyser.analyse(&audio.samples))
}

/// Features of an audio file for [`Analyser::classify`], and its length in samples.
pub fn voice_features(
    path: &Path,
    analyser: &mut Analyser,
) -> Result<(ClipFeatures, usize), AudioError> {
    let audio = omote_audio::load_mono(path, SAMPLE_RATE)?;
    Ok((analyser.features(&audio.samples), audio.samples.len()))
}
