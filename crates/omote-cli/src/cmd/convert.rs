//! `omote convert IN.anim.json [--rig MODEL.vrm] -o OUT.vrma`: an omote anim as a VRM
//! Animation for a model.

use std::path::PathBuf;

use anyhow::{Context, bail};
use omote_core::Anim;
use omote_vrm::VrmModel;

/// Convert an anim (omote-anim JSON) to VRMA.
#[derive(Debug, clap::Args)]
pub struct ConvertArgs {
    /// The anim to convert (`omote-anim` JSON).
    pub input: PathBuf,
    /// The model the animation is for: decides which expressions are written and the
    /// lookAt offset. Default: the generated test avatar (`omote avatar`).
    #[arg(long)]
    pub rig: Option<PathBuf>,
    /// Output file; `.vrma` (VRMC_vrm_animation 1.0).
    #[arg(short, long)]
    pub output: PathBuf,
}

/// Run `omote convert`.
pub fn run(args: ConvertArgs) -> anyhow::Result<()> {
    if let Err(ext) = crate::output::extension_in(&args.output, &["vrma"]) {
        bail!(
            "{}: unsupported output format `.{ext}` (supported: .vrma)",
            args.output.display()
        );
    }
    let text = omote_fs::read(&args.input, omote_fs::Limit::DATA)
        .with_context(|| format!("{}", args.input.display()))?;
    let anim: Anim = serde_path_to_json(&text)
        .with_context(|| format!("{}: not an omote anim", args.input.display()))?;
    anim.validate()
        .with_context(|| format!("{}", args.input.display()))?;
    if anim.version < 2 {
        eprintln!(
            "note: {} is a version-1 anim: its weights are after the VRM override rules, and a \
             VRMA player applies them again (blend-overridden blinks and vowels come out \
             weaker); record it again for the weights before the rules",
            args.input.display()
        );
    }
    let model = match &args.rig {
        Some(p) => VrmModel::read(p)?,
        None => omote_vrm::avatar::model(),
    };
    if let Some(note) = omote_vrm::expressions_not_on_note(&anim, &model) {
        eprintln!("note: {}", crate::output::escape_terminal(&note));
    }
    let bytes = omote_vrm::write_vrma(&anim, &model)
        .with_context(|| format!("{}", args.input.display()))?;
    // Its errors name the file.
    crate::output::write_file(&args.output, &bytes)?;
    eprintln!(
        "wrote {} ({} frames at {} fps, {} bytes)",
        args.output.display(),
        anim.frames(),
        anim.fps,
        bytes.len()
    );
    Ok(())
}

/// Parse JSON, naming the offending field in the error.
fn serde_path_to_json(bytes: &[u8]) -> anyhow::Result<Anim> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    serde_path_to_error::deserialize(&mut de)
        .map_err(|e| anyhow::anyhow!("at `{}`: {}", e.path(), e.inner()))
}
