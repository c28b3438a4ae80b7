#!/usr/bin/env python3
"""Research aid (issue 39, not used by the built-in profile): labelled clips of real vocal
tracts saying cardinal vowels. As training phones they cost the Japanese MBROLA voices 5–6
points (crate's EVALUATION.md, "Real voices in the profile", tried and not kept).

The rest of the training set is Japanese and English. Neither has the vowels most human
languages share: a back rounded /u/ (Japanese /ɯ/ is unrounded, English /uː/ is fronted),
a close-mid /e/ and /o/ that are not diphthongs. Real speakers of five-vowel languages put
their /u/ and /o/ where the built-in profile expected only O and A (issue 39: KLettres' U
read as O in 57 % of its frames). These clips add such vowels from MBROLA diphone voices,
each cut from recordings of one real speaker, in their own language: German de1-de8 (four
women, four men), Czech cz2, Hungarian hu1, Polish pl1, Romanian ro1, Croatian cr1, Greek
gr2, Turkish tr1 and tr2, Indonesian id1, Latin la1, Malay ma1. espeak-ng writes the
MBROLA phoneme file in the voice's own symbols and mbrola renders it with exactly those
durations, so the labels are exact, as in mbrola_set.py.

Not used, on purpose: Spanish, Italian and Portuguese voices (the project's held-out
evaluation languages), and the Japanese voices jp1-jp3 (the "unseen voices" evaluation).

Phones are named LANG:SYMBOL, so each language's vowels get their own Gaussians rather than
merging with the English voices' symbols of the same spelling. Vowels that are neither of
the five mouth shapes acoustically — front rounded ü/ö (German y: Y 2, Hungarian y 2,
Turkish y &), the central unrounded vowels (Polish y /ɨ/, Romanian î /ɨ/, Turkish ı and
this voice's ö, both written @ and @'), Hungarian short a /ɒ/ — are labelled S: training
skips S frames, so they teach no class (a lip-rounded ü with i's formants would pull U
onto I). Schwa is A, as everywhere (MAPPING.md).

Needs Debian packages espeak-ng mbrola mbrola-{de1..de8,cz2,hu1,pl1,ro1,cr1,gr2,tr1,tr2,
id1,la1,ma1} (non-free: the voices' licence allows non-commercial use; the audio only fits
statistics, none is shipped). Deterministic, Python 3 stdlib only.

usage: mbrola_langs_set.py OUT_DIR

Writes OUT_DIR/<lang>_mbrola_<voice>_v<K>_tNN.wav + .lab.tsv (start end class phone).
"""
import os, subprocess, sys

from mbrola_set import render

HERE = os.path.dirname(os.path.abspath(__file__))
# voice -> language of its texts (texts_world/LANG.txt)
VOICES = {
    "de1": "de", "de2": "de", "de3": "de", "de4": "de", "de5": "de", "de6": "de",
    "de7": "de", "de8": "de", "cz2": "cs", "hu1": "hu", "pl1": "pl", "ro1": "ro",
    "cr1": "hr", "gr2": "el", "tr1": "tr", "tr2": "tr", "id1": "id", "la1": "la", "ma1": "ms",
}
# (words per minute for espeak-ng, mbrola pitch ratio -f); text t of voice v uses (t + v) % 3
VARIANTS = [(160, 1.0), (185, 1.15), (145, 0.9)]
LEAD_MS = 300

VOWELS_COMMON = {
    "a": "A", "a:": "A", "A": "A", "@": "A", "6": "A", "aI": "A", "aU": "A", "aE": "A",
    "e": "E", "e:": "E", "E": "E", "E:": "E",
    "i": "I", "i:": "I", "I": "I",
    "o": "O", "o:": "O", "O": "O", "OY": "O", "o~": "O",
    "u": "U", "u:": "U", "U": "U",
}
# Per language: symbols that differ from the common table ("S" = left out of training).
VOWELS_LANG = {
    "de": {"y:": "S", "Y": "S", "2:": "S", "9": "S"},
    "hu": {"y": "S", "y:": "S", "2": "S", "2:": "S", "O": "S"},
    "pl": {"I": "S", "E#": "E"},
    "ro": {"1": "S"},
    "tr": {"y": "S", "&": "S", "@": "S", "@'": "S"},
    # espeak-ng's Indonesian and Malay write /a/ as V and /o/ as Q for these voices.
    "id": {"V": "A", "Q": "O"},
    "ms": {"V": "A", "Q": "O"},
}
CONSONANTS = set(
    "p b t d k g f v s z S Z x h j l m n N r R w c C D G J L T X Y q ? ts tS dZ dz dz' ts' "
    "h\\ d' n' r' t' tS' s' z' n' l/ L/ l: m: n: p:".split())


def class_of(lang, sym):
    if sym == "_":
        return "S"
    if sym.startswith("?") and len(sym) > 1:  # German glottal onset: the vowel after it
        sym = sym[1:]
    table = VOWELS_LANG.get(lang, {})
    if sym in table:
        return table[sym]
    if sym in VOWELS_COMMON:
        return VOWELS_COMMON[sym]
    if sym in CONSONANTS:
        return "N"
    return None


def pho_for(voice, wpm, text):
    out = subprocess.run(["espeak-ng", "-v", f"mb-{voice}", "-s", str(wpm), "-q", "--pho", text],
                         check=True, capture_output=True, text=True).stdout
    lines = [l.split() for l in out.splitlines() if l.strip() and not l.startswith(";")]
    return [(l[0], int(l[1]), l[2:]) for l in lines]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-3])
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for v, (voice, lang) in enumerate(VOICES.items()):
        db = f"/usr/share/mbrola/{voice}/{voice}"
        if not os.path.exists(db):
            sys.exit(f"{db}: missing (apt install mbrola-{voice}, Debian non-free)")
        texts = [t.strip() for t in open(os.path.join(HERE, "texts_world", f"{lang}.txt"),
                                          encoding="utf-8") if t.strip()]
        for ti, text in enumerate(texts):
            k = (ti + v) % len(VARIANTS)
            wpm, pitch = VARIANTS[k]
            phones = [("_", LEAD_MS, [])] + pho_for(voice, wpm, text) + [("_", LEAD_MS, [])]
            unknown = sorted({p for p, _, _ in phones if class_of(lang, p) is None})
            if unknown:
                sys.exit(f"{voice} ({lang}): unmapped MBROLA symbols {unknown}")
            render(out, f"{lang}_mbrola_{voice}_v{k}_t{ti:02d}", db, pitch, phones,
                   lambda p: (class_of(lang, p), "_" if p == "_" else f"{lang}:{p}"),
                   mbrola_args=["-e"])
        print(f"{voice} ({lang}): {len(texts)} clips", file=sys.stderr)


if __name__ == "__main__":
    main()
