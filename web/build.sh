#!/usr/bin/env bash
# Builds the npm package into web/dist: omote-web for wasm32 with Debian's rustc-web
# (rustup's toolchain has no wasm32 standard library; this builds std from source),
# then wasm-bindgen's JS glue, then the package's own modules.
#
#   web/build.sh            needs: apt-get install rustc-web cargo-web rust-web-src lld binaryen,
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
command -v wasm-opt >/dev/null || { echo "web/build.sh: wasm-opt missing: apt-get install binaryen" >&2; exit 1; }
# Panics abort at once, with no message formatting: wasm32-unknown-unknown has no stderr and
# the package installs no panic hook, so a message would never be seen, and its formatting
# code is 14 KB of the gzipped wasm (the embedding API's contract is that nothing panics;
# errors reach JavaScript as `Error`s). The profile's `panic = "abort"` is overridden here
# because stable cargo cannot parse "immediate-abort" in Cargo.toml.
RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 RUSTFLAGS="-C linker=wasm-ld -Zunstable-options -Cpanic=immediate-abort" \
  /usr/bin/cargo build --profile web --target wasm32-unknown-unknown \
  -Zbuild-std=std,panic_abort -p omote-web --target-dir target/wasm
# binaryen's size pass on rustc's module, before wasm-bindgen: 3–4 KB of the gzipped
# package. After wasm-bindgen, binaryen 108 (Debian bookworm's) retypes the externref
# table wasm-bindgen made and the module no longer loads; before it, the table is not
# there yet. Only the features rustc's wasm32 target uses are enabled (`--all-features`
# lets binaryen emit typed function references, which engines refuse). Float
# arithmetic is left as written (no --fast-math), so the numbers stay equal to native.
# `--low-memory-unused`: Rust's module keeps its stack and data above 1 MB, so nothing
# lives in the first kilobyte the flag lets binaryen fold addresses into; the memory is the
# module's own, so it starts zeroed (`--zero-filled-memory`). 1.3 KB gzipped. If a later
# wasm-bindgen cannot read a module so optimised (its descriptor interpreter runs the
# module's `__wbindgen_describe_*` functions), this step is what to take out.
wasm="target/wasm/wasm32-unknown-unknown/web/omote_web.wasm"
wasm-opt -Oz --low-memory-unused --zero-filled-memory --enable-reference-types --enable-bulk-memory --enable-mutable-globals \
  --enable-sign-ext --enable-nontrapping-float-to-int --enable-multivalue --enable-simd \
  "$wasm" -o "${wasm%.wasm}.opt.wasm"
rm -rf "$here/dist"
mkdir -p "$here/dist"
wasm-bindgen --target web --no-typescript --remove-name-section --remove-producers-section \
  --out-dir "$here/dist" --out-name omote_web \
  "${wasm%.wasm}.opt.wasm"
cp "$here"/src/*.js "$here"/*.d.ts "$here/dist/"
# The worklet as one module with no imports: bundlers copy or inline (`data:` URL) the
# file `new URL('./voice-worklet.js', import.meta.url)` names, but never the modules it
# imports. esbuild (web/package.json's one dev dependency, `npm ci` in web/) joins the
# scope's TextDecoder/TextEncoder, the part of the glue the worklet uses and the
# processor; it also minifies the published modules (the readable ones are src/).
esbuild="$here/node_modules/.bin/esbuild"
[ -x "$esbuild" ] || (cd "$here" && npm ci --no-audit --no-fund)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$here"/src/*.js "$here/dist/omote_web.js" "$work/"
"$esbuild" "$work/voice-worklet.js" --bundle --format=esm --minify --legal-comments=none \
  --log-level=warning --outfile="$here/dist/voice-worklet.js"
rm "$here/dist/worklet-globals.js"
if grep -nE '(^|[;}])(import|export)[ {*]' "$here/dist/voice-worklet.js"; then
  echo "web/build.sh: dist/voice-worklet.js still imports or exports" >&2
  exit 1
fi
for f in index.js three-vrm.js voice-input.js vrm-applier.js omote_web.js; do
  "$esbuild" "$work/$f" --format=esm --minify-whitespace --minify-syntax --legal-comments=none \
    --log-level=warning --outfile="$here/dist/$f" --allow-overwrite
done
for f in "$here"/dist/*.wasm "$here"/dist/*.js; do
  printf '%-28s %8d bytes, %8d gzipped\n' "$(basename "$f")" "$(stat -c %s "$f")" "$(gzip -9c "$f" | wc -c)"
done
# The package as npm publishes it (dist, README, licences): the figure to keep ≤ 250 KB.
(cd "$here" && npm pack --dry-run --json 2>/dev/null | node -e 'const [p] = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log(`npm package: ${p.size} bytes gzipped (${p.unpackedSize} unpacked, ${p.entryCount} files)`)') || true
