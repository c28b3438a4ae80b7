//! `omote speak`: a dialogue of voice lines on one character — a one-character scene
//! built from the arguments and played by the scene runtime (docs/design.md § Voice
//! lines): lip sync from the voice files, the mouth starting with the voice, handing
//! over 0.2 s before each line's trailing silence to the expression that comes next, an
//! additive afterglow mouth ramping in from there, talking eyes while speaking and
//! listening eyes between lines, automatic blinks and saccades throughout.
//!
//! ```text
//! omote speak line1.wav line2.wav --gap 0.6 --expression relaxed=0.4 \
//!     --then happy=1 --afterglow mouthSmileLeft=0.3 --afterglow mouthSmileRight=0.3 \
//!     [--rig MODEL.vrm] --out demo-out/speak
//! ```
//! writes `speak.scene.toml` (the scene it played: edit it and `omote bake` it),
//! `speak.anim.json`, `speak.png` and, with a VRM, `speak.vrma` (without `--rig`, the
//! built-in avatar's: then `speak.vrm` too, the model it plays on).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use omote_scene::file::{CharacterDesc, EyesDesc, KeyDesc, LineDesc, SceneFile, unspanned};
use omote_scene::{BakeOptions, LoadOptions};

use crate::args::{load_profile, parse_expression};
use crate::output::{OutputPlan, ensure_dir, write_file};

/// Arguments of `omote speak`.
#[derive(clap::Args, Debug, Clone)]
pub struct SpeakArgs {
    /// Voice lines, played one after another.
    #[arg(required = true)]
    pub voices: Vec<PathBuf>,
    /// Seconds of silence between the end of one file and the start of the next.
    #[arg(long, default_value_t = 0.5)]
    pub gap: f32,
    /// The character's expression while speaking (repeatable NAME=WEIGHT).
    #[arg(long, value_name = "NAME=WEIGHT", value_parser = parse_expression)]
    pub expression: Vec<(String, f32)>,
    /// The expression the scene asks for after the last line (repeatable NAME=WEIGHT);
    /// the mouth blends into it from 0.2 s before the voice ends.
    #[arg(long, value_name = "NAME=WEIGHT", value_parser = parse_expression)]
    pub then: Vec<(String, f32)>,
    /// Additive afterglow mouth (余韻口) that ramps in as each line ends (repeatable
    /// NAME=WEIGHT, e.g. mouthSmileLeft=0.3).
    #[arg(long, value_name = "NAME=WEIGHT", value_parser = parse_expression)]
    pub afterglow: Vec<(String, f32)>,
    /// Seconds the afterglow takes to ramp in.
    #[arg(long, default_value_t = 0.5)]
    pub afterglow_ramp: f32,
    /// The avatar: a VRM model (then `speak.vrma` is written too) or a rig file; the
    /// built-in avatar (a VRM: its `speak.vrma` too) when absent, as every command.
    #[arg(long)]
    pub rig: Option<PathBuf>,
    /// Lip sync profile JSON (default: built-in).
    #[arg(long)]
    pub profile: Option<PathBuf>,
    /// Seed of the face's random numbers.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Frames per second of the anim (1–1000).
    #[arg(long, default_value_t = 60.0, allow_negative_numbers = true, value_parser = crate::limits::fps_f32)]
    pub fps: f32,
    /// Output folder (created if missing).
    #[arg(short = 'o', long, visible_alias = "output", value_name = "DIR")]
    pub out: PathBuf,
    /// Also replace files the run copies or generates whole (the scene, a built-in `.vrm`)
    /// where a different file of that name exists. Results (`.anim.json`, `.png`,
    /// `.vrma`) are always replaced, as earlier results of the command; a file the run
    /// reads never is.
    #[arg(long)]
    pub force: bool,
}

/// The first line starts this long into the scene (s).
const FIRST_LINE_S: f32 = 0.3;

fn weights(pairs: &[(String, f32)]) -> BTreeMap<String, f32> {
    pairs.iter().map(|(n, w)| (n.clone(), *w)).collect()
}

fn absolute(p: &Path) -> Result<String> {
    let abs = std::path::absolute(p)
        .with_context(|| format!("{}: cannot resolve the path", p.display()))?;
    abs.to_str()
        .map(str::to_string)
        .with_context(|| format!("{}: the path is not UTF-8", p.display()))
}

/// The one-character scene the arguments describe.
fn scene(args: &SpeakArgs) -> Result<SceneFile> {
    let rig = match &args.rig {
        Some(p) => absolute(p)?,
        // Every command's default (`AvatarSource::from_option`).
        None => "builtin".into(),
    };
    // Listening eyes between lines (talking while a line speaks is automatic).
    let eyes = vec![unspanned(EyesDesc {
        t: 0.0,
        mode: "listening".into(),
    })];
    let mut acting = Vec::new();
    if !args.expression.is_empty() {
        acting.push(unspanned(KeyDesc {
            t: 0.0,
            set: weights(&args.expression),
            fade: Some(0.0),
            curve: None,
            eye_area: None,
        }));
    }
    // The last line hands over to `then`; the acting's own expression fades out there.
    let mut then = weights(&args.then);
    for (name, _) in &args.expression {
        then.entry(name.clone()).or_insert(0.0);
    }
    let mut lines = Vec::new();
    for (k, voice) in args.voices.iter().enumerate() {
        let last = k + 1 == args.voices.len();
        lines.push(unspanned(LineDesc {
            t: (k == 0).then_some(FIRST_LINE_S),
            after: (k > 0).then_some(args.gap),
            audio: Some(absolute(voice)?),
            afterglow: weights(&args.afterglow),
            afterglow_ramp: Some(args.afterglow_ramp),
            then: if last && !args.then.is_empty() {
                then.clone()
            } else {
                BTreeMap::new()
            },
            ..LineDesc::default()
        }));
    }
    let character = CharacterDesc {
        id: "speak".into(),
        rig: Some(rig),
        seed: Some(args.seed),
        eyes,
        acting,
        line: lines,
        ..CharacterDesc::default()
    };
    Ok(SceneFile {
        fps: Some(unspanned(f64::from(args.fps))),
        character: vec![unspanned(character)],
        ..SceneFile::default()
    })
}

/// The scene the arguments describe, as a scene file.
fn scene_text(args: &SpeakArgs) -> Result<String> {
    let text = scene(args)?.to_toml().context("writing the scene")?;
    Ok(format!(
        "# The scene `omote speak` built from its arguments (bake it with `omote bake`).\n{text}"
    ))
}

/// An error in the scene `omote speak` built is an error in its arguments: said so,
/// naming the argument, not a line of a scene file the user never wrote. Errors of a
/// file the user named (a voice, a rig) already name that file and pass unchanged.
fn blame_arguments(e: anyhow::Error, scene: &Path) -> anyhow::Error {
    let Some(s) = e.downcast_ref::<omote_scene::SceneFileError>() else {
        return e;
    };
    if s.file != scene.display().to_string() {
        return e;
    }
    let field = s.field.as_deref().unwrap_or("");
    let argument = if field.contains(".acting") {
        "--expression"
    } else if field.contains(".then") {
        "--then"
    } else if field.contains("fterglowRamp") || field.contains("fterglow_ramp") {
        "--afterglow-ramp"
    } else if field.contains(".afterglow") {
        "--afterglow"
    } else if field.contains("rig") {
        "--rig"
    } else if field.contains(".line") {
        "the voice files"
    } else {
        "the arguments"
    };
    anyhow::anyhow!("{argument}: {}", s.message)
}

/// Run `omote speak`.
pub fn run(args: SpeakArgs) -> Result<()> {
    if !(args.gap.is_finite() && (0.0..=60.0).contains(&args.gap)) {
        bail!("--gap must be between 0 and 60 seconds");
    }
    if !(args.afterglow_ramp.is_finite() && (0.0..=10.0).contains(&args.afterglow_ramp)) {
        bail!("--afterglow-ramp must be between 0 and 10 seconds");
    }
    for v in &args.voices {
        if !v.is_file() {
            bail!("{}: no such voice file", v.display());
        }
    }
    crate::output::refuse_non_folder(&args.out)?;
    let scene_path = args.out.join("speak.scene.toml");
    let text = scene_text(&args)?;
    let options = LoadOptions {
        profile: Some(load_profile(args.profile.as_deref())?),
        ..LoadOptions::default()
    };
    // The scene is loaded from memory before anything is written, so what the run reads
    // and writes is known first (and a voice named as its own output is refused).
    let (loaded, reads) = crate::scene_output::load_text(&scene_path, &text, &options)
        .map_err(|e| blame_arguments(e, &scene_path))?;
    let mut plan = OutputPlan::new();
    plan.writes(scene_path.clone(), None);
    crate::scene_output::plan(&mut plan, &loaded, &reads, &args.out);
    if let Some(p) = &args.profile {
        plan.reads(p.clone());
    }
    plan.check(args.force)?;
    ensure_dir(&args.out)?;
    write_file(&scene_path, text.as_bytes())?;
    let bake = BakeOptions {
        fps: args.fps,
        ..BakeOptions::default()
    };
    let baked = crate::scene_output::bake(&loaded, &bake)?;
    let written = crate::scene_output::write(&loaded, &baked, &args.out)?;
    let c = &loaded.characters[0];
    println!(
        "omote speak: {} line(s), {:.1} s, rig {}",
        c.lines.len(),
        baked[0].anim.duration,
        c.rig.name()
    );
    for (k, l) in c.lines.iter().enumerate() {
        match l.track.voiced() {
            Some((a, b)) => println!(
                "line {}: {} voiced {:.2}..{:.2} s (scene {:.2}..{:.2} s)",
                k + 1,
                args.voices[k].display(),
                a,
                b,
                l.t + a,
                l.t + b
            ),
            None => println!("line {}: {} has no voice", k + 1, args.voices[k].display()),
        }
    }
    println!("wrote {}", scene_path.display());
    for p in written {
        println!("wrote {}", p.display());
    }
    Ok(())
}
