using System;
using System.Runtime.InteropServices;
using System.Text;

namespace Omote
{
    /// <summary>
    /// A native call that failed: its <see cref="Status"/> and the library's message,
    /// which names the call and what was wrong
    /// (<c>omote_character_set_expression_named: the avatar has no expression `smile`</c>).
    /// The call changed nothing.
    /// </summary>
    [Serializable]
    public sealed class OmoteException : Exception
    {
        /// <summary>The call's status (never <see cref="OmoteStatus.Ok"/>).</summary>
        public OmoteStatus Status { get; private set; }

        /// <summary>The native message, as <c>omote_last_error</c> gave it.</summary>
        public string NativeMessage { get; private set; }

        /// <summary>An exception for <paramref name="status"/> with the native message.</summary>
        public OmoteException(OmoteStatus status, string nativeMessage)
            : base(nativeMessage.Length > 0 ? nativeMessage : "omote: " + status)
        {
            Status = status;
            NativeMessage = nativeMessage;
        }
    }

    /// <summary>UTF-8 text across the boundary, marshalled by hand (no marshaller
    /// differences between Mono, IL2CPP and .NET).</summary>
    public static class Utf8
    {
        /// <summary><paramref name="text"/> as NUL-terminated UTF-8; null stays null
        /// (the library answers a null pointer with a status). Text holding a NUL throws:
        /// C would read only what comes before it, and the rest would be lost without a
        /// word.</summary>
        public static byte[] Encode(string text)
        {
            if (text == null) return null;
            int nul = text.IndexOf('\0');
            if (nul >= 0)
                throw new ArgumentException(string.Format("the text holds a NUL character at {0}: the library would read only what comes before it", nul), "text");
            int n = Encoding.UTF8.GetByteCount(text);
            var bytes = new byte[n + 1];
            Encoding.UTF8.GetBytes(text, 0, text.Length, bytes, 0);
            return bytes;
        }

        /// <summary>The NUL-terminated UTF-8 string at <paramref name="p"/> (empty for null).</summary>
        public static string Decode(IntPtr p)
        {
            if (p == IntPtr.Zero) return "";
            int n = 0;
            while (Marshal.ReadByte(p, n) != 0) n++;
            var bytes = new byte[n];
            Marshal.Copy(p, bytes, 0, n);
            return Encoding.UTF8.GetString(bytes);
        }
    }

    /// <summary>Turns statuses into exceptions.</summary>
    public static class Native
    {
        /// <summary>The message of the last failed call on this thread.</summary>
        public static string LastError()
        {
            return Utf8.Decode(NativeMethods.omote_last_error());
        }

        /// <summary>An index or count from C# as the library takes it; a negative one
        /// throws (it would reach the library as a number near 4.3 billion).</summary>
        public static uint Index(int value, string name)
        {
            if (value < 0)
                throw new ArgumentOutOfRangeException(name, value, "omote: " + name + " is " + value + "; it is 0 or more");
            return (uint)value;
        }

        /// <summary>The length of an array the call needs; null throws (as an empty
        /// array it would reach the library as no data at all, and a call such as
        /// <c>Hear</c> would quietly do nothing).</summary>
        public static uint Length(Array array, string name)
        {
            if (array == null) throw new ArgumentNullException(name, "omote: " + name + " is null");
            return (uint)array.Length;
        }

        /// <summary>Throws an <see cref="OmoteException"/> for any status but OK. Reads
        /// the message on the thread that made the call (messages are per thread).</summary>
        public static void Check(OmoteStatus status)
        {
            if (status != OmoteStatus.Ok) throw new OmoteException(status, LastError());
        }
    }
}
