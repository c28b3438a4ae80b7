#!/usr/bin/env python3
"""Research aid (issue 39, third stage): what a speaker's mean and a learnt adaptation can do
on the syllable measure. Not part of the product; the crate's EVALUATION.md ("Real voices in the
profile", "Third stage") gives the figures.

usage: OMP_NUM_THREADS=1 speaker_mean_proto.py FEAT_DIR PROFILE.json

FEAT_DIR as for speaker_adapt_proto.py (SPEAKER.f32 / .clips.txt from the dump_features example,
SPEAKER.map.tsv). Per-frame classifier, no smoothing; the last 60 % of each file's voiced
frames are scored.

  speaker formula  each file normalised as `Speaker::read` does: its own voiced frames, 50 of
                   the profile's global mean and up to 200 of the other files' mean
  speaker alone    every file normalised with the mean of the speaker's other files only
  class-balanced   one mean for the speaker: its frames classified, each class's mean minus the
                   profile's class mean, averaged with the profile's class shares (3 passes) —
                   a mean that a speaker's unbalanced vowels (letter names are mostly E) do
                   not pull
  learnt shift     per class, d_k = sum_j A_kj e_j + b_k: e_j the speaker's own class means
                   (classified, unsupervised) minus the profile's, A (scalars) and b fitted by
                   ridge on the other speakers' true class shifts (leave-one-speaker-out);
                   with A = 0 it is the constant real-voice shift

Syllables only: a rule must also be checked on natural speech (the shared-data and MBROLA
groups, dumped the same way), where the class-balanced mean, +5.4 points here on top of the
constant shift, costs up to 11 (it confirms the first reading, as EM does).
"""
import os, sys
import numpy as np
from speaker_adapt_proto import ROW, VOWELS, classify, load_profile


def load_files(feat_dir, spk):
    raw = np.fromfile(os.path.join(feat_dir, spk + ".f32"), dtype="<f4").reshape(-1, ROW)
    vowels = [l.split("\t")[1] for l in open(os.path.join(feat_dir, spk + ".map.tsv"))]
    clip, voiced = raw[:, 0].astype(int), raw[:, 2] > 0.5
    ceps = raw[:, 18:30].astype(np.float64)
    return [(ceps[(clip == c) & voiced], VOWELS.index(vowels[c])) for c in range(clip.max() + 1)]


def class_means(prof):
    out = np.zeros((6, 12))
    for k in range(6):
        idx = prof["cls"] == k
        w = np.exp(prof["logw"][idx])
        out[k] = (w[:, None] * prof["mus"][idx]).sum(0) / w.sum()
    return out


def file_means(prof, files, how):
    sums = np.array([x.sum(0) for x, _ in files])
    counts = np.array([len(x) for x, _ in files], dtype=float)
    total, n = sums.sum(0), counts.sum()
    if how == "class-balanced":
        X, cm, m = np.vstack([x for x, _ in files]), class_means(prof), total / n
        for _ in range(3):
            p = classify(prof, X - m, prof["mus"])
            present = [k for k in range(6) if (p == k).any()]
            w = prof["share"][present] / prof["share"][present].sum()
            m = sum(wk * (X[p == k].mean(0) - cm[k]) for wk, k in zip(w, present))
        return [m] * len(files)
    out = []
    for i in range(len(files)):
        others_n = n - counts[i]
        others = (total - sums[i]) / others_n if others_n > 0 else prof["g"]
        if how == "speaker alone":
            out.append(others)
        else:
            w = min(200.0, others_n)
            out.append((sums[i] + 50 * prof["g"] + w * others) / (counts[i] + 50 + w))
    return out


def normalised(prof, files, how):
    """(frames, scored, truth) with every file normalised by `how`."""
    X, tail, truth = [], [], []
    for (x, v), m in zip(files, file_means(prof, files, how)):
        t = np.zeros(len(x), bool)
        t[int(np.floor(0.4 * len(x))):] = True
        X.append(x - m), tail.append(t), truth.append(np.full(len(x), v))
    return np.vstack(X), np.concatenate(tail), np.concatenate(truth)


def accuracy(conf):
    return 100 * np.trace(conf[:, :5]) / max(conf.sum(), 1)


def confusion(prof, data, shift=None):
    X, tail, truth = data
    mus = prof["mus"] if shift is None else prof["mus"] + shift[prof["cls"]]
    conf = np.zeros((5, 6), int)
    np.add.at(conf, (truth[tail], classify(prof, X[tail], mus)), 1)
    return conf


def learnt_shift(prof, data, spks, lam):
    """Leave-one-speaker-out confusion of the learnt per-class shift (lam: ridge on A)."""
    cm = class_means(prof)
    own, true = {}, {}
    for s in spks:
        X, tail, truth = data[s]
        p = classify(prof, X, prof["mus"])
        own[s] = np.array([X[p == k].mean(0) - cm[k] if (p == k).any() else np.zeros(12)
                           for k in range(6)])
        true[s] = []
        for k in range(5):
            m = tail & (truth == k)
            true[s].append((X[m].mean(0) - cm[k] if m.any() else np.zeros(12), m.sum()))
    total = np.zeros((5, 6), int)
    for s in spks:
        shift = np.zeros((6, 12))
        for k in range(5):
            rows, ys = [], []
            for o in spks:
                if o == s or true[o][k][1] < 20:
                    continue
                for d in range(12):
                    r = np.zeros(18)
                    r[:6], r[6 + d] = own[o][:, d], 1.0
                    rows.append(r), ys.append(true[o][k][0][d])
            if not rows:
                continue
            M, y = np.array(rows), np.array(ys)
            R = np.diag([lam] * 6 + [0.0] * 12) + 1e-9 * np.eye(18)
            sol = np.linalg.solve(M.T @ M + R, M.T @ y)
            shift[k] = sol[:6] @ own[s] + sol[6:]
        total += confusion(prof, data[s], shift)
    return total


def main():
    feat_dir, prof = sys.argv[1], load_profile(sys.argv[2])
    spks = sorted(f[:-4] for f in os.listdir(feat_dir) if f.endswith(".f32"))
    files = {s: load_files(feat_dir, s) for s in spks}
    for how in ("speaker formula", "speaker alone", "class-balanced"):
        confs = {s: confusion(prof, normalised(prof, files[s], how)) for s in spks}
        print(f"{how:16} {accuracy(sum(confs.values())):5.1f} % of frames, "
              f"{np.mean([accuracy(c) for c in confs.values()]):5.1f} % mean of speakers")
    for how in ("speaker formula", "class-balanced"):
        data = {s: normalised(prof, files[s], how) for s in spks}
        for lam in (1e9, 1.0, 10.0, 1000.0):
            name = "constant shift" if lam == 1e9 else f"learnt, ridge {lam:g}"
            print(f"{how}, {name:20} {accuracy(learnt_shift(prof, data, spks, lam)):5.1f} % of "
                  "frames (LOSO)")


if __name__ == "__main__":
    main()
