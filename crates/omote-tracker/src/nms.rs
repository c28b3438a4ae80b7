//! Weighted non-maximum suppression (MediaPipe's `NonMaxSuppressionCalculator`,
//! `WEIGHTED` algorithm, intersection-over-union overlap).

use crate::detector::Detection;

/// Intersection over union of two `[xmin, ymin, xmax, ymax]` boxes; 0 when the
/// union is empty.
pub fn iou(a: &[f32; 4], b: &[f32; 4]) -> f32 {
    let ix = (a[2].min(b[2]) - a[0].max(b[0])).max(0.0);
    let iy = (a[3].min(b[3]) - a[1].max(b[1])).max(0.0);
    let inter = ix * iy;
    let union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter;
    if union > 0.0 { inter / union } else { 0.0 }
}

/// Merges overlapping detections: repeatedly takes the best-scoring remaining
/// detection, averages it with every remaining detection whose IoU with it is above
/// `threshold` (box corners and keypoints, weighted by score; the merged detection
/// keeps the best score), and drops those. Stops after `max_out` results.
pub fn weighted_nms(mut dets: Vec<Detection>, threshold: f32, max_out: usize) -> Vec<Detection> {
    dets.sort_by(|a, b| b.score.total_cmp(&a.score));
    let mut out = Vec::new();
    let mut remaining = dets;
    while !remaining.is_empty() && out.len() < max_out {
        let top = remaining[0];
        let (cand, rest): (Vec<Detection>, Vec<Detection>) = remaining
            .iter()
            .copied()
            .partition(|d| iou(&d.bbox, &top.bbox) > threshold);
        let total: f32 = cand.iter().map(|d| d.score).sum();
        let mut merged = top;
        if !cand.is_empty() && total > 0.0 {
            merged.bbox = [0.0; 4];
            merged.keypoints = [[0.0; 2]; 6];
            for d in &cand {
                let w = d.score / total;
                for (m, v) in merged.bbox.iter_mut().zip(d.bbox) {
                    *m += v * w;
                }
                for (m, k) in merged.keypoints.iter_mut().zip(d.keypoints) {
                    m[0] += k[0] * w;
                    m[1] += k[1] * w;
                }
            }
        }
        out.push(merged);
        if rest.len() == remaining.len() {
            // The top box overlaps nothing, not even itself (empty box): done.
            break;
        }
        remaining = rest;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn det(score: f32, x0: f32, kx: f32) -> Detection {
        Detection {
            score,
            bbox: [x0, 0.0, x0 + 1.0, 1.0],
            keypoints: [[kx, 0.5]; 6],
        }
    }

    #[test]
    fn iou_basics() {
        assert_eq!(iou(&[0.0, 0.0, 1.0, 1.0], &[0.0, 0.0, 1.0, 1.0]), 1.0);
        assert!((iou(&[0.0, 0.0, 1.0, 1.0], &[0.5, 0.0, 1.5, 1.0]) - 1.0 / 3.0).abs() < 1e-6);
        assert_eq!(iou(&[0.0, 0.0, 0.0, 0.0], &[0.0, 0.0, 0.0, 0.0]), 0.0);
    }

    #[test]
    fn merges_overlaps_weighted_by_score() {
        let d = vec![det(0.6, 0.2, 1.0), det(0.9, 0.0, 0.0), det(0.7, 5.0, 3.0)];
        let out = weighted_nms(d, 0.5, 10);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].score, 0.9);
        let x0 = (0.9 * 0.0 + 0.6 * 0.2) / 1.5;
        assert!((out[0].bbox[0] - x0).abs() < 1e-6);
        assert!((out[0].keypoints[3][0] - 0.4).abs() < 1e-6);
        assert_eq!(out[1].bbox[0], 5.0);
        assert_eq!(
            weighted_nms(vec![det(0.6, 0.2, 1.0), det(0.9, 5.0, 0.0)], 0.5, 1).len(),
            1
        );
    }

    #[test]
    fn degenerate_boxes_do_not_loop_or_nan() {
        let mut d = det(0.8, 0.0, 0.0);
        d.bbox = [0.3, 0.3, 0.3, 0.3];
        let out = weighted_nms(vec![d, d], 0.5, 10);
        assert_eq!(out.len(), 1);
        assert!(out[0].bbox.iter().all(|v| v.is_finite()));
    }
}
