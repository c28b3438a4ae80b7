"""The Python binding's speed, as figures (issue 35; not a timed test):

1. overhead: `omote.lipsync(samples, rate)` from Python against `analyse_voice` in Rust
   (crates/omote-embed/examples/analyse_clips.rs) on the same decoded shared clips,
   best and median of RUNS each;
2. threads: clips analysed by one thread and by two (the GIL is released), files/s;
3. Dask: examples/python/dask_lipsync.py on a LocalCluster of two worker processes
   against `omote lipsync DIR --jobs 2` (release CLI) on the same folder.

    bindings/python/bench.py [--runs 15] [--copies 20] [--only overhead|threads|dask]

Run it with the virtualenv of bindings/python/test.sh (OMOTE_PY_PROFILE=release for a
release wheel): target/python-venv/bin/python bindings/python/bench.py
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import wave
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

import omote

ROOT = Path(__file__).resolve().parents[2]
SPEECH = Path(os.environ.get("OMOTE_DATA", ROOT.parent / "shared" / "data")) / "speech"


def read_wav(path):
    with wave.open(str(path)) as w:
        data = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
        return data.astype(np.float32) / np.float32(32768), w.getframerate()


def best_median(f, runs):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times), statistics.median(times)


def overhead(clips, runs):
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    subprocess.run(
        ["cargo", "build", "--quiet", "--release", "-p", "omote-embed", "--example", "analyse_clips"],
        cwd=ROOT, check=True,
    )
    out = subprocess.run(
        [target / "release/examples/analyse_clips", str(runs), *map(str, clips)],
        check=True, capture_output=True, text=True,
    ).stdout
    rust = {Path(line.split("\t")[0]).name: float(line.split("\t")[1]) for line in out.splitlines()}
    total_rust = total_py = audio = 0.0
    print(f"{'clip':28} {'rust best ms':>12} {'python best ms':>14} {'overhead':>9}")
    for clip in clips:
        # The samples Rust analysed: the file's, at its rate (resampling included in both).
        pcm, rate = read_wav(clip)
        best, _ = best_median(lambda: omote.lipsync(pcm, rate), runs)
        r = rust[clip.name]
        total_rust += r
        total_py += best
        audio += len(pcm) / rate
        print(f"{clip.name:28} {r * 1e3:12.3f} {best * 1e3:14.3f} {100 * (best / r - 1):8.1f}%")
    print(
        f"overhead: python {total_py * 1e3:.1f} ms vs rust {total_rust * 1e3:.1f} ms over {audio:.1f} s "
        f"of speech: {100 * (total_py / total_rust - 1):+.1f} % "
        f"({audio / total_py:.0f}x real time from python, one core)"
    )


def threads(clips, copies):
    work = [read_wav(c) for c in clips] * copies
    audio = sum(len(s) / r for s, r in work)

    def run(n):
        with ThreadPoolExecutor(n) as pool:
            t = time.perf_counter()
            list(pool.map(lambda sr: omote.lipsync(*sr), work))
            return time.perf_counter() - t

    run(2)  # warm
    one = min(run(1) for _ in range(3))
    two = min(run(2) for _ in range(3))
    print(
        f"threads: 1 thread {len(work) / one:.0f} clips/s ({audio / one:.0f}x real time), "
        f"2 threads {len(work) / two:.0f} clips/s ({audio / two:.0f}x): {one / two:.2f}x"
    )


def dask_vs_cli(copies):
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    subprocess.run(["cargo", "build", "--quiet", "--release", "-p", "omote-cli"], cwd=ROOT, check=True)
    with tempfile.TemporaryDirectory() as tmp:
        voices = Path(tmp) / "voices"
        voices.mkdir()
        wavs = sorted(SPEECH.glob("*.wav"))
        for k in range(copies):
            for w in wavs:
                shutil.copy(w, voices / f"{w.stem}_{k:03}.wav")
        files = sorted(voices.glob("*.wav"))
        audio = sum(w.getnframes() / w.getframerate() for w in map(wave.open, map(str, files)))
        t = time.perf_counter()
        subprocess.run([target / "release/omote", "lipsync", voices, "--jobs", "2", "--out", Path(tmp) / "cli"],
                       check=True, capture_output=True)
        cli = time.perf_counter() - t
        t = time.perf_counter()
        done = subprocess.run(
            [sys.executable, ROOT / "examples/python/dask_lipsync.py", voices, "--out", Path(tmp) / "dask",
             "--workers", "2", "--chunk", "32"],
            check=True, capture_output=True, text=True,
        )
        whole = time.perf_counter() - t
        print(done.stdout.strip())
        print(
            f"dask vs cli over {len(files)} files ({audio / 3600:.2f} h): omote lipsync --jobs 2 {cli:.2f} s "
            f"({audio / cli:.0f}x real time); dask, 2 workers {whole:.2f} s with the cluster's start "
            f"({audio / whole:.0f}x)"
        )


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--copies", type=int, default=20, help="copies of the shared clips for the throughput runs")
    ap.add_argument("--only", choices=["overhead", "threads", "dask"], help="one part alone")
    args = ap.parse_args()
    if not SPEECH.is_dir():
        sys.exit(f"bench.py: {SPEECH} is missing (set OMOTE_DATA)")
    clips = sorted(SPEECH.glob("*.wav"))
    print(f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} cpus, omote {omote.__version__}")
    if args.only in (None, "overhead"):
        overhead(clips, args.runs)
    if args.only in (None, "threads"):
        threads(clips, max(1, args.copies // 4))
    if args.only in (None, "dask"):
        dask_vs_cli(args.copies)


if __name__ == "__main__":
    main()
