#!/usr/bin/env bash
# Rebuild crates/omote-lipsync/assets/default_profile.json from generated training audio.
#
#   tools/lipsync/build-default-profile.sh [WORK_DIR]
#
# 1. make_training_set.py synthesises labelled clips (Open JTalk nitech m001 with changed
#    all-pass alpha / pitch / sox pitch shift, espeak-ng voice variants) into WORK_DIR
#    (default target/lipsync-train; a few hundred MB, never committed); mbrola_set.py adds
#    English clips from the MBROLA diphone voices us1/us2/us3/en1 (real speakers' diphones);
#    klettres_syllables.py writes KLettres' real recorded syllables (14 human speakers, Debian
#    klettres-data; never Spanish, Italian or Brazilian Portuguese: the held-out evaluation),
#    gcin_syllables.py gcin-voice's Mandarin syllables (2 human speakers, Debian gcin-voice),
#    qabcs_syllables.py qABCs' letters and one-syllable words (7 human speakers, Debian
#    qabcs-data).
# 2. `omote lipsync calibrate --build --with-variants` pools their labelled frames into
#    class profiles — one Gaussian per phone with at least 1000 frames (the label files'
#    phone column), a class's rarer phones together, N's log-prior −1 — each clip also as heard in a noisy room (pink noise 10 and 20 dB under
#    the speech), from a quiet actor (-28 dBFS over a -62 dBFS floor) and over 60 Hz hum
#    (omote_lipsync::degrade::TrainingCondition; `eval` scores neighbouring conditions),
#    each clip normalised with its voice's cepstral mean (clips VOICE_tNN, per condition),
#    as `omote lipsync` reads one folder's files. The syllables' vowel frames teach only
#    each vowel's real-voice Gaussian (`--real-syllables`; crate's EVALUATION.md, "Real voices in the
#    profile").
# Deterministic: same packages, same output. None of shared/data/speech is used.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="${1:-$root/target/lipsync-train}"
# The real voices' packages, checked first: without one the profile would quietly be
# another profile than the shipped one.
for need in /usr/share/klettres:klettres-data /usr/share/gcin-voice/ogg:gcin-voice \
            /usr/share/qabcs/abcs:qabcs-data; do
  [ -d "${need%%:*}" ] || { echo "build-default-profile.sh: ${need%%:*} is missing (apt-get install ${need##*:})" >&2; exit 2; }
done
python3 "$root/tools/lipsync/make_training_set.py" "$work"
python3 "$root/tools/lipsync/mbrola_set.py" "$work"
python3 "$root/tools/lipsync/klettres_syllables.py" "$work/syllables"
python3 "$root/tools/lipsync/gcin_syllables.py" "$work/syllables"
python3 "$root/tools/lipsync/qabcs_syllables.py" "$work/syllables"
cargo run -q --release -p omote-cli -- lipsync calibrate --build --with-variants --speaker-from-name --labelled-dir "$work" \
    --real-syllables "$work/syllables" \
    ${OMOTE_PROFILE_FLAGS:-} -o "$root/crates/omote-lipsync/assets/default_profile.json"
n=$(ls "$work"/*.lab.tsv | wc -l)
sed -i "s|\"description\": \"built from [0-9]* labelled clips\"|\"description\": \"built-in: tools/lipsync/build-default-profile.sh, $n generated clips (Open JTalk nitech variants, espeak-ng en variants, MBROLA us1 us2 us3 en1), each also noisy, quiet and over hum; phone subclasses; voice cepstral means; real-voice Gaussians from KLettres, gcin-voice and qABCs syllables (23 speakers)\"|" \
    "$root/crates/omote-lipsync/assets/default_profile.json"
# Compact (no indentation): the asset is compiled into the wasm package, whose size is
# budgeted (web/README.md). The numbers' text is kept as written.
python3 -c 'import json, sys; p = sys.argv[1]; d = json.load(open(p)); open(p, "w").write(json.dumps(d, separators=(",", ":"), ensure_ascii=False) + "\n")' \
    "$root/crates/omote-lipsync/assets/default_profile.json"
