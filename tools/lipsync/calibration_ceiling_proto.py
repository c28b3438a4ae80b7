#!/usr/bin/env python3
"""Research aid (issue 39, fifth stage): how far a speaker's *own* labels take the per-frame
classifier, the ceiling of any blind adaptation. Not part of the product.

usage: OMP_NUM_THREADS=2 calibration_ceiling_proto.py FEAT_DIR BASE_PROFILE.json REAL_MANIFEST

FEAT_DIR as for eigenvoice_proto.py (syl/, tr/real.f32). Each speaker's files (syllables) or
clips (aligned real speech) are split in two halves by their order; the profile (base plus the
real-voice Gaussians of the *other* syllable speakers) is calibrated on one half's labels and
the other half scored, then the halves swap. Calibration: each class moves to the speaker's
labelled frames (MAP, prior tau frames, as `calibrate --labelled`), or (aligned speech) one
Gaussian per labelled phone of the speaker is added to its class at a share of it.
"""
import os, sys
import numpy as np
import speaker_spread_proto as gm

FEAT, BASE, MANIFEST = sys.argv[1], sys.argv[2], sys.argv[3]

print("syllables")
base = gm.load_profile(BASE)
syl = gm.load_syllables(os.path.join(FEAT, 'syl'), base['g'])
spk = sorted(syl)
def shift(prof, files, tau):
    X, y = gm.tails(files)
    q = dict(prof); mus = prof['mus'].copy(); real = list(prof['real'])
    # class centroid = weighted mean of its gaussians (weights exp logw)
    for k in range(5):
        xs = X[y == k]
        if len(xs) == 0: continue
        sel = prof['cls'] == k
        w = np.exp(prof['logw'][sel]); c = (w[:, None] * mus[sel]).sum(0)
        rk = [r for r in real if r[0] == k]
        wr = sum(np.exp(r[3]) for r in rk); c = (c + sum(np.exp(r[3]) * r[1] for r in rk)) / (w.sum() + wr)
        d = (xs.sum(0) + tau * c) / (len(xs) + tau) - c
        mus[sel] += d
        real = [(kk, mu + d if kk == k else mu, P, lw) for kk, mu, P, lw in real]
    q['mus'] = mus; q['real'] = real
    return q
for tau in [10, 50, 200]:
    R = N = 0; per = []
    for held in spk:
        means, _ = gm.real_stats(syl, [s for s in spk if s != held])
        prof = gm.with_real(base, means, np.zeros((5, 12, 12)))
        files = syl[held]
        r = n = 0
        for half in (0, 1):
            cal = [f for i, f in enumerate(files) if i % 2 != half]
            test = [f for i, f in enumerate(files) if i % 2 == half]
            q = shift(prof, cal, tau)
            X, y = gm.tails(test)
            p = gm.class_scores(q, X).argmax(1)
            r += (p == y).sum(); n += len(y)
        R += r; N += n; per.append(f"{held} {100*r/n:.1f}")
    print(f"tau {tau}: {100*R/N:.1f}  " + ", ".join(per))

print("aligned real speech")
ROW = 30
base = gm.load_profile(BASE)
syl = gm.load_syllables(os.path.join(FEAT, 'syl'), base['g'])
man = {}
for l in open(MANIFEST):
    f = l.rstrip('\n').split('\t')
    if f[0] != 'clip': man[f[0]] = (f[1], f[2])
raw = np.fromfile(os.path.join(FEAT, 'tr', 'real.f32'), dtype='<f4').reshape(-1, ROW)
clips = [os.path.basename(l.strip())[:-4] for l in open(os.path.join(FEAT, 'tr', 'real.clips.txt'))]
cidx = raw[:, 0].astype(int); voiced = raw[:, 2] > 0.5; y = raw[:, 3].astype(int)
X = np.zeros((len(raw), 12))
person = np.array([man[clips[c]][0] for c in cidx]); lang = np.array([man[clips[c]][1] for c in cidx])
for p in sorted(set(person)):
    cs = sorted(set(cidx[person == p]))
    sums = np.array([raw[(cidx == c) & voiced, 18:30].sum(0) for c in cs], dtype=np.float64)
    counts = np.array([((cidx == c) & voiced).sum() for c in cs], dtype=float)
    for c, m in zip(cs, gm.speaker_formula_means(sums, counts, base['g'])):
        X[cidx == c] = raw[cidx == c, 18:30] - m
lab = voiced & (y < 6)
PERSON_SYL = {"klettresus": "en", "klettresgb": "en_GB"}
def centroid(prof, k):
    sel = prof['cls'] == k; w = np.exp(prof['logw'][sel]); c = (w[:, None] * prof['mus'][sel]).sum(0); W = w.sum()
    for r in prof.get('real', []):
        if r[0] == k: c = c + np.exp(r[3]) * r[1]; W += np.exp(r[3])
    return c / W
def calibrate(prof, Xc, yc, tau, classes=range(6)):
    q = dict(prof); mus = prof['mus'].copy(); real = list(prof.get('real', []))
    for k in classes:
        xs = Xc[yc == k]
        if not len(xs): continue
        c = centroid(prof, k); d = (xs.sum(0) + tau * c) / (len(xs) + tau) - c
        mus[prof['cls'] == k] += d
        real = [(kk, mu + d if kk == k else mu, P, lw) for kk, mu, P, lw in real]
    q['mus'] = mus; q['real'] = real; return q
for tau in [10, 100]:
  for ncal in ['vowels', 'all']:
    R = N = 0; R0 = 0; out = []
    for p in sorted(set(person)):
        if (lab & (person == p) & (y < 5)).sum() < 500: continue
        means, _ = gm.real_stats(syl, [s for s in syl if s != PERSON_SYL.get(p)])
        prof = gm.with_real(base, means, np.zeros((5, 12, 12)))
        cs = sorted(set(cidx[person == p])); r = n = r0 = 0
        for half in (0, 1):
            cal = np.isin(cidx, [c for i, c in enumerate(cs) if i % 2 != half]) & lab
            test = np.isin(cidx, [c for i, c in enumerate(cs) if i % 2 == half]) & lab & (y < 5)
            q = calibrate(prof, X[cal], y[cal], tau, range(5) if ncal == 'vowels' else range(6))
            r += (gm.class_scores(q, X[test]).argmax(1) == y[test]).sum()
            r0 += (gm.class_scores(prof, X[test]).argmax(1) == y[test]).sum(); n += test.sum()
        R += r; R0 += r0; N += n; out.append(f"{p} {100*r0/n:.1f}->{100*r/n:.1f}")
    print(f"tau {tau} {ncal}: {100*R0/N:.1f} -> {100*R/N:.1f}   " + ", ".join(out))
phones = [l.strip() for l in open(os.path.join(FEAT, 'tr', 'real.phones.txt'))]
ph = raw[:, 4].astype(int)
for share in [0.3, 0.6, 0.9]:
    R = N = 0; out = []
    for p in sorted(set(person)):
        if (lab & (person == p) & (y < 5)).sum() < 500: continue
        means, _ = gm.real_stats(syl, [s for s in syl if s != PERSON_SYL.get(p)])
        prof = gm.with_real(base, means, np.zeros((5, 12, 12)))
        cs = sorted(set(cidx[person == p])); r = n = 0
        for half in (0, 1):
            cal = np.isin(cidx, [c for i, c in enumerate(cs) if i % 2 != half]) & lab & (y < 5)
            test = np.isin(cidx, [c for i, c in enumerate(cs) if i % 2 == half]) & lab & (y < 5)
            q = dict(prof); logw = prof['logw'].copy(); real = list(prof['real']); extra = []
            for k in range(5):
                ps = [u for u in set(ph[cal & (y == k)]) if (cal & (y == k) & (ph == u)).sum() >= 30]
                if not ps: continue
                logw[prof['cls'] == k] += np.log(1 - share)
                real = [(kk, mu, P, lw + (np.log(1 - share) if kk == k else 0)) for kk, mu, P, lw in real]
                tot = sum((cal & (y == k) & (ph == u)).sum() for u in ps)
                for u in ps:
                    sel = cal & (y == k) & (ph == u)
                    extra.append((k, X[sel].mean(0), base['P'], np.log(share * sel.sum() / tot)))
            q['logw'] = logw; q['real'] = real + extra
            r += (gm.class_scores(q, X[test]).argmax(1) == y[test]).sum(); n += test.sum()
        R += r; N += n; out.append(f"{p} {100*r/n:.1f}")
    print(f"speaker phones share {share}: {100*R/N:.1f}   " + ", ".join(out))
