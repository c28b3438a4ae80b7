//! `Scene`: many characters on one timeline — acting and picture-making keys, voice
//! lines, gaze and eye-mode keys, a camera path, wait points the player advances, and
//! skips — evaluated every frame through each character's [`FaceDriver`].
//!
//! Two clocks: the scene's *wall time* (the faces' time, always running) and its
//! *timeline time*, which stops at a [`Wait`] until [`Scene::advance`]. While the
//! timeline holds, the faces idle on their own (blinks, saccades, a finished line's
//! afterglow). [`Scene::skip`] cuts the lines playing — each mouth hands over to the
//! acting within the hand-over time — and jumps the timeline to the next wait (or the
//! end of those lines); the acting cross-fades to where the timeline landed.
//!
//! Per frame, for each character, in order: voice lines that start; acting and
//! picture keys (and the eye-area changes ahead, announced to the blink so none starts
//! just before one); the eye mode (talking while its own line speaks — the driver's
//! rule — else the keyed mode, else listening while another character speaks, idle
//! otherwise; a host's mode replaces the keyed one); gaze (its target — the host's,
//! else the keyed one — seen from its head, a share taken by the head); the
//! camera seen from its head; then [`FaceDriver::update`]. Nothing is allocated per
//! frame.

pub(crate) mod camera_track;
pub(crate) mod character;
pub(crate) mod clock;
pub(crate) mod event;
pub(crate) mod keys;

pub use camera_track::{CameraKey, CameraTrack};
pub use character::{
    CharacterSetup, EyeModeChoice, EyeModeKey, GazeKey, GazeTarget, VoiceLine, is_eye_area,
};
pub use clock::Wait;
pub use event::{KeyLayer, SceneEvent, SceneEvents};
pub use keys::{ExpressionKey, JUMP_BLEND_S, KeyCurve, KeyTrack};

use glam::{Quat, Vec3};
use thiserror::Error;

use crate::driver::FaceDriver;
use crate::driver::inputs::DriverInputs;
use crate::eyes::Gaze;
use crate::eyes::eye_mode::EyeMode;
use crate::face::FaceState;
use crate::rig::{ChannelId, Rig};
use crate::sanitize::positive_or_zero;
use crate::scene::character::{Character, GazeMotion, GazeStep};
use crate::scene::clock::SceneClock;
use crate::sources::speech::SpeechConfig;

/// Eye-area changes are announced to the blink this long ahead (s): more than any
/// blink suppression window in use.
pub const EYE_CHANGE_LOOKAHEAD_S: f32 = 1.0;
/// Gaze targets are clamped to this many degrees of yaw either side …
const MAX_GAZE_YAW_DEG: f32 = 70.0;
/// … and of pitch.
const MAX_GAZE_PITCH_DEG: f32 = 40.0;
/// A target nearer the head than this (m) is the head itself: looked at, it is ahead.
const MIN_GAZE_DISTANCE_M: f32 = 0.1;
/// A target further round than this (degrees of yaw, either side) is behind: the
/// character keeps looking over the shoulder it last turned to, so a target moving
/// about straight behind does not swing the head from one shoulder to the other.
const BEHIND_DEG: f32 = 135.0;
/// A gaze key has played out once the head has turned (it settles in about 0.4 s).
const GAZE_SETTLE_S: f32 = 0.5;

/// Why a scene could not be built. Indices are the character's and, within it, the
/// item's position in the setup's lists.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum SceneError {
    /// A time, weight or duration is NaN, infinite or negative.
    #[error("character `{character}`: {what} is {value} (must be finite and not negative)")]
    BadNumber {
        /// Character id.
        character: String,
        /// What it is (`acting[3].t`, …).
        what: String,
        /// The value.
        value: f32,
    },
    /// Two voice lines of one character overlap.
    #[error(
        "character `{character}`: line {second} starts at {start} s, before line {first} ends at {end} s"
    )]
    OverlappingLines {
        /// Character id.
        character: String,
        /// The earlier line.
        first: usize,
        /// The later line.
        second: usize,
        /// When the later one starts.
        start: f32,
        /// When the earlier one ends.
        end: f32,
    },
    /// A gaze key looks at a character the scene does not have.
    #[error(
        "character `{character}`: gaze[{key}] looks at character {target}, which does not exist"
    )]
    UnknownGazeTarget {
        /// Character id.
        character: String,
        /// Gaze key index.
        key: usize,
        /// The target index.
        target: usize,
    },
    /// A wait falls while a character's line speaks: a wait holds the timeline, not the
    /// voice, so the acting the line hands over to would come late.
    #[error(
        "a wait at {t} s falls while character `{character}`'s line {line} speaks ({start:.3}–{end:.3} s): a wait holds the timeline, not the voice, so the expression it hands over to would come late; wait once the line has ended"
    )]
    WaitInLine {
        /// The wait's index in the setup's list.
        wait: usize,
        /// Its time.
        t: f32,
        /// The character speaking.
        character: String,
        /// The line's index in the character's list.
        line: usize,
        /// Where the line's voice starts …
        start: f32,
        /// … and ends (scene time).
        end: f32,
    },
    /// What a host gave a running scene cannot be taken: a gaze target that cannot be
    /// looked at, a placement that is not finite.
    #[error("character `{character}`: {reason}")]
    Host {
        /// Character id.
        character: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A wait or camera key has a bad time.
    #[error("{what} is {value} (must be finite and not negative)")]
    BadSceneNumber {
        /// What it is (`waits[0].t`, …).
        what: String,
        /// The value.
        value: f32,
    },
}

/// Everything a scene plays.
#[derive(Clone, Debug, Default)]
pub struct SceneSetup {
    /// The characters, in order (gaze keys refer to them by index).
    pub characters: Vec<CharacterSetup>,
    /// The camera path (may be empty).
    pub camera: Vec<CameraKey>,
    /// Wait points.
    pub waits: Vec<Wait>,
}

/// A running scene. See the module docs.
#[derive(Clone, Debug)]
pub struct Scene {
    characters: Box<[Character]>,
    camera: CameraTrack,
    /// The host's camera (a game's own), replacing the scene's path while it is set.
    host_camera: Option<Vec3>,
    clock: SceneClock,
    events: SceneEvents,
    /// The first two characters speaking at the end of the last frame (enough to tell
    /// each character whether someone else speaks).
    speakers: [Option<usize>; 2],
    wall: f64,
    end: f32,
    /// Skips, cuts and advances asked for between frames, reported with the next frame.
    pending: SceneEvents,
    /// The wall time by which the mouths a skip cut have settled into the acting.
    settled_at: f64,
}

fn check(character: &str, what: impl FnOnce() -> String, v: f32) -> Result<(), SceneError> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(SceneError::BadNumber {
            character: character.to_string(),
            what: what(),
            value: v,
        })
    }
}

fn check_keys(id: &str, list: &str, keys: &[ExpressionKey]) -> Result<(), SceneError> {
    for (i, k) in keys.iter().enumerate() {
        check(id, || format!("{list}[{i}].t"), k.t)?;
        check(id, || format!("{list}[{i}].weight"), k.weight.abs())?;
        check(id, || format!("{list}[{i}].fade"), k.fade)?;
    }
    Ok(())
}

impl Scene {
    /// Builds a scene: checks every number, that one character's lines do not overlap
    /// and that gaze targets exist; turns each line's `then` into acting keys at its
    /// hand-over. Allocates here, never per frame.
    pub fn new(setup: SceneSetup) -> Result<Self, SceneError> {
        let n = setup.characters.len();
        let mut end = 0.0f32;
        check_waits(&setup.waits, &mut end)?;
        check_waits_outside_voices(&setup)?;
        check_camera(&setup.camera, &mut end)?;
        let mut characters = Vec::with_capacity(n);
        for c in setup.characters {
            characters.push(build_character(c, n, &mut end)?);
        }
        pair_nearest(&mut characters);
        Ok(Self {
            speakers: [None; 2],
            characters: characters.into_boxed_slice(),
            camera: CameraTrack::new(setup.camera),
            host_camera: None,
            clock: SceneClock::new(setup.waits),
            events: SceneEvents::new(),
            wall: 0.0,
            end,
            pending: SceneEvents::new(),
            settled_at: 0.0,
        })
    }

    /// Let waits move on by themselves after their `hold` (bakes without a script, an
    /// unattended preview). Off by default: a game advances.
    pub fn set_auto_advance(&mut self, on: bool) {
        self.clock.auto_advance = on;
    }

    /// The number of characters.
    pub fn len(&self) -> usize {
        self.characters.len()
    }

    /// Whether the scene has no characters.
    pub fn is_empty(&self) -> bool {
        self.characters.is_empty()
    }

    /// A character's id.
    pub fn id(&self, character: usize) -> &str {
        &self.characters[character].id
    }

    /// A character's index by id.
    pub fn index(&self, id: &str) -> Option<usize> {
        self.characters.iter().position(|c| c.id == id)
    }

    /// A character's driver (rig, report, face).
    pub fn driver(&self, character: usize) -> &FaceDriver {
        &self.characters[character].driver
    }

    /// Whether the scene's acting keys move `channel` of `character` (it then writes that
    /// channel's acting every frame; a host's own acting belongs on the others).
    pub fn keys_acting(&self, character: usize, channel: ChannelId) -> bool {
        self.characters[character].acting.keys_channel(channel)
    }

    /// A character's driver, to change its face between frames (an engine's extra
    /// acting goes into layers the scene does not key).
    pub fn driver_mut(&mut self, character: usize) -> &mut FaceDriver {
        &mut self.characters[character].driver
    }

    /// A character's last frame.
    pub fn state(&self, character: usize) -> &FaceState {
        self.characters[character].driver.state()
    }

    /// Wall time in seconds since the scene started (the faces' time).
    pub fn time(&self) -> f64 {
        self.wall
    }

    /// Timeline time in seconds (stops at waits).
    pub fn timeline_time(&self) -> f32 {
        self.clock.time() as f32
    }

    /// The camera the faces' camera correction and `at = "camera"` follow: the host's
    /// ([`Scene::set_camera`], from the next update on) while it gives one, else the
    /// scene's path at the timeline's time, if the scene has a camera.
    pub fn camera_position(&self) -> Option<Vec3> {
        self.camera_at(self.timeline_time())
    }

    /// The camera at timeline time `t`: the host's, else the path's.
    fn camera_at(&self, t: f32) -> Option<Vec3> {
        self.host_camera.or_else(|| self.camera.position(t))
    }

    /// Where the host's camera is, in the scene's frame (metres, the frame of the
    /// characters' `position`s: +Y up), for the next updates until it is changed: a
    /// game's own camera, which then drives each character's motion map and
    /// `at = "camera"` gaze instead of the scene's camera path. `None` gives the path
    /// back; in a scene without one, the faces lose the correction the host's camera gave
    /// them, as if there had never been a camera. A position that is not finite counts
    /// as none.
    pub fn set_camera(&mut self, position: Option<Vec3>) {
        let position = position.filter(|p| p.is_finite());
        if position.is_none() && self.host_camera.is_some() && self.camera.is_empty() {
            for c in self.characters.iter_mut() {
                c.driver.clear_camera_correction();
            }
        }
        self.host_camera = position;
    }

    /// Where `character` looks from the next update on, over its gaze keys: a game's
    /// own direction (the player's avatar, a prop as a [`GazeTarget::Point`], another
    /// character). `None` gives the keys back. Refused: a character index the scene
    /// does not have, the character itself, a point or direction that is not finite, a
    /// direction beyond ±90°. Panics if `character` is out of range, as the other
    /// per-character calls do.
    pub fn set_gaze(
        &mut self,
        character: usize,
        target: Option<GazeTarget>,
    ) -> Result<(), SceneError> {
        let n = self.characters.len();
        let c = &mut self.characters[character];
        let reason = match target {
            Some(GazeTarget::Character(j)) if j >= n => Some(format!(
                "there is no character {j} to look at (the scene has {n})"
            )),
            Some(GazeTarget::Character(j)) if j == character => {
                Some("a character cannot look at itself".to_string())
            }
            Some(GazeTarget::Point(p)) if !p.is_finite() => {
                Some(format!("the gaze point {p} is not three finite numbers"))
            }
            Some(GazeTarget::Direction { yaw_deg, pitch_deg })
                if !(yaw_deg.abs() <= 90.0 && pitch_deg.abs() <= 90.0) =>
            {
                Some(format!(
                    "the gaze direction (yaw {yaw_deg}, pitch {pitch_deg}) is not degrees from -90 to 90"
                ))
            }
            _ => None,
        };
        if let Some(reason) = reason {
            return Err(SceneError::Host {
                character: c.id.clone(),
                reason,
            });
        }
        c.host_gaze = target;
        Ok(())
    }

    /// How `character`'s eyes behave while it is not speaking, from the next update on,
    /// over its eye-mode keys (a game's scene state: the character reads, aims,
    /// listens). `None` gives the keys back. While it speaks its eyes talk, as always.
    /// Panics if `character` is out of range.
    pub fn set_eye_mode(&mut self, character: usize, mode: Option<EyeModeChoice>) {
        self.characters[character].host_eye_mode = mode.map(EyeModeChoice::keyed);
    }

    /// Puts `character`'s head at `position` (the scene's frame, metres) with its body
    /// turned `facing_deg` about +Y (0 faces +Z), from the next update on: a game whose
    /// characters walk. Its gaze, the others' gaze at it and its camera correction follow.
    /// A number that is not finite is refused and changes nothing. Panics if `character`
    /// is out of range.
    pub fn set_placement(
        &mut self,
        character: usize,
        position: Vec3,
        facing_deg: f32,
    ) -> Result<(), SceneError> {
        let c = &mut self.characters[character];
        if !(position.is_finite() && facing_deg.is_finite()) {
            return Err(SceneError::Host {
                character: c.id.clone(),
                reason: format!(
                    "the placement {position} facing {facing_deg}° is not four finite numbers"
                ),
            });
        }
        c.position = position;
        c.facing_deg = facing_deg;
        c.facing = Quat::from_rotation_y(facing_deg.to_radians());
        Ok(())
    }

    /// Where `character`'s head is (the scene file's `position`, or the host's
    /// [`Scene::set_placement`]).
    pub fn position(&self, character: usize) -> Vec3 {
        self.characters[character].position
    }

    /// `character`'s body turn about +Y, degrees (0 faces +Z).
    pub fn facing_deg(&self, character: usize) -> f32 {
        self.characters[character].facing_deg
    }

    /// Where `character` looks as the host set it ([`Scene::set_gaze`]), if it did.
    pub fn host_gaze(&self, character: usize) -> Option<GazeTarget> {
        self.characters[character].host_gaze
    }

    /// The eye mode the host set for `character` ([`Scene::set_eye_mode`]), if it did.
    pub fn host_eye_mode(&self, character: usize) -> Option<EyeModeChoice> {
        self.characters[character]
            .host_eye_mode
            .map(|m| m.map_or(EyeModeChoice::Auto, EyeModeChoice::Mode))
    }

    /// The timeline time by which everything keyed has played out.
    pub fn end_time(&self) -> f32 {
        self.end
    }

    /// Whether the timeline holds at a wait.
    pub fn is_waiting(&self) -> bool {
        self.clock.held().is_some()
    }

    /// Whether everything has played: past the end, not waiting, no wait ahead, every
    /// event reported (a press's cut and skip come with the next frame) and every mouth
    /// a skip cut settled — so a loop `while !is_finished() { update }` sees the last
    /// press's events and leaves no mouth half open.
    pub fn is_finished(&self) -> bool {
        !self.is_waiting()
            && self.clock.next_wait().is_none()
            && self.clock.time() >= f64::from(self.end)
            && self.pending.is_empty()
            && self.wall >= self.settled_at
    }

    /// The waits, sorted by time.
    pub fn waits(&self) -> &[Wait] {
        self.clock.waits()
    }

    /// What happened in the last frame.
    pub fn events(&self) -> &SceneEvents {
        &self.events
    }

    /// The player presses "next": a held wait is released; otherwise a [`Scene::skip`]
    /// (the lines playing cut, the timeline at their end or the next wait, whichever is
    /// first) and then go on: a wait it lands on is released too.
    pub fn advance(&mut self) {
        // One Advance event, at the press (the step that releases the wait does not
        // report it again).
        if self.clock.release() {
            self.pending.push(SceneEvent::Advance { t: self.wall });
            return;
        }
        self.skip();
        self.clock.release();
    }

    /// The player skips: the lines playing are cut (each mouth settles into the acting
    /// within the hand-over time) and the timeline jumps to the next wait or to the end
    /// of those lines, whichever comes first. At a wait it only cuts.
    pub fn skip(&mut self) {
        let now = self.clock.time() as f32;
        let mut line_end: Option<f32> = None;
        for (i, c) in self.characters.iter_mut().enumerate() {
            if let Some(e) = c.playing_until(now) {
                line_end = Some(line_end.map_or(e, |x: f32| x.max(e)));
                c.driver.cut_speech();
                // (A millisecond more: the mouth's blend counts its time in f32.)
                let settled = self.wall + f64::from(c.cut_settle_s) + 1e-3;
                self.settled_at = self.settled_at.max(settled);
                self.pending.push(SceneEvent::Cut {
                    character: i,
                    line: c.current.unwrap_or(0),
                    t: self.wall,
                });
            }
        }
        let target = if self.clock.held().is_some() {
            None
        } else {
            match (line_end, self.clock.next_wait().map(|w| w.t)) {
                (Some(e), Some(w)) => Some(e.min(w)),
                (e, w) => e.or(w),
            }
        };
        let to = target.unwrap_or(now);
        if let Some(to) = target {
            self.clock.jump_to(to);
            for c in self.characters.iter_mut() {
                c.acting.jump_to(to);
                c.picture.jump_to(to);
                c.next_line = c.lines.partition_point(|l| l.t < to);
                c.driver.face_mut().clear_eye_changes();
                c.next_announce = c.eye_spans.partition_point(|s| s.1 < to);
            }
        }
        self.pending.push(SceneEvent::Skip {
            t: self.wall,
            from: now,
            to,
        });
        if let (Some(w), Some(_)) = (self.clock.held(), target) {
            // Landed on a wait: it holds from now, as if reached.
            self.pending.push(SceneEvent::Wait {
                wait: w,
                t: self.wall,
            });
        }
    }

    /// Advances the scene by `dt` seconds: every character, in order. Allocates nothing.
    pub fn update(&mut self, dt: f32) {
        let dt = positive_or_zero(dt);
        self.events.clear();
        for e in self.pending.iter() {
            self.events.push(*e);
        }
        self.pending.clear();
        self.wall += f64::from(dt);
        let step = self.clock.step(dt);
        let frame = self.frame_clock(dt, step.to);
        if step.released.is_some() && !step.pressed {
            self.events.push(SceneEvent::Advance { t: frame.wall });
        }
        let Self {
            characters,
            events,
            speakers,
            ..
        } = self;
        for i in 0..characters.len() {
            // Who the others are listening to: the speaker of the last frame.
            let speaker = if speakers[0] == Some(i) {
                speakers[1]
            } else {
                speakers[0]
            };
            let c = &mut characters[i];
            // 1. Voice lines.
            start_lines(c, i, &frame, events);
            // 2. Keys.
            advance_keys(c, i, &frame, events);
            // 3. Eye mode when not speaking.
            let target = eye_mode_and_target(c, speaker, frame.to);
            let head_pos = c.position;
            // 4. Gaze, 5. camera, 6. the face.
            let gaze = gaze_angles(characters, i, head_pos, target, frame.camera);
            characters[i].gaze_yaw_deg = gaze.yaw_deg;
            drive_face(&mut characters[i], gaze, &frame);
        }
        let mut now_speaking = characters
            .iter()
            .enumerate()
            .filter(|(_, c)| c.driver.report().speaking)
            .map(|(i, _)| i);
        *speakers = [now_speaking.next(), now_speaking.next()];
        if let Some(w) = step.reached {
            self.events.push(SceneEvent::Wait {
                wait: w,
                t: frame.wall_of(self.clock.waits()[w].t),
            });
        }
    }

    /// This frame's clock, after the wall time and the timeline (now at `to64`) moved.
    #[inline]
    fn frame_clock(&self, dt: f32, to64: f64) -> FrameClock {
        let to = to64 as f32;
        let held_now = self.clock.held();
        let next_wait = self.clock.next_wait().map(|w| w.t);
        // Eye-area changes ahead, as far as the timeline surely runs.
        let eye_limit = match (held_now, next_wait) {
            (Some(_), _) => to,
            (None, Some(w)) => w.min(to + EYE_CHANGE_LOOKAHEAD_S),
            (None, None) => to + EYE_CHANGE_LOOKAHEAD_S,
        };
        FrameClock {
            dt,
            wall: self.wall,
            to64,
            to,
            eye_limit,
            camera: self.camera_at(to),
            gaze_step: GazeStep::new(dt),
        }
    }
}

/// One frame's times, shared by every character's step.
#[derive(Clone, Copy)]
struct FrameClock {
    dt: f32,
    /// Wall time at the end of the frame.
    wall: f64,
    /// Timeline time at the end of the frame …
    to64: f64,
    /// … and as `f32`, as keys and lines are timed.
    to: f32,
    /// Eye-area changes starting by then are announced to the blink.
    eye_limit: f32,
    /// The camera at `to`.
    camera: Option<Vec3>,
    gaze_step: GazeStep,
}

impl FrameClock {
    /// The timeline runs at the end of a step: instant τ ≤ `to` is at this wall time.
    #[inline]
    fn wall_of(&self, tau: f32) -> f64 {
        self.wall - (self.to64 - f64::from(tau))
    }
}

/// Starts the character's voice lines that begin by the frame's timeline time.
#[inline]
fn start_lines(c: &mut Character, i: usize, frame: &FrameClock, events: &mut SceneEvents) {
    while let Some(line) = c.lines.get(c.next_line) {
        if line.t > frame.to {
            break;
        }
        let started = frame.wall_of(line.t);
        let elapsed = (frame.to64 - f64::from(line.t)) as f32 - frame.dt;
        // This line's afterglow timing, for its end (the next line sets its own).
        c.driver
            .set_afterglow_timing(line.afterglow_hold_s, line.afterglow_release_s);
        let said = c.driver.say_at(
            line.track.clone(),
            &line.afterglow,
            line.afterglow_ramp_s,
            elapsed,
        );
        debug_assert!(said.is_ok(), "a scene character always has speech");
        events.push(SceneEvent::Voice {
            character: i,
            line: c.next_line,
            t: started,
            voiced: line
                .track
                .voiced()
                .map(|(s, e)| (started + f64::from(s), started + f64::from(e))),
        });
        c.current = Some(c.next_line);
        c.next_line += 1;
    }
}

/// Plays the character's acting and picture keys into its driver, and announces the
/// eye-area changes ahead to its blink.
#[inline]
fn advance_keys(c: &mut Character, i: usize, frame: &FrameClock, events: &mut SceneEvents) {
    let (to, dt) = (frame.to, frame.dt);
    c.acting.advance(to, |_, k| {
        events.push(SceneEvent::Expression {
            character: i,
            layer: KeyLayer::Acting,
            channel: k.channel,
            weight: k.weight,
            t: frame.wall_of(k.t),
            eye_area: k.eye_area,
        });
    });
    c.picture.advance(to, |_, k| {
        events.push(SceneEvent::Expression {
            character: i,
            layer: KeyLayer::Picture,
            channel: k.channel,
            weight: k.weight,
            t: frame.wall_of(k.t),
            eye_area: k.eye_area,
        });
    });
    c.acting.write(dt, c.driver.acting_mut());
    c.picture.write(dt, c.driver.picture_mut());
    announce(c, to, frame.eye_limit, dt);
}

/// Sets the character's eye mode (the host's, else the keyed one, else listening while
/// `speaker` speaks, else idle) and returns where it looks at timeline time `to` (the
/// host's target, else the keyed one; `Auto` resolved to its partner, or forward).
#[inline]
fn eye_mode_and_target(c: &mut Character, speaker: Option<usize>, to: f32) -> GazeTarget {
    let chosen = c.host_eye_mode.unwrap_or_else(|| c.eye_mode_at(to));
    let mode = chosen.unwrap_or(if speaker.is_some() {
        EyeMode::Listening
    } else {
        EyeMode::Idle
    });
    c.driver.set_eye_mode(mode);
    if speaker.is_some() {
        c.partner = speaker;
    }
    match c.host_gaze.unwrap_or_else(|| c.gaze_at(to)) {
        GazeTarget::Auto => match c.partner {
            Some(j) => GazeTarget::Character(j),
            None => GazeTarget::Forward,
        },
        t => t,
    }
}

/// Character `i`'s gaze toward `target` from its head at `head_pos`: yaw and pitch in
/// degrees, clamped (a target at the head is ahead; one behind is looked at over the
/// shoulder the character last turned to).
#[inline]
fn gaze_angles(
    characters: &[Character],
    i: usize,
    head_pos: Vec3,
    target: GazeTarget,
    camera: Option<Vec3>,
) -> Gaze {
    let c = &characters[i];
    let toward = |p: Vec3| {
        if p.distance_squared(head_pos) < MIN_GAZE_DISTANCE_M * MIN_GAZE_DISTANCE_M {
            Gaze::FORWARD
        } else {
            c.angles_toward(p)
        }
    };
    let gaze = match target {
        GazeTarget::Auto | GazeTarget::Forward => Gaze::FORWARD,
        GazeTarget::Camera => camera.map_or(Gaze::FORWARD, toward),
        GazeTarget::Character(j) if j == i => Gaze::FORWARD,
        GazeTarget::Character(j) => toward(characters[j].position),
        GazeTarget::Direction { yaw_deg, pitch_deg } => Gaze::new(yaw_deg, pitch_deg),
        GazeTarget::Point(p) => toward(p),
    };
    let mut yaw = crate::sanitize::finite_or_zero(gaze.yaw_deg);
    if yaw.abs() > BEHIND_DEG && c.gaze_yaw_deg != 0.0 && c.gaze_yaw_deg.signum() != yaw.signum() {
        yaw = MAX_GAZE_YAW_DEG.copysign(c.gaze_yaw_deg);
    }
    Gaze::new(
        yaw.clamp(-MAX_GAZE_YAW_DEG, MAX_GAZE_YAW_DEG),
        crate::sanitize::finite_or_zero(gaze.pitch_deg)
            .clamp(-MAX_GAZE_PITCH_DEG, MAX_GAZE_PITCH_DEG),
    )
}

/// Moves the character's head and eyes toward `gaze` and updates its face.
#[inline]
fn drive_face(c: &mut Character, gaze: Gaze, frame: &FrameClock) {
    let camera = frame.camera;
    let (head, eyes_yaw, eyes_pitch) = c.gaze_motion.update(
        [gaze.yaw_deg, gaze.pitch_deg],
        c.head_share,
        &frame.gaze_step,
    );
    let inputs = DriverInputs {
        head,
        gaze_yaw_deg: eyes_yaw,
        gaze_pitch_deg: eyes_pitch,
        camera: camera.map(|p| c.facing.inverse() * (p - c.position)),
        ..DriverInputs::default()
    };
    c.driver.update(frame.dt, &inputs);
}

/// Checks the waits' times and holds; `end` grows to the last.
fn check_waits(waits: &[Wait], end: &mut f32) -> Result<(), SceneError> {
    for (i, w) in waits.iter().enumerate() {
        for (what, v) in [("t", w.t), ("hold", w.hold)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(SceneError::BadSceneNumber {
                    what: format!("waits[{i}].{what}"),
                    value: v,
                });
            }
        }
        *end = end.max(w.t);
    }
    Ok(())
}

/// No wait may fall while a line's voice speaks (from its voiced start to its voiced
/// end; the clip's silences around it may hold).
fn check_waits_outside_voices(setup: &SceneSetup) -> Result<(), SceneError> {
    for (w, wait) in setup.waits.iter().enumerate() {
        for c in &setup.characters {
            for (k, l) in c.lines.iter().enumerate() {
                let Some((s, e)) = l.track.voiced() else {
                    continue;
                };
                let (start, end) = (l.t + s, l.t + e);
                if start + 1e-4 < wait.t && wait.t < end - 1e-4 {
                    return Err(SceneError::WaitInLine {
                        wait: w,
                        t: wait.t,
                        character: c.id.clone(),
                        line: k,
                        start,
                        end,
                    });
                }
            }
        }
    }
    Ok(())
}

/// Checks the camera keys' times and positions; `end` grows to the last.
fn check_camera(camera: &[CameraKey], end: &mut f32) -> Result<(), SceneError> {
    for (i, k) in camera.iter().enumerate() {
        if !(k.t.is_finite() && k.t >= 0.0 && k.position.is_finite()) {
            return Err(SceneError::BadSceneNumber {
                what: format!("camera[{i}]"),
                value: k.t,
            });
        }
        *end = end.max(k.t);
    }
    Ok(())
}

/// One character of a scene of `n`: its numbers checked, its lines sorted and their
/// `then` turned into acting keys, its keys sorted; `end` grows to cover all it plays.
fn build_character(c: CharacterSetup, n: usize, end: &mut f32) -> Result<Character, SceneError> {
    let id = c.id.clone();
    check_keys(&id, "acting", &c.acting)?;
    check_keys(&id, "picture", &c.picture)?;
    check(&id, || "headShare".into(), c.head_share)?;
    if !c.position.is_finite() || !c.facing_deg.is_finite() {
        return Err(SceneError::BadNumber {
            character: id,
            what: "position or facing".into(),
            value: f32::NAN,
        });
    }
    let (driver, speech) = scene_driver(c.driver);
    let rig = driver.rig().clone();
    let lines = sorted_lines(&id, c.lines)?;
    check_gaze_and_eyes(&id, &c.gaze, &c.eye_modes, n)?;
    let mut acting = c.acting;
    add_handovers(&lines, &speech, &rig, &mut acting, end);
    let mut eye_spans: Vec<(f32, f32)> = acting
        .iter()
        .chain(&c.picture)
        .filter(|k| k.eye_area)
        .map(|k| (k.t, k.t + k.fade))
        .collect();
    eye_spans.sort_by(|a, b| a.0.total_cmp(&b.0));
    for k in acting.iter().chain(&c.picture) {
        *end = end.max(k.t + k.fade);
    }
    let mut gaze = c.gaze;
    gaze.sort_by(|a, b| a.t.total_cmp(&b.t));
    let mut eye_modes = c.eye_modes;
    eye_modes.sort_by(|a, b| a.t.total_cmp(&b.t));
    // A gaze or eye-mode key after the last line or acting key still plays.
    for k in &gaze {
        *end = end.max(k.t + GAZE_SETTLE_S);
    }
    for k in &eye_modes {
        *end = end.max(k.t);
    }
    Ok(Character {
        id,
        position: c.position,
        facing: Quat::from_rotation_y(c.facing_deg.to_radians()),
        facing_deg: c.facing_deg,
        acting: KeyTrack::new(acting, rig.len()),
        picture: KeyTrack::new(c.picture, rig.len()),
        lines: lines.into_boxed_slice(),
        next_line: 0,
        current: None,
        gaze: gaze.into_boxed_slice(),
        eye_modes: eye_modes.into_boxed_slice(),
        eye_spans: eye_spans.into_boxed_slice(),
        next_announce: 0,
        head_share: c.head_share.min(1.0),
        gaze_motion: GazeMotion::default(),
        partner: None,
        host_gaze: None,
        host_eye_mode: None,
        gaze_yaw_deg: 0.0,
        cut_settle_s: speech.end_blend_s,
        driver,
    })
}

/// The driver as a scene runs it, with its voice line timing: speech on (the default
/// timing when it had none) and no input filters.
fn scene_driver(mut driver: FaceDriver) -> (FaceDriver, SpeechConfig) {
    let speech = match driver.speech() {
        Some(s) => *s.config(),
        None => {
            driver = driver.with_speech(SpeechConfig::default());
            SpeechConfig::default()
        }
    };
    // The scene moves head and eyes itself (eyes lead, the head follows).
    driver.face_mut().set_input_filters(None, None);
    (driver, speech)
}

/// The character's lines, checked and sorted by time; none may start before the one
/// before it ends.
fn sorted_lines(id: &str, mut lines: Vec<VoiceLine>) -> Result<Vec<VoiceLine>, SceneError> {
    for (i, l) in lines.iter().enumerate() {
        check(id, || format!("lines[{i}].t"), l.t)?;
        check(
            id,
            || format!("lines[{i}].afterglowRamp"),
            l.afterglow_ramp_s,
        )?;
        if l.afterglow_hold_s != f32::INFINITY {
            check(
                id,
                || format!("lines[{i}].afterglowHold"),
                l.afterglow_hold_s,
            )?;
        }
        check(
            id,
            || format!("lines[{i}].afterglowRelease"),
            l.afterglow_release_s,
        )?;
    }
    lines.sort_by(|a, b| a.t.total_cmp(&b.t));
    for (i, pair) in lines.windows(2).enumerate() {
        let first_end = pair[0].t + pair[0].track.duration();
        if pair[1].t < first_end - 1e-4 {
            return Err(SceneError::OverlappingLines {
                character: id.to_string(),
                first: i,
                second: i + 1,
                start: pair[1].t,
                end: first_end,
            });
        }
    }
    Ok(lines)
}

/// Checks the gaze and eye-mode keys' times, and that gaze targets are among the `n`
/// characters.
fn check_gaze_and_eyes(
    id: &str,
    gaze: &[GazeKey],
    eye_modes: &[EyeModeKey],
    n: usize,
) -> Result<(), SceneError> {
    for (i, k) in gaze.iter().enumerate() {
        check(id, || format!("gaze[{i}].t"), k.t)?;
        if let GazeTarget::Character(j) = k.target
            && j >= n
        {
            return Err(SceneError::UnknownGazeTarget {
                character: id.to_string(),
                key: i,
                target: j,
            });
        }
    }
    for (i, k) in eye_modes.iter().enumerate() {
        check(id, || format!("eyes[{i}].t"), k.t)?;
    }
    Ok(())
}

/// Each line's `then` as acting keys at its hand-over; `end` grows to cover each line
/// and its afterglow.
fn add_handovers(
    lines: &[VoiceLine],
    speech: &SpeechConfig,
    rig: &Rig,
    acting: &mut Vec<ExpressionKey>,
    end: &mut f32,
) {
    for l in lines {
        let handover = match l.track.voiced() {
            Some((s, e)) => l.t + (e - speech.end_lead_s).max(s),
            None => l.t + l.track.duration(),
        };
        for &(channel, weight) in &l.then {
            acting.push(ExpressionKey {
                t: handover,
                channel,
                weight,
                fade: speech.end_blend_s,
                curve: KeyCurve::Smooth,
                eye_area: is_eye_area(rig, channel),
            });
        }
        let tail = match l.track.voiced() {
            Some((_, e)) => e - speech.end_lead_s + speech.end_blend_s.max(l.afterglow_ramp_s),
            None => 0.0,
        };
        *end = end.max(l.t + l.track.duration().max(tail));
    }
}

/// Before anyone speaks, each character's partner is the nearest other one.
fn pair_nearest(characters: &mut [Character]) {
    for i in 0..characters.len() {
        let p = characters[i].position;
        characters[i].partner = (0..characters.len()).filter(|&j| j != i).min_by(|&a, &b| {
            let da = characters[a].position.distance_squared(p);
            let db = characters[b].position.distance_squared(p);
            da.total_cmp(&db)
        });
    }
}

/// Announces the character's eye-area changes that start by `limit` (scene time) to
/// its blink, as points no further apart than the blink's suppression window. `now` is
/// the timeline time at the end of this frame; the face's clock is still at its start
/// (`dt` earlier).
fn announce(c: &mut Character, now: f32, limit: f32, dt: f32) {
    let window = c
        .driver
        .face()
        .eyes()
        .blink()
        .map_or(0.0, |b| b.suppress_window() as f32);
    if window <= 0.0 {
        c.next_announce = c.eye_spans.len();
        return;
    }
    while let Some(&(a, b)) = c.eye_spans.get(c.next_announce) {
        if a > limit {
            break;
        }
        let face = c.driver.face_mut();
        let mut p = a.max(now);
        loop {
            // A full queue (more changes ahead than it holds) leaves this one unannounced:
            // the blink may then come near it, nothing worse.
            let _ = face.schedule_eye_change(p - now + dt);
            if p >= b {
                break;
            }
            p = (p + window).min(b);
        }
        c.next_announce += 1;
    }
}
