//! [`Character`]: one character's face for a host program — the core's [`FaceDriver`]
//! with a voice-line player (hand-over and afterglow) and a live voice, built from a rig,
//! with the inputs a host sets (acting and picture weights, gaze, head, eye mode, lines
//! to say, live vowel frames, a tracked face, a camera) and the outputs it writes to the
//! avatar.

use std::sync::Arc;

use omote_core::anim::AnimRecorder;
use omote_core::speech::SpeechConfig;
use omote_core::{
    Anim, CameraCorrection, ChannelId, DriverInputs, EyeMode, FaceConfig, FaceDriver, FaceEvent,
    FaceEvents, FaceState, MouthPolicy, Quat, RetargetConfig, Rig, RigDesc, SpeechTrack,
    TrackedFace, Vec3, VoiceFrame,
};

use omote_core::eyes::Gaze;

use crate::expression_fades::ExpressionFades;
use crate::{EmbedError, VoiceAnalysis};

/// One character's face, driven frame by frame (see the module and crate docs for the
/// contracts: what any `dt` does, how it composes with the host's own animation).
///
/// ```
/// let rig = r#"{"presets": true}"#;
/// let mut face = omote_embed::Character::from_rig_json(rig, 1).unwrap();
/// face.set_expression_named("happy", 1.0).unwrap();
/// face.update(1.0 / 60.0);
/// let happy = face.channel("happy").unwrap();
/// assert!(face.weight(happy) > 0.0);
/// ```
pub struct Character {
    driver: FaceDriver,
    names: Vec<String>,
    head: Option<Quat>,
    gaze_yaw_deg: f32,
    gaze_pitch_deg: f32,
    voice: Option<VoiceFrame>,
    /// Face time since the last live voice frame, while one is in force (`None`: none, or
    /// it went stale and the mouth was let go).
    voice_age_s: Option<f32>,
    /// Expressions moving to a new weight ([`Character::fade_expression`]).
    fades: ExpressionFades,
    tracked: Option<TrackedFace>,
    camera: Option<Vec3>,
    line_events: LineEvents,
    recorder: Option<AnimRecorder>,
    camera_on: bool,
    /// The last step taken as given (≤ [`MAX_STEP_S`]): what a longer `dt` becomes.
    last_step: f32,
}

/// The longest `dt` (seconds) [`Character::update`] takes as it is: 0.25 s, a render
/// loop at 4 frames per second. A longer one is a gap (a tab back from the background,
/// a breakpoint, the first delta of a clock started long before the loop) in which
/// nothing was shown, and the face resumes from where it was: the step becomes the last
/// one taken (1/60 s before any).
pub const MAX_STEP_S: f32 = 0.25;

/// How long (face time, seconds) the last live voice frame holds the mouth when no new
/// one comes: 0.1 s, ten frames of the voice, well over a render's jitter; then the
/// voice counts as silent (the web package's voice input uses the same 0.1 s).
pub const LIVE_VOICE_STALE_S: f32 = 0.1;

/// A gap's step before any normal step was seen: one frame at 60 frames per second.
const FIRST_STEP_S: f32 = 1.0 / 60.0;

/// Steps shorter than this (s) are taken but not remembered as the normal step, so a
/// gap after them still moves the face by a visible frame.
const MIN_REMEMBERED_STEP_S: f32 = 1e-3;

/// What a voice line did in the last update.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LineEvents {
    /// The voice of a line started (the mouth opens with it).
    pub voice_started: bool,
    /// A line handed the mouth over to the acting (0.2 s before its voice ends, or at a
    /// cut).
    pub handed_over: bool,
}

impl Character {
    /// A character for `rig`, its automatic motion (blinks, saccades) seeded with `seed`:
    /// the same seed and calls give the same faces, to the bit.
    pub fn new(rig: Arc<Rig>, seed: u64) -> Result<Self, EmbedError> {
        if rig.is_empty() {
            return Err(EmbedError::NoExpressions(None));
        }
        let names: Vec<String> = rig
            .channels()
            .map(|(id, _)| rig.channel_name(id).to_owned())
            .collect();
        let fades = ExpressionFades::new(names.len());
        let driver = FaceDriver::new(rig, FaceConfig::default(), seed)
            .with_speech(SpeechConfig::default())
            .with_voice(MouthPolicy::VoiceFirst);
        Ok(Self {
            driver,
            names,
            head: None,
            gaze_yaw_deg: 0.0,
            gaze_pitch_deg: 0.0,
            voice: None,
            voice_age_s: None,
            fades,
            tracked: None,
            camera: None,
            line_events: LineEvents::default(),
            recorder: None,
            camera_on: false,
            last_step: FIRST_STEP_S,
        })
    }

    /// A character for the rig described by `rig_json` (the rig file's fields as JSON:
    /// `name`, `presets`, `arkit`, `expressions` with `name`, `isBinary`,
    /// `overrideBlink`/`overrideLookAt`/`overrideMouth`, `eyeClosure`, `lookAt`; the
    /// web package's three-vrm adapter builds it from a loaded VRM).
    pub fn from_rig_json(rig_json: &str, seed: u64) -> Result<Self, EmbedError> {
        Self::new(rig_from_json(rig_json)?, seed)
    }

    /// A character for an avatar (a VRM, a rig file, a built-in one); an error names the
    /// avatar (its file).
    #[cfg(feature = "avatar")]
    pub fn from_avatar(avatar: &omote_avatar::Avatar, seed: u64) -> Result<Self, EmbedError> {
        Self::new(avatar.rig.clone(), seed).map_err(|e| match e {
            EmbedError::NoExpressions(None) => EmbedError::NoExpressions(Some(avatar.name.clone())),
            e => e,
        })
    }

    /// Tracks a face: [`Character::set_tracked`] frames go through a retargeter with
    /// `config` into their own layer, over the acting; a lost face fades back to it.
    pub fn with_tracking(mut self, config: RetargetConfig) -> Result<Self, EmbedError> {
        self.enable_tracking(config)?;
        Ok(self)
    }

    /// [`Character::with_tracking`] on a character already made (a host turning
    /// tracking on when a tracker connects). Calling it again starts tracking afresh
    /// with the new settings: the calibration and the fade-in from the acting start over.
    pub fn enable_tracking(&mut self, config: RetargetConfig) -> Result<(), EmbedError> {
        let retargeted = |d: FaceDriver| {
            d.with_tracking(config)
                .map_err(|e| EmbedError::Argument(e.to_string()))
        };
        self.rebuild(retargeted)
    }

    /// Corrects the face for the camera angle ([`Character::set_camera`]) with a motion
    /// map resolved against this character's rig.
    pub fn with_camera(mut self, correction: CameraCorrection) -> Result<Self, EmbedError> {
        self.enable_camera(correction)?;
        Ok(self)
    }

    /// [`Character::with_camera`] on a character already made; once only (the
    /// correction is a layer of the face).
    pub fn enable_camera(&mut self, correction: CameraCorrection) -> Result<(), EmbedError> {
        if self.camera_on {
            return Err(EmbedError::Argument(
                "the camera correction is on already".into(),
            ));
        }
        self.rebuild(|d| Ok(d.with_camera(correction)))?;
        self.camera_on = true;
        Ok(())
    }

    /// Gives the driver to `f` and takes back what it makes; on an error the driver is
    /// as it was. (The driver's builders take it by value: a placeholder stands in.)
    fn rebuild(
        &mut self,
        f: impl FnOnce(FaceDriver) -> Result<FaceDriver, EmbedError>,
    ) -> Result<(), EmbedError> {
        let placeholder = FaceDriver::new(self.driver.rig().clone(), FaceConfig::default(), 0);
        let driver = std::mem::replace(&mut self.driver, placeholder);
        let backup = driver.clone();
        match f(driver) {
            Ok(d) => {
                self.driver = d;
                Ok(())
            }
            Err(e) => {
                self.driver = backup;
                Err(e)
            }
        }
    }

    /// The rig.
    pub fn rig(&self) -> &Arc<Rig> {
        self.driver.rig()
    }

    /// The channel names, in the order of [`Character::weights`].
    pub fn channel_names(&self) -> &[String] {
        &self.names
    }

    /// The channel called `name`.
    pub fn channel(&self, name: &str) -> Result<ChannelId, EmbedError> {
        self.driver
            .rig()
            .channel(name)
            .ok_or_else(|| EmbedError::UnknownExpression(name.to_owned()))
    }

    /// Sets an acted expression (the base layer: what the character is doing; the
    /// host's own expressions go here too). A weight is clamped to 0–1; NaN is refused.
    pub fn set_expression(&mut self, id: ChannelId, weight: f32) -> Result<(), EmbedError> {
        let weight = self.checked_weight(id, weight)?;
        self.fades.set(self.driver.acting_mut(), id, weight);
        Ok(())
    }

    /// [`Character::set_expression`] by name.
    pub fn set_expression_named(&mut self, name: &str, weight: f32) -> Result<(), EmbedError> {
        let id = self.channel(name)?;
        self.set_expression(id, weight)
    }

    /// Moves an acted expression from its weight now to `weight` over `seconds` (0–60;
    /// 0: at once, as [`Character::set_expression`]), eased in and out as a scene key's
    /// `fade` is: an emotion that changes, not one that jumps. A later call on the same
    /// expression starts from where it has got to; `set_expression` ends the fade.
    pub fn fade_expression(
        &mut self,
        id: ChannelId,
        weight: f32,
        seconds: f32,
    ) -> Result<(), EmbedError> {
        let weight = self.checked_weight(id, weight)?;
        checked_fade_s(self.driver.rig(), id, seconds)?;
        self.fades
            .fade(self.driver.acting_mut(), id, weight, seconds);
        Ok(())
    }

    /// [`Character::fade_expression`] by name.
    pub fn fade_expression_named(
        &mut self,
        name: &str,
        weight: f32,
        seconds: f32,
    ) -> Result<(), EmbedError> {
        let id = self.channel(name)?;
        self.fade_expression(id, weight, seconds)
    }

    /// Sets a picture-making adjustment (the additive layer, on top of everything the
    /// face shows: a camera's cheat, a stylised touch).
    pub fn set_picture(&mut self, id: ChannelId, weight: f32) -> Result<(), EmbedError> {
        let weight = self.checked_weight(id, weight)?;
        self.driver.picture_mut().set(id, weight);
        Ok(())
    }

    fn checked_weight(&self, id: ChannelId, weight: f32) -> Result<f32, EmbedError> {
        checked_weight(self.driver.rig(), id, weight)
    }

    /// Sets the acted gaze in degrees (yaw > 0: toward the avatar's left; pitch > 0:
    /// down), clamped to ±90°; the automatic saccades play around it.
    pub fn set_gaze(&mut self, gaze: Gaze) -> Result<(), EmbedError> {
        let Gaze { yaw_deg, pitch_deg } = gaze;
        if !(yaw_deg.is_finite() && pitch_deg.is_finite()) {
            return Err(EmbedError::Argument(format!(
                "yaw {yaw_deg}, pitch {pitch_deg}: not finite"
            )));
        }
        self.gaze_yaw_deg = yaw_deg.clamp(-90.0, 90.0);
        self.gaze_pitch_deg = pitch_deg.clamp(-90.0, 90.0);
        Ok(())
    }

    /// Points the acted gaze along `direction`, given in the head's own frame (+Z ahead,
    /// +X the avatar's left, +Y up): the host turns a target's position into its animated
    /// head bone's local space each frame, so the eyes follow a target it moves and stay
    /// on it while its own animation turns the head. A zero or non-finite direction is
    /// refused.
    pub fn set_gaze_target(&mut self, direction: Vec3) -> Result<(), EmbedError> {
        if !(direction.is_finite() && direction.length_squared() > 1e-12) {
            return Err(EmbedError::Argument(format!(
                "gaze direction {direction:?} is not a direction"
            )));
        }
        self.set_gaze(Gaze::toward(direction))
    }

    /// Sets the acted head rotation (VRM frame, relative to the rest pose); normalised.
    pub fn set_head(&mut self, rotation: Quat) -> Result<(), EmbedError> {
        if !(rotation.is_finite() && rotation.length_squared() > 1e-12) {
            let [x, y, z, w] = rotation.to_array();
            return Err(EmbedError::Argument(format!(
                "({x}, {y}, {z}, {w}) is not a rotation"
            )));
        }
        self.head = Some(rotation.normalize());
        Ok(())
    }

    /// Sets the eye mode (blink rate and gaze behaviour; while a line plays the face is
    /// talking anyway).
    pub fn set_eye_mode(&mut self, mode: EyeMode) {
        self.driver.set_eye_mode(mode);
    }

    /// Blinks `delay_s` seconds from now (0: as soon as the eyes are free), a blink the
    /// acting asks for; refused when too many are waiting, and for a delay that is
    /// negative or not a finite number.
    pub fn request_blink(&mut self, delay_s: f32) -> Result<(), EmbedError> {
        if !(delay_s.is_finite() && delay_s >= 0.0) {
            return Err(EmbedError::Argument(format!(
                "a blink in {delay_s} s: the delay must be a finite number of seconds ≥ 0"
            )));
        }
        Ok(self.driver.face_mut().request_blink_in(delay_s)?)
    }

    /// Announces an eye-area change `in_s` seconds ahead (a surprised key, eyes shut in
    /// the game's own timeline): no automatic blink starts shortly before it, so a blink
    /// does not fight the change. What a scene does for its own keys; a host driving
    /// expressions from its own timeline calls it with its look-ahead.
    pub fn announce_eye_change(&mut self, in_s: f32) -> Result<(), EmbedError> {
        if !(in_s.is_finite() && in_s >= 0.0) {
            return Err(EmbedError::Argument(format!(
                "an eye change in {in_s} s: the time must be a finite number of seconds ≥ 0"
            )));
        }
        Ok(self.driver.face_mut().schedule_eye_change(in_s)?)
    }

    /// Says a voice line now, with an afterglow mouth after it (`(channel, weight)`
    /// pairs, may be empty; weights clamped to 0–1, NaN refused). The mouth starts with
    /// the voice and hands over smoothly into the acting 0.2 s before its end.
    pub fn say(
        &mut self,
        track: Arc<SpeechTrack>,
        afterglow: &[(ChannelId, f32)],
    ) -> Result<(), EmbedError> {
        self.say_at(track, afterglow, 0.0)
    }

    /// [`say`](Self::say) with the line already `elapsed` seconds in when the next
    /// update starts (negative: it starts that much into that update's step, or later).
    /// A host keeping lines on an audio clock starts each with `elapsed` = where its audio
    /// is heard after the next update, minus that update's step ([`Self::step_for`]), so
    /// the voice lands on its audio time to the sample, not to the frame.
    pub fn say_at(
        &mut self,
        track: Arc<SpeechTrack>,
        afterglow: &[(ChannelId, f32)],
        elapsed: f32,
    ) -> Result<(), EmbedError> {
        if !elapsed.is_finite() {
            return Err(EmbedError::Argument(format!(
                "a line {elapsed} s in: must be a finite number of seconds"
            )));
        }
        let mut glow = Vec::with_capacity(afterglow.len());
        for &(id, w) in afterglow {
            glow.push((id, self.checked_weight(id, w)?));
        }
        let ramp = self
            .driver
            .speech()
            .map_or(SpeechConfig::default().afterglow_ramp_s, |s| {
                s.config().afterglow_ramp_s
            });
        self.driver
            .say_at(track, &glow, ramp, elapsed)
            .map_err(|e| EmbedError::Argument(e.to_string()))
    }

    /// Says a line given as an analysis ([`crate::analyse_voice`], [`crate::Speaker`],
    /// resampled to any rate: a span past its last frame, as few frames per second leave
    /// it, ends with the frames).
    pub fn say_analysis(
        &mut self,
        analysis: &VoiceAnalysis,
        afterglow: &[(ChannelId, f32)],
    ) -> Result<(), EmbedError> {
        self.say_analysis_at(analysis, afterglow, 0.0)
    }

    /// [`say_analysis`](Self::say_analysis) `elapsed` seconds in (see [`Self::say_at`]):
    /// also how a host puts a playing line back on its audio after a hitch (a step over
    /// [`MAX_STEP_S`] is one frame for the face while the audio played on) — said again
    /// where the audio source is.
    pub fn say_analysis_at(
        &mut self,
        analysis: &VoiceAnalysis,
        afterglow: &[(ChannelId, f32)],
        elapsed: f32,
    ) -> Result<(), EmbedError> {
        let frames_s = VoiceAnalysis::whole_span(analysis.frames.len(), analysis.fps)
            .map_or(0.0, |(_, end)| end);
        let voiced = analysis
            .voiced()
            .map(|(a, b)| (a.min(frames_s), b.min(frames_s)));
        let track = speech_track(&analysis.frames, analysis.fps, voiced)?;
        self.say_at(Arc::new(track), afterglow, elapsed)
    }

    /// Says a line given as flat numbers: `frames` 6 per frame (A I U E O N) at `fps`,
    /// the voiced span in seconds (`None`: a line with no voice, which releases the
    /// afterglow before it; a mouth track to play whole spans the clip:
    /// [`VoiceAnalysis::whole_span`](crate::VoiceAnalysis::whole_span)), the afterglow
    /// by expression name.
    pub fn say_frames(
        &mut self,
        frames: &[f32],
        fps: f32,
        voiced: Option<(f64, f64)>,
        afterglow: &[(String, f32)],
    ) -> Result<(), EmbedError> {
        self.say_frames_at(frames, fps, voiced, afterglow, 0.0)
    }

    /// [`say_frames`](Self::say_frames) `elapsed` seconds in (see [`Self::say_at`]).
    pub fn say_frames_at(
        &mut self,
        frames: &[f32],
        fps: f32,
        voiced: Option<(f64, f64)>,
        afterglow: &[(String, f32)],
        elapsed: f32,
    ) -> Result<(), EmbedError> {
        let (track, glow) = self.line_from_frames(frames, fps, voiced, afterglow)?;
        self.say_at(Arc::new(track), &glow, elapsed)
    }

    /// A line given as numbers: its track, and its afterglow by channel.
    fn line_from_frames(
        &self,
        frames: &[f32],
        fps: f32,
        voiced: Option<(f64, f64)>,
        afterglow: &[(String, f32)],
    ) -> Result<(SpeechTrack, Vec<(ChannelId, f32)>), EmbedError> {
        let track = speech_track(frames, fps, voiced)?;
        let glow = afterglow
            .iter()
            .map(|(name, w)| Ok((self.channel(name)?, *w)))
            .collect::<Result<_, EmbedError>>()?;
        Ok((track, glow))
    }

    /// What [`Character::say_frames_at`] would refuse in this line, without saying it (a
    /// host that queues lines checks each when it is given).
    pub fn check_line_frames(
        &self,
        frames: &[f32],
        fps: f32,
        voiced: Option<(f64, f64)>,
        afterglow: &[(String, f32)],
    ) -> Result<(), EmbedError> {
        let (_, glow) = self.line_from_frames(frames, fps, voiced, afterglow)?;
        for (id, w) in glow {
            self.checked_weight(id, w)?;
        }
        Ok(())
    }

    /// Stops the line that plays (the mouth hands over from now, no snap). Its afterglow
    /// ramps in from the cut, then holds and releases as after any line.
    pub fn cut(&mut self) {
        self.driver.cut_speech();
    }

    /// How long a line's afterglow stays at full once the line has ended, and how long it
    /// then takes to release to 0 (seconds). A hold of `f32::INFINITY` — the default —
    /// keeps it until the next line. A negative or NaN time is refused.
    ///
    /// The afterglow is added on top of the acting: [`Character::set_expression`] does
    /// not end it (happy 0.6 acted + 0.3 afterglow shows 0.9 until the afterglow
    /// releases); a cut line's afterglow ramps in from the cut; a line with no voice
    /// releases the previous afterglow over the release time; the next voiced line fades
    /// it out before its voice starts.
    pub fn set_afterglow_timing(&mut self, hold_s: f32, release_s: f32) -> Result<(), EmbedError> {
        if !(hold_s >= 0.0 && release_s >= 0.0 && release_s.is_finite()) {
            return Err(EmbedError::Argument(format!(
                "afterglow hold {hold_s} s, release {release_s} s: the hold must be a number ≥ 0 (∞: until the next line), the release a finite one ≥ 0"
            )));
        }
        self.driver.set_afterglow_timing(hold_s, release_s);
        Ok(())
    }

    /// Releases the afterglow showing now to 0 over `release_s` seconds (0: at once). A
    /// line playing keeps its own afterglow for its end. A negative, NaN or infinite
    /// time is refused.
    pub fn clear_afterglow(&mut self, release_s: f32) -> Result<(), EmbedError> {
        if !(release_s.is_finite() && release_s >= 0.0) {
            return Err(EmbedError::Argument(format!(
                "afterglow release {release_s} s: must be a finite number of seconds ≥ 0"
            )));
        }
        self.driver.clear_afterglow(release_s);
        Ok(())
    }

    /// Whether the character is speaking a voice line now: from the line's voiced onset
    /// until its hand-over into the acting (0.2 s before the voice ends). Not while the
    /// line's leading silence plays, nor in its tail: to queue the next line when one
    /// has ended, use the line's own length.
    pub fn is_speaking(&self) -> bool {
        self.driver.speech().is_some_and(|s| s.is_speaking())
    }

    /// The live voice's frame for the next update (a microphone's lip sync): the voice
    /// drives the mouth while it sounds. Updates without a new frame keep the last one
    /// (frames come at 100 a second, renders at any rate) for up to
    /// [`LIVE_VOICE_STALE_S`]; after that the voice counts as silent and the mouth closes,
    /// so a sound stopped or an audio thread stalled never leaves it open.
    pub fn set_live_voice(&mut self, frame: VoiceFrame) {
        self.voice = Some(frame);
    }

    /// Hears live samples: pushes them into `stream` (a microphone's or an audio
    /// callback's, at the stream's rate) and, when they complete a frame, takes the
    /// newest as the live voice for the next update.
    pub fn hear(
        &mut self,
        stream: &mut crate::VoiceStream,
        samples: &[f32],
    ) -> Result<(), EmbedError> {
        if let Some(frame) = stream.push_frames(samples)?.last() {
            self.set_live_voice(frame.voice_frame());
        }
        Ok(())
    }

    /// [`Character::set_live_voice`] from numbers: A I U E O (and N, not read) and
    /// whether the frame is voiced.
    pub fn set_live_vowels(&mut self, vowels: &[f32], voiced: bool) -> Result<(), EmbedError> {
        if vowels.len() != 6 && vowels.len() != 5 {
            return Err(EmbedError::Argument(format!(
                "{} numbers, not 5 or 6 (A I U E O, and N, which is not read)",
                vowels.len()
            )));
        }
        if let Some(i) = vowels.iter().position(|v| !v.is_finite()) {
            return Err(EmbedError::Argument(format!("vowel {i} is {}", vowels[i])));
        }
        self.set_live_voice(VoiceFrame::from_weights(vowels, voiced));
        Ok(())
    }

    /// The tracked face for the next updates (`None`: lost); needs
    /// [`Character::with_tracking`].
    pub fn set_tracked(&mut self, face: Option<TrackedFace>) {
        self.tracked = face;
    }

    /// The tracked face for the next updates from numbers: the 52 ARKit scores in
    /// [`omote_core::tracking::ARKIT_52`]'s order (clamped to 0–1) and the head rotation
    /// if the tracker has one (`x y z w`, relative to the camera, VRM frame). NaN is
    /// refused; needs [`Character::with_tracking`].
    pub fn set_tracked_arkit(
        &mut self,
        scores: &[f32],
        head: Option<Quat>,
    ) -> Result<(), EmbedError> {
        if !self.driver.has_tracking() {
            return Err(EmbedError::Argument(
                "tracking is off: turn it on for this character before giving it tracked faces"
                    .into(),
            ));
        }
        let Ok(scores) = <[f32; 52]>::try_from(scores) else {
            return Err(EmbedError::Argument(format!(
                "{} ARKit scores, not 52",
                scores.len()
            )));
        };
        if let Some(i) = scores.iter().position(|v| !v.is_finite()) {
            return Err(EmbedError::Argument(format!(
                "ARKit score {i} (`{}`) is {}",
                omote_core::tracking::ARKIT_52[i],
                scores[i]
            )));
        }
        let head = match head {
            Some(q) if !(q.is_finite() && q.length_squared() > 1e-12) => {
                let [x, y, z, w] = q.to_array();
                return Err(EmbedError::Argument(format!(
                    "head ({x}, {y}, {z}, {w}) is not a rotation"
                )));
            }
            q => q.map(Quat::normalize),
        };
        let blendshapes = omote_core::tracking::Blendshapes(scores.map(|v| v.clamp(0.0, 1.0)));
        self.set_tracked(Some(TrackedFace { blendshapes, head }));
        Ok(())
    }

    /// Takes the user's neutral head pose from the next `seconds` of tracked faces (they
    /// look at the screen as they mean "straight ahead"; 0: the next face): a camera
    /// above or beside the screen no longer leaves the avatar's head turned. Needs
    /// [`Character::with_tracking`]; the calibration stays until the next call.
    pub fn calibrate_tracking(&mut self, seconds: f32) -> Result<(), EmbedError> {
        if !(0.0..=60.0).contains(&seconds) {
            return Err(EmbedError::Argument(format!(
                "calibrating over {seconds} s: the time must be 0 to 60 seconds"
            )));
        }
        let Some(retargeter) = self.driver.retargeter_mut() else {
            return Err(EmbedError::Argument(
                "tracking is off: turn it on for this character before calibrating it".into(),
            ));
        };
        retargeter.calibrate_over(seconds);
        Ok(())
    }

    /// The tracked face for the next updates from named scores, as trackers report them
    /// (MediaPipe's `faceBlendshapes`: ARKit names in any spelling; names that are not
    /// ARKit's, like MediaPipe's `_neutral`, are skipped; missing ones are 0) and, if
    /// given, the head as a row-major 4×4 transform (MediaPipe's facial transformation
    /// matrix, an ARKit anchor's): what a web page's tracker gives. Needs
    /// [`Character::with_tracking`].
    pub fn set_tracked_named<S: AsRef<str>>(
        &mut self,
        names: &[S],
        scores: &[f32],
        head_row_major: Option<&[f32]>,
    ) -> Result<(), EmbedError> {
        if names.len() != scores.len() {
            return Err(EmbedError::Argument(format!(
                "{} names for {} scores: one name per score",
                names.len(),
                scores.len()
            )));
        }
        let mut arkit = [0.0f32; 52];
        for (name, &score) in names.iter().zip(scores) {
            let name = name.as_ref();
            if !score.is_finite() {
                return Err(EmbedError::Argument(format!(
                    "the score of `{}` is {score}",
                    omote_fs::echo(name)
                )));
            }
            if let Some(i) = omote_core::tracking::arkit_index_any_spelling(name) {
                arkit[i] = score;
            }
        }
        let head = match head_row_major {
            None => None,
            Some(m) => {
                let m = <&[f32; 16]>::try_from(m).map_err(|_| {
                    EmbedError::Argument(format!(
                        "the head transform has {} numbers, not 16 (a 4×4 matrix, row by row)",
                        m.len()
                    ))
                })?;
                Some(TrackedFace::head_from_row_major(m).ok_or_else(|| {
                    EmbedError::Argument(
                        "the head transform is not a rotation (with scale and translation)".into(),
                    )
                })?)
            }
        };
        self.set_tracked_arkit(&arkit, head)
    }

    /// Where the camera is (VRM frame, metres), for the camera-angle correction; `None`
    /// turns it off.
    pub fn set_camera(&mut self, position: Option<Vec3>) -> Result<(), EmbedError> {
        if let Some(p) = position.filter(|p| !p.is_finite()) {
            return Err(EmbedError::Argument(format!(
                "the camera position [{}, {}, {}] is not three finite numbers",
                p.x, p.y, p.z
            )));
        }
        self.camera = position;
        Ok(())
    }

    /// This update's live voice frame: a new one, else none while the last is fresh, else
    /// a silent one — every update until a new frame comes, so a silence the driver did
    /// not take (a voice line was playing) is not lost.
    fn live_voice_for(&mut self, dt: f32) -> Option<VoiceFrame> {
        if let Some(frame) = self.voice.take() {
            self.voice_age_s = Some(0.0);
            return Some(frame);
        }
        let age = self.voice_age_s? + dt;
        self.voice_age_s = Some(age.min(2.0 * LIVE_VOICE_STALE_S));
        (age > LIVE_VOICE_STALE_S).then_some(VoiceFrame::SILENT)
    }

    /// Advances the face by `dt` seconds and computes its frame. Any `dt` is taken, as
    /// a render loop gives it (the crate doc's time contract):
    ///
    /// - finite, positive and at most [`MAX_STEP_S`]: a step of exactly `dt`;
    /// - longer (a tab back from the background after 5 s): one normal frame — the last
    ///   step taken, 1/60 s before any — so the face changes no more than in any frame
    ///   and resumes where it was; a voice line resumes where it stopped, too (a host
    ///   whose audio played on says it again where the audio is,
    ///   [`Character::say_analysis_at`], cuts it or starts the next line);
    /// - zero, negative, NaN or infinite: no time passes; the frame is recomputed from
    ///   the inputs.
    ///
    /// A live voice frame holds the mouth until the next one, for at most
    /// [`LIVE_VOICE_STALE_S`]; then the voice is silent.
    pub fn update(&mut self, dt: f32) {
        let dt = self.step(dt);
        let voice = self.live_voice_for(dt);
        self.fades.advance(dt, self.driver.acting_mut());
        let inputs = DriverInputs {
            tracking: self.tracked.as_ref(),
            voice,
            camera: self.camera,
            head: self.head.unwrap_or(Quat::IDENTITY),
            gaze_yaw_deg: self.gaze_yaw_deg,
            gaze_pitch_deg: self.gaze_pitch_deg,
        };
        let was_speaking = self.is_speaking();
        self.driver.update(dt, &inputs);
        let speaking = self.is_speaking();
        self.line_events = LineEvents {
            voice_started: speaking && !was_speaking,
            handed_over: was_speaking && !speaking,
        };
        if let Some(r) = &mut self.recorder
            && dt > 0.0
        {
            r.record(self.driver.state());
        }
    }

    /// The step (seconds) `update(dt)` would take now (see [`Character::update`]): `dt`,
    /// one normal frame for a gap, or 0.
    pub fn step_for(&self, dt: f32) -> f32 {
        if !(dt.is_finite() && dt > 0.0) {
            0.0
        } else if dt > MAX_STEP_S {
            self.last_step
        } else {
            dt
        }
    }

    /// The step `update(dt)` takes, remembering a normal one.
    fn step(&mut self, dt: f32) -> f32 {
        let step = self.step_for(dt);
        if step == dt && dt >= MIN_REMEMBERED_STEP_S {
            self.last_step = dt;
        }
        step
    }

    /// What a voice line did in the last update.
    pub fn line_events(&self) -> LineEvents {
        self.line_events
    }

    /// Starts recording the face: from the next update, every update with a step adds
    /// one frame (with its blinks, saccades and voice events) to an anim at `fps` — so
    /// update at steps of `1 / fps` for the anim's timing to be the played one. A
    /// recording already running is dropped. Recording allocates as the anim grows.
    pub fn record(&mut self, fps: f32) -> Result<(), EmbedError> {
        check_fps(fps)?;
        self.recorder = Some(AnimRecorder::new(self.driver.rig(), fps));
        Ok(())
    }

    /// Ends the recording and gives its anim (`None` if nothing was recording); write it
    /// with [`crate::anim_json`] or [`crate::vrma_with_neck_share`] at
    /// [`Character::neck_share`].
    pub fn finish_recording(&mut self) -> Option<Anim> {
        self.recorder.take().map(AnimRecorder::finish)
    }

    /// The share of the head's turn a recording's VRMA gives the neck, where the model
    /// has one: the tracking settings' `neckShare` while tracking is on, else the
    /// default half.
    pub fn neck_share(&self) -> f32 {
        self.driver
            .retargeter()
            .map_or(omote_core::tracking::NECK_SHARE, |r| r.config().neck_share)
    }

    /// The weights after the VRM override rules (what the face shows), in channel order:
    /// for players that apply no rules of their own (VRM 0.x receivers, three-vrm with
    /// its rules off).
    pub fn weights(&self) -> &[f32] {
        &self.driver.state().expressions
    }

    /// One channel's weight after the override rules.
    pub fn weight(&self, id: ChannelId) -> f32 {
        self.driver.state().weight(id)
    }

    /// The weights before the override rules, for a player that applies them itself
    /// (UniVRM 1.0's `SetWeight`, a VRMA, a VRM 1.0 VMC receiver).
    pub fn input_weights(&self) -> &[f32] {
        &self.driver.state().input_expressions
    }

    /// The whole frame (weights, rotations, gaze, events).
    pub fn state(&self) -> &FaceState {
        self.driver.state()
    }

    /// Head, left eye and right eye rotations (`x y z w` each, 12 numbers), VRM frame,
    /// relative to the rest pose: multiply onto the host's animated local rotation to put
    /// the face's head on top of its own animation.
    pub fn rotations(&self) -> [f32; 12] {
        rotations_of(self.driver.state())
    }

    /// The gaze after smoothing and saccades.
    pub fn gaze(&self) -> Gaze {
        let s = self.driver.state();
        Gaze::new(s.look_at_yaw_deg, s.look_at_pitch_deg)
    }

    /// What started in the last update (blinks, saccades, voice events).
    pub fn events(&self) -> &FaceEvents {
        &self.driver.state().events
    }

    /// Blinks started in the last update (0 or 1 usually).
    pub fn blinks_this_frame(&self) -> u32 {
        self.events()
            .iter()
            .filter(|e| matches!(e, FaceEvent::Blink(_)))
            .count() as u32
    }

    /// The driver, for what this API does not wrap.
    pub fn driver_mut(&mut self) -> &mut FaceDriver {
        &mut self.driver
    }
}

/// A camera-angle correction for `rig` from a motion map (`docs/motion-map.md`) given as
/// TOML text, or omote's built-in anime-face map when `None` (ARKit blendshapes: the ones
/// the rig has; a rig with none of them is refused).
#[cfg(feature = "scene")]
pub fn camera_correction(
    rig: &Rig,
    map_toml: Option<&str>,
) -> Result<CameraCorrection, EmbedError> {
    let argument = |e: &dyn std::fmt::Display| EmbedError::Argument(format!("the motion map: {e}"));
    match map_toml {
        None => omote_scene::anime_face_correction(rig).map_err(|e| argument(&e)),
        Some(text) => {
            let path = std::path::Path::new("motion map");
            let desc: omote_core::camera::MotionMapDesc =
                omote_config::parse(text, omote_config::Format::Toml, path)
                    .map_err(|e| argument(&e))?;
            let map = omote_core::MotionMap::new(&desc).map_err(|e| argument(&e))?;
            CameraCorrection::new(map, rig).map_err(|e| argument(&e))
        }
    }
}

/// A rig from its description as JSON (the rig file's fields: `name`, `presets`,
/// `arkit`, `expressions` with `name`, `isBinary`, `overrideBlink`/`overrideLookAt`/
/// `overrideMouth`, `eyeClosure`, `lookAt`).
pub fn rig_from_json(rig_json: &str) -> Result<Arc<Rig>, EmbedError> {
    let desc: RigDesc =
        serde_json::from_str(rig_json).map_err(|e| EmbedError::Rig(e.to_string()))?;
    let rig = Rig::from_desc(&desc).map_err(|e| EmbedError::Rig(e.to_string()))?;
    Ok(Arc::new(rig))
}

/// Tracking settings from JSON: any of the fields of a tracking settings file
/// (`omote live --config`, docs/tracking-format.md's "Tracking settings"), camelCase —
/// `{"mirror": true, "neckShare": 0.4, "smoothing": {"mouth": 0.05}}`; what is left out
/// keeps its default, an unknown field is refused by name, and every number is checked
/// against its range ([`RetargetConfig::check`], the rule files follow too). Every
/// binding's tracking settings come through here, for [`Character::enable_tracking`].
pub fn tracking_settings(json: &str) -> Result<RetargetConfig, EmbedError> {
    let refused = |e: String| EmbedError::Argument(format!("the tracking settings: {e}"));
    // An array would be read field by field in order (serde's sequence form of a
    // struct): settings are named.
    if !json.trim_start().starts_with('{') {
        return Err(refused("not a JSON object ({...})".into()));
    }
    // Natively through the settings files' own reader, which names the field
    // (`headFilter: missing field `beta``); the browser package reads with serde_json
    // alone (the path reader is 10 KB of its 250 KB) and names the field from the
    // position serde_json gives.
    #[cfg(feature = "avatar")]
    let config: RetargetConfig =
        omote_config::parse_json(json, std::path::Path::new("")).map_err(|e| match e {
            omote_config::ConfigError::Parse { field, message, .. } if !field.is_empty() => {
                refused(format!("{field}: {message}"))
            }
            omote_config::ConfigError::Parse { message, .. } => refused(message),
            e => refused(e.to_string()),
        })?;
    #[cfg(not(feature = "avatar"))]
    let config: RetargetConfig = serde_json::from_str(json).map_err(|e| {
        match crate::json_path::json_path_at(json, e.line(), e.column()) {
            path if path.is_empty() => refused(e.to_string()),
            path => refused(format!("{path}: {e}")),
        }
    })?;
    config.check().map_err(|e| refused(e.to_string()))?;
    Ok(config)
}

/// A frame rate an anim takes ([`omote_core::anim::ANIM_MIN_FPS`]..=[`omote_core::anim::ANIM_MAX_FPS`]).
/// An expression weight as every input takes it: NaN and infinities refused by the
/// expression's name, the rest clamped to 0–1.
pub(crate) fn checked_weight(rig: &Rig, id: ChannelId, weight: f32) -> Result<f32, EmbedError> {
    if !weight.is_finite() {
        return Err(EmbedError::Argument(format!(
            "the weight of `{}` is {weight}",
            rig.channel_name(id)
        )));
    }
    Ok(weight.clamp(0.0, 1.0))
}

/// An expression fade's time: 0 to 60 seconds.
pub(crate) fn checked_fade_s(rig: &Rig, id: ChannelId, seconds: f32) -> Result<(), EmbedError> {
    if !(0.0..=60.0).contains(&seconds) {
        return Err(EmbedError::Argument(format!(
            "fading `{}` over {seconds} s: the time must be 0 to 60 seconds",
            rig.channel_name(id)
        )));
    }
    Ok(())
}

pub(crate) fn check_fps(fps: f32) -> Result<(), EmbedError> {
    use omote_core::anim::{ANIM_MAX_FPS, ANIM_MIN_FPS};
    if fps.is_finite() && (ANIM_MIN_FPS..=ANIM_MAX_FPS).contains(&fps) {
        Ok(())
    } else {
        Err(EmbedError::Argument(format!(
            "{fps} fps is not a frame rate from 1 to 1000"
        )))
    }
}

/// A frame's head, left eye and right eye rotations, `x y z w` each (the layout of
/// [`Character::rotations`], which a scene player's characters share).
pub(crate) fn rotations_of(s: &FaceState) -> [f32; 12] {
    let mut out = [0.0; 12];
    for (i, q) in [s.head, s.left_eye, s.right_eye].iter().enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&q.to_array());
    }
    out
}

/// A voice line from flat numbers: 6 per frame (A I U E O N), the voiced span.
pub(crate) fn speech_track(
    frames: &[f32],
    fps: f32,
    voiced: Option<(f64, f64)>,
) -> Result<SpeechTrack, EmbedError> {
    if !frames.len().is_multiple_of(6) {
        return Err(EmbedError::Argument(format!(
            "{} numbers are not 6 per frame (A I U E O N)",
            frames.len()
        )));
    }
    if let Some(i) = frames.iter().position(|v| !v.is_finite()) {
        return Err(EmbedError::Argument(format!(
            "frame value {i} is {}",
            frames[i]
        )));
    }
    // The rates an anim takes: a track at 1e-30 fps would time its frames past any clock.
    check_fps(fps)?;
    let vowels = frames
        .chunks_exact(6)
        .map(|f| {
            let f = crate::analysis::frame_within_one(f);
            [f[0], f[1], f[2], f[3], f[4]]
        })
        .collect();
    let voiced = voiced.map(|(a, b)| (a as f32, b as f32));
    SpeechTrack::new(fps, vowels, voiced).map_err(|e| EmbedError::Argument(e.to_string()))
}
