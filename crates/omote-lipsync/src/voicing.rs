//! Silence and pause detection, adaptive to the recording: thresholds sit between the
//! clip's (or stream's) noise floor and its speech level, never at one fixed level.

use crate::features::FLOOR_DB;

/// Voicing detector settings (levels in dB).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VoicingConfig {
    /// Percentile of frame levels taken as the noise floor (offline).
    pub floor_percentile: f32,
    /// Percentile of frame levels taken as the speech level (offline).
    pub peak_percentile: f32,
    /// The threshold is at least this far above the noise floor.
    pub above_floor_db: f32,
    /// The threshold is at most this far below the speech level.
    pub below_peak_db: f32,
    /// Nothing quieter than this (dBFS) is speech.
    pub absolute_min_db: f32,
    /// Hysteresis: a voiced run ends only below `threshold − hysteresis_db`.
    pub hysteresis_db: f32,
    /// Silent runs shorter than this inside speech are closures, not pauses (frames; offline).
    pub min_pause_frames: usize,
    /// Voiced runs shorter than this are clicks, not speech (frames; offline).
    pub min_voiced_frames: usize,
}

impl Default for VoicingConfig {
    fn default() -> Self {
        Self {
            floor_percentile: 0.10,
            peak_percentile: 0.97,
            above_floor_db: 12.0,
            below_peak_db: 38.0,
            absolute_min_db: -90.0,
            hysteresis_db: 3.0,
            min_pause_frames: 4,
            min_voiced_frames: 3,
        }
    }
}

/// Result of offline voicing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Voicing {
    /// Per frame: true when speech.
    pub voiced: Vec<bool>,
    /// The clip's speech level (dBFS).
    pub speech_db: f32,
    /// The clip's noise floor (dBFS).
    pub floor_db: f32,
    /// The threshold used (dBFS).
    pub threshold_db: f32,
}

fn percentile(sorted: &[f32], p: f32) -> f32 {
    if sorted.is_empty() {
        return FLOOR_DB;
    }
    let i = ((sorted.len() - 1) as f32 * p.clamp(0.0, 1.0)).round() as usize;
    sorted[i]
}

impl VoicingConfig {
    /// The detection threshold between a noise floor and a speech level.
    pub fn threshold(&self, floor_db: f32, speech_db: f32) -> f32 {
        (floor_db + self.above_floor_db)
            .max(speech_db - self.below_peak_db)
            .max(self.absolute_min_db)
    }

    /// Offline voicing of a whole clip from its frame levels (dBFS).
    pub fn offline(&self, levels: &[f32]) -> Voicing {
        let mut sorted: Vec<f32> = levels
            .iter()
            .map(|l| if l.is_finite() { *l } else { FLOOR_DB })
            .collect();
        sorted.sort_by(|a, b| a.total_cmp(b));
        let floor_db = percentile(&sorted, self.floor_percentile);
        let speech_db = percentile(&sorted, self.peak_percentile);
        let threshold_db = self.threshold(floor_db, speech_db);
        let low = threshold_db - self.hysteresis_db;
        let mut voiced = Vec::with_capacity(levels.len());
        let mut on = false;
        for l in levels {
            on = if on { *l >= low } else { *l >= threshold_db };
            voiced.push(on);
        }
        fill_runs(&mut voiced, false, self.min_pause_frames, true);
        fill_runs(&mut voiced, true, self.min_voiced_frames, false);
        Voicing {
            voiced,
            speech_db,
            floor_db,
            threshold_db,
        }
    }
}

/// Flips runs of `value` shorter than `min_len` (inner runs only when `inner_only`).
fn fill_runs(v: &mut [bool], value: bool, min_len: usize, inner_only: bool) {
    let n = v.len();
    let mut i = 0;
    while i < n {
        if v[i] != value {
            i += 1;
            continue;
        }
        let start = i;
        while i < n && v[i] == value {
            i += 1;
        }
        let inner = start > 0 && i < n;
        if i - start < min_len && (inner || !inner_only) {
            v[start..i].fill(!value);
        }
    }
}

/// Streaming voicing. The noise floor is the minimum frame level over the last
/// [`FLOOR_BLOCKS`] blocks of [`FLOOR_BLOCK_FRAMES`] frames (minimum statistics: it follows
/// a new noise level within 1.5 s and is not pulled up by speech, whose consonants and
/// gaps dip well below its vowels); the speech level follows peaks at once and decays
/// slowly. The same threshold rule as offline, with hysteresis. No look-ahead: adds no
/// latency.
#[derive(Clone, Debug)]
pub struct StreamVoicing {
    config: VoicingConfig,
    block_min: [f32; FLOOR_BLOCKS],
    block: usize,
    in_block: usize,
    floor_db: f32,
    speech_db: f32,
    on: bool,
}

/// Frames per noise-floor block (0.25 s).
pub const FLOOR_BLOCK_FRAMES: usize = 25;
/// Blocks remembered for the noise floor (1.5 s).
pub const FLOOR_BLOCKS: usize = 6;
/// A running minimum sits below the mean noise level; this moves it back up (dB).
const MIN_STAT_BIAS_DB: f32 = 4.0;
/// Speech level decay per frame (dB): 3 dB/s.
const PEAK_DECAY_DB: f32 = 0.03;

impl StreamVoicing {
    /// A detector that starts assuming a −20 dBFS speech level.
    pub fn new(config: VoicingConfig) -> Self {
        Self {
            config,
            block_min: [f32::INFINITY; FLOOR_BLOCKS],
            block: 0,
            in_block: 0,
            floor_db: FLOOR_DB,
            speech_db: -20.0,
            on: false,
        }
    }

    /// Current speech level estimate (dBFS).
    pub fn speech_db(&self) -> f32 {
        self.speech_db
    }

    /// The threshold used for the last frame (dBFS).
    pub fn threshold_db(&self) -> f32 {
        self.config
            .threshold(self.floor_db + MIN_STAT_BIAS_DB, self.speech_db)
    }

    /// Feeds one frame level; returns whether the frame is voiced.
    pub fn update(&mut self, level_db: f32) -> bool {
        let l = if level_db.is_finite() {
            level_db.max(FLOOR_DB)
        } else {
            FLOOR_DB
        };
        if self.in_block == FLOOR_BLOCK_FRAMES {
            self.block = (self.block + 1) % FLOOR_BLOCKS;
            self.block_min[self.block] = f32::INFINITY;
            self.in_block = 0;
        }
        self.in_block += 1;
        self.block_min[self.block] = self.block_min[self.block].min(l);
        self.floor_db = self.block_min.iter().copied().fold(f32::INFINITY, f32::min);
        self.speech_db = if l > self.speech_db {
            l
        } else {
            self.speech_db - PEAK_DECAY_DB
        };
        self.speech_db = self.speech_db.max(self.floor_db + 20.0);
        let t = self.threshold_db();
        self.on = if self.on {
            l >= t - self.config.hysteresis_db
        } else {
            l >= t
        };
        self.on
    }
}
