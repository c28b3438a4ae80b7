//! A voice file's lip sync through the embedding API is `omote lipsync FILE`'s: whole
//! when short, streamed (from the speaker's lines) when longer than `LONG_VOICE_S` — the
//! one rule the CLI and every binding share.

use std::path::{Path, PathBuf};

use omote_embed::{
    EmbedError, LONG_VOICE_S, Speaker, VoiceAnalysis, analyse_voice, analyse_voice_file,
    is_long_voice_file, load_voice, stream_voice_file,
};
use omote_lipsync::{Analyser, CepstralMean, Profile, StreamAnalyser};

const RATE: u32 = 16_000;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "omote-embed-voice-file-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `seconds` of a buzz with pauses (its period `cycle_s`) written to `path` as 16-bit
/// WAV; the samples as the decoder gives them.
fn voice(path: &Path, seconds: f64, cycle_s: f32) -> Vec<f32> {
    let samples = omote_testdata::repeated_buzz(RATE, seconds, cycle_s);
    std::fs::write(path, omote_testdata::wav16(&samples, RATE, 1)).unwrap();
    samples.iter().map(|&s| f32::from(s) / 32_768.0).collect()
}

#[test]
fn a_short_file_is_read_whole_as_its_samples_are() {
    let dir = scratch("short");
    let (a, b) = (dir.join("a.wav"), dir.join("b.wav"));
    voice(&a, 4.0, 3.0);
    voice(&b, 5.0, 2.5);
    assert!(!is_long_voice_file(&a));
    let alone = analyse_voice_file(&a, None, None).unwrap();
    assert!(!alone.streamed && alone.warning.is_none());
    let samples = load_voice(&a).unwrap();
    assert_eq!(alone.analysis, analyse_voice(&samples, 16_000.0).unwrap());
    let mut speaker = Speaker::new();
    speaker.add_line(&samples, 16_000.0).unwrap();
    speaker
        .add_line(&load_voice(&b).unwrap(), 16_000.0)
        .unwrap();
    let read = analyse_voice_file(&a, Some(&speaker), None).unwrap();
    assert_eq!(
        read.analysis,
        speaker.analyse(&samples, 16_000.0).unwrap(),
        "read against the speaker's other line"
    );
    assert_ne!(
        read.analysis, alone.analysis,
        "the speaker changes the reading"
    );
}

/// The CLI's `a_long_file_is_analysed_as_a_stream_with_the_streaming_result` checks
/// that `omote lipsync` writes this same reading.
#[test]
fn a_long_file_is_streamed_from_the_speakers_lines() {
    let dir = scratch("long");
    let long = dir.join("long.wav");
    let samples = voice(&long, LONG_VOICE_S + 30.0, 3.0);
    assert!(is_long_voice_file(&long));
    let profile = Profile::builtin();
    let streamed = |others: Option<&CepstralMean>| {
        let mut s = StreamAnalyser::new(profile.clone());
        if let Some(o) = others {
            s.start_from_speaker(o);
        }
        VoiceAnalysis::from_track(&s.analyse_clip(&samples, 160))
    };

    let alone = analyse_voice_file(&long, None, None).unwrap();
    assert!(alone.streamed && alone.warning.is_none());
    assert_eq!(alone.analysis, streamed(None));
    assert_eq!(alone.analysis.silent.len(), samples.len() / 160);
    let (start, end) = (alone.analysis.voiced_start, alone.analysis.voiced_end);
    assert!(
        start.unwrap() < 1.0 && end.unwrap() > LONG_VOICE_S,
        "{start:?} {end:?}"
    );

    // With a speaker: started from all its lines (a long file is never one of them).
    let line = dir.join("line.wav");
    let line_samples = voice(&line, 6.0, 2.0);
    let mut speaker = Speaker::new();
    speaker.add_line(&line_samples, 16_000.0).unwrap();
    let mut voice_lines = omote_lipsync::Speaker::new();
    voice_lines.add(&Analyser::new(profile.clone()).features(&line_samples));
    let read = analyse_voice_file(&long, Some(&speaker), None).unwrap();
    assert_eq!(read.analysis, streamed(Some(voice_lines.total())));

    // A recording cut short whose header still says it is long: streamed by the header,
    // read as far as it goes, and the reading says so (as the whole reading does).
    let bytes = std::fs::read(&long).unwrap();
    let cut = dir.join("cut.wav");
    std::fs::write(&cut, &bytes[..bytes.len() - 640_000]).unwrap();
    let read = analyse_voice_file(&cut, None, None).unwrap();
    assert!(read.streamed);
    let w = read.warning.unwrap_or_default();
    assert!(w.contains("cut.wav: ends 640000 bytes early"), "{w}");
    assert_eq!(read.analysis.silent.len(), (samples.len() - 320_000) / 160);

    // A caller's frame sink can stop it with its own error, after the frames it took.
    let mut taken = 0;
    let stopped = stream_voice_file(&long, &profile, &CepstralMean::default(), |j, _| {
        taken = j + 1;
        if j == 99 {
            Err(EmbedError::Argument("enough".into()))
        } else {
            Ok(())
        }
    });
    assert_eq!(stopped, Err(EmbedError::Argument("enough".into())));
    assert_eq!(taken, 100);
}

#[test]
fn a_file_that_is_not_audio_is_named_long_or_short() {
    let dir = scratch("bad");
    // Over the size a header is probed at, and not audio: the whole reading says why.
    let noise = dir.join("notes.wav");
    std::fs::write(&noise, vec![b'x'; 3 << 20]).unwrap();
    assert!(!is_long_voice_file(&noise));
    let e = analyse_voice_file(&noise, None, None).unwrap_err();
    assert!(matches!(e, EmbedError::AudioFile(_)), "{e:?}");
    assert!(e.to_string().contains("notes.wav"), "{e}");
    let missing = dir.join("gone.wav");
    let e = analyse_voice_file(&missing, None, None).unwrap_err();
    assert!(matches!(e, EmbedError::FileNotFound(_)), "{e:?}");
    let e = stream_voice_file(
        &missing,
        &Profile::builtin(),
        &CepstralMean::default(),
        |_, _| Ok::<(), EmbedError>(()),
    )
    .unwrap_err();
    assert!(
        matches!(e, EmbedError::FileNotFound(ref m) if m.contains("gone.wav")),
        "{e:?}"
    );
    // A profile that is not one is refused before a long file is read.
    let long = dir.join("long.wav");
    voice(&long, LONG_VOICE_S + 1.0, 3.0);
    let e = analyse_voice_file(&long, None, Some("{}")).unwrap_err();
    assert!(matches!(e, EmbedError::VoiceProfile(_)), "{e:?}");
}
