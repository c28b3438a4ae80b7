using System;
using System.Threading;

namespace Omote
{
    /// <summary>
    /// Samples from an audio thread to the main thread without a lock: one writer (the
    /// audio callback, e.g. Unity's <c>OnAudioFilterRead</c>) and one reader (the main
    /// thread, which hears them through a <see cref="VoiceStream"/>). Neither side ever
    /// waits or allocates. When the reader falls behind and the ring is full, the newest
    /// samples are dropped and counted in <see cref="Dropped"/> (the audio thread must
    /// never block).
    /// </summary>
    public sealed class AudioRing
    {
        readonly float[] buffer;
        readonly int mask;
        long written; // samples ever written; only the writer stores it
        long read;    // samples ever read; only the reader stores it
        long dropped;

        /// <summary>A ring for at least <paramref name="capacity"/> mono samples (rounded
        /// up to a power of two; a quarter second at 48 kHz is 16384).</summary>
        public AudioRing(int capacity)
        {
            if (capacity < 1 || capacity > (1 << 26)) throw new ArgumentOutOfRangeException("capacity");
            int size = 1;
            while (size < capacity) size <<= 1;
            buffer = new float[size];
            mask = size - 1;
        }

        /// <summary>How many samples the ring holds at most.</summary>
        public int Capacity { get { return buffer.Length; } }

        /// <summary>Samples dropped because the ring was full.</summary>
        public long Dropped { get { return Interlocked.Read(ref dropped); } }

        /// <summary>Samples waiting to be read.</summary>
        public int Available { get { return (int)(Volatile.Read(ref written) - Volatile.Read(ref read)); } }

        /// <summary>
        /// Writer side: appends <paramref name="length"/> numbers of interleaved audio with
        /// <paramref name="channels"/> channels, mixed down to mono (the mean of the
        /// channels). Returns the mono samples kept. Never blocks, never allocates.
        /// </summary>
        public int Write(float[] interleaved, int length, int channels)
        {
            if (interleaved == null || channels < 1) return 0;
            if (length > interleaved.Length) length = interleaved.Length;
            int frames = length / channels;
            long w = written; // ours
            long r = Volatile.Read(ref read);
            int room = buffer.Length - (int)(w - r);
            int keep = Math.Min(frames, room);
            float scale = 1f / channels;
            for (int f = 0; f < keep; f++)
            {
                int at = f * channels;
                float sum = interleaved[at];
                for (int c = 1; c < channels; c++) sum += interleaved[at + c];
                buffer[(int)((w + f) & mask)] = channels == 1 ? sum : sum * scale;
            }
            Volatile.Write(ref written, w + keep);
            if (keep < frames) Interlocked.Add(ref dropped, frames - keep);
            return keep;
        }

        /// <summary>Reader side: moves up to <paramref name="into"/>'s length of samples
        /// into it, oldest first; returns how many. Never blocks, never allocates.</summary>
        public int Read(float[] into)
        {
            if (into == null) return 0;
            long r = read; // ours
            long w = Volatile.Read(ref written);
            int n = (int)Math.Min(w - r, into.Length);
            for (int i = 0; i < n; i++) into[i] = buffer[(int)((r + i) & mask)];
            Volatile.Write(ref read, r + n);
            return n;
        }
    }
}
