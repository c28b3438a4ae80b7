//! Integration tests of omote-tracker: parity with MediaPipe's own outputs on the
//! shared reference images and video sequence, and robustness on bad input.
//!
//! The reference data lives outside the repository, in
//! `shared/data/tracking/` next to the workspace; tests that need it print a
//! message and pass when it is absent.

mod support;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, OnceLock};

use omote_tracker::{
    FaceTracker, LandmarkerFace, LandmarkerFrame, NUM_LANDMARKS, RgbView, TrackerError,
    decode_rgb_bytes, load_rgb,
};

use support::sequence;

/// One tracker for the whole test binary (model loading is the slow part).
fn tracker() -> MutexGuard<'static, FaceTracker> {
    static T: OnceLock<Mutex<FaceTracker>> = OnceLock::new();
    T.get_or_init(|| Mutex::new(FaceTracker::new().expect("models load")))
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

/// How one face compares with MediaPipe's.
#[derive(Debug, Clone, Copy, Default)]
struct Diff {
    /// Mean landmark distance (x, y in pixels) over the 478 points.
    landmark_mean_px: f64,
    /// Inter-ocular distance of the reference (pupil to pupil, landmarks 468 and
    /// 473), pixels.
    iod_px: f64,
    /// Mean and max |blendshape difference| over the 52 scores.
    blend_mean: f64,
    blend_max: f64,
    /// Angle between the two transformation matrices' rotations, degrees.
    rotation_deg: f64,
    /// Largest difference of a translation entry, cm.
    translation_cm: f64,
}

impl Diff {
    fn landmark_pct_iod(&self) -> f64 {
        100.0 * self.landmark_mean_px / self.iod_px
    }
}

fn rotation_of(m: &[f32; 16]) -> [[f64; 3]; 3] {
    let mut r = [[0.0; 3]; 3];
    for c in 0..3 {
        let col = [m[c] as f64, m[4 + c] as f64, m[8 + c] as f64];
        let n = (col[0] * col[0] + col[1] * col[1] + col[2] * col[2]).sqrt();
        for k in 0..3 {
            r[k][c] = col[k] / n;
        }
    }
    r
}

fn rotation_angle_deg(a: &[f32; 16], b: &[f32; 16]) -> f64 {
    let (ra, rb) = (rotation_of(a), rotation_of(b));
    // trace(raᵀ·rb)
    let mut tr = 0.0;
    for r in 0..3 {
        for c in 0..3 {
            tr += ra[r][c] * rb[r][c];
        }
    }
    ((tr - 1.0) / 2.0).clamp(-1.0, 1.0).acos().to_degrees()
}

fn compare(reference: &LandmarkerFace, got: &LandmarkerFace, w: u32, h: u32) -> Diff {
    let (w, h) = (w as f64, h as f64);
    let px = |p: &[f32; 3]| (p[0] as f64 * w, p[1] as f64 * h);
    let mut sum = 0.0;
    for (r, g) in reference.landmarks.iter().zip(&got.landmarks) {
        let (rx, ry) = px(r);
        let (gx, gy) = px(g);
        sum += ((rx - gx).powi(2) + (ry - gy).powi(2)).sqrt();
    }
    let (ax, ay) = px(&reference.landmarks[468]);
    let (bx, by) = px(&reference.landmarks[473]);
    let diffs: Vec<f64> = reference
        .blendshapes
        .0
        .iter()
        .zip(got.blendshapes.0)
        .map(|(a, b)| (*a as f64 - b as f64).abs())
        .collect();
    let translation_cm = [3, 7, 11]
        .iter()
        .map(|&i| (reference.transform[i] as f64 - got.transform[i] as f64).abs())
        .fold(0.0, f64::max);
    Diff {
        landmark_mean_px: sum / NUM_LANDMARKS as f64,
        iod_px: ((ax - bx).powi(2) + (ay - by).powi(2)).sqrt(),
        blend_mean: diffs.iter().sum::<f64>() / diffs.len() as f64,
        blend_max: diffs.iter().copied().fold(0.0, f64::max),
        rotation_deg: rotation_angle_deg(&reference.transform, &got.transform),
        translation_cm,
    }
}

fn read_reference(path: &Path) -> LandmarkerFrame {
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

// Limits from the issue (parity with MediaPipe).
const MAX_LANDMARK_PCT_IOD: f64 = 1.5;
const MAX_BLEND_MEAN: f64 = 0.02;
const MAX_BLEND_MAX: f64 = 0.08;
const MAX_ROTATION_DEG: f64 = 2.0;

#[test]
fn parity_with_mediapipe_on_every_reference_image() {
    let Some(dir) = omote_testdata::shared_data("tracking") else {
        return;
    };
    let mut refs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".mediapipe.json"))
        .collect();
    refs.sort();
    assert!(
        refs.len() >= 45,
        "expected the 45 reference images, found {}",
        refs.len()
    );
    let mut failures = Vec::new();
    let mut worst = Diff::default();
    let mut worst_pct: f64 = 0.0;
    println!(
        "{:<28} {:>5} {:>5} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8}",
        "image", "mp", "omote", "lm px", "%IOD", "bs mean", "bs max", "rot deg", "t cm"
    );
    for path in &refs {
        let reference = read_reference(path);
        let name = reference.image.clone().unwrap();
        let img = load_rgb(&dir.join(&name)).unwrap();
        let view = RgbView::from_image(&name, &img).unwrap();
        let got = tracker().image_frame(&name, &view).unwrap();
        assert_eq!((got.width, got.height), (reference.width, reference.height));
        let (nr, ng) = (reference.faces.len(), got.faces.len());
        if nr != ng {
            println!("{name:<28} {nr:>5} {ng:>5}  FACE COUNT DIFFERS");
            failures.push(format!("{name}: MediaPipe found {nr} faces, omote {ng}"));
            continue;
        }
        let Some((r, g)) = reference.faces.first().zip(got.faces.first()) else {
            println!("{name:<28} {nr:>5} {ng:>5}");
            continue;
        };
        let d = compare(r, g, reference.width, reference.height);
        println!(
            "{name:<28} {nr:>5} {ng:>5} {:>9.3} {:>8.3} {:>8.4} {:>8.4} {:>8.3} {:>8.3}",
            d.landmark_mean_px,
            d.landmark_pct_iod(),
            d.blend_mean,
            d.blend_max,
            d.rotation_deg,
            d.translation_cm
        );
        worst_pct = worst_pct.max(d.landmark_pct_iod());
        worst.blend_mean = worst.blend_mean.max(d.blend_mean);
        worst.blend_max = worst.blend_max.max(d.blend_max);
        worst.rotation_deg = worst.rotation_deg.max(d.rotation_deg);
        worst.translation_cm = worst.translation_cm.max(d.translation_cm);
        if d.landmark_pct_iod() > MAX_LANDMARK_PCT_IOD {
            failures.push(format!(
                "{name}: landmark error {:.3} % IOD",
                d.landmark_pct_iod()
            ));
        }
        if d.blend_mean > MAX_BLEND_MEAN || d.blend_max > MAX_BLEND_MAX {
            failures.push(format!(
                "{name}: blendshape diff mean {:.4} max {:.4}",
                d.blend_mean, d.blend_max
            ));
        }
        if d.rotation_deg > MAX_ROTATION_DEG {
            failures.push(format!(
                "{name}: rotation differs by {:.3}°",
                d.rotation_deg
            ));
        }
    }
    println!(
        "worst over {} images: landmarks {:.3} % IOD, blendshapes mean {:.4} max {:.4}, rotation {:.3}°, translation {:.3} cm",
        refs.len(),
        worst_pct,
        worst.blend_mean,
        worst.blend_max,
        worst.rotation_deg,
        worst.translation_cm
    );
    assert!(
        failures.is_empty(),
        "parity failures:\n{}",
        failures.join("\n")
    );
}

#[test]
fn parity_with_mediapipe_on_the_video_sequence() {
    let Some(dir) = omote_testdata::shared_data("tracking") else {
        return;
    };
    let astro = load_rgb(&dir.join("astronaut.png")).unwrap();
    let jsonl = std::fs::read_to_string(dir.join("astronaut_sequence.jsonl")).unwrap();
    // A tracker of its own: video state must not leak into the image tests.
    let mut tracker = FaceTracker::new().unwrap();
    let mut failures = Vec::new();
    let (mut worst_pct, mut worst_bs, mut worst_rot): (f64, f64, f64) = (0.0, 0.0, 0.0);
    let (mut found, mut detector_runs) = (0, 0);
    for line in jsonl.lines() {
        let reference: LandmarkerFrame = serde_json::from_str(line).unwrap();
        let i = reference.frame.unwrap();
        let rgb = sequence::render_frame(astro.as_raw(), astro.width(), astro.height(), i);
        let view = RgbView::new("frame", sequence::W, sequence::H, &rgb).unwrap();
        let got = tracker.video_frame(i, sequence::FPS, &view).unwrap();
        assert_eq!(got.timestamp_ms, reference.timestamp_ms);
        detector_runs += usize::from(tracker.last_stats().detector_ran);
        if got.faces.len() != reference.faces.len() {
            failures.push(format!(
                "frame {i}: MediaPipe {} faces, omote {}",
                reference.faces.len(),
                got.faces.len()
            ));
            continue;
        }
        if let Some((r, g)) = reference.faces.first().zip(got.faces.first()) {
            found += 1;
            let d = compare(r, g, reference.width, reference.height);
            worst_pct = worst_pct.max(d.landmark_pct_iod());
            worst_bs = worst_bs.max(d.blend_max);
            worst_rot = worst_rot.max(d.rotation_deg);
            if d.landmark_pct_iod() > MAX_LANDMARK_PCT_IOD
                || d.blend_max > MAX_BLEND_MAX
                || d.rotation_deg > MAX_ROTATION_DEG
            {
                failures.push(format!(
                    "frame {i}: {:.3} % IOD, blendshape max {:.4}, rotation {:.3}°",
                    d.landmark_pct_iod(),
                    d.blend_max,
                    d.rotation_deg
                ));
            }
        }
    }
    println!(
        "sequence: {found} frames with a face, detector ran on {detector_runs} of 300; worst landmarks {worst_pct:.3} % IOD, blendshape max {worst_bs:.4}, rotation {worst_rot:.3}°"
    );
    assert!(
        failures.is_empty(),
        "sequence parity failures:\n{}",
        failures.join("\n")
    );
    assert!(
        detector_runs < 60,
        "tracking should skip the detector, ran {detector_runs} times"
    );
}

// ---------------------------------------------------------------- bad input

fn no_panic_on(w: u32, h: u32, data: &[u8]) -> Vec<LandmarkerFace> {
    let view = RgbView::new("test", w, h, data).unwrap();
    tracker().detect_image(&view).unwrap()
}

#[test]
fn tiny_and_odd_sizes_find_no_face_without_panicking() {
    for (w, h) in [
        (1, 1),
        (1, 7),
        (7, 1),
        (2, 2),
        (3, 5),
        (127, 129),
        (641, 479),
        (1, 2000),
        (2000, 1),
    ] {
        let grey = vec![128u8; (w * h * 3) as usize];
        assert!(no_panic_on(w, h, &grey).is_empty(), "{w}x{h}");
        let noise: Vec<u8> = (0..w * h * 3)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let _ = no_panic_on(w, h, &noise);
    }
}

#[test]
fn video_mode_survives_size_changes_and_rejects_bad_timestamps() {
    let mut tracker = FaceTracker::new().unwrap();
    let mut t = 0;
    for (w, h) in [(64, 48), (1, 1), (320, 240), (5, 3)] {
        let frame = vec![90u8; (w * h * 3) as usize];
        let view = RgbView::new("f", w, h, &frame).unwrap();
        assert!(tracker.track(&view, t).unwrap().is_empty());
        t += 33_333;
    }
    let frame = vec![0u8; 12];
    let view = RgbView::new("f", 2, 2, &frame).unwrap();
    let err = tracker.track(&view, 0).unwrap_err();
    assert!(matches!(err, TrackerError::Timestamp { .. }), "{err}");
    tracker.reset();
    assert!(tracker.track(&view, 0).unwrap().is_empty());
}

fn png_bytes(img: image::DynamicImage) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageOutputFormat::Png)
        .unwrap();
    out.into_inner()
}

#[test]
fn grey_alpha_and_16_bit_images_are_converted() {
    let Some(dir) = omote_testdata::shared_data("tracking") else {
        return;
    };
    let base = image::open(dir.join("astronaut.png")).unwrap();
    let reference = tracker()
        .detect_image(&RgbView::from_image("rgb", &base.to_rgb8()).unwrap())
        .unwrap();
    assert_eq!(reference.len(), 1);
    for (what, img) in [
        ("grey", image::DynamicImage::ImageLuma8(base.to_luma8())),
        ("grey16", image::DynamicImage::ImageLuma16(base.to_luma16())),
        ("rgba", image::DynamicImage::ImageRgba8(base.to_rgba8())),
        ("rgb16", image::DynamicImage::ImageRgb16(base.to_rgb16())),
        ("rgba16", image::DynamicImage::ImageRgba16(base.to_rgba16())),
    ] {
        let rgb = decode_rgb_bytes(what, &png_bytes(img)).unwrap();
        assert_eq!(rgb.dimensions(), (512, 512));
        let faces = tracker()
            .detect_image(&RgbView::from_image(what, &rgb).unwrap())
            .unwrap();
        assert_eq!(faces.len(), 1, "{what}");
        if what != "grey" && what != "grey16" {
            // same pixels as the 8-bit RGB original: same result
            assert_eq!(faces[0].landmarks, reference[0].landmarks, "{what}");
        }
    }
}

#[test]
fn a_large_image_works_and_an_absurd_one_is_refused_from_its_header() {
    // 4000 x 3000, a plain grey frame: runs, finds nothing.
    let big = vec![100u8; 4000 * 3000 * 3];
    assert!(no_panic_on(4000, 3000, &big).is_empty());
    // A PNG header claiming 100000 x 100000 pixels (no data follows).
    let mut png = png_bytes(image::DynamicImage::ImageRgb8(image::RgbImage::new(1, 1)));
    // IHDR width/height are bytes 16..24
    png[16..20].copy_from_slice(&100_000u32.to_be_bytes());
    png[20..24].copy_from_slice(&100_000u32.to_be_bytes());
    let err = decode_rgb_bytes("huge.png", &png).unwrap_err().to_string();
    assert!(err.starts_with("huge.png"), "{err}");
    // Just over the side limit, still claimed by the header only.
    png[16..20].copy_from_slice(&20_000u32.to_be_bytes());
    png[20..24].copy_from_slice(&2u32.to_be_bytes());
    let err = decode_rgb_bytes("wide.png", &png).unwrap_err().to_string();
    assert!(err.starts_with("wide.png"), "{err}");
}

#[test]
fn broken_files_give_errors_naming_them() {
    let png = png_bytes(image::DynamicImage::ImageRgb8(image::RgbImage::new(64, 64)));
    let err = decode_rgb_bytes("cut.png", &png[..png.len() / 2])
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("cut.png: cannot read image"), "{err}");
    let err = load_rgb(Path::new("/nonexistent/face.png"))
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("/nonexistent/face.png: cannot read image"),
        "{err}"
    );
    let err = decode_rgb_bytes("empty.jpg", &[]).unwrap_err().to_string();
    assert!(err.starts_with("empty.jpg"), "{err}");
    let err = RgbView::new("stdin frame 3", 4, 4, &[0; 10])
        .unwrap_err()
        .to_string();
    assert!(err.contains("stdin frame 3") && err.contains("48"), "{err}");
}

#[test]
fn jpeg_input_is_tracked() {
    let Some(dir) = omote_testdata::shared_data("tracking") else {
        return;
    };
    let base = image::open(dir.join("obama.png")).unwrap().to_rgb8();
    let mut jpg = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb8(base)
        .write_to(&mut jpg, image::ImageOutputFormat::Jpeg(95))
        .unwrap();
    let rgb = decode_rgb_bytes("obama.jpg", jpg.get_ref()).unwrap();
    let faces = tracker()
        .detect_image(&RgbView::from_image("obama.jpg", &rgb).unwrap())
        .unwrap();
    assert_eq!(faces.len(), 1);
}
