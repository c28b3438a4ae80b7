"""Bad input raises omote.OmoteError subclasses (ValueError / TypeError /
FileNotFoundError) naming the call and the problem; nothing half-applied, no NaN out."""

import re
import sys
import warnings
import wave

import numpy as np
import pytest

import omote


def raises(cls, match, f, *args, **kwargs):
    with pytest.raises(cls, match=match) as e:
        f(*args, **kwargs)
    assert isinstance(e.value, omote.OmoteError)
    return e.value


def test_a_plain_argument_of_the_wrong_type_is_named_in_a_note():
    # A str where a number goes is refused by pyo3 before the call runs: the built-in
    # TypeError, whose note (PEP 678, printed under the traceback on Python 3.11+) names
    # the argument. The traceback's own line names the call.
    for f, args, name in [
        (omote.lipsync, (np.zeros(1600, np.float32), "abc"), "sample_rate"),
        (omote.VoiceStream, ("fast",), "sample_rate"),
    ]:
        with pytest.raises(TypeError) as e:
            f(*args)
        if sys.version_info >= (3, 11):
            assert any(name in n for n in getattr(e.value, "__notes__", [])), e.value


def test_an_omote_object_of_the_wrong_kind_is_named_with_its_call():
    rig = omote.Rig.builtin()
    face = omote.Face(rig)
    raises(TypeError, "Face: rig is None, not an omote.Rig", omote.Face, None)
    raises(TypeError, "Face.say: track is a str, not an omote.Track", face.say, "line.wav")
    raises(TypeError, "lipsync: speaker is a Rig, not an omote.Speaker", omote.lipsync,
           np.zeros(1600, np.float32), 16000, speaker=rig)
    raises(TypeError, "VoiceStream: speaker is an int, not an omote.Speaker", omote.VoiceStream,
           16000, speaker=3)
    raises(TypeError, "Speaker.add_speaker: other is None", omote.Speaker().add_speaker, None)
    face.record(30)
    face.update(1 / 30)
    raises(TypeError, "Anim.to_vrma: rig is a Face, not an omote.Rig", face.finish_recording().to_vrma, face)


def test_wrong_dtype_and_shape_are_named():
    raises(TypeError, "dtype int16", omote.lipsync, np.zeros(1600, np.int16), 16000)
    raises(omote.OmoteTypeError, "is a list", omote.lipsync, [0.0] * 1600, 16000)
    raises(ValueError, r"shape \[2, 800\]|shape \(2, 800\)", omote.lipsync, np.zeros((2, 800), np.float32), 16000)
    raises(TypeError, "dtype", omote.VoiceStream(16000).push, np.zeros(10, np.int32))


def test_nan_empty_and_rate_are_refused():
    e = raises(ValueError, "lipsync: sample 3 is NaN", omote.lipsync, np.array([0, 0, 0, np.nan], np.float32), 16000)
    assert isinstance(e, omote.OmoteValueError)
    raises(ValueError, "empty", omote.lipsync, np.zeros(0, np.float32), 16000)
    raises(ValueError, "sample rate 0 Hz", omote.lipsync, np.zeros(100, np.float32), 0)
    raises(ValueError, "sample_rate is missing", omote.lipsync, np.zeros(100, np.float32))
    raises(ValueError, "sample rate", omote.VoiceStream, 0)
    stream = omote.VoiceStream(16000)
    raises(ValueError, "is inf", stream.push, np.array([0.1, np.inf], np.float32))
    assert stream.samples_in == 0  # the whole push was dropped
    raises(ValueError, "not 6 per frame", omote.Track.from_frames, np.zeros(7, np.float32), 100)
    # float64 beyond a float32 is named as it is, not as the inf a cast would make of it.
    raises(ValueError, "number 1 is 1e300, beyond what a float32 holds", omote.lipsync,
           np.array([0.0, 1e300, 0.0]), 16000)
    raises(ValueError, "number 0 is -1e300", omote.Track.from_frames, np.full(6, -1e300), 100)
    raises(ValueError, "number 2 is 1e300", omote.Track.from_frames, [0.0, 0.0, 1e300, 0, 0, 0], 100)
    # A speaker's numbers that are not one say which.
    numbers = omote.Speaker().to_numbers()
    numbers = np.concatenate([np.zeros(14), numbers]) if len(numbers) == 0 else numbers
    numbers[2] = np.nan
    raises(ValueError, "its number 2 is NaN", omote.Speaker.from_numbers, list(numbers))


def test_a_path_of_the_wrong_type_is_named_with_its_call():
    # Paths are checked by omote, not pyo3: the call, the argument and what it was given.
    for f, call, arg in [
        (omote.load_voice, "load_voice", "path"),
        (omote.load_scene, "load_scene", "path"),
        (omote.inspect, "inspect", "vrm_path"),
        (omote.Rig.from_vrm, "Rig.from_vrm", "path"),
        (omote.Rig.from_file, "Rig.from_file", "path"),
    ]:
        e = raises(TypeError, f"{call}: {arg} is a NoneType: pass a path", f, None)
        assert isinstance(e, omote.OmoteTypeError)
        raises(TypeError, f"{call}: {arg} is an int", f, 3)


def test_missing_and_bad_files(tmp_path):
    e = raises(FileNotFoundError, "no-such.wav: no such file", omote.lipsync, tmp_path / "no-such.wav")
    assert isinstance(e, omote.OmoteFileNotFoundError)
    raises(FileNotFoundError, "no such file", omote.Speaker().add_line, str(tmp_path / "x.wav"))
    raises(FileNotFoundError, "no such file", omote.load_scene, tmp_path / "scene.toml")
    raises(FileNotFoundError, "no such file", omote.Rig.from_vrm, tmp_path / "a.vrm")
    raises(FileNotFoundError, "no such file", omote.inspect, tmp_path / "a.vrm")
    raises(FileNotFoundError, "load_voice: .*x.wav: no such file", omote.load_voice, tmp_path / "x.wav")
    bad = tmp_path / "bad.wav"
    bad.write_bytes(b"not audio at all" * 10)
    raises(ValueError, "bad.wav", omote.lipsync, bad)
    raises(ValueError, "a file has its own rate", omote.lipsync, bad, 16000)
    scene = tmp_path / "scene.toml"
    scene.write_text("fps = 60\n[[character]]\nid = 3\n")
    raises(ValueError, "scene.toml", omote.load_scene, scene)
    # A scene that names a file that is not there is a missing file, named with its line.
    scene.write_text('[[character]]\nid = "a"\nrig = "builtin"\n[[character.line]]\naudio = "voice/a.wav"\n')
    raises(FileNotFoundError, re.escape("character[0].line[0].audio: ") + ".*" + re.escape("voice/a.wav: no such file"), omote.load_scene, scene)
    scene.write_text('[[character]]\nid = "a"\nrig = "models/a.vrm"\n')
    raises(FileNotFoundError, "a.vrm", omote.load_scene, scene)


def test_a_truncated_wav_is_read_with_a_warning(tmp_path):
    whole = tmp_path / "whole.wav"
    t = np.arange(16000) / 16000
    with wave.open(str(whole), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes((np.sin(2 * np.pi * 220 * t) * 8000).astype("<i2").tobytes())
    cut = tmp_path / "cut.wav"
    cut.write_bytes(whole.read_bytes()[:-1000])  # the header still declares 32000 bytes
    with pytest.warns(UserWarning, match="cut.wav: ends 1000 bytes early"):
        track = omote.lipsync(cut)
    with pytest.warns(UserWarning, match="cut.wav: ends 1000 bytes early"):
        samples, rate = omote.load_voice(cut)
    assert (len(samples), rate) == (15500, 16000.0)
    assert track.frames.shape[0] == (16000 - 500) // 160
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        omote.lipsync(whole)  # a whole file: no warning
    header_only = tmp_path / "header.wav"
    header_only.write_bytes(whole.read_bytes()[:44])
    raises(ValueError, "header.wav: no audio samples", omote.lipsync, header_only)


def test_a_scene_whose_voice_is_cut_short_loads_with_a_warning(tmp_path):
    t = np.arange(16000) / 16000
    with wave.open(str(tmp_path / "line.wav"), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes((np.sin(2 * np.pi * 220 * t) * 8000).astype("<i2").tobytes())
    scene = tmp_path / "scene.toml"
    scene.write_text('[[character]]\nid = "a"\n[[character.line]]\nt = 0.5\naudio = "line.wav"\n')
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert omote.load_scene(scene).warnings == []  # a whole file: no warning
    wav = tmp_path / "line.wav"
    wav.write_bytes(wav.read_bytes()[:-3000])
    with pytest.warns(UserWarning, match=r"scene.toml:5: character\[0\].line\[0\].audio: .*line.wav: ends 3000 bytes early"):
        loaded = omote.load_scene(scene)
    assert len(loaded.warnings) == 1 and "ends 3000 bytes early" in loaded.warnings[0]
    assert "a" in loaded.bake()  # what is there plays


def test_face_inputs_are_checked():
    face = omote.Face(omote.Rig.builtin(), seed=1)
    raises(ValueError, "no expression `nope`", face.set_expression, "nope", 1.0)
    raises(ValueError, "weight of `happy` is NaN", face.set_expression, "happy", float("nan"))
    raises(ValueError, "fading `happy` over -1 s", face.fade_expression, "happy", 1.0, -1.0)
    raises(ValueError, "no expression `nope`", face.fade_expression, "nope", 1.0, 0.5)
    raises(ValueError, r"rotation has shape \(2, 2\)", face.set_head, np.zeros((2, 2)))
    raises(ValueError, r"frames has shape \(6, 10\), not \(n, 6\)", omote.Track.from_frames, np.zeros((6, 10)), 100.0)
    tracked = omote.Face(omote.Rig.builtin(), tracking=True)
    raises(ValueError, r"scores has shape \(52, 1\)", tracked.set_tracked, np.zeros((52, 1)))
    tracked.set_tracked(np.zeros(52))  # one row is right
    raises(ValueError, "vowel 5 is NaN", face.set_live_vowels, [0.5, 0, 0, 0, 0, float("nan")], True)
    raises(ValueError, "vowel 0 is inf", face.set_live_vowels, [float("inf"), 0, 0, 0, 0, 0], True)
    raises(ValueError, "not finite", face.set_gaze, float("nan"), 0.0)
    raises(ValueError, "not a direction", face.set_gaze_target, 0.0, 0.0, 0.0)
    raises(ValueError, "not 4", face.set_head, [0, 0, 1])
    raises(ValueError, "idle, talking", face.set_eye_mode, "sleepy")
    raises(ValueError, "style 5", omote.Rig.builtin, 5)
    raises(ValueError, "0 fps", omote.Face(omote.Rig.builtin()).record, 0)
    raises(ValueError, "not valid", omote.Rig.from_json, "{")
    # A track's rate is an anim's (a Rhubarb export at 1e-30 fps timed its cues at 2^64).
    for fps in (1e-30, 0.001, 1e6):
        raises(ValueError, "not a frame rate from 1 to 1000", omote.Track.from_frames, np.full((6, 6), 0.1), fps)
    # Named scores in any mapping, as `tracking=` takes; anything else named.
    import types
    tracked.set_tracked_named(types.MappingProxyType({"jawOpen": 0.5}))
    raises(TypeError, "scores is a list: pass a mapping", tracked.set_tracked_named, [("jawOpen", 0.5)])
    # A call that takes samples only says so; a profile's path is not its text.
    stream = omote.VoiceStream(16000)
    raises(TypeError, r"samples is a list: pass a 1-D NumPy array", stream.push, [0.0] * 10)
    raises(ValueError, "not its path", omote.lipsync, np.zeros(16000, np.float32), sample_rate=16000, profile="me.json")
    raises(ValueError, r"camera position \[NaN, 0, 0\] is not three finite numbers", face.set_camera, (float("nan"), 0.0, 0.0))
    # Any dt: NaN and negative let no time pass; outputs stay finite and in 0..1.
    for dt in [float("nan"), -1.0, 0.0, 5.0, 1 / 60]:
        face.update(dt)
        assert np.isfinite(face.weights).all()
        assert ((face.weights >= 0) & (face.weights <= 1)).all()
        assert np.isfinite(face.rotations).all()


def test_scene_bake_arguments_are_checked(root):
    scene = omote.load_scene(root / "examples/scenes/demo/scene.toml")
    raises(ValueError, "an advance at NaN s", scene.bake, advance=[float("nan")])
    raises(ValueError, "a skip at -1 s", scene.bake, skip=[-1.0])
    raises(ValueError, "0 fps", scene.bake, fps=0)
    raises(ValueError, "no character", scene.rig, "nobody")
