using System;

namespace Omote
{
    /// <summary>
    /// A voice line's audio file (WAV, FLAC, OGG or MP3, told by its content) decoded to
    /// mono samples at 16 kHz, as <c>omote lipsync</c> reads it, so its track is the CLI's
    /// to the bit: give <see cref="Samples"/> and <see cref="SampleRate"/> to
    /// <see cref="Track.Analyse(float[], double)"/> or <see cref="Speaker.AddLine"/>. For
    /// tools that bake lines from files; in Unity an AudioClip's data serves as well.
    /// </summary>
    public sealed class VoiceFile
    {
        /// <summary>The samples, mono, −1..1.</summary>
        public float[] Samples { get; private set; }

        /// <summary>Their rate in Hz (16000).</summary>
        public double SampleRate { get; private set; }

        /// <summary>What the reading warned of (a WAV cut short of what its header
        /// declares, read as far as it goes; the text names the file), or null.</summary>
        public string Warning { get; private set; }

        VoiceFile() { }

        /// <summary>Reads and decodes <paramref name="path"/>. A missing file throws
        /// <see cref="OmoteException"/> with <see cref="OmoteStatus.NotFound"/>, one that
        /// is not audio with <see cref="OmoteStatus.LoadFailed"/>; both name the file.</summary>
        public static VoiceFile Load(string path)
        {
            Library.CheckAbi();
            ulong h;
            Native.Check(NativeMethods.omote_voice_file_load(Utf8.Encode(path), out h));
            try
            {
                uint count, hasWarning;
                double rate;
                Native.Check(NativeMethods.omote_voice_file_info(h, out count, out rate, out hasWarning));
                var samples = new float[count];
                Native.Check(NativeMethods.omote_voice_file_samples(h, samples, count));
                string warning = null;
                if (hasWarning != 0)
                    warning = Scene.Text((byte[] b, out uint len) => NativeMethods.omote_voice_file_warning(h, b, (uint)(b == null ? 0 : b.Length), out len));
                return new VoiceFile { Samples = samples, SampleRate = rate, Warning = warning };
            }
            finally
            {
                NativeMethods.omote_voice_file_free(h);
            }
        }
    }
}
