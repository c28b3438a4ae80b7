//! A small glTF builder over `gltf_json` types: one binary buffer, typed accessors, GLB
//! output. Used by the VRMA writer and the avatar generator.

use gltf_json::accessor::{ComponentType, GenericComponentType, IndexComponentType, Type, sparse};
use gltf_json::buffer::{Target, View};
use gltf_json::validation::{Checked, USize64};
use gltf_json::{Accessor, Buffer, Index, Node, Root};
use serde_json::{Map, Value};

use crate::error::VrmError;
use crate::glb;

/// A glTF document being built, with its binary chunk.
pub(crate) struct GltfBuilder {
    pub root: Root,
    bin: Vec<u8>,
}

fn min_max<const N: usize>(data: &[[f32; N]]) -> (Value, Value) {
    let mut lo = [f32::INFINITY; N];
    let mut hi = [f32::NEG_INFINITY; N];
    for v in data {
        for i in 0..N {
            lo[i] = lo[i].min(v[i]);
            hi[i] = hi[i].max(v[i]);
        }
    }
    if data.is_empty() {
        lo = [0.0; N];
        hi = [0.0; N];
    }
    (Value::from(lo.to_vec()), Value::from(hi.to_vec()))
}

fn type_of(n: usize) -> Type {
    match n {
        1 => Type::Scalar,
        2 => Type::Vec2,
        3 => Type::Vec3,
        _ => Type::Vec4,
    }
}

impl GltfBuilder {
    pub fn new(generator: &str) -> Self {
        let mut root = Root::default();
        root.asset.generator = Some(generator.to_string());
        root.asset.version = "2.0".into();
        Self {
            root,
            bin: Vec::new(),
        }
    }

    fn align(&mut self) {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
    }

    /// Append bytes as a buffer view.
    pub fn view(&mut self, bytes: &[u8], target: Option<Target>) -> Index<View> {
        self.align();
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        self.root.push(View {
            buffer: Index::new(0),
            byte_length: USize64::from(bytes.len()),
            byte_offset: Some(USize64::from(offset)),
            byte_stride: None,
            name: None,
            target: target.map(Checked::Valid),
            extensions: None,
            extras: None,
        })
    }

    fn floats<const N: usize>(data: &[[f32; N]]) -> Vec<u8> {
        data.iter()
            .flatten()
            .flat_map(|f| f.to_le_bytes())
            .collect()
    }

    /// A float accessor of `N` components (with min/max, as POSITION and animation
    /// inputs require).
    pub fn floats_accessor<const N: usize>(
        &mut self,
        data: &[[f32; N]],
        target: Option<Target>,
    ) -> Index<Accessor> {
        let view = self.view(&Self::floats(data), target);
        let (min, max) = min_max(data);
        self.root.push(Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64::from(data.len()),
            component_type: Checked::Valid(GenericComponentType(ComponentType::F32)),
            extensions: None,
            extras: None,
            type_: Checked::Valid(type_of(N)),
            min: Some(min),
            max: Some(max),
            name: None,
            normalized: false,
            sparse: None,
        })
    }

    /// A triangle index accessor (u16 when the vertices allow, else u32).
    pub fn index_accessor(&mut self, indices: &[u32]) -> Index<Accessor> {
        let small = indices.iter().all(|&i| i < u16::MAX as u32);
        let bytes: Vec<u8> = if small {
            indices
                .iter()
                .flat_map(|&i| (i as u16).to_le_bytes())
                .collect()
        } else {
            indices.iter().flat_map(|i| i.to_le_bytes()).collect()
        };
        let view = self.view(&bytes, Some(Target::ElementArrayBuffer));
        self.root.push(Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64::from(indices.len()),
            component_type: Checked::Valid(GenericComponentType(if small {
                ComponentType::U16
            } else {
                ComponentType::U32
            })),
            extensions: None,
            extras: None,
            type_: Checked::Valid(Type::Scalar),
            min: None,
            max: None,
            name: None,
            normalized: false,
            sparse: None,
        })
    }

    /// A VEC3 float accessor of `count` elements, zero except at `indices` (glTF sparse
    /// storage; morph targets touch few vertices). `indices` must increase.
    pub fn sparse_vec3_accessor(
        &mut self,
        count: usize,
        indices: &[u32],
        values: &[[f32; 3]],
    ) -> Index<Accessor> {
        let mut all = values.to_vec();
        if indices.len() < count {
            all.push([0.0; 3]); // untouched vertices are zero
        }
        let (min, max) = min_max(&all);
        let sparse = if indices.is_empty() {
            None
        } else {
            let iv = self.view(
                &indices
                    .iter()
                    .flat_map(|i| i.to_le_bytes())
                    .collect::<Vec<u8>>(),
                None,
            );
            let vv = self.view(&Self::floats(values), None);
            Some(sparse::Sparse {
                count: USize64::from(indices.len()),
                indices: sparse::Indices {
                    buffer_view: iv,
                    byte_offset: USize64(0),
                    component_type: Checked::Valid(IndexComponentType(ComponentType::U32)),
                    extensions: None,
                    extras: None,
                },
                values: sparse::Values {
                    buffer_view: vv,
                    byte_offset: USize64(0),
                    extensions: None,
                    extras: None,
                },
                extensions: None,
                extras: None,
            })
        };
        self.root.push(Accessor {
            buffer_view: None,
            byte_offset: None,
            count: USize64::from(count),
            component_type: Checked::Valid(GenericComponentType(ComponentType::F32)),
            extensions: None,
            extras: None,
            type_: Checked::Valid(Type::Vec3),
            min: Some(min),
            max: Some(max),
            name: None,
            normalized: false,
            sparse,
        })
    }

    /// Add a node.
    pub fn node(&mut self, node: Node) -> Index<Node> {
        self.root.push(node)
    }

    /// Make `child` a child of `parent`.
    pub fn add_child(&mut self, parent: Index<Node>, child: Index<Node>) {
        self.root.nodes[parent.value()]
            .children
            .get_or_insert_with(Vec::new)
            .push(child);
    }

    /// Finish: root extensions (name → JSON), `extensionsUsed`, GLB bytes.
    pub fn finish(
        mut self,
        extensions: Map<String, Value>,
        used: &[&str],
        file: &str,
    ) -> Result<Vec<u8>, VrmError> {
        self.align();
        if !self.bin.is_empty() {
            self.root.buffers = vec![Buffer {
                byte_length: USize64::from(self.bin.len()),
                name: None,
                uri: None,
                extensions: None,
                extras: None,
            }];
        }
        self.root.extensions_used = used.iter().map(|s| s.to_string()).collect();
        if !extensions.is_empty() {
            // Other fields of the root extensions object exist only with features we
            // do not enable.
            #[allow(clippy::needless_update)]
            let root_ext = gltf_json::extensions::root::Root {
                others: extensions,
                ..Default::default()
            };
            self.root.extensions = Some(root_ext);
        }
        let json = self.root.to_vec().map_err(|e| VrmError::Write {
            file: file.to_string(),
            message: e.to_string(),
        })?;
        glb::join(&json, &self.bin, file)
    }
}

/// A node with a name and optional translation / rotation / mesh.
pub(crate) fn named_node(name: &str) -> Node {
    Node {
        name: Some(name.to_string()),
        ..Default::default()
    }
}
