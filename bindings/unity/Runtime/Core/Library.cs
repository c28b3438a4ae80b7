using System;

namespace Omote
{
    /// <summary>The library as a whole: versions, the ARKit names, live object counts.</summary>
    public static class Library
    {
        static volatile bool abiChecked;
        static string[] arkitNames;

        /// <summary>The native library's ABI version.</summary>
        public static uint AbiVersion
        {
            get
            {
                try { return NativeMethods.omote_abi_version(); }
                catch (DllNotFoundException e) { throw NotFound(e); }
            }
        }

        /// <summary>The native library's version, <c>major.minor.patch</c>.</summary>
        public static string Version
        {
            get
            {
                try { return Utf8.Decode(NativeMethods.omote_version()); }
                catch (DllNotFoundException e) { throw NotFound(e); }
            }
        }

        /// <summary>The runtime's own message names neither the file nor where it looked.</summary>
        static DllNotFoundException NotFound(DllNotFoundException e)
        {
            return new DllNotFoundException(
                "omote: the native library omote_ffi (libomote_ffi.so, omote_ffi.dll or libomote_ffi.dylib) "
                + "was not found: put it next to the program or on the library path (LD_LIBRARY_PATH; "
                + "Unity: Assets/Plugins), built with `cargo build --release -p omote-ffi`", e);
        }

        /// <summary>The native library's additions within its ABI version (0 for a
        /// library older than the count).</summary>
        public static uint AbiMinor
        {
            get
            {
                try { return NativeMethods.omote_abi_minor(); }
                catch (EntryPointNotFoundException) { return 0; }
            }
        }

        /// <summary>
        /// Throws when the native library cannot serve this binding: built for another ABI,
        /// or older than the functions the scripts call (a stale plug-in next to new
        /// scripts, which would otherwise fail at the first new call), or not found at all
        /// (a <see cref="DllNotFoundException"/> saying where it belongs). Every factory
        /// calls it once.
        /// </summary>
        public static void CheckAbi()
        {
            if (abiChecked) return;
            uint abi;
            try { abi = NativeMethods.omote_abi_version(); }
            catch (DllNotFoundException e) { throw NotFound(e); }
            string why = AbiMismatch(abi, abi == NativeMethods.AbiVersion ? AbiMinor : 0);
            if (why != null) throw new InvalidOperationException(why);
            abiChecked = true;
        }

        /// <summary>Why a library of ABI <paramref name="version"/>.<paramref name="minor"/>
        /// cannot serve these scripts, or null when it can (the same version, and at least
        /// their additions).</summary>
        public static string AbiMismatch(uint version, uint minor)
        {
            if (version != NativeMethods.AbiVersion)
                return string.Format(
                    "omote: the native library's ABI is {0}, these scripts' {1}: rebuild or replace the plug-in",
                    version, NativeMethods.AbiVersion);
            if (minor < NativeMethods.AbiMinor)
                return string.Format(
                    "omote: the native library (ABI {0}.{1}) is older than these scripts (ABI {0}.{2}): rebuild or replace the plug-in",
                    version, minor, NativeMethods.AbiMinor);
            return null;
        }

        /// <summary>The 52 ARKit blendshape names in the order
        /// <see cref="Character.SetTracked(float[])"/> reads scores (the same array every time).</summary>
        public static string[] ArkitNames
        {
            get
            {
                if (arkitNames == null)
                {
                    CheckAbi();
                    var names = new string[NativeMethods.ArkitCount];
                    for (int i = 0; i < names.Length; i++)
                        names[i] = Utf8.Decode(NativeMethods.omote_arkit_name((uint)i));
                    arkitNames = names;
                }
                return arkitNames;
            }
        }

        /// <summary>ARKit blendshape <paramref name="name"/>'s index in <see cref="ArkitNames"/>,
        /// in any spelling trackers and avatars use (<c>jawOpen</c>, <c>JawOpen</c>,
        /// <c>eyeBlink_L</c>), or -1 (not ARKit's, like MediaPipe's <c>_neutral</c>, or null):
        /// map a tracker's names once, then fill the 52 scores of
        /// <see cref="Character.SetTracked(float[])"/> every frame without allocating.</summary>
        public static int ArkitIndex(string name)
        {
            if (name == null) return -1;
            CheckAbi();
            return NativeMethods.omote_arkit_index(Utf8.Encode(name));
        }

        /// <summary>How many native objects of each kind are alive: avatars, characters,
        /// tracks, speakers, voice streams, scenes, anims, voice files (for leak checks).</summary>
        public static uint[] LiveObjects()
        {
            CheckAbi();
            var counts = new uint[8];
            Native.Check(NativeMethods.omote_live_objects(counts, (uint)counts.Length));
            return counts;
        }
    }
}
