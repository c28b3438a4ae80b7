#!/usr/bin/env python3
"""Japanese clips from the MBROLA diphone voices jp1 (male), jp2 and jp3 (female).

Diphones are cut from recordings of real Japanese speakers, so these are three human
vocal tracts that none of the Open JTalk (nitech) clips has: the closest this machine gets
to unseen Japanese voices. Timing comes from Open JTalk: its full-context labels (phones
and durations of the nitech model) are rewritten in each voice's phoneme set and rendered
by mbrola, so the labels are exact. Pitch is a plain declining contour (no accent).

Needs Debian packages open-jtalk open-jtalk-mecab-naist-jdic hts-voice-nitech-jp-atr503-m001
mbrola mbrola-jp1 mbrola-jp2 mbrola-jp3 sox (hts-voice-* and mbrola-* are in Debian's
non-free component; the MBROLA voices' licence allows non-commercial use with the MBROLA
program: they fit statistics and score the analyser here, no audio is shipped).
Python 3 stdlib only.

usage: mbrola_ja_set.py OUT_DIR

Writes OUT_DIR/ja_mbrola_<voice>_tNN.wav + .lab.tsv for the 40 texts of texts_ja.txt and
manifest.tsv (clip, language, source = mbrola_<voice>). Devoiced vowels: jp2 and jp3 have
voiceless i_0 u_0 (labelled N, as MAPPING.md says); jp1 has none, so they are rendered
voiced and labelled with their vowel. Deterministic.
"""
import os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_training_set import DIC, VOICE, ojt_labels, wav_duration, write_lab  # noqa: E402

VOICES = {"jp1": 120.0, "jp2": 210.0, "jp3": 230.0}  # voice -> starting F0 (Hz)
VOWELS = {"a": "A", "i": "I", "u": "U", "e": "E", "o": "O"}
PALATAL = {"ky": "k", "gy": "g", "ny": "n", "hy": "h", "by": "b", "py": "p", "my": "m",
           "ry": "r", "dy": "d", "ty": "t"}
# Open JTalk consonants -> each voice's symbols (jp1 README / jp2, jp3 README).
JP1 = {"g": "G", "r": "rr", "y": "j", "sh": "S", "ch": "tS", "j": "dZ", "N": "N"}
JP23 = {"y": "j", "sh": "S", "ch": "tS", "j": "dZ", "N": "N:"}
JP1_GEMINATE = {"k": "Qk", "t": "Qt", "p": "Qp", "sh": "QS", "s": "Qs", "ts": "Qts",
                "ch": "QtS", "d": "Qd"}


def to_pho(voice, labs):
    """[(start, end, class, ojt phone)] -> [(mbrola phone, ms, class, label phone)]."""
    table = JP1 if voice == "jp1" else JP23
    out = []
    for k, (s, e, _, ph) in enumerate(labs):
        ms = max(10, round((e - s) * 1000))
        nxt = labs[k + 1][3] if k + 1 < len(labs) else "sil"
        if ph in ("sil", "pau"):
            out.append(("_", ms, "S", ph))
        elif ph in VOWELS:
            out.append((ph, ms, VOWELS[ph], ph))
        elif ph in ("I", "U") and voice != "jp1":
            out.append((ph.lower() + "_0", ms, "N", ph))
        elif ph in ("A", "I", "U", "E", "O"):
            v = ph.lower()
            out.append((v, ms, VOWELS[v], ph))
        elif ph == "cl":
            sym = JP1_GEMINATE.get(nxt[:2] if nxt in ("sh", "ch", "ts") else nxt[:1], "Qt") \
                if voice == "jp1" else "Q"
            out.append((sym, ms, "N", ph))
        elif ph in PALATAL:
            c = PALATAL[ph]
            first = max(10, ms * 6 // 10)
            out.append((table.get(c, "rr" if (voice == "jp1" and c == "r") else c), first, "N", ph))
            out.append(("j", max(10, ms - first), "N", ph))
        else:
            out.append((table.get(ph, ph), ms, "N", ph))
    return out


def write_pho(path, pho, f0):
    total = sum(ms for _, ms, _, _ in pho)
    t = 0
    with open(path, "w") as f:
        for sym, ms, cls, _ in pho:
            # Declining from f0 to 0.8 f0 over the clip, a pitch point mid-phone.
            hz = f0 * (1.0 - 0.2 * (t + ms / 2) / max(total, 1))
            t += ms
            f.write(f"{sym} {ms}" + (f" 50 {hz:.0f}" if sym != "_" else "") + "\n")


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    texts = [t.strip() for t in open(os.path.join(HERE, "texts_ja.txt"), encoding="utf-8")
             if t.strip()]
    rows = []
    for ti, text in enumerate(texts):
        base = os.path.join(out, f"_ojt_t{ti:02d}")
        open(base + ".txt", "w", encoding="utf-8").write(text + "\n")
        subprocess.run(["open_jtalk", "-x", DIC, "-m", VOICE, "-ow", base + ".wav",
                        "-ot", base + ".trace", base + ".txt"], check=True)
        labs = ojt_labels(base + ".trace")
        for voice, f0 in VOICES.items():
            name = f"ja_mbrola_{voice}_t{ti:02d}"
            pho = to_pho(voice, labs)
            write_pho(os.path.join(out, name + ".pho"), pho, f0)
            wav = os.path.join(out, name + ".wav")
            subprocess.run(["mbrola", "-e", f"/usr/share/mbrola/{voice}/{voice}",
                            os.path.join(out, name + ".pho"), wav],
                           check=True, capture_output=True)
            os.remove(os.path.join(out, name + ".pho"))
            duration = wav_duration(wav)
            # Segments from the rendered durations, clipped to the audio (write_lab ends
            # the last one at the audio's end).
            segs, t = [], 0.0
            for _, ms, cls, ph in pho:
                end = min(t + ms / 1000, duration)
                if end > t:
                    segs.append((t, end, cls, ph))
                t = end
            write_lab(os.path.join(out, name + ".lab.tsv"), segs, duration)
            rows.append(f"{name}\tja\tmbrola_{voice}")
        for ext in (".txt", ".trace", ".wav"):
            os.remove(base + ext)
    with open(os.path.join(out, "manifest.tsv"), "w") as f:
        f.write("clip\tlanguage\tsource\n" + "\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
