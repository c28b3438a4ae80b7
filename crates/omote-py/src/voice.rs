//! Lip sync: `lipsync`, `Track`, `Speaker`, `VoiceStream`.

use std::sync::{PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArrayDyn};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use omote_embed::{VOICE_FRAME_STRIDE, VoiceAnalysis};

use crate::{Audio, Error, embed, value};

/// `v` as an `(n, cols)` float32 array.
pub(crate) fn matrix<'py>(
    py: Python<'py>,
    v: Vec<f32>,
    cols: usize,
) -> PyResult<Bound<'py, PyArray2<f32>>> {
    let rows = v.len() / cols;
    v.into_pyarray(py).reshape([rows, cols])
}

/// A vector argument (a sequence or a 1-D array of float32 or float64) as numbers; an
/// array of another shape is refused, never flattened (a (52, 1) array is not 52 scores).
pub(crate) fn floats(call: &str, what: &str, obj: &Bound<'_, PyAny>) -> PyResult<Vec<f32>> {
    let (v, shape) = shaped_floats(call, what, obj)?;
    if shape.len() != 1 {
        return Err(value(
            call,
            format!(
                "{what} has shape {}: pass one row of numbers",
                shape_text(&shape)
            ),
        ));
    }
    Ok(v)
}

/// A shape as NumPy prints it: `(52, 1)`, `(4,)`, `()`.
pub(crate) fn shape_text(shape: &[usize]) -> String {
    match shape {
        [n] => format!("({n},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// `Track.from_frames`' `voiced`: "all" (the default), None (no speech) or a span; what
/// else was given is kept for the error, so it names the call.
pub(crate) enum VoicedArg {
    All,
    NoSpeech,
    Span(f64, f64),
    Other(String),
}

impl<'a, 'py> FromPyObject<'a, 'py> for VoicedArg {
    type Error = PyErr;

    fn extract(obj: pyo3::Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if obj.is_none() {
            return Ok(VoicedArg::NoSpeech);
        }
        if obj.extract::<String>().is_ok_and(|s| s == "all") {
            return Ok(VoicedArg::All);
        }
        Ok(match obj.extract::<(f64, f64)>() {
            Ok((a, b)) => VoicedArg::Span(a, b),
            Err(_) => VoicedArg::Other(obj.repr().map_or_else(|_| "?".into(), |r| r.to_string())),
        })
    }
}

/// A float array argument (any shape, float32 or float64; a sequence is one row) as
/// flat numbers in C order, and its shape.
pub(crate) fn shaped_floats(
    call: &str,
    what: &str,
    obj: &Bound<'_, PyAny>,
) -> PyResult<(Vec<f32>, Vec<usize>)> {
    if let Ok(a) = obj.extract::<PyReadonlyArrayDyn<'_, f32>>() {
        let a = a.as_array();
        return Ok((a.iter().copied().collect(), a.shape().to_vec()));
    }
    if let Ok(a) = obj.extract::<PyReadonlyArrayDyn<'_, f64>>() {
        let a = a.as_array();
        return Ok((
            crate::to_f32(call, what, a.iter().copied())?,
            a.shape().to_vec(),
        ));
    }
    // A sequence of Python floats (float64): checked as an array of them is.
    if let Ok(v) = obj.extract::<Vec<f64>>() {
        let n = v.len();
        return Ok((crate::to_f32(call, what, v.into_iter())?, vec![n]));
    }
    let kind = match obj.cast::<numpy::PyUntypedArray>() {
        Ok(a) => format!(
            "an array of dtype {}",
            numpy::PyUntypedArrayMethods::dtype(a)
        ),
        Err(_) => format!("a {}", obj.get_type().name()?),
    };
    Err(Error::Type(format!("{what} is {kind}: pass float32 numbers")).raise(call))
}

/// A clip's lip sync: per 10 ms frame the weights of the mouth shapes A I U E O and the
/// closed mouth N, the volume and whether the frame is silent; the voiced span.
#[pyclass(module = "omote", name = "Track", frozen)]
pub struct Track {
    pub(crate) inner: VoiceAnalysis,
}

#[pymethods]
impl Track {
    /// A track from numbers (a lip sync file's, another tool's): `frames` of shape
    /// (n, 6) — A I U E O N, each clamped to 0–1 — at `fps`; `voiced` the voiced span in
    /// seconds, `"all"` (the default) for the whole track, None for no speech (the mouth
    /// never moves: a track's own `voiced` of a silent clip). Frames outside the span are
    /// silent; inside, their volume is 1.
    #[staticmethod]
    #[pyo3(signature = (frames, fps, voiced = VoicedArg::All))]
    fn from_frames(frames: &Bound<'_, PyAny>, fps: f32, voiced: VoicedArg) -> PyResult<Self> {
        let call = "Track.from_frames";
        let (flat, shape) = shaped_floats(call, "frames", frames)?;
        let voiced = match voiced {
            VoicedArg::All => VoiceAnalysis::whole_span(flat.len(), fps),
            VoicedArg::NoSpeech => None,
            VoicedArg::Span(a, b) => Some((a, b)),
            VoicedArg::Other(what) => {
                return Err(Error::Type(format!(
                    "voiced is {what}: give (start_s, end_s), \"all\" or None"
                ))
                .raise(call));
            }
        };
        // (n, 6), or the same numbers in one row; never (6, n) read as rows.
        if !matches!(shape.as_slice(), [_] | [_, 6]) {
            return Err(value(
                call,
                format!("frames has shape {}, not (n, 6)", shape_text(&shape)),
            ));
        }
        VoiceAnalysis::from_frames(&flat, fps, voiced)
            .map(|inner| Track { inner })
            .map_err(embed(call))
    }

    /// Frames per second (100 from the analyser).
    #[getter]
    fn fps(&self) -> f32 {
        self.inner.fps
    }

    /// The weights, shape (n, 6), float32: A I U E O N per frame.
    #[getter]
    fn frames<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        matrix(py, self.inner.frames.clone(), 6)
    }

    /// Loudness per frame (0–1, against the clip's speech level), float32.
    #[getter]
    fn volume<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f32>> {
        self.inner.volume.clone().into_pyarray(py)
    }

    /// Per frame whether it is silence (bool).
    #[getter]
    fn silent<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        self.inner.silent.clone().into_pyarray(py)
    }

    /// Where speech starts and ends, seconds; None for a clip with no speech.
    #[getter]
    fn voiced(&self) -> Option<(f64, f64)> {
        self.inner.voiced()
    }

    /// The clip's duration in seconds.
    #[getter]
    fn duration(&self) -> f64 {
        self.inner.duration_s
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// A track from `__reduce__`'s parts (pickle), checked.
    #[staticmethod]
    fn _from_parts(
        fps: f32,
        frames: PyReadonlyArrayDyn<'_, f32>,
        silent: PyReadonlyArrayDyn<'_, bool>,
        volume: PyReadonlyArrayDyn<'_, f32>,
        voiced: Option<(f64, f64)>,
        duration: f64,
    ) -> PyResult<Self> {
        VoiceAnalysis::from_parts(
            fps,
            frames.as_array().iter().copied().collect(),
            silent.as_array().iter().copied().collect(),
            volume.as_array().iter().copied().collect(),
            voiced,
            duration,
        )
        .map(|inner| Track { inner })
        .map_err(embed("Track (unpickled)"))
    }

    /// Pickles exactly: every frame's numbers, the span and the duration.
    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let make = py.get_type::<Track>().getattr("_from_parts")?;
        let a = &self.inner;
        let args = (
            a.fps,
            a.frames.clone().into_pyarray(py),
            a.silent.clone().into_pyarray(py),
            a.volume.clone().into_pyarray(py),
            a.voiced(),
            a.duration_s,
        )
            .into_pyobject(py)?;
        Ok((make, args))
    }

    fn __repr__(&self) -> String {
        let voiced = match self.inner.voiced() {
            Some((a, b)) => format!("voiced {a:.2}–{b:.2} s"),
            None => "no speech".into(),
        };
        format!(
            "<omote.Track {} frames at {} fps, {:.2} s, {voiced}>",
            self.inner.len(),
            self.inner.fps,
            self.inner.duration_s
        )
    }

    /// The track at another frame rate (1–1000 fps; weights interpolated), as
    /// `omote lipsync --fps` writes it.
    fn resampled(&self, fps: f32) -> PyResult<Self> {
        self.inner
            .resampled(fps)
            .map(|inner| Track { inner })
            .map_err(embed("Track.resampled"))
    }

    /// omote's track JSON (`omote lipsync --format json`'s file, byte for byte);
    /// `source` is the name written in it (the CLI writes the input path as given).
    #[pyo3(signature = (source = ""))]
    fn to_json(&self, source: &str) -> String {
        self.inner.to_json(source)
    }

    /// `time A I U E O N volume silent`, one row per frame (`--format tsv`).
    fn to_tsv(&self) -> String {
        self.inner.to_tsv()
    }

    /// Rhubarb Lip Sync's JSON (mouth shapes A–F and X; `--format rhubarb-json`).
    #[pyo3(signature = (sound_file = ""))]
    fn to_rhubarb_json(&self, sound_file: &str) -> String {
        self.inner.to_rhubarb_json(sound_file)
    }

    /// Rhubarb Lip Sync's TSV (`start<TAB>shape` per cue; `--format rhubarb-tsv`).
    fn to_rhubarb_tsv(&self) -> String {
        self.inner.to_rhubarb_tsv()
    }

    /// Rhubarb Lip Sync's XML (`--format rhubarb-xml`).
    #[pyo3(signature = (sound_file = ""))]
    fn to_rhubarb_xml(&self, sound_file: &str) -> String {
        self.inner.to_rhubarb_xml(sound_file)
    }
}

/// What `Speaker.__reduce__` gives pickle: the constructor and its one argument.
type Reduced<'py> = (Bound<'py, PyAny>, (Bound<'py, PyArray1<f64>>,));

/// One character's voice: add every line there is, then analyse each — a line is read
/// against the speaker's other lines, as `omote lipsync` reads one folder's files. A
/// line that was added is left out of its own comparison. Picklable (the voice travels
/// exactly, e.g. to Dask workers); `add_speaker` gathers speakers built elsewhere.
///
/// Shared between threads: analyses run side by side and an added line waits for them
/// (the lock is taken with the GIL released, so a waiting thread never holds it), so no
/// call fails because another thread uses the same speaker.
#[pyclass(module = "omote", name = "Speaker", frozen)]
pub struct Speaker {
    inner: RwLock<omote_embed::Speaker>,
}

impl Speaker {
    fn new_with(inner: omote_embed::Speaker) -> Self {
        Speaker {
            inner: RwLock::new(inner),
        }
    }

    /// The speaker to read, for as long as the guard lives (a call that panicked
    /// inside leaves it as it was: every change is one whole add).
    pub(crate) fn read(&self) -> RwLockReadGuard<'_, omote_embed::Speaker> {
        self.inner.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> RwLockWriteGuard<'_, omote_embed::Speaker> {
        self.inner.write().unwrap_or_else(PoisonError::into_inner)
    }
}

#[pymethods]
impl Speaker {
    /// A speaker with no lines yet (it then analyses like `omote.lipsync`).
    #[new]
    fn new() -> Self {
        Speaker::new_with(omote_embed::Speaker::new())
    }

    /// Adds a line: a path, or mono samples (1-D float32/float64 array) at
    /// `sample_rate` Hz. The GIL is released while it is read. A file longer than 10
    /// minutes is refused: it is read against a speaker's lines, never as one.
    #[pyo3(signature = (audio, sample_rate = None))]
    fn add_line(
        &self,
        py: Python<'_>,
        audio: &Bound<'_, PyAny>,
        sample_rate: Option<f64>,
    ) -> PyResult<()> {
        let call = "Speaker.add_line";
        let audio = Audio::extract(call, "audio", audio)?;
        if let Audio::File(path) = &audio {
            // The one rule of what is too long to hold (omote_embed::voice_file): such a
            // file is read as a stream against a speaker's lines, never as one of them.
            if py.detach(|| omote_embed::is_long_voice_file(path)) {
                return Err(value(
                    call,
                    format!(
                        "{}: longer than 10 minutes, so not one of a speaker's lines (a long \
                         file is read as a stream against them, as `omote lipsync` reads a \
                         folder): add shorter lines, and read it with Speaker.analyse",
                        path.display()
                    ),
                ));
            }
        }
        let (samples, rate) = audio.samples(py, call, sample_rate)?;
        py.detach(|| self.write().add_line(&samples, rate))
            .map_err(embed(call))
    }

    /// A line's lip sync, read against the speaker's other lines (GIL released); with
    /// `profile` (a lip sync profile's JSON, from `calibrate_voice`), read with it.
    #[pyo3(signature = (audio, sample_rate = None, *, profile = None))]
    fn analyse(
        &self,
        py: Python<'_>,
        audio: &Bound<'_, PyAny>,
        sample_rate: Option<f64>,
        profile: Option<&str>,
    ) -> PyResult<Track> {
        analyse_with(
            py,
            "Speaker.analyse",
            audio,
            sample_rate,
            Some(self),
            profile,
        )
    }

    /// Lines added.
    #[getter]
    fn lines(&self, py: Python<'_>) -> usize {
        py.detach(|| self.read().lines())
    }

    /// The voice as 13 numbers (mean cepstrum, frame count), for a `VoiceStream`
    /// elsewhere to start from.
    fn voice_seed<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f32>> {
        py.detach(|| self.read().voice_seed())
            .to_vec()
            .into_pyarray(py)
    }

    /// Adds every line of `other`, in its order: the same voice, to the bit, as adding
    /// those lines here (gather per-chunk speakers in the batch's order). `other` may be
    /// this speaker: its lines are then counted twice.
    fn add_speaker(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<()> {
        let other: &Speaker = crate::instance("Speaker.add_speaker", "other", other)?;
        // Copied first, so no two locks are ever held (a.add_speaker(b) beside
        // b.add_speaker(a), or a speaker added to itself, cannot wait on each other).
        let theirs = py.detach(|| other.read().to_numbers());
        let theirs =
            omote_embed::Speaker::from_numbers(&theirs).map_err(embed("Speaker.add_speaker"))?;
        py.detach(|| self.write().add_speaker(&theirs));
        Ok(())
    }

    /// The voice as exact numbers (float64), for `Speaker.from_numbers`.
    fn to_numbers<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        py.detach(|| self.read().to_numbers()).into_pyarray(py)
    }

    /// A speaker from `Speaker.to_numbers`.
    #[staticmethod]
    fn from_numbers(numbers: Vec<f64>) -> PyResult<Self> {
        omote_embed::Speaker::from_numbers(&numbers)
            .map(Speaker::new_with)
            .map_err(embed("Speaker.from_numbers"))
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py>> {
        let make = py.get_type::<Speaker>().getattr("from_numbers")?;
        Ok((make, (self.to_numbers(py),)))
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!("<omote.Speaker {} lines>", self.lines(py))
    }
}

fn analyse_with(
    py: Python<'_>,
    call: &'static str,
    audio: &Bound<'_, PyAny>,
    sample_rate: Option<f64>,
    speaker: Option<&Speaker>,
    profile: Option<&str>,
) -> PyResult<Track> {
    let audio = Audio::extract(call, "audio", audio)?;
    if let (Audio::File(path), None) = (&audio, sample_rate) {
        // As the CLI reads a file: whole, or streamed when it is long (LONG_VOICE_S).
        let read = py
            .detach(|| {
                let speaker = speaker.map(|s| s.read());
                omote_embed::analyse_voice_file(path, speaker.as_deref(), profile)
            })
            .map_err(embed(call))?;
        if let Some(w) = read.warning {
            crate::user_warning(py, &w)?;
        }
        return Ok(Track {
            inner: read.analysis,
        });
    }
    let (samples, rate) = audio.samples(py, call, sample_rate)?;
    py.detach(|| match speaker {
        Some(s) => s.read().analyse_with_profile(&samples, rate, profile),
        None => omote_embed::analyse_voice_with_profile(&samples, rate, profile),
    })
    .map(|inner| Track { inner })
    .map_err(embed(call))
}

/// A clip's lip sync. `audio` is a path (WAV, FLAC, OGG, MP3; `sample_rate` must then
/// be None) or a 1-D float32/float64 NumPy array of mono samples in -1..1 at
/// `sample_rate` Hz (4–384 kHz). A file longer than 10 minutes is read as `omote
/// lipsync` reads it: as a stream (as `--stream`, from the speaker's lines), in flat
/// memory. With `speaker`, the clip is read against that
/// speaker's lines (`omote lipsync`'s folder mode). With `profile` (a lip sync profile's
/// JSON, from `calibrate_voice`), the clip is read with it. The GIL is released while it
/// runs.
#[pyfunction]
#[pyo3(signature = (audio, sample_rate = None, *, speaker = None, profile = None))]
fn lipsync(
    py: Python<'_>,
    audio: &Bound<'_, PyAny>,
    sample_rate: Option<f64>,
    speaker: Option<&Bound<'_, PyAny>>,
    profile: Option<&str>,
) -> PyResult<Track> {
    let speaker = speaker
        .map(|s| crate::instance::<Speaker>("lipsync", "speaker", s))
        .transpose()?;
    analyse_with(py, "lipsync", audio, sample_rate, speaker, profile)
}

/// An audio file (WAV, FLAC, OGG, MP3, by content) as mono float32 samples and their
/// rate (16000), decoded and resampled as `omote lipsync` reads it — for a
/// `VoiceStream`, or for reading the samples yourself. A WAV cut short of its header is
/// read as far as it goes, with a `UserWarning`. The GIL is released while it decodes.
#[pyfunction]
fn load_voice(py: Python<'_>, path: &Bound<'_, PyAny>) -> PyResult<(Py<PyArray1<f32>>, f64)> {
    let audio = Audio::File(crate::path_arg("load_voice", "path", path)?);
    let (samples, rate) = audio.samples(py, "load_voice", None)?;
    Ok((samples.into_owned().into_pyarray(py).unbind(), rate))
}

/// The built-in lip sync profile as JSON (what every reading uses unless given another).
#[pyfunction]
fn builtin_voice_profile() -> String {
    omote_embed::builtin_voice_profile()
}

/// A lip sync profile calibrated to one speaker, as JSON: `take` is them reading a
/// calibration card once, one syllable at a time with a short pause after each (a path,
/// or a 1-D float array at `sample_rate` Hz); `card` its text (default `VOICE_CARD`),
/// `base` the profile to start from (default: the built-in one). A take whose syllables
/// are not heard as the card has them raises, with both counts. Releases the GIL.
#[pyfunction]
#[pyo3(signature = (take, sample_rate = None, *, card = None, base = None))]
fn calibrate_voice(
    py: Python<'_>,
    take: &Bound<'_, PyAny>,
    sample_rate: Option<f64>,
    card: Option<&str>,
    base: Option<&str>,
) -> PyResult<String> {
    let call = "calibrate_voice";
    let audio = Audio::extract(call, "take", take)?;
    let (samples, rate) = audio.samples(py, call, sample_rate)?;
    py.detach(|| omote_embed::calibrate_voice_from_card(&samples, rate, card, base))
        .map_err(embed(call))
}

/// Live lip sync at any sample rate and chunk size: `push` samples as they come, get
/// the frames they completed (one per 10 ms).
#[pyclass(module = "omote", name = "VoiceStream")]
pub struct VoiceStream {
    pub(crate) inner: omote_embed::VoiceStream,
}

#[pymethods]
impl VoiceStream {
    /// A stream for mono samples at `sample_rate` Hz. `hold` holds each frame back
    /// 10 ms to remove one-frame flickers (as `omote lipsync live`); `speaker` starts it
    /// from that speaker's voice (its `voice_seed`); `profile` (a lip sync profile's JSON,
    /// from `calibrate_voice`) reads the voice with it.
    #[new]
    #[pyo3(signature = (sample_rate, *, hold = false, speaker = None, profile = None))]
    fn new(
        sample_rate: f64,
        hold: bool,
        speaker: Option<&Bound<'_, PyAny>>,
        profile: Option<&str>,
    ) -> PyResult<Self> {
        let call = "VoiceStream";
        let speaker = speaker
            .map(|s| Ok::<_, PyErr>((s.py(), crate::instance::<Speaker>(call, "speaker", s)?)))
            .transpose()?;
        let mut inner = omote_embed::VoiceStream::with_profile(sample_rate, hold, profile)
            .map_err(embed(call))?;
        if let Some((py, s)) = speaker {
            let seed = py.detach(|| s.read().voice_seed());
            inner.start_from_speaker(&seed).map_err(embed(call))?;
        }
        Ok(VoiceStream { inner })
    }

    /// Pushes mono samples (1-D float32/float64 array, any length); returns the frames
    /// they completed, shape (k, 8) float32: A I U E O N, volume, voiced (1 or 0). A NaN
    /// sample raises and the whole push is dropped.
    fn push<'py>(
        &mut self,
        py: Python<'py>,
        samples: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let call = "VoiceStream.push";
        let audio = Audio::extract_samples(call, "samples", samples)?;
        let rate = f64::from(self.inner.sample_rate());
        let (samples, _) = audio.samples(py, call, Some(rate))?;
        let frames = self.inner.push(&samples).map_err(embed(call))?.to_vec();
        matrix(py, frames, VOICE_FRAME_STRIDE)
    }

    /// Starts from a voice seed (`Speaker.voice_seed()`), before the first push only.
    fn start_from_speaker(&mut self, seed: &Bound<'_, PyAny>) -> PyResult<()> {
        let call = "VoiceStream.start_from_speaker";
        let seed = crate::voice::floats(call, "seed", seed)?;
        self.inner.start_from_speaker(&seed).map_err(embed(call))
    }

    /// Latency in seconds, from a frame's centre to when it is out.
    #[getter]
    fn latency(&self) -> f64 {
        self.inner.latency_s()
    }

    /// The sample rate it was made for.
    #[getter]
    fn sample_rate(&self) -> u32 {
        self.inner.sample_rate()
    }

    /// Samples pushed so far.
    #[getter]
    fn samples_in(&self) -> u64 {
        self.inner.samples_in()
    }

    /// Frames out so far (frame i is centred at (i + 0.5) × 10 ms).
    #[getter]
    fn frames_out(&self) -> u64 {
        self.inner.frames_out()
    }
}

/// Puts this module's names into `omote`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Track>()?;
    m.add_class::<Speaker>()?;
    m.add_class::<VoiceStream>()?;
    m.add_function(wrap_pyfunction!(lipsync, m)?)?;
    m.add_function(wrap_pyfunction!(load_voice, m)?)?;
    m.add_function(wrap_pyfunction!(calibrate_voice, m)?)?;
    m.add_function(wrap_pyfunction!(builtin_voice_profile, m)?)?;
    m.add("VOICE_CARD", omote_embed::VOICE_CARD)?;
    Ok(())
}
