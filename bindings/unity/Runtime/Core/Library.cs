using System;

namespace Omote
{
    /// <summary>The library as a whole: versions, the ARKit names, live object counts.</summary>
    public static class Library
    {
        static volatile bool abiChecked;
        static string[] arkitNames;

        /// <summary>The native library's ABI version.</summary>
        public static uint AbiVersion { get { return NativeMethods.omote_abi_version(); } }

        /// <summary>The native library's version, <c>major.minor.patch</c>.</summary>
        public static string Version { get { return Utf8.Decode(NativeMethods.omote_version()); } }

        /// <summary>
        /// Throws when the native library was built for another ABI than this binding
        /// (a stale plug-in next to new scripts). Every factory calls it once.
        /// </summary>
        public static void CheckAbi()
        {
            if (abiChecked) return;
            uint abi = NativeMethods.omote_abi_version();
            if (abi != NativeMethods.AbiVersion)
                throw new InvalidOperationException(string.Format(
                    "omote: the native library's ABI is {0}, these scripts' {1}: rebuild or replace the plug-in",
                    abi, NativeMethods.AbiVersion));
            abiChecked = true;
        }

        /// <summary>The 52 ARKit blendshape names in the order
        /// <see cref="Character.SetTracked"/> reads scores (the same array every time).</summary>
        public static string[] ArkitNames
        {
            get
            {
                if (arkitNames == null)
                {
                    var names = new string[NativeMethods.ArkitCount];
                    for (int i = 0; i < names.Length; i++)
                        names[i] = Utf8.Decode(NativeMethods.omote_arkit_name((uint)i));
                    arkitNames = names;
                }
                return arkitNames;
            }
        }

        /// <summary>ARKit name <paramref name="name"/>'s index, or -1.</summary>
        public static int ArkitIndex(string name)
        {
            return Array.IndexOf(ArkitNames, name);
        }

        /// <summary>How many native objects of each kind are alive: avatars, characters,
        /// tracks, speakers, voice streams, scenes, anims (for leak checks).</summary>
        public static uint[] LiveObjects()
        {
            var counts = new uint[7];
            Native.Check(NativeMethods.omote_live_objects(counts, (uint)counts.Length));
            return counts;
        }
    }
}
