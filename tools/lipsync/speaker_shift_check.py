#!/usr/bin/env python3
"""Research aid (issue 39): what the real-voice class shift of speaker_adapt_proto.py costs
on shared/data/speech (per-frame classifier, each clip its own mean). Not part of the product.

usage (from the repository root; NumPy; OMP_NUM_THREADS=1):
  target/debug/examples/dump_features /work/shared/data/speech /tmp/shared_feats
  speaker_shift_check.py SYLLABLE_FEAT_DIR /tmp/shared_feats
SYLLABLE_FEAT_DIR as for speaker_adapt_proto.py. Prints the shift's size per class, the
shared groups' vowel accuracy with the built-in profile, the whole shift and half of it, and
the syllable measure (leave-one-speaker-out) with half of it.
"""
import os, sys
import numpy as np
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import speaker_adapt_proto as sp
prof = sp.load_profile("crates/omote-lipsync/assets/default_profile.json")
spks = "cs da de en en_GB fr hu lt ml nb nl ru tn uk".split()
data = {s: sp.load_speaker(sys.argv[1], s, prof) for s in spks}
off = sp.class_offsets(prof, [data[s] for s in spks])
print("class offsets (norm):", " ".join(f"{'AIUEO'[v]} {np.linalg.norm(off[v]):.2f}" for v in range(5)))
raw = np.fromfile(sys.argv[2] + ".f32", dtype="<f4").reshape(-1, 30)
clips = [l.strip().split("/")[-1] for l in open(sys.argv[2] + ".clips.txt")]
group = np.array(["_".join(clips[int(c)].split("_")[:2]) for c in raw[:, 0]])
cls = raw[:, 3].astype(int)
X = raw[:, 6:18].astype(np.float64)
m = cls < 5
for name, mus in (("built-in", prof["mus"]), ("real-voice shift", prof["mus"] + off[prof["cls"]]),
                  ("half the shift", prof["mus"] + 0.5 * off[prof["cls"]])):
    pred = sp.classify(prof, X[m], mus)
    out = []
    for g in sorted(set(group)):
        gm = group[m] == g
        out.append(f"{g} {100 * (pred[gm] == cls[m][gm]).mean():.1f}")
    print(f"{name:18}", "  ".join(out), f" all {100 * (pred == cls[m]).mean():.1f}")
# and the syllable LOSO for half the shift
tot = np.zeros((5, 6), int)
for s in spks:
    o = sp.class_offsets(prof, [data[x] for x in spks if x != s])
    tot += sp.shifted_score(prof, data[s], 0.5 * o)
print("half shift, syllables LOSO:", round(100 * np.trace(tot[:, :5]) / tot.sum(), 1))
