//! The ffmpeg child: its arguments for a source, starting it, and the last lines of its
//! stderr (its message when a device fails).

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use omote_tracker::RgbImage;

use super::frames::stamped_frames;
use super::source::{CameraOptions, CameraSource};
use crate::LiveError;
use crate::frames::{FrameSize, LatePolicy, ThreadedFrames};

/// ffmpeg's arguments for `source`: raw rgb24 frames of exactly `options.size` at
/// `options.fps` on stdout, no audio, errors only on stderr.
///
/// ```
/// use omote_live::{CameraOptions, CameraSource, FrameSize, ffmpeg_args};
/// let mut o = CameraOptions::new(FrameSize { width: 640, height: 480 }, 30.0);
/// o.input_format = "v4l2";
/// let args = ffmpeg_args(&CameraSource::Device("0".into()), &o);
/// let i = args.iter().position(|a| a == "-i").unwrap();
/// assert_eq!(args[i + 1], "/dev/video0");
/// assert!(args.windows(2).any(|w| w == ["-f", "v4l2"]));
/// ```
pub fn ffmpeg_args(source: &CameraSource, options: &CameraOptions) -> Vec<String> {
    let FrameSize { width, height } = options.size;
    let fps = format_fps(options.fps);
    let mut args: Vec<String> = ["-hide_banner", "-loglevel", "error", "-nostdin"]
        .map(String::from)
        .to_vec();
    match source {
        CameraSource::File(path) => {
            if options.looped {
                args.extend(["-stream_loop".into(), "-1".into()]);
            }
            args.extend(["-re".into(), "-i".into(), path.display().to_string()]);
        }
        CameraSource::Device(device) => {
            let format = options.input_format;
            let input = match format {
                "v4l2" if device.chars().all(|c| c.is_ascii_digit()) => {
                    format!("/dev/video{device}")
                }
                "avfoundation" => format!("{device}:none"),
                "dshow" if !device.starts_with("video=") => format!("video={device}"),
                _ => device.clone(),
            };
            args.extend([
                "-f".into(),
                format.into(),
                "-framerate".into(),
                fps.clone(),
                "-video_size".into(),
                format!("{width}x{height}"),
                "-i".into(),
                input,
            ]);
        }
    }
    let filter = format!(
        "scale={width}:{height}:force_original_aspect_ratio=decrease,\
         pad={width}:{height}:(ow-iw)/2:(oh-ih)/2,fps={fps}"
    );
    args.extend(
        [
            "-an", "-vf", &filter, "-pix_fmt", "rgb24", "-f", "rawvideo", "-",
        ]
        .map(String::from),
    );
    args
}

fn format_fps(fps: f64) -> String {
    if fps.fract() == 0.0 {
        format!("{}", fps as u64)
    } else {
        format!("{fps:.3}")
    }
}

/// A running ffmpeg: its frames and the last lines of its stderr.
pub(super) struct Ffmpeg {
    child: Child,
    pub(super) frames: ThreadedFrames<(Instant, RgbImage)>,
    stderr: Arc<Mutex<Vec<String>>>,
    stderr_reader: Option<std::thread::JoinHandle<()>>,
}

impl Ffmpeg {
    /// Its last error line, if it wrote one.
    pub(super) fn message(&self) -> Option<String> {
        let lines = self.stderr.lock().unwrap_or_else(PoisonError::into_inner);
        lines.last().cloned()
    }

    /// Ends ffmpeg and waits for its last words (so [`Ffmpeg::message`] has them).
    pub(super) fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(reader) = self.stderr_reader.take() {
            let _ = reader.join();
        }
    }
}

pub(super) fn start_ffmpeg(
    source: &CameraSource,
    options: &CameraOptions,
    stop: &Arc<AtomicBool>,
) -> Result<Ffmpeg, LiveError> {
    let mut child = Command::new(&options.ffmpeg)
        .args(ffmpeg_args(source, options))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| LiveError::Ffmpeg {
            program: options.ffmpeg.clone(),
            problem: if e.kind() == std::io::ErrorKind::NotFound {
                "not found: install ffmpeg (apt install ffmpeg, brew install ffmpeg, \
                 winget install ffmpeg) or name it with --ffmpeg"
                    .into()
            } else {
                format!("cannot be started: {e}")
            },
        })?;
    let stdout = child.stdout.take().ok_or_else(|| LiveError::Ffmpeg {
        program: options.ffmpeg.clone(),
        problem: "gave no output pipe".into(),
    })?;
    let stderr = Arc::new(Mutex::new(Vec::new()));
    let stderr_reader = child.stderr.take().map(|pipe| {
        let lines = stderr.clone();
        std::thread::spawn(move || keep_last_lines(pipe, &lines))
    });
    let late = options.late.unwrap_or(match source {
        CameraSource::Device(_) => LatePolicy::DropLate,
        CameraSource::File(_) => LatePolicy::KeepAll,
    });
    let frames = stamped_frames(stdout, options, late, &source.describe(), stop)?;
    Ok(Ffmpeg {
        child,
        frames,
        stderr,
        stderr_reader,
    })
}

/// Keeps the last few lines of `pipe` (bounded, however much ffmpeg writes).
fn keep_last_lines(pipe: impl Read, lines: &Mutex<Vec<String>>) {
    for line in BufReader::new(pipe).lines() {
        let Ok(line) = line else { break };
        let line = line.trim().to_owned();
        if line.is_empty() {
            continue;
        }
        let mut kept = lines.lock().unwrap_or_else(PoisonError::into_inner);
        if kept.len() >= 8 {
            kept.remove(0);
        }
        kept.push(line.chars().take(300).collect());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::tracking::camera::tests::options;

    fn input_of(args: &[String]) -> &str {
        let i = args.iter().position(|a| a == "-i").unwrap();
        &args[i + 1]
    }

    #[test]
    fn each_platform_names_its_device_its_own_way() {
        let dev = |d: &str| CameraSource::Device(d.into());
        let linux = ffmpeg_args(&dev("2"), &options("v4l2"));
        assert_eq!(input_of(&linux), "/dev/video2");
        assert_eq!(
            input_of(&ffmpeg_args(&dev("/dev/video1"), &options("v4l2"))),
            "/dev/video1"
        );
        let mac = ffmpeg_args(&dev("0"), &options("avfoundation"));
        assert_eq!(input_of(&mac), "0:none");
        assert!(mac.windows(2).any(|w| w == ["-f", "avfoundation"]));
        let win = ffmpeg_args(&dev("USB Camera"), &options("dshow"));
        assert_eq!(input_of(&win), "video=USB Camera");
        for args in [&linux, &mac, &win] {
            assert!(args.windows(2).any(|w| w == ["-video_size", "640x480"]));
            assert!(args.windows(2).any(|w| w == ["-framerate", "30"]));
            assert!(args.ends_with(&["rawvideo".into(), "-".into()]));
        }
        // A file plays at its own pace, with no capture options.
        let file = ffmpeg_args(&CameraSource::File("clip.mkv".into()), &options("v4l2"));
        assert_eq!(input_of(&file), "clip.mkv");
        assert!(file.contains(&"-re".to_string()));
        assert!(!file.contains(&"-stream_loop".to_string()));
        let mut looped = options("v4l2");
        looped.looped = true;
        let file = ffmpeg_args(&CameraSource::File("clip.mkv".into()), &looped);
        let i = file.iter().position(|a| a == "-i").unwrap();
        assert_eq!(
            file[..i]
                .windows(2)
                .filter(|w| w == &["-stream_loop", "-1"])
                .count(),
            1
        );
        // A device does not loop.
        assert!(!ffmpeg_args(&dev("2"), &looped).contains(&"-stream_loop".to_string()));
        assert!(!file.contains(&"-video_size".to_string()));
        let vf = file.iter().position(|a| a == "-vf").unwrap();
        assert!(file[vf + 1].contains("scale=640:480") && file[vf + 1].ends_with("fps=30"));
    }
}
