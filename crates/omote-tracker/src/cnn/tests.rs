//! The executor against tract (the reference) on real face crops.

use std::path::PathBuf;

use crate::anchors::DETECTOR_INPUT;
use crate::detector::DETECTOR_FILE;
use crate::landmarks::{LANDMARKS_FILE, LANDMARKS_INPUT};
use crate::model::{EnginePref, OnnxModel};
use crate::warp::{Border, PixelRect, warp_into};
use crate::{FaceDetector, RgbView, Roi, load_rgb, models};

/// Shared reference photos, if present.
fn photos() -> Vec<PathBuf> {
    omote_testdata::shared_files("tracking", "png").unwrap_or_default()
}

/// Max |a - b| / max(|a|, 1) over all outputs of the two models after a run on `input`.
fn max_diff(a: &mut OnnxModel, b: &mut OnnxModel, input: &[f32], lens: &[usize]) -> f32 {
    a.run(input).unwrap();
    b.run(input).unwrap();
    let mut worst = 0f32;
    for (i, &len) in lens.iter().enumerate() {
        let (x, y) = (
            a.output_slice(i, len).unwrap(),
            b.output_slice(i, len).unwrap(),
        );
        for (x, y) in x.iter().zip(y) {
            // Relative above 1: large outputs (regressors up to ~150 px, logits
            // down to -100) carry proportionally larger rounding differences.
            worst = worst.max((x - y).abs() / x.abs().max(1.0));
        }
    }
    worst
}

#[test]
fn landmark_network_matches_tract_on_real_faces() {
    let shape = [1, LANDMARKS_INPUT, LANDMARKS_INPUT, 3];
    let bytes = models::FACE_LANDMARKS_ONNX;
    let load = |pref| OnnxModel::load_with(LANDMARKS_FILE, bytes, &shape, pref).unwrap();
    let mut tract = load(EnginePref::Tract);
    let mut own = load(EnginePref::Auto);
    let mut generic = load(EnginePref::Auto);
    assert!(own.uses_own_executor() && !tract.uses_own_executor());
    if let crate::model::Engine::Cnn(net) = generic.engine_mut() {
        net.force_isa(crate::cnn::Isa::Generic);
    }
    // Outputs: 1434 landmark coordinates (0..256 px), presence logit, tongue score.
    let lens = [1434, 1, 1];
    let mut det =
        FaceDetector::from_onnx_bytes(models::FACE_DETECTOR_ONNX, Default::default()).unwrap();
    let mut input = vec![0f32; LANDMARKS_INPUT * LANDMARKS_INPUT * 3];
    let mut checked = 0;
    for path in photos() {
        let img = load_rgb(&path).unwrap();
        let view = RgbView::from_image("photo", &img).unwrap();
        let Some(d) = det.detect(&view).unwrap().first().copied() else {
            continue;
        };
        let roi = Roi::from_detection(&d, img.width(), img.height());
        let (w, h) = (f64::from(img.width()), f64::from(img.height()));
        let rect = PixelRect {
            cx: f64::from(roi.cx) * w,
            cy: f64::from(roi.cy) * h,
            width: f64::from(roi.width) * w,
            height: f64::from(roi.height) * h,
            rotation: f64::from(roi.rotation),
        };
        warp_into(
            &view,
            &rect,
            LANDMARKS_INPUT,
            Border::Replicate,
            0.0,
            1.0,
            &mut input,
        );
        let d_own = max_diff(&mut tract, &mut own, &input, &lens);
        let d_gen = max_diff(&mut tract, &mut generic, &input, &lens);
        println!(
            "{}: max |own - tract| {d_own:.2e}, generic {d_gen:.2e}",
            path.display()
        );
        // tract itself differs from onnxruntime by 1.1e-4 on these outputs.
        assert!(
            d_own < 2e-3 && d_gen < 2e-3,
            "{}: {d_own} {d_gen}",
            path.display()
        );
        checked += 1;
    }
    println!("{checked} faces checked");
}

#[test]
fn detector_network_matches_tract_on_real_photos() {
    let n = DETECTOR_INPUT;
    let shape = [1, n, n, 3];
    let bytes = models::FACE_DETECTOR_ONNX;
    let load = |pref| OnnxModel::load_with(DETECTOR_FILE, bytes, &shape, pref).unwrap();
    let mut tract = load(EnginePref::Tract);
    let mut own = load(EnginePref::Auto);
    assert!(own.uses_own_executor());
    // Outputs: 896 x 16 box/keypoint regressors (128 px scale), 896 logits.
    let lens = [896 * 16, 896];
    let mut input = vec![0f32; n * n * 3];
    let mut checked = 0;
    for path in photos() {
        let img = load_rgb(&path).unwrap();
        let view = RgbView::from_image("photo", &img).unwrap();
        let (w, h) = (f64::from(img.width()), f64::from(img.height()));
        let side = w.max(h);
        let rect = PixelRect {
            cx: w / 2.0,
            cy: h / 2.0,
            width: side,
            height: side,
            rotation: 0.0,
        };
        warp_into(&view, &rect, n, Border::Zero, -1.0, 1.0, &mut input);
        let d = max_diff(&mut tract, &mut own, &input, &lens);
        println!("{}: max |own - tract| {d:.2e}", path.display());
        assert!(d < 2e-3, "{}: {d}", path.display());
        checked += 1;
    }
    println!("{checked} photos checked");
}

#[test]
#[ignore]
fn time_isas() {
    let nets: [(&'static str, &'static [u8], usize); 2] = [
        (LANDMARKS_FILE, models::FACE_LANDMARKS_ONNX, LANDMARKS_INPUT),
        (DETECTOR_FILE, models::FACE_DETECTOR_ONNX, DETECTOR_INPUT),
    ];
    for (file, bytes, side) in nets {
        println!("== {file}");
        time_one(file, bytes, side);
    }
}

fn time_one(file: &'static str, bytes: &'static [u8], side: usize) {
    use crate::cnn::Isa;
    let shape = [1, side, side, 3];
    let input: Vec<f32> = (0..shape.iter().product::<usize>())
        .map(|i| (i % 255) as f32 / 255.0)
        .collect();
    for (name, isa) in [
        ("tract", None),
        ("own", Some(Isa::detect())),
        ("own generic", Some(Isa::Generic)),
    ] {
        let pref = if isa.is_some() {
            EnginePref::Auto
        } else {
            EnginePref::Tract
        };
        let mut m = OnnxModel::load_with(file, bytes, &shape, pref).unwrap();
        if let (crate::model::Engine::Cnn(net), Some(isa)) = (m.engine_mut(), isa) {
            net.force_isa(isa);
        }
        m.run(&input).unwrap();
        let mut times = vec![];
        for _ in 0..30 {
            let t = std::time::Instant::now();
            m.run(&input).unwrap();
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
        times.sort_by(f64::total_cmp);
        println!("{name}: min {:.3} ms, median {:.3} ms", times[0], times[15]);
        if std::env::var("PROFILE").is_ok()
            && let crate::model::Engine::Cnn(net) = m.engine_mut()
        {
            {
                let mut agg: std::collections::BTreeMap<String, (f64, usize)> = Default::default();
                for (d, t) in net.profile(&input, 20) {
                    let e = agg.entry(d).or_default();
                    e.0 += t;
                    e.1 += 1;
                }
                let mut v: Vec<_> = agg.into_iter().collect();
                v.sort_by(|a, b| b.1.0.total_cmp(&a.1.0));
                for (d, (t, c)) in v {
                    println!("  {t:7.3} ms x{c:2} {d}");
                }
            }
        }
    }
}

#[test]
fn blendshape_mixer_matches_tract_on_real_landmarks() {
    use crate::blendshapes::{BLENDSHAPE_SUBSET, BLENDSHAPES_FILE};
    use crate::frame::LandmarkerFrame;
    let shape = [1, BLENDSHAPE_SUBSET.len(), 2];
    let bytes = models::FACE_BLENDSHAPES_ONNX;
    let load = |pref| OnnxModel::load_with(BLENDSHAPES_FILE, bytes, &shape, pref).unwrap();
    let mut tract = load(EnginePref::Tract);
    let mut own = load(EnginePref::Auto);
    let mut generic = load(EnginePref::Auto);
    assert!(own.uses_own_executor() && !tract.uses_own_executor());
    if let crate::model::Engine::Mixer(m) = generic.engine_mut() {
        m.force_isa(crate::cnn::Isa::Generic);
    }
    let mut input = vec![0f32; BLENDSHAPE_SUBSET.len() * 2];
    let (mut checked, mut worst) = (0, 0f32);
    // MediaPipe's landmarks on the reference photos: real inputs of the network.
    for path in omote_testdata::shared_files("tracking", "json").unwrap_or_default() {
        let text = std::fs::read_to_string(&path).unwrap();
        let frame: LandmarkerFrame = serde_json::from_str(&text).unwrap();
        for face in &frame.faces {
            let (w, h) = (frame.width as f32, frame.height as f32);
            for (dst, &i) in input.chunks_exact_mut(2).zip(&BLENDSHAPE_SUBSET) {
                dst[0] = face.landmarks[i][0] * w;
                dst[1] = face.landmarks[i][1] * h;
            }
            let d_own = max_diff(&mut tract, &mut own, &input, &[52]);
            let d_gen = max_diff(&mut tract, &mut generic, &input, &[52]);
            // Scores in [0, 1]; only the order of the sums differs from tract.
            assert!(
                d_own < 1e-4 && d_gen < 1e-4,
                "{}: {d_own} {d_gen}",
                path.display()
            );
            worst = worst.max(d_own).max(d_gen);
            checked += 1;
        }
    }
    println!("{checked} faces checked, max |own - tract| {worst:.2e}");
}
