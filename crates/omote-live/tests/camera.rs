//! The camera input's life with a stand-in for ffmpeg (a shell script that writes a few
//! raw frames and exits, as a camera that is unplugged would): a device is opened again
//! and its frames keep coming; a device that never worked fails with ffmpeg's message;
//! a file ends.

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use omote_live::{CameraInput, CameraOptions, CameraSource, FrameSize, InputState, TrackingInbox};
use omote_tracker::FaceTracker;

fn fake_ffmpeg(dir: &Path, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("ffmpeg");
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn scratch(name: &str) -> omote_testdata::Scratch {
    omote_testdata::Scratch::new("camera", name)
}

fn options(ffmpeg: PathBuf) -> CameraOptions {
    let mut o = CameraOptions::new(
        FrameSize {
            width: 64,
            height: 48,
        },
        30.0,
    );
    o.ffmpeg = ffmpeg;
    o.retry = Duration::from_millis(100);
    o
}

/// Waits until `pred` holds for the camera's stats (or 30 s).
fn wait_until(inbox: &TrackingInbox, pred: impl Fn(&omote_live::InputStats) -> bool) -> bool {
    let end = Instant::now() + Duration::from_secs(30);
    while Instant::now() < end {
        if pred(&inbox.stats()[0]) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[test]
fn a_camera_that_stops_is_opened_again_and_its_frames_keep_coming() {
    let dir = scratch("restart");
    // Three black 64x48 frames per run, then "unplugged".
    let ffmpeg = fake_ffmpeg(&dir, "head -c 27648 /dev/zero");
    let inbox = TrackingInbox::new(Duration::from_secs(1));
    let stop = Arc::new(AtomicBool::new(false));
    let camera = CameraInput::spawn(
        CameraSource::Device("0".into()),
        options(ffmpeg),
        FaceTracker::new().unwrap(),
        inbox.sender("camera"),
        stop.clone(),
        None,
    )
    .unwrap();
    let ok = wait_until(&inbox, |s| s.frames >= 9);
    stop.store(true, Ordering::SeqCst);
    camera.finish().unwrap();
    let s = &inbox.stats()[0];
    // Three runs of ffmpeg at least: two restarts, each counted.
    assert!(ok && s.restarts >= 2, "{s:?}");
    // No face in black frames: results, but none with a face.
    assert_eq!(s.with_face, 0);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_device_that_never_worked_fails_with_ffmpegs_message() {
    let dir = scratch("fail");
    let ffmpeg = fake_ffmpeg(
        &dir,
        "echo '/dev/video0: No such file or directory' >&2; exit 1",
    );
    let inbox = TrackingInbox::new(Duration::from_secs(1));
    let stop = Arc::new(AtomicBool::new(false));
    let camera = CameraInput::spawn(
        CameraSource::Device("0".into()),
        options(ffmpeg),
        FaceTracker::new().unwrap(),
        inbox.sender("camera"),
        stop,
        None,
    )
    .unwrap();
    assert!(wait_until(&inbox, |s| matches!(
        s.state,
        InputState::Failed(_)
    )));
    camera.finish().unwrap();
    let InputState::Failed(why) = inbox.stats()[0].state.clone() else {
        unreachable!()
    };
    assert!(
        why.contains("camera 0") && why.contains("No such file or directory"),
        "{why}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_file_plays_once_and_ends() {
    let dir = scratch("file");
    let ffmpeg = fake_ffmpeg(&dir, "head -c 27648 /dev/zero");
    let clip = dir.join("clip.mkv");
    std::fs::write(&clip, b"not read by the stand-in").unwrap();
    let inbox = TrackingInbox::new(Duration::from_secs(1));
    let camera = CameraInput::spawn(
        CameraSource::parse(clip.to_str().unwrap()).unwrap(),
        options(ffmpeg),
        FaceTracker::new().unwrap(),
        inbox.sender("camera"),
        Arc::new(AtomicBool::new(false)),
        None,
    )
    .unwrap();
    assert!(wait_until(&inbox, |s| s.state == InputState::Ended));
    camera.finish().unwrap();
    assert_eq!(inbox.stats()[0].frames, 3);
    assert!(inbox.all_ended());
    std::fs::remove_dir_all(&dir).ok();
}
