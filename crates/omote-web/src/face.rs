//! [`WebFace`]: one character's face for a web app — the core's [`FaceDriver`] with a
//! voice-line player (hand-over and afterglow) and a live voice, built from the avatar's
//! expression list, with the inputs an app sets (expression weights, gaze, head, eye
//! mode, a line to say, live vowel frames) and the outputs it writes to the VRM.

use std::sync::Arc;

use omote_core::{
    ChannelId, DriverInputs, EyeMode, FaceConfig, FaceDriver, MouthPolicy, Quat, Rig, RigDesc,
    SpeechConfig, SpeechTrack, VoiceFrame,
};

use crate::WebError;

/// A face driven frame by frame (see the module doc).
///
/// ```
/// let rig = r#"{"presets": true}"#;
/// let mut face = omote_web::WebFace::new(rig, 1).unwrap();
/// face.set_expression("happy", 1.0).unwrap();
/// face.update(1.0 / 60.0).unwrap();
/// let happy = face.channel_names().iter().position(|n| n == "happy").unwrap();
/// assert!(face.weights()[happy] > 0.0);
/// ```
pub struct WebFace {
    driver: FaceDriver,
    names: Vec<String>,
    inputs: Inputs,
    voice: Option<VoiceFrame>,
    weights: Vec<f32>,
    input_weights: Vec<f32>,
}

#[derive(Clone, Copy, Default)]
struct Inputs {
    head: Option<Quat>,
    gaze_yaw_deg: f32,
    gaze_pitch_deg: f32,
}

impl WebFace {
    /// A face for the rig described by `rig_json` (the rig file's fields as JSON:
    /// `name`, `presets`, `arkit`, `expressions` with `name`, `isBinary`,
    /// `overrideBlink`/`overrideLookAt`/`overrideMouth`, `lookAt`; see README § Rig
    /// files — the three-vrm adapter builds it from a loaded VRM), its automatic
    /// motion seeded with `seed` (the same seed and calls give the same faces).
    pub fn new(rig_json: &str, seed: u64) -> Result<Self, WebError> {
        let desc: RigDesc =
            serde_json::from_str(rig_json).map_err(|e| WebError::Rig(e.to_string()))?;
        let rig = Rig::from_desc(&desc).map_err(|e| WebError::Rig(e.to_string()))?;
        if rig.is_empty() {
            return Err(WebError::NoExpressions);
        }
        let names = rig
            .channels()
            .map(|(id, _)| rig.channel_name(id).to_owned())
            .collect();
        let n = rig.len();
        let driver = FaceDriver::new(Arc::new(rig), FaceConfig::default(), seed)
            .with_speech(SpeechConfig::default())
            .with_voice(MouthPolicy::VoiceFirst);
        Ok(Self {
            driver,
            names,
            inputs: Inputs::default(),
            voice: None,
            weights: vec![0.0; n],
            input_weights: vec![0.0; n],
        })
    }

    /// The channel names, in the order of [`WebFace::weights`].
    pub fn channel_names(&self) -> &[String] {
        &self.names
    }

    fn channel(&self, what: &'static str, name: &str) -> Result<ChannelId, WebError> {
        self.driver
            .rig()
            .channel(name)
            .ok_or_else(|| WebError::Argument {
                what,
                problem: format!("the avatar has no expression `{name}`"),
            })
    }

    /// Sets an acted expression (the base layer: what the character is doing).
    pub fn set_expression(&mut self, name: &str, weight: f32) -> Result<(), WebError> {
        let id = self.channel("setExpression", name)?;
        if !weight.is_finite() {
            return Err(WebError::Argument {
                what: "setExpression",
                problem: format!("the weight of `{name}` is {weight}"),
            });
        }
        self.driver.acting_mut().set(id, weight.clamp(0.0, 1.0));
        Ok(())
    }

    /// Sets the acted gaze in degrees (yaw > 0: toward the avatar's left; pitch > 0:
    /// down); the automatic saccades play around it.
    pub fn set_gaze(&mut self, yaw_deg: f32, pitch_deg: f32) -> Result<(), WebError> {
        if !(yaw_deg.is_finite() && pitch_deg.is_finite()) {
            return Err(WebError::Argument {
                what: "setGaze",
                problem: format!("yaw {yaw_deg}, pitch {pitch_deg}: not finite"),
            });
        }
        self.inputs.gaze_yaw_deg = yaw_deg.clamp(-90.0, 90.0);
        self.inputs.gaze_pitch_deg = pitch_deg.clamp(-90.0, 90.0);
        Ok(())
    }

    /// Sets the acted head rotation (a quaternion `x, y, z, w` in the VRM frame).
    pub fn set_head(&mut self, x: f32, y: f32, z: f32, w: f32) -> Result<(), WebError> {
        let q = Quat::from_xyzw(x, y, z, w);
        if !(q.is_finite() && q.length_squared() > 1e-12) {
            return Err(WebError::Argument {
                what: "setHead",
                problem: format!("({x}, {y}, {z}, {w}) is not a rotation"),
            });
        }
        self.inputs.head = Some(q.normalize());
        Ok(())
    }

    /// Sets the eye mode: `idle`, `talking`, `listening` or `focused` (blink rate and
    /// gaze behaviour; while a line plays the face is talking anyway).
    pub fn set_eye_mode(&mut self, mode: &str) -> Result<(), WebError> {
        let mode = match mode {
            "idle" => EyeMode::Idle,
            "talking" => EyeMode::Talking,
            "listening" => EyeMode::Listening,
            "focused" => EyeMode::Focused,
            other => {
                return Err(WebError::Argument {
                    what: "setEyeMode",
                    problem: format!("`{other}` is not idle, talking, listening or focused"),
                });
            }
        };
        self.driver.set_eye_mode(mode);
        Ok(())
    }

    /// Says a voice line now: its analysis (`frames`: 6 numbers per frame at `fps`, as
    /// [`analyse_voice`](crate::analyse_voice) gives; the voiced span in seconds), with
    /// an afterglow mouth after it (`afterglow`: `(expression, weight)` pairs, may be
    /// empty). The mouth hands over smoothly into the acting at its end.
    pub fn say(
        &mut self,
        frames: &[f32],
        fps: f32,
        voiced: Option<(f64, f64)>,
        afterglow: &[(String, f32)],
    ) -> Result<(), WebError> {
        let bad = |problem: String| WebError::Argument {
            what: "say",
            problem,
        };
        if !frames.len().is_multiple_of(6) {
            return Err(bad(format!(
                "{} numbers are not 6 per frame (A I U E O N)",
                frames.len()
            )));
        }
        if let Some(i) = frames.iter().position(|v| !v.is_finite()) {
            return Err(bad(format!("frame value {i} is {}", frames[i])));
        }
        let vowels = frames
            .chunks_exact(6)
            .map(|f| [f[0], f[1], f[2], f[3], f[4]])
            .collect();
        let voiced = voiced.map(|(a, b)| (a as f32, b as f32));
        let track = SpeechTrack::new(fps, vowels, voiced).map_err(|e| bad(e.to_string()))?;
        let mut glow = Vec::with_capacity(afterglow.len());
        for (name, w) in afterglow {
            glow.push((self.channel("say: afterglow", name)?, w.clamp(0.0, 1.0)));
        }
        self.driver.say(Arc::new(track), &glow);
        Ok(())
    }

    /// Stops the line that plays (the mouth hands over from now).
    pub fn cut(&mut self) {
        self.driver.cut_speech();
    }

    /// The live voice's frame for the next update (a microphone's A I U E O N and
    /// whether it is voiced): the voice drives the mouth while it sounds.
    pub fn set_live_vowels(&mut self, vowels: &[f32], voiced: bool) -> Result<(), WebError> {
        if vowels.len() != 6 && vowels.len() != 5 {
            return Err(WebError::Argument {
                what: "setLiveVowels",
                problem: format!("{} numbers, not 6 (A I U E O N)", vowels.len()),
            });
        }
        let v = |i: usize| {
            let x = vowels[i];
            if x.is_finite() {
                x.clamp(0.0, 1.0)
            } else {
                0.0
            }
        };
        self.voice = Some(VoiceFrame {
            vowels: [v(0), v(1), v(2), v(3), v(4)],
            voiced,
        });
        Ok(())
    }

    /// Advances the face by `dt` seconds (0 < dt ≤ 1).
    pub fn update(&mut self, dt: f32) -> Result<(), WebError> {
        if !(dt.is_finite() && dt > 0.0 && dt <= 1.0) {
            return Err(WebError::Argument {
                what: "update",
                problem: format!("dt {dt} is not within (0, 1] seconds"),
            });
        }
        let inputs = DriverInputs {
            voice: self.voice.take(),
            head: self.inputs.head.unwrap_or(Quat::IDENTITY),
            gaze_yaw_deg: self.inputs.gaze_yaw_deg,
            gaze_pitch_deg: self.inputs.gaze_pitch_deg,
            ..DriverInputs::default()
        };
        let state = self.driver.update(dt, &inputs);
        self.weights.copy_from_slice(&state.expressions);
        self.input_weights.copy_from_slice(&state.input_expressions);
        Ok(())
    }

    /// The weights after the VRM override rules (what the face shows), in channel order.
    pub fn weights(&self) -> &[f32] {
        &self.weights
    }

    /// The weights before the override rules (for a player that applies them itself).
    pub fn input_weights(&self) -> &[f32] {
        &self.input_weights
    }

    /// Head, left eye and right eye rotations (`x y z w` each, 12 numbers), VRM frame.
    pub fn rotations(&self) -> [f32; 12] {
        let s = self.driver.state();
        let mut out = [0.0; 12];
        for (i, q) in [s.head, s.left_eye, s.right_eye].iter().enumerate() {
            out[4 * i..4 * i + 4].copy_from_slice(&q.to_array());
        }
        out
    }

    /// The gaze after smoothing: yaw and pitch in degrees.
    pub fn gaze(&self) -> [f32; 2] {
        let s = self.driver.state();
        [s.look_at_yaw_deg, s.look_at_pitch_deg]
    }

    /// Blinks started so far in the last update (0 or 1 usually).
    pub fn blinks_this_frame(&self) -> u32 {
        self.driver
            .state()
            .events
            .iter()
            .filter(|e| matches!(e, omote_core::FaceEvent::Blink(_)))
            .count() as u32
    }
}
