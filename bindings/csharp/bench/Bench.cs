// The C# frame's cost under Mono: Character.Step (one P/Invoke: update + weights before
// and after the rules + rotations + events) plus reading every weight and rotation, for
// the built-in avatar; the median of several runs of 10,000 frames, and the bytes the
// runs allocated on the managed heap. Run by bindings/csharp/bench.sh.
using System;
using System.Diagnostics;
using Omote;

static class Bench
{
    const int Frames = 10000;
    const int Runs = 9;

    static float Read(Character c)
    {
        float sum = 0;
        var w = c.Weights;
        for (int i = 0; i < w.Length; i++) sum += w[i];
        var iw = c.InputWeights;
        for (int i = 0; i < iw.Length; i++) sum += iw[i];
        var r = c.Rotations;
        for (int i = 0; i < r.Length; i++) sum += r[i];
        return sum + c.Events.Blinks;
    }

    static double Median(double[] xs)
    {
        var s = (double[])xs.Clone();
        Array.Sort(s);
        return s[s.Length / 2];
    }

    static int Main()
    {
        using (var avatar = Avatar.Builtin(0))
        using (var face = new Character(avatar, 7))
        {
            face.SetExpression("happy", 0.4f);
            face.SetGazeTarget(0.3f, -0.1f, 1f);
            float sink = 0;
            for (int i = 0; i < 2000; i++) { face.Step(1f / 60f); sink += Read(face); }

            var step = new double[Runs];
            var update = new double[Runs];
            var stepOnly = new double[Runs];
            long bytes = 0;
            var sw = new Stopwatch();
            for (int run = 0; run < Runs; run++)
            {
                long before = GC.GetAllocatedBytesForCurrentThread();
                sw.Restart();
                for (int i = 0; i < Frames; i++)
                {
                    face.Step(1f / 60f);
                    sink += Read(face);
                }
                sw.Stop();
                bytes += GC.GetAllocatedBytesForCurrentThread() - before;
                step[run] = sw.Elapsed.TotalMilliseconds * 1000.0 / Frames;

                // Step without reading the arrays back.
                sw.Restart();
                for (int i = 0; i < Frames; i++) face.Step(1f / 60f);
                sw.Stop();
                stepOnly[run] = sw.Elapsed.TotalMilliseconds * 1000.0 / Frames;

                // The bare update through P/Invoke, nothing read: the call's own cost.
                sw.Restart();
                for (int i = 0; i < Frames; i++) face.Update(1f / 60f);
                sw.Stop();
                update[run] = sw.Elapsed.TotalMilliseconds * 1000.0 / Frames;
            }
            Console.WriteLine("omote C# bench: built-in avatar, {0} channels, {1} runs of {2} frames (Mono {3}, {4}-bit)",
                face.ChannelCount, Runs, Frames, Environment.Version, IntPtr.Size * 8);
            Console.WriteLine("  Character.Step + reading weights, input weights, rotations: {0:F3} µs per frame (median; min {1:F3}, max {2:F3})",
                Median(step), Min(step), Max(step));
            Console.WriteLine("  Character.Step alone (arrays filled, not read):            {0:F3} µs per frame (median)", Median(stepOnly));
            Console.WriteLine("  Character.Update alone (no outputs copied):                {0:F3} µs per frame (median)", Median(update));
            Console.WriteLine("  managed bytes allocated by {0} Step frames: {1}", Runs * Frames, bytes);
            if (float.IsNaN(sink)) return 1;
            return bytes == 0 ? 0 : 1;
        }
    }

    static double Min(double[] xs) { double m = double.MaxValue; foreach (var x in xs) m = Math.Min(m, x); return m; }
    static double Max(double[] xs) { double m = double.MinValue; foreach (var x in xs) m = Math.Max(m, x); return m; }
}
