//! SSD anchors of the short-range BlazeFace detector (MediaPipe's
//! `SsdAnchorsCalculator` with the options of `face_detector_graph.cc`).
//!
//! Options: 4 layers, strides `[8, 16, 16, 16]`, 128x128 input, anchor offset 0.5,
//! aspect ratio 1 plus one interpolated scale, fixed anchor size. Layers with equal
//! stride share one grid, so the result is a 16x16 grid with 2 anchors per cell
//! (512) followed by an 8x8 grid with 6 anchors per cell (384): 896 anchors, in
//! the order grid row, grid column, anchor. With fixed anchor size every anchor is
//! 1x1, so only the centres matter.

/// Number of detector anchors (and of detector output rows).
pub const NUM_ANCHORS: usize = 896;

/// Detector input side in pixels.
pub const DETECTOR_INPUT: usize = 128;

/// The 896 anchor centres `(x, y)`, normalised to the 128x128 input.
pub fn ssd_anchors() -> Vec<[f32; 2]> {
    const STRIDES: [usize; 4] = [8, 16, 16, 16];
    let mut anchors = Vec::with_capacity(NUM_ANCHORS);
    let mut layer = 0;
    while layer < STRIDES.len() {
        let mut last = layer;
        let mut per_cell = 0;
        while last < STRIDES.len() && STRIDES[last] == STRIDES[layer] {
            per_cell += 2; // aspect ratio 1.0 and the interpolated scale
            last += 1;
        }
        let fm = DETECTOR_INPUT.div_ceil(STRIDES[layer]);
        for y in 0..fm {
            for x in 0..fm {
                let centre = [(x as f32 + 0.5) / fm as f32, (y as f32 + 0.5) / fm as f32];
                anchors.extend(std::iter::repeat_n(centre, per_cell));
            }
        }
        layer = last;
    }
    anchors
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_matches_blazeface_short_range() {
        let a = ssd_anchors();
        assert_eq!(a.len(), NUM_ANCHORS);
        assert_eq!(a[0], [0.5 / 16.0, 0.5 / 16.0]);
        assert_eq!(a[1], a[0]);
        assert_eq!(a[2], [1.5 / 16.0, 0.5 / 16.0]);
        assert_eq!(a[511], [15.5 / 16.0, 15.5 / 16.0]);
        assert_eq!(a[512], [0.5 / 8.0, 0.5 / 8.0]);
        assert_eq!(a[517], a[512]);
        assert_eq!(a[518], [1.5 / 8.0, 0.5 / 8.0]);
        assert_eq!(a[895], [7.5 / 8.0, 7.5 / 8.0]);
    }
}
