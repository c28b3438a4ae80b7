"""Lip sync from Python against the `omote lipsync` CLI, byte for byte and per frame."""

import json
import pickle

import numpy as np
import pytest

import omote
from conftest import run

CLIPS = ["ja_ojt_001.wav", "en_espeak_003.wav", "en_librivox_0870.wav"]


def cli_frames(path):
    """A CLI track file's frames as (n, 6) and its text."""
    text = path.read_text()
    doc = json.loads(text)
    return np.array([f["w"] for f in doc["frames"]], dtype=np.float64), doc, text


def round4(a):
    """As the CLI writes a weight (omote_lipsync::export): `(x * 1e4).round() / 1e4` in
    float32, halves away from zero (numpy's round goes to even)."""
    y = a.astype(np.float32) * np.float32(10000)
    t = np.trunc(y)
    t = t + np.where(np.abs(y - t) >= 0.5, np.sign(y), 0).astype(np.float32)
    return t / np.float32(10000)


def test_a_clip_alone_equals_the_cli(speech, omote_bin, tmp_path):
    files = [speech / c for c in CLIPS]
    run(omote_bin, "lipsync", *files, "--speaker", "file", "--out", tmp_path)
    worst = 0.0
    for f in files:
        track = omote.lipsync(str(f))
        cli, doc, text = cli_frames(tmp_path / f"{f.stem}.lipsync.json")
        assert track.frames.shape == cli.shape
        worst = max(worst, float(np.abs(round4(track.frames) - cli).max()))
        assert track.to_json(str(f)) == text
        assert doc["voiced_span"] == list(track.voiced)
        assert doc["duration"] == track.duration
    print(f"alone: max |python - cli| per frame {worst:g}")
    assert worst <= 1e-6


def test_a_speakers_lines_equal_the_cli_folder_mode(speech, omote_bin, tmp_path):
    # `omote lipsync DIR` reads one folder's files as one speaker's lines.
    run(omote_bin, "lipsync", speech, "--out", tmp_path)
    files = sorted(speech.glob("*.wav"))
    speaker = omote.Speaker()
    for f in files:
        speaker.add_line(str(f))
    assert speaker.lines == len(files)
    worst = 0.0
    for f in files:
        track = omote.lipsync(str(f), speaker=speaker)
        cli, _, text = cli_frames(tmp_path / f"{f.stem}.lipsync.json")
        worst = max(worst, float(np.abs(round4(track.frames) - cli).max()))
        assert track.to_json(str(f)) == text, f
    print(f"speaker: max |python - cli| per frame {worst:g} over {len(files)} clips")
    assert worst <= 1e-6


def test_the_exports_equal_the_cli_formats(speech, omote_bin, tmp_path):
    f = speech / CLIPS[1]
    track = omote.lipsync(str(f))
    for fmt, ext, text in [
        ("tsv", "tsv", track.to_tsv()),
        ("rhubarb-json", "json", track.to_rhubarb_json(str(f))),
        ("rhubarb-tsv", "tsv", track.to_rhubarb_tsv()),
    ]:
        out = tmp_path / fmt
        run(omote_bin, "lipsync", f, "--speaker", "file", "--format", fmt, "--out", out)
        assert (out / f"{f.stem}.lipsync.{ext}").read_text() == text, fmt
    out = tmp_path / "fps"
    run(omote_bin, "lipsync", f, "--speaker", "file", "--fps", "60", "--out", out)
    assert (out / f"{f.stem}.lipsync.json").read_text() == track.resampled(60).to_json(str(f))


def read_wav(path):
    """A 16-bit PCM mono WAV as float32 samples in -1..1 and its rate (stdlib only)."""
    import wave

    with wave.open(str(path)) as w:
        assert w.getsampwidth() == 2 and w.getnchannels() == 1
        data = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
        return data.astype(np.float32) / np.float32(32768), w.getframerate()


def test_an_array_equals_its_file(speech):
    samples, rate = read_wav(speech / "ja_ojt_002.wav")
    assert rate == 48000
    a = omote.lipsync(samples, rate)
    b = omote.lipsync(str(speech / "ja_ojt_002.wav"))
    np.testing.assert_allclose(a.frames, b.frames, atol=1e-6)
    # float64 and non-contiguous arrays are taken too.
    c = omote.lipsync(samples.astype(np.float64), rate)
    np.testing.assert_array_equal(a.frames, c.frames)
    d = omote.lipsync(np.stack([samples, samples], axis=1)[:, 0], rate)
    np.testing.assert_array_equal(a.frames, d.frames)


def dominant(w):
    return np.argmax(w, axis=1)


def test_the_stream_follows_the_offline_analysis(speech):
    # The Rust test's case (omote-embed tests/embed.rs,
    # live_voice_at_48k_follows_the_offline_analysis) and its tolerance: every frame but
    # the last latency's worth, voiced frames agree >= 90 %, the dominant vowel >= 75 %.
    frames = voiced_same = both = vowel_same = 0
    for clip in ["ja_ojt_002.wav", "ja_ojt_007.wav", "en_librivox_0870.wav"]:
        samples, rate = read_wav(speech / clip)
        offline = omote.lipsync(samples, rate)
        stream = omote.VoiceStream(rate)
        assert stream.latency <= 0.025
        out = np.concatenate([stream.push(samples[i : i + 128]) for i in range(0, len(samples), 128)])
        assert out.shape[1] == 8 and out.dtype == np.float32
        n = len(out)
        assert n <= len(offline) <= n + 3, (clip, n, len(offline))
        assert stream.frames_out == n and stream.samples_in == len(samples)
        assert np.isfinite(out).all() and (out >= 0).all() and (out <= 1).all()
        live_voiced = out[:, 7] == 1.0
        off_voiced = ~offline.silent[:n]
        voiced_same += int((live_voiced == off_voiced).sum())
        mask = live_voiced & off_voiced
        both += int(mask.sum())
        vowel_same += int((dominant(out[mask, :6]) == dominant(offline.frames[:n][mask])).sum())
        frames += n
    voiced, vowels = voiced_same / frames, vowel_same / both
    print(f"stream vs offline: voiced agree {voiced:.3}, dominant vowel agree {vowels:.3}")
    assert voiced >= 0.9 and vowels >= 0.75


def test_a_stream_starts_from_a_speaker(speech):
    samples, rate = read_wav(speech / "ja_ojt_003.wav")
    speaker = omote.Speaker()
    speaker.add_line(str(speech / "ja_ojt_004.wav"))
    seed = speaker.voice_seed()
    assert seed.shape == (13,)
    a = omote.VoiceStream(rate, speaker=speaker)
    b = omote.VoiceStream(rate)
    b.start_from_speaker(seed)
    np.testing.assert_array_equal(a.push(samples), b.push(samples))
    with pytest.raises(omote.OmoteValueError, match="begun"):
        b.start_from_speaker(seed)


def test_a_speaker_pickles_and_gathers_exactly(speech):
    files = [str(speech / c) for c in ["ja_ojt_001.wav", "ja_ojt_002.wav", "ja_ojt_003.wav"]]
    whole = omote.Speaker()
    for f in files:
        whole.add_line(f)
    first, second = omote.Speaker(), omote.Speaker()
    first.add_line(files[0])
    second.add_line(files[1])
    second.add_line(files[2])
    gathered = omote.Speaker()
    gathered.add_speaker(pickle.loads(pickle.dumps(first)))
    gathered.add_speaker(pickle.loads(pickle.dumps(second)))
    np.testing.assert_array_equal(gathered.to_numbers(), whole.to_numbers())
    a = whole.analyse(files[1])
    b = gathered.analyse(files[1])
    np.testing.assert_array_equal(a.frames, b.frames)


def test_a_track_round_trips_through_numbers(speech):
    t = omote.lipsync(str(speech / CLIPS[0]))
    u = omote.Track.from_frames(t.frames, t.fps, t.voiced)
    np.testing.assert_array_equal(u.frames, t.frames)
    assert len(u) == len(t) and u.voiced == t.voiced
