//! [`OnnxModel`]: one ONNX network loaded with tract: parsed once, given a fixed
//! input shape, then run either by this crate's own executor ([`crate::cnn`],
//! for the convolutional networks it supports) or by tract's optimised plan.

use std::io::Cursor;

use tract_onnx::prelude::*;
use tract_onnx::tract_hir::ops::binary::BinIntoHir;

use crate::cnn;
use crate::error::{Result, TrackerError};
use crate::prelu::PreluOp;

/// tract's ONNX front end with `PRelu` mapped to the one-pass [`PreluOp`].
pub(crate) fn onnx_frontend() -> tract_onnx::Onnx {
    let mut onnx = tract_onnx::onnx();
    onnx.op_register
        .insert("PRelu", |_, _| Ok((PreluOp.into_hir(), vec![])));
    onnx
}

/// What runs a model.
pub(crate) enum Engine {
    /// tract's optimised plan, with the outputs of the last run.
    Tract(Box<TypedSimpleState>, TVec<TValue>),
    /// The dedicated channels-last executor.
    Cnn(cnn::Network),
    /// The blendshape MLP-Mixer on the executor's matrix product.
    Mixer(Box<cnn::mixer::Mixer>),
}

/// Which engine [`OnnxModel::load_with`] should use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EnginePref {
    /// [`cnn`] (or its [`cnn::mixer`]) when it supports the graph, else tract.
    Auto,
    /// tract only (the reference).
    #[cfg_attr(not(test), allow(dead_code))]
    Tract,
}

/// A loaded, runnable ONNX model with one `f32` input of fixed shape.
pub(crate) struct OnnxModel {
    file: &'static str,
    engine: Engine,
    input_shape: Vec<usize>,
    output_names: Vec<String>,
}

impl std::fmt::Debug for OnnxModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OnnxModel")
            .field("file", &self.file)
            .field("input_shape", &self.input_shape)
            .field("output_names", &self.output_names)
            .field("own_executor", &!matches!(self.engine, Engine::Tract(..)))
            .finish()
    }
}

impl OnnxModel {
    /// Parses `bytes` (the contents of `file`), pins input 0 to `input_shape`,
    /// and compiles it for [`cnn`] or, if that does not support the graph,
    /// optimises and plans it with tract.
    pub(crate) fn load(file: &'static str, bytes: &[u8], input_shape: &[usize]) -> Result<Self> {
        Self::load_with(file, bytes, input_shape, EnginePref::Auto)
    }

    /// [`OnnxModel::load`] with a choice of engine.
    pub(crate) fn load_with(
        file: &'static str,
        bytes: &[u8],
        input_shape: &[usize],
        pref: EnginePref,
    ) -> Result<Self> {
        let err = |e: TractError| TrackerError::Model {
            file,
            message: format!("{e:#}"),
        };
        let model = onnx_frontend()
            .model_for_read(&mut Cursor::new(bytes))
            .map_err(err)?
            .with_input_fact(0, f32::fact(input_shape).into())
            .map_err(err)?
            .into_typed()
            .map_err(err)?
            .into_decluttered()
            .map_err(err)?;
        let output_names = Self::output_names_of(&model).map_err(err)?;
        if pref == EnginePref::Auto
            && let Ok(net) = cnn::compile(&model)
            && net.input_len() == input_shape.iter().product::<usize>()
        {
            return Ok(Self {
                file,
                engine: Engine::Cnn(net),
                input_shape: input_shape.to_vec(),
                output_names,
            });
        }
        if pref == EnginePref::Auto
            && let Ok(mixer) = cnn::mixer::Mixer::from_onnx_bytes(bytes)
            && mixer.input_len() == input_shape.iter().product::<usize>()
        {
            return Ok(Self {
                file,
                engine: Engine::Mixer(Box::new(mixer)),
                input_shape: input_shape.to_vec(),
                output_names,
            });
        }
        let model = model.into_optimized().map_err(err)?;
        let plan = model.into_runnable().map_err(err)?;
        let state = TypedSimpleState::new(&plan).map_err(err)?;
        Ok(Self {
            file,
            engine: Engine::Tract(Box::new(state), tvec![]),
            input_shape: input_shape.to_vec(),
            output_names,
        })
    }

    /// The output names of `model`, in output order.
    fn output_names_of(model: &TypedModel) -> TractResult<Vec<String>> {
        Ok(model
            .output_outlets()?
            .iter()
            .map(|o| {
                model
                    .outlet_label(*o)
                    .unwrap_or(&model.node(o.node).name)
                    .to_owned()
            })
            .collect())
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

    /// The engine (tests switch the executor's instruction set).
    #[cfg(test)]
    pub(crate) fn engine_mut(&mut self) -> &mut Engine {
        &mut self.engine
    }

    /// Whether the model runs on this crate's own executor rather than tract.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn uses_own_executor(&self) -> bool {
        !matches!(self.engine, Engine::Tract(..))
    }

    /// Runs the model on `input` (laid out as the fixed input shape); read the
    /// outputs with [`OnnxModel::output_slice`].
    pub(crate) fn run(&mut self, input: &[f32]) -> Result<()> {
        let file = self.file;
        let err = |e: TractError| TrackerError::Model {
            file,
            message: format!("{e:#}"),
        };
        // The own executors take exactly their input's length; tract checks the shape.
        let expected = match &self.engine {
            Engine::Cnn(net) => Some(net.input_len()),
            Engine::Mixer(mixer) => Some(mixer.input_len()),
            Engine::Tract(..) => None,
        };
        if let Some(expected) = expected.filter(|n| *n != input.len()) {
            return Err(TrackerError::Model {
                file,
                message: format!("input has {} values, expected {expected}", input.len()),
            });
        }
        match &mut self.engine {
            Engine::Cnn(net) => net.run(input),
            Engine::Mixer(mixer) => mixer.run(input),
            Engine::Tract(state, outputs) => {
                let tensor = Tensor::from_shape(&self.input_shape, input).map_err(err)?;
                *outputs = state.run(tvec!(tensor.into())).map_err(err)?;
            }
        }
        Ok(())
    }

    /// Output `index` of the last run as a flat `f32` slice, checked to hold `len`
    /// values.
    pub(crate) fn output_slice(&self, index: usize, len: usize) -> Result<&[f32]> {
        let slice = match &self.engine {
            Engine::Cnn(net) => (index < net.num_outputs()).then(|| net.output(index)),
            Engine::Mixer(mixer) => (index == 0).then(|| mixer.output()),
            Engine::Tract(_, outputs) => outputs
                .get(index)
                .and_then(|t| t.try_as_plain_ram().and_then(|v| v.as_slice::<f32>()).ok()),
        }
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
