//! The npm package (`web/dist`, made by `web/build.sh`) in Node: `web/test/node.test.mjs`
//! compares `analyseVoice` with this crate's native analysis of the shared speech clips
//! (the same numbers `omote lipsync` gives) and `LiveVoice` with the native live
//! analyser, `Speaker` with the native one, runs the face loop for determinism, bad input and speed. Skips (fails under CI) when the package is not built or the data or
//! Node is missing.

use std::path::Path;
use std::process::Command;

use omote_lipsync::{Analyser, Profile, SAMPLE_RATE};
use omote_testdata::missing;

#[test]
fn the_npm_package_in_node_gives_the_native_analysis_and_a_deterministic_face() {
    let web = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web");
    if !web.join("dist/omote_web_bg.wasm").is_file() {
        return missing("web/dist is not built (web/build.sh; .ci/run builds it)");
    }
    let Some(speech) = omote_testdata::shared_data("speech") else {
        return;
    };
    let mut wavs: Vec<_> = std::fs::read_dir(&speech)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "wav"))
        .collect();
    wavs.sort();
    let mut analyser = Analyser::new(Profile::builtin());
    let native: Vec<serde_json::Value> = wavs
        .iter()
        .map(|wav| {
            let track =
                analyser.analyse(&omote_audio::load_mono(wav, SAMPLE_RATE).unwrap().samples);
            serde_json::json!({
                "wav": wav,
                "frames": track.frames.iter().map(|f| f.weights.to_vec()).collect::<Vec<_>>(),
                "voicedStart": track.voiced_span.map(|s| s.start_s),
                "voicedEnd": track.voiced_span.map(|s| s.end_s),
            })
        })
        .collect();
    // The live analyser on the first clip at its own rate, 128 samples at a time (as an
    // AudioWorklet pushes them): Node's LiveVoice must give the same frames.
    let decoded = omote_audio::decode_file(&wavs[0]).unwrap();
    let mut voice = omote_embed::VoiceStream::new(f64::from(decoded.sample_rate)).unwrap();
    let mut live = Vec::new();
    for quantum in decoded.samples.chunks(128) {
        live.extend_from_slice(voice.push(quantum).unwrap());
    }
    // A speaker of four Japanese lines, each analysed against the other three: Node's
    // Speaker must give the same frames.
    let lines: Vec<_> = wavs
        .iter()
        .filter(|w| w.to_string_lossy().contains("ja_ojt_00"))
        .take(4)
        .collect();
    let mut speaker = omote_embed::Speaker::new();
    let decoded_lines: Vec<_> = lines
        .iter()
        .map(|w| omote_audio::decode_file(w).unwrap())
        .collect();
    for d in &decoded_lines {
        speaker
            .add_line(&d.samples, f64::from(d.sample_rate))
            .unwrap();
    }
    let speaker_frames: Vec<Vec<f32>> = decoded_lines
        .iter()
        .map(|d| {
            speaker
                .analyse(&d.samples, f64::from(d.sample_rate))
                .unwrap()
                .frames
        })
        .collect();
    // The live analyser on the first clip again, started from that speaker's voice seed
    // (what the AudioWorklet gets): Node's LiveVoice with `{ speaker }` must match.
    let seed = speaker.voice_seed();
    let mut seeded_voice = omote_embed::VoiceStream::new(f64::from(decoded.sample_rate)).unwrap();
    seeded_voice.start_from_speaker(&seed).unwrap();
    let mut seeded_live = Vec::new();
    for quantum in decoded.samples.chunks(128) {
        seeded_live.extend_from_slice(seeded_voice.push(quantum).unwrap());
    }
    // A calibration card take from the Japanese voice's lines 1-20 (six consonant +
    // vowel syllables per vowel, 0.4 s of silence after each), written as a 16-bit WAV
    // both sides read: Node's calibrateVoice must give this profile, and a LiveVoice
    // with it the frames the native stream gives.
    let (take, text) = card_take(&speech);
    let take_wav = std::env::temp_dir().join(format!("omote-web-card-{}.wav", std::process::id()));
    std::fs::write(&take_wav, omote_testdata::wav16(&take, 48_000, 1)).unwrap();
    let card = omote_audio::decode_file(&take_wav).unwrap();
    let profile = omote_embed::calibrate_voice_from_card(
        &card.samples,
        f64::from(card.sample_rate),
        Some(&text),
        None,
    )
    .unwrap();
    let mut profiled = omote_embed::VoiceStream::with_profile(
        f64::from(decoded.sample_rate),
        false,
        Some(&profile),
    )
    .unwrap();
    let mut profiled_live = Vec::new();
    for quantum in decoded.samples.chunks(128) {
        profiled_live.extend_from_slice(profiled.push(quantum).unwrap());
    }
    // A tracked face as MediaPipe gives it in a web page (named scores, the head as a
    // column-major matrix): the embedding API's weights and head for 60 steps, which
    // Node's Face.setTrackedMediaPipe must reproduce.
    let rig = r#"{"presets": true, "arkit": true}"#;
    let names = [
        "_neutral",
        "jawOpen",
        "mouthSmileLeft",
        "mouthSmileRight",
        "eyeBlinkLeft",
    ];
    let scores = [0.2f32, 0.55, 0.8, 0.7, 0.9];
    let turn = omote_core::Quat::from_rotation_y(0.25) * omote_core::Quat::from_rotation_x(-0.1);
    let column_major = omote_core::glam::Mat4::from_quat(turn).to_cols_array();
    let row_major = omote_core::glam::Mat4::from_quat(turn)
        .transpose()
        .to_cols_array();
    // Settings away from every default they name, so that one JavaScript dropped or
    // misread would move the weights or the head.
    let settings = serde_json::json!({
        "mirror": true,
        "limits": {"yawDeg": 10.0},
        "mouth": {"gain": 0.8},
        "smoothing": {"mouth": 0.08, "emotions": 0.2},
        "headFilter": {"minCutoff": 0.5, "beta": 0.1, "derivativeCutoff": 1.0},
    });
    let mut tracked = omote_embed::Character::from_rig_json(rig, 7).unwrap();
    tracked
        .enable_tracking(omote_embed::tracking_settings(&settings.to_string()).unwrap())
        .unwrap();
    let names_owned: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    for _ in 0..60 {
        tracked
            .set_tracked_named(&names_owned, &scores, Some(&row_major))
            .unwrap();
        tracked.update(1.0 / 60.0);
    }
    let tracking = serde_json::json!({
        "rig": rig, "seed": 7, "settings": settings, "names": names, "scores": scores, "matrix": column_major,
        "weights": tracked.weights(), "head": tracked.state().head.to_array(),
    });
    let native = serde_json::json!({
        "tracking": tracking,
        "clips": native,
        "live": {"wav": wavs[0], "rate": decoded.sample_rate, "frames": live},
        "speaker": {"wavs": lines, "frames": speaker_frames, "seed": seed, "seededLive": seeded_live},
        "card": {"wav": take_wav, "text": text, "profile": profile, "live": profiled_live},
    });
    let file = std::env::temp_dir().join(format!("omote-web-native-{}.json", std::process::id()));
    std::fs::write(&file, serde_json::to_vec(&native).unwrap()).unwrap();
    let out = match Command::new("node")
        .arg(web.join("test/node.test.mjs"))
        .arg(&file)
        .output()
    {
        Ok(o) => o,
        Err(e) => return missing(&format!("node: {e}")),
    };
    std::fs::remove_file(&file).ok();
    std::fs::remove_file(&take_wav).ok();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "no report ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    println!("{report}");
    assert!(out.status.success(), "{report:#}");
    assert_eq!(report["clips"].as_u64(), Some(wavs.len() as u64));
    assert!(report["maxFrameDiff"].as_f64().unwrap() <= 1e-3, "{report}");
    assert!(report["liveFrames"].as_u64() > Some(100), "{report}");
    assert!(report["liveMaxDiff"].as_f64().unwrap() <= 1e-3, "{report}");
    assert_eq!(report["speakerLines"].as_u64(), Some(4), "{report}");
    assert!(
        report["speakerMaxDiff"].as_f64().unwrap() <= 1e-3,
        "{report}"
    );
    assert!(report["seedMaxDiff"].as_f64().unwrap() <= 1e-4, "{report}");
    assert!(
        report["seededLiveMaxDiff"].as_f64().unwrap() <= 1e-3,
        "{report}"
    );
    assert!(
        report["cardMeansMaxDiff"].as_f64().unwrap() <= 1e-3,
        "{report}"
    );
    assert!(
        report["cardLiveMaxDiff"].as_f64().unwrap() <= 1e-3,
        "{report}"
    );
    assert!(
        report["trackingMaxDiff"].as_f64().unwrap() <= 1e-5,
        "{report}"
    );
}

/// Six consonant + vowel syllables per vowel from the Japanese voice's lines 1-20, each
/// followed by 0.4 s of silence, at 48 kHz in 16-bit steps; and the card's text.
fn card_take(speech: &Path) -> (Vec<i16>, String) {
    let (mut take, mut text, mut per_vowel) = (Vec::new(), Vec::new(), [0; 5]);
    for i in 1..=20 {
        let wav = omote_audio::decode_file(&speech.join(format!("ja_ojt_{i:03}.wav"))).unwrap();
        let rate = f64::from(wav.sample_rate);
        let lab = speech.join(format!("ja_ojt_{i:03}.lab.tsv"));
        let labels =
            omote_lipsync::labels::parse_labels(&std::fs::read_to_string(&lab).unwrap(), "lab")
                .unwrap();
        for pair in labels.windows(2) {
            let (c, v) = (&pair[0], &pair[1]);
            let Some(k) = v.class.map(|k| k.index()).filter(|&k| k < 5) else {
                continue;
            };
            if c.class.map(|k| k.index()) != Some(5) || c.phone == "cl" || per_vowel[k] == 6 {
                continue;
            }
            per_vowel[k] += 1;
            let cut = |t: f64| ((t * rate) as usize).min(wav.samples.len());
            take.extend(
                wav.samples[cut(c.start_s)..cut(v.end_s)]
                    .iter()
                    .map(|&x| (x * 32767.0) as i16),
            );
            take.extend(std::iter::repeat_n(0i16, (0.4 * rate) as usize));
            text.push(["a", "i", "u", "e", "o"][k]);
        }
    }
    assert_eq!(per_vowel, [6; 5]);
    (take, text.join(" "))
}
