//! Fuzz the tracking replay reader: a JSON-lines tracking sequence from disk
//! (`omote_config::load_tracking_sequence`: size first, each frame checked, the landmark
//! count MediaPipe's) and its replay times (`omote_config::replay_sequence`, what
//! `omote live --replay` plays). Errors are fine; panics are not, and a sequence that
//! loads must give finite times that never go back nor jump past `MAX_REPLAY_STEP_S`,
//! and faces with finite numbers only.
#![no_main]

use libfuzzer_sys::fuzz_target;
use omote_config::{HeadSource, MAX_REPLAY_STEP_S};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("omote-fuzz-replay-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join("take.jsonl");
    if std::fs::write(&path, rest).is_err() {
        return;
    }
    let Ok(seq) = omote_config::load_tracking_sequence(&path) else {
        return;
    };
    let frames = seq.frames;
    for f in &frames {
        for face in &f.faces {
            assert!(face.check_landmark_count().is_ok());
        }
    }
    let head = [HeadSource::Auto, HeadSource::Transform, HeadSource::Landmarks][usize::from(pick % 3)];
    let seq: Vec<_> = frames.iter().map(|f| f.to_sequence_frame(head)).collect();
    let fps = [1.0, 30.0, 1000.0][usize::from(pick / 3 % 3)];
    let Ok(replay) = omote_config::replay_sequence(&seq, fps) else {
        return;
    };
    let mut last = f64::NEG_INFINITY;
    for (i, (t, face)) in replay.iter().enumerate() {
        assert!(t.is_finite() && *t >= last);
        assert!(i == 0 || t - last <= MAX_REPLAY_STEP_S);
        last = *t;
        if let Some(face) = face {
            if let Some(q) = face.head {
                assert!(q.is_finite());
            }
        }
    }
});
