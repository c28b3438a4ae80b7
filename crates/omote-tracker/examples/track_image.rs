//! Tracks one image file and prints its MediaPipe-style JSON, plus how long the
//! pipeline took (median of `--repeat N` runs, default 1) on stderr.
//!
//! `cargo run --release -p omote-tracker --example track_image -- face.png [--repeat 50]`

use std::time::Instant;

use omote_tracker::{
    BlendshapeModel, FaceDetector, FaceGeometry, FaceTracker, LandmarkModel, RgbView, Roi,
    load_rgb, models,
};

/// Median milliseconds of `n` runs of `f`.
fn median_ms(n: usize, mut f: impl FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..n)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[n / 2]
}

/// Times each stage on its own (`--stages`).
fn stages(view: &RgbView<'_>, n: usize) -> Result<(), Box<dyn std::error::Error>> {
    let mut det = FaceDetector::from_onnx_bytes(models::FACE_DETECTOR_ONNX, Default::default())?;
    let Some(d) = det.detect(view)?.first().copied() else {
        eprintln!("no face: no stage timings");
        return Ok(());
    };
    let roi = Roi::from_detection(&d, view.width(), view.height());
    let mut lm = LandmarkModel::from_onnx_bytes(models::FACE_LANDMARKS_ONNX)?;
    let points = lm.run(view, &roi)?.points;
    let mut bs = BlendshapeModel::from_onnx_bytes(models::FACE_BLENDSHAPES_ONNX)?;
    let mut geo = FaceGeometry::from_json(models::FACE_GEOMETRY_JSON)?;
    let (w, h) = (view.width(), view.height());
    let rect = omote_tracker::warp::PixelRect {
        cx: f64::from(roi.cx) * f64::from(w),
        cy: f64::from(roi.cy) * f64::from(h),
        width: f64::from(roi.width) * f64::from(w),
        height: f64::from(roi.height) * f64::from(h),
        rotation: f64::from(roi.rotation),
    };
    let mut buf = vec![0f32; 256 * 256 * 3];
    eprintln!(
        "warp 256x256 {:.3} ms",
        median_ms(n, || omote_tracker::warp::warp_into(
            view,
            &rect,
            256,
            omote_tracker::warp::Border::Replicate,
            0.0,
            1.0,
            &mut buf
        ))
    );
    eprintln!(
        "detector {:.2} ms, landmarks {:.2} ms, blendshapes {:.2} ms, geometry {:.3} ms",
        median_ms(n, || drop(det.detect(view))),
        median_ms(n, || drop(lm.run(view, &roi))),
        median_ms(n, || drop(bs.run(&points, w, h))),
        median_ms(n, || {
            std::hint::black_box(geo.transform(&points, w, h));
        }),
    );
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: track_image IMAGE [--repeat N]");
        std::process::exit(2);
    };
    let repeat: usize = match args.iter().position(|a| a == "--repeat") {
        Some(i) => args.get(i + 1).ok_or("--repeat needs a number")?.parse()?,
        None => 1,
    };
    let t0 = Instant::now();
    let mut tracker = FaceTracker::new()?;
    eprintln!(
        "models loaded in {:.0} ms",
        t0.elapsed().as_secs_f64() * 1e3
    );
    let img = load_rgb(path.as_ref())?;
    let view = RgbView::from_image(path, &img)?;
    let mut times = Vec::new();
    let mut frame = None;
    for _ in 0..repeat.max(1) {
        let t = Instant::now();
        frame = Some(tracker.image_frame(path, &view)?);
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    eprintln!(
        "{}x{}: {:.2} ms per image (median of {})",
        view.width(),
        view.height(),
        times[times.len() / 2],
        times.len()
    );
    if args.iter().any(|a| a == "--stages") {
        stages(&view, repeat.max(1))?;
    }
    println!("{}", serde_json::to_string(&frame)?);
    Ok(())
}
