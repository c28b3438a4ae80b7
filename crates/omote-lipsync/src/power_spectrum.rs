//! The power spectrum of a real frame, through a complex FFT of half its length.
//!
//! Why not realfft: its only constructor takes rustfft's `FftPlanner`, and a planner can
//! build an FFT of any length, so every one of rustfft's odd-size butterflies (23, 27, 29,
//! 31, …) and its mixed-radix algorithms end up in the binary: 173 KB of the wasm package's
//! 725 KB before bindgen. The analyser's FFT is always 512 points. In the browser it is
//! rustfft's `Radix4` (power-of-two butterflies only); natively the planner still picks
//! the fastest kernel the CPU has (AVX, SSE). The step from the half-length complex
//! transform to the real one is the textbook split, shared by both.

use std::sync::Arc;

use rustfft::num_complex::Complex;
use rustfft::{Fft, FftDirection};

/// Computes `|X[k]|²`, k = 0..=n/2, of real frames of a fixed even length n. Holds its
/// plan, twiddles and buffers: [`PowerSpectrum::compute`] does not allocate.
pub(crate) struct PowerSpectrum {
    fft: Arc<dyn Fft<f32>>,
    /// `e^{-2πik/n}`, k = 0..n/2.
    twiddles: Vec<Complex<f32>>,
    half: Vec<Complex<f32>>,
    scratch: Vec<Complex<f32>>,
}

impl PowerSpectrum {
    /// A transform for frames of `n` samples (`n` a power of two, at least 4).
    pub(crate) fn new(n: usize) -> Self {
        debug_assert!(n.is_power_of_two() && n >= 4);
        let m = n / 2;
        let fft = half_length_fft(m);
        let twiddles = (0..m)
            .map(|k| {
                let a = -2.0 * std::f64::consts::PI * k as f64 / n as f64;
                Complex::new(a.cos() as f32, a.sin() as f32)
            })
            .collect();
        let scratch = vec![Complex::default(); fft.get_inplace_scratch_len()];
        Self {
            fft,
            twiddles,
            half: vec![Complex::default(); m],
            scratch,
        }
    }

    /// `frame`'s power spectrum into `power` (n/2 + 1 bins). `frame` has n samples.
    pub(crate) fn compute(&mut self, frame: &[f32], power: &mut [f32]) {
        let m = self.half.len();
        // Even samples as the real part, odd ones as the imaginary part.
        for (z, pair) in self.half.iter_mut().zip(frame.chunks_exact(2)) {
            *z = Complex::new(pair[0], pair[1]);
        }
        self.fft
            .process_with_scratch(&mut self.half, &mut self.scratch);
        // X[k] = E[k] + w^k O[k], with E and O the spectra of the even and odd samples:
        // E[k] = (Z[k] + Z*[m−k]) / 2, O[k] = (Z[k] − Z*[m−k]) / 2i.
        let z = &self.half;
        power[0] = (z[0].re + z[0].im).powi(2);
        power[m] = (z[0].re - z[0].im).powi(2);
        for k in 1..m {
            let a = z[k];
            let b = z[m - k].conj();
            let even = (a + b) * 0.5;
            let odd = (a - b) * Complex::new(0.0, -0.5);
            power[k] = (even + self.twiddles[k] * odd).norm_sqr();
        }
    }
}

/// The complex FFT of length `m`: see the module's comment for why it differs by target.
#[cfg(target_arch = "wasm32")]
fn half_length_fft(m: usize) -> Arc<dyn Fft<f32>> {
    Arc::new(rustfft::algorithm::Radix4::new(m, FftDirection::Forward))
}

#[cfg(not(target_arch = "wasm32"))]
fn half_length_fft(m: usize) -> Arc<dyn Fft<f32>> {
    rustfft::FftPlanner::new().plan_fft(m, FftDirection::Forward)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition, in f64.
    fn dft_power(x: &[f32]) -> Vec<f64> {
        let n = x.len();
        (0..=n / 2)
            .map(|k| {
                let (mut re, mut im) = (0f64, 0f64);
                for (t, &v) in x.iter().enumerate() {
                    let a = -2.0 * std::f64::consts::PI * (k * t) as f64 / n as f64;
                    re += f64::from(v) * a.cos();
                    im += f64::from(v) * a.sin();
                }
                re * re + im * im
            })
            .collect()
    }

    #[test]
    fn it_is_the_power_of_the_real_signals_dft() {
        let n = 512;
        // A chirp with an offset: energy in every bin, DC and Nyquist included.
        let x: Vec<f32> = (0..n)
            .map(|t| {
                let t = t as f32;
                0.3 + (0.002 * t * t).sin() + 0.5 * (std::f32::consts::PI * t).cos()
            })
            .collect();
        let want = dft_power(&x);
        let mut ps = PowerSpectrum::new(n);
        let mut got = vec![0f32; n / 2 + 1];
        ps.compute(&x, &mut got);
        let peak = want.iter().cloned().fold(0f64, f64::max);
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(
                (f64::from(*g) - w).abs() <= 1e-5 * peak,
                "bin {k}: {g} against {w}"
            );
        }
        // A pure tone on bin 10 puts its power there and nowhere else.
        let tone: Vec<f32> = (0..n)
            .map(|t| (2.0 * std::f32::consts::PI * 10.0 * t as f32 / n as f32).cos())
            .collect();
        ps.compute(&tone, &mut got);
        let best = (0..got.len())
            .max_by(|&a, &b| got[a].total_cmp(&got[b]))
            .unwrap();
        assert_eq!(best, 10);
        assert!(
            (got[10] - (n as f32 / 2.0).powi(2)).abs() < 1.0,
            "{}",
            got[10]
        );
        assert!(got[11] < 1e-3 && got[9] < 1e-3);
    }
}
