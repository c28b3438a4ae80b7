#!/usr/bin/env python3
"""Research aid (issue 39, sixth stage): how far frames *with context* take a speaker, read by
a model of its own labelled speech, of the other aligned speakers, or of everything the band
net learns from. Not part of the product; the figures are in the crate's EVALUATION.md, "Sixth stage".

usage: OMP_NUM_THREADS=1 context_ceiling_proto.py MODE FEAT_DIR BASE_PROFILE.json REAL_MANIFEST
  MODE own     each aligned speaker's clips in two halves by order; LDA and an MLP (96 units,
               scikit-learn) learnt on one half's labelled frames score the other half's vowel
               frames, one frame and +-4 frames (the fifth stage's ceiling, with context)
  MODE others  an MLP learnt on the other aligned speakers' frames only (+-4 frames)
  MODE all     an MLP (mlp_proto.Mlp) learnt on the synthetic set (FEAT_DIR/train.f32, dumped
               with --variants), the other KLettres speakers' syllable tails (weight 3) and the
               other aligned speakers (weight 1), mixed with the Gaussians at 0.3 as the band
               net is. Settings by environment: CTX (4), HID (48), EP (4); COND=1 adds the
               speaker's mean raw cepstrum to the input; AUG=FEAT.f32 adds the other speakers'
               clips from that dump (speed_perturb.py copies, named spK-<clip>) at weight AUGW (1)

FEAT_DIR holds tr/real.f32 (+ .clips.txt: real_speech.py's clips dumped by dump_features),
syl/ (as speaker_spread_proto.py) and, for MODE all, train.f32. Allison's English and Spanish
prompts are one speaker. Frames are normalised with the speaker formula of their source.
"""
import os, sys
import numpy as np
import speaker_spread_proto as gm
import mlp_proto as mp

ROW = 30


def source_normalised(raw, cidx, voiced, source, g):
    """Raw cepstra minus the speaker formula mean of the clip's source."""
    X = np.zeros((len(raw), 12))
    for p in sorted(set(source)):
        cs = sorted(set(cidx[source == p]))
        sums = np.array([raw[(cidx == c) & voiced, 18:30].sum(0) for c in cs], dtype=np.float64)
        counts = np.array([((cidx == c) & voiced).sum() for c in cs], float)
        for c, m in zip(cs, gm.speaker_formula_means(sums, counts, g)):
            X[cidx == c] = raw[cidx == c, 18:30] - m
    return X


def mean_input(units, ceps, voiced, g):
    """Each frame's unit's mean raw cepstrum minus the global mean (the COND input)."""
    out = np.zeros((len(units), 12), np.float32)
    for u in set(units):
        s = units == u
        out[s] = ceps[s & voiced].mean(0) - g
    return out


def load_aligned(path, clips_txt, man, g, ctx, prefixed=False):
    raw = np.fromfile(path, dtype="<f4").reshape(-1, ROW)
    names = [os.path.basename(l.strip())[:-4] for l in open(clips_txt)]
    key = [n.split("-", 1)[1] if prefixed else n for n in names]
    tag = [n.split("-", 1)[0] if prefixed else "" for n in names]
    cidx, voiced, y = raw[:, 0].astype(int), raw[:, 2] > 0.5, raw[:, 3].astype(int)
    person = np.array([man[k][0] for k in key])[cidx]
    source = np.array([t + man[k][0] + "/" + man[k][1] for t, k in zip(tag, key)])[cidx]
    X1 = source_normalised(raw, cidx, voiced, source, g)
    return dict(X1=X1, X=mp.contexts(X1.astype(np.float32), cidx, ctx), y=y, person=person,
                cidx=cidx, lab=voiced & (y < 6), D=mean_input(source, raw[:, 18:30], voiced, g))


def main():
    mode, feat, base, manifest = sys.argv[1:5]
    base = gm.load_profile(base); g = base["g"]
    man = {}
    for l in open(manifest):
        f = l.rstrip("\n").split("\t")
        if f[0] != "clip":
            man[f[0]] = (f[1], f[2])
    ctx = int(os.environ.get("CTX", "4"))
    a = load_aligned(os.path.join(feat, "tr", "real.f32"), os.path.join(feat, "tr", "real.clips.txt"), man, g, ctx)
    y, person, lab = a["y"], a["person"], a["lab"]
    persons = [p for p in sorted(set(person)) if (lab & (person == p) & (y < 5)).sum() >= 500]
    if mode == "own":
        from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
        from sklearn.neural_network import MLPClassifier
        for c in (0, ctx):
            Z = mp.contexts(a["X1"].astype(np.float32), a["cidx"], c)
            for name, make in [("lda", LinearDiscriminantAnalysis),
                               ("mlp", lambda: MLPClassifier((96,), max_iter=60, random_state=0))]:
                R = N = 0; out = []
                for p in persons:
                    cs = sorted(set(a["cidx"][person == p])); r = n = 0
                    for half in (0, 1):
                        cal = np.isin(a["cidx"], cs[1 - half::2]) & lab
                        test = np.isin(a["cidx"], cs[half::2]) & lab & (y < 5)
                        m = make().fit(Z[cal], y[cal])
                        r += (m.predict(Z[test]) == y[test]).sum(); n += test.sum()
                    R += r; N += n; out.append(f"{p} {100 * r / n:.1f}")
                print(f"own half, +-{c} frames, {name}: {100 * R / N:.1f} %  " + ", ".join(out), flush=True)
        return
    if mode == "others":
        from sklearn.neural_network import MLPClassifier
        R = N = 0; out = []
        for p in persons:
            tr, te = lab & (person != p), lab & (y < 5) & (person == p)
            m = MLPClassifier((96,), max_iter=40, random_state=0).fit(a["X"][tr], y[tr])
            r = (m.predict(a["X"][te]) == y[te]).sum(); R += r; N += te.sum(); out.append(f"{p} {100 * r / te.sum():.1f}")
        print(f"other aligned speakers only: {100 * R / N:.1f} %  " + ", ".join(out))
        return
    hid, epochs = int(os.environ.get("HID", "48")), int(os.environ.get("EP", "4"))
    cond, aug = os.environ.get("COND") == "1", os.environ.get("AUG")
    raw = np.fromfile(os.path.join(feat, "train.f32"), dtype="<f4").reshape(-1, ROW)
    names = [os.path.basename(l.strip()).rsplit("_t", 1)[0] for l in open(os.path.join(feat, "train.clips.txt"))]
    clip, voiced = raw[:, 0].astype(int), raw[:, 2] > 0.5
    units = np.array([f"{names[c // 5]}/{c % 5}" for c in range(clip.max() + 1)])[clip]
    keep = voiced & (raw[:, 3] < 6)
    Xt = mp.contexts(raw[:, 6:18], clip, ctx)[keep]; yt = raw[keep, 3].astype(int)
    Dt = mean_input(units, raw[:, 18:30], voiced, g)[keep]
    sf = mp.syllable_frames(os.path.join(feat, "syl"), g, ctx)
    syl_spk = [s for s in sf if s not in ("en", "en_GB")]  # the persons of klettresus / gb
    smean = {}
    for s in syl_spk:
        r = np.fromfile(os.path.join(feat, "syl", s + ".f32"), dtype="<f4").reshape(-1, ROW)
        smean[s] = r[r[:, 2] > 0.5, 18:30].mean(0) - g
    Xr = np.vstack([sf[s][0] for s in syl_spk]); yr = np.concatenate([sf[s][1] for s in syl_spk])
    Dr = np.vstack([np.tile(smean[s], (len(sf[s][1]), 1)) for s in syl_spk]).astype(np.float32)
    b = load_aligned(aug, aug[:-4] + ".clips.txt", man, g, ctx, prefixed=True) if aug else None
    mu, sd = Xt.mean(0), Xt.std(0) + 1e-6
    dmu, dsd = Dt.mean(0), Dt.std(0) + 1e-6
    inp = lambda X, D: (np.hstack([(X - mu) / sd, (D - dmu) / dsd]) if cond else (X - mu) / sd).astype(np.float32)
    means, _ = gm.real_stats(gm.load_syllables(os.path.join(feat, "syl"), g), syl_spk)
    prof = gm.with_real(base, means, np.zeros((5, 12, 12)), 1)
    rng = np.random.default_rng(7)
    res = {w: [0, 0] for w in (0.0, 0.3, 0.5, 1.0)}
    for p in persons:
        tr = lab & (person != p)
        X = [inp(Xt, Dt), inp(Xr, Dr), inp(a["X"][tr], a["D"][tr])]
        Y = [yt, yr, y[tr]]
        W = [np.ones(len(yt)), np.full(len(yr), 3.0), np.ones(tr.sum())]
        if b is not None:
            tb = b["lab"] & (b["person"] != p)
            X.append(inp(b["X"][tb], b["D"][tb])); Y.append(b["y"][tb])
            W.append(np.full(tb.sum(), float(os.environ.get("AUGW", "1"))))
        net = mp.Mlp(X[0].shape[1], hid, rng)
        net.fit(np.vstack(X), np.concatenate(Y), np.concatenate(W).astype(np.float32), epochs, rng)
        te = lab & (person == p) & (y < 5)
        z = mp.log_post(net.logits(inp(a["X"][te], a["D"][te])))
        q = mp.log_post(gm.class_scores(prof, a["X1"][te]))
        line = p
        for w in res:
            c = w * z + (1 - w) * q
            c[:, 5] += -1 if w > 0 else 0
            r = (c.argmax(1) == y[te]).sum(); res[w][0] += r; res[w][1] += te.sum()
            line += f"  {w}: {100 * r / te.sum():.1f}"
        print(line, flush=True)
    print(f"COND={cond} AUG={bool(aug)} CTX={ctx} HID={hid}: " +
          "  ".join(f"net weight {w}: {100 * r / n:.1f} %" for w, (r, n) in res.items()))


if __name__ == "__main__":
    main()
