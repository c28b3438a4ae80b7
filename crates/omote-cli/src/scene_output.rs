//! CLI glue for scenes: load with a progress bar, bake with a progress bar, and write
//! what a bake gives (per character anim, VRMA, PNG, and the built-in avatars).

use std::path::{Path, PathBuf};

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use omote_core::ExpressionPreset;
use omote_plot::TimePlot;
use omote_scene::{BakeOptions, BakedCharacter, LoadOptions, LoadedCharacter, LoadedScene};

use crate::output::{anim_plot, write_anim, write_file, write_png};

fn bar(len: u64, template: &str) -> ProgressBar {
    let bar = ProgressBar::new(len).with_style(
        ProgressStyle::with_template(template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    bar
}

/// Loads a scene, with a progress bar over its voice files.
pub fn load(path: &Path, options: &LoadOptions) -> anyhow::Result<LoadedScene> {
    let progress = bar(0, "lip sync {bar:30} {pos}/{len} voice files {elapsed}");
    let loaded = omote_scene::load_scene(path, options, &mut |done, total| {
        progress.set_length(total as u64);
        progress.set_position(done as u64);
    })?;
    progress.finish_and_clear();
    Ok(loaded)
}

/// Bakes a loaded scene (a clone: the loaded one stays at time 0), with a progress bar
/// over scene seconds; refused before any work when the bake is too large
/// ([`omote_scene::bake_size`]), naming the scene file.
pub fn bake(loaded: &LoadedScene, options: &BakeOptions) -> anyhow::Result<Vec<BakedCharacter>> {
    let progress = bar(0, "bake {bar:30} {pos}/{len} s {elapsed}");
    let mut scene = loaded.scene.clone();
    let baked = omote_scene::bake(&mut scene, &loaded.clip_names(), options, |t, total| {
        progress.set_length(total.ceil() as u64);
        progress.set_position(t as u64);
    });
    progress.finish_and_clear();
    baked.with_context(|| format!("cannot bake {}", loaded.path.display()))
}

/// The plot of one baked character (`ID.png`): its emotions (scene keys marked), mouth
/// (voice lines marked), eyes (blinks marked), the additive channels, gaze and head.
pub fn character_plot(c: &LoadedCharacter, b: &BakedCharacter) -> TimePlot {
    let rig = &c.rig;
    let has = |names: &[&'static str]| -> Vec<&'static str> {
        names
            .iter()
            .copied()
            .filter(|n| rig.channel(n).is_some())
            .collect()
    };
    let mut emotions = has(&ExpressionPreset::EMOTION_NAMES);
    emotions.extend(has(&["neutral"]));
    let mouth = has(&ExpressionPreset::VOWEL_NAMES);
    let eyes = has(&[
        "blink",
        "blinkLeft",
        "blinkRight",
        "eyeBlinkLeft",
        "eyeBlinkRight",
    ]);
    let extra = has(&[
        "mouthSmileLeft",
        "mouthSmileRight",
        "cheekSquintLeft",
        "browInnerUp",
    ]);
    let title = format!(
        "{} · {} · {:.1} s · {} line(s)",
        c.id,
        c.rig_source,
        b.anim.duration,
        c.lines.len()
    );
    anim_plot(
        &b.anim,
        &title,
        &[
            ("acting (emotions)", &emotions),
            ("mouth: lip sync, hand-over, afterglow", &mouth),
            ("eyes (blinks marked)", &eyes),
            (
                "picture-making, afterglow, camera correction (additive)",
                &extra,
            ),
        ],
    )
}

/// Writes `ID.anim.json`, `ID.png`, `ID.vrma` (with a VRM model) and `ID.vrm` (for a
/// built-in avatar) per character into `out`; returns the paths written.
pub fn write(
    loaded: &LoadedScene,
    baked: &[BakedCharacter],
    out: &Path,
) -> anyhow::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for (c, b) in loaded.characters.iter().zip(baked) {
        let anim_path = out.join(format!("{}.anim.json", c.id));
        write_anim(&b.anim, &anim_path)?;
        written.push(anim_path);
        let png = out.join(format!("{}.png", c.id));
        write_png(&character_plot(c, b), &png)?;
        written.push(png);
        if let Some(model) = &c.model {
            let vrma = out.join(format!("{}.vrma", c.id));
            let bytes = omote_vrm::write_vrma(&b.anim, model)
                .with_context(|| format!("{}: writing the VRM Animation", c.id))?;
            write_file(&vrma, &bytes)
                .with_context(|| format!("cannot write {}", vrma.display()))?;
            written.push(vrma);
        }
        if let Some(bytes) = &c.builtin_vrm {
            let vrm = out.join(format!("{}.vrm", c.id));
            write_file(&vrm, bytes).with_context(|| format!("cannot write {}", vrm.display()))?;
            written.push(vrm);
        }
    }
    Ok(written)
}
