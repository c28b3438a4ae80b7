//! Writing result files with context-rich errors. Every result file is written whole or
//! not at all: into a hidden temporary file beside it, then renamed over the final name,
//! so a failed write (a full disk, an interrupted process) never leaves a truncated file
//! under the name a user or a pipeline would read.

use std::path::Path;

use anyhow::Context;
use omote_core::{Anim, anim::AnimEvent};
use omote_plot::{Panel, Series, TimePlot};

/// Create `dir` (and parents) if needed.
pub fn ensure_dir(dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create output folder {}", dir.display()))
}

/// Write `anim` as its file ([`omote_config::anim_json`]: checked, compact JSON).
pub fn write_anim(anim: &Anim, path: &Path) -> anyhow::Result<()> {
    let json = omote_config::anim_json(anim)
        .with_context(|| format!("refusing to write an invalid anim to {}", path.display()))?;
    write_file(path, json.as_bytes())
}

/// Write `bytes` to `path` whole or not at all (see the module docs).
pub fn write_file(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    write_with(path, |tmp| {
        use std::io::Write;
        let mut f = std::fs::File::create(tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        Ok(())
    })
}

/// Writing behind the work: `threads` threads inside `scope` each take the next item
/// sent on the returned channel (at most `queue` wait) and give it to `write`, so each
/// result file's write and sync, which mostly wait for the disk, overlap the next
/// item's work. They end when every sender is dropped; the scope joins them.
pub fn write_behind<'scope, T: Send + 'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    threads: usize,
    queue: usize,
    write: impl Fn(T) + Send + Sync + 'scope,
) -> anyhow::Result<std::sync::mpsc::SyncSender<T>> {
    let (to_write, writes) = std::sync::mpsc::sync_channel::<T>(queue);
    let writes = std::sync::Arc::new(std::sync::Mutex::new(writes));
    let write = std::sync::Arc::new(write);
    for i in 0..threads {
        let (writes, write) = (writes.clone(), write.clone());
        std::thread::Builder::new()
            .name(format!("write {i}"))
            .spawn_scoped(scope, move || {
                loop {
                    // The lock is held only while waiting for the next item.
                    let next = writes.lock().ok().and_then(|rx| rx.recv().ok());
                    let Some(item) = next else { break };
                    write(item);
                }
            })
            .context("cannot start a result writing thread")?;
    }
    Ok(to_write)
}

/// Let `write` produce the file at a temporary path beside `path` (same extension, so
/// format-by-extension writers such as PNG encoders work), then rename it to `path`. On
/// any error the temporary file is removed and an existing `path` is left untouched.
pub fn write_with(
    path: &Path,
    write: impl FnOnce(&Path) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let name = path
        .file_name()
        .with_context(|| format!("{}: not a file name", path.display()))?
        .to_string_lossy();
    let ext = path
        .extension()
        .map_or(String::new(), |e| format!(".{}", e.to_string_lossy()));
    let tmp = path.with_file_name(format!(".{name}.partial-{}{ext}", std::process::id()));
    let result = write(&tmp).and_then(|()| {
        std::fs::rename(&tmp, path)
            .with_context(|| format!("cannot move the finished file to {}", path.display()))
    });
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.with_context(|| format!("cannot write {}", path.display()))
}

/// Checks, before a session or a long job starts, that a result file can be made at
/// `path`: its folder exists, is a folder, and takes a new file (a probe file is made and
/// removed). A missing folder is an error at once, not after an hour of recording.
pub fn check_output_file(path: &Path, what: &str) -> anyhow::Result<()> {
    let name = path
        .file_name()
        .with_context(|| format!("{what} {}: not a file name", path.display()))?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => anyhow::bail!(
            "{what} {}: {} is not a folder",
            path.display(),
            dir.display()
        ),
        Err(_) => anyhow::bail!(
            "{what} {}: the folder {} does not exist",
            path.display(),
            dir.display()
        ),
    }
    if path.is_dir() {
        anyhow::bail!("{what} {}: is a folder, not a file", path.display());
    }
    let probe = dir.join(format!(
        ".{}.probe-{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    std::fs::File::create(&probe).with_context(|| {
        format!(
            "{what} {}: cannot create files in {}",
            path.display(),
            dir.display()
        )
    })?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// Checks that `path` names a PNG file (the plots are PNG only), before any work.
pub fn check_png_name(path: &Path) -> anyhow::Result<()> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    if !ext.eq_ignore_ascii_case("png") {
        anyhow::bail!(
            "{}: plots are written as PNG; give a file name ending in .png",
            path.display()
        );
    }
    Ok(())
}

/// `text` safe to print on a terminal: control characters (escape sequences, carriage
/// returns, bells …) and the bidirectional-text controls that can reorder what is shown
/// are written as Rust escapes (`\u{1b}`); newlines and tabs stay. For every piece of text
/// that comes from a file or the network (model, expression, file and OSC names).
pub fn escape_terminal(text: &str) -> std::borrow::Cow<'_, str> {
    let unsafe_char = |c: char| {
        (c.is_control() && c != '\n' && c != '\t')
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}')
    };
    if !text.chars().any(unsafe_char) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unsafe_char(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// An error and its causes as one line for the terminal: each cause once (a library
/// error that quotes its OS error and also chains it as its source would otherwise print
/// "No such file or directory" twice), escaped ([`escape_terminal`]).
pub fn error_text(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if out.contains(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    escape_terminal(&out).into_owned()
}

/// Render `plot` to the PNG file `path`, whole or not at all.
pub fn write_png(plot: &TimePlot, path: &Path) -> anyhow::Result<()> {
    check_png_name(path)?;
    write_with(path, |tmp| {
        plot.render_png(tmp)
            .with_context(|| format!("drawing {}", path.display()))
    })
}

/// Head orientation as YXZ Euler angles (yaw about +Y, pitch about +X, roll about +Z)
/// in degrees, in the VRM frame: yaw > 0 turns toward the avatar's left, pitch > 0 nods
/// down.
pub fn head_angles(q: [f32; 4]) -> (f32, f32, f32) {
    let q = omote_core::Quat::from_array(q);
    let (y, x, z) = q.to_euler(omote_core::glam::EulerRot::YXZ);
    (y.to_degrees(), x.to_degrees(), z.to_degrees())
}

/// The standard overview plot of an anim: chosen expression groups, gaze and head.
pub fn anim_plot(anim: &Anim, title: &str, groups: &[(&str, &[&str])]) -> TimePlot {
    let dt = 1.0 / anim.fps;
    let t = |i: usize| i as f32 * dt;
    let mut plot = TimePlot::new(title);
    for (name, channels) in groups {
        let mut panel = Panel::new(*name).y_range(-0.02, 1.05);
        for ch in *channels {
            // What the face shows: the weights after the override rules.
            if let Some(track) = anim.applied().get(ch) {
                panel = panel.series(Series::new(
                    *ch,
                    track.iter().enumerate().map(|(i, v)| (t(i), *v)).collect(),
                ));
            }
        }
        plot = plot.panel(panel);
    }
    let mut plot = plot
        .panel(gaze_panel(anim))
        .panel(head_panel(anim, "head (degrees)"));
    // Cues on the first panel, blinks on the eyes panel, saccades on the gaze panel.
    let find = |plot: &TimePlot, prefix: &str| {
        plot.panels.iter().position(|p| p.title.starts_with(prefix))
    };
    let (eyes, gaze, mouth) = (
        find(&plot, "eyes"),
        find(&plot, "gaze"),
        find(&plot, "mouth"),
    );
    let hand_over_lead = omote_core::speech::SpeechConfig::default().end_lead_s;
    for e in &anim.events {
        let (panel, label) = match e {
            AnimEvent::Marker { name, .. } => (Some(0), name.clone()),
            AnimEvent::Blink { cause, .. } => (eyes, format!("{cause:?}").to_lowercase()),
            AnimEvent::Saccade { direction, .. } => (gaze, format!("{direction:?}").to_lowercase()),
            AnimEvent::Expression { name, weight, .. } => (Some(0), format!("{name} {weight:.1}")),
            AnimEvent::Voice {
                clip,
                voiced_start,
                voiced_end,
                ..
            } => {
                // The voiced span shaded, the hand-over marked, on the mouth panel.
                if let (Some(p), Some(s), Some(end)) = (
                    mouth.and_then(|i| plot.panels.get_mut(i)),
                    voiced_start,
                    voiced_end,
                ) {
                    p.spans.push((*s, *end));
                    p.markers
                        .push(((end - hand_over_lead).max(*s), "hand-over".into()));
                }
                (mouth, clip.clone())
            }
        };
        if let Some(p) = panel.and_then(|i| plot.panels.get_mut(i)) {
            p.markers.push((e.time(), label));
        }
    }
    plot
}

/// Gaze yaw and pitch over time.
pub fn gaze_panel(anim: &Anim) -> Panel {
    let dt = 1.0 / anim.fps;
    let axis = |k: usize| {
        anim.look_at
            .iter()
            .enumerate()
            .map(|(i, v)| (i as f32 * dt, v[k]))
            .collect()
    };
    Panel::new("gaze (degrees; yaw > 0 left, pitch > 0 down)")
        .series(Series::new("yaw", axis(0)))
        .series(Series::new("pitch", axis(1)))
}

/// Head yaw, pitch and roll over time.
pub fn head_panel(anim: &Anim, title: &str) -> Panel {
    let dt = 1.0 / anim.fps;
    let angles: Vec<[f32; 3]> = anim
        .head
        .iter()
        .map(|q| {
            let (y, p, r) = head_angles(*q);
            [y, p, r]
        })
        .collect();
    let axis = |k: usize| {
        angles
            .iter()
            .enumerate()
            .map(|(i, a)| (i as f32 * dt, a[k]))
            .collect()
    };
    Panel::new(title)
        .series(Series::new("yaw", axis(0)))
        .series(Series::new("pitch", axis(1)))
        .series(Series::new("roll", axis(2)))
}

/// The retarget settings behind `--config` (the defaults without one), with `--mirror`
/// switched on when given.
pub fn load_retarget_config(
    path: Option<&Path>,
    mirror: bool,
) -> anyhow::Result<omote_core::RetargetConfig> {
    let mut config = match path {
        Some(p) => omote_config::load_retarget_config(p)?,
        None => omote_core::RetargetConfig::default(),
    };
    config.mirror |= mirror;
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("omote-output-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn listing(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn an_os_error_is_printed_once() {
        #[derive(Debug)]
        struct Quoting(std::io::Error);
        impl std::fmt::Display for Quoting {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "a.wav: cannot read: {}", self.0)
            }
        }
        impl std::error::Error for Quoting {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "No such file");
        let e = anyhow::Error::from(Quoting(io)).context("loading the voice");
        assert_eq!(
            error_text(&e),
            "loading the voice: a.wav: cannot read: No such file"
        );
    }

    #[test]
    fn terminal_text_is_escaped() {
        assert_eq!(escape_terminal("plain\tname\n"), "plain\tname\n");
        let hostile = "ok\u{1b}]0;pwned\u{7}\r\u{202e}cba";
        let shown = escape_terminal(hostile);
        assert!(
            !shown
                .chars()
                .any(|c| c.is_control() && c != '\n' && c != '\t'),
            "{shown}"
        );
        assert_eq!(shown, "ok\\u{1b}]0;pwned\\u{7}\\u{d}\\u{202e}cba");
    }

    #[test]
    fn output_folders_are_checked_up_front() {
        let dir = scratch("check");
        assert!(check_output_file(&dir.join("r.anim.json"), "--record").is_ok());
        assert!(listing(&dir).is_empty(), "the probe is removed");
        let e = check_output_file(&dir.join("missing/r.anim.json"), "--record").unwrap_err();
        assert!(e.to_string().contains("does not exist"), "{e}");
        let e = check_output_file(&dir, "--record").unwrap_err();
        assert!(e.to_string().contains("is a folder"), "{e}");
        assert!(check_png_name(Path::new("plot")).is_err());
        assert!(check_png_name(Path::new("plot.PNG")).is_ok());
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_failed_write_leaves_no_file_and_keeps_the_old_one() {
        let dir = scratch("fail");
        let path = dir.join("out.anim.json");
        // Half a file, then the disk is "full": nothing appears under the final name.
        let e = write_with(&path, |tmp| {
            std::fs::write(tmp, b"{\"format\": \"omote-an")?;
            anyhow::bail!("No space left on device")
        })
        .unwrap_err();
        assert!(format!("{e:#}").contains("out.anim.json"), "{e:#}");
        assert!(listing(&dir).is_empty(), "{:?}", listing(&dir));
        // An earlier result survives a failed rewrite untouched.
        write_file(&path, b"old").unwrap();
        let _ = write_with(&path, |tmp| {
            std::fs::write(tmp, b"new, trunc")?;
            anyhow::bail!("interrupted")
        });
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert_eq!(listing(&dir), ["out.anim.json"]);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_finished_write_is_the_whole_file_and_leaves_no_temporary() {
        let dir = scratch("ok");
        let path = dir.join("plot.png");
        write_file(&path, b"first").unwrap();
        write_file(&path, b"second, longer").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second, longer");
        let mut plot = TimePlot::new("t");
        plot = plot.panel(Panel::new("p").series(Series::new("s", vec![(0.0, 0.0), (1.0, 1.0)])));
        write_png(&plot, &path).unwrap();
        assert_eq!(&std::fs::read(&path).unwrap()[1..4], b"PNG");
        assert_eq!(listing(&dir), ["plot.png"]);
        // A missing folder is an error naming the file, not a panic.
        let e = write_file(&dir.join("nope/x.json"), b"x").unwrap_err();
        assert!(format!("{e:#}").contains("nope/x.json"), "{e:#}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
