#!/usr/bin/env python3
"""Research aid (issue 39, twelfth stage): the real voices as several Gaussians per vowel
instead of one. Not part of the product; the crate's EVALUATION.md gives the figures.

usage: OMP_NUM_THREADS=1 speaker_templates_proto.py FEAT_DIR BASE_PROFILE.json

FEAT_DIR and BASE_PROFILE as for speaker_spread_proto.py (its recipe).

The idea. The shipped real-voice Gaussian of a vowel is the mean of every real speaker's
frames of it. Where speakers put a vowel in different places (one speaker's /u/ where the
profile's O is, another's where its U is), the mean of those places may sit where no
speaker puts it. Here the real voices of a vowel are a mixture instead: one Gaussian per
training speaker (its class mean, the shared covariance), or k-means clusters of the
speakers' class means, at the same total share. A held-out speaker's vowel then meets the
training speaker whose vowel it resembles. Nothing is estimated per held-out speaker.
"""
import os, sys
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from speaker_spread_proto import (load_profile, load_syllables, load_group, report, tails,
                                  class_scores)

# The shipped shares (A I U E O).
SHARES = np.array([0.25, 0.25, 0.21, 0.3, 0.45])


def speaker_class_means(syl, train):
    """{k: [(speaker mean, frames)]} over the training speakers' scored tails."""
    out = {k: [] for k in range(5)}
    for s in train:
        X, y = tails(syl[s])
        for k in range(5):
            xs = X[y == k]
            if len(xs) >= 20:
                out[k].append((xs.mean(0), len(xs)))
    return out


def kmeans(points, weights, K, seed=0):
    """Weighted k-means (deterministic start: the heaviest point, then the farthest)."""
    P, w = np.array(points), np.array(weights, dtype=float)
    K = min(K, len(P))
    c = [P[np.argmax(w)]]
    while len(c) < K:
        d = np.min([((P - x) ** 2).sum(1) for x in c], 0)
        c.append(P[np.argmax(d * w)])
    c = np.array(c)
    for _ in range(50):
        a = np.argmin(((P[:, None] - c[None]) ** 2).sum(2), 1)
        new = np.array([np.average(P[a == j], 0, w[a == j]) if (a == j).any() else c[j]
                        for j in range(K)])
        if np.allclose(new, c):
            break
        c = new
    return [(c[j], w[a == j].sum()) for j in range(K) if (a == j).any()]


def with_templates(prof, templates, weighting, shares=SHARES):
    """The base profile plus, per vowel, the Gaussians `templates[k]` = [(mean, frames)]
    sharing shares[k] (by frames, or equally), all with the shared covariance."""
    q = dict(prof)
    mus, cls, logw = [prof["mus"]], [prof["cls"]], prof["logw"].copy()
    for k in range(5):
        logw[prof["cls"] == k] += np.log(1 - shares[k])
    logw = [logw]
    for k in range(5):
        t = templates[k]
        if not t:
            continue
        n = np.array([f for _, f in t], dtype=float)
        share = n / n.sum() if weighting == "frames" else np.full(len(t), 1 / len(t))
        mus.append(np.array([m for m, _ in t]))
        cls.append(np.full(len(t), k))
        logw.append(np.log(shares[k] * share))
    q["mus"], q["cls"], q["logw"] = np.vstack(mus), np.concatenate(cls), np.concatenate(logw)
    return q


def main():
    feat_dir, base = sys.argv[1], load_profile(sys.argv[2])
    syl = load_syllables(os.path.join(feat_dir, "syl"), base["g"])
    speakers = sorted(syl)
    groups = {f[:-4]: load_group(os.path.join(feat_dir, "grp", f))
              for f in sorted(os.listdir(os.path.join(feat_dir, "grp"))) if f.endswith(".f32")}
    report("no real voices", syl, speakers, lambda train: base, groups)

    def pooled(train):
        per = speaker_class_means(syl, train)
        return with_templates(base, {k: [(np.average([m for m, _ in per[k]], 0,
                                                    [f for _, f in per[k]]),
                                          sum(f for _, f in per[k]))] for k in range(5)},
                              "frames")
    report("one mean (shipped rule)", syl, speakers, pooled, groups)
    # Two more readings of "one mean": its shift from the synthetic class mean scaled by
    # alpha, and its own covariance (the real frames' within-class scatter).
    synth = np.array([np.average(base["mus"][base["cls"] == k], 0,
                                 np.exp(base["logw"][base["cls"] == k])) for k in range(5)])
    for alpha in (1.25, 1.5):
        def further(train, alpha=alpha):
            q = pooled(train)
            real = q["mus"][len(base["mus"]):]
            q["mus"][len(base["mus"]):] = synth + alpha * (real - synth)
            return q
        report(f"one mean, shift x{alpha}", syl, speakers, further, groups)
    for mix in (1.0, 0.5):
        def own_cov(train, mix=mix):
            q = pooled(train)
            real = q["mus"][len(base["mus"]):]
            S, n = np.zeros((12, 12)), 0
            for s in train:
                X, y = tails(syl[s])
                for k in range(5):
                    d = X[y == k] - real[k]
                    S += d.T @ d
                    n += len(d)
            C = mix * S / n + (1 - mix) * base["C"]
            Pk = np.linalg.inv(C)
            ld = np.linalg.slogdet(C)[1] - np.linalg.slogdet(base["C"])[1]
            q["real"] = [(k, real[k], Pk, q["logw"][len(base["mus"]) + k] - 0.5 * ld)
                         for k in range(5)]
            q["mus"], q["cls"], q["logw"] = (q["mus"][:len(base["mus"])],
                                             q["cls"][:len(base["mus"])],
                                             q["logw"][:len(base["mus"])])
            return q
        report(f"one mean, own covariance x{mix}", syl, speakers, own_cov, groups)
    for weighting in ("frames", "equal"):
        report(f"one per speaker, by {weighting}", syl, speakers,
               lambda train, w=weighting: with_templates(base, speaker_class_means(syl, train), w),
               groups)
    for K in (2, 3, 4):
        def clustered(train, K=K):
            per = speaker_class_means(syl, train)
            return with_templates(base, {k: kmeans([m for m, _ in per[k]],
                                                   [min(f, 2000) for _, f in per[k]], K)
                                         for k in range(5)}, "frames")
        report(f"k-means K={K}", syl, speakers, clustered, groups)


if __name__ == "__main__":
    main()
