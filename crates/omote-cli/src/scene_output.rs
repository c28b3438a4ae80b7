//! CLI glue for scenes: load with a progress bar, bake with a progress bar, and write
//! what a bake gives (per character anim, VRMA, PNG, and the built-in avatars).

use std::path::{Path, PathBuf};

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use omote_core::ExpressionPreset;
use omote_plot::TimePlot;
use omote_scene::{
    BakeOptions, BakedCharacter, FsFiles, LoadOptions, LoadedCharacter, LoadedScene, SceneFiles,
};

use crate::output::{OutputPlan, anim_plot, write_anim, write_file, write_png};

fn bar(len: u64, template: &str) -> ProgressBar {
    let bar = ProgressBar::new(len).with_style(
        ProgressStyle::with_template(template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    bar
}

/// Loads a scene from the filesystem, with a progress bar over its voice files; the
/// scene and every file it read (for [`OutputPlan::reads`]).
pub fn load(path: &Path, options: &LoadOptions) -> anyhow::Result<(LoadedScene, Vec<PathBuf>)> {
    let files = ReadLog::default();
    let loaded = load_with(path, options, &files)?;
    let read = files.0.into_inner().unwrap_or_else(|p| p.into_inner());
    Ok((loaded, read))
}

/// [`load`] with the scene's files read from `files`.
pub fn load_with(
    path: &Path,
    options: &LoadOptions,
    files: &dyn SceneFiles,
) -> anyhow::Result<LoadedScene> {
    let progress = bar(0, "lip sync {bar:30} {pos}/{len} voice files {elapsed}");
    let loaded = omote_scene::load_scene_with(path, options, files, &mut |done, total| {
        progress.set_length(total as u64);
        progress.set_position(done as u64);
    })?;
    progress.finish_and_clear();
    warn(&loaded);
    Ok(loaded)
}

/// Prints what the scene read but not whole (a voice WAV cut short), as every command
/// that reads a voice file warns.
pub fn warn(loaded: &LoadedScene) {
    for w in &loaded.warnings {
        crate::output::warn(w);
    }
}

/// [`load`] of a scene whose text is given (`omote speak`'s own, not yet written to
/// `path`); the files it names are read from the filesystem.
pub fn load_text(
    path: &Path,
    text: &str,
    options: &LoadOptions,
) -> anyhow::Result<(LoadedScene, Vec<PathBuf>)> {
    let files = ReadLog::default();
    let progress = bar(0, "lip sync {bar:30} {pos}/{len} voice files {elapsed}");
    let loaded = omote_scene::parse_scene_with(text, path, options, &files, &mut |done, total| {
        progress.set_length(total as u64);
        progress.set_position(done as u64);
    })?;
    progress.finish_and_clear();
    warn(&loaded);
    let read = files.0.into_inner().unwrap_or_else(|p| p.into_inner());
    Ok((loaded, read))
}

/// The filesystem, noting every path read (what a run must not write over).
#[derive(Default)]
struct ReadLog(std::sync::Mutex<Vec<PathBuf>>);

impl SceneFiles for ReadLog {
    fn read(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(path.to_path_buf());
        FsFiles.read(path)
    }

    fn read_capped(&self, path: &Path, limit: omote_fs::Limit) -> std::io::Result<Vec<u8>> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(path.to_path_buf());
        FsFiles.read_capped(path, limit)
    }

    fn exists(&self, path: &Path) -> bool {
        FsFiles.exists(path)
    }
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

/// Adds what [`write`] will write into `out` for `loaded` to `plan`, and `reads` (every
/// file its load read, [`load`]) as what the run reads.
pub fn plan(plan: &mut OutputPlan, loaded: &LoadedScene, reads: &[PathBuf], out: &Path) {
    for p in reads {
        plan.reads(p.clone());
    }
    for c in &loaded.characters {
        plan.writes(out.join(format!("{}.anim.json", c.id)), None);
        plan.writes(out.join(format!("{}.png", c.id)), None);
        if c.model.is_some() {
            plan.writes(out.join(format!("{}.vrma", c.id)), None);
        }
        if let Some(bytes) = &c.builtin_vrm {
            plan.writes(out.join(format!("{}.vrm", c.id)), Some(bytes));
        }
    }
}

/// Writes `ID.anim.json`, `ID.png`, `ID.vrma` (with a VRM model) and `ID.vrm` (for a
/// built-in avatar) per character into `out` (the names [`plan`] lists); returns the
/// paths written.
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
