#!/usr/bin/env python3
"""Research aid (issue 39, eighth stage): a many-speaker prior for the real-voice Gaussians,
taken from pocketsphinx's US English acoustic model. Not part of the product; the crate
EVALUATION.md ("Eighth stage") gives the figures.

usage: OMP_NUM_THREADS=2 sphinx_prior_proto.py FEAT_DIR

FEAT_DIR as for speaker_spread_proto.py (base.json: the profile built without real voices;
syl/: the KLettres syllables dumped per speaker; grp/: the labelled groups).

The idea. The real-voice Gaussians are learnt from 16 speakers; the generic en-us model of
CMU Sphinx (Debian `pocketsphinx-en-us`, BSD-2) was trained on far more. Its vowel phones
are phonetically tied mixtures, 128 diagonal Gaussians over liftered c0..c12 of 25 mel bands
130-6800 Hz (batch CMN), and the middle state's mixture weights sit in `sendump`. Both
front ends are log mel energies under a unitary DCT-II, so a smooth log envelope maps
linearly: unlifter, invert sphinx's DCT at omote's 24 band centres (100-4000 Hz, fractional
sphinx band indices), take omote's c1..c12 (`ps_to_omote`). Band-width and pre-emphasis
terms are constant vectors, which the cepstral mean removes; one global offset (the mean
gap between the mapped class means and the base profile's) stands for the two means' other
difference. Sphinx's 13 coefficients over a wider band leave omote's c9..c12 unpredicted:
their missing variance is added back (R).

Mapped, the class means agree with the profile's (correlation of the class deviations
0.94, per-coefficient scale 0.8-1.5 for c1..c8). Per-frame classifier, no smoothing;
syllables leave-one-speaker-out (the KLettres Gaussians from the other speakers; the sphinx
ones are fixed, no speaker of ours is in them).
"""
import os, struct, sys
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from speaker_spread_proto import load_profile, load_syllables, load_group, real_stats, report, with_real

MODEL = "/usr/share/pocketsphinx/model/en-us/en-us"
PHONES = ("+NSN+ +SPN+ AA AE AH AO AW AY B CH D DH EH ER EY F G HH IH IY JH K L M N NG OW OY "
          "P R S SH SIL T TH UH UW V W Y Z ZH").split()
# The clearest English vowel of each class (MAPPING.md); adding AE AH / IH / UH / EY / OW
# moved nothing by more than half a point.
CLASS_PHONES = [["AA"], ["IY"], ["UW"], ["EH"], ["AO"]]


def read_s3(path):
    """Stream 0 (static cepstra) of a sphinx means/variances file: [codebook, density, 13]."""
    d = open(path, "rb").read()
    i = d.index(b"endhdr\n") + 7
    assert struct.unpack_from("<I", d, i)[0] == 0x11223344, f"{path}: not little-endian s3"
    n_mgau, n_feat, n_den = struct.unpack_from("<iii", d, i + 4)
    vl = struct.unpack_from("<%di" % n_feat, d, i + 16)
    o = i + 16 + 4 * n_feat
    a = np.frombuffer(d, "<f4", struct.unpack_from("<i", d, o)[0], o + 4).astype(np.float64)
    per = n_den * sum(vl)
    return np.stack([a[g * per:g * per + n_den * vl[0]].reshape(n_den, vl[0])
                     for g in range(n_mgau)])


def read_sendump(path):
    """Stream 0 mixture weights, quantised -log (base 1.0001, << 10): [density, senone]."""
    d = open(path, "rb").read()
    o = 0
    while True:
        n, = struct.unpack_from("<i", d, o)
        o += 4 + n
        if n == 0:
            break
    rows, cols = struct.unpack_from("<ii", d, o)
    return np.frombuffer(d, np.uint8, rows * cols, o + 8).reshape(rows, cols)


def mel(f):
    return 2595 * np.log10(1 + np.asarray(f, float) / 700)


def ps_to_omote(n_ps=13, nfilt=25, lo=130, hi=6800, lifter=22, n_our=24, our_lo=100,
                our_hi=4000, n_ceps=12):
    """The linear map from sphinx's liftered c0..c12 to omote's c1..c12 (feat.params and
    omote_lipsync::features)."""
    lift = np.ones(n_ps)
    lift[1:] = 1 + lifter / 2 * np.sin(np.arange(1, n_ps) * np.pi / lifter)
    d_ps = (mel(hi) - mel(lo)) / (nfilt + 1)
    d_our = (mel(our_hi) - mel(our_lo)) / (n_our + 1)
    u = (mel(our_lo) + d_our * np.arange(1, n_our + 1) - mel(lo)) / d_ps - 1
    inv = np.empty((n_our, n_ps))
    inv[:, 0] = np.sqrt(1 / nfilt)
    for k in range(1, n_ps):
        inv[:, k] = np.sqrt(2 / nfilt) * np.cos(np.pi * k * (u + 0.5) / nfilt)
    dct = np.array([[np.sqrt(2 / n_our) * np.cos(np.pi * c * (m + 0.5) / n_our)
                     for m in range(n_our)] for c in range(1, n_ceps + 1)])
    return dct @ inv @ np.diag(1 / lift)


def mapped_phones():
    """{phone: (weights, means, covariances)} of each CI phone's middle state, mapped."""
    means, var = read_s3(MODEL + "/means"), read_s3(MODEL + "/variances")
    q = read_sendump(MODEL + "/sendump").astype(np.float64)
    M = ps_to_omote()
    out = {}
    for p, name in enumerate(PHONES):
        w = np.exp(-q[:, 3 * p + 1] * 1024 * np.log(1.0001))
        out[name] = (w / w.sum(), means[p] @ M.T, np.einsum("ij,nj,kj->nik", M, var[p], M))
    return out


def moment(w, mus, covs):
    m = w @ mus
    d = mus - m
    return m, np.einsum("n,nij->ij", w, covs + np.einsum("ni,nj->nij", d, d))


def add_gaussians(prof, items, shares):
    """The profile with more Gaussians per class: items (class, mean, covariance, share);
    the class's Gaussians so far keep 1 - shares[class] of it."""
    q = dict(prof)
    logw = prof["logw"].copy()
    real = list(prof.get("real", []))
    for k in range(5):
        logw[prof["cls"] == k] += np.log(1 - shares[k])
        real = [(kk, m, P, lw + (np.log(1 - shares[k]) if kk == k else 0.0))
                for kk, m, P, lw in real]
    ld0 = np.linalg.slogdet(prof["C"])[1]
    for k, m, Ck, sh in items:
        real.append((k, m, np.linalg.inv(Ck), np.log(sh) - 0.5 * (np.linalg.slogdet(Ck)[1] - ld0)))
    q["logw"], q["real"] = logw, real
    return q


def main():
    feat = sys.argv[1]
    base = load_profile(os.path.join(feat, "base.json"))
    syl = load_syllables(os.path.join(feat, "syl"), base["g"])
    speakers = sorted(syl)
    groups = {f[:-4]: load_group(os.path.join(feat, "grp", f))
              for f in sorted(os.listdir(os.path.join(feat, "grp"))) if f.endswith(".f32")}
    C = base["C"]
    base_means = np.array([np.exp(base["logw"][base["cls"] == k]) @ base["mus"][base["cls"] == k]
                           / np.exp(base["logw"][base["cls"] == k]).sum() for k in range(5)])
    phones = mapped_phones()
    classes = [moment(*phones[ph[0]]) for ph in CLASS_PHONES]
    offset = (base_means - np.array([m for m, _ in classes])).mean(0)
    resid = np.diag(np.maximum(0, np.diag(C) - np.diag(np.mean([c for _, c in classes], 0))))

    def klettres(train):
        means, _ = real_stats(syl, train)
        return with_real(base, means, np.zeros((5, 12, 12)))

    def top(k, n):
        w, mus, covs = phones[CLASS_PHONES[k][0]]
        idx = np.argsort(-w)[:n]
        return [(w[i] / w[idx].sum(), mus[i], covs[i]) for i in idx]

    settings = {
        "base (no real voices)": lambda tr: base,
        "KLettres (as shipped)": klettres,
        "sphinx class Gaussians, own cov + R, 0.25": lambda tr: add_gaussians(
            base, [(k, classes[k][0] + offset, classes[k][1] + resid, 0.25) for k in range(5)],
            np.full(5, 0.25)),
        "KLettres + sphinx class means, 0.2": lambda tr: add_gaussians(
            klettres(tr), [(k, classes[k][0] + offset, C, 0.2) for k in range(5)],
            np.full(5, 0.2)),
        "KLettres + sphinx top-8 densities + R, 0.25": lambda tr: add_gaussians(
            klettres(tr), [(k, m + offset, cv + resid, 0.25 * w)
                           for k in range(5) for w, m, cv in top(k, 8)], np.full(5, 0.25)),
        "KLettres + sphinx top-8 means, cov C, 0.15": lambda tr: add_gaussians(
            klettres(tr), [(k, m + offset, C, 0.15 * w)
                           for k in range(5) for w, m, _ in top(k, 8)], np.full(5, 0.15)),
    }
    for name, make in settings.items():
        report(name, syl, speakers, make, groups, width=46)

if __name__ == "__main__":
    main()
