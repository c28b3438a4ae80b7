//! `import omote`: omote for Python pipelines (PyO3, an abi3 extension module built by
//! maturin; the stub `omote.pyi` beside `Cargo.toml` is its typed face).
//!
//! Thin wrappers over the embedding API (`omote_embed`: lip sync and its exports,
//! speakers, live voice, characters, avatars, anims and their files, scenes, the VRM
//! report): they translate paths, NumPy arrays and errors and hold no rule. Every error is an `omote.OmoteError`
//! (an `OmoteValueError`, `OmoteTypeError` or `OmoteFileNotFoundError`, so also the
//! built-in `ValueError`, `TypeError` or `FileNotFoundError`) naming the call and what
//! was wrong. Analysis and bakes run with the GIL released, so threads scale.

// PyO3's and numpy's generated glue uses unsafe code at the boundary; ours does not.
#![allow(unsafe_code)]

use std::borrow::Cow;
use std::path::PathBuf;

use numpy::{
    PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyException, PyFileNotFoundError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyString, PyTuple, PyType};

mod face;
mod scene;
mod voice;

pyo3::create_exception!(
    omote,
    OmoteError,
    PyException,
    "Every error omote raises: a bad argument, a file that is missing or not what it should be."
);

static VALUE_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static TYPE_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static FILE_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// `class NAME(OmoteError, BASE)`, made once.
fn subclass<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyType>>,
    name: &str,
    base: Bound<'py, PyType>,
    doc: &str,
) -> PyResult<Bound<'py, PyType>> {
    cell.get_or_try_init(py, || {
        let bases = PyTuple::new(py, [py.get_type::<OmoteError>(), base])?;
        let namespace = pyo3::types::PyDict::new(py);
        namespace.set_item("__module__", "omote")?;
        namespace.set_item("__doc__", doc)?;
        let class = py
            .get_type::<PyType>()
            .call1((name, bases, namespace))?
            .cast_into::<PyType>()?;
        Ok::<_, PyErr>(class.unbind())
    })
    .map(|t| t.bind(py).clone())
}

fn value_error(py: Python<'_>) -> PyResult<Bound<'_, PyType>> {
    subclass(
        py,
        &VALUE_ERROR,
        "OmoteValueError",
        py.get_type::<PyValueError>(),
        "A value omote does not take (an empty or NaN buffer, a rate of 0, a file that is not what it should be).",
    )
}

fn type_error(py: Python<'_>) -> PyResult<Bound<'_, PyType>> {
    subclass(
        py,
        &TYPE_ERROR,
        "OmoteTypeError",
        py.get_type::<PyTypeError>(),
        "An argument of the wrong type (a NumPy array of the wrong dtype, a list for an array).",
    )
}

fn file_error(py: Python<'_>) -> PyResult<Bound<'_, PyType>> {
    subclass(
        py,
        &FILE_ERROR,
        "OmoteFileNotFoundError",
        py.get_type::<PyFileNotFoundError>(),
        "A file that does not exist.",
    )
}

/// What went wrong, before it becomes a Python exception.
pub(crate) enum Error {
    /// A value not taken (`OmoteValueError`).
    Value(String),
    /// A wrong type (`OmoteTypeError`).
    Type(String),
    /// A missing file (`OmoteFileNotFoundError`).
    NotFound(String),
}

impl Error {
    /// The exception, its message starting with `call`.
    pub(crate) fn raise(self, call: &str) -> PyErr {
        Python::attach(|py| {
            let (class, message) = match self {
                Error::Value(m) => (value_error(py), m),
                Error::Type(m) => (type_error(py), m),
                Error::NotFound(m) => (file_error(py), m),
            };
            match class {
                Ok(class) => PyErr::from_type(class, format!("{call}: {message}")),
                Err(e) => e,
            }
        })
    }
}

impl From<omote_embed::EmbedError> for Error {
    fn from(e: omote_embed::EmbedError) -> Self {
        match e {
            omote_embed::EmbedError::FileNotFound(m) => Error::NotFound(m),
            e => Error::Value(e.to_string()),
        }
    }
}

/// An embedding-API error as `call`'s exception.
pub(crate) fn embed(call: &'static str) -> impl Fn(omote_embed::EmbedError) -> PyErr {
    move |e| Error::from(e).raise(call)
}

/// float64 numbers as the float32 the runtime reads: one too large for a float32 is refused
/// by its index and value (cast, 1e300 would become inf and be reported as inf); NaN and
/// infinities pass, for the runtime's own check to name.
pub(crate) fn to_f32(
    call: &str,
    what: &str,
    numbers: impl Iterator<Item = f64>,
) -> PyResult<Vec<f32>> {
    numbers
        .enumerate()
        .map(|(i, v)| {
            if v.is_finite() && v.abs() > f64::from(f32::MAX) {
                Err(value(
                    call,
                    format!("{what}: number {i} is {v:e}, beyond what a float32 holds (±3.4e38)"),
                ))
            } else {
                Ok(v as f32)
            }
        })
        .collect()
}

/// `obj` as the omote class `T` an argument takes, or `call`'s `TypeError` naming the
/// argument and what was given (PyO3's own says neither the call nor the argument in its
/// message: "'None' is not an instance of 'Rig'").
pub(crate) fn instance<'a, 'py, T>(
    call: &str,
    what: &str,
    obj: &'a Bound<'py, PyAny>,
) -> PyResult<&'a T>
where
    T: pyo3::PyClass<Frozen = pyo3::pyclass::boolean_struct::True> + Sync,
{
    match obj.cast::<T>() {
        Ok(b) => Ok(b.get()),
        Err(_) => {
            let given = if obj.is_none() {
                "None".to_string()
            } else {
                let kind = obj.get_type().name()?.to_string();
                let article =
                    if kind.starts_with(['a', 'e', 'i', 'o', 'u', 'A', 'E', 'I', 'O', 'U']) {
                        "an"
                    } else {
                        "a"
                    };
                format!("{article} {kind}")
            };
            let class = <T as pyo3::type_object::PyTypeInfo>::type_object(obj.py()).name()?;
            Err(Error::Type(format!("{what} is {given}, not an omote.{class}")).raise(call))
        }
    }
}

/// A `ValueError` of `call`.
pub(crate) fn value(call: &str, message: impl Into<String>) -> PyErr {
    Error::Value(message.into()).raise(call)
}

/// A type's name with its article, for messages: "a list", "an int".
pub(crate) fn a_kind(kind: &str) -> String {
    let vowel = kind.starts_with(['a', 'e', 'i', 'o', 'u', 'A', 'E', 'I', 'O', 'U']);
    format!("{} {kind}", if vowel { "an" } else { "a" })
}

/// A path argument (`what` names it in errors): a `str` or an `os.PathLike`, else
/// `call`'s `TypeError` naming the argument and what it was given.
pub(crate) fn path_arg(call: &str, what: &str, path: &Bound<'_, PyAny>) -> PyResult<PathBuf> {
    let kind = path.get_type().name()?;
    if path.is_instance_of::<PyString>() || path.hasattr("__fspath__")? {
        // An os.PathLike that gives bytes, or a class rather than an instance.
        return path.extract().map_err(|e: PyErr| {
            Error::Type(format!(
                "{what} is {} that is not a path: {e}",
                a_kind(&kind.to_string())
            ))
            .raise(call)
        });
    }
    Err(Error::Type(format!(
        "{what} is {}: pass a path (str or os.PathLike)",
        a_kind(&kind.to_string())
    ))
    .raise(call))
}

/// `path` when it exists, else `call`'s `FileNotFoundError`.
pub(crate) fn existing(call: &str, path: PathBuf) -> PyResult<PathBuf> {
    if path.exists() {
        Ok(path)
    } else {
        Err(Error::from(omote_embed::EmbedError::file_not_found(&path)).raise(call))
    }
}

/// Audio as a call takes it: a path (str or `os.PathLike`) or a 1-D NumPy array.
pub(crate) enum Audio {
    /// A file to decode.
    File(PathBuf),
    /// Samples copied out of a float32 or float64 array while the GIL is held: the
    /// analysis runs with the GIL released, when another Python thread could write the
    /// array (copying 10 s at 48 kHz took 0.13 ms here; analysing them takes milliseconds).
    Samples(Vec<f32>),
}

impl Audio {
    /// `audio` as samples only, for a call that takes no path (`what` names it).
    pub(crate) fn extract_samples(
        call: &str,
        what: &str,
        audio: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        if audio.cast::<PyUntypedArray>().is_err() {
            let kind = audio.get_type().name()?.to_string();
            return Err(Error::Type(format!(
                "{what} is {}: pass a 1-D NumPy array of float32 samples in -1..1",
                a_kind(&kind.to_string())
            ))
            .raise(call));
        }
        Self::extract(call, what, audio)
    }

    /// `audio` read as a path or a mono sample array (`what` names it in errors).
    pub(crate) fn extract(call: &str, what: &str, audio: &Bound<'_, PyAny>) -> PyResult<Self> {
        let py = audio.py();
        if audio.is_instance_of::<PyString>() || audio.hasattr("__fspath__")? {
            return Ok(Audio::File(audio.extract()?));
        }
        let Ok(array) = audio.cast::<PyUntypedArray>() else {
            let kind = audio.get_type().name()?;
            return Err(Error::Type(format!(
                "{what} is {}: pass a path or a 1-D NumPy array of float32 samples in -1..1",
                a_kind(&kind.to_string())
            ))
            .raise(call));
        };
        if array.ndim() != 1 {
            return Err(Error::Value(format!(
                "{what} has shape {:?}: pass a 1-D array of mono samples (mix channels down first)",
                array.shape()
            ))
            .raise(call));
        }
        let dtype = array.dtype();
        if dtype.is_equiv_to(&numpy::dtype::<f32>(py)) {
            let a = audio.cast::<PyArrayDyn<f32>>()?.readonly();
            Ok(Audio::Samples(a.as_array().iter().copied().collect()))
        } else if dtype.is_equiv_to(&numpy::dtype::<f64>(py)) {
            let a = audio.cast::<PyArrayDyn<f64>>()?.readonly();
            Ok(Audio::Samples(to_f32(
                call,
                what,
                a.as_array().iter().copied(),
            )?))
        } else {
            Err(Error::Type(format!(
                "{what} has dtype {dtype}: pass float32 (or float64) samples in -1..1 \
                 (int16 PCM: divide by 32768)"
            ))
            .raise(call))
        }
    }

    /// The samples and their rate: a file decoded at the analyser's rate (`sample_rate`
    /// must be None), an array at `sample_rate` (required). Runs without the GIL.
    pub(crate) fn samples(
        &self,
        py: Python<'_>,
        call: &str,
        sample_rate: Option<f64>,
    ) -> PyResult<(Cow<'_, [f32]>, f64)> {
        match self {
            Audio::File(path) => {
                if sample_rate.is_some() {
                    return Err(value(
                        call,
                        format!(
                            "sample_rate is given for the file {}: a file has its own rate",
                            path.display()
                        ),
                    ));
                }
                let (samples, warning) = py
                    .detach(|| omote_embed::load_voice_with_warning(path))
                    .map_err(|e| Error::from(e).raise(call))?;
                if let Some(w) = warning {
                    // A WAV cut short: read as the CLI reads it, with its warning.
                    user_warning(py, &w)?;
                }
                Ok((Cow::Owned(samples), omote_embed::ANALYSIS_RATE))
            }
            Audio::Samples(samples) => {
                let Some(rate) = sample_rate else {
                    return Err(value(
                        call,
                        "sample_rate is missing: an array's rate must be given (e.g. 48000)",
                    ));
                };
                Ok((Cow::Borrowed(samples.as_slice()), rate))
            }
        }
    }
}

/// A VRM's report as `omote inspect --json` prints it: version, meta, expressions,
/// lookAt, face bones, warnings (fields in crates/omote-vrm/README.md). `lenient` also
/// reads a VRM 1.0 without the required head bone (listed under warnings).
#[pyfunction]
#[pyo3(signature = (vrm_path, *, lenient = false))]
fn inspect(py: Python<'_>, vrm_path: &Bound<'_, PyAny>, lenient: bool) -> PyResult<Py<PyAny>> {
    let vrm_path = path_arg("inspect", "vrm_path", vrm_path)?;
    let json = py
        .detach(|| omote_embed::inspect_vrm(&vrm_path, lenient))
        .map_err(embed("inspect"))?;
    Ok(py.import("json")?.call_method1("loads", (json,))?.unbind())
}

/// The extension module.
#[pymodule]
fn omote(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("OmoteError", py.get_type::<OmoteError>())?;
    m.add("OmoteValueError", value_error(py)?)?;
    m.add("OmoteTypeError", type_error(py)?)?;
    m.add("OmoteFileNotFoundError", file_error(py)?)?;
    m.add("ANALYSIS_RATE", omote_embed::ANALYSIS_RATE)?;
    m.add_function(wrap_pyfunction!(inspect, m)?)?;
    voice::register(m)?;
    face::register(m)?;
    scene::register(m)?;
    Ok(())
}

/// Raises `message` as a Python `UserWarning` (what a CLI prints as `warning:`).
pub(crate) fn user_warning(py: Python<'_>, message: &str) -> PyResult<()> {
    let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
    PyErr::warn(
        py,
        &category,
        &std::ffi::CString::new(message.replace('\0', " ")).unwrap_or_default(),
        1,
    )
}
