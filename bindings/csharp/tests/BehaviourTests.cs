using System;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using System.Threading;
using NUnit.Framework;

namespace Omote.Tests
{
    /// <summary>The contracts, seen from C#: time, live voice, lines, tracking, the
    /// ABI's coverage, and objects freed.</summary>
    [TestFixture]
    public class BehaviourTests
    {
        static float Mouth(Character c)
        {
            float m = 0;
            foreach (var name in new[] { "aa", "ih", "ou", "ee", "oh" })
            {
                int id;
                if (c.TryChannelId(name, out id)) m = Math.Max(m, c.Weights[id]);
            }
            return m;
        }

        [Test]
        public void AnyDtGivesFiniteWeightsInRange()
        {
            using (var avatar = Avatar.Builtin(0))
            using (var face = new Character(avatar, 11))
            using (var track = Track.Analyse(Support.Line(), Support.Rate))
            {
                face.SetExpression("happy", 0.6f);
                face.Say(track);
                var dts = new[] { 0f, -1f, float.NaN, float.PositiveInfinity, float.NegativeInfinity, 3600f, 1e30f,
                    float.MaxValue, float.Epsilon, 1f / 60f, 0.5f, 1f / 240f };
                foreach (var dt in dts)
                {
                    face.Step(dt);
                    Support.AssertSane(face, "after dt " + dt);
                }
            }
        }

        /// <summary>A line said part way in (after a hitch, at the AudioSource's time) plays
        /// from there: its mouth matches the line said at 0 and stepped that far.</summary>
        [Test]
        public void SayAtPlaysTheLineFromWhereItsAudioIs()
        {
            using (var avatar = Avatar.Builtin(0))
            using (var track = Track.Analyse(Support.Line(), Support.Rate))
            using (var stepped = new Character(avatar, 3))
            using (var jumped = new Character(avatar, 3))
            {
                const float dt = 1f / 64f;
                float at = (float)track.VoicedStart + 0.5f;
                int steps = (int)Math.Round(at / dt);
                stepped.Say(track);
                for (int i = 0; i < steps; i++) stepped.Step(dt);
                jumped.SayAt(track, steps * dt - dt);
                jumped.Step(dt);
                Assert.That(Mouth(stepped), Is.GreaterThan(0.2f), "the line is not voiced there");
                Assert.That(Mouth(jumped), Is.EqualTo(Mouth(stepped)).Within(1e-4f));
                Support.Fails(OmoteStatus.InvalidArgument, "omote_character_say_at", () => jumped.SayAt(track, float.NaN));
            }
        }

        [Test]
        public void ZeroNegativeAndNaNDtLetNoTimePass()
        {
            using (var avatar = Avatar.Builtin(0))
            using (var a = new Character(avatar, 5))
            using (var b = new Character(avatar, 5))
            using (var c = new Character(avatar, 5))
            {
                for (int f = 0; f < 300; f++)
                {
                    a.Step(1f / 60f);
                    b.Step(1f / 60f);
                    c.Step(1f / 60f);
                    if (f % 7 == 3)
                    {
                        // b and c stand still for one call: the frame is recomputed, no time passes.
                        b.Step(0f);
                        CollectionAssert.AreEqual(a.Weights, b.Weights, "dt 0 moved the face at frame {0}", f);
                        c.Step(f % 2 == 0 ? float.NaN : -0.5f);
                        CollectionAssert.AreEqual(a.Weights, c.Weights, "dt NaN / negative moved the face at frame {0}", f);
                    }
                }
                CollectionAssert.AreEqual(a.Rotations, b.Rotations);
                CollectionAssert.AreEqual(a.Rotations, c.Rotations);
            }
        }

        [Test]
        public void ALongDtResumesWithOneNormalFrame()
        {
            using (var avatar = Avatar.Builtin(0))
            using (var away = new Character(avatar, 2))
            using (var here = new Character(avatar, 2))
            using (var track = Track.Analyse(Support.Line(), Support.Rate))
            {
                away.Say(track);
                here.Say(track);
                for (int i = 0; i < 30; i++) { away.Step(1f / 60); here.Step(1f / 60); }
                Assert.IsTrue(away.IsSpeaking); // the voice sounds from 0.25 s to 1.25 s
                away.Step(5f); // the game paused longer than the line
                here.Step(1f / 60);
                Assert.IsTrue(away.IsSpeaking, "the line resumes where it was");
                CollectionAssert.AreEqual(here.Weights, away.Weights, "a 5 s step is one normal frame");
                CollectionAssert.AreEqual(here.Rotations, away.Rotations);
                Support.AssertSane(away, "after a 5 s step");
            }
        }

        [Test]
        public void TheAfterglowHoldsThenReleasesAndCanBeCleared()
        {
            using (var avatar = Avatar.Builtin(0))
            using (var face = new Character(avatar, 2))
            using (var track = Track.Analyse(Support.Line(), Support.Rate))
            {
                int happy = face.ChannelId("happy");
                face.SetAfterglowTiming(1f, 0.5f);
                face.Say(track, new[] { new OmoteWeight(happy, 0.4f) });
                float peak = 0;
                for (int i = 0; i < 150; i++) { face.Step(1f / 60); peak = Math.Max(peak, face.Weights[happy]); }
                Assert.That(peak, Is.GreaterThan(0.3f), "the afterglow came");
                for (int i = 0; i < 120; i++) face.Step(1f / 60);
                Assert.That(face.Weights[happy], Is.LessThan(0.01f), "released 1.5 s after the line");
                face.SetAfterglowTiming(float.PositiveInfinity, 0.5f);
                face.Say(track, new[] { new OmoteWeight(happy, 0.4f) });
                for (int i = 0; i < 300; i++) face.Step(1f / 60);
                Assert.That(face.Weights[happy], Is.GreaterThan(0.3f), "held until the next line");
                face.ClearAfterglow(0f);
                face.Step(1f / 60);
                Assert.That(face.Weights[happy], Is.LessThan(0.01f), "cleared at once");
                Support.Fails(OmoteStatus.InvalidArgument, "omote_character_set_afterglow_timing", () => face.SetAfterglowTiming(float.NaN, 0.5f));
            }
        }

        [Test]
        public void LiveVoiceAt44100In512SampleChunksMovesTheMouth()
        {
            const int rate = 44100, chunk = 512;
            var voice = Support.Buzz(rate, 1.0, 0.3);
            using (var avatar = Avatar.Builtin(0))
            using (var face = new Character(avatar, 9))
            using (var stream = new VoiceStream(rate))
            {
                Assert.That(stream.Latency, Is.GreaterThan(0.0).And.LessThan(0.2));
                var buf = new float[chunk];
                float silentMax = 0, voicedMax = 0;
                for (int at = 0; at + chunk <= voice.Length; at += chunk)
                {
                    Array.Copy(voice, at, buf, 0, chunk);
                    face.Hear(stream, buf, chunk);
                    face.Step((float)chunk / rate);
                    Support.AssertSane(face, "while hearing");
                    double t = (double)at / rate;
                    if (t < 0.25) silentMax = Math.Max(silentMax, Mouth(face));
                    if (t > 0.45 && t < 1.2) voicedMax = Math.Max(voicedMax, Mouth(face));
                }
                Assert.That(silentMax, Is.LessThan(0.05), "the mouth moved in silence");
                Assert.That(voicedMax, Is.GreaterThan(0.2), "the mouth did not open for the voice");
            }
        }

        [Test]
        public void AVoiceStreamGivesVoicedFrames()
        {
            const int rate = 44100, chunk = 512;
            var voice = Support.Buzz(rate, 1.0, 0.3);
            using (var stream = new VoiceStream(rate, true))
            {
                int frames = 0, voiced = 0;
                var buf = new float[chunk];
                for (int at = 0; at + chunk <= voice.Length; at += chunk)
                {
                    Array.Copy(voice, at, buf, 0, chunk);
                    int n = stream.Push(buf);
                    Assert.AreEqual(n, stream.FrameCount);
                    for (int f = 0; f < n; f++)
                    {
                        for (int k = 0; k < NativeMethods.StreamStride; k++)
                            Assert.That(!float.IsNaN(stream.Frames[f * NativeMethods.StreamStride + k]));
                        if (stream.Frames[f * NativeMethods.StreamStride + 7] > 0.5f) voiced++;
                    }
                    frames += n;
                }
                // 100 frames a second: 1.6 s of audio, less the latency.
                Assert.That(frames, Is.InRange(140, 161));
                Assert.That(voiced, Is.InRange(70, 110), "about one second voiced");
            }
        }

        [Test]
        public void ASpeakerReadsLinesAgainstEachOther()
        {
            var line = Support.Line();
            var other = Support.Buzz(Support.Rate, 0.8, 0.2);
            using (var speaker = new Speaker())
            {
                speaker.AddLine(line, Support.Rate);
                speaker.AddLine(other, Support.Rate);
                using (var track = speaker.Analyse(line, Support.Rate))
                {
                    Assert.AreEqual(100f, track.Fps);
                    Assert.That(track.FrameCount, Is.InRange(148, 152));
                    Assert.IsTrue(track.HasVoiced);
                    Assert.That(track.VoicedStart, Is.EqualTo(0.25).Within(0.05));
                    Assert.That(track.VoicedEnd, Is.EqualTo(1.25).Within(0.05));
                    var frames = track.Frames();
                    Assert.AreEqual(track.FrameCount * NativeMethods.TrackStride, frames.Length);
                    Assert.That(frames.All(v => v >= 0f && v <= 1f));
                    Assert.That(frames.Max(), Is.GreaterThan(0.3f), "the voiced part has vowels");
                }
                var seed = speaker.VoiceSeed();
                Assert.AreEqual(NativeMethods.VoiceSeedLength, seed.Length);
                Assert.That(seed.All(v => !float.IsNaN(v) && !float.IsInfinity(v)));
                using (var stream = new VoiceStream(Support.Rate))
                {
                    stream.StartFromSpeaker(speaker);
                    stream.Push(line);
                }
            }
        }

        [Test]
        public void TrackFromFramesKeepsItsFrames()
        {
            var frames = new float[6 * 50];
            for (int f = 10; f < 40; f++) frames[6 * f] = 0.8f;
            using (var track = Track.FromFrames(frames, 50f, 0.2, 0.8))
            {
                Assert.AreEqual(50, track.FrameCount);
                Assert.AreEqual(50f, track.Fps);
                Assert.IsTrue(track.HasVoiced);
                Assert.AreEqual(0.2, track.VoicedStart);
                CollectionAssert.AreEqual(frames, track.Frames());
                using (var avatar = Avatar.Builtin(2))
                using (var face = new Character(avatar, 1))
                {
                    face.Say(track);
                    float aa = 0;
                    int id = face.ChannelId("aa");
                    for (int i = 0; i < 60; i++)
                    {
                        face.Step(1f / 60f);
                        aa = Math.Max(aa, face.Weights[id]);
                    }
                    Assert.That(aa, Is.GreaterThan(0.4f), "a said track opens the mouth");
                }
            }
        }

        /// <summary>MediaPipe's named scores and row-major head: the same face as the 52 scores
        /// in ARKit's order with the head as a quaternion; names in any spelling.</summary>
        [Test]
        public void NamedScoresAndAHeadMatrixAreTheArkitScoresAndQuaternion()
        {
            Assert.AreEqual(Library.ArkitIndex("jawOpen"), Library.ArkitIndex("JawOpen"));
            Assert.AreEqual(Library.ArkitIndex("eyeBlinkLeft"), Library.ArkitIndex("eyeBlink_L"));
            Assert.AreEqual(-1, Library.ArkitIndex("_neutral"));
            Assert.AreEqual(-1, Library.ArkitIndex(null));
            // 15° about +Y: row-major rotation with a translation (ignored).
            float c = (float)Math.Cos(15 * Math.PI / 180), s = (float)Math.Sin(15 * Math.PI / 180);
            var matrix = new float[] { c, 0, s, 0.01f, 0, 1, 0, 0.02f, -s, 0, c, -0.4f, 0, 0, 0, 1 };
            float[] named, indexed;
            using (var avatar = Avatar.Builtin(0))
            {
                using (var face = new Character(avatar, 4))
                {
                    face.EnableTracking();
                    for (int f = 0; f < 30; f++)
                    {
                        face.SetTrackedNamed(new[] { "_neutral", "JawOpen", "eyeBlink_L" }, new[] { 0.9f, 0.8f, 0.3f }, matrix);
                        face.Step(1f / 60f);
                    }
                    named = (float[])face.Weights.Clone();
                    var e = Assert.Throws<ArgumentException>(() => face.SetTrackedNamed(new[] { "jawOpen" }, new[] { 0.1f, 0.2f }));
                    StringAssert.Contains("one name per score", e.Message);
                    Assert.Throws<ArgumentException>(() => face.SetTrackedNamed(new[] { "jawOpen" }, new[] { 0.1f }, new float[9]));
                    Assert.Throws<ArgumentNullException>(() => face.SetTrackedNamed(new string[] { null }, new[] { 0.1f }));
                    Support.Fails(OmoteStatus.InvalidArgument, "omote_character_set_tracked_named",
                        () => face.SetTrackedNamed(new[] { "jawOpen" }, new[] { float.NaN }));
                }
                using (var face = new Character(avatar, 4))
                {
                    face.EnableTracking();
                    var scores = new float[NativeMethods.ArkitCount];
                    scores[Library.ArkitIndex("jawOpen")] = 0.8f;
                    scores[Library.ArkitIndex("eyeBlinkLeft")] = 0.3f;
                    float h = (float)Math.Sin(7.5 * Math.PI / 180), w = (float)Math.Cos(7.5 * Math.PI / 180);
                    for (int f = 0; f < 30; f++)
                    {
                        face.SetTracked(scores, 0f, h, 0f, w);
                        face.Step(1f / 60f);
                    }
                    indexed = (float[])face.Weights.Clone();
                }
            }
            Assert.That(named.Max(), Is.GreaterThan(0.5f));
            for (int i = 0; i < named.Length; i++)
                Assert.That(named[i], Is.EqualTo(indexed[i]).Within(1e-5f), "channel " + i);
        }

        /// <summary>Tracking settings as JSON: mirrored, the user's left wink closes the
        /// avatar's right eye; a misspelt field is refused by name and tracking stays as it was.</summary>
        [Test]
        public void TrackingSettingsMirrorTheUser()
        {
            using (var avatar = Avatar.Builtin(2))
            {
                Func<string, float[]> wink = settings =>
                {
                    using (var face = new Character(avatar, 3))
                    {
                        face.EnableTracking(settings);
                        var scores = new float[NativeMethods.ArkitCount];
                        scores[Library.ArkitIndex("eyeBlinkLeft")] = 0.95f;
                        for (int f = 0; f < 30; f++)
                        {
                            face.SetTracked(scores);
                            face.Step(1f / 30f);
                        }
                        return new[] { face.Weights[face.ChannelId("blinkLeft")], face.Weights[face.ChannelId("blinkRight")] };
                    }
                };
                var plain = wink(null);
                Assert.That(plain[0], Is.GreaterThan(0.8f));
                Assert.That(plain[1], Is.LessThan(0.1f));
                var mirrored = wink("{\"mirror\": true, \"smoothing\": {\"eyes\": 0.02}}");
                Assert.That(mirrored[1], Is.GreaterThan(0.8f));
                Assert.That(mirrored[0], Is.LessThan(0.1f));
                using (var face = new Character(avatar, 3))
                {
                    var e = Support.Fails(OmoteStatus.InvalidArgument, "omote_character_enable_tracking_with",
                        () => face.EnableTracking("{\"mirrorr\": true}"));
                    StringAssert.Contains("unknown field `mirrorr`", e.Message);
                    e = Support.Fails(OmoteStatus.InvalidArgument, "omote_character_enable_tracking_with",
                        () => face.EnableTracking("{\"neckShare\": 2}"));
                    StringAssert.Contains("neckShare = 2", e.Message);
                    Support.Fails(OmoteStatus.InvalidArgument, "omote_character_calibrate_tracking",
                        () => face.CalibrateTracking(1f));
                }
            }
        }

        /// <summary>An emotion that changes over time: half way at half the fade, there at
        /// its end; unknown names and bad times are refused by the library's message.</summary>
        [Test]
        public void FadeExpressionEasesTheWeightThere()
        {
            using (var avatar = Avatar.Builtin(0))
            using (var face = new Character(avatar, 4))
            {
                int happy = face.ChannelId("happy");
                face.FadeExpression("happy", 1f, 0.5f);
                var seen = new float[30];
                for (int f = 0; f < 30; f++)
                {
                    face.Step(1f / 60f);
                    seen[f] = face.InputWeights[happy];
                }
                Assert.That(seen[0], Is.GreaterThan(0f).And.LessThan(0.02f));
                Assert.That(seen[14], Is.EqualTo(0.5f).Within(0.05f));
                Assert.AreEqual(1f, seen[29]);
                var e = Support.Fails(OmoteStatus.NotFound, "omote_character_channel_id", () => face.FadeExpression("nosuch", 1f, 0.5f));
                StringAssert.Contains("nosuch", e.Message);
                Support.Fails(OmoteStatus.InvalidArgument, "omote_character_fade_expression", () => face.FadeExpression(happy, 1f, float.NaN));
            }
        }

        [Test]
        public void TrackingWithJawOpenOpensTheMouth()
        {
            using (var avatar = Avatar.Builtin(0))
            using (var face = new Character(avatar, 4))
            {
                face.EnableTracking();
                var scores = new float[NativeMethods.ArkitCount];
                int jaw = Library.ArkitIndex("jawOpen");
                Assert.That(jaw, Is.GreaterThanOrEqualTo(0));
                for (int f = 0; f < 30; f++)
                {
                    face.SetTracked(scores);
                    face.Step(1f / 60f);
                }
                float closed = Mouth(face);
                scores[jaw] = 0.9f;
                for (int f = 0; f < 30; f++)
                {
                    face.SetTracked(scores, 0f, 0.1305f, 0f, 0.9914f); // and the head turned 15°
                    face.Step(1f / 60f);
                    Support.AssertSane(face, "tracked");
                }
                float open = Mouth(face);
                Assert.That(closed, Is.LessThan(0.1f));
                Assert.That(open, Is.GreaterThan(0.4f), "jawOpen 0.9 did not open the mouth");
                Assert.That(Math.Abs(face.Rotations[1]), Is.GreaterThan(0.02f), "the tracked head did not turn the head");
                face.SetTrackingLost();
                for (int f = 0; f < 120; f++) face.Step(1f / 60f);
                Assert.That(Mouth(face), Is.LessThan(0.1f), "a lost face fades back to the acting");
            }
        }

        [Test]
        public void CalibratingMakesTheUsersHeadStraight()
        {
            using (var avatar = Avatar.Builtin(0))
            using (var face = new Character(avatar, 4))
            {
                face.EnableTracking();
                var scores = new float[NativeMethods.ArkitCount];
                // The camera sits to the side: the user's straight ahead reads 15° turned.
                for (int f = 0; f < 60; f++)
                {
                    face.SetTracked(scores, 0f, 0.1305f, 0f, 0.9914f);
                    face.Step(1f / 30f);
                }
                Assert.That(Math.Abs(face.Rotations[1]), Is.GreaterThan(0.05f), "uncalibrated, the head is turned");
                face.CalibrateTracking(1f);
                for (int f = 0; f < 90; f++)
                {
                    face.SetTracked(scores, 0f, 0.1305f, 0f, 0.9914f);
                    face.Step(1f / 30f);
                    Support.AssertSane(face, "calibrating");
                }
                Assert.That(Math.Abs(face.Rotations[1]), Is.LessThan(0.005f), "calibrated, the same pose is straight ahead");
            }
        }

        [Test]
        public void GazeTargetAndEyeRotations()
        {
            using (var avatar = Avatar.Builtin(0))
            using (var face = new Character(avatar, 6))
            {
                face.SetGazeTarget(1f, 0f, 1f); // 45° to the avatar's left
                for (int f = 0; f < 120; f++) face.Step(1f / 60f);
                float yaw, pitch;
                face.GetGaze(out yaw, out pitch);
                Assert.That(yaw, Is.GreaterThan(10f), "the eyes look toward +X (the avatar's left)");
                Assert.That(Math.Abs(pitch), Is.LessThan(10f));
                Support.AssertSane(face, "gazing");
                face.SetEyeMode(EyeMode.Focused);
                face.SetHead(0f, 0.2588f, 0f, 0.9659f);
                face.RequestBlink(0f);
                int blinks = 0;
                for (int f = 0; f < 30; f++)
                {
                    face.Step(1f / 60f);
                    blinks += (int)face.Events.Blinks;
                }
                Assert.That(blinks, Is.GreaterThan(0), "a requested blink");
            }
        }

        [Test]
        public void ChannelNamesAndIdsRoundTrip()
        {
            using (var avatar = Avatar.Builtin(2))
            using (var face = new Character(avatar, 1))
            {
                Assert.That(face.ChannelCount, Is.EqualTo(avatar.ChannelCount));
                Assert.That(face.ChannelCount, Is.GreaterThanOrEqualTo(18 + 52));
                Assert.AreSame(face.ChannelNames, face.ChannelNames);
                for (int i = 0; i < face.ChannelCount; i++)
                {
                    Assert.AreEqual(i, face.ChannelId(face.ChannelNames[i]));
                    Assert.AreEqual(i, avatar.ChannelId(avatar.ChannelNames[i]));
                }
                CollectionAssert.Contains(face.ChannelNames, "happy");
                CollectionAssert.Contains(face.ChannelNames, "jawOpen");
            }
            using (var rig = Avatar.FromRigJson("{\"presets\": true}"))
                Assert.AreEqual(18, rig.ChannelCount);
        }

        [Test]
        public void LibraryFacts()
        {
            Assert.AreEqual(NativeMethods.AbiVersion, Library.AbiVersion);
            Assert.AreEqual(NativeMethods.AbiMinor, Library.AbiMinor);
            Assert.IsNull(Library.AbiMismatch(Library.AbiVersion, Library.AbiMinor));
            Assert.IsNull(Library.AbiMismatch(NativeMethods.AbiVersion, NativeMethods.AbiMinor + 2), "a library with more additions serves the scripts");
            StringAssert.Contains("is older than these scripts", Library.AbiMismatch(NativeMethods.AbiVersion, NativeMethods.AbiMinor - 1));
            StringAssert.Contains("rebuild or replace the plug-in", Library.AbiMismatch(NativeMethods.AbiVersion + 1, NativeMethods.AbiMinor));
            StringAssert.IsMatch(@"^\d+\.\d+\.\d+", Library.Version);
            Assert.AreEqual(52, Library.ArkitNames.Length);
            Assert.AreEqual("eyeBlinkLeft", Library.ArkitNames[0]);
            Assert.AreEqual(IntPtr.Zero, NativeMethods.omote_arkit_name(52));
            Assert.AreEqual(8, Library.LiveObjects().Length);
        }

        /// <summary>Every function of include/omote.h has its declaration here, and no
        /// declaration names a function the header lacks.</summary>
        [Test]
        public void NativeMethodsCoverTheHeader()
        {
            var header = File.ReadAllText(Path.Combine(Support.Repo(), "include/omote.h"));
            var inHeader = Regex.Matches(header, @"\b(omote_[a-z0-9_]+)\(")
                .Cast<Match>().Select(m => m.Groups[1].Value)
                .Distinct().OrderBy(n => n).ToList();
            var declared = typeof(NativeMethods).GetMethods()
                .Where(m => m.Name.StartsWith("omote_")).Select(m => m.Name).Distinct().OrderBy(n => n).ToList();
            Assert.That(inHeader.Count, Is.GreaterThan(50));
            CollectionAssert.AreEqual(inHeader, declared);
        }

        [Test]
        public void AForgottenObjectIsFreedByItsFinalizer()
        {
            var before = Library.LiveObjects();
            Forget();
            for (int i = 0; i < 5; i++)
            {
                GC.Collect();
                GC.WaitForPendingFinalizers();
            }
            var after = Library.LiveObjects();
            // Mono scans stacks conservatively, so one object may survive a collection;
            // most of the 20 forgotten ones must be gone.
            for (int k = 0; k < 5; k++)
                Assert.That(after[k], Is.LessThanOrEqualTo(before[k] + 1), "kind {0}: {1} → {2}", k, before[k], after[k]);
        }

        static void Forget()
        {
            for (int i = 0; i < 4; i++)
            {
                var a = Avatar.Builtin(2);
                new Character(a, 1).Step(0.01f);
                Track.FromFrames(new float[6], 100f);
                new Speaker();
                new VoiceStream(16000);
            }
        }

        [Test]
        public void TheAudioRingCarriesSamplesAcrossThreads()
        {
            var ring = new AudioRing(1000);
            Assert.AreEqual(1024, ring.Capacity);
            const int total = 200000;
            var got = new float[total];
            int have = 0;
            var writer = new Thread(() =>
            {
                var chunk = new float[2 * 256]; // stereo, as OnAudioFilterRead gives it
                int next = 0;
                while (next < total)
                {
                    int frames = Math.Min(256, total - next);
                    for (int f = 0; f < frames; f++)
                    {
                        chunk[2 * f] = next + f;     // left
                        chunk[2 * f + 1] = next + f; // right
                    }
                    int kept = 0;
                    while (kept < frames)
                    {
                        // Only for the test: wait for room instead of dropping.
                        int room = ring.Capacity - ring.Available;
                        int n = Math.Min(room, frames - kept);
                        if (n == 0) { Thread.Yield(); continue; }
                        ring.Write(Slice(chunk, 2 * kept, 2 * n), 2 * n, 2);
                        kept += n;
                    }
                    next += frames;
                }
            });
            writer.Start();
            var buf = new float[300];
            while (have < total)
            {
                int n = ring.Read(buf);
                Array.Copy(buf, 0, got, have, n);
                have += n;
                if (n == 0) Thread.Yield();
            }
            writer.Join();
            for (int i = 0; i < total; i++)
                if (got[i] != i) Assert.Fail("sample {0} is {1}", i, got[i]);
            Assert.AreEqual(0, ring.Dropped);
            // A full ring drops the newest and counts them; it never blocks.
            var full = new AudioRing(16);
            Assert.AreEqual(16, full.Write(new float[20], 20, 1));
            Assert.AreEqual(4, full.Dropped);
        }

        static float[] Slice(float[] a, int start, int length)
        {
            var s = new float[length];
            Array.Copy(a, start, s, 0, length);
            return s;
        }
    }
}
