//! The glTF document a VRM extension points into: index checks that turn dangling
//! references into [`VrmError::BadReference`] naming the field.

use gltf_json::Root;

use crate::error::VrmError;

/// A parsed glTF JSON with the file name, for reference checks.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Document<'a> {
    /// The file name used in errors.
    pub file: &'a str,
    /// The glTF JSON.
    pub root: &'a Root,
}

impl<'a> Document<'a> {
    pub fn bad_ref(&self, field: &str, index: usize, what: &'static str, count: usize) -> VrmError {
        VrmError::BadReference {
            file: self.file.to_string(),
            field: field.to_string(),
            index: index as u64,
            what,
            count,
        }
    }

    pub fn invalid(&self, field: String, value: f64, reason: &'static str) -> VrmError {
        VrmError::InvalidValue {
            file: self.file.to_string(),
            field,
            value,
            reason,
        }
    }

    pub fn bad_name(&self, field: String, name: &str, reason: String) -> VrmError {
        VrmError::BadName {
            file: self.file.to_string(),
            field,
            name: name.to_string(),
            reason,
        }
    }

    /// Check that every number is finite.
    pub fn finite(&self, field: &str, values: &[f32]) -> Result<(), VrmError> {
        match values.iter().position(|v| !v.is_finite()) {
            None => Ok(()),
            Some(i) if values.len() == 1 => {
                Err(self.invalid(field.to_string(), values[i] as f64, "must be finite"))
            }
            Some(i) => {
                Err(self.invalid(format!("{field}[{i}]"), values[i] as f64, "must be finite"))
            }
        }
    }

    /// The node at `index`, or an error naming `field`.
    pub fn node(&self, field: &str, index: usize) -> Result<&'a gltf_json::Node, VrmError> {
        self.root
            .nodes
            .get(index)
            .ok_or_else(|| self.bad_ref(field, index, "node", self.root.nodes.len()))
    }

    /// The mesh at `index`, or an error naming `field`.
    pub fn mesh(&self, field: &str, index: usize) -> Result<&'a gltf_json::Mesh, VrmError> {
        self.root
            .meshes
            .get(index)
            .ok_or_else(|| self.bad_ref(field, index, "mesh", self.root.meshes.len()))
    }

    /// The mesh of node `node` (an error if the node has none).
    pub fn mesh_of_node(&self, field: &str, node: usize) -> Result<usize, VrmError> {
        let n = self.node(field, node)?;
        match n.mesh {
            Some(m) => {
                let m = m.value();
                self.mesh(&format!("nodes[{node}].mesh"), m)?;
                Ok(m)
            }
            None => Err(self.bad_ref(field, node, "node with a mesh", 0)),
        }
    }

    /// How many morph targets mesh `mesh` has (the most of any primitive).
    pub fn morph_target_count(&self, mesh: usize) -> usize {
        self.root.meshes.get(mesh).map_or(0, |m| {
            m.primitives
                .iter()
                .map(|p| p.targets.as_ref().map_or(0, Vec::len))
                .max()
                .unwrap_or(0)
        })
    }

    /// Check that morph target `index` exists on mesh `mesh`.
    pub fn morph_target(&self, field: &str, mesh: usize, index: usize) -> Result<(), VrmError> {
        let count = self.morph_target_count(mesh);
        if index < count {
            Ok(())
        } else {
            Err(self.bad_ref(field, index, "morph target", count))
        }
    }

    /// Check that material `index` exists.
    pub fn material(&self, field: &str, index: usize) -> Result<(), VrmError> {
        if index < self.root.materials.len() {
            Ok(())
        } else {
            Err(self.bad_ref(field, index, "material", self.root.materials.len()))
        }
    }

    /// Materials named `name` (or `name (Outline)`, as UniVRM 0.x exports outlines).
    pub fn materials_named(&self, name: &str) -> Vec<usize> {
        self.root
            .materials
            .iter()
            .enumerate()
            .filter(|(_, m)| {
                m.name.as_deref().is_some_and(|n| {
                    n == name || n.strip_suffix(" (Outline)").is_some_and(|b| b == name)
                })
            })
            .map(|(i, _)| i)
            .collect()
    }
}
