//! Scenes: `load_scene` and `Scene.bake` over `omote_scene`.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyDict;

use omote_embed::Avatar;
use omote_scene::{BakeOptions, LoadOptions, LoadedScene};

use crate::face::{Anim, Rig, check_fps};
use crate::{existing, value};

/// A dialogue scene (docs/scene-format.md), loaded: characters with their rigs, voice
/// lines already lip-synced. Bake it as often as you like: each bake starts at time 0.
#[pyclass(module = "omote", name = "Scene", frozen)]
pub struct Scene {
    inner: LoadedScene,
}

#[pymethods]
impl Scene {
    /// The characters' ids, in scene order.
    #[getter]
    fn characters(&self) -> Vec<String> {
        self.inner.characters.iter().map(|c| c.id.clone()).collect()
    }

    /// The file's frame rate, or None when it sets none.
    #[getter]
    fn fps(&self) -> Option<f32> {
        self.inner.fps
    }

    /// A character's rig (a `Rig.has_vrm` one when its avatar is a VRM or built in).
    fn rig(&self, id: &str) -> PyResult<Rig> {
        let c = self
            .inner
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
        let fps = fps.or(self.inner.fps).unwrap_or(60.0);
        check_fps(call, fps)?;
        let options = BakeOptions {
            fps,
            advances: advance,
            skips: skip,
            ..BakeOptions::default()
        };
        for (what, times) in [("advance", &options.advances), ("skip", &options.skips)] {
            if let Some(t) = times
                .iter()
                .find(|t| !(t.is_finite() && (0.0..f64::from(options.max_s)).contains(*t)))
            {
                return Err(value(
                    call,
                    format!("{what}: {t} is not a time from 0 to {} s", options.max_s),
                ));
            }
        }
        let baked = py.detach(|| {
            let mut scene = self.inner.scene.clone();
            omote_scene::bake(&mut scene, &self.inner.clip_names(), &options, |_, _| {})
        });
        let out = PyDict::new(py);
        for b in baked {
            out.set_item(b.id, Anim { inner: b.anim })?;
        }
        Ok(out)
    }

    fn __repr__(&self) -> String {
        format!(
            "<omote.Scene {} ({})>",
            self.inner.path.display(),
            self.characters().join(", ")
        )
    }
}

/// Loads a scene file (TOML; every file it names is checked, voices lip-synced with the
/// built-in profile). Errors name the file and the line. The GIL is released.
#[pyfunction]
fn load_scene(py: Python<'_>, path: PathBuf) -> PyResult<Scene> {
    let call = "load_scene";
    let path = existing(call, path)?;
    py.detach(|| omote_scene::load_scene(&path, &LoadOptions::default(), &mut |_, _| {}))
        .map(|inner| Scene { inner })
        .map_err(|e| value(call, e.to_string()))
}

/// Puts this module's names into `omote`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Scene>()?;
    m.add_function(wrap_pyfunction!(load_scene, m)?)?;
    Ok(())
}
