#!/usr/bin/env python3
"""Real recorded syllables and letters, one speaker per language, for the syllable measure.

usage: klettres_syllables.py OUT_DIR [--lang L ...] [--held-out]

KLettres (Debian `klettres-data`, GPL-2+) ships human recordings of the letters of about twenty
alphabets and of short syllables, one speaker per language; `/usr/share/klettres/LANG/sounds.xml`
gives each file's text. This script keeps the recordings whose vowel is one of A I U E O without
doubt in that language, so the end of the file's voiced part is that vowel and no aligner is
needed (`omote lipsync eval --syllables OUT_DIR` scores the last 60 % of each file's voiced
frames against it; issue 39).

A syllable is kept when its text has exactly one vowel grapheme, that grapheme maps to a class in
the language's table below (graphemes mapped to None are ambiguous and drop the file), and
nothing voiced follows the vowel (only the voiceless coda letters the language allows; a nasal or
liquid coda would be voiced frames that are not the vowel). A letter is kept when its spoken name
is in the language's letter table (its name ends in that vowel: Czech "B" is /beː/ → E).

Spanish, Italian and Brazilian Portuguese are this project's held-out evaluation (issue 39): the
script refuses them unless `--held-out` is given, for the evaluation session only.

Writes OUT_DIR/LANG/TEXT.wav (16-bit mono PCM at 16 kHz, the analyser's rate: some recordings are
at 128 kHz, which plain WAV readers refuse; a text met twice gets
`TEXT~2.wav`), OUT_DIR/LANG/vowels.tsv (file, text, vowel, kind, source: the vowel map `omote
lipsync eval --syllables` reads) and OUT_DIR/skipped.tsv (language, text, source, why).
Deterministic (files in sounds.xml order). Python 3 stdlib and ffmpeg.
"""
import argparse, os, re, subprocess, sys, unicodedata
import xml.etree.ElementTree as ET

ROOT = "/usr/share/klettres"
HELD_OUT = {"es", "it", "pt_BR"}

# Per language: `vowels` grapheme → class (None: ambiguous, the file is dropped; graphemes are
# matched longest first, so digraphs and diphthongs win over their letters), `coda` the voiceless
# consonant letters that may follow the vowel, `letters` a letter's name → the class of the vowel
# its spoken name ends in (letters whose name ends in a voiced consonant, "el", "em", "er", are
# left out for the same reason as voiced codas). Uppercase throughout (texts are upper-cased).
LANGS = {
    "cs": dict(  # Czech: five vowels, length does not change the quality that matters here.
        vowels={"A": "A", "Á": "A", "E": "E", "É": "E", "Ě": "E",  # ě is /jɛ/ after the consonant
                "I": "I", "Í": "I", "Y": "I", "Ý": "I",  # y is the same /ɪ/ as i in Czech
                "O": "O", "Ó": "O", "U": "U", "Ú": "U", "Ů": "U",
                "OU": None, "AU": None, "EU": None},  # diphthongs
        coda="PTKSŠFCČHX",
        letters={"A": "A", "E": "E", "I": "I", "O": "O", "U": "U",
                 # bé cé dé gé há já ká pé kvé té vé ťé ďé čé řé: the name ends in the vowel
                 "B": "E", "C": "E", "D": "E", "G": "E", "H": "A", "J": "E", "K": "A", "P": "E",
                 "Q": "E", "T": "E", "V": "E", "W": "E", "Ť": "E", "Ď": "E", "Č": "E", "Ř": "E"}),
    "lt": dict(  # Lithuanian: short e and ę are /æ/, between A and E: left out; ė is /eː/.
        vowels={"A": "A", "Ą": "A", "E": None, "Ę": None, "Ė": "E", "I": "I", "Į": "I",
                "Y": "I", "O": "O", "U": "U", "Ų": "U", "Ū": "U",
                # i before a back vowel only softens the consonant: džiu is /dʒu/
                "IU": "U", "IŲ": "U", "IO": "O", "IA": None,  # ia is /æ/ again
                "AU": None, "IE": None, "UO": None, "EU": None, "OU": None, "AI": None,
                "EI": None, "UI": None},
        coda="PTKSŠ",
        letters={"A": "A", "Ą": "A", "Ė": "E", "I": "I", "Į": "I", "Y": "I", "O": "O",
                 "U": "U", "Ų": "U", "Ū": "U",
                 # bė cė čė dė gė pė tė vė zė žė; ha ka
                 "B": "E", "C": "E", "Č": "E", "D": "E", "G": "E", "P": "E", "T": "E", "V": "E",
                 "Z": "E", "Ž": "E", "H": "A", "K": "A"}),
    "ru": dict(  # Russian: iotated vowels are the same vowel after /j/ or a soft consonant.
        vowels={"А": "A", "Я": "A", "О": "O", "Ё": "O", "O": "O",  # "КO" is spelt with a Latin O
                "У": "U", "Ю": "U", "Э": "E", "Е": "E", "И": "I",
                "Ы": None},  # /ɨ/: central, between I and U
        coda="ПТКСФШЩХЦЧЬЪ",  # ь/ъ only mark softness
        letters={"А": "A", "Я": "A", "О": "O", "Ё": "O", "У": "U", "Ю": "U", "Э": "E",
                 "Е": "E", "И": "I",
                 # бэ вэ гэ дэ жэ зэ пэ тэ цэ чэ; ка ха ша ща
                 "Б": "E", "В": "E", "Г": "E", "Д": "E", "Ж": "E", "З": "E", "П": "E", "Т": "E",
                 "Ц": "E", "Ч": "E", "К": "A", "Х": "A", "Ш": "A", "Щ": "A"}),
    "uk": dict(  # Ukrainian: и is /ɪ/, between I and E: left out.
        vowels={"А": "A", "Я": "A", "О": "O", "У": "U", "Ю": "U", "Е": "E", "Є": "E",
                "І": "I", "Ї": "I", "И": None},
        coda="ПТКСФШЩХЦЧЬ",
        letters={"А": "A", "Я": "A", "О": "O", "У": "U", "Ю": "U", "Е": "E", "Є": "E",
                 "І": "I", "Ї": "I",
                 # бе ве ге ґе де же зе пе те це че; ка ха ша ща
                 "Б": "E", "В": "E", "Г": "E", "Ґ": "E", "Д": "E", "Ж": "E", "З": "E", "П": "E",
                 "Т": "E", "Ц": "E", "Ч": "E", "К": "A", "Х": "A", "Ш": "A", "Щ": "A"}),
    "de": dict(  # German (letters only ship): ö and ü are rounded front vowels, left out.
        vowels={"A": "A", "E": "E", "I": "I", "O": "O", "U": "U", "Ä": "E",  # ä is /ɛː/
                "IE": "I", "Ö": None, "Ü": None, "Y": None, "EI": None, "AI": None,
                "AU": None, "EU": None, "ÄU": None},
        coda="PTKSF",
        letters={"A": "A", "E": "E", "I": "I", "O": "O", "U": "U", "Ä": "E",
                 # be ce de ge pe te we; ha ka; ku
                 "B": "E", "C": "E", "D": "E", "G": "E", "P": "E", "T": "E", "W": "E",
                 "H": "A", "K": "A", "Q": "U"}),
    "nl": dict(  # Dutch: a lone e in an open syllable may be schwa, u/uu/eu are front rounded.
        vowels={"AA": "A", "A": "A", "EE": "E", "E": None, "IE": "I", "I": "I", "OE": "U",
                "OO": "O", "O": "O", "UU": None, "U": None, "EU": None, "EI": None,
                "IJ": None, "UI": None, "OU": None, "AU": None, "Y": None},
        coda="PTKSF",
        letters={"A": "A", "E": "E", "I": "I", "O": "O",
                 # bee cee dee gee jee pee tee vee wee; haa kaa
                 "B": "E", "C": "E", "D": "E", "G": "E", "J": "E", "P": "E", "T": "E", "V": "E",
                 "W": "E", "H": "A", "K": "A"}),
    "da": dict(  # Danish: a is /æ/ (between A and E), y æ ø å are not five-vowel sounds, and
                 # short o in closed syllables is /ʌ/: only open syllables with e i o u.
        vowels={"E": "E", "I": "I", "O": "O", "U": "U", "A": None, "Y": None, "Æ": None,
                "Ø": None, "Å": None},
        coda="",
        letters={"E": "E", "I": "I", "O": "O", "U": "U",
                 # be ce de ge pe te ve
                 "B": "E", "C": "E", "D": "E", "G": "E", "P": "E", "T": "E", "V": "E"}),
    "hu": dict(  # Hungarian: short a is rounded /ɒ/ (near O): left out; á is /aː/.
        vowels={"A": None, "Á": "A", "E": "E", "É": "E", "I": "I", "Í": "I", "O": "O",
                "Ó": "O", "U": "U", "Ú": "U", "Ö": None, "Ő": None, "Ü": None, "Ű": None},
        coda="PTKSFCHZ",  # ... and the digraphs cs, sz, ty (their letters are voiceless) —
                          # but z alone is voiced: see `hu_coda_ok`
        letters={"Á": "A", "E": "E", "É": "E", "I": "I", "Í": "I", "O": "O", "Ó": "O",
                 "U": "U", "Ú": "U",
                 # bé cé csé dé dzé dzsé gé gyé jé nyé pé té tyé vé zé zsé; há ká; kú
                 "B": "E", "C": "E", "CS": "E", "D": "E", "DZ": "E", "DZS": "E", "G": "E",
                 "GY": "E", "J": "E", "NY": "E", "P": "E", "T": "E", "TY": "E", "V": "E",
                 "Z": "E", "ZS": "E", "W": "E", "H": "A", "K": "A", "Q": "U"}),
    "fr": dict(  # French: e alone is schwa, u is /y/: left out.
        vowels={"A": "A", "I": "I", "O": "O", "É": "E", "È": "E", "OU": "U", "AU": "O",
                "EAU": "O", "E": None, "U": None, "AI": None, "EI": None, "EU": None,
                "OI": None, "Y": None},
        coda="",
        letters={"A": "A", "I": "I", "O": "O",
                 # bé cé dé gé pé té vé; ji; ka
                 "B": "E", "C": "E", "D": "E", "G": "E", "P": "E", "T": "E", "V": "E",
                 "J": "I", "K": "A"}),
    "nb": dict(  # Norwegian (letters only): o is /uː/ and u /ʉː/, hå kå have å: left out.
        vowels={}, coda="",
        letters={"A": "A", "E": "E", "I": "I",
                 "B": "E", "C": "E", "D": "E", "G": "E", "P": "E", "T": "E", "V": "E"}),
    "id": dict(  # Indonesian: e is /e/ or schwa by word, so syllables with e are left out;
                 # letter names (be ce de...) have /e/.
        vowels={"A": "A", "I": "I", "U": "U", "O": "O", "E": None, "AI": None, "AU": None,
                "OI": None},
        coda="",
        letters={"A": "A", "I": "I", "U": "U", "O": "O", "E": "E",
                 "B": "E", "C": "E", "D": "E", "G": "E", "J": "E", "P": "E", "T": "E",
                 "V": "E", "W": "E", "Y": "E", "H": "A", "K": "A", "Q": "I"}),
    "tn": dict(  # Setswana: seven vowels, but e/ɛ and o/ɔ both fall in E and O.
        vowels={"A": "A", "E": "E", "I": "I", "O": "O", "U": "U"},
        coda="",
        letters={"A": "A", "E": "E", "I": "I", "O": "O", "U": "U"}),
    "en": dict(  # US English: spelling says little; a word table (ARPAbet class, MAPPING.md).
        vowels=None, coda="",
        words={"KEY": "I", "ME": "I", "SAW": "O", "AW": "O", "SIT": "I", "FIX": "I",
               "GAS": "A", "JET": "E", "PET": "E"},
        # letter names ending in /iː/ (bee cee dee ee gee pee tee vee zee) and /juː/ (q u)
        letters={"B": "I", "C": "I", "D": "I", "E": "I", "G": "I", "P": "I", "T": "I",
                 "V": "I", "Z": "I", "Q": "U", "U": "U"}),
    "en_GB": dict(  # British English: as US, but z is "zed" and hot is /ɒ/ (not used).
        vowels=None, coda="",
        words={"KEY": "I", "ME": "I", "SAW": "O", "AW": "O", "SIT": "I", "FIX": "I",
               "GAS": "A", "JET": "E", "PET": "E"},
        letters={"B": "I", "C": "I", "D": "I", "E": "I", "G": "I", "P": "I", "T": "I",
                 "V": "I", "Q": "U", "U": "U"}),
    "ml": dict(  # Malayalam: the vowel is the sign after the consonant (none: inherent /a/).
        vowels="malayalam", coda="",
        letters={"അ": "A", "ആ": "A", "ഇ": "I", "ഈ": "I", "ഉ": "U", "ഊ": "U", "എ": "E",
                 "ഏ": "E", "ഒ": "O", "ഓ": "O"}),
    # Held out (issue 39): evaluation only, behind --held-out.
    "es": dict(vowels={"A": "A", "E": "E", "I": "I", "O": "O", "U": "U", "Á": "A", "É": "E",
                       "Í": "I", "Ó": "O", "Ú": "U"}, coda="",
               letters={"A": "A", "E": "E", "I": "I", "O": "O", "U": "U", "B": "E", "C": "E",
                        "D": "E", "T": "E", "P": "E", "H": "E", "K": "A", "Q": "U"}),
    "it": dict(vowels={"A": "A", "E": "E", "È": "E", "É": "E", "I": "I", "O": "O", "Ò": "O",
                       "Ó": "O", "U": "U"}, coda="",
               letters={"A": "A", "E": "E", "I": "I", "O": "O", "U": "U", "B": "I", "C": "I",
                        "D": "I", "G": "I", "P": "I", "T": "I", "V": "I", "Q": "U"}),
    "pt_BR": dict(vowels={"A": "A", "Á": "A", "E": "E", "É": "E", "Ê": "E", "I": "I",
                          "Í": "I", "O": "O", "Ó": "O", "Ô": "O", "U": "U", "Ú": "U",
                          "Â": None, "Ã": None, "ÃO": None, "ÕE": None},  # nasal
                  coda="",
                  letters={"A": "A", "E": "E", "I": "I", "O": "O", "U": "U", "B": "E",
                           "C": "E", "D": "E", "G": "E", "P": "E", "T": "E", "V": "E",
                           "K": "A", "Q": "E"}),
}
# Not used: ar and he write no vowels; nds (Low German) has no clear five-vowel reading here;
# nn's files are nb's (same paths).

ML_SIGNS = {"\u0d3e": "A", "\u0d3f": "I", "\u0d40": "I", "\u0d41": "U", "\u0d42": "U",
            "\u0d46": "E", "\u0d47": "E", "\u0d4a": "O", "\u0d4b": "O",
            "\u0d48": None, "\u0d4c": None, "\u0d57": None,  # ai, au: diphthongs
            "\u0d02": None, "\u0d03": None, ":": None,  # anusvara (m coda), visarga
            "\u0d43": None}  # vocalic r


def syllable_vowel(lang, text):
    """(class, None) or (None, why) for a syllable's text."""
    spec = LANGS[lang]
    if spec["vowels"] is None:
        v = spec["words"].get(text)
        return (v, None) if v else (None, "not in the word table")
    if spec["vowels"] == "malayalam":
        signs = [c for c in text if c in ML_SIGNS]
        if "\u0d4d" in text[-1:]:
            return None, "ends in a virama (consonant coda)"
        if not signs:
            return "A", None  # inherent vowel
        if len(signs) > 1:
            return None, "more than one vowel sign"
        v = ML_SIGNS[signs[0]]
        return (v, None) if v else (None, "ambiguous vowel sign")
    table = spec["vowels"]
    graphemes = sorted(table, key=len, reverse=True)
    found, i, after = [], 0, 0
    while i < len(text):
        g = next((g for g in graphemes if text.startswith(g, i)), None)
        if g:
            found.append(g)
            i += len(g)
            after = i
        else:
            i += 1
    if len(found) != 1:
        return None, f"{len(found)} vowel graphemes"
    v = table[found[0]]
    if v is None:
        return None, f"ambiguous vowel {found[0]}"
    coda = text[after:]
    if any(c not in spec["coda"] for c in coda):
        return None, f"voiced coda {coda}"
    if lang == "ru" and re.search("[ЖШЦ]И", text):
        return None, "и after ж ш ц is /ɨ/"  # hard consonants: the same sound as ы
    if lang == "hu" and re.search(r"Z(?!S)|ZS", coda) and not re.search(r"[SC]Z", coda):
        return None, f"voiced coda {coda}"
    return v, None


def convert(src, dst):
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", src, "-ac", "1", "-ar", "16000",
                    "-c:a", "pcm_s16le", dst], check=True)


def write_speaker(folder, rows):
    """One speaker's folder as `omote lipsync eval --syllables` reads it: each row's source
    converted to `folder/FILE` and the rows (file, text, vowel, kind, source) as
    `folder/vowels.tsv`; prints the count per vowel. Shared with gcin_syllables.py."""
    os.makedirs(folder, exist_ok=True)
    for f, _, _, _, src in rows:
        convert(src, os.path.join(folder, f))
    write_tsv(os.path.join(folder, "vowels.tsv"),
              [("file", "text", "vowel", "kind", "source"), *rows])
    counts = {c: sum(1 for r in rows if r[2] == c) for c in "AIUEO"}
    print(f"{os.path.basename(folder)}: {len(rows)} files "
          + " ".join(f"{c} {n}" for c, n in counts.items()))


def write_tsv(path, rows):
    with open(path, "w", encoding="utf-8") as fh:
        for r in rows:
            fh.write("\t".join(str(x) for x in r) + "\n")


def safe_name(text):
    return re.sub(r"[/\\:\x00]", "_", text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--lang", action="append", help="only these languages (default: all usable)")
    ap.add_argument("--held-out", action="store_true",
                    help="allow es, it, pt_BR (the held-out evaluation languages; issue 39)")
    args = ap.parse_args()
    langs = args.lang or [l for l in LANGS if l not in HELD_OUT]
    for l in langs:
        if l not in LANGS:
            sys.exit(f"klettres_syllables: no vowel table for language {l!r}")
        if l in HELD_OUT and not args.held_out:
            sys.exit(f"klettres_syllables: {l} is held out for evaluation (issue 39); "
                     "pass --held-out only in the evaluation session")
    os.makedirs(args.out, exist_ok=True)
    skipped = [("language", "text", "source", "why")]
    seen_sources = set()
    for lang in langs:
        xml = os.path.join(ROOT, lang, "sounds.xml")
        if not os.path.exists(xml):
            print(f"klettres_syllables: {xml} missing (apt install klettres-data); {lang} skipped",
                  file=sys.stderr)
            continue
        root = ET.parse(xml).getroot()
        rows, names = [], {}
        for section in root.iter():
            kind = {"alphabet": "letter", "syllables": "syllable"}.get(section.tag)
            if not kind:
                continue
            for s in section.iter("sound"):
                text = unicodedata.normalize("NFC", s.get("name", "").strip()).upper()
                src = os.path.join(ROOT, s.get("file", ""))
                if kind == "letter":
                    v = LANGS[lang]["letters"].get(text)
                    why = None if v else "letter name does not end in a clear vowel"
                else:
                    v, why = syllable_vowel(lang, text)
                if not os.path.isfile(src):
                    v, why = None, "file missing"
                elif os.path.realpath(src) in seen_sources:
                    v, why = None, "same file as another language's"
                if not v:
                    skipped.append((lang, text, src, why))
                    continue
                seen_sources.add(os.path.realpath(src))
                base = safe_name(text)
                names[base] = names.get(base, 0) + 1
                if names[base] > 1:
                    base = f"{base}~{names[base]}"
                rows.append((base + ".wav", text, v, kind, src))
        if rows:
            write_speaker(os.path.join(args.out, lang), rows)
    write_tsv(os.path.join(args.out, "skipped.tsv"), skipped)


if __name__ == "__main__":
    main()
