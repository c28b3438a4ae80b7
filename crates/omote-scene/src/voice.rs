//! Voice files → lip sync: an audio file's features or track (the track JSON
//! `omote lipsync --format json` wrote is read by `omote_lipsync::export::read_json`).

use std::path::Path;

use omote_audio::AudioError;
use omote_lipsync::{Analyser, ClipFeatures, SAMPLE_RATE, VowelTrack};

use crate::files::SceneFiles;

/// Lip sync of an audio file (decoded, mixed to mono, resampled to the analyser's rate).
pub fn analyse_file(path: &Path, analyser: &mut Analyser) -> Result<VowelTrack, AudioError> {
    let audio = omote_audio::load_mono(path, SAMPLE_RATE)?;
    Ok(analyser.analyse(&audio.samples))
}

/// An audio file read for a scene: its features for [`Analyser::classify`], its length
/// in samples (the samples [`omote_audio::load_mono`] gives, to the bit), and the
/// warning for a WAV cut short or holding NaN samples ([`omote_audio::Loader::note`]).
pub(crate) struct VoiceFile {
    pub features: ClipFeatures,
    pub len: usize,
    pub truncated: Option<String>,
}

/// An audio file read from `files` as a [`VoiceFile`].
pub(crate) fn voice_features(
    files: &dyn SceneFiles,
    path: &Path,
    analyser: &mut Analyser,
) -> Result<VoiceFile, AudioError> {
    let bytes = files.read(path).map_err(|source| AudioError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let mut loader = omote_audio::Loader::new(SAMPLE_RATE).map_err(|e| e.with_path(path))?;
    let samples = loader.load_bytes(&bytes, path)?;
    if samples.is_empty() {
        return Err(AudioError::NoSamples {
            path: path.to_path_buf(),
        });
    }
    let (features, len) = (analyser.features(samples), samples.len());
    Ok(VoiceFile {
        features,
        len,
        truncated: loader.note(),
    })
}
