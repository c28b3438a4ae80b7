"""The GIL is released during analysis (threads give the same results), and the Dask
example writes the same files as `omote lipsync DIR --out OUT`."""

import os
import pickle
import signal
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


def test_one_speaker_serves_threads_and_pickles_while_it_works(speech):
    # Dask shares one speaker between a worker's tasks and pickles it for other
    # workers while they run: analysis must not hold it exclusively.
    files = sorted(str(p) for p in speech.glob("ja_ojt_00*.wav"))
    speaker = omote.Speaker()
    for f in files:
        speaker.add_line(f)
    alone = [omote.lipsync(f, speaker=speaker).frames for f in files]
    numbers = speaker.to_numbers()
    with ThreadPoolExecutor(2) as pool:
        running = [pool.submit(lambda f: omote.lipsync(f, speaker=speaker).frames, f) for f in files * 3]
        while not all(r.done() for r in running):
            np.testing.assert_array_equal(pickle.loads(pickle.dumps(speaker)).to_numbers(), numbers)
        threaded = [r.result() for r in running]
    for a, b in zip(alone * 3, threaded):
        np.testing.assert_array_equal(a, b)


def test_lines_are_added_to_a_speaker_while_other_threads_analyse_with_it(speech):
    # A line added while analyses run waits for them instead of failing ("already
    # borrowed"), and the voice ends as if the lines had been added one by one.
    files = sorted(str(p) for p in speech.glob("ja_ojt_00*.wav"))
    speaker, alone = omote.Speaker(), omote.Speaker()
    for f in files:
        alone.add_line(f)
    with ThreadPoolExecutor(4) as pool:
        work = [pool.submit(speaker.analyse, f) for f in files * 2]
        work += [pool.submit(speaker.add_line, f) for f in files]
        work += [pool.submit(lambda: speaker.lines) for _ in files]
        for w in work:
            w.result()
    assert speaker.lines == len(files)
    assert sorted(map(tuple, speaker.to_numbers().reshape(-1, 14))) == sorted(map(tuple, alone.to_numbers().reshape(-1, 14)))
    # A speaker added to itself counts its lines twice.
    speaker.add_speaker(speaker)
    assert speaker.lines == 2 * len(files)


def test_a_track_pickles_exactly_and_a_tampered_one_is_refused(speech):
    track = omote.lipsync(str(speech / "ja_ojt_001.wav"))
    copy = pickle.loads(pickle.dumps(track))
    for part in ("frames", "silent", "volume"):
        np.testing.assert_array_equal(getattr(copy, part), getattr(track, part))
    assert (copy.voiced, copy.duration, copy.fps) == (track.voiced, track.duration, track.fps)
    assert copy.to_json("x") == track.to_json("x")
    # Resampled: at 1 fps this clip's 3 frames end at 3 s, before its voice does (3.54 s).
    other = omote.lipsync(str(speech / "en_espeak_004.wav"))
    for fps in (1, 24, 1000):
        r = other.resampled(fps)
        assert pickle.loads(pickle.dumps(r)).to_json("x") == r.to_json("x"), fps
    make, (fps, frames, silent, volume, voiced, duration) = track.__reduce__()
    bad_frames = frames.copy()
    bad_frames[3] = np.nan
    for what, state in [
        ("a NaN weight", (fps, bad_frames, silent, volume, voiced, duration)),
        ("a duration beyond its frames", (fps, frames, silent, volume, (0.0, 1e9), 1e9)),
        ("a span beyond its frames", (fps, frames, silent, volume, (0.0, duration + 1.0), duration)),
    ]:
        try:
            make(*state)
        except ValueError as e:
            assert "not a track" in str(e), e
        else:
            raise AssertionError(f"{what} was taken")


def test_the_dask_example_writes_the_cli_files(speech, omote_bin, tmp_path):
    # The shared clips and one file that is not audio: reported by name, left out of
    # the speaker's voice, the others written — as the CLI does.
    voices, cli, dask = tmp_path / "voices", tmp_path / "cli", tmp_path / "dask"
    voices.mkdir()
    for wav in speech.glob("*.wav"):
        (voices / wav.name).symlink_to(wav)
    (voices / "zz_notaudio.wav").write_text("not audio\n")
    done = subprocess.run([str(omote_bin), "lipsync", str(voices), "--out", str(cli)], capture_output=True, text=True)
    assert done.returncode == 1 and "zz_notaudio.wav" in done.stderr, done.stderr
    # Its own process group, so a hung cluster (workers included) is killed whole.
    child = subprocess.Popen(
        [sys.executable, ROOT / "examples/python/dask_lipsync.py", voices, "--out", dask, "--workers", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = child.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        out, err = child.communicate()
        raise AssertionError(f"the Dask example hung for 300 s:\n{err[-4000:]}")
    assert child.returncode == 1, err
    assert "zz_notaudio.wav" in err and "files analysed, 1 failed" in err, err
    print(out.strip())
    want = sorted(p.name for p in cli.iterdir())
    assert sorted(p.name for p in dask.iterdir()) == want
    assert len(want) == len(list(speech.glob("*.wav")))
    for name in want:
        assert (dask / name).read_bytes() == (cli / name).read_bytes(), name
    # Rhubarb's XML from a folder given relative to where both run: the same bytes, with
    # the absolute soundFile both write.
    (voices / "zz_notaudio.wav").unlink()
    for tool, out_dir in [([str(omote_bin), "lipsync"], "cli-xml"), ([sys.executable, str(ROOT / "examples/python/dask_lipsync.py")], "dask-xml")]:
        extra = [] if out_dir == "cli-xml" else ["--workers", "1"]
        done = subprocess.run(
            tool + ["voices", "--out", out_dir, "--format", "rhubarb-xml"] + extra,
            capture_output=True, text=True, cwd=tmp_path, timeout=300,
        )
        assert done.returncode == 0, done.stderr
    xml = sorted(p.name for p in (tmp_path / "cli-xml").iterdir())
    assert xml == sorted(p.name for p in (tmp_path / "dask-xml").iterdir()) and xml
    for name in xml:
        text = (tmp_path / "cli-xml" / name).read_text()
        assert text == (tmp_path / "dask-xml" / name).read_text(), name
        assert f"<soundFile>{voices}/" in text, text[:300]


def test_the_dask_example_refuses_two_files_writing_one_name(tmp_path):
    # `a/line.wav` and `b/line.wav` would both write OUT/line.lipsync.json: refused
    # before any work, naming both (the CLI's rule), not one silently overwritten.
    for d in "ab":
        (tmp_path / d).mkdir()
        (tmp_path / d / "line.wav").write_bytes(b"")
    done = subprocess.run(
        [sys.executable, ROOT / "examples/python/dask_lipsync.py", tmp_path / "a", tmp_path / "b", "--out", tmp_path / "out"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "a/line.wav and " in done.stderr and "b/line.wav would both write" in done.stderr, done.stderr
    assert not (tmp_path / "out").exists()
