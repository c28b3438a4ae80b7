//! Baking a scene: run it at a fixed frame rate with a script of player presses and
//! record every character into an [`Anim`] with the scene's events.

use std::sync::Arc;

use omote_core::anim::{AnimEvent, AnimRecorder};
use omote_core::scene::{KeyLayer, SceneEvent};
use omote_core::{Anim, Rig, Scene};

/// The longest bake (s): four hours. Every scene time must lie before it
/// ([`crate::MAX_TIME_S`]), so no key is past what a bake plays.
pub const MAX_BAKE_S: f32 = 4.0 * 3600.0;
/// Most numbers a bake may record, frames × values per frame summed over the
/// characters ([`BakeSize::values`]): 2²⁷ ≈ 134 M values, 512 MiB as `f32`.
pub const MAX_BAKE_VALUES: u64 = 1 << 27;
/// Most presses of each kind (advances, skips) a bake's script may hold.
pub const MAX_PRESSES: usize = 10_000;

/// Why a bake is refused before it starts (its size is known from the scene and the
/// options, so nothing is allocated for a bake that cannot be held).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum BakeError {
    /// A frame rate that is not a number from 1 to the anim format's highest.
    #[error("frame rate {0} is not a number from 1 to {max}", max = omote_core::anim::ANIM_MAX_FPS)]
    Fps(f32),
    /// A longest length (`max_s`) that is not a number from 0 to [`MAX_BAKE_S`].
    #[error("a bake may run at most {MAX_BAKE_S} s; {0} was asked")]
    MaxLength(f32),
    /// Too many presses of one kind.
    #[error("{count} {what} times, at most {MAX_PRESSES}")]
    Presses {
        /// `advance` or `skip`.
        what: &'static str,
        /// How many were given.
        count: usize,
    },
    /// A press at a time the bake does not reach.
    #[error("{what} at {t} s: presses are at times from 0 to {max} s")]
    PressTime {
        /// `an advance` or `a skip`.
        what: &'static str,
        /// The time given.
        t: f64,
        /// The bake's longest length.
        max: f64,
    },
    /// The scene (its keys, its waits' holds, the script) runs longer than a bake may.
    #[error(
        "the bake would run {seconds:.0} s (keys to {end:.0} s, waits holding {holds:.0} s, \
         presses to {last_press:.0} s), longer than a bake may ({MAX_BAKE_S} s)"
    )]
    TooLong {
        /// How long it would run.
        seconds: f64,
        /// The scene's end (its last key).
        end: f64,
        /// Its waits' holds, summed.
        holds: f64,
        /// The script's last press.
        last_press: f64,
    },
    /// The bake would record more numbers than [`MAX_BAKE_VALUES`].
    #[error(
        "the bake would be {frames} frames × {per_frame} values = {values} values, over the \
         limit of {MAX_BAKE_VALUES} (512 MiB; {max_frames} frames for these rigs): shorten \
         the scene or lower the frame rate"
    )]
    TooLarge {
        /// Frames it would record.
        frames: u64,
        /// Values per frame, all characters.
        per_frame: u64,
        /// Frames × values per frame.
        values: u64,
        /// The most frames these rigs may have.
        max_frames: u64,
    },
}

/// How large a bake will be at most, known before it runs ([`bake_size`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BakeSize {
    /// The longest it can run (s).
    pub seconds: f64,
    /// The most frames it can record.
    pub frames: u64,
    /// Values per frame, summed over the characters: each anim holds its expression
    /// tracks before and after the override rules, 3 bone rotations and the gaze.
    pub per_frame: u64,
    /// `frames × per_frame`: the numbers it can record.
    pub values: u64,
}

/// Values an anim of a rig with `channels` expressions holds per frame: the tracks
/// before and after the override rules, 3 rotations (4 numbers each) and the gaze.
pub fn anim_values_per_frame(channels: usize) -> u64 {
    2 * channels as u64 + 3 * 4 + 2
}

/// The size of the bake `options` asks of `scene`, or why it is refused: the one check
/// every bake runs ([`bake`] calls it first), and a host can call it to tell the user
/// before baking. The length is the script's last press plus the scene (the hold of
/// every wait no press releases) plus the tail twice, at most `options.max_s`; a
/// script whose presses land in lines, not at waits, may run longer, up to
/// `options.max_s` and the value limit.
pub fn bake_size(scene: &Scene, options: &BakeOptions) -> Result<BakeSize, BakeError> {
    let fps = options.fps;
    if !(fps.is_finite() && (1.0..=omote_core::anim::ANIM_MAX_FPS).contains(&fps)) {
        return Err(BakeError::Fps(fps));
    }
    if !(options.max_s.is_finite() && (0.0..=MAX_BAKE_S).contains(&options.max_s)) {
        return Err(BakeError::MaxLength(options.max_s));
    }
    if !(options.tail_s.is_finite() && (0.0..=MAX_BAKE_S).contains(&options.tail_s)) {
        return Err(BakeError::MaxLength(options.tail_s));
    }
    let max = f64::from(options.max_s);
    for (kind, what, times) in [
        ("advance", "an advance", &options.advances),
        ("skip", "a skip", &options.skips),
    ] {
        if times.len() > MAX_PRESSES {
            return Err(BakeError::Presses {
                what: kind,
                count: times.len(),
            });
        }
        if let Some(&t) = times
            .iter()
            .find(|t| !(t.is_finite() && (0.0..max).contains(*t)))
        {
            return Err(BakeError::PressTime { what, t, max });
        }
    }
    let end = f64::from(scene.end_time());
    // Unscripted, every wait holds for its own hold. Scripted, each press releases a
    // wait, in order, and the waits after the script's last press hold for theirs.
    let holds: f64 = scene
        .waits()
        .iter()
        .skip(options.advances.len())
        .map(|w| f64::from(w.hold))
        .sum();
    let last_press = options
        .advances
        .iter()
        .chain(&options.skips)
        .copied()
        .fold(0.0, f64::max);
    let natural = end + holds + last_press + 2.0 * f64::from(options.tail_s);
    if natural > f64::from(MAX_BAKE_S) && max >= f64::from(MAX_BAKE_S) {
        return Err(BakeError::TooLong {
            seconds: natural,
            end,
            holds,
            last_press,
        });
    }
    let seconds = natural.min(max);
    let frames = (seconds * f64::from(fps)).ceil() as u64 + 1;
    let per_frame: u64 = (0..scene.len())
        .map(|i| anim_values_per_frame(scene.driver(i).rig().len()))
        .sum();
    let values = frames.saturating_mul(per_frame);
    if values > MAX_BAKE_VALUES {
        return Err(BakeError::TooLarge {
            frames,
            per_frame,
            values,
            max_frames: MAX_BAKE_VALUES / per_frame.max(1),
        });
    }
    Ok(BakeSize {
        seconds,
        frames,
        per_frame,
        values,
    })
}

/// How to bake.
#[derive(Clone, Debug, PartialEq)]
pub struct BakeOptions {
    /// Frames per second.
    pub fps: f32,
    /// Wall times (s) at which the player presses "next" ([`Scene::advance`]). Until
    /// the last of them a wait holds until a press; with none, and after the last, each
    /// wait holds for its own `hold` and moves on by itself.
    pub advances: Vec<f64>,
    /// Wall times (s) at which the player skips ([`Scene::skip`]).
    pub skips: Vec<f64>,
    /// Seconds to keep baking once everything has played (the faces idle on).
    pub tail_s: f32,
    /// A bake never runs longer than this (s), at most [`MAX_BAKE_S`].
    pub max_s: f32,
}

impl Default for BakeOptions {
    fn default() -> Self {
        Self {
            fps: 60.0,
            advances: Vec::new(),
            skips: Vec::new(),
            tail_s: 1.0,
            max_s: MAX_BAKE_S,
        }
    }
}

/// One character's bake.
#[derive(Clone, Debug)]
pub struct BakedCharacter {
    /// Its id.
    pub id: String,
    /// Its animation, with voice, expression, blink and saccade events and markers for
    /// waits, advances and skips.
    pub anim: Anim,
}

/// Runs `scene` from its current state and records every character. `clips` names
/// each character's lines (for voice events); `progress` gets (seconds baked, seconds
/// expected) now and then. Refused before any work when [`bake_size`] refuses it.
pub fn bake(
    scene: &mut Scene,
    clips: &[Vec<String>],
    options: &BakeOptions,
    progress: impl FnMut(f64, f64),
) -> Result<Vec<BakedCharacter>, BakeError> {
    bake_observed(scene, clips, options, progress, |_| {})
}

/// [`bake`], calling `each_frame` with the scene after every recorded frame (frame `k`
/// of the anims is the `k`-th call): for what a host needs beside the faces, such as the
/// camera per frame ([`Scene::camera_position`]).
pub fn bake_observed(
    scene: &mut Scene,
    clips: &[Vec<String>],
    options: &BakeOptions,
    mut progress: impl FnMut(f64, f64),
    mut each_frame: impl FnMut(&Scene),
) -> Result<Vec<BakedCharacter>, BakeError> {
    let size = bake_size(scene, options)?;
    let fps = options.fps;
    let dt = 1.0 / fps;
    let mut recorder = SceneRecorder::new(scene, clips, fps);
    let scripted = !options.advances.is_empty();
    scene.set_auto_advance(!scripted);
    let mut advances = options.advances.clone();
    advances.sort_by(f64::total_cmp);
    let mut skips = options.skips.clone();
    skips.sort_by(f64::total_cmp);
    let (mut next_advance, mut next_skip) = (0, 0);
    let expected = size.seconds;
    let cap = MAX_BAKE_VALUES / size.per_frame.max(1);
    // Room for the expected length (up to an hour; longer bakes grow as they go).
    recorder.reserve((expected.min(3600.0) * f64::from(fps)) as usize + 1);
    let mut done_for = 0.0f64;
    let mut frame = 0u64;
    loop {
        let now = frame as f64 / f64::from(fps);
        while next_skip < skips.len() && skips[next_skip] <= now + 1e-9 {
            scene.skip();
            next_skip += 1;
        }
        while next_advance < advances.len() && advances[next_advance] <= now + 1e-9 {
            scene.advance();
            next_advance += 1;
            if next_advance == advances.len() {
                // The script has said all it will: the waits after its last press move
                // on by their own hold, as in a bake with no script, so the scene plays
                // to its end instead of stopping at the next wait.
                scene.set_auto_advance(true);
            }
        }
        scene.update(dt);
        frame += 1;
        recorder.record(scene);
        each_frame(scene);
        let t = frame as f64 / f64::from(fps);
        if frame.is_multiple_of(600) {
            progress(t, expected.max(t));
        }
        let over = scene.is_finished();
        let script_left = next_advance < advances.len() || next_skip < skips.len();
        if over && !script_left {
            if done_for >= f64::from(options.tail_s) {
                break;
            }
            done_for += f64::from(dt);
        } else {
            done_for = 0.0;
        }
        // Never longer than asked, never more values than a bake may hold (a script's
        // presses that skip lines leave more waits to their holds than the size
        // counted, so the bake may run past it).
        if t >= f64::from(options.max_s) || frame + 1 >= cap {
            break;
        }
    }
    progress(frame as f64 / f64::from(fps), frame as f64 / f64::from(fps));
    Ok(recorder.finish())
}

/// Records a scene's frames, every character into an [`Anim`] with the scene's events
/// (voice lines with their clip names, expression keys, markers for cuts, waits,
/// advances and skips): what [`bake`] records, for a host that plays the scene itself.
#[derive(Clone, Debug)]
pub struct SceneRecorder {
    recorders: Vec<AnimRecorder>,
    rigs: Vec<Arc<Rig>>,
    ids: Vec<String>,
    clips: Vec<Vec<String>>,
}

impl SceneRecorder {
    /// A recorder for `scene`'s characters at `fps`; `clips` names each character's
    /// lines (for voice events).
    pub fn new(scene: &Scene, clips: &[Vec<String>], fps: f32) -> Self {
        Self {
            recorders: (0..scene.len())
                .map(|i| AnimRecorder::new(scene.driver(i).rig(), fps))
                .collect(),
            rigs: (0..scene.len())
                .map(|i| scene.driver(i).rig().clone())
                .collect(),
            ids: (0..scene.len()).map(|i| scene.id(i).to_string()).collect(),
            clips: clips.to_vec(),
        }
    }

    /// Room for `frames` more frames.
    pub fn reserve(&mut self, frames: usize) {
        for r in &mut self.recorders {
            r.reserve(frames);
        }
    }

    /// Appends `scene`'s last frame: every character's face and the frame's events.
    pub fn record(&mut self, scene: &Scene) {
        for (i, rec) in self.recorders.iter_mut().enumerate() {
            rec.record(scene.state(i));
        }
        for e in scene.events().iter() {
            record_event(e, &mut self.recorders, &self.rigs, &self.clips);
        }
    }

    /// Frames recorded so far.
    pub fn frames(&self) -> usize {
        self.recorders.first().map_or(0, AnimRecorder::frames)
    }

    /// One anim per character, in scene order.
    pub fn finish(self) -> Vec<BakedCharacter> {
        self.recorders
            .into_iter()
            .zip(self.ids)
            .map(|(r, id)| BakedCharacter {
                id,
                anim: r.finish(),
            })
            .collect()
    }
}

fn record_event(
    e: &SceneEvent,
    recorders: &mut [AnimRecorder],
    rigs: &[Arc<Rig>],
    clips: &[Vec<String>],
) {
    let all = |recorders: &mut [AnimRecorder], t: f64, name: &str| {
        for r in recorders.iter_mut() {
            r.event(AnimEvent::Marker {
                t: t as f32,
                name: name.to_string(),
            });
        }
    };
    match *e {
        SceneEvent::Voice {
            character,
            line,
            t,
            voiced,
        } => {
            recorders[character].event(AnimEvent::Voice {
                t: t as f32,
                voiced_start: voiced.map(|v| v.0 as f32),
                voiced_end: voiced.map(|v| v.1 as f32),
                clip: clips
                    .get(character)
                    .and_then(|c| c.get(line))
                    .cloned()
                    .unwrap_or_default(),
            });
        }
        SceneEvent::Cut { character, t, .. } => recorders[character].event(AnimEvent::Marker {
            t: t as f32,
            name: "cut".into(),
        }),
        SceneEvent::Expression {
            character,
            layer,
            channel,
            weight,
            t,
            eye_area,
        } => {
            recorders[character].event(AnimEvent::Expression {
                t: t as f32,
                name: rigs[character].channel_name(channel).to_string(),
                weight,
                layer: match layer {
                    KeyLayer::Acting => "acting",
                    KeyLayer::Picture => "picture",
                }
                .into(),
                eye_area,
            });
        }
        SceneEvent::Wait { t, wait } => all(recorders, t, &format!("wait {wait}")),
        SceneEvent::Advance { t } => all(recorders, t, "advance"),
        SceneEvent::Skip { t, .. } => all(recorders, t, "skip"),
    }
}
