#!/usr/bin/env python3
"""Leave-one-speaker-out on real recorded speech (what issue 16 asks the note to report).

usage: loso.py OMOTE REAL_DIR TRAIN_DIR WORK_DIR [--min-seconds S]
              [--real-syllables SYL_DIR] [--aligned-as-real] [--real-share S]
              [--flags "..."]

REAL_DIR is what real_speech.py writes (NAME.wav, NAME.lab.tsv, manifest.tsv with a
`speaker` column); TRAIN_DIR is what build-default-profile.sh generates (synthetic clips).
For every speaker with at least S seconds (default 20) of speech in REAL_DIR:

  * built-in  — the shipped profile, scored on that speaker;
  * synthetic — a profile built like the shipped one (`calibrate --build --with-variants`)
                from TRAIN_DIR alone (checks that the shipped profile is what the script
                makes);
  * +real     — the same plus every *other* speaker's real clips, scored on the held-out
                speaker, pooled into training (`--labelled`). With `--real-syllables`
                instead: the profile as the shipped one is built, the syllables of
                SYL_DIR teaching the real-voice Gaussians (`--real-syllables`; KLettres'
                en and en_GB are the speakers klettresus and klettresgb, so each is left
                out with the other), and with `--aligned-as-real` the other speakers'
                aligned clips too (`--real-labelled-dir`).

`--flags` adds calibrate flags to every profile built (e.g. "--context-net").
Prints one row per speaker and the frame-weighted totals. Python 3 stdlib only; the work
is done by the `omote` binary given (`cargo build --release -p omote-cli` first).
"""
import argparse, collections, csv, os, re, subprocess, sys


def eval_groups(omote, data, profile):
    """{language/speaker: (vowel %, vowel frames, changes × labels)} from `omote lipsync eval`."""
    cmd = [omote, "lipsync", "eval", data, "--no-variants"]
    if profile:
        cmd += ["--profile", profile]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    groups = {}
    for line in out.splitlines():
        m = re.match(r"(\S+) +vowel +([0-9.]+)% \((\d+) fr\).*?([0-9.]+) × labels", line)
        if m:
            groups[m.group(1)] = (float(m.group(2)), int(m.group(3)), float(m.group(4)))
    return groups


# real_speech.py speaker -> the klettres_syllables.py folder of the same person.
SAME_SPEAKER = {"klettresus": "en", "klettresgb": "en_GB"}


def build(omote, train_dir, pairs, out, real=None, flags=()):
    """real: (folder of real clips or None, syllable folder or None, share or None): real
    voices instead of pooled `pairs`."""
    cmd = [omote, "lipsync", "calibrate", "--build", "--with-variants", "--speaker-from-name",
           "--labelled-dir", train_dir, *flags]
    for wav, lab in pairs:
        cmd += ["--labelled", wav, lab]
    if real:
        folder, syllables, share = real
        if folder:
            cmd += ["--real-labelled-dir", folder]
        if syllables:
            cmd += ["--real-syllables", syllables]
        if share:
            cmd += ["--real-share", share]
    cmd += ["-o", out]
    subprocess.run(cmd, check=True, capture_output=True, text=True)


def link_all(pairs, folder, names=None):
    """Symlinks to `pairs` (wav, lab) in `folder` (created)."""
    os.makedirs(folder, exist_ok=True)
    for wav, lab in pairs:
        for src in (wav, lab):
            dst = os.path.join(folder, os.path.basename(src))
            if not os.path.lexists(dst):
                os.symlink(src, dst)


def syllables_without(syl_dir, held, folder):
    """A folder of links to every syllable speaker of `syl_dir` but the held-out one's."""
    os.makedirs(folder, exist_ok=True)
    skip = SAME_SPEAKER.get(held)
    for s in sorted(os.listdir(syl_dir)):
        src = os.path.join(os.path.abspath(syl_dir), s)
        dst = os.path.join(folder, s)
        if os.path.isdir(src) and s != skip and not os.path.lexists(dst):
            os.symlink(src, dst)
    return folder


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("omote")
    ap.add_argument("real_dir")
    ap.add_argument("train_dir")
    ap.add_argument("work_dir")
    ap.add_argument("--min-seconds", type=float, default=20.0)
    ap.add_argument("--real-syllables", default=None)
    ap.add_argument("--aligned-as-real", action="store_true")
    ap.add_argument("--real-share", default=None)
    ap.add_argument("--flags", default="", help="more calibrate flags")
    a = ap.parse_args()
    flags = a.flags.split()
    real = os.path.abspath(a.real_dir)
    with open(os.path.join(real, "manifest.tsv"), newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    by_speaker = collections.defaultdict(list)
    for r in rows:
        by_speaker[r["speaker"]].append(r)
    os.makedirs(a.work_dir, exist_ok=True)
    synthetic = os.path.join(a.work_dir, "synthetic.json")
    build(a.omote, a.train_dir, [], synthetic, flags=flags)
    totals = collections.defaultdict(lambda: [0.0, 0])
    print(f"{'lang/speaker':<16}{'clips':>6}{'seconds':>9}{'frames':>8}"
          f"{'built-in':>10}{'synthetic':>11}{'+real':>8}  (vowel %; +real's changes × labels; clips and seconds per speaker)")
    for spk in sorted(by_speaker):
        clips = by_speaker[spk]
        secs = sum(float(r["duration"]) for r in clips)
        if secs < a.min_seconds:
            continue
        fold = os.path.join(a.work_dir, spk)
        os.makedirs(fold, exist_ok=True)
        with open(os.path.join(fold, "manifest.tsv"), "w") as f:
            f.write("clip\tlanguage\tsource\n")
            for r in clips:
                for ext in (".wav", ".lab.tsv"):
                    dst = os.path.join(fold, r["clip"] + ext)
                    if not os.path.exists(dst):
                        os.symlink(os.path.join(real, r["clip"] + ext), dst)
                f.write(f"{r['clip']}\t{r['language']}\t{spk}\n")
        others = [(os.path.join(real, r["clip"] + ".wav"), os.path.join(real, r["clip"] + ".lab.tsv"))
                  for s, rs in by_speaker.items() if s != spk for r in rs]
        profile = os.path.join(a.work_dir, f"without-{spk}.json")
        if a.real_syllables or a.aligned_as_real:
            real_folder = None
            if a.aligned_as_real:
                real_folder = os.path.join(a.work_dir, f"real-without-{spk}")
                link_all(others, real_folder)
            syl = (syllables_without(a.real_syllables, spk,
                                     os.path.join(a.work_dir, f"syllables-without-{spk}"))
                   if a.real_syllables else None)
            build(a.omote, a.train_dir, [], profile, (real_folder, syl, a.real_share), flags)
        else:
            build(a.omote, a.train_dir, others, profile, flags=flags)
        scores = [eval_groups(a.omote, fold, p) for p in (None, synthetic, profile)]
        for group in sorted(scores[0]):
            n = scores[0][group][1]
            row = [sc[group] for sc in scores]
            for name, sc in zip(("built-in", "synthetic", "+real"), row):
                totals[name][0] += sc[0] * n
                totals[name][1] += n
            print(f"{group:<16}{len(clips):>6}{secs:>9.1f}{n:>8}"
                  f"{row[0][0]:>9.1f}%{row[1][0]:>10.1f}%{row[2][0]:>7.1f}%  {row[2][2]:.2f}×",
                  flush=True)
    print("frame-weighted: " + ", ".join(
        f"{k} {v[0] / max(v[1], 1):.1f} %" for k, v in totals.items()))


if __name__ == "__main__":
    sys.exit(main())
