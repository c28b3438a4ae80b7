//! What to capture (a device or a file) and how (size, rate, the ffmpeg program, the
//! platform's capture format, late frames, the restart pause).

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::LiveError;
use crate::frames::{FrameSize, LatePolicy};

/// Names that are video files, never capture devices.
const VIDEO_EXTENSIONS: &[&str] = &[
    "mp4", "m4v", "mkv", "webm", "mov", "avi", "y4m", "flv", "ts", "mpg", "mpeg", "gif",
];

/// What to capture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CameraSource {
    /// A capture device as the platform names it: `/dev/video0` or `0` (Linux, v4l2),
    /// an index or name (macOS, avfoundation), a name (Windows, dshow).
    Device(String),
    /// A video file, played once at its own pace.
    File(PathBuf),
}

impl CameraSource {
    /// A file when `text` names an existing file, else a device — unless it is named
    /// like a video file (`clip.mp4`) and is not there: that is a missing file, not a
    /// device for ffmpeg to fail to open.
    pub fn parse(text: &str) -> Result<Self, LiveError> {
        let path = Path::new(text);
        if path.is_file() {
            return Ok(CameraSource::File(path.to_path_buf()));
        }
        let video_name = path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| VIDEO_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()));
        if video_name {
            return Err(LiveError::MissingVideo {
                path: path.to_path_buf(),
            });
        }
        Ok(CameraSource::Device(text.to_owned()))
    }

    /// How it is named in messages.
    pub fn describe(&self) -> String {
        match self {
            CameraSource::Device(d) => format!("camera {d}"),
            CameraSource::File(p) => p.display().to_string(),
        }
    }
}

/// How the camera is captured.
#[derive(Clone, Debug, PartialEq)]
pub struct CameraOptions {
    /// Frame size asked of the device; every frame is scaled (and letterboxed) to it.
    pub size: FrameSize,
    /// Frames per second asked of the device and taken from a file.
    pub fps: f64,
    /// The ffmpeg program.
    pub ffmpeg: PathBuf,
    /// The platform's capture format (`v4l2`, `avfoundation`, `dshow`); by default the
    /// one of the platform omote was built for.
    pub input_format: &'static str,
    /// What happens to frames that arrive while the tracker is busy; `None`: by the
    /// source — a device drops them (stay current), a file and a stream keep every
    /// frame (the same frames as `omote track`).
    pub late: Option<LatePolicy>,
    /// Pause before a device is opened again after it stopped.
    pub retry: Duration,
    /// A video file plays again and again (a device ignores it).
    pub looped: bool,
}

impl CameraOptions {
    /// 640×480 at 30 fps from `ffmpeg` on the `PATH`, the platform's format.
    pub fn new(size: FrameSize, fps: f64) -> Self {
        Self {
            size,
            fps,
            ffmpeg: PathBuf::from("ffmpeg"),
            input_format: platform_input_format(),
            late: None,
            retry: Duration::from_secs(2),
            looped: false,
        }
    }
}

/// The capture format of this platform's ffmpeg.
pub fn platform_input_format() -> &'static str {
    if cfg!(target_os = "macos") {
        "avfoundation"
    } else if cfg!(target_os = "windows") {
        "dshow"
    } else {
        "v4l2"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_video_file_is_not_taken_for_a_device() {
        assert_eq!(
            CameraSource::parse("0").unwrap(),
            CameraSource::Device("0".into())
        );
        assert_eq!(
            CameraSource::parse("/dev/video9").unwrap(),
            CameraSource::Device("/dev/video9".into())
        );
        let e = CameraSource::parse("omote-missing-clip.MP4").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("omote-missing-clip.MP4: no such video file"),
            "{e}"
        );
    }
}
