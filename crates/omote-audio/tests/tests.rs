//! Decoding and resampling, including hostile and degenerate files.

use std::path::{Path, PathBuf};

use omote_audio::{AudioError, decode_file, load_mono, resample};

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("omote-audio-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// A 16-bit PCM WAV.
fn wav_bytes(samples: &[i16], rate: u32, channels: u16) -> Vec<u8> {
    omote_testdata::wav16(samples, rate, channels)
}

fn write(name: &str, bytes: &[u8]) -> PathBuf {
    let p = tmp(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn names_file(e: &AudioError, p: &Path) {
    let msg = e.to_string();
    assert!(
        msg.contains(&p.display().to_string()),
        "error does not name the file: {msg}"
    );
}

#[test]
fn empty_file_is_a_clear_error() {
    let p = write("empty.wav", &[]);
    let e = decode_file(&p).unwrap_err();
    assert!(matches!(e, AudioError::EmptyFile { .. }));
    names_file(&e, &p);
}

#[test]
fn missing_file_names_the_file() {
    let p = tmp("does-not-exist.wav");
    let e = decode_file(&p).unwrap_err();
    names_file(&e, &p);
}

#[test]
fn header_only_wav_is_empty_audio() {
    let p = write("header-only.wav", &wav_bytes(&[], 16_000, 1));
    let a = decode_file(&p).unwrap();
    assert!(a.samples.is_empty());
    let a = load_mono(&p, 16_000).unwrap();
    assert!(a.samples.is_empty());
}

#[test]
fn a_wav_cut_inside_its_header_says_so() {
    let whole = wav_bytes(&[0, 100, -100, 0], 16_000, 1);
    for len in [12, 30] {
        let p = write(&format!("cut-{len}.wav"), &whole[..len]);
        let e = decode_file(&p).unwrap_err();
        names_file(&e, &p);
        assert!(
            e.to_string()
                .contains("a WAV file that ends inside its header"),
            "{len} bytes: {e}"
        );
    }
    // Bytes that are not audio are not "cut short", whatever reader ran out in them: a
    // PNG's and a glTF model's first bytes.
    for (name, head) in [
        ("image.png", &b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"[..]),
        ("model.vrm", &b"glTF\x02\0\0\0\x10\0\0\0"[..]),
    ] {
        // Ending in what an MP3 reader takes for a frame's sync and header, so the prober
        // runs out of bytes inside it (as it did in a real VRM and a real PNG).
        let mut bytes = head.to_vec();
        bytes.extend([0u8; 64]);
        bytes.extend([0xFF, 0xFB, 0x90, 0x64, 0, 0]);
        let p = write(name, &bytes);
        let e = decode_file(&p).unwrap_err().to_string();
        assert!(!e.contains("cut short"), "{name}: {e}");
        assert!(e.contains("its bytes are none of these"), "{name}: {e}");
    }
}

#[test]
fn one_sample_decodes() {
    let p = write("one.wav", &wav_bytes(&[1000], 44_100, 1));
    let a = load_mono(&p, 16_000).unwrap();
    assert!(a.samples.len() <= 1);
}

#[test]
fn wrong_extension_still_decodes_by_content() {
    let p = write(
        "really-a-wav.mp3",
        &wav_bytes(&[0, 100, -100, 0], 16_000, 1),
    );
    assert_eq!(decode_file(&p).unwrap().samples.len(), 4);
}

#[test]
fn text_file_is_a_clear_error() {
    let p = write("notes.wav", b"this is not audio at all, just some text\n");
    let e = decode_file(&p).unwrap_err();
    assert!(matches!(e, AudioError::UnsupportedFormat { .. }), "{e}");
    names_file(&e, &p);
}

#[test]
fn corrupt_data_never_panics() {
    // A valid header followed by garbage, a truncated header, and random bytes.
    let mut b = wav_bytes(&[0; 64], 16_000, 1);
    b.truncate(30);
    let p = write("truncated.wav", &b);
    if let Err(e) = decode_file(&p) {
        names_file(&e, &p);
    }
    let mut x: u32 = 12345;
    let noise: Vec<u8> = (0..4096)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect();
    let mut b = b"RIFF\x00\x10\x00\x00WAVE".to_vec();
    b.extend_from_slice(&noise);
    let p = write("garbage.wav", &b);
    if let Err(e) = decode_file(&p) {
        names_file(&e, &p);
    }
    let p = write("noise.ogg", &noise);
    let e = decode_file(&p).unwrap_err();
    names_file(&e, &p);
}

#[test]
fn stereo_is_mixed_down() {
    let p = write(
        "stereo.wav",
        &wav_bytes(&[16384, -16384, 16384, 0], 16_000, 2),
    );
    let a = decode_file(&p).unwrap();
    assert_eq!(a.samples.len(), 2);
    assert!(a.samples[0].abs() < 1e-4 && (a.samples[1] - 0.25).abs() < 1e-3);
}

#[test]
fn every_rate_from_8_to_96_khz_resamples_in_time() {
    for rate in [
        8_000u32, 11_025, 16_000, 22_050, 32_000, 44_100, 48_000, 96_000,
    ] {
        // 0.5 s of a 440 Hz tone after 0.25 s of silence: the onset must stay at 0.25 s.
        let n = rate as usize * 3 / 4;
        let x: Vec<f32> = (0..n)
            .map(|i| {
                let t = i as f32 / rate as f32;
                if t < 0.25 {
                    0.0
                } else {
                    0.5 * (2.0 * std::f32::consts::PI * 440.0 * t).sin()
                }
            })
            .collect();
        let y = resample(&x, rate, 16_000).unwrap();
        let want = ((n as u64 * 16_000 + u64::from(rate) / 2) / u64::from(rate)) as usize;
        assert_eq!(y.len(), want, "rate {rate}");
        let onset = y.iter().position(|v| v.abs() > 0.1).unwrap();
        assert!(
            (onset as i64 - 4_000).abs() < 40,
            "rate {rate}: onset at {onset}"
        );
        let rms = (y[6000..10000].iter().map(|v| v * v).sum::<f32>() / 4000.0).sqrt();
        assert!((rms - 0.354).abs() < 0.03, "rate {rate}: rms {rms}");
    }
}

#[test]
fn out_of_range_rate_is_an_error() {
    assert!(matches!(
        resample(&[0.0; 10], 1_000, 16_000),
        Err(AudioError::SampleRate { .. })
    ));
}

#[test]
fn stream_resampler_matches_length() {
    let mut r = omote_audio::StreamResampler::new(48_000, 16_000).unwrap();
    let mut out = Vec::new();
    for _ in 0..100 {
        r.push(&[0.1; 480 + 7], &mut out);
    }
    let expected = 100 * 487 / 3;
    assert!(
        out.len() <= expected && out.len() + 400 >= expected,
        "{}",
        out.len()
    );
    assert!(r.delay_s() < 0.05);
}

/// Found by `fuzz/fuzz_targets/audio_decode.rs`: a WAV header with sample rate 0 made
/// symphonia 0.5.5 assert inside `TimeBase::new`.
#[test]
fn wav_with_sample_rate_zero_is_a_clear_error() {
    let samples: Vec<i16> = (0..1600).map(|i| (i * 37 % 2000) as i16).collect();
    let p = write("rate-zero.wav", &wav_bytes(&samples, 0, 1));
    let e = decode_file(&p).unwrap_err();
    assert!(matches!(e, AudioError::Corrupt { .. }), "{e}");
    names_file(&e, &p);
    assert!(load_mono(&p, 16_000).is_err());
}

/// Live resampling runs the whole-buffer filter sample by sample: pushed in quanta of
/// any size (the browser's 128, a pipe's 10 ms, odd sizes, one sample), then flushed, it
/// gives exactly what `resample` gives the whole input, at every accepted kind of rate
/// pair (down, up, equal, a ratio over the phase table's size); and it waits about 1 ms
/// from the common capture rates (1.0 ms from 48 kHz, 1.2 ms from 44.1 kHz).
#[test]
fn stream_resampler_gives_what_resample_gives_in_any_quanta() {
    let input: Vec<f32> = (0..9_001)
        .map(|i| {
            let t = i as f32;
            0.4 * (t * 0.031).sin() + 0.2 * (t * 0.173).sin() + if i % 997 == 0 { 0.3 } else { 0.0 }
        })
        .collect();
    for from in [48_000u32, 44_100, 22_050, 16_000, 8_000, 47_999, 96_000] {
        let whole = resample(&input, from, 16_000).unwrap();
        for quantum in [128usize, 480, 1, 333, 20_000] {
            let mut r = omote_audio::StreamResampler::new(from, 16_000).unwrap();
            let mut out = Vec::new();
            for q in input.chunks(quantum) {
                r.push(q, &mut out);
            }
            let before_flush = out.len();
            r.flush(&mut out);
            assert_eq!(out.len(), whole.len(), "{from} Hz in {quantum}s");
            assert!(
                out == whole,
                "{from} Hz in {quantum}s: first difference at {:?}",
                out.iter().zip(&whole).position(|(a, b)| a != b)
            );
            // Most of the output left before the end: only the last window waits.
            let held = whole.len() - before_flush;
            let max_held = (r.delay_s() * 16_000.0).ceil() as usize + 2;
            assert!(
                held <= max_held,
                "{from} Hz: {held} samples held to the end"
            );
            // After a flush the resampler starts again from nothing.
            let mut again = Vec::new();
            r.push(&input, &mut again);
            r.flush(&mut again);
            assert!(again == whole, "{from} Hz: a second stream differs");
        }
    }
    for from in [48_000u32, 44_100] {
        let r = omote_audio::StreamResampler::new(from, 16_000).unwrap();
        assert!(r.delay_s() <= 0.0012, "{from} Hz: {}", r.delay_s());
    }
    assert_eq!(
        omote_audio::StreamResampler::new(16_000, 16_000)
            .unwrap()
            .delay_s(),
        0.0
    );
    assert!(matches!(
        omote_audio::StreamResampler::new(1_000, 16_000),
        Err(AudioError::SampleRate { .. })
    ));
}

/// `delay_s` is honest: a click pushed 128 samples at a time comes out of the stream no
/// later than it says (plus the quantum it arrived in), down from the capture rates and
/// up from 8 kHz (the longer filter).
#[test]
fn stream_resampler_delay_is_what_it_says() {
    for from in [48_000u32, 44_100, 22_050, 8_000] {
        for offset in [0usize, 57, 200, 333] {
            let mut r = omote_audio::StreamResampler::new(from, 16_000).unwrap();
            let click_at = from as usize / 10 + offset;
            let mut input = vec![0.0f32; from as usize / 2];
            input[click_at] = 1.0;
            let mut out = Vec::new();
            let mut heard_after = None;
            let mut pushed = 0;
            for quantum in input.chunks(128) {
                r.push(quantum, &mut out);
                pushed += quantum.len();
                // The click's own output sample (and the filter's ring after it) is out.
                let at = click_at * 16_000 / from as usize;
                if heard_after.is_none()
                    && out.len() > at + 1
                    && out[at - 1..=at + 1].iter().any(|s| s.abs() > 0.05)
                {
                    heard_after = Some(pushed - click_at);
                }
            }
            let waited_s = heard_after.expect("the click came out") as f64 / f64::from(from);
            assert!(
                waited_s <= r.delay_s() + 128.0 / f64::from(from) + 1e-9,
                "{from} Hz: waited {waited_s} s, delay_s {}",
                r.delay_s()
            );
        }
    }
}

/// A `Loader` over a folder of mixed rates, a bad file among them, gives what
/// `load_mono` gives for each, and the bad file's error names it.
#[test]
fn a_loader_gives_what_load_mono_gives_file_after_file() {
    let mut files = Vec::new();
    for (i, rate) in [48_000u32, 22_050, 16_000, 48_000, 44_100, 8_000, 22_050]
        .into_iter()
        .enumerate()
    {
        let samples: Vec<i16> = (0..rate as usize / 3)
            .map(|k| ((k as f32 * 0.07).sin() * 9_000.0) as i16)
            .collect();
        let channels = 1 + (i % 2) as u16;
        let name = format!("loader-{i}.wav");
        files.push(write(&name, &wav_bytes(&samples, rate, channels)));
        if i == 2 {
            files.push(write("loader-bad.wav", b"RIFF\x10\x00\x00\x00WAVEnothing"));
        }
    }
    let mut loader = omote_audio::Loader::new(16_000).unwrap();
    for p in &files {
        match load_mono(p, 16_000) {
            Ok(want) => assert_eq!(
                loader.load(p).unwrap(),
                &want.samples[..],
                "{}",
                p.display()
            ),
            Err(want) => {
                let got = loader.load(p).unwrap_err();
                assert_eq!(got.to_string(), want.to_string());
                names_file(&got, p);
            }
        }
    }
    let bytes = std::fs::read(&files[0]).unwrap();
    let from_bytes = loader.load_bytes(&bytes, &files[0]).unwrap().to_vec();
    assert_eq!(from_bytes, load_mono(&files[0], 16_000).unwrap().samples);
}

/// Whether ffmpeg runs here (it encodes the lossy files below).
fn ffmpeg() -> bool {
    std::process::Command::new("ffmpeg")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Lossy files start where their source starts: the encoder's delay and padding (an MP3's
/// LAME header, Ogg Vorbis' granule positions) are trimmed. Untrimmed, this MP3 starts
/// 25 ms late and ends 45 ms long (a 22.05 kHz one 50 ms late: a mouth drawn 5 frames
/// after the voice).
#[test]
fn lossy_files_are_trimmed_to_their_source() {
    if !ffmpeg() {
        omote_testdata::missing("ffmpeg (encodes the MP3 and Ogg files)");
        return;
    }
    // 0.3 s of silence, a 0.2 s 1 kHz burst, 0.5 s of silence, at 44.1 kHz.
    let rate = 44_100u32;
    let burst = (rate as usize * 3 / 10)..(rate as usize / 2);
    let source: Vec<i16> = (0..rate as usize)
        .map(|i| {
            if burst.contains(&i) {
                let t = i as f64 / f64::from(rate);
                (12_000.0 * (2.0 * std::f64::consts::PI * 1000.0 * t).sin()) as i16
            } else {
                0
            }
        })
        .collect();
    let wav = write("gapless.wav", &wav_bytes(&source, rate, 1));
    for (ext, codec) in [("mp3", "libmp3lame"), ("ogg", "libvorbis")] {
        let out = tmp(&format!("gapless.{ext}"));
        let status = std::process::Command::new("ffmpeg")
            .args(["-loglevel", "error", "-y", "-i"])
            .arg(&wav)
            .args(["-c:a", codec, "-b:a", "128k"])
            .arg(&out)
            .status()
            .unwrap();
        assert!(status.success(), "ffmpeg could not write {}", out.display());
        let a = decode_file(&out).unwrap();
        assert_eq!(a.sample_rate, rate, "{ext}");
        let len_ms = 1000.0 * (a.samples.len() as f64 - source.len() as f64) / f64::from(rate);
        // Symphonia trims Ogg Vorbis' end padding only to within a short block (+2.8 ms
        // here); the start, which is what timing depends on, is exact in both.
        let tail_ms = if ext == "ogg" { 5.0 } else { 1.0 };
        assert!(
            (-1.0..tail_ms).contains(&len_ms),
            "{ext}: {len_ms:+.1} ms longer than its source"
        );
        // The burst's onset: the first sample above a tenth of its level.
        let onset = a.samples.iter().position(|s| s.abs() > 0.035).unwrap();
        let late_ms = 1000.0 * (onset as f64 - burst.start as f64) / f64::from(rate);
        assert!(
            late_ms.abs() < 1.0,
            "{ext}: the burst starts {late_ms:+.1} ms late"
        );
    }
}

/// Formats people have that omote does not decode (Opus in Ogg, AAC in MP4) are named as
/// such, with how to convert them, not with the decoder's internal words.
#[test]
fn opus_and_aac_are_refused_by_name_with_a_way_out() {
    if !ffmpeg() {
        omote_testdata::missing("ffmpeg (encodes the Opus and AAC files)");
        return;
    }
    let wav = write(
        "unsupported.wav",
        &wav_bytes(&omote_testdata::buzz(48_000, 0.5, 0.1..0.4), 48_000, 1),
    );
    for (name, codec, said) in [
        ("voice.opus", "libopus", "its audio is Opus"),
        ("voice.m4a", "aac", "a .m4a file"),
    ] {
        let out = tmp(name);
        let status = std::process::Command::new("ffmpeg")
            .args(["-loglevel", "error", "-y", "-i"])
            .arg(&wav)
            .args(["-c:a", codec])
            .arg(&out)
            .status()
            .unwrap();
        assert!(status.success(), "ffmpeg could not write {}", out.display());
        let e = decode_file(&out).unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, AudioError::UnsupportedFormat { .. }), "{msg}");
        names_file(&e, &out);
        assert!(msg.contains(said) && msg.contains("ffmpeg -i"), "{msg}");
    }
}
