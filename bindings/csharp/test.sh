#!/usr/bin/env bash
# The C# layer (bindings/unity/Runtime/Core) tested for real under Mono with NUnit:
# builds the cdylib, compiles and runs examples/c/face.c (the parity test's reference),
# compiles Runtime/Core + bindings/csharp/tests with mcs, runs nunit-console (and first
# checks that stand-in stale plug-ins, stale/plugin.c, are refused at start-up), prints
# `N passed, N failed` and exits non-zero on any failure or when no test ran.
#
# Needs: cargo, cc, and Debian's mono-mcs mono-runtime nunit-console libnunit-cil-dev.
# Uses CARGO_TARGET_DIR when set (as the workspace tests do), else the repo's target/.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
case "$target" in /*) ;; *) target="$root/$target" ;; esac
out="$target/csharp"
lib="$target/debug"

for tool in mcs mono nunit-console cc; do
  command -v "$tool" >/dev/null || { echo "test.sh: $tool is missing (apt-get install mono-mcs mono-runtime nunit-console libnunit-cil-dev gcc)" >&2; exit 2; }
done
nunit_dll="$(ls /usr/lib/cli/nunit.framework-2.6*/nunit.framework.dll 2>/dev/null | head -n1 || true)"
[ -n "$nunit_dll" ] || { echo "test.sh: nunit.framework.dll not found under /usr/lib/cli (libnunit-cil-dev)" >&2; exit 2; }

(cd "$root" && cargo build --quiet -p omote-ffi)
[ -f "$lib/libomote_ffi.so" ] || { echo "test.sh: no $lib/libomote_ffi.so" >&2; exit 2; }

rm -rf "$out"
mkdir -p "$out"

# The parity reference: the C example, as crates/omote-ffi/tests/c_example.rs builds it.
cc -std=c11 -O1 -ffp-contract=off -Wall -Wextra -Werror -I "$root/include" \
  "$root/examples/c/face.c" -L "$lib" -lomote_ffi "-Wl,-rpath,$lib" -o "$out/face"
"$out/face" > "$out/face-c.txt"
# The demo scene through the C ABI, its files read by a resolver in C (examples/c/scene.c).
cc -std=c11 -O1 -Wall -Wextra -Werror -I "$root/include" \
  "$root/examples/c/scene.c" -L "$lib" -lomote_ffi "-Wl,-rpath,$lib" -o "$out/scene"
"$out/scene" "$root/examples/scenes/demo/scene.toml" 1200 > "$out/scene-c.txt" 2>/dev/null

# One assembly: the engine-neutral layer (the Unity package's only copy) + the tests.
mcs -target:library -langversion:7 -debug -warnaserror+ -nowarn:1591 \
  -r:"$nunit_dll" -out:"$out/Omote.Tests.dll" \
  "$root"/bindings/unity/Runtime/Core/*.cs "$root"/bindings/csharp/tests/*.cs
cp "$nunit_dll" "$out/"
ln -sf "$lib/libomote_ffi.so" "$out/libomote_ffi.so"

# A plug-in of another build next to these scripts: stand-ins (stale/plugin.c) for one
# older than the scripts' functions (no omote_abi_minor), one with more additions, and
# one of another ABI version; Library.CheckAbi must refuse the first and last by name.
abi="$(sed -n 's/^#define OMOTE_ABI_VERSION \([0-9]*\)$/\1/p' "$root/include/omote.h")"
mkdir -p "$out/stale"
mcs -langversion:7 -warnaserror+ -nowarn:1591 -out:"$out/stale/check.exe" \
  "$root"/bindings/unity/Runtime/Core/*.cs "$root/bindings/csharp/stale/Check.cs"
stale_case() { # name, cc flags, expected text
  mkdir -p "$out/stale/$1"
  cc -shared -fPIC $2 "$root/bindings/csharp/stale/plugin.c" -o "$out/stale/$1/libomote_ffi.so"
  said="$(LD_LIBRARY_PATH="$out/stale/$1" mono "$out/stale/check.exe")"
  case "$said" in *"$3"*) ;; *)
    echo "test.sh: a plug-in $1: CheckAbi said \"$said\", expected \"$3\"" >&2; exit 1 ;; esac
}
stale_case older "-DABI_VERSION=$abi" "is older than these scripts"
stale_case newer "-DABI_VERSION=$abi -DABI_MINOR=999" "accepted"
stale_case other "-DABI_VERSION=$((abi + 1)) -DABI_MINOR=0" "the native library's ABI is $((abi + 1))"
# No plug-in at all: the message says what is missing and where it belongs.
mkdir -p "$out/stale/none"
said="$(LD_LIBRARY_PATH="$out/stale/none" mono "$out/stale/check.exe")"
case "$said" in *"omote_ffi"*"was not found"*"LD_LIBRARY_PATH"*) ;; *)
  echo "test.sh: with no plug-in, CheckAbi said \"$said\"" >&2; exit 1 ;; esac
echo "stale plug-ins: refused by name (older, another ABI), a newer one accepted, a missing one named"

export OMOTE_REPO="$root" OMOTE_FACE_C_OUTPUT="$out/face-c.txt" OMOTE_SCENE_C_OUTPUT="$out/scene-c.txt"
export LD_LIBRARY_PATH="$out${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
status=0
(cd "$out" && nunit-console -nologo -noshadow -labels -xml="$out/TestResult.xml" "$out/Omote.Tests.dll") || status=$?

[ -f "$out/TestResult.xml" ] || { echo "test.sh: nunit-console wrote no TestResult.xml (exit $status)" >&2; exit 1; }
# NUnit 2.6's summary: <test-results total=".." errors=".." failures=".." not-run=".." ...>
read -r total errors failures notrun < <(sed -n 's/.*<test-results [^>]*total="\([0-9]*\)" errors="\([0-9]*\)" failures="\([0-9]*\)" not-run="\([0-9]*\)".*/\1 \2 \3 \4/p' "$out/TestResult.xml")
failed=$((errors + failures))
passed=$((total - failed - notrun))
echo "$passed passed, $failed failed"
if [ "$total" -eq 0 ] || [ "$passed" -eq 0 ]; then
  echo "test.sh: no tests ran" >&2
  exit 1
fi
if [ "$failed" -ne 0 ] || [ "$notrun" -ne 0 ] || [ "$status" -ne 0 ]; then
  exit 1
fi
