#!/usr/bin/env bash
# The Python package (crates/omote-py) tested for real: a virtualenv with the pinned
# tools of requirements.txt, the wheel built by maturin and installed into it, then the
# pytest suite (crates/omote-py/tests) against the `omote` CLI and examples/c/face.c's
# output. Prints `N passed, N failed` and exits non-zero on any failure or when no test
# ran.
#
# Needs: cargo, cc, python3 with venv (Debian: python3-venv), PyPI. Uses CARGO_TARGET_DIR
# when set (as the workspace tests do), else the repo's target/; the wheel is a dev-profile
# build in that same target dir, so it reuses the workspace tests' compiled dependencies
# (OMOTE_PY_PROFILE=release for a release wheel).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
case "$target" in /*) ;; *) target="$root/$target" ;; esac
export CARGO_TARGET_DIR="$target"
profile="${OMOTE_PY_PROFILE:-dev}"
out="$target/python"
venv="$target/python-venv"

for tool in cargo cc python3; do
  command -v "$tool" >/dev/null || { echo "test.sh: $tool is missing" >&2; exit 2; }
done
[ -x "$venv/bin/python" ] || python3 -m venv "$venv" || {
  echo "test.sh: python3 -m venv failed (apt-get install python3-venv)" >&2; exit 2; }
# Tools through the venv's own python (`python -m pip`), never its scripts: a script's
# first line names the python of the venv where it was made, so in a copied target/ (a
# clone's CI run) `bin/pip` would install into the original checkout's venv.
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$root/bindings/python/requirements.txt"

# The references: the CLI (debug, as the workspace tests build it) and the C example.
(cd "$root" && cargo build --quiet -p omote-cli -p omote-ffi)
rm -rf "$out"
mkdir -p "$out/wheels"
cc -std=c11 -O1 -ffp-contract=off -Wall -Wextra -Werror -I "$root/include" \
  "$root/examples/c/face.c" -L "$target/debug" -lomote_ffi "-Wl,-rpath,$target/debug" -o "$out/face"
"$out/face" > "$out/face-c.txt"

# The wheel, installed over any earlier one.
"$venv/bin/python" -m maturin build --quiet -m "$root/crates/omote-py/Cargo.toml" --profile "$profile" \
  -o "$out/wheels" >/dev/null
wheel="$(ls "$out"/wheels/omote-*.whl)"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$wheel"
echo "wheel: $(basename "$wheel") ($(du -k "$wheel" | cut -f1) KiB, profile $profile)"

export OMOTE_BIN="$target/debug/omote" OMOTE_FACE_C_OUTPUT="$out/face-c.txt"
status=0
(cd "$root/crates/omote-py/tests" && "$venv/bin/python" -m pytest -q -p no:cacheprovider \
  --junitxml="$out/junit.xml" "$@") || status=$?
"$venv/bin/python" - "$out/junit.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
suites = ET.parse(sys.argv[1]).getroot()
suite = suites if suites.tag == "testsuite" else suites.find("testsuite")
tests, failed = int(suite.get("tests")), int(suite.get("failures")) + int(suite.get("errors"))
skipped = int(suite.get("skipped"))
print(f"{tests - failed - skipped} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
sys.exit(1 if tests == 0 or tests == skipped else 0)
PY
exit "$status"
