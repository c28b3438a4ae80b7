//! Scenes: `load_scene` and `Scene.bake` over `omote_embed::ScenePlayer`.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use omote_embed::{Avatar, BakeOptions, ScenePlayer};

use crate::face::{Anim, Rig};
use crate::{embed, existing, value};

/// A dialogue scene (docs/scene-format.md), loaded: characters with their rigs, voice
/// lines already lip-synced. Bake it as often as you like: each bake starts at time 0.
#[pyclass(module = "omote", name = "Scene", frozen)]
pub struct Scene {
    inner: ScenePlayer,
}

#[pymethods]
impl Scene {
    /// The characters' ids, in scene order.
    #[getter]
    fn characters(&self) -> Vec<String> {
        self.inner
            .loaded()
            .characters
            .iter()
            .map(|c| c.id.clone())
            .collect()
    }

    /// The file's frame rate, or None when it sets none.
    #[getter]
    fn fps(&self) -> Option<f32> {
        self.inner.loaded().fps
    }

    /// What loading read but not whole, each naming the scene's line and the file (a
    /// voice WAV cut short: what is there is used); `load_scene` also raised each as a
    /// `UserWarning`.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.inner.warnings().to_vec()
    }

    /// A character's rig (a `Rig.has_vrm` one when its avatar is a VRM or built in).
    fn rig(&self, id: &str) -> PyResult<Rig> {
        let c = self
            .inner
            .loaded()
            .characters
            .iter()
            .find(|c| c.id == id)
            .ok_or_else(|| {
                value(
                    "Scene.rig",
                    format!("no character {id:?}; the scene has {:?}", self.characters()),
                )
            })?;
        Ok(Rig {
            inner: Avatar {
                rig: c.rig.clone(),
                model: c.model.clone(),
                vrm: c.builtin_vrm.clone(),
                name: c.rig_source.clone(),
            },
        })
    }

    /// Bakes the scene: `fps` (default: the file's, else 60), the times (s) at which the
    /// player presses "next" (`advance`; none: each wait holds for its own `hold`) and
    /// skips the line playing (`skip`) — as `omote bake --advance … --skip …`. Returns
    /// {character id: Anim}, the same anims `omote bake` writes. The GIL is released.
    #[pyo3(signature = (fps = None, advance = Vec::new(), skip = Vec::new()))]
    fn bake<'py>(
        &self,
        py: Python<'py>,
        fps: Option<f32>,
        advance: Vec<f64>,
        skip: Vec<f64>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let call = "Scene.bake";
        let options = BakeOptions {
            fps: self.inner.loaded().bake_fps(fps),
            advances: advance,
            skips: skip,
            ..BakeOptions::default()
        };
        let baked = py
            .detach(|| self.inner.bake(&options))
            .map_err(embed(call))?;
        let out = PyDict::new(py);
        for b in baked {
            out.set_item(b.id, Anim::new(b.anim))?;
        }
        Ok(out)
    }

    fn __repr__(&self) -> String {
        format!(
            "<omote.Scene {} ({})>",
            self.inner.loaded().path.display(),
            self.characters().join(", ")
        )
    }
}

/// Loads a scene file (TOML; every file it names is checked, voices lip-synced with the
/// built-in profile). Errors name the file and the line. The GIL is released.
#[pyfunction]
fn load_scene(py: Python<'_>, path: &Bound<'_, PyAny>) -> PyResult<Scene> {
    let call = "load_scene";
    let path = existing(call, crate::path_arg(call, "path", path)?)?;
    let inner = py
        .detach(|| ScenePlayer::load(&path))
        .map_err(embed(call))?;
    // A voice WAV cut short is read, with its warning, as the CLI reads it.
    for w in inner.warnings() {
        crate::user_warning(py, w)?;
    }
    Ok(Scene { inner })
}

/// Puts this module's names into `omote`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Scene>()?;
    m.add_function(wrap_pyfunction!(load_scene, m)?)?;
    Ok(())
}
