#!/usr/bin/env bash
# Soak run of `omote live` for issue 14's memory figure: a replayed take at a high rate
# in a loop, the VMC output to the discard port, the live page's WebSocket read by a Node
# client, an audio file as the microphone; the resident memory sampled every 10 s.
#
#   tools/live-soak/soak.sh SECONDS [OMOTE_BINARY]   → live-soak.tsv (seconds, RSS KiB)
#
# last-run.tsv is the run reported for issue 14: 1860 s, 5.58 M tracking results, 837 k
# faces out to VMC and a connected page client: 17 212 KiB after the first minute and at
# the end.
#
# Prints the RSS after the first minute and at the end, and their ratio.
set -euo pipefail
secs="${1:-1800}"
omote="${2:-target/release/omote}"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
python3 - "$work/take.jsonl" <<'PY'
import sys
out = []
for i in range(300):
    t = i / 30
    jaw = 0.9 if (t % 4) >= 2 else 0.0
    out.append('{"t":%.4f,"width":640,"height":480,"faces":[{"blendshapes":{"jawOpen":%s,"eyeBlinkLeft":%s},"transform":[1,0,0,0,0,1,0,0,0,0,1,-40,0,0,0,1]}]}' % (t, jaw, jaw / 2))
open(sys.argv[1], "w").write("\n".join(out) + "\n")
PY
python3 - "$work/voice.wav" <<'PY'
import math, struct, sys, wave
# 4 s: half-second buzzes (a 150 Hz pulse train, voice-like) and half-second pauses.
w = wave.open(sys.argv[1], "wb")
w.setnchannels(1); w.setsampwidth(2); w.setframerate(16000)
frames = []
for i in range(16000 * 4):
    t = i / 16000
    on = (t % 1.0) < 0.5
    v = sum(math.sin(2 * math.pi * 150 * k * t) / k for k in range(1, 12)) if on else 0.0
    frames.append(struct.pack("<h", int(4000 * v)))
w.writeframes(b"".join(frames))
PY
port=$((20000 + RANDOM % 20000))
"$omote" live --replay "$work/take.jsonl" --loop --replay-speed 100 --audio "$work/voice.wav" \
  --vmc-out 127.0.0.1:9 --view "127.0.0.1:$port" --seconds "$secs" 2> "$work/live.err" &
pid=$!
sleep 1
node "$here/ws-client.mjs" "127.0.0.1:$port" > "$work/ws.log" 2>&1 &
client=$!
echo -e "seconds\trss_kib" > live-soak.tsv
start=$(date +%s)
while kill -0 "$pid" 2>/dev/null; do
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
  [ -n "$rss" ] && echo -e "$(( $(date +%s) - start ))\t$rss" >> live-soak.tsv
  sleep 10
done
kill "$client" 2>/dev/null || true
tail -5 "$work/live.err"
tail -1 "$work/ws.log" || true
awk -F'\t' 'NR>1 && $1>=60 && !first {first=$2} NR>1 {last=$2} END {printf "RSS after 1 min: %d KiB, at the end: %d KiB, ratio %.3f\n", first, last, last/first}' live-soak.tsv
