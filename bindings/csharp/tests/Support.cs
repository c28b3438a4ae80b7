using System;
using System.Globalization;
using System.IO;
using System.Runtime.InteropServices;
using System.Text;
using NUnit.Framework;

namespace Omote.Tests
{
    /// <summary>What several tests share: the example's line, float bits, the checks
    /// every frame must pass.</summary>
    static class Support
    {
        public const int Rate = 48000;

        [StructLayout(LayoutKind.Explicit)]
        struct FloatBits
        {
            [FieldOffset(0)] public float F;
            [FieldOffset(0)] public uint U;
        }

        public static uint Bits(float f)
        {
            var b = new FloatBits();
            b.F = f;
            return b.U;
        }

        /// <summary>examples/c/face.c's 1.5 s line, made the same way: the same integer
        /// generator and the same float operations in the same order, each rounded to
        /// float (the casts keep Mono from carrying wider intermediates).</summary>
        public static float[] Line()
        {
            int count = Rate * 3 / 2;
            var samples = new float[count];
            uint state = 12345;
            for (int i = 0; i < count; i++)
            {
                state = unchecked(state * 1103515245u + 12345u);
                float noise = (float)((float)((float)((state >> 16) & 0x7fff) / 32768.0f) - 0.5f);
                float buzz = (float)((float)((float)(i % 240) / 240.0f) - 0.5f);
                bool voiced = i >= Rate / 4 && i < Rate * 5 / 4;
                samples[i] = voiced
                    ? (float)((float)(0.5f * buzz) + (float)(0.1f * noise))
                    : (float)(0.001f * noise);
            }
            return samples;
        }

        /// <summary>A voice-like buzz (200 Hz sawtooth plus noise) at any rate, with
        /// <paramref name="silence"/> seconds of near silence before and after.</summary>
        public static float[] Buzz(int rate, double seconds, double silence)
        {
            int total = (int)(rate * (seconds + 2 * silence));
            int start = (int)(rate * silence), end = start + (int)(rate * seconds);
            var samples = new float[total];
            uint state = 777;
            int period = rate / 200;
            for (int i = 0; i < total; i++)
            {
                state = unchecked(state * 1103515245u + 12345u);
                float noise = ((state >> 16) & 0x7fff) / 32768.0f - 0.5f;
                float buzz = (float)(i % period) / period - 0.5f;
                samples[i] = i >= start && i < end ? 0.5f * buzz + 0.1f * noise : 0.001f * noise;
            }
            return samples;
        }

        /// <summary>One frame in face.c's format: the frame number, the hex bits of every
        /// weight, input weight and rotation, then the events.</summary>
        public static void AppendFrame(StringBuilder sb, int frame, Character c)
        {
            sb.Append(frame.ToString(CultureInfo.InvariantCulture));
            foreach (var w in c.Weights) sb.Append(' ').Append(Bits(w).ToString("x8"));
            foreach (var w in c.InputWeights) sb.Append(' ').Append(Bits(w).ToString("x8"));
            foreach (var r in c.Rotations) sb.Append(' ').Append(Bits(r).ToString("x8"));
            var e = c.Events;
            sb.Append(" | ").Append(e.Blinks).Append(' ').Append(e.Saccades).Append(' ')
              .Append(e.VoiceStarted).Append(' ').Append(e.HandedOver).Append('\n');
        }

        /// <summary>The frame's outputs are finite, weights in 0–1, rotations unit quaternions.</summary>
        public static void AssertSane(Character c, string when)
        {
            for (int i = 0; i < c.Weights.Length; i++)
            {
                Assert.That(c.Weights[i] >= 0f && c.Weights[i] <= 1f,
                    "weight {0} ({1}) is {2} {3}", i, c.ChannelNames[i], c.Weights[i], when);
                Assert.That(c.InputWeights[i] >= 0f && c.InputWeights[i] <= 1f,
                    "input weight {0} is {1} {2}", i, c.InputWeights[i], when);
            }
            for (int q = 0; q < 3; q++)
            {
                double norm = 0;
                for (int k = 0; k < 4; k++)
                {
                    float v = c.Rotations[4 * q + k];
                    Assert.That(!float.IsNaN(v) && !float.IsInfinity(v), "rotation {0} is {1} {2}", 4 * q + k, v, when);
                    norm += (double)v * v;
                }
                Assert.That(Math.Abs(norm - 1.0), Is.LessThan(1e-3), "rotation {0} is not a unit quaternion {1}", q, when);
            }
        }

        /// <summary>Runs <paramref name="call"/>, which must fail in the library with
        /// <paramref name="status"/> and a message naming <paramref name="function"/>.</summary>
        public static OmoteException Fails(OmoteStatus status, string function, TestDelegate call)
        {
            var e = Assert.Throws<OmoteException>(call);
            Assert.AreEqual(status, e.Status, "status of {0}: {1}", function, e.Message);
            StringAssert.StartsWith(function + ": ", e.NativeMessage);
            Assert.That(e.NativeMessage.Length, Is.GreaterThan(function.Length + 5), "a message that says what was wrong");
            Assert.AreEqual(e.NativeMessage, e.Message);
            return e;
        }

        /// <summary>A null array the call needs is refused before the library, by name
        /// (as an empty one it would be no data at all, and Hear would do nothing).</summary>
        public static void NullArray(string parameter, TestDelegate call)
        {
            var e = Assert.Throws<ArgumentNullException>(call);
            Assert.AreEqual(parameter, e.ParamName);
            StringAssert.Contains("omote: " + parameter + " is null", e.Message);
        }

        /// <summary>The repository root: OMOTE_REPO (set by test.sh), else found upward.</summary>
        public static string Repo()
        {
            var env = Environment.GetEnvironmentVariable("OMOTE_REPO");
            if (!string.IsNullOrEmpty(env)) return env;
            var dir = AppDomain.CurrentDomain.BaseDirectory;
            while (dir != null && !File.Exists(Path.Combine(dir, "include/omote.h")))
                dir = Path.GetDirectoryName(dir);
            if (dir == null) Assert.Fail("cannot find the repository (set OMOTE_REPO)");
            return dir;
        }
    }
}
