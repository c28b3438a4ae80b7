//! `omote demo`: the built-in scene (`examples/scenes/demo/`, compiled in): two
//! characters — the generated avatar and a second one in other colours — exchange four
//! voiced lines with expression changes, a glance at the camera, a wait for the player,
//! blinks and saccades, under an orbiting camera. Writes the scene and its voices, then
//! what `omote bake` writes for it, and the `omote view` command that plays it.

use std::path::{Path, PathBuf};

use anyhow::Context;
use omote_scene::{BakeOptions, LoadOptions, MemoryFiles};

use crate::output::{OutputPlan, ensure_dir, write_file};

/// Arguments of `omote demo`.
#[derive(clap::Args)]
pub struct DemoArgs {
    /// Output folder.
    #[arg(
        short = 'o',
        long,
        visible_alias = "output",
        default_value = "demo-out"
    )]
    pub out: PathBuf,
    /// Frames per second of the baked anims (1–1000).
    #[arg(long, default_value_t = 60.0, allow_negative_numbers = true, value_parser = crate::limits::fps_f32)]
    pub fps: f32,
    /// Also replace files the demo copies out (a `scene.toml`, voice files, a `.vrm`)
    /// where a different file of that name exists. Results (`.anim.json`, `.png`,
    /// `.vrma`) are always replaced, as earlier results of the demo.
    #[arg(long)]
    pub force: bool,
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

/// Writes the demo scene and its voices (with their README) into `out`; the scene's
/// path.
pub fn write_scene(out: &Path) -> anyhow::Result<PathBuf> {
    let voice_dir = out.join("voice");
    ensure_dir(&voice_dir)?;
    let scene_path = out.join("scene.toml");
    write_file(&scene_path, SCENE.as_bytes())
        .with_context(|| format!("cannot write {}", scene_path.display()))?;
    for (name, bytes) in VOICES {
        let p = voice_dir.join(name);
        write_file(&p, bytes).with_context(|| format!("cannot write {}", p.display()))?;
    }
    let readme = voice_dir.join("README.md");
    write_file(&readme, VOICE_README.as_bytes())
        .with_context(|| format!("cannot write {}", readme.display()))?;
    Ok(scene_path)
}

/// Run the demo.
pub fn run(args: DemoArgs) -> anyhow::Result<()> {
    crate::output::refuse_non_folder(&args.out)?;
    // Loaded from memory first, so every file it writes is known before one is written.
    let scene_path = args.out.join("scene.toml");
    let voice_dir = args.out.join("voice");
    let mut files = MemoryFiles::new();
    let mut plan = OutputPlan::new();
    files.insert(scene_path.clone(), SCENE.as_bytes());
    plan.writes(scene_path.clone(), Some(SCENE.as_bytes()));
    for (name, bytes) in VOICES {
        files.insert(voice_dir.join(name), bytes);
        plan.writes(voice_dir.join(name), Some(bytes));
    }
    plan.writes(voice_dir.join("README.md"), Some(VOICE_README.as_bytes()));
    let loaded = crate::scene_output::load_with(&scene_path, &LoadOptions::default(), &files)?;
    crate::scene_output::plan(&mut plan, &loaded, &[], &args.out);
    plan.check(args.force)?;
    write_scene(&args.out)?;
    let options = BakeOptions {
        fps: args.fps,
        ..BakeOptions::default()
    };
    let baked = crate::scene_output::bake(&loaded, &options)?;
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
    // Run through `cargo run`, `omote` is often not on the PATH yet: give a form that runs.
    if !on_path("omote")
        && let Ok(exe) = std::env::current_exe()
    {
        println!(
            "  (`omote` is not on the PATH: `cargo install --locked --path crates/omote-cli`, or run: {} view {})",
            exe.display(),
            scene_path.display()
        );
    }
    Ok(())
}

/// Whether a program called `name` is in one of the PATH's folders.
fn on_path(name: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|paths| {
        std::env::split_paths(&paths).any(|dir| {
            dir.join(name).is_file()
                || dir
                    .join(format!("{name}{}", std::env::consts::EXE_SUFFIX))
                    .is_file()
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The demo's own plots (`aoi.png`, `beni.png`), as `omote demo` draws them: every
    /// marker label (scene keys such as "relaxed 0.3"/"happy 0.7" half a second apart,
    /// "wait 0"/"advance", voice lines, blinks, saccades) is drawn, and none overlaps
    /// another, though some would in one row.
    #[test]
    fn the_demo_plots_show_every_label_and_none_overlaps() {
        let dir = std::env::temp_dir().join(format!("omote-cli-demo-plot-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let scene = write_scene(&dir).unwrap();
        let (loaded, _) = crate::scene_output::load(&scene, &LoadOptions::default()).unwrap();
        let baked = crate::scene_output::bake(&loaded, &BakeOptions::default()).unwrap();
        assert_eq!(baked.len(), 2);
        for (c, b) in loaded.characters.iter().zip(&baked) {
            let plot = crate::scene_output::character_plot(c, b);
            let layout = plot.render_png(&dir.join(format!("{}.png", c.id))).unwrap();
            let markers: usize = plot.panels.iter().map(|p| p.markers.len()).sum();
            assert!(markers >= 10, "{}: {markers} markers", c.id);
            assert_eq!(layout.dropped, [], "{}", c.id);
            assert_eq!(layout.placed.len(), markers, "{}", c.id);
            assert_eq!(layout.overlaps(), [], "{}: {:#?}", c.id, layout.placed);
            // Not vacuous: some labels share time enough to collide in one row.
            let crowded = layout.placed.iter().enumerate().any(|(i, a)| {
                layout.placed[i + 1..]
                    .iter()
                    .any(|b| a.panel == b.panel && a.x < b.x + b.width && b.x < a.x + a.width)
            });
            assert!(crowded, "{}: no two labels near each other", c.id);
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
