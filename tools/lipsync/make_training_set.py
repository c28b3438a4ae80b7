#!/usr/bin/env python3
"""Generate the labelled training audio for omote-lipsync's built-in profile.

Reproducible (fixed texts, fixed parameter grid, no randomness). Needs Debian packages
open-jtalk open-jtalk-mecab-naist-jdic hts-voice-nitech-jp-atr503-m001 espeak-ng sox
(hts-voice-* is in Debian's non-free component), Python 3 stdlib only.

usage: make_training_set.py OUT_DIR

Writes OUT_DIR/NAME.wav + NAME.lab.tsv (same label format and class mapping as
shared/data/speech: start end class phone; MAPPING.md). The evaluation voice is nitech
m001 at its default parameters (all-pass alpha 0.55 at 48 kHz, no pitch shift), so every
Japanese variant here changes the voice: the all-pass constant -a (0.55 excluded) warps the
spectral envelope like a longer/shorter vocal tract, -fm shifts pitch, and a sox pitch
shift (which also scales formants) moves it further. Texts (texts_ja.txt) are not the
evaluation texts. English clips come from espeak-ng voice variants (phoneme events through
libespeak-ng), see espeak_events.py.
"""
import os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
DIC = "/var/lib/mecab/dic/open-jtalk/naist-jdic"
VOICE = "/usr/share/hts-voice/nitech-jp-atr503-m001/nitech_jp_atr503_m001.htsvoice"

# (alpha, half-tone pitch shift, sox pitch shift in cents after synthesis)
JA_VARIANTS = [
    (0.45, 4.0, 0), (0.48, 2.0, 0), (0.50, 0.0, 0), (0.52, -2.0, 0),
    (0.58, 0.0, 0), (0.60, -3.0, 0), (0.62, 2.0, 0),
    (0.50, 6.0, 300), (0.53, 8.0, 500), (0.47, 10.0, 400),
]

CLASS_OJT = {"a": "A", "i": "I", "u": "U", "e": "E", "o": "O", "pau": "S", "sil": "S"}


def ojt_labels(trace):
    """[Output label] section of an open_jtalk trace -> [(start_s, end_s, class, phone)]."""
    out, on = [], False
    for line in open(trace, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("[Output label]"):
            on = True
            continue
        if on:
            if not line.strip() or line.startswith("["):
                break
            s, e, ctx = line.split(" ", 2)
            ph = ctx.split("-", 1)[1].split("+", 1)[0]
            out.append((int(s) * 1e-7, int(e) * 1e-7, CLASS_OJT.get(ph, "N"), ph))
    return out


def write_lab(path, labs, duration):
    labs = list(labs)
    labs[-1] = (labs[-1][0], duration, labs[-1][2], labs[-1][3])
    with open(path, "w") as f:
        f.write("start\tend\tclass\tphone\n")
        for s, e, c, p in labs:
            f.write(f"{s:.3f}\t{e:.3f}\t{c}\t{p}\n")


def wav_duration(path):
    return float(subprocess.check_output(["soxi", "-D", path]).decode().strip())


def japanese(out):
    texts = [t.strip() for t in open(os.path.join(HERE, "texts_ja.txt"), encoding="utf-8") if t.strip()]
    for vi, (alpha, fm, cents) in enumerate(JA_VARIANTS):
        for ti, text in enumerate(texts):
            # Variants alternate halves of the texts so the set stays small (20 per variant).
            if (ti + vi) % 2:
                continue
            name = f"ja_train_v{vi:02d}_t{ti:02d}"
            wav = os.path.join(out, name + ".wav")
            tmp_txt = os.path.join(out, name + ".txt")
            trace = os.path.join(out, name + ".trace")
            open(tmp_txt, "w", encoding="utf-8").write(text + "\n")
            raw = wav if cents == 0 else wav + ".raw.wav"
            subprocess.run(["open_jtalk", "-x", DIC, "-m", VOICE, "-a", str(alpha), "-fm", str(fm),
                            "-ow", raw, "-ot", trace, tmp_txt], check=True)
            if cents:
                subprocess.run(["sox", "-R", raw, wav, "pitch", str(cents)], check=True)
                os.remove(raw)
            labs = ojt_labels(trace)
            write_lab(os.path.join(out, name + ".lab.tsv"), labs, wav_duration(wav))
            os.remove(tmp_txt)
            os.remove(trace)


EN_SHIFTS = [-300, 250]


def english_shifted(out):
    """sox pitch shifts (formants move with pitch) of the espeak clips of variants 0-3."""
    for name in sorted(os.listdir(out)):
        if not (name.startswith("en_train_v0") and name.endswith(".wav")) or name[11] not in "0123":
            continue
        base = name[:-4]
        for k, cents in enumerate(EN_SHIFTS):
            dst = os.path.join(out, f"en_shift{k}_{base[9:]}")
            subprocess.run(["sox", "-R", os.path.join(out, name), dst + ".wav", "pitch", str(cents)], check=True)
            with open(os.path.join(out, base + ".lab.tsv")) as src, open(dst + ".lab.tsv", "w") as d:
                d.write(src.read())


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    japanese(out)
    if os.path.exists(os.path.join(HERE, "espeak_events.py")):
        subprocess.run([sys.executable, os.path.join(HERE, "espeak_events.py"), out], check=True)
        english_shifted(out)


if __name__ == "__main__":
    main()
