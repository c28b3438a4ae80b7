//! A voice file's lip sync as `omote lipsync FILE` reads it — the one owner of when a
//! file is too long to hold, so the CLI and every binding read a long file alike.
//!
//! The whole-file analysis holds the file's samples, every frame's features and the
//! track: about 20 bytes per sample (a 12 h WAV took 6.9 GB; a 37 min one 751 MB). A file
//! longer than [`LONG_VOICE_S`] by its header (or, when the header does not say, larger
//! than [`UNKNOWN_LONG_BYTES`]) is instead decoded a packet at a time
//! ([`omote_audio::AudioStream`]) into the streaming analyser, started from the
//! speaker's lines when there is a speaker (as `omote lipsync --stream` reads a folder):
//! memory is flat in the file's length but for the frames kept.

use std::path::Path;

use omote_lipsync::eval::STREAM_CHUNK;
use omote_lipsync::{
    CepstralMean, FRAME_RATE, HOP, Profile, SAMPLE_RATE, StreamAnalyser, VowelFrame, VowelTrack,
};

use crate::{EmbedError, Speaker, VoiceAnalysis};

/// Files longer than this (seconds) are analysed as a stream: 10 minutes, about 200 MB
/// analysed whole.
pub const LONG_VOICE_S: f64 = 600.0;

/// Smaller files are never streamed (their header is not even read twice): 1 MiB holds
/// half a minute of 16 kHz WAV.
const PROBE_BYTES: u64 = 1 << 20;

/// A file whose header does not state its length is streamed above this size.
pub const UNKNOWN_LONG_BYTES: u64 = 32 << 20;

/// Whether `path` is read as a stream ([`LONG_VOICE_S`]). A file that cannot be opened
/// or probed is not: the whole-file reading reports why.
pub fn is_long_voice_file(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    if !meta.is_file() || meta.len() <= PROBE_BYTES {
        return false;
    }
    match omote_audio::AudioStream::open(path, SAMPLE_RATE) {
        Ok(s) => s
            .declared_duration_s()
            .map_or(meta.len() > UNKNOWN_LONG_BYTES, |d| d > LONG_VOICE_S),
        Err(_) => false,
    }
}

/// What streaming a file read.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamedVoiceFile {
    /// Samples read, at the analyser's rate.
    pub samples: u64,
    /// Frames given, as many as the whole-file track of those samples has.
    pub frames: usize,
    /// The reader's warning (samples that are not numbers, read as silence), if any.
    pub warning: Option<String>,
}

/// Streams `path` through the analyser (with `profile`, started from `others`: the
/// speaker's lines, or [`CepstralMean::default`] for none), giving each 100 fps frame to
/// `each` in order: the frames `StreamAnalyser::analyse_clip` gives for the file's
/// samples, with memory flat in the file's length. `each` may stop it with its error.
pub fn stream_voice_file<E: From<EmbedError>>(
    path: &Path,
    profile: &Profile,
    others: &CepstralMean,
    mut each: impl FnMut(usize, &VowelFrame) -> Result<(), E>,
) -> Result<StreamedVoiceFile, E> {
    let audio_error = |e| crate::analysis::audio_file_error(path, e);
    let mut audio = omote_audio::AudioStream::open(path, SAMPLE_RATE).map_err(audio_error)?;
    let mut analyser = StreamAnalyser::new(profile.clone());
    analyser.start_from_speaker(others);
    let mut samples: Vec<f32> = Vec::with_capacity(1 << 16);
    let mut frames: Vec<VowelFrame> = Vec::with_capacity(64);
    let mut total = 0u64;
    let mut j = 0usize;
    loop {
        samples.clear();
        let more = audio.next_chunk(&mut samples).map_err(audio_error)?;
        total += samples.len() as u64;
        for c in samples.chunks(STREAM_CHUNK) {
            analyser.push(c, &mut frames);
            for f in frames.drain(..) {
                each(j, &f)?;
                j += 1;
            }
        }
        if !more {
            break;
        }
    }
    analyser.finish(&mut frames);
    // As `analyse_clip`: the track has `samples / HOP` frames (the tail's padding ends).
    let n = usize::try_from(total / HOP as u64).unwrap_or(usize::MAX);
    for f in frames.drain(..) {
        if j >= n {
            break;
        }
        each(j, &f)?;
        j += 1;
    }
    if total == 0 {
        return Err(EmbedError::AudioFile(format!("{}: no audio samples", path.display())).into());
    }
    Ok(StreamedVoiceFile {
        samples: total,
        frames: j,
        warning: audio.warning(),
    })
}

/// A voice file's lip sync and how it was read.
#[derive(Clone, Debug, PartialEq)]
pub struct VoiceFileAnalysis {
    /// The lip sync.
    pub analysis: VoiceAnalysis,
    /// The reader's warning (a WAV cut short, samples that are not numbers), if any.
    pub warning: Option<String>,
    /// Whether it was read as a stream ([`LONG_VOICE_S`]): as `--stream` reads, from the
    /// speaker's lines.
    pub streamed: bool,
}

/// A voice file's lip sync (WAV, FLAC, OGG, MP3, by content), as `omote lipsync FILE`
/// gives it: read whole against `speaker`'s lines (its folder mode) when it is short;
/// streamed from the speaker's lines when it is longer than [`LONG_VOICE_S`], so a
/// recording of hours reads in flat memory. `profile`: a lip sync profile's JSON
/// (`None`: the built-in one).
///
/// ```
/// let e = omote_embed::analyse_voice_file(std::path::Path::new("no-such.wav"), None, None);
/// assert!(matches!(e, Err(omote_embed::EmbedError::FileNotFound(_))));
/// ```
pub fn analyse_voice_file(
    path: &Path,
    speaker: Option<&Speaker>,
    profile: Option<&str>,
) -> Result<VoiceFileAnalysis, EmbedError> {
    if !is_long_voice_file(path) {
        let (samples, warning) = crate::load_voice_with_warning(path)?;
        let rate = crate::ANALYSIS_RATE;
        let analysis = match speaker {
            Some(s) => s.analyse_with_profile(&samples, rate, profile)?,
            None => crate::analyse_voice_with_profile(&samples, rate, profile)?,
        };
        return Ok(VoiceFileAnalysis {
            analysis,
            warning,
            streamed: false,
        });
    }
    let profile = crate::voice_profile::parse_voice_profile(profile)?;
    // A long file is never one of the speaker's lines, so all of them are its others.
    let others = speaker.map(|s| *s.lines_total()).unwrap_or_default();
    let mut frames: Vec<VowelFrame> = Vec::new();
    let streamed = stream_voice_file(path, &profile, &others, |_, f| {
        frames.push(*f);
        Ok::<(), EmbedError>(())
    })?;
    let mut track = VowelTrack {
        fps: FRAME_RATE,
        frames,
        voiced_span: None,
        duration_s: streamed.samples as f64 / f64::from(SAMPLE_RATE),
    };
    track.update_voiced_span();
    Ok(VoiceFileAnalysis {
        analysis: VoiceAnalysis::from_track(&track),
        warning: streamed.warning,
        streamed: true,
    })
}
