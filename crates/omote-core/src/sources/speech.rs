//! Voice lines on a face (docs/design.md § Voice lines): the lip-sync mouth starts when the voice starts,
//! blends into whatever mouth the acting asks for next from 0.2 s before the trailing
//! silence (no snap to a neutral closed mouth between two expressions), and an additive
//! "afterglow" mouth (余韻口) ramps in from that moment.
//!
//! The mouth is written into an override layer masked to the five vowels (the face's
//! [`Face::MOUTH`](crate::Face::MOUTH) layer), so fading that layer out reveals the acting
//! layer's own mouth underneath — the "next mouth motion" is whatever the timeline has
//! put there by then. The afterglow goes into an additive layer of its own.

use std::sync::Arc;

use thiserror::Error;

use crate::mix::layer::Layer;
use crate::rig::expression::ExpressionPreset;
use crate::rig::{ChannelId, Rig};
use crate::sanitize::positive_or_zero;

/// Why a speech track could not be built.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum SpeechError {
    /// The frame rate is not a positive finite number.
    #[error("speech track fps must be positive and finite, got {0}")]
    BadFps(f32),
    /// A weight is NaN or infinite.
    #[error("speech track frame {frame}: weight {vowel} is not finite")]
    NonFinite {
        /// Frame index.
        frame: usize,
        /// Vowel index (0 = A … 4 = O).
        vowel: usize,
    },
    /// The voiced span is not inside the track or ends before it starts.
    #[error("speech track voiced span {start}..{end} s is not inside 0..{duration} s")]
    BadSpan {
        /// Start in seconds.
        start: f32,
        /// End in seconds.
        end: f32,
        /// Track length in seconds.
        duration: f32,
    },
}

/// One voice line's mouth: vowel weights A I U E O per frame at a fixed rate, and the
/// voiced span (first to last voiced frame) — what offline lip-sync analysis gives
/// (`omote-lipsync`'s `VowelTrack` converts to this in the CLI; the core does not depend
/// on the analyser). A frame of all zeros is a closed mouth.
#[derive(Clone, Debug, PartialEq)]
pub struct SpeechTrack {
    fps: f32,
    vowels: Box<[[f32; 5]]>,
    voiced: Option<(f32, f32)>,
}

impl SpeechTrack {
    /// Builds a track; weights are clamped to 0..1. `voiced` is `None` for a line with no
    /// voice at all (it then never opens the mouth).
    pub fn new(
        fps: f32,
        vowels: Vec<[f32; 5]>,
        voiced: Option<(f32, f32)>,
    ) -> Result<Self, SpeechError> {
        if !(fps.is_finite() && fps > 0.0) {
            return Err(SpeechError::BadFps(fps));
        }
        let mut vowels = vowels;
        for (i, f) in vowels.iter_mut().enumerate() {
            for (k, w) in f.iter_mut().enumerate() {
                if !w.is_finite() {
                    return Err(SpeechError::NonFinite { frame: i, vowel: k });
                }
                *w = w.clamp(0.0, 1.0);
            }
        }
        let duration = vowels.len() as f32 / fps;
        if let Some((start, end)) = voiced {
            let ok = start.is_finite()
                && end.is_finite()
                && start >= 0.0
                && start <= end
                && end <= duration + 1e-3;
            if !ok {
                return Err(SpeechError::BadSpan {
                    start,
                    end,
                    duration,
                });
            }
        }
        Ok(Self {
            fps,
            vowels: vowels.into_boxed_slice(),
            voiced,
        })
    }

    /// Length in seconds.
    pub fn duration(&self) -> f32 {
        self.vowels.len() as f32 / self.fps
    }

    /// First and last voiced instant in seconds, if any voice.
    pub fn voiced(&self) -> Option<(f32, f32)> {
        self.voiced
    }

    /// Vowel weights at `t` seconds (frames are centred on `(i + ½) / fps`, linear in
    /// between, held at the ends; zeros for an empty track).
    pub fn sample(&self, t: f32) -> [f32; 5] {
        let n = self.vowels.len();
        if n == 0 {
            return [0.0; 5];
        }
        let x = (t * self.fps - 0.5).clamp(0.0, (n - 1) as f32);
        let i = x.floor() as usize;
        let j = (i + 1).min(n - 1);
        let f = x - i as f32;
        let (a, b) = (self.vowels[i], self.vowels[j]);
        std::array::from_fn(|k| a[k] + (b[k] - a[k]) * f)
    }
}

/// Timing of voice lines. The defaults are docs/design.md § Voice lines's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpeechConfig {
    /// The mouth starts handing over to the next mouth this long before the trailing
    /// silence (docs/design.md § Voice lines: 0.2 s).
    pub end_lead_s: f32,
    /// How long the hand-over takes.
    pub end_blend_s: f32,
    /// Fade-in of the lip-sync mouth at the start of the voice (a pop otherwise).
    pub start_blend_s: f32,
    /// The afterglow ramps 0 → 1 over this long, starting with the hand-over.
    pub afterglow_ramp_s: f32,
    /// How long the afterglow stays at full once its line has ended (seconds;
    /// `f32::INFINITY`, the default: until the next line, as docs/design.md § Voice
    /// lines has a character keep a finished line's afterglow).
    pub afterglow_hold_s: f32,
    /// Then it releases 1 → 0 over this long (also the release of
    /// [`SpeechPlayer::clear_afterglow`] callers usually pass, and of a silent line).
    pub afterglow_release_s: f32,
}

impl Default for SpeechConfig {
    fn default() -> Self {
        Self {
            end_lead_s: 0.2,
            end_blend_s: 0.2,
            start_blend_s: 0.04,
            afterglow_ramp_s: 0.5,
            afterglow_hold_s: f32::INFINITY,
            afterglow_release_s: 0.5,
        }
    }
}

/// The line being played.
#[derive(Clone, Debug)]
struct Line {
    track: Arc<SpeechTrack>,
    /// Seconds since the line started.
    t: f32,
    /// The vowels held through the hand-over (sampled at its start).
    held: Option<[f32; 5]>,
    /// This line's afterglow ramp (s).
    afterglow_ramp_s: f32,
    /// Line time at which the line was cut ([`SpeechPlayer::cut`]): the hand-over starts
    /// there instead of before the trailing silence.
    cut_at: Option<f32>,
}

/// Plays [`SpeechTrack`]s on a face: the mouth layer's values and weight, and the
/// afterglow layer's weight. Nothing is allocated per frame.
///
/// ```
/// use std::sync::Arc;
/// use omote_core::{Face, FaceConfig, FaceInputs, Rig, SpeechTrack, mix::BlendMode, speech::SpeechPlayer};
/// let rig = Arc::new(Rig::standard());
/// let mut face = Face::new(rig.clone(), FaceConfig::raw(), 1);
/// let afterglow = face.add_layer("afterglow", BlendMode::Additive);
/// let mut speech = SpeechPlayer::new(&rig, Default::default());
/// // 1 s of "a" with silence before 0.3 s and after 0.8 s.
/// let frames = (0..100).map(|i| if (30..80).contains(&i) { [0.8, 0.0, 0.0, 0.0, 0.0] } else { [0.0; 5] }).collect();
/// let line = Arc::new(SpeechTrack::new(100.0, frames, Some((0.3, 0.8))).unwrap());
/// // A slight smile at the corners stays after the line.
/// let smile = rig.channel("mouthSmileLeft").unwrap();
/// speech.say(line, &[(smile, 0.3)]);
/// for _ in 0..30 {
///     speech.advance(1.0 / 60.0, face.layer_mut(Face::MOUTH));
///     speech.apply_afterglow(face.layer_mut(afterglow));
///     face.update(1.0 / 60.0, &FaceInputs::default());
/// }
/// // Half a second in: speaking "a".
/// assert!((face.weight("aa").unwrap() - 0.8).abs() < 0.05);
/// assert_eq!(face.weight("mouthSmileLeft").unwrap(), 0.0);
/// ```
#[derive(Clone, Debug)]
pub struct SpeechPlayer {
    config: SpeechConfig,
    vowels: [Option<ChannelId>; 5],
    line: Option<Line>,
    afterglow: f32,
    /// The new line's afterglow, written into the layer once the old one has faded out.
    next_afterglow: Vec<(ChannelId, f32)>,
    /// The previous line's afterglow weight when the new line started (fading out).
    fading_from: Option<f32>,
    /// The afterglow after its line ended: held, then released.
    tail: Option<Tail>,
}

/// An afterglow with no line playing: held at `from` for `hold` seconds, then released
/// to 0 over `release` seconds.
#[derive(Clone, Copy, Debug)]
struct Tail {
    /// Seconds since the hold started.
    t: f32,
    from: f32,
    hold: f32,
    release: f32,
}

impl Tail {
    fn weight(&self) -> f32 {
        if self.t < self.hold {
            self.from
        } else {
            self.from * (1.0 - ramp(self.t - self.hold, self.release))
        }
    }

    fn done(&self) -> bool {
        self.t >= self.hold + self.release
    }
}

impl SpeechPlayer {
    /// A player for `rig` (vowels found by preset; a rig without some of them simply
    /// does not move those).
    pub fn new(rig: &Rig, config: SpeechConfig) -> Self {
        Self {
            config,
            vowels: rig.presets(ExpressionPreset::VOWELS),
            line: None,
            afterglow: 0.0,
            next_afterglow: Vec::new(),
            fading_from: None,
            tail: None,
        }
    }

    /// How long an afterglow stays at full after its line ends, and how long it then
    /// takes to release (seconds; a hold of `f32::INFINITY`: until the next line). NaN
    /// or negative values count as 0. Applies from the next line's end (and to an
    /// afterglow being held now).
    pub fn set_afterglow_timing(&mut self, hold_s: f32, release_s: f32) {
        let hold = if hold_s.is_nan() {
            0.0
        } else {
            hold_s.max(0.0)
        };
        self.config.afterglow_hold_s = hold;
        self.config.afterglow_release_s = positive_or_zero(release_s);
        if let Some(tail) = self.tail.as_mut()
            && tail.t < tail.hold
        {
            tail.hold = hold;
            tail.release = self.config.afterglow_release_s;
        }
    }

    /// Releases the afterglow showing now to 0 over `release_s` seconds (0: at once). A
    /// line playing keeps its own afterglow for its end; a previous one fading out under
    /// it fades anyway.
    pub fn clear_afterglow(&mut self, release_s: f32) {
        if self.line.is_none() {
            self.tail = Some(Tail {
                t: 0.0,
                from: self.afterglow,
                hold: 0.0,
                release: positive_or_zero(release_s),
            });
            self.afterglow = self.tail.map_or(0.0, |t| t.weight());
        }
    }

    /// The timing in use.
    pub fn config(&self) -> &SpeechConfig {
        &self.config
    }

    /// Starts a line now. `afterglow` is the additive mouth motion (channel, value) that
    /// will ramp in as the line ends. A previous line's afterglow still showing fades out
    /// before this line's voice starts (within [`SpeechConfig::start_blend_s`]… 0.2 s), and
    /// only then are the new values written into the layer.
    pub fn say(&mut self, track: Arc<SpeechTrack>, afterglow: &[(ChannelId, f32)]) {
        let ramp = self.config.afterglow_ramp_s;
        self.say_at(track, afterglow, ramp, 0.0);
    }

    /// [`say`](Self::say) with this line's own afterglow ramp (seconds), started
    /// `elapsed` seconds ago (negative: starts that much later). A scene starting a line
    /// between two frames uses it so the voice lands on its exact time.
    pub fn say_at(
        &mut self,
        track: Arc<SpeechTrack>,
        afterglow: &[(ChannelId, f32)],
        afterglow_ramp_s: f32,
        elapsed: f32,
    ) {
        self.next_afterglow.clear();
        self.next_afterglow.extend_from_slice(afterglow);
        self.fading_from = Some(self.afterglow);
        self.tail = None;
        self.line = Some(Line {
            track,
            t: crate::sanitize::finite_or_zero(elapsed),
            held: None,
            afterglow_ramp_s: positive_or_zero(afterglow_ramp_s),
            cut_at: None,
        });
    }

    /// Cuts the line without a snap (a skipped line): the hand-over to the next mouth
    /// starts now and takes [`SpeechConfig::end_blend_s`], and the afterglow ramps in
    /// from here as if the line had ended. Nothing happens without a line or once its
    /// hand-over has begun.
    pub fn cut(&mut self) {
        let lead = self.config.end_lead_s;
        if let Some(line) = self.line.as_mut() {
            let handover = line.track.voiced().map(|(s, e)| (e - lead).max(s));
            if handover.is_some_and(|h| line.t < h) && line.cut_at.is_none() {
                line.cut_at = Some(line.t.max(0.0));
            }
        }
    }

    /// Stops the line at once (e.g. the scene was skipped); the afterglow stays as it is.
    pub fn stop(&mut self, mouth: &mut Layer) {
        self.line = None;
        mouth.set_weight(0.0);
    }

    /// Seconds into the current line, if one is playing.
    pub fn time(&self) -> Option<f32> {
        self.line.as_ref().map(|l| l.t)
    }

    /// True from the voice start until the hand-over to the next mouth begins: the time
    /// for talking eyes (see [`crate::EyeMode::Talking`]).
    pub fn is_speaking(&self) -> bool {
        self.line.as_ref().is_some_and(|l| {
            l.cut_at.is_none()
                && l.track
                    .voiced()
                    .is_some_and(|(s, e)| l.t >= s && l.t < e - self.config.end_lead_s)
        })
    }

    /// The afterglow weight, 0..1.
    pub fn afterglow_weight(&self) -> f32 {
        self.afterglow
    }

    /// Advances by `dt` seconds and writes the mouth: vowel values and layer weight.
    /// With no line playing the mouth is left alone and only a held afterglow moves
    /// (its hold and release).
    pub fn advance(&mut self, dt: f32, mouth: &mut Layer) {
        let dt = positive_or_zero(dt);
        let cfg = self.config;
        let Some(line) = self.line.as_mut() else {
            if let Some(tail) = self.tail.as_mut() {
                tail.t += dt;
                self.afterglow = tail.weight();
                if tail.done() {
                    self.tail = None;
                }
            }
            return;
        };
        line.t += dt;
        let Some((start, end)) = line.track.voiced() else {
            // A line with no voice has nothing to glow after: the previous afterglow
            // releases as a voiced line would fade it.
            mouth.set_weight(0.0);
            self.line = None;
            self.tail = Some(Tail {
                t: 0.0,
                from: self.afterglow,
                hold: 0.0,
                release: cfg.afterglow_release_s,
            });
            return;
        };
        let t = line.t;
        let natural = (end - cfg.end_lead_s).max(start);
        let handover = line.cut_at.map_or(natural, |c| c.min(natural));
        let afterglow_ramp = line.afterglow_ramp_s;
        let weight;
        let vowels;
        if t < start {
            weight = 0.0;
            vowels = [0.0; 5];
        } else if t < handover {
            weight = ramp(t - start, cfg.start_blend_s);
            vowels = line.track.sample(t);
        } else {
            // Hold the mouth where it was and blend it away into the layer below.
            let held = *line.held.get_or_insert_with(|| line.track.sample(handover));
            let opened = ramp(handover - start, cfg.start_blend_s);
            weight = opened * (1.0 - ramp(t - handover, cfg.end_blend_s));
            vowels = held;
        }
        for (c, v) in self.vowels.iter().zip(vowels) {
            if let Some(c) = c {
                mouth.set(*c, v);
            }
        }
        mouth.set_weight(weight);
        self.afterglow = if t < handover {
            match self.fading_from {
                // The previous afterglow fades out before this voice starts.
                Some(from) => from * (1.0 - ramp(t, afterglow_fade(start, &cfg))),
                None => 0.0,
            }
        } else {
            ramp(t - handover, afterglow_ramp)
        };
        let end_at = handover + cfg.end_blend_s.max(afterglow_ramp);
        if t >= end_at {
            self.line = None;
            // The hold counts from the line's end (the afterglow is full by then).
            let tail = Tail {
                t: t - end_at,
                from: self.afterglow,
                hold: cfg.afterglow_hold_s,
                release: cfg.afterglow_release_s,
            };
            self.afterglow = tail.weight();
            self.tail = (!tail.done()).then_some(tail);
        }
    }

    /// Writes the afterglow into its additive layer: the weight every frame, and the new
    /// line's values once the previous afterglow has faded out.
    pub fn apply_afterglow(&mut self, afterglow_layer: &mut Layer) {
        if self.fading_from.is_some() && self.afterglow <= 0.0 {
            afterglow_layer.clear();
            for &(c, v) in &self.next_afterglow {
                afterglow_layer.set(c, v);
            }
            self.fading_from = None;
        }
        afterglow_layer.set_weight(self.afterglow);
    }
}

/// How long a previous afterglow takes to fade out: done by the time the voice starts,
/// at most 0.2 s, at least the start blend.
fn afterglow_fade(voice_start: f32, cfg: &SpeechConfig) -> f32 {
    voice_start.min(0.2).max(cfg.start_blend_s)
}

/// 0 → 1 linearly over `over` seconds (a step when `over` is 0).
fn ramp(t: f32, over: f32) -> f32 {
    if over <= 0.0 {
        if t >= 0.0 { 1.0 } else { 0.0 }
    } else {
        (t / over).clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mix::layer::BlendMode;

    fn track() -> Arc<SpeechTrack> {
        // 1.5 s at 100 fps: voice 0.4..1.2 s, "a" then "o".
        let frames = (0..150)
            .map(|i| match i {
                40..80 => [0.9, 0.0, 0.0, 0.0, 0.0],
                80..120 => [0.0, 0.0, 0.0, 0.0, 0.7],
                _ => [0.0; 5],
            })
            .collect();
        Arc::new(SpeechTrack::new(100.0, frames, Some((0.4, 1.2))).unwrap())
    }

    /// (time, mouth weight, aa, oh, afterglow) every 10 ms.
    fn run() -> Vec<(f32, f32, f32, f32, f32)> {
        let rig = Rig::standard();
        let mut mouth = Layer::new("mouth", BlendMode::Override, rig.len());
        let mut glow = Layer::new("glow", BlendMode::Additive, rig.len());
        let smile = rig.channel("mouthSmileLeft").unwrap();
        let mut p = SpeechPlayer::new(&rig, SpeechConfig::default());
        p.say(track(), &[(smile, 0.4)]);
        let (aa, oh) = (rig.channel("aa").unwrap(), rig.channel("oh").unwrap());
        (1..=200)
            .map(|i| {
                p.advance(0.01, &mut mouth);
                p.apply_afterglow(&mut glow);
                assert_eq!(
                    glow.get(smile),
                    0.4,
                    "the values are in from the first frame"
                );
                (
                    i as f32 * 0.01,
                    mouth.weight(),
                    mouth.get(aa),
                    mouth.get(oh),
                    glow.weight(),
                )
            })
            .collect()
    }

    /// A call made on the player once, at a time (s).
    type At<'a> = Option<(f32, &'a dyn Fn(&mut SpeechPlayer))>;

    /// The afterglow weight every 10 ms for `seconds`, after `setup` on a player that
    /// says `track()` with a smile afterglow at 0 s; `at` runs once at that time.
    fn glow_run(seconds: f32, setup: impl Fn(&mut SpeechPlayer), at: At<'_>) -> Vec<(f32, f32)> {
        let rig = Rig::standard();
        let mut mouth = Layer::new("mouth", BlendMode::Override, rig.len());
        let mut glow = Layer::new("glow", BlendMode::Additive, rig.len());
        let smile = rig.channel("mouthSmileLeft").unwrap();
        let mut p = SpeechPlayer::new(&rig, SpeechConfig::default());
        setup(&mut p);
        p.say(track(), &[(smile, 0.4)]);
        (1..=(seconds * 100.0).round() as usize)
            .map(|i| {
                let t = i as f32 * 0.01;
                if let Some((when, f)) = at
                    && (t - when).abs() < 0.005
                {
                    f(&mut p);
                }
                p.advance(0.01, &mut mouth);
                p.apply_afterglow(&mut glow);
                (t, glow.weight())
            })
            .collect()
    }

    fn glow_at(frames: &[(f32, f32)], t: f32) -> f32 {
        frames
            .iter()
            .min_by(|a, b| (a.0 - t).abs().total_cmp(&(b.0 - t).abs()))
            .unwrap()
            .1
    }

    #[test]
    fn the_afterglow_holds_until_the_next_line_by_default() {
        // The line ends at 1.5 s (hand-over 1.0 s + the 0.5 s ramp).
        let g = glow_run(20.0, |_| {}, None);
        assert_eq!(glow_at(&g, 1.6), 1.0);
        assert_eq!(glow_at(&g, 20.0), 1.0);
    }

    #[test]
    fn the_afterglow_holds_then_releases() {
        let g = glow_run(5.0, |p| p.set_afterglow_timing(1.0, 0.5), None);
        // Full from the line's end (1.5 s) for 1 s, then down to 0 over 0.5 s.
        assert_eq!(glow_at(&g, 1.6), 1.0);
        assert_eq!(glow_at(&g, 2.49), 1.0);
        assert!(
            (glow_at(&g, 2.75) - 0.5).abs() < 0.03,
            "{}",
            glow_at(&g, 2.75)
        );
        assert_eq!(glow_at(&g, 3.1), 0.0);
        assert_eq!(glow_at(&g, 5.0), 0.0);
        // No step larger than the release's slope.
        for w in g.windows(2).filter(|w| w[0].0 > 1.6) {
            assert!((w[1].1 - w[0].1).abs() <= 0.01 / 0.5 + 1e-4, "{w:?}");
        }
    }

    #[test]
    fn clear_afterglow_releases_it_from_now() {
        let g = glow_run(4.0, |_| {}, Some((2.0, &|p| p.clear_afterglow(0.2))));
        assert_eq!(glow_at(&g, 1.99), 1.0);
        assert!(
            (glow_at(&g, 2.1) - 0.5).abs() < 0.06,
            "{}",
            glow_at(&g, 2.1)
        );
        assert_eq!(glow_at(&g, 2.3), 0.0);
        assert_eq!(glow_at(&g, 4.0), 0.0);
        // At once.
        let g = glow_run(4.0, |_| {}, Some((2.0, &|p| p.clear_afterglow(0.0))));
        assert_eq!(glow_at(&g, 2.0), 0.0);
    }

    #[test]
    fn a_silent_line_releases_the_previous_afterglow() {
        let silent = Arc::new(SpeechTrack::new(100.0, vec![[0.0; 5]; 50], None).unwrap());
        let g = glow_run(
            4.0,
            |_| {},
            Some((2.0, &move |p| p.say(silent.clone(), &[]))),
        );
        assert_eq!(glow_at(&g, 1.99), 1.0);
        assert_eq!(glow_at(&g, 2.6), 0.0, "released over 0.5 s");
        assert_eq!(glow_at(&g, 4.0), 0.0);
    }

    #[test]
    fn a_cut_line_glows_then_holds_and_releases() {
        let g = glow_run(
            5.0,
            |p| p.set_afterglow_timing(0.5, 0.5),
            Some((0.6, &|p| p.cut())),
        );
        // Cut at 0.6 s: the afterglow ramps in over 0.5 s, the line ends at 1.1 s, held
        // to 1.6 s, released by 2.1 s.
        assert_eq!(glow_at(&g, 1.2), 1.0);
        assert_eq!(glow_at(&g, 2.2), 0.0);
    }

    #[test]
    fn mouth_opens_at_the_voice_not_at_the_clip() {
        for (t, w, ..) in run() {
            if t < 0.4 - 1e-4 {
                assert_eq!(w, 0.0, "t={t}");
            }
            if (0.45..0.99).contains(&t) {
                assert_eq!(w, 1.0, "t={t}");
            }
        }
    }

    #[test]
    fn hands_over_from_0_2_s_before_the_end_without_closing() {
        let frames = run();
        let at = |t: f32| {
            *frames
                .iter()
                .min_by(|a, b| (a.0 - t).abs().total_cmp(&(b.0 - t).abs()))
                .unwrap()
        };
        // Until 1.0 s (= 1.2 − 0.2) full weight; then linear to 0 by 1.2 s.
        assert_eq!(at(0.99).1, 1.0);
        assert!((at(1.1).1 - 0.5).abs() < 0.06, "{:?}", at(1.1));
        assert_eq!(at(1.25).1, 0.0);
        // The shape is held through the hand-over: "o" stays 0.7, it does not close
        // while the layer fades (the acting's mouth takes over instead).
        for t in [1.02, 1.1, 1.18] {
            assert!((at(t).3 - 0.7).abs() < 1e-6, "{:?}", at(t));
        }
        // Monotone fade, no jumps larger than one step.
        for w in frames.windows(2) {
            assert!((w[1].1 - w[0].1).abs() <= 0.01 / 0.2 + 1e-4 || w[1].0 < 0.45);
        }
    }

    #[test]
    fn afterglow_ramps_in_from_the_hand_over_and_stays() {
        for (t, _, _, _, g) in run() {
            if t < 1.0 - 1e-4 {
                assert_eq!(g, 0.0, "t={t}");
            }
            if t > 1.0 + 1e-3 && t < 1.5 - 1e-3 {
                assert!((g - (t - 1.0) / 0.5).abs() < 0.03, "t={t} g={g}");
            }
            if t >= 1.5 + 1e-3 {
                assert_eq!(g, 1.0, "t={t}");
            }
        }
    }

    #[test]
    fn bad_tracks_are_refused() {
        assert!(SpeechTrack::new(0.0, vec![], None).is_err());
        assert!(SpeechTrack::new(100.0, vec![[f32::NAN; 5]], None).is_err());
        assert!(SpeechTrack::new(100.0, vec![[0.0; 5]; 10], Some((0.0, 5.0))).is_err());
        assert!(SpeechTrack::new(100.0, vec![[0.0; 5]; 10], Some((0.08, 0.02))).is_err());
        let t = SpeechTrack::new(100.0, vec![[2.0, -1.0, 0.5, 0.0, 0.0]; 3], None).unwrap();
        assert_eq!(t.sample(0.0), [1.0, 0.0, 0.5, 0.0, 0.0]);
    }

    #[test]
    fn a_line_without_voice_never_opens_the_mouth() {
        let rig = Rig::standard();
        let mut mouth = Layer::new("mouth", BlendMode::Override, rig.len());
        let mut glow = Layer::new("glow", BlendMode::Additive, rig.len());
        let mut p = SpeechPlayer::new(&rig, SpeechConfig::default());
        let silent = Arc::new(SpeechTrack::new(100.0, vec![[0.0; 5]; 50], None).unwrap());
        p.say(silent, &[]);
        p.advance(0.1, &mut mouth);
        p.apply_afterglow(&mut glow);
        assert_eq!(mouth.weight(), 0.0);
        assert!(p.time().is_none() && !p.is_speaking());
    }

    #[test]
    fn the_next_line_fades_the_old_afterglow_out_before_its_voice() {
        let rig = Rig::standard();
        let mut mouth = Layer::new("mouth", BlendMode::Override, rig.len());
        let mut glow = Layer::new("glow", BlendMode::Additive, rig.len());
        let (left, right) = (
            rig.channel("mouthSmileLeft").unwrap(),
            rig.channel("mouthSmileRight").unwrap(),
        );
        let mut p = SpeechPlayer::new(&rig, SpeechConfig::default());
        p.say(track(), &[(left, 0.4)]);
        for _ in 0..200 {
            p.advance(0.01, &mut mouth);
            p.apply_afterglow(&mut glow);
        }
        assert_eq!(glow.weight(), 1.0);
        // Second line: voice at 0.4 s. The old afterglow fades over 0.2 s, never jumps.
        p.say(track(), &[(right, 0.2)]);
        let mut prev = glow.weight() * glow.get(left);
        for i in 1..=100 {
            p.advance(0.01, &mut mouth);
            p.apply_afterglow(&mut glow);
            let shown = glow.weight() * glow.get(left);
            assert!((shown - prev).abs() <= 0.4 * 0.01 / 0.2 + 1e-5, "step {i}");
            prev = shown;
            if i >= 21 {
                assert_eq!(glow.get(left), 0.0, "step {i}");
                assert_eq!(glow.get(right), 0.2, "step {i}");
                assert_eq!(glow.weight(), 0.0, "step {i}");
            }
        }
    }
}
