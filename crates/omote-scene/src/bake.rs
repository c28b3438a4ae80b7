//! Baking a scene: run it at a fixed frame rate with a script of player presses and
//! record every character into an [`Anim`] with the scene's events.

use std::sync::Arc;

use omote_core::anim::{AnimEvent, AnimRecorder};
use omote_core::scene::{KeyLayer, SceneEvent};
use omote_core::{Anim, Rig, Scene};

/// How to bake.
#[derive(Clone, Debug, PartialEq)]
pub struct BakeOptions {
    /// Frames per second.
    pub fps: f32,
    /// Wall times (s) at which the player presses "next" ([`Scene::advance`]). With
    /// none, each wait holds for its own `hold` and moves on by itself.
    pub advances: Vec<f64>,
    /// Wall times (s) at which the player skips ([`Scene::skip`]).
    pub skips: Vec<f64>,
    /// Seconds to keep baking once everything has played (the faces idle on), or once
    /// the scene sits at a wait the script never answers.
    pub tail_s: f32,
    /// A bake never runs longer than this (s).
    pub max_s: f32,
}

impl Default for BakeOptions {
    fn default() -> Self {
        Self {
            fps: 60.0,
            advances: Vec::new(),
            skips: Vec::new(),
            tail_s: 1.0,
            max_s: 4.0 * 3600.0,
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
/// expected) now and then.
pub fn bake(
    scene: &mut Scene,
    clips: &[Vec<String>],
    options: &BakeOptions,
    progress: impl FnMut(f64, f64),
) -> Vec<BakedCharacter> {
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
) -> Vec<BakedCharacter> {
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
    let holds: f64 = scene.waits().iter().map(|w| f64::from(w.hold)).sum();
    let expected = f64::from(scene.end_time()) + holds + f64::from(options.tail_s);
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
        }
        scene.update(dt);
        frame += 1;
        recorder.record(scene);
        each_frame(scene);
        let t = frame as f64 / f64::from(fps);
        if frame.is_multiple_of(600) {
            progress(t, expected.max(t));
        }
        let stuck = scene.is_waiting() && scripted && next_advance >= advances.len();
        let over = scene.is_finished() || stuck;
        let script_left = next_advance < advances.len() || next_skip < skips.len();
        if over && !script_left {
            if done_for >= f64::from(options.tail_s) {
                break;
            }
            done_for += f64::from(dt);
        } else {
            done_for = 0.0;
        }
        if t >= f64::from(options.max_s) {
            break;
        }
    }
    progress(frame as f64 / f64::from(fps), frame as f64 / f64::from(fps));
    recorder.finish()
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
