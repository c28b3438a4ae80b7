//! `omote bake SCENE.toml --out DIR`: a dialogue scene baked per character.
//!
//! ```text
//! omote bake examples/scenes/demo/scene.toml --out out [--fps 60] [--advance 9.5,14] [--skip 3.2]
//! ```
//! writes `ID.anim.json`, `ID.png` and, for a character with a VRM, `ID.vrma` (and `ID.vrm`
//! for a built-in avatar). Same scene and seeds → byte-identical files.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use omote_scene::{BakeOptions, LoadOptions, MAX_BAKE_S, MAX_PRESSES};

use crate::args::load_profile;
use crate::output::{OutputPlan, ensure_dir};

/// Arguments of `omote bake`.
#[derive(clap::Args, Debug, Clone)]
pub struct BakeArgs {
    /// The scene file (TOML, see docs/scene-format.md).
    pub scene: PathBuf,
    /// Output folder (created if missing).
    #[arg(short = 'o', long, visible_alias = "output", value_name = "DIR")]
    pub out: PathBuf,
    /// Frames per second, 1–1000 (default: the scene's `fps`, else 60).
    #[arg(long, allow_negative_numbers = true, value_parser = crate::limits::fps_f32)]
    pub fps: Option<f32>,
    /// Times (s, comma-separated) at which the player presses "next". Without them each
    /// wait holds for its own `hold` and the scene moves on by itself.
    #[arg(long, value_delimiter = ',', value_name = "T", allow_negative_numbers = true, value_parser = crate::limits::time_s)]
    pub advance: Vec<f64>,
    /// Times (s, comma-separated) at which the player skips the line playing.
    #[arg(long, value_delimiter = ',', value_name = "T", allow_negative_numbers = true, value_parser = crate::limits::time_s)]
    pub skip: Vec<f64>,
    /// Lip sync profile JSON (default: built-in).
    #[arg(long)]
    pub profile: Option<PathBuf>,
    /// Also replace files the bake copies or generates whole (a built-in `.vrm`) where a
    /// different file of that name exists. Results (`.anim.json`, `.png`, `.vrma`) are
    /// always replaced, as earlier results of the command; a file the bake reads never is.
    #[arg(long)]
    pub force: bool,
}

/// Run `omote bake`.
pub fn run(args: BakeArgs) -> Result<()> {
    // The press script is checked before the scene loads (its voices take a while);
    // the size of the whole bake once it has, by the library that bakes.
    for (flag, list) in [("--advance", &args.advance), ("--skip", &args.skip)] {
        if list.len() > MAX_PRESSES {
            bail!("{flag}: {} times, at most {MAX_PRESSES}", list.len());
        }
        if let Some(t) = list
            .iter()
            .find(|t| !(t.is_finite() && (0.0..f64::from(MAX_BAKE_S)).contains(*t)))
        {
            bail!("{flag}: {t} is not a time from 0 to {MAX_BAKE_S} s");
        }
    }
    // The whole run (lip sync of the voices, the bake, the files), as a user waits for it.
    let started = std::time::Instant::now();
    let options = LoadOptions {
        profile: Some(load_profile(args.profile.as_deref())?),
        ..LoadOptions::default()
    };
    // Before the voices are read: a file given as the output folder.
    crate::output::refuse_non_folder(&args.out)?;
    let (loaded, reads) = crate::scene_output::load(&args.scene, &options)?;
    let mut plan = OutputPlan::new();
    crate::scene_output::plan(&mut plan, &loaded, &reads, &args.out);
    if let Some(p) = &args.profile {
        plan.reads(p.clone());
    }
    plan.check(args.force)?;
    let fps = loaded.bake_fps(args.fps);
    let bake = BakeOptions {
        fps,
        advances: args.advance.clone(),
        skips: args.skip.clone(),
        max_s: MAX_BAKE_S,
        ..BakeOptions::default()
    };
    // Refused before the output folder is made.
    omote_scene::bake_size(&loaded.scene, &bake)
        .with_context(|| format!("cannot bake {}", args.scene.display()))?;
    ensure_dir(&args.out)?;
    let baked = crate::scene_output::bake(&loaded, &bake)?;
    let seconds = baked.first().map_or(0.0, |b| b.anim.duration);
    let written = crate::scene_output::write(&loaded, &baked, &args.out)
        .with_context(|| format!("writing the bake of {}", args.scene.display()))?;
    let took = started.elapsed().as_secs_f64();
    println!(
        "baked {} ({} character(s), {:.1} s at {fps} fps) in {:.2} s",
        args.scene.display(),
        baked.len(),
        seconds,
        took
    );
    for p in written {
        println!("wrote {}", p.display());
    }
    Ok(())
}
