#!/usr/bin/env python3
"""Research aid (issue 39, fourth stage): real-voice Gaussians that are broad where real
speakers disagree. Not part of the product; the crate's EVALUATION.md gives the figures.

usage: OMP_NUM_THREADS=1 speaker_spread_proto.py FEAT_DIR BASE_PROFILE.json

FEAT_DIR/syl/SPEAKER.f32 (+ .clips.txt, .map.tsv): KLettres syllables per speaker, dumped by
the dump_features example from one-segment labels (prepare with --prepare SYL_DIR OUT_DIR);
FEAT_DIR/grp/GROUP.f32: labelled groups (shared/data/speech, the MBROLA Japanese voices),
each clip read alone (the dump's normalised cepstra). BASE_PROFILE: the profile built
without real voices, so that nothing of a held-out speaker is in it.

Recipe (as run for the README; D = target/release/examples/dump_features):
  speaker_spread_proto.py --prepare TRAIN/syllables F/syldirs
  for s in F/syldirs/*/; do $D $s F/syl/$(basename $s); cp F/syldirs/$(basename $s).map.tsv F/syl/; done
  $D GROUP_DIR F/grp/GROUP            (one folder per group: shared/data/speech's en_espeak,
                                       en_librivox, ja_ojt clips; mbrola_ja_set.py's jp1 jp2 jp3)
  $D GROUP_DIR F/grpv/GROUP --degraded   (mlp_proto.py DEGRADED=1)
  $D TRAIN F/train --variants            (mlp_proto.py)
  omote lipsync calibrate --build --with-variants --speaker-from-name --labelled-dir TRAIN -o F/base.json

The idea. A speaker's vowel sits somewhere around where real voices put it on average;
how far, and in which direction, differs by speaker (the oracle class shift, 72.9 %, is per
speaker). Treating a speaker's class mean as unknown, drawn from N(r_k, S) with S the
spread of the training speakers' class means around r_k, the frame's likelihood under the
real-voice Gaussian is N(x; r_k, Σ + S): broad along the directions in which speakers
disagree, sharp where they agree. No per-speaker step, so nothing for EM to confirm.
Leave-one-speaker-out: r_k and S come from the other speakers.

Per-frame classifier, no smoothing; the last 60 % of each file's voiced frames are scored,
each file normalised with the speaker formula (`Speaker::read`).
"""
import json, os, sys, wave
import numpy as np

ROW = 30
VOWELS = "AIUEO"
SHARES = np.array([0.25, 0.25, 0.15, 0.25, 0.25])


def prepare(syl_dir, out_dir):
    """One folder per speaker with a one-segment NAME.lab.tsv per file, and SPEAKER.map.tsv."""
    for spk in sorted(os.listdir(syl_dir)):
        tsv = os.path.join(syl_dir, spk, "vowels.tsv")
        if not os.path.exists(tsv):
            continue
        d = os.path.join(out_dir, spk)
        os.makedirs(d, exist_ok=True)
        rows = [l.rstrip("\n").split("\t") for l in open(tsv) if l.strip()]
        rows = [r for r in rows if r[0] != "file"]
        rows.sort(key=lambda r: r[0])
        with open(os.path.join(out_dir, spk + ".map.tsv"), "w") as m:
            for name, text, vowel, *_ in rows:
                src = os.path.join(syl_dir, spk, name)
                dst = os.path.join(d, name)
                if not os.path.exists(dst):
                    os.symlink(os.path.abspath(src), dst)
                with wave.open(src) as w:
                    dur = w.getnframes() / w.getframerate()
                with open(dst[:-4] + ".lab.tsv", "w") as lab:
                    lab.write(f"0.000\t{dur:.3f}\t{vowel}\t{vowel.lower()}\n")
                m.write(f"{name}\t{vowel}\t{text}\n")


def load_profile(path):
    p = json.load(open(path))
    P = np.array(p["precision"], dtype=np.float64)
    P = 0.5 * (P + P.T)
    subs = p["subclasses"]
    return dict(
        P=P, C=np.linalg.inv(P),
        mus=np.array([s["mean"] for s in subs], dtype=np.float64),
        cls=np.array(["AIUEON".index(s["class"]) for s in subs]),
        logw=np.array([s["log_weight"] for s in subs], dtype=np.float64),
        bias=np.array(p["bias"], dtype=np.float64),
        g=np.array(p["global_mean"], dtype=np.float64),
        s=p["sharpness"])


def load_syllables(feat_dir, g):
    """{speaker: [(normalised voiced frames, vowel index)]} with the speaker formula."""
    out = {}
    for f in sorted(os.listdir(feat_dir)):
        if not f.endswith(".f32"):
            continue
        spk = f[:-4]
        raw = np.fromfile(os.path.join(feat_dir, f), dtype="<f4").reshape(-1, ROW)
        vowels = [l.split("\t")[1] for l in open(os.path.join(feat_dir, spk + ".map.tsv"))]
        clip, voiced = raw[:, 0].astype(int), raw[:, 2] > 0.5
        ceps = raw[:, 18:30].astype(np.float64)
        files = [(ceps[(clip == c) & voiced], VOWELS.index(vowels[c]))
                 for c in range(clip.max() + 1)]
        sums = np.array([x.sum(0) for x, _ in files])
        counts = np.array([len(x) for x, _ in files], dtype=float)
        means = speaker_formula_means(sums, counts, g)
        out[spk] = [(x - m, v) for (x, v), m in zip(files, means)]
    return out


def speaker_formula_means(sums, counts, g):
    """Each file's normalising mean as `Speaker::read` takes it, from the files' voiced
    frame sums and counts: its own frames, 50 of the global mean `g` and up to 200 of the
    speaker's other files' mean."""
    total, n = sums.sum(0), counts.sum()
    out = []
    for s_i, n_i in zip(sums, counts):
        others_n = n - n_i
        others = (total - s_i) / others_n if others_n > 0 else g
        w = min(200.0, others_n)
        out.append((s_i + 50 * g + w * others) / (n_i + 50 + w))
    return out


def tails(files):
    X, y = [], []
    for x, v in files:
        X.append(x[int(np.floor(0.4 * len(x))):])
        y.append(np.full(len(X[-1]), v))
    return np.vstack(X), np.concatenate(y)


def with_real(prof, means, cov_extra, logdet_weight=1.0):
    """The base profile plus one real-voice Gaussian per vowel: (mean, covariance Σ + S)."""
    q = dict(prof)
    C = prof["C"]
    q["real"] = []
    logw = prof["logw"].copy()
    for k in range(5):
        logw[prof["cls"] == k] += np.log(1 - SHARES[k])
        Ck = C + cov_extra[k]
        Pk = np.linalg.inv(Ck)
        ld = np.linalg.slogdet(Ck)[1] - np.linalg.slogdet(C)[1]
        q["real"].append((k, means[k], Pk, np.log(SHARES[k]) - 0.5 * logdet_weight * ld))
    q["logw"] = logw
    return q


def class_scores(prof, X):
    P = prof["P"] * prof["s"]
    XP = X @ P
    mus = prof["mus"]
    ll = -0.5 * (np.einsum("ij,ij->i", XP, X)[:, None] - 2 * XP @ mus.T
                 + np.einsum("ij,jk,ik->i", mus, P, mus)[None, :]) + prof["logw"][None, :]
    cols = [ll[:, prof["cls"] == k] for k in range(6)]
    for k, mu, Pk, lw in prof.get("real", []):
        d = X - mu
        cols[k] = np.hstack([cols[k], (-0.5 * prof["s"] * np.einsum("ij,jk,ik->i", d, Pk, d)
                                       + lw)[:, None]])
    out = np.empty((len(X), 6))
    for k in range(6):
        m = cols[k].max(1)
        out[:, k] = m + np.log(np.exp(cols[k] - m[:, None]).sum(1)) + prof["bias"][k]
    return out


def load_group(path):
    raw = np.fromfile(path, dtype="<f4").reshape(-1, ROW)
    keep = (raw[:, 2] > 0.5) & (raw[:, 3] < 6)
    return raw[keep, 6:18].astype(np.float64), raw[keep, 3].astype(int)


def group_figures(prof, X, y):
    p = class_scores(prof, X).argmax(1)
    vowel = y < 5
    return 100 * (p[vowel] == y[vowel]).mean(), 100 * (p[~vowel] == 5).mean()


def report(name, syl, speakers, make, groups, width=32):
    """Prints one setting's line: the syllables leave-one-speaker-out (each held speaker's
    tails read by `make(the other speakers)`) and each group read by `make(all speakers)`."""
    right = total = 0
    per = []
    for held in speakers:
        X, y = tails(syl[held])
        p = class_scores(make([s for s in speakers if s != held]), X).argmax(1)
        right += (p == y).sum()
        total += len(y)
        per.append(100 * (p == y).mean())
    line = f"{name:{width}s} syllables LOSO {100 * right / total:5.1f} (mean {np.mean(per):5.1f})"
    prof = make(speakers)
    for gname, (X, y) in groups.items():
        v, c = group_figures(prof, X, y)
        line += f" | {gname} {v:5.1f}/{c:4.1f}"
    print(line, flush=True)


def real_stats(spk_files, speakers):
    """Per vowel: the pooled real mean, and the spread of the speakers' class means around it
    (each speaker's class mean weighted by its frames, at most 200)."""
    means, spread = np.zeros((5, 12)), np.zeros((5, 12, 12))
    per = {}
    for s in speakers:
        X, y = tails(spk_files[s])
        per[s] = (X, y)
    for k in range(5):
        Xk = np.vstack([per[s][0][per[s][1] == k] for s in speakers])
        means[k] = Xk.mean(0)
        S, W = np.zeros((12, 12)), 0.0
        for s in speakers:
            xs = per[s][0][per[s][1] == k]
            if len(xs) < 20:
                continue
            d = xs.mean(0) - means[k]
            w = min(len(xs), 200)
            S += w * np.outer(d, d)
            W += w
        spread[k] = S / max(W, 1.0)
    return means, spread


def main():
    if sys.argv[1] == "--prepare":
        prepare(sys.argv[2], sys.argv[3])
        return
    feat_dir, base = sys.argv[1], load_profile(sys.argv[2])
    syl = load_syllables(os.path.join(feat_dir, "syl"), base["g"])
    speakers = sorted(syl)
    groups = {f[:-4]: load_group(os.path.join(feat_dir, "grp", f))
              for f in sorted(os.listdir(os.path.join(feat_dir, "grp"))) if f.endswith(".f32")}
    settings = [("no real voices", None, 0, 1)] + [
        (f"lam {lam} shared={shared} logdet {ldw}", lam, shared, ldw)
        for lam in (0.0, 0.5, 1.0, 2.0) for shared in (0, 1) for ldw in (1.0, 0.5)
        if not (lam == 0.0 and (shared or ldw != 1.0))]
    for name, lam, shared, ldw in settings:
        def make(train, lam=lam, shared=shared, ldw=ldw):
            if lam is None:
                return base
            means, spread = real_stats(syl, train)
            extra = np.repeat(spread.mean(0)[None], 5, 0) if shared else spread
            return with_real(base, means, lam * extra, ldw)
        report(name, syl, speakers, make, groups)


if __name__ == "__main__":
    main()
