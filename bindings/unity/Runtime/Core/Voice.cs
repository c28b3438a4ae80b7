using System;

namespace Omote
{
    /// <summary>
    /// A voice line's lip sync (A I U E O N per frame), said with
    /// <see cref="Character.Say"/>. Made once per line, at load time — not per frame.
    /// </summary>
    public sealed class Track : NativeObject
    {
        Track(ulong handle) : base(handle) { }

        /// <summary>Analyses a clip alone (mono, −1..1, at any rate 4–384 kHz). A
        /// character's lines read better against each other: <see cref="Speaker.Analyse(float[], double)"/>.</summary>
        public static Track Analyse(float[] samples, double sampleRate)
        {
            Library.CheckAbi();
            ulong h;
            Native.Check(NativeMethods.omote_analyse_voice(samples, Native.Length(samples, "samples"), sampleRate, out h));
            return new Track(h);
        }

        /// <summary>As <see cref="Analyse(float[], double)"/>, read with a lip sync profile
        /// (its JSON, from <see cref="VoiceProfile.CalibrateFromCard"/>).</summary>
        public static Track Analyse(float[] samples, double sampleRate, string profile)
        {
            Library.CheckAbi();
            ulong h;
            Native.Check(NativeMethods.omote_analyse_voice_with_profile(samples, Native.Length(samples, "samples"), sampleRate, Utf8.Encode(profile), out h));
            return new Track(h);
        }

        /// <summary>Analyses an audio file (WAV, FLAC, OGG or MP3, by content) as
        /// <c>omote lipsync FILE</c> does: read whole when short; longer than 10 minutes,
        /// streamed in flat memory (as <c>--stream</c> reads). With <paramref name="speaker"/>,
        /// read against its lines (the CLI's folder mode); <paramref name="profile"/>: a lip
        /// sync profile's JSON, or null for the built-in one. What the reading warned of is
        /// <see cref="Warning"/>. A missing file throws <see cref="OmoteException"/> with
        /// <see cref="OmoteStatus.NotFound"/>, one that is not audio with
        /// <see cref="OmoteStatus.LoadFailed"/>; both name the file.</summary>
        public static Track AnalyseFile(string path, Speaker speaker = null, string profile = null)
        {
            Library.CheckAbi();
            if (path == null) throw new ArgumentNullException("path");
            ulong h;
            Native.Check(NativeMethods.omote_analyse_voice_file(Utf8.Encode(path), speaker == null ? 0 : speaker.Handle, profile == null ? null : Utf8.Encode(profile), out h));
            return new Track(h);
        }

        /// <summary>What reading the track's file warned of (a WAV cut short, samples that
        /// are not numbers; the text names the file), or null; always null for a track
        /// made from samples or frames.</summary>
        public string Warning
        {
            get
            {
                string w = Scene.Text((byte[] b, out uint len) => NativeMethods.omote_track_warning(Handle, b, (uint)(b == null ? 0 : b.Length), out len));
                return w.Length == 0 ? null : w;
            }
        }

        /// <summary>A track from frames: 6 numbers per frame (A I U E O N, 0–1) at <paramref name="fps"/>, all of it voiced.</summary>
        public static Track FromFrames(float[] frames, float fps)
        {
            Library.CheckAbi();
            ulong h;
            Native.Check(NativeMethods.omote_track_from_frames(frames, Native.Length(frames, "frames"), fps, 2, 0, 0, out h));
            return new Track(h);
        }

        /// <summary>A track from frames with its voiced span in seconds (a lip sync file's).</summary>
        public static Track FromFrames(float[] frames, float fps, double voicedStart, double voicedEnd)
        {
            Library.CheckAbi();
            ulong h;
            Native.Check(NativeMethods.omote_track_from_frames(frames, Native.Length(frames, "frames"), fps, 1, voicedStart, voicedEnd, out h));
            return new Track(h);
        }

        internal static Track Own(ulong handle)
        {
            return new Track(handle);
        }

        /// <inheritdoc/>
        protected override OmoteStatus Free(ulong handle)
        {
            return NativeMethods.omote_track_free(handle);
        }

        void Info(out uint frames, out float fps, out uint hasVoiced, out double start, out double end)
        {
            Native.Check(NativeMethods.omote_track_info(Handle, out frames, out fps, out hasVoiced, out start, out end));
        }

        /// <summary>The number of frames.</summary>
        public int FrameCount { get { uint n, v; float f; double s, e; Info(out n, out f, out v, out s, out e); return (int)n; } }

        /// <summary>Frames per second (100 for an analysis).</summary>
        public float Fps { get { uint n, v; float f; double s, e; Info(out n, out f, out v, out s, out e); return f; } }

        /// <summary>Whether the track has speech; its span is <see cref="VoicedStart"/>–<see cref="VoicedEnd"/>.</summary>
        public bool HasVoiced { get { uint n, v; float f; double s, e; Info(out n, out f, out v, out s, out e); return v != 0; } }

        /// <summary>Where the speech starts, seconds.</summary>
        public double VoicedStart { get { uint n, v; float f; double s, e; Info(out n, out f, out v, out s, out e); return s; } }

        /// <summary>Where the speech ends, seconds.</summary>
        public double VoicedEnd { get { uint n, v; float f; double s, e; Info(out n, out f, out v, out s, out e); return e; } }

        /// <summary>How long the line plays, in seconds (<see cref="FrameCount"/> / <see cref="Fps"/>):
        /// what to wait before the next line, as <see cref="Character.IsSpeaking"/> ends at the hand-over.</summary>
        public double Duration { get { uint n, v; float f; double s, e; Info(out n, out f, out v, out s, out e); return f > 0 ? n / (double)f : 0.0; } }

        /// <summary>A copy of the frames, 6 numbers each.</summary>
        public float[] Frames()
        {
            var frames = new float[FrameCount * NativeMethods.TrackStride];
            Native.Check(NativeMethods.omote_track_frames(Handle, frames, (uint)frames.Length));
            return frames;
        }
    }

    /// <summary>
    /// One character's voice lines, each read against the others (the lines of one
    /// voice actor make the analysis of each better). Add every line, then analyse each.
    /// </summary>
    public sealed class Speaker : NativeObject
    {
        /// <summary>An empty speaker.</summary>
        public Speaker() : base(Create()) { }

        static ulong Create()
        {
            Library.CheckAbi();
            ulong h;
            Native.Check(NativeMethods.omote_speaker_new(out h));
            return h;
        }

        /// <inheritdoc/>
        protected override OmoteStatus Free(ulong handle)
        {
            return NativeMethods.omote_speaker_free(handle);
        }

        /// <summary>Adds one of the character's lines (mono, at <paramref name="sampleRate"/> Hz).</summary>
        public void AddLine(float[] samples, double sampleRate)
        {
            Native.Check(NativeMethods.omote_speaker_add_line(Handle, samples, Native.Length(samples, "samples"), sampleRate));
        }

        /// <summary>Analyses a line against the speaker's lines.</summary>
        public Track Analyse(float[] samples, double sampleRate)
        {
            ulong h;
            Native.Check(NativeMethods.omote_speaker_analyse(Handle, samples, Native.Length(samples, "samples"), sampleRate, out h));
            return Track.Own(h);
        }

        /// <summary>Analyses a line against the speaker's lines, read with a lip sync
        /// profile (its JSON, from <see cref="VoiceProfile.CalibrateFromCard"/>).</summary>
        public Track Analyse(float[] samples, double sampleRate, string profile)
        {
            ulong h;
            Native.Check(NativeMethods.omote_speaker_analyse_with_profile(Handle, samples, Native.Length(samples, "samples"), sampleRate, Utf8.Encode(profile), out h));
            return Track.Own(h);
        }

        /// <summary>The speaker's voice seed, to start a live stream from this voice.</summary>
        public float[] VoiceSeed()
        {
            var seed = new float[NativeMethods.VoiceSeedLength];
            Native.Check(NativeMethods.omote_speaker_voice_seed(Handle, seed, (uint)seed.Length));
            return seed;
        }
    }

    /// <summary>
    /// Live lip sync: push mono samples in chunks of any size at the stream's rate, get
    /// frames (A I U E O N, volume, voiced) out. Give it to
    /// <see cref="Character.Hear(VoiceStream, float[], int)"/> to move a mouth, or
    /// <see cref="Push(float[], int)"/> to read the frames yourself. One thread at a time:
    /// not the audio thread (see <see cref="AudioRing"/>).
    /// </summary>
    public sealed class VoiceStream : NativeObject
    {
        readonly int rate;
        float[] frames;
        int frameCount;

        /// <summary>A stream for samples at <paramref name="sampleRate"/> Hz (a whole number,
        /// 4–384 kHz); <paramref name="hold"/> holds each frame back 10 ms to remove one-frame flickers.</summary>
        public VoiceStream(double sampleRate, bool hold = false) : this(sampleRate, hold, null) { }

        /// <summary>As <see cref="VoiceStream(double, bool)"/>, reading the voice with a lip
        /// sync profile (its JSON, from <see cref="VoiceProfile.CalibrateFromCard"/>; null:
        /// the built-in one).</summary>
        public VoiceStream(double sampleRate, bool hold, string profile) : base(Create(sampleRate, hold, profile))
        {
            rate = (int)sampleRate;
            frames = new float[NativeMethods.StreamStride * 8];
        }

        static ulong Create(double sampleRate, bool hold, string profile)
        {
            Library.CheckAbi();
            ulong h;
            if (profile == null)
                Native.Check(NativeMethods.omote_voice_stream_new(sampleRate, hold ? 1u : 0u, out h));
            else
                Native.Check(NativeMethods.omote_voice_stream_new_with_profile(sampleRate, hold ? 1u : 0u, Utf8.Encode(profile), out h));
            return h;
        }

        /// <inheritdoc/>
        protected override OmoteStatus Free(ulong handle)
        {
            return NativeMethods.omote_voice_stream_free(handle);
        }

        /// <summary>The sample rate, Hz.</summary>
        public int SampleRate { get { return rate; } }

        /// <summary>Starts the stream from a speaker's voice (before the first push).</summary>
        public void StartFromSpeaker(Speaker speaker)
        {
            ulong h = Handle;
            if (speaker == null) throw new ArgumentNullException("speaker");
            Native.Check(NativeMethods.omote_voice_stream_start_from_speaker(h, speaker.Handle));
        }

        /// <summary>The latency in seconds (a frame's centre to the moment it is out).</summary>
        public double Latency
        {
            get
            {
                double l;
                Native.Check(NativeMethods.omote_voice_stream_latency(Handle, out l));
                return l;
            }
        }

        /// <summary>The frames of the last <see cref="Push(float[], int)"/>,
        /// <see cref="NativeMethods.StreamStride"/> numbers each (<see cref="FrameCount"/> of
        /// them; the array is reused and grows only for a longer chunk than before).</summary>
        public float[] Frames { get { return frames; } }

        /// <summary>How many frames the last push completed.</summary>
        public int FrameCount { get { return frameCount; } }

        /// <summary>Pushes all of <paramref name="samples"/>; returns the frames completed.</summary>
        public int Push(float[] samples)
        {
            return Push(samples, (int)Native.Length(samples, "samples"));
        }

        /// <summary>Pushes the first <paramref name="count"/> samples; the frames they
        /// complete go into <see cref="Frames"/>; returns their count.</summary>
        public int Push(float[] samples, int count)
        {
            ulong h = Handle;
            Character.CheckCount(samples, count);
            long need = NativeMethods.StreamStride * ((long)count * 100 / Math.Max(rate, 1) + 2);
            if (frames.Length < need) frames = new float[need];
            uint written;
            frameCount = 0;
            Native.Check(NativeMethods.omote_voice_stream_push(h, samples, (uint)count, frames, (uint)frames.Length, out written));
            frameCount = (int)written;
            return frameCount;
        }
    }

    /// <summary>
    /// Lip sync profiles for one voice, as JSON text: the built-in one, or one calibrated
    /// to a player or an actor from one take of them reading the calibration card, one
    /// syllable at a time with a short pause after each. Keep the text with the user's
    /// settings; give it to a <see cref="VoiceStream"/> (its constructor's <c>profile</c>),
    /// <see cref="Track.Analyse(float[], double, string)"/> or
    /// <see cref="Speaker.Analyse(float[], double, string)"/>.
    /// </summary>
    public static class VoiceProfile
    {
        /// <summary>The calibration card read once: 30 syllables, six per vowel.</summary>
        public const string Card = "a i u e o ka ki ku ke ko sa shi su se so ta chi tsu te to na ni nu ne no ma mi mu me mo";

        /// <summary>The built-in lip sync profile's JSON.</summary>
        public static string Builtin()
        {
            Library.CheckAbi();
            uint len;
            var status = NativeMethods.omote_builtin_voice_profile(null, 0, out len);
            if (status != OmoteStatus.BufferTooSmall) Native.Check(status);
            var buf = new byte[len + 1];
            Native.Check(NativeMethods.omote_builtin_voice_profile(buf, (uint)buf.Length, out len));
            return System.Text.Encoding.UTF8.GetString(buf, 0, (int)len);
        }

        /// <summary>A profile calibrated to the speaker of <paramref name="take"/> (mono, at
        /// <paramref name="sampleRate"/> Hz): them reading <paramref name="card"/> (null:
        /// <see cref="Card"/>) once, a short pause after each syllable, starting from
        /// <paramref name="baseProfile"/> (null: the built-in one). A take whose syllables
        /// are not heard as the card has them throws, with both counts.</summary>
        public static string CalibrateFromCard(float[] take, double sampleRate, string card = null, string baseProfile = null)
        {
            Library.CheckAbi();
            uint len;
            // The size first (the calibration runs twice; the same take gives the same text).
            var status = NativeMethods.omote_calibrate_voice_from_card(take, Native.Length(take, "take"), sampleRate, Utf8.Encode(card), Utf8.Encode(baseProfile), null, 0, out len);
            if (status != OmoteStatus.BufferTooSmall) Native.Check(status);
            var buf = new byte[len + 1];
            Native.Check(NativeMethods.omote_calibrate_voice_from_card(take, Native.Length(take, "take"), sampleRate, Utf8.Encode(card), Utf8.Encode(baseProfile), buf, (uint)buf.Length, out len));
            return System.Text.Encoding.UTF8.GetString(buf, 0, (int)len);
        }
    }
}
