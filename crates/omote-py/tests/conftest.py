"""Shared fixtures of the Python binding's tests (run by bindings/python/test.sh).

Real data comes from ../shared/data (OMOTE_DATA overrides it): the tests skip without
it, and fail when CI is set, as the Rust tests do (omote-testdata)."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def _need(what, path):
    if path is None or not Path(path).exists():
        message = f"{what} is missing ({path})"
        if os.environ.get("CI"):
            pytest.fail(message + " and CI is set")
        pytest.skip(message)
    return Path(path)


@pytest.fixture(scope="session")
def root():
    return ROOT


@pytest.fixture(scope="session")
def speech():
    data = Path(os.environ.get("OMOTE_DATA", ROOT.parent / "shared" / "data"))
    return _need("the shared speech clips", data / "speech")


@pytest.fixture(scope="session")
def vrm_dir():
    data = Path(os.environ.get("OMOTE_DATA", ROOT.parent / "shared" / "data"))
    return _need("the shared VRMs", data / "vrm")


@pytest.fixture(scope="session")
def omote_bin():
    """The `omote` CLI the parity tests compare with (test.sh builds it)."""
    return _need("the omote CLI (OMOTE_BIN)", os.environ.get("OMOTE_BIN") or shutil.which("omote"))


@pytest.fixture(scope="session")
def face_c_output():
    """examples/c/face.c's output (test.sh compiles and runs it)."""
    return _need("examples/c/face.c's output (OMOTE_FACE_C_OUTPUT)", os.environ.get("OMOTE_FACE_C_OUTPUT"))


def run(*args, cwd=ROOT):
    """Runs a command, failing the test with its output when it fails."""
    done = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 0, f"{args}: {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done
