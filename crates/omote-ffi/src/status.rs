//! Every call's status, the message of the last failure on each thread, and the guard
//! that turns a call's `Result` (or a panic) into both.

use std::cell::RefCell;
use std::ffi::{CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};

use omote_embed::EmbedError;

/// What a call did. `OMOTE_STATUS_OK` is 0; anything else failed, changed nothing, and
/// left a message for [`omote_last_error`].
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OmoteStatus {
    /// It worked.
    Ok = 0,
    /// A pointer the call needs was null.
    NullPointer = 1,
    /// An argument is not what the call takes: NaN, a wrong length, a value out of its
    /// range, text that is not UTF-8.
    InvalidArgument = 2,
    /// A handle that is 0, freed already, of another kind, or not from this library.
    InvalidHandle = 3,
    /// A name the avatar or scene does not have, or a file that is not there.
    NotFound = 4,
    /// A file or buffer could not be read as what it should be (a VRM, a rig, a scene).
    LoadFailed = 5,
    /// An output buffer is too small; the length it needs was written.
    BufferTooSmall = 6,
    /// A fault inside omote (a bug); the handle it happened on may be unusable.
    Internal = 7,
}

/// A failed call: its status and its message.
#[derive(Debug)]
pub(crate) struct FfiError {
    pub status: OmoteStatus,
    pub message: String,
}

impl FfiError {
    pub fn new(status: OmoteStatus, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
        }
    }

    pub fn argument(message: impl Into<String>) -> Self {
        Self::new(OmoteStatus::InvalidArgument, message)
    }
}

impl FfiError {
    /// A file or buffer that could not be loaded: a missing file is `NotFound`, any
    /// other failure `LoadFailed` (avatars, scenes, voice files alike).
    pub fn loading(e: impl Into<EmbedError>) -> Self {
        let mut e = Self::from(e.into());
        if e.status != OmoteStatus::NotFound {
            e.status = OmoteStatus::LoadFailed;
        }
        e
    }
}

impl From<EmbedError> for FfiError {
    fn from(e: EmbedError) -> Self {
        let status = match e {
            EmbedError::UnknownExpression(_) | EmbedError::FileNotFound(_) => OmoteStatus::NotFound,
            EmbedError::Rig(_) | EmbedError::NoExpressions(_) | EmbedError::Avatar(_) => {
                OmoteStatus::LoadFailed
            }
            _ => OmoteStatus::InvalidArgument,
        };
        Self::new(status, e.to_string())
    }
}

pub(crate) type FfiResult<T = ()> = Result<T, FfiError>;

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last_error(message: &str) {
    // A message never holds NUL (ours don't; a file name could): cut there.
    let text = message.split('\0').next().unwrap_or_default();
    let c = CString::new(text).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
}

/// Runs one C call: `Ok` → [`OmoteStatus::Ok`]; an error → its status, its message kept
/// for [`omote_last_error`] prefixed with the call's name; a panic → `Internal`, never
/// unwinding into the caller.
pub(crate) fn guard(call: &str, body: impl FnOnce() -> FfiResult) -> OmoteStatus {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => OmoteStatus::Ok,
        Ok(Err(e)) => {
            set_last_error(&format!("{call}: {}", e.message));
            e.status
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown fault".into());
            set_last_error(&format!("{call}: internal error (a bug in omote): {what}"));
            OmoteStatus::Internal
        }
    }
}

/// The message of the last call on this thread that failed: UTF-8, NUL-terminated,
/// naming the call and what was wrong (`omote_character_set_expression: the avatar has
/// no expression `smile``). Valid until the next failing call on this thread; never
/// null (empty when nothing has failed).
#[unsafe(no_mangle)]
pub extern "C" fn omote_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// The length in bytes of [`omote_last_error`]'s message (without the NUL), for
/// callers that copy it out.
#[unsafe(no_mangle)]
pub extern "C" fn omote_last_error_length() -> u32 {
    LAST_ERROR.with(|e| e.borrow().as_bytes().len() as u32)
}
