"""Lip-syncs a folder of voice lines on a Dask cluster, writing the same files as
`omote lipsync DIR --out OUT` (byte for byte).

    python examples/python/dask_lipsync.py VOICES/ --out OUT [--workers 2] [--scheduler ADDR]

As the CLI does, the files of one folder are one speaker's lines, and each line is read
against the speaker's other lines. That takes two passes, both on the cluster:

1. each chunk of a folder's files is read into an `omote.Speaker` (a task per chunk);
   the chunks' speakers are gathered, in the folder's order, into the folder's voice
   (`Speaker.add_speaker`: the same voice, to the bit, as one process adding every line);
2. each chunk is analysed against that voice and its files written (a task per chunk).

A file omote cannot read (not audio, empty, cut off before its samples) is reported and
left out of its speaker's voice, as the CLI does; the others are written and the run
exits 1. Two files that would write the same output name (`a/line_1.wav`, `b/line_1.wav`)
are refused before anything runs, as the CLI refuses them.

Speakers travel between processes by pickle (their exact numbers). omote releases the
GIL while it works, so threads per worker scale too. Without --scheduler a LocalCluster
with --workers processes (one thread each) runs on this machine.

Throughput: 277x real time on two worker processes of a 2-core machine (about 140x per
worker; the CLI's `--jobs 2` gives 3,880x there): each file is decoded and analysed in
both passes. A library of N hours needs about N x 26 s of worker time.
"""

import argparse
import os
import sys
import time

from dask.distributed import Client, LocalCluster

import omote

AUDIO_EXTS = {".wav", ".flac", ".ogg", ".oga", ".mp3", ".wave"}
WRITERS = {
    "json": ("lipsync.json", lambda t, name: t.to_json(name)),
    "tsv": ("lipsync.tsv", lambda t, name: t.to_tsv()),
    # Rhubarb's soundFile is the input's absolute path, as the CLI (and Rhubarb) write it.
    "rhubarb-json": ("rhubarb.json", lambda t, name: t.to_rhubarb_json(os.path.abspath(name))),
    "rhubarb-tsv": ("rhubarb.tsv", lambda t, name: t.to_rhubarb_tsv()),
    "rhubarb-xml": ("rhubarb.xml", lambda t, name: t.to_rhubarb_xml(os.path.abspath(name))),
}


def collect(paths):
    """The audio files behind `paths` in the CLI's order: folders walked depth first,
    entries sorted by name, each file once (by its real path)."""
    out, seen = [], set()

    def walk(folder):
        for name in sorted(os.listdir(folder)):
            p = os.path.join(folder, name)
            real = os.path.realpath(p)
            if not os.path.exists(p):
                continue
            if os.path.isdir(p):
                if real not in seen:
                    seen.add(real)
                    walk(p)
            elif os.path.splitext(name)[1].lower() in AUDIO_EXTS and real not in seen:
                seen.add(real)
                out.append(p)

    for p in paths:
        real = os.path.realpath(p)
        if real in seen:
            continue
        seen.add(real)
        walk(p) if os.path.isdir(p) else out.append(p)
    return out


def output_name(f, fmt):
    """The file `f`'s result is written to, in the output folder (the CLI's name)."""
    return f"{os.path.splitext(os.path.basename(f))[0]}.{WRITERS[fmt][0]}"


def read_voice(files):
    """Pass 1: a chunk's lines as a speaker, the files it could read, and the errors
    of those it could not (a refused line changes nothing in the speaker)."""
    speaker, read, failed = omote.Speaker(), [], []
    for f in files:
        try:
            speaker.add_line(f)
            read.append(f)
        except omote.OmoteError as e:
            failed.append(str(e))
    return speaker, read, failed


def gather(*parts):
    """A folder's voice from its chunks, in order."""
    voice = omote.Speaker()
    for part in parts:
        voice.add_speaker(part[0])
    return voice


def write_chunk(part, voice, out, fmt):
    """Pass 2: each line read in pass 1 against its speaker's voice, written whole or
    not at all; returns the files written, their audio's length and the errors."""
    _, files, failed = part
    failed = list(failed)
    ext, render = WRITERS[fmt]
    audio_s, written = 0.0, 0
    for f in files:
        try:
            track = omote.lipsync(f, speaker=voice)
        except omote.OmoteError as e:
            failed.append(str(e))
            continue
        audio_s += track.duration
        written += 1
        text = render(track, f)
        stem = os.path.splitext(os.path.basename(f))[0]
        path = os.path.join(out, f"{stem}.{ext}")
        tmp = os.path.join(out, f".{stem}.{ext}.tmp{os.getpid()}")
        with open(tmp, "w", encoding="utf-8") as w:
            w.write(text)
            w.flush()
            os.fsync(w.fileno())
        os.replace(tmp, path)
    return written, audio_s, failed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--format", choices=sorted(WRITERS), default="json")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--chunk", type=int, default=8, help="files per task")
    ap.add_argument("--scheduler", help="a running scheduler's address")
    args = ap.parse_args()

    files = collect(args.paths)
    writes = {}
    for f in files:
        name = output_name(f, args.format)
        if name in writes:
            out = os.path.join(args.out, name)
            sys.exit(f"dask_lipsync: {writes[name]} and {f} would both write {out}")
        writes[name] = f
    groups = {}
    for f in files:
        groups.setdefault(os.path.dirname(f), []).append(f)
    os.makedirs(args.out, exist_ok=True)
    cluster = None
    if args.scheduler:
        client = Client(args.scheduler)
    else:
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True)
        client = Client(cluster)
    started = time.perf_counter()
    done = []
    for group in groups.values():
        chunks = [group[i : i + args.chunk] for i in range(0, len(group), args.chunk)]
        parts = [client.submit(read_voice, c, pure=False) for c in chunks]
        voice = client.submit(gather, *parts, pure=False)
        done += [client.submit(write_chunk, p, voice, args.out, args.format, pure=False) for p in parts]
    results = client.gather(done)
    took = time.perf_counter() - started
    written, audio_s = sum(r[0] for r in results), sum(r[1] for r in results)
    failed = [e for r in results for e in r[2]]
    for e in failed:
        print(f"dask_lipsync: {e}", file=sys.stderr)
    cores = sum(client.nthreads().values())
    print(
        f"dask_lipsync: {written} files, {len(groups)} speaker(s), {audio_s:.1f} s of audio "
        f"in {took:.2f} s on {cores} worker thread(s): {audio_s / took:.0f}x real time"
    )
    client.close()
    if cluster is not None:
        cluster.close()
    if failed:
        print(f"dask_lipsync: {written} of {len(files)} files analysed, {len(failed)} failed", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
