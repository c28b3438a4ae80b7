//! `OMOTE_STAGE_TIMES=1`: where a batch's time goes. Each stage's wall time is summed over
//! the threads that ran it and printed to stderr at the end, one `stage-times:` line per
//! stage (`tools/lipsync/bench-scaling.py` reads them). Unset, timing a stage costs one
//! load of a flag.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A step of the batch, and where it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Loading the profile (main thread).
    Start,
    /// Listing the inputs (main thread, before any analysis).
    Walk,
    /// Checking the output names, making the output folder and the worker threads.
    Check,
    /// A worker's analyser and audio loader (each time rayon asks for one).
    Setup,
    /// Reading, decoding and resampling a file (workers).
    Decode,
    /// The analysis of one file (workers).
    Analyse,
    /// The result file's text (workers).
    Render,
    /// The result's temporary file made (workers, each in a folder of its own: making a
    /// file locks its folder).
    Create,
    /// The result written into it (workers).
    Write,
    /// A worker handing its result on (waiting if the queue is full).
    Wait,
    /// Making written results durable (one thread beside the workers).
    Sync,
    /// Renaming durable results to their names (the same thread).
    Commit,
    /// After the last file: the staging folders removed and the last sync (the same
    /// thread, while the main thread waits).
    Finish,
}

impl Stage {
    const ALL: [Stage; 13] = [
        Stage::Start,
        Stage::Walk,
        Stage::Check,
        Stage::Setup,
        Stage::Decode,
        Stage::Analyse,
        Stage::Render,
        Stage::Create,
        Stage::Write,
        Stage::Wait,
        Stage::Sync,
        Stage::Commit,
        Stage::Finish,
    ];

    fn name(self) -> &'static str {
        match self {
            Stage::Start => "start",
            Stage::Walk => "walk",
            Stage::Check => "check",
            Stage::Setup => "setup",
            Stage::Decode => "decode",
            Stage::Analyse => "analyse",
            Stage::Render => "render",
            Stage::Create => "create",
            Stage::Write => "write",
            Stage::Wait => "wait",
            Stage::Sync => "sync",
            Stage::Commit => "commit",
            Stage::Finish => "finish",
        }
    }

    /// `serial`: nothing else runs; `parallel`: on every worker at once; `behind`: on one
    /// thread beside the workers.
    fn kind(self) -> &'static str {
        match self {
            Stage::Start | Stage::Walk | Stage::Check | Stage::Finish => "serial",
            Stage::Sync | Stage::Commit => "behind",
            _ => "parallel",
        }
    }
}

#[derive(Default)]
struct Times {
    ns: [AtomicU64; Stage::ALL.len()],
    count: [AtomicU64; Stage::ALL.len()],
}

fn times() -> Option<&'static Times> {
    static TIMES: OnceLock<Option<Times>> = OnceLock::new();
    TIMES
        .get_or_init(|| {
            std::env::var_os("OMOTE_STAGE_TIMES")
                .is_some_and(|v| !v.is_empty() && v != "0")
                .then(Times::default)
        })
        .as_ref()
}

/// Adds `elapsed` to `stage`.
pub fn add(stage: Stage, elapsed: Duration) {
    if let Some(t) = times() {
        let i = stage as usize;
        t.ns[i].fetch_add(elapsed.as_nanos() as u64, Ordering::Relaxed);
        t.count[i].fetch_add(1, Ordering::Relaxed);
    }
}

/// Runs `f`, its time counted to `stage`.
pub fn time<T>(stage: Stage, f: impl FnOnce() -> T) -> T {
    if times().is_none() {
        return f();
    }
    let start = Instant::now();
    let out = f();
    add(stage, start.elapsed());
    out
}

/// Prints every stage's total and time per file, after a batch of `files` on `jobs`
/// workers that took `wall` (from the command's start) and committed its results in
/// groups of at most `queue` files, [`crate::output::GATHER`] apart.
pub fn report(files: usize, jobs: usize, wall: Duration, queue: usize) {
    let Some(t) = times() else { return };
    let per_file = |s: f64| s / files.max(1) as f64 * 1e6;
    eprintln!(
        "stage-times: files {files} jobs {jobs} wall_s {:.6} queue {queue} gather_s {}",
        wall.as_secs_f64(),
        crate::output::GATHER.as_secs_f64()
    );
    for stage in Stage::ALL {
        let i = stage as usize;
        let s = t.ns[i].load(Ordering::Relaxed) as f64 / 1e9;
        eprintln!(
            "stage-times: stage {} {} total_s {s:.6} count {} per_file_us {:.2}",
            stage.name(),
            stage.kind(),
            t.count[i].load(Ordering::Relaxed),
            per_file(s)
        );
    }
}
