//! The JavaScript face of omote (wasm32 only): thin wrappers over the embedding API
//! (`omote_embed`) that translate names and arrays, and turn each error into a
//! JavaScript `Error` naming the call (`Speaker.addLine: the sample buffer is empty`).
//! The npm package's `web/src/index.js` gives them their documented names and shapes.

// wasm-bindgen's generated glue uses unsafe code at the boundary; ours does not.
#![allow(unsafe_code)]

use wasm_bindgen::prelude::*;

use omote_embed::{
    Character, EmbedError, Speaker, VoiceStream, analyse_voice_with_profile, builtin_voice_profile,
    calibrate_voice_from_card,
};

/// A line's voiced span and afterglow as the embedding API takes them: a span of NaN is
/// none (an analysis with no speech), of +∞ the whole clip (frames given without one).
fn line_args(
    frames: &[f32],
    fps: f32,
    voiced_start: f64,
    voiced_end: f64,
    names: Vec<String>,
    weights: &[f32],
) -> (Option<(f64, f64)>, Vec<(String, f32)>) {
    let voiced = if voiced_start == f64::INFINITY && voiced_end == f64::INFINITY {
        omote_embed::VoiceAnalysis::whole_span(frames.len(), fps)
    } else {
        (voiced_start.is_finite() && voiced_end.is_finite()).then_some((voiced_start, voiced_end))
    };
    (
        voiced,
        names.into_iter().zip(weights.iter().copied()).collect(),
    )
}

/// `call`'s error as JavaScript sees it: `call: what is wrong`.
fn js(call: &'static str) -> impl Fn(EmbedError) -> JsError {
    move |e| JsError::new(&format!("{call}: {e}"))
}

/// A clip's analysis as JavaScript sees it.
#[wasm_bindgen]
pub struct Analysis {
    inner: omote_embed::VoiceAnalysis,
}

#[wasm_bindgen]
impl Analysis {
    /// Frames per second.
    #[wasm_bindgen(getter)]
    pub fn fps(&self) -> f32 {
        self.inner.fps
    }
    /// 6 numbers per frame (A I U E O N).
    #[wasm_bindgen(getter)]
    pub fn frames(&self) -> Vec<f32> {
        self.inner.frames.clone()
    }
    /// Per frame 1 when silent, else 0.
    #[wasm_bindgen(getter)]
    pub fn silent(&self) -> Vec<u8> {
        self.inner.silent.iter().map(|s| u8::from(*s)).collect()
    }
    /// Speech start in seconds, or undefined.
    #[wasm_bindgen(getter, js_name = voicedStart)]
    pub fn voiced_start(&self) -> Option<f64> {
        self.inner.voiced_start
    }
    /// Speech end in seconds, or undefined.
    #[wasm_bindgen(getter, js_name = voicedEnd)]
    pub fn voiced_end(&self) -> Option<f64> {
        self.inner.voiced_end
    }
    /// Duration in seconds.
    #[wasm_bindgen(getter, js_name = durationS)]
    pub fn duration_s(&self) -> f64 {
        self.inner.duration_s
    }
}

/// Analyses mono samples at `sample_rate` Hz, with a lip sync profile's JSON (none: the
/// built-in one).
#[wasm_bindgen(js_name = analyseVoice)]
pub fn analyse_voice_js(
    samples: &[f32],
    sample_rate: f64,
    profile: Option<String>,
) -> Result<Analysis, JsError> {
    analyse_voice_with_profile(samples, sample_rate, profile.as_deref())
        .map(|inner| Analysis { inner })
        .map_err(js("analyseVoice"))
}

/// A lip sync profile's JSON calibrated to the speaker of one card take (see
/// `omote_embed::calibrate_voice_from_card`).
#[wasm_bindgen(js_name = calibrateVoiceFromCard)]
pub fn calibrate_voice_from_card_js(
    samples: &[f32],
    sample_rate: f64,
    card: Option<String>,
    base: Option<String>,
) -> Result<String, JsError> {
    calibrate_voice_from_card(samples, sample_rate, card.as_deref(), base.as_deref())
        .map_err(js("calibrateVoice"))
}

/// The built-in lip sync profile's JSON.
#[wasm_bindgen(js_name = builtinVoiceProfile)]
pub fn builtin_voice_profile_js() -> String {
    builtin_voice_profile()
}

/// One character's voice lines (see `omote_embed::Speaker`).
#[wasm_bindgen(js_name = Speaker)]
pub struct SpeakerJs {
    inner: Speaker,
}

#[wasm_bindgen(js_class = Speaker)]
impl SpeakerJs {
    /// A speaker with no lines yet.
    #[wasm_bindgen(constructor)]
    pub fn new() -> SpeakerJs {
        SpeakerJs {
            inner: Speaker::new(),
        }
    }
    /// Adds a line (mono samples at `sample_rate` Hz) to the speaker's mean.
    #[wasm_bindgen(js_name = addLine)]
    pub fn add_line(&mut self, samples: &[f32], sample_rate: f64) -> Result<(), JsError> {
        self.inner
            .add_line(samples, sample_rate)
            .map_err(js("Speaker.addLine"))
    }
    /// Lines added.
    #[wasm_bindgen(getter)]
    pub fn lines(&self) -> u32 {
        self.inner.lines() as u32
    }
    /// The voice as 13 numbers, for `LiveVoice.startFromSpeaker`.
    #[wasm_bindgen(js_name = voiceSeed)]
    pub fn voice_seed(&self) -> Vec<f32> {
        self.inner.voice_seed().to_vec()
    }
    /// A line's lip sync, read against the speaker's other lines, with a lip sync
    /// profile's JSON (none: the built-in one).
    #[wasm_bindgen(js_name = analyseVoice)]
    pub fn analyse_voice(
        &mut self,
        samples: &[f32],
        sample_rate: f64,
        profile: Option<String>,
    ) -> Result<Analysis, JsError> {
        self.inner
            .analyse_with_profile(samples, sample_rate, profile.as_deref())
            .map(|inner| Analysis { inner })
            .map_err(js("Speaker.analyseVoice"))
    }
}

impl Default for SpeakerJs {
    fn default() -> Self {
        Self::new()
    }
}

/// A face (see `omote_embed::Character`).
#[wasm_bindgen(js_name = Face)]
pub struct FaceJs {
    inner: Character,
}

#[wasm_bindgen(js_class = Face)]
impl FaceJs {
    /// A face for a rig description (JSON text), seeded.
    #[wasm_bindgen(constructor)]
    pub fn new(rig_json: &str, seed: u32) -> Result<FaceJs, JsError> {
        Character::from_rig_json(rig_json, u64::from(seed))
            .map(|inner| FaceJs { inner })
            .map_err(js("Face"))
    }
    /// Channel names in weight order.
    #[wasm_bindgen(js_name = channelNames)]
    pub fn channel_names(&self) -> Vec<String> {
        self.inner.channel_names().to_vec()
    }
    /// Sets an acted expression.
    #[wasm_bindgen(js_name = setExpression)]
    pub fn set_expression(&mut self, name: &str, weight: f32) -> Result<(), JsError> {
        self.inner
            .set_expression_named(name, weight)
            .map_err(js("setExpression"))
    }
    /// Moves an acted expression to `weight` over `seconds`, eased.
    #[wasm_bindgen(js_name = fadeExpression)]
    pub fn fade_expression(
        &mut self,
        name: &str,
        weight: f32,
        seconds: f32,
    ) -> Result<(), JsError> {
        self.inner
            .fade_expression_named(name, weight, seconds)
            .map_err(js("fadeExpression"))
    }
    /// Sets the acted gaze in degrees.
    #[wasm_bindgen(js_name = setGaze)]
    pub fn set_gaze(&mut self, yaw_deg: f32, pitch_deg: f32) -> Result<(), JsError> {
        self.inner
            .set_gaze(omote_core::eyes::Gaze::new(yaw_deg, pitch_deg))
            .map_err(js("setGaze"))
    }
    /// Sets the acted head rotation.
    #[wasm_bindgen(js_name = setHead)]
    pub fn set_head(&mut self, x: f32, y: f32, z: f32, w: f32) -> Result<(), JsError> {
        self.inner
            .set_head(omote_core::Quat::from_xyzw(x, y, z, w))
            .map_err(js("setHead"))
    }
    /// Sets the eye mode.
    #[wasm_bindgen(js_name = setEyeMode)]
    pub fn set_eye_mode(&mut self, mode: &str) -> Result<(), JsError> {
        let mode: omote_core::EyeMode =
            mode.parse()
                .map_err(|e: omote_core::eyes::UnknownEyeMode| {
                    JsError::new(&format!("setEyeMode: {e}"))
                })?;
        self.inner.set_eye_mode(mode);
        Ok(())
    }
    /// Says a line: frames (6 per frame), fps, voiced span (NaN: none), afterglow
    /// names and weights.
    pub fn say(
        &mut self,
        frames: &[f32],
        fps: f32,
        voiced_start: f64,
        voiced_end: f64,
        afterglow_names: Vec<String>,
        afterglow_weights: &[f32],
    ) -> Result<(), JsError> {
        self.say_at(
            frames,
            fps,
            voiced_start,
            voiced_end,
            afterglow_names,
            afterglow_weights,
            0.0,
        )
    }
    /// `say`, the line `elapsed` seconds in when the next update starts.
    #[wasm_bindgen(js_name = sayAt)]
    #[allow(clippy::too_many_arguments)]
    pub fn say_at(
        &mut self,
        frames: &[f32],
        fps: f32,
        voiced_start: f64,
        voiced_end: f64,
        afterglow_names: Vec<String>,
        afterglow_weights: &[f32],
        elapsed: f32,
    ) -> Result<(), JsError> {
        let (voiced, glow) = line_args(
            frames,
            fps,
            voiced_start,
            voiced_end,
            afterglow_names,
            afterglow_weights,
        );
        self.inner
            .say_frames_at(frames, fps, voiced, &glow, elapsed)
            .map_err(js("say"))
    }
    /// Checks a line as `sayAt` would take it, without saying it (a line queued on the
    /// audio clock is refused when given, not when it comes due).
    #[wasm_bindgen(js_name = checkLine)]
    pub fn check_line(
        &self,
        frames: &[f32],
        fps: f32,
        voiced_start: f64,
        voiced_end: f64,
        afterglow_names: Vec<String>,
        afterglow_weights: &[f32],
    ) -> Result<(), JsError> {
        let (voiced, glow) = line_args(
            frames,
            fps,
            voiced_start,
            voiced_end,
            afterglow_names,
            afterglow_weights,
        );
        self.inner
            .check_line_frames(frames, fps, voiced, &glow)
            .map_err(js("say"))
    }
    /// The step `update(dt)` would take now.
    #[wasm_bindgen(js_name = stepFor)]
    pub fn step_for(&self, dt: f32) -> f32 {
        self.inner.step_for(dt)
    }
    /// Stops the line.
    pub fn cut(&mut self) {
        self.inner.cut();
    }
    /// The afterglow's hold and release after a line (seconds; hold Infinity: until the
    /// next line).
    #[wasm_bindgen(js_name = setAfterglowTiming)]
    pub fn set_afterglow_timing(&mut self, hold_s: f32, release_s: f32) -> Result<(), JsError> {
        self.inner
            .set_afterglow_timing(hold_s, release_s)
            .map_err(js("setAfterglowTiming"))
    }
    /// Releases the afterglow over `release_s` seconds.
    #[wasm_bindgen(js_name = clearAfterglow)]
    pub fn clear_afterglow(&mut self, release_s: f32) -> Result<(), JsError> {
        self.inner
            .clear_afterglow(release_s)
            .map_err(js("clearAfterglow"))
    }
    /// Blinks `delay_s` seconds from now.
    #[wasm_bindgen(js_name = requestBlink)]
    pub fn request_blink(&mut self, delay_s: f32) -> Result<(), JsError> {
        self.inner
            .request_blink(delay_s)
            .map_err(js("requestBlink"))
    }
    /// Announces an eye-area change `in_s` seconds ahead: no blink starts shortly before.
    #[wasm_bindgen(js_name = announceEyeChange)]
    pub fn announce_eye_change(&mut self, in_s: f32) -> Result<(), JsError> {
        self.inner
            .announce_eye_change(in_s)
            .map_err(js("announceEyeChange"))
    }
    /// Turns tracking on with tracking settings as JSON text (any fields of a tracking
    /// settings file; `{}` for the defaults, `{"mirror": true}` for a selfie camera).
    #[wasm_bindgen(js_name = enableTracking)]
    pub fn enable_tracking(&mut self, settings_json: &str) -> Result<(), JsError> {
        let settings =
            omote_embed::tracking_settings(settings_json).map_err(js("enableTracking"))?;
        self.inner
            .enable_tracking(settings)
            .map_err(js("enableTracking"))
    }
    /// The tracked face: named scores and, if given, a row-major 4×4 head transform.
    #[wasm_bindgen(js_name = setTrackedNamed)]
    pub fn set_tracked_named(
        &mut self,
        names: Vec<String>,
        scores: &[f32],
        head_row_major: Option<Vec<f32>>,
    ) -> Result<(), JsError> {
        self.inner
            .set_tracked_named(&names, scores, head_row_major.as_deref())
            .map_err(js("setTracked"))
    }
    /// The tracker found no face: the face fades back to the acting.
    #[wasm_bindgen(js_name = setTrackingLost)]
    pub fn set_tracking_lost(&mut self) {
        self.inner.set_tracked(None);
    }
    /// Takes the user's neutral head pose from the next `seconds` of tracked faces.
    #[wasm_bindgen(js_name = calibrateTracking)]
    pub fn calibrate_tracking(&mut self, seconds: f32) -> Result<(), JsError> {
        self.inner
            .calibrate_tracking(seconds)
            .map_err(js("calibrateTracking"))
    }
    /// The live voice frame for the next update.
    #[wasm_bindgen(js_name = setLiveVowels)]
    pub fn set_live_vowels(&mut self, vowels: &[f32], voiced: bool) -> Result<(), JsError> {
        self.inner
            .set_live_vowels(vowels, voiced)
            .map_err(js("setLiveVowels"))
    }
    /// Advances by dt seconds (any dt: see `omote_embed`'s contracts).
    pub fn update(&mut self, dt: f32) {
        self.inner.update(dt);
    }
    /// Weights after the override rules.
    pub fn weights(&self) -> Vec<f32> {
        self.inner.weights().to_vec()
    }
    /// Weights before the override rules.
    #[wasm_bindgen(js_name = inputWeights)]
    pub fn input_weights(&self) -> Vec<f32> {
        self.inner.input_weights().to_vec()
    }
    /// Head, left eye, right eye quaternions (12 numbers).
    pub fn rotations(&self) -> Vec<f32> {
        self.inner.rotations().to_vec()
    }
    /// Gaze yaw and pitch in degrees.
    pub fn gaze(&self) -> Vec<f32> {
        let g = self.inner.gaze();
        vec![g.yaw_deg, g.pitch_deg]
    }
    /// Blinks that started in the last update.
    #[wasm_bindgen(js_name = blinksThisFrame)]
    pub fn blinks_this_frame(&self) -> u32 {
        self.inner.blinks_this_frame()
    }
}

/// Live lip sync (see `omote_embed::VoiceStream`); runs inside the package's AudioWorklet.
#[wasm_bindgen(js_name = LiveVoice)]
pub struct LiveVoiceJs {
    inner: VoiceStream,
}

#[wasm_bindgen(js_class = LiveVoice)]
impl LiveVoiceJs {
    /// A live analyser for mono samples at `sample_rate` Hz; `hold`: one frame more
    /// latency for a steadier mouth; `profile`: a lip sync profile's JSON (none: the
    /// built-in one).
    #[wasm_bindgen(constructor)]
    pub fn new(
        sample_rate: f64,
        hold: bool,
        profile: Option<String>,
    ) -> Result<LiveVoiceJs, JsError> {
        VoiceStream::with_profile(sample_rate, hold, profile.as_deref())
            .map(|inner| LiveVoiceJs { inner })
            .map_err(js("LiveVoice"))
    }
    /// Pushes samples; the frames they completed, 8 numbers each (A I U E O N, volume,
    /// voiced).
    pub fn push(&mut self, samples: &[f32]) -> Result<Vec<f32>, JsError> {
        self.inner
            .push(samples)
            .map(<[f32]>::to_vec)
            .map_err(js("LiveVoice.push"))
    }
    /// Starts the stream from a speaker's voice seed (`Speaker.voiceSeed()`); before the
    /// first push.
    #[wasm_bindgen(js_name = startFromSpeaker)]
    pub fn start_from_speaker(&mut self, seed: &[f32]) -> Result<(), JsError> {
        self.inner
            .start_from_speaker(seed)
            .map_err(js("LiveVoice.startFromSpeaker"))
    }
    /// Algorithmic latency in seconds.
    #[wasm_bindgen(getter, js_name = latencyS)]
    pub fn latency_s(&self) -> f64 {
        self.inner.latency_s()
    }
    /// Frames out so far.
    #[wasm_bindgen(getter, js_name = framesOut)]
    pub fn frames_out(&self) -> f64 {
        self.inner.frames_out() as f64
    }
}
