//! `omote convert IN.anim.json [--rig MODEL.vrm] -o OUT.vrma`: an omote anim as a VRM
//! Animation for a model.

use std::path::PathBuf;

use anyhow::{Context, bail};
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
    #[arg(short, long, visible_alias = "out")]
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
    // The one reader of anims: a file that is something else is named for what it is.
    let anim = omote_config::load_anim(&args.input)?;
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
