#!/usr/bin/env bash
# The C# frame's cost under Mono, against a release build of the native library:
# µs per Character.Step + reading weights and rotations (median of 9 runs of 10,000
# frames) and the managed bytes allocated. With `--rust`, also the criterion bench of
# the C ABI against the embedding API (crates/omote-ffi/benches/step.rs).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
case "$target" in /*) ;; *) target="$root/$target" ;; esac
out="$target/csharp-bench"

(cd "$root" && cargo build --quiet --release -p omote-ffi)
mkdir -p "$out"
mcs -langversion:7 -optimize+ -warnaserror+ -out:"$out/Bench.exe" \
  "$root"/bindings/unity/Runtime/Core/*.cs "$root/bindings/csharp/bench/Bench.cs"
ln -sf "$target/release/libomote_ffi.so" "$out/libomote_ffi.so"
LD_LIBRARY_PATH="$out${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" mono --optimize=all "$out/Bench.exe"

if [ "${1:-}" = "--rust" ]; then
  (cd "$root" && cargo bench --quiet -p omote-ffi --bench step)
fi
