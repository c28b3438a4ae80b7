#!/usr/bin/env python3
"""How `omote lipsync DIR --speaker file --jobs N` scales with cores (issue 35).

    tools/lipsync/bench-scaling.py [--bin OMOTE] [--copies 64] [--runs 3] [--jobs 1,2,...]

The corpus: --copies copies of every WAV in shared/data/speech (63 clips at 48, 22.05 and
16 kHz; 64 copies = 4032 files, 5.0 h of audio, about 1 GB), made once in
${TMPDIR:-/tmp}/omote-lipsync-scaling (delete it afterwards). Without --bin the release
binary is built (`cargo build --release -p omote-cli`, honouring CARGO_TARGET_DIR).

For each job count (default 1, 2, 4, ... up to the cores) the batch runs --runs times with
OMOTE_STAGE_TIMES=1, each run once the cores are idle (waiting up to --idle-wait s: on a
shared machine another program's build takes the second core), and the best run is kept:
files/s and x real time (audio seconds / wall seconds, the whole process). Each run
writes a new output folder, all deleted at the end. (On ext4 without a journal, this machine's, creating a file steps over recently freed
inodes one by one: after many deletions a create costs up to 0.5 ms instead of 0.02, so
the `create` figures depend on what was deleted lately; each worker creates in a folder
of its own, so they do not wait for each other.)

Then each stage's time per file at 2 jobs (the CLI's own timers, summed over the threads
that ran the stage) and Amdahl's law. The serial fraction s is the time per file of all
that does not run on the --jobs workers in parallel: process start and exit, profile,
walk, checks and the last sync (serial) and the renames into the result folder (one
thread beside the workers, and one folder lock) — over one job's wall time per file;
speedup(N) = 1 / (s + (1 - s) / N). The group syncs are not in s: that thread waits for
the disk beside the workers, once per group, and is a bound of its own (the queue over
the time between groups), printed too.
Standard library only.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import wave
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERIAL_STAGES = ("start", "walk", "check", "finish", "commit")


def corpus(speech: Path, copies: int) -> tuple[Path, int, float]:
    """The input folder (made once), its file count and its seconds of audio."""
    base = Path(os.environ.get("TMPDIR", tempfile.gettempdir())) / "omote-lipsync-scaling"
    folder = base / f"in-{copies}"
    clips = sorted(speech.glob("*.wav"))
    if not clips:
        sys.exit(f"bench-scaling: no WAVs in {speech}")
    done = folder / ".complete"
    if not done.exists():
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        for c in range(copies):
            for clip in clips:
                shutil.copyfile(clip, folder / f"c{c:03}_{clip.name}")
        done.write_text("")
    seconds = 0.0
    for clip in clips:
        with wave.open(str(clip)) as w:
            seconds += w.getnframes() / w.getframerate()
    return folder, copies * len(clips), copies * seconds


def release_binary() -> Path:
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    print("bench-scaling: cargo build --release -p omote-cli", file=sys.stderr)
    subprocess.run(
        ["cargo", "build", "--release", "-p", "omote-cli"], cwd=ROOT, check=True
    )
    return target / "release" / "omote"


def busy_share(seconds: float = 1.0) -> float:
    """The share of all cores busy over `seconds` (Linux /proc/stat; 0 elsewhere)."""
    def ticks() -> tuple[int, int]:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
        return sum(fields), fields[3] + fields[4]  # all, idle + iowait
    if not Path("/proc/stat").exists():
        return 0.0
    all0, idle0 = ticks()
    time.sleep(seconds)
    all1, idle1 = ticks()
    return 1 - (idle1 - idle0) / max(all1 - all0, 1)


def wait_for_idle(limit_s: float) -> float:
    """Waits (at most `limit_s`) until other programs leave the cores nearly idle, so a
    run is not measured against someone's build; the last busy share seen."""
    deadline = time.time() + limit_s
    busy = busy_share()
    while busy > 0.1 and time.time() < deadline:
        busy = busy_share(2.0)
    return busy


def run(binary: Path, folder: Path, out: Path, jobs: int) -> tuple[float, dict]:
    """One batch into the new folder `out`: its wall time (the whole process) and the
    CLI's stage report."""
    env = dict(os.environ, OMOTE_STAGE_TIMES="1")
    cmd = [str(binary), "lipsync", str(folder), "--speaker", "file"]
    cmd += ["--jobs", str(jobs), "--out", str(out)]
    start = time.perf_counter()
    p = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    if p.returncode != 0:
        sys.exit(f"bench-scaling: {' '.join(cmd)} failed:\n{p.stderr}")
    report = {"stages": {}}
    for line in p.stderr.splitlines():
        m = re.match(
            r"stage-times: files (\d+) jobs (\d+) wall_s ([\d.]+)(?: queue (\d+) gather_s ([\d.]+))?",
            line,
        )
        if m:
            report["files"], report["jobs"] = int(m[1]), int(m[2])
            report["inner_wall"] = float(m[3])
            report["queue"], report["gather"] = int(m[4] or 0), float(m[5] or 0)
        m = re.match(r"stage-times: stage (\w+) (\w+) total_s ([\d.]+) count (\d+)", line)
        if m:
            report["stages"][m[1]] = {"kind": m[2], "s": float(m[3]), "count": int(m[4])}
    if "files" not in report:
        sys.exit(f"bench-scaling: {binary} printed no stage times (OMOTE_STAGE_TIMES)")
    return wall, report


def serial_per_file(wall: float, report: dict) -> tuple[float, dict]:
    """Seconds per file not in parallel on the workers (see the module docs)."""
    files = report["files"]
    parts = {"process": max(wall - report["inner_wall"], 0.0)}
    for name, st in report["stages"].items():
        if name in SERIAL_STAGES and st["s"] > 0:
            parts[name] = st["s"]
    return sum(parts.values()) / files, {k: v / files for k, v in parts.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", type=Path, help="omote binary (default: build the release one)")
    ap.add_argument("--copies", type=int, default=64, help="copies of each shared clip")
    ap.add_argument("--runs", type=int, default=3, help="runs per job count (best kept)")
    ap.add_argument("--jobs", help="job counts, comma-separated (default 1, 2, 4 ... cores)")
    ap.add_argument("--idle-wait", type=float, default=120,
                    help="seconds to wait before each run for the cores to be idle (0: never)")
    ap.add_argument("--speech", type=Path, default=ROOT.parent / "shared" / "data" / "speech")
    args = ap.parse_args()
    speech = Path(os.environ.get("OMOTE_SPEECH", args.speech))
    binary = args.bin or release_binary()
    if not binary.exists():
        sys.exit(f"bench-scaling: {binary} not found")
    cores = os.cpu_count() or 1
    if args.jobs:
        counts = [int(j) for j in args.jobs.split(",")]
    else:
        counts = [j for j in (1, 2, 4, 8, 16, 32, 64) if j <= cores] or [1]
    folder, files, seconds = corpus(speech, args.copies)
    outs = folder.parent / "out"
    shutil.rmtree(outs, ignore_errors=True)
    runs = iter(range(1_000_000))
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3]) if Path("/proc/loadavg").exists() else "?"
    print(f"bench-scaling: {files} files, {seconds:.0f} s of audio ({seconds / files:.2f} s each), "
          f"copies of {speech} in {folder}; {binary}; {cores} cores; load average {load}")
    run(binary, folder, outs / "warm", counts[-1])  # warm the page cache
    best = {}
    busy_runs = 0
    for jobs in counts:
        for _ in range(args.runs):
            if args.idle_wait > 0 and wait_for_idle(args.idle_wait) > 0.1:
                busy_runs += 1
            wall, report = run(binary, folder, outs / str(next(runs)), jobs)
            if report["files"] != files:
                sys.exit(f"bench-scaling: {report['files']} files analysed of {files}")
            if jobs not in best or wall < best[jobs][0]:
                best[jobs] = (wall, report)
        wall = best[jobs][0]
        print(f"jobs {jobs:3}: {wall:7.3f} s  {files / wall:7.0f} files/s  "
              f"{seconds / wall:6.0f}x real time  speedup {best[counts[0]][0] / wall:5.2f}")
    if busy_runs:
        print(f"({busy_runs} runs started while other programs kept the cores over 10 % busy)")
    outputs = sum(1 for _ in (outs / "0").iterdir())
    shutil.rmtree(outs, ignore_errors=True)
    if outputs != files:
        sys.exit(f"bench-scaling: {outputs} result files for {files} inputs")

    # Each stage per file at 2 jobs (or the nearest count measured).
    at = min(counts, key=lambda j: abs(j - 2))
    wall, report = best[at]
    stages = report["stages"]
    process = max(wall - report["inner_wall"], 0.0)
    total = process + sum(st["s"] for st in stages.values())
    one_stages = best[counts[0]][1]["stages"]
    print(f"\neach stage per file (parallel stages summed over the workers), at {at} jobs with "
          f"its share of all stage time, and at {counts[0]} job:")
    one_process = max(best[counts[0]][0] - best[counts[0]][1]["inner_wall"], 0.0)
    print(f"  {'process':8} {'serial':8} {process / files * 1e6:8.1f} us {process / total:6.1%}"
          f"  {one_process / files * 1e6:8.1f} us  (start-up and exit: wall minus the CLI's own)")
    for name, st in stages.items():
        if st["count"] == 0:
            continue
        one_s = one_stages.get(name, {"s": 0.0})["s"]
        print(f"  {name:8} {st['kind']:8} {st['s'] / files * 1e6:8.1f} us {st['s'] / total:6.1%}"
              f"  {one_s / files * 1e6:8.1f} us  ({st['count']} timed)")
    sync = stages.get("sync", {"s": 0.0, "count": 0})
    if sync["count"]:
        latency = sync["s"] / sync["count"]
        print(f"  {sync['count']} group syncs of {files / sync['count']:.0f} files, "
              f"{latency * 1e3:.1f} ms each: that thread waited {sync['s'] / wall:.0%} of the "
              f"wall; it keeps up with up to {report['queue']} files per "
              f"{(report['gather'] + latency) * 1e3:.0f} ms = "
              f"{report['queue'] / (report['gather'] + latency):.0f} files/s")

    # Amdahl: the serial seconds per file at `at` jobs over one job's wall time per file.
    if 1 not in best:
        print("\nno 1-job run: no Amdahl projection")
        return
    one = best[1][0] / files
    serial, parts = serial_per_file(wall, report)
    s = serial / one
    print(f"\nAmdahl: one job takes {one * 1e6:.1f} us per file; outside the workers "
          f"{serial * 1e6:.1f} us per file ("
          + ", ".join(f"{k} {v * 1e6:.1f}" for k, v in parts.items()) + f") -> s = {s:.4f}")
    for n in sorted(set(counts) | {16}):
        speedup = 1 / (s + (1 - s) / n)
        measured = f", measured {best[1][0] / best[n][0]:.2f}x" if n in best else ""
        print(f"  speedup({n:2}) = 1 / (s + (1 - s) / {n:2}) = {speedup:5.2f}x{measured}")
    speedup16 = 1 / (s + (1 - s) / 16)
    print(f"16 jobs >= 12x one job: {'yes' if speedup16 >= 12 else 'NO'} "
          f"({speedup16:.2f}x; 12x needs s <= {(16 / 12 - 1) / 15:.4f})")


if __name__ == "__main__":
    main()
