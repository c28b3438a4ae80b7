//! The embedding API (the calls every binding wraps): the analysis is the CLI's, bad
//! input is an error with a message, any dt is taken, and the face runs deterministically
//! for a seed with blinks, a speaking mouth and a hand-over.

use omote_core::Quat;
use omote_core::eyes::Gaze;
use omote_embed::{
    Character, EmbedError, LIVE_VOICE_STALE_S, Speaker, VOICE_FRAME_STRIDE as LIVE_STRIDE,
    VOICE_SEED_LEN, VoiceStream, analyse_voice,
};
use omote_lipsync::{Analyser, AnalyserConfig, CepstralMean, Profile, SAMPLE_RATE, StreamAnalyser};

const RIG: &str = r#"{"name": "test", "presets": true, "arkit": false,
  "expressions": [{"name": "happy", "overrideBlink": "blend"}],
  "lookAt": null}"#;

#[test]
fn the_analysis_is_the_one_omote_lipsync_gives() {
    let Some(dir) = omote_testdata::shared_data("speech") else {
        return;
    };
    for clip in ["ja_ojt_002.wav", "en_espeak_001.wav"] {
        let path = dir.join(clip);
        // What a web page has: the decoded samples at the file's own rate.
        let decoded = omote_audio::decode_file(&path).unwrap();
        let web = analyse_voice(&decoded.samples, f64::from(decoded.sample_rate)).unwrap();
        // What `omote lipsync` does: decode, resample, analyse.
        let native = Analyser::new(Profile::builtin())
            .analyse(&omote_audio::load_mono(&path, SAMPLE_RATE).unwrap().samples);
        assert_eq!(web.frames.len(), native.frames.len() * 6, "{clip}");
        for (i, f) in native.frames.iter().enumerate() {
            assert_eq!(
                &web.frames[6 * i..6 * i + 6],
                &f.weights,
                "{clip} frame {i}"
            );
            assert_eq!(web.silent[i], f.silent);
        }
        assert_eq!(web.voiced_start, native.voiced_span.map(|s| s.start_s));
        assert!(web.voiced_start.is_some());
    }
}

#[test]
fn bad_input_is_an_error_with_a_message() {
    let tone: Vec<f32> = (0..1600).map(|i| (i as f32 * 0.1).sin() * 0.2).collect();
    assert_eq!(analyse_voice(&[], 16_000.0), Err(EmbedError::NoSamples));
    for rate in [0.0, -1.0, f64::NAN, 16_000.5, 1e9] {
        let e = analyse_voice(&tone, rate).unwrap_err().to_string();
        assert!(e.contains("sample rate"), "{rate}: {e}");
    }
    let mut nan = tone.clone();
    nan[17] = f32::NAN;
    let e = analyse_voice(&nan, 16_000.0).unwrap_err().to_string();
    assert!(e.contains("sample 17 is NaN"), "{e}");
    // An avatar with no expressions; a rig that is not JSON; unknown names.
    let e = Character::from_rig_json(r#"{"presets": false}"#, 1)
        .err()
        .unwrap();
    assert_eq!(e, EmbedError::NoExpressions(None));
    // A VRM file with none: the character names the file.
    if let Some(vrm) = omote_testdata::shared_data("vrm/VRMC_materials_mtoon_UV_Animation_Test.vrm")
    {
        let avatar = omote_embed::Avatar::load(&omote_embed::AvatarSource::File(vrm)).unwrap();
        let e = Character::from_avatar(&avatar, 1)
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.starts_with(&format!("{}: the avatar has no expressions", avatar.name)),
            "{e}"
        );
        assert!(
            avatar.name.contains("UV_Animation_Test.vrm"),
            "{}",
            avatar.name
        );
    }
    assert!(
        Character::from_rig_json("{", 1)
            .err()
            .unwrap()
            .to_string()
            .contains("not valid")
    );
    let mut face = Character::from_rig_json(RIG, 1).unwrap();
    let e = face
        .set_expression_named("smug", 1.0)
        .unwrap_err()
        .to_string();
    assert!(e.contains("`smug`"), "{e}");
    assert!(face.set_expression_named("happy", f32::NAN).is_err());
    assert!(face.set_gaze(Gaze::new(f32::INFINITY, 0.0)).is_err());
    assert!(face.set_head(Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)).is_err());
    assert!(face.say_frames(&[0.5; 7], 100.0, None, &[]).is_err());
    assert!(face.say_frames(&[f32::NAN; 6], 100.0, None, &[]).is_err());
    let e = face
        .say_frames(&[0.5; 6], 100.0, None, &[("smug".into(), 0.3)])
        .unwrap_err();
    assert_eq!(e, EmbedError::UnknownExpression("smug".into()));
    assert!(face.set_live_vowels(&[0.1; 3], true).is_err());
    assert!(face.set_camera(Some(omote_core::Vec3::NAN)).is_err());
    assert!(face.request_blink(0.5).is_ok());
    let full = (0..1000).map(|_| face.request_blink(5.0)).last().unwrap();
    assert!(full.unwrap_err().to_string().contains("queue is full"));
}

/// Any dt a render loop gives is taken: zero, negative, NaN and infinite steps pass no
/// time (the frame is the same as before), one up to `MAX_STEP_S` is a step of that
/// length, and every weight stays finite and within 0–1.
#[test]
fn any_dt_is_taken() {
    let mut face = Character::from_rig_json(RIG, 3).unwrap();
    face.set_expression_named("happy", 0.6).unwrap();
    for _ in 0..30 {
        face.update(1.0 / 60.0);
    }
    let before = face.weights().to_vec();
    for dt in [0.0, -0.016, f32::NAN, f32::NEG_INFINITY, f32::INFINITY] {
        face.update(dt);
        assert_eq!(face.weights(), &before[..], "dt {dt} moved the face");
    }
    // A slow frame (0.2 s, within MAX_STEP_S): one step of 0.2 s, the same as 12 steps
    // of 1/60 s for the acting (the smoothing is exact for any step).
    let mut stepped = Character::from_rig_json(RIG, 3).unwrap();
    stepped.set_expression_named("happy", 0.6).unwrap();
    for _ in 0..30 {
        stepped.update(1.0 / 60.0);
    }
    const { assert!(0.2 <= omote_embed::MAX_STEP_S) };
    face.update(0.2);
    for _ in 0..12 {
        stepped.update(1.0 / 60.0);
    }
    let happy = face.channel("happy").unwrap();
    assert!((face.weight(happy) - stepped.weight(happy)).abs() < 1e-3);
    assert!(face.weights().iter().all(|w| (0.0..=1.0).contains(w)));
}

/// The largest change of any weight or rotation component between two frames.
fn change(a: &(Vec<f32>, [f32; 12]), b: &(Vec<f32>, [f32; 12])) -> f32 {
    let w = a.0.iter().zip(&b.0).map(|(x, y)| (x - y).abs());
    let r = a.1.iter().zip(&b.1).map(|(x, y)| (x - y).abs());
    w.chain(r).fold(0.0, f32::max)
}

/// A tab back from the background (a 5 s dt) in the middle of a line, with the gaze on a
/// target and the automatic blinks and saccades running: the face resumes with one
/// normal frame — exactly the frame a 1/60 s step gives, so the jump is no larger than
/// any frame's change — and a first update with a 5 s dt (a clock started long before
/// the loop) is one 1/60 s frame.
#[test]
fn a_long_dt_resumes_with_one_normal_frame() {
    let avatar = omote_embed::Avatar::load(&omote_embed::AvatarSource::Builtin).unwrap();
    let make = || {
        let mut face = Character::from_avatar(&avatar, 5).unwrap();
        face.set_gaze_target(omote_core::Vec3::new(0.3, -0.1, 1.0))
            .unwrap();
        // An "a" that alternates with "o" every 0.1 s, voiced from 0.1 s to 2.1 s.
        let mut frames = vec![0.0f32; 6 * 230];
        for (i, f) in frames.chunks_exact_mut(6).enumerate().skip(10).take(200) {
            f[if (i / 10) % 2 == 0 { 0 } else { 4 }] = 0.9;
        }
        face.say_frames(&frames, 100.0, Some((0.1, 2.1)), &[])
            .unwrap();
        face
    };
    let frame = |f: &Character| (f.weights().to_vec(), f.rotations());
    let (mut away, mut here) = (make(), make());
    let mut normal = Vec::new();
    for _ in 0..60 {
        away.update(1.0 / 60.0);
        here.update(1.0 / 60.0);
        normal.push(frame(&here));
    }
    assert!(away.is_speaking());
    let before = frame(&away);
    away.update(5.0);
    here.update(1.0 / 60.0);
    normal.push(frame(&here));
    assert_eq!(
        frame(&away),
        frame(&here),
        "a 5 s dt is not one normal frame"
    );
    assert!(away.is_speaking(), "the line resumes where it was");
    let jump = change(&before, &frame(&away));
    let largest = normal
        .windows(2)
        .map(|w| change(&w[0], &w[1]))
        .fold(0.0, f32::max);
    assert!(jump <= largest, "jump {jump} > a normal frame's {largest}");
    // The same steps go on: both stay the same face, frame by frame.
    for _ in 0..120 {
        away.update(1.0 / 60.0);
        here.update(1.0 / 60.0);
        assert_eq!(frame(&away), frame(&here));
    }
    // A first update of 5 s is one frame of 1/60 s.
    let (mut first, mut sixtieth) = (make(), make());
    first.update(5.0);
    sixtieth.update(1.0 / 60.0);
    assert_eq!(frame(&first), frame(&sixtieth));
    // After 30 fps frames, a gap is one 1/30 s frame.
    let (mut slow, mut steady) = (make(), make());
    for _ in 0..10 {
        slow.update(1.0 / 30.0);
        steady.update(1.0 / 30.0);
    }
    slow.update(5.0);
    steady.update(1.0 / 30.0);
    assert_eq!(frame(&slow), frame(&steady));
}

/// A subnormal dt (C#'s `float.Epsilon`, found by the C# tests) is no time either: the
/// exact filters divide by the step and `τ / dt` would overflow, leaving a still head NaN.
#[test]
fn a_subnormal_dt_is_no_time() {
    let avatar = omote_embed::Avatar::load(&omote_embed::AvatarSource::Builtin).unwrap();
    let mut face = Character::from_avatar(&avatar, 11).unwrap();
    face.set_gaze_target(omote_core::Vec3::new(0.3, -0.1, 1.0))
        .unwrap();
    for _ in 0..30 {
        face.update(1.0 / 60.0);
    }
    let (weights, rotations) = (face.weights().to_vec(), face.rotations());
    for dt in [f32::from_bits(1), f32::MIN_POSITIVE / 2.0] {
        face.update(dt);
        assert_eq!(face.weights(), &weights[..], "dt {dt:e} moved the face");
        assert_eq!(
            face.rotations(),
            rotations,
            "dt {dt:e} moved the head or eyes"
        );
    }
    face.update(f32::MIN_POSITIVE);
    assert!(face.rotations().iter().all(|v| v.is_finite()));
}

/// Runs `face` for `seconds` at 60 fps; the weights of every frame.
fn run(face: &mut Character, seconds: f32) -> Vec<Vec<f32>> {
    (0..(seconds * 60.0) as usize)
        .map(|_| {
            face.update(1.0 / 60.0);
            face.weights().to_vec()
        })
        .collect()
}

#[test]
fn the_face_is_deterministic_for_a_seed_blinks_and_speaks() {
    let (mut a, mut b, mut c) = (
        Character::from_rig_json(RIG, 7).unwrap(),
        Character::from_rig_json(RIG, 7).unwrap(),
        Character::from_rig_json(RIG, 8).unwrap(),
    );
    let (wa, wb, wc) = (run(&mut a, 10.0), run(&mut b, 10.0), run(&mut c, 10.0));
    assert_eq!(wa, wb);
    assert_ne!(wa, wc);
    assert!(
        wa.iter()
            .flatten()
            .all(|v| v.is_finite() && (0.0..=1.0).contains(v))
    );
    let blink = a.channel_names().iter().position(|n| n == "blink").unwrap();
    let closed = wa
        .windows(2)
        .filter(|w| w[0][blink] < 0.5 && w[1][blink] >= 0.5);
    assert!(closed.count() >= 2, "fewer than two blinks in 10 s");
    // A line: an open "a" for 0.5 s from 0.1 s; the mouth opens, then hands over.
    let mut frames = vec![0.0f32; 6 * 100];
    for f in frames.chunks_exact_mut(6).skip(10).take(50) {
        f[0] = 0.9;
    }
    a.say_frames(&frames, 100.0, Some((0.1, 0.6)), &[]).unwrap();
    let w = run(&mut a, 1.5);
    let aa = a.channel_names().iter().position(|n| n == "aa").unwrap();
    assert!(w[20][aa] > 0.5, "mouth at 0.33 s: {}", w[20][aa]);
    assert!(w[80][aa] < 0.05, "mouth at 1.33 s: {}", w[80][aa]);
    assert!(!a.is_speaking(), "the line is over");
    // The eyes move: the gaze is not fixed over 10 s.
    let gazes: Vec<Gaze> = (0..600)
        .map(|_| {
            a.update(1.0 / 60.0);
            a.gaze()
        })
        .collect();
    assert!(
        gazes
            .iter()
            .any(|g| (g.yaw_deg - gazes[0].yaw_deg).abs() > 0.5)
    );
}

/// Dominant class (A I U E O N) of a 6-number frame.
fn dominant(w: &[f32]) -> usize {
    (0..6).max_by(|a, b| w[*a].total_cmp(&w[*b])).unwrap()
}

/// The live path as the browser's worklet runs it — the clip at 48 kHz, 128 samples at
/// a time — against the offline analysis of the same clip: frame for frame in time, the
/// same voiced frames and mostly the same dominant vowel, within 25 ms of latency.
#[test]
fn live_voice_at_48k_follows_the_offline_analysis() {
    let Some(dir) = omote_testdata::shared_data("speech") else {
        return;
    };
    let (mut frames, mut voiced_same, mut both_voiced, mut vowel_same) = (0, 0, 0, 0);
    for clip in ["ja_ojt_002.wav", "ja_ojt_007.wav", "en_librivox_0870.wav"] {
        let decoded = omote_audio::decode_file(&dir.join(clip)).unwrap();
        let offline = analyse_voice(&decoded.samples, f64::from(decoded.sample_rate)).unwrap();
        let at48 = omote_audio::resample(&decoded.samples, decoded.sample_rate, 48_000).unwrap();
        let mut live = VoiceStream::new(48_000.0).unwrap();
        assert!(live.latency_s() <= 0.025, "{}", live.latency_s());
        let mut out = Vec::new();
        for quantum in at48.chunks(128) {
            out.extend_from_slice(live.push(quantum).unwrap());
        }
        let n = out.len() / LIVE_STRIDE;
        let n_offline = offline.frames.len() / 6;
        // Every frame but the last latency's worth is out.
        assert!(
            n <= n_offline && n + 3 >= n_offline,
            "{clip}: {n} of {n_offline}"
        );
        assert_eq!(live.frames_out(), n as u64);
        for i in 0..n {
            let l = &out[LIVE_STRIDE * i..LIVE_STRIDE * (i + 1)];
            assert!(l.iter().all(|v| v.is_finite() && (0.0..=1.0).contains(v)));
            let o = &offline.frames[6 * i..6 * i + 6];
            let (lv, ov) = (l[7] == 1.0, !offline.silent[i]);
            voiced_same += usize::from(lv == ov);
            if lv && ov {
                both_voiced += 1;
                vowel_same += usize::from(dominant(l) == dominant(o));
            }
        }
        frames += n;
    }
    let voiced = voiced_same as f64 / frames as f64;
    let vowels = vowel_same as f64 / both_voiced as f64;
    println!(
        "live vs offline: voiced agree {voiced:.3}, dominant vowel agree {vowels:.3} over {both_voiced} frames"
    );
    assert!(voiced >= 0.9, "voiced agreement {voiced}");
    assert!(vowels >= 0.75, "dominant vowel agreement {vowels}");
}

#[test]
fn live_voice_refuses_bad_input_and_keeps_going() {
    for rate in [0.0, f64::NAN, 44_100.5, 1e9] {
        let e = VoiceStream::new(rate).err().unwrap().to_string();
        assert!(e.contains("sample rate"), "{rate}: {e}");
    }
    let mut live = VoiceStream::new(44_100.0).unwrap();
    let tone: Vec<f32> = (0..4410).map(|i| (i as f32 * 0.07).sin() * 0.3).collect();
    let mut bad = tone.clone();
    bad[5] = f32::INFINITY;
    let e = live.push(&bad).unwrap_err().to_string();
    assert!(e.contains("sample 5 is inf"), "{e}");
    assert_eq!(live.samples_in(), 0, "a refused push is not half-analysed");
    let n = live.push(&tone).unwrap().len() / LIVE_STRIDE;
    assert!((7..=10).contains(&n), "{n} frames from 100 ms");
}

/// `with_hold` is `omote lipsync live`'s steadier stream: 10 ms later, the same frames
/// but where the fast stream's dominant class changes — a one-frame flicker removed, or a
/// change made a frame or two sooner now that the held frame has seen its successor.
#[test]
fn live_voice_with_hold_is_ten_ms_later_and_mostly_the_same() {
    let Some(dir) = omote_testdata::shared_data("speech") else {
        return;
    };
    let decoded = omote_audio::decode_file(&dir.join("ja_ojt_002.wav")).unwrap();
    let rate = f64::from(decoded.sample_rate);
    let mut fast = VoiceStream::new(rate).unwrap();
    let mut held = VoiceStream::with_hold(rate, true).unwrap();
    assert!((held.latency_s() - fast.latency_s() - 0.010).abs() < 1e-6);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for quantum in decoded.samples.chunks(128) {
        a.extend_from_slice(fast.push(quantum).unwrap());
        b.extend_from_slice(held.push(quantum).unwrap());
    }
    let n = b.len() / LIVE_STRIDE;
    assert!(n + 1 >= a.len() / LIVE_STRIDE && n > 100);
    // The mouth of frame i: its dominant class, or 6 when silent.
    let mouth = |v: &[f32], i: usize| {
        let x = &v[i * LIVE_STRIDE..(i + 1) * LIVE_STRIDE];
        if x[7] == 0.0 { 6 } else { dominant(x) }
    };
    let fast_changes_at = |i: usize| i > 0 && i < n && mouth(&a, i) != mouth(&a, i - 1);
    let differing: Vec<usize> = (0..n).filter(|&i| mouth(&a, i) != mouth(&b, i)).collect();
    // The held frame i has seen frame i + 1's evidence; the fast stream, reading i + 1 from
    // the frames up to it, may keep its class one frame longer (the filter's inertia), so
    // a change the held stream makes at i is the fast stream's at i, i + 1 or i + 2.
    for &i in &differing {
        assert!(
            fast_changes_at(i) || fast_changes_at(i + 1) || fast_changes_at(i + 2),
            "frame {i} differs ({} held, {} fast) where the fast stream holds its class",
            mouth(&b, i),
            mouth(&a, i)
        );
    }
    // Measured: 21 of 405 frames, every one at a change of the fast stream (with the Mandarin
    // real voices, one of them two frames before it). (The bound this replaced, 95 % of
    // frames the same, failed by one frame with issue 39's real voices.)
    println!("{} of {n} frames differ", differing.len());
    assert!(
        differing.len() * 100 <= n * 10,
        "{} of {n}",
        differing.len()
    );
}

/// A live stream started from a character's lines (`Speaker::voice_seed`, the numbers
/// the package passes to its AudioWorklet) is the native stream started from that
/// speaker's mean: the voice crosses over intact, and it changes how the stream reads.
#[test]
fn live_voice_starts_from_a_speakers_voice_seed() {
    let Some(dir) = omote_testdata::shared_data("speech") else {
        return;
    };
    let load = |n: usize| {
        omote_audio::load_mono(&dir.join(format!("ja_ojt_{n:03}.wav")), SAMPLE_RATE)
            .unwrap()
            .samples
    };
    let mut speaker = Speaker::new();
    let mut native_mean = CepstralMean::default();
    let mut analyser = Analyser::new(Profile::builtin());
    for n in 1..=4 {
        let line = load(n);
        speaker.add_line(&line, f64::from(SAMPLE_RATE)).unwrap();
        native_mean.add_clip(&analyser.features(&line));
    }
    let seed = speaker.voice_seed();
    assert_eq!(seed.len(), VOICE_SEED_LEN);
    assert_eq!(seed[VOICE_SEED_LEN - 1], native_mean.frames() as f32);

    let line = load(5);
    let mut seeded = VoiceStream::new(f64::from(SAMPLE_RATE)).unwrap();
    seeded.start_from_speaker(&seed).unwrap();
    let mut cold = VoiceStream::new(f64::from(SAMPLE_RATE)).unwrap();
    let mut native =
        StreamAnalyser::with_config(Profile::builtin(), AnalyserConfig::lowest_latency());
    native.start_from_speaker(&native_mean);
    let (mut a, mut b, mut want) = (Vec::new(), Vec::new(), Vec::new());
    for quantum in line.chunks(128) {
        a.extend_from_slice(seeded.push(quantum).unwrap());
        b.extend_from_slice(cold.push(quantum).unwrap());
        native.push(quantum, &mut want);
    }
    assert_eq!(a.len(), want.len() * LIVE_STRIDE);
    let mut from_cold = 0f32;
    for (i, f) in want.iter().enumerate() {
        for (k, w) in f.weights.iter().enumerate() {
            let got = a[i * LIVE_STRIDE + k];
            assert!((got - w).abs() < 1e-4, "frame {i} class {k}: {got} vs {w}");
            from_cold = from_cold.max((got - b[i * LIVE_STRIDE + k]).abs());
        }
    }
    assert!(from_cold > 0.05, "the seed changed nothing ({from_cold})");

    // Bad seeds are refused with what is wrong, and a started stream cannot be reseeded.
    let mut voice = VoiceStream::new(48_000.0).unwrap();
    let refused = |voice: &mut VoiceStream, seed: &[f32]| {
        voice.start_from_speaker(seed).unwrap_err().to_string()
    };
    assert!(refused(&mut voice, &seed[..5]).contains("a voice seed is 13 numbers"));
    let mut nan = seed;
    nan[3] = f32::NAN;
    assert!(refused(&mut voice, &nan).contains("number 3 of the voice seed is NaN"));
    let mut negative = seed;
    negative[VOICE_SEED_LEN - 1] = -1.0;
    assert!(refused(&mut voice, &negative).contains("frame count is -1"));
    voice.push(&[0.0; 128]).unwrap();
    assert!(refused(&mut voice, &seed).contains("before the first push"));
    // A speaker with no lines gives a seed that changes nothing.
    assert_eq!(Speaker::new().voice_seed(), [0.0; VOICE_SEED_LEN]);
}

#[test]
fn a_recorded_character_is_an_anim_with_its_frames_and_writes_out() {
    let avatar = omote_embed::Avatar::load(&omote_embed::AvatarSource::Builtin).unwrap();
    let mut face = Character::from_avatar(&avatar, 3).unwrap();
    assert!(face.record(0.0).is_err() && face.record(f32::NAN).is_err());
    face.record(30.0).unwrap();
    let mut weights = Vec::new();
    for _ in 0..90 {
        face.update(1.0 / 30.0);
        face.update(0.0); // no step: no frame
        weights.push(face.input_weights().to_vec());
    }
    let anim = face.finish_recording().unwrap();
    assert!(face.finish_recording().is_none(), "the recording ended");
    assert_eq!(anim.frames(), 90);
    assert_eq!(anim.fps, 30.0);
    for (c, name) in face.channel_names().iter().enumerate() {
        let track = anim.expressions.get(name).unwrap();
        assert!(
            track.iter().zip(&weights).all(|(a, w)| *a == w[c]),
            "{name}"
        );
    }
    let json = omote_embed::anim_json(&anim).unwrap();
    assert!(
        json.starts_with("{\"format\":\"omote-anim\""),
        "{}",
        &json[..40]
    );
    let vrma = omote_embed::vrma(&anim, avatar.model.as_ref().unwrap()).unwrap();
    assert_eq!(&vrma[..4], b"glTF");
    let mut broken = anim.clone();
    broken.head.pop();
    assert!(matches!(
        omote_embed::anim_json(&broken),
        Err(EmbedError::Anim(_))
    ));
}

/// The afterglow ends when asked: held for its hold once the line is over, then released;
/// `clear_afterglow` releases it from now; a silent line releases it; `set_expression`
/// leaves it (it adds on top: happy 0.6 acted + 0.3 afterglow). Bad timings are errors.
#[test]
fn the_afterglow_holds_then_releases_and_can_be_cleared() {
    let line = |face: &mut Character| {
        let mut frames = vec![0.0f32; 6 * 100];
        for f in frames.chunks_exact_mut(6).skip(10).take(50) {
            f[0] = 0.9;
        }
        face.say_frames(&frames, 100.0, Some((0.1, 0.6)), &[("happy".into(), 0.3)])
            .unwrap();
    };
    let happy_after = |face: &mut Character, seconds: f32| {
        run(face, seconds);
        face.weight(face.channel("happy").unwrap())
    };
    // The default: held until the next line (the line is over by 1.5 s).
    let mut face = Character::from_rig_json(RIG, 1).unwrap();
    face.set_expression_named("happy", 0.6).unwrap();
    line(&mut face);
    assert!((happy_after(&mut face, 1.5) - 0.9).abs() < 0.02);
    assert!((happy_after(&mut face, 15.0) - 0.9).abs() < 0.02);
    // Held 1 s, released over 0.5 s: back to the acting's 0.6.
    let mut face = Character::from_rig_json(RIG, 1).unwrap();
    face.set_afterglow_timing(1.0, 0.5).unwrap();
    face.set_expression_named("happy", 0.6).unwrap();
    line(&mut face);
    assert!((happy_after(&mut face, 1.5) - 0.9).abs() < 0.02);
    assert!((happy_after(&mut face, 1.5) - 0.6).abs() < 0.02);
    // Cleared: gone 0.3 s later; setting the acting again does not bring it back.
    let mut face = Character::from_rig_json(RIG, 1).unwrap();
    face.set_expression_named("happy", 0.6).unwrap();
    line(&mut face);
    assert!((happy_after(&mut face, 2.0) - 0.9).abs() < 0.02);
    face.set_expression_named("happy", 0.6).unwrap();
    assert!(
        (happy_after(&mut face, 0.5) - 0.9).abs() < 0.02,
        "set_expression leaves it"
    );
    face.clear_afterglow(0.2).unwrap();
    assert!((happy_after(&mut face, 0.5) - 0.6).abs() < 0.02);
    // A silent line releases it.
    let mut face = Character::from_rig_json(RIG, 1).unwrap();
    face.set_expression_named("happy", 0.6).unwrap();
    line(&mut face);
    assert!((happy_after(&mut face, 2.0) - 0.9).abs() < 0.02);
    face.say_frames(&[0.0; 6 * 30], 100.0, None, &[]).unwrap();
    assert!((happy_after(&mut face, 1.0) - 0.6).abs() < 0.02);
    // Bad timings say what was given.
    let e = face.set_afterglow_timing(f32::NAN, 0.5).unwrap_err();
    assert!(e.to_string().contains("afterglow hold NaN"), "{e}");
    assert!(face.clear_afterglow(f32::INFINITY).is_err());
    // Negative times are refused, not read as 0.
    assert!(face.clear_afterglow(-1.0).is_err());
    assert!(face.set_afterglow_timing(-1.0, 0.5).is_err());
    assert!(face.set_afterglow_timing(1.0, -0.5).is_err());
    let e = face.request_blink(-1.0).unwrap_err().to_string();
    assert!(e.contains("≥ 0"), "{e}");
    assert!(face.set_afterglow_timing(f32::INFINITY, 0.5).is_ok());
}

/// A voice profile, given as JSON, is the one every reading uses: the built-in one's text
/// reads exactly as no profile does; one calibrated from a card take — read at 48 kHz as
/// a host's microphone gives it — reads the same voice's other lines better (86.6 →
/// 93.4 % of their vowel frames when written);
/// a bad profile or a take that is not the card is refused with a message.
#[test]
fn a_calibrated_voice_profile_is_the_one_every_reading_uses() {
    use omote_embed::{
        analyse_voice_with_profile, builtin_voice_profile, calibrate_voice_from_card,
    };
    let Some(dir) = omote_testdata::shared_data("speech") else {
        return;
    };
    let builtin = builtin_voice_profile();
    let decoded = omote_audio::decode_file(&dir.join("ja_ojt_002.wav")).unwrap();
    let rate = f64::from(decoded.sample_rate);
    assert_eq!(
        analyse_voice_with_profile(&decoded.samples, rate, Some(&builtin)).unwrap(),
        analyse_voice(&decoded.samples, rate).unwrap()
    );
    let at48 = omote_audio::resample(&decoded.samples, decoded.sample_rate, 48_000).unwrap();
    let stream = |mut s: VoiceStream| -> Vec<f32> {
        at48.chunks(128)
            .flat_map(|q| s.push(q).unwrap().to_vec())
            .collect()
    };
    let plain = stream(VoiceStream::with_hold(48_000.0, true).unwrap());
    assert_eq!(
        plain,
        stream(VoiceStream::with_profile(48_000.0, true, Some(&builtin)).unwrap())
    );
    // A card take from the speaker's own lines: its consonant + vowel syllables (six per
    // vowel, from lines 1–20), each followed by 0.4 s of silence, resampled to 48 kHz.
    let mut take = Vec::new();
    let mut text = Vec::new();
    let mut per_vowel = [0; 5];
    for i in 1..=20 {
        let wav = omote_audio::load_mono(&dir.join(format!("ja_ojt_{i:03}.wav")), SAMPLE_RATE)
            .unwrap()
            .samples;
        let lab = dir.join(format!("ja_ojt_{i:03}.lab.tsv"));
        let labels =
            omote_lipsync::labels::parse_labels(&std::fs::read_to_string(&lab).unwrap(), "lab")
                .unwrap();
        for pair in labels.windows(2) {
            let (c, v) = (&pair[0], &pair[1]);
            let Some(k) = v.class.filter(|k| k.index() < 5).map(|k| k.index()) else {
                continue;
            };
            if c.class.map(|k| k.index()) != Some(5) || c.phone == "cl" || per_vowel[k] == 6 {
                continue;
            }
            per_vowel[k] += 1;
            let cut = |t: f64| ((t * f64::from(SAMPLE_RATE)) as usize).min(wav.len());
            take.extend_from_slice(&wav[cut(c.start_s)..cut(v.end_s)]);
            take.extend(std::iter::repeat_n(0.0, 6400));
            text.push(["a", "i", "u", "e", "o"][k]);
        }
    }
    assert_eq!(per_vowel, [6; 5]);
    let take48 = omote_audio::resample(&take, SAMPLE_RATE, 48_000).unwrap();
    let calibrated =
        calibrate_voice_from_card(&take48, 48_000.0, Some(&text.join(" ")), None).unwrap();
    let moved = Profile::from_json(&calibrated, "calibrated").unwrap();
    assert_ne!(moved.means, Profile::builtin().means);
    // Lines 21–30, read with each profile: vowel frames led by their labelled class.
    let (mut right, mut right_calibrated, mut vowels) = (0, 0, 0);
    for i in 21..=30 {
        let decoded = omote_audio::decode_file(&dir.join(format!("ja_ojt_{i:03}.wav"))).unwrap();
        let rate = f64::from(decoded.sample_rate);
        let lab = dir.join(format!("ja_ojt_{i:03}.lab.tsv"));
        let labels =
            omote_lipsync::labels::parse_labels(&std::fs::read_to_string(&lab).unwrap(), "lab")
                .unwrap();
        let a = analyse_voice(&decoded.samples, rate).unwrap();
        let b = analyse_voice_with_profile(&decoded.samples, rate, Some(&calibrated)).unwrap();
        for f in 0..a.silent.len() {
            let t = f as f64 * 0.01 + 0.005;
            let Some(k) = labels
                .iter()
                .find(|l| l.start_s <= t && t < l.end_s)
                .and_then(|l| l.class)
                .map(|k| k.index())
                .filter(|&k| k < 5)
            else {
                continue;
            };
            vowels += 1;
            right += usize::from(dominant(&a.frames[6 * f..6 * f + 6]) == k);
            right_calibrated += usize::from(dominant(&b.frames[6 * f..6 * f + 6]) == k);
        }
    }
    let (before, after) = (
        100.0 * right as f64 / vowels as f64,
        100.0 * right_calibrated as f64 / vowels as f64,
    );
    println!("Japanese lines 21-30: {before:.1} % built-in, {after:.1} % from a 30-syllable card");
    assert!(after > before + 3.0, "{before} -> {after}");
    // A profile that closes every mouth is the one a stream reads with.
    let mut shut: serde_json::Value = serde_json::from_str(&builtin).unwrap();
    shut["bias"][5] = serde_json::json!(50.0);
    let out = stream(VoiceStream::with_profile(48_000.0, true, Some(&shut.to_string())).unwrap());
    let open: f32 = out
        .chunks(LIVE_STRIDE)
        .map(|f| f[..5].iter().sum::<f32>())
        .fold(0.0, f32::max);
    assert!(open < 0.05, "{open}");
    // Bad profiles and takes are refused with what is wrong.
    let e = VoiceStream::with_profile(48_000.0, true, Some("{}"))
        .err()
        .unwrap();
    assert!(matches!(e, EmbedError::VoiceProfile(_)), "{e}");
    assert!(e.to_string().starts_with("the voice profile: "), "{e}");
    let e = analyse_voice_with_profile(&at48, 48_000.0, Some("{not json")).unwrap_err();
    assert!(e.to_string().starts_with("the voice profile: "), "{e}");
    // A path where the text belongs (the CLI's --profile takes a file) is said so.
    let e = analyse_voice_with_profile(&at48, 48_000.0, Some("me.json")).unwrap_err();
    assert!(e.to_string().ends_with("not its path"), "{e}");
    let e = calibrate_voice_from_card(&take48, 48_000.0, Some("ka ki"), None).unwrap_err();
    assert_eq!(
        e.to_string(),
        "the card take: heard 30 syllables, the card has 2: read one syllable at a time with a short pause (a quarter second) after each"
    );
    let mut bad = take48.clone();
    bad[7] = f32::NAN;
    assert!(matches!(
        calibrate_voice_from_card(&bad, 48_000.0, None, None),
        Err(EmbedError::NonFiniteSample { index: 7, .. })
    ));
    let e = calibrate_voice_from_card(&take48, 48_000.0, None, Some("[]")).unwrap_err();
    assert!(e.to_string().starts_with("the voice profile: "), "{e}");
}

/// Frames played whole take the clip's span ([`omote_embed::VoiceAnalysis::whole_span`],
/// what every binding gives bare frames), and the mouth opens for their "a"; without a
/// span (`None`) a line has no voice and the mouth stays shut, as a silent clip's
/// analysis says.
#[test]
fn frames_played_whole_open_the_mouth_and_no_span_is_no_voice() {
    use omote_embed::VoiceAnalysis;
    let mut frames = vec![0.0f32; 6 * 50];
    for f in frames.chunks_exact_mut(6) {
        f[0] = 0.8;
    }
    let whole = VoiceAnalysis::whole_span(frames.len(), 100.0);
    assert_eq!(whole, Some((0.0, 0.5)));
    assert_eq!(VoiceAnalysis::whole_span(0, 100.0), None);
    assert_eq!(VoiceAnalysis::whole_span(6, f32::NAN), None);
    let track = VoiceAnalysis::from_frames(&frames, 100.0, whole).unwrap();
    assert_eq!(track.silent.iter().filter(|s| **s).count(), 0);
    let avatar = omote_embed::Avatar::load(&omote_embed::AvatarSource::Builtin).unwrap();
    let widest = |say: &dyn Fn(&mut Character)| {
        let mut face = Character::from_avatar(&avatar, 1).unwrap();
        say(&mut face);
        let aa = face.channel("aa").unwrap();
        (0..20).fold(0.0f32, |most, _| {
            face.update(1.0 / 60.0);
            most.max(face.weight(aa))
        })
    };
    let by_track = widest(&|f| f.say_analysis(&track, &[]).unwrap());
    let by_numbers = widest(&|f| f.say_frames(&frames, 100.0, whole, &[]).unwrap());
    let no_voice = widest(&|f| f.say_frames(&frames, 100.0, None, &[]).unwrap());
    assert!(
        by_track > 0.3 && by_numbers > 0.3,
        "{by_track} {by_numbers}"
    );
    assert!(
        no_voice < 0.05,
        "a line with no voice opened the mouth to {no_voice}"
    );
}

/// A line resampled to few frames per second ends its frames before its voice does (3
/// frames at 1 fps for a 3.9 s clip voiced to 3.5 s): it is said, its span ending with
/// its frames, not refused.
#[test]
fn a_line_resampled_to_few_frames_is_said() {
    let tone: Vec<f32> = (0..16_000 * 39 / 10)
        .map(|i| {
            let t = i as f32 / 16_000.0;
            if (0.5..3.5).contains(&t) {
                (t * 900.0).sin() * 0.3
            } else {
                0.0
            }
        })
        .collect();
    let a = omote_embed::analyse_voice(&tone, 16_000.0).unwrap();
    let coarse = a.resampled(1.0).unwrap();
    let (_, end) = coarse.voiced().unwrap();
    assert!(
        end > (coarse.len() as f64),
        "the span should pass the frames: {end}"
    );
    let avatar = omote_embed::Avatar::load(&omote_embed::AvatarSource::Builtin).unwrap();
    let mut face = Character::from_avatar(&avatar, 1).unwrap();
    face.say_analysis(&coarse, &[]).unwrap();
    face.update(1.0 / 60.0);
    assert!(face.weights().iter().all(|w| w.is_finite()));
}

/// A host's own timeline announces its eye-area keys: no automatic blink starts in the
/// suppress window (0.4 s) before any of them, though blinks go on between them.
#[test]
fn an_announced_eye_change_keeps_blinks_off_before_it() {
    let blink_starts = |announce: bool| {
        let mut face = Character::from_rig_json(RIG, 11).unwrap();
        let mut starts = Vec::new();
        let dt = 1.0 / 60.0;
        // An eye key every 0.5 s, announced a second ahead, for a minute.
        let keys: Vec<f64> = (1..120).map(|k| 1.0 + 0.5 * f64::from(k)).collect();
        let mut next = 0;
        for frame in 0..3600 {
            let t = f64::from(frame) * f64::from(dt);
            while announce && next < keys.len() && keys[next] - t <= 1.0 {
                face.announce_eye_change((keys[next] - t) as f32).unwrap();
                next += 1;
            }
            face.update(dt);
            for e in face.events().iter() {
                if let omote_core::FaceEvent::Blink(b) = e {
                    starts.push((b.t, keys.clone()));
                }
            }
        }
        starts
    };
    let in_window = |starts: &[(f64, Vec<f64>)]| {
        starts
            .iter()
            .filter(|(t, keys)| keys.iter().any(|k| (k - 0.4..k - 0.02).contains(t)))
            .count()
    };
    let free = blink_starts(false);
    let announced = blink_starts(true);
    // Unannounced, the keys' windows cover most of the time and catch many blinks.
    assert!(in_window(&free) >= 10, "{}", in_window(&free));
    assert_eq!(in_window(&announced), 0);
    // Blinks still happen: each waits for its key to pass.
    assert!(announced.len() >= 10, "{}", announced.len());
    let mut face = Character::from_rig_json(RIG, 11).unwrap();
    let e = face.announce_eye_change(f32::NAN).unwrap_err().to_string();
    assert!(e.contains("NaN s"), "{e}");
    assert!(face.announce_eye_change(-1.0).is_err());
}

/// Calibrating a tracked character: the head the user holds for the next second is
/// the avatar's straight ahead; without tracking it is refused, by name.
#[test]
fn calibrating_tracking_makes_the_users_pose_straight() {
    let mut face = Character::from_rig_json(RIG, 2).unwrap();
    let e = face.calibrate_tracking(1.0).unwrap_err().to_string();
    assert!(e.contains("tracking is off"), "{e}");
    let mut face = face
        .with_tracking(omote_core::RetargetConfig::default())
        .unwrap();
    let tilted = Quat::from_rotation_x(15f32.to_radians()) * Quat::from_rotation_y(0.3);
    let pitch_yaw = |q: Quat| {
        let (y, x, _) = q.to_euler(omote_core::glam::EulerRot::YXZ);
        (x.to_degrees(), y.to_degrees())
    };
    let run = |face: &mut Character, frames: usize| {
        for _ in 0..frames {
            face.set_tracked_arkit(&[0.0; 52], Some(tilted)).unwrap();
            face.update(1.0 / 30.0);
        }
        pitch_yaw(face.state().head)
    };
    let (p, y) = run(&mut face, 60);
    assert!(p.abs() > 10.0 && y.abs() > 10.0, "{p} {y}");
    face.calibrate_tracking(1.0).unwrap();
    let (p, y) = run(&mut face, 90);
    assert!(p.abs() < 0.5 && y.abs() < 0.5, "{p} {y}");
    assert!(face.calibrate_tracking(f32::INFINITY).is_err());
    let e = face.calibrate_tracking(1e30).unwrap_err().to_string();
    assert!(e.contains("0 to 60 seconds"), "{e}");
}

/// Tracking settings as JSON (what every binding passes): a subset changes only what it
/// names — mirrored, the user's left wink closes the avatar's right eye and the head turns
/// the other way — it reads as the CLI's `--config` reader reads the same text, and an
/// unknown field or a number out of range is refused by name.
#[test]
fn tracking_settings_from_json_mirror_the_user_and_refuse_by_name() {
    let settings = omote_embed::tracking_settings(r#"{"mirror": true, "neckShare": 0.3}"#).unwrap();
    let expected = omote_core::RetargetConfig {
        mirror: true,
        neck_share: 0.3,
        ..Default::default()
    };
    assert_eq!(settings, expected);
    let cli = omote_config::parse_retarget_config(
        r#"{"mirror": true, "neckShare": 0.3}"#,
        omote_config::Format::Json,
        std::path::Path::new("settings.json"),
    )
    .unwrap();
    assert_eq!(settings, cli);
    assert_eq!(
        omote_embed::tracking_settings("{}").unwrap(),
        omote_core::RetargetConfig::default()
    );

    // The neck's share reaches a recording's VRMA (the default half without settings).
    let mut face = Character::from_rig_json(RIG, 3).unwrap();
    assert_eq!(face.neck_share(), omote_core::tracking::NECK_SHARE);
    face.enable_tracking(settings.clone()).unwrap();
    assert_eq!(face.neck_share(), 0.3);
    let avatar = omote_embed::Avatar::load(&omote_embed::AvatarSource::Builtin).unwrap();
    let anim = face_recording(&avatar);
    let model = avatar.model.as_ref().unwrap();
    let vrma = |share| {
        omote_embed::vrma_with_neck_share(&anim, model, share)
            .unwrap()
            .0
    };
    assert_ne!(vrma(0.3), vrma(0.5));
    assert_eq!(vrma(0.5), omote_embed::vrma(&anim, model).unwrap());
    let e = omote_embed::vrma_with_neck_share(&anim, model, 1.5).unwrap_err();
    assert!(e.to_string().contains("1.5 is not a share"), "{e}");

    let wink = |settings: &str| {
        let mut face = Character::from_rig_json(RIG, 3)
            .unwrap()
            .with_tracking(omote_embed::tracking_settings(settings).unwrap())
            .unwrap();
        let mut arkit = [0.0f32; 52];
        arkit[omote_core::tracking::arkit_index("eyeBlinkLeft").unwrap()] = 0.95;
        for _ in 0..30 {
            face.set_tracked_arkit(&arkit, Some(Quat::from_rotation_y(0.3)))
                .unwrap();
            face.update(1.0 / 30.0);
        }
        let w = |n: &str| face.weights()[face.channel(n).unwrap().index()];
        (w("blinkLeft"), w("blinkRight"), face.state().head.y)
    };
    let (left, right, yaw) = wink("{}");
    assert!(
        left > 0.8 && right < 0.1 && yaw > 0.05,
        "{left} {right} {yaw}"
    );
    let (left, right, yaw) = wink(r#"{"mirror": true}"#);
    assert!(
        right > 0.8 && left < 0.1 && yaw < -0.05,
        "{left} {right} {yaw}"
    );

    let e = omote_embed::tracking_settings(r#"{"mirrorr": true}"#)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("tracking settings") && e.contains("unknown field `mirrorr`"),
        "{e}"
    );
    let e = omote_embed::tracking_settings(r#"{"limits": {"yawDeg": -10}}"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("limits.yawDeg = -10"), "{e}");
    let e = omote_embed::tracking_settings(
        r#"{"emotions": [{"target": "happy", "sources": ["jawOpen"], "combine": "maximum", "from": 0.1, "to": 0.5}]}"#,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("`maximum` is not a way to combine: average or max"),
        "{e}"
    );
    let e = omote_embed::tracking_settings(
        r#"{"mouth": {"jawCurve": {"keys": [{"t": 0, "v": 0, "interp": "cubic"}]}}}"#,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("`cubic` is not an interpolation"), "{e}");
    let e = omote_embed::tracking_settings(r#"{"eyes": {"curve": {"key": []}}}"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown field `key`, expected `keys`"), "{e}");
    let custom = omote_embed::tracking_settings(
        r#"{"eyes": {"curve": "ease-in"}, "emotions": [{"target": "happy", "sources": ["mouthSmileLeft"], "combine": "max", "from": 0.2, "to": 0.6}]}"#,
    )
    .unwrap();
    assert_eq!(
        custom.emotions[0].combine,
        omote_core::tracking::Combine::Max
    );
    assert_eq!(
        custom.eyes.curve,
        omote_core::curve::ResponseCurve::preset("ease-in").unwrap()
    );
    let e = omote_embed::tracking_settings("[1, 2]")
        .unwrap_err()
        .to_string();
    assert!(e.contains("tracking settings"), "{e}");
}

/// Named scores and a row-major head transform, as a web page's MediaPipe gives them:
/// the same face as the ARKit-ordered call, whatever the spelling; bad input is named.
#[test]
fn named_scores_and_a_head_matrix_track_as_the_arkit_call_does() {
    let tracked = || {
        Character::from_rig_json(RIG, 5)
            .unwrap()
            .with_tracking(omote_core::RetargetConfig::default())
            .unwrap()
    };
    let turn = Quat::from_rotation_y(0.3);
    let m = omote_core::glam::Mat4::from_quat(turn)
        .transpose()
        .to_cols_array(); // row-major
    let names: Vec<String> = ["_neutral", "jawOpen", "EyeBlink_L", "mouthSmileRight"]
        .map(String::from)
        .to_vec();
    let scores = [0.9, 0.6, 0.8, 0.4];
    let mut by_name = tracked();
    let mut by_index = tracked();
    let mut arkit = [0.0f32; 52];
    for (n, s) in [
        ("jawOpen", 0.6),
        ("eyeBlinkLeft", 0.8),
        ("mouthSmileRight", 0.4),
    ] {
        arkit[omote_core::tracking::arkit_index(n).unwrap()] = s;
    }
    for _ in 0..30 {
        by_name
            .set_tracked_named(&names, &scores, Some(&m))
            .unwrap();
        by_index.set_tracked_arkit(&arkit, Some(turn)).unwrap();
        by_name.update(1.0 / 30.0);
        by_index.update(1.0 / 30.0);
    }
    assert_eq!(by_name.weights(), by_index.weights());
    assert!(by_name.state().head.dot(by_index.state().head).abs() > 0.99999);
    assert!(by_name.state().head.y > 0.05, "the head turned");
    let e = by_name
        .set_tracked_named(&names, &scores[..2], None)
        .unwrap_err();
    assert!(e.to_string().contains("4 names for 2 scores"), "{e}");
    let e = by_name
        .set_tracked_named(&names, &scores, Some(&m[..9]))
        .unwrap_err();
    assert!(e.to_string().contains("9 numbers, not 16"), "{e}");
    let e = by_name
        .set_tracked_named(&names, &scores, Some(&[0.0; 16]))
        .unwrap_err();
    assert!(e.to_string().contains("not a rotation"), "{e}");
    let e = by_name
        .set_tracked_named(&names, &[f32::NAN, 0.0, 0.0, 0.0], None)
        .unwrap_err();
    assert!(e.to_string().contains("NaN"), "{e}");
}

/// A live voice frame holds the mouth between frames (voice frames come at 100 a second,
/// renders at any rate) but not past `LIVE_VOICE_STALE_S`: when the sound stops or the
/// audio thread stalls, the mouth closes instead of staying open (the C trial's engine
/// left it at 0.9 for 10 s).
#[test]
fn a_live_voice_that_stops_coming_closes_the_mouth() {
    let mut face = Character::from_rig_json(RIG, 2).unwrap();
    let aa = face.channel("aa").unwrap();
    let open = [0.9, 0.0, 0.0, 0.0, 0.0, 0.0];
    // Frames every 10 ms, renders at 144 Hz: open throughout.
    let mut t = 0.0f32;
    let mut next_frame = 0.0f32;
    let mut least: f32 = 1.0;
    for i in 0..144 {
        if t >= next_frame {
            face.set_live_vowels(&open, true).unwrap();
            next_frame += 0.01;
        }
        face.update(1.0 / 144.0);
        t += 1.0 / 144.0;
        if i > 20 {
            least = least.min(face.weight(aa));
        }
    }
    assert!(least > 0.8, "the mouth flickered between frames: {least}");
    // No more frames: held a little, then closed.
    // An update well within LIVE_VOICE_STALE_S of the last frame still holds it.
    let held = (LIVE_VOICE_STALE_S * 60.0).floor() as usize - 2;
    let mut at_stale = 0.0;
    for i in 0..60 {
        face.update(1.0 / 60.0);
        if i == held {
            at_stale = face.weight(aa);
        }
    }
    assert!(at_stale > 0.8, "{at_stale}");
    assert!(
        face.weight(aa) < 1e-3,
        "still open a second later: {}",
        face.weight(aa)
    );
}

/// Frames given as numbers hold to the track's rule (each 0–1, a frame's six at most 1):
/// a frame of six ones is scaled to sum 1 in proportion, so its export is a valid track
/// (the Python trial's `from_frames` wrote `w: [1, 1, 1, 1, 1, 1]`).
#[test]
fn frames_given_as_numbers_sum_to_at_most_one() {
    use omote_embed::VoiceAnalysis;
    let frames = [
        1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 3.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.3, 0.2, 0.0, 0.0, 0.0, 0.1,
    ];
    let track = VoiceAnalysis::from_frames(&frames, 100.0, Some((0.0, 0.03))).unwrap();
    let rows: Vec<&[f32]> = track.frames.chunks_exact(6).collect();
    assert!(
        rows[0].iter().all(|v| (v - 1.0 / 6.0).abs() < 1e-6),
        "{:?}",
        rows[0]
    );
    assert_eq!(rows[1], &[1.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    assert_eq!(rows[2], &frames[12..18], "a valid frame is kept as given");
    for r in rows {
        assert!(r.iter().sum::<f32>() <= 1.0 + 1e-6, "{r:?}");
    }
}

/// An emotion that changes over time: `fade_expression` eases the acted weight from
/// where it is to the target (half way at half the time, there at the end, no frame's
/// step more than the smoothstep's steepest), a second fade starts from where the first
/// got to, `set_expression` ends a fade, and a bad time is refused by name.
#[test]
fn an_expression_fades_to_its_weight_eased_and_a_set_ends_the_fade() {
    let mut face = Character::from_rig_json(RIG, 9).unwrap();
    let happy = face.channel("happy").unwrap();
    face.fade_expression_named("happy", 1.0, 0.5).unwrap();
    let mut weights = Vec::new();
    for _ in 0..40 {
        face.update(1.0 / 60.0);
        weights.push(face.weight(happy));
    }
    assert!(weights[0] > 0.0 && weights[0] < 0.02, "{:?}", &weights[..3]);
    assert!(
        (weights[14] - 0.5).abs() < 0.05,
        "half way at 0.25 s: {}",
        weights[14]
    );
    assert_eq!(weights[29], 1.0, "there at 0.5 s");
    let steepest = 1.5 / 0.5 / 60.0 + 1e-4;
    for w in weights.windows(2) {
        assert!(w[1] >= w[0] && w[1] - w[0] <= steepest, "{w:?}");
    }
    // Back down, interrupted half way by a new fade: it starts from where it got to.
    face.fade_expression(happy, 0.0, 1.0).unwrap();
    for _ in 0..30 {
        face.update(1.0 / 60.0);
    }
    let mid = face.weight(happy);
    assert!(mid > 0.3 && mid < 0.7, "{mid}");
    face.fade_expression(happy, 1.0, 1.0).unwrap();
    face.update(1.0 / 60.0);
    assert!(
        (face.weight(happy) - mid).abs() < 0.01,
        "jumped from {mid} to {}",
        face.weight(happy)
    );
    // A weight set at once wins over the fade under way.
    face.set_expression(happy, 0.2).unwrap();
    for _ in 0..60 {
        face.update(1.0 / 60.0);
    }
    assert_eq!(face.weight(happy), 0.2);
    for bad in [f32::NAN, -1.0, 61.0] {
        let e = face
            .fade_expression(happy, 1.0, bad)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("fading `happy`") && e.contains("0 to 60 seconds"),
            "{e}"
        );
    }
}

/// A line said `elapsed` seconds in plays from there: its mouth is the mouth of the same
/// line said at 0 and stepped that far (how a host puts a line back on its audio after
/// a hitch), and a time that is not a number is refused.
#[test]
fn a_line_said_part_way_in_plays_from_there() {
    use omote_embed::VoiceAnalysis;
    let mut frames = vec![0.0f32; 6 * 300];
    for (i, f) in frames.chunks_exact_mut(6).enumerate() {
        f[i / 60 % 5] = 0.9; // a vowel a 0.6 s, in turn
    }
    let line = VoiceAnalysis::from_frames(&frames, 100.0, Some((0.2, 2.8))).unwrap();
    let mouth = |face: &Character| {
        ["aa", "ih", "ou", "ee", "oh"].map(|n| face.weight(face.channel(n).unwrap()))
    };
    let dt = 1.0 / 64.0; // exact in f32: both clocks land on the same times
    let mut stepped = Character::from_rig_json(RIG, 4).unwrap();
    stepped.say_analysis(&line, &[]).unwrap();
    for _ in 0..96 {
        stepped.update(dt); // 1.5 s
    }
    let mut jumped = Character::from_rig_json(RIG, 4).unwrap();
    jumped.say_analysis_at(&line, &[], 1.5 - dt).unwrap();
    jumped.update(dt);
    let (a, b) = (mouth(&stepped), mouth(&jumped));
    assert!(a.iter().sum::<f32>() > 0.5, "{a:?}");
    for (x, y) in a.iter().zip(&b) {
        assert!((x - y).abs() < 1e-4, "{a:?} vs {b:?}");
    }
    let e = jumped
        .say_analysis_at(&line, &[], f32::NAN)
        .unwrap_err()
        .to_string();
    assert!(e.contains("finite number of seconds"), "{e}");
}

/// One second of a tracked head turned 30° to the left on `avatar`, recorded at 30 fps.
fn face_recording(avatar: &omote_embed::Avatar) -> omote_embed::Anim {
    let mut face = Character::from_avatar(avatar, 5)
        .unwrap()
        .with_tracking(Default::default())
        .unwrap();
    face.record(30.0).unwrap();
    for _ in 0..30 {
        face.set_tracked_arkit(&[0.0; 52], Some(Quat::from_rotation_y(30f32.to_radians())))
            .unwrap();
        face.update(1.0 / 30.0);
    }
    face.finish_recording().unwrap()
}
