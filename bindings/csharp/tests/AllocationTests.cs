using System;
using NUnit.Framework;

namespace Omote.Tests
{
    /// <summary>
    /// A frame allocates nothing on the managed heap once warm: 10,000 frames of Step
    /// plus reading every weight and rotation (and, in the second test, the per-frame
    /// inputs a game sets: expressions by name, a gaze target, tracking, live voice).
    /// Counted with GC.GetAllocatedBytesForCurrentThread (Mono 6 has it), which counts
    /// every byte this thread allocates, whether or not a collection ran.
    /// </summary>
    [TestFixture]
    public class AllocationTests
    {
        const int Frames = 10000;

        static float Read(Character c)
        {
            float sum = 0;
            var w = c.Weights;
            for (int i = 0; i < w.Length; i++) sum += w[i];
            var iw = c.InputWeights;
            for (int i = 0; i < iw.Length; i++) sum += iw[i];
            var r = c.Rotations;
            for (int i = 0; i < r.Length; i++) sum += r[i];
            sum += c.Events.Blinks;
            return sum;
        }

        [Test]
        public void TenThousandStepsAllocateNothing()
        {
            using (var avatar = Avatar.Builtin(0))
            using (var face = new Character(avatar, 7))
            using (var track = Track.Analyse(Support.Line(), Support.Rate))
            {
                float sink = 0;
                face.Say(track);
                for (int i = 0; i < 200; i++) { face.Step(1f / 60f); sink += Read(face); }
                long before = GC.GetAllocatedBytesForCurrentThread();
                for (int i = 0; i < Frames; i++)
                {
                    if (i == 5000) face.Say(track); // a line mid-way (Say itself may allocate nothing either)
                    face.Step(1f / 60f);
                    sink += Read(face);
                }
                long bytes = GC.GetAllocatedBytesForCurrentThread() - before;
                Console.WriteLine("allocation: {0} bytes in {1} Step frames", bytes, Frames);
                Assert.IsFalse(float.IsNaN(sink));
                Assert.AreEqual(0, bytes, "bytes allocated on the managed heap in 10,000 frames");
            }
        }

        [Test]
        public void AGameFramesInputsAllocateNothing()
        {
            using (var avatar = Avatar.Builtin(0))
            using (var face = new Character(avatar, 7))
            using (var stream = new VoiceStream(44100))
            {
                var game = new Game(face, stream);
                face.EnableTracking();
                for (int i = 0; i < 200; i++) game.Frame(i);
                long before = GC.GetAllocatedBytesForCurrentThread();
                for (int i = 0; i < Frames; i++) game.Frame(i);
                long bytes = GC.GetAllocatedBytesForCurrentThread() - before;
                Console.WriteLine("allocation: {0} bytes in {1} game frames (hear, expression by name, gaze target, tracking, step, gaze)", bytes, Frames);
                Assert.IsFalse(float.IsNaN(game.Sink));
                Assert.AreEqual(0, bytes, "bytes allocated on the managed heap in 10,000 game frames");
            }
        }

        /// <summary>What a game does each frame: hear the mic, act, aim the eyes, track, step, read.</summary>
        sealed class Game
        {
            readonly Character face;
            readonly VoiceStream stream;
            readonly float[] voice = Support.Buzz(44100, 1.0, 0.2);
            readonly float[] chunk = new float[735]; // 44100 / 60
            readonly float[] scores = new float[NativeMethods.ArkitCount];
            int at;
            public float Sink;

            public Game(Character face, VoiceStream stream)
            {
                this.face = face;
                this.stream = stream;
            }

            public void Frame(int i)
            {
                Array.Copy(voice, at, chunk, 0, chunk.Length);
                at = (at + chunk.Length) % (voice.Length - chunk.Length);
                face.Hear(stream, chunk, chunk.Length);
                face.SetExpression("happy", (i % 100) / 100f);
                face.SetGazeTarget(0.1f * (i % 7), 0f, 1f);
                scores[17] = (i % 50) / 50f;
                face.SetTracked(scores, 0f, 0f, 0f, 1f);
                face.Step(1f / 60f);
                float yaw, pitch;
                face.GetGaze(out yaw, out pitch);
                Sink += Read(face) + yaw + pitch;
            }
        }
    }
}
