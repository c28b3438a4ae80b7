//! `omote track`: the built-in face tracker (MediaPipe FaceLandmarker port) on
//! still images, an image sequence or raw RGB video on stdin.
//!
//! ```text
//! omote track IMAGE... --out DIR [--overlay]          DIR/NAME.json per image
//! omote track --frames DIR --fps F --out SEQ.jsonl     one JSON line per frame
//! omote track --stdin WxH --fps F --out SEQ.jsonl      raw rgb24 frames on stdin
//! ```
//!
//! Video from a webcam or a file goes through ffmpeg as raw RGB:
//!
//! ```text
//! # Linux webcam (macOS: -f avfoundation -i 0; Windows: -f dshow -i video="NAME")
//! ffmpeg -f v4l2 -framerate 30 -video_size 640x480 -i /dev/video0 \
//!        -f rawvideo -pix_fmt rgb24 - | omote track --stdin 640x480 --fps 30 --out -
//! # a video file, scaled to 640x480
//! ffmpeg -i clip.mp4 -vf scale=640:480 -r 30 -f rawvideo -pix_fmt rgb24 - \
//!        | omote track --stdin 640x480 --fps 30 --out clip.jsonl
//! ```
//!
//! The output is the JSON of MediaPipe's FaceLandmarker results (see
//! `omote_tracker::LandmarkerFrame`).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use omote_live::{FrameSize, FrameSource, RawFrames};
use omote_tracker::{
    FaceTracker, LandmarkerFrame, RgbImage, RgbView, TrackerConfig, load_rgb, save_overlay_png,
};

/// Track faces: landmarks, blendshapes and head pose as MediaPipe FaceLandmarker
/// JSON.
#[derive(Debug, clap::Args)]
#[command(group(
    clap::ArgGroup::new("input").required(true).args(["images", "frames", "stdin"])
))]
pub struct TrackArgs {
    /// Still images (PNG or JPEG), each tracked on its own (IMAGE mode); writes
    /// OUT/NAME.json per image, OUT being a directory.
    #[arg(value_name = "IMAGE")]
    pub images: Vec<PathBuf>,

    /// A directory of frames (PNG or JPEG, in file-name order) tracked as a video;
    /// writes one JSON line per frame to OUT.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["images", "stdin"])]
    pub frames: Option<PathBuf>,

    /// Read raw RGB frames (ffmpeg `-f rawvideo -pix_fmt rgb24`) of this size from
    /// standard input and track them as a video; writes one JSON line per frame.
    #[arg(long, value_name = "WxH", conflicts_with = "images")]
    pub stdin: Option<FrameSize>,

    /// Frame rate of a video input (sets the timestamps).
    #[arg(long, value_name = "F", default_value_t = 30.0)]
    pub fps: f64,

    /// Output: a directory for images, a .jsonl file for video (`-` for stdout).
    #[arg(long, short, value_name = "PATH")]
    pub out: PathBuf,

    /// Also write PNGs with the landmarks drawn: OUT/NAME.overlay.png for images,
    /// OUT_STEM.overlay/NNNNNN.png for video.
    #[arg(long)]
    pub overlay: bool,

    /// Video: return raw landmarks instead of MediaPipe's one-euro smoothed ones.
    #[arg(long)]
    pub no_smoothing: bool,

    /// Video: run the face detector on every frame instead of tracking.
    #[arg(long)]
    pub detect_every_frame: bool,
}

/// Runs `omote track`.
pub fn run(args: TrackArgs) -> Result<()> {
    if !(args.fps.is_finite() && args.fps > 0.0) {
        bail!("--fps must be a positive number, got {}", args.fps);
    }
    let mut config = TrackerConfig::default();
    if args.no_smoothing {
        config.smoothing = None;
    }
    let tracker = FaceTracker::with_config(config).context("loading the face tracker models")?;
    if let Some(dir) = &args.frames {
        let files = frame_files(dir)?;
        let bar = progress(Some(files.len() as u64));
        let mut frames = files.iter().map(|path| {
            let img = load_rgb(path)?;
            Ok(Some((path.display().to_string(), img)))
        });
        track_video(tracker, &args, &bar, || frames.next().unwrap_or(Ok(None)))
    } else if let Some(size) = args.stdin {
        let bar = progress(None);
        let mut frames = RawFrames::new(std::io::stdin().lock(), size, args.fps)?;
        track_video(tracker, &args, &bar, || {
            let frame = frames.next_frame()?;
            Ok(frame.map(|f| (frames.frame_name(f.index), f.data)))
        })
    } else {
        track_images(tracker, &args)
    }
}

fn progress(len: Option<u64>) -> ProgressBar {
    let bar = match len {
        Some(n) => ProgressBar::new(n).with_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} frames {per_sec} eta {eta} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        ),
        None => ProgressBar::new_spinner().with_style(
            ProgressStyle::with_template("{spinner} {pos} frames {per_sec} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        ),
    };
    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    bar
}

fn track_images(mut tracker: FaceTracker, args: &TrackArgs) -> Result<()> {
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create output directory {}", args.out.display()))?;
    let mut failed = 0;
    for path in &args.images {
        if let Err(e) = track_one_image(&mut tracker, path, args) {
            eprintln!("error: {e:#}");
            failed += 1;
        }
    }
    if failed > 0 {
        bail!("{failed} of {} images failed", args.images.len());
    }
    Ok(())
}

fn track_one_image(tracker: &mut FaceTracker, path: &Path, args: &TrackArgs) -> Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    let stem = path
        .file_stem()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| name.clone());
    let img = load_rgb(path)?;
    let view = RgbView::from_image(&name, &img)?;
    let frame = tracker.image_frame(&name, &view)?;
    let out = args.out.join(format!("{stem}.json"));
    let text = serde_json::to_string(&frame)?;
    crate::output::write_file(&out, (text + "\n").as_bytes())
        .with_context(|| format!("cannot write {}", out.display()))?;
    if args.overlay {
        save_overlay_png(
            &args.out.join(format!("{stem}.overlay.png")),
            &view,
            &frame.faces,
        )?;
    }
    eprintln!(
        "{}: {} face(s) -> {}",
        path.display(),
        frame.faces.len(),
        out.display()
    );
    Ok(())
}

/// The PNG and JPEG files of `dir`, sorted by name.
fn frame_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))? {
        let path = entry
            .with_context(|| format!("cannot read {}", dir.display()))?
            .path();
        let ext = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        if matches!(ext.as_str(), "png" | "jpg" | "jpeg") {
            files.push(path);
        }
    }
    files.sort();
    if files.is_empty() {
        bail!("{}: no .png or .jpg frames", dir.display());
    }
    Ok(files)
}

fn track_video(
    mut tracker: FaceTracker,
    args: &TrackArgs,
    bar: &ProgressBar,
    mut next: impl FnMut() -> Result<Option<(String, RgbImage)>>,
) -> Result<()> {
    let to_stdout = args.out.as_os_str() == "-";
    let mut out: Box<dyn Write> = if to_stdout {
        Box::new(std::io::stdout().lock())
    } else {
        if let Some(parent) = args.out.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        Box::new(BufWriter::new(File::create(&args.out).with_context(
            || format!("cannot create {}", args.out.display()),
        )?))
    };
    let overlay_dir = if args.overlay {
        let stem = if to_stdout {
            "stdout".to_owned()
        } else {
            args.out
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "track".into())
        };
        let dir = args
            .out
            .parent()
            .unwrap_or(Path::new("."))
            .join(format!("{stem}.overlay"));
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        Some(dir)
    } else {
        None
    };
    let (mut index, mut with_face, mut detector_runs) = (0u64, 0u64, 0u64);
    while let Some((what, img)) = next()? {
        let view = RgbView::from_image(&what, &img)?;
        if args.detect_every_frame {
            tracker.reset();
        }
        let frame: LandmarkerFrame = tracker
            .video_frame(index, args.fps, &view)
            .with_context(|| format!("tracking {what}"))?;
        with_face += u64::from(!frame.faces.is_empty());
        detector_runs += u64::from(tracker.last_stats().detector_ran);
        serde_json::to_writer(&mut out, &frame)?;
        out.write_all(b"\n")?;
        if to_stdout {
            out.flush()?;
        }
        if let Some(dir) = &overlay_dir {
            save_overlay_png(&dir.join(format!("{index:06}.png")), &view, &frame.faces)?;
        }
        index += 1;
        bar.inc(1);
    }
    out.flush()?;
    bar.finish_and_clear();
    eprintln!(
        "{index} frames, a face in {with_face}, detector ran on {detector_runs}{}",
        if to_stdout {
            String::new()
        } else {
            format!(" -> {}", args.out.display())
        }
    );
    Ok(())
}
