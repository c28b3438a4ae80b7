#!/usr/bin/env python3
"""Research aid (issue 39, fifth stage): real phone Gaussians for one language. Not part of
the product.

usage: OMP_NUM_THREADS=2 language_phones_proto.py FEAT_DIR BASE_PROFILE.json REAL_MANIFEST

FEAT_DIR as for eigenvoice_proto.py (syl/, grp/, tr/real.f32 with tr/real.phones.txt: the
aligned real speakers of real_speech.py, dumped by the dump_features example). Every aligned
speaker is held out in turn (a person: Allison's English and Spanish clips together). Its
clips are normalised with the speaker formula, and its labelled vowel frames scored per frame
(no smoothing) by the base profile plus the real-voice class Gaussians of the syllables (as
shipped), then with one more Gaussian per English vowel phone (IH, EH, AH, ...) in its class,
learnt from the *other* English aligned speakers' frames of that phone, given to English
speakers only (a language hint), at a share of the class.
"""
import os, sys
import numpy as np
import speaker_spread_proto as gm

ROW = 30
CLASS = "AIUEON"
SHARES = [float(s) for s in os.environ.get("SHARES", "0.1,0.2,0.35").split(",")]
PHONES = os.environ.get("PHONES", "IH,EH,AH,ER,UW,OW,EY,AO").split(",")
PERSON_SYL = {"klettresus": "en", "klettresgb": "en_GB"}


def main():
    feat_dir, base, manifest = sys.argv[1], gm.load_profile(sys.argv[2]), sys.argv[3]
    syl = gm.load_syllables(os.path.join(feat_dir, "syl"), base["g"])
    lang_of, spk_of = {}, {}
    for line in open(manifest):
        f = line.rstrip("\n").split("\t")
        if f[0] == "clip":
            continue
        lang_of[f[0]], spk_of[f[0]] = f[2], f[1]
    raw = np.fromfile(os.path.join(feat_dir, "tr", "real.f32"), dtype="<f4").reshape(-1, ROW)
    clips = [os.path.basename(l.strip())[:-4] for l in open(os.path.join(feat_dir, "tr", "real.clips.txt"))]
    phones = [l.strip() for l in open(os.path.join(feat_dir, "tr", "real.phones.txt"))]
    cidx = raw[:, 0].astype(int)
    voiced = raw[:, 2] > 0.5
    # Speaker formula per person over its clips (voiced frames).
    X = np.zeros((len(raw), 12))
    people = sorted(set(spk_of.values()))
    for p in people:
        cs = [i for i, c in enumerate(clips) if spk_of[c] == p]
        sums = np.array([raw[(cidx == c) & voiced, 18:30].sum(0) for c in cs], dtype=np.float64)
        counts = np.array([((cidx == c) & voiced).sum() for c in cs], dtype=float)
        means = gm.speaker_formula_means(sums, counts, base["g"])
        for c, m in zip(cs, means):
            sel = cidx == c
            X[sel] = raw[sel, 18:30] - m
    y = raw[:, 3].astype(int)
    ph = np.array([phones[int(i)] if 0 <= int(i) < len(phones) else "?" for i in raw[:, 4]])
    person = np.array([spk_of[clips[c]] for c in cidx])
    lang = np.array([lang_of[clips[c]] for c in cidx])
    lab = voiced & (y < 6)
    speakers = [p for p in people if (lab & (person == p) & (y < 5)).sum() > 500]
    rows = {}
    for held in speakers:
        train_syl = [s for s in syl if s != PERSON_SYL.get(held)]
        means, _ = gm.real_stats(syl, train_syl)
        prof = gm.with_real(base, means, np.zeros((5, 12, 12)))
        others = lab & (person != held) & (lang == "en")
        for sh in [0.0] + SHARES:
            q = dict(prof)
            q["real"] = list(prof["real"])
            if sh > 0:
                logw = prof["logw"].copy()
                extra = []
                for pn in PHONES:
                    sel = others & (ph == pn)
                    if sel.sum() < 50:
                        continue
                    k = int(np.bincount(y[sel]).argmax())
                    extra.append((k, X[sel].mean(0), base["P"], np.log(sh)))
                # The class keeps its total: its other Gaussians give up the share.
                for k in set(e[0] for e in extra):
                    logw[base["cls"] == k] += np.log(1 - sh)
                    q["real"] = [(kk, mu, Pk, lw + (np.log(1 - sh) if kk == k else 0))
                                 for kk, mu, Pk, lw in q["real"]]
                q["logw"] = logw
                q["real"] += extra
            for lg in sorted(set(lang[person == held])):
                sel = lab & (person == held) & (lang == lg) & (y < 6)
                use = q if (lg == "en" or sh == 0) else prof
                p = gm.class_scores(use, X[sel]).argmax(1)
                yy = y[sel]
                v = yy < 5
                rows.setdefault((held, lg), []).append(
                    (sh, (p[v] == yy[v]).sum(), v.sum(), (p[~v] == 5).mean() * 100))
    tot = {}
    for (held, lg), rs in rows.items():
        line = f"{held}/{lg:3s}"
        for sh, r, n, c in rs:
            line += f" | {sh:.2f}: {100 * r / n:5.1f} ({c:4.1f})"
            a = tot.setdefault(sh, [0, 0])
            a[0] += r
            a[1] += n
        print(line, flush=True)
    print("all       " + " | ".join(f"{sh:.2f}: {100 * r / n:5.1f}" for sh, (r, n) in tot.items()))


if __name__ == "__main__":
    main()
