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
    /// The threshold from the floor is lowered to this far below the speech level, but not
    /// nearer the floor than a steady floor's margin (4 dB, `MIN_ABOVE_FLOOR_DB`; streaming:
    /// 4 dB too, `STREAM_MIN_ABOVE_FLOOR_DB`, over the minimum statistics): a floor within that
    /// distance of the speech is the speech's own quieter part (a take with no pause), or
    /// noise over quieter vowels that are still speech.
    pub min_below_peak_db: f32,
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
            min_below_peak_db: 10.0,
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
    /// The detection threshold between a noise floor and a speech level, as
    /// [`offline`](Self::offline) sets it for a clip with a pause and an unsteady floor
    /// (the full `above_floor_db` margin).
    pub fn threshold(&self, floor_db: f32, speech_db: f32) -> f32 {
        let margin = self.above_floor_db.max(MIN_ABOVE_FLOOR_DB);
        self.floor_rule(floor_db, margin, speech_db)
            .max(speech_db - self.below_peak_db)
            .max(self.absolute_min_db)
    }

    /// The threshold the floor asks for: `margin` above it, lowered toward
    /// `speech_db − min_below_peak_db` but not under a steady floor's margin.
    fn floor_rule(&self, floor_db: f32, margin: f32, speech_db: f32) -> f32 {
        (floor_db + margin)
            .min((speech_db - self.min_below_peak_db).max(floor_db + MIN_ABOVE_FLOOR_DB))
    }

    /// Offline voicing of a whole clip from its frame levels (dBFS; the analyser gives the
    /// voice band's, [`crate::FrameFeatures::band_db`]).
    ///
    /// The noise floor is the `floor_percentile` level, except when that is digital
    /// silence (padding) while a dense band of non-digital frames sits well below the
    /// speech: then that band is the floor (a quiet take with noisy pauses, padded with
    /// zeros afterwards, has two floors, and its pauses are the upper one). The margin
    /// above the floor shrinks from `above_floor_db` toward `MIN_ABOVE_FLOOR_DB` (4 dB) when
    /// the floor frames are steady (stationary noise: a fan, hum), so speech in a noisy
    /// room is not cut, and the result is lowered toward `min_below_peak_db` under the
    /// speech level (a floor that near is speech, or noise over speech).
    pub fn offline(&self, levels: &[f32]) -> Voicing {
        let mut sorted: Vec<f32> = levels
            .iter()
            .map(|l| if l.is_finite() { *l } else { FLOOR_DB })
            .collect();
        sorted.sort_by(|a, b| a.total_cmp(b));
        let speech_db = percentile(&sorted, self.peak_percentile);
        let digital = sorted.partition_point(|l| *l <= DIGITAL_DB);
        let mut population = &sorted[..];
        let mut floor_db = percentile(population, self.floor_percentile);
        if let Some(band) = noise_band(&sorted[digital..], speech_db, sorted.len()) {
            let band_db = percentile(band, 0.5);
            let upper = band_db > floor_db + UPPER_FLOOR_DB
                && has_run_within(
                    levels,
                    band[0] - self.hysteresis_db,
                    band[band.len() - 1] + self.hysteresis_db,
                    PAUSE_EVIDENCE_FRAMES,
                );
            if floor_db <= DIGITAL_DB || upper {
                population = band;
                floor_db = band_db;
            }
        }
        let spread = percentile(population, self.floor_percentile + 0.15)
            - percentile(population, (self.floor_percentile - 0.05).max(0.0));
        let margin = (SPREAD_FACTOR * spread).clamp(
            MIN_ABOVE_FLOOR_DB,
            self.above_floor_db.max(MIN_ABOVE_FLOOR_DB),
        );
        // The floor counts only if the clip has a pause near it: a take with none (speech
        // from its first frame to its last) has only consonants and closures down there.
        let floor_rule = if has_quiet_run(levels, floor_db + margin, PAUSE_EVIDENCE_FRAMES) {
            self.floor_rule(floor_db, margin, speech_db)
        } else {
            f32::NEG_INFINITY
        };
        let threshold_db = floor_rule
            .max(speech_db - self.below_peak_db)
            .max(self.absolute_min_db);
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

impl Voicing {
    /// The level the noise estimate measures its pauses against (dBFS): the threshold, or
    /// 6 dB over the floor when the threshold is lower.
    pub fn noise_reference_db(&self) -> f32 {
        self.threshold_db
            .max(self.floor_db + NOISE_REFERENCE_ABOVE_FLOOR_DB)
    }
}

/// Levels at or below this are digital silence (padding), not a noise floor (dBFS).
const DIGITAL_DB: f32 = FLOOR_DB + 10.0;
/// The margin above a steady floor (dB), offline. 4 dB rather than 6 (profile rebuilt):
/// Japanese over mains hum 86.9 → 89.4 %, in pink noise 75.4 → 76.3 %, silence ≥ 97.9 %.
pub const MIN_ABOVE_FLOOR_DB: f32 = 4.0;
/// The noise estimate's pauses are measured against at least this level over the floor
/// (dB; where the threshold sat with a 6 dB margin), so the smaller voicing margin does
/// not leave it without pauses to learn from.
const NOISE_REFERENCE_ABOVE_FLOOR_DB: f32 = 6.0;
/// Streaming's margin above a steady floor (dB). It was 5, a dB wider than offline's,
/// while the minimum statistics were always moved up by a fixed 4 dB: over a steady
/// noise (hum) whose minimum is its mean, the threshold then sat 5 dB over offline's.
/// With the move up measured ([`StreamVoicing`]), 4 dB: Japanese over hum +1.2, in pink
/// noise +0.6 points streamed; the real speakers' pauses 88.9 → 88.7 % silent.
pub const STREAM_MIN_ABOVE_FLOOR_DB: f32 = 4.0;
/// Margin per dB of spread of the floor frames' levels.
const SPREAD_FACTOR: f32 = 4.0;
/// A noise band lies at least this far below the speech level (dB) …
const BAND_BELOW_SPEECH_DB: f32 = 25.0;
/// … is this wide (dB) …
const BAND_WIDTH_DB: f32 = 4.0;
/// … and holds at least this share of all frames.
const BAND_SHARE: f32 = 0.05;
/// A dense noise band this far (dB) over the percentile floor is the clip's floor: the room
/// got louder during the take (a noise gate opening, a fan, the hiss after a cut), and its
/// noise after the speech is not speech.
const UPPER_FLOOR_DB: f32 = 6.0;

/// Frames (250 ms) below the floor's threshold in a row that show the clip has a pause
/// (stop closures and fricatives run to 150 ms and more).
const PAUSE_EVIDENCE_FRAMES: usize = 25;

/// Whether `levels` has `run` frames in a row below `db`.
fn has_quiet_run(levels: &[f32], db: f32, run: usize) -> bool {
    // A non-finite level is read as digital silence, as everywhere here.
    has_run(levels, run, |l| !l.is_finite() || l < db)
}

/// Whether `levels` has `run` frames in a row within `lo..=hi` (dB).
fn has_run_within(levels: &[f32], lo: f32, hi: f32, run: usize) -> bool {
    has_run(levels, run, |l| (lo..=hi).contains(&l))
}

/// Whether `run` frames in a row of `levels` are `in_run`.
fn has_run(levels: &[f32], run: usize, in_run: impl Fn(f32) -> bool) -> bool {
    let mut n = 0;
    for &l in levels {
        n = if in_run(l) { n + 1 } else { 0 };
        if n >= run {
            return true;
        }
    }
    false
}

/// The densest [`BAND_WIDTH_DB`] band of `levels` (sorted, non-digital) more than
/// [`BAND_BELOW_SPEECH_DB`] below `speech_db`, when it holds at least [`BAND_SHARE`] of
/// `total` frames.
fn noise_band(levels: &[f32], speech_db: f32, total: usize) -> Option<&[f32]> {
    let low = &levels[..levels.partition_point(|l| *l < speech_db - BAND_BELOW_SPEECH_DB)];
    let (mut best, mut a) = ((0, 0), 0);
    for b in 0..low.len() {
        while low[b] - low[a] > BAND_WIDTH_DB {
            a += 1;
        }
        if b + 1 - a > best.1 - best.0 {
            best = (a, b + 1);
        }
    }
    let n = best.1 - best.0;
    (n >= 10 && n as f32 >= BAND_SHARE * total as f32).then(|| &low[best.0..best.1])
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
/// `FLOOR_BLOCKS` blocks of `FLOOR_BLOCK_FRAMES` frames (minimum statistics: it follows
/// a new noise level within 1.5 s and is not pulled up by speech, whose consonants and
/// gaps dip well below its vowels), moved up by how far the mean level of the block that
/// holds it lies over it — up to 4 dB for a noise that fluctuates (pink noise, a room),
/// nothing for a steady one (hum, a fan). A floor heard as steady noise outlasts the
/// window by one more while speech holds the minimum (an utterance longer than 1.5 s
/// would otherwise lose its pause and raise the threshold into its own last vowels);
/// the speech level follows peaks at once and decays
/// slowly and never sits less than 20 dB over the floor. The threshold is offline's
/// (floor + margin, lowered toward `min_below_peak_db` under the speech, at least
/// `below_peak_db` under it), with hysteresis and without offline's pause evidence. No
/// look-ahead: adds no latency.
///
/// A stream that starts on speech has no floor yet: its first minimum is the word it
/// started in. Until a steady quarter second (25 frames within 4 dB: a pause, room tone
/// — or a held, compressed vowel, which then counts as the floor) or the whole 1.5 s
/// window has been heard, a minimum louder than −30 dBFS is not taken for a floor and the
/// threshold follows the speech level alone, as offline does for a clip with no pause.
/// Speech quieter than −30 dBFS gets no such help (a low-gain microphone), and a loud
/// room moves the mouth until it has been heard steady.
#[derive(Clone, Debug)]
pub struct StreamVoicing {
    config: VoicingConfig,
    /// The last `FLOOR_BLOCKS` blocks' levels, a ring (`block` is the current one) …
    blocks: [FloorBlock; FLOOR_BLOCKS],
    /// … and the same over frames that are not digital silence.
    heard: [FloorBlock; FLOOR_BLOCKS],
    block: usize,
    /// How far the floor's block mean lies over its minimum (dB, at most
    /// [`MIN_STAT_BIAS_DB`]).
    bias_db: f32,
    /// The last floor heard as steady noise, kept while speech holds the minimum.
    held: Option<HeldFloor>,
    floor_db: f32,
    speech_db: f32,
    margin_db: f32,
    on: bool,
    /// Whether the floor has been heard: a steady run (a pause, room tone, digital
    /// silence) or a whole window of blocks. Until then a minimum louder than
    /// [`UNHEARD_FLOOR_MAX_DB`] may be the speech the stream started on, not its floor.
    floor_heard: bool,
    /// Until the floor is heard: the last [`STEADY_FRAMES`] levels (a ring) …
    recent: [f32; STEADY_FRAMES],
    /// … and the frames so far (stops counting once heard, at most 150).
    frames_before_heard: usize,
}

/// Frames per noise-floor block (0.25 s).
pub const FLOOR_BLOCK_FRAMES: usize = 25;
/// Blocks remembered for the noise floor (1.5 s).
pub const FLOOR_BLOCKS: usize = 6;
/// A running minimum sits below the mean noise level; it is moved back up by the
/// quietest block's mean level over its minimum, at most this (dB; it was this always).
const MIN_STAT_BIAS_DB: f32 = 4.0;
/// A block whose mean lies within this of its minimum (dB) is steady noise, not speech.
const STEADY_BLOCK_DIP_DB: f32 = 1.5;
/// How long (frames) a floor heard as steady noise is kept while the minimum comes from
/// speech: one more window (1.5 s).
const FLOOR_HOLD_FRAMES: usize = FLOOR_BLOCKS * FLOOR_BLOCK_FRAMES;

/// The minimum, sum and count of one block's frame levels.
#[derive(Clone, Copy, Debug)]
struct FloorBlock {
    min: f32,
    sum: f32,
    frames: usize,
}

impl FloorBlock {
    const EMPTY: Self = Self {
        min: f32::INFINITY,
        sum: 0.0,
        frames: 0,
    };

    fn add(&mut self, level_db: f32) {
        self.min = self.min.min(level_db);
        self.sum += level_db;
        self.frames += 1;
    }

    /// How far the block's mean lies over its minimum (dB): none for a steady noise, a
    /// few dB for one that fluctuates, more for speech. `None` before half a block: too
    /// few frames for a mean.
    fn dip(&self) -> Option<f32> {
        (self.frames >= FLOOR_BLOCK_FRAMES / 2).then(|| self.sum / self.frames as f32 - self.min)
    }
}

/// The block with the lowest minimum, and the second-lowest minimum.
fn lowest_of(blocks: &[FloorBlock; FLOOR_BLOCKS]) -> (FloorBlock, f32) {
    let (mut lowest, mut second) = (FloorBlock::EMPTY, f32::INFINITY);
    for b in blocks {
        if b.min < lowest.min {
            (lowest, second) = (*b, lowest.min);
        } else if b.min < second {
            second = b.min;
        }
    }
    (lowest, second)
}

/// A floor heard as steady noise: the floor, its move up and margin, and the frames it
/// has been kept since.
#[derive(Clone, Copy, Debug)]
struct HeldFloor {
    floor_db: f32,
    bias_db: f32,
    margin_db: f32,
    frames: usize,
}

/// Streaming: a non-digital floor this far below the speech level replaces a digital one.
const HEARD_FLOOR_BELOW_SPEECH_DB: f32 = 35.0;
/// Speech level decay per frame (dB): 3 dB/s.
const PEAK_DECAY_DB: f32 = 0.03;
/// A run this long (frames, 250 ms) …
const STEADY_FRAMES: usize = 25;
/// … whose levels lie within this spread (dB) is a floor, not speech.
const STEADY_SPREAD_DB: f32 = 4.0;
/// Before the floor is heard, a minimum louder than this (dBFS) is taken for speech: rooms
/// are quieter, voices are not.
const UNHEARD_FLOOR_MAX_DB: f32 = -30.0;

impl StreamVoicing {
    /// A detector that starts assuming a −20 dBFS speech level.
    pub fn new(config: VoicingConfig) -> Self {
        Self {
            config,
            blocks: [FloorBlock::EMPTY; FLOOR_BLOCKS],
            heard: [FloorBlock::EMPTY; FLOOR_BLOCKS],
            block: 0,
            bias_db: MIN_STAT_BIAS_DB,
            held: None,
            floor_db: FLOOR_DB,
            speech_db: -20.0,
            margin_db: config.above_floor_db,
            on: false,
            floor_heard: false,
            recent: [FLOOR_DB; STEADY_FRAMES],
            frames_before_heard: 0,
        }
    }

    /// Current speech level estimate (dBFS).
    pub fn speech_db(&self) -> f32 {
        self.speech_db
    }

    /// The threshold used for the last frame (dBFS).
    pub fn threshold_db(&self) -> f32 {
        let by_level =
            (self.speech_db - self.config.below_peak_db).max(self.config.absolute_min_db);
        if !self.floor_trusted() {
            // Started on speech, no floor heard yet: what offline does with a clip that
            // has no pause (its floor rule needs one). The floor rule would take the word
            // the stream began in for its floor and stay shut until the word ended.
            return by_level;
        }
        // Offline's floor rule over the minimum statistics (moved up by their bias).
        self.config
            .floor_rule(self.floor_db + self.bias_db, self.margin_db, self.speech_db)
            .max(by_level)
    }

    /// The level the noise estimate measures its pauses against (dBFS), as
    /// [`Voicing::noise_reference_db`].
    pub fn noise_reference_db(&self) -> f32 {
        self.threshold_db()
            .max(self.floor_db + self.bias_db + NOISE_REFERENCE_ABOVE_FLOOR_DB)
    }

    /// Whether the minimum statistics are a floor: heard as one, or quiet enough that no
    /// voice is that soft.
    fn floor_trusted(&self) -> bool {
        self.floor_heard || self.floor_db <= UNHEARD_FLOOR_MAX_DB
    }

    /// Feeds one frame level (dBFS; the stream gives the voice band's,
    /// [`crate::FrameFeatures::band_db`]); returns whether the frame is voiced.
    pub fn update(&mut self, level_db: f32) -> bool {
        let l = if level_db.is_finite() {
            level_db.max(FLOOR_DB)
        } else {
            FLOOR_DB
        };
        if self.blocks[self.block].frames == FLOOR_BLOCK_FRAMES {
            self.block = (self.block + 1) % FLOOR_BLOCKS;
            self.blocks[self.block] = FloorBlock::EMPTY;
            self.heard[self.block] = FloorBlock::EMPTY;
        }
        if !self.floor_heard {
            self.recent[self.frames_before_heard % STEADY_FRAMES] = l;
            self.frames_before_heard += 1;
            let (lo, hi) = self
                .recent
                .iter()
                .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &x| {
                    (lo.min(x), hi.max(x))
                });
            let n = self.frames_before_heard;
            let steady = n >= STEADY_FRAMES && hi - lo <= STEADY_SPREAD_DB;
            self.floor_heard = steady || n >= FLOOR_BLOCKS * FLOOR_BLOCK_FRAMES;
        }
        self.blocks[self.block].add(l);
        if l > DIGITAL_DB {
            self.heard[self.block].add(l);
        }
        let (mut floor, mut second) = lowest_of(&self.blocks);
        // Digital silence (padding, a muted input) next to a noise floor far below the
        // speech: that floor is where the pauses sit (a quiet take padded with zeros).
        let heard = lowest_of(&self.heard);
        if floor.min <= DIGITAL_DB && heard.0.min <= self.speech_db - HEARD_FLOOR_BELOW_SPEECH_DB {
            (floor, second) = heard;
        }
        let lowest = floor.min;
        self.floor_db = if lowest.is_finite() { lowest } else { FLOOR_DB };
        // A steady noise (hum, a fan) has its minimum at its mean; a fluctuating one
        // (pink, a room) dips under it. A minimum in a block's first frames is moved up
        // the most.
        let dip = floor.dip();
        self.bias_db = dip.map_or(MIN_STAT_BIAS_DB, |d| d.clamp(0.0, MIN_STAT_BIAS_DB));
        // Two blocks whose minima agree: a steady floor, so a smaller margin above it.
        self.margin_db = if second.is_finite() {
            (SPREAD_FACTOR * (second - lowest)).clamp(
                STREAM_MIN_ABOVE_FLOOR_DB,
                self.config.above_floor_db.max(STREAM_MIN_ABOVE_FLOOR_DB),
            )
        } else {
            self.config.above_floor_db
        };
        // Speech longer than the window pushes the last pause out of it, and the minimum
        // then comes from the speech: the threshold jumps and the end of the utterance is
        // called silent. A floor heard as steady noise (a block whose mean lies within
        // 1.5 dB of its minimum) is kept instead, for one more window at most; a louder
        // steady noise replaces it as soon as it is the window's minimum.
        if dip.is_some_and(|d| d <= STEADY_BLOCK_DIP_DB) && lowest > DIGITAL_DB {
            self.held = Some(HeldFloor {
                floor_db: self.floor_db,
                bias_db: self.bias_db,
                margin_db: self.margin_db,
                frames: 0,
            });
        } else if let Some(held) = self.held.as_mut() {
            if held.frames < FLOOR_HOLD_FRAMES
                && held.floor_db + held.bias_db < self.floor_db + self.bias_db
            {
                self.floor_db = held.floor_db;
                self.bias_db = held.bias_db;
                self.margin_db = held.margin_db;
                held.frames += 1;
            } else {
                self.held = None;
            }
        }
        self.speech_db = if l > self.speech_db {
            l
        } else {
            self.speech_db - PEAK_DECAY_DB
        };
        if self.floor_trusted() {
            self.speech_db = self.speech_db.max(self.floor_db + 20.0);
        }
        let t = self.threshold_db();
        self.on = if self.on {
            l >= t - self.config.hysteresis_db
        } else {
            l >= t
        };
        self.on
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A recorded syllable whose room got louder after it (KLettres' French letters: a
    /// lead-in at −63 dBFS, the vowel, then a second of hiss at −48): the hiss is the
    /// floor, not speech. A quiet lead-in alone, or a hiss too short to be a pause, changes
    /// nothing.
    #[test]
    fn noise_that_rises_after_the_speech_is_the_floor() {
        let wobble = |i: usize| (i % 3) as f32 - 1.0;
        let take = |hiss_frames: usize| -> Vec<f32> {
            let mut levels: Vec<f32> = (0..20).map(|i| -63.0 + wobble(i)).collect();
            levels.extend((0..20).map(|i| -14.0 - i as f32 * 0.5));
            levels.extend((0..hiss_frames).map(|i| -48.0 + wobble(i)));
            levels
        };
        let config = VoicingConfig::default();
        let long = config.offline(&take(100));
        assert!(
            long.voiced[20..40].iter().all(|v| *v),
            "the vowel is speech"
        );
        let hiss_voiced = long.voiced[40..].iter().filter(|v| **v).count();
        assert_eq!(hiss_voiced, 0, "threshold {} dB", long.threshold_db);
        assert!(
            (long.floor_db + 48.0).abs() < 1.5,
            "floor {}",
            long.floor_db
        );
        // 15 frames of hiss are no pause (the vowel's own decay could sit there): the lower
        // floor stays.
        let short = config.offline(&take(15));
        assert!(
            (short.floor_db + 63.0).abs() < 1.5,
            "floor {}",
            short.floor_db
        );
    }

    /// The streaming threshold after two seconds of a noise whose frame levels cycle
    /// through `levels`.
    fn threshold_after(levels: &[f32]) -> f32 {
        let mut voicing = StreamVoicing::new(VoicingConfig::default());
        for l in levels.iter().cycle().take(200) {
            voicing.update(*l);
        }
        voicing.threshold_db()
    }

    #[test]
    fn a_steady_floor_outlasts_the_window_by_one_more() {
        let mut voicing = StreamVoicing::new(VoicingConfig::default());
        // Half a second of a steady −60 dBFS room, then speech whose levels dip to −40.
        for _ in 0..50 {
            voicing.update(-60.0);
        }
        let speech = [-20.0, -25.0, -40.0, -30.0];
        for l in speech.iter().cycle().take(250) {
            voicing.update(*l);
        }
        // 2.5 s into the speech the room has left the 1.5 s window, and is still the floor
        // (at the wider margin of its last block alone: −60 + 12).
        let held = voicing.threshold_db();
        assert!(held < -45.0, "{held}");
        for l in speech.iter().cycle().take(100) {
            voicing.update(*l);
        }
        // A window later the speech's own minimum is: −40 moved up 4 dB plus the 4 dB
        // margin (the test fails here without the window's limit on the hold).
        let after = voicing.threshold_db();
        assert!(after > -36.0, "{after}");
    }

    #[test]
    fn the_floor_is_moved_up_by_how_much_the_noise_dips() {
        // A steady hum at −50 dBFS: its minimum is its mean, so the threshold is the
        // floor plus the 4 dB margin (it was −41 dB when every minimum was moved up 4 dB
        // and the margin was 5).
        assert!((threshold_after(&[-50.0]) + 46.0).abs() < 0.01);
        // A noise dipping 2 dB under its −50 dB mean is moved up by those 2 dB (a block
        // of 25 frames holds 13 of one level and 12 of the other) …
        assert!((threshold_after(&[-52.0, -48.0]) + 46.0).abs() < 0.1);
        // … and one dipping 6 dB by at most 4: the threshold is its minimum + 4 + 4.
        assert!((threshold_after(&[-56.0, -44.0]) + 48.0).abs() < 0.01);
    }
}
