//! A voice file read for analysis by any command (`lipsync plot`, `calibrate`, `eval`,
//! `retarget --voice`): decoded at the analyser's rate, with the warning for a WAV cut
//! short printed as the batch prints it.

use std::path::Path;

use omote_lipsync::SAMPLE_RATE;

/// `path` at the analyser's rate, warning when it is cut short.
pub fn load_16k(path: &Path) -> Result<Vec<f32>, omote_audio::AudioError> {
    let (audio, warning) = omote_audio::load_mono_warned(path, SAMPLE_RATE)?;
    if let Some(w) = warning {
        crate::output::warn(&w);
    }
    Ok(audio.samples)
}
