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
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use omote_live::{FrameSize, FrameSource, LatePolicy, LiveError, RawFrames, ThreadedFrames};
use omote_tracker::{
    FaceTracker, LandmarkerFrame, RgbImage, RgbView, TrackerConfig, load_rgb, save_overlay_png,
};

use crate::limits;
use crate::output::InputError;

/// Track faces: landmarks, blendshapes and head pose as MediaPipe FaceLandmarker
/// JSON.
#[derive(Debug, clap::Args)]
#[command(
    group(clap::ArgGroup::new("input").required(true).args(["images", "frames", "stdin"])),
    after_help = "Video from a webcam or a file goes through ffmpeg as raw RGB:\n  \
# Linux webcam (macOS: -f avfoundation -i 0; Windows: -f dshow -i video=\"NAME\")\n  \
ffmpeg -f v4l2 -framerate 30 -video_size 640x480 -i /dev/video0 \\\n      \
-f rawvideo -pix_fmt rgb24 - | omote track --stdin 640x480 --fps 30 --out -\n  \
# a video file, scaled to 640x480\n  \
ffmpeg -i clip.mp4 -vf scale=640:480 -r 30 -f rawvideo -pix_fmt rgb24 - \\\n      \
| omote track --stdin 640x480 --fps 30 --out clip.jsonl\n\n\
`omote live --camera 0` starts ffmpeg itself and drives the avatar live."
)]
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
    /// The output is written when the input ends (also inside a frame: an interrupted
    /// ffmpeg) or on Ctrl-C.
    #[arg(long, value_name = "WxH", conflicts_with = "images", value_parser = limits::frame_size)]
    pub stdin: Option<FrameSize>,

    /// Frame rate of a video input (sets the timestamps), 1–1000.
    #[arg(long, value_name = "F", default_value_t = 30.0, allow_negative_numbers = true, value_parser = limits::fps)]
    pub fps: f64,

    /// Output: a directory for images; a .jsonl file for video (`-` for stdout, video
    /// only), written whole or not at all.
    #[arg(long, short, visible_alias = "output", value_name = "PATH")]
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
    let to_stdout = args.out.as_os_str() == "-";
    if !args.images.is_empty() {
        if to_stdout {
            bail!(
                "--out -: standard output is for video (--frames, --stdin); give a folder for images"
            );
        }
        // A file name where the folder goes is a mix-up with video's .jsonl, not a
        // folder to create with that name.
        let ext = args.out.extension().and_then(|e| e.to_str()).unwrap_or("");
        if !args.out.exists() && ["json", "jsonl"].contains(&ext.to_ascii_lowercase().as_str()) {
            bail!(
                "--out {}: images write one NAME.json each into a folder: give a folder (a .jsonl file is video's output: --frames or --stdin)",
                args.out.display()
            );
        }
        check_distinct_outputs(&args.images, &args.out)?;
    } else if !to_stdout {
        if let Some(parent) = args.out.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        crate::output::check_output_file(&args.out, "--out")?;
    }
    let mut config = TrackerConfig::default();
    if args.no_smoothing {
        config.smoothing = None;
    }
    let mut tracker =
        FaceTracker::with_config(config).context("loading the face tracker models")?;
    tracker.set_profiling(std::env::var_os("OMOTE_TRACK_PROFILE").is_some_and(|v| v == "1"));
    if let Some(dir) = &args.frames {
        let files = frame_files(dir)?;
        let bar = progress(Some(files.len() as u64));
        std::thread::scope(|scope| {
            let decoded = decode_ahead(scope, &files)?;
            track_video(tracker, &args, &bar, || match decoded.recv() {
                Ok((path, img)) => Ok(Some((path.display().to_string(), img?))),
                Err(mpsc::RecvError) => Ok(None),
            })
        })
    } else if let Some(size) = args.stdin {
        let bar = progress(None);
        let raw = RawFrames::new(std::io::stdin(), size, args.fps)?;
        // A stream runs until it ends or Ctrl-C: what was tracked is written either way.
        let stop = crate::interrupt::install()?;
        let mut frames =
            ThreadedFrames::spawn(raw, LatePolicy::KeepAll, "stdin").stop_on(stop.clone());
        track_video(tracker, &args, &bar, || match frames.next_frame() {
            Ok(frame) => Ok(frame.map(|f| (format!("stdin frame {}", f.index), f.data))),
            Err(e @ LiveError::TruncatedFrame { .. }) => {
                eprintln!("the input ended inside a frame ({e}); it is dropped");
                Ok(None)
            }
            Err(e) => Err(e.into()),
        })
    } else {
        track_images(tracker, &args)
    }
}

/// Images whose outputs (`OUT/STEM.json`) would be the same file: an error before any work.
fn check_distinct_outputs(images: &[PathBuf], out: &Path) -> Result<()> {
    let mut seen: std::collections::HashMap<PathBuf, &Path> = std::collections::HashMap::new();
    for path in images {
        let stem = path.file_stem().unwrap_or(path.as_os_str());
        let target = out.join(format!("{}.json", stem.to_string_lossy()));
        if let Some(first) = seen.insert(target.clone(), path) {
            bail!(
                "{} and {} would both write {}: track them into different folders",
                first.display(),
                path.display(),
                target.display()
            );
        }
    }
    Ok(())
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

/// Images decoded ahead of tracking (on a second core this overlaps the decoding with
/// the networks; on one core it costs nothing) and result files written behind it: each
/// file's sync mostly waits for the disk, and it no longer holds up the next image.
const DECODE_AHEAD: usize = 2;
/// Threads writing result files, and the finished results that may wait for them.
const WRITERS: usize = 4;
const WRITE_QUEUE: usize = 8;

/// Decodes `paths` in order on a thread of `scope`, at most [`DECODE_AHEAD`] ahead of
/// the receiver; it stops when the receiver is dropped.
fn decode_ahead<'scope, 'p: 'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    paths: &'p [PathBuf],
) -> Result<mpsc::Receiver<(&'p Path, omote_tracker::Result<RgbImage>)>> {
    let (to_track, decoded) = mpsc::sync_channel(DECODE_AHEAD);
    std::thread::Builder::new()
        .name("decode".into())
        .spawn_scoped(scope, move || {
            for path in paths {
                if to_track.send((path.as_path(), load_rgb(path))).is_err() {
                    break;
                }
            }
        })
        .context("cannot start the image decoding thread")?;
    Ok(decoded)
}

/// One image's finished result, on its way to the disk.
struct ImageResult<'a> {
    input: &'a Path,
    out: PathBuf,
    json: String,
    faces: usize,
    /// The image and the faces to draw on it, with `--overlay`.
    overlay: Option<(RgbImage, LandmarkerFrame)>,
}

fn track_images(mut tracker: FaceTracker, args: &TrackArgs) -> Result<()> {
    let made_out = !args.out.exists();
    crate::output::ensure_dir(&args.out)?;
    let bar = progress(Some(args.images.len() as u64));
    let failed = AtomicUsize::new(0);
    let with_face = AtomicUsize::new(0);
    let fail = |e: &anyhow::Error| {
        bar.suspend(|| eprintln!("error: {}", crate::output::error_text(e)));
        failed.fetch_add(1, Ordering::Relaxed);
    };
    std::thread::scope(|scope| -> Result<()> {
        let decoded = decode_ahead(scope, &args.images)?;
        let to_write =
            crate::output::write_behind(scope, WRITERS, WRITE_QUEUE, |result: ImageResult| {
                match write_image_result(&result, &args.out) {
                    Ok(()) => {
                        with_face.fetch_add(usize::from(result.faces > 0), Ordering::Relaxed);
                    }
                    Err(e) => fail(&e),
                }
                bar.inc(1);
            })?;
        for (path, img) in decoded {
            match img
                .map_err(anyhow::Error::from)
                .and_then(|img| track_one_image(&mut tracker, path, img, args))
            {
                // The writers end only after this sender is gone (below).
                Ok(result) => {
                    let _ = to_write.send(result);
                }
                Err(e) => {
                    fail(&e);
                    bar.inc(1);
                }
            }
        }
        drop(to_write);
        Ok(())
    })?;
    bar.finish_and_clear();
    print_stage_times(&tracker);
    let failed = failed.into_inner();
    let n = args.images.len();
    // Where the results went, or that nothing was written (the folder is then removed
    // again below when this run made it).
    let to = if failed == n {
        "nothing written".to_string()
    } else {
        format!("-> {}", args.out.display())
    };
    eprintln!(
        "{} of {n} images tracked, a face in {} {to}",
        n - failed,
        with_face.into_inner(),
    );
    if failed > 0 {
        if failed == n && made_out {
            // Nothing was tracked: leave no empty folder behind (it fails if not empty).
            let _ = std::fs::remove_dir(&args.out);
        }
        bail!("{failed} of {n} images failed");
    }
    Ok(())
}

fn track_one_image<'a>(
    tracker: &mut FaceTracker,
    path: &'a Path,
    img: RgbImage,
    args: &TrackArgs,
) -> Result<ImageResult<'a>> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    let stem = path
        .file_stem()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| name.clone());
    let view = RgbView::from_image(&name, &img)?;
    let frame = tracker.image_frame(&name, &view)?;
    let mut json = serde_json::to_string(&frame)?;
    json.push('\n');
    Ok(ImageResult {
        input: path,
        out: args.out.join(format!("{stem}.json")),
        json,
        faces: frame.faces.len(),
        overlay: args.overlay.then_some((img, frame)),
    })
}

fn write_image_result(result: &ImageResult, out_dir: &Path) -> Result<()> {
    crate::output::write_file(&result.out, result.json.as_bytes()).with_context(|| {
        format!(
            "{}: cannot write {}",
            result.input.display(),
            result.out.display()
        )
    })?;
    if let Some((img, frame)) = &result.overlay {
        let stem = result.out.file_stem().unwrap_or_default().to_string_lossy();
        let name = result.input.display().to_string();
        let view = RgbView::from_image(&name, img)?;
        save_overlay_png(
            &out_dir.join(format!("{stem}.overlay.png")),
            &view,
            &frame.faces,
        )?;
    }
    Ok(())
}

/// With `OMOTE_TRACK_PROFILE=1`: the tracker's time per frame, stage by stage (input
/// decoding and output writing run on other threads and are not in it).
fn print_stage_times(tracker: &FaceTracker) {
    let Some(times) = tracker.stage_times() else {
        return;
    };
    let per = |d: std::time::Duration| d.as_secs_f64() * 1e3 / times.frames.max(1) as f64;
    eprintln!(
        "profile: {} frames, detector ran {} times; ms per frame:",
        times.frames, times.detector_runs
    );
    for (name, total) in times.stages() {
        eprintln!("  {name:<18} {:7.3}", per(total));
    }
    eprintln!("  {:<18} {:7.3}", "total", per(times.total()));
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
    tracker: FaceTracker,
    args: &TrackArgs,
    bar: &ProgressBar,
    next: impl FnMut() -> Result<Option<(String, RgbImage)>>,
) -> Result<()> {
    if args.out.as_os_str() == "-" {
        return track_stream(
            tracker,
            args,
            bar,
            next,
            &mut std::io::stdout().lock(),
            true,
        );
    }
    // Whole or not at all: a bad frame leaves no partial file under the final name.
    let mut next = Some(next);
    crate::output::write_with(&args.out, |tmp| {
        let file = File::create(tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
        let mut out = BufWriter::new(file);
        let next = next.take().expect("written once");
        track_stream(tracker, args, bar, next, &mut out, false)?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        Ok(())
    })
}

fn track_stream(
    mut tracker: FaceTracker,
    args: &TrackArgs,
    bar: &ProgressBar,
    mut next: impl FnMut() -> Result<Option<(String, RgbImage)>>,
    out: &mut dyn Write,
    to_stdout: bool,
) -> Result<()> {
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
    // A frame that cannot be read is the input's error, not the output's.
    while let Some((what, img)) = next().map_err(|e| anyhow::Error::new(InputError(e)))? {
        let view = RgbView::from_image(&what, &img)?;
        if args.detect_every_frame {
            tracker.reset();
        }
        let frame: LandmarkerFrame = tracker
            .video_frame(index, args.fps, &view)
            .with_context(|| format!("tracking {what}"))?;
        with_face += u64::from(!frame.faces.is_empty());
        detector_runs += u64::from(tracker.last_stats().detector_ran);
        serde_json::to_writer(&mut *out, &frame)?;
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
    if index == 0 {
        // An empty pipe or folder: nothing tracked is an error, not an empty sequence.
        return Err(anyhow::Error::new(InputError(anyhow::anyhow!(
            "no frames came in: nothing to track"
        ))));
    }
    out.flush()?;
    bar.finish_and_clear();
    print_stage_times(&tracker);
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
