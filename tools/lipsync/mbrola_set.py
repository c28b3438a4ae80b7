#!/usr/bin/env python3
"""Labelled English clips from MBROLA diphone voices, for omote-lipsync's built-in profile.

MBROLA concatenates diphones cut from real recordings of one speaker per voice, so its
spectra are those of human vocal tracts (unlike espeak-ng's formant synthesis): us1
(US female), us2 and us3 (US male), en1 (British male). espeak-ng turns the text into an
MBROLA phoneme file (`--pho`: phoneme, duration in ms, pitch points); mbrola renders it
and honours every duration exactly, so the labels are the .pho durations. None of these
speakers is in shared/data/speech (its English voices are espeak-ng en-us and one LibriVox
reader).

Needs Debian packages espeak-ng mbrola mbrola-us1 mbrola-us2 mbrola-us3 mbrola-en1
(mbrola voices are in Debian's non-free component; their licence allows non-commercial
use of the voices, and the generated audio is only used to fit the profile's statistics,
never shipped). Deterministic, Python 3 stdlib only.

usage: mbrola_set.py OUT_DIR

Writes OUT_DIR/en_mbrola_<voice>_<variant>_tNN.wav + .lab.tsv (start end class phone, same
classes as shared/data/speech/MAPPING.md).
"""
import os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
VOICES = ["us1", "us2", "us3", "en1"]
# (words per minute for espeak-ng, mbrola pitch ratio -f)
VARIANTS = [(165, 1.0), (190, 1.15), (150, 0.9)]
LEAD_MS = 300

# MBROLA SAMPA symbols as espeak-ng writes them for these voices; see MAPPING.md for the
# classes (schwa and diphthongs starting open -> A, r-coloured vowel -> U, GOAT -> O).
A = ["@", "{", "V", "A", "A:", "AI", "aI", "aU"]
I = ["i", "I", "i:", "I@"]
U = ["u", "U", "u:", "r=", "3:", "U@"]
E = ["E", "EI", "e", "eI", "e@"]
# British LOT `Q` is a rounded open vowel: O (American LOT `A` is unrounded: A).
O = ["O", "O:", "@U", "OI", "Q"]
CONSONANTS = ["p", "b", "t", "d", "k", "g", "f", "v", "T", "D", "s", "z", "S", "Z", "h",
              "tS", "dZ", "m", "n", "N", "l", "r", "w", "j", "t_h", "k_h", "p_h", "4",
              "l=", "n=", "m=", "5", "?", "x"]
CLASS = {**{p: "A" for p in A}, **{p: "I" for p in I}, **{p: "U" for p in U},
         **{p: "E" for p in E}, **{p: "O" for p in O}, **{p: "N" for p in CONSONANTS},
         "_": "S"}


def pho_for(voice, wpm, text):
    out = subprocess.run(["espeak-ng", "-v", f"mb-{voice}", "-s", str(wpm), "-q", "--pho", text],
                         check=True, capture_output=True, text=True).stdout
    lines = [l.split() for l in out.splitlines() if l.strip() and not l.startswith(";")]
    # espeak-ng asks us3 for `O2`, a vowel whose diphones us3 lacks (mbrola stops with
    # "unknown diphone"); `O` is the same THOUGHT vowel.
    return [("O" if l[0] == "O2" else l[0], int(l[1]), l[2:]) for l in lines]


def render(out, name, db, pitch, phones, label, mbrola_args=()):
    """Renders `phones` ((symbol, ms, pitch points)) with the MBROLA voice `db` at pitch ratio
    `pitch` into OUT/NAME.wav, and writes NAME.lab.tsv from the durations: `label(symbol)` is
    (class, phone name); consecutive pauses `_` are one segment."""
    pho = os.path.join(out, name + ".pho")
    with open(pho, "w") as f:
        for p, d, rest in phones:
            f.write(f"{p}\t{d}\t{' '.join(rest)}\n")
    r = subprocess.run(["mbrola", *mbrola_args, "-f", str(pitch), db, pho,
                        os.path.join(out, name + ".wav")], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{name}: mbrola failed: {r.stderr.strip()}")
    os.remove(pho)
    segs, t = [], 0
    for p, d, _ in phones:
        c, phone = label(p)
        if segs and p == "_" and segs[-1][3] == "_":
            segs[-1][1] = t + d
        else:
            segs.append([t, t + d, c, phone])
        t += d
    with open(os.path.join(out, name + ".lab.tsv"), "w") as f:
        f.write("start\tend\tclass\tphone\n")
        for s, e, c, p in segs:
            f.write(f"{s / 1000:.3f}\t{e / 1000:.3f}\t{c}\t{p}\n")


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    texts = [t.strip() for t in open(os.path.join(HERE, "texts_en.txt")) if t.strip()]
    for v, voice in enumerate(VOICES):
        db = f"/usr/share/mbrola/{voice}/{voice}"
        for k, (wpm, pitch) in enumerate(VARIANTS):
            for ti, text in enumerate(texts):
                if (ti + v + k) % 3:  # a third of the texts per variant keeps the set small
                    continue
                phones = [("_", LEAD_MS, [])] + pho_for(voice, wpm, text) + [("_", LEAD_MS, [])]
                unknown = [p for p, _, _ in phones if p not in CLASS]
                if unknown:
                    sys.exit(f"{voice}: unmapped MBROLA symbols {sorted(set(unknown))}")
                render(out, f"en_mbrola_{voice}_v{k}_t{ti:02d}", db, pitch, phones,
                       lambda p: (CLASS[p], p))


if __name__ == "__main__":
    main()
