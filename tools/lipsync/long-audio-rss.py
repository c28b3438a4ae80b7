#!/usr/bin/env python3
"""Peak memory and time of `omote lipsync` on a long WAV (issue 37: memory flat in length).

Builds a speech-like 16 kHz mono 16-bit WAV of HOURS hours (default 12) by concatenating
the real clips of the speech data set (resampled linearly to 16 kHz, a short pause
between clips) over and over, runs `omote lipsync WAV --out DIR` under `/usr/bin/time -v`
and prints the peak RSS, the wall time and the result's size. The WAV and the result are
deleted afterwards.

    tools/lipsync/long-audio-rss.py [--omote target/release/omote] [--hours 12]
        [--data /work/shared/data/speech] [--tmp /tmp] [--format json]
"""

import argparse
import glob
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import wave

RATE = 16_000


def clip_16k(path):
    """A clip's samples at 16 kHz (linear interpolation), as bytes of 16-bit PCM."""
    with wave.open(path) as w:
        if w.getsampwidth() != 2:
            return b""
        rate, ch, n = w.getframerate(), w.getnchannels(), w.getnframes()
        raw = w.readframes(n)
    x = struct.unpack(f"<{n * ch}h", raw)
    if ch > 1:
        x = [sum(x[i : i + ch]) // ch for i in range(0, len(x), ch)]
    m = int(len(x) * RATE / rate)
    out = []
    for k in range(m):
        t = k * rate / RATE
        i = int(t)
        w1 = t - i
        a = x[min(i, len(x) - 1)]
        b = x[min(i + 1, len(x) - 1)]
        out.append(int(round(a * (1 - w1) + b * w1)))
    return struct.pack(f"<{len(out)}h", *out)


def write_long_wav(path, hours, data):
    clips = sorted(glob.glob(os.path.join(data, "*.wav")))
    if not clips:
        sys.exit(f"no clips in {data}")
    pause = b"\0\0" * (RATE // 4)
    cycle = b"".join(clip_16k(c) + pause for c in clips)
    total = int(hours * 3600 * RATE) * 2
    with open(path, "wb") as f:
        f.write(b"RIFF" + struct.pack("<I", 36 + total) + b"WAVE")
        f.write(b"fmt " + struct.pack("<IHHIIHH", 16, 1, 1, RATE, RATE * 2, 2, 16))
        f.write(b"data" + struct.pack("<I", total))
        left = total
        while left > 0:
            piece = cycle[: min(left, len(cycle))]
            f.write(piece)
            left -= len(piece)
    return len(cycle) / 2 / RATE


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--omote", default="target/release/omote")
    ap.add_argument("--hours", type=float, default=12.0)
    ap.add_argument("--data", default="/work/shared/data/speech")
    ap.add_argument("--tmp", default="/tmp")
    ap.add_argument("--format", default="json")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="omote-long-", dir=a.tmp)
    try:
        wav = os.path.join(work, "long.wav")
        cycle_s = write_long_wav(wav, a.hours, a.data)
        size = os.path.getsize(wav)
        print(f"input: {a.hours:g} h, {size / 1e9:.2f} GB (a {cycle_s:.0f} s cycle of real clips)")
        out = os.path.join(work, "out")
        cmd = ["/usr/bin/time", "-v", a.omote, "lipsync", wav, "--out", out, "--format", a.format]
        r = subprocess.run(cmd, capture_output=True, text=True)
        rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stderr)
        wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", r.stderr)
        cpu = re.search(r"User time \(seconds\): (\S+)", r.stderr)
        if r.returncode != 0:
            print(r.stderr[-3000:])
            sys.exit(f"omote exited {r.returncode}")
        results = os.listdir(out)
        out_size = sum(os.path.getsize(os.path.join(out, f)) for f in results)
        print(f"peak RSS: {int(rss.group(1)) / 1024:.1f} MiB")
        print(f"wall time: {wall.group(1)}, user CPU {cpu.group(1)} s")
        print(f"result: {', '.join(results)}, {out_size / 1e6:.1f} MB")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
