using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;

namespace Omote
{
    /// <summary>Blink rate and gaze behaviour (while a line plays the face is talking anyway).</summary>
    public enum EyeMode
    {
        /// <summary>Idle.</summary>
        Idle = 0,
        /// <summary>Talking.</summary>
        Talking = 1,
        /// <summary>Listening.</summary>
        Listening = 2,
        /// <summary>Focused.</summary>
        Focused = 3,
    }

    /// <summary>
    /// One character's face. Set inputs between frames, then call <see cref="Step"/> once
    /// per frame and read <see cref="Weights"/>, <see cref="InputWeights"/>,
    /// <see cref="Rotations"/> and <see cref="Events"/>, which it fills in place.
    /// </summary>
    /// <remarks>
    /// <para><b>Per frame nothing is allocated</b> on the managed heap: <see cref="Step"/>,
    /// the setters by id, <see cref="SetExpression(string, float)"/> for a name the avatar
    /// has (looked up in a dictionary built once), <see cref="SetTracked(float[])"/>,
    /// <see cref="Hear(VoiceStream, float[], int)"/> and <see cref="GetGaze"/> make one
    /// native call each and no garbage. Only failures allocate (the exception).</para>
    /// <para><b>Time (dt).</b> Finite and positive up to 0.25 s: one exact step of
    /// <c>dt</c> seconds. Longer (a hitch, the editor paused, a breakpoint): one normal
    /// frame (the last step taken), so the face resumes where it was without a jump, a
    /// voice line too. Zero, negative, NaN or infinite: no time passes and the frame is
    /// recomputed from the inputs (a paused game). Pass Unity's <c>Time.deltaTime</c>.</para>
    /// <para><b>Numbers.</b> Weights in are clamped to 0–1, gaze to ±90°; NaN inputs are
    /// refused with an <see cref="OmoteException"/> and change nothing. Numbers out are
    /// always finite; weights in 0–1; rotations unit quaternions.</para>
    /// <para><b>Composing with the host's animation.</b> Expressions the host wants go in
    /// as acting (<see cref="SetExpression(int, float)"/>) or picture adjustments
    /// (<see cref="SetPicture(int, float)"/>), so the override rules see them and blinks
    /// respect them. <see cref="Rotations"/> (head, left eye, right eye) are relative to
    /// the rest pose in the VRM frame: multiply them onto the animated pose after the
    /// Animator ran (Unity: LateUpdate), so an animation turning the head keeps its turn.
    /// Give a target the host moves with <see cref="SetGazeTarget"/> in the head's frame
    /// each frame and the eyes follow it.</para>
    /// <para><b>Threads.</b> One thread at a time per character (typically the main
    /// thread). An audio callback must not call it: hand samples over with an
    /// <see cref="AudioRing"/>.</para>
    /// </remarks>
    public sealed class Character : NativeObject
    {
        /// <summary>The weights after the VRM override rules (what the face shows), by
        /// channel id: for players that apply no rules (VRM 0.x, a plain blendshape rig).</summary>
        public readonly float[] Weights;

        /// <summary>The weights before the override rules, by channel id: for players that
        /// apply them (UniVRM 1.0's <c>Expression.SetWeight</c>, VRMA).</summary>
        public readonly float[] InputWeights;

        /// <summary>Head, left eye, right eye: <c>x y z w</c> each (12 numbers), VRM frame
        /// (glTF axes: right-handed, +Z forward), relative to the rest pose.</summary>
        public readonly float[] Rotations = new float[12];

        // Step's outputs are pinned for the character's life and passed as pointers:
        // marshalling three arrays and a struct per call cost Mono more than the update.
        readonly FrameEvents[] events = new FrameEvents[1];
        GCHandle pinWeights, pinInput, pinRotations, pinEvents;
        readonly IntPtr weightsPtr, inputPtr, rotationsPtr, eventsPtr;
        readonly string[] channelNames;
        readonly Dictionary<string, int> channelIds;
        readonly float[] head = new float[4];
        readonly float[] camera = new float[3];

        /// <summary>A character for <paramref name="avatar"/> (which may be disposed
        /// afterwards), its blinks and saccades seeded with <paramref name="seed"/>: the
        /// same avatar, seed and calls give the same frames, to the bit.</summary>
        public Character(Avatar avatar, ulong seed) : base(Create(avatar, seed))
        {
            channelNames = avatar.ChannelNames;
            uint n;
            Native.Check(NativeMethods.omote_character_channel_count(Handle, out n));
            if (n != channelNames.Length)
                throw new InvalidOperationException("omote: the character's channels differ from its avatar's");
            channelIds = new Dictionary<string, int>(channelNames.Length, StringComparer.Ordinal);
            for (int i = 0; i < channelNames.Length; i++) channelIds[channelNames[i]] = i;
            Weights = new float[n];
            InputWeights = new float[n];
            pinWeights = GCHandle.Alloc(Weights, GCHandleType.Pinned);
            pinInput = GCHandle.Alloc(InputWeights, GCHandleType.Pinned);
            pinRotations = GCHandle.Alloc(Rotations, GCHandleType.Pinned);
            pinEvents = GCHandle.Alloc(events, GCHandleType.Pinned);
            weightsPtr = pinWeights.AddrOfPinnedObject();
            inputPtr = pinInput.AddrOfPinnedObject();
            rotationsPtr = pinRotations.AddrOfPinnedObject();
            eventsPtr = pinEvents.AddrOfPinnedObject();
        }

        static ulong Create(Avatar avatar, ulong seed)
        {
            if (avatar == null) throw new ArgumentNullException("avatar");
            ulong h;
            Native.Check(NativeMethods.omote_character_new(avatar.Handle, seed, out h));
            return h;
        }

        /// <inheritdoc/>
        protected override OmoteStatus Free(ulong handle)
        {
            Unpin(ref pinWeights);
            Unpin(ref pinInput);
            Unpin(ref pinRotations);
            Unpin(ref pinEvents);
            return NativeMethods.omote_character_free(handle);
        }

        static void Unpin(ref GCHandle pin)
        {
            if (pin.IsAllocated) pin.Free();
        }

        /// <summary>The number of channels (the length of <see cref="Weights"/>).</summary>
        public int ChannelCount { get { return channelNames.Length; } }

        /// <summary>The channels' names by id (the same array every time; do not change it).</summary>
        public string[] ChannelNames { get { ThrowIfDisposed(); return channelNames; } }

        /// <summary>What happened in the last <see cref="Step"/>: blinks, saccades, a voice
        /// line's voice starting, its hand-over.</summary>
        public FrameEvents Events { get { return events[0]; } }

        /// <summary>Channel <paramref name="name"/>'s id (resolve names once, then use ids);
        /// an <see cref="OmoteException"/> with the library's message when there is none.</summary>
        public int ChannelId(string name)
        {
            ulong h = Handle;
            int id;
            if (name != null && channelIds.TryGetValue(name, out id)) return id;
            uint raw;
            Native.Check(NativeMethods.omote_character_channel_id(h, Utf8.Encode(name), out raw));
            return (int)raw;
        }

        /// <summary>Channel <paramref name="name"/>'s id, or false.</summary>
        public bool TryChannelId(string name, out int id)
        {
            ThrowIfDisposed();
            id = -1;
            return name != null && channelIds.TryGetValue(name, out id);
        }

        // ---- the frame ----

        /// <summary>
        /// Advances the face by <paramref name="dt"/> seconds (see the class remarks for
        /// 0, negative, NaN and long steps) and fills <see cref="Weights"/>,
        /// <see cref="InputWeights"/>, <see cref="Rotations"/> and <see cref="Events"/>:
        /// one native call, no allocation.
        /// </summary>
        public void Step(float dt)
        {
            Native.Check(NativeMethods.omote_character_step(
                Handle, dt, weightsPtr, inputPtr, (uint)Weights.Length, rotationsPtr, eventsPtr));
        }

        /// <summary>Advances the face without reading its outputs (read them with the
        /// Copy methods; <see cref="Step"/> does both in one call).</summary>
        public void Update(float dt)
        {
            Native.Check(NativeMethods.omote_character_update(Handle, dt));
        }

        /// <summary>Copies the weights after the override rules into <paramref name="into"/>
        /// (exactly <see cref="ChannelCount"/> long).</summary>
        public void CopyWeights(float[] into)
        {
            Native.Check(NativeMethods.omote_character_weights(Handle, into, Native.Length(into, "into")));
        }

        /// <summary>Copies the weights before the override rules into <paramref name="into"/>.</summary>
        public void CopyInputWeights(float[] into)
        {
            Native.Check(NativeMethods.omote_character_input_weights(Handle, into, Native.Length(into, "into")));
        }

        /// <summary>Copies the 12 rotation numbers into <paramref name="into"/> (12 long).</summary>
        public void CopyRotations(float[] into)
        {
            Native.Check(NativeMethods.omote_character_rotations(Handle, into, Native.Length(into, "into")));
        }

        /// <summary>The events of the last update.</summary>
        public FrameEvents ReadEvents()
        {
            FrameEvents e;
            Native.Check(NativeMethods.omote_character_events(Handle, out e));
            return e;
        }

        /// <summary>The gaze after smoothing and saccades, degrees (yaw &gt; 0: toward the
        /// avatar's left; pitch &gt; 0: down).</summary>
        public void GetGaze(out float yawDeg, out float pitchDeg)
        {
            Native.Check(NativeMethods.omote_character_gaze(Handle, out yawDeg, out pitchDeg));
        }

        // ---- acting ----

        /// <summary>Sets an acted expression (the base layer; the host's own expressions go
        /// here too), clamped to 0–1; NaN is refused.</summary>
        public void SetExpression(int id, float weight)
        {
            Native.Check(NativeMethods.omote_character_set_expression(Handle, Native.Index(id, "id"), weight));
        }

        /// <summary>Moves an acted expression from its weight now to <paramref name="weight"/>
        /// over <paramref name="seconds"/> (0–60; 0: at once), eased in and out as a scene
        /// key's fade: an emotion that changes rather than jumps. A later fade of the same
        /// expression starts from where this one got to; <see cref="SetExpression(int, float)"/>
        /// ends it.</summary>
        public void FadeExpression(int id, float weight, float seconds)
        {
            Native.Check(NativeMethods.omote_character_fade_expression(Handle, Native.Index(id, "id"), weight, seconds));
        }

        /// <summary><see cref="FadeExpression(int, float, float)"/> by name (no allocation for a
        /// name the avatar has).</summary>
        public void FadeExpression(string name, float weight, float seconds)
        {
            ulong h = Handle;
            int known;
            uint id;
            if (name != null && channelIds.TryGetValue(name, out known))
                id = (uint)known;
            else // the library names what is wrong (null, an expression the avatar lacks)
                Native.Check(NativeMethods.omote_character_channel_id(h, Utf8.Encode(name), out id));
            Native.Check(NativeMethods.omote_character_fade_expression(h, id, weight, seconds));
        }

        /// <summary><see cref="SetExpression(int, float)"/> by name (no allocation for a
        /// name the avatar has).</summary>
        public void SetExpression(string name, float weight)
        {
            ulong h = Handle;
            int id;
            if (name != null && channelIds.TryGetValue(name, out id))
                Native.Check(NativeMethods.omote_character_set_expression(h, (uint)id, weight));
            else
                Native.Check(NativeMethods.omote_character_set_expression_named(h, Utf8.Encode(name), weight));
        }

        /// <summary>Sets a picture-making adjustment (the additive layer, on top of everything).</summary>
        public void SetPicture(int id, float weight)
        {
            Native.Check(NativeMethods.omote_character_set_picture(Handle, Native.Index(id, "id"), weight));
        }

        /// <summary><see cref="SetPicture(int, float)"/> by name.</summary>
        public void SetPicture(string name, float weight)
        {
            SetPicture(ChannelId(name), weight);
        }

        /// <summary>Sets the acted gaze in degrees (yaw &gt; 0: toward the avatar's left;
        /// pitch &gt; 0: down), clamped to ±90°; saccades play around it.</summary>
        public void SetGaze(float yawDeg, float pitchDeg)
        {
            Native.Check(NativeMethods.omote_character_set_gaze(Handle, yawDeg, pitchDeg));
        }

        /// <summary>Points the gaze at a target in the head bone's local frame, VRM axes
        /// (+Z ahead, +X the avatar's left, +Y up). Set it each frame from the target's
        /// world position seen from the animated head, and the eyes follow it while the
        /// host's animation turns the head.</summary>
        public void SetGazeTarget(float x, float y, float z)
        {
            Native.Check(NativeMethods.omote_character_set_gaze_target(Handle, x, y, z));
        }

        /// <summary>Sets the acted head rotation (<c>x y z w</c>, VRM frame, relative to the rest pose).</summary>
        public void SetHead(float x, float y, float z, float w)
        {
            Native.Check(NativeMethods.omote_character_set_head(Handle, x, y, z, w));
        }

        /// <summary>Sets the eye mode (blink rate and gaze behaviour).</summary>
        public void SetEyeMode(EyeMode mode)
        {
            Native.Check(NativeMethods.omote_character_set_eye_mode(Handle, unchecked((uint)mode)));
        }

        /// <summary>Asks for a blink <paramref name="delaySeconds"/> from now (0: as soon
        /// as the eyes are free); a negative or NaN delay throws.</summary>
        public void RequestBlink(float delaySeconds)
        {
            Native.Check(NativeMethods.omote_character_request_blink(Handle, delaySeconds));
        }

        /// <summary>Announces an eye-area change (a surprised key, eyes shut) <paramref name="inSeconds"/>
        /// ahead on your own timeline (Timeline, a dialogue system): no automatic blink starts
        /// shortly before it. A negative or NaN time, or 16 already waiting, throws.</summary>
        public void AnnounceEyeChange(float inSeconds)
        {
            Native.Check(NativeMethods.omote_character_announce_eye_change(Handle, inSeconds));
        }

        // ---- tracking ----

        /// <summary>Turns tracking on: faces given to <see cref="SetTracked(float[])"/>
        /// drive the face over the acting; a lost face fades back. <paramref name="settingsJson"/>
        /// is null for the default retargeting, or tracking settings as JSON — any fields of
        /// a tracking settings file (docs/tracking-format.md), e.g. <c>{"mirror": true}</c>
        /// for a selfie camera; an unknown field or a number out of range throws, naming it.
        /// Calling it again starts tracking afresh (calibration and fade-in start over).</summary>
        public void EnableTracking(string settingsJson = null)
        {
            Native.Check(settingsJson == null
                ? NativeMethods.omote_character_enable_tracking(Handle)
                : NativeMethods.omote_character_enable_tracking_with(Handle, Utf8.Encode(settingsJson)));
        }

        /// <summary>The tracked face for the next updates: 52 ARKit scores in
        /// <see cref="Library.ArkitNames"/>' order, no head rotation.</summary>
        public void SetTracked(float[] scores)
        {
            Native.Check(NativeMethods.omote_character_set_tracked(Handle, scores, Native.Length(scores, "scores"), null));
        }

        /// <summary>The tracked face with the head's rotation (relative to the camera, VRM frame).</summary>
        public void SetTracked(float[] scores, float headX, float headY, float headZ, float headW)
        {
            ulong h = Handle;
            head[0] = headX;
            head[1] = headY;
            head[2] = headZ;
            head[3] = headW;
            Native.Check(NativeMethods.omote_character_set_tracked(h, scores, Native.Length(scores, "scores"), head));
        }

        /// <summary>The tracked face from named scores, as trackers report them (MediaPipe's
        /// blendshape categories: ARKit names in any spelling; names that are not ARKit's,
        /// like <c>_neutral</c>, are skipped; missing ones are 0) and, if given, the head as a
        /// row-major 4×4 transform (16 numbers; MediaPipe's facial transformation matrix is
        /// column-major: transpose it). It allocates (the names are encoded each call): per
        /// frame, map the names once with <see cref="Library.ArkitIndex"/> and use
        /// <see cref="SetTracked(float[])"/>.</summary>
        public void SetTrackedNamed(string[] names, float[] scores, float[] headRowMajor = null)
        {
            if (names == null) throw new ArgumentNullException("names");
            if (scores == null) throw new ArgumentNullException("scores");
            if (names.Length != scores.Length)
                throw new ArgumentException(string.Format("{0} names for {1} scores: one name per score", names.Length, scores.Length), "scores");
            if (headRowMajor != null && headRowMajor.Length != 16)
                throw new ArgumentException(string.Format("the head has {0} numbers, not 16 (a 4×4 matrix, row by row)", headRowMajor.Length), "headRowMajor");
            ulong h = Handle;
            var pins = new GCHandle[names.Length];
            var pointers = new IntPtr[names.Length];
            try
            {
                for (int i = 0; i < names.Length; i++)
                {
                    if (names[i] == null) throw new ArgumentNullException("names", string.Format("names[{0}] is null", i));
                    pins[i] = GCHandle.Alloc(Utf8.Encode(names[i]), GCHandleType.Pinned);
                    pointers[i] = pins[i].AddrOfPinnedObject();
                }
                Native.Check(NativeMethods.omote_character_set_tracked_named(h, pointers, scores, (uint)names.Length, headRowMajor));
            }
            finally
            {
                foreach (var pin in pins)
                    if (pin.IsAllocated) pin.Free();
            }
        }

        /// <summary>Takes the user's neutral head pose from the next <paramref name="seconds"/>
        /// of tracked faces (0: the next face) while they look straight at the screen: a camera
        /// above or beside it no longer leaves the head turned. Needs <see cref="EnableTracking"/>.</summary>
        public void CalibrateTracking(float seconds)
        {
            Native.Check(NativeMethods.omote_character_calibrate_tracking(Handle, seconds));
        }

        /// <summary>The tracker lost the face: it fades back to the acting.</summary>
        public void SetTrackingLost()
        {
            Native.Check(NativeMethods.omote_character_set_tracking_lost(Handle));
        }

        // ---- voice ----

        /// <summary>Says a voice line now, with an afterglow mouth after it (may be null).
        /// The mouth starts with the voice and hands over into the acting 0.2 s before its end.</summary>
        public void Say(Track track, OmoteWeight[] afterglow = null)
        {
            ulong h = Handle;
            if (track == null) throw new ArgumentNullException("track");
            Native.Check(NativeMethods.omote_character_say(h, track.Handle, afterglow, Length(afterglow)));
        }

        /// <summary><see cref="Say"/> with the line already <paramref name="elapsedSeconds"/>
        /// in when the next step starts: a line whose AudioSource started earlier, or one put
        /// back on its audio after a hitch (a dt over 0.25 s is one frame for the face while
        /// the AudioSource played on: after that <see cref="Step"/>, say it again at
        /// <c>audioSource.time</c>; the next step moves on from there).</summary>
        public void SayAt(Track track, float elapsedSeconds, OmoteWeight[] afterglow = null)
        {
            ulong h = Handle;
            if (track == null) throw new ArgumentNullException("track");
            Native.Check(NativeMethods.omote_character_say_at(h, track.Handle, afterglow, Length(afterglow), elapsedSeconds));
        }

        /// <summary>Stops the line that plays (the mouth hands over from now, no snap).</summary>
        public void Cut()
        {
            Native.Check(NativeMethods.omote_character_cut(Handle));
        }

        /// <summary>How long a line's afterglow stays at full once the line has ended,
        /// then how long it takes to release (seconds). A hold of
        /// <c>float.PositiveInfinity</c> (the default) keeps it until the next line; a
        /// negative or NaN time throws.</summary>
        public void SetAfterglowTiming(float holdSeconds, float releaseSeconds)
        {
            Native.Check(NativeMethods.omote_character_set_afterglow_timing(Handle, holdSeconds, releaseSeconds));
        }

        /// <summary>Releases the afterglow showing now over <paramref name="releaseSeconds"/>
        /// (0: at once); a line playing keeps its own. A negative, NaN or infinite time
        /// throws.</summary>
        public void ClearAfterglow(float releaseSeconds = 0.5f)
        {
            Native.Check(NativeMethods.omote_character_clear_afterglow(Handle, releaseSeconds));
        }

        /// <summary>Whether the character speaks a voice line now: from the line's voiced onset
        /// until its hand-over into the acting (0.2 s before the voice ends) — not in the line's
        /// leading silence nor its tail. To queue the next line, use the line's own length
        /// (<see cref="Track.Duration"/>).</summary>
        public bool IsSpeaking
        {
            get
            {
                uint speaking;
                Native.Check(NativeMethods.omote_character_is_speaking(Handle, out speaking));
                return speaking != 0;
            }
        }

        /// <summary>The live voice for the next update as numbers: 5 or 6 (A I U E O, N not
        /// read) and whether the frame is voiced.</summary>
        public void SetLiveVowels(float[] vowels, bool voiced)
        {
            Native.Check(NativeMethods.omote_character_set_live_vowels(Handle, vowels, Native.Length(vowels, "vowels"), voiced ? 1u : 0u));
        }

        /// <summary>Hears live samples (mono, −1..1) through <paramref name="stream"/> (at
        /// its rate): the newest frame they complete is the live voice for the next update.</summary>
        public void Hear(VoiceStream stream, float[] samples)
        {
            Hear(stream, samples, (int)Native.Length(samples, "samples"));
        }

        /// <summary>Hears the first <paramref name="count"/> of <paramref name="samples"/>
        /// (a reused buffer partly filled, without allocating).</summary>
        public void Hear(VoiceStream stream, float[] samples, int count)
        {
            ulong h = Handle;
            if (stream == null) throw new ArgumentNullException("stream");
            CheckCount(samples, count);
            Native.Check(NativeMethods.omote_character_hear(h, stream.Handle, samples, (uint)count));
        }

        /// <summary>Turns the camera-angle face correction on (once): a motion map as TOML
        /// text (docs/motion-map.md), or omote's built-in anime-face map when null (it drives
        /// ARKit blendshapes: an avatar with none of them is refused and needs a map of its
        /// own expressions).</summary>
        public void EnableCamera(string motionMapToml)
        {
            Native.Check(NativeMethods.omote_character_enable_camera(Handle, Utf8.Encode(motionMapToml)));
        }

        /// <summary>Where the camera is (metres, relative to the head's centre, in the
        /// body's VRM frame: +Y up, +Z the avatar's front), for the next steps.</summary>
        public void SetCamera(float x, float y, float z)
        {
            camera[0] = x;
            camera[1] = y;
            camera[2] = z;
            Native.Check(NativeMethods.omote_character_set_camera(Handle, camera));
        }

        /// <summary>Starts recording the face: each <see cref="Step"/> with a step adds a frame
        /// to an anim at <paramref name="fps"/> (step at 1/fps for the anim's timing).</summary>
        public void Record(float fps)
        {
            Native.Check(NativeMethods.omote_character_record(Handle, fps));
        }

        /// <summary>Ends the recording: its anim, written as VRMA for
        /// <paramref name="avatar"/>'s VRM (null: anim JSON only).</summary>
        public Anims FinishRecording(Avatar avatar)
        {
            ulong h;
            Native.Check(NativeMethods.omote_character_finish_recording(Handle, avatar == null ? 0 : avatar.Handle, out h));
            return Anims.Own(h);
        }

        internal static uint Length(Array a)
        {
            return a == null ? 0u : (uint)a.Length;
        }

        /// <summary>The one check the library cannot make: a count within the array
        /// (it reads <paramref name="count"/> numbers from the array's start).</summary>
        internal static void CheckCount(float[] samples, int count)
        {
            Native.Length(samples, "samples");
            if (count < 0 || count > samples.Length)
                throw new ArgumentOutOfRangeException("count", count,
                    "omote: count must be within the array (" + samples.Length + ")");
        }
    }
}
