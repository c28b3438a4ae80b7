#!/usr/bin/env python3
"""Research aid (issue 39): LPC formants with per-speaker Lobanov normalisation against
cepstra with the speaker mean, as features for the syllable measure. Not part of the product.

usage: formant_proto.py SYLLABLES_DIR   (klettres_syllables.py's output; NumPy)

Per speaker: frames within 30 dB of the file's peak with an autocorrelation voicing test,
the last 60 % of each file's voiced frames scored. Formants F1..F3 by LPC (10 kHz, order 10).
Gaussians with one shared covariance are trained on the other speakers' scored frames
(leave-one-speaker-out) for: ceps (12 mel cepstra minus the speaker's mean), raw (log
formants), nearey (log formants minus the speaker's mean log formant), lob (log formants
z-scored per speaker) and both (ceps + lob). Results: crate's EVALUATION.md, "Two feature ideas".
"""
import sys, os, wave, csv
import numpy as np

def solve_toeplitz(c, b):
    n=len(b); T=np.array([[c[abs(i-j)] for j in range(n)] for i in range(n)])
    return np.linalg.solve(T,b)

ROOT = sys.argv[1]
SR = 16000; WIN = 400; HOP = 160
V = "AIUEO"

def read(path):
    w = wave.open(path); n = w.getnframes()
    x = np.frombuffer(w.readframes(n), dtype=np.int16).astype(np.float64) / 32768
    assert w.getframerate() == SR, path
    return x

def frames(x):
    n = 1 + max(0, (len(x) - WIN) // HOP)
    idx = np.arange(WIN)[None, :] + HOP * np.arange(n)[:, None]
    return x[idx]

def voiced_mask(F):
    e = 10 * np.log10((F ** 2).mean(1) + 1e-12)
    peak = e.max()
    m = e > peak - 30
    # autocorrelation voicing 70..400 Hz
    out = np.zeros(len(F), bool)
    for i in np.where(m)[0]:
        f = F[i] - F[i].mean()
        ac = np.correlate(f, f, 'full')[WIN - 1:]
        if ac[0] <= 0: continue
        lo, hi = SR // 400, SR // 70
        out[i] = ac[lo:hi].max() / ac[0] > 0.35
    return out, e

HAM = np.hamming(WIN)
SR2 = 10000; WIN2 = 250; HAM2 = np.hamming(WIN2)
def resample10k(x):
    n2 = int(round(len(x) * SR2 / SR))
    X = np.fft.rfft(x)
    return np.fft.irfft(X[: n2 // 2 + 1], n2) * (n2 / len(x))
def lpc_formants_at(x10, i, order=10):
    c = int(i * HOP * SR2 / SR + WIN * SR2 / SR / 2)
    f = x10[max(0, c - WIN2 // 2): c + WIN2 // 2]
    if len(f) < WIN2: return None
    y = np.append(f[0], f[1:] - 0.9 * f[:-1]) * HAM2
    r = np.correlate(y, y, 'full')[WIN2 - 1:WIN2 + order]
    if r[0] <= 1e-12: return None
    r[0] *= 1.0001
    a = solve_toeplitz(r[:-1], r[1:])
    roots = np.roots(np.concatenate([[1], -a]))
    roots = roots[np.imag(roots) > 0]
    fr = np.angle(roots) * SR2 / (2 * np.pi)
    bw = -np.log(np.abs(roots)) * SR2 / np.pi
    ok = (fr > 150) & (bw < 700) & (fr < 4800)
    fr = np.sort(fr[ok])
    if len(fr) < 3: return None
    return fr[:3]
# MFCC-ish: 26 mel bands, 12 ceps
def mel(f): return 2595 * np.log10(1 + f / 700)
def imel(m): return 700 * (10 ** (m / 2595) - 1)
NFFT = 512
pts = imel(np.linspace(mel(100), mel(7000), 28))
bins = np.floor((NFFT + 1) * pts / SR).astype(int)
FB = np.zeros((26, NFFT // 2 + 1))
for j in range(26):
    a, b, c = bins[j], bins[j + 1], bins[j + 2]
    FB[j, a:b] = (np.arange(a, b) - a) / max(1, b - a)
    FB[j, b:c] = (c - np.arange(b, c)) / max(1, c - b)
DCT = np.cos(np.pi / 26 * (np.arange(26)[None, :] + 0.5) * np.arange(1, 13)[:, None])
def ceps(F):
    P = np.abs(np.fft.rfft(F * HAM, NFFT)) ** 2
    return np.log(P @ FB.T + 1e-10) @ DCT.T

data = {}
for spk in sorted(os.listdir(ROOT)):
    d = os.path.join(ROOT, spk)
    if not os.path.isdir(d): continue
    rows = list(csv.DictReader(open(os.path.join(d, "vowels.tsv")), delimiter="\t"))
    allF, allC, lab, isscored = [], [], [], []
    for r in rows:
        if r["vowel"] not in V: continue
        x = read(os.path.join(d, r["file"]))
        F = frames(x)
        if len(F) == 0: continue
        vm, e = voiced_mask(F)
        vi = np.where(vm)[0]
        if len(vi) == 0: continue
        start = int(np.floor(0.4 * len(vi)))
        sc = set(vi[start:].tolist())
        C = ceps(F[vi])
        x10 = resample10k(x)
        for k, i in enumerate(vi):
            fm = lpc_formants_at(x10, i)
            if fm is None: fm = np.array([np.nan] * 3)
            allF.append(fm); allC.append(C[k]); lab.append(V.index(r["vowel"])); isscored.append(i in sc)
    data[spk] = dict(F=np.array(allF), C=np.array(allC), y=np.array(lab), s=np.array(isscored))
    print(spk, len(lab), int(np.sum(isscored)), "nan", int(np.isnan(data[spk]['F'][:,0]).sum()), file=sys.stderr)

def norm(spk, kind):
    D = data[spk]
    if kind == "ceps":
        return D["C"] - D["C"].mean(0)
    Fm = np.log(D["F"][:, :3])
    good = ~np.isnan(Fm).any(1)
    mu = np.nanmean(Fm[good], 0); sd = np.nanstd(Fm[good], 0)
    Z = (Fm - mu) / sd
    if kind == "lob": return Z[:, :2] if False else Z
    if kind == "nearey": return Fm - Fm[good].mean()
    if kind == "raw": return Fm
    if kind == "both":
        C = D["C"] - D["C"].mean(0)
        return np.hstack([C / C.std(0).mean(), Z])

def qda_fit(X, y, shared=True):
    mus = np.array([X[y == k].mean(0) for k in range(5)])
    R = X - mus[y]
    S = R.T @ R / len(X) + 1e-6 * np.eye(X.shape[1])
    return mus, np.linalg.inv(S)

def qda_pred(m, X):
    mus, P = m
    d = X[:, None, :] - mus[None]
    return np.einsum('fkd,de,fke->fk', d, P, d).argmin(1)

for kind in ["ceps", "raw", "nearey", "lob", "both"]:
    tot = cor = 0; per = []
    for spk in data:
        Xs = []; ys = []
        for o in data:
            if o == spk: continue
            X = norm(o, kind); D = data[o]
            g = D["s"] & ~np.isnan(X).any(1)
            Xs.append(X[g]); ys.append(D["y"][g])
        m = qda_fit(np.vstack(Xs), np.concatenate(ys))
        X = norm(spk, kind); D = data[spk]
        g = D["s"]
        Xg = np.nan_to_num(X[g]); yg = D["y"][g]
        p = qda_pred(m, Xg)
        c = (p == yg).sum(); cor += c; tot += len(yg); per.append((spk, 100 * c / len(yg)))
    print(f"{kind:7s} LOSO {100*cor/tot:5.1f} %  mean {np.mean([p for _,p in per]):5.1f}  " + " ".join(f"{s}:{p:.0f}" for s, p in per))
