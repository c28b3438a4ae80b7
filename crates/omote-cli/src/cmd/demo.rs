//! `omote demo`: the built-in scene (`examples/scenes/demo/`, compiled in): two
//! characters — the generated avatar and a second one in other colours — exchange four
//! voiced lines with expression changes, a glance at the camera, a wait for the player,
//! blinks and saccades, under an orbiting camera. Writes the scene and its voices, then
//! what `omote bake` writes for it, and the `omote view` command that plays it.

use std::path::PathBuf;

use anyhow::Context;
use omote_scene::{BakeOptions, LoadOptions};

use crate::output::{ensure_dir, write_file};

/// Arguments of `omote demo`.
#[derive(clap::Args)]
pub struct DemoArgs {
    /// Output folder.
    #[arg(long, default_value = "demo-out")]
    pub out: PathBuf,
    /// Frames per second of the baked anims (1–1000).
    #[arg(long, default_value_t = 60.0, value_parser = crate::limits::fps_f32)]
    pub fps: f32,
}

/// The demo scene and its voice lines, as shipped in `examples/scenes/demo/`.
const SCENE: &str = include_str!("../../../../examples/scenes/demo/scene.toml");
const VOICES: [(&str, &[u8]); 4] = [
    (
        "aoi_1.wav",
        include_bytes!("../../../../examples/scenes/demo/voice/aoi_1.wav"),
    ),
    (
        "aoi_2.wav",
        include_bytes!("../../../../examples/scenes/demo/voice/aoi_2.wav"),
    ),
    (
        "beni_1.wav",
        include_bytes!("../../../../examples/scenes/demo/voice/beni_1.wav"),
    ),
    (
        "beni_2.wav",
        include_bytes!("../../../../examples/scenes/demo/voice/beni_2.wav"),
    ),
];
const VOICE_README: &str = include_str!("../../../../examples/scenes/demo/voice/README.md");

/// Run the demo.
pub fn run(args: DemoArgs) -> anyhow::Result<()> {
    let voice_dir = args.out.join("voice");
    ensure_dir(&voice_dir)?;
    let scene_path = args.out.join("scene.toml");
    write_file(&scene_path, SCENE.as_bytes())
        .with_context(|| format!("cannot write {}", scene_path.display()))?;
    for (name, bytes) in VOICES {
        let p = voice_dir.join(name);
        write_file(&p, bytes).with_context(|| format!("cannot write {}", p.display()))?;
    }
    let readme = voice_dir.join("README.md");
    write_file(&readme, VOICE_README.as_bytes())
        .with_context(|| format!("cannot write {}", readme.display()))?;

    let loaded = crate::scene_output::load(&scene_path, &LoadOptions::default())?;
    let options = BakeOptions {
        fps: args.fps,
        ..BakeOptions::default()
    };
    let baked = crate::scene_output::bake(&loaded, &options);
    let written = crate::scene_output::write(&loaded, &baked, &args.out)?;
    let seconds = baked.first().map_or(0.0, |b| b.anim.duration);
    println!(
        "omote demo: {} characters, {} voice lines, {seconds:.1} s at {} fps",
        baked.len(),
        loaded
            .characters
            .iter()
            .map(|c| c.lines.len())
            .sum::<usize>(),
        args.fps
    );
    println!(
        "wrote {} and its voices in {}",
        scene_path.display(),
        voice_dir.display()
    );
    for p in written {
        println!("wrote {}", p.display());
    }
    println!(
        "play it in the browser:  omote view {}",
        scene_path.display()
    );
    Ok(())
}
