//! The live loop in-process: a tracked camera through `LiveSession` (on the frames' own
//! time, `SourceClock`) gives exactly what tracking to a MediaPipe JSON sequence and
//! retargeting that file gives (`omote live` equals `omote track` + `omote retarget`),
//! and the voice drives the mouth.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use omote_config::{HeadSource, MediaPipeFrame};
use omote_core::{Anim, DriverInputs, FaceConfig, FaceDriver, RetargetConfig, Rig};
use omote_live::{
    AnimSink, FaceSink, FrameSize, FrameSource, LatePolicy, LiveSession, MockVoice, Overflow,
    RawFrames, SessionStats, SourceClock, ThreadedFrames, ThreadedVoice, TrackedFrames,
    TrackingInbox,
};
use omote_tracker::{FaceTracker, RgbView};

const SIZE: FrameSize = FrameSize {
    width: 640,
    height: 480,
};

/// `n` raw 640×480 RGB frames of the shared astronaut photo drifting right; from frame
/// `lost_after` on only grey (the face is lost).
fn astronaut_frames(dir: &Path, n: usize, lost_after: usize) -> Vec<u8> {
    let img = image::open(dir.join("astronaut.png")).unwrap().to_rgb8();
    let (w, h) = (SIZE.width as i64, SIZE.height as i64);
    let mut out = Vec::with_capacity(n * (w * h * 3) as usize);
    for k in 0..n {
        let dx = 40 + 3 * k as i64;
        for y in 0..h {
            for x in 0..w {
                let (sx, sy) = (x - dx, y + 16);
                let inside =
                    (0..img.width() as i64).contains(&sx) && (0..img.height() as i64).contains(&sy);
                let px = if k < lost_after && inside {
                    img.get_pixel(sx as u32, sy as u32).0
                } else {
                    [90, 90, 90]
                };
                out.extend_from_slice(&px);
            }
        }
    }
    out
}

fn driver(rig: &Arc<Rig>) -> FaceDriver {
    FaceDriver::new(rig.clone(), FaceConfig::default(), 1)
        .with_tracking(RetargetConfig::default())
        .unwrap()
}

/// The one live loop over `frames`, each published at its time; the update rate is
/// below the frame rate, so every face sent is a frame's.
fn run_session<S>(
    frames: S,
    fps: f64,
    driver: &mut FaceDriver,
    voice: Option<&ThreadedVoice>,
    sink: &mut impl FaceSink,
) -> SessionStats
where
    S: FrameSource<Frame = Option<omote_core::TrackedFace>>,
{
    let inbox = TrackingInbox::new(Duration::from_millis(500));
    let mut clock = SourceClock::new(frames, &inbox, "camera", fps);
    LiveSession::new(1.0)
        .end_with_inputs(true)
        .run_with_clock(&mut clock, driver, &inbox, voice, sink, |_| {})
        .unwrap()
}

fn max_diff(a: &Anim, b: &Anim) -> f32 {
    let mut worst = 0.0f32;
    for ((na, ta), (nb, tb)) in a.expressions.0.iter().zip(&b.expressions.0) {
        assert_eq!(na, nb);
        for (x, y) in ta.iter().zip(tb) {
            worst = worst.max((x - y).abs());
        }
    }
    for (qa, qb) in a.head.iter().zip(&b.head) {
        for (x, y) in qa.iter().zip(qb) {
            worst = worst.max((x - y).abs());
        }
    }
    worst
}

#[test]
fn live_equals_tracking_to_a_file_then_retargeting_it() {
    let Some(dir) = omote_testdata::shared_data("tracking") else {
        return;
    };
    let (n, fps) = (12, 30.0);
    let raw = astronaut_frames(&dir, n, 9);
    let rig = Arc::new(Rig::standard());

    // The live way: raw frames on a reader thread → tracker → driver → recorder.
    let camera = RawFrames::new(std::io::Cursor::new(raw.clone()), SIZE, fps).unwrap();
    let mut frames = TrackedFrames::new(
        ThreadedFrames::spawn(camera, LatePolicy::KeepAll, "camera"),
        FaceTracker::new().unwrap(),
        fps,
    );
    let mut live_driver = driver(&rig);
    let mut live = AnimSink::new(&rig, fps as f32);
    let stats = run_session(&mut frames, fps, &mut live_driver, None, &mut live);
    assert_eq!((stats.frames_out, stats.with_face), (12, 9));

    // The file way: the same frames tracked, written as MediaPipe JSON lines, read back.
    let mut tracker = FaceTracker::new().unwrap();
    let bytes = SIZE.rgb_bytes();
    let mut lines = String::new();
    for k in 0..n {
        let what = format!("frame {k}");
        let view = RgbView::new(&what, 640, 480, &raw[k * bytes..(k + 1) * bytes]).unwrap();
        let frame = tracker.video_frame(k as u64, fps, &view).unwrap();
        lines += &serde_json::to_string(&frame).unwrap();
        lines.push('\n');
    }
    let mut file_driver = driver(&rig);
    let mut file = AnimSink::new(&rig, fps as f32);
    for (k, line) in lines.lines().enumerate() {
        let frame: MediaPipeFrame = serde_json::from_str(line).unwrap();
        let face = frame.tracked(HeadSource::Auto);
        let inputs = DriverInputs {
            tracking: face.as_ref(),
            ..DriverInputs::default()
        };
        let state = file_driver.update(1.0 / fps as f32, &inputs);
        file.send(k as f64 / fps, state).unwrap();
    }
    let (live, file) = (live.finish(), file.finish());
    assert_eq!(live.frames(), n);
    let worst = max_diff(&live, &file);
    assert!(worst < 1e-4, "live and track + retarget differ by {worst}");
    // Something really moved: the astronaut smiles while she is seen.
    let happy = live.expressions.get("happy").unwrap();
    assert!(happy[8] > 0.3, "{happy:?}");
}

#[test]
fn the_voice_opens_the_mouth_while_it_sounds() {
    use omote_lipsync::VowelFrame;
    let rig = Arc::new(Rig::standard());
    // 30 frames of a closed-mouth face; a voice saying "a" at 0.6 from 0.3 to 0.6 s.
    let faces = vec![Some(omote_core::TrackedFace::default()); 30];
    let frames = omote_live::ReplayFrames::at_fps(faces, 30.0);
    let voiced = |i: usize| (30..60).contains(&i);
    let voice_frames: Vec<VowelFrame> = (0..100)
        .map(|i| VowelFrame {
            weights: if voiced(i) {
                [0.6, 0.0, 0.0, 0.0, 0.0, 0.0]
            } else {
                [0.0, 0.0, 0.0, 0.0, 0.0, 1.0]
            },
            silent: !voiced(i),
            ..VowelFrame::SILENT
        })
        .collect();
    let voice = ThreadedVoice::spawn(MockVoice::new(voice_frames), 1000, Overflow::Wait, "voice");
    let mut d = driver(&rig).with_voice(omote_core::MouthPolicy::VoiceFirst);
    let mut rec = AnimSink::new(&rig, 30.0);
    run_session(frames, 30.0, &mut d, Some(&voice), &mut rec);
    let anim = rec.finish();
    let aa = anim.expressions.get("aa").unwrap();
    assert!(aa[5] < 0.01, "before the voice: {}", aa[5]);
    assert!((aa[15] - 0.6).abs() < 0.01, "during the voice: {}", aa[15]);
    assert!(aa[25] < 0.01, "after the voice: {}", aa[25]);
}
