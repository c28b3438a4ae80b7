#!/usr/bin/env python3
"""Research aid (issue 39): the calibration card, read live. Not part of the product.

usage: card_live_check.py OMOTE SYL_DIR WORK_DIR [--loso LOSO_DIR]

For each speaker folder of SYL_DIR (klettres_syllables.py's layout), its files in name
order are split into two alternating halves, and each half is made into one take: its files
back to back, 0.4 s of silence after each, with the card text of their vowels. A profile
is calibrated on one half's take (`omote lipsync calibrate --card`). The other half's take
is streamed through `omote lipsync live`, once with that profile and once without, as a
streamer's session would be. The measure's tail (the last 60 % of each file's voiced
frames) is scored against the file's vowel. With `--loso`, LOSO_DIR/without_SPEAKER.json
(from loso_syllables.py) is the base profile and the blind one, so nothing of the speaker
is in it.

Prints per speaker and the frame-weighted totals. Python 3 stdlib only.
"""
import argparse, os, subprocess, sys, wave

VOWELS = "AIUEON"
GAP_S = 0.4


def rows_of(folder):
    lines = open(os.path.join(folder, "vowels.tsv"), encoding="utf-8").read().splitlines()
    return sorted((l.split("\t") for l in lines[1:]), key=lambda r: r[0])


def make_take(folder, rows, path):
    """The rows' files back to back with GAP_S of silence after each (16 kHz mono 16-bit);
    returns [(start_s, end_s, vowel)] and the card text."""
    spans, text, frames, t = [], [], [], 0.0
    for r in rows:
        with wave.open(os.path.join(folder, r[0])) as w:
            if (w.getframerate(), w.getnchannels(), w.getsampwidth()) != (16000, 1, 2):
                sys.exit(f"{r[0]}: not 16 kHz mono 16-bit")
            pcm = w.readframes(w.getnframes())
        n = len(pcm) // 2
        spans.append((t, t + n / 16000, r[2]))
        frames.append(pcm + b"\0\0" * int(GAP_S * 16000))
        t += n / 16000 + GAP_S
        text.append(r[2].lower())
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(b"".join(frames))
    return spans, " ".join(text)


def live_score(omote, take, spans, profile):
    """(frames right, frames scored) of a take streamed through `omote lipsync live`."""
    with wave.open(take) as w:
        pcm = w.readframes(w.getnframes())
    cmd = [omote, "lipsync", "live", "-"] + (["--profile", profile] if profile else [])
    out = subprocess.run(cmd, input=pcm, capture_output=True, check=True).stdout.decode()
    rows = [l.split("\t") for l in out.splitlines()[1:]]
    frames = [(float(r[0]), [float(x) for x in r[1:7]], r[8].strip() in ("1", "true")) for r in rows]
    right = total = 0
    for a, b, vowel in spans:
        voiced = [w for t, w, silent in frames if a <= t < b and not silent]
        for w in voiced[int(0.4 * len(voiced)):]:
            right += int(max(range(6), key=lambda k: w[k]) == VOWELS.index(vowel))
            total += 1
    return right, total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("omote")
    ap.add_argument("syl_dir")
    ap.add_argument("work_dir")
    ap.add_argument("--loso", default=None)
    a = ap.parse_args()
    os.makedirs(a.work_dir, exist_ok=True)
    speakers = sorted(d for d in os.listdir(a.syl_dir) if os.path.isdir(os.path.join(a.syl_dir, d)))
    tot = {"blind": [0, 0], "card": [0, 0]}
    for spk in speakers:
        folder = os.path.join(a.syl_dir, spk)
        rows = rows_of(folder)
        base = os.path.join(a.loso, f"without_{spk}.json") if a.loso else None
        takes = []
        for h in (0, 1):
            path = os.path.join(a.work_dir, f"{spk}_{h}.wav")
            takes.append((path, *make_take(folder, rows[h::2], path)))
        res = {"blind": [0, 0], "card": [0, 0]}
        for h in (0, 1):
            scored, taught = takes[h], takes[1 - h]
            profile = os.path.join(a.work_dir, f"{spk}_card{1 - h}.json")
            cmd = [a.omote, "lipsync", "calibrate", "--card", taught[0], "--card-text", taught[2],
                   "-o", profile] + (["--profile", base] if base else [])
            c = subprocess.run(cmd, capture_output=True, text=True)
            if c.returncode != 0:
                print(f"{spk} half {1 - h}: {c.stderr.strip()}", file=sys.stderr)
                profile = base
            for name, p in (("blind", base), ("card", profile)):
                r, n = live_score(a.omote, scored[0], scored[1], p)
                res[name][0] += r
                res[name][1] += n
        for k in res:
            tot[k][0] += res[k][0]
            tot[k][1] += res[k][1]
        print(f"{spk:8} blind {100 * res['blind'][0] / max(res['blind'][1], 1):5.1f} %  "
              f"card {100 * res['card'][0] / max(res['card'][1], 1):5.1f} %  ({res['card'][1]} fr)", flush=True)
    print(f"{'all':8} blind {100 * tot['blind'][0] / tot['blind'][1]:5.1f} %  "
          f"card {100 * tot['card'][0] / tot['card'][1]:5.1f} %  ({tot['card'][1]} fr)")


if __name__ == "__main__":
    main()
