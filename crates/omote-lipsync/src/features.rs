//! Per-frame features: mel-frequency cepstral coefficients of a 25 ms Hann window, plus
//! level.
//!
//! The mel filterbank covers [`MEL_F_MIN_HZ`]..[`MEL_F_MAX_HZ`] only: vowel identity lives in
//! the first three formants (below ~3.5 kHz), and a band that ends at 4 kHz makes features
//! from 8 kHz telephone audio (upsampled to 16 kHz) the same as from studio audio. `c0`
//! (overall level) is left out of the cepstrum so recording level does not move the
//! features; level is reported separately for voicing and volume, and the voice band's
//! level (above [`VOICE_BAND_LOW_HZ`]) for how far the mouth opens.

use crate::power_spectrum::PowerSpectrum;

/// The analyser's sample rate (Hz). Decode and resample to it first (omote-audio).
pub const SAMPLE_RATE: u32 = 16_000;
/// Hop between frames in samples (10 ms: 100 frames per second).
pub const HOP: usize = 160;
/// Analysis window length in samples (25 ms), centred on the frame time.
pub const WINDOW: usize = 400;
/// Frames per second of the analyser's native output.
pub const FRAME_RATE: f32 = 100.0;
const NFFT: usize = 512;
/// Number of mel bands.
pub const N_MEL: usize = 24;
/// Number of cepstral coefficients used (c1..=c12).
pub const N_CEPS: usize = 12;
/// Lowest mel band edge (Hz).
pub const MEL_F_MIN_HZ: f32 = 100.0;
/// Highest mel band edge (Hz).
pub const MEL_F_MAX_HZ: f32 = 4_000.0;
const PRE_EMPHASIS: f32 = 0.97;
/// [`FrameFeatures::band_db`] counts the spectrum from the first bin at or above this
/// (Hz; 93.75 Hz with 31.25 Hz bins) up: a voice's fundamental starts about here, and
/// what lies under it — a thump on the desk or the microphone, rumble, DC — is not a voice.
pub const VOICE_BAND_LOW_HZ: f32 = 80.0;
/// Level reported for digital silence (dBFS).
pub const FLOOR_DB: f32 = -100.0;

/// Features of one frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameFeatures {
    /// Cepstral coefficients c1..=c12 of the log mel spectrum.
    pub ceps: [f32; N_CEPS],
    /// Frame level in dBFS (RMS of the unweighted window with its mean taken off, so a DC
    /// offset is no level; [`FLOOR_DB`] at most quiet).
    pub level_db: f32,
    /// The part of `level_db` above [`VOICE_BAND_LOW_HZ`] (dBFS, at most `level_db`): the
    /// voicing reads it and the mouth opens with it, so a frame loud only below it (a
    /// thump, rumble, mains hum) is no voice and does not open the mouth.
    pub band_db: f32,
}

/// How loud one frame is (dBFS): [`FrameFeatures::level_db`] and
/// [`FrameFeatures::band_db`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameLevel {
    /// The whole window's level.
    pub level_db: f32,
    /// The part above [`VOICE_BAND_LOW_HZ`].
    pub band_db: f32,
}

/// Computes [`FrameFeatures`] from windows of [`WINDOW`] samples at [`SAMPLE_RATE`].
/// Holds its FFT plan and scratch buffers: [`FeatureExtractor::compute`] does not allocate.
pub struct FeatureExtractor {
    fft: PowerSpectrum,
    window: Vec<f32>,
    input: Vec<f32>,
    power: Vec<f32>,
    mel_start: [usize; N_MEL],
    mel_weights: Vec<Vec<f32>>,
    dct: [[f32; N_MEL]; N_CEPS],
    /// Per bin: the power the pre-emphasis took away given back (one-sided bins twice),
    /// so the spectrum's shares are the frame's own.
    de_emphasis: Vec<f32>,
    /// The first bin of the voice band.
    band_start: usize,
}

fn hz_to_mel(f: f32) -> f32 {
    2595.0 * (1.0 + f / 700.0).log10()
}

fn mel_to_hz(m: f32) -> f32 {
    700.0 * (10f32.powf(m / 2595.0) - 1.0)
}

impl Default for FeatureExtractor {
    fn default() -> Self {
        Self::new()
    }
}

impl FeatureExtractor {
    /// Plans the FFT and builds the mel filterbank and DCT tables.
    pub fn new() -> Self {
        let fft = PowerSpectrum::new(NFFT);
        let window = (0..WINDOW)
            .map(|n| {
                0.5 - 0.5 * (2.0 * std::f32::consts::PI * (n as f32 + 0.5) / WINDOW as f32).cos()
            })
            .collect();
        let input = vec![0.0; NFFT];
        let bins = NFFT / 2 + 1;
        let bin_hz = SAMPLE_RATE as f32 / NFFT as f32;
        let (m0, m1) = (hz_to_mel(MEL_F_MIN_HZ), hz_to_mel(MEL_F_MAX_HZ));
        let edges: Vec<f32> = (0..N_MEL + 2)
            .map(|i| mel_to_hz(m0 + (m1 - m0) * i as f32 / (N_MEL + 1) as f32))
            .collect();
        let mut mel_start = [0usize; N_MEL];
        let mut mel_weights = Vec::with_capacity(N_MEL);
        for b in 0..N_MEL {
            let (lo, mid, hi) = (edges[b], edges[b + 1], edges[b + 2]);
            let first = ((lo / bin_hz).ceil() as usize).min(bins - 1);
            let last = ((hi / bin_hz).floor() as usize).min(bins - 1);
            let mut w = Vec::new();
            for k in first..=last {
                let f = k as f32 * bin_hz;
                let v = if f <= mid {
                    (f - lo) / (mid - lo)
                } else {
                    (hi - f) / (hi - mid)
                };
                w.push(v.max(0.0));
            }
            mel_start[b] = first;
            mel_weights.push(w);
        }
        let mut dct = [[0f32; N_MEL]; N_CEPS];
        for (c, row) in dct.iter_mut().enumerate() {
            for (m, v) in row.iter_mut().enumerate() {
                *v = (std::f32::consts::PI * (c + 1) as f32 * (m as f32 + 0.5) / N_MEL as f32)
                    .cos()
                    * (2.0 / N_MEL as f32).sqrt();
            }
        }
        let de_emphasis = (0..bins)
            .map(|k| {
                let w = 2.0 * std::f32::consts::PI * k as f32 / NFFT as f32;
                let gain = 1.0 + PRE_EMPHASIS * PRE_EMPHASIS - 2.0 * PRE_EMPHASIS * w.cos();
                let sides = if k == 0 || k == bins - 1 { 1.0 } else { 2.0 };
                sides / gain
            })
            .collect();
        Self {
            fft,
            window,
            input,
            power: vec![0.0; bins],
            mel_start,
            mel_weights,
            dct,
            de_emphasis,
            band_start: (VOICE_BAND_LOW_HZ / bin_hz).ceil() as usize,
        }
    }

    /// Features of `frame` (exactly [`WINDOW`] samples; a shorter slice is zero-padded at
    /// the end). Non-finite samples count as 0.
    pub fn compute(&mut self, frame: &[f32]) -> FrameFeatures {
        let (mel, level) = self.mel_and_level(frame);
        FrameFeatures {
            ceps: self.cepstrum(&mel),
            level_db: level.level_db,
            band_db: level.band_db,
        }
    }

    /// The first half of [`FeatureExtractor::compute`]: the frame's mel band energies
    /// (power, before the logarithm) and its levels. The analysers take noise out of the
    /// bands before [`FeatureExtractor::cepstrum`].
    pub fn mel_and_level(&mut self, frame: &[f32]) -> ([f32; N_MEL], FrameLevel) {
        let sample = |i: usize| match frame.get(i) {
            Some(x) if x.is_finite() => *x,
            _ => 0.0,
        };
        // A microphone's DC offset is a floor under every frame's level that the voicing
        // would read as room, and it is never a voice. The level is the window's variance
        // (its mean taken off, as Kaldi's per-frame DC removal does: the least energy any
        // offset leaves, so a hum's level does not wobble with its phase); the spectrum is
        // taken with the window's median off, which a voice that starts or ends inside the
        // window leaves at the silence (the mean would leave a step there, and the voice
        // band's share would fall by 4 dB).
        for (i, x) in self.input[..WINDOW].iter_mut().enumerate() {
            *x = sample(i);
        }
        let (_, median, _) =
            self.input[..WINDOW].select_nth_unstable_by(WINDOW / 2, f32::total_cmp);
        let median = *median;
        let mut sum = 0f32;
        let mut sum_sq = 0f32;
        let mut prev = 0f32;
        for i in 0..WINDOW {
            // (clamped: a window of samples near f32::MAX must not make an infinity here)
            let x = (sample(i) - median).clamp(-f32::MAX, f32::MAX);
            sum += x;
            sum_sq += x * x;
            let pe = if i == 0 {
                x * (1.0 - PRE_EMPHASIS)
            } else {
                x - PRE_EMPHASIS * prev
            };
            prev = x;
            self.input[i] = pe * self.window[i];
        }
        self.input[WINDOW..].fill(0.0);
        let power = sum_sq / WINDOW as f32 - (sum / WINDOW as f32).powi(2);
        let power = if power.is_finite() {
            power.max(0.0)
        } else {
            sum_sq / WINDOW as f32
        };
        let level_db = (10.0 * (power + 1e-10).log10()).max(FLOOR_DB);
        self.fft.compute(&self.input, &mut self.power);
        // The voice band's share of the frame's energy, from the windowed spectrum with
        // the pre-emphasis undone, applied to the whole level: a share does not depend on
        // where in the window the sound is (a voice that starts or ends in it).
        let energy = |bins: std::ops::Range<usize>| -> f32 {
            self.power[bins.clone()]
                .iter()
                .zip(&self.de_emphasis[bins])
                .map(|(p, g)| p * g)
                .sum()
        };
        let band = energy(self.band_start..self.power.len());
        let all = energy(0..self.band_start) + band;
        let band_db = if all > 0.0 && all.is_finite() {
            (level_db + 10.0 * (band / all).log10()).clamp(FLOOR_DB, level_db)
        } else if all > 0.0 {
            level_db // overflowed: all of it, as the level does
        } else {
            FLOOR_DB
        };
        let mut mel = [0f32; N_MEL];
        for (b, e) in mel.iter_mut().enumerate() {
            let s = self.mel_start[b];
            *e = self.mel_weights[b]
                .iter()
                .zip(&self.power[s..])
                .map(|(w, p)| w * p)
                .sum();
        }
        (mel, FrameLevel { level_db, band_db })
    }

    /// Cepstral coefficients c1..=c12 of mel band energies (power).
    pub fn cepstrum(&self, mel: &[f32; N_MEL]) -> [f32; N_CEPS] {
        let mut logmel = [0f32; N_MEL];
        for (lm, e) in logmel.iter_mut().zip(mel) {
            *lm = (e + 1e-9).ln();
        }
        let mut ceps = [0f32; N_CEPS];
        for (c, out) in ceps.iter_mut().enumerate() {
            *out = self.dct[c].iter().zip(&logmel).map(|(d, l)| d * l).sum();
        }
        ceps
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One window of `f(t)` (t in seconds).
    fn window(f: impl Fn(f32) -> f32) -> Vec<f32> {
        (0..WINDOW)
            .map(|n| f(n as f32 / SAMPLE_RATE as f32))
            .collect()
    }

    fn sine(hz: f32, amp: f32) -> impl Fn(f32) -> f32 {
        move |t| amp * (2.0 * std::f32::consts::PI * hz * t).sin()
    }

    /// A low voice (100 Hz and its harmonics, falling as 1/k) keeps its level in the voice
    /// band, also where it starts or ends inside the window; a thump (20 Hz) and 50 Hz
    /// mains leave almost nothing there; the two together read as the voice alone (within
    /// 2.5 dB: the window weighs a half-cycle thump unevenly, and the median taken off the
    /// spectrum moves with it). A DC offset is no level at all: the voice over it reads as the voice.
    /// Digital silence is the floor, and samples too large to square stay finite.
    #[test]
    fn the_voice_band_holds_the_voice_and_not_what_lies_under_it() {
        let mut fx = FeatureExtractor::new();
        let voice = |t: f32| {
            (1..=30)
                .map(|k| sine(100.0 * k as f32, 0.1 / k as f32)(t))
                .sum()
        };
        let level = |fx: &mut FeatureExtractor, w: &[f32]| fx.mel_and_level(w).1;

        let v = level(&mut fx, &window(voice));
        assert!(v.level_db - v.band_db < 1.0, "{v:?}");
        // A voice that starts or ends inside the window is as much in the band.
        for (what, part) in [("starting", 0.7..1.0), ("ending", 0.0..0.3)] {
            let edge = window(|t| {
                let x = t * SAMPLE_RATE as f32 / WINDOW as f32;
                if part.contains(&x) { voice(t) } else { 0.0 }
            });
            let e = level(&mut fx, &edge);
            assert!(e.level_db - e.band_db < 1.5, "a voice {what}: {e:?}");
        }
        // (what, how far under its level its voice band is at least, in dB): a 50 Hz tone
        // leaks into the band through the 25 ms window's main lobe.
        for (what, under, below) in [
            ("a thump", window(sine(20.0, 0.3)), 20.0),
            ("50 Hz mains", window(sine(50.0, 0.1)), 10.0),
        ] {
            let u = level(&mut fx, &under);
            assert!(u.level_db - u.band_db > below, "{what}: {u:?}");
            let both: Vec<f32> = under
                .iter()
                .zip(window(voice))
                .map(|(a, b)| a + b)
                .collect();
            let b = level(&mut fx, &both);
            assert!(b.level_db > v.level_db + 1.0, "{what} is louder: {b:?}");
            assert!(
                (b.band_db - v.band_db).abs() < 2.5,
                "{what}: {b:?} vs {v:?}"
            );
        }
        // A DC offset, alone or under the voice (the level used to read it as a floor
        // 26 dB under full scale at 0.05).
        for dc in [0.05, 0.2, -0.5] {
            let alone = level(&mut fx, &window(|_| dc));
            assert_eq!(
                (alone.level_db, alone.band_db),
                (FLOOR_DB, FLOOR_DB),
                "DC {dc}"
            );
            let over = level(&mut fx, &window(|t| voice(t) + dc));
            assert!(
                (over.level_db - v.level_db).abs() < 0.01,
                "DC {dc}: {over:?} vs {v:?}"
            );
            assert!(
                (over.band_db - v.band_db).abs() < 0.01,
                "DC {dc}: {over:?} vs {v:?}"
            );
        }

        let silence = level(&mut fx, &[0.0; WINDOW]);
        assert_eq!((silence.level_db, silence.band_db), (FLOOR_DB, FLOOR_DB));
        let huge = level(&mut fx, &window(sine(300.0, 3e38)));
        assert!(!huge.level_db.is_nan(), "{huge:?}");
        assert!(!huge.band_db.is_nan(), "{huge:?}");
    }
}
