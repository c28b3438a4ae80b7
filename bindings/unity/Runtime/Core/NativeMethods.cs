// The C ABI of include/omote.h, one declaration per function, as P/Invoke.
//
// Written by hand against the header (crates/omote-ffi/tests/header.rs keeps the header
// true to the library; bindings/csharp/tests check these declarations by calling every
// one of them). Types are the header's, exactly:
//   uint64_t handles      -> ulong
//   uint32_t              -> uint
//   float / double        -> float / double
//   OmoteStatus (int32_t) -> OmoteStatus (an int enum)
//   const float* in       -> float[] (a null array is a null pointer)
//   float* out            -> [Out] float[] (blittable: pinned, written in place, no copy)
//   T* out (one value)    -> out T / ref T
//   const char* in        -> byte[] holding NUL-terminated UTF-8 (see Utf8.Encode)
//   const char* returned  -> IntPtr (static or per-thread memory owned by the library)
// No size_t anywhere in the ABI, so nothing here depends on the pointer width.
//
// Scenes (omote_scene_*, omote_anims_*) are the last block, wrapped by Scene and Anims.

using System;
using System.Runtime.InteropServices;

namespace Omote
{
    /// <summary>What a native call did (<c>OmoteStatus</c> in omote.h).</summary>
    public enum OmoteStatus
    {
        /// <summary>It worked.</summary>
        Ok = 0,
        /// <summary>A pointer the call needs was null.</summary>
        NullPointer = 1,
        /// <summary>NaN, a wrong length, a value out of range, text that is not UTF-8.</summary>
        InvalidArgument = 2,
        /// <summary>A handle that is 0, freed already, of another kind, or not from omote.</summary>
        InvalidHandle = 3,
        /// <summary>A name the avatar does not have, or a file that is not there.</summary>
        NotFound = 4,
        /// <summary>A file or buffer that could not be read as a VRM or rig.</summary>
        LoadFailed = 5,
        /// <summary>An output buffer is too small.</summary>
        BufferTooSmall = 6,
        /// <summary>A fault inside omote (a bug).</summary>
        Internal = 7,
    }

    /// <summary>An expression channel and a weight (<c>OmoteWeight</c>): an afterglow entry.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct OmoteWeight
    {
        /// <summary>The channel's id (its index in the avatar's channels).</summary>
        public uint Channel;
        /// <summary>Its weight, 0–1.</summary>
        public float Weight;

        /// <summary>An entry for channel <paramref name="channel"/>.</summary>
        public OmoteWeight(int channel, float weight)
        {
            Channel = Native.Index(channel, "channel");
            Weight = weight;
        }
    }

    /// <summary>What happened in a character's last update (<c>OmoteFrameEvents</c>).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct FrameEvents
    {
        /// <summary>Blinks that started (0 or 1, rarely more).</summary>
        public uint Blinks;
        /// <summary>Saccades that started.</summary>
        public uint Saccades;
        /// <summary>1 if a voice line's voice started (the mouth opened with it).</summary>
        public uint VoiceStarted;
        /// <summary>1 if a voice line handed the mouth over to the acting.</summary>
        public uint HandedOver;
    }

    /// <summary>One event of a scene's last update (<c>OmoteSceneEvent</c>). Times are the
    /// scene's wall time in seconds.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct SceneEvent
    {
        /// <summary>0 a voice line started (play its audio from <see cref="T"/>), 1 a line
        /// was cut, 2 an expression key started, 3 a wait, 4 the player advanced, 5 skipped.</summary>
        public uint Kind;
        /// <summary>The character's index (voice, cut, expression); -1 for the scene's own events.</summary>
        public int Character;
        /// <summary>Voice and cut: the line (<see cref="Scene.LineClip"/>); expression: the channel id.</summary>
        public int Index;
        /// <summary>Expression: the weight it moves to.</summary>
        public float Weight;
        /// <summary>Expression: 1 for a picture key (additive), 0 for acting.</summary>
        public uint Picture;
        /// <summary>Expression: 1 if it changes the eye area.</summary>
        public uint EyeArea;
        /// <summary>Voice: 1 if the line has voice.</summary>
        public uint Voiced;
        /// <summary>When it happened.</summary>
        public double T;
        /// <summary>Voice: when its voice starts.</summary>
        public double VoicedStart;
        /// <summary>Voice: when its voice ends.</summary>
        public double VoicedEnd;
        /// <summary>Skip: the timeline time before the jump.</summary>
        public float From;
        /// <summary>Skip: the timeline time after the jump.</summary>
        public float To;

        /// <summary>A voice line started.</summary>
        public const uint Voice = 0;
        /// <summary>A line was cut.</summary>
        public const uint Cut = 1;
        /// <summary>An expression key started.</summary>
        public const uint Expression = 2;
        /// <summary>The timeline reached a wait.</summary>
        public const uint Wait = 3;
        /// <summary>The player advanced.</summary>
        public const uint Advance = 4;
        /// <summary>The player skipped.</summary>
        public const uint Skip = 5;
    }

    /// <summary>A host's resolver for a scene's files (<c>OmoteReadFile</c>): with
    /// <paramref name="sink"/> zero it answers whether <paramref name="path"/> exists,
    /// otherwise it writes the bytes with <c>omote_file_sink_write</c>; 0 when found.</summary>
    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    public delegate int ReadFileCallback(IntPtr user, IntPtr path, IntPtr sink);

    /// <summary>
    /// The raw C functions. Every one returns a status (or a plain value) and never
    /// throws; the wrappers (<see cref="Avatar"/>, <see cref="Character"/>, …) turn
    /// statuses into <see cref="OmoteException"/>s. Use these only for what the wrappers
    /// do not offer.
    /// </summary>
    public static class NativeMethods
    {
#if UNITY_IOS && !UNITY_EDITOR
        /// <summary>iOS links the static library into the player: its symbols are internal.</summary>
        public const string Lib = "__Internal";
#else
        /// <summary>The native library's name: libomote_ffi.so / .dylib, omote_ffi.dll.</summary>
        public const string Lib = "omote_ffi";
#endif
        const CallingConvention Cdecl = CallingConvention.Cdecl;

        /// <summary>The ABI version this binding was written against (<c>OMOTE_ABI_VERSION</c>).</summary>
        public const uint AbiVersion = 1;
        /// <summary>The additions within it this binding calls (<c>OMOTE_ABI_MINOR</c>): a
        /// library with fewer lacks some of its functions.</summary>
        public const uint AbiMinor = 6;
        /// <summary>ARKit blendshapes in a tracked face (<c>OMOTE_ARKIT_COUNT</c>).</summary>
        public const int ArkitCount = 52;
        /// <summary>Numbers per track frame: A I U E O N (<c>OMOTE_TRACK_STRIDE</c>).</summary>
        public const int TrackStride = 6;
        /// <summary>Numbers per voice stream frame: A I U E O N, volume, voiced (<c>OMOTE_STREAM_STRIDE</c>).</summary>
        public const int StreamStride = 8;
        /// <summary>Numbers in a speaker's voice seed (<c>OMOTE_VOICE_SEED_LEN</c>).</summary>
        public const int VoiceSeedLength = 13;

        // Each function below is the C ABI's own, documented in include/omote.h; the classes
        // of this namespace are the documented C# face.
#pragma warning disable 1591

        // ---- library ----
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern uint omote_abi_version();
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern uint omote_abi_minor();
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern IntPtr omote_version();
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern IntPtr omote_arkit_name(uint index);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern int omote_arkit_index(byte[] name);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_live_objects([Out] uint[] @out, uint count);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern IntPtr omote_last_error();
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern uint omote_last_error_length();

        // ---- avatars ----
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_avatar_load(byte[] path, out ulong @out);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_avatar_from_vrm(byte[] bytes, uint len, byte[] name, out ulong @out);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_avatar_from_rig_json(byte[] json, out ulong @out);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_avatar_builtin(uint which, out ulong @out);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_avatar_free(ulong avatar);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_avatar_channel_count(ulong avatar, out uint @out);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_avatar_channel_name(ulong avatar, uint id, [Out] byte[] buf, uint cap, out uint len);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_avatar_channel_id(ulong avatar, byte[] name, out uint @out);

        // ---- characters ----
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_new(ulong avatar, ulong seed, out ulong @out);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_free(ulong character);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_channel_count(ulong character, out uint @out);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_channel_id(ulong character, byte[] name, out uint @out);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_set_expression(ulong character, uint id, float weight);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_set_expression_named(ulong character, byte[] name, float weight);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_set_picture(ulong character, uint id, float weight);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_set_gaze(ulong character, float yawDeg, float pitchDeg);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_set_gaze_target(ulong character, float x, float y, float z);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_set_head(ulong character, float x, float y, float z, float w);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_set_eye_mode(ulong character, uint mode);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_request_blink(ulong character, float delaySeconds);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_announce_eye_change(ulong character, float inSeconds);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_enable_tracking(ulong character);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_enable_tracking_with(ulong character, byte[] settingsJson);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_calibrate_tracking(ulong character, float seconds);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_set_tracked(ulong character, float[] scores, uint count, float[] head);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_fade_expression(ulong character, uint id, float weight, float seconds);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_set_tracked_named(ulong character, IntPtr[] names, float[] scores, uint count, float[] headRowMajor);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_set_tracking_lost(ulong character);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_enable_camera(ulong character, byte[] motionMapToml);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_set_camera(ulong character, float[] position);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_say(ulong character, ulong track, OmoteWeight[] afterglow, uint afterglowCount);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_say_at(ulong character, ulong track, OmoteWeight[] afterglow, uint afterglowCount, float elapsedSeconds);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_cut(ulong character);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_set_afterglow_timing(ulong character, float holdS, float releaseS);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_clear_afterglow(ulong character, float releaseS);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_is_speaking(ulong character, out uint @out);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_set_live_vowels(ulong character, float[] vowels, uint count, uint voiced);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_hear(ulong character, ulong stream, float[] samples, uint count);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_update(ulong character, float dt);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_weights(ulong character, [Out] float[] @out, uint count);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_input_weights(ulong character, [Out] float[] @out, uint count);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_rotations(ulong character, [Out] float[] @out, uint count);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_gaze(ulong character, out float yawDeg, out float pitchDeg);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_events(ulong character, out FrameEvents @out);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_step(ulong character, float dt, [Out] float[] weights, [Out] float[] inputWeights, uint count, [Out] float[] rotations, ref FrameEvents events);
        /// <summary><c>omote_character_step</c> with pointers to memory the caller pinned
        /// (<see cref="Character"/> pins its output arrays once: Mono's array marshalling
        /// costs about as much as the update itself).</summary>
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_step(ulong character, float dt, IntPtr weights, IntPtr inputWeights, uint count, IntPtr rotations, IntPtr events);

        // ---- lip sync: tracks, speakers, voice streams ----
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_analyse_voice(float[] samples, uint count, double sampleRate, out ulong @out);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_track_from_frames(float[] frames, uint count, float fps, uint hasVoiced, double voicedStartS, double voicedEndS, out ulong @out);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_track_free(ulong track);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_track_info(ulong track, out uint frames, out float fps, out uint hasVoiced, out double voicedStartS, out double voicedEndS);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_track_frames(ulong track, [Out] float[] @out, uint count);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_speaker_new(out ulong @out);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_speaker_free(ulong speaker);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_speaker_add_line(ulong speaker, float[] samples, uint count, double sampleRate);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_speaker_analyse(ulong speaker, float[] samples, uint count, double sampleRate, out ulong @out);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_speaker_voice_seed(ulong speaker, [Out] float[] @out, uint count);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_voice_stream_new(double sampleRate, uint hold, out ulong @out);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_voice_stream_free(ulong stream);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_voice_stream_start_from_speaker(ulong stream, ulong speaker);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_voice_stream_latency(ulong stream, out double @out);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_voice_stream_push(ulong stream, float[] samples, uint count, [Out] float[] frames, uint capacity, out uint framesWritten);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_calibrate_voice_from_card(float[] samples, uint count, double sampleRate, byte[] card, byte[] baseProfile, [Out] byte[] buf, uint cap, out uint len);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_builtin_voice_profile([Out] byte[] buf, uint cap, out uint len);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_analyse_voice_with_profile(float[] samples, uint count, double sampleRate, byte[] profile, out ulong @out);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_speaker_analyse_with_profile(ulong speaker, float[] samples, uint count, double sampleRate, byte[] profile, out ulong @out);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_voice_stream_new_with_profile(double sampleRate, uint hold, byte[] profile, out ulong @out);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_voice_file_load(byte[] path, out ulong @out);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_voice_file_free(ulong file);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_voice_file_info(ulong file, out uint samples, out double sampleRate, out uint hasWarning);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_voice_file_samples(ulong file, [Out] float[] @out, uint count);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_voice_file_warning(ulong file, [Out] byte[] buf, uint cap, out uint len);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_analyse_voice_file(byte[] path, ulong speaker, byte[] profile, out ulong @out);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_track_warning(ulong track, [Out] byte[] buf, uint cap, out uint len);

        // ---- scenes and anims ----
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_file_sink_write(IntPtr sink, byte[] bytes, uint len);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_scene_load(byte[] path, out ulong @out);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_scene_from_text(byte[] text, byte[] name, ReadFileCallback read, IntPtr user, out ulong @out);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_scene_free(ulong scene);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_scene_set_auto_advance(ulong scene, uint on);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_scene_update(ulong scene, float dt);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_scene_advance(ulong scene);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_scene_skip(ulong scene);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_scene_set_expression(ulong scene, uint i, byte[] name, float weight);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_scene_set_camera(ulong scene, float[] position);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_scene_camera_position(ulong scene, [Out] float[] position, out uint has);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_scene_set_gaze(ulong scene, uint i, byte[] at);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_scene_set_gaze_point(ulong scene, uint i, float[] point);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_scene_set_eye_mode(ulong scene, uint i, byte[] mode);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_scene_set_placement(ulong scene, uint i, float[] position, float facingDeg);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_scene_fade_expression(ulong scene, uint i, byte[] name, float weight, float seconds);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_scene_info(ulong scene, out double timeS, out float timelineS, out uint waiting, out uint finished);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_scene_character_count(ulong scene, out uint @out);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_scene_character_id(ulong scene, uint i, [Out] byte[] buf, uint cap, out uint len);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_scene_warning_count(ulong scene, out uint @out);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_scene_warning(ulong scene, uint k, [Out] byte[] buf, uint cap, out uint len);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_scene_channel_count(ulong scene, uint i, out uint @out);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_scene_channel_name(ulong scene, uint i, uint id, [Out] byte[] buf, uint cap, out uint len);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_scene_line_clip(ulong scene, uint i, uint line, [Out] byte[] buf, uint cap, out uint len);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_scene_weights(ulong scene, uint i, [Out] float[] @out, uint count);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_scene_input_weights(ulong scene, uint i, [Out] float[] @out, uint count);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_scene_rotations(ulong scene, uint i, [Out] float[] @out, uint count);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_scene_gaze(ulong scene, uint i, out float yawDeg, out float pitchDeg);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_scene_events(ulong scene, [Out] SceneEvent[] @out, uint capacity, out uint count);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_scene_bake(ulong scene, float fps, double[] advances, uint advanceCount, double[] skips, uint skipCount, out ulong @out);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_scene_record(ulong scene, float fps);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_scene_finish_recording(ulong scene, out ulong @out);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_record(ulong character, float fps);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_character_finish_recording(ulong character, ulong avatar, out ulong @out);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_anims_free(ulong anims);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_anims_count(ulong anims, out uint @out);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_anims_id(ulong anims, uint i, [Out] byte[] buf, uint cap, out uint len);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_anims_json(ulong anims, uint i, [Out] byte[] buf, uint cap, out uint len);
        [DllImport(Lib, CallingConvention = Cdecl)] public static extern OmoteStatus omote_anims_vrma(ulong anims, uint i, [Out] byte[] buf, uint cap, out uint len);
    }
}
