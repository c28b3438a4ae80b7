#!/usr/bin/env python3
"""Leave-one-speaker-out with the syllable measure (issue 39), for the real-voice Gaussians.

usage: loso_syllables.py OMOTE SYL_DIR TRAIN_DIR WORK_DIR [--real-share S]
                         [--real-labelled-dir DIR] [--flags "..."] [--eval-flags "..."]
                         [--reuse]

SYL_DIR is what klettres_syllables.py writes (one folder per speaker); TRAIN_DIR what
build-default-profile.sh generates (the synthetic labelled clips). For every speaker, a
profile is built like the shipped one (`calibrate --build --with-variants
--speaker-from-name`) with the *other* speakers' syllables as real voices
(`--real-syllables`, plus `--real-labelled-dir` when given, without the same person's
clips), and that speaker alone is
scored (`eval --syllables`, plus `--eval-flags`, e.g. "--calibrate-halves", or --eval-flags=--stream / =--session for the live readings; `--reuse`
keeps a WORK_DIR profile already built). Prints one row per speaker, then the frame-weighted total,
the mean of the speakers and the total confusion (rows: the true vowel, % of its frames).
Python 3 stdlib only; the work is done by the `omote` binary given.
"""
import argparse, os, re, subprocess, sys

VOWELS = "AIUEO"
# klettres_syllables.py speaker -> the clip prefix of the same person in real_speech.py's set.
SAME_PERSON = {"en": "real_klettresus_", "en_GB": "real_klettresgb_",
               **{f"qabcs_{l}": f"real_qabcs{l}_" for l in ("be", "de", "en", "fr", "pl", "ru", "uk")}}


def real_without(real_dir, held, folder):
    """Links to real_dir's clips but those of the held-out speaker's person."""
    os.makedirs(folder, exist_ok=True)
    skip = SAME_PERSON.get(held)
    for f in sorted(os.listdir(real_dir)):
        if not (f.endswith(".wav") or f.endswith(".lab.tsv")) or (skip and f.startswith(skip)):
            continue
        dst = os.path.join(folder, f)
        if not os.path.lexists(dst):
            os.symlink(os.path.join(os.path.abspath(real_dir), f), dst)
    return folder


def score(omote, folder, profile, flags=()):
    """(frames, share, [per-vowel confusion rows in frames]) of one speaker folder."""
    out = subprocess.run([omote, "lipsync", "eval", folder, "--syllables", "--profile", profile,
                          *flags], check=True, capture_output=True, text=True).stdout
    m = re.search(r"^all +syllable +([0-9.]+)% \((\d+) fr", out, re.M)
    if not m:
        sys.exit(f"{folder}: no total in\n{out}")
    rows = []
    for v in VOWELS:
        r = re.search(rf"^ +{v} +((?:[0-9.]+ +){{6}})% of (\d+) fr", out, re.M)
        if r:
            shares = [float(x) for x in r.group(1).split()]
            rows.append([s / 100 * int(r.group(2)) for s in shares])
        else:
            rows.append([0.0] * 6)
    return int(m.group(2)), float(m.group(1)), rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("omote")
    ap.add_argument("syl_dir")
    ap.add_argument("train_dir")
    ap.add_argument("work_dir")
    ap.add_argument("--real-share", default=None)
    ap.add_argument("--real-labelled-dir", default=None)
    ap.add_argument("--flags", default="", help="more calibrate flags")
    ap.add_argument("--eval-flags", default="", help="more eval flags")
    ap.add_argument("--reuse", action="store_true", help="keep profiles already built")
    a = ap.parse_args()
    speakers = sorted(d for d in os.listdir(a.syl_dir)
                      if os.path.isdir(os.path.join(a.syl_dir, d)))
    os.makedirs(a.work_dir, exist_ok=True)
    total_ok = total_n = 0
    shares, conf = [], [[0.0] * 6 for _ in VOWELS]
    for i, held in enumerate(speakers):
        others = os.path.join(a.work_dir, f"without_{held}")
        os.makedirs(others, exist_ok=True)
        for s in speakers:
            link = os.path.join(others, s)
            if s != held and not os.path.lexists(link):
                os.symlink(os.path.abspath(os.path.join(a.syl_dir, s)), link)
        profile = os.path.join(a.work_dir, f"without_{held}.json")
        cmd = [a.omote, "lipsync", "calibrate", "--build", "--with-variants",
               "--speaker-from-name", "--labelled-dir", a.train_dir, "--real-syllables", others,
               "-o", profile]
        if a.real_share is not None:
            cmd += ["--real-share", a.real_share]
        if a.real_labelled_dir:
            cmd += ["--real-labelled-dir",
                    real_without(a.real_labelled_dir, held,
                                 os.path.join(a.work_dir, f"real_without_{held}"))]
        cmd += a.flags.split()
        if not (a.reuse and os.path.exists(profile)):
            subprocess.run(cmd, check=True, capture_output=True, text=True)
        n, share, rows = score(a.omote, os.path.join(a.syl_dir, held), profile,
                               a.eval_flags.split())
        print(f"[{i + 1}/{len(speakers)}] {held:8} {share:5.1f} % of {n} frames", file=sys.stderr)
        print(f"{held:8} {share:5.1f} % ({n} fr)")
        total_ok += share / 100 * n
        total_n += n
        shares.append(share)
        for v in range(5):
            for k in range(6):
                conf[v][k] += rows[v][k]
    print(f"{'all':8} {100 * total_ok / total_n:5.1f} % ({total_n} fr), "
          f"mean of speakers {sum(shares) / len(shares):5.1f} %")
    print("vowel\\read     A     I     U     E     O     N")
    for v in range(5):
        n = sum(conf[v])
        print(f"{VOWELS[v]:10} " + " ".join(f"{100 * x / max(n, 1):5.1f}" for x in conf[v]))


if __name__ == "__main__":
    main()
