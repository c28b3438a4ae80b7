using System;
using System.IO;
using NUnit.Framework;

namespace Omote.Tests
{
    /// <summary>
    /// Voice files through the C# layer: a demo line (16-bit PCM at 16 kHz) decodes to its
    /// own samples, read here from the bytes, and analyses to speech; a WAV cut short is
    /// read as far as it goes with a warning naming it; a missing or non-audio file throws
    /// with its status and its name, and no native object is left behind.
    /// </summary>
    [TestFixture]
    public class VoiceFileTests
    {
        static string Line(string name) { return Path.Combine(Support.Repo(), "examples/scenes/demo/voice", name); }

        /// <summary>A canonical 16-bit mono WAV's samples as −1..1 floats (the data chunk
        /// after a 44-byte header, as the demo's files are written).</summary>
        static float[] Pcm16(byte[] wav)
        {
            Assert.AreEqual("data", System.Text.Encoding.ASCII.GetString(wav, 36, 4), "a canonical header");
            int bytes = BitConverter.ToInt32(wav, 40);
            var samples = new float[bytes / 2];
            for (int i = 0; i < samples.Length; i++)
                samples[i] = BitConverter.ToInt16(wav, 44 + 2 * i) / 32768f;
            return samples;
        }

        /// <summary>A temporary copy of a WAV with its last 4000 bytes cut off (a file
        /// cut short while copied); the caller deletes it.</summary>
        static string CutCopy(byte[] whole)
        {
            var path = Path.Combine(Path.GetTempPath(), "omote-cs-" + Guid.NewGuid().ToString("N") + "-cut.wav");
            var cut = new byte[whole.Length - 4000];
            Array.Copy(whole, cut, cut.Length);
            File.WriteAllBytes(path, cut);
            return path;
        }

        [Test]
        public void ADemoLineDecodesToItsOwnSamplesAndReadsAsSpeech()
        {
            var path = Line("aoi_1.wav");
            var file = VoiceFile.Load(path);
            Assert.AreEqual(16000.0, file.SampleRate);
            Assert.IsNull(file.Warning);
            var pcm = Pcm16(File.ReadAllBytes(path));
            Assert.AreEqual(pcm.Length, file.Samples.Length);
            for (int i = 0; i < pcm.Length; i++)
                if (Support.Bits(pcm[i]) != Support.Bits(file.Samples[i]))
                    Assert.Fail("sample {0}: {1} decoded, {2} in the file", i, file.Samples[i], pcm[i]);
            using (var track = Track.Analyse(file.Samples, file.SampleRate))
            {
                Assert.IsTrue(track.HasVoiced, "the line has speech");
                Assert.That(track.VoicedStart, Is.GreaterThanOrEqualTo(0.0));
                Assert.That(track.VoicedEnd, Is.GreaterThan(track.VoicedStart + 0.5));
                Assert.That(track.VoicedEnd, Is.LessThanOrEqualTo(pcm.Length / 16000.0 + 0.01));
            }
        }

        [Test]
        public void AWavCutShortIsReadAsFarAsItGoesWithAWarningNamingIt()
        {
            var whole = File.ReadAllBytes(Line("beni_1.wav"));
            var path = CutCopy(whole);
            try
            {
                var file = VoiceFile.Load(path);
                Assert.AreEqual(Pcm16(whole).Length - 2000, file.Samples.Length);
                Assert.IsNotNull(file.Warning);
                StringAssert.Contains(Path.GetFileName(path), file.Warning);
                StringAssert.Contains("4000 bytes early", file.Warning);
            }
            finally
            {
                File.Delete(path);
            }
        }

        static void SameFrames(Track want, Track got, string what)
        {
            var a = want.Frames();
            var b = got.Frames();
            Assert.AreEqual(a.Length, b.Length, what);
            for (int i = 0; i < a.Length; i++)
                if (Support.Bits(a[i]) != Support.Bits(b[i]))
                    Assert.Fail("{0}: number {1} is {2}, not {3}", what, i, b[i], a[i]);
        }

        [Test]
        public void AFileAnalysesAsItsSamplesAloneOrAgainstItsSpeaker()
        {
            var aoi = VoiceFile.Load(Line("aoi_1.wav"));
            var other = VoiceFile.Load(Line("aoi_2.wav"));
            using (var alone = Track.Analyse(aoi.Samples, aoi.SampleRate))
            using (var file = Track.AnalyseFile(Line("aoi_1.wav")))
            {
                SameFrames(alone, file, "alone");
                Assert.IsNull(file.Warning);
            }
            using (var speaker = new Speaker())
            {
                speaker.AddLine(aoi.Samples, aoi.SampleRate);
                speaker.AddLine(other.Samples, other.SampleRate);
                using (var read = speaker.Analyse(aoi.Samples, aoi.SampleRate))
                using (var file = Track.AnalyseFile(Line("aoi_1.wav"), speaker))
                    SameFrames(read, file, "against the speaker");
            }
            var path = CutCopy(File.ReadAllBytes(Line("beni_1.wav")));
            try
            {
                using (var track = Track.AnalyseFile(path))
                {
                    StringAssert.Contains(Path.GetFileName(path), track.Warning);
                    StringAssert.Contains("4000 bytes early", track.Warning);
                }
            }
            finally
            {
                File.Delete(path);
            }
            var missing = Path.Combine(Path.GetTempPath(), "omote-cs-no-such-line.wav");
            var e = Support.Fails(OmoteStatus.NotFound, "omote_analyse_voice_file", () => Track.AnalyseFile(missing));
            StringAssert.Contains("omote-cs-no-such-line.wav", e.Message);
            Support.Fails(OmoteStatus.InvalidArgument, "omote_analyse_voice_file", () => Track.AnalyseFile(Line("aoi_1.wav"), null, "{}"));
            Assert.Throws<ArgumentNullException>(() => Track.AnalyseFile(null));
        }

        [Test]
        public void MissingAndNonAudioFilesThrowWithTheirStatusAndName()
        {
            var before = Library.LiveObjects();
            var missing = Path.Combine(Path.GetTempPath(), "omote-cs-no-such-line.wav");
            var e = Support.Fails(OmoteStatus.NotFound, "omote_voice_file_load", () => VoiceFile.Load(missing));
            StringAssert.Contains("omote-cs-no-such-line.wav", e.Message);

            var text = Path.Combine(Path.GetTempPath(), "omote-cs-" + Guid.NewGuid().ToString("N") + "-notes.wav");
            try
            {
                File.WriteAllText(text, "this is a text file, not a recording\n");
                e = Support.Fails(OmoteStatus.LoadFailed, "omote_voice_file_load", () => VoiceFile.Load(text));
                StringAssert.Contains(Path.GetFileName(text), e.Message);
            }
            finally
            {
                File.Delete(text);
            }
            Support.Fails(OmoteStatus.NullPointer, "omote_voice_file_load", () => VoiceFile.Load(null));
            VoiceFile.Load(Line("aoi_2.wav"));
            Assert.AreEqual(before[7], Library.LiveObjects()[7], "every voice file was freed");
        }
    }
}
