//! `omote inspect MODEL.vrm [--json] [--lenient]`: what omote reads from a VRM (0.x or
//! 1.0).

use std::path::PathBuf;

use omote_vrm::{InspectReport, VrmError, VrmModel, VrmReadOptions};

/// Print a VRM's version, meta, expressions, lookAt and face bones.
#[derive(Debug, clap::Args)]
pub struct InspectArgs {
    /// The `.vrm` model (VRM 1.0 or 0.x; a `.vrma` animation is not a model).
    pub model: PathBuf,
    /// Print JSON (fields documented in crates/omote-vrm/README.md) instead of text.
    #[arg(long)]
    pub json: bool,
    /// Also read a VRM 1.0 file without the required `head` bone (three-vrm and every
    /// other omote command refuse it); the missing bone is listed under warnings.
    #[arg(long)]
    pub lenient: bool,
}

/// Run `omote inspect`.
pub fn run(args: InspectArgs) -> anyhow::Result<()> {
    let options = VrmReadOptions {
        allow_missing_head: args.lenient,
    };
    let model = match VrmModel::read_with(&args.model, options) {
        Err(e @ VrmError::MissingBone { .. }) => {
            anyhow::bail!("{e}; `omote inspect --lenient` reads it anyway");
        }
        other => other?,
    };
    let report = InspectReport::new(&model);
    if args.json {
        println!("{}", report.to_json());
    } else {
        // Names come from the file: escaped for the terminal (the JSON is escaped by serde).
        print!("{}", crate::output::escape_terminal(&report.to_text()));
    }
    Ok(())
}
