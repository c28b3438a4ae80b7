//! Faces: `Rig`, `Face`, `Anim`.

use std::path::PathBuf;

use numpy::{IntoPyArray, PyArray1, PyArray2};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyCFunction, PyDict, PyString};

use omote_core::{EyeMode, Quat, Vec3};
use omote_embed::{Avatar, AvatarSource, Character, Gaze};

use crate::voice::{Track, VoiceStream, floats, matrix};
use crate::{Error, embed, existing, path_arg, value};

/// An avatar's rig (its expressions and their VRM rules) and, for a VRM, the model
/// (needed to write a VRMA).
#[pyclass(module = "omote", name = "Rig", frozen)]
pub struct Rig {
    pub(crate) inner: Avatar,
}

fn avatar(call: &'static str, source: &AvatarSource) -> PyResult<Avatar> {
    Avatar::load(source).map_err(|e| embed(call)(e.into()))
}

#[pymethods]
impl Rig {
    /// The built-in avatar (a generated VRM with the 18 presets and ARKit-52); `style`
    /// 1 is its second look (a scene's other character).
    #[staticmethod]
    #[pyo3(signature = (style = 0))]
    fn builtin(style: u32) -> PyResult<Self> {
        let source = match style {
            0 => AvatarSource::Builtin,
            1 => AvatarSource::BuiltinSecond,
            s => return Err(value("Rig.builtin", format!("style {s}: 0 or 1"))),
        };
        Ok(Rig {
            inner: avatar("Rig.builtin", &source)?,
        })
    }

    /// The standard rig (18 presets + ARKit-52), with no model.
    #[staticmethod]
    fn standard() -> PyResult<Self> {
        Ok(Rig {
            inner: avatar("Rig.standard", &AvatarSource::Standard)?,
        })
    }

    /// A VRM file (0.x or 1.0).
    #[staticmethod]
    fn from_vrm(py: Python<'_>, path: &Bound<'_, PyAny>) -> PyResult<Self> {
        let call = "Rig.from_vrm";
        let path = existing(call, path_arg(call, "path", path)?)?;
        if !path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("vrm"))
        {
            return Err(value(
                call,
                format!(
                    "{}: not a .vrm file (Rig.from_file reads rig files)",
                    path.display()
                ),
            ));
        }
        Self::load(py, call, path)
    }

    /// A file: `.vrm`, or a rig file (TOML or JSON).
    #[staticmethod]
    fn from_file(py: Python<'_>, path: &Bound<'_, PyAny>) -> PyResult<Self> {
        let call = "Rig.from_file";
        let path = existing(call, path_arg(call, "path", path)?)?;
        Self::load(py, call, path)
    }

    /// A VRM's bytes (as an asset pipeline has them); `name` stands for it in messages.
    #[staticmethod]
    #[pyo3(signature = (data, name = "the VRM bytes"))]
    fn from_vrm_bytes(py: Python<'_>, data: Vec<u8>, name: &str) -> PyResult<Self> {
        py.detach(|| Avatar::from_vrm_bytes(data, name.to_owned()))
            .map(|inner| Rig { inner })
            .map_err(|e| value("Rig.from_vrm_bytes", e.to_string()))
    }

    /// A rig description as JSON (the rig file's fields; `{"presets": true}` is the 18
    /// VRM presets).
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<Self> {
        let rig = omote_embed::rig_from_json(text).map_err(embed("Rig.from_json"))?;
        Ok(Rig {
            inner: Avatar {
                rig,
                model: None,
                vrm: None,
                name: "the rig description".into(),
            },
        })
    }

    /// The channel (expression) names, in the order of a face's weights.
    #[getter]
    fn channel_names(&self) -> Vec<String> {
        let rig = &self.inner.rig;
        rig.channels()
            .map(|(id, _)| rig.channel_name(id).to_owned())
            .collect()
    }

    /// Whether it is a VRM (so a VRMA can be written for it).
    #[getter]
    fn has_vrm(&self) -> bool {
        self.inner.model.is_some()
    }

    /// The VRM file's bytes (the built-in avatar's too), or None.
    fn vrm_bytes<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        self.inner.vrm.as_ref().map(|b| PyBytes::new(py, b))
    }

    /// What it is called in messages.
    #[getter]
    fn name(&self) -> &str {
        &self.inner.name
    }

    fn __len__(&self) -> usize {
        self.inner.rig.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "<omote.Rig {} ({} channels)>",
            self.inner.name,
            self.inner.rig.len()
        )
    }
}

impl Rig {
    fn load(py: Python<'_>, call: &'static str, path: PathBuf) -> PyResult<Self> {
        // A file gone since the check is a missing file too.
        py.detach(|| Avatar::load(&AvatarSource::File(path)))
            .map(|inner| Rig { inner })
            .map_err(|e| embed(call)(e.into()))
    }
}

/// One character's face, driven frame by frame: acting, gaze, head, eye mode, voice
/// lines, a live voice, a tracked face — the same inputs as the C ABI; `update(dt)`;
/// weights before and after the VRM override rules. Same rig, seed and calls: the same
/// frames to the bit.
#[pyclass(module = "omote", name = "Face")]
pub struct Face {
    inner: Character,
}

fn quat(call: &str, what: &str, q: &Bound<'_, PyAny>) -> PyResult<Quat> {
    let v = floats(call, what, q)?;
    <[f32; 4]>::try_from(v.as_slice())
        .map(Quat::from_array)
        .map_err(|_| {
            value(
                call,
                format!("{what}: {} numbers, not 4 (x y z w)", v.len()),
            )
        })
}

impl Face {
    /// Tracking on with `settings`: None, a mapping (as JSON by Python's `json`) or JSON
    /// text.
    fn enable_tracking_with(
        &mut self,
        call: &'static str,
        settings: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let config = match settings {
            None => Default::default(),
            Some(s) if s.is_none() => Default::default(),
            Some(s) => {
                let json: String = if s.is_instance_of::<PyString>() {
                    s.extract()?
                } else if s.is_instance(&mapping_type(s.py())?)? {
                    settings_json(call, s)?
                } else {
                    return Err(crate::Error::Type(format!(
                        "the tracking settings must be a dict (any mapping) or JSON text, not {}",
                        s.get_type().name()?
                    ))
                    .raise(call));
                };
                omote_embed::tracking_settings(&json).map_err(embed(call))?
            }
        };
        self.inner.enable_tracking(config).map_err(embed(call))
    }
}

/// A NumPy scalar's Python value (`np.float32(1.5).item()` is 1.5), or None for
/// anything else.
fn numpy_item<'py>(v: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
    if v.hasattr("dtype")? && v.hasattr("item")? {
        Ok(Some(v.call_method0("item")?))
    } else {
        Ok(None)
    }
}

/// `collections.abc.Mapping`.
fn mapping_type(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    py.import("collections.abc")?.getattr("Mapping")
}

/// Settings given as a mapping, as the JSON the runtime reads: nested mappings as objects,
/// NumPy scalars as their Python numbers; NaN and infinities refused (JSON has none).
fn settings_json(call: &str, settings: &Bound<'_, PyAny>) -> PyResult<String> {
    let py = settings.py();
    let plain = PyCFunction::new_closure(
        py,
        None,
        None,
        |args: &Bound<'_, pyo3::types::PyTuple>, _| -> PyResult<Py<PyAny>> {
            let v = args.get_item(0)?;
            let py = v.py();
            if v.is_instance(&mapping_type(py)?)? {
                return Ok(py.get_type::<PyDict>().call1((v,))?.unbind());
            }
            if let Some(item) = numpy_item(&v)? {
                return Ok(item.unbind());
            }
            Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "a {} is not a setting's value (numbers, true/false, text, lists, mappings)",
                v.get_type().name()?
            )))
        },
    )?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("allow_nan", false)?;
    kwargs.set_item("default", plain)?;
    let dumps = py.import("json")?.getattr("dumps")?;
    match dumps.call((settings,), Some(&kwargs)) {
        Ok(text) => text.extract(),
        // `allow_nan=False`'s words ("Out of range float values …"); a ValueError may
        // also be a circular reference, said as Python says it.
        Err(e)
            if e.is_instance_of::<pyo3::exceptions::PyValueError>(py)
                && e.value(py).to_string().contains("Out of range float") =>
        {
            Err(value(
                call,
                "the tracking settings: a number is NaN or infinite (JSON has neither)",
            ))
        }
        Err(e) if e.is_instance_of::<pyo3::exceptions::PyValueError>(py) => Err(value(
            call,
            format!("the tracking settings: {}", e.value(py)),
        )),
        Err(e) => {
            Err(crate::Error::Type(format!("the tracking settings: {}", e.value(py))).raise(call))
        }
    }
}

#[pymethods]
impl Face {
    /// A face for `rig`, its blinks and saccades seeded with `seed`; `tracking` turns
    /// on the retargeter for `set_tracked`: `True` with the default settings, or the
    /// tracking settings (a dict or JSON text, as `enable_tracking` takes them).
    #[new]
    #[pyo3(signature = (rig, seed = 0, *, tracking = None))]
    fn new(
        rig: &Bound<'_, PyAny>,
        seed: u64,
        tracking: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let call = "Face";
        let rig: &Rig = crate::instance(call, "rig", rig)?;
        let inner = Character::from_avatar(&rig.inner, seed).map_err(embed(call))?;
        let mut face = Face { inner };
        if let Some(t) = tracking {
            // True: the defaults; False: off (a NumPy bool too); anything else: settings.
            let flag = if t.is_instance_of::<PyBool>() {
                Some(t.extract::<bool>()?)
            } else if let Some(item) = numpy_item(t)? {
                item.is_instance_of::<PyBool>()
                    .then(|| item.extract::<bool>())
                    .transpose()?
            } else {
                None
            };
            match flag {
                Some(false) => {}
                Some(true) => face.enable_tracking_with(call, None)?,
                None => face.enable_tracking_with(call, Some(t))?,
            }
        }
        Ok(face)
    }

    /// Turns tracking on (again: afresh, calibration and fade-in start over): `settings`
    /// is None for the defaults, or the tracking settings as a mapping or JSON text —
    /// any fields of a tracking settings file (docs/tracking-format.md), e.g.
    /// `{"mirror": True}` for a selfie camera; an unknown field or a number out of
    /// range raises, naming it.
    #[pyo3(signature = (settings = None))]
    fn enable_tracking(&mut self, settings: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        self.enable_tracking_with("Face.enable_tracking", settings)
    }

    /// The channel names, in weight order.
    #[getter]
    fn channel_names(&self) -> Vec<String> {
        self.inner.channel_names().to_vec()
    }

    /// Sets an acted expression (0–1, clamped; NaN raises).
    fn set_expression(&mut self, name: &str, weight: f32) -> PyResult<()> {
        self.inner
            .set_expression_named(name, weight)
            .map_err(embed("Face.set_expression"))
    }

    /// Moves an acted expression from its weight now to `weight` over `seconds` (0–60),
    /// eased in and out; `set_expression` ends the fade.
    fn fade_expression(&mut self, name: &str, weight: f32, seconds: f32) -> PyResult<()> {
        self.inner
            .fade_expression_named(name, weight, seconds)
            .map_err(embed("Face.fade_expression"))
    }

    /// Sets a picture-making adjustment (added on top of everything).
    fn set_picture(&mut self, name: &str, weight: f32) -> PyResult<()> {
        let call = "Face.set_picture";
        let id = self.inner.channel(name).map_err(embed(call))?;
        self.inner.set_picture(id, weight).map_err(embed(call))
    }

    /// Sets the acted gaze in degrees (yaw > 0: the avatar's left; pitch > 0: down).
    fn set_gaze(&mut self, yaw_deg: f32, pitch_deg: f32) -> PyResult<()> {
        self.inner
            .set_gaze(Gaze::new(yaw_deg, pitch_deg))
            .map_err(embed("Face.set_gaze"))
    }

    /// Points the gaze along (x, y, z) in the head's frame (+Z ahead, +X left, +Y up).
    fn set_gaze_target(&mut self, x: f32, y: f32, z: f32) -> PyResult<()> {
        self.inner
            .set_gaze_target(Vec3::new(x, y, z))
            .map_err(embed("Face.set_gaze_target"))
    }

    /// Sets the acted head rotation (x, y, z, w; VRM frame, relative to the rest pose).
    fn set_head(&mut self, rotation: &Bound<'_, PyAny>) -> PyResult<()> {
        let call = "Face.set_head";
        let q = quat(call, "rotation", rotation)?;
        self.inner.set_head(q).map_err(embed(call))
    }

    /// Sets the eye mode: "idle", "talking", "listening" or "focused".
    fn set_eye_mode(&mut self, mode: &str) -> PyResult<()> {
        let mode = EyeMode::from_name(mode).ok_or_else(|| {
            value(
                "Face.set_eye_mode",
                format!("{mode:?}: idle, talking, listening or focused"),
            )
        })?;
        self.inner.set_eye_mode(mode);
        Ok(())
    }

    /// Blinks `delay` seconds from now (0: as soon as the eyes are free).
    #[pyo3(signature = (delay = 0.0))]
    fn request_blink(&mut self, delay: f32) -> PyResult<()> {
        self.inner
            .request_blink(delay)
            .map_err(embed("Face.request_blink"))
    }

    /// Announces an eye-area change `in_s` seconds ahead on your own timeline: no
    /// automatic blink starts shortly before it.
    fn announce_eye_change(&mut self, in_s: f32) -> PyResult<()> {
        self.inner
            .announce_eye_change(in_s)
            .map_err(embed("Face.announce_eye_change"))
    }

    /// Says a voice line now (a `Track`); `afterglow` maps expression names to weights
    /// for the mouth after it.
    #[pyo3(signature = (track, afterglow = None))]
    fn say(
        &mut self,
        track: &Bound<'_, PyAny>,
        afterglow: Option<Vec<(String, f32)>>,
    ) -> PyResult<()> {
        let call = "Face.say";
        let track: &Track = crate::instance(call, "track", track)?;
        let mut glow = Vec::new();
        for (name, w) in afterglow.unwrap_or_default() {
            glow.push((self.inner.channel(&name).map_err(embed(call))?, w));
        }
        self.inner
            .say_analysis(&track.inner, &glow)
            .map_err(embed(call))
    }

    /// Stops the line that plays (the mouth hands over from now).
    fn cut(&mut self) {
        self.inner.cut();
    }

    /// The afterglow's hold at full after a line ends and its release (seconds; hold
    /// ``math.inf``, the default: until the next line).
    fn set_afterglow_timing(&mut self, hold_s: f32, release_s: f32) -> PyResult<()> {
        self.inner
            .set_afterglow_timing(hold_s, release_s)
            .map_err(|e| value("Face.set_afterglow_timing", e.to_string()))
    }

    /// Releases the afterglow showing now over ``release_s`` seconds (0: at once).
    #[pyo3(signature = (release_s = 0.5))]
    fn clear_afterglow(&mut self, release_s: f32) -> PyResult<()> {
        self.inner
            .clear_afterglow(release_s)
            .map_err(|e| value("Face.clear_afterglow", e.to_string()))
    }

    /// Whether the face speaks a voice line now: from the line's voiced onset until its
    /// hand-over (0.2 s before the voice ends); not in its leading silence nor its tail.
    #[getter]
    fn speaking(&self) -> bool {
        self.inner.is_speaking()
    }

    /// The live voice for the next update: A I U E O (N) and whether it is voiced.
    fn set_live_vowels(&mut self, vowels: &Bound<'_, PyAny>, voiced: bool) -> PyResult<()> {
        let call = "Face.set_live_vowels";
        let v = floats(call, "vowels", vowels)?;
        self.inner.set_live_vowels(&v, voiced).map_err(embed(call))
    }

    /// Hears live samples through `stream` (its rate): the newest frame they complete
    /// becomes the live voice.
    fn hear(&mut self, stream: &mut VoiceStream, samples: &Bound<'_, PyAny>) -> PyResult<()> {
        let call = "Face.hear";
        let v = floats(call, "samples", samples)?;
        self.inner.hear(&mut stream.inner, &v).map_err(embed(call))
    }

    /// The tracked face: 52 ARKit scores (ARKit's order) and optionally the head
    /// rotation (x, y, z, w). Needs `Face(..., tracking=True)`.
    #[pyo3(signature = (scores, head = None))]
    fn set_tracked(
        &mut self,
        scores: &Bound<'_, PyAny>,
        head: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let call = "Face.set_tracked";
        let s = floats(call, "scores", scores)?;
        let head = head.map(|h| quat(call, "head", h)).transpose()?;
        self.inner.set_tracked_arkit(&s, head).map_err(embed(call))
    }

    /// Takes the user's neutral head pose from the next `seconds` of tracked faces (0:
    /// the next face) while they look straight at the screen. Needs tracking.
    #[pyo3(signature = (seconds = 1.0))]
    fn calibrate_tracking(&mut self, seconds: f32) -> PyResult<()> {
        self.inner
            .calibrate_tracking(seconds)
            .map_err(embed("Face.calibrate_tracking"))
    }

    /// The tracked face from named scores, as MediaPipe gives them
    /// (`{c.category_name: c.score for c in result.face_blendshapes[0]}`: ARKit names in
    /// any spelling, `_neutral` and other names skipped) and, optionally, the head as a
    /// 4×4 transform, row by row (`result.facial_transformation_matrixes[0]`). Needs
    /// `Face(..., tracking=True)`.
    #[pyo3(signature = (scores, head_matrix = None))]
    fn set_tracked_named(
        &mut self,
        scores: &Bound<'_, PyAny>,
        head_matrix: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let call = "Face.set_tracked_named";
        // Any mapping (a dict, MappingProxyType, …), as `tracking=` takes.
        if !scores.is_instance(&mapping_type(scores.py())?)? {
            return Err(Error::Type(format!(
                "scores is {}: pass a mapping of names to scores",
                crate::a_kind(&scores.get_type().name()?.to_string())
            ))
            .raise(call));
        }
        let scores = scores
            .py()
            .get_type::<PyDict>()
            .call1((scores,))?
            .cast_into::<PyDict>()?;
        let mut names = Vec::with_capacity(scores.len());
        let mut values = Vec::with_capacity(scores.len());
        for (k, v) in scores.iter() {
            let kind = |o: &Bound<'_, PyAny>| {
                o.get_type()
                    .name()
                    .map_or_else(|_| "?".to_string(), |n| n.to_string())
            };
            names.push(k.extract::<String>().map_err(|_| {
                value(call, format!("scores: a key is a {}, not a name", kind(&k)))
            })?);
            values.push(
                v.extract::<f32>().map_err(|_| {
                    value(call, format!("scores[{k}]: a {}, not a number", kind(&v)))
                })?,
            );
        }
        let head = match head_matrix {
            None => None,
            Some(m) => {
                let (v, shape) = crate::voice::shaped_floats(call, "head_matrix", m)?;
                if !matches!(shape.as_slice(), [4, 4] | [16]) {
                    return Err(value(
                        call,
                        format!(
                            "head_matrix has shape {}: pass a 4×4 matrix (or its 16 numbers, row by row)",
                            crate::voice::shape_text(&shape)
                        ),
                    ));
                }
                Some(v)
            }
        };
        self.inner
            .set_tracked_named(&names, &values, head.as_deref())
            .map_err(embed(call))
    }

    /// The tracker lost the face: it fades back to the acting.
    fn set_tracking_lost(&mut self) {
        self.inner.set_tracked(None);
    }

    /// Where the camera is (x, y, z metres, VRM frame), or None.
    fn set_camera(&mut self, position: Option<(f32, f32, f32)>) -> PyResult<()> {
        self.inner
            .set_camera(position.map(|(x, y, z)| Vec3::new(x, y, z)))
            .map_err(embed("Face.set_camera"))
    }

    /// Advances the face by `dt` seconds (any dt: <= 0 or NaN lets no time pass).
    fn update(&mut self, dt: f32) {
        self.inner.update(dt);
    }

    /// Weights after the VRM override rules (what the face shows), float32.
    #[getter]
    fn weights<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f32>> {
        self.inner.weights().to_vec().into_pyarray(py)
    }

    /// Weights before the override rules (for players that apply them: UniVRM 1.0, VRMA).
    #[getter]
    fn input_weights<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f32>> {
        self.inner.input_weights().to_vec().into_pyarray(py)
    }

    /// Head, left eye, right eye rotations, shape (3, 4): x y z w, relative to the rest pose.
    #[getter]
    fn rotations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        matrix(py, self.inner.rotations().to_vec(), 4)
    }

    /// The gaze after smoothing and saccades: (yaw, pitch) degrees.
    #[getter]
    fn gaze(&self) -> (f32, f32) {
        let g = self.inner.gaze();
        (g.yaw_deg, g.pitch_deg)
    }

    /// Starts recording: from the next update, every update with a step adds a frame
    /// to an anim at `fps` (1–1000) — so update at steps of `1 / fps` for the anim's
    /// timing to be the played one. A recording already running is dropped.
    #[pyo3(signature = (fps = 60.0))]
    fn record(&mut self, fps: f32) -> PyResult<()> {
        self.inner.record(fps).map_err(embed("Face.record"))
    }

    /// Ends the recording: its `Anim` (for `to_json`, `to_vrma`), or None if nothing
    /// was recording.
    fn finish_recording(&mut self) -> Option<Anim> {
        let neck_share = self.inner.neck_share();
        self.inner
            .finish_recording()
            .map(|inner| Anim { inner, neck_share })
    }

    /// What happened in the last update: blinks, saccades (counts), voice_started,
    /// handed_over.
    #[getter]
    fn events<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (mut blinks, mut saccades) = (0u32, 0u32);
        for e in self.inner.events().iter() {
            match e {
                omote_core::FaceEvent::Blink(_) => blinks += 1,
                omote_core::FaceEvent::Saccade(_) => saccades += 1,
            }
        }
        let line = self.inner.line_events();
        let d = PyDict::new(py);
        d.set_item("blinks", blinks)?;
        d.set_item("saccades", saccades)?;
        d.set_item("voice_started", line.voice_started)?;
        d.set_item("handed_over", line.handed_over)?;
        Ok(d)
    }
}

/// A baked animation: expression tracks before and after the override rules, head and
/// eye rotations, gaze and events per frame.
#[pyclass(module = "omote", name = "Anim", frozen)]
pub struct Anim {
    pub(crate) inner: omote_core::Anim,
    /// The neck's share of the head's turn in its VRMA: a tracked recording's
    /// `neckShare`, else the default half.
    pub(crate) neck_share: f32,
}

impl Anim {
    /// An anim with the default neck share (a bake, a file).
    pub(crate) fn new(inner: omote_core::Anim) -> Self {
        Self {
            inner,
            neck_share: omote_core::tracking::NECK_SHARE,
        }
    }
}

fn tracks(t: &omote_core::anim::ExpressionTracks, frames: usize) -> Vec<f32> {
    let mut out = vec![0.0; frames * t.0.len()];
    for (c, (_, values)) in t.0.iter().enumerate() {
        for (f, v) in values.iter().enumerate().take(frames) {
            out[f * t.0.len() + c] = *v;
        }
    }
    out
}

#[pymethods]
impl Anim {
    /// Frames per second.
    #[getter]
    fn fps(&self) -> f32 {
        self.inner.fps
    }

    /// Length in seconds.
    #[getter]
    fn duration(&self) -> f32 {
        self.inner.duration
    }

    fn __len__(&self) -> usize {
        self.inner.frames()
    }

    /// Channel names, the columns of `expressions` and `applied`.
    #[getter]
    fn channel_names(&self) -> Vec<String> {
        self.inner
            .expressions
            .0
            .iter()
            .map(|(n, _)| n.clone())
            .collect()
    }

    /// Weights before the override rules, shape (frames, channels) float32.
    #[getter]
    fn expressions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let n = self.inner.expressions.0.len().max(1);
        matrix(py, tracks(&self.inner.expressions, self.inner.frames()), n)
    }

    /// Weights after the override rules (what the face shows), shape (frames, channels).
    #[getter]
    fn applied<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let t = self.inner.applied();
        matrix(py, tracks(t, self.inner.frames()), t.0.len().max(1))
    }

    /// Head rotation per frame, shape (frames, 4): x y z w.
    #[getter]
    fn head<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        matrix(py, self.inner.head.iter().flatten().copied().collect(), 4)
    }

    /// Gaze per frame, shape (frames, 2): yaw, pitch degrees.
    #[getter]
    fn look_at<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        matrix(
            py,
            self.inner.look_at.iter().flatten().copied().collect(),
            2,
        )
    }

    /// Events (voice lines, expressions, blinks, saccades, markers) as dicts, in time order.
    #[getter]
    fn events(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let json = serde_json::to_string(&self.inner.events)
            .map_err(|e| value("Anim.events", e.to_string()))?;
        Ok(py.import("json")?.call_method1("loads", (json,))?.unbind())
    }

    /// The anim file's bytes (compact JSON; what `omote bake` writes as ID.anim.json).
    fn to_json<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let json = omote_embed::anim_json(&self.inner).map_err(embed("Anim.to_json"))?;
        Ok(PyBytes::new(py, json.as_bytes()))
    }

    /// A VRM Animation (.vrma bytes) for `rig`, which must be a VRM (`Rig.has_vrm`). The
    /// anim's expressions the VRM does not have are left out, with a `UserWarning`. A
    /// tracked face's recording splits the head's turn with the neck at its tracking
    /// settings' `neckShare`.
    fn to_vrma<'py>(
        &self,
        py: Python<'py>,
        rig: &Bound<'_, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let call = "Anim.to_vrma";
        let rig: &Rig = crate::instance(call, "rig", rig)?;
        let Some(model) = &rig.inner.model else {
            return Err(value(
                call,
                format!(
                    "{} is not a VRM: a VRMA needs the VRM's model",
                    rig.inner.name
                ),
            ));
        };
        let (bytes, warning) = py
            .detach(|| omote_embed::vrma_with_neck_share(&self.inner, model, self.neck_share))
            .map_err(embed(call))?;
        if let Some(w) = warning {
            // An anim recorded on another avatar: what the rig has is written.
            crate::user_warning(py, &format!("{call}: {w}"))?;
        }
        Ok(PyBytes::new(py, &bytes))
    }

    fn __repr__(&self) -> String {
        format!(
            "<omote.Anim {} frames at {} fps, {} channels>",
            self.inner.frames(),
            self.inner.fps,
            self.inner.expressions.0.len()
        )
    }
}

/// Puts this module's names into `omote`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Rig>()?;
    m.add_class::<Face>()?;
    m.add_class::<Anim>()?;
    Ok(())
}
