//! Deterministic recording-condition variants of a clean clip: [`Degradation`] for
//! evaluation and tests (a quiet actor over a noise floor, a noisy room, mains hum, a
//! telephone band), and [`TrainingCondition`], their neighbours, for training profiles.
//!
//! Everything is computed from the samples alone with a fixed-seed generator, so the same
//! clip always gives the same variant (no files, no randomness from outside). Levels are
//! set against the clip's *active speech level*: the mean power of its 10 ms blocks that
//! lie within [`ACTIVE_RANGE_DB`] of its loud level (the 97th percentile block), so pauses
//! and padding do not dilute it.

use crate::features::SAMPLE_RATE;

/// Blocks more than this far below the clip's loud level do not count as active speech.
pub const ACTIVE_RANGE_DB: f32 = 20.0;

/// One recording condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Degradation {
    /// A quiet actor: active speech at −22 dBFS over a white-noise floor at −60 dBFS (the
    /// pauses of a quiet take on a decent microphone). Digital silence at the clip's ends
    /// stays digital, as when a quiet take is padded afterwards: the clip then holds two
    /// "floors", and a detector that takes the lower one hears the pauses as speech.
    Quiet,
    /// A noisy room: pink noise 15 dB below the active speech level.
    Noisy,
    /// A cheap microphone near mains wiring: 50 Hz hum with odd and even harmonics up to
    /// 450 Hz, 20 dB below speech, over a white floor 50 dB below speech.
    Hum,
    /// A telephone channel: band-limited to 300–3400 Hz (4th-order high and low pass),
    /// with a white floor 45 dB below speech.
    Telephone,
}

impl Degradation {
    /// Every condition, in report order.
    pub const ALL: [Degradation; 4] = [Self::Quiet, Self::Noisy, Self::Hum, Self::Telephone];

    /// A short name for reports (`quiet-22dB`, …).
    pub const fn name(self) -> &'static str {
        match self {
            Self::Quiet => "quiet-22/-60dBFS",
            Self::Noisy => "pink-snr15",
            Self::Hum => "hum50Hz",
            Self::Telephone => "band300-3400",
        }
    }

    /// The clip (mono, [`SAMPLE_RATE`] Hz) as recorded under this condition. `seed`
    /// chooses the noise; the same inputs always give the same output.
    pub fn apply(self, samples: &[f32], seed: u64) -> Vec<f32> {
        let mut rng = SplitMix(seed ^ (self as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        match self {
            Self::Quiet => quiet(samples, -22.0, -60.0, &mut rng),
            Self::Noisy => pink(samples, 15.0, &mut rng),
            Self::Hum => hum(samples, 50.0, 20.0, 50.0, &mut rng),
            Self::Telephone => band_limited(samples, 300.0, 3400.0, 45.0, &mut rng),
        }
    }
}

/// A recording condition used to *train* the built-in profile. Each is a neighbour of an
/// evaluation [`Degradation`], never the same one (other SNRs, levels, mains frequency),
/// so the evaluation groups stay held out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrainingCondition {
    /// Pink noise 10 dB below active speech (a louder room than `pink-snr15`).
    Pink10,
    /// Pink noise 20 dB below active speech (a quieter room).
    Pink20,
    /// Active speech at −28 dBFS over a white floor at −62 dBFS.
    Quiet28,
    /// 60 Hz hum 25 dB below speech over a white floor 45 dB below.
    Hum60,
    /// A narrow channel: band-limited to 250–3800 Hz (4th order each side) over a white
    /// floor 50 dB below speech — a wider neighbour of the 300–3400 Hz telephone band.
    /// Not in [`TrainingCondition::ALL`]: the Gaussians cope with a band through their
    /// broad covariance; only a context net, which trusts the low formant energy, needs to
    /// hear it (`NET_ONLY`).
    Band250To3800,
}

impl TrainingCondition {
    /// Every training condition.
    pub const ALL: [TrainingCondition; 4] =
        [Self::Pink10, Self::Pink20, Self::Quiet28, Self::Hum60];

    /// Conditions that teach only a profile's context net, besides [`Self::ALL`].
    pub const NET_ONLY: [TrainingCondition; 1] = [Self::Band250To3800];

    /// The clip under this condition; deterministic in `seed`.
    pub fn apply(self, samples: &[f32], seed: u64) -> Vec<f32> {
        let mut rng = SplitMix(seed ^ (self as u64 + 11).wrapping_mul(0xD1B5_4A32_D192_ED03));
        match self {
            Self::Pink10 => pink(samples, 10.0, &mut rng),
            Self::Pink20 => pink(samples, 20.0, &mut rng),
            Self::Quiet28 => quiet(samples, -28.0, -62.0, &mut rng),
            Self::Hum60 => hum(samples, 60.0, 25.0, 45.0, &mut rng),
            Self::Band250To3800 => band_limited(samples, 250.0, 3800.0, 50.0, &mut rng),
        }
    }
}

/// Active speech set to `speech_dbfs` over a white floor at `floor_dbfs`; digital silence
/// at the clip's ends stays digital.
fn quiet(samples: &[f32], speech_dbfs: f32, floor_dbfs: f32, rng: &mut SplitMix) -> Vec<f32> {
    let g = db_to_gain(speech_dbfs - active_level_db(samples));
    let mut out: Vec<f32> = samples.iter().map(|s| s * g).collect();
    let first = samples
        .iter()
        .position(|s| *s != 0.0)
        .unwrap_or(samples.len());
    let last = samples
        .iter()
        .rposition(|s| *s != 0.0)
        .map_or(first, |i| i + 1);
    add_white(&mut out[first..last], floor_dbfs, rng);
    out
}

/// Pink noise `snr_db` below the active speech level.
fn pink(samples: &[f32], snr_db: f32, rng: &mut SplitMix) -> Vec<f32> {
    let mut out = samples.to_vec();
    add_pink(&mut out, active_level_db(samples) - snr_db, rng);
    out
}

/// The clip through a `low`–`high` Hz channel ([`band`]) over a white floor `floor_db`
/// below its active speech.
fn band_limited(
    samples: &[f32],
    low: f32,
    high: f32,
    floor_db: f32,
    rng: &mut SplitMix,
) -> Vec<f32> {
    let speech_db = active_level_db(samples);
    let mut out = samples.to_vec();
    band(&mut out, low, high);
    add_white(&mut out, speech_db - floor_db, rng);
    out
}

/// Mains hum at `mains_hz` with harmonics up to nine times it, `hum_db` below speech,
/// over a white floor `floor_db` below speech.
fn hum(samples: &[f32], mains_hz: f32, hum_db: f32, floor_db: f32, rng: &mut SplitMix) -> Vec<f32> {
    let speech_db = active_level_db(samples);
    let mut out = samples.to_vec();
    // Harmonic amplitudes fall as 1/k; the sum's RMS is set `hum_db` below speech.
    let harmonics = 9;
    let rms: f32 = (1..=harmonics)
        .map(|k| 0.5 / (k * k) as f32)
        .sum::<f32>()
        .sqrt();
    let a = db_to_gain(speech_db - hum_db) / rms;
    let phase: Vec<f32> = (0..harmonics)
        .map(|_| rng.unit() * std::f32::consts::TAU)
        .collect();
    for (i, s) in out.iter_mut().enumerate() {
        let t = i as f32 / SAMPLE_RATE as f32;
        let mut h = 0.0;
        for k in 1..=harmonics {
            let w = std::f32::consts::TAU * mains_hz * k as f32;
            // Wrap the phase argument so f32 keeps its precision on long clips.
            h += ((w * t + phase[k - 1]) % std::f32::consts::TAU).sin() / k as f32;
        }
        *s += a * h;
    }
    add_white(&mut out, speech_db - floor_db, rng);
    out
}

fn db_to_gain(db: f32) -> f32 {
    10f32.powf(db / 20.0)
}

/// The clip's active speech level (dBFS RMS): mean power of the 10 ms blocks within
/// [`ACTIVE_RANGE_DB`] of the 97th-percentile block. −100 for digital silence.
pub fn active_level_db(samples: &[f32]) -> f32 {
    let blocks: Vec<f32> = samples
        .chunks(160)
        .map(|c| c.iter().map(|s| s * s).sum::<f32>() / c.len() as f32)
        .collect();
    let mut sorted = blocks.clone();
    sorted.sort_by(f32::total_cmp);
    let Some(&loud) = sorted.get(((sorted.len() as f32 - 1.0) * 0.97) as usize) else {
        return crate::FLOOR_DB;
    };
    if loud <= 1e-12 {
        return crate::FLOOR_DB;
    }
    let min = loud * db_to_gain(-ACTIVE_RANGE_DB).powi(2);
    let active: Vec<f32> = blocks.into_iter().filter(|p| *p >= min).collect();
    let mean = active.iter().sum::<f32>() / active.len().max(1) as f32;
    10.0 * (mean + 1e-12).log10()
}

/// SplitMix64: a tiny fixed generator, so a seed's noise never changes with a dependency.
pub(crate) struct SplitMix(pub(crate) u64);

impl SplitMix {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub(crate) fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Roughly Gaussian (sum of four uniforms), unit variance.
    pub(crate) fn gauss(&mut self) -> f32 {
        let s: f32 = (0..4).map(|_| self.unit()).sum();
        (s - 2.0) * 3f32.sqrt()
    }
}

/// Adds white noise at `db` dBFS RMS.
fn add_white(out: &mut [f32], db: f32, rng: &mut SplitMix) {
    let a = db_to_gain(db);
    for s in out {
        *s += a * rng.gauss();
    }
}

/// Adds pink (−3 dB/octave) noise at `db` dBFS RMS: white noise through a bank of
/// one-pole low passes an octave-ish apart, summed with 1/√f-like weights, then scaled
/// to the wanted RMS over the whole clip.
fn add_pink(out: &mut [f32], db: f32, rng: &mut SplitMix) {
    // Poles of the bank (per-sample feedback) and their gains.
    const POLES: [(f32, f32); 6] = [
        (0.9990, 0.0250),
        (0.9960, 0.0400),
        (0.9840, 0.0700),
        (0.9400, 0.1300),
        (0.7800, 0.2400),
        (0.0000, 0.4000),
    ];
    let mut state = [0f32; 6];
    let noise: Vec<f32> = (0..out.len())
        .map(|_| {
            let w = rng.gauss();
            let mut y = 0.0;
            for (s, (p, g)) in state.iter_mut().zip(POLES) {
                *s = p * *s + (1.0 - p) * w;
                y += g * *s / (1.0 - p).sqrt();
            }
            y
        })
        .collect();
    let rms = (noise.iter().map(|v| v * v).sum::<f32>() / noise.len().max(1) as f32).sqrt();
    if rms <= 0.0 {
        return;
    }
    let a = db_to_gain(db) / rms;
    for (s, n) in out.iter_mut().zip(noise) {
        *s += a * n;
    }
}

/// A second-order Butterworth section (RBJ cookbook form, Q = 1/√2).
#[derive(Clone, Copy)]
struct Biquad {
    b: [f32; 3],
    a: [f32; 2],
}

impl Biquad {
    fn design(f0: f32, high: bool) -> Self {
        let w = std::f32::consts::TAU * f0 / SAMPLE_RATE as f32;
        let (sin, cos) = w.sin_cos();
        let alpha = sin / std::f32::consts::SQRT_2;
        let a0 = 1.0 + alpha;
        let b = if high {
            [(1.0 + cos) / 2.0, -(1.0 + cos), (1.0 + cos) / 2.0]
        } else {
            [(1.0 - cos) / 2.0, 1.0 - cos, (1.0 - cos) / 2.0]
        };
        Self {
            b: b.map(|v| v / a0),
            a: [-2.0 * cos / a0, (1.0 - alpha) / a0],
        }
    }

    fn high_pass(f0: f32) -> Self {
        Self::design(f0, true)
    }

    fn low_pass(f0: f32) -> Self {
        Self::design(f0, false)
    }

    fn run(&self, x: &mut [f32]) {
        let (mut x1, mut x2, mut y1, mut y2) = (0f32, 0f32, 0f32, 0f32);
        for v in x {
            let y =
                self.b[0] * *v + self.b[1] * x1 + self.b[2] * x2 - self.a[0] * y1 - self.a[1] * y2;
            (x2, x1, y2, y1) = (x1, *v, y1, y);
            *v = y;
        }
    }
}

/// A band from `low` to `high` Hz: two high-pass and two low-pass sections (24 dB per
/// octave each side).
fn band(samples: &mut [f32], low: f32, high: f32) {
    for f in [
        Biquad::high_pass(low),
        Biquad::high_pass(low),
        Biquad::low_pass(high),
        Biquad::low_pass(high),
    ] {
        f.run(samples);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tone(seconds: f32, amp: f32) -> Vec<f32> {
        (0..(seconds * SAMPLE_RATE as f32) as usize)
            .map(|i| amp * (i as f32 * 0.1).sin())
            .collect()
    }

    fn rms_db(x: &[f32]) -> f32 {
        10.0 * (x.iter().map(|v| v * v).sum::<f32>() / x.len() as f32).log10()
    }

    /// Half a second of tone at −10 dBFS RMS, a pause of digital silence (samples
    /// 8000..16000), the tone again, and digital padding (from sample 24000).
    fn tone_pause_tone() -> Vec<f32> {
        let t = tone(0.5, 10f32.powf(-10.0 / 20.0) * std::f32::consts::SQRT_2);
        let mut clip = t.clone();
        clip.extend(vec![0.0; 8000]);
        clip.extend(&t);
        clip.extend(vec![0.0; 4000]);
        clip
    }

    /// Power of `x` at `hz` (one DFT bin), relative to its total power.
    fn share_at(x: &[f32], hz: f32) -> f32 {
        let w = std::f32::consts::TAU * hz / SAMPLE_RATE as f32;
        let (re, im) = x.iter().enumerate().fold((0f32, 0f32), |(re, im), (i, v)| {
            (re + v * (w * i as f32).cos(), im - v * (w * i as f32).sin())
        });
        2.0 * (re * re + im * im) / (x.len() as f32 * x.iter().map(|v| v * v).sum::<f32>())
    }

    #[test]
    fn levels_are_set_against_active_speech() {
        let clip = tone_pause_tone();
        assert!((active_level_db(&clip) + 10.0).abs() < 0.3);
        let q = Degradation::Quiet.apply(&clip, 1);
        assert!(
            (rms_db(&q[..8000]) + 22.0).abs() < 0.5,
            "{}",
            rms_db(&q[..8000])
        );
        assert!(
            (rms_db(&q[8000..16000]) + 60.0).abs() < 0.5,
            "{}",
            rms_db(&q[8000..16000])
        );
        // The padding after the take stays digital.
        assert!(q[24000..].iter().all(|s| *s == 0.0));
        let n = Degradation::Noisy.apply(&clip, 1);
        let noise: Vec<f32> = n.iter().zip(&clip).map(|(a, b)| a - b).collect();
        assert!((rms_db(&noise) + 25.0).abs() < 0.5, "{}", rms_db(&noise));
        let h = Degradation::Hum.apply(&clip, 1);
        assert!(
            (rms_db(&h[8000..16000]) + 30.0).abs() < 0.5,
            "{}",
            rms_db(&h[8000..16000])
        );
        assert_eq!(active_level_db(&[0.0; 100]), crate::FLOOR_DB);
        assert_eq!(active_level_db(&[]), crate::FLOOR_DB);
    }

    #[test]
    fn variants_are_deterministic_and_finite() {
        let clip = tone(0.3, 0.3);
        for d in Degradation::ALL {
            let a = d.apply(&clip, 7);
            assert_eq!(a, d.apply(&clip, 7), "{d:?}");
            assert_eq!(a.len(), clip.len());
            assert!(a.iter().all(|v| v.is_finite()));
        }
        assert_ne!(
            Degradation::Noisy.apply(&clip, 7),
            Degradation::Noisy.apply(&clip, 8)
        );
    }

    #[test]
    fn training_conditions_are_neighbours_of_the_scored_ones() {
        let clip = tone_pause_tone();
        let noise_db = |c: TrainingCondition| {
            let d = c.apply(&clip, 3);
            let n: Vec<f32> = d.iter().zip(&clip).map(|(a, b)| a - b).collect();
            rms_db(&n)
        };
        assert!((noise_db(TrainingCondition::Pink10) + 20.0).abs() < 0.5);
        assert!((noise_db(TrainingCondition::Pink20) + 30.0).abs() < 0.5);
        let q = TrainingCondition::Quiet28.apply(&clip, 3);
        assert!(
            (rms_db(&q[..8000]) + 28.0).abs() < 0.5,
            "{}",
            rms_db(&q[..8000])
        );
        assert!((rms_db(&q[8000..16000]) + 62.0).abs() < 0.5);
        assert!(q[24000..].iter().all(|s| *s == 0.0));
        let h = TrainingCondition::Hum60.apply(&clip, 3);
        assert!(
            (rms_db(&h[8000..16000]) + 35.0).abs() < 0.5,
            "{}",
            rms_db(&h[8000..16000])
        );
        // 60 Hz mains, where the scored hum is 50 Hz.
        let pause = &h[8000..16000];
        assert!(share_at(pause, 60.0) > 0.3 && share_at(pause, 50.0) < 0.05);
        let scored = &Degradation::Hum.apply(&clip, 3)[8000..16000];
        assert!(share_at(scored, 50.0) > 0.3 && share_at(scored, 60.0) < 0.05);
        for c in TrainingCondition::ALL {
            let a = c.apply(&clip, 3);
            assert_eq!(a, c.apply(&clip, 3), "{c:?}");
            assert!(a.iter().all(|v| v.is_finite()));
        }
    }

    #[test]
    fn telephone_band_removes_low_and_high_tones() {
        let at = |f: f32| -> f32 {
            let x: Vec<f32> = (0..16000)
                .map(|i| (std::f32::consts::TAU * f * i as f32 / 16000.0).sin())
                .collect();
            let mut y = x.clone();
            band(&mut y, 300.0, 3400.0);
            rms_db(&y[4000..]) - rms_db(&x[4000..])
        };
        assert!(at(1000.0).abs() < 1.0);
        assert!(at(100.0) < -15.0);
        assert!(at(7000.0) < -15.0);
    }

    #[test]
    fn the_nets_band_is_wider_than_the_scored_telephone_band() {
        let tone_at = |f: f32| -> Vec<f32> {
            (0..16000)
                .map(|i| 0.3 * (std::f32::consts::TAU * f * i as f32 / 16000.0).sin())
                .collect()
        };
        let gain = |c: &dyn Fn(&[f32]) -> Vec<f32>, f: f32| -> f32 {
            let x = tone_at(f);
            rms_db(&c(&x)[4000..]) - rms_db(&x[4000..])
        };
        let train = |x: &[f32]| TrainingCondition::Band250To3800.apply(x, 5);
        let scored = |x: &[f32]| Degradation::Telephone.apply(x, 5);
        assert!(gain(&train, 1000.0).abs() < 1.0);
        // Between the two bands' edges the training band passes what the scored one cuts.
        assert!(gain(&train, 260.0) > gain(&scored, 260.0) + 2.0);
        assert!(gain(&train, 3700.0) > gain(&scored, 3700.0) + 2.0);
        assert!(gain(&train, 80.0) < -15.0 && gain(&train, 7000.0) < -15.0);
        // Its floor sits 50 dB under the speech (the scored one's 45).
        let silence_then_tone: Vec<f32> =
            vec![0.0; 8000].into_iter().chain(tone_at(1000.0)).collect();
        let out = train(&silence_then_tone);
        let floor = rms_db(&out[1000..7000]) - rms_db(&silence_then_tone[9000..]);
        assert!((floor + 50.0).abs() < 1.5, "{floor}");
        assert!(!TrainingCondition::ALL.contains(&TrainingCondition::Band250To3800));
        assert_eq!(out, train(&silence_then_tone));
    }
}
