using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Text;
using NUnit.Framework;

namespace Omote.Tests
{
    /// <summary>
    /// Scenes through the C# layer: the demo scene played here equals examples/c/scene.c's
    /// frames (which crates/omote-ffi/tests/c_example.rs holds to `omote bake`), a scene
    /// from text with a resolver in C# equals one loaded from its file, presses change
    /// what plays, bakes write anim JSON and VRMA, and misuse throws with the native message.
    /// </summary>
    [TestFixture]
    public class SceneTests
    {
        static string Demo() { return Path.Combine(Support.Repo(), "examples/scenes/demo/scene.toml"); }

        static string Frames(Scene scene, int frames, List<string> said)
        {
            var sb = new StringBuilder();
            var weights = new float[scene.CharacterCount][];
            for (int i = 0; i < weights.Length; i++) weights[i] = new float[scene.ChannelNames(i).Length];
            for (int f = 0; f < frames; f++)
            {
                scene.Update(1.0f / 60.0f);
                for (int k = 0; k < scene.EventCount; k++)
                {
                    var e = scene.Events[k];
                    if (e.Kind == SceneEvent.Voice && said != null)
                        said.Add(scene.CharacterId(e.Character) + ":" + scene.LineClip(e.Character, e.Index));
                }
                sb.Append(f.ToString(CultureInfo.InvariantCulture));
                for (int i = 0; i < weights.Length; i++)
                {
                    scene.Weights(i, weights[i]);
                    sb.Append(" |");
                    foreach (var w in weights[i])
                    {
                        Assert.That(w >= 0f && w <= 1f, "weight {0} at frame {1}", w, f);
                        sb.Append(' ').Append(Support.Bits(w).ToString("x8"));
                    }
                }
                sb.Append('\n');
            }
            return sb.ToString();
        }

        [Test]
        public void TheDemoSceneGivesTheCExamplesFramesBitForBit()
        {
            var path = Environment.GetEnvironmentVariable("OMOTE_SCENE_C_OUTPUT");
            if (string.IsNullOrEmpty(path) || !File.Exists(path))
                Assert.Fail("OMOTE_SCENE_C_OUTPUT does not name scene.c's output (run bindings/csharp/test.sh)");
            var c = File.ReadAllText(path);
            var said = new List<string>();
            string cs;
            using (var scene = Scene.Load(Demo()))
            {
                scene.AutoAdvance = true;
                Assert.AreEqual(2, scene.CharacterCount);
                cs = Frames(scene, 1200, said);
            }
            var cl = c.Split('\n');
            var csl = cs.Split('\n');
            Assert.AreEqual(1201, cl.Length);
            for (int k = 0; k < cl.Length; k++) Assert.AreEqual(cl[k], csl[k], "frame {0}", k);
            CollectionAssert.IsSubsetOf(new[] { "aoi:aoi_1.wav", "beni:beni_1.wav" }, said);
        }

        [Test]
        public void AResolverInCSharpGivesTheSameSceneAsTheFile()
        {
            var asked = new List<string>();
            string fromFile, fromText;
            using (var scene = Scene.Load(Demo())) { scene.AutoAdvance = true; fromFile = Frames(scene, 300, null); }
            var text = File.ReadAllText(Demo());
            using (var scene = Scene.FromText(text, Demo(), p => { asked.Add(p); return File.Exists(p) ? File.ReadAllBytes(p) : null; }))
            {
                scene.AutoAdvance = true;
                fromText = Frames(scene, 300, null);
            }
            Assert.AreEqual(fromFile, fromText);
            Assert.That(asked.Exists(p => p.EndsWith("aoi_1.wav")), "the resolver was asked for the voices");
        }

        [Test]
        public void AFileTheResolverLacksIsNamed()
        {
            var text = File.ReadAllText(Demo());
            var e = Support.Fails(OmoteStatus.NotFound, "omote_scene_from_text",
                () => Scene.FromText(text, Demo(), p => p.EndsWith("beni_2.wav") ? null : File.ReadAllBytes(p)));
            StringAssert.Contains("beni_2.wav", e.Message);
            StringAssert.Contains("line", e.Message);
            // A rig file the resolver lacks is a missing file too, named with its field.
            var withRig = text.Replace("rig = \"builtin\" ", "rig = \"models/aoi.vrm\"");
            Assert.AreNotEqual(text, withRig);
            e = Support.Fails(OmoteStatus.NotFound, "omote_scene_from_text",
                () => Scene.FromText(withRig, Demo(), p => p.EndsWith(".vrm") ? null : File.ReadAllBytes(p)));
            StringAssert.Contains("character[0].rig", e.Message);
            StringAssert.Contains("aoi.vrm", e.Message);
        }

        [Test]
        public void AVoiceCutShortIsReadWithAWarningNamingItsLine()
        {
            var text = File.ReadAllText(Demo());
            using (var whole = Scene.FromText(text, Demo(), p => File.ReadAllBytes(p)))
                Assert.AreEqual(0, whole.Warnings.Length);
            using (var scene = Scene.FromText(text, Demo(), p =>
            {
                var bytes = File.ReadAllBytes(p);
                if (!p.EndsWith("beni_2.wav")) return bytes;
                Array.Resize(ref bytes, bytes.Length - 4000); // the header still declares them
                return bytes;
            }))
            {
                Assert.AreEqual(1, scene.Warnings.Length);
                StringAssert.Contains("beni_2.wav: ends 4000 bytes early", scene.Warnings[0]);
                StringAssert.Contains("character[1].line[", scene.Warnings[0]);
                scene.AutoAdvance = true;
                Frames(scene, 300, null); // what is there plays
            }
        }

        [Test]
        public void CharactersAreFoundByIdAndABadIndexOrADisposedSceneIsRefusedByName()
        {
            var scene = Scene.Load(Demo());
            Assert.That(scene.CharacterCount, Is.GreaterThanOrEqualTo(2));
            string id = scene.CharacterId(1);
            Assert.AreEqual(1, scene.IndexOf(id));
            Assert.AreEqual(-1, scene.IndexOf("nobody"));
            var e = Assert.Throws<ArgumentOutOfRangeException>(() => scene.CharacterId(99));
            StringAssert.Contains("characters", e.Message);
            Assert.Throws<ArgumentOutOfRangeException>(() => scene.ChannelNames(-1));
            scene.Dispose();
            Assert.Throws<ObjectDisposedException>(() => { var n = scene.CharacterCount; });
            Assert.Throws<ObjectDisposedException>(() => scene.CharacterId(0));
        }

        /// <summary>Clicking "next" on every click through the demo: the scene is finished
        /// only after the frame that reports the last click's cut, and no mouth is left open
        /// (the loop a Unity script writes).</summary>
        [Test]
        public void AClickInTheLastLineIsReportedBeforeTheSceneFinishes()
        {
            using (var scene = Scene.Load(Demo()))
            {
                int cuts = 0, frames = 0, clicks = 0, clickAt = -1;
                bool lastClickCut = false, clicked = false;
                while (!scene.IsFinished && frames < 60 * 120)
                {
                    // A click half a second into every line (so the last one cuts the last
                    // line), and at once at a wait.
                    clicked = scene.IsWaiting || frames == clickAt;
                    if (clicked) { scene.Advance(); clicks++; }
                    scene.Update(1f / 60f);
                    bool cut = false;
                    for (int k = 0; k < scene.EventCount; k++)
                    {
                        if (scene.Events[k].Kind == SceneEvent.Cut) { cuts++; cut = true; }
                        if (scene.Events[k].Kind == SceneEvent.Voice) clickAt = frames + 30;
                    }
                    if (clicked) lastClickCut = cut;
                    frames++;
                }
                Assert.That(scene.IsFinished, "the scene never finished");
                Assert.That(clicks, Is.GreaterThan(0));
                Assert.That(cuts, Is.GreaterThan(0), "no click cut a line");
                Assert.That(lastClickCut, "the last click cut no line: the test did not reach the case");
                for (int i = 0; i < scene.CharacterCount; i++)
                {
                    var names = scene.ChannelNames(i);
                    var w = new float[names.Length];
                    scene.Weights(i, w);
                    foreach (var vowel in new[] { "aa", "ih", "ou", "ee", "oh" })
                    {
                        int k = Array.IndexOf(names, vowel);
                        if (k >= 0) Assert.That(w[k], Is.LessThan(1e-3f), scene.CharacterId(i) + " " + vowel + " open at the end");
                    }
                }
            }
        }

        /// <summary>The game acts a scene's character (a branch the player chose): an
        /// expression the scene never keys fades there and stays; one it keys is refused.</summary>
        [Test]
        public void TheGameActsWhatTheSceneDoesNotKey()
        {
            using (var scene = Scene.Load(Demo()))
            {
                int aoi = scene.IndexOf("aoi");
                int angry = Array.IndexOf(scene.ChannelNames(aoi), "angry");
                var e = Support.Fails(OmoteStatus.InvalidArgument, "omote_scene_set_expression", () => scene.SetExpression(aoi, "happy", 1f));
                StringAssert.Contains("keyed by the scene", e.Message);
                scene.FadeExpression(aoi, "angry", 1f, 0.5f);
                var w = new float[scene.ChannelNames(aoi).Length];
                for (int f = 0; f < 15; f++) scene.Update(1f / 60f);
                scene.InputWeights(aoi, w);
                Assert.That(w[angry], Is.EqualTo(0.5f).Within(0.05f));
                for (int f = 0; f < 45; f++) scene.Update(1f / 60f);
                scene.InputWeights(aoi, w);
                Assert.AreEqual(1f, w[angry]);
                Support.Fails(OmoteStatus.NotFound, "omote_scene_set_expression", () => scene.SetExpression(aoi, "nope", 1f));
                Assert.Throws<ArgumentOutOfRangeException>(() => scene.SetExpression(9, "angry", 1f));
            }
        }

        /// <summary>The game's camera replaces the scene's path: from above and from below
        /// the camera-angle correction draws other faces; ClearCamera gives the path back;
        /// a NaN coordinate throws the library's message.</summary>
        [Test]
        public void TheGamesCameraReplacesTheScenesPath()
        {
            Func<float[], float[]> play = camera =>
            {
                using (var scene = Scene.Load(Demo()))
                {
                    int aoi = scene.IndexOf("aoi");
                    if (camera != null) scene.SetCamera(camera[0], camera[1], camera[2]);
                    for (int f = 0; f < 120; f++) scene.Update(1f / 60f);
                    var w = new float[scene.ChannelNames(aoi).Length];
                    scene.Weights(aoi, w);
                    return w;
                }
            };
            var path = play(null);
            var above = play(new[] { -0.65f, 2.6f, 1f });
            var below = play(new[] { -0.65f, 0.6f, 1f });
            CollectionAssert.AreNotEqual(above, below);
            CollectionAssert.AreNotEqual(above, path);
            using (var scene = Scene.Load(Demo()))
            {
                scene.SetCamera(-0.65f, 2.6f, 1f);
                scene.ClearCamera();
                for (int f = 0; f < 120; f++) scene.Update(1f / 60f);
                var w = new float[path.Length];
                scene.Weights(scene.IndexOf("aoi"), w);
                CollectionAssert.AreEqual(path, w);
                var e = Support.Fails(OmoteStatus.InvalidArgument, "omote_scene_set_camera", () => scene.SetCamera(0f, float.NaN, 1f));
                StringAssert.Contains("not three finite numbers", e.Message);
                float x, y, z;
                Assert.That(scene.TryGetCameraPosition(out x, out y, out z), "the demo has a camera path");
                Assert.That(Math.Abs(x + 0.65f) + Math.Abs(y - 2.6f) + Math.Abs(z - 1f), Is.GreaterThan(0.1f), "the path, not the game's camera");
                scene.SetCamera(-0.65f, 2.6f, 1f);
                Assert.That(scene.TryGetCameraPosition(out x, out y, out z));
                Assert.AreEqual(new[] { -0.65f, 2.6f, 1f }, new[] { x, y, z });
            }
        }

        /// <summary>The game directs a character's gaze and eyes over the scene's keys: a
        /// point to aoi's left turns its head left, one to its right turns it right;
        /// cleared before the next update, the scene plays as if never directed; another
        /// character's id and an eye mode change the face; bad names and numbers throw the
        /// library's message.</summary>
        [Test]
        public void TheGameDirectsGazeAndEyes()
        {
            // aoi stands at (-0.65, 1.4, 0) turned 20° (the demo file): points 1 m ahead
            // and 1 m to its left or right.
            float sin = (float)Math.Sin(20 * Math.PI / 180), cos = (float)Math.Cos(20 * Math.PI / 180);
            float[] left = { -0.65f + sin + cos, 1.4f, cos - sin };
            float[] right = { -0.65f + sin - cos, 1.4f, cos + sin };
            Func<Action<Scene, int>, int, float[]> play = (direct, frames) =>
            {
                using (var scene = Scene.Load(Demo()))
                {
                    int aoi = scene.IndexOf("aoi");
                    direct(scene, aoi);
                    var r = new float[12 + scene.ChannelNames(aoi).Length];
                    var w = new float[scene.ChannelNames(aoi).Length];
                    for (int f = 0; f < frames; f++) scene.Update(1f / 60f);
                    var rot = new float[12];
                    scene.Rotations(aoi, rot);
                    scene.Weights(aoi, w);
                    Array.Copy(rot, r, 12);
                    Array.Copy(w, 0, r, 12, w.Length);
                    return r;
                }
            };
            var toLeft = play((s, i) => s.SetGazePoint(i, left[0], left[1], left[2]), 60);
            var toRight = play((s, i) => s.SetGazePoint(i, right[0], right[1], right[2]), 60);
            Assert.That(toLeft[1], Is.GreaterThan(0.05f), "head turned left");
            Assert.That(toRight[1], Is.LessThan(-0.05f), "head turned right");
            var keys = play((s, i) => { }, 600);
            var cleared = play((s, i) => { s.SetGazePoint(i, left[0], left[1], left[2]); s.ClearGaze(i); s.SetEyeMode(i, "focused"); s.ClearEyeMode(i); }, 600);
            CollectionAssert.AreEqual(keys, cleared);
            CollectionAssert.AreNotEqual(keys, play((s, i) => s.SetGaze(i, "forward"), 600));
            CollectionAssert.AreNotEqual(keys, play((s, i) => s.SetEyeMode(i, "focused"), 600));
            // beni walks round to aoi's left or right, and aoi, looking at beni, turns with it.
            Func<float, float> headAtBeni = side =>
            {
                var r = play((sc, i) =>
                {
                    sc.SetGaze(i, "beni");
                    sc.SetPlacement(sc.IndexOf("beni"), -0.65f + sin + side * cos, 1.4f, cos - side * sin, 200f);
                }, 60);
                return r[1];
            };
            Assert.That(headAtBeni(1f), Is.GreaterThan(0.05f), "beni to aoi's left");
            Assert.That(headAtBeni(-1f), Is.LessThan(-0.05f), "beni to aoi's right");
            using (var scene = Scene.Load(Demo()))
            {
                int aoi = scene.IndexOf("aoi");
                var e = Support.Fails(OmoteStatus.InvalidArgument, "omote_scene_set_placement", () => scene.SetPlacement(aoi, 0f, 1.4f, 0f, float.NaN));
                StringAssert.Contains("not four finite numbers", e.Message);
                e = Support.Fails(OmoteStatus.InvalidArgument, "omote_scene_set_gaze", () => scene.SetGaze(aoi, "nobody"));
                StringAssert.Contains("`nobody` is neither a character", e.Message);
                e = Support.Fails(OmoteStatus.InvalidArgument, "omote_scene_set_gaze", () => scene.SetGaze(aoi, "aoi"));
                StringAssert.Contains("cannot look at itself", e.Message);
                e = Support.Fails(OmoteStatus.InvalidArgument, "omote_scene_set_gaze_point", () => scene.SetGazePoint(aoi, 0f, float.NaN, 1f));
                StringAssert.Contains("not three finite numbers", e.Message);
                e = Support.Fails(OmoteStatus.InvalidArgument, "omote_scene_set_eye_mode", () => scene.SetEyeMode(aoi, "sleepy"));
                StringAssert.Contains("`sleepy` is not an eye mode", e.Message);
                Assert.Throws<ArgumentNullException>(() => scene.SetGaze(aoi, null));
                Assert.Throws<ArgumentOutOfRangeException>(() => scene.SetEyeMode(7, "idle"));
                scene.SetGaze(aoi, "beni");
                scene.Update(1f / 60f);
            }
        }

        [Test]
        public void BrokenSceneTextIsAnErrorNamingTheLine()
        {
            var e = Support.Fails(OmoteStatus.LoadFailed, "omote_scene_from_text",
                () => Scene.FromText("[[character]]\nid = 3\n", "broken.toml", p => null));
            StringAssert.Contains("broken.toml", e.Message);
            Support.Fails(OmoteStatus.NotFound, "omote_scene_load", () => Scene.Load("/no/such/scene.toml"));
        }

        [Test]
        public void AWaitHoldsUntilAdvanceAndSkipJumps()
        {
            using (var scene = Scene.Load(Demo()))
            {
                int frames = 0;
                while (!scene.IsWaiting && frames < 60 * 60) { scene.Update(1f / 60f); frames++; }
                Assert.That(scene.IsWaiting, "the demo waits for the player once");
                double t = scene.Time;
                for (int k = 0; k < 120; k++) scene.Update(1f / 60f);
                Assert.That(scene.IsWaiting, "a wait holds without auto advance");
                Assert.That(scene.Time, Is.GreaterThan(t + 1.9), "the faces' clock runs on");
                scene.Advance();
                scene.Update(1f / 60f);
                bool advanced = false;
                for (int k = 0; k < scene.EventCount; k++) advanced |= scene.Events[k].Kind == SceneEvent.Advance;
                Assert.That(advanced, "the advance is an event");
                Assert.That(!scene.IsWaiting);
                scene.Skip();
                for (int k = 0; k < 600 && !scene.IsFinished; k++) scene.Update(1f / 60f);
                Assert.That(scene.IsFinished, "a skip to the end finishes the scene");
            }
        }

        [Test]
        public void ABakeWritesAnimJsonAndVrma()
        {
            using (var scene = Scene.Load(Demo()))
            using (var anims = scene.Bake(30f, new[] { 9.0 }, null))
            {
                Assert.AreEqual(2, anims.Count);
                Assert.AreEqual("aoi", anims.Id(0));
                var json = Encoding.UTF8.GetString(anims.Json(0));
                StringAssert.StartsWith("{\"format\":\"omote-anim\"", json);
                StringAssert.Contains("\"fps\":30", json);
                var vrma = anims.Vrma(1);
                Assert.AreEqual("glTF", Encoding.ASCII.GetString(vrma, 0, 4));
                Support.Fails(OmoteStatus.InvalidArgument, "omote_anims_json", () => anims.Json(2));
            }
            using (var scene = Scene.Load(Demo()))
            {
                Support.Fails(OmoteStatus.InvalidArgument, "omote_scene_bake", () => scene.Bake(0f, null, null));
                Support.Fails(OmoteStatus.InvalidArgument, "omote_scene_bake", () => scene.Bake(60f, new[] { double.NaN }, null));
                Support.Fails(OmoteStatus.InvalidArgument, "omote_scene_weights", () => scene.Weights(0, new float[3]));
                Support.Fails(OmoteStatus.InvalidArgument, "omote_scene_weights", () => scene.Weights(5, new float[3]));
                float yaw, pitch;
                for (int f = 0; f < 120; f++) scene.Update(1f / 60f);
                scene.GetGaze(0, out yaw, out pitch);
                Assert.That(Math.Abs(yaw) > 0.5f, "aoi looks at beni, off to one side: yaw {0}", yaw);
                Support.Fails(OmoteStatus.InvalidArgument, "omote_scene_gaze", () => scene.GetGaze(2, out yaw, out pitch));
            }
        }

        [Test]
        public void ACharactersRecordingIsAnAnim()
        {
            using (var avatar = Avatar.Builtin(0))
            using (var face = new Character(avatar, 3))
            {
                face.Record(60f);
                for (int f = 0; f < 120; f++) face.Step(1f / 60f);
                using (var anims = face.FinishRecording(avatar))
                {
                    var json = Encoding.UTF8.GetString(anims.Json(0));
                    StringAssert.Contains("\"duration\":2", json);
                    Assert.AreEqual("glTF", Encoding.ASCII.GetString(anims.Vrma(0), 0, 4));
                }
                Support.Fails(OmoteStatus.InvalidArgument, "omote_character_finish_recording", () => face.FinishRecording(null));
            }
        }

        /// <summary>The tracking settings' neckShare reaches a recording's VRMA: the same
        /// tracked head turn with the neck taking none, half or all of it gives three
        /// files, and no settings give the half's.</summary>
        [Test]
        public void ATrackedRecordingSplitsTheHeadAtItsNeckShare()
        {
            Func<string, string> vrma = settings =>
            {
                using (var avatar = Avatar.Builtin(0))
                using (var face = new Character(avatar, 4))
                {
                    face.EnableTracking(settings);
                    face.Record(30f);
                    float s = (float)Math.Sin(15 * Math.PI / 180), c = (float)Math.Cos(15 * Math.PI / 180);
                    for (int f = 0; f < 20; f++)
                    {
                        face.SetTracked(new float[52], 0f, s, 0f, c);
                        face.Step(1f / 30f);
                    }
                    using (var anims = face.FinishRecording(avatar))
                        return Convert.ToBase64String(anims.Vrma(0));
                }
            };
            var none = vrma("{\"neckShare\": 0}");
            var half = vrma("{\"neckShare\": 0.5}");
            var whole = vrma("{\"neckShare\": 1}");
            Assert.AreNotEqual(none, half);
            Assert.AreNotEqual(half, whole);
            Assert.AreNotEqual(none, whole);
            Assert.AreEqual(half, vrma(null));
        }

        static float[] FaceSeenFrom(float y)
        {
            {
                using (var avatar = Avatar.Builtin(0))
                using (var face = new Character(avatar, 5))
                {
                    face.EnableCamera(null);
                    face.SetCamera(0f, y, 1.5f);
                    for (int f = 0; f < 60; f++) face.Step(1f / 60f);
                    Support.Fails(OmoteStatus.InvalidArgument, "omote_character_enable_camera", () => face.EnableCamera(null));
                    Support.Fails(OmoteStatus.InvalidArgument, "omote_character_set_camera", () => face.SetCamera(float.NaN, 0f, 1f));
                    return (float[])face.Weights.Clone();
                }
            }
        }

        [Test]
        public void TheCameraAngleChangesTheFace()
        {
            var level = FaceSeenFrom(0f);
            var below = FaceSeenFrom(-1.2f);
            double diff = 0;
            for (int i = 0; i < level.Length; i++) diff += Math.Abs(level[i] - below[i]);
            Assert.That(diff, Is.GreaterThan(0.05), "a camera far below the face changes its correction");
        }

        [Test]
        public void ADisposedSceneThrows()
        {
            var scene = Scene.Load(Demo());
            scene.Dispose();
            scene.Dispose();
            Assert.Throws<ObjectDisposedException>(() => scene.Update(0.016f));
        }
    }
}
