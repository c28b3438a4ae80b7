//! [`LandmarkSmoother`]: MediaPipe's landmark smoothing in VIDEO mode
//! (`LandmarksSmoothingCalculator` with a one-euro filter: min cutoff 0.05,
//! beta 80, derivative cutoff 1, `util/filtering/one_euro_filter.cc`, 0.10.21).
//!
//! Each of `x·W`, `y·H` and `z·W` of every landmark is filtered on its own, in
//! pixels; the derivative is scaled by `1 / object size`, the mean of the raw
//! landmarks' bounding-box width and height in pixels. The frequency starts at
//! 30 Hz and is re-estimated from each timestamp difference, except when the
//! previous or the new timestamp is 0 (MediaPipe's behaviour; the first frame, at
//! any time, only initialises the filter).

use std::f64::consts::PI;

/// One-euro parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OneEuroParams {
    /// Minimum cutoff frequency, Hz.
    pub min_cutoff: f64,
    /// Cutoff slope per unit of (scaled) speed.
    pub beta: f64,
    /// Cutoff of the derivative's low-pass, Hz.
    pub derivate_cutoff: f64,
}

impl Default for OneEuroParams {
    /// MediaPipe FaceLandmarker's values.
    fn default() -> Self {
        Self {
            min_cutoff: 0.05,
            beta: 80.0,
            derivate_cutoff: 1.0,
        }
    }
}

/// One-euro smoothing of a landmark set across video frames.
#[derive(Debug, Clone)]
pub struct LandmarkSmoother {
    params: OneEuroParams,
    last_us: i64,
    freq: f64,
    x: Vec<f64>,
    x_raw: Vec<f64>,
    dx: Vec<f64>,
    initialised: bool,
}

impl LandmarkSmoother {
    /// A smoother that has seen no frame.
    pub fn new(params: OneEuroParams) -> Self {
        Self {
            params,
            last_us: -1,
            freq: 30.0,
            x: Vec::new(),
            x_raw: Vec::new(),
            dx: Vec::new(),
            initialised: false,
        }
    }

    /// Forgets everything (after a frame without a face).
    pub fn reset(&mut self) {
        *self = Self::new(self.params);
    }

    /// Smooths `landmarks` (normalised) of a `width` x `height` frame taken at
    /// `timestamp_us`, in place. A timestamp not after the previous one leaves the
    /// landmarks unchanged.
    pub fn smooth(
        &mut self,
        landmarks: &mut [[f32; 3]],
        width: u32,
        height: u32,
        timestamp_us: i64,
    ) {
        let (w, h) = (f64::from(width), f64::from(height));
        if self.initialised && self.x.len() != landmarks.len() * 3 {
            self.reset();
        }
        if self.last_us >= timestamp_us {
            return;
        }
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for p in landmarks.iter() {
            let (x, y) = (f64::from(p[0]) * w, f64::from(p[1]) * h);
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
        let size = ((x1 - x0) + (y1 - y0)) / 2.0;
        let value_scale = if size > 0.0 && size.is_finite() {
            1.0 / size
        } else {
            0.0
        };
        if self.last_us != 0 && timestamp_us != 0 {
            self.freq = 1.0 / ((timestamp_us - self.last_us) as f64 * 1e-6);
        }
        self.last_us = timestamp_us;
        let freq = self.freq;
        let alpha = |cutoff: f64| 1.0 / (1.0 + freq / (2.0 * PI * cutoff));
        let a_d = alpha(self.params.derivate_cutoff);
        let first = !self.initialised;
        if first {
            let n = landmarks.len() * 3;
            self.x = vec![0.0; n];
            self.x_raw = vec![0.0; n];
            self.dx = vec![0.0; n];
            self.initialised = true;
        }
        for (i, p) in landmarks.iter_mut().enumerate() {
            for (k, scale) in [w, h, w].into_iter().enumerate() {
                let j = 3 * i + k;
                let value = f64::from(p[k]) * scale;
                if first {
                    self.x[j] = value;
                    self.dx[j] = 0.0;
                } else {
                    let dvalue = (value - self.x_raw[j]) * value_scale * freq;
                    self.dx[j] = a_d * dvalue + (1.0 - a_d) * self.dx[j];
                    let cutoff = self.params.min_cutoff + self.params.beta * self.dx[j].abs();
                    let a = alpha(cutoff);
                    self.x[j] = a * value + (1.0 - a) * self.x[j];
                }
                self.x_raw[j] = value;
                p[k] = (self.x[j] / scale) as f32;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_frame_passes_through_then_lags() {
        let mut s = LandmarkSmoother::new(OneEuroParams::default());
        let mut a = vec![[0.5f32, 0.5, 0.0], [0.6, 0.7, 0.01]];
        let orig = a.clone();
        s.smooth(&mut a, 100, 100, 0);
        assert_eq!(a, orig);
        let mut b = vec![[0.52f32, 0.5, 0.0], [0.62, 0.7, 0.01]];
        s.smooth(&mut b, 100, 100, 33_333);
        assert!(b[0][0] > 0.5 && b[0][0] < 0.52, "{b:?}");
        // repeated timestamp: unchanged
        let mut c = vec![[0.9f32, 0.9, 0.0], [0.1, 0.1, 0.0]];
        let before = c.clone();
        s.smooth(&mut c, 100, 100, 33_333);
        assert_eq!(c, before);
        s.reset();
        s.smooth(&mut c, 100, 100, 50_000);
        assert_eq!(c, before);
    }
}
