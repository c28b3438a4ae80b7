#!/usr/bin/env bash
# Builds the npm package into web/dist: omote-web for wasm32 with Debian's rustc-web
# (rustup's toolchain has no wasm32 standard library; this builds std from source),
# then wasm-bindgen's JS glue, then the package's own modules.
#
#   web/build.sh            needs: apt-get install rustc-web cargo-web rust-web-src lld,
#                           and wasm-bindgen-cli of the crate's version on the PATH
#                           (cargo install wasm-bindgen-cli --version 0.2.130)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
cd "$root"
want="$(sed -n 's/^wasm-bindgen = "=\(.*\)"$/\1/p' crates/omote-web/Cargo.toml)"
have="$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" || true
if [ "$have" != "$want" ]; then
  echo "web/build.sh: wasm-bindgen $want is needed (found: ${have:-none}): cargo install wasm-bindgen-cli --version $want" >&2
  exit 1
fi
[ -x /usr/bin/rustc ] || { echo "web/build.sh: /usr/bin/rustc missing: apt-get install rustc-web cargo-web rust-web-src lld" >&2; exit 1; }
RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 RUSTFLAGS="-C linker=wasm-ld" \
  /usr/bin/cargo build --profile web --target wasm32-unknown-unknown \
  -Zbuild-std=std,panic_abort -p omote-web --target-dir target/wasm
rm -rf "$here/dist"
mkdir -p "$here/dist"
wasm-bindgen --target web --no-typescript --remove-name-section --remove-producers-section \
  --out-dir "$here/dist" --out-name omote_web \
  target/wasm/wasm32-unknown-unknown/web/omote_web.wasm
cp "$here"/src/*.js "$here"/*.d.ts "$here/dist/"
# The worklet as one module with no imports: bundlers copy or inline (`data:` URL) the
# file `new URL('./voice-worklet.js', import.meta.url)` names, but never the modules it
# imports. So: the scope's TextDecoder/TextEncoder (in a block of its own), the glue
# (its exports made plain declarations) and the processor, in that order.
{
  echo "// omote's voice worklet, one self-contained module (made by web/build.sh from"
  echo "// src/worklet-globals.js, wasm-bindgen's omote_web.js and src/voice-worklet.js)."
  echo "{"
  cat "$here/src/worklet-globals.js"
  echo "}"
  sed -e 's/^export class /class /' -e 's/^export function /function /' -e '/^export {.*};$/d' "$here/dist/omote_web.js"
  sed -e '/^import /d' "$here/src/voice-worklet.js"
} > "$here/dist/voice-worklet.js"
rm "$here/dist/worklet-globals.js"
if grep -nE '^(import|export)[ {]' "$here/dist/voice-worklet.js"; then
  echo "web/build.sh: dist/voice-worklet.js still imports or exports (the glue's shape changed?)" >&2
  exit 1
fi
for f in "$here"/dist/*.wasm "$here"/dist/*.js; do
  printf '%-28s %8d bytes, %8d gzipped\n' "$(basename "$f")" "$(stat -c %s "$f")" "$(gzip -9c "$f" | wc -c)"
done
