#!/usr/bin/env python3
"""English training clips from espeak-ng voice variants, labelled from phoneme events.

usage: espeak_events.py OUT_DIR    (called by make_training_set.py)

Synthesises texts_en.txt through libespeak-ng (ctypes, synchronous mode with
espeakINITIALIZE_PHONEME_EVENTS); each phoneme event's audio position starts a segment.
Classes follow shared/data/speech/MAPPING.md (espeak-ng en-us mnemonics). Variants use
espeak's voice variants (+m*, +f*: different formant scaling and pitch) and rates, so none
is the evaluation set's default en-us voice at 175 wpm.
"""
import ctypes, os, struct, sys, wave

HERE = os.path.dirname(os.path.abspath(__file__))
A = "a a# aa A: A@ A V @ @2 @5 @L 0 aI aI@ aI3 aU aU@".split()
I = "I I# I2 i i: i@ i@3".split()
U = "U u: U@ 3 3: 3:r".split()
E = "eI E e e@".split()
O = "OI oU O O: O2 O@ o@ o:".split()
CLASS = {**{p: "A" for p in A}, **{p: "I" for p in I}, **{p: "U" for p in U},
         **{p: "E" for p in E}, **{p: "O" for p in O}}
VARIANTS = [("en-us+m1", 160), ("en-us+m3", 190), ("en-us+f2", 170), ("en-us+f4", 150),
            ("en-us+m7", 180), ("en-us+f1", 200), ("en+m2", 165), ("en+f3", 175)]


class Event(ctypes.Structure):
    class Id(ctypes.Union):
        _fields_ = [("number", ctypes.c_int), ("name", ctypes.c_char_p), ("string", ctypes.c_char * 8)]
    _fields_ = [("type", ctypes.c_int), ("unique_identifier", ctypes.c_uint), ("text_position", ctypes.c_int),
                ("length", ctypes.c_int), ("audio_position", ctypes.c_int), ("sample", ctypes.c_int),
                ("user_data", ctypes.c_void_p), ("id", Id)]


def main():
    out = sys.argv[1]
    lib = ctypes.cdll.LoadLibrary("libespeak-ng.so.1")
    rate = lib.espeak_Initialize(2, 0, None, 1)  # SYNCHRONOUS, PHONEME_EVENTS
    CB = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.POINTER(Event))
    state = {"audio": [], "events": []}

    def cb(wav, n, ev):
        if wav and n > 0:
            state["audio"].extend(wav[:n])
        i = 0
        while ev[i].type != 0:
            e = ev[i]
            if e.type == 7:
                state["events"].append((e.audio_position / 1000.0, e.id.string.decode("ascii", "replace")))
            i += 1
        return 0

    cbf = CB(cb)
    lib.espeak_SetSynthCallback(cbf)
    texts = [t.strip() for t in open(os.path.join(HERE, "texts_en.txt")) if t.strip()]
    unknown = {}
    for vi, (voice, wpm) in enumerate(VARIANTS):
        lib.espeak_SetVoiceByName(voice.encode())
        lib.espeak_SetParameter(1, wpm, 0)
        for ti, text in enumerate(texts):
            if (ti + vi) % 2:
                continue
            state["audio"], state["events"] = [], []
            b = text.encode("utf-8") + b"\0"
            lib.espeak_Synth(b, len(b), 0, 0, 0, 0x1, None, None)  # espeakCHARS_UTF8
            pad = int(0.4 * rate)
            audio = [0] * pad + state["audio"] + [0] * pad
            dur = len(audio) / rate
            name = f"en_train_v{vi:02d}_t{ti:02d}"
            with wave.open(os.path.join(out, name + ".wav"), "wb") as w:
                w.setnchannels(1); w.setsampwidth(2); w.setframerate(rate)
                w.writeframes(struct.pack(f"<{len(audio)}h", *audio))
            segs = [(0.0, "_")]
            for t, ph in state["events"]:
                segs.append((t + 0.4, ph))
            with open(os.path.join(out, name + ".lab.tsv"), "w") as f:
                f.write("start\tend\tclass\tphone\n")
                for k, (t, ph) in enumerate(segs):
                    end = segs[k + 1][0] if k + 1 < len(segs) else dur
                    if end <= t:
                        continue
                    if ph.startswith("_") or not ph:
                        c = "S"
                    else:
                        c = CLASS.get(ph, "N")
                        if c == "N" and any(ch in "aeiouAEIOU@03" for ch in ph):
                            unknown[ph] = unknown.get(ph, 0) + 1
                    f.write(f"{t:.3f}\t{end:.3f}\t{c}\t{ph}\n")
    if unknown:
        print("espeak vowel-like mnemonics mapped to N:", unknown, file=sys.stderr)


if __name__ == "__main__":
    main()
