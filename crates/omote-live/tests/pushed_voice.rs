//! The pushed voice (an audio callback's samples → lip sync frames): the same frames as
//! the PCM pipe on the same audio, whatever the push sizes; NaN never reaches a frame;
//! the level meter; the end and the failure of the feed.

use std::time::Duration;

use omote_lipsync::{AnalyserConfig, Profile, StreamAnalyser, VowelFrame};
use omote_live::{
    LiveError, Overflow, PcmLipsync, PcmVoice, SampleFormat, ThreadedVoice, VoiceMeter,
    VoiceSource, pushed_voice,
};
use omote_testdata::buzz;

/// Every frame until the end.
fn drain(voice: &mut impl VoiceSource) -> Vec<VowelFrame> {
    let mut frames = Vec::new();
    while voice.next_frames(&mut frames).unwrap() {}
    assert!(!voice.next_frames(&mut frames).unwrap(), "stays ended");
    frames
}

/// The frames of PcmVoice (the PCM pipe) on interleaved `f32` samples.
fn pcm_frames(samples: &[f32], channels: u16, rate: u32) -> Vec<VowelFrame> {
    let bytes: Vec<u8> = samples.iter().flat_map(|s| s.to_le_bytes()).collect();
    let pipeline = PcmLipsync::new(
        "pipe",
        SampleFormat::F32le,
        channels,
        rate,
        Profile::builtin(),
    )
    .unwrap();
    drain(&mut PcmVoice::new(&bytes[..], "pipe", pipeline))
}

fn assert_same_frames(got: &[VowelFrame], want: &[VowelFrame]) {
    assert_eq!(got.len(), want.len(), "frame count");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g.silent, w.silent, "frame {k}: silent");
        assert!(
            (g.volume - w.volume).abs() < 1e-6,
            "frame {k}: {g:?} vs {w:?}"
        );
        for (a, b) in g.weights.iter().zip(&w.weights) {
            assert!((a - b).abs() < 1e-6, "frame {k}: {g:?} vs {w:?}");
        }
    }
}

/// The chunk sizes a callback might deliver, in turn.
const CHUNKS: [usize; 3] = [7, 480, 1024];

#[test]
fn pushed_speech_gives_the_frames_of_the_pcm_pipe() {
    let Some(wav) = omote_testdata::shared_data("speech/ja_ojt_001.wav") else {
        return;
    };
    let mono = omote_audio::load_mono(&wav, 48_000).unwrap().samples;
    // Stereo, the channels different (the mixdown averages them).
    let stereo: Vec<f32> = mono.iter().flat_map(|&x| [x, 0.5 * x]).collect();
    let want = pcm_frames(&stereo, 2, 48_000);
    let voiced = want.iter().filter(|f| !f.silent).count();
    assert!(
        voiced > want.len() / 4,
        "a speech clip: {voiced} of {} voiced",
        want.len()
    );

    let (mut feed, mut voice) = pushed_voice(
        "test mic",
        2,
        48_000,
        Duration::from_secs(10),
        Profile::builtin(),
    )
    .unwrap();
    let meter = voice.meter();
    // The callback thread pushes while this thread analyses.
    let producer = std::thread::spawn(move || {
        let mut rest = &stereo[..];
        for &n in CHUNKS.iter().cycle() {
            if rest.is_empty() {
                break;
            }
            let (chunk, tail) = rest.split_at(n.min(rest.len()));
            assert!(feed.push_f32(chunk), "the consumer is there");
            rest = tail;
        }
    });
    let got = drain(&mut voice);
    producer.join().unwrap();
    assert_same_frames(&got, &want);
    assert_eq!(meter.dropped_samples(), 0);
    assert_eq!(meter.non_finite_samples(), 0);
    assert_eq!(meter.received_samples(), mono.len() as u64);
    assert_eq!((meter.channels(), meter.rate()), (2, 48_000));
}

/// The PCM pipe resamples live with the filter files go through: a 48 kHz clip piped in
/// gives, frame for frame, what the streaming analyser gives the clip resampled whole —
/// and from the usual capture rates the pipe's latency stays within the 25 ms budget.
#[test]
fn the_pcm_pipe_hears_what_a_file_gives_within_25_ms() {
    for rate in [48_000u32, 44_100] {
        let pipe =
            PcmLipsync::new("mic", SampleFormat::S16le, 1, rate, Profile::builtin()).unwrap();
        assert!(
            pipe.latency_s() <= 0.025,
            "{rate} Hz: latency {} s",
            pipe.latency_s()
        );
    }
    let Some(wav) = omote_testdata::shared_data("speech/ja_ojt_001.wav") else {
        return;
    };
    let mono = omote_audio::load_mono(&wav, 48_000).unwrap().samples;
    let whole = omote_audio::resample(&mono, 48_000, 16_000).unwrap();
    let want = StreamAnalyser::analyse_in_chunks(
        Profile::builtin(),
        AnalyserConfig::default(),
        &whole,
        160,
    )
    .frames;
    assert!(want.iter().filter(|f| !f.silent).count() > want.len() / 4);
    assert_same_frames(&pcm_frames(&mono, 1, 48_000), &want);
}

#[test]
fn integer_samples_are_scaled_as_the_pcm_pipe_scales_them() {
    // 16-bit stereo at 44.1 kHz: i16 pushes give the pipe's S16le frames; u16 pushes
    // (32768 = silence) the same.
    let mono = buzz(44_100, 1.0, 0.2..0.8);
    let stereo: Vec<i16> = mono.iter().flat_map(|&x| [x, x / 3]).collect();
    let bytes: Vec<u8> = stereo.iter().flat_map(|s| s.to_le_bytes()).collect();
    let pipeline =
        PcmLipsync::new("pipe", SampleFormat::S16le, 2, 44_100, Profile::builtin()).unwrap();
    let want = drain(&mut PcmVoice::new(&bytes[..], "pipe", pipeline));
    assert!(want.iter().any(|f| !f.silent));

    let (mut feed, mut voice) =
        pushed_voice("i16", 2, 44_100, Duration::from_secs(5), Profile::builtin()).unwrap();
    for chunk in stereo.chunks(333) {
        feed.push_i16(chunk);
    }
    drop(feed);
    assert_same_frames(&drain(&mut voice), &want);

    let unsigned: Vec<u16> = stereo
        .iter()
        .map(|&x| (i32::from(x) + 32768) as u16)
        .collect();
    let (mut feed, mut voice) =
        pushed_voice("u16", 2, 44_100, Duration::from_secs(5), Profile::builtin()).unwrap();
    for chunk in unsigned.chunks(1001) {
        feed.push_u16(chunk);
    }
    drop(feed);
    assert_same_frames(&drain(&mut voice), &want);
}

#[test]
fn nan_and_infinite_samples_count_as_silence_and_are_counted() {
    let clean: Vec<f32> = buzz(48_000, 1.0, 0.1..0.9)
        .iter()
        .map(|&s| f32::from(s) / 32768.0)
        .collect();
    let mut dirty = clean.clone();
    let mut zeroed = clean.clone();
    let mut bad = 0;
    for (i, (d, z)) in dirty.iter_mut().zip(&mut zeroed).enumerate() {
        let poison = match i % 97 {
            0 => f32::NAN,
            1 => f32::INFINITY,
            2 => f32::NEG_INFINITY,
            _ => continue,
        };
        *d = poison;
        *z = 0.0;
        bad += 1;
    }
    let (mut feed, mut voice) =
        pushed_voice("nan", 1, 48_000, Duration::from_secs(2), Profile::builtin()).unwrap();
    let meter = voice.meter();
    for (k, chunk) in dirty.chunks(480).enumerate() {
        feed.push_f32(chunk);
        if k == 0 {
            // Nothing poisoned reaches the level either.
            assert!(meter.level_dbfs().is_finite());
        }
    }
    drop(feed);
    let got = drain(&mut voice);
    assert!(got.iter().any(|f| !f.silent), "the buzz is still heard");
    for f in &got {
        assert!(
            f.volume.is_finite() && f.weights.iter().all(|w| w.is_finite()),
            "{f:?}"
        );
    }
    assert_eq!(meter.non_finite_samples(), bad);
    assert!(meter.level_dbfs().is_finite());
    // Exactly as if those samples had been 0.
    assert_same_frames(&got, &pcm_frames(&zeroed, 1, 48_000));
}

#[test]
fn the_meter_reports_the_level_of_the_last_100_ms() {
    let (mut feed, voice) = pushed_voice(
        "level",
        2,
        16_000,
        Duration::from_secs(1),
        Profile::builtin(),
    )
    .unwrap();
    let meter = voice.meter();
    assert_eq!(meter.level_dbfs(), VoiceMeter::FLOOR_DBFS, "nothing yet");
    // A sine of amplitude 0.5 in both channels: RMS 0.5/√2 → −9.03 dBFS.
    let sine: Vec<f32> = (0..16_000)
        .flat_map(|i| {
            let x = 0.5 * (i as f32 * 440.0 * std::f32::consts::TAU / 16_000.0).sin();
            [x, x]
        })
        .collect();
    feed.push_f32(&sine[..3199]);
    assert_eq!(
        meter.level_dbfs(),
        VoiceMeter::FLOOR_DBFS,
        "under 100 ms so far"
    );
    feed.push_f32(&sine[3199..]);
    let db = meter.level_dbfs();
    assert!((db - -9.03).abs() < 0.05, "{db}");
    // 100 ms of a quieter sine (× 0.1, −20 dB) replaces it.
    let quiet: Vec<f32> = sine[..3200].iter().map(|x| 0.1 * x).collect();
    feed.push_f32(&quiet);
    let db = meter.level_dbfs();
    assert!((db - -29.03).abs() < 0.05, "{db}");
    // Digital silence is the floor.
    feed.push_f32(&[0.0; 3200]);
    assert_eq!(meter.level_dbfs(), VoiceMeter::FLOOR_DBFS);
    assert_eq!(meter.received_samples(), 16_000 + 3_200);
}

#[test]
fn a_consumer_that_stops_reading_loses_the_oldest_audio_only() {
    // 0.5 s of room at 16 kHz stereo; 3 s pushed and nothing read.
    let (mut feed, mut voice) = pushed_voice(
        "slow",
        2,
        16_000,
        Duration::from_millis(500),
        Profile::builtin(),
    )
    .unwrap();
    let meter = voice.meter();
    assert_eq!(voice.capacity_samples(), 8_000);
    // Silence, then a buzz in the last 0.4 s: what is kept is the newest.
    let mono = buzz(16_000, 3.0, 2.6..3.0);
    let stereo: Vec<i16> = mono.iter().flat_map(|&x| [x, x]).collect();
    for chunk in stereo.chunks(1001) {
        assert!(feed.push_i16(chunk));
        assert!(voice.buffered_samples() <= voice.capacity_samples());
    }
    assert_eq!(voice.capacity_samples(), 8_000, "the ring never grows");
    assert_eq!(voice.buffered_samples(), 8_000);
    assert_eq!(meter.received_samples(), 48_000);
    assert_eq!(meter.dropped_samples(), 40_000);
    assert!((meter.dropped_s() - 2.5).abs() < 1e-9);
    drop(feed);
    let frames = drain(&mut voice);
    // 0.5 s analysed: 50 frames, the buzz in the last 0.4 s of them.
    assert!((49..=51).contains(&frames.len()), "{}", frames.len());
    let voiced = frames.iter().filter(|f| !f.silent).count();
    assert!(
        (30..=41).contains(&voiced),
        "{voiced} of {} voiced",
        frames.len()
    );
    assert!(
        frames[..5].iter().all(|f| f.silent),
        "the kept audio starts silent"
    );
}

#[test]
fn one_push_larger_than_the_ring_keeps_its_newest_whole_sample_frames() {
    // 3 channels, a ring of 10 ms at 8 kHz: 80 sample frames, 240 samples.
    let (mut feed, voice) = pushed_voice(
        "big",
        3,
        8_000,
        Duration::from_millis(10),
        Profile::builtin(),
    )
    .unwrap();
    let meter = voice.meter();
    assert_eq!(voice.capacity_samples(), 80);
    feed.push_f32(&[0.1; 1000]); // 333 frames and one sample
    assert_eq!(meter.received_samples(), 333);
    assert_eq!(
        voice.buffered_samples() as u64 + meter.dropped_samples(),
        333
    );
    assert!(voice.buffered_samples() >= 79);
    feed.push_f32(&[0.1; 2]); // completes frame 334
    assert_eq!(meter.received_samples(), 334);
    assert_eq!(
        voice.buffered_samples() as u64 + meter.dropped_samples(),
        334
    );
}

#[test]
fn the_end_of_the_feed_ends_the_voice_after_its_last_frames() {
    let (mut feed, mut voice) =
        pushed_voice("end", 1, 16_000, Duration::from_secs(1), Profile::builtin()).unwrap();
    let samples: Vec<i16> = buzz(16_000, 0.5, 0.1..0.4);
    // The consumer waits on another thread; the producer pushes, then goes away.
    let consumer = std::thread::spawn(move || drain(&mut voice));
    for chunk in samples.chunks(160) {
        feed.push_i16(chunk);
        std::thread::sleep(Duration::from_micros(200));
    }
    drop(feed);
    let frames = consumer.join().unwrap();
    assert_eq!(
        frames.len(),
        50,
        "every frame of 0.5 s, the last ones at the end"
    );
    assert!(frames.iter().any(|f| !f.silent));
}

#[test]
fn a_failed_feed_ends_the_voice_with_its_error() {
    let (mut feed, mut voice) = pushed_voice(
        "usb mic",
        1,
        16_000,
        Duration::from_secs(1),
        Profile::builtin(),
    )
    .unwrap();
    let samples: Vec<i16> = buzz(16_000, 0.3, 0.0..0.3);
    feed.push_i16(&samples);
    feed.fail(LiveError::Mic {
        device: "usb mic".into(),
        problem: "the input stream failed: unplugged".into(),
    });
    let mut frames = Vec::new();
    let err = loop {
        match voice.next_frames(&mut frames) {
            Ok(true) => {}
            Ok(false) => panic!("ended without the error"),
            Err(e) => break e.to_string(),
        }
    };
    assert!(
        err.contains("usb mic") && err.contains("unplugged"),
        "{err}"
    );
    assert_eq!(frames.len(), 30, "the audio before the failure is analysed");
    assert!(
        !voice.next_frames(&mut frames).unwrap(),
        "then it stays ended"
    );
}

#[test]
fn the_feed_learns_when_the_voice_is_gone() {
    let (mut feed, voice) = pushed_voice(
        "gone",
        1,
        16_000,
        Duration::from_secs(1),
        Profile::builtin(),
    )
    .unwrap();
    assert!(feed.push_f32(&[0.0; 160]));
    drop(voice);
    assert!(!feed.push_f32(&[0.0; 160]));
}

#[test]
fn setup_errors_name_the_stream() {
    let e = pushed_voice(
        "usb mic",
        0,
        48_000,
        Duration::from_secs(1),
        Profile::builtin(),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(e.contains("usb mic") && e.contains("channel"), "{e}");
    let e = pushed_voice("usb mic", 1, 12, Duration::from_secs(1), Profile::builtin())
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("usb mic") && e.contains("12"), "{e}");
}

#[test]
fn a_threaded_pushed_voice_serves_the_video_loop() {
    let (mut feed, voice) =
        pushed_voice("mic", 1, 48_000, Duration::from_secs(1), Profile::builtin()).unwrap();
    let voice = ThreadedVoice::spawn(voice, 1000, Overflow::DropOldest, "mic");
    let samples: Vec<i16> = buzz(48_000, 1.0, 0.3..0.7);
    for chunk in samples.chunks(512) {
        feed.push_i16(chunk);
    }
    let wait = Duration::from_secs(10);
    assert!(voice.frame_at_time(0.105, wait).unwrap().silent);
    assert!(!voice.frame_at_time(0.505, wait).unwrap().silent);
    drop(feed);
    let deadline = std::time::Instant::now() + wait;
    while !voice.is_finished() {
        assert!(std::time::Instant::now() < deadline, "never ended");
        std::thread::sleep(Duration::from_millis(2));
    }
    // 1 s at 48 kHz: 100 frames less the resampler's delay.
    let received = voice.buffer().received();
    assert!((97..=100).contains(&received), "{received}");
    voice.finish().unwrap();
}
