using System;

namespace Omote
{
    /// <summary>
    /// A native object held by its handle: <see cref="Avatar"/>, <see cref="Character"/>,
    /// <see cref="Track"/>, <see cref="Speaker"/>, <see cref="VoiceStream"/> (and a Scene
    /// later, on the same base). <see cref="Dispose"/> frees it; a second Dispose does
    /// nothing; any other call after Dispose throws <see cref="ObjectDisposedException"/>.
    /// A forgotten object is freed by its finalizer.
    /// </summary>
    /// <remarks>
    /// <para><b>Why not a SafeHandle.</b> omote's handles are 64-bit ids (a kind, a
    /// generation and a slot), not pointers. <c>SafeHandle</c> stores an <c>IntPtr</c>,
    /// which is 32 bits on 32-bit players (Android armv7, old Windows x86, WebGL): the id
    /// would be cut and no longer name its object. What SafeHandle guards against —
    /// handle recycling races and a leak when an exception hits between the native call
    /// and the wrapper — matters for OS handles and raw pointers, where a stale value is
    /// undefined behaviour. Here a stale id is harmless by design: the library answers it
    /// with <c>OMOTE_STATUS_INVALID_HANDLE</c>, and a freed slot's generation changes, so
    /// an id is never recycled onto another object. So the wrapper keeps the <c>ulong</c>
    /// and a plain finalizer.</para>
    /// <para><b>Threads.</b> An object is used by one thread at a time (the library
    /// serialises a broken rule rather than racing, but the order of calls is then
    /// undefined). Different objects may be used on different threads in parallel. The
    /// finalizer runs only when no thread can reach the object any more, so freeing there
    /// is safe; the library's handle tables are thread-safe.</para>
    /// </remarks>
    public abstract class NativeObject : IDisposable
    {
        ulong handle;

        /// <summary>Takes ownership of <paramref name="handle"/> (never 0).</summary>
        protected NativeObject(ulong handle)
        {
            this.handle = handle;
        }

        /// <summary>The native handle, for <see cref="NativeMethods"/> calls.</summary>
        /// <exception cref="ObjectDisposedException">After <see cref="Dispose"/>.</exception>
        public ulong Handle
        {
            get
            {
                if (handle == 0) throw new ObjectDisposedException(GetType().Name);
                return handle;
            }
        }

        /// <summary>Throws <see cref="ObjectDisposedException"/> after <see cref="Dispose"/>.</summary>
        protected void ThrowIfDisposed()
        {
            if (handle == 0) throw new ObjectDisposedException(GetType().Name);
        }

        /// <summary>Whether <see cref="Dispose"/> has run.</summary>
        public bool IsDisposed { get { return handle == 0; } }

        /// <summary>Frees the native object (its kind's <c>omote_*_free</c>).</summary>
        protected abstract OmoteStatus Free(ulong handle);

        /// <summary>Frees the native object now. Safe to call twice.</summary>
        public void Dispose()
        {
            ulong h = handle;
            if (h == 0) return;
            handle = 0;
            GC.SuppressFinalize(this);
            Native.Check(Free(h));
        }

        /// <summary>Frees the native object if <see cref="Dispose"/> was forgotten (never throws).</summary>
        ~NativeObject()
        {
            ulong h = handle;
            handle = 0;
            if (h != 0)
            {
                try { Free(h); }
                catch (Exception) { /* the library is gone at shutdown: nothing to free */ }
            }
        }
    }
}
