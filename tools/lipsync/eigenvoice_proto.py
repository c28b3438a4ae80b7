#!/usr/bin/env python3
"""Research aid (issue 39, fifth stage): eigenvoice adaptation. Not part of the product.

usage: OMP_NUM_THREADS=2 eigenvoice_proto.py FEAT_DIR BASE_PROFILE.json

FEAT_DIR as for speaker_spread_proto.py (syl/, grp/), plus FEAT_DIR/tr/*.f32 (+ .clips.txt):
labelled voices dumped by the dump_features example (the training set, the MBROLA-langs and
speed sets, real_speech.py's aligned clips). A voice is a clip name without its `_tNN` /
`_NNN` tail.

The idea. Unsupervised adaptation of the classes (EM, MAP, MLLR) confirms the first reading:
where a speaker's /u/ sits on the profile's O, EM moves O onto it. Here a speaker may move
its five vowel classes only along the few directions in which *labelled* voices are seen to
differ (the principal directions of the voices' class-mean supervectors, 5 × 12 values,
learnt from the synthetic voices and the other real speakers): a speaker is a point w in a
K-dimensional space, prior N(0, I), fitted by EM on its voiced frames. With K small, moving
O onto U's frames is only possible if labelled voices move that way.

Per-frame classifier, no smoothing. Syllables: leave-one-speaker-out (real-voice Gaussians and
the basis learnt without the held-out speaker, nor its person's aligned clips). Groups: each
group adapted as one speaker with the basis of every voice. Printed per setting.
"""
import os, re, sys
import numpy as np
import speaker_spread_proto as gm

ROW = 30
SAME_PERSON = {"en": "real_klettresus", "en_GB": "real_klettresgb"}


def voice_of(path):
    name = os.path.basename(path)[:-4]
    return re.sub(r"_(t)?\d+$", "", name)


def load_voices(tr_dir):
    """{voice: (raw voiced labelled frames, class)} from every dump in tr_dir."""
    out = {}
    for f in sorted(os.listdir(tr_dir)):
        if not f.endswith(".f32"):
            continue
        raw = np.fromfile(os.path.join(tr_dir, f), dtype="<f4").reshape(-1, ROW)
        clips = [l.strip() for l in open(os.path.join(tr_dir, f[:-4] + ".clips.txt"))]
        voice = np.array([voice_of(c) for c in clips])[raw[:, 0].astype(int)]
        keep = (raw[:, 2] > 0.5)
        for v in np.unique(voice):
            m = keep & (voice == v)
            out[v] = (raw[m, 18:30].astype(np.float64), raw[m, 3].astype(int))
    return out


def voice_supervectors(voices):
    """{voice: 5×12 class means} with the voice's own mean (all voiced frames) removed;
    voices missing a vowel (fewer than 30 frames) are left out."""
    out = {}
    for v, (X, y) in voices.items():
        Xn = X - X.mean(0)
        ms = []
        for k in range(5):
            xs = Xn[y == k]
            if len(xs) < 30:
                break
            ms.append(xs.mean(0))
        else:
            out[v] = np.array(ms)
    return out


def syllable_supervectors(syl, speakers):
    out = {}
    for s in speakers:
        X, y = gm.tails(syl[s])
        ms = []
        for k in range(5):
            xs = X[y == k]
            ms.append(xs.mean(0) if len(xs) >= 20 else None)
        out[s] = ms
    return out


def basis(supers, real_supers, K, real_weight):
    """Top-K principal directions (5×12×K, scaled by sqrt of their variance) of the class-mean
    supervectors around their mean; a real speaker missing a vowel fills it with the mean."""
    rows, wts = [], []
    for m in supers.values():
        rows.append(m.reshape(-1))
        wts.append(1.0)
    mean = np.average(np.array(rows), axis=0, weights=wts).reshape(5, 12)
    for ms in real_supers:
        rows.append(np.array([m if m is not None else mean[k] for k, m in enumerate(ms)]).reshape(-1))
        wts.append(real_weight)
    R = np.array(rows)
    w = np.array(wts)[:, None]
    mu = (R * w).sum(0) / w.sum()
    D = (R - mu) * np.sqrt(w / w.sum())
    U, S, Vt = np.linalg.svd(D, full_matrices=False)
    V = (Vt[:K].T * S[:K]).reshape(5, 12, K)
    return V, S[:K] ** 2


def adapt(prof, V, X, iters, rho, P_gen, y=None):
    """EM for w: vowel Gaussians of class k move by V_k w; prior N(0, I); frames count 1/rho.
    With y (an oracle): each frame's posterior is kept within its labelled class."""
    K = V.shape[2]
    w = np.zeros(K)
    cls = prof["cls"]
    for _ in range(iters):
        q = shifted(prof, V, w)
        ll = all_loglik(q, X)
        if y is not None:
            _, gcls = base_means(prof)
            ll = np.where(gcls[None, :] == y[:, None], ll, -1e30)
        ll -= ll.max(1, keepdims=True)
        g = np.exp(ll)
        g /= g.sum(1, keepdims=True)
        A = np.eye(K)
        b = np.zeros(K)
        # Gaussians: base subclasses then the real ones; their unshifted means.
        mus, gc = base_means(prof)
        for j, k in enumerate(gc):
            if k >= 5:
                continue
            gj = g[:, j]
            n = gj.sum() / rho
            if n < 1e-9:
                continue
            xbar = (gj[:, None] * X).sum(0) / gj.sum()
            VtP = V[k].T @ P_gen
            A += n * VtP @ V[k]
            b += n * VtP @ (xbar - mus[j])
        w = np.linalg.solve(A, b)
    return w


def base_means(prof):
    mus = list(prof["mus"])
    cls = list(prof["cls"])
    for k, mu, _, _ in prof.get("real", []):
        mus.append(mu)
        cls.append(k)
    return np.array(mus), np.array(cls)


def shifted(prof, V, w):
    q = dict(prof)
    d = V @ w  # 5×12
    mus = prof["mus"].copy()
    for k in range(5):
        mus[prof["cls"] == k] += d[k]
    q["mus"] = mus
    q["real"] = [(k, mu + d[k], Pk, lw) for k, mu, Pk, lw in prof.get("real", [])]
    return q


def all_loglik(prof, X):
    """(frames, gaussians) log-likelihoods + log weights + biases, base then real."""
    P = prof["P"] * prof["s"]
    XP = X @ P
    mus = prof["mus"]
    ll = -0.5 * (np.einsum("ij,ij->i", XP, X)[:, None] - 2 * XP @ mus.T
                 + np.einsum("ij,jk,ik->i", mus, P, mus)[None, :]) + prof["logw"][None, :] \
        + prof["bias"][prof["cls"]][None, :]
    cols = [ll]
    for k, mu, Pk, lw in prof.get("real", []):
        d = X - mu
        cols.append((-0.5 * prof["s"] * np.einsum("ij,jk,ik->i", d, Pk, d) + lw
                     + prof["bias"][k])[:, None])
    return np.hstack(cols)


def accuracy(prof, X, y):
    p = gm.class_scores(prof, X).argmax(1)
    return (p == y).sum(), len(y)


def main():
    feat_dir, base = sys.argv[1], gm.load_profile(sys.argv[2])
    syl = gm.load_syllables(os.path.join(feat_dir, "syl"), base["g"])
    speakers = sorted(syl)
    groups = {f[:-4]: gm.load_group(os.path.join(feat_dir, "grp", f))
              for f in sorted(os.listdir(os.path.join(feat_dir, "grp"))) if f.endswith(".f32")}
    voices = load_voices(os.path.join(feat_dir, "tr"))
    supers = voice_supervectors(voices)
    syl_supers = syllable_supervectors(syl, speakers)
    print(f"{len(supers)} labelled voices, {len(speakers)} syllable speakers", flush=True)
    P_gen = base["P"]
    Ks = [int(k) for k in os.environ.get("KS", "1,2,3,5,8").split(",")]
    rhos = [float(r) for r in os.environ.get("RHOS", "1,10,50").split(",")]
    real_w = float(os.environ.get("REAL_W", "5"))
    only_real = os.environ.get("ONLY_REAL") == "1"
    full_means, _ = gm.real_stats(syl, speakers)
    full_prof = gm.with_real(base, full_means, np.zeros((5, 12, 12)))
    # Reference: no adaptation.
    settings = [(0, 0.0)] + [(K, r) for K in Ks for r in rhos]
    for K, rho in settings:
        right = total = 0
        per = []
        for held in speakers:
            train = [s for s in speakers if s != held]
            means, _ = gm.real_stats(syl, train)
            prof = gm.with_real(base, means, np.zeros((5, 12, 12)))
            X, y = gm.tails(syl[held])
            if K:
                skip = SAME_PERSON.get(held, "@")
                sv = {v: m for v, m in supers.items()
                      if not v.endswith(skip) and not (only_real and not v.startswith("real_"))}
                V, _ = basis(sv, [syl_supers[s] for s in train], K, real_w)
                if os.environ.get("COMMON") == "1":
                    # One offset shared by the five vowels (K = 12): a better speaker mean.
                    V = np.repeat(np.eye(12)[None] * float(os.environ.get("COMMON_SD", "3")), 5, 0)
                allX = np.vstack([x for x, _ in syl[held]])
                if os.environ.get("ORACLE") == "1":
                    w = adapt(prof, V, X, 5, rho, P_gen, y)
                else:
                    w = adapt(prof, V, allX, 5, rho, P_gen)
                prof = shifted(prof, V, w)
            r, n = accuracy(prof, X, y)
            right += r
            total += n
            per.append(f"{held} {100 * r / n:4.1f}")
        line = f"K={K} rho={rho:4.0f}: syllables LOSO {100 * right / total:5.1f}"
        prof = full_prof
        for gname, (Xg, yg) in groups.items():
            if K:
                sv = {v: m for v, m in supers.items()
                      if not (only_real and not v.startswith("real_"))}
                V, _ = basis(sv, list(syl_supers.values()), K, real_w)
                w = adapt(full_prof, V, Xg, 5, rho, P_gen)
                prof = shifted(full_prof, V, w)
            v, c = gm.group_figures(prof, Xg, yg)
            line += f" | {gname} {v:5.1f}/{c:4.1f}"
        print(line, flush=True)
        print("   " + ", ".join(per), flush=True)


if __name__ == "__main__":
    main()
