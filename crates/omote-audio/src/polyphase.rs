//! Sample-rate conversion with a polyphase windowed-sinc filter, over whole buffers
//! ([`Polyphase`]) or input that arrives in pieces ([`PolyphaseStream`]).
//!
//! For rates `from` → `to` with greatest common divisor `g`, output sample `k` lies at
//! input time `k·M/L` (`L = to/g`, `M = from/g`), so only `L` distinct filter phases
//! exist; each is a precomputed row of taps and an output sample is one dot product over
//! the input around that time. The kernel is a sinc low-pass at a fraction of the lower
//! Nyquist frequency, Kaiser-windowed (β = `KAISER_BETA`, about −80 dB stop band) over a
//! number of zero crossings each side (counted at the lower rate). Downsampling, where
//! every tap costs (48 kHz → 16 kHz: 96 per output sample), uses 16 crossings and a
//! corner at 0.85: flat to 5.5 kHz, at least 80 dB down above 8.1 kHz, which
//! keeps the analyser's band (to 4 kHz) untouched and nothing folds into it. Upsampling
//! (8 kHz telephone audio) keeps more of the narrow input band with 64 crossings and a
//! corner at 0.95: flat to 0.91 of the input's Nyquist frequency. The filter is
//! symmetric and centred on the output time, so there is no delay to remove.
//!
//! Ratios with more than `MAX_PHASES` phases (unusual rates such as 47 999 Hz) use
//! `MAX_PHASES` phases and the nearest one per output sample: a time error of at most
//! 1/2048 of an input sample.

/// Downsampling: zero crossings of the sinc on each side of the centre, counted at the
/// output rate, and the low-pass corner as a fraction of the output's Nyquist frequency
/// (the centre of the transition band).
const DOWN: (usize, f64) = (16, 0.85);
/// Upsampling: the same, counted at (a fraction of) the input rate.
const UP: (usize, f64) = (64, 0.95);
/// Kaiser window shape: stop band about −80 dB.
const KAISER_BETA: f64 = 8.0;
/// Largest phase table kept (phases × taps floats).
const MAX_PHASES: usize = 1024;
/// Taps per phase are padded to a multiple of this (the dot product's lanes).
const LANES: usize = 8;

/// A polyphase resampler for one pair of rates; reusable for any number of buffers.
#[derive(Clone, Debug)]
pub struct Polyphase {
    from: u32,
    to: u32,
    /// Output step in input samples is `step_int + step_frac / l`.
    l: u64,
    step_int: usize,
    step_frac: u64,
    /// Phases in the table (`l`, or `MAX_PHASES` when `l` is larger).
    phases: usize,
    /// Taps per phase (a multiple of `LANES`).
    taps: usize,
    /// Taps before the centre: output time `n0 + frac` uses input `n0 + 1 - half ..`.
    half: usize,
    /// `phases × taps`, row `p` for the fraction `p / phases`.
    table: Vec<f32>,
    /// The input with `half` zeros before it and enough after (kept between calls).
    padded: Vec<f32>,
}

impl Polyphase {
    /// A resampler from `from` Hz to `to` Hz (both non-zero; the caller checks ranges).
    pub fn new(from: u32, to: u32) -> Self {
        let g = gcd(u64::from(from), u64::from(to));
        let l = u64::from(to) / g;
        let m = u64::from(from) / g;
        // Downsampling narrows the kernel's band and widens it in input samples.
        let scale = (f64::from(to) / f64::from(from)).min(1.0);
        let (zero_crossings, cutoff) = if to < from { DOWN } else { UP };
        let fc = cutoff * scale;
        let half_width = zero_crossings as f64 / scale;
        let half = half_width.ceil() as usize;
        let taps = (2 * half).div_ceil(LANES) * LANES;
        let phases = usize::try_from(l).map_or(MAX_PHASES, |l| l.min(MAX_PHASES));
        let mut table = vec![0.0f32; phases * taps];
        let i0_beta = bessel_i0(KAISER_BETA);
        for (p, row) in table.chunks_exact_mut(taps).enumerate() {
            let frac = p as f64 / phases as f64;
            let mut sum = 0.0f64;
            let mut row64 = vec![0.0f64; taps];
            for (j, t) in row64.iter_mut().enumerate() {
                // Distance from the output time to input sample `n0 + 1 - half + j`.
                let tau = half as f64 - 1.0 - j as f64 + frac;
                let r = tau / half_width;
                if r.abs() < 1.0 {
                    let w = bessel_i0(KAISER_BETA * (1.0 - r * r).sqrt()) / i0_beta;
                    *t = fc * sinc(fc * tau) * w;
                    sum += *t;
                }
            }
            // Unit gain at DC in every phase: a constant stays exactly constant.
            for (t, v) in row.iter_mut().zip(&row64) {
                *t = (v / sum) as f32;
            }
        }
        Self {
            from,
            to,
            l,
            step_int: usize::try_from(m / l).unwrap_or(usize::MAX),
            step_frac: m % l,
            phases,
            taps,
            half,
            table,
            padded: Vec::new(),
        }
    }

    /// Input rate (Hz).
    pub fn input_rate(&self) -> u32 {
        self.from
    }

    /// Resamples `input` into `out` (cleared first): `round(len · to / from)` samples,
    /// sample `k` at input time `k · from / to`. Non-finite results become 0.
    pub fn process_into(&mut self, input: &[f32], out: &mut Vec<f32>) {
        out.clear();
        if input.is_empty() {
            return;
        }
        let (from, to) = (u64::from(self.from), u64::from(self.to));
        let want = ((input.len() as u64 * to + from / 2) / from) as usize;
        // Zeros around the input: `half` before, and after enough for the last output's
        // window (its centre may be up to one step past the last input sample).
        self.padded.clear();
        self.padded.resize(self.half, 0.0);
        self.padded.extend_from_slice(input);
        let tail = self.taps + self.step_int + 2;
        self.padded.resize(self.padded.len() + tail, 0.0);
        out.reserve(want);
        let mut at = OutputTime::default();
        for _ in 0..want {
            let (skip, row) = self.phase(at.p);
            let n = at.n0 as usize + skip;
            out.push(self.output(&self.padded[n + 1..n + 1 + self.taps], row));
            self.advance(&mut at);
        }
    }

    /// For an output `p / l` of a sample past its base sample: how many samples later
    /// than usual its window starts (1 when the nearest phase rounds up to the next
    /// sample, else 0), and its row of the table.
    fn phase(&self, p: u64) -> (usize, usize) {
        if self.phases as u64 == self.l {
            (0, p as usize)
        } else {
            // Nearest of the table's phases; the last rounds up to the next sample.
            let q = ((p * self.phases as u64 * 2 + self.l) / (2 * self.l)) as usize;
            if q == self.phases { (1, 0) } else { (0, q) }
        }
    }

    /// One output sample from its window of `taps` padded input samples.
    fn output(&self, window: &[f32], row: usize) -> f32 {
        let y = dot(window, &self.table[row * self.taps..(row + 1) * self.taps]);
        if y.is_finite() { y } else { 0.0 }
    }

    fn advance(&self, at: &mut OutputTime) {
        at.n0 += self.step_int as u64;
        at.p += self.step_frac;
        if at.p >= self.l {
            at.p -= self.l;
            at.n0 += 1;
        }
    }

    /// Seconds from an output sample's time to the arrival of the last input sample its
    /// window needs: what streaming through this filter delays by.
    pub fn stream_delay_s(&self) -> f64 {
        (self.taps - self.half) as f64 / f64::from(self.from)
    }
}

/// Where the next output sample lies: its window starts after padded input sample `n0`
/// (counted from the start of the stream, `half` zeros included), `p / l` of a sample on.
#[derive(Clone, Copy, Debug, Default)]
struct OutputTime {
    n0: u64,
    p: u64,
}

/// The polyphase filter over input that arrives in pieces: every output sample is
/// computed as soon as its window's last input sample is there, and is bit-identical to
/// the same sample of [`Polyphase::process_into`] over the whole input (after
/// [`PolyphaseStream::flush`], the whole output is).
#[derive(Clone, Debug)]
pub struct PolyphaseStream {
    filter: Polyphase,
    /// Padded input from absolute index `base` on (the stream starts with `half` zeros,
    /// so `base + history.len() - half` samples have been pushed).
    history: Vec<f32>,
    base: u64,
    next: OutputTime,
    outputs: u64,
}

impl PolyphaseStream {
    /// A stream through `filter`.
    pub fn new(filter: Polyphase) -> Self {
        let mut stream = Self {
            history: Vec::with_capacity(4 * filter.taps + 4096),
            filter,
            base: 0,
            next: OutputTime::default(),
            outputs: 0,
        };
        stream.restart();
        stream
    }

    /// Back to the start of a stream: nothing pushed, `half` zeros before the input.
    fn restart(&mut self) {
        self.history.clear();
        self.history.resize(self.filter.half, 0.0);
        self.base = 0;
        self.next = OutputTime::default();
        self.outputs = 0;
    }

    /// The filter's [`Polyphase::stream_delay_s`].
    pub fn delay_s(&self) -> f64 {
        self.filter.stream_delay_s()
    }

    /// Appends `input` and every output sample it completes to `out`.
    pub fn push(&mut self, input: &[f32], out: &mut Vec<f32>) {
        self.history.extend_from_slice(input);
        self.drain(out, u64::MAX);
    }

    /// Ends the stream: the input is followed by the zeros [`Polyphase::process_into`]
    /// pads it with (enough for its last output's window), and the outputs up to
    /// `round(inputs · to / from)` are appended to `out`. The stream then starts again
    /// from nothing.
    pub fn flush(&mut self, out: &mut Vec<f32>) {
        let f = &self.filter;
        let inputs = self.base + self.history.len() as u64 - f.half as u64;
        let (from, to) = (u64::from(f.from), u64::from(f.to));
        let want = (inputs * to + from / 2) / from;
        let tail = f.taps + f.step_int + 2;
        self.history.resize(self.history.len() + tail, 0.0);
        self.drain(out, want);
        debug_assert_eq!(self.outputs, want, "the padding covers every window");
        self.restart();
    }

    /// Computes outputs while their windows are complete (and fewer than `limit`), then
    /// forgets the input no later output needs.
    fn drain(&mut self, out: &mut Vec<f32>, limit: u64) {
        let f = &self.filter;
        let end = self.base + self.history.len() as u64;
        while self.outputs < limit {
            let (skip, row) = f.phase(self.next.p);
            let start = self.next.n0 + skip as u64 + 1;
            if start + f.taps as u64 > end {
                break;
            }
            let i = (start - self.base) as usize;
            out.push(f.output(&self.history[i..i + f.taps], row));
            f.advance(&mut self.next);
            self.outputs += 1;
        }
        // The next window starts after `n0` (or one later): keep from there on.
        let keep_from = (self.next.n0 + 1).clamp(self.base, end);
        let drop = (keep_from - self.base) as usize;
        self.history.drain(..drop);
        self.base = keep_from;
    }
}

/// The dot product in WebAssembly. The web package is built without SIMD (a
/// whole-program `simd128` build is 12 KB larger gzipped, over its size budget), so this
/// one loop, most of a 48 kHz clip's analysis time, gets it alone. It adds and multiplies lane for lane in
/// the scalar version's order (no fused multiply-add), so the web's numbers stay
/// bit-identical to native ones.
#[cfg(target_arch = "wasm32")]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    // A safe call on wasm: `simd128` is part of every engine the package supports (Chrome
    // 91, Firefox 89, Safari 16.4, Node 16.4 and later), and an engine without it rejects
    // the module when it loads rather than run this.
    dot_simd128(a, b)
}

#[cfg(target_arch = "wasm32")]
#[target_feature(enable = "simd128")]
fn dot_simd128(a: &[f32], b: &[f32]) -> f32 {
    use core::arch::wasm32::{f32x4, f32x4_add, f32x4_extract_lane, f32x4_mul, v128, v128_load};
    // Four lanes at `p` (wasm's v128 loads take any alignment).
    #[inline]
    #[target_feature(enable = "simd128")]
    fn load(p: &[f32]) -> v128 {
        debug_assert!(p.len() >= 4);
        // SAFETY: `p` holds at least four floats (the chunks below are `LANES` = 8 long).
        #[allow(unsafe_code)]
        unsafe {
            v128_load(p.as_ptr().cast::<v128>())
        }
    }
    let (mut lo, mut hi) = (f32x4(0.0, 0.0, 0.0, 0.0), f32x4(0.0, 0.0, 0.0, 0.0));
    for (x, y) in a.chunks_exact(LANES).zip(b.chunks_exact(LANES)) {
        lo = f32x4_add(lo, f32x4_mul(load(&x[..4]), load(&y[..4])));
        hi = f32x4_add(hi, f32x4_mul(load(&x[4..]), load(&y[4..])));
    }
    let s = f32x4_add(lo, hi);
    (f32x4_extract_lane::<0>(s) + f32x4_extract_lane::<2>(s))
        + (f32x4_extract_lane::<1>(s) + f32x4_extract_lane::<3>(s))
}

/// Dot product in `LANES` independent sums (both slices are a multiple of `LANES` long),
/// which the compiler turns into vector instructions.
#[cfg(not(target_arch = "wasm32"))]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0f32; LANES];
    for (x, y) in a.chunks_exact(LANES).zip(b.chunks_exact(LANES)) {
        for i in 0..LANES {
            acc[i] += x[i] * y[i];
        }
    }
    let s4 = [
        acc[0] + acc[4],
        acc[1] + acc[5],
        acc[2] + acc[6],
        acc[3] + acc[7],
    ];
    (s4[0] + s4[2]) + (s4[1] + s4[3])
}

fn sinc(x: f64) -> f64 {
    if x.abs() < 1e-12 {
        1.0
    } else {
        let px = std::f64::consts::PI * x;
        px.sin() / px
    }
}

/// The modified Bessel function of the first kind, order 0 (power series; converges
/// fast for the window's arguments, at most `KAISER_BETA`).
fn bessel_i0(x: f64) -> f64 {
    let q = x * x / 4.0;
    let (mut term, mut sum) = (1.0f64, 1.0f64);
    for k in 1..64 {
        term *= q / (k * k) as f64;
        sum += term;
        if term < sum * 1e-17 {
            break;
        }
    }
    sum
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tone(rate: u32, hz: f64, seconds: f64) -> Vec<f32> {
        let n = (f64::from(rate) * seconds) as usize;
        (0..n)
            .map(|i| {
                (0.5 * (2.0 * std::f64::consts::PI * hz * i as f64 / f64::from(rate)).sin()) as f32
            })
            .collect()
    }

    /// RMS of `y` against the ideal tone at the output rate, away from the ends.
    fn error_db(y: &[f32], rate: u32, hz: f64, gain: f64) -> f64 {
        let (a, b) = (y.len() / 4, 3 * y.len() / 4);
        let mut e = 0.0f64;
        let mut s = 0.0f64;
        for (i, v) in y.iter().enumerate().take(b).skip(a) {
            let want =
                gain * 0.5 * (2.0 * std::f64::consts::PI * hz * i as f64 / f64::from(rate)).sin();
            e += (f64::from(*v) - want).powi(2);
            s += want.powi(2).max(1e-30);
        }
        10.0 * (e / s.max(1e-30)).log10()
    }

    #[test]
    fn pass_band_tones_come_through_in_time_and_level() {
        for from in [8_000u32, 11_025, 22_050, 44_100, 48_000, 96_000, 47_999] {
            let mut r = Polyphase::new(from, 16_000);
            let mut y = Vec::new();
            for hz in [200.0, 1_000.0, 3_500.0] {
                r.process_into(&tone(from, hz, 0.5), &mut y);
                let err = error_db(&y, 16_000, hz, 1.0);
                assert!(err < -60.0, "{from} Hz, {hz} Hz tone: error {err:.1} dB");
            }
        }
    }

    #[test]
    fn stop_band_tones_are_removed() {
        // Above the output's Nyquist frequency: what is left is aliasing.
        for (from, hz) in [(48_000u32, 9_000.0), (48_000, 15_000.0), (22_050, 9_500.0)] {
            let mut r = Polyphase::new(from, 16_000);
            let mut y = Vec::new();
            r.process_into(&tone(from, hz, 0.5), &mut y);
            let (a, b) = (y.len() / 4, 3 * y.len() / 4);
            let rms = (y[a..b].iter().map(|v| f64::from(*v).powi(2)).sum::<f64>() / (b - a) as f64)
                .sqrt();
            let db = 20.0 * (rms / (0.5 / 2f64.sqrt())).log10();
            assert!(db < -70.0, "{from} Hz, {hz} Hz tone: {db:.1} dB left");
        }
    }

    #[test]
    fn a_constant_stays_constant_and_lengths_round() {
        let mut r = Polyphase::new(44_100, 16_000);
        let mut y = Vec::new();
        r.process_into(&vec![0.25; 44_100], &mut y);
        assert_eq!(y.len(), 16_000);
        for v in &y[100..15_900] {
            assert!((v - 0.25).abs() < 1e-6, "{v}");
        }
        r.process_into(&[0.5; 3], &mut y);
        assert_eq!(y.len(), 1);
        r.process_into(&[], &mut y);
        assert!(y.is_empty());
    }
}
