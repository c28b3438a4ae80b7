//! Per-class feature profiles, the classifier that scores a frame against them, and the
//! builder that makes a profile from labelled frames (the built-in default and
//! per-speaker calibration are made by the same code).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::features::N_CEPS;
use crate::{ContextNet, LipsyncError, NetOptions, NetSequence, Viseme};

/// Format tag written into every profile JSON.
pub const PROFILE_FORMAT: &str = "omote-lipsync-profile/2";
/// The first format (one Gaussian per class, no [`Profile::subclasses`]); still read.
pub const PROFILE_FORMAT_V1: &str = "omote-lipsync-profile/1";
/// Most [`Profile::subclasses`] a profile may have (the built-in one has 61): scoring
/// costs 13 multiply-adds and one `exp` per subclass per frame.
pub const MAX_SUBCLASSES: usize = 256;
/// [`ProfileBuilder`]'s default for the frames a phone needs to get its own subclass
/// (see [`ProfileBuilder::min_phone_frames`]).
pub const DEFAULT_MIN_PHONE_FRAMES: u64 = 1000;
/// The share of each vowel class's (A I U E O) weight its real-voice Gaussian takes by
/// default ([`ProfileBuilder::real_shares`]): the best found, leave-one-speaker-out, with
/// no synthetic group losing a point; U's is smaller because a real back /u/ sits on a
/// female Japanese /o/, and O's larger so that her /o/ stays O (crate's EVALUATION.md, "Real voices
/// in the profile", "Tenth stage" and "Twelfth stage").
pub const DEFAULT_REAL_SHARES: [f32; 5] = [0.25, 0.25, 0.21, 0.3, 0.5];
/// The largest real-voice share of a class.
pub const MAX_REAL_SHARE: f32 = 0.9;
/// Frames of real voices a class needs for its real-voice Gaussian.
pub const MIN_REAL_FRAMES: u64 = 200;
/// The phone name of a class's real-voice Gaussian.
pub const REAL_VOICE_PHONE: &str = "real voices";

const DEFAULT_JSON: &str = include_str!("../assets/default_profile.json");

/// Significant decimal digits a built profile keeps of each learnt number
/// ([`stored_digits`]): far finer than the spread of the frames they describe (a mean moves
/// by 1e-5 of itself), and the built-in profile, which the npm package embeds, is 1.6 KB
/// smaller gzipped than with f32's nine.
pub const STORED_DIGITS: usize = 5;

/// `v` with [`STORED_DIGITS`] significant digits (the nearest f32 to that decimal), as a
/// built profile keeps it: written out and read back it stays the same number, and
/// rounding it again changes nothing. Non-finite values are returned as they are.
pub fn stored_digits(v: f32) -> f32 {
    if !v.is_finite() || v == 0.0 {
        return v;
    }
    format!("{v:.*e}", STORED_DIGITS - 1).parse().unwrap_or(v)
}

/// Largest |value| of a class mean or the global mean (the built-in profile's are under
/// 10; cepstra of real audio stay within tens).
pub const MAX_MEAN: f32 = 1e3;
/// Largest |value| of a precision entry (the built-in profile's are under 1).
pub const MAX_PRECISION: f32 = 1e4;
/// Sharpness range (the built-in profile: 1).
pub const SHARPNESS_RANGE: (f32, f32) = (1e-3, 100.0);
/// Largest |bias| (a log-prior; the built-in profile's N bias is −1).
pub const MAX_BIAS: f32 = 100.0;

/// Class profiles for the six visemes: a mean cepstrum per class and the inverse of the
/// pooled within-class covariance (a shared-covariance Gaussian classifier, i.e. linear
/// discriminant analysis). A frame's log-score for class *k* is
/// `sharpness · (−½ (x − μₖ)ᵀ P (x − μₖ)) + bias[k]`; a softmax over the six gives weights.
///
/// With [`Profile::subclasses`] each class is instead a mixture of phone Gaussians that
/// share `precision`: class *k* scores
/// `log Σ_{s ∈ k} exp(sharpness · (−½ (x − μₛ)ᵀ P (x − μₛ)) + log wₛ) + bias[k]`.
/// A mouth class is many sounds (A is /a/, /æ/, /ʌ/ and schwa; N is every consonant),
/// and one Gaussian per class sits between them. [`ClassScorer`](crate::ClassScorer)
/// evaluates the same formula fast.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    /// [`PROFILE_FORMAT`] (or [`PROFILE_FORMAT_V1`] as read from an older file).
    pub format: String,
    /// How it was made (free text).
    pub description: String,
    /// Whether features are cepstral-mean normalised over the clip's voiced frames
    /// (running mean when streaming) before scoring.
    pub cmn: bool,
    /// Mean c1..c12 per class, in A I U E O N order.
    #[serde(deserialize_with = "crate::fixed_arrays::matrix")]
    pub means: [[f32; N_CEPS]; 6],
    /// Inverse of the pooled within-class covariance (symmetric, positive definite).
    #[serde(deserialize_with = "crate::fixed_arrays::matrix")]
    pub precision: [[f32; N_CEPS]; N_CEPS],
    /// Mean of all voiced training frames before normalisation: the starting estimate of
    /// a stream's cepstral mean.
    #[serde(deserialize_with = "crate::fixed_arrays::array")]
    pub global_mean: [f32; N_CEPS],
    /// Multiplies the distance term (softmax temperature⁻¹).
    pub sharpness: f32,
    /// Additive log-prior per class.
    #[serde(deserialize_with = "crate::fixed_arrays::array")]
    pub bias: [f32; 6],
    /// Training frames per class.
    #[serde(deserialize_with = "crate::fixed_arrays::array")]
    pub frames: [u64; 6],
    /// Phone-level Gaussians inside the classes (empty: one Gaussian per class at
    /// `means`). When present every class has at least one, and `means[k]` is their
    /// weighted mean.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subclasses: Vec<Subclass>,
    /// A small net over each frame and its neighbours whose logits, times its weight, are
    /// added to the Gaussians' log-scores ([`ClassScorer`](crate::ClassScorer)); `None`:
    /// the Gaussians alone. See the crate's EVALUATION.md, "Fourth stage".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_net: Option<ContextNet>,
}

/// One phone's Gaussian inside a mouth class (it shares the profile's precision).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Subclass {
    /// The mouth class it belongs to.
    pub class: Viseme,
    /// The phone symbol it was learnt from (`*`: the class's rarer phones together).
    pub phone: String,
    /// Mean c1..c12.
    #[serde(deserialize_with = "crate::fixed_arrays::array")]
    pub mean: [f32; N_CEPS],
    /// Log of its share of the class's training frames (≤ 0).
    pub log_weight: f32,
}

impl Profile {
    /// The built-in speaker-independent profile (`assets/default_profile.json`, made by
    /// `tools/lipsync/build-default-profile.sh`).
    pub fn builtin() -> Profile {
        // The asset is checked by a unit test; a broken one is a build defect.
        Profile::from_json(DEFAULT_JSON, "built-in").expect("built-in profile is valid")
    }

    /// Parses and validates a profile; `name` is used in errors.
    pub fn from_json(json: &str, name: &str) -> Result<Profile, LipsyncError> {
        let p: Profile = serde_json::from_str(json).map_err(|e| LipsyncError::Profile {
            name: name.to_string(),
            reason: e.to_string(),
        })?;
        p.validate(name)?;
        Ok(p)
    }

    /// Pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Checks every number against its range (see [`MAX_MEAN`] and the other limits);
    /// `name` is used in errors. [`Profile::from_json`] and [`ProfileBuilder::build`] call it.
    pub fn validate(&self, name: &str) -> Result<(), LipsyncError> {
        let bad = |reason: &str| LipsyncError::Profile {
            name: name.into(),
            reason: reason.into(),
        };
        if self.format != PROFILE_FORMAT && self.format != PROFILE_FORMAT_V1 {
            return Err(bad(&format!(
                "format is {:?}, expected {PROFILE_FORMAT:?} (or {PROFILE_FORMAT_V1:?})",
                self.format
            )));
        }
        // Bounded so that a frame's score, −½·sharpness·(x − μ)ᵀP(x − μ) + bias, stays
        // finite for any real cepstrum: a profile of finite but huge numbers would
        // otherwise score inf − inf = NaN.
        let groups: [(&str, Vec<f32>, f32); 6] = [
            (
                "means",
                self.means.iter().flatten().copied().collect(),
                MAX_MEAN,
            ),
            ("globalMean", self.global_mean.to_vec(), MAX_MEAN),
            (
                "precision",
                self.precision.iter().flatten().copied().collect(),
                MAX_PRECISION,
            ),
            ("bias", self.bias.to_vec(), MAX_BIAS),
            (
                "subclasses[].mean",
                self.subclasses.iter().flat_map(|s| s.mean).collect(),
                MAX_MEAN,
            ),
            (
                "subclasses[].log_weight",
                self.subclasses.iter().map(|s| s.log_weight).collect(),
                MAX_BIAS,
            ),
        ];
        for (field, values, max) in groups {
            if let Some(v) = values.iter().find(|v| !(v.is_finite() && v.abs() <= max)) {
                return Err(bad(&format!(
                    "{field}: {v} is not a finite number within ±{max}"
                )));
            }
        }
        if (0..N_CEPS).any(|j| self.precision[j][j] <= 0.0) {
            return Err(bad("precision diagonal must be > 0"));
        }
        if !self.subclasses.is_empty() {
            if self.subclasses.len() > MAX_SUBCLASSES {
                return Err(bad(&format!(
                    "subclasses: {} are more than {MAX_SUBCLASSES}",
                    self.subclasses.len()
                )));
            }
            if let Some(v) = Viseme::ALL
                .into_iter()
                .find(|v| !self.subclasses.iter().any(|s| s.class == *v))
            {
                return Err(bad(&format!(
                    "subclasses: class {} has none (every class needs one)",
                    v.letter()
                )));
            }
            if let Some(s) = self.subclasses.iter().find(|s| s.log_weight > 0.0) {
                return Err(bad(&format!(
                    "subclasses: log_weight {} of {:?} is above 0",
                    s.log_weight, s.phone
                )));
            }
            // Shares of a class sum to 1: otherwise they would act as a hidden class prior.
            for v in Viseme::ALL {
                let total: f32 = self
                    .subclasses
                    .iter()
                    .filter(|s| s.class == v)
                    .map(|s| s.log_weight.exp())
                    .sum();
                if (total - 1.0).abs() > 1e-3 {
                    return Err(bad(&format!(
                        "subclasses: the shares (exp log_weight) of class {} sum to {total}, not 1",
                        v.letter()
                    )));
                }
            }
        }
        if let Some(net) = &self.context_net {
            net.validate(name)?;
        }
        let (lo, hi) = SHARPNESS_RANGE;
        if !(self.sharpness.is_finite() && (lo..=hi).contains(&self.sharpness)) {
            return Err(bad(&format!(
                "sharpness: {} is not between {lo} and {hi}",
                self.sharpness
            )));
        }
        Ok(())
    }

    /// Log-scores of a (normalised) cepstrum for the six classes, straight from the
    /// formula (the reference for [`ClassScorer`](crate::ClassScorer), which the analysers
    /// use: it gives the same numbers several times faster).
    pub fn log_scores(&self, x: &[f32; N_CEPS]) -> [f32; 6] {
        std::array::from_fn(|k| {
            log_sum_exp(self.class_gaussians(k).map(|(mu, log_weight)| {
                let t: [f32; N_CEPS] = std::array::from_fn(|j| x[j] - mu[j]);
                -0.5 * self.sharpness * quadratic_form(&self.precision, &t) + log_weight
            })) + self.bias[k]
        })
    }

    /// Class `k`'s Gaussians as (mean, log share): its subclasses, or its class mean
    /// with share 1 when the profile has none.
    pub(crate) fn class_gaussians(
        &self,
        k: usize,
    ) -> impl Iterator<Item = (&[f32; N_CEPS], f32)> + Clone {
        let whole = self.subclasses.is_empty().then_some((&self.means[k], 0.0));
        let subs = self
            .subclasses
            .iter()
            .filter(move |s| s.class.index() == k)
            .map(|s| (&s.mean, s.log_weight));
        whole.into_iter().chain(subs)
    }

    /// Moves class `k`'s mean to `mean`, and its subclasses by the same step (calibration
    /// learns where a speaker's class lies, not how its phones spread around it).
    pub fn move_class_mean(&mut self, k: usize, mean: [f32; N_CEPS]) {
        let mut step = [0f32; N_CEPS];
        for j in 0..N_CEPS {
            step[j] = mean[j] - self.means[k][j];
        }
        for s in self.subclasses.iter_mut().filter(|s| s.class.index() == k) {
            for j in 0..N_CEPS {
                s.mean[j] += step[j];
            }
        }
        self.means[k] = mean;
    }

    /// This profile adapted to one speaker: each class with at least `min_frames` frames
    /// in `speaker` gets the speaker's mean (shrunk toward this profile's mean by a prior
    /// of 10 frames); variance, sharpness and biases are kept.
    pub fn calibrated(
        &self,
        speaker: &ProfileBuilder,
        min_frames: u64,
    ) -> Result<Profile, LipsyncError> {
        let mut p = self.clone();
        let counts = speaker.counts();
        for k in 0..6 {
            let n = counts[k];
            if n < min_frames {
                continue;
            }
            let speaker_mean = speaker.class_moments(k).mean();
            let prior = 10.0;
            let mean = std::array::from_fn(|j| {
                ((speaker_mean[j] * n as f64 + f64::from(self.means[k][j]) * prior)
                    / (n as f64 + prior)) as f32
            });
            p.move_class_mean(k, mean);
            p.frames[k] = n;
        }
        if counts.iter().all(|&n| n < min_frames) {
            let best = (0..6).max_by_key(|&k| counts[k]).unwrap_or(0);
            return Err(LipsyncError::TooFewFrames {
                class: crate::Viseme::ALL[best].letter(),
                frames: counts[best] as usize,
                need: min_frames as usize,
            });
        }
        if speaker.voiced_count > 0 {
            for j in 0..N_CEPS {
                p.global_mean[j] = (speaker.voiced_sum[j] / speaker.voiced_count as f64) as f32;
            }
        }
        p.description = format!(
            "{} + calibrated on {} frames",
            self.description,
            counts.iter().sum::<u64>()
        );
        Ok(p)
    }
}

impl Default for Profile {
    fn default() -> Self {
        Profile::builtin()
    }
}

/// Accumulates labelled feature frames (already normalised as the profile will see them)
/// and builds a [`Profile`] from them.
#[derive(Clone, Debug)]
pub struct ProfileBuilder {
    /// Per class, the frames' moments per phone symbol (a class's are their sum).
    phones: [BTreeMap<String, Moments>; 6],
    /// Per class, real voices' frames ([`ProfileBuilder::add_real_voice`]).
    real: [Moments; 6],
    real_shares: [f32; 5],
    voiced_sum: [f64; N_CEPS],
    voiced_count: u64,
    min_phone_frames: u64,
    /// How to train the profile's [`ContextNet`] (`None`: it has none) …
    net_options: Option<NetOptions>,
    /// … and what it learns from: each clip's frames, kept only when it trains one.
    net_sequences: Vec<NetSequence>,
    /// The weight of a real voice's frame in the net's training.
    net_real_weight: f32,
}

/// How much a real voice's vowel frame counts in the [`ContextNet`]'s training against a
/// synthetic one (real voices are few: 14 speakers' syllables against 358 k frames).
pub const NET_REAL_WEIGHT: f32 = 6.0;

/// First and second moments of a set of frames.
#[derive(Clone, Debug)]
struct Moments {
    sum: [f64; N_CEPS],
    sum_xx: [[f64; N_CEPS]; N_CEPS],
    count: u64,
}

impl Default for Moments {
    fn default() -> Self {
        Self {
            sum: [0.0; N_CEPS],
            sum_xx: [[0.0; N_CEPS]; N_CEPS],
            count: 0,
        }
    }
}

impl Moments {
    fn add(&mut self, x: &[f32; N_CEPS]) {
        for j in 0..N_CEPS {
            let v = f64::from(x[j]);
            self.sum[j] += v;
            for m in 0..N_CEPS {
                self.sum_xx[j][m] += v * f64::from(x[m]);
            }
        }
        self.count += 1;
    }

    fn merge(&mut self, o: &Moments) {
        for j in 0..N_CEPS {
            self.sum[j] += o.sum[j];
            for m in 0..N_CEPS {
                self.sum_xx[j][m] += o.sum_xx[j][m];
            }
        }
        self.count += o.count;
    }

    fn mean(&self) -> [f64; N_CEPS] {
        let n = self.count.max(1) as f64;
        std::array::from_fn(|j| self.sum[j] / n)
    }

    /// Adds the scatter around the own mean, Σ (x − μ)(x − μ)ᵀ, to `within`.
    fn add_scatter(&self, within: &mut [[f64; N_CEPS]; N_CEPS]) {
        let mu = self.mean();
        let n = self.count as f64;
        for j in 0..N_CEPS {
            for m in 0..N_CEPS {
                within[j][m] += self.sum_xx[j][m] - n * mu[j] * mu[m];
            }
        }
    }
}

impl Default for ProfileBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl ProfileBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self {
            phones: Default::default(),
            real: Default::default(),
            real_shares: DEFAULT_REAL_SHARES,
            voiced_sum: [0.0; N_CEPS],
            voiced_count: 0,
            min_phone_frames: DEFAULT_MIN_PHONE_FRAMES,
            net_options: None,
            net_sequences: Vec::new(),
            net_real_weight: NET_REAL_WEIGHT,
        }
    }

    /// How much a real voice's vowel frame counts in the net's training against a
    /// labelled synthetic one (default [`NET_REAL_WEIGHT`]; not finite or below 0 is 0).
    pub fn net_real_weight(mut self, weight: f32) -> Self {
        self.net_real_weight = if weight.is_finite() {
            weight.max(0.0)
        } else {
            0.0
        };
        self
    }

    /// [`ProfileBuilder::net_real_weight`].
    pub(crate) fn real_weight_in_net(&self) -> f32 {
        self.net_real_weight
    }

    /// Makes the profile carry a [`ContextNet`] trained with `options` on the clips added
    /// from now on: labelled clips' labelled voiced frames at weight 1, real syllables'
    /// vowel frames at [`ProfileBuilder::net_real_weight`], every frame of a clip as
    /// context. Set it before adding clips (it keeps their frames, which a builder
    /// without it does not).
    pub fn context_net(mut self, options: NetOptions) -> Self {
        self.net_options = Some(options);
        self
    }

    /// Whether [`ProfileBuilder::build`] trains a [`ContextNet`].
    pub fn trains_context_net(&self) -> bool {
        self.net_options.is_some()
    }

    /// Adds one clip to the net's training, if it trains one: its `frames` (normalised
    /// cepstra), the frames that teach a class (`taught`: index and class; the others are
    /// context) and their weight.
    pub(crate) fn add_net_clip(
        &mut self,
        frames: &[[f32; N_CEPS]],
        taught: impl IntoIterator<Item = (usize, Viseme)>,
        weight: f32,
    ) {
        if self.net_options.is_none() {
            return;
        }
        let mut targets = vec![None; frames.len()];
        for (i, v) in taught {
            if let Some(t) = targets.get_mut(i) {
                *t = Some(v.index() as u8);
            }
        }
        if targets.iter().any(Option::is_some) {
            self.net_sequences.push(NetSequence {
                frames: frames.to_vec(),
                targets,
                weight,
            });
        }
    }

    /// The share of each vowel class's (A I U E O) weight its real-voice Gaussian takes
    /// (default [`DEFAULT_REAL_SHARES`]; each clamped to 0..=[`MAX_REAL_SHARE`], 0 or not
    /// finite leaves that class's real voices out).
    pub fn real_shares(mut self, shares: [f32; 5]) -> Self {
        self.real_shares = shares.map(|s| {
            if s.is_finite() {
                s.clamp(0.0, MAX_REAL_SHARE)
            } else {
                0.0
            }
        });
        self
    }

    /// Class `k`'s real-voice share (none for N).
    fn real_share_of(&self, k: usize) -> f32 {
        self.real_shares.get(k).copied().unwrap_or(0.0)
    }

    /// Adds one frame of a real (recorded human) voice saying vowel `class`. Real voices'
    /// frames teach only their class's [`REAL_VOICE_PHONE`] Gaussian — its mean, at
    /// [`ProfileBuilder::real_shares`] of the class — never the shared covariance or the
    /// other phones: see the crate's EVALUATION.md, "Real voices in the profile". `N` frames are
    /// ignored (the closed mouth stays what the labelled phones make it).
    pub fn add_real_voice(&mut self, class: Viseme, x: &[f32; N_CEPS]) {
        if class != Viseme::N {
            self.real[class.index()].add(x);
        }
    }

    /// Real voices' frames per class so far.
    pub fn real_counts(&self) -> [u64; 6] {
        std::array::from_fn(|k| self.real[k].count)
    }

    /// Frames a phone needs to get its own [`Subclass`] (default
    /// [`DEFAULT_MIN_PHONE_FRAMES`]); a class's rarer phones share one. `u64::MAX` builds a
    /// plain one-Gaussian-per-class profile.
    pub fn min_phone_frames(mut self, frames: u64) -> Self {
        self.min_phone_frames = frames.max(1);
        self
    }

    /// Adds one frame of class `class` (A..N index) with no phone symbol.
    pub fn add(&mut self, class: Viseme, x: &[f32; N_CEPS]) {
        self.add_phone(class, "", x);
    }

    /// Adds one frame of class `class` spoken as `phone` (the label's symbol).
    pub fn add_phone(&mut self, class: Viseme, phone: &str, x: &[f32; N_CEPS]) {
        let k = class.index();
        match self.phones[k].get_mut(phone) {
            Some(m) => m.add(x),
            None => {
                let mut m = Moments::default();
                m.add(x);
                self.phones[k].insert(phone.to_string(), m);
            }
        }
    }

    /// Adds an un-normalised voiced frame to the global mean (the streaming CMN start).
    pub fn add_raw_voiced(&mut self, x: &[f32; N_CEPS]) {
        for j in 0..N_CEPS {
            self.voiced_sum[j] += f64::from(x[j]);
        }
        self.voiced_count += 1;
    }

    /// Frames per class so far.
    pub fn counts(&self) -> [u64; 6] {
        std::array::from_fn(|k| self.phones[k].values().map(|m| m.count).sum())
    }

    /// Class `k`'s frames: all its phones together.
    fn class_moments(&self, k: usize) -> Moments {
        let mut all = Moments::default();
        for m in self.phones[k].values() {
            all.merge(m);
        }
        all
    }

    /// Merges another builder's frames into this one (keeps this one's settings).
    pub fn merge(&mut self, other: &ProfileBuilder) {
        for k in 0..6 {
            for (phone, m) in &other.phones[k] {
                self.phones[k].entry(phone.clone()).or_default().merge(m);
            }
        }
        for (mine, theirs) in self.real.iter_mut().zip(&other.real) {
            mine.merge(theirs);
        }
        for j in 0..N_CEPS {
            self.voiced_sum[j] += other.voiced_sum[j];
        }
        self.voiced_count += other.voiced_count;
        if self.net_options.is_some() {
            self.net_sequences
                .extend(other.net_sequences.iter().cloned());
        }
    }

    /// Each class's Gaussians: phones with at least `min_phone_frames` frames on their
    /// own (most frames first), the rest together as `*`.
    fn subclass_moments(&self) -> [Vec<(String, Moments)>; 6] {
        std::array::from_fn(|k| {
            let mut own: Vec<(String, Moments)> = Vec::new();
            let mut rest = Moments::default();
            for (phone, m) in &self.phones[k] {
                if m.count >= self.min_phone_frames && !phone.is_empty() && phone != "*" {
                    own.push((phone.clone(), m.clone()));
                } else {
                    rest.merge(m);
                }
            }
            own.sort_by(|a, b| b.1.count.cmp(&a.1.count).then(a.0.cmp(&b.0)));
            if rest.count > 0 {
                own.push(("*".into(), rest));
            }
            own
        })
    }

    /// Builds a profile: class means, pooled variance, equal biases — and, where some
    /// phone has [`ProfileBuilder::min_phone_frames`], phone subclasses with the variance
    /// pooled within them; with [`ProfileBuilder::context_net`], the trained net (seconds
    /// for a large set). Every class needs at least 20 frames.
    pub fn build(
        &self,
        description: &str,
        cmn: bool,
        sharpness: f32,
    ) -> Result<Profile, LipsyncError> {
        let classes: [Moments; 6] = std::array::from_fn(|k| self.class_moments(k));
        for (k, c) in classes.iter().enumerate() {
            if c.count < 20 {
                return Err(LipsyncError::TooFewFrames {
                    class: Viseme::ALL[k].letter(),
                    frames: c.count as usize,
                    need: 20,
                });
            }
        }
        let groups = self.subclass_moments();
        // Real voices' Gaussians where a class has enough of them, and their shares (0
        // where there is none).
        let real: [Option<&Moments>; 6] = std::array::from_fn(|k| {
            (self.real_share_of(k) > 0.0 && self.real[k].count >= MIN_REAL_FRAMES)
                .then_some(&self.real[k])
        });
        let share: [f64; 6] =
            std::array::from_fn(|k| real[k].map_or(0.0, |_| f64::from(self.real_share_of(k))));
        let split = groups.iter().any(|g| g.len() > 1) || real.iter().any(Option::is_some);
        let mut within = [[0f64; N_CEPS]; N_CEPS];
        let mut subclasses = Vec::new();
        let total: u64 = classes.iter().map(|c| c.count).sum();
        for (k, c) in classes.iter().enumerate() {
            if !split {
                c.add_scatter(&mut within);
                continue;
            }
            let share = share[k];
            for (phone, m) in &groups[k] {
                m.add_scatter(&mut within);
                subclasses.push(Subclass {
                    class: Viseme::ALL[k],
                    phone: phone.clone(),
                    mean: m.mean().map(|v| v as f32),
                    log_weight: ((1.0 - share) * m.count as f64 / c.count as f64).ln() as f32,
                });
            }
            // Its mean only: the covariance stays the labelled phones' (real syllables
            // are few, careful and unevenly spread over the classes).
            if let Some(r) = real[k] {
                subclasses.push(Subclass {
                    class: Viseme::ALL[k],
                    phone: REAL_VOICE_PHONE.into(),
                    mean: r.mean().map(|v| v as f32),
                    log_weight: share.ln() as f32,
                });
            }
        }
        for row in &mut within {
            for v in row.iter_mut() {
                *v /= total as f64;
            }
        }
        // A small ridge keeps the inverse well conditioned.
        let ridge = 1e-3 * (0..N_CEPS).map(|j| within[j][j]).sum::<f64>() / N_CEPS as f64;
        for (j, row) in within.iter_mut().enumerate() {
            row[j] += ridge.max(1e-9);
        }
        let precision = invert_spd(&within).ok_or_else(|| LipsyncError::Profile {
            name: description.into(),
            reason: "within-class covariance is singular".into(),
        })?;
        let mut global_mean = [0f32; N_CEPS];
        if self.voiced_count > 0 {
            for j in 0..N_CEPS {
                global_mean[j] = (self.voiced_sum[j] / self.voiced_count as f64) as f32;
            }
        }
        let mut profile = Profile {
            format: PROFILE_FORMAT.into(),
            description: description.into(),
            cmn,
            // A class's mean is its mixture's: the real voices' at their share.
            means: std::array::from_fn(|k| {
                let own = classes[k].mean();
                let r = real[k].map_or(own, Moments::mean);
                std::array::from_fn(|j| ((1.0 - share[k]) * own[j] + share[k] * r[j]) as f32)
            }),
            precision,
            global_mean,
            sharpness,
            bias: [0.0; 6],
            frames: classes.each_ref().map(|c| c.count),
            subclasses,
            // Quantised as stored: the built profile scores as it reads back.
            context_net: match &self.net_options {
                Some(options) => Some(ContextNet::train(&self.net_sequences, options)?.quantised()),
                None => None,
            },
        };
        profile.keep_stored_digits();
        // What `from_json` would refuse is never built (a sharpness of 0, NaN).
        profile.validate(description)?;
        Ok(profile)
    }
}

impl Profile {
    /// Rounds every learnt number to [`STORED_DIGITS`] (the net's are rounded by
    /// [`ContextNet::quantised`]): a built profile scores as it reads back.
    fn keep_stored_digits(&mut self) {
        let round = |v: &mut f32| *v = stored_digits(*v);
        self.means.iter_mut().flatten().for_each(round);
        self.precision.iter_mut().flatten().for_each(round);
        self.global_mean.iter_mut().for_each(round);
        for s in &mut self.subclasses {
            s.mean.iter_mut().for_each(round);
            round(&mut s.log_weight);
        }
    }
}

impl ProfileBuilder {
    /// Adds the labelled frames of one clip: every voiced frame at least 15 ms inside a
    /// segment labelled A I U E O or N (the scorer's margin), with the features the
    /// classifier would see, under the segment's phone symbol.
    pub fn add_labelled_clip(
        &mut self,
        feats: &crate::ClipFeatures,
        labels: &[crate::labels::LabelSegment],
    ) {
        let taught: Vec<(usize, Viseme, &str)> = labelled_voiced_frames(feats, labels).collect();
        for &(i, v, phone) in &taught {
            self.add_phone(v, phone, &feats.normalised[i]);
            self.add_raw_voiced(&feats.frames[i].ceps);
        }
        self.add_net_clip(
            &feats.normalised,
            taught.iter().map(|&(i, v, _)| (i, v)),
            1.0,
        );
    }

    /// [`ProfileBuilder::add_labelled_clip`] for a real (recorded, aligned) voice: its
    /// voiced vowel frames go to the real-voice Gaussians
    /// ([`ProfileBuilder::add_real_voice`]), and all its labelled frames to the
    /// [`ContextNet`] if the builder trains one; nothing else.
    pub fn add_real_labelled_clip(
        &mut self,
        feats: &crate::ClipFeatures,
        labels: &[crate::labels::LabelSegment],
    ) {
        let taught: Vec<(usize, Viseme, &str)> = labelled_voiced_frames(feats, labels).collect();
        for &(i, v, _) in &taught {
            self.add_real_voice(v, &feats.normalised[i]);
        }
        // The net learns its closed mouths too: labelled N frames are what it has.
        self.add_net_clip(
            &feats.normalised,
            taught.iter().map(|&(i, v, _)| (i, v)),
            1.0,
        );
    }
}

impl ProfileBuilder {
    /// [`ProfileBuilder::add_labelled_clip`] for the [`ContextNet`] alone: its labelled
    /// voiced frames teach the net (weight 1) and move no Gaussian. For voices that
    /// should show the net what a vowel is without moving the classes the built-in
    /// groups rely on. Nothing without [`ProfileBuilder::context_net`].
    pub fn add_net_labelled_clip(
        &mut self,
        feats: &crate::ClipFeatures,
        labels: &[crate::labels::LabelSegment],
    ) {
        // add_net_clip returns before reading the frames when there is no net.
        let taught = labelled_voiced_frames(feats, labels).map(|(i, v, _)| (i, v));
        self.add_net_clip(&feats.normalised, taught, 1.0);
    }
}

/// The frames a labelled clip teaches, with their class and phone: voiced, at least 15 ms
/// inside a segment labelled A I U E O or N (the scorer's margin).
fn labelled_voiced_frames<'a>(
    feats: &'a crate::ClipFeatures,
    labels: &'a [crate::labels::LabelSegment],
) -> impl Iterator<Item = (usize, Viseme, &'a str)> {
    crate::labels::training_frames_with_phones(labels, feats.frames.len(), 0.015)
        .into_iter()
        .filter_map(|(i, class, phone)| match class {
            Some(v) if feats.voicing.voiced[i] => Some((i, v, phone)),
            _ => None,
        })
}

/// `log Σ exp(tᵢ)`, taken relative to the largest term (−∞ for no terms, never NaN for
/// finite ones). Shared by the formula and [`ClassScorer`](crate::ClassScorer).
#[inline]
pub(crate) fn log_sum_exp(terms: impl Iterator<Item = f32> + Clone) -> f32 {
    let m = terms.clone().fold(f32::NEG_INFINITY, f32::max);
    m + terms.map(|t| (t - m).exp()).sum::<f32>().ln()
}

/// `vᵀ M v`.
#[inline]
pub(crate) fn quadratic_form(m: &[[f32; N_CEPS]; N_CEPS], v: &[f32; N_CEPS]) -> f32 {
    let mut d = 0f32;
    for (a, row) in m.iter().enumerate() {
        let mut r = 0f32;
        for b in 0..N_CEPS {
            r += row[b] * v[b];
        }
        d += v[a] * r;
    }
    d
}

/// Inverse of a symmetric positive definite matrix (Gauss–Jordan with partial pivoting);
/// `None` when singular.
fn invert_spd(a: &[[f64; N_CEPS]; N_CEPS]) -> Option<[[f32; N_CEPS]; N_CEPS]> {
    let n = N_CEPS;
    let mut m = [[0f64; 2 * N_CEPS]; N_CEPS];
    for i in 0..n {
        m[i][..n].copy_from_slice(&a[i]);
        m[i][n + i] = 1.0;
    }
    for c in 0..n {
        let p = (c..n).max_by(|x, y| m[*x][c].abs().total_cmp(&m[*y][c].abs()))?;
        if m[p][c].abs() < 1e-12 {
            return None;
        }
        m.swap(c, p);
        let d = m[c][c];
        for v in m[c].iter_mut() {
            *v /= d;
        }
        for r in 0..n {
            if r != c {
                let f = m[r][c];
                if f != 0.0 {
                    for k in 0..2 * n {
                        m[r][k] -= f * m[c][k];
                    }
                }
            }
        }
    }
    let mut out = [[0f32; N_CEPS]; N_CEPS];
    for i in 0..n {
        for j in 0..n {
            // Symmetrise against rounding.
            out[i][j] = (0.5 * (m[i][n + j] + m[j][n + i])) as f32;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Frames around `centre` (±0.5 in every coefficient, deterministic).
    fn add_cloud(b: &mut ProfileBuilder, class: Viseme, phone: &str, centre: f32, n: usize) {
        for i in 0..n {
            let x: [f32; N_CEPS] = std::array::from_fn(|j| {
                centre + ((i * 7 + j * 13) % 11) as f32 / 10.0 - 0.5 + j as f32 * 0.1
            });
            b.add_phone(class, phone, &x);
        }
    }

    /// Every class as two phones far apart (one common, one rare) plus a few unlabelled
    /// frames.
    fn two_phone_builder() -> ProfileBuilder {
        let mut b = ProfileBuilder::new().min_phone_frames(100);
        for (k, v) in Viseme::ALL.into_iter().enumerate() {
            add_cloud(&mut b, v, "common", 10.0 * k as f32, 300);
            add_cloud(&mut b, v, "other", 10.0 * k as f32 + 4.0, 100);
            add_cloud(&mut b, v, "rare", 10.0 * k as f32 - 4.0, 30);
            add_cloud(&mut b, v, "", 10.0 * k as f32, 10);
        }
        b
    }

    #[test]
    fn phones_with_enough_frames_get_their_own_gaussian() {
        let p = two_phone_builder().build("test", true, 1.0).unwrap();
        for v in Viseme::ALL {
            let subs: Vec<&Subclass> = p.subclasses.iter().filter(|s| s.class == v).collect();
            let names: Vec<&str> = subs.iter().map(|s| s.phone.as_str()).collect();
            // Most frames first; the rare and unlabelled frames pooled last.
            assert_eq!(names, ["common", "other", "*"], "{v:?}");
            let total: f32 = subs.iter().map(|s| s.log_weight.exp()).sum();
            assert!((total - 1.0).abs() < 1e-5);
            assert!((subs[0].log_weight - (300f32 / 440.0).ln()).abs() < 1e-5);
            // The class mean is the frames' mean, i.e. the weighted subclass means.
            for j in 0..N_CEPS {
                let weighted: f32 = subs.iter().map(|s| s.log_weight.exp() * s.mean[j]).sum();
                assert!((weighted - p.means[v.index()][j]).abs() < 1e-3);
            }
        }
        // The shared covariance is the spread within the phones (±0.5), not between them
        // (4 apart): its inverse is large.
        assert!(p.precision[0][0] > 5.0, "{}", p.precision[0][0]);
        assert_eq!(p.format, PROFILE_FORMAT);
        assert_eq!(Profile::from_json(&p.to_json(), "x").unwrap(), p);
    }

    #[test]
    fn without_enough_frames_per_phone_the_profile_is_one_gaussian_per_class() {
        let b = two_phone_builder().min_phone_frames(u64::MAX);
        let p = b.build("test", true, 1.0).unwrap();
        assert!(p.subclasses.is_empty());
        // Within-class spread now includes the phones' distances: a broader Gaussian.
        let split = two_phone_builder().build("test", true, 1.0).unwrap();
        assert!(p.precision[0][0] < split.precision[0][0] / 4.0);
        // Without phone symbols (calibration recordings) the same.
        let mut plain = ProfileBuilder::new().min_phone_frames(1);
        for (k, v) in Viseme::ALL.into_iter().enumerate() {
            add_cloud(&mut plain, v, "", k as f32, 50);
        }
        assert!(plain.build("t", true, 1.0).unwrap().subclasses.is_empty());
    }

    /// Adds `n` real-voice frames of `class` around `centre` (the same spread as a cloud).
    fn add_real_cloud(b: &mut ProfileBuilder, class: Viseme, centre: f32, n: usize) {
        for i in 0..n {
            let x: [f32; N_CEPS] = std::array::from_fn(|j| {
                centre + ((i * 5 + j * 3) % 11) as f32 / 5.0 - 1.0 + j as f32 * 0.1
            });
            b.add_real_voice(class, &x);
        }
    }

    #[test]
    fn real_voices_add_one_gaussian_per_vowel_at_its_share_and_leave_the_rest() {
        let without = two_phone_builder().build("t", true, 1.0).unwrap();
        let mut b = two_phone_builder();
        for (k, v) in Viseme::ALL.into_iter().enumerate() {
            // Far from the phones, so a leak into the covariance would show.
            add_real_cloud(&mut b, v, 10.0 * k as f32 + 2.0, 400);
        }
        let p = b.build("t", true, 1.0).unwrap();
        assert_eq!(
            b.real_counts(),
            [400, 400, 400, 400, 400, 0],
            "N learns no real voice"
        );
        assert_eq!(
            p.precision, without.precision,
            "the covariance stays the phones'"
        );
        for v in Viseme::ALL {
            let subs: Vec<&Subclass> = p.subclasses.iter().filter(|s| s.class == v).collect();
            let real: Vec<&&Subclass> = subs
                .iter()
                .filter(|s| s.phone == REAL_VOICE_PHONE)
                .collect();
            let total: f32 = subs.iter().map(|s| s.log_weight.exp()).sum();
            // Log-weights are stored to STORED_DIGITS significant digits (−1.5606 for
            // 0.21), so their exps sum to 1 within about 1e-5 each.
            assert!((total - 1.0).abs() < 1e-4, "{v:?}: weights sum to {total}");
            if v == Viseme::N {
                assert!(real.is_empty());
                continue;
            }
            assert_eq!(real.len(), 1, "{v:?}");
            let share = DEFAULT_REAL_SHARES[v.index()];
            let got = real[0].log_weight.exp();
            assert!((got - share).abs() < 5e-5, "{v:?}: {got} for {share}");
            let centre = 10.0 * v.index() as f32 + 2.0;
            assert!(
                (real[0].mean[0] - centre).abs() < 0.2,
                "{v:?}: {:?}",
                real[0].mean
            );
            // The class mean is the mixture's: the real voices' at their share.
            let phones = without.means[v.index()][0];
            let want = (1.0 - share) * phones + share * real[0].mean[0];
            assert!((p.means[v.index()][0] - want).abs() < 1e-3, "{v:?}");
        }
        // No share, or too few frames: the profile without real voices.
        let none = b
            .clone()
            .real_shares([0.0; 5])
            .build("t", true, 1.0)
            .unwrap();
        assert_eq!(none.subclasses, without.subclasses);
        let mut thin = two_phone_builder();
        add_real_cloud(&mut thin, Viseme::U, 30.0, MIN_REAL_FRAMES as usize - 1);
        let thin = thin.build("t", true, 1.0).unwrap();
        assert_eq!(thin.subclasses, without.subclasses);
        // Shares are clamped; NaN leaves the class out.
        let odd = b
            .clone()
            .real_shares([5.0, f32::NAN, -1.0, 0.5, 0.5])
            .build("t", true, 1.0)
            .unwrap();
        let real_of = |v: Viseme| {
            odd.subclasses
                .iter()
                .find(|s| s.class == v && s.phone == REAL_VOICE_PHONE)
                .map(|s| s.log_weight.exp())
        };
        assert!((real_of(Viseme::A).unwrap() - MAX_REAL_SHARE).abs() < 1e-5);
        assert_eq!(real_of(Viseme::I), None);
        assert_eq!(real_of(Viseme::U), None);
        // Merging carries real voices along.
        let mut few = b.clone();
        add_real_cloud(&mut few, Viseme::A, 50.0, 1);
        let mut merged = two_phone_builder();
        merged.merge(&few);
        assert_eq!(merged.real_counts()[0], 400 + 1);
    }

    #[test]
    fn merged_builders_keep_their_phones() {
        let whole = two_phone_builder();
        let mut halves = ProfileBuilder::new().min_phone_frames(100);
        halves.merge(&two_phone_builder());
        let (a, b) = (
            whole.build("t", true, 1.0).unwrap(),
            halves.build("t", true, 1.0).unwrap(),
        );
        assert_eq!(a.subclasses.len(), b.subclasses.len());
        assert_eq!(a.means, b.means);
    }

    #[test]
    fn calibration_moves_a_class_with_its_subclasses() {
        let base = two_phone_builder().build("base", true, 1.0).unwrap();
        let mut speaker = ProfileBuilder::new();
        add_cloud(&mut speaker, Viseme::A, "", 3.0, 200);
        let p = base.calibrated(&speaker, 20).unwrap();
        let step: Vec<f32> = (0..N_CEPS)
            .map(|j| p.means[0][j] - base.means[0][j])
            .collect();
        assert!(step[0] > 2.0, "A moved toward the speaker: {step:?}");
        for (old, new) in base.subclasses.iter().zip(&p.subclasses) {
            for j in 0..N_CEPS {
                let want = if old.class == Viseme::A { step[j] } else { 0.0 };
                assert!((new.mean[j] - old.mean[j] - want).abs() < 1e-4);
            }
            assert_eq!(old.log_weight, new.log_weight);
        }
    }

    #[test]
    fn bad_subclasses_are_refused_and_the_first_format_still_reads() {
        let good = two_phone_builder().build("t", true, 1.0).unwrap();
        let refuse = |p: &Profile, want: &str| refused(p, "sub.json", want);
        let mut p = good.clone();
        p.subclasses.retain(|s| s.class != Viseme::O);
        refuse(&p, "class O has none");
        let mut p = good.clone();
        p.subclasses[1].log_weight = 0.5;
        refuse(&p, "above 0");
        let mut p = good.clone();
        p.subclasses[1].log_weight -= 0.7;
        refuse(&p, "sum to");
        let mut p = good.clone();
        p.subclasses[2].mean[4] = f32::MAX;
        refuse(&p, "subclasses[].mean");
        let mut p = good.clone();
        let extra = p.subclasses[0].clone();
        p.subclasses.resize(MAX_SUBCLASSES + 1, extra);
        refuse(&p, "more than");
        // A version-1 file (no subclasses) reads as one Gaussian per class.
        let mut v1 = good.clone();
        v1.subclasses.clear();
        v1.format = PROFILE_FORMAT_V1.into();
        let read = Profile::from_json(&v1.to_json(), "old.json").unwrap();
        assert!(read.subclasses.is_empty());
        let mut bad = v1.clone();
        bad.format = "omote-lipsync-profile/9".into();
        refuse(&bad, "format");
    }

    /// Asserts that `p`, written and read back as `file`, is refused for `want`, the
    /// error naming the file.
    fn refused(p: &Profile, file: &str, want: &str) {
        let e = Profile::from_json(&p.to_json(), file)
            .unwrap_err()
            .to_string();
        assert!(e.contains(want) && e.contains(file), "{e}");
    }

    /// `two_phone_builder` training a small net on clips of one class each: a class is
    /// readable from its frames (c ≈ 10k), so the net must learn it.
    fn builder_with_net() -> ProfileBuilder {
        let mut b = two_phone_builder().context_net(NetOptions {
            hidden: 8,
            epochs: 6,
            batch: 16,
            learning_rate: 2e-2,
            closed_logit: 0.0,
            ..NetOptions::default()
        });
        for clip in 0..100 {
            let k = clip % 6;
            let frames: Vec<[f32; N_CEPS]> = (0..24)
                .map(|f| {
                    std::array::from_fn(|j| {
                        10.0 * k as f32 + ((f * 5 + j * 3) % 7) as f32 / 7.0 - 0.5
                    })
                })
                .collect();
            // Real voices at their own weight count too.
            let w = if clip % 3 == 0 { 2.0 } else { 1.0 };
            b.add_net_clip(&frames, (0..24).map(|f| (f, Viseme::ALL[k])), w);
        }
        b
    }

    #[test]
    fn a_built_profile_keeps_five_digits_and_reads_back_as_built() {
        assert_eq!(stored_digits(0.1234567), 0.12346);
        assert_eq!(stored_digits(-98765.43), -98765.0);
        assert_eq!(stored_digits(1.5e-7), 1.5e-7);
        assert_eq!(stored_digits(0.0), 0.0);
        assert!(stored_digits(f32::NAN).is_nan());
        let p = two_phone_builder().build("t", true, 1.0).unwrap();
        let learnt = p
            .means
            .iter()
            .flatten()
            .chain(p.precision.iter().flatten())
            .chain(&p.global_mean)
            .chain(p.subclasses.iter().flat_map(|s| s.mean.iter()))
            .chain(p.subclasses.iter().map(|s| &s.log_weight));
        let mut non_zero = 0;
        for &v in learnt {
            assert_eq!(v, stored_digits(v), "{v} has more digits than stored");
            non_zero += usize::from(v != 0.0);
        }
        // The check above saw the learnt numbers, not zeros.
        assert!(non_zero > 100, "{non_zero} non-zero numbers");
        // Written out and read back, it is the same profile, and writes the same text.
        let text = p.to_json();
        let read = Profile::from_json(&text, "t.json").unwrap();
        assert_eq!(read, p);
        assert_eq!(read.to_json(), text);
    }

    #[test]
    fn a_context_net_is_trained_only_when_asked_and_reads_back_as_built() {
        // A builder without the net keeps no frames for it and builds none.
        let mut plain = two_phone_builder();
        plain.add_net_clip(&[[0.0; N_CEPS]], [(0, Viseme::A)], 1.0);
        assert!(!plain.trains_context_net() && plain.net_sequences.is_empty());
        assert!(plain.build("t", true, 1.0).unwrap().context_net.is_none());

        let b = builder_with_net();
        assert!(b.trains_context_net());
        let p = b.build("t", true, 1.0).unwrap();
        let net = p.context_net.as_ref().expect("a net");
        assert_eq!((net.past, net.future), (4, 1));
        assert!((net.weight - NetOptions::MIX_WEIGHT).abs() < 1e-5);
        // Quantised when built, so the stored profile reads back as the same profile.
        assert_eq!(net, &net.quantised());
        let read = Profile::from_json(&p.to_json(), "net.json").unwrap();
        assert_eq!(read, p);
        // It learnt the classes: a frame of class k in a clip of k reads as k.
        for k in 0..6 {
            let frames = vec![[10.0 * k as f32; N_CEPS]; 6];
            let lp = net.logits_at(&frames, 3);
            let best = (0..6).max_by(|&a, &b| lp[a].total_cmp(&lp[b])).unwrap();
            assert_eq!(best, k, "{lp:?}");
        }
        // Merging keeps the net's clips, in order.
        let mut merged = ProfileBuilder::new().context_net(NetOptions::default());
        merged.merge(&b);
        assert_eq!(merged.net_sequences.len(), b.net_sequences.len());
        assert_eq!(merged.net_sequences[3].frames, b.net_sequences[3].frames);
    }

    #[test]
    fn a_bad_context_net_in_a_profile_is_refused_with_the_file() {
        let good = builder_with_net().build("t", true, 1.0).unwrap();
        let refuse = |p: &Profile, want: &str| refused(p, "net.json", want);
        let mut p = good.clone();
        p.context_net.as_mut().unwrap().input_scale.pop();
        refuse(&p, "input_scale");
        let mut p = good.clone();
        p.context_net.as_mut().unwrap().weight = -1.0;
        refuse(&p, "weight");
        let mut p = good.clone();
        p.context_net.as_mut().unwrap().past = 40;
        refuse(&p, "frames");
        // Sizes that would overflow are refused, not a panic.
        let mut p = good.clone();
        p.context_net.as_mut().unwrap().future = usize::MAX;
        refuse(&p, "frames");
        let json = good
            .to_json()
            .replacen("\"hidden_bias\": [", "\"hidden_bias\": [1e40, ", 1);
        let e = Profile::from_json(&json, "net.json").unwrap_err();
        assert!(e.to_string().contains("net.json"), "{e}");
    }
}
