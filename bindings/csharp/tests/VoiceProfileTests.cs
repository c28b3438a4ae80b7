using System;
using System.Collections.Generic;
using NUnit.Framework;

namespace Omote.Tests
{
    /// <summary>Voice profiles through the C# layer: the built-in one's text reads exactly
    /// as no profile does; a card take calibrates one that every reading uses; bad takes
    /// and texts throw with the library's message.</summary>
    [TestFixture]
    public class VoiceProfileTests
    {
        /// <summary>Every frame a stream gives for <paramref name="samples"/>, in chunks of 480.</summary>
        static List<float> Stream(VoiceStream s, float[] samples)
        {
            var all = new List<float>();
            for (int i = 0; i < samples.Length; i += 480)
            {
                var chunk = new float[Math.Min(480, samples.Length - i)];
                Array.Copy(samples, i, chunk, 0, chunk.Length);
                int n = s.Push(chunk);
                for (int k = 0; k < n * NativeMethods.StreamStride; k++) all.Add(s.Frames[k]);
            }
            return all;
        }

        /// <summary>Three 0.3 s syllables, each with 0.2 s of near silence before and after.</summary>
        static float[] Take()
        {
            var parts = new List<float>();
            for (int i = 0; i < 3; i++) parts.AddRange(Support.Buzz(Support.Rate, 0.3, 0.2));
            return parts.ToArray();
        }

        [Test]
        public void TheBuiltInProfileReadsAsNoProfile()
        {
            string builtin = VoiceProfile.Builtin();
            StringAssert.StartsWith("{", builtin);
            var line = Support.Line();
            List<float> plain, given;
            using (var s = new VoiceStream(Support.Rate)) plain = Stream(s, line);
            using (var s = new VoiceStream(Support.Rate, false, builtin)) given = Stream(s, line);
            Assert.That(plain.Count, Is.GreaterThan(100));
            CollectionAssert.AreEqual(plain, given);
            using (var a = Track.Analyse(line, Support.Rate))
            using (var b = Track.Analyse(line, Support.Rate, builtin))
                CollectionAssert.AreEqual(a.Frames(), b.Frames());
        }

        [Test]
        public void ACardTakeCalibratesAProfileEveryReadingUses()
        {
            string builtin = VoiceProfile.Builtin();
            string mine = VoiceProfile.CalibrateFromCard(Take(), Support.Rate, "ka ki ku");
            StringAssert.StartsWith("{", mine);
            Assert.AreNotEqual(builtin, mine);
            Assert.AreEqual(mine, VoiceProfile.CalibrateFromCard(Take(), Support.Rate, "ka ki ku"), "the same take, the same profile");
            StringAssert.Contains("calibrated on", mine);
            var line = Support.Line();
            List<float> plain, given;
            using (var s = new VoiceStream(Support.Rate)) plain = Stream(s, line);
            using (var s = new VoiceStream(Support.Rate, true, mine)) given = Stream(s, line);
            foreach (var v in given) Assert.That(!float.IsNaN(v) && v >= 0 && v <= 1, "a frame number out of 0–1: " + v);
            CollectionAssert.AreNotEqual(plain, given);
            using (var speaker = new Speaker())
            {
                speaker.AddLine(line, Support.Rate);
                using (var t = speaker.Analyse(line, Support.Rate, mine))
                    Assert.AreEqual(t.FrameCount * 6, t.Frames().Length);
            }
        }

        [Test]
        public void BadTakesAndProfilesThrowWithTheLibrarysMessage()
        {
            var e = Assert.Throws<OmoteException>(() => VoiceProfile.CalibrateFromCard(Take(), Support.Rate, "ka ki"));
            StringAssert.Contains("omote_calibrate_voice_from_card: the card take: heard 3 syllables, the card has 2", e.Message);
            e = Assert.Throws<OmoteException>(() => VoiceProfile.CalibrateFromCard(new float[Support.Rate], Support.Rate));
            StringAssert.Contains("heard 0 syllables, the card has 30", e.Message);
            e = Assert.Throws<OmoteException>(() => new VoiceStream(Support.Rate, false, "{}"));
            StringAssert.Contains("the voice profile", e.Message);
            e = Assert.Throws<OmoteException>(() => Track.Analyse(Support.Line(), Support.Rate, "not json"));
            StringAssert.Contains("the voice profile", e.Message);
            Assert.AreEqual(30, VoiceProfile.Card.Split(' ').Length);
        }
    }
}
