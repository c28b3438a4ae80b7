//! `omote inspect MODEL.vrm [--json]`: what omote reads from a VRM (0.x or 1.0).

use std::path::PathBuf;

use omote_vrm::{InspectReport, VrmModel};

/// Print a VRM's version, meta, expressions, lookAt and face bones.
#[derive(Debug, clap::Args)]
pub struct InspectArgs {
    /// The `.vrm` file (VRM 1.0 or 0.x).
    pub model: PathBuf,
    /// Print JSON (fields documented in crates/omote-vrm/README.md) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Run `omote inspect`.
pub fn run(args: InspectArgs) -> anyhow::Result<()> {
    let model = VrmModel::read(&args.model)?;
    let report = InspectReport::new(&model);
    if args.json {
        println!("{}", report.to_json());
    } else {
        print!("{}", report.to_text());
    }
    Ok(())
}
