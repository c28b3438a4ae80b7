#!/usr/bin/env python3
"""Research aid (issue 39): speed-perturbed copies of labelled clips, for the context net.

Playing a clip k times faster scales every frequency by k — formants and pitch together, as
a shorter vocal tract does — and every time by 1/k. Each clip NAME.wav + NAME.lab.tsv in
IN_DIR is written to OUT_DIR as spK-NAME.wav (sox `speed K`, resampled back to the input's
rate) with its label times divided by K, so `calibrate --net-labelled-dir OUT_DIR` can show
the net higher and lower voices than the synthetic set holds (most of its voices are men's)
without moving the Gaussians. The voice name (up to the last `_`) keeps its prefix, so
`--speaker-from-name` groups each speed of a voice on its own.

usage: speed_perturb.py IN_DIR OUT_DIR [--speeds 0.9,1.15] [--match GLOB]

Needs sox. Deterministic (`sox -R`: the dither's random numbers are the same on every run).
"""
import argparse
import fnmatch
import os
import subprocess


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("in_dir")
    ap.add_argument("out_dir")
    ap.add_argument("--speeds", default="0.9,1.15", help="comma-separated factors")
    ap.add_argument("--match", default="*", help="only clips whose name matches")
    a = ap.parse_args()
    speeds = [float(s) for s in a.speeds.split(",")]
    os.makedirs(a.out_dir, exist_ok=True)
    names = sorted(
        f[: -len(".lab.tsv")]
        for f in os.listdir(a.in_dir)
        if f.endswith(".lab.tsv") and fnmatch.fnmatch(f, a.match)
    )
    for k in speeds:
        tag = f"sp{round(k * 100):03d}-"
        for n, name in enumerate(names):
            src = os.path.join(a.in_dir, name)
            dst = os.path.join(a.out_dir, tag + name)
            subprocess.run(["sox", "-R", src + ".wav", dst + ".wav", "speed", str(k)], check=True)
            with open(src + ".lab.tsv") as f, open(dst + ".lab.tsv", "w") as g:
                for i, line in enumerate(f):
                    cols = line.rstrip("\n").split("\t")
                    if i > 0 or cols[0] != "start":
                        cols[0] = f"{float(cols[0]) / k:.4f}"
                        cols[1] = f"{float(cols[1]) / k:.4f}"
                    g.write("\t".join(cols) + "\n")
            print(f"\rspeed {k}: {n + 1}/{len(names)}", end="", flush=True)
        print()


if __name__ == "__main__":
    main()
