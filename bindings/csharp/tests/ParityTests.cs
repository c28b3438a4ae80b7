using System;
using System.IO;
using System.Text;
using NUnit.Framework;

namespace Omote.Tests
{
    /// <summary>
    /// The C example (examples/c/face.c, compiled and run by test.sh into the file named
    /// by OMOTE_FACE_C_OUTPUT) and the same program through the C# wrappers give the same
    /// frames to the bit. crates/omote-ffi/tests/c_example.rs holds the C example to the
    /// Rust API, so C# equals Rust too.
    /// </summary>
    [TestFixture]
    public class ParityTests
    {
        /// <summary>face.c's program, through the wrappers.</summary>
        static string CSharpFrames(out int voiceStarted, out int handedOver, out int blinks)
        {
            voiceStarted = handedOver = -1;
            blinks = 0;
            var sb = new StringBuilder();
            using (var avatar = Avatar.Builtin(0))
            using (var face = new Character(avatar, 7))
            using (var track = Track.Analyse(Support.Line(), Support.Rate))
            {
                face.SetExpression("happy", 0.4f);
                face.SetGazeTarget(0.3f, -0.1f, 1.0f);
                var afterglow = new[] { new OmoteWeight(face.ChannelId("happy"), 0.3f) };
                for (int frame = 0; frame < 600; frame++)
                {
                    if (frame == 60) face.Say(track, afterglow);
                    face.Step(1.0f / 60.0f);
                    Support.AppendFrame(sb, frame, face);
                    var e = face.Events;
                    if (e.VoiceStarted != 0 && voiceStarted < 0) voiceStarted = frame;
                    if (e.HandedOver != 0 && handedOver < 0) handedOver = frame;
                    blinks += (int)e.Blinks;
                }
            }
            return sb.ToString();
        }

        [Test]
        public void TheCSharpLayerGivesTheCExamplesFramesBitForBit()
        {
            var path = Environment.GetEnvironmentVariable("OMOTE_FACE_C_OUTPUT");
            if (string.IsNullOrEmpty(path) || !File.Exists(path))
                Assert.Fail("OMOTE_FACE_C_OUTPUT does not name face.c's output (run bindings/csharp/test.sh)");
            var c = File.ReadAllText(path).Split('\n');
            int a, b, n;
            var cs = CSharpFrames(out a, out b, out n).Split('\n');
            Assert.AreEqual(601, c.Length, "face.c printed 600 lines");
            Assert.AreEqual(c.Length, cs.Length);
            for (int k = 0; k < c.Length; k++)
                Assert.AreEqual(c[k], cs[k], "frame {0} differs between C and C#", k);
        }

        [Test]
        public void TheLineStartsWithItsVoiceThenHandsOver()
        {
            int started, handed, blinks;
            CSharpFrames(out started, out handed, out blinks);
            // Said at frame 60; its voice starts 0.25 s in, ends at 1.25 s, and the mouth
            // is handed over 0.2 s before the end: frames ~75 and ~123.
            Assert.That(started, Is.InRange(70, 80), "voice_started");
            Assert.That(handed, Is.InRange(115, 130), "handed_over");
            Assert.That(blinks, Is.GreaterThan(0), "10 s without a blink");
        }

        [Test]
        public void TheSameSeedGivesTheSameFramesAndAnotherSeedOthers()
        {
            using (var avatar = Avatar.Builtin(0))
            using (var a = new Character(avatar, 3))
            using (var b = new Character(avatar, 3))
            using (var c = new Character(avatar, 4))
            {
                bool differ = false;
                for (int f = 0; f < 600; f++)
                {
                    a.Step(1f / 60f);
                    b.Step(1f / 60f);
                    c.Step(1f / 60f);
                    CollectionAssert.AreEqual(a.Weights, b.Weights, "frame {0}", f);
                    CollectionAssert.AreEqual(a.Rotations, b.Rotations, "frame {0}", f);
                    for (int i = 0; i < a.Weights.Length; i++) differ |= a.Weights[i] != c.Weights[i];
                }
                Assert.That(differ, "seeds 3 and 4 blinked alike for 10 s");
            }
        }
    }
}
