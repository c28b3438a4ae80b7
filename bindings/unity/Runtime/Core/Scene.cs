using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using System.Text;

namespace Omote
{
    /// <summary>Marks a static method the native library calls back (Unity's IL2CPP
    /// compiles such methods ahead of time by this attribute's name; Mono ignores it).</summary>
    [AttributeUsage(AttributeTargets.Method)]
    public sealed class MonoPInvokeCallbackAttribute : Attribute
    {
        /// <summary>The delegate type the method is called through.</summary>
        public MonoPInvokeCallbackAttribute(Type type) { }
    }

    /// <summary>
    /// A dialogue scene (omote's TOML scene file) played frame by frame: every character's
    /// weights and rotations, the frame's events (a voice to play, an expression, a wait),
    /// the player's presses; or baked into anims. Load it once; call <see cref="Update"/>
    /// every frame, then read each character.
    /// </summary>
    /// <remarks>
    /// <para><b>Time.</b> As <see cref="Character.Step"/>: a finite positive dt is one exact
    /// step; 0, negative or NaN changes nothing.</para>
    /// <para><b>Threads.</b> One thread at a time. A resolver given to
    /// <see cref="FromText"/> is called on the loading thread, during the call only.</para>
    /// </remarks>
    public sealed class Scene : NativeObject
    {
        readonly string[] ids;
        readonly string[][] channelNames;
        readonly string[] warnings;
        SceneEvent[] events = new SceneEvent[16];
        int eventCount;
        readonly float[] camera = new float[3];
        readonly float[] point = new float[3];

        Scene(ulong handle) : base(handle)
        {
            uint n;
            Native.Check(NativeMethods.omote_scene_character_count(handle, out n));
            ids = new string[n];
            channelNames = new string[n][];
            for (uint i = 0; i < n; i++)
            {
                ids[i] = Text((byte[] b, out uint len) => NativeMethods.omote_scene_character_id(handle, i, b, (uint)(b == null ? 0 : b.Length), out len));
                uint count;
                Native.Check(NativeMethods.omote_scene_channel_count(handle, i, out count));
                var names = new string[count];
                for (uint c = 0; c < count; c++)
                {
                    uint id = c;
                    names[c] = Text((byte[] b, out uint len) => NativeMethods.omote_scene_channel_name(handle, i, id, b, (uint)(b == null ? 0 : b.Length), out len));
                }
                channelNames[i] = names;
            }
            uint w;
            Native.Check(NativeMethods.omote_scene_warning_count(handle, out w));
            warnings = new string[w];
            for (uint k = 0; k < w; k++)
            {
                uint at = k;
                warnings[k] = Text((byte[] b, out uint len) => NativeMethods.omote_scene_warning(handle, at, b, (uint)(b == null ? 0 : b.Length), out len));
            }
        }

        /// <summary>Loads a scene file; the files it names are read relative to its folder.
        /// An <see cref="OmoteException"/> names the file, the line and the field.</summary>
        public static Scene Load(string path)
        {
            Library.CheckAbi();
            ulong h;
            Native.Check(NativeMethods.omote_scene_load(Utf8.Encode(path), out h));
            return new Scene(h);
        }

        /// <summary>A scene from its text; <paramref name="name"/> stands for it in errors
        /// and its folder is where the files it names are looked up: through
        /// <paramref name="resolve"/> (a path → its bytes, or null when there is no such
        /// file: an engine's assets, an archive), or on disk when it is null.</summary>
        public static Scene FromText(string text, string name, Func<string, byte[]> resolve)
        {
            Library.CheckAbi();
            ulong h;
            if (resolve == null)
            {
                Native.Check(NativeMethods.omote_scene_from_text(Utf8.Encode(text), Utf8.Encode(name), null, IntPtr.Zero, out h));
                return new Scene(h);
            }
            var context = new ResolveContext { Resolve = resolve };
            var pin = GCHandle.Alloc(context);
            try
            {
                var status = NativeMethods.omote_scene_from_text(Utf8.Encode(text), Utf8.Encode(name), ReadFile, GCHandle.ToIntPtr(pin), out h);
                if (context.Failure != null && status != OmoteStatus.Ok)
                    throw new OmoteException(status, Native.LastError() + " (the resolver threw: " + context.Failure.Message + ")");
                Native.Check(status);
            }
            finally
            {
                pin.Free();
            }
            return new Scene(h);
        }

        sealed class ResolveContext
        {
            public Func<string, byte[]> Resolve;
            public Exception Failure;
            public readonly Dictionary<string, byte[]> Read = new Dictionary<string, byte[]>();
        }

        // One static delegate for every scene: IL2CPP calls back only static methods, and
        // the delegate must outlive the native call (a static field keeps it alive).
        static readonly ReadFileCallback ReadFile = ReadFileThunk;

        [MonoPInvokeCallback(typeof(ReadFileCallback))]
        static int ReadFileThunk(IntPtr user, IntPtr pathPtr, IntPtr sink)
        {
            var context = (ResolveContext)GCHandle.FromIntPtr(user).Target;
            try
            {
                string path = Utf8.Decode(pathPtr);
                byte[] bytes;
                // Asked first whether a file exists, then for it: resolve each path once.
                if (!context.Read.TryGetValue(path, out bytes))
                {
                    bytes = context.Resolve(path);
                    context.Read[path] = bytes;
                }
                if (bytes == null) return 1;
                if (sink != IntPtr.Zero)
                {
                    context.Read.Remove(path);
                    return NativeMethods.omote_file_sink_write(sink, bytes, (uint)bytes.Length) == OmoteStatus.Ok ? 0 : 1;
                }
                return 0;
            }
            catch (Exception e)
            {
                // Never let an exception unwind into native code: the file counts as missing.
                context.Failure = e;
                return 1;
            }
        }

        /// <inheritdoc/>
        protected override OmoteStatus Free(ulong handle)
        {
            return NativeMethods.omote_scene_free(handle);
        }

        internal delegate OmoteStatus TextCall(byte[] buf, out uint len);

        /// <summary>A text output of the library, two-call style (the length, then the text).</summary>
        internal static string Text(TextCall call)
        {
            var buf = new byte[64];
            uint len;
            var status = call(buf, out len);
            if (status == OmoteStatus.BufferTooSmall)
            {
                buf = new byte[len + 1];
                status = call(buf, out len);
            }
            Native.Check(status);
            return Encoding.UTF8.GetString(buf, 0, (int)len);
        }

        /// <summary>1: waits move on by themselves after their hold (a preview); off by
        /// default: a wait holds until <see cref="Advance"/>.</summary>
        public bool AutoAdvance
        {
            set { Native.Check(NativeMethods.omote_scene_set_auto_advance(Handle, value ? 1u : 0u)); }
        }

        /// <summary>Advances the scene by <paramref name="dt"/> seconds, computes every
        /// character's frame and reads the frame's events into <see cref="Events"/>.</summary>
        public void Update(float dt)
        {
            Native.Check(NativeMethods.omote_scene_update(Handle, dt));
            uint n;
            var status = NativeMethods.omote_scene_events(Handle, events, (uint)events.Length, out n);
            if (status == OmoteStatus.BufferTooSmall)
            {
                events = new SceneEvent[n];
                status = NativeMethods.omote_scene_events(Handle, events, (uint)events.Length, out n);
            }
            Native.Check(status);
            eventCount = (int)n;
        }

        /// <summary>The last update's events: the first <see cref="EventCount"/> entries
        /// (the array is reused).</summary>
        public SceneEvent[] Events { get { return events; } }

        /// <summary>How many of <see cref="Events"/> the last update gave.</summary>
        public int EventCount { get { return eventCount; } }

        /// <summary>The player presses "next": a wait moves on, a line that plays is cut.</summary>
        public void Advance() { Native.Check(NativeMethods.omote_scene_advance(Handle)); }

        /// <summary>The player skips to the next wait (or the end).</summary>
        public void Skip() { Native.Check(NativeMethods.omote_scene_skip(Handle)); }

        /// <summary>Where the game's camera is, in the scene's frame (metres, the frame of the
        /// scene file's character positions: +Y up, glTF/VRM axes, so Unity's x negated), for
        /// the next updates: it replaces the scene's camera path — each character's
        /// camera-angle correction and <c>at = "camera"</c> gaze follow it — until
        /// <see cref="ClearCamera"/>. A coordinate that is not finite throws. Allocates
        /// nothing.</summary>
        public void SetCamera(float x, float y, float z)
        {
            camera[0] = x;
            camera[1] = y;
            camera[2] = z;
            Native.Check(NativeMethods.omote_scene_set_camera(Handle, camera));
        }

        /// <summary>Gives the scene's own camera path back (<see cref="SetCamera"/>); in a
        /// scene without one, the faces lose the correction the game's camera gave them.</summary>
        public void ClearCamera()
        {
            Native.Check(NativeMethods.omote_scene_set_camera(Handle, null));
        }

        /// <summary>The camera the faces follow, in the scene's frame: the game's
        /// (<see cref="SetCamera"/>) while it gives one, else the scene's path now — to move
        /// a game camera along the authored path. False (and zeros) when the scene has no
        /// camera. Allocates nothing.</summary>
        public bool TryGetCameraPosition(out float x, out float y, out float z)
        {
            uint has;
            Native.Check(NativeMethods.omote_scene_camera_position(Handle, camera, out has));
            bool known = has == 1;
            x = known ? camera[0] : 0f;
            y = known ? camera[1] : 0f;
            z = known ? camera[2] : 0f;
            return known;
        }

        /// <summary>Where character <paramref name="i"/> looks from the next update on,
        /// over the scene's gaze keys: <paramref name="at"/> names the target as a scene
        /// file's gaze key does — "auto", "camera", "forward" or another character's id
        /// (an unknown one throws, naming it). <see cref="ClearGaze"/> gives the keys back.</summary>
        public void SetGaze(int i, string at)
        {
            if (at == null) throw new ArgumentNullException("at", "use ClearGaze to give the scene's gaze keys back");
            Native.Check(NativeMethods.omote_scene_set_gaze(Handle, (uint)CharacterIndex(i), Utf8.Encode(at)));
        }

        /// <summary>Character <paramref name="i"/> looks at a point of the scene (metres, the
        /// frame of the scene file's character positions: +Y up, glTF/VRM axes, so Unity's x
        /// negated) from the next update on, over the scene's gaze keys: the player's avatar,
        /// a prop. A coordinate that is not finite throws. Allocates nothing.</summary>
        public void SetGazePoint(int i, float x, float y, float z)
        {
            point[0] = x;
            point[1] = y;
            point[2] = z;
            Native.Check(NativeMethods.omote_scene_set_gaze_point(Handle, (uint)CharacterIndex(i), point));
        }

        /// <summary>Puts character <paramref name="i"/>'s head at (x, y, z) in the scene's
        /// frame (metres, as the scene file's position: +Y up, glTF/VRM axes, so Unity's x
        /// negated) with its body turned <paramref name="facingDeg"/> about +Y (0 faces +Z),
        /// from the next update on: a character that walks. Its gaze, the others' gaze at it
        /// and its camera correction follow. A number that is not finite throws. Allocates
        /// nothing.</summary>
        public void SetPlacement(int i, float x, float y, float z, float facingDeg)
        {
            point[0] = x;
            point[1] = y;
            point[2] = z;
            Native.Check(NativeMethods.omote_scene_set_placement(Handle, (uint)CharacterIndex(i), point, facingDeg));
        }

        /// <summary>Gives character <paramref name="i"/>'s gaze back to the scene's keys
        /// (<see cref="SetGaze"/>, <see cref="SetGazePoint"/>).</summary>
        public void ClearGaze(int i)
        {
            Native.Check(NativeMethods.omote_scene_set_gaze(Handle, (uint)CharacterIndex(i), null));
        }

        /// <summary>How character <paramref name="i"/>'s eyes behave while it is not
        /// speaking, from the next update on, over the scene's eye-mode keys:
        /// <paramref name="mode"/> as a scene file's eyes key names it — "idle", "talking",
        /// "listening", "focused" or "auto". While it speaks its eyes talk, as always.
        /// <see cref="ClearEyeMode"/> gives the keys back.</summary>
        public void SetEyeMode(int i, string mode)
        {
            if (mode == null) throw new ArgumentNullException("mode", "use ClearEyeMode to give the scene's eye-mode keys back");
            Native.Check(NativeMethods.omote_scene_set_eye_mode(Handle, (uint)CharacterIndex(i), Utf8.Encode(mode)));
        }

        /// <summary>Gives character <paramref name="i"/>'s eye mode back to the scene's keys
        /// (<see cref="SetEyeMode"/>).</summary>
        public void ClearEyeMode(int i)
        {
            Native.Check(NativeMethods.omote_scene_set_eye_mode(Handle, (uint)CharacterIndex(i), null));
        }

        /// <summary>Character <paramref name="i"/>'s acted expression set by the game (a
        /// branch the player chose, its state), 0–1; it stays until changed. Only an
        /// expression the scene's acting keys never move: one it keys throws, naming it
        /// (the scene writes those every frame).</summary>
        public void SetExpression(int i, string name, float weight)
        {
            Native.Check(NativeMethods.omote_scene_set_expression(Handle, (uint)CharacterIndex(i), Utf8.Encode(name), weight));
        }

        /// <summary><see cref="SetExpression"/> eased over <paramref name="seconds"/> (0–60)
        /// from the weight now, moving with <see cref="Update"/>.</summary>
        public void FadeExpression(int i, string name, float weight, float seconds)
        {
            Native.Check(NativeMethods.omote_scene_fade_expression(Handle, (uint)CharacterIndex(i), Utf8.Encode(name), weight, seconds));
        }

        void Info(out double time, out float timeline, out uint waiting, out uint finished)
        {
            Native.Check(NativeMethods.omote_scene_info(Handle, out time, out timeline, out waiting, out finished));
        }

        /// <summary>The scene's wall time, seconds.</summary>
        public double Time { get { double t; float l; uint w, f; Info(out t, out l, out w, out f); return t; } }

        /// <summary>Whether the timeline waits for <see cref="Advance"/>.</summary>
        public bool IsWaiting { get { double t; float l; uint w, f; Info(out t, out l, out w, out f); return w != 0; } }

        /// <summary>Whether everything has played.</summary>
        public bool IsFinished { get { double t; float l; uint w, f; Info(out t, out l, out w, out f); return f != 0; } }

        /// <summary>The number of characters.</summary>
        public int CharacterCount { get { ThrowIfDisposed(); return ids.Length; } }

        /// <summary>Character <paramref name="i"/>'s id, as the scene file names it.</summary>
        public string CharacterId(int i) { return ids[CharacterIndex(i)]; }

        /// <summary>The index of the character whose id is <paramref name="id"/>, or -1.</summary>
        public int IndexOf(string id) { ThrowIfDisposed(); return Array.IndexOf(ids, id); }

        int CharacterIndex(int i)
        {
            ThrowIfDisposed();
            if (i < 0 || i >= ids.Length)
                throw new ArgumentOutOfRangeException("i", i, string.Format("the scene has {0} characters", ids.Length));
            return i;
        }

        /// <summary>What loading read but not whole, each naming the scene's line and the
        /// file (a voice WAV cut short of what its header declares: what is there is used);
        /// empty when every file was whole. Show them as warnings.</summary>
        public string[] Warnings { get { return warnings; } }

        /// <summary>Character <paramref name="i"/>'s channel names (its weight arrays' order).</summary>
        public string[] ChannelNames(int i) { return channelNames[CharacterIndex(i)]; }

        /// <summary>The clip name of character <paramref name="i"/>'s line <paramref name="line"/>
        /// (a voice event's <see cref="SceneEvent.Index"/>).</summary>
        public string LineClip(int i, int line)
        {
            ulong h = Handle;
            return Text((byte[] b, out uint len) => NativeMethods.omote_scene_line_clip(h, Native.Index(i, "i"), Native.Index(line, "line"), b, (uint)(b == null ? 0 : b.Length), out len));
        }

        /// <summary>Character <paramref name="i"/>'s weights after the override rules, into
        /// <paramref name="weights"/> (its channel count long; nothing allocated).</summary>
        public void Weights(int i, float[] weights)
        {
            Native.Check(NativeMethods.omote_scene_weights(Handle, Native.Index(i, "i"), weights, Native.Length(weights, "weights")));
        }

        /// <summary>Character <paramref name="i"/>'s weights before the override rules
        /// (for UniVRM 1.0's <c>SetWeight</c>).</summary>
        public void InputWeights(int i, float[] weights)
        {
            Native.Check(NativeMethods.omote_scene_input_weights(Handle, Native.Index(i, "i"), weights, Native.Length(weights, "weights")));
        }

        /// <summary>Character <paramref name="i"/>'s head, left eye, right eye rotations
        /// (12 numbers, <c>x y z w</c> each, VRM frame, relative to the rest pose).</summary>
        public void Rotations(int i, float[] rotations)
        {
            Native.Check(NativeMethods.omote_scene_rotations(Handle, Native.Index(i, "i"), rotations, Native.Length(rotations, "rotations")));
        }

        /// <summary>Character <paramref name="i"/>'s gaze after smoothing and saccades,
        /// degrees (yaw + toward the avatar's left, pitch + down): the eyes' turn in the head
        /// (at most 25° each way), on top of the head's rotation (<see cref="Rotations"/>),
        /// which carries the rest of a larger turn.</summary>
        public void GetGaze(int i, out float yawDeg, out float pitchDeg)
        {
            Native.Check(NativeMethods.omote_scene_gaze(Handle, Native.Index(i, "i"), out yawDeg, out pitchDeg));
        }

        /// <summary>Bakes the scene from its start (the scene playing is not touched) at
        /// <paramref name="fps"/>, the player pressing "next" at <paramref name="advances"/>
        /// and skipping at <paramref name="skips"/> (wall times, seconds; null for none).</summary>
        public Anims Bake(float fps, double[] advances, double[] skips)
        {
            ulong h;
            Native.Check(NativeMethods.omote_scene_bake(Handle, fps, advances, advances == null ? 0u : (uint)advances.Length,
                skips, skips == null ? 0u : (uint)skips.Length, out h));
            return Anims.Own(h);
        }

        /// <summary>Starts recording what plays (every character, with the events); update
        /// at steps of 1/<paramref name="fps"/> for the anim's timing.</summary>
        public void Record(float fps) { Native.Check(NativeMethods.omote_scene_record(Handle, fps)); }

        /// <summary>Ends the recording: one anim per character.</summary>
        public Anims FinishRecording()
        {
            ulong h;
            Native.Check(NativeMethods.omote_scene_finish_recording(Handle, out h));
            return Anims.Own(h);
        }
    }

    /// <summary>Anims (a scene's bake, a recording), one per character, to write as anim
    /// JSON (<c>docs/anim-format.md</c>) or VRMA.</summary>
    public sealed class Anims : NativeObject
    {
        Anims(ulong handle) : base(handle) { }

        internal static Anims Own(ulong handle) { return new Anims(handle); }

        /// <inheritdoc/>
        protected override OmoteStatus Free(ulong handle) { return NativeMethods.omote_anims_free(handle); }

        /// <summary>How many anims there are.</summary>
        public int Count
        {
            get { uint n; Native.Check(NativeMethods.omote_anims_count(Handle, out n)); return (int)n; }
        }

        delegate OmoteStatus BytesCall(ulong h, uint i, byte[] buf, uint cap, out uint len);

        byte[] Bytes(int i, BytesCall call)
        {
            uint len;
            var status = call(Handle, Native.Index(i, "i"), null, 0, out len);
            if (status != OmoteStatus.BufferTooSmall && status != OmoteStatus.Ok) Native.Check(status);
            var buf = new byte[len];
            Native.Check(call(Handle, Native.Index(i, "i"), buf, len, out len));
            return buf;
        }

        /// <summary>Anim <paramref name="i"/>'s character id.</summary>
        public string Id(int i)
        {
            ulong h = Handle;
            return Scene.Text((byte[] b, out uint len) => NativeMethods.omote_anims_id(h, Native.Index(i, "i"), b, (uint)(b == null ? 0 : b.Length), out len));
        }

        /// <summary>Anim <paramref name="i"/> as an anim JSON file's bytes.</summary>
        public byte[] Json(int i) { return Bytes(i, NativeMethods.omote_anims_json); }

        /// <summary>Anim <paramref name="i"/> as a VRM Animation (.vrma) for its character's
        /// VRM (an <see cref="OmoteException"/> when it has none).</summary>
        public byte[] Vrma(int i) { return Bytes(i, NativeMethods.omote_anims_vrma); }
    }
}
