#!/usr/bin/env python3
"""Research aid (issue 39, fourth stage): does a small discriminative classifier (an MLP over
a few frames of context) read real voices better than the profile's Gaussians? Not part of
the product; the crate's EVALUATION.md gives the figures.

usage: OMP_NUM_THREADS=2 mlp_proto.py FEAT_DIR BASE_PROFILE.json

FEAT_DIR as for speaker_spread_proto.py, plus FEAT_DIR/train.f32 (+ .clips.txt): the
training set dumped with --variants (the synthetic clips the built-in profile learns from,
each also noisy, quiet and over hum). Speakers of the syllables are split into folds; each
fold is scored by a net trained without it (synthetic frames + the other folds' syllable
vowel frames). The Gaussian reference is the base profile plus real-voice Gaussians learnt
on the same folds (speaker_spread_proto.with_real), per frame, no smoothing. Printed for
each weight alpha of the MLP's log-posterior against the Gaussians' and each N log-prior on
the MLP's side: the held-out syllable share and, per group, vowel % / closed %.

Settings by environment: CTX (±frames, 2) or PAST/FUTURE, HIDDEN (48), REAL_W (weight of a
real frame, 3), EPOCHS (4), SEED (7), QUANT=1 (weights rounded to 8 bits, one scale per
matrix), FOLD0 (the first fold's speakers, comma-separated:
the groups are scored by that fold's net), GROUP_DIR (a folder of group dumps), DEGRADED=1 (groups from FEAT_DIR/grpv, dumped with
--degraded: clean and `eval`'s four degradations, scored apart), ALIGNED_W (instead: the
aligned real speakers of FEAT_DIR/real left out one at a time, the others' frames in the
net at this weight; see aligned_loso).
"""
import os, sys
import numpy as np
import speaker_spread_proto as gm

ROW = 30


def contexts(ceps, clip, ctx):
    """Each frame with its neighbours in the same clip (edges repeat): ctx is (past, future)
    frames, or one number for both."""
    past, future = ctx if isinstance(ctx, tuple) else (ctx, ctx)
    n = len(ceps)
    idx = np.arange(n)
    cols = []
    for o in range(-past, future + 1):
        j = np.clip(idx + o, 0, n - 1)
        bad = clip[j] != clip
        j = np.where(bad, idx, j)
        cols.append(ceps[j])
    return np.hstack(cols).astype(np.float32)


def load_train(path, ctx):
    raw = np.fromfile(path, dtype="<f4").reshape(-1, ROW)
    X = contexts(raw[:, 6:18], raw[:, 0].astype(int), ctx)
    keep = (raw[:, 2] > 0.5) & (raw[:, 3] < 6)
    return X[keep], raw[keep, 3].astype(int)


CONDITIONS = ["clean", "quiet", "pink15", "hum50", "band"]


def load_group(path, ctx, name, degraded):
    """{name: (X with context, y, X single frame)}; with `degraded` one entry per condition
    (the dump's clip index is 5·i + condition)."""
    raw = np.fromfile(path, dtype="<f4").reshape(-1, ROW)
    clip = raw[:, 0].astype(int)
    X = contexts(raw[:, 6:18], clip, ctx)
    keep = (raw[:, 2] > 0.5) & (raw[:, 3] < 6)
    out = {}
    for c, cond in enumerate(CONDITIONS if degraded else ["clean"]):
        k = keep & ((clip % 5 == c) if degraded else True)
        key = f"{name}/{cond}" if degraded else name
        out[key] = (X[k], raw[k, 3].astype(int), raw[k, 6:18].astype(np.float64))
    return out


def syllable_frames(feat_dir, g, ctx):
    """{speaker: (X tails with context, y, X tails single frame)}: every frame of a file
    normalised with the speaker formula (the mean of the voiced ones, as `Speaker::read`),
    context taken over all of the file's frames (as the training clips' and the groups'),
    the last 60 % of its voiced frames kept."""
    out = {}
    for f in sorted(os.listdir(feat_dir)):
        if not f.endswith(".f32"):
            continue
        spk = f[:-4]
        raw = np.fromfile(os.path.join(feat_dir, f), dtype="<f4").reshape(-1, ROW)
        vowels = [l.split("\t")[1] for l in open(os.path.join(feat_dir, spk + ".map.tsv"))]
        clip, voiced = raw[:, 0].astype(int), raw[:, 2] > 0.5
        ceps = raw[:, 18:30].astype(np.float64)
        n_clips = clip.max() + 1
        sums = np.array([ceps[(clip == c) & voiced].sum(0) for c in range(n_clips)])
        counts = np.array([((clip == c) & voiced).sum() for c in range(n_clips)], float)
        Xs, ys, X1 = [], [], []
        for c, m in enumerate(gm.speaker_formula_means(sums, counts, g)):
            x = ceps[clip == c] - m
            v = voiced[clip == c]
            cx = contexts(x, np.zeros(len(x), int), ctx)
            idx = np.flatnonzero(v)
            idx = idx[int(np.floor(0.4 * len(idx))):]
            Xs.append(cx[idx]), X1.append(x[idx])
            ys.append(np.full(len(idx), "AIUEO".index(vowels[c])))
        out[spk] = (np.vstack(Xs), np.concatenate(ys), np.vstack(X1))
    return out


class Mlp:
    def __init__(self, d, h, rng):
        self.W1 = (rng.standard_normal((d, h)) * np.sqrt(2 / d)).astype(np.float32)
        self.b1 = np.zeros(h, np.float32)
        self.W2 = (rng.standard_normal((h, 6)) * np.sqrt(1 / h)).astype(np.float32)
        self.b2 = np.zeros(6, np.float32)

    def params(self):
        return [self.W1, self.b1, self.W2, self.b2]

    def logits(self, X):
        return np.maximum(X @ self.W1 + self.b1, 0) @ self.W2 + self.b2

    def fit(self, X, y, w, epochs, rng, lr=2e-3, batch=512):
        ps = self.params()
        m = [np.zeros_like(p) for p in ps]
        v = [np.zeros_like(p) for p in ps]
        t = 0
        for ep in range(epochs):
            order = rng.permutation(len(X))
            for s in range(0, len(X), batch):
                b = order[s:s + batch]
                xb, yb, wb = X[b], y[b], w[b]
                h = np.maximum(xb @ self.W1 + self.b1, 0)
                z = h @ self.W2 + self.b2
                z -= z.max(1, keepdims=True)
                p = np.exp(z)
                p /= p.sum(1, keepdims=True)
                p[np.arange(len(b)), yb] -= 1
                g = p * (wb / wb.sum())[:, None]
                gW2, gb2 = h.T @ g, g.sum(0)
                gh = (g @ self.W2.T) * (h > 0)
                gW1, gb1 = xb.T @ gh, gh.sum(0)
                t += 1
                for i, (prm, gr) in enumerate(zip(ps, [gW1, gb1, gW2, gb2])):
                    gr = gr + (1e-4 * prm if prm.ndim == 2 else 0)
                    m[i] = 0.9 * m[i] + 0.1 * gr
                    v[i] = 0.999 * v[i] + 0.001 * gr * gr
                    prm -= lr * (m[i] / (1 - 0.9 ** t)) / (np.sqrt(v[i] / (1 - 0.999 ** t)) + 1e-8)
            lr *= 0.6


def main():
    feat_dir, base = sys.argv[1], gm.load_profile(sys.argv[2])
    if "ALIGNED_W" in os.environ:
        ctx = int(os.environ.get("CTX", "2"))
        report(aligned_loso(feat_dir, base, ctx, int(os.environ.get("HIDDEN", "48")),
                            float(os.environ.get("REAL_W", "3")), int(os.environ.get("EPOCHS", "4")),
                            np.random.default_rng(int(os.environ.get("SEED", "7"))),
                            float(os.environ["ALIGNED_W"])))
        return
    ctx = int(os.environ.get("CTX", "2"))
    if "PAST" in os.environ:
        ctx = (int(os.environ["PAST"]), int(os.environ.get("FUTURE", "1")))
    hidden = int(os.environ.get("HIDDEN", "48"))
    real_weight = float(os.environ.get("REAL_W", "3"))
    epochs = int(os.environ.get("EPOCHS", "4"))
    Xt, yt = load_train(os.path.join(feat_dir, "train.f32"), ctx)
    syl = gm.load_syllables(os.path.join(feat_dir, "syl"), base["g"])
    sf = syllable_frames(os.path.join(feat_dir, "syl"), base["g"], ctx)
    speakers = sorted(sf, key=lambda s: -len(sf[s][1]))
    folds = [speakers[i::5] for i in range(5)]
    if "FOLD0" in os.environ:  # e.g. "en,en_GB": the held-out persons of the aligned speech
        first = os.environ["FOLD0"].split(",")
        rest = [s for s in speakers if s not in first]
        folds = [first] + [rest[i::4] for i in range(4)]
    gdir = os.environ.get("GROUP_DIR") or os.path.join(
        feat_dir, "grpv" if os.environ.get("DEGRADED") else "grp")
    groups = {}
    for f in sorted(os.listdir(gdir)):
        if f.endswith(".f32"):
            groups.update(load_group(os.path.join(gdir, f), ctx, f[:-4],
                                     bool(os.environ.get("DEGRADED"))))
    mu = Xt.mean(0)
    sd = Xt.std(0) + 1e-6
    rng = np.random.default_rng(int(os.environ.get("SEED", "7")))
    store = {"syl": [], "grp": {}}
    for fi, held in enumerate(folds):
        train_spk = [s for s in speakers if s not in held]
        Xr = np.vstack([sf[s][0] for s in train_spk])
        yr = np.concatenate([sf[s][1] for s in train_spk])
        X = np.vstack([Xt, Xr])
        y = np.concatenate([yt, yr])
        w = np.concatenate([np.ones(len(yt)), np.full(len(yr), real_weight)]).astype(np.float32)
        net = Mlp(X.shape[1], hidden, rng)
        net.fit((X - mu) / sd, y, w, epochs, rng)
        if os.environ.get("QUANT"):  # 8-bit weights, one scale per matrix (the size plan)
            for W in (net.W1, net.W2):
                q = np.abs(W).max() / 127
                W[:] = np.round(W / q) * q
        means, _ = gm.real_stats(syl, train_spk)
        prof = gm.with_real(base, means, np.zeros((5, 12, 12)), 1)
        for s in held:
            Xs, ys, X1 = sf[s]
            store["syl"].append((s, net.logits((Xs - mu) / sd), gm.class_scores(prof, X1), ys))
        if fi == 0:
            full_means, _ = gm.real_stats(syl, speakers)
            fprof = gm.with_real(base, full_means, np.zeros((5, 12, 12)), 1)
            for g, (Xg, yg, X1g) in groups.items():
                store["grp"][g] = (net.logits((Xg - mu) / sd), gm.class_scores(fprof, X1g), yg)
    report(store)


def aligned_loso(feat_dir, base, ctx, hidden, real_weight, epochs, rng, aligned_weight):
    """Aligned real speakers (FEAT_DIR/real/*.f32, each clip read alone), each scored by a net
    trained on the synthetic frames, the syllables of every KLettres speaker but en and en_GB
    (the same persons as klettresus / klettresgb) and, at `aligned_weight`, the other aligned
    speakers' labelled frames (vowels and N)."""
    Xt, yt = load_train(os.path.join(feat_dir, "train.f32"), ctx)
    sf = syllable_frames(os.path.join(feat_dir, "syl"), base["g"], ctx)
    syl_spk = [s for s in sf if s not in ("en", "en_GB")]
    Xr = np.vstack([sf[s][0] for s in syl_spk])
    yr = np.concatenate([sf[s][1] for s in syl_spk])
    real = {}
    for f in sorted(os.listdir(os.path.join(feat_dir, "real"))):
        if f.endswith(".f32"):
            real.update(load_group(os.path.join(feat_dir, "real", f), ctx, f[:-4], False))
    mu, sd = Xt.mean(0), Xt.std(0) + 1e-6
    syl = gm.load_syllables(os.path.join(feat_dir, "syl"), base["g"])
    means, _ = gm.real_stats(syl, syl_spk)
    prof = gm.with_real(base, means, np.zeros((5, 12, 12)), 1)
    store = {"syl": [], "grp": {}}
    for held in real:
        others = [g for g in real if g != held]
        Xa = np.vstack([real[g][0] for g in others]) if aligned_weight > 0 else Xt[:0]
        ya = np.concatenate([real[g][1] for g in others]) if aligned_weight > 0 else yt[:0]
        X = np.vstack([Xt, Xr, Xa])
        y = np.concatenate([yt, yr, ya])
        w = np.concatenate([np.ones(len(yt)), np.full(len(yr), real_weight),
                            np.full(len(ya), aligned_weight)]).astype(np.float32)
        net = Mlp(X.shape[1], hidden, rng)
        net.fit((X - mu) / sd, y, w, epochs, rng)
        Xg, yg, X1g = real[held]
        store["grp"][held] = (net.logits((Xg - mu) / sd), gm.class_scores(prof, X1g), yg)
        print(f"  {held} done", flush=True)
    return store


def log_post(z):
    z = z - z.max(1, keepdims=True)
    return z - np.log(np.exp(z).sum(1, keepdims=True))


def report(store):
    for alpha in (0.0, 0.3, 0.5, 0.7, 1.0):
        for nb in (-1.0, -2.0, -3.0):
            def pick(z, q):
                c = alpha * log_post(z) + (1 - alpha) * log_post(q)
                c[:, 5] += nb if alpha > 0 else 0
                return c.argmax(1)
            r = t = 0
            for s, z, q, y in store["syl"]:
                r += (pick(z, q) == y).sum(); t += len(y)
            line = f"alpha {alpha:.1f} N {nb:4.1f}: syllables {100 * r / max(t, 1):5.1f} |"
            vr = vt = 0
            for i, (g, (z, q, y)) in enumerate(store["grp"].items()):
                p = pick(z, q); v = y < 5
                vr += (p[v] == y[v]).sum(); vt += v.sum()
                line += ("\n   " if i % 5 == 0 and len(store["grp"]) > 6 else "") + \
                    f" {g} {100 * (p[v] == y[v]).mean():5.1f}/{100 * (p[~v] == 5).mean():4.1f}"
            print(line + f" | all groups' vowels {100 * vr / vt:5.1f}", flush=True)
            if alpha == 0:
                break


if __name__ == "__main__":
    main()
