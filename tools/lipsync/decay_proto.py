#!/usr/bin/env python3
"""Research aid (issue 39, sixth stage): where in a syllable the reading goes wrong, and the
decay hold emulated per frame. Not part of the product; the shipped rule is
omote_lipsync::DecayHold, the figures are in the crate's EVALUATION.md, "Sixth stage".

usage: decay_proto.py FEAT_DIR BASE_PROFILE.json [GROUP.f32 ...]

FEAT_DIR as for speaker_spread_proto.py (syl/: the KLettres syllables dumped per speaker).
Each speaker is held out: the base profile plus the real-voice Gaussians of the other
speakers reads its files per frame (no smoothing). Printed: the share of the scored tail read
right by how far a frame is under its file's peak and by fifth of the tail, then the
syllable share with the hold at (dB under the run's recent peak, frames of that past), and
for each GROUP.f32 (dump_features output; with --degraded dumps the five conditions apart)
the vowel and closed shares with and without the hold.
"""
import os, sys
import numpy as np
import speaker_spread_proto as gm

ROW = 30
CONFIGS = [None, (10, 20), (12, 20), (15, 20), (10, 40)]


def hold(p, level, voiced, below_db, window):
    """Per frame classes p (5 = N): inside a voiced run, a frame more than below_db under the
    loudest of the run's last `window` frames that reads as a vowel takes the vowel of the last
    loud frame (N stays N), as DecayHold does."""
    out = p.copy(); vowel = None; past = []
    for i in range(len(p)):
        if not voiced[i]:
            vowel = None; past = []; continue
        past = (past + [level[i]])[-window:]
        if level[i] >= max(past) - below_db:
            vowel = out[i] if out[i] < 5 else vowel
        elif out[i] < 5 and vowel is not None:
            out[i] = vowel
    return out


def main():
    feat, base = sys.argv[1], gm.load_profile(sys.argv[2])
    syl = gm.load_syllables(os.path.join(feat, "syl"), base["g"])
    speakers = sorted(syl)
    edges = [0, 3, 6, 10, 15, 20, 30, 200]
    by_level = np.zeros((len(edges) - 1, 2)); by_fifth = np.zeros((5, 2))
    held = {c: [0, 0] for c in CONFIGS}
    for s in speakers:
        means, _ = gm.real_stats(syl, [o for o in speakers if o != s])
        prof = gm.with_real(base, means, np.zeros((5, 12, 12)))
        raw = np.fromfile(os.path.join(feat, "syl", s + ".f32"), dtype="<f4").reshape(-1, ROW)
        clip, voiced = raw[:, 0].astype(int), raw[:, 2] > 0.5
        for c, (x, v) in enumerate(syl[s]):
            if not len(x):
                continue
            level = raw[(clip == c) & voiced, 5]
            p = gm.class_scores(prof, x).argmax(1)
            k = int(np.floor(0.4 * len(x)))
            under = level.max() - level
            for i in range(k, len(x)):
                b = np.searchsorted(edges, under[i], side="right") - 1
                by_level[b] += (p[i] == v, 1)
                by_fifth[min(4, 5 * (i - k) // max(1, len(x) - k))] += (p[i] == v, 1)
            for cf in CONFIGS:
                q = p if cf is None else hold(p, level, np.ones(len(p), bool), *cf)
                held[cf][0] += (q[k:] == v).sum(); held[cf][1] += len(x) - k
    for i in range(len(edges) - 1):
        print(f"{edges[i]:3d}-{edges[i + 1]:3d} dB under the peak: "
              f"{100 * by_level[i, 0] / max(1, by_level[i, 1]):5.1f} % of {int(by_level[i, 1])}")
    for i in range(5):
        print(f"tail fifth {i}: {100 * by_fifth[i, 0] / by_fifth[i, 1]:5.1f} %")
    print("syllables: " + "  ".join(f"{c}: {100 * a / b:.1f}" for c, (a, b) in held.items()))
    means, _ = gm.real_stats(syl, speakers)
    prof = gm.with_real(base, means, np.zeros((5, 12, 12)))
    for path in sys.argv[3:]:
        raw = np.fromfile(path, dtype="<f4").reshape(-1, ROW)
        clip, voiced, y, level = raw[:, 0].astype(int), raw[:, 2] > 0.5, raw[:, 3].astype(int), raw[:, 5]
        p = gm.class_scores(prof, raw[:, 6:18].astype(np.float64)).argmax(1)
        for cond in range(5 if "deg" in os.path.basename(path) else 1):
            sel = (clip % 5 == cond) if "deg" in os.path.basename(path) else np.ones(len(clip), bool)
            line = f"{os.path.basename(path)} {cond}:"
            for cf in CONFIGS:
                q = p.copy()
                if cf is not None:
                    for c in set(clip[sel]):
                        m = clip == c
                        q[m] = hold(p[m], level[m], voiced[m], *cf)
                vm, nm = sel & voiced & (y < 5), sel & voiced & (y == 5)
                line += f"  {cf}: {100 * (q[vm] == y[vm]).mean():.1f}/{100 * (q[nm] == 5).mean():.1f}"
            print(line)


if __name__ == "__main__":
    main()
