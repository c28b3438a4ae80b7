#!/usr/bin/env bash
# End-to-end speed of `omote lipsync DIR --jobs 1` on one core (issue 16): the whole
# process — start, decode, resample, analyse, write the JSON files — timed on a folder of
# real speech at the three common rates.
#
#   tools/lipsync/bench-batch.sh [OMOTE_BINARY] [RUNS]
#
# The folder: every clip of shared/data/speech converted to 48 kHz, 22.05 kHz and 16 kHz
# (16-bit PCM mono WAV, sox if installed, else ffmpeg), made once in a temp dir.
# Prints each run's wall time and the best and median as ×real time (audio seconds /
# wall seconds). Pinned to CPU 0 with taskset; the machine's load average is printed
# with the figures because it moves them.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="${1:-$root/target/release/omote}"
runs="${2:-7}"
speech="${OMOTE_SPEECH:-$root/../shared/data/speech}"
data="${TMPDIR:-/tmp}/omote-lipsync-bench"
[ -x "$bin" ] || { echo "bench-batch: $bin not found (cargo build --release -p omote-cli)" >&2; exit 1; }
[ -d "$speech" ] || { echo "bench-batch: $speech not found" >&2; exit 1; }

if [ ! -f "$data/.complete" ]; then
  rm -rf "$data"
  mkdir -p "$data/in"
  for wav in "$speech"/*.wav; do
    name="$(basename "$wav" .wav)"
    for rate in 48000 22050 16000; do
      out="$data/in/${name}_${rate}.wav"
      if command -v sox >/dev/null; then
        sox "$wav" -b 16 -c 1 "$out" rate -v "$rate"
      else
        # -bitexact and no metadata: a plain fmt + data file, as sox writes.
        ffmpeg -loglevel error -y -i "$wav" -ac 1 -ar "$rate" -c:a pcm_s16le -bitexact \
          -map_metadata -1 "$out"
      fi
    done
  done
  { command -v sox >/dev/null && echo sox || echo ffmpeg; } >"$data/.complete"
fi

seconds="$(python3 - "$data/in" <<'EOF'
import glob, sys, wave
total = 0.0
for f in glob.glob(sys.argv[1] + "/*.wav"):
    with wave.open(f) as w:
        total += w.getnframes() / w.getframerate()
print(f"{total:.3f}")
EOF
)"
files="$(ls "$data/in"/*.wav | wc -l)"
echo "bench-batch: $files files, $seconds s of audio (converted with $(cat "$data/.complete")); $bin; load average $(cut -d' ' -f1-3 /proc/loadavg)"

times=()
for i in $(seq "$runs"); do
  rm -rf "$data/out"
  start="$(date +%s.%N)"
  taskset -c 0 "$bin" lipsync "$data/in" --jobs 1 --out "$data/out" 2>/dev/null
  end="$(date +%s.%N)"
  t="$(echo "$end - $start" | bc -l)"
  times+=("$t")
  printf 'run %d: %.3f s\n' "$i" "$t"
done
n_out="$(ls "$data/out" | wc -l)"
[ "$n_out" = "$files" ] || { echo "bench-batch: $n_out outputs for $files inputs" >&2; exit 1; }
printf '%s\n' "${times[@]}" | sort -g | awk -v s="$seconds" '
  { t[NR] = $1 }
  END {
    med = (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
    printf "best %.3f s = %.0fx real time; median %.3f s = %.0fx real time\n", t[1], s / t[1], med, s / med
  }'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
