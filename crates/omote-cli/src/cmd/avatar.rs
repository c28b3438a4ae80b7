//! `omote avatar -o FACE.vrm`: write the generated test avatar.

use std::path::PathBuf;

use anyhow::{Context, bail};

/// Write omote's test avatar: a small VRM 1.0 model with all 18 presets and the 52
/// ARKit shapes, bone lookAt, CC0 (redistribution allowed).
#[derive(Debug, clap::Args)]
pub struct AvatarArgs {
    /// Output `.vrm` file (or `.glb`: a VRM is a binary glTF).
    #[arg(short, long, visible_alias = "out")]
    pub output: PathBuf,
}

/// Run `omote avatar`.
pub fn run(args: AvatarArgs) -> anyhow::Result<()> {
    if let Err(ext) = crate::output::extension_in(&args.output, &["vrm", "glb"]) {
        bail!(
            "{}: the avatar is a VRM file: name it .vrm (or .glb), not `.{ext}`",
            args.output.display()
        );
    }
    let bytes = omote_vrm::avatar::generate();
    crate::output::write_file(&args.output, &bytes)
        .with_context(|| format!("{}", args.output.display()))?;
    eprintln!(
        "wrote {} ({} bytes, VRM 1.0, {} expressions)",
        args.output.display(),
        bytes.len(),
        18 + omote_core::tracking::ARKIT_52.len()
    );
    Ok(())
}
