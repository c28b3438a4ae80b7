//! The live session loop over mock inputs and sinks: it ticks without input, answers a
//! new tracking result at once, hands a stale face over to the automatic eyes, and no
//! non-finite input reaches a sink.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use omote_core::{FaceConfig, FaceDriver, MouthPolicy, Quat, RetargetConfig, Rig, TrackedFace};
use omote_lipsync::VowelFrame;
use omote_live::{
    LiveSession, LiveStatus, MockSink, MockVoice, Overflow, ThreadedVoice, TrackingInbox,
};

fn driver() -> FaceDriver {
    FaceDriver::new(Arc::new(Rig::standard()), FaceConfig::default(), 1)
        .with_tracking(RetargetConfig::default())
        .unwrap()
}

#[test]
fn with_no_input_the_face_ticks_at_its_rate() {
    let inbox = TrackingInbox::new(Duration::from_millis(200));
    let mut sink = MockSink::new();
    let stats = LiveSession::new(100.0)
        .max_duration(Duration::from_millis(500))
        .run(&mut driver(), &inbox, None, &mut sink, |_| {})
        .unwrap();
    // 100 Hz for half a second (less when the machine is busy; never more).
    assert!(
        (30..=52).contains(&stats.frames_out),
        "{}",
        stats.frames_out
    );
    assert_eq!(stats.with_face, 0);
    let times: Vec<f64> = sink.frames.iter().map(|f| f.time_s).collect();
    assert!(times.windows(2).all(|w| w[1] > w[0]));
}

#[test]
fn a_new_result_goes_out_at_once_and_a_stale_face_hands_over() {
    let inbox = TrackingInbox::new(Duration::from_millis(150));
    let sender = inbox.sender("vmc-in");
    let stop = Arc::new(AtomicBool::new(false));
    let feeder = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            // 0.3 s of faces at 50 Hz (between the 10 Hz ticks), then silence.
            let mut face = TrackedFace::default();
            face.blendshapes.set("jawOpen", 0.8);
            for _ in 0..15 {
                std::thread::sleep(Duration::from_millis(20));
                sender.publish(Some(face));
            }
            while !stop.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(5));
            }
        })
    };
    let mut sink = MockSink::new();
    let mut statuses: Vec<(Instant, LiveStatus)> = Vec::new();
    let stats = LiveSession::new(10.0)
        .max_duration(Duration::from_millis(900))
        .run(&mut driver(), &inbox, None, &mut sink, |s| {
            statuses.push((Instant::now(), *s))
        })
        .unwrap();
    stop.store(true, Ordering::SeqCst);
    feeder.join().unwrap();
    // Each of the 15 results was answered with a face of its own, well within a tick.
    assert_eq!(stats.latency.count, 15, "{stats:?}");
    assert!(stats.latency.max < Duration::from_millis(50), "{stats:?}");
    assert!(stats.with_face >= 15);
    // The face was shown while fresh, then the input went stale: no source.
    let last = statuses.last().unwrap().1;
    assert_eq!(last.source, None);
    assert!(statuses.iter().any(|(_, s)| s.source == Some(0)));
    // The ticks went on after the results stopped (10 Hz for the remaining ~0.6 s).
    let after = statuses.iter().filter(|(_, s)| s.time_s > 0.45).count();
    assert!(
        (3..=8).contains(&after),
        "{after} ticks after the input stopped"
    );
}

#[test]
fn nothing_non_finite_reaches_a_sink() {
    let inbox = TrackingInbox::new(Duration::from_millis(500));
    let sender = inbox.sender("vmc-in");
    let mut bad = TrackedFace::default();
    bad.blendshapes.0.iter_mut().enumerate().for_each(|(i, v)| {
        *v = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 2.0][i % 4];
    });
    bad.head = Some(Quat::from_xyzw(f32::NAN, 1.0, 0.0, 0.0));
    let voice_frames = (0..200).map(|i| VowelFrame {
        weights: [f32::NAN, f32::INFINITY, -1.0, 0.5, f32::NAN, 0.0],
        volume: f32::NAN,
        silent: i % 2 == 0,
    });
    let voice = ThreadedVoice::spawn(
        MockVoice::new(voice_frames),
        1000,
        Overflow::Wait,
        "mock voice",
    );
    let publisher = std::thread::spawn(move || {
        for _ in 0..20 {
            sender.publish(Some(bad));
            std::thread::sleep(Duration::from_millis(10));
        }
    });
    let mut sink = MockSink::new();
    let mut d = driver().with_voice(MouthPolicy::VoiceFirst);
    LiveSession::new(100.0)
        .max_duration(Duration::from_millis(400))
        .run(&mut d, &inbox, Some(&voice), &mut sink, |_| {})
        .unwrap();
    publisher.join().unwrap();
    assert!(sink.frames.len() > 20);
    for f in &sink.frames {
        assert!(
            f.expressions
                .iter()
                .all(|v| v.is_finite() && (0.0..=1.0).contains(v))
        );
        for q in [f.head, f.left_eye, f.right_eye] {
            assert!(q.is_finite() && (q.length() - 1.0).abs() < 1e-3, "{q}");
        }
    }
    assert_eq!(inbox.stats()[0].non_finite, 20 * (39 + 1));
}

/// A calibrate request (a key, a button) makes the user's held pose straight ahead: set
/// before the run, the first faces calibrate; set during it, the next ones do.
#[test]
fn a_calibrate_request_makes_the_held_pose_straight() {
    let inbox = TrackingInbox::new(Duration::from_millis(300));
    let sender = inbox.sender("camera");
    let stop = Arc::new(AtomicBool::new(false));
    let turned = Quat::from_rotation_y(20f32.to_radians());
    let feeder = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let face = TrackedFace {
                head: Some(turned),
                ..TrackedFace::default()
            };
            while !stop.load(Ordering::SeqCst) {
                sender.publish(Some(face));
                std::thread::sleep(Duration::from_millis(10));
            }
        })
    };
    let yaw = |q: Quat| q.to_euler(omote_core::glam::EulerRot::YXZ).0.to_degrees();
    let run = |calibrate: bool| {
        let flag = Arc::new(AtomicBool::new(calibrate));
        let mut sink = MockSink::new();
        LiveSession::new(60.0)
            .max_duration(Duration::from_millis(900))
            .calibrate_on(flag.clone(), 0.1)
            .run(&mut driver(), &inbox, None, &mut sink, |_| {})
            .unwrap();
        assert!(!flag.load(Ordering::SeqCst), "the request is taken");
        yaw(sink.frames.last().unwrap().head)
    };
    let (plain, calibrated) = (run(false), run(true));
    stop.store(true, Ordering::SeqCst);
    feeder.join().unwrap();
    assert!((plain - 20.0).abs() < 1.0, "{plain}");
    assert!(calibrated.abs() < 1.0, "{calibrated}");
}
