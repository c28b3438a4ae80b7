#!/usr/bin/env python3
"""Real recorded letters and one-syllable words from qABCs, one speaker per language, for the
syllable measure (issue 39), written as klettres_syllables.py writes KLettres'.

usage: qabcs_syllables.py OUT_DIR [--lang L ...] [--root DIR]

qABCs (Debian `qabcs-data`, GPL-3+; an alphabet tutor for children) ships human recordings of
each letter's name and of words for its pictures in seven languages, one volunteer per language
(`/usr/share/qabcs/abcs/LANG/sounds/alpha/LETTER.ogg`, `…/words/WORD.ogg`; the recordings are
the `speak_method: file` alphabets: spoken at about 200 Hz or 110 Hz with a natural pitch jitter,
not the espeak-ng the app uses for its other alphabets). A letter is kept when its spoken name
ends in a clear vowel (the language's letter table); a word when it is one syllable whose vowel
is one of A I U E O without doubt and nothing voiced follows it (klettres_syllables.py's rules
and tables; Polish and Belarusian are added here).

Writes OUT_DIR/qabcs_LANG/… (16 kHz mono WAVs and vowels.tsv, as klettres_syllables.py) and
OUT_DIR/skipped_qabcs.tsv. None of these languages is held out (issue 39: Spanish, Italian and
Brazilian Portuguese are; qABCs has none of them). Python 3 stdlib and ffmpeg.
"""
import argparse, os, sys, unicodedata

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from klettres_syllables import LANGS, safe_name, syllable_vowel, write_speaker, write_tsv

ROOT = "/usr/share/qabcs/abcs"

QABCS_LANGS = {
    "pl": dict(  # Polish: y is /ɨ/ (between I and U), ą ę are nasal: left out. An i before
                 # another vowel only softens the consonant (cie is /t͡ɕɛ/). ó is /u/.
        vowels={"A": "A", "E": "E", "I": "I", "O": "O", "U": "U", "Ó": "U",
                "IA": "A", "IE": "E", "IO": "O", "IU": "U", "IÓ": "U",
                "Y": None, "Ą": None, "Ę": None, "AU": None, "EU": None},
        coda="PTKSFCHĆŚ",  # sz cz ch are voiceless too, but their z is not a coda letter here
        letters={"A": "A", "E": "E", "I": "I", "O": "O", "U": "U",
                 # be ce cie de gie pe te; ha ka; wu
                 "B": "E", "C": "E", "Ć": "E", "D": "E", "G": "E", "P": "E", "T": "E",
                 "H": "A", "K": "A", "W": "U"}),
    "be": dict(  # Belarusian: as Russian; ы is /ɨ/, ў a glide: left out.
        vowels={"А": "A", "Я": "A", "О": "O", "Ё": "O", "У": "U", "Ю": "U", "Э": "E",
                "Е": "E", "І": "I", "Ы": None},
        coda="ПТКСФШХЦЧЬ",
        letters={"А": "A", "Я": "A", "О": "O", "Ё": "O", "У": "U", "Ю": "U", "Э": "E",
                 "Е": "E", "І": "I",
                 # бэ вэ гэ дэ жэ зэ пэ тэ цэ чэ; ка ха ша
                 "Б": "E", "В": "E", "Г": "E", "Д": "E", "Ж": "E", "З": "E", "П": "E", "Т": "E",
                 "Ц": "E", "Ч": "E", "К": "A", "Х": "A", "Ш": "A"}),
}
# The others' tables are KLettres' (the same languages): ru, uk, de, fr, en.
TABLES = {**{l: LANGS[l] for l in ("ru", "uk", "de", "fr", "en")}, **QABCS_LANGS}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--lang", action="append", help="only these languages (default: all)")
    ap.add_argument("--root", default=ROOT, help=f"qABCs' alphabets (default {ROOT})")
    args = ap.parse_args()
    langs = args.lang or sorted(TABLES)
    for l in langs:
        if l not in TABLES:
            sys.exit(f"qabcs_syllables: no vowel table for language {l!r}")
    LANGS.update(QABCS_LANGS)  # syllable_vowel reads klettres_syllables.LANGS
    os.makedirs(args.out, exist_ok=True)
    skipped = [("language", "text", "source", "why")]
    for lang in langs:
        sounds = os.path.join(args.root, lang, "sounds")
        if not os.path.isdir(sounds):
            print(f"qabcs_syllables: {sounds} missing (apt install qabcs-data); {lang} skipped",
                  file=sys.stderr)
            continue
        rows = []
        for kind, sub in (("letter", "alpha"), ("word", "words")):
            folder = os.path.join(sounds, sub)
            for f in sorted(os.listdir(folder)):
                if not f.endswith(".ogg"):
                    continue
                src = os.path.join(folder, f)
                text = unicodedata.normalize("NFC", f[:-4].replace("_", " ")).upper()
                if kind == "letter":
                    v = TABLES[lang]["letters"].get(text)
                    why = None if v else "letter name does not end in a clear vowel"
                elif " " in text or "-" in text:
                    v, why = None, "more than one word"
                else:
                    v, why = syllable_vowel(lang, text)
                if not v:
                    skipped.append((lang, text, src, why))
                    continue
                name = safe_name(text) + ("" if kind == "letter" else "~word")
                rows.append((name + ".wav", text, v, kind, src))
        if rows:
            write_speaker(os.path.join(args.out, f"qabcs_{lang}"), rows)
    write_tsv(os.path.join(args.out, "skipped_qabcs.tsv"), skipped)


if __name__ == "__main__":
    main()
