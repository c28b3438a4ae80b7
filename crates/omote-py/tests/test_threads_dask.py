"""The GIL is released during analysis (threads give the same results), and the Dask
example writes the same files as `omote lipsync DIR --out OUT`."""

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import omote
from conftest import ROOT, run


def test_threads_give_the_same_tracks(speech):
    files = sorted(str(p) for p in speech.glob("ja_ojt_00*.wav"))
    alone = [omote.lipsync(f).frames for f in files]
    with ThreadPoolExecutor(2) as pool:
        threaded = list(pool.map(lambda f: omote.lipsync(f).frames, files))
    for a, b in zip(alone, threaded):
        np.testing.assert_array_equal(a, b)


def test_the_dask_example_writes_the_cli_files(speech, omote_bin, tmp_path):
    cli, dask = tmp_path / "cli", tmp_path / "dask"
    run(omote_bin, "lipsync", speech, "--out", cli)
    done = subprocess.run(
        [sys.executable, ROOT / "examples/python/dask_lipsync.py", speech, "--out", dask, "--workers", "2"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    print(done.stdout.strip())
    want = sorted(p.name for p in cli.iterdir())
    assert sorted(p.name for p in dask.iterdir()) == want
    assert len(want) == len(list(speech.glob("*.wav")))
    for name in want:
        assert (dask / name).read_bytes() == (cli / name).read_bytes(), name
