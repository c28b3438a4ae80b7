#!/usr/bin/env python3
"""Real recorded Mandarin syllables, two speakers, for the syllable measure (issue 39).

usage: gcin_syllables.py OUT_DIR

gcin-voice (Debian `gcin-voice`, the gcin input method's pronunciations) ships every Mandarin
syllable of the Zhuyin (bopomofo) table, with its tone, recorded by two people: `3.ogg` by Edward
Der-Hua Liu (GPL-3 or LGPL-3) and `5.ogg` by the voice actor Chu Lo (羅竺, for the ChionMeilin
project; CC-BY-3.0), 44.1 kHz, about 0.3 s each. A folder's name is the syllable in Zhuyin with
its tone digit (none: the first tone). Both are human recordings, as KLettres' are, and are
written in the same form as `klettres_syllables.py`'s, one folder per speaker:

  OUT_DIR/zh_liu/TEXT.wav, OUT_DIR/zh_lo/TEXT.wav   16-bit mono PCM at 16 kHz
  OUT_DIR/SPEAKER/vowels.tsv                        file, text, vowel, kind, source
  OUT_DIR/skipped_gcin.tsv                          speaker, text, source, why

A syllable is kept when its final ends in one of A I U E O without doubt (the end of its voiced
part is that vowel; `omote lipsync eval --syllables` scores the last 60 % of the voiced frames):

  ㄚ ㄧㄚ ㄨㄚ  a        → A
  ㄧ           i        → I   (the apical "i" of zhi chi shi ri zi ci si is written with no
                                final at all, and is left out with the bare initials)
  ㄨ           u        → U
  ㄝ ㄧㄝ ㄩㄝ  ê ie üe  → E   (as Czech ě: the glide is the consonant's)
  ㄛ ㄨㄛ ㄧㄛ  o uo yo  → O

Left out: ㄩ ü [y] (a front vowel under rounded lips: neither I nor U without doubt), ㄜ e [ɤ]
(unrounded mid back: between A, O and E), the diphthongs ㄞ ㄟ ㄠ ㄡ (the tail is the offglide),
the nasal and rhotic finals ㄢ ㄣ ㄤ ㄥ ㄦ (a voiced coda), and a bare initial (ㄓ … ㄙ alone
are the apical syllables; ㄅ … ㄒ alone are letter names whose vowel the table does not say).
Deterministic (folders in sorted order). Python 3 stdlib, ffmpeg and klettres_syllables.py
(beside it: the folder form).
"""
import argparse, os, sys

from klettres_syllables import write_speaker, write_tsv  # the same folder form

ROOT = "/usr/share/gcin-voice/ogg"
# The file in each syllable folder -> the speaker folder it goes to (3.ogg: Edward Der-Hua
# Liu, 5.ogg: Chu Lo).
SPEAKERS = {"3.ogg": "zh_liu", "5.ogg": "zh_lo"}
INITIALS = set("ㄅㄆㄇㄈㄉㄊㄋㄌㄍㄎㄏㄐㄑㄒㄓㄔㄕㄖㄗㄘㄙ")
FINALS = {"ㄚ": "A", "ㄧㄚ": "A", "ㄨㄚ": "A",
          "ㄧ": "I",
          "ㄨ": "U",
          "ㄝ": "E", "ㄧㄝ": "E", "ㄩㄝ": "E",
          "ㄛ": "O", "ㄨㄛ": "O", "ㄧㄛ": "O"}


def syllable_vowel(name):
    """(vowel, None) or (None, why) for a folder name such as ㄅㄧㄝ2."""
    text = name.rstrip("0123456789")
    final = text[1:] if text[:1] in INITIALS else text
    if not final:
        return None, "bare initial (apical syllable or letter name)"
    v = FINALS.get(final)
    return (v, None) if v else (None, f"final {final} does not end in a clear A I U E O")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    args = ap.parse_args()
    if not os.path.isdir(ROOT):
        sys.exit(f"gcin_syllables: {ROOT} missing (apt install gcin-voice)")
    skipped = [("speaker", "text", "source", "why")]
    rows = {spk: [] for spk in SPEAKERS.values()}
    for name in sorted(os.listdir(ROOT)):
        v, why = syllable_vowel(name)
        for f, spk in SPEAKERS.items():
            src = os.path.join(ROOT, name, f)
            if not os.path.isfile(src):
                continue
            if not v:
                skipped.append((spk, name, src, why))
                continue
            rows[spk].append((name + ".wav", name, v, "syllable", src))
    os.makedirs(args.out, exist_ok=True)
    for spk, rs in rows.items():
        write_speaker(os.path.join(args.out, spk), rs)
    write_tsv(os.path.join(args.out, "skipped_gcin.tsv"), skipped)


if __name__ == "__main__":
    main()
