//! Command-line values shared by several subcommands: parsers and loaders.

use std::path::Path;

use anyhow::Context;
use omote_lipsync::Profile;

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
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("{}: cannot read profile", p.display()))?;
            Ok(Profile::from_json(&text, &p.display().to_string())?)
        }
    }
}
