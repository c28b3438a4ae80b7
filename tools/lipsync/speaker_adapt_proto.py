#!/usr/bin/env python3
"""Research aid (issue 39): unsupervised speaker adaptation of the profile, prototyped on
dumped features and scored with the syllable measure. Not part of the product.

usage: OMP_NUM_THREADS=1 speaker_adapt_proto.py FEAT_DIR PROFILE.json

FEAT_DIR holds, per speaker, SPEAKER.f32 / SPEAKER.clips.txt from
`cargo run --release -p omote-lipsync --example dump_features -- DIR/SPEAKER FEAT_DIR/SPEAKER`
(each DIR/SPEAKER made of the syllable WAVs with a one-segment NAME.lab.tsv) and
SPEAKER.map.tsv (NAME, vowel, text per clip, in clip order).

Per speaker, every file normalised with the speaker mean as `Speaker::read` does (its own
voiced frames, 50 of the profile's global mean and up to 200 of the other files'), then the
per-frame classifier (no smoothing; the Rust analyser's HMM and run filter add a few points)
scores the last 60 % of each file's voiced frames. Methods:

  base        the built-in profile as is
  class τ     EM on the speaker's voiced frames: each class's Gaussians move together by a
              MAP shift (prior weight τ frames toward no shift)
  phone τ     the same per Gaussian (each phone mean moves on its own; MAP, τ frames)
  bal τ       class, but the E-step's class totals are held to the profile's class shares
              (the frames of one class may not all be swallowed by its neighbour)
  mllr τ      one affine map of all means, μ → Aμ + b, fitted by EM, regularised toward the
              identity with weight τ frames (with one shared covariance the ML map is a
              weighted least-squares fit)

τ is chosen leave-one-speaker-out (the best total over the other speakers), and every τ's
total is printed too. Prints per speaker and the frame-weighted totals.
"""
import json, os, sys
import numpy as np

VOWELS = "AIUEO"
ROW = 30


def load_profile(path):
    p = json.load(open(path))
    P = np.array(p["precision"], dtype=np.float64)
    P = 0.5 * (P + P.T)
    mus = np.array([s["mean"] for s in p["subclasses"]], dtype=np.float64)
    cls = np.array(["AIUEON".index(s["class"]) for s in p["subclasses"]])
    logw = np.array([s["log_weight"] for s in p["subclasses"]], dtype=np.float64)
    bias = np.array(p["bias"], dtype=np.float64)
    g = np.array(p["global_mean"], dtype=np.float64)
    frames = np.array(p["frames"], dtype=np.float64)
    return dict(P=P, mus=mus, cls=cls, logw=logw, bias=bias, g=g, s=p["sharpness"],
                share=frames / frames.sum())


def gauss_loglik(prof, X, mus):
    """(frames, gaussians) log-likelihood + log weight + class bias (shared precision)."""
    P = prof["P"] * prof["s"]
    XP = X @ P
    quad_x = np.einsum("ij,ij->i", XP, X)
    cross = XP @ mus.T
    quad_m = np.einsum("ij,jk,ik->i", mus, P, mus)
    return -0.5 * (quad_x[:, None] - 2 * cross + quad_m[None, :]) + prof["logw"][None, :] \
        + prof["bias"][prof["cls"]][None, :]


def classify(prof, X, mus):
    ll = gauss_loglik(prof, X, mus)
    out = np.full((len(X), 6), -np.inf)
    for k in range(6):
        sub = ll[:, prof["cls"] == k]
        m = sub.max(1)
        out[:, k] = m + np.log(np.exp(sub - m[:, None]).sum(1))
    return out.argmax(1)


def posteriors(prof, X, mus):
    ll = gauss_loglik(prof, X, mus)
    ll -= ll.max(1, keepdims=True)
    r = np.exp(ll)
    return r / r.sum(1, keepdims=True)


def balanced(prof, r, rounds=5):
    """Responsibilities whose class totals are pushed to the profile's class shares (each
    class's columns rescaled, then rows renormalised): the E-step may not let one class
    swallow another's frames."""
    target = prof["share"]
    for _ in range(rounds):
        occ = np.array([r[:, prof["cls"] == k].sum() for k in range(6)]) / len(r)
        scale = target / np.maximum(occ, 1e-9)
        r = r * scale[prof["cls"]][None, :]
        r /= r.sum(1, keepdims=True)
    return r


def adapt(prof, X, method, tau, iters=6):
    mus = prof["mus"].copy()
    if method == "base" or len(X) == 0:
        return mus
    mus0 = prof["mus"]
    for _ in range(iters):
        r = posteriors(prof, X, mus)  # (T, G)
        if method == "bal":
            r = balanced(prof, r)
        n = r.sum(0)  # (G,)
        sx = r.T @ X  # (G, d)
        if method == "phone":
            mus = (tau * mus0 + sx) / (tau + n)[:, None]
        elif method in ("class", "bal"):
            new = mus0.copy()
            for k in range(6):
                idx = prof["cls"] == k
                nk = n[idx].sum()
                delta = (sx[idx] - n[idx][:, None] * mus0[idx]).sum(0) / (tau + nk)
                new[idx] = mus0[idx] + delta
            mus = new
        elif method == "mllr":
            # μ' = W ξ, ξ = [μ; 1]; with one shared covariance the EM update is
            # W = (Σ_g x̄_g ξ_gᵀ + τ W0)(Σ_g n_g ξ_g ξ_gᵀ + τ I)⁻¹ (τ pulls toward W0 = [I | 0]).
            xi = np.hstack([mus0, np.ones((len(mus0), 1))])
            d = mus0.shape[1]
            W0 = np.hstack([np.eye(d), np.zeros((d, 1))])
            Z = sx.T @ xi + tau * W0
            G = (xi * n[:, None]).T @ xi + tau * np.eye(d + 1)
            W = Z @ np.linalg.inv(G)
            mus = xi @ W.T
    return mus


def load_speaker(feat_dir, spk, prof):
    raw = np.fromfile(os.path.join(feat_dir, spk + ".f32"), dtype="<f4").reshape(-1, ROW)
    vowels = [l.split("\t")[1] for l in open(os.path.join(feat_dir, spk + ".map.tsv"))]
    clip = raw[:, 0].astype(int)
    voiced = raw[:, 2] > 0.5
    ceps = raw[:, 18:30].astype(np.float64)
    nclips = clip.max() + 1
    sums = np.zeros((nclips, 12))
    counts = np.zeros(nclips)
    for c in range(nclips):
        m = (clip == c) & voiced
        sums[c] = ceps[m].sum(0)
        counts[c] = m.sum()
    tot_s, tot_n = sums.sum(0), counts.sum()
    X, tails, truth = [], [], []
    for c in range(nclips):
        m = (clip == c) & voiced
        others_n = tot_n - counts[c]
        w = min(200.0, others_n)
        others_mean = (tot_s - sums[c]) / others_n if others_n > 0 else np.zeros(12)
        mean = (sums[c] + 50 * prof["g"] + w * others_mean) / (counts[c] + 50 + w)
        x = ceps[m] - mean
        skip = int(np.floor(0.4 * len(x)))
        tail = np.zeros(len(x), bool)
        tail[skip:] = True
        X.append(x)
        tails.append(tail)
        truth.append(np.full(len(x), VOWELS.index(vowels[c])))
    return np.vstack(X), np.concatenate(tails), np.concatenate(truth)


def score(prof, data, method, tau):
    X, tail, truth = data
    mus = adapt(prof, X, method, tau)
    pred = classify(prof, X[tail], mus)
    conf = np.zeros((5, 6), int)
    for t, p in zip(truth[tail], pred):
        conf[t, p] += 1
    return conf


def class_offsets(prof, datas):
    """Per vowel class, the mean of its true frames (scored tails) minus the profile's class
    mean (frame-weighted over `datas`): supervised, for the ceiling and the real-voice shift."""
    sums, ns = np.zeros((5, 12)), np.zeros(5)
    for X, tail, truth in datas:
        for v in range(5):
            m = tail & (truth == v)
            sums[v] += X[m].sum(0)
            ns[v] += m.sum()
    off = np.zeros((6, 12))
    for v in range(5):
        if ns[v] > 0:
            idx = prof["cls"] == v
            w = np.exp(prof["logw"][idx])
            class_mean = (w[:, None] * prof["mus"][idx]).sum(0) / w.sum()
            off[v] = sums[v] / ns[v] - class_mean
    return off


def shifted_score(prof, data, off):
    X, tail, truth = data
    pred = classify(prof, X[tail], prof["mus"] + off[prof["cls"]])
    conf = np.zeros((5, 6), int)
    for t, p in zip(truth[tail], pred):
        conf[t, p] += 1
    return conf


def main():
    feat_dir, prof_path = sys.argv[1], sys.argv[2]
    prof = load_profile(prof_path)
    spks = sorted(f[:-4] for f in os.listdir(feat_dir) if f.endswith(".f32"))
    data = {s: load_speaker(feat_dir, s, prof) for s in spks}
    grid = [("base", 0)] + [(m, t) for m in ("class", "bal", "phone", "mllr")
                            for t in (30, 100, 300, 1000, 3000)]
    res = {}
    for m, t in grid:
        for s in spks:
            res[(m, t, s)] = score(prof, data[s], m, t)
    acc = lambda c: np.trace(c[:, :5]) / max(c.sum(), 1)
    print("speaker      frames  " + "  ".join(f"{m}{t:>5}" for m, t in grid))
    for s in spks:
        print(f"{s:10} {res[('base', 0, s)].sum():7}  " +
              "  ".join(f"{100 * acc(res[(m, t, s)]):9.1f}" for m, t in grid))
    tot = {k: sum(res[(k[0], k[1], s)] for s in spks) for k in grid}
    print(f"{'all':10} {tot[('base', 0)].sum():7}  " +
          "  ".join(f"{100 * acc(tot[k]):9.1f}" for k in grid))
    print(f"{'mean':10} {'':7}  " + "  ".join(
        f"{100 * np.mean([acc(res[(k[0], k[1], s)]) for s in spks]):9.1f}" for k in grid))
    # Supervised references: each vowel class moved to the speaker's own true vowel frames
    # (oracle: the ceiling of a per-speaker class shift), or to the other speakers' (a
    # speaker-independent correction learnt from real voices, leave-one-speaker-out).
    for name, pick in (("oracle class shift (own labels)", lambda s: [s]),
                       ("real-voice class shift, LOSO", lambda s: [o for o in spks if o != s])):
        confs = {s: shifted_score(prof, data[s], class_offsets(prof, [data[o] for o in pick(s)]))
                 for s in spks}
        total = sum(confs.values())
        print(f"{name}: {100 * acc(total):.1f} % of frames, "
              f"{100 * np.mean([acc(c) for c in confs.values()]):.1f} % mean of speakers; "
              + " ".join(f"{s} {100 * acc(c):.1f}" for s, c in confs.items()))
    # The real-voice shift as the prior, then the unsupervised class MAP on top (τ chosen on
    # the other speakers, each scored with a shift learnt without it).
    shifted = {}
    for s in spks:
        off = class_offsets(prof, [data[o] for o in spks if o != s])
        p2 = dict(prof, mus=prof["mus"] + off[prof["cls"]])
        for t in (30, 100, 300, 1000, 3000):
            shifted[(t, s)] = score(p2, data[s], "class", t)
    conf, chosen = np.zeros((5, 6), int), []
    for s in spks:
        best = max((30, 100, 300, 1000, 3000),
                   key=lambda t: acc(sum(shifted[(t, o)] for o in spks if o != s)))
        chosen.append(best)
        conf += shifted[(best, s)]
    print(f"real-voice class shift + class MAP, LOSO: {100 * acc(conf):.1f} % of frames, "
          f"{100 * np.mean([acc(shifted[(c, s)]) for s, c in zip(spks, chosen)]):.1f} % mean "
          f"of speakers (τ chosen: {sorted(set(chosen))})")
    # Leave one speaker out: τ (per method) chosen on the other speakers.
    print("\nleave-one-speaker-out (τ chosen on the others):")
    for m in ("base", "class", "bal", "phone", "mllr"):
        conf = np.zeros((5, 6), int)
        chosen = []
        for s in spks:
            taus = [t for mm, t in grid if mm == m]
            best = max(taus, key=lambda t: acc(sum(res[(m, t, o)] for o in spks if o != s)))
            chosen.append(best)
            conf += res[(m, best, s)]
        per = [acc(res[(m, c, s)]) for s, c in zip(spks, chosen)]
        print(f"  {m:6} {100 * acc(conf):5.1f} % of frames, {100 * np.mean(per):5.1f} % mean of "
              f"speakers  (τ chosen: {sorted(set(chosen))})")
        print("     vowel\\read   A     I     U     E     O     N")
        for v in range(5):
            n = conf[v].sum()
            print(f"     {VOWELS[v]}      " + " ".join(f"{100 * x / max(n, 1):5.1f}" for x in conf[v])
                  + f"   of {n}")


if __name__ == "__main__":
    main()
