#!/usr/bin/env python3
"""Research aid (issue 39, thirteenth stage): a class's real voices as one Gaussian per vowel
*quality* (close [e] / open [ɛ] for E, close [o] / open [ɔ] for O) instead of one mean.
Not part of the product; the crate README gives the figures.

usage: OMP_NUM_THREADS=1 vowel_quality_proto.py FEAT_DIR BASE_PROFILE.json

FEAT_DIR and BASE_PROFILE as for speaker_spread_proto.py (its recipe).

The idea. The twelfth stage found the new speakers' E letter names read as A (an open [ɛ]:
Polish, Ukrainian) or as I (a close [eː]: German, French "bé"). The real-voice Gaussian of E
is the mean of both kinds, so it sits between them, where neither is. k-means of speakers'
class means (tried there) did not find the split; the languages' phonology gives it for
free: the syllable's spelling says which E it is. Each quality gets its own real-voice
Gaussian at the class's share, split by frames. Nothing is estimated per held-out speaker.
"""
import os, sys
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from speaker_spread_proto import (load_profile, load_group, speaker_formula_means, class_scores,
                                  ROW, VOWELS)

SHARES = np.array([0.25, 0.25, 0.21, 0.3, 0.5])


def e_quality(spk, text):
    """'close' ([e], [eː]) or 'open' ([ɛ]) for a syllable whose vowel is E."""
    if spk in ("de", "da", "fr", "nb", "nl", "ml", "lt") or spk.startswith("qabcs_de") \
            or spk == "qabcs_fr":
        return "open" if text in ("Ä",) else "close"
    if spk == "hu":
        return "open" if text == "E" else "close"
    return "open"  # cs ru uk zh en (JET PET) tn pl be


def o_quality(spk, text):
    """'close' ([o], [oː]) or 'open' ([ɔ]) for O."""
    if spk in ("de", "nl", "hu", "cs", "ru", "da", "nb", "ml", "zh_liu", "zh_lo"):
        return "close"
    return "open"


def load(feat_dir, g):
    out = {}
    for f in sorted(os.listdir(feat_dir)):
        if not f.endswith(".f32"):
            continue
        spk = f[:-4]
        raw = np.fromfile(os.path.join(feat_dir, f), dtype="<f4").reshape(-1, ROW)
        rows = [l.rstrip("\n").split("\t") for l in open(os.path.join(feat_dir, spk + ".map.tsv"))]
        clip, voiced = raw[:, 0].astype(int), raw[:, 2] > 0.5
        ceps = raw[:, 18:30].astype(np.float64)
        files = []
        for c in range(clip.max() + 1):
            v = VOWELS.index(rows[c][1])
            text = rows[c][2]
            q = (e_quality(spk, text) if v == 3 else o_quality(spk, text) if v == 4 else "")
            files.append((ceps[(clip == c) & voiced], v, q))
        sums = np.array([x.sum(0) for x, _, _ in files])
        counts = np.array([len(x) for x, _, _ in files], dtype=float)
        means = speaker_formula_means(sums, counts, g)
        out[spk] = [(x - m, v, q) for (x, v, q), m in zip(files, means)]
    return out


def tails(files):
    X, y, q = [], [], []
    for x, v, qq in files:
        t = x[int(np.floor(0.4 * len(x))):]
        X.append(t)
        y.append(np.full(len(t), v))
        q += [qq] * len(t)
    return np.vstack(X), np.concatenate(y), np.array(q)


def make_profile(base, syl, train, split):
    """The base plus real Gaussians: per class one mean, or for classes in `split` one per
    quality, sharing the class's share by frames."""
    prof = dict(base)
    mus, cls, logw = [base["mus"]], [base["cls"]], base["logw"].copy()
    for k in range(5):
        logw[base["cls"] == k] += np.log(1 - SHARES[k])
    logw = [logw]
    data = [tails(syl[s]) for s in train]
    X = np.vstack([d[0] for d in data])
    y = np.concatenate([d[1] for d in data])
    q = np.concatenate([d[2] for d in data])
    for k in range(5):
        sel = y == k
        groups = [sel & (q == qq) for qq in ("close", "open")] if k in split else [sel]
        groups = [gsel for gsel in groups if gsel.sum() >= 50]
        n = np.array([gsel.sum() for gsel in groups], dtype=float)
        for gsel, nn in zip(groups, n):
            mus.append(X[gsel].mean(0)[None])
            cls.append(np.array([k]))
            logw.append(np.array([np.log(SHARES[k] * nn / n.sum())]))
    prof["mus"], prof["cls"], prof["logw"] = np.vstack(mus), np.concatenate(cls), np.concatenate(logw)
    return prof


def report(name, syl, speakers, make, groups):
    right = total = 0
    conf = np.zeros((5, 6))
    per = []
    for held in speakers:
        X, y, _ = tails(syl[held])
        p = class_scores(make([s for s in speakers if s != held]), X).argmax(1)
        right += (p == y).sum()
        total += len(y)
        per.append(f"{held} {100 * (p == y).mean():.1f}")
        for t, r in zip(y, p):
            conf[t, r] += 1
    line = f"{name:24s} syllables LOSO {100 * right / total:5.2f}"
    prof = make(speakers)
    for gname, (X, y) in groups.items():
        p = class_scores(prof, X).argmax(1)
        vowel = y < 5
        line += f" | {gname} {100 * (p[vowel] == y[vowel]).mean():5.1f}/{100 * (p[~vowel] == 5).mean():4.1f}"
    print(line, flush=True)
    print("   ", ", ".join(per))
    for k in range(5):
        print("   ", VOWELS[k], " ".join(f"{100 * c / conf[k].sum():5.1f}" for c in conf[k]))


def main():
    feat_dir, base = sys.argv[1], load_profile(sys.argv[2])
    syl = load(os.path.join(feat_dir, "syl"), base["g"])
    speakers = sorted(syl)
    groups = {f[:-4]: load_group(os.path.join(feat_dir, "grp", f))
              for f in sorted(os.listdir(os.path.join(feat_dir, "grp"))) if f.endswith(".f32")}
    for name, split in (("one mean per class", ()), ("E by quality", (3,)),
                        ("O by quality", (4,)), ("E and O by quality", (3, 4))):
        report(name, syl, speakers, lambda train, split=split: make_profile(base, syl, train, split),
               groups)


if __name__ == "__main__":
    main()
