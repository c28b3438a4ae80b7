//! [`OnnxModel`]: one ONNX network loaded with tract: parsed once, given a fixed
//! input shape, optimised and turned into a runnable plan with a reusable state.

use std::io::Cursor;

use tract_onnx::prelude::*;
use tract_onnx::tract_hir::ops::binary::BinIntoHir;

use crate::error::{Result, TrackerError};
use crate::prelu::PreluOp;

/// tract's ONNX front end with `PRelu` mapped to the one-pass [`PreluOp`].
fn onnx_frontend() -> tract_onnx::Onnx {
    let mut onnx = tract_onnx::onnx();
    onnx.op_register
        .insert("PRelu", |_, _| Ok((PreluOp.into_hir(), vec![])));
    onnx
}

/// A loaded, optimised, runnable ONNX model with one `f32` input of fixed shape.
pub(crate) struct OnnxModel {
    file: &'static str,
    state: TypedSimpleState,
    input_shape: Vec<usize>,
    output_names: Vec<String>,
}

impl std::fmt::Debug for OnnxModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OnnxModel")
            .field("file", &self.file)
            .field("input_shape", &self.input_shape)
            .field("output_names", &self.output_names)
            .finish()
    }
}

impl OnnxModel {
    /// Parses `bytes` (the contents of `file`), pins input 0 to `input_shape`,
    /// optimises and plans the model.
    pub(crate) fn load(file: &'static str, bytes: &[u8], input_shape: &[usize]) -> Result<Self> {
        let err = |e: TractError| TrackerError::Model {
            file,
            message: format!("{e:#}"),
        };
        let model = onnx_frontend()
            .model_for_read(&mut Cursor::new(bytes))
            .map_err(err)?
            .with_input_fact(0, f32::fact(input_shape).into())
            .map_err(err)?
            .into_optimized()
            .map_err(err)?;
        let output_names = model
            .output_outlets()
            .map_err(err)?
            .iter()
            .map(|o| {
                model
                    .outlet_label(*o)
                    .unwrap_or(&model.node(o.node).name)
                    .to_owned()
            })
            .collect();
        let plan = model.into_runnable().map_err(err)?;
        let state = TypedSimpleState::new(&plan).map_err(err)?;
        Ok(Self {
            file,
            state,
            input_shape: input_shape.to_vec(),
            output_names,
        })
    }

    /// The model's file name, for errors.
    pub(crate) fn file(&self) -> &'static str {
        self.file
    }

    /// The names of the outputs, in the order [`OnnxModel::run`] returns them.
    pub(crate) fn output_names(&self) -> &[String] {
        &self.output_names
    }

    /// The index of the output called `name`.
    pub(crate) fn output_index(&self, name: &str) -> Result<usize> {
        self.output_names
            .iter()
            .position(|n| n == name)
            .ok_or_else(|| TrackerError::ModelOutput {
                file: self.file,
                message: format!("no output named `{name}` (have {:?})", self.output_names),
            })
    }

    /// Runs the model on `input` (laid out as the fixed input shape) and returns
    /// every output.
    pub(crate) fn run(&mut self, input: &[f32]) -> Result<TVec<TValue>> {
        let file = self.file;
        let tensor =
            Tensor::from_shape(&self.input_shape, input).map_err(|e| TrackerError::Model {
                file,
                message: format!("{e:#}"),
            })?;
        self.state
            .run(tvec!(tensor.into()))
            .map_err(|e| TrackerError::Model {
                file,
                message: format!("{e:#}"),
            })
    }

    /// Output `index` of a run as a flat `f32` slice, checked to hold `len` values.
    pub(crate) fn output_slice<'a>(
        &self,
        outputs: &'a TVec<TValue>,
        index: usize,
        len: usize,
    ) -> Result<&'a [f32]> {
        let slice = outputs
            .get(index)
            .and_then(|t| t.try_as_plain_ram().and_then(|v| v.as_slice::<f32>()).ok())
            .ok_or_else(|| TrackerError::ModelOutput {
                file: self.file,
                message: format!("output {index} is missing or not f32"),
            })?;
        if slice.len() != len {
            return Err(TrackerError::ModelOutput {
                file: self.file,
                message: format!("output {index} has {} values, expected {len}", slice.len()),
            });
        }
        Ok(slice)
    }
}
