using System;
using System.Collections.Generic;
using System.Text;

namespace Omote
{
    /// <summary>
    /// An avatar: a rig (its expression channels) and, for a VRM, its model. Characters
    /// are made from it; it may be disposed once they are (they keep their rig).
    /// </summary>
    public sealed class Avatar : NativeObject
    {
        string[] channelNames;
        Dictionary<string, int> channelIds;

        Avatar(ulong handle) : base(handle) { }

        /// <summary>Built-in avatar <paramref name="which"/>: 0 the generated test avatar
        /// (a VRM), 1 the same in its second style, 2 the standard rig (18 presets +
        /// ARKit-52, no model).</summary>
        public static Avatar Builtin(int which)
        {
            Library.CheckAbi();
            ulong h;
            Native.Check(NativeMethods.omote_avatar_builtin(Native.Index(which, "which"), out h));
            return new Avatar(h);
        }

        /// <summary>An avatar from a file: <c>.vrm</c> (VRM 0.x or 1.0) or a rig file (TOML or JSON).</summary>
        public static Avatar Load(string path)
        {
            Library.CheckAbi();
            ulong h;
            Native.Check(NativeMethods.omote_avatar_load(Utf8.Encode(path), out h));
            return new Avatar(h);
        }

        /// <summary>An avatar from a VRM's bytes (0.x or 1.0), as an engine has them
        /// (a TextAsset's bytes, a download); <paramref name="name"/> stands for it in messages.</summary>
        public static Avatar FromVrm(byte[] bytes, string name = null)
        {
            Library.CheckAbi();
            ulong h;
            Native.Check(NativeMethods.omote_avatar_from_vrm(
                bytes, Native.Length(bytes, "bytes"), Utf8.Encode(name), out h));
            return new Avatar(h);
        }

        /// <summary>An avatar from a rig description as JSON (<c>{"presets": true}</c> is
        /// the 18 VRM presets).</summary>
        public static Avatar FromRigJson(string json)
        {
            Library.CheckAbi();
            ulong h;
            Native.Check(NativeMethods.omote_avatar_from_rig_json(Utf8.Encode(json), out h));
            return new Avatar(h);
        }

        /// <inheritdoc/>
        protected override OmoteStatus Free(ulong handle)
        {
            return NativeMethods.omote_avatar_free(handle);
        }

        /// <summary>The number of expression channels (the length of every weight array).</summary>
        public int ChannelCount { get { return ChannelNames.Length; } }

        /// <summary>The channels' names by id, read once and cached (the same array every time;
        /// do not change it).</summary>
        public string[] ChannelNames
        {
            get
            {
                ThrowIfDisposed();
                if (channelNames == null) ReadNames();
                return channelNames;
            }
        }

        void ReadNames()
        {
            ulong h = Handle;
            uint n;
            Native.Check(NativeMethods.omote_avatar_channel_count(h, out n));
            var names = new string[n];
            var buf = new byte[64];
            for (uint id = 0; id < n; id++)
            {
                uint len;
                var status = NativeMethods.omote_avatar_channel_name(h, id, buf, (uint)buf.Length, out len);
                if (status == OmoteStatus.BufferTooSmall)
                {
                    buf = new byte[len + 1];
                    status = NativeMethods.omote_avatar_channel_name(h, id, buf, (uint)buf.Length, out len);
                }
                Native.Check(status);
                names[id] = Encoding.UTF8.GetString(buf, 0, (int)len);
            }
            var ids = new Dictionary<string, int>((int)n, StringComparer.Ordinal);
            for (int i = 0; i < names.Length; i++) ids[names[i]] = i;
            channelNames = names;
            channelIds = ids;
        }

        /// <summary>Channel <paramref name="name"/>'s id; an <see cref="OmoteException"/>
        /// (<see cref="OmoteStatus.NotFound"/>, the library's message) when there is none.</summary>
        public int ChannelId(string name)
        {
            int id;
            if (TryChannelId(name, out id)) return id;
            uint raw;
            Native.Check(NativeMethods.omote_avatar_channel_id(Handle, Utf8.Encode(name), out raw));
            return (int)raw;
        }

        /// <summary>Channel <paramref name="name"/>'s id, or false (no allocation).</summary>
        public bool TryChannelId(string name, out int id)
        {
            ThrowIfDisposed();
            if (channelIds == null) ReadNames();
            id = -1;
            return name != null && channelIds.TryGetValue(name, out id);
        }
    }
}
