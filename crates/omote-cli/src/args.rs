//! Command-line values shared by several subcommands: the choices behind options
//! (clap's side of `omote-live`'s types), parsers and loaders.

use std::path::Path;

use anyhow::Context;
use clap::ValueEnum;
use omote_lipsync::Profile;

/// Which expression names go on the VMC wire.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum WireNames {
    /// VRM 0.x clip names (A I U E O, Blink, Joy, Angry, Sorrow, Fun …): most receivers.
    Vrm0,
    /// VRM 1.0 names (aa ih ou ee oh, blink, happy …).
    Vrm1,
}

impl From<WireNames> for omote_live::BlendNames {
    fn from(n: WireNames) -> Self {
        match n {
            WireNames::Vrm0 => omote_live::BlendNames::Vrm0,
            WireNames::Vrm1 => omote_live::BlendNames::Vrm1,
        }
    }
}

/// Which expression weights go on the VMC wire.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum WireWeights {
    /// After the VRM 1.0 override rules, what the face shows: for VRM 0.x models (no
    /// override rules). The default with `vrm0` names.
    Applied,
    /// Before the override rules: for VRM 1.0 models, which apply them. The default with
    /// `vrm1` names.
    Input,
}

impl WireWeights {
    /// The choice, or the default for `names` when none was given.
    pub fn resolve(choice: Option<Self>, names: WireNames) -> omote_vmc::BlendWeights {
        match choice {
            Some(Self::Applied) => omote_vmc::BlendWeights::Applied,
            Some(Self::Input) => omote_vmc::BlendWeights::Input,
            None => omote_vmc::BlendWeights::for_names(names.into()),
        }
    }
}

/// Sample encoding of a raw PCM stream.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum SampleFormat {
    /// Signed 16-bit little-endian integers.
    S16le,
    /// 32-bit little-endian floats in -1..1.
    F32le,
}

impl From<SampleFormat> for omote_live::SampleFormat {
    fn from(f: SampleFormat) -> Self {
        match f {
            SampleFormat::S16le => omote_live::SampleFormat::S16le,
            SampleFormat::F32le => omote_live::SampleFormat::F32le,
        }
    }
}

/// `NAME=WEIGHT` with the weight in 0..=1 (command-line expression values).
pub fn parse_expression(s: &str) -> Result<(String, f32), String> {
    let (name, weight) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not NAME=WEIGHT"))?;
    let weight: f32 = weight
        .parse()
        .map_err(|_| format!("`{weight}` is not a number"))?;
    if !(0.0..=1.0).contains(&weight) {
        return Err(format!("weight {weight} is not between 0 and 1"));
    }
    Ok((name.to_string(), weight))
}

/// The lip sync profile behind `--profile`: the built-in one, or the one in `path`
/// (errors name the file).
pub fn load_profile(path: Option<&Path>) -> anyhow::Result<Profile> {
    match path {
        None => Ok(Profile::builtin()),
        Some(p) => {
            let text = omote_fs::read_to_string(p, omote_fs::Limit::CONFIG)
                .with_context(|| format!("{}: cannot read profile", p.display()))?;
            Ok(Profile::from_json(&text, &p.display().to_string())?)
        }
    }
}
