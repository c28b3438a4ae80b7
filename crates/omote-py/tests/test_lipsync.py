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
    """As the CLI writes a frame's weights (omote_lipsync::export::written_weights): each
    `(x * 1e4).round()` in float32, halves away from zero (numpy's round goes to even);
    then, where rounding took a frame's six past 1, a ten-thousandth off the one rounded up
    the most (the first of equals) until it does not (the format's promise: at most 1)."""
    y = np.clip(a.astype(np.float32), 0, 1) * np.float32(10000)
    t = np.trunc(y)
    t = t + np.where(np.abs(y - t) >= 0.5, np.sign(y), 0).astype(np.float32)
    for exact, units in zip(y, t):
        total = np.float32(0)
        for x in exact:  # in order, in float32, as Rust sums
            total = np.float32(total + x)
        allowed = max(10000.0, float(np.floor(total + np.float32(0.5))))
        for _ in range(int(units.sum() - allowed)):
            units[int(np.argmax(units - exact))] -= 1
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
        ("tsv", "lipsync.tsv", track.to_tsv()),
        ("rhubarb-json", "rhubarb.json", track.to_rhubarb_json(str(f))),
        ("rhubarb-tsv", "rhubarb.tsv", track.to_rhubarb_tsv()),
        ("rhubarb-xml", "rhubarb.xml", track.to_rhubarb_xml(str(f))),
    ]:
        out = tmp_path / fmt
        run(omote_bin, "lipsync", f, "--speaker", "file", "--format", fmt, "--out", out)
        assert (out / f"{f.stem}.{ext}").read_text() == text, fmt
    out = tmp_path / "fps"
    run(omote_bin, "lipsync", f, "--speaker", "file", "--fps", "60", "--out", out)
    assert (out / f"{f.stem}.lipsync.json").read_text() == track.resampled(60).to_json(str(f))


def write_wav(path, samples, rate):
    """float32 samples in -1..1 as a 16-bit PCM mono WAV (stdlib only)."""
    import wave

    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes((np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes())


def test_a_long_file_is_streamed_as_the_cli_streams_it(speech, omote_bin, tmp_path):
    # Over 10 minutes a file is read as a stream, from its speaker's lines: the CLI's
    # folder mode writes the same track for it, and it differs from the whole reading.
    pcm, rate = read_wav(speech / "en_librivox_0870.wav")
    long = np.tile(pcm, int(10.2 * 60 * rate / len(pcm)) + 1)
    assert len(long) > 600 * rate
    folder = tmp_path / "lines"
    folder.mkdir()
    write_wav(folder / "long.wav", long, rate)
    write_wav(folder / "short.wav", pcm, rate)
    done = run(omote_bin, "lipsync", folder, "--out", tmp_path / "out")
    assert "long.wav: longer than 10 minutes: analysed as a stream" in done.stderr
    speaker = omote.Speaker()
    speaker.add_line(folder / "short.wav")
    track = omote.lipsync(folder / "long.wav", speaker=speaker)
    text = (tmp_path / "out" / "long.lipsync.json").read_text()
    assert track.to_json(str(folder / "long.wav")) == text
    assert len(track.frames) == len(long) // 160
    samples, _ = omote.load_voice(folder / "long.wav")
    whole = omote.lipsync(samples, 16000, speaker=speaker)
    assert whole.frames.shape == track.frames.shape
    assert not np.array_equal(whole.frames, track.frames)
    # A long file is not one of a speaker's lines (the CLI's folder reads it against them,
    # never into them): refused by name before it is decoded whole, the speaker unchanged.
    before = speaker.voice_seed()
    with pytest.raises(omote.OmoteValueError, match=r"long\.wav: longer than 10 minutes"):
        speaker.add_line(folder / "long.wav")
    assert speaker.lines == 1 and np.array_equal(speaker.voice_seed(), before)


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


def test_load_voice_gives_the_samples_the_analysis_reads(speech):
    # A 16 kHz file: its own PCM, bit for bit; a 48 kHz one: resampled to 16 kHz, and
    # its lip sync as an array equals the file's.
    pcm, rate = read_wav(speech / "en_librivox_0870.wav")
    samples, got_rate = omote.load_voice(speech / "en_librivox_0870.wav")
    assert rate == 16000 and got_rate == 16000.0 and samples.dtype == np.float32
    np.testing.assert_array_equal(samples, pcm)
    samples, rate = omote.load_voice(str(speech / "ja_ojt_002.wav"))
    assert rate == 16000.0 and abs(len(samples) - len(read_wav(speech / "ja_ojt_002.wav")[0]) / 3) <= 2
    np.testing.assert_array_equal(
        omote.lipsync(samples, rate).frames, omote.lipsync(speech / "ja_ojt_002.wav").frames
    )
    # Streamed, the file's samples move the mouth.
    out = omote.VoiceStream(rate).push(samples)
    assert (out[:, 7] == 1.0).any() and out[:, :5].max() > 0.5


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
    # A silent clip's voiced (None) stays no speech; bare frames play whole by default.
    silent = omote.lipsync(np.zeros(8000, np.float32), 16000)
    assert silent.voiced is None
    assert omote.Track.from_frames(silent.frames, silent.fps, silent.voiced).voiced is None
    bare = omote.Track.from_frames(np.tile([[0.8, 0, 0, 0, 0, 0]], (50, 1)), 100)
    assert bare.voiced == (0.0, 0.5) and not bare.silent.any()
    assert omote.Track.from_frames(t.frames, t.fps, "all").voiced == (0.0, len(t) / t.fps)
    with pytest.raises(TypeError, match=r"Track.from_frames: voiced is 'some': give"):
        omote.Track.from_frames(t.frames, t.fps, "some")


def card_take(speech, tmp_path):
    """A calibration card take from the Japanese voice's lines 1-20: six consonant + vowel
    syllables per vowel, each followed by 0.4 s of silence, written at 48 kHz. Returns the
    path, the samples (float32) and the card's text."""
    import wave

    parts, text, per_vowel = [], [], dict.fromkeys("AIUEO", 0)
    for i in range(1, 21):
        with wave.open(str(speech / f"ja_ojt_{i:03d}.wav")) as w:
            rate = w.getframerate()
            pcm = np.frombuffer(w.readframes(w.getnframes()), np.int16)
        rows = [l.split("\t") for l in (speech / f"ja_ojt_{i:03d}.lab.tsv").read_text().splitlines()[1:]]
        for c, v in zip(rows, rows[1:]):
            if c[2] != "N" or c[3] == "cl" or v[2] not in per_vowel or per_vowel[v[2]] == 6:
                continue
            per_vowel[v[2]] += 1
            parts += [pcm[int(float(c[0]) * rate):int(float(v[1]) * rate)], np.zeros(int(0.4 * rate), np.int16)]
            text.append(v[2].lower())
    assert list(per_vowel.values()) == [6] * 5
    take = np.concatenate(parts)
    path = tmp_path / "card.wav"
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(take.tobytes())
    return path, take.astype(np.float32) / 32768, rate, " ".join(text)


def test_a_card_calibration_is_the_clis_and_reads_the_voice(speech, omote_bin, tmp_path):
    path, samples, rate, text = card_take(speech, tmp_path)
    run(omote_bin, "lipsync", "calibrate", "--card", path, "--card-text", text, "-o", tmp_path / "cli.json")
    profile = omote.calibrate_voice(str(path), card=text)
    # The same profile as the CLI's, to the byte.
    assert profile == (tmp_path / "cli.json").read_text()
    # From samples (a host's microphone buffer) too; the means moved off the built-in's.
    builtin = json.loads(omote.builtin_voice_profile())
    from_samples = json.loads(omote.calibrate_voice(samples, rate, card=text))
    assert from_samples["means"] != builtin["means"]
    assert json.loads(profile)["means"] != builtin["means"]
    # Lines 21-30 read with it: better than with the built-in profile, alone and as a
    # speaker's lines.
    right = {"builtin": 0, "profile": 0, "speaker": 0}
    vowels = 0
    speaker = omote.Speaker()
    for i in range(21, 31):
        speaker.add_line(str(speech / f"ja_ojt_{i:03d}.wav"))
    for i in range(21, 31):
        wav = speech / f"ja_ojt_{i:03d}.wav"
        rows = [l.split("\t") for l in (speech / f"ja_ojt_{i:03d}.lab.tsv").read_text().splitlines()[1:]]
        tracks = {
            "builtin": omote.lipsync(str(wav)).frames,
            "profile": omote.lipsync(str(wav), profile=profile).frames,
            "speaker": speaker.analyse(str(wav), profile=profile).frames,
        }
        for f in range(len(tracks["builtin"])):
            t = f * 0.01 + 0.005
            cls = next((r[2] for r in rows if float(r[0]) <= t < float(r[1])), "S")
            if cls not in ("A", "I", "U", "E", "O"):
                continue
            vowels += 1
            for name, frames in tracks.items():
                right[name] += int(np.argmax(frames[f]) == "AIUEO".index(cls))
    share = {k: 100 * v / vowels for k, v in right.items()}
    print("Japanese lines 21-30 with a 30-syllable card:", share)
    assert share["profile"] > share["builtin"] + 3
    assert share["speaker"] > share["builtin"] + 3
    # A stream reads with it: the shut profile keeps every mouth closed.
    shut = json.loads(omote.calibrate_voice(str(path), card=text))
    shut["bias"][5] = 50.0
    stream = omote.VoiceStream(48000, profile=json.dumps(shut))
    out = stream.push(samples)
    assert out.shape[1] == 8 and out[:, :5].max() < 0.05
    assert omote.VoiceStream(48000, profile=profile).push(samples)[:, :5].max() > 0.5


def test_a_bad_profile_or_card_is_refused(speech, tmp_path):
    path, samples, rate, text = card_take(speech, tmp_path)
    with pytest.raises(ValueError, match="VoiceStream: the voice profile: "):
        omote.VoiceStream(48000, profile="{}")
    with pytest.raises(ValueError, match="lipsync: the voice profile is not a profile's JSON text"):
        omote.lipsync(samples, rate, profile="not json")
    with pytest.raises(ValueError, match="lipsync: the voice profile: "):
        omote.lipsync(samples, rate, profile="{not json")
    with pytest.raises(ValueError, match="calibrate_voice: the card take: heard 30 syllables, the card has 2"):
        omote.calibrate_voice(samples, rate, card="ka ki")
    with pytest.raises(ValueError, match=r"calibrate_voice: the card take: the card's syllable \"x\" has no single vowel"):
        omote.calibrate_voice(samples, rate, card="ka x")
    assert omote.VOICE_CARD.split()[:6] == ["a", "i", "u", "e", "o", "ka"]
