//! Face tracker speed on one core, 640x480 frames of the astronaut sequence
//! (re-rendered from `shared/data/tracking/astronaut.png`).
//!
//! * `image_mode`: detector + landmarks + blendshapes + pose on every frame
//!   (MediaPipe IMAGE mode; the "≥ 60 fps" figure).
//! * `tracking_mode`: VIDEO mode on a locked face (ROI from the previous frame, no
//!   detector, one-euro smoothing).
//! * one bench per stage.
//!
//! tract runs single-threaded; nothing here spawns threads.

#[path = "../tests/support/sequence.rs"]
mod sequence;

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use omote_tracker::warp::{Border, PixelRect, warp_into};
use omote_tracker::{
    BlendshapeModel, FaceDetector, FaceGeometry, FaceTracker, LandmarkModel, RgbView, Roi,
    load_rgb, models,
};

fn frames() -> Option<Vec<Vec<u8>>> {
    let path = omote_testdata::shared_data("tracking/astronaut.png")?;
    let astro = load_rgb(&path).ok()?;
    // 30 consecutive frames with the face in view (1 s of motion).
    Some(
        (0..30)
            .map(|i| sequence::render_frame(astro.as_raw(), astro.width(), astro.height(), i))
            .collect(),
    )
}

fn bench(c: &mut Criterion) {
    let Some(frames) = frames() else { return };
    let views: Vec<RgbView> = frames
        .iter()
        .map(|f| RgbView::new("frame", sequence::W, sequence::H, f).unwrap())
        .collect();
    let mut g = c.benchmark_group("tracker_640x480");
    g.sample_size(30).measurement_time(Duration::from_secs(8));

    let mut tracker = FaceTracker::new().unwrap();
    assert_eq!(tracker.detect_image(&views[0]).unwrap().len(), 1);
    let mut i = 0;
    g.bench_function("image_mode", |b| {
        b.iter(|| {
            i = (i + 1) % views.len();
            black_box(tracker.detect_image(&views[i]).unwrap())
        })
    });

    let mut tracker = FaceTracker::new().unwrap();
    let mut t = 0i64;
    let mut k = 0usize;
    g.bench_function("tracking_mode", |b| {
        b.iter(|| {
            // Forward then backward through the clip so the motion stays smooth.
            let j = if (k / views.len()).is_multiple_of(2) {
                k % views.len()
            } else {
                views.len() - 1 - k % views.len()
            };
            k += 1;
            t += 33_333;
            black_box(tracker.track(&views[j], t).unwrap())
        })
    });
    println!(
        "tracking_mode: detector ran on the last frame: {}",
        tracker.last_stats().detector_ran
    );

    let mut det =
        FaceDetector::from_onnx_bytes(models::FACE_DETECTOR_ONNX, Default::default()).unwrap();
    let d = det.detect(&views[0]).unwrap()[0];
    g.bench_function("detector", |b| {
        b.iter(|| black_box(det.detect(&views[0]).unwrap()))
    });

    let roi = Roi::from_detection(&d, sequence::W, sequence::H);
    let mut lm = LandmarkModel::from_onnx_bytes(models::FACE_LANDMARKS_ONNX).unwrap();
    let points = lm.run(&views[0], &roi).unwrap().points;
    g.bench_function("landmarks", |b| {
        b.iter(|| black_box(lm.run(&views[0], &roi).unwrap()))
    });

    let mut bs = BlendshapeModel::from_onnx_bytes(models::FACE_BLENDSHAPES_ONNX).unwrap();
    g.bench_function("blendshapes", |b| {
        b.iter(|| black_box(bs.run(&points, sequence::W, sequence::H).unwrap()))
    });

    let mut geo = FaceGeometry::from_json(models::FACE_GEOMETRY_JSON).unwrap();
    g.bench_function("geometry", |b| {
        b.iter(|| black_box(geo.transform(&points, sequence::W, sequence::H)))
    });

    let rect = PixelRect {
        cx: f64::from(roi.cx) * 640.0,
        cy: f64::from(roi.cy) * 480.0,
        width: f64::from(roi.width) * 640.0,
        height: f64::from(roi.height) * 480.0,
        rotation: f64::from(roi.rotation),
    };
    let mut out = vec![0f32; 256 * 256 * 3];
    g.bench_function("warp_256", |b| {
        b.iter(|| {
            warp_into(
                &views[0],
                &rect,
                256,
                Border::Replicate,
                0.0,
                1.0,
                black_box(&mut out),
            )
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
