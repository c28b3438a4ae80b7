//! Behaviour of the analyser: accuracy floors on the held-out speech set, streaming vs
//! offline, silence, calibration, degenerate and hostile input.

use std::path::Path;

use omote_lipsync::degrade::Degradation;
use omote_lipsync::eval::{self, LabelledClip};
use omote_lipsync::labels::{LabelSegment, parse_labels};
use omote_lipsync::score::{ScoreCounts, score_clip};
use omote_lipsync::{
    Analyser, AnalyserConfig, CepstralMean, Profile, ProfileBuilder, SAMPLE_RATE, StreamAnalyser,
    StreamVoicing, SustainedRecordings, Viseme, VoicingConfig, VowelFrame, VowelTrack, export,
};

/// The confusion matrix's column of frames shown silent.
const SILENT_COLUMN: usize = 6;

/// `n` samples of white noise in −0.5..0.5 (xorshift from `seed`, deterministic).
fn white_noise(seed: u32, n: usize) -> impl Iterator<Item = f32> {
    let mut x = seed;
    (0..n).map(move |_| {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        (x as f32 / u32::MAX as f32) - 0.5
    })
}

/// The built-in profile's track of `samples`: streamed in 10 ms chunks, or offline.
fn builtin_track(samples: &[f32], stream: bool) -> omote_lipsync::VowelTrack {
    if stream {
        StreamAnalyser::analyse_in_chunks(
            Profile::builtin(),
            AnalyserConfig::default(),
            samples,
            160,
        )
    } else {
        Analyser::new(Profile::builtin()).analyse(samples)
    }
}

fn load(dir: &Path, name: &str) -> (Vec<f32>, Vec<LabelSegment>) {
    let samples = omote_audio::load_mono(&dir.join(format!("{name}.wav")), SAMPLE_RATE)
        .unwrap()
        .samples;
    let text = std::fs::read_to_string(dir.join(format!("{name}.lab.tsv"))).unwrap();
    (samples, parse_labels(&text, name).unwrap())
}

fn score(names: &[String], dir: &Path, stream: bool, profile: &Profile) -> ScoreCounts {
    let config = AnalyserConfig::default();
    score_with(names, dir, stream.then_some(config), profile)
}

/// Offline with `stream = None`, else streamed with that config (333-sample chunks).
fn score_with(
    names: &[String],
    dir: &Path,
    stream: Option<AnalyserConfig>,
    profile: &Profile,
) -> ScoreCounts {
    let mut total = ScoreCounts::default();
    let mut analyser = Analyser::new(profile.clone());
    for n in names {
        let (samples, labels) = load(dir, n);
        let track = match stream {
            Some(config) => {
                StreamAnalyser::analyse_in_chunks(profile.clone(), config, &samples, 333)
            }
            None => analyser.analyse(&samples),
        };
        total.add(&score_clip(&track, &labels));
    }
    total
}

/// Vowel accuracy and class changes × the labels' of the clips `names`, each streamed
/// cold with `config` and the built-in profile.
fn stream_accuracy_and_changes(names: &[String], dir: &Path, config: AnalyserConfig) -> (f64, f64) {
    let counts = score_with(names, dir, Some(config), &Profile::builtin());
    (
        counts.vowel_accuracy().unwrap(),
        counts.change_ratio().unwrap(),
    )
}

/// Every 4th Japanese clip: a quick held-out subset (the built-in profile never saw the
/// nitech default voice nor these texts).
fn ja_subset() -> Vec<String> {
    (1..=40)
        .step_by(4)
        .map(|i| format!("ja_ojt_{i:03}"))
        .collect()
}

/// The Japanese clips not in [`ja_subset`]: the same speaker, other sentences.
fn ja_calibration_clips() -> Vec<String> {
    let held_out = ja_subset();
    (1..=40)
        .map(|i| format!("ja_ojt_{i:03}"))
        .filter(|n| !held_out.contains(n))
        .collect()
}

fn librivox() -> Vec<String> {
    ["0870", "0880", "0890"]
        .iter()
        .map(|s| format!("en_librivox_{s}"))
        .collect()
}

#[test]
fn japanese_unseen_speaker_offline_and_streaming() {
    let Some(dir) = omote_testdata::shared_data("speech") else {
        return;
    };
    let p = Profile::builtin();
    let off = score(&ja_subset(), &dir, false, &p);
    let str_ = score(&ja_subset(), &dir, true, &p);
    let (vo, so) = (
        off.vowel_accuracy().unwrap(),
        off.silence_accuracy().unwrap(),
    );
    let (vs, ss) = (
        str_.vowel_accuracy().unwrap(),
        str_.silence_accuracy().unwrap(),
    );
    let (co, cs) = (
        off.closed_accuracy().unwrap(),
        str_.closed_accuracy().unwrap(),
    );
    println!(
        "ja subset: offline vowel {vo:.3} silence {so:.3} closed {co:.3}; streaming vowel {vs:.3} silence {ss:.3} closed {cs:.3}"
    );
    // Measured 0.902, then 0.900 since a window's offset is taken off its level (a DC
    // offset is not a floor; EVALUATION.md, "Seventeenth stage").
    assert!(vo >= 0.895, "offline vowel {vo}");
    // Consonants show a closed mouth (the vowel score cannot see a profile that never
    // closes it): one Gaussian per class found 48 % offline, the phone subclasses 64 %.
    assert!(
        co >= 0.55 && cs >= 0.55,
        "closed offline {co}, streaming {cs}"
    );
    assert!(so >= 0.97, "offline silence {so}");
    assert!(vo - vs <= 0.05, "streaming {vs} vs offline {vo}");
    assert!(ss >= 0.97, "streaming silence {ss}");
}

#[test]
fn english_read_speech_floors() {
    let Some(dir) = omote_testdata::shared_data("speech") else {
        return;
    };
    let p = Profile::builtin();
    let off = score(&librivox(), &dir, false, &p);
    let str_ = score(&librivox(), &dir, true, &p);
    let (vo, so) = (
        off.vowel_accuracy().unwrap(),
        off.silence_accuracy().unwrap(),
    );
    let vs = str_.vowel_accuracy().unwrap();
    let co = off.closed_accuracy().unwrap();
    println!(
        "librivox: offline vowel {vo:.3} silence {so:.3} closed {co:.3}; streaming vowel {vs:.3}"
    );
    // Measured 67.0 % with phone subclasses (64.5 % with one Gaussian per class; README);
    // the floor is 60 %, then 65 %.
    assert!(vo >= 0.65, "offline vowel {vo}");
    assert!(co >= 0.45, "closed {co} (one Gaussian per class: 0.37)");
    assert!(so >= 0.95, "offline silence {so}");
    // Voicing on the voice band took offline to 73.3 % and left streaming at 67.8 %.
    assert!(vo - vs <= 0.06, "streaming {vs} vs offline {vo}");
}

#[test]
fn calibration_on_one_speaker_helps_held_out_clips() {
    let Some(dir) = omote_testdata::shared_data("speech") else {
        return;
    };
    let base = Profile::builtin();
    let mut b = ProfileBuilder::new();
    let mut an = Analyser::new(base.clone());
    for name in ja_calibration_clips() {
        let (s, l) = load(&dir, &name);
        b.add_labelled_clip(&an.features(&s), &l);
    }
    let cal = base.calibrated(&b, 20).unwrap();
    let before = score(&ja_subset(), &dir, false, &base)
        .vowel_accuracy()
        .unwrap();
    let after = score(&ja_subset(), &dir, false, &cal)
        .vowel_accuracy()
        .unwrap();
    println!("calibration: {before:.3} -> {after:.3}");
    assert!(after >= before, "calibrated {after} < built-in {before}");
}

#[test]
fn a_context_net_reads_held_out_lines_beside_the_gaussians_offline_and_streamed() {
    let Some(dir) = omote_testdata::shared_data("speech") else {
        return;
    };
    // A profile learnt from 30 Japanese lines, with and without its net; scored on the
    // speaker's 10 other lines.
    let mut b = ProfileBuilder::new().context_net(omote_lipsync::NetOptions::default());
    let mut an = Analyser::new(Profile::builtin());
    for name in ja_calibration_clips() {
        let (s, l) = load(&dir, &name);
        b.add_labelled_clip(&an.features(&s), &l);
    }
    let hybrid = b.build("ja + net", true, 1.0).unwrap();
    let net = hybrid.context_net.clone().expect("a net");
    let mut gaussians = hybrid.clone();
    gaussians.context_net = None;
    let held = ja_subset();
    let read = |p: &Profile, stream: bool| score(&held, &dir, stream, p).vowel_accuracy().unwrap();
    let (g, h) = (read(&gaussians, false), read(&hybrid, false));
    let (gs, hs) = (read(&gaussians, true), read(&hybrid, true));
    println!("held-out ja: Gaussians {g:.3} → with the net {h:.3}; streamed {gs:.3} → {hs:.3}");
    assert!(h > g, "offline {g} -> {h}");
    assert!(hs >= gs - 0.005, "streamed {gs} -> {hs}");
    // The net alone reads the lines too (it is not a constant the Gaussians outweigh).
    let mut alone = hybrid.clone();
    alone.context_net = Some(omote_lipsync::ContextNet {
        weight: 100.0,
        ..net
    });
    let a = read(&alone, false);
    println!("the net alone (weight 100): {a:.3}");
    assert!(a > 0.8, "net alone {a}");
}

/// "Sustained vowel" recordings of one speaker: per vowel, the inner parts (15 ms in from
/// each boundary) of every segment of that vowel in `names`, joined end to end.
fn sustained_from(dir: &Path, names: &[String]) -> SustainedRecordings {
    let mut per_class: Vec<Vec<f32>> = vec![Vec::new(); 5];
    for n in names {
        let (samples, labels) = load(dir, n);
        for seg in &labels {
            let Some(v) = seg.class else { continue };
            if v == Viseme::N {
                continue;
            }
            let a = ((seg.start_s + 0.015) * SAMPLE_RATE as f64) as usize;
            let b = (((seg.end_s - 0.015) * SAMPLE_RATE as f64) as usize).min(samples.len());
            if b > a {
                per_class[v.index()].extend_from_slice(&samples[a..b]);
            }
        }
    }
    let mut an = Analyser::new(Profile::builtin());
    let mut rec = SustainedRecordings::new();
    for (k, samples) in per_class.iter().enumerate() {
        rec.add(Viseme::ALL[k], &an.features(samples));
    }
    rec
}

#[test]
fn calibration_from_sustained_vowels_helps_held_out_clips() {
    let Some(dir) = omote_testdata::shared_data("speech") else {
        return;
    };
    let base = Profile::builtin();
    let rec = sustained_from(&dir, &ja_calibration_clips());
    assert!(
        rec.counts()[..5].iter().all(|&n| n >= 40),
        "{:?}",
        rec.counts()
    );
    let cal = base.calibrated_from_sustained(&rec, 40).unwrap();
    let before = score(&ja_subset(), &dir, false, &base);
    let after = score(&ja_subset(), &dir, false, &cal);
    let after_stream = score(&ja_subset(), &dir, true, &cal);
    let (b, a, s) = (
        before.vowel_accuracy().unwrap(),
        after.vowel_accuracy().unwrap(),
        after_stream.vowel_accuracy().unwrap(),
    );
    println!("sustained calibration: {b:.3} -> {a:.3} (streaming {s:.3})");
    assert!(a >= b + 0.01, "calibrated {a} vs built-in {b}");
    assert!(a - s <= 0.08, "streaming {s} vs offline {a}");
    assert!(after.silence_accuracy().unwrap() >= 0.97);
    // One vowel alone only tells the speaker's offset: the class means keep their shape.
    let mut only_a = SustainedRecordings::new();
    let mut an = Analyser::new(base.clone());
    let (samples, _) = load(&dir, "ja_ojt_002");
    only_a.add(Viseme::A, &an.features(&samples));
    let one = base.calibrated_from_sustained(&only_a, 40).unwrap();
    for k in 0..6 {
        for j in 0..omote_lipsync::N_CEPS {
            assert!((one.means[k][j] - base.means[k][j]).abs() < 1e-4);
        }
    }
}

#[test]
fn voiced_span_is_found_at_any_level() {
    let Some(dir) = omote_testdata::shared_data("speech") else {
        return;
    };
    let (samples, labels) = load(&dir, "ja_ojt_005");
    let speech_start = labels.iter().find(|l| l.class.is_some()).unwrap().start_s;
    let speech_end = labels
        .iter()
        .rev()
        .find(|l| l.class.is_some())
        .unwrap()
        .end_s;
    let mut an = Analyser::new(Profile::builtin());
    for gain_db in [-30.0f32, -15.0, 0.0] {
        let g = 10f32.powf(gain_db / 20.0);
        // Quiet pink-ish noise floor under the scaled voice, 50 dB below its peak.
        let mut x: u32 = 7;
        let noisy: Vec<f32> = samples
            .iter()
            .map(|s| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                s * g + g * 0.003 * ((x as f32 / u32::MAX as f32) - 0.5)
            })
            .collect();
        let span = an.analyse(&noisy).voiced_span.unwrap();
        println!(
            "gain {gain_db} dB: span {:.2}..{:.2}, labels {speech_start:.2}..{speech_end:.2}",
            span.start_s, span.end_s
        );
        // The line opens on /k/, labelled from its closure, which is silent in any voice:
        // the voice may start up to 0.1 s later, at the burst (at −30 dB, 1.32 s against
        // 1.24: the closure's frames are loud only under the voice band, a bump of the
        // synthesis), never earlier than 0.06 s before.
        let late = span.start_s - speech_start;
        assert!(
            (-0.06..0.1).contains(&late),
            "gain {gain_db}: start {} vs {speech_start}",
            span.start_s
        );
        assert!(
            (span.end_s - speech_end).abs() < 0.12,
            "gain {gain_db}: end {} vs {speech_end}",
            span.end_s
        );
    }
}

#[test]
fn empty_and_one_sample_inputs() {
    let mut an = Analyser::new(Profile::builtin());
    let t = an.analyse(&[]);
    assert!(t.frames.is_empty() && t.voiced_span.is_none());
    let t = an.analyse(&[0.5]);
    assert!(t.frames.is_empty());
    let mut s = StreamAnalyser::new(Profile::builtin());
    let mut out = Vec::new();
    s.push(&[], &mut out);
    s.push(&[0.5], &mut out);
    s.finish(&mut out);
    assert!(out.is_empty());
    assert_eq!(export::to_tsv(&t).lines().next(), Some(export::TSV_HEADER));
}

#[test]
fn ten_hours_of_silence_streamed_is_all_silent_and_cheap() {
    let mut s = StreamAnalyser::new(Profile::builtin());
    let chunk = vec![0f32; SAMPLE_RATE as usize]; // one second
    let mut out: Vec<VowelFrame> = Vec::with_capacity(200);
    let mut frames = 0u64;
    for _ in 0..10 * 3600 {
        out.clear();
        s.push(&chunk, &mut out);
        frames += out.len() as u64;
        assert!(out.iter().all(|f| f.silent && f.weights == [0.0; 6]));
    }
    assert!(frames >= 10 * 3600 * 100 - 2);
}

#[test]
fn long_zero_buffer_offline_is_silent() {
    let samples = vec![0f32; SAMPLE_RATE as usize * 60];
    let t = Analyser::new(Profile::builtin()).analyse(&samples);
    assert_eq!(t.frames.len(), 6000);
    assert!(t.frames.iter().all(|f| f.silent) && t.voiced_span.is_none());
}

#[test]
fn clipping_noise_and_non_finite_samples_give_valid_frames() {
    let mut x: u32 = 99;
    let mut samples: Vec<f32> = (0..SAMPLE_RATE as usize * 2)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            if x & 1 == 0 { 1.0 } else { -1.0 }
        })
        .collect();
    samples[100] = f32::NAN;
    samples[200] = f32::INFINITY;
    for t in [
        Analyser::new(Profile::builtin()).analyse(&samples),
        StreamAnalyser::analyse_in_chunks(
            Profile::builtin(),
            AnalyserConfig::default(),
            &samples,
            1000,
        ),
    ] {
        assert_eq!(t.frames.len(), 200);
        for f in &t.frames {
            let sum: f32 = f.weights.iter().sum();
            assert!(f.weights.iter().all(|w| w.is_finite() && *w >= 0.0) && sum <= 1.0 + 1e-5);
            assert!(f.volume.is_finite() && (0.0..=1.0).contains(&f.volume));
        }
    }
}

#[test]
fn streaming_is_chunk_size_independent() {
    let mut x: u32 = 3;
    let samples: Vec<f32> = (0..SAMPLE_RATE as usize)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let t = i as f32 / SAMPLE_RATE as f32;
            0.3 * (2.0 * std::f32::consts::PI * 150.0 * t).sin() * (t * 3.0).sin().abs()
                + 0.001 * (x as f32 / u32::MAX as f32)
        })
        .collect();
    let a = StreamAnalyser::analyse_in_chunks(
        Profile::builtin(),
        AnalyserConfig::default(),
        &samples,
        1,
    );
    let b = StreamAnalyser::analyse_in_chunks(
        Profile::builtin(),
        AnalyserConfig::default(),
        &samples,
        4097,
    );
    assert_eq!(a, b);
    assert_eq!(a.frames.len(), 100);
}

#[test]
fn builtin_profile_round_trips_and_bad_profiles_are_named() {
    let p = Profile::builtin();
    assert_eq!(Profile::from_json(&p.to_json(), "x").unwrap(), p);
    let e = Profile::from_json("{}", "mine.json").unwrap_err();
    assert!(e.to_string().contains("mine.json"));
}

#[test]
fn rhubarb_exports_use_rhubarb_shapes() {
    let mut t = Analyser::new(Profile::builtin()).analyse(&[0.0; 16_000]);
    for f in &mut t.frames[10..20] {
        *f = VowelFrame {
            weights: [0.9, 0.0, 0.0, 0.0, 0.0, 0.1],
            volume: 1.0,
            silent: false,
        };
    }
    // One frame of O: too brief to draw, it goes to the D around it.
    t.frames[15].weights = [0.0, 0.0, 0.0, 0.0, 0.9, 0.1];
    let cues = export::rhubarb_cues(&t);
    assert_eq!(cues.iter().map(|c| c.2).collect::<String>(), "XDEDX");
    let json: serde_json::Value =
        serde_json::from_str(&export::to_rhubarb_json(&t, "a.wav")).unwrap();
    assert_eq!(json["mouthCues"][1]["value"], "D");
    assert_eq!(json["mouthCues"][1]["start"], 0.1);
    assert_eq!(json["mouthCues"][1]["end"], 0.2);
    assert_eq!(json["mouthCues"].as_array().unwrap().len(), 3);
    assert_eq!(
        export::to_rhubarb_tsv(&t),
        "0.00\tX\n0.10\tD\n0.20\tX\n1.00\tX\n"
    );
    assert!(
        export::to_rhubarb_xml(&t, "a.wav")
            .contains("<mouthCue start=\"0.10\" end=\"0.20\">D</mouthCue>")
    );
    assert_eq!(Viseme::from_letter('O'), Some(Viseme::O));
}

#[test]
fn resampled_track_keeps_duration() {
    let t = Analyser::new(Profile::builtin()).analyse(&[0.0; 32_000]);
    let r = t.resampled(60.0);
    assert_eq!(r.frames.len(), 120);
    assert!((r.time_of(0) - 0.5 / 60.0).abs() < 1e-9);
}

/// Mouth flicker: how often the dominant class changes inside labelled speech, per
/// labelled phone change (`../shared/tools/lipsync-change-rate.py`'s measure). Without
/// the offline HMM pass and the short-run filter (`hmm_stay` 0, `min_run` 1) the
/// per-frame softmax flips 1.4–2.2× as often as the phones; the default (the HMM whose
/// stay follows the spectrum, then `min_run` 4) is near 1.0× while vowel accuracy does
/// not drop. Streaming (the `ClassFilter` HMM with one frame of look-ahead and the blip
/// filter) is at 1.3–1.7× (the exponential smoothing it replaced was less accurate on
/// every group), at the lowest latency (no look-ahead) 1.5–2.1×. The HMM alone (no
/// short-run filter, no log-score smoothing) is the third figure.
#[test]
fn mouth_flicker_stays_near_the_phone_rate() {
    let Some(dir) = omote_testdata::shared_data("speech") else {
        return;
    };
    let names: Vec<String> = ja_subset().into_iter().chain(librivox()).collect();
    let p = Profile::builtin();
    let run = |config: AnalyserConfig| {
        let mut analyser = Analyser::with_config(p.clone(), config);
        let mut total = ScoreCounts::default();
        for n in &names {
            let (samples, labels) = load(&dir, n);
            total.add(&score_clip(&analyser.analyse(&samples), &labels));
        }
        total
    };
    let plain = run(AnalyserConfig {
        min_run: 1,
        hmm_stay: 0.0,
        ..AnalyserConfig::default()
    });
    let default = run(AnalyserConfig::default());
    let hmm = run(AnalyserConfig {
        smooth_radius: 0,
        min_run: 1,
        ..AnalyserConfig::default()
    });
    let streamed = score(&names, &dir, true, &p);
    let fastest = score_with(&names, &dir, Some(AnalyserConfig::lowest_latency()), &p);
    let ratio = |c: &ScoreCounts| c.change_ratio().unwrap();
    let vowel = |c: &ScoreCounts| c.vowel_accuracy().unwrap();
    println!(
        "change ratio: per frame {:.2}, default {:.2}, HMM {:.2}, streaming {:.2}, lowest latency {:.2}; vowel {:.3} / {:.3} / {:.3} / {:.3} / {:.3}",
        ratio(&plain),
        ratio(&default),
        ratio(&hmm),
        ratio(&streamed),
        ratio(&fastest),
        vowel(&plain),
        vowel(&default),
        vowel(&hmm),
        vowel(&streamed),
        vowel(&fastest)
    );
    assert!(
        ratio(&plain) >= 1.5,
        "the per-frame output is the reference"
    );
    assert!(
        ratio(&default) <= 1.3,
        "default flickers {}× the labels",
        ratio(&default)
    );
    assert!(
        vowel(&default) >= vowel(&plain) - 0.01,
        "the short-run filter lost accuracy: {} → {}",
        vowel(&plain),
        vowel(&default)
    );
    assert!(
        ratio(&streamed) <= 1.5,
        "streaming flickers {}×",
        ratio(&streamed)
    );
    assert!(
        vowel(&streamed) >= vowel(&plain) - 0.03,
        "streaming lost accuracy: {} (per frame offline {})",
        vowel(&streamed),
        vowel(&plain)
    );
    assert!(
        ratio(&fastest) <= 1.75 && ratio(&fastest) > ratio(&streamed),
        "lowest latency flickers {}× (held: {}×)",
        ratio(&fastest),
        ratio(&streamed)
    );
    assert!(vowel(&fastest) >= vowel(&plain) - 0.03);
    assert!(
        ratio(&hmm) < ratio(&plain) - 0.1,
        "the HMM pass alone flickers {}× the labels (per frame {}×)",
        ratio(&hmm),
        ratio(&plain)
    );
    assert!(vowel(&hmm) >= vowel(&plain) - 0.04);
}

/// Every 4th espeak clip: the development set the few hyper-parameters were tuned on.
fn espeak_subset() -> Vec<String> {
    (1..=20)
        .step_by(4)
        .map(|i| format!("en_espeak_{i:03}"))
        .collect()
}

/// The same clips recorded under `d` (as `omote lipsync eval` makes its variant groups).
fn score_degraded(names: &[String], dir: &Path, stream: bool, d: Degradation) -> ScoreCounts {
    let mut total = ScoreCounts::default();
    let p = Profile::builtin();
    let mut analyser = Analyser::new(p.clone());
    for (i, n) in names.iter().enumerate() {
        let (samples, labels) = load(dir, n);
        let samples = d.apply(&samples, i as u64);
        let track = if stream {
            StreamAnalyser::analyse_in_chunks(p.clone(), AnalyserConfig::default(), &samples, 160)
        } else {
            analyser.analyse(&samples)
        };
        total.add(&score_clip(&track, &labels));
    }
    total
}

/// The shipped profile is what `tools/lipsync/build-default-profile.sh` makes with today's
/// defaults: every vowel has its real-voice Gaussian at its default share (issue 39), and
/// the closed mouth none.
#[test]
fn the_builtin_profile_has_a_real_voice_gaussian_per_vowel() {
    let p = Profile::builtin();
    for v in Viseme::ALL {
        let real: Vec<f32> = p
            .subclasses
            .iter()
            .filter(|s| s.class == v && s.phone == omote_lipsync::REAL_VOICE_PHONE)
            .map(|s| s.log_weight.exp())
            .collect();
        match v {
            Viseme::N => assert!(real.is_empty()),
            _ => {
                let want = omote_lipsync::DEFAULT_REAL_SHARES[v.index()];
                assert_eq!(real.len(), 1, "{v:?}");
                assert!(
                    (real[0] - want).abs() < 1e-4,
                    "{v:?}: {} != {want}",
                    real[0]
                );
            }
        }
    }
}

/// Floors per recording condition and group, offline and streaming (vowel %, silence %),
/// a few points under what was measured when they were set (README, evaluation table).
#[test]
fn noisy_and_quiet_variants_floors() {
    let Some(dir) = omote_testdata::shared_data("speech") else {
        return;
    };
    type Floors = [(Degradation, [f64; 4]); 4];
    // (condition, [offline vowel, offline silence, streaming vowel, streaming silence])
    let groups: [(&str, Vec<String>, Floors); 3] = [
        (
            "ja",
            ja_subset(),
            [
                (Degradation::Quiet, [0.87, 0.97, 0.84, 0.97]),
                // Streaming raised when its floor began to follow the noise's steadiness
                // (this subset, cold streams: pink 0.776 → 0.793, hum 0.848 → 0.882).
                (Degradation::Noisy, [0.80, 0.97, 0.77, 0.97]),
                // Offline hum lowered a point with the nucleus vote (this subset 0.905 →
                // 0.897; the whole group 92.5 → 91.9 %, EVALUATION.md "Tenth stage"), and
                // half a point when a DC offset stopped counting as level (→ 0.889; the
                // group 91.7 → 90.6 %, "Seventeenth stage").
                (Degradation::Hum, [0.885, 0.97, 0.86, 0.97]),
                (Degradation::Telephone, [0.90, 0.97, 0.88, 0.97]),
            ],
        ),
        (
            "espeak",
            espeak_subset(),
            [
                (Degradation::Quiet, [0.71, 0.97, 0.73, 0.97]),
                // Streaming floors lowered 2 points when the class filter began to follow
                // the spectrum (Japanese +1, espeak −1 to −2: this subset's pink 0.687 →
                // 0.669, band 0.759 → 0.749; EVALUATION.md "The class filter follows the spectrum").
                (Degradation::Noisy, [0.73, 0.97, 0.65, 0.97]),
                (Degradation::Hum, [0.72, 0.97, 0.73, 0.97]),
                (Degradation::Telephone, [0.72, 0.97, 0.73, 0.97]),
            ],
        ),
        (
            "librivox",
            librivox(),
            [
                (Degradation::Quiet, [0.65, 0.95, 0.63, 0.95]),
                // Offline, the floor may not put the threshold within 10 dB of the speech
                // level (measured on these three clips before that rule: 48.2 %, after:
                // 61.5 %; `eval`'s whole group: 46.7 → 58.6 %).
                (Degradation::Noisy, [0.55, 0.95, 0.57, 0.95]),
                (Degradation::Hum, [0.61, 0.95, 0.62, 0.95]),
                (Degradation::Telephone, [0.68, 0.95, 0.62, 0.95]),
            ],
        ),
    ];
    let mut failures = Vec::new();
    for (group, names, floors) in &groups {
        for (d, f) in floors {
            let off = score_degraded(names, &dir, false, *d);
            let on = score_degraded(names, &dir, true, *d);
            let got = [
                off.vowel_accuracy().unwrap(),
                off.silence_accuracy().unwrap(),
                on.vowel_accuracy().unwrap(),
                on.silence_accuracy().unwrap(),
            ];
            println!(
                "{group} +{}: offline vowel {:.3} silence {:.3} (changes {:.2}×), streaming vowel {:.3} silence {:.3}",
                d.name(),
                got[0],
                got[1],
                off.change_ratio().unwrap(),
                got[2],
                got[3]
            );
            for (k, what) in [
                "offline vowel",
                "offline silence",
                "streaming vowel",
                "streaming silence",
            ]
            .iter()
            .enumerate()
            {
                if got[k] < f[k] {
                    failures.push(format!(
                        "{group} +{} {what}: {:.3} < {}",
                        d.name(),
                        got[k],
                        f[k]
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// A clip's labelled speech segments joined end to end (no pause left), with its labels
/// shifted to match.
fn voiced_segments_joined(dir: &Path, name: &str) -> (Vec<f32>, Vec<LabelSegment>) {
    let (samples, labels) = load(dir, name);
    let rate = f64::from(SAMPLE_RATE);
    let mut joined = Vec::new();
    let mut shifted = Vec::new();
    for l in labels.iter().filter(|l| l.class.is_some()) {
        let (a, b) = ((l.start_s * rate) as usize, (l.end_s * rate) as usize);
        let start_s = joined.len() as f64 / rate;
        joined.extend_from_slice(&samples[a..b.min(samples.len())]);
        shifted.push(LabelSegment {
            start_s,
            end_s: joined.len() as f64 / rate,
            ..l.clone()
        });
    }
    (joined, shifted)
}

/// The same take with no pause, through a hard compressor (levels within a few dB, as
/// broadcast and phone prompts are): its quieter tenth is still speech, only a few dB
/// under the loud part. The threshold may not sit within 10 dB of the speech level, or
/// much of the take goes silent (some Spanish telephone prompts went silent whole).
#[test]
fn a_compressed_take_with_no_pause_is_voiced() {
    let Some(dir) = omote_testdata::shared_data("speech") else {
        return;
    };
    let (joined, labels) = voiced_segments_joined(&dir, "ja_ojt_005");
    // Envelope follower (5 ms attack, 50 ms release), gain toward a −12 dBFS envelope.
    let (attack, release) = (1.0 - (-1.0 / 80.0f32).exp(), 1.0 - (-1.0 / 800.0f32).exp());
    let mut env = 0.0f32;
    let squashed: Vec<f32> = joined
        .iter()
        .map(|x| {
            let a = x.abs();
            env += (a - env) * if a > env { attack } else { release };
            x * (0.25 / env.max(1e-3)).powf(0.9).min(40.0)
        })
        .collect();
    for stream in [false, true] {
        let c = score_clip(&builtin_track(&squashed, stream), &labels);
        let to_silence: u64 = c.confusion.iter().map(|r| r[SILENT_COLUMN]).sum();
        println!(
            "compressed, no pause, stream {stream}: vowel {:.3}, vowel frames called silent {to_silence}/{}",
            c.vowel_accuracy().unwrap(),
            c.vowel_n
        );
        assert!(
            to_silence as f64 <= 0.15 * c.vowel_n as f64,
            "stream {stream}: {to_silence} silent"
        );
        assert!(c.vowel_accuracy().unwrap() >= 0.8, "stream {stream}");
    }
}

/// Streaming, the same limit: over an unsteady floor (block minima −40, −37, … dBFS, so
/// the full 12 dB margin would put the threshold at −24) under speech peaking at −22, the
/// threshold stays 10 dB under the speech level (−20: at least 20 over the floor), and a
/// vowel at −27 dBFS is voiced.
#[test]
fn the_stream_threshold_stays_ten_db_under_the_speech() {
    let mut v = StreamVoicing::new(VoicingConfig::default());
    for i in 0..300 {
        let block_min = -40.0 + 3.0 * ((i / 25) % 6) as f32;
        let level = match i % 25 {
            0 => block_min,
            k if k % 5 == 0 => -22.0,
            _ => -32.0,
        };
        v.update(level);
    }
    let (threshold, speech) = (v.threshold_db(), v.speech_db());
    println!("threshold {threshold:.1} dBFS, speech {speech:.1} dBFS");
    assert!(threshold <= speech - 10.0 + 1e-3, "{threshold} vs {speech}");
    assert!(v.update(-27.0), "a vowel 13 dB over the floor is voiced");
}

/// A take with no pause at all (the voiced segments of a clip joined, labels shifted to
/// match): the clip-adaptive floor must not call its quieter half silence.
#[test]
fn a_clip_with_no_silence_at_all_is_voiced() {
    let Some(dir) = omote_testdata::shared_data("speech") else {
        return;
    };
    let (joined, shifted) = voiced_segments_joined(&dir, "ja_ojt_005");
    for stream in [false, true] {
        let track = builtin_track(&joined, stream);
        let c = score_clip(&track, &shifted);
        let to_silence: u64 = c.confusion.iter().map(|r| r[SILENT_COLUMN]).sum();
        let silent = track.frames.iter().filter(|f| f.silent).count();
        println!(
            "no pause, stream {stream}: vowel {:.3}, vowel frames called silent {to_silence}/{}, silent frames {silent}/{}",
            c.vowel_accuracy().unwrap(),
            c.vowel_n,
            track.frames.len()
        );
        assert_eq!(c.silence_n, 0);
        // Offline sees that the clip has no pause (measured: 95.2 %, 4 of 104 vowel frames
        // silent, where the voice band is quiet; on the whole level 89.4 % and none).
        // Streaming cannot know it and takes the quietest closures for the floor
        // (measured: 75.0 %, 11 of 104 vowel frames silent, all next to a closure).
        let (vowel, silent_share) = if stream { (0.72, 0.15) } else { (0.85, 0.05) };
        assert!(c.vowel_accuracy().unwrap() >= vowel, "stream {stream}");
        assert!(
            (to_silence as f64) <= silent_share * c.vowel_n as f64,
            "stream {stream}"
        );
    }
}

/// A stream that starts mid-word (a voice line trimmed to its first vowel, normalised to
/// −3 dBFS peak as lines usually are; a microphone opened while someone talks) has no
/// floor yet: its first minimum is the word itself. It must hear the word, not wait for
/// the first pause.
#[test]
fn a_stream_that_starts_mid_word_hears_the_word() {
    let Some(dir) = omote_testdata::shared_data("speech") else {
        return;
    };
    let rate = f64::from(SAMPLE_RATE);
    let (mut early, mut heard) = (0usize, 0usize);
    for name in ja_subset() {
        let (samples, labels) = load(&dir, &name);
        let first = labels
            .iter()
            .find(|l| l.class.is_some_and(|c| c != Viseme::N))
            .unwrap();
        let cut = (first.start_s * rate) as usize;
        let peak = samples.iter().fold(0f32, |m, x| m.max(x.abs()));
        let gain = 10f32.powf(-3.0 / 20.0) / peak;
        let trimmed: Vec<f32> = samples[cut..].iter().map(|x| x * gain).collect();
        let track = builtin_track(&trimmed, true);
        // Vowel frames of the first half second (frame centres, labels shifted by the cut).
        for (i, frame) in track.frames.iter().enumerate().take(50) {
            let t = first.start_s + (i as f64 + 0.5) / 100.0;
            let vowel = labels
                .iter()
                .find(|l| l.start_s <= t && t < l.end_s)
                .is_some_and(|l| l.class.is_some_and(|c| c != Viseme::N));
            if vowel {
                early += 1;
                heard += usize::from(!frame.silent);
            }
        }
    }
    println!("mid-word starts: {heard} of {early} early vowel frames voiced");
    assert!(early >= 200, "{early}");
    // Measured: 247 of 283 (87 %); before, 115 of 283 (41 %). The misses are each
    // stream's first two frames and soft vowels after a closure under −30 dBFS has
    // become the floor.
    assert!(heard as f64 >= 0.8 * early as f64, "{heard} of {early}");
}

/// The price of the rule above, bounded: a loud steady room (−26 dBFS, louder than the
/// floor a stream trusts before it has heard one) is voiced at most until a steady
/// quarter second has been heard, and silent after.
#[test]
fn a_loud_room_is_silent_after_a_quarter_second() {
    let samples: Vec<f32> = white_noise(777, SAMPLE_RATE as usize * 3)
        .map(|x| 0.17 * x)
        .collect();
    let on = builtin_track(&samples, true);
    let voiced: Vec<usize> = (0..on.frames.len())
        .filter(|&i| !on.frames[i].silent)
        .collect();
    println!("loud room: voiced frames {voiced:?}");
    assert!(voiced.iter().all(|&i| i < 30), "{voiced:?}");
}

/// A take that is all room: steady noise with hum and no voice, offline and streamed, is
/// silence throughout (no mouth moves).
#[test]
fn a_clip_that_is_all_noise_floor_is_silent() {
    let samples: Vec<f32> = white_noise(12345, SAMPLE_RATE as usize * 4)
        .enumerate()
        .map(|(i, x)| {
            let t = i as f32 / SAMPLE_RATE as f32;
            0.01 * x + 0.003 * (std::f32::consts::TAU * 50.0 * t).sin()
        })
        .collect();
    let off = builtin_track(&samples, false);
    assert!(off.frames.iter().all(|f| f.silent && f.weights == [0.0; 6]));
    assert!(off.voiced_span.is_none());
    let on = builtin_track(&samples, true);
    let voiced = on.frames.iter().filter(|f| !f.silent).count();
    assert!(
        voiced <= 2,
        "{voiced} of {} streamed frames voiced",
        on.frames.len()
    );
}

/// A profile of finite but huge numbers is refused on load (it would score inf − inf =
/// NaN); one at the limits of every range still analyses into finite weights; a
/// builder never makes a profile that `from_json` refuses.
#[test]
fn profiles_are_bounded_so_no_frame_is_nan() {
    let base = Profile::builtin();
    type Break = fn(&mut Profile);
    let huge: [(&str, Break); 7] = [
        ("means", |p| p.means[0][0] = 1e30),
        ("subclasses[].mean", |p| p.subclasses[3].mean[1] = -1e30),
        ("subclasses[].log_weight", |p| {
            p.subclasses[0].log_weight = -1e30
        }),
        ("precision", |p| p.precision[0][0] = 1e30),
        ("globalMean", |p| p.global_mean[3] = -1e30),
        ("bias", |p| p.bias[2] = 1e30),
        ("sharpness", |p| p.sharpness = 1e30),
    ];
    for (field, make) in huge {
        let mut p = base.clone();
        make(&mut p);
        let e = Profile::from_json(&p.to_json(), "huge.json").unwrap_err();
        assert!(e.to_string().contains(field), "{field}: {e}");
    }
    // Everything at its limit: loud noise and a buzz give finite weights summing to ≤ 1.
    let mut p = base.clone();
    p.means = [[omote_lipsync::MAX_MEAN; 12]; 6];
    p.means[1] = [-omote_lipsync::MAX_MEAN; 12];
    let mut seen = [false; 6];
    for (i, s) in p.subclasses.iter_mut().enumerate() {
        let sign = if i % 2 == 0 { 1.0 } else { -1.0 };
        s.mean = [sign * omote_lipsync::MAX_MEAN; 12];
        // One phone takes its class's whole share, the others the least allowed.
        let first = !std::mem::replace(&mut seen[s.class.index()], true);
        s.log_weight = if first { 0.0 } else { -omote_lipsync::MAX_BIAS };
    }
    p.precision = [[omote_lipsync::MAX_PRECISION; 12]; 12];
    p.sharpness = omote_lipsync::SHARPNESS_RANGE.1;
    p.bias = [
        omote_lipsync::MAX_BIAS,
        -omote_lipsync::MAX_BIAS,
        0.0,
        0.0,
        0.0,
        0.0,
    ];
    let p = Profile::from_json(&p.to_json(), "limits.json").unwrap();
    let buzz: Vec<f32> = omote_testdata::buzz(SAMPLE_RATE, 1.0, 0.2..0.8)
        .iter()
        .map(|s| f32::from(*s) / 32768.0)
        .collect();
    let mut rng = 1u32;
    let noise: Vec<f32> = (0..16_000)
        .map(|_| {
            rng = rng.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (rng >> 8) as f32 / (1 << 23) as f32 - 1.0
        })
        .collect();
    for samples in [&buzz, &noise] {
        for track in [
            Analyser::new(p.clone()).analyse(samples),
            StreamAnalyser::analyse_in_chunks(p.clone(), AnalyserConfig::default(), samples, 160),
        ] {
            for f in &track.frames {
                assert!(f.weights.iter().all(|w| w.is_finite()), "{:?}", f.weights);
                assert!(f.weights.iter().sum::<f32>() <= 1.0 + 1e-4);
            }
        }
    }
}

/// `samples` and `labels` cut into lines at every pause (the middle of each silence
/// label), as a voice actor's script would split it; each line's labels start at 0.
fn lines_between_pauses(
    samples: &[f32],
    labels: &[LabelSegment],
) -> Vec<(Vec<f32>, Vec<LabelSegment>)> {
    let rate = f64::from(SAMPLE_RATE);
    let mut cuts = vec![0.0];
    cuts.extend(
        labels
            .iter()
            .filter(|l| l.class.is_none())
            .map(|l| 0.5 * (l.start_s + l.end_s)),
    );
    cuts.push(samples.len() as f64 / rate);
    cuts.windows(2)
        .filter(|w| w[1] - w[0] >= 0.2)
        .map(|w| {
            let (a, b) = (
                (w[0] * rate) as usize,
                ((w[1] * rate) as usize).min(samples.len()),
            );
            let labels = labels
                .iter()
                .filter(|l| l.end_s > w[0] && l.start_s < w[1])
                .map(|l| LabelSegment {
                    start_s: l.start_s.max(w[0]) - w[0],
                    end_s: l.end_s.min(w[1]) - w[0],
                    ..l.clone()
                })
                .collect();
            (samples[a..b].to_vec(), labels)
        })
        .collect()
}

/// A character's short lines: each normalised with the speaker's cepstral mean (all of
/// the lines, `omote lipsync`'s default for one folder) beats each normalised with its
/// own. A short line's own mean is mostly its few words, so subtracting it removes part of
/// the very vowels to be found.
#[test]
fn short_lines_are_read_against_the_speakers_mean() {
    let Some(dir) = omote_testdata::shared_data("speech") else {
        return;
    };
    let mut lines = Vec::new();
    for i in 1..=40 {
        let (samples, labels) = load(&dir, &format!("ja_ojt_{i:03}"));
        lines.extend(lines_between_pauses(&samples, &labels));
    }
    let mut analyser = Analyser::new(Profile::builtin());
    let mut speaker = CepstralMean::default();
    let feats: Vec<_> = lines
        .iter()
        .map(|(s, _)| {
            let f = analyser.features(s);
            speaker.add_clip(&f);
            f
        })
        .collect();
    let (mut own, mut shared) = (ScoreCounts::default(), ScoreCounts::default());
    for (mut f, (s, labels)) in feats.into_iter().zip(&lines) {
        own.add(&score_clip(&analyser.classify(&f, s.len()), labels));
        let others = speaker.without_clip(&f);
        analyser.renormalise(&mut f, &others);
        shared.add(&score_clip(&analyser.classify(&f, s.len()), labels));
    }
    let vowels = (
        own.vowel_accuracy().unwrap(),
        shared.vowel_accuracy().unwrap(),
    );
    let closed = (
        own.closed_accuracy().unwrap(),
        shared.closed_accuracy().unwrap(),
    );
    println!(
        "{} lines: vowels {:.3} with their own means, {:.3} with the speaker's; closed {:.3} / {:.3}",
        lines.len(),
        vowels.0,
        vowels.1,
        closed.0,
        closed.1
    );
    // Measured: 160 lines, vowels 0.910 → 0.923, closed 0.642 → 0.619; since a window's
    // offset is taken off its level, 0.900 → 0.908, closed 0.541 → 0.539 (0.899 → 0.909 and
    // 0.543 → 0.538 just before).
    assert!(lines.len() > 120, "{}", lines.len());
    assert!(vowels.1 > vowels.0 + 0.006, "{vowels:?}");
    assert!(closed.1 > closed.0 - 0.04, "{closed:?}");
}

/// A stream that starts from the speaker's mean (the character's other lines) reads a new
/// line better than a cold one, which starts from the average training voice.
#[test]
fn a_stream_started_from_the_speaker_reads_a_new_line_better() {
    let Some(dir) = omote_testdata::shared_data("speech") else {
        return;
    };
    let mut analyser = Analyser::new(Profile::builtin());
    let names: Vec<String> = (1..=40).map(|i| format!("ja_ojt_{i:03}")).collect();
    let clips: Vec<_> = names.iter().map(|n| load(&dir, n)).collect();
    let own: Vec<CepstralMean> = clips
        .iter()
        .map(|(samples, _)| CepstralMean::of_clip(&analyser.features(samples)))
        .collect();
    let mut speaker = CepstralMean::default();
    for m in &own {
        speaker.merge(m);
    }
    let (mut cold, mut warm) = (ScoreCounts::default(), ScoreCounts::default());
    for ((samples, labels), own) in clips.iter().zip(&own) {
        cold.add(&score_clip(&builtin_track(samples, true), labels));
        // The other 39 lines: the stream has not heard this one.
        let mut stream = StreamAnalyser::new(Profile::builtin());
        stream.start_from_speaker(&speaker.without(own));
        warm.add(&score_clip(&stream.analyse_clip(samples, 160), labels));
    }
    let (cold, warm) = (
        cold.vowel_accuracy().unwrap(),
        warm.vowel_accuracy().unwrap(),
    );
    println!("new lines streamed: vowels {cold:.3} cold, {warm:.3} from the speaker's mean");
    // Measured: 0.875 → 0.890.
    assert!(warm > cold + 0.01, "{cold} → {warm}");
}

/// The streaming class filter holds the mouth where the spectrum is steady and lets it
/// move where the spectrum moves: on the Japanese clips it is right more often than the
/// filter with one stay everywhere it replaced (0.6, temperature 2), at about the same
/// number of class changes.
#[test]
fn the_stream_class_filter_follows_the_spectrum() {
    let Some(dir) = omote_testdata::shared_data("speech") else {
        return;
    };
    let names: Vec<String> = (1..=40).map(|i| format!("ja_ojt_{i:03}")).collect();
    let constant = AnalyserConfig {
        stream_stay: 0.6,
        stream_stay_at_change: 0.6,
        stream_temperature: 2.0,
        stream_change_softening: 0.0,
        ..AnalyserConfig::default()
    };
    let score = |config| stream_accuracy_and_changes(&names, &dir, config);
    let (old, new) = (score(constant), score(AnalyserConfig::default()));
    println!(
        "streamed Japanese: one stay {:.3} at {:.2}× the labels' changes, following the spectrum {:.3} at {:.2}×",
        old.0, old.1, new.0, new.1
    );
    // Measured: 0.876 at 1.32× → 0.895 at 1.36×; with the Mandarin real voices in the
    // built-in profile, 0.872 at 1.32× → 0.893 at 1.37× (3.2 % more changes, hence 4 %).
    assert!(new.0 > old.0 + 0.005, "{old:?} → {new:?}");
    assert!(new.1 < old.1 * 1.04, "{old:?} → {new:?}");
}

/// Where the spectrum moves, a frame's scores count for less (`stream_change_softening`):
/// the frames between two phones, which often favour a class the mouth only passes,
/// then move it less. Streamed (cold), the Japanese clips are right more often and the
/// espeak clips lose at most a little, both with about as many class changes as without.
#[test]
fn the_stream_class_filter_softens_frames_where_the_spectrum_moves() {
    let Some(dir) = omote_testdata::shared_data("speech") else {
        return;
    };
    let score = |prefix: &str, n: usize, config| {
        let names: Vec<String> = (1..=n).map(|i| format!("{prefix}{i:03}")).collect();
        stream_accuracy_and_changes(&names, &dir, config)
    };
    let unsoftened = AnalyserConfig {
        stream_change_softening: 0.0,
        ..AnalyserConfig::default()
    };
    // Japanese's least gain was 0.004; with the real-voice Gaussians (issue 39) the
    // softening gains 0.0037 there (0.891 → 0.894), the profile alone having taken some,
    // and its class changes are 1.010× those unsoftened (1.336 → 1.350× the
    // labels'): the bound on changes is 2 %, no longer 1 %.
    for (prefix, n, least_gain) in [("ja_ojt_", 40, 0.003), ("en_espeak_", 20, -0.006)] {
        let old = score(prefix, n, unsoftened);
        let new = score(prefix, n, AnalyserConfig::default());
        println!(
            "{prefix}: unsoftened {:.3} at {:.2}× the labels' changes, softened {:.3} at {:.2}×",
            old.0, old.1, new.0, new.1
        );
        assert!(new.0 > old.0 + least_gain, "{prefix}: {old:?} → {new:?}");
        assert!(new.1 <= old.1 * 1.02, "{prefix}: {old:?} → {new:?}");
    }
}

/// A live session hears line after line of one voice. Its running cepstral mean restarts
/// at each utterance from the voice heard so far (`StreamCepstralMean`), as offline reads
/// a line against the speaker's other lines, instead of going on from the end of the line
/// before — whose words, not the voice, it would then hold. The Japanese lines over a
/// telephone band, back to back in one stream, are read about as well as offline.
#[test]
fn a_session_reads_each_line_against_the_voice() {
    let Some(dir) = omote_testdata::shared_data("speech") else {
        return;
    };
    let band = Degradation::ALL
        .into_iter()
        .find(|d| d.name().starts_with("band"))
        .unwrap();
    let clips: Vec<LabelledClip> = (1..=40)
        .map(|i| {
            let (samples, labels) = load(&dir, &format!("ja_ojt_{i:03}"));
            LabelledClip {
                source: "ja".into(),
                samples: band.apply(&samples, i),
                labels,
            }
        })
        .collect();
    let refs: Vec<&LabelledClip> = clips.iter().collect();
    let profile = Profile::builtin();
    let accuracy = |tracks: Vec<VowelTrack>| {
        let mut counts = ScoreCounts::default();
        for (t, c) in tracks.iter().zip(&clips) {
            counts.add(&score_clip(t, &c.labels));
        }
        counts.vowel_accuracy().unwrap()
    };
    let offline = accuracy(eval::speaker_tracks(&profile, &refs));
    let session = accuracy(eval::session_tracks(&profile, &refs));
    println!("Japanese over a telephone band: offline {offline:.3}, one session {session:.3}");
    assert!(session > offline - 0.01, "{offline} vs {session}");
}

/// A speaker folder of recorded syllables (as `tools/lipsync/*_syllables.py` write them):
/// each file of its `vowels.tsv` with its vowel and its samples at [`SAMPLE_RATE`].
fn speaker_syllables(folder: &Path) -> Vec<(String, Viseme, Vec<f32>)> {
    let map_path = folder.join("vowels.tsv");
    let map = omote_lipsync::syllables::parse_vowel_map(
        &std::fs::read_to_string(&map_path).unwrap(),
        &map_path.display().to_string(),
    )
    .unwrap();
    map.into_iter()
        .map(|(file, vowel)| {
            let samples = omote_audio::load_mono(&folder.join(&file), SAMPLE_RATE)
                .unwrap()
                .samples;
            (file, vowel, samples)
        })
        .collect()
}

/// A pass that only reorders which class leads (the decay hold, the nucleus vote): the
/// two readings of one clip have the same frames, silent or closed (N) in both alike, and
/// each frame the same weights in some order.
fn assert_only_the_lead_moves(without: &VowelTrack, with: &VowelTrack, what: &str) {
    assert_eq!(without.frames.len(), with.frames.len(), "{what}");
    for (a, b) in without.frames.iter().zip(&with.frames) {
        assert_eq!(a.silent, b.silent, "{what}");
        let closed = |f: &VowelFrame| f.class() == Some(Viseme::N);
        assert_eq!(closed(a), closed(b), "{what}: N is never opened");
        let sorted = |f: &VowelFrame| {
            let mut w = f.weights;
            w.sort_by(f32::total_cmp);
            w
        };
        assert_eq!(sorted(a), sorted(b), "{what}: only the lead moves");
    }
}

/// KLettres' Czech, Russian and Ukrainian syllables, decoded, each named `lang/file`;
/// `None` (the test skips) without the data. `tag` names the scratch folder.
fn three_klettres_speakers(tag: &str) -> Option<Vec<(String, Viseme, Vec<f32>)>> {
    let dir = std::env::temp_dir().join(format!("omote-{tag}-{}", std::process::id()));
    omote_testdata::klettres_syllables(&dir, &["cs", "ru", "uk"])?;
    let files: Vec<_> = ["cs", "ru", "uk"]
        .into_iter()
        .flat_map(|lang| {
            speaker_syllables(&dir.join(lang))
                .into_iter()
                .map(move |(file, vowel, samples)| (format!("{lang}/{file}"), vowel, samples))
        })
        .collect();
    std::fs::remove_dir_all(&dir).ok();
    assert!(files.len() > 150, "{} files", files.len());
    Some(files)
}

/// A clip read offline with `config` and the built-in profile.
fn offline(config: AnalyserConfig, samples: &[f32]) -> VowelTrack {
    Analyser::with_config(Profile::builtin(), config).analyse(samples)
}

/// A clip streamed in 10 ms chunks with `config` and the built-in profile.
fn streamed(config: AnalyserConfig, samples: &[f32]) -> VowelTrack {
    StreamAnalyser::analyse_in_chunks(Profile::builtin(), config, samples, 160)
}

/// The syllable measure (%) of `files`, each read alone by `read` with `off` and with
/// `on`; between the two only the lead may move (checked file by file).
fn syllables_off_and_on(
    files: &[(String, Viseme, Vec<f32>)],
    [off, on]: [AnalyserConfig; 2],
    read: fn(AnalyserConfig, &[f32]) -> VowelTrack,
) -> [f64; 2] {
    use omote_lipsync::syllables::{SyllableCounts, score_syllable};
    let mut counts = [SyllableCounts::default(); 2];
    for (name, vowel, samples) in files {
        let tracks = [off, on].map(|c| read(c, samples));
        assert_only_the_lead_moves(&tracks[0], &tracks[1], name);
        for (k, track) in tracks.iter().enumerate() {
            counts[k].add(&score_syllable(track, *vowel));
        }
    }
    counts.map(|c| 100.0 * c.accuracy().unwrap())
}

/// The 40 Japanese clips of `speech` read by `read` with `off` and with `on`.
fn japanese_off_and_on(
    speech: &Path,
    configs: [AnalyserConfig; 2],
    read: fn(AnalyserConfig, &[f32]) -> VowelTrack,
) -> [ScoreCounts; 2] {
    configs.map(|c| {
        let mut total = ScoreCounts::default();
        for i in 1..=40 {
            let (samples, labels) = load(speech, &format!("ja_ojt_{i:03}"));
            total.add(&score_clip(&read(c, &samples), &labels));
        }
        total
    })
}

/// A thump is not a voice: KLettres' Dutch speaker knocked the microphone or its stand after
/// many of his letters — frames whose energy lies almost all under the voice band (their
/// band level, [`omote_lipsync::FrameFeatures::band_db`], 10 dB or more under their whole
/// level), loud enough to pass a threshold on the whole level (256 of them offline, 276
/// streamed, when the voicing read it). The voicing reads the band's level, so under 100 of
/// them are voiced, offline and streamed (the loudest, whose band is over the threshold);
/// his voice's own frames (band and level within 1 dB, over −40 dBFS) are all voiced and
/// open the mouth as they always did.
#[test]
fn a_thump_is_not_a_voice() {
    let dir = std::env::temp_dir().join(format!("omote-thump-{}", std::process::id()));
    if omote_testdata::klettres_syllables(&dir, &["nl"]).is_none() {
        return;
    }
    let files = speaker_syllables(&dir.join("nl"));
    std::fs::remove_dir_all(&dir).ok();
    let mut analyser = Analyser::new(Profile::builtin());
    // Per reading (offline, streamed): [thump frames, voice frames] as (opening sum, voiced
    // count, count).
    let mut open = [[(0f64, 0usize, 0usize); 2]; 2];
    for (_, _, samples) in &files {
        let frames = analyser.features(samples).frames;
        let tracks = [
            offline(AnalyserConfig::default(), samples),
            streamed(AnalyserConfig::default(), samples),
        ];
        for (reading, track) in tracks.iter().enumerate() {
            for (f, out) in frames.iter().zip(&track.frames) {
                let under = f.level_db - f.band_db;
                let kind = match under {
                    u if u >= 10.0 => 0,
                    u if u < 1.0 && f.level_db > -40.0 => 1,
                    _ => continue,
                };
                open[reading][kind].2 += 1;
                if !out.silent {
                    let vowels: f32 = out.weights[..5].iter().sum();
                    open[reading][kind].0 += f64::from(vowels);
                    open[reading][kind].1 += 1;
                }
            }
        }
    }
    for (name, [(thump, n_thump, _), (voice, n_voice, all_voice)]) in
        ["offline", "streamed"].into_iter().zip(open)
    {
        let (thump, voice) = (thump / n_thump.max(1) as f64, voice / n_voice as f64);
        println!(
            "{name}: {n_thump} thump frames voiced, the mouth open {thump:.3} on them; \
             {n_voice} of {all_voice} voice frames over −40 dBFS voiced, open {voice:.3}"
        );
        assert!(n_thump < 100, "{name}: {n_thump} thump frames voiced");
        assert!(
            n_voice * 10 >= all_voice * 9,
            "{name}: {n_voice} of {all_voice} voice frames voiced"
        );
        assert!(voice > 0.6, "{name}: the voice opens it {voice:.3}");
    }
}

/// A fading voice keeps its vowel ([`AnalyserConfig::decay_hold_db`]): on KLettres'
/// recorded syllables of three human speakers (Czech, Russian, Ukrainian; each file read
/// alone, the syllable measure's tail scored), the built-in profile reads more of the vowel
/// frames right with the decay hold than without it, offline and streamed — and the hold
/// only reorders which vowel leads: the same frames are closed (N) or silent, with the
/// same weights, in both.
#[test]
fn a_fading_syllable_keeps_its_vowel() {
    let Some(files) = three_klettres_speakers("decay-hold") else {
        return;
    };
    let off = AnalyserConfig {
        decay_hold_db: f32::INFINITY,
        ..AnalyserConfig::default()
    };
    let on = AnalyserConfig::default();
    assert!(on.decay_hold_db.is_finite(), "the hold is on by default");
    for (name, read) in [
        ("offline", offline as fn(_, &_) -> _),
        ("streamed", streamed),
    ] {
        let [without, with] = syllables_off_and_on(&files, [off, on], read);
        println!("{name}: {without:.1} % without the decay hold, {with:.1} % with it");
        assert!(with > without + 1.0, "{name}: {without} -> {with}");
    }
}

/// One vowel from a syllable's peak on ([`AnalyserConfig::nucleus_vote`]): on KLettres'
/// recorded syllables of three human speakers (Czech, Russian, Ukrainian; each file read
/// alone, the syllable measure's tail scored) the built-in profile reads more vowel frames
/// right with the vote than without, while the same frames are closed or silent with the
/// same weights (only the lead moves) — and the Japanese clips, whose short morae a vote
/// over a whole nucleus would merge, lose under a point.
#[test]
fn a_syllable_keeps_one_vowel_from_its_peak() {
    use omote_lipsync::NucleusVote;
    let Some(speech) = omote_testdata::shared_data("speech") else {
        return;
    };
    let Some(files) = three_klettres_speakers("nucleus") else {
        return;
    };
    let on = AnalyserConfig::default();
    assert!(on.nucleus_vote.is_on(), "the vote is on by default");
    let off = AnalyserConfig {
        nucleus_vote: NucleusVote {
            ratio: f32::INFINITY,
            ..on.nucleus_vote
        },
        ..on
    };
    let [without, with] = syllables_off_and_on(&files, [off, on], offline);
    let [ja_without, ja_with] = japanese_off_and_on(&speech, [off, on], offline)
        .map(|t| 100.0 * t.vowel_accuracy().unwrap());
    println!(
        "syllables {without:.1} → {with:.1} %, Japanese vowels {ja_without:.1} → {ja_with:.1} %"
    );
    assert!(with > without + 1.0, "{without} -> {with}");
    assert!(ja_with > ja_without - 1.0, "{ja_without} -> {ja_with}");
}

/// The stream's vote ([`AnalyserConfig::stream_nucleus_vote`]): the same three KLettres
/// speakers, each file streamed alone as a live microphone would hear it, read more vowel
/// frames right with the causal vote than without, the same frames closed or silent with
/// the same weights — and the Japanese clips streamed lose under a point while the mouth
/// changes no more often.
#[test]
fn a_streamed_syllable_keeps_one_vowel_once_it_falls() {
    use omote_lipsync::NucleusVote;
    let Some(speech) = omote_testdata::shared_data("speech") else {
        return;
    };
    let Some(files) = three_klettres_speakers("stream-vote") else {
        return;
    };
    let on = AnalyserConfig::default();
    assert!(
        on.stream_nucleus_vote.is_on(),
        "the stream's vote is on by default"
    );
    let off = AnalyserConfig {
        stream_nucleus_vote: NucleusVote {
            ratio: f32::INFINITY,
            ..on.stream_nucleus_vote
        },
        ..on
    };
    let [without, with] = syllables_off_and_on(&files, [off, on], streamed);
    let [ja_without, ja_with] = japanese_off_and_on(&speech, [off, on], streamed);
    let vowels = |t: &ScoreCounts| 100.0 * t.vowel_accuracy().unwrap();
    println!(
        "streamed: syllables {without:.1} → {with:.1} %, Japanese vowels {:.1} → {:.1} %, \
         mouth changes {} → {}",
        vowels(&ja_without),
        vowels(&ja_with),
        ja_without.changes_out,
        ja_with.changes_out
    );
    assert!(with > without + 1.0, "{without} -> {with}");
    assert!(vowels(&ja_with) > vowels(&ja_without) - 1.0);
    assert!(ja_with.changes_out <= ja_without.changes_out);
}

/// Seven more human voices (qABCs' letters and one-syllable words; among the built-in
/// profile's real voices since the twelfth stage, each held out 56.3 % together): the
/// script writes every speaker's folder, the built-in profile reads them as issue 39's
/// measure does, and each speaker's files read as one [`omote_lipsync::Speaker`] read
/// better than each file alone (57.0 against 49.6 % when this was written).
#[test]
fn qabcs_syllables_of_seven_speakers_are_read_and_the_speaker_helps() {
    use omote_lipsync::eval::AnalysisMode::Offline;
    use omote_lipsync::syllables::{SyllableClip, SyllableReading, evaluate_syllables};
    let dir = omote_testdata::Scratch::new("lipsync", "qabcs");
    if omote_testdata::qabcs_syllables(&dir).is_none() {
        return;
    }
    let mut clips = Vec::new();
    for lang in ["be", "de", "en", "fr", "pl", "ru", "uk"] {
        let speaker = format!("qabcs_{lang}");
        let syllables = speaker_syllables(&dir.join(&speaker));
        assert!(
            syllables.len() >= 10,
            "{speaker}: {} files",
            syllables.len()
        );
        for (file, vowel, samples) in syllables {
            clips.push(SyllableClip {
                speaker: speaker.clone(),
                name: file,
                vowel,
                samples,
            });
        }
    }
    let builtin = Profile::builtin();
    let share = |c: &omote_lipsync::syllables::SyllableCounts| 100.0 * c.accuracy().unwrap();
    let as_speaker = evaluate_syllables(&builtin, &clips, SyllableReading::Speaker, Offline);
    let alone = evaluate_syllables(&builtin, &clips, SyllableReading::File, Offline);
    println!("{}", as_speaker.to_text(false));
    let (speaker, file) = (share(&as_speaker.total), share(&alone.total));
    println!("as one speaker {speaker:.1} %, each file alone {file:.1} %");
    assert!(speaker > 53.0, "{speaker}");
    assert!(speaker > file + 4.0, "{speaker} vs {file}");
}

/// Two human voices in a language the profile was not built around (Mandarin, gcin-voice's
/// syllables: both speakers' vowel frames are among the built-in profile's real voices since
/// 2026-12; leave-one-speaker-out they read 78.6 and 54.3 %): the built-in profile reads
/// each speaker's syllable vowels as issue 39's measure does, and reading a speaker's files
/// as one [`omote_lipsync::Speaker`] — each file normalised with the voice's other files —
/// reads them better than each file alone.
#[test]
fn mandarin_syllables_of_two_speakers_are_read_and_the_speaker_helps() {
    use omote_lipsync::eval::AnalysisMode::{Offline, Session, Streaming};
    use omote_lipsync::syllables::{SyllableClip, SyllableReading, evaluate_syllables};
    let dir = std::env::temp_dir().join(format!("omote-gcin-{}", std::process::id()));
    if omote_testdata::gcin_syllables(&dir).is_none() {
        return;
    }
    let mut clips = Vec::new();
    for speaker in ["zh_liu", "zh_lo"] {
        let syllables = speaker_syllables(&dir.join(speaker));
        assert!(
            syllables.len() > 250,
            "{speaker}: {} files",
            syllables.len()
        );
        for (file, vowel, samples) in syllables {
            clips.push(SyllableClip {
                speaker: speaker.to_string(),
                name: file,
                vowel,
                samples,
            });
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    let builtin = Profile::builtin();
    let share = |c: &omote_lipsync::syllables::SyllableCounts| 100.0 * c.accuracy().unwrap();
    let as_speaker = evaluate_syllables(&builtin, &clips, SyllableReading::Speaker, Offline);
    let alone = evaluate_syllables(&builtin, &clips, SyllableReading::File, Offline);
    println!("{}", as_speaker.to_text(false));
    // Floors a few points under what the shipped profile reads (80.6, 59.3, 71.5 %).
    for ((name, counts), floor) in as_speaker.speakers.iter().zip([75.0, 54.0]) {
        assert!(share(counts) > floor, "{name}: {:.1} %", share(counts));
    }
    let (speaker, file) = (share(&as_speaker.total), share(&alone.total));
    println!("as one speaker {speaker:.1} %, each file alone {file:.1} %");
    assert!(speaker > 67.0, "{speaker}");
    assert!(speaker > file + 3.0, "{speaker} vs {file}");
    // Streamed (each file a stream started from the speaker's other files) and as a live
    // session (the files back to back through one stream), as `eval --syllables --stream`
    // / `--session` read them: each its own reading, behind offline (70.7 and 65.7 %
    // against 76.3 % when this was written; floors a few points under).
    let streamed = evaluate_syllables(&builtin, &clips, SyllableReading::Speaker, Streaming);
    let session = evaluate_syllables(&builtin, &clips, SyllableReading::Speaker, Session);
    assert!(
        streamed
            .to_text(false)
            .contains("(streaming, each folder as one speaker")
    );
    assert!(session.to_text(false).contains("(streaming session, "));
    let (streamed, session) = (share(&streamed.total), share(&session.total));
    println!("streamed {streamed:.1} %, as a session {session:.1} %");
    assert!(
        streamed > 66.0 && streamed < speaker,
        "{streamed} vs {speaker}"
    );
    assert!(
        session > 61.0 && session != streamed,
        "{session} vs {streamed}"
    );
}

/// A microphone's DC offset does not change what is read: each analysis window's level is
/// its variance and its spectrum is taken with its median off, so the offset is no floor
/// under the voice. (It
/// used to be one: with 0.05 of DC the Japanese clips' vowels fell 91.7 → 81.8 % and
/// LibriVox's 69.4 → 48.5 %; with 0.2 nothing was voiced.) The clips keep their own small
/// offsets (LibriVox −43 dBFS, Open JTalk −48); the added one goes on top.
#[test]
fn a_dc_offset_reads_as_no_offset() {
    let Some(dir) = omote_testdata::shared_data("speech") else {
        return;
    };
    let names: Vec<String> = ja_subset().into_iter().take(5).chain(librivox()).collect();
    let clips: Vec<_> = names.iter().map(|n| load(&dir, n)).collect();
    let config = AnalyserConfig::default();
    let read = |dc: f32, stream: bool| {
        let mut total = ScoreCounts::default();
        for (samples, labels) in &clips {
            let shifted: Vec<f32> = samples.iter().map(|x| x + dc).collect();
            let track = if stream {
                streamed(config, &shifted)
            } else {
                offline(config, &shifted)
            };
            total.add(&score_clip(&track, labels));
        }
        (
            total.vowel_accuracy().unwrap(),
            total.silence_accuracy().unwrap(),
        )
    };
    for stream in [false, true] {
        let clean = read(0.0, stream);
        assert!(
            clean.0 > 0.75 && clean.1 > 0.95,
            "stream {stream}: {clean:?}"
        );
        // A stream starts from silence, so its first windows see the offset arrive as a
        // step (a few frames of every cold stream; here each clip is one).
        let within = if stream { 0.01 } else { 0.003 };
        for dc in [0.05, 0.2, -0.3] {
            let got = read(dc, stream);
            println!("stream {stream}, DC {dc}: {got:?} against {clean:?}");
            assert!(
                (got.0 - clean.0).abs() < within && (got.1 - clean.1).abs() < within,
                "stream {stream}, DC {dc}: {got:?} against {clean:?} without"
            );
        }
    }
}
