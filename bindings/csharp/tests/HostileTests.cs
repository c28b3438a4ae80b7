using System;
using System.Threading;
using NUnit.Framework;

namespace Omote.Tests
{
    /// <summary>
    /// Misuse from C#: every case is an exception carrying the library's status and a
    /// message naming the call (or, for what only the wrapper can see, the .NET exception
    /// that says so), never a crash; the character goes on giving sane frames.
    /// </summary>
    [TestFixture]
    public class HostileTests
    {
        Avatar avatar;
        Character face;

        [SetUp]
        public void Make()
        {
            avatar = Avatar.Builtin(0);
            face = new Character(avatar, 1);
            face.Step(1f / 60f);
        }

        [TearDown]
        public void Free()
        {
            face.Dispose();
            avatar.Dispose();
        }

        /// <summary>Text holding a NUL would reach C cut at the NUL ("happy\0junk" read
        /// as "happy"): it throws instead, naming where the NUL is, and changes nothing.</summary>
        [Test]
        public void TextWithANulThrowsInsteadOfBeingCut()
        {
            var e = Assert.Throws<ArgumentException>(() => face.SetExpression("happy\0junk", 1f));
            StringAssert.Contains("NUL character at 5", e.Message);
            StillSane("a name with a NUL");
            using (var scene = Scene.Load(System.IO.Path.Combine(Support.Repo(), "examples/scenes/demo/scene.toml")))
            {
                Assert.Throws<ArgumentException>(() => scene.SetGaze(0, "camera\0junk"));
                Assert.Throws<ArgumentException>(() => scene.SetEyeMode(0, "idle\0x"));
            }
        }

        /// <summary>After each failed call the face still steps and stays sane.</summary>
        void StillSane(string after)
        {
            face.Step(1f / 60f);
            Support.AssertSane(face, "after " + after);
        }

        [Test]
        public void LoadingBadAvatars()
        {
            Support.Fails(OmoteStatus.NullPointer, "omote_avatar_load", () => Avatar.Load(null));
            var missing = Support.Fails(OmoteStatus.NotFound, "omote_avatar_load", () => Avatar.Load("/no/such/avatar.vrm"));
            // The words every binding uses for a missing file, not the OS's.
            StringAssert.EndsWith("/no/such/avatar.vrm: no such file", missing.Message);
            Support.Fails(OmoteStatus.InvalidArgument, "omote_avatar_builtin", () => Avatar.Builtin(9));
            Support.Fails(OmoteStatus.InvalidArgument, "omote_avatar_builtin", () => Avatar.Builtin(9));
            var junk = new byte[] { (byte)'g', (byte)'l', (byte)'T', (byte)'F', 2, 0, 0, 0, 99, 0, 0, 0, 1, 2, 3, 4 };
            Support.Fails(OmoteStatus.LoadFailed, "omote_avatar_from_vrm", () => Avatar.FromVrm(junk, "junk.vrm"));
            Support.NullArray("bytes", () => Avatar.FromVrm(null));
            Assert.Throws<OmoteException>(() => Avatar.FromVrm(new byte[0], "empty.vrm"));
            Support.Fails(OmoteStatus.NullPointer, "omote_avatar_from_rig_json", () => Avatar.FromRigJson(null));
            Support.Fails(OmoteStatus.LoadFailed, "omote_avatar_from_rig_json", () => Avatar.FromRigJson("{\"presets\": tru"));
            Support.Fails(OmoteStatus.LoadFailed, "omote_avatar_from_rig_json", () => Avatar.FromRigJson(""));
        }

        [Test]
        public void UnknownNames()
        {
            Support.Fails(OmoteStatus.NotFound, "omote_character_set_expression_named", () => face.SetExpression("smile", 1f));
            Support.Fails(OmoteStatus.NullPointer, "omote_character_set_expression_named", () => face.SetExpression(null, 1f));
            Support.Fails(OmoteStatus.NotFound, "omote_character_channel_id", () => face.ChannelId("smile"));
            Support.Fails(OmoteStatus.NotFound, "omote_avatar_channel_id", () => avatar.ChannelId("smile"));
            Support.Fails(OmoteStatus.NotFound, "omote_character_channel_id", () => face.SetPicture("smile", 0.5f));
            int id;
            Assert.IsFalse(face.TryChannelId("smile", out id));
            Assert.IsFalse(face.TryChannelId(null, out id));
            // Not UTF-8 cannot come from a C# string; an unpaired surrogate becomes U+FFFD.
            Support.Fails(OmoteStatus.NotFound, "omote_character_set_expression_named", () => face.SetExpression("\ud800", 1f));
            StillSane("unknown names");
        }

        [Test]
        public void NaNAndOutOfRangeInputs()
        {
            float nan = float.NaN;
            Support.Fails(OmoteStatus.InvalidArgument, "omote_character_set_expression", () => face.SetExpression("happy", nan));
            Support.Fails(OmoteStatus.InvalidArgument, "omote_character_set_expression", () => face.SetExpression(face.ChannelCount, 1f));
            Support.Fails(OmoteStatus.InvalidArgument, "omote_character_set_expression", () => face.SetExpression(100000, 1f));
            Support.Fails(OmoteStatus.InvalidArgument, "omote_character_set_picture", () => face.SetPicture(0, nan));
            Support.Fails(OmoteStatus.InvalidArgument, "omote_character_set_gaze", () => face.SetGaze(nan, 0f));
            Support.Fails(OmoteStatus.InvalidArgument, "omote_character_set_gaze", () => face.SetGaze(0f, float.PositiveInfinity));
            Support.Fails(OmoteStatus.InvalidArgument, "omote_character_set_gaze_target", () => face.SetGazeTarget(0f, 0f, 0f));
            Support.Fails(OmoteStatus.InvalidArgument, "omote_character_set_gaze_target", () => face.SetGazeTarget(nan, 0f, 1f));
            Support.Fails(OmoteStatus.InvalidArgument, "omote_character_set_head", () => face.SetHead(0f, 0f, 0f, 0f));
            Support.Fails(OmoteStatus.InvalidArgument, "omote_character_set_head", () => face.SetHead(nan, 0f, 0f, 1f));
            Support.Fails(OmoteStatus.InvalidArgument, "omote_character_set_eye_mode", () => face.SetEyeMode((EyeMode)7));
            Support.Fails(OmoteStatus.InvalidArgument, "omote_character_request_blink", () => face.RequestBlink(nan));
            Support.Fails(OmoteStatus.InvalidArgument, "omote_character_announce_eye_change", () => face.AnnounceEyeChange(nan));
            Support.Fails(OmoteStatus.InvalidArgument, "omote_character_announce_eye_change", () => face.AnnounceEyeChange(-1f));
            StillSane("NaN inputs");
            // Out of range but finite is clamped, not refused.
            face.SetExpression("happy", 7f);
            face.SetGaze(400f, -400f);
            StillSane("clamped inputs");
        }

        [Test]
        public void NegativeIndicesThrowBeforeTheLibrary()
        {
            Assert.Throws<ArgumentOutOfRangeException>(() => Avatar.Builtin(-1));
            Assert.Throws<ArgumentOutOfRangeException>(() => face.SetExpression(-1, 0.5f));
            Assert.Throws<ArgumentOutOfRangeException>(() => face.SetPicture(-2, 0.5f));
            Assert.Throws<ArgumentOutOfRangeException>(() => new OmoteWeight(-1, 0.5f));
            var e = Assert.Throws<ArgumentOutOfRangeException>(() => face.SetExpression(-1, 0.5f));
            StringAssert.Contains("id is -1", e.Message);
            StillSane("negative indices");
        }

        [Test]
        public void TrackingIsRefusedUntilItIsOn()
        {
            var e = Support.Fails(OmoteStatus.InvalidArgument, "omote_character_set_tracked", () => face.SetTracked(new float[52]));
            StringAssert.Contains("tracking is off", e.Message);
            e = Support.Fails(OmoteStatus.InvalidArgument, "omote_character_calibrate_tracking", () => face.CalibrateTracking(1f));
            StringAssert.Contains("tracking is off", e.Message);
            face.EnableTracking();
            face.SetTracked(new float[52]);
            Support.Fails(OmoteStatus.InvalidArgument, "omote_character_calibrate_tracking", () => face.CalibrateTracking(float.NaN));
        }

        [Test]
        public void TrackingAndLiveVoiceArrays()
        {
            face.EnableTracking();
            Support.NullArray("scores", () => face.SetTracked(null));
            Support.Fails(OmoteStatus.InvalidArgument, "omote_character_set_tracked", () => face.SetTracked(new float[0]));
            Support.Fails(OmoteStatus.InvalidArgument, "omote_character_set_tracked", () => face.SetTracked(new float[51]));
            Support.Fails(OmoteStatus.InvalidArgument, "omote_character_set_tracked", () => face.SetTracked(new float[53]));
            var scores = new float[52];
            scores[3] = float.NaN;
            Support.Fails(OmoteStatus.InvalidArgument, "omote_character_set_tracked", () => face.SetTracked(scores));
            scores[3] = 0f;
            Support.Fails(OmoteStatus.InvalidArgument, "omote_character_set_tracked", () => face.SetTracked(scores, float.NaN, 0f, 0f, 1f));
            Support.Fails(OmoteStatus.InvalidArgument, "omote_character_set_tracked", () => face.SetTracked(scores, 0f, 0f, 0f, 0f));
            Support.NullArray("vowels", () => face.SetLiveVowels(null, true));
            Support.Fails(OmoteStatus.InvalidArgument, "omote_character_set_live_vowels", () => face.SetLiveVowels(new float[4], true));
            Support.Fails(OmoteStatus.InvalidArgument, "omote_character_set_live_vowels", () => face.SetLiveVowels(new[] { 0.5f, 0f, 0f, 0f, 0f, float.NaN }, true));
            StillSane("bad tracking arrays");
        }

        [Test]
        public void BadVoice()
        {
            var samples = new float[4800];
            for (int i = 0; i < samples.Length; i++) samples[i] = (i % 100) / 100f - 0.5f;
            Support.NullArray("samples", () => Track.Analyse(null, 48000));
            Support.Fails(OmoteStatus.InvalidArgument, "omote_analyse_voice", () => Track.Analyse(new float[0], 48000));
            Support.Fails(OmoteStatus.InvalidArgument, "omote_analyse_voice", () => Track.Analyse(samples, 0));
            Support.Fails(OmoteStatus.InvalidArgument, "omote_analyse_voice", () => Track.Analyse(samples, double.NaN));
            Support.Fails(OmoteStatus.InvalidArgument, "omote_analyse_voice", () => Track.Analyse(samples, 1e9));
            samples[10] = float.NaN;
            Support.Fails(OmoteStatus.InvalidArgument, "omote_analyse_voice", () => Track.Analyse(samples, 48000));
            samples[10] = 0f;
            Support.Fails(OmoteStatus.InvalidArgument, "omote_track_from_frames", () => Track.FromFrames(new float[7], 100f));
            Support.Fails(OmoteStatus.InvalidArgument, "omote_track_from_frames", () => Track.FromFrames(new float[6], 0f));
            Support.Fails(OmoteStatus.InvalidArgument, "omote_track_from_frames", () => Track.FromFrames(new float[6], float.NaN));

            using (var track = Track.Analyse(samples, 48000))
            {
                Support.Fails(OmoteStatus.InvalidArgument, "omote_character_say",
                    () => face.Say(track, new[] { new OmoteWeight(0, float.NaN) }));
                Support.Fails(OmoteStatus.InvalidArgument, "omote_character_say",
                    () => face.Say(track, new[] { new OmoteWeight(100000, 0.5f) }));
                Assert.Throws<ArgumentNullException>(() => face.Say(null));
                face.Say(track, new OmoteWeight[0]);
            }

            Support.Fails(OmoteStatus.InvalidArgument, "omote_voice_stream_new", () => new VoiceStream(1.0));
            Support.Fails(OmoteStatus.InvalidArgument, "omote_voice_stream_new", () => new VoiceStream(double.NaN));
            Support.Fails(OmoteStatus.InvalidArgument, "omote_voice_stream_new", () => new VoiceStream(44100.5));
            using (var stream = new VoiceStream(48000))
            using (var speaker = new Speaker())
            {
                Support.Fails(OmoteStatus.InvalidArgument, "omote_voice_stream_push", () => stream.Push(new[] { float.NaN }));
                Support.NullArray("samples", () => stream.Push(null));
                Support.NullArray("samples", () => face.Hear(stream, null));
                Support.NullArray("samples", () => face.Hear(stream, null, 0));
                Support.Fails(OmoteStatus.InvalidArgument, "omote_character_hear", () => face.Hear(stream, new[] { 0f, float.NaN }));
                Assert.Throws<ArgumentOutOfRangeException>(() => face.Hear(stream, new float[4], 5));
                Assert.Throws<ArgumentOutOfRangeException>(() => face.Hear(stream, new float[4], -1));
                Assert.Throws<ArgumentOutOfRangeException>(() => stream.Push(new float[4], 9));
                Assert.Throws<ArgumentNullException>(() => face.Hear(null, new float[4]));
                Support.Fails(OmoteStatus.InvalidArgument, "omote_speaker_add_line", () => speaker.AddLine(new[] { float.NaN, 0f }, 48000));
                Support.NullArray("samples", () => speaker.Analyse(null, 48000));
                Support.NullArray("samples", () => speaker.AddLine(null, 48000));
                Support.Fails(OmoteStatus.InvalidArgument, "omote_speaker_voice_seed",
                    () => Native.Check(NativeMethods.omote_speaker_voice_seed(speaker.Handle, new float[3], 3)));
            }
            StillSane("bad voice");
        }

        [Test]
        public void WrongOutputLengths()
        {
            int n = face.ChannelCount;
            Support.Fails(OmoteStatus.InvalidArgument, "omote_character_weights", () => face.CopyWeights(new float[n - 1]));
            Support.Fails(OmoteStatus.InvalidArgument, "omote_character_weights", () => face.CopyWeights(new float[n + 1]));
            Support.NullArray("into", () => face.CopyWeights(null));
            Support.Fails(OmoteStatus.InvalidArgument, "omote_character_input_weights", () => face.CopyInputWeights(new float[0]));
            Support.Fails(OmoteStatus.InvalidArgument, "omote_character_rotations", () => face.CopyRotations(new float[11]));
            Support.Fails(OmoteStatus.InvalidArgument, "omote_character_step",
                () => Native.Check(NativeMethods.omote_character_step(face.Handle, 0.016f, new float[n + 1], null, (uint)(n + 1), null, ref Dummy)));
            Support.Fails(OmoteStatus.InvalidArgument, "omote_live_objects",
                () => Native.Check(NativeMethods.omote_live_objects(new uint[3], 3)));
            var small = new byte[2];
            uint len;
            Support.Fails(OmoteStatus.BufferTooSmall, "omote_avatar_channel_name",
                () => Native.Check(NativeMethods.omote_avatar_channel_name(avatar.Handle, 0, small, 2, out len)));
            Support.Fails(OmoteStatus.InvalidArgument, "omote_avatar_channel_name",
                () => Native.Check(NativeMethods.omote_avatar_channel_name(avatar.Handle, (uint)n, small, 2, out len)));
            // The right lengths work, and equal what Step filled.
            var w = new float[n];
            face.Step(0f);
            face.CopyWeights(w);
            CollectionAssert.AreEqual(face.Weights, w);
            face.CopyInputWeights(w);
            CollectionAssert.AreEqual(face.InputWeights, w);
            var r = new float[12];
            face.CopyRotations(r);
            CollectionAssert.AreEqual(face.Rotations, r);
            StillSane("wrong lengths");
        }

        static FrameEvents Dummy;

        [Test]
        public void DisposeTwiceIsHarmlessAndUseAfterDisposeThrows()
        {
            var a = Avatar.Builtin(2);
            var c = new Character(a, 5);
            var t = Track.FromFrames(new float[12], 100f);
            var s = new Speaker();
            var v = new VoiceStream(44100);
            a.Dispose();
            a.Dispose();
            Assert.IsTrue(a.IsDisposed);
            Assert.Throws<ObjectDisposedException>(() => { var x = a.ChannelNames; });
            Assert.Throws<ObjectDisposedException>(() => a.ChannelId("happy"));
            Assert.Throws<ObjectDisposedException>(() => new Character(a, 1));
            // The character outlives its avatar.
            c.Step(1f / 60f);
            Support.AssertSane(c, "after its avatar was freed");
            c.Dispose();
            c.Dispose();
            Assert.Throws<ObjectDisposedException>(() => c.Step(1f / 60f));
            Assert.Throws<ObjectDisposedException>(() => c.SetExpression("happy", 1f));
            Assert.Throws<ObjectDisposedException>(() => { var x = c.IsSpeaking; });
            Assert.Throws<ObjectDisposedException>(() => { var x = c.Handle; });
            t.Dispose();
            Assert.Throws<ObjectDisposedException>(() => face.Say(t));
            t.Dispose();
            s.Dispose();
            Assert.Throws<ObjectDisposedException>(() => s.AddLine(new float[100], 48000));
            s.Dispose();
            v.Dispose();
            Assert.Throws<ObjectDisposedException>(() => v.Push(new float[100]));
            Assert.Throws<ObjectDisposedException>(() => face.Hear(v, new float[100]));
            v.Dispose();
            StillSane("disposed objects");
        }

        [Test]
        public void FreedForeignAndWrongKindHandlesThroughTheRawCalls()
        {
            var other = new Character(avatar, 2);
            ulong h = other.Handle;
            other.Dispose();
            var e = Support.Fails(OmoteStatus.InvalidHandle, "omote_character_update",
                () => Native.Check(NativeMethods.omote_character_update(h, 0.016f)));
            StringAssert.Contains("not a character that is alive", e.NativeMessage);
            Support.Fails(OmoteStatus.InvalidHandle, "omote_character_free",
                () => Native.Check(NativeMethods.omote_character_free(h)));
            // A new character may reuse the slot; the stale handle still names nothing.
            using (var reused = new Character(avatar, 3))
            {
                Support.Fails(OmoteStatus.InvalidHandle, "omote_character_update",
                    () => Native.Check(NativeMethods.omote_character_update(h, 0.016f)));
                reused.Step(1f / 60f);
            }
            Support.Fails(OmoteStatus.InvalidHandle, "omote_character_update",
                () => Native.Check(NativeMethods.omote_character_update(0, 0.016f)));
            e = Support.Fails(OmoteStatus.InvalidHandle, "omote_character_update",
                () => Native.Check(NativeMethods.omote_character_update(avatar.Handle, 0.016f)));
            StringAssert.Contains("is an avatar, not a character", e.NativeMessage);
            e = Support.Fails(OmoteStatus.InvalidHandle, "omote_character_update",
                () => Native.Check(NativeMethods.omote_character_update(0x1234567890abcdefUL, 0.016f)));
            StringAssert.Contains("not a handle from omote", e.NativeMessage);
            Support.Fails(OmoteStatus.InvalidHandle, "omote_character_say",
                () => Native.Check(NativeMethods.omote_character_say(face.Handle, face.Handle, null, 0)));
            Support.Fails(OmoteStatus.InvalidHandle, "omote_track_free",
                () => Native.Check(NativeMethods.omote_track_free(avatar.Handle)));
            StillSane("bad handles");
        }

        [Test]
        public void MessagesArePerThread()
        {
            Support.Fails(OmoteStatus.NotFound, "omote_character_set_expression_named", () => face.SetExpression("smile", 1f));
            string mine = Native.LastError();
            string theirs = null;
            var t = new Thread(() =>
            {
                try { Avatar.Builtin(9); }
                catch (OmoteException e) { theirs = e.NativeMessage; }
            });
            t.Start();
            t.Join();
            StringAssert.StartsWith("omote_avatar_builtin: ", theirs);
            Assert.AreEqual(mine, Native.LastError(), "another thread's failure changed this thread's message");
        }
    }
}
