#!/usr/bin/env python3
"""Labelled clips from MBROLA diphone voices, for omote-lipsync's built-in profile.

MBROLA concatenates diphones cut from real recordings of one speaker per voice, so its
spectra are those of human vocal tracts (unlike espeak-ng's formant synthesis): us1
(US female), us2 and us3 (US male), en1 (British male). espeak-ng turns the text into an
MBROLA phoneme file (`--pho`: phoneme, duration in ms, pitch points); mbrola renders it
and honours every duration exactly, so the labels are the .pho durations. None of these
speakers is in shared/data/speech (its English voices are espeak-ng en-us and one LibriVox
reader).

Italian it3 (male) and it4 (female) and Spanish es1 (male) add more real vocal tracts with
five clean vowel qualities (texts_it.txt, texts_es.txt; it2 and es3 lack too many diphones). espeak-ng's MBROLA tables ask these
voices for a few symbols they lack (`i/`, `ts2`, `ss`, `e/`, `o/`); they are renamed to the
voice's own phoneme, and a clip that still needs an unknown diphone is left out (mbrola would
put silence under a labelled phone). espeak-ng gives these voices vowels of 20-40 ms against
65 ms consonants; their vowels are stretched 2.5x so the clips have steady vowels as speech does.

Needs Debian packages espeak-ng mbrola mbrola-us1 mbrola-us2 mbrola-us3 mbrola-en1
mbrola-it3 mbrola-it4 mbrola-es1
(mbrola voices are in Debian's non-free component; their licence allows non-commercial
use of the voices, and the generated audio is only used to fit the profile's statistics,
never shipped). Deterministic, Python 3 stdlib only.

usage: mbrola_set.py OUT_DIR

Writes OUT_DIR/<lang>_mbrola_<voice>_<variant>_tNN.wav + .lab.tsv (start end class phone, same
classes as shared/data/speech/MAPPING.md).
"""
import os, re, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROMANCE_RENAME = {"i/": "i", "ts2": "ts", "ss": "s", "e/": "e", "o/": "o"}
class Voice:
    """An MBROLA database and how its clips are made."""

    def __init__(self, lang, texts, rename=None, vowel_factor=1.0):
        self.lang = lang                  # label tag: en, it, es
        self.texts = texts                # texts file next to this script
        self.rename = rename or {}        # espeak-ng symbol -> the voice's phoneme
        self.vowel_factor = vowel_factor  # vowel durations stretched by this


ROMANCE = dict(rename=ROMANCE_RENAME, vowel_factor=2.5)
VOICES = {
    "us1": Voice("en", "texts_en.txt"),
    "us2": Voice("en", "texts_en.txt"),
    "us3": Voice("en", "texts_en.txt"),
    "en1": Voice("en", "texts_en.txt"),
    "it3": Voice("it", "texts_it.txt", **ROMANCE),
    "it4": Voice("it", "texts_it.txt", **ROMANCE),
    "es1": Voice("es", "texts_es.txt", **ROMANCE),
}
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
ENGLISH = {**{p: "A" for p in A}, **{p: "I" for p in I}, **{p: "U" for p in U},
         **{p: "E" for p in E}, **{p: "O" for p in O}, **{p: "N" for p in CONSONANTS},
         "_": "S"}
# Italian and Spanish: a stress mark (digit) does not change the mouth; open e/o are E/O.
ROMANCE_VOWELS = {"a": "A", "e": "E", "E": "E", "i": "I", "o": "O", "O": "O", "u": "U"}


def romance_class(p):
    """Class and phone name (stress digit dropped) of an Italian/Spanish MBROLA symbol."""
    if p == "_":
        return "S", p
    base = p.rstrip("0123456789")
    if base in ROMANCE_VOWELS:
        return ROMANCE_VOWELS[base], base
    if re.fullmatch(r"[a-zA-Z]+", base):
        return "N", base
    return None, p


def class_of(lang, p):
    if lang == "en":
        return ENGLISH.get(p), p
    return romance_class(p)


def pho_for(voice, wpm, text):
    out = subprocess.run(["espeak-ng", "-v", f"mb-{voice}", "-s", str(wpm), "-q", "--pho", text],
                         check=True, capture_output=True, text=True).stdout
    lines = [l.split() for l in out.splitlines() if l.strip() and not l.startswith(";")]
    # espeak-ng asks us3 for `O2`, a vowel whose diphones us3 lacks (mbrola stops with
    # "unknown diphone"); `O` is the same THOUGHT vowel.
    return [("O" if l[0] == "O2" and VOICES[voice].lang == "en" else l[0], int(l[1]), l[2:])
            for l in lines]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for v, (voice, spec) in enumerate(VOICES.items()):
        lang = spec.lang
        texts = [t.strip() for t in open(os.path.join(HERE, spec.texts)) if t.strip()]
        db = f"/usr/share/mbrola/{voice}/{voice}"
        skipped = 0
        for k, (wpm, pitch) in enumerate(VARIANTS):
            for ti, text in enumerate(texts):
                if (ti + v + k) % 3:  # a third of the texts per variant keeps the set small
                    continue
                phones = []
                for p, d, rest in pho_for(voice, wpm, text):
                    p = spec.rename.get(p, p)
                    if class_of(lang, p)[0] not in (None, "S", "N"):
                        d = round(d * spec.vowel_factor)
                    phones.append((p, d, rest))
                phones = [("_", LEAD_MS, [])] + phones + [("_", LEAD_MS, [])]
                unknown = [p for p, _, _ in phones if class_of(lang, p)[0] is None]
                if unknown:
                    sys.exit(f"{voice}: unmapped MBROLA symbols {sorted(set(unknown))}")
                name = f"{lang}_mbrola_{voice}_v{k}_t{ti:02d}"
                pho = os.path.join(out, name + ".pho")
                with open(pho, "w") as f:
                    for p, d, rest in phones:
                        f.write(f"{p}\t{d}\t{' '.join(rest)}\n")
                wav = os.path.join(out, name + ".wav")
                r = subprocess.run(["mbrola", "-f", str(pitch), db, pho, wav],
                                   capture_output=True, text=True)
                os.remove(pho)
                if r.returncode != 0 or "unknown" in r.stderr:
                    # A diphone this voice lacks: mbrola puts silence under a labelled phone.
                    if os.path.exists(wav):
                        os.remove(wav)
                    skipped += 1
                    continue
                # Merge consecutive pauses; times in seconds from the durations.
                segs, t = [], 0
                for p, d, _ in phones:
                    c, phone = class_of(lang, p)
                    if segs and c == "S" and segs[-1][2] == "S":
                        segs[-1][1] = t + d
                    else:
                        segs.append([t, t + d, c, phone])
                    t += d
                with open(os.path.join(out, name + ".lab.tsv"), "w") as f:
                    f.write("start\tend\tclass\tphone\n")
                    for s, e, c, p in segs:
                        f.write(f"{s / 1000:.3f}\t{e / 1000:.3f}\t{c}\t{p}\n")
        if skipped:
            print(f"{voice}: {skipped} clips left out (diphones the voice lacks)", file=sys.stderr)


if __name__ == "__main__":
    main()
