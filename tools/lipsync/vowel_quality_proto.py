#!/usr/bin/env python3
"""Research aid (issue 39, thirteenth stage): a class's real voices as one Gaussian per vowel
*quality* (close [e] / open [ɛ] for E, close [o] / open [ɔ] for O) instead of one mean.
Not part of the product; the crate's EVALUATION.md gives the figures.

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
from speaker_spread_proto import load_profile, load_group, load_syllables, tails, class_scores
from speaker_templates_proto import with_templates

# The shipped shares (A I U E O) since the twelfth stage.
SHARES = np.array([0.25, 0.25, 0.21, 0.3, 0.5])


def e_quality(spk, text):
    """'close' ([e], [eː]) or 'open' ([ɛ]) for a syllable whose vowel is E."""
    if spk in ("de", "da", "fr", "nb", "nl", "ml", "lt") or spk in ("qabcs_de", "qabcs_fr"):
        return "open" if text == "Ä" else "close"
    if spk == "hu":
        return "open" if text == "E" else "close"
    return "open"  # cs ru uk zh en (JET PET) tn pl be


def o_quality(spk, text):
    """'close' ([o], [oː]) or 'open' ([ɔ]) for O."""
    if spk in ("de", "nl", "hu", "cs", "ru", "da", "nb", "ml", "zh_liu", "zh_lo"):
        return "close"
    return "open"


def qualities(feat_dir, syl):
    """{speaker: per scored frame, its file's quality ('' for A I U)}, in `tails`' order."""
    out = {}
    for spk, files in syl.items():
        rows = [l.rstrip("\n").split("\t") for l in open(os.path.join(feat_dir, spk + ".map.tsv"))]
        q = []
        for (x, v), row in zip(files, rows):
            quality = e_quality(spk, row[2]) if v == 3 else o_quality(spk, row[2]) if v == 4 else ""
            q += [quality] * (len(x) - int(np.floor(0.4 * len(x))))
        out[spk] = np.array(q)
    return out


def make_profile(base, syl, quality, train, split):
    """The base plus real Gaussians: per class one mean, or for classes in `split` one per
    quality, sharing the class's share by frames."""
    data = [tails(syl[s]) for s in train]
    X = np.vstack([d[0] for d in data])
    y = np.concatenate([d[1] for d in data])
    q = np.concatenate([quality[s] for s in train])
    templates = {}
    for k in range(5):
        sel = y == k
        groups = [sel & (q == qq) for qq in ("close", "open")] if k in split else [sel]
        templates[k] = [(X[g].mean(0), g.sum()) for g in groups if g.sum() >= 50]
    return with_templates(base, templates, "frames", SHARES)


def report(name, syl, speakers, make, groups):
    """The held-out syllables per frame (and per speaker), the confusion, and each group
    read by the profile of every speaker."""
    right = total = 0
    conf = np.zeros((5, 6))
    per = []
    for held in speakers:
        X, y = tails(syl[held])
        p = class_scores(make([s for s in speakers if s != held]), X).argmax(1)
        right += (p == y).sum()
        total += len(y)
        per.append(f"{held} {100 * (p == y).mean():.1f}")
        np.add.at(conf, (y, p), 1)
    line = f"{name:24s} syllables LOSO {100 * right / total:5.2f}"
    prof = make(speakers)
    for gname, (X, y) in groups.items():
        p = class_scores(prof, X).argmax(1)
        vowel = y < 5
        line += f" | {gname} {100 * (p[vowel] == y[vowel]).mean():5.1f}/{100 * (p[~vowel] == 5).mean():4.1f}"
    print(line, flush=True)
    print("   ", ", ".join(per))
    for k in range(5):
        print("   ", "AIUEO"[k], " ".join(f"{100 * c / conf[k].sum():5.1f}" for c in conf[k]))


def main():
    feat_dir, base = sys.argv[1], load_profile(sys.argv[2])
    syl = load_syllables(os.path.join(feat_dir, "syl"), base["g"])
    quality = qualities(os.path.join(feat_dir, "syl"), syl)
    speakers = sorted(syl)
    groups = {f[:-4]: load_group(os.path.join(feat_dir, "grp", f))
              for f in sorted(os.listdir(os.path.join(feat_dir, "grp"))) if f.endswith(".f32")}
    for name, split in (("one mean per class", ()), ("E by quality", (3,)),
                        ("O by quality", (4,)), ("E and O by quality", (3, 4))):
        report(name, syl, speakers,
               lambda train, split=split: make_profile(base, syl, quality, train, split), groups)


if __name__ == "__main__":
    main()
