"""Faces and scene bakes from Python against the Rust outputs: examples/c/face.c (the C
ABI over the same embedding API) and `omote bake`."""

import json
import os
import warnings

import numpy as np
import pytest

import omote
from conftest import run

RATE = 48000


def make_line():
    """examples/c/face.c's make_line, in float32 as C computes it (-ffp-contract=off)."""
    n = RATE * 3 // 2
    state = 12345
    noise = np.empty(n, np.float32)
    for i in range(n):
        state = (state * 1103515245 + 12345) & 0xFFFFFFFF
        noise[i] = np.float32((state >> 16) & 0x7FFF) / np.float32(32768) - np.float32(0.5)
    i = np.arange(n)
    buzz = (i % 240).astype(np.float32) / np.float32(240) - np.float32(0.5)
    voiced = (i >= RATE // 4) & (i < RATE * 5 // 4)
    loud = np.float32(0.5) * buzz + np.float32(0.1) * noise
    quiet = np.float32(0.001) * noise
    return np.where(voiced, loud, quiet).astype(np.float32)


def hexes(a):
    return [f"{b:08x}" for b in np.asarray(a, np.float32).view(np.uint32)]


def test_a_face_over_ten_seconds_equals_the_c_example(face_c_output):
    rig = omote.Rig.builtin(0)
    face = omote.Face(rig, seed=7)
    track = omote.lipsync(make_line(), RATE)
    face.set_expression("happy", 0.4)
    face.set_gaze_target(0.3, -0.1, 1.0)
    dt = float(np.float32(1) / np.float32(60))
    want = face_c_output.read_text().splitlines()
    assert len(want) == 600
    for frame in range(600):
        if frame == 60:
            face.say(track, [("happy", 0.3)])
        face.update(dt)
        e = face.events
        line = " ".join(
            [str(frame)]
            + hexes(face.weights)
            + hexes(face.input_weights)
            + hexes(face.rotations.reshape(-1))
        )
        line += f" | {e['blinks']} {e['saccades']} {int(e['voice_started'])} {int(e['handed_over'])}"
        assert line == want[frame], f"frame {frame} differs from face.c"


def test_a_scene_bake_equals_omote_bake(root, omote_bin, tmp_path):
    scene_path = root / "examples/scenes/demo/scene.toml"
    run(omote_bin, "bake", scene_path, "--out", tmp_path, "--advance", "9.5", "--skip", "3.2")
    scene = omote.load_scene(scene_path)
    assert scene.characters == ["aoi", "beni"]
    baked = scene.bake(advance=[9.5], skip=[3.2])
    assert list(baked) == scene.characters
    for cid, anim in baked.items():
        assert anim.to_json() == (tmp_path / f"{cid}.anim.json").read_bytes(), cid
        vrma = tmp_path / f"{cid}.vrma"
        assert anim.to_vrma(scene.rig(cid)) == vrma.read_bytes(), cid
    # A bake starts at time 0 each time.
    again = scene.bake(advance=[9.5], skip=[3.2])
    assert again["aoi"].to_json() == baked["aoi"].to_json()
    aoi = baked["aoi"]
    assert aoi.expressions.shape == (len(aoi), len(aoi.channel_names))
    assert aoi.applied.shape == aoi.expressions.shape
    assert aoi.head.shape == (len(aoi), 4)
    assert any(e.get("type") == "voiceStart" or "voice" in json.dumps(e) for e in aoi.events)


def test_a_recorded_face_writes_a_vrma():
    rig = omote.Rig.builtin()
    face = omote.Face(rig, seed=1)
    assert face.finish_recording() is None
    face.record(fps=30)
    face.say(omote.Track.from_frames(np.tile([[0.8, 0, 0, 0, 0, 0.2]], (50, 1)), 100, (0.1, 0.4)))
    weights = []
    for _ in range(30):
        face.update(1 / 30)
        weights.append(face.input_weights)
    anim = face.finish_recording()
    assert len(anim) == 30 and anim.fps == 30
    # The recording is what the face gave, frame by frame.
    np.testing.assert_array_equal(anim.expressions, np.array(weights))
    assert anim.to_vrma(rig)[:4] == b"glTF"
    doc = json.loads(anim.to_json())
    assert doc["fps"] == 30
    assert face.finish_recording() is None
    with pytest.raises(omote.OmoteValueError, match="not a VRM"):
        anim.to_vrma(omote.Rig.standard())


def test_a_tracked_recording_splits_the_head_with_the_neck_at_its_neck_share():
    """The tracking settings' neckShare reaches the recording's VRMA: the same tracked
    head turn written with the neck taking none, half (the default) or all of it gives
    three files; the default's is the half's."""
    rig = omote.Rig.builtin()
    turn = [0.0, np.sin(np.radians(15)), 0.0, np.cos(np.radians(15))]  # 30° of yaw

    def vrma(tracking):
        face = omote.Face(rig, seed=4, tracking=tracking)
        face.record(fps=30)
        for _ in range(20):
            face.set_tracked(np.zeros(52, np.float32), head=turn)
            face.update(1 / 30)
        return face.finish_recording().to_vrma(rig)

    none, half, whole = (vrma({"neckShare": s}) for s in (0.0, 0.5, 1.0))
    assert len({none, half, whole}) == 3
    assert vrma(True) == half


def test_a_vrma_for_another_avatar_names_what_it_leaves_out(vrm_dir):
    """An anim recorded on one avatar, written for a VRM with two expressions: the rest
    are left out, and the warning names each of them (never the gaze expressions)."""
    face = omote.Face(omote.Rig.builtin(), seed=2)
    face.set_expression("blink", 0.5)
    face.record(fps=30)
    for _ in range(10):
        face.update(1 / 30)
    anim = face.finish_recording()
    small = omote.Rig.from_vrm(vrm_dir / "VRMC_vrm_expressions_isBinary_Overrides.vrm")
    with pytest.warns(UserWarning, match=r"Anim\.to_vrma: .*isBinary_Overrides\.vrm has no expression named") as caught:
        vrma = anim.to_vrma(small)
    named = str(caught[0].message).split(" named ")[1].split("; not written")[0].split(", ")
    gaze = {"lookUp", "lookDown", "lookLeft", "lookRight"}
    assert named == [n for n in anim.channel_names if n not in gaze | {"happy", "blink"}]
    assert "aa" in named and "blink" not in named
    assert vrma_expression(vrma, "blink") is not None
    # One it has but the anim never moves is left to the player.
    assert vrma_expression(vrma, "happy") is None
    # For its own avatar nothing is left out, and nothing is said.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        anim.to_vrma(omote.Rig.builtin())


def test_inspect_reports_a_vrm(tmp_path):
    path = tmp_path / "builtin.vrm"
    path.write_bytes(omote.Rig.builtin().vrm_bytes())
    report = omote.inspect(path)
    assert isinstance(report, dict)
    assert "expressions" in report
    assert omote.Rig.from_vrm(path).channel_names == omote.Rig.builtin().channel_names


def test_tracking_and_live_voice_drive_the_face():
    rig = omote.Rig.standard()
    face = omote.Face(rig, seed=3, tracking=True)
    scores = np.zeros(52, np.float32)
    scores[8] = 1.0
    face.set_tracked(scores, head=[0, 0, 0, 1])
    for _ in range(10):
        face.set_live_vowels([1, 0, 0, 0, 0, 0], True)
        face.update(1 / 60)
    aa = face.channel_names.index("aa")
    assert face.weights[aa] > 0.1
    face.set_tracking_lost()
    face.update(1 / 60)
    with pytest.raises(omote.OmoteValueError, match="tracking is off"):
        omote.Face(rig).set_tracked(scores)


def test_tracking_settings_mirror_the_user_and_are_refused_by_name():
    rig = omote.Rig.standard()
    names = rig.channel_names
    blink_left = names.index("eyeBlinkLeft") - 18  # ARKit order after the 18 presets

    def wink(face):
        scores = np.zeros(52, np.float32)
        scores[blink_left] = 0.95
        for _ in range(30):
            face.set_tracked(scores)
            face.update(1 / 30)
        return face.weights[names.index("blinkLeft")], face.weights[names.index("blinkRight")]

    left, right = wink(omote.Face(rig, seed=3, tracking=True))
    assert left > 0.8 and right < 0.1
    # A dict, JSON text, or later through enable_tracking: the same mirrored face.
    for face in (
        omote.Face(rig, seed=3, tracking={"mirror": True}),
        omote.Face(rig, seed=3, tracking='{"mirror": true}'),
    ):
        left, right = wink(face)
        assert right > 0.8 and left < 0.1
    face = omote.Face(rig, seed=3)
    face.enable_tracking({"mirror": True, "smoothing": {"eyes": 0.02}})
    left, right = wink(face)
    assert right > 0.8 and left < 0.1
    with pytest.raises(omote.OmoteValueError, match="tracking is off"):
        wink(omote.Face(rig, seed=3, tracking=False))

    face = omote.Face(rig, seed=3)
    with pytest.raises(omote.OmoteValueError, match="unknown field `mirrorr`"):
        face.enable_tracking({"mirrorr": True})
    with pytest.raises(omote.OmoteValueError, match=r"loss\.grace = -1"):
        face.enable_tracking({"loss": {"grace": -1}})
    with pytest.raises(omote.OmoteValueError, match="^Face: the tracking settings"):
        omote.Face(rig, tracking="{mirror}")
    with pytest.raises(omote.OmoteTypeError, match="a dict \\(any mapping\\) or JSON text, not list"):
        face.enable_tracking([("mirror", True)])
    with pytest.raises(omote.OmoteValueError, match="NaN or infinite"):
        face.enable_tracking({"neckShare": float("nan")})
    looped = {"mirror": True}
    looped["limits"] = looped
    with pytest.raises(omote.OmoteValueError, match="the tracking settings: Circular reference"):
        face.enable_tracking(looped)
    with pytest.raises(omote.OmoteValueError, match="not a JSON object"):
        face.enable_tracking("[true]")
    with pytest.raises(omote.OmoteValueError, match="headFilter: missing field `beta`"):
        face.enable_tracking({"headFilter": {"minCutoff": 1.0}})
    with pytest.raises(omote.OmoteValueError, match=r"emotions\[0\]\.sources: 0 sources"):
        face.enable_tracking({"emotions": [{"target": "happy", "sources": [], "from": 0.1, "to": 0.5}]})
    with pytest.raises(omote.OmoteTypeError, match="a set is not a setting's value"):
        face.enable_tracking({"emotions": [{"target": "happy", "sources": {"jawOpen"}, "from": 0.1, "to": 0.5}]})
    # Any mapping, NumPy numbers and bools: as Python's own.
    import types

    mirrored = omote.Face(rig, seed=3, tracking=np.bool_(True))
    mirrored.enable_tracking(
        types.MappingProxyType({"mirror": np.bool_(True), "mouth": {"gain": np.float32(1.3)}})
    )
    left, right = wink(mirrored)
    assert right > 0.8 and left < 0.1
    face = omote.Face(rig, seed=3, tracking=np.bool_(False))
    with pytest.raises(omote.OmoteValueError, match="tracking is off"):
        face.calibrate_tracking()
    with pytest.raises(omote.OmoteValueError, match="tracking is off"):
        face.calibrate_tracking()


def test_calibrating_tracking_makes_the_held_pose_straight():
    face = omote.Face(omote.Rig.standard(), seed=3, tracking=True)
    scores = np.zeros(52, np.float32)
    turned = [0, 0.1305, 0, 0.9914]  # 15° about +Y: a camera beside the screen

    def hold(frames):
        for _ in range(frames):
            face.set_tracked(scores, head=turned)
            face.update(1 / 30)
        return abs(float(face.rotations[0][1]))  # the head's y

    assert hold(60) > 0.05
    face.calibrate_tracking(1.0)
    assert hold(90) < 0.005
    with pytest.raises(omote.OmoteValueError, match="tracking is off"):
        omote.Face(omote.Rig.standard()).calibrate_tracking()
    with pytest.raises(omote.OmoteValueError, match="NaN"):
        face.announce_eye_change(float("nan"))
    face.announce_eye_change(0.5)


def test_named_scores_and_a_head_matrix_track_as_arkit_order_does():
    # What MediaPipe Python gives: category names with _neutral, a row-major 4x4.
    yaw = 0.25
    m = np.eye(4)
    m[0, 0], m[0, 2], m[2, 0], m[2, 2] = np.cos(yaw), np.sin(yaw), -np.sin(yaw), np.cos(yaw)
    m[2, 3] = -40.0
    named = omote.Face(omote.Rig.standard(), seed=4, tracking=True)
    ordered = omote.Face(omote.Rig.standard(), seed=4, tracking=True)
    scores = np.zeros(52, np.float32)
    # The standard rig is the 18 presets, then the ARKit names in ARKit's order.
    jaw = omote.Rig.standard().channel_names.index("jawOpen") - 18
    scores[jaw] = 0.7
    half = np.sin(yaw / 2), np.cos(yaw / 2)
    for _ in range(20):
        named.set_tracked_named({"_neutral": 0.3, "jawOpen": 0.7}, m)
        ordered.set_tracked(scores, head=[0.0, half[0], 0.0, half[1]])
        named.update(1 / 30)
        ordered.update(1 / 30)
    assert np.array_equal(named.weights, ordered.weights)
    assert np.allclose(named.rotations, ordered.rotations, atol=1e-6)
    with pytest.raises(omote.OmoteValueError, match="shape"):
        named.set_tracked_named({"jawOpen": 0.5}, np.eye(3))
    with pytest.raises(omote.OmoteValueError, match="NaN"):
        named.set_tracked_named({"jawOpen": float("nan")})


def vrma_expression(vrma, name):
    """A VRMA's track of expression `name` (its node's translation x per key), read with
    the standard library: the GLB's JSON, the accessor, the bytes; None when the file
    has no such expression."""
    import struct

    magic, _, _ = struct.unpack_from("<4sII", vrma)
    assert magic == b"glTF"
    jlen, _ = struct.unpack_from("<II", vrma, 12)
    doc = json.loads(vrma[20 : 20 + jlen])
    blob = vrma[20 + jlen + 8 :]
    entry = doc["extensions"]["VRMC_vrm_animation"]["expressions"]["preset"].get(name)
    if entry is None:
        return None
    node = entry["node"]
    for anim in doc["animations"]:
        for ch in anim["channels"]:
            if ch["target"]["node"] == node and ch["target"]["path"] == "translation":
                acc = doc["accessors"][anim["samplers"][ch["sampler"]]["output"]]
                view = doc["bufferViews"][acc["bufferView"]]
                start = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
                xyz = np.frombuffer(blob, np.float32, acc["count"] * 3, start).reshape(-1, 3)
                return xyz[:, 0]
    raise AssertionError(f"no track for {name}")


def test_the_speech_pipeline_example_writes_a_speaking_vrma(root, tmp_path):
    """examples/python/speak_vrma.py: espeak-ng -> lipsync -> a VRMA whose mouth moves."""
    import shutil
    import subprocess
    import sys

    if shutil.which("espeak-ng") is None:
        message = "espeak-ng is missing (apt-get install espeak-ng)"
        if os.environ.get("CI"):
            pytest.fail(message + " and CI is set")
        pytest.skip(message)
    example = root / "examples/python/speak_vrma.py"
    assert len(example.read_text().splitlines()) <= 30
    out = tmp_path / "hello.vrma"
    done = subprocess.run(
        [sys.executable, example, "Hello there, how are you today?", out], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    aa = vrma_expression(out.read_bytes(), "aa")
    oh = vrma_expression(out.read_bytes(), "oh")
    assert np.isfinite(aa).all() and aa.max() > 0.3, aa.max()
    # The mouth opens and closes with the syllables, not once.
    opens = np.sum((aa[1:] > 0.2) & (aa[:-1] <= 0.2))
    assert opens >= 3, opens
    assert aa[-1] < 0.05 and oh[-1] < 0.05  # closed after the line


def test_the_afterglow_holds_then_releases_and_a_long_dt_is_one_frame():
    rig = omote.Rig.builtin()
    names = omote.Face(rig).channel_names
    happy = names.index("happy")
    line = omote.Track.from_frames(np.tile([[0.8, 0, 0, 0, 0, 0.2]], (50, 1)), 100, (0.1, 0.4))
    face = omote.Face(rig, seed=1)
    face.set_afterglow_timing(1.0, 0.5)
    face.say(line, [("happy", 0.4)])
    for _ in range(60):
        face.update(1 / 60)
    assert face.weights[happy] > 0.3, "the afterglow came"
    for _ in range(120):
        face.update(1 / 60)
    assert face.weights[happy] < 0.01, "released 1.5 s after the line"
    face.set_afterglow_timing(float("inf"), 0.5)
    face.say(line, [("happy", 0.4)])
    for _ in range(300):
        face.update(1 / 60)
    assert face.weights[happy] > 0.3, "held until the next line"
    face.clear_afterglow(0.0)
    face.update(1 / 60)
    assert face.weights[happy] < 0.01
    with pytest.raises(omote.OmoteValueError, match="afterglow hold NaN"):
        face.set_afterglow_timing(float("nan"), 0.5)
    # A tab-like gap: 5 s is one normal frame, the same as 1/60 s.
    a, b = omote.Face(rig, seed=2), omote.Face(rig, seed=2)
    for f in (a, b):
        f.say(line)
        f.update(1 / 60)
    a.update(5.0)
    b.update(1 / 60)
    np.testing.assert_array_equal(a.weights, b.weights)


def test_an_expression_fades_eased_to_its_weight():
    face = omote.Face(omote.Rig.builtin(0), seed=2)
    happy = face.channel_names.index("happy")
    face.fade_expression("happy", 1.0, 0.5)
    seen = []
    for _ in range(30):
        face.update(1 / 60)
        seen.append(float(face.input_weights[happy]))
    assert 0.0 < seen[0] < 0.02 and abs(seen[14] - 0.5) < 0.05 and seen[29] == 1.0, seen
