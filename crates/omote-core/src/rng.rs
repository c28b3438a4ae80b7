//! A small seeded random number generator.
//!
//! The core owns its RNG instead of depending on `rand`: the stream a seed produces is
//! part of our output format (bakes are reproduced bit for bit), so it must never change
//! when a dependency is upgraded. PCG32 (XSH-RR, O'Neill 2014) is small, fast and good
//! enough for animation noise.

/// PCG32 generator: 64-bit state, 32-bit output.
///
/// ```
/// use omote_core::Pcg32;
/// let mut a = Pcg32::new(7);
/// let mut b = Pcg32::new(7);
/// assert_eq!(a.next_u32(), b.next_u32());
/// let x = a.next_f32();
/// assert!((0.0..1.0).contains(&x));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pcg32 {
    state: u64,
    inc: u64,
}

const MULTIPLIER: u64 = 6_364_136_223_846_793_005;

impl Pcg32 {
    /// A generator for `seed` on the default stream.
    pub fn new(seed: u64) -> Self {
        Self::with_stream(seed, 0xda3e_39cb_94b9_5bdb)
    }

    /// A generator for `seed` on one of 2^63 independent streams.
    pub fn with_stream(seed: u64, stream: u64) -> Self {
        let mut rng = Self {
            state: 0,
            inc: (stream << 1) | 1,
        };
        rng.next_u32();
        rng.state = rng.state.wrapping_add(seed);
        rng.next_u32();
        rng
    }

    /// The next 32 random bits.
    pub fn next_u32(&mut self) -> u32 {
        let old = self.state;
        self.state = old.wrapping_mul(MULTIPLIER).wrapping_add(self.inc);
        let xorshifted = (((old >> 18) ^ old) >> 27) as u32;
        let rot = (old >> 59) as u32;
        xorshifted.rotate_right(rot)
    }

    /// Uniform in `[0, 1)` with 24 bits of precision.
    pub fn next_f32(&mut self) -> f32 {
        (self.next_u32() >> 8) as f32 * (1.0 / 16_777_216.0)
    }

    /// Uniform in `[0, 1)` with 53 bits of precision.
    pub fn next_f64(&mut self) -> f64 {
        let hi = u64::from(self.next_u32()) << 21;
        let lo = u64::from(self.next_u32() >> 11);
        (hi | lo) as f64 * (1.0 / 9_007_199_254_740_992.0)
    }

    /// Uniform in `[lo, hi)`.
    pub fn range_f32(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next_f32()
    }

    /// `true` with probability `p` (clamped to `[0, 1]`).
    pub fn chance(&mut self, p: f32) -> bool {
        self.next_f32() < p
    }

    /// A standard normal sample (Box–Muller; one of the pair is discarded to keep no state).
    pub fn normal(&mut self) -> f64 {
        // 1 - u is in (0, 1], so ln never sees 0.
        let u1 = 1.0 - self.next_f64();
        let u2 = self.next_f64();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    /// An exponential sample with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.next_f64()).ln()
    }

    /// A log-normal sample with the given mean and coefficient of variation (std / mean).
    pub fn log_normal(&mut self, mean: f64, cv: f64) -> f64 {
        let sigma2 = (1.0 + cv * cv).ln();
        let mu = mean.ln() - 0.5 * sigma2;
        (mu + sigma2.sqrt() * self.normal()).exp()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_reference_pcg32_stream() {
        // Reference values of pcg32_random_r for initstate 42, initseq 54 (pcg-c demo).
        let mut rng = Pcg32::with_stream(42, 54);
        let got: Vec<u32> = (0..6).map(|_| rng.next_u32()).collect();
        assert_eq!(
            got,
            [
                0xa15c02b7, 0x7b47f409, 0xba1d3330, 0x83d2f293, 0xbfa4784b, 0xcbed606e
            ]
        );
    }

    #[test]
    fn uniform_and_log_normal_moments() {
        let mut rng = Pcg32::new(1);
        let n = 200_000;
        let mean_u: f64 = (0..n).map(|_| rng.next_f64()).sum::<f64>() / n as f64;
        assert!((mean_u - 0.5).abs() < 0.005, "{mean_u}");
        let xs: Vec<f64> = (0..n).map(|_| rng.log_normal(3.5, 0.6)).collect();
        let m = xs.iter().sum::<f64>() / n as f64;
        let sd = (xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / n as f64).sqrt();
        assert!((m - 3.5).abs() < 0.05, "mean {m}");
        assert!((sd / m - 0.6).abs() < 0.02, "cv {}", sd / m);
    }
}
