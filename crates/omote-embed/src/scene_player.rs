//! [`ScenePlayer`]: a dialogue scene (omote-scene's TOML file) played frame by frame by
//! a host — every character's weights and rotations each frame, the scene's events
//! (a voice to start, an expression, a wait) as plain numbers, the player's presses
//! (advance, skip) — and written out as anims and VRMAs.

use std::path::Path;
use std::sync::Arc;

use omote_core::scene::{EyeModeChoice, GazeTarget, KeyLayer, SceneEvent, SceneEvents};
use omote_core::{FaceState, Rig, Scene};
use omote_scene::{
    BakeOptions, BakedCharacter, FsFiles, LoadOptions, LoadedScene, SceneFileError, SceneFiles,
    SceneRecorder,
};

use crate::character::{check_fps, checked_fade_s, checked_weight, rotations_of};
use crate::expression_fades::ExpressionFades;
use crate::{EmbedError, Gaze};

/// What a [`SceneEventInfo`] is (numbered for a C binding).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum SceneEventKind {
    /// A voice line started: play its audio ([`ScenePlayer::clip`],
    /// [`ScenePlayer::audio_path`]) from `t`.
    Voice = 0,
    /// A line was cut by a skip or an advance: stop its audio.
    Cut = 1,
    /// An expression key started (`index` is the channel, `weight` where it goes).
    Expression = 2,
    /// The timeline reached a wait and holds until [`ScenePlayer::advance`].
    Wait = 3,
    /// The player advanced (or the wait's own hold ran out with auto advance on).
    Advance = 4,
    /// The player skipped: the timeline jumped from `from` to `to`.
    Skip = 5,
}

/// One event of the last [`ScenePlayer::update`], as plain numbers: a C binding hands
/// them over as they are (`#[repr(C)]`). Times are the scene's wall time (seconds since
/// it started, [`ScenePlayer::time`]); every number is finite.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct SceneEventInfo {
    /// What it is.
    pub kind: SceneEventKind,
    /// The character's index (voice, cut, expression); -1 for the scene's own events
    /// (wait, advance, skip).
    pub character: i32,
    /// Voice and cut: the line's index in the character's lines (in the order they
    /// play: [`ScenePlayer::clip`]); expression: the channel's index
    /// ([`ScenePlayer::channel_names`]); wait: the wait's index; -1 otherwise.
    pub index: i32,
    /// Expression: the weight it moves to (picture keys may be negative); 0 otherwise.
    pub weight: f32,
    /// Expression: whether it is a picture key (the additive layer) rather than acting.
    pub picture: bool,
    /// Expression: whether it changes the eye area.
    pub eye_area: bool,
    /// Voice: whether the line has voice (then `voiced_start`/`voiced_end` are set).
    pub voiced: bool,
    /// When it happened (s, wall time; a voice's exact start, between frames).
    pub t: f64,
    /// Voice: when its voice starts (s, wall time); `t` when it has none.
    pub voiced_start: f64,
    /// Voice: when its voice ends (s, wall time); `t` when it has none.
    pub voiced_end: f64,
    /// Skip: the timeline time before the jump; 0 otherwise.
    pub from: f32,
    /// Skip: the timeline time after the jump; 0 otherwise.
    pub to: f32,
}

impl SceneEventInfo {
    fn new(kind: SceneEventKind, t: f64) -> Self {
        Self {
            kind,
            character: -1,
            index: -1,
            weight: 0.0,
            picture: false,
            eye_area: false,
            voiced: false,
            t,
            voiced_start: t,
            voiced_end: t,
            from: 0.0,
            to: 0.0,
        }
    }

    /// The core's event as plain numbers.
    pub fn from_event(e: &SceneEvent) -> Self {
        let index = |i: usize| i32::try_from(i).unwrap_or(i32::MAX);
        match *e {
            SceneEvent::Voice {
                character,
                line,
                t,
                voiced,
            } => Self {
                character: index(character),
                index: index(line),
                voiced: voiced.is_some(),
                voiced_start: voiced.map_or(t, |v| v.0),
                voiced_end: voiced.map_or(t, |v| v.1),
                ..Self::new(SceneEventKind::Voice, t)
            },
            SceneEvent::Cut { character, line, t } => Self {
                character: index(character),
                index: index(line),
                ..Self::new(SceneEventKind::Cut, t)
            },
            SceneEvent::Expression {
                character,
                layer,
                channel,
                weight,
                t,
                eye_area,
            } => Self {
                character: index(character),
                index: index(channel.index()),
                weight,
                picture: layer == KeyLayer::Picture,
                eye_area,
                ..Self::new(SceneEventKind::Expression, t)
            },
            SceneEvent::Wait { wait, t } => Self {
                index: index(wait),
                ..Self::new(SceneEventKind::Wait, t)
            },
            SceneEvent::Advance { t } => Self::new(SceneEventKind::Advance, t),
            SceneEvent::Skip { t, from, to } => Self {
                from,
                to,
                ..Self::new(SceneEventKind::Skip, t)
            },
        }
    }
}

/// A dialogue scene played by the host, frame by frame.
///
/// Load it ([`ScenePlayer::load`] from a file, [`ScenePlayer::from_text`] with the
/// scene's files from any [`SceneFiles`]), call [`ScenePlayer::update`] every frame, and
/// read each character's frame ([`ScenePlayer::weights`], [`ScenePlayer::rotations`])
/// and the frame's events ([`ScenePlayer::events`]: start a voice clip on
/// [`SceneEventKind::Voice`], stop it on [`SceneEventKind::Cut`]). The player presses
/// "next" with [`ScenePlayer::advance`] and skips with [`ScenePlayer::skip`]; waits hold
/// until then (or, with [`ScenePlayer::set_auto_advance`], for their own `hold`).
///
/// Played at steps of `1 / fps` it gives, frame for frame, what [`omote_scene::bake`]
/// gives at `fps` ([`ScenePlayer::bake`]); [`ScenePlayer::record`] keeps what is played.
///
/// ```no_run
/// let mut player = omote_embed::ScenePlayer::load("examples/scenes/demo/scene.toml")?;
/// while !player.is_finished() {
///     player.update(1.0 / 60.0);
///     for e in player.events() { /* start or stop a voice clip, … */ }
///     for i in 0..player.len() {
///         let _weights: &[f32] = player.weights(i);
///         let _head_and_eyes: [f32; 12] = player.rotations(i);
///     }
///     if player.is_waiting() {
///         player.advance();
///     }
/// }
/// # Ok::<(), omote_embed::EmbedError>(())
/// ```
#[derive(Clone, Debug)]
pub struct ScenePlayer {
    /// The scene as loaded, at time 0 (what [`ScenePlayer::bake`] runs).
    loaded: LoadedScene,
    /// The scene playing.
    scene: Scene,
    /// Each character's channel names.
    names: Vec<Vec<String>>,
    /// Each character's clip names, in the order its lines play.
    clips: Vec<Vec<String>>,
    /// The last update's events.
    events: Vec<SceneEventInfo>,
    /// What is being recorded, if anything.
    recorder: Option<SceneRecorder>,
    /// Each character's expressions the host moves (set_expression, fade_expression).
    fades: Vec<ExpressionFades>,
}

impl ScenePlayer {
    /// Loads the scene file at `path` (its files relative to its folder, from the
    /// filesystem). An error names the file, the line and the field.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, EmbedError> {
        Self::load_with(path.as_ref(), &FsFiles)
    }

    /// [`ScenePlayer::load`] with the scene file and every file it names from `files`.
    pub fn load_with(path: &Path, files: &dyn SceneFiles) -> Result<Self, EmbedError> {
        let loaded =
            omote_scene::load_scene_with(path, &LoadOptions::default(), files, &mut |_, _| {})?;
        Ok(Self::new(loaded))
    }

    /// A scene from its text; `name` stands for it in errors and its folder is where
    /// the files it names are looked up in `files`.
    pub fn from_text(text: &str, name: &Path, files: &dyn SceneFiles) -> Result<Self, EmbedError> {
        let loaded = omote_scene::parse_scene_with(
            text,
            name,
            &LoadOptions::default(),
            files,
            &mut |_, _| {},
        )?;
        Ok(Self::new(loaded))
    }

    /// A player for a scene loaded with [`omote_scene`] (its own options: a lip sync
    /// profile, the speech timing).
    pub fn new(loaded: LoadedScene) -> Self {
        let scene = loaded.scene.clone();
        let names: Vec<Vec<String>> = (0..scene.len())
            .map(|i| {
                let rig = scene.driver(i).rig();
                rig.channels()
                    .map(|(id, _)| rig.channel_name(id).to_owned())
                    .collect()
            })
            .collect();
        let clips = loaded.clip_names();
        let fades = names
            .iter()
            .map(|n| ExpressionFades::new(n.len()))
            .collect();
        Self {
            loaded,
            scene,
            names,
            clips,
            events: Vec::with_capacity(SceneEvents::CAPACITY),
            recorder: None,
            fades,
        }
    }

    /// The scene as loaded (its characters' rigs, models, lines and placement).
    pub fn loaded(&self) -> &LoadedScene {
        &self.loaded
    }

    /// What the scene read but not whole, each naming the scene's line and the file (a
    /// voice WAV cut short of what its header declares: what is there is used). A
    /// binding passes these on as its warnings.
    pub fn warnings(&self) -> &[String] {
        &self.loaded.warnings
    }

    /// The scene playing (for what this API does not wrap).
    pub fn scene(&self) -> &Scene {
        &self.scene
    }

    /// Lets waits move on by themselves after their `hold` (an unattended preview, what
    /// a bake without presses does). Off by default: the player advances.
    pub fn set_auto_advance(&mut self, on: bool) {
        self.scene.set_auto_advance(on);
    }

    /// Advances the scene by `dt` seconds and computes every character's frame. A
    /// finite positive `dt` is one step of exactly `dt`, however long (unlike
    /// [`crate::Character::update`], which takes a long one as one normal frame: a
    /// scene's clock is the one its voices are scheduled on); zero, negative, NaN or
    /// infinite is no step at all — no time passes and nothing changes (the last frame
    /// and its events stay).
    pub fn update(&mut self, dt: f32) {
        if !(dt.is_finite() && dt > 0.0) {
            return;
        }
        for (i, fades) in self.fades.iter_mut().enumerate() {
            fades.advance(dt, self.scene.driver_mut(i).acting_mut());
        }
        self.scene.update(dt);
        self.events.clear();
        self.events
            .extend(self.scene.events().iter().map(SceneEventInfo::from_event));
        if let Some(r) = &mut self.recorder {
            r.record(&self.scene);
        }
    }

    /// Sets character `i`'s acted expression `name` from the host (a branch the player
    /// chose, the game's state): 0–1, clamped; NaN refused. Only an expression the
    /// scene's acting keys never move: those the scene writes every frame, so a host's
    /// value there would vanish — refused, naming it. It stays until changed (a bake
    /// replays the scene file alone).
    pub fn set_expression(&mut self, i: usize, name: &str, weight: f32) -> Result<(), EmbedError> {
        let id = self.host_channel(i, name)?;
        let weight = checked_weight(self.scene.driver(i).rig(), id, weight)?;
        self.fades[i].set(self.scene.driver_mut(i).acting_mut(), id, weight);
        Ok(())
    }

    /// [`ScenePlayer::set_expression`] eased over `seconds` (0–60) from the weight now,
    /// as [`crate::Character::fade_expression`]; it moves with the scene's updates.
    pub fn fade_expression(
        &mut self,
        i: usize,
        name: &str,
        weight: f32,
        seconds: f32,
    ) -> Result<(), EmbedError> {
        let id = self.host_channel(i, name)?;
        let rig = self.scene.driver(i).rig();
        let weight = checked_weight(rig, id, weight)?;
        checked_fade_s(rig, id, seconds)?;
        self.fades[i].fade(self.scene.driver_mut(i).acting_mut(), id, weight, seconds);
        Ok(())
    }

    /// Character `i`'s channel `name`, if the host may act it.
    fn host_channel(&self, i: usize, name: &str) -> Result<omote_core::ChannelId, EmbedError> {
        self.check_character(i)?;
        let Some(id) = self.scene.driver(i).rig().channel(name) else {
            return Err(EmbedError::UnknownExpression(omote_fs::echo(name)));
        };
        if self.scene.keys_acting(i, id) {
            return Err(EmbedError::Argument(format!(
                "character `{}`: `{}` is keyed by the scene (its acting keys write it every frame): act an expression the scene does not key",
                omote_fs::echo(self.scene.id(i)),
                omote_fs::echo(name)
            )));
        }
        Ok(id)
    }

    /// Where the game's camera is, in the scene's frame (metres, the frame of the scene
    /// file's character `position`s: +Y up), for the next updates: it replaces the scene's
    /// camera path — each character's camera-angle correction and `at = "camera"` gaze
    /// follow it — until `None` gives the path back. A coordinate that is not finite is
    /// refused. A bake replays the scene file's path.
    pub fn set_camera(&mut self, position: Option<[f32; 3]>) -> Result<(), EmbedError> {
        if let Some(p) = position
            && !p.iter().all(|v| v.is_finite())
        {
            return Err(EmbedError::Argument(format!(
                "the camera position {p:?} is not three finite numbers"
            )));
        }
        self.scene
            .set_camera(position.map(omote_core::Vec3::from_array));
        Ok(())
    }

    /// Where character `i` looks from the next update on, over the scene's gaze keys:
    /// `at` names a target as a scene file's gaze key does (`"auto"`, `"camera"`,
    /// `"forward"` or another character's id); `None` gives the keys back. The eyes
    /// jump there and the head follows with its share, as for a key. A bake replays the
    /// scene file alone.
    pub fn set_gaze(&mut self, i: usize, at: Option<&str>) -> Result<(), EmbedError> {
        self.check_character(i)?;
        let target = match at {
            None => None,
            Some(at) => Some(
                GazeTarget::from_name(at, |id| self.scene.index(id)).ok_or_else(|| {
                    EmbedError::Argument(format!(
                        "`{}` is neither a character of this scene nor camera, forward or auto",
                        omote_fs::echo(at)
                    ))
                })?,
            ),
        };
        self.scene
            .set_gaze(i, target)
            .map_err(|e| EmbedError::Argument(e.to_string()))
    }

    /// Character `i` looks at a point of the scene (metres, the frame of the scene
    /// file's character `position`s: +Y up) from the next update on, over the scene's
    /// gaze keys: the player's avatar, a prop. `None` gives the keys back; a coordinate
    /// that is not finite is refused.
    pub fn set_gaze_point(&mut self, i: usize, point: Option<[f32; 3]>) -> Result<(), EmbedError> {
        self.check_character(i)?;
        self.scene
            .set_gaze(
                i,
                point.map(|p| GazeTarget::Point(omote_core::Vec3::from_array(p))),
            )
            .map_err(|e| EmbedError::Argument(e.to_string()))
    }

    /// How character `i`'s eyes behave while it is not speaking, from the next update
    /// on, over the scene's eye-mode keys: `mode` as a scene file's `eyes` key names it
    /// (`"idle"`, `"talking"`, `"listening"`, `"focused"` or `"auto"`); `None` gives the
    /// keys back. While the character speaks its eyes talk, as always.
    pub fn set_eye_mode(&mut self, i: usize, mode: Option<&str>) -> Result<(), EmbedError> {
        self.check_character(i)?;
        let choice = match mode {
            None => None,
            Some(m) => Some(EyeModeChoice::from_name(m).ok_or_else(|| {
                EmbedError::Argument(format!(
                    "`{}` is not an eye mode (idle, talking, listening, focused, auto)",
                    omote_fs::echo(m)
                ))
            })?),
        };
        self.scene.set_eye_mode(i, choice);
        Ok(())
    }

    /// Puts character `i`'s head at `position` (the scene's frame, metres, as the scene
    /// file's `position`) with its body turned `facing_deg` about +Y (0 faces +Z), from
    /// the next update on: a game whose characters walk. Its gaze, the others' gaze at it
    /// and its camera correction follow. A number that is not finite is refused. A bake
    /// plays the file's placement.
    pub fn set_placement(
        &mut self,
        i: usize,
        position: [f32; 3],
        facing_deg: f32,
    ) -> Result<(), EmbedError> {
        self.check_character(i)?;
        self.scene
            .set_placement(i, omote_core::Vec3::from_array(position), facing_deg)
            .map_err(|e| EmbedError::Argument(e.to_string()))
    }

    /// Refuses a character index the scene does not have (the per-character reads
    /// panic on one; a binding checks here first).
    pub fn check_character(&self, i: usize) -> Result<(), EmbedError> {
        if i < self.scene.len() {
            Ok(())
        } else {
            let n = self.scene.len();
            let s = if n == 1 { "" } else { "s" };
            Err(EmbedError::Argument(format!(
                "character {i}: the scene has {n} character{s}"
            )))
        }
    }

    /// The camera the faces follow (the host's from the next update on, else the scene's
    /// path now), if any.
    pub fn camera_position(&self) -> Option<[f32; 3]> {
        self.scene.camera_position().map(|p| p.to_array())
    }

    /// The player presses "next": a held wait is released; otherwise the lines playing
    /// are cut and the timeline moves on past the next wait. Reported with the next
    /// update's events.
    pub fn advance(&mut self) {
        self.scene.advance();
    }

    /// The player skips: the lines playing are cut and the timeline jumps to the next
    /// wait (or the end of those lines). Reported with the next update's events.
    pub fn skip(&mut self) {
        self.scene.skip();
    }

    /// Wall time (s) since the scene started: the faces' time, always running.
    pub fn time(&self) -> f64 {
        self.scene.time()
    }

    /// Timeline time (s): stops at waits, jumps at skips.
    pub fn timeline_time(&self) -> f32 {
        self.scene.timeline_time()
    }

    /// Whether the timeline holds at a wait (the host shows its "next" prompt).
    pub fn is_waiting(&self) -> bool {
        self.scene.is_waiting()
    }

    /// Whether everything has played (the faces still idle on if updated).
    pub fn is_finished(&self) -> bool {
        self.scene.is_finished()
    }

    /// The last update's events, in order.
    pub fn events(&self) -> &[SceneEventInfo] {
        &self.events
    }

    /// Events lost since the start because one frame had more than
    /// [`SceneEvents::CAPACITY`].
    pub fn dropped_events(&self) -> u32 {
        self.scene.events().dropped()
    }

    /// The number of characters.
    pub fn len(&self) -> usize {
        self.scene.len()
    }

    /// Whether there are no characters (never, for a loaded scene).
    pub fn is_empty(&self) -> bool {
        self.scene.is_empty()
    }

    /// Character `i`'s id. Panics past [`ScenePlayer::len`], as every per-character
    /// call does.
    pub fn id(&self, i: usize) -> &str {
        self.scene.id(i)
    }

    /// The character with id `id`.
    pub fn index(&self, id: &str) -> Option<usize> {
        self.scene.index(id)
    }

    /// Character `i`'s rig.
    pub fn rig(&self, i: usize) -> &Arc<Rig> {
        self.scene.driver(i).rig()
    }

    /// Character `i`'s channel names, in the order of its weights.
    pub fn channel_names(&self, i: usize) -> &[String] {
        &self.names[i]
    }

    /// Character `i`'s weights after the VRM override rules (what the face shows), in
    /// channel order: see [`crate::Character::weights`].
    pub fn weights(&self, i: usize) -> &[f32] {
        &self.state(i).expressions
    }

    /// Character `i`'s weights before the override rules, for a player that applies
    /// them itself: see [`crate::Character::input_weights`].
    pub fn input_weights(&self, i: usize) -> &[f32] {
        &self.state(i).input_expressions
    }

    /// Character `i`'s head, left eye and right eye rotations, as
    /// [`crate::Character::rotations`] gives them.
    pub fn rotations(&self, i: usize) -> [f32; 12] {
        rotations_of(self.state(i))
    }

    /// Character `i`'s gaze after smoothing and saccades: the eyes' turn in the head (at
    /// most 25° each way), on top of the head's rotation ([`ScenePlayer::rotations`]).
    pub fn gaze(&self, i: usize) -> Gaze {
        let s = self.state(i);
        Gaze::new(s.look_at_yaw_deg, s.look_at_pitch_deg)
    }

    /// Character `i`'s whole frame.
    pub fn state(&self, i: usize) -> &FaceState {
        self.scene.state(i)
    }

    /// Character `i`'s head position in scene space (metres): the scene file's, or the
    /// game's ([`ScenePlayer::set_placement`]).
    pub fn position(&self, i: usize) -> [f32; 3] {
        self.scene.position(i).to_array()
    }

    /// Character `i`'s body turn about +Y (degrees; 0 faces +Z).
    pub fn facing_deg(&self, i: usize) -> f32 {
        self.scene.facing_deg(i)
    }

    /// How many voice lines character `i` has.
    pub fn line_count(&self, i: usize) -> usize {
        self.clips[i].len()
    }

    /// The clip name (the audio or lip sync file's name) of character `i`'s line
    /// `line`, as a [`SceneEventKind::Voice`] event numbers it.
    pub fn clip(&self, i: usize, line: usize) -> Option<&str> {
        self.clips.get(i)?.get(line).map(String::as_str)
    }

    /// The audio file of character `i`'s line `line` (as the scene's files were asked
    /// for it: the scene's folder joined with what it names), if it names one.
    pub fn audio_path(&self, i: usize, line: usize) -> Option<&Path> {
        self.loaded
            .characters
            .get(i)?
            .lines
            .get(line)?
            .audio
            .as_deref()
    }

    /// The VRM of character `i` when it is a built-in avatar (it has no file of its
    /// own: a host that shows it writes these bytes).
    pub fn builtin_vrm(&self, i: usize) -> Option<&[u8]> {
        self.loaded.characters[i].builtin_vrm.as_deref()
    }

    /// Bakes the scene from its start at a fixed frame rate with a script of presses
    /// ([`omote_scene::bake`] on a copy: the scene playing is not touched), one anim per
    /// character.
    /// The press times must be finite and from 0 to the bake's `max_s`, and the bake
    /// no larger than [`omote_scene::bake_size`] allows (checked before any work).
    pub fn bake(&self, options: &BakeOptions) -> Result<Vec<BakedCharacter>, EmbedError> {
        check_fps(options.fps)?;
        let mut scene = self.loaded.scene.clone();
        omote_scene::bake(&mut scene, &self.clips, options, |_, _| {})
            .map_err(|e| EmbedError::Argument(format!("cannot bake the scene: {e}")))
    }

    /// Starts recording what is played: from the next update, every update adds one
    /// frame of every character (with the scene's events) to an anim at `fps` — so
    /// update at steps of `1 / fps` for the anim's timing to be the played one. A
    /// recording already running is dropped.
    pub fn record(&mut self, fps: f32) -> Result<(), EmbedError> {
        check_fps(fps)?;
        self.recorder = Some(SceneRecorder::new(&self.scene, &self.clips, fps));
        Ok(())
    }

    /// Ends the recording and gives one anim per character (none if nothing was
    /// recording).
    pub fn finish_recording(&mut self) -> Vec<BakedCharacter> {
        self.recorder
            .take()
            .map(SceneRecorder::finish)
            .unwrap_or_default()
    }

    /// Character `i`'s anim as a VRM Animation (`.vrma`), for its VRM.
    pub fn vrma(&self, i: usize, anim: &omote_core::Anim) -> Result<Vec<u8>, EmbedError> {
        let c = &self.loaded.characters[i];
        let model = c.model.as_ref().ok_or_else(|| {
            EmbedError::Argument(format!(
                "character `{}` ({}) has no VRM to animate",
                c.id, c.rig_source
            ))
        })?;
        crate::vrma(anim, model)
    }
}

impl From<SceneFileError> for EmbedError {
    fn from(e: SceneFileError) -> Self {
        // A scene that names a file that is not there: a missing file in every binding.
        if e.missing_file {
            EmbedError::FileNotFound(e.to_string())
        } else {
            EmbedError::Scene(e.to_string())
        }
    }
}
