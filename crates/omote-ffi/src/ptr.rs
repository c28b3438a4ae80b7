//! The boundary's one unsafe module: raw pointers from C become references here, each
//! checked for null (and text for UTF-8) with an error that names the argument. The
//! caller's side of the contract — a non-null pointer points at `len` valid elements
//! for the call's duration — is stated on every function in the header.

use std::ffi::{CStr, c_char};

use crate::status::{FfiError, FfiResult, OmoteStatus};

fn null(what: &str) -> FfiError {
    FfiError::new(OmoteStatus::NullPointer, format!("`{what}` is null"))
}

/// `len` elements at `p`; a null `p` is taken only with `len` 0.
///
/// # Safety
/// A non-null `p` points at `len` initialised `T`s, valid and unaliased by writes for `'a`.
pub(crate) unsafe fn slice<'a, T>(p: *const T, len: u32, what: &str) -> FfiResult<&'a [T]> {
    if p.is_null() {
        return if len == 0 { Ok(&[]) } else { Err(null(what)) };
    }
    // SAFETY: non-null, and the caller promises `len` valid elements.
    Ok(unsafe { std::slice::from_raw_parts(p, len as usize) })
}

/// `len` writable elements at `p`; a null `p` is taken only with `len` 0.
///
/// # Safety
/// A non-null `p` points at `len` `T`s, writable and not otherwise accessed for `'a`.
pub(crate) unsafe fn slice_mut<'a, T>(p: *mut T, len: u32, what: &str) -> FfiResult<&'a mut [T]> {
    if p.is_null() {
        return if len == 0 {
            Ok(&mut [])
        } else {
            Err(null(what))
        };
    }
    // SAFETY: non-null, and the caller promises `len` writable elements.
    Ok(unsafe { std::slice::from_raw_parts_mut(p, len as usize) })
}

/// An optional output: `None` for null.
///
/// # Safety
/// A non-null `p` points at `len` writable `T`s.
pub(crate) unsafe fn optional_mut<'a, T>(p: *mut T, len: u32) -> Option<&'a mut [T]> {
    // SAFETY: as `slice_mut`.
    (!p.is_null()).then(|| unsafe { std::slice::from_raw_parts_mut(p, len as usize) })
}

/// An optional input of exactly `N` elements: `None` for null.
///
/// # Safety
/// A non-null `p` points at `N` initialised `T`s.
pub(crate) unsafe fn optional_array<T: Copy, const N: usize>(p: *const T) -> Option<[T; N]> {
    // SAFETY: non-null, and the caller promises `N` elements.
    (!p.is_null()).then(|| unsafe { *p.cast::<[T; N]>() })
}

/// A NUL-terminated UTF-8 string.
///
/// # Safety
/// A non-null `p` points at a NUL-terminated string valid for `'a`.
pub(crate) unsafe fn text<'a>(p: *const c_char, what: &str) -> FfiResult<&'a str> {
    if p.is_null() {
        return Err(null(what));
    }
    // SAFETY: non-null and NUL-terminated, as the caller promises.
    let c = unsafe { CStr::from_ptr(p) };
    c.to_str()
        .map_err(|e| FfiError::argument(format!("`{what}` is not UTF-8: {e}")))
}

/// A NUL-terminated file path: on Unix any bytes (a file name need not be UTF-8);
/// elsewhere UTF-8, and a path that is not is named as far as it reads.
///
/// # Safety
/// A non-null `p` points at a NUL-terminated string valid for `'a`.
pub(crate) unsafe fn path<'a>(p: *const c_char, what: &str) -> FfiResult<&'a std::path::Path> {
    if p.is_null() {
        return Err(null(what));
    }
    // SAFETY: non-null and NUL-terminated, as the caller promises.
    let c = unsafe { CStr::from_ptr(p) };
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Ok(std::path::Path::new(std::ffi::OsStr::from_bytes(
            c.to_bytes(),
        )))
    }
    #[cfg(not(unix))]
    {
        c.to_str().map(std::path::Path::new).map_err(|_| {
            FfiError::argument(format!(
                "`{what}` is not UTF-8: {}",
                omote_fs::echo(&c.to_string_lossy())
            ))
        })
    }
}

/// An optional NUL-terminated UTF-8 string: `None` for null.
///
/// # Safety
/// A non-null `p` points at a NUL-terminated string valid for `'a`.
pub(crate) unsafe fn optional_text<'a>(p: *const c_char, what: &str) -> FfiResult<Option<&'a str>> {
    if p.is_null() {
        return Ok(None);
    }
    // SAFETY: the caller's promise.
    unsafe { text(p, what) }.map(Some)
}

/// Writes `value` through an out-pointer.
///
/// # Safety
/// A non-null `p` points at a writable `T`.
pub(crate) unsafe fn write<T>(p: *mut T, value: T, what: &str) -> FfiResult {
    if p.is_null() {
        return Err(null(what));
    }
    // SAFETY: non-null and writable, as the caller promises.
    unsafe { p.write(value) };
    Ok(())
}

/// Checks an out-pointer before any work, so a call that would fail to report its result
/// does nothing.
pub(crate) fn check_out<T>(p: *mut T, what: &str) -> FfiResult {
    if p.is_null() { Err(null(what)) } else { Ok(()) }
}

/// Copies `s` as NUL-terminated UTF-8 into `buf` (`cap` bytes) and its length without
/// the NUL into `len` (also when `buf` is too small, so the caller can retry).
///
/// # Safety
/// `buf` (when `cap` > 0) points at `cap` writable bytes; `len` at a writable `u32`.
pub(crate) unsafe fn write_text(s: &str, buf: *mut c_char, cap: u32, len: *mut u32) -> FfiResult {
    check_out(len, "len")?;
    // SAFETY: the caller's promise on `len`.
    unsafe { write(len, s.len() as u32, "len")? };
    if (cap as usize) < s.len() + 1 {
        return Err(FfiError::new(
            OmoteStatus::BufferTooSmall,
            format!("the buffer holds {cap} bytes; {} are needed", s.len() + 1),
        ));
    }
    // SAFETY: the caller's promise on `buf`.
    let out = unsafe { slice_mut(buf.cast::<u8>(), cap, "buf")? };
    out[..s.len()].copy_from_slice(s.as_bytes());
    out[s.len()] = 0;
    Ok(())
}

/// A C flag: 0 or 1; anything else is refused by name (a caller passing 7 meant
/// something the call does not do).
pub(crate) fn flag(value: u32, what: &str) -> FfiResult<bool> {
    match value {
        0 => Ok(false),
        1 => Ok(true),
        v => Err(FfiError::argument(format!("`{what}` is {v}: 0 or 1"))),
    }
}
