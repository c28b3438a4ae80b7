//! The files this process has read, so a writer can refuse to write over one of them.
//!
//! A command's output can name one of its own inputs (`--out` the folder a scene reads
//! its avatar from, a result path that is the input's path). Writing there would
//! silently replace what the next run reads. Every input opened by [`crate::open`] is
//! remembered by identity (device and inode, so a symlink or another spelling of the
//! path is the same file; and its change time, so a new file that reuses the inode of a
//! deleted one is not taken for it), and [`was_read`] answers for a writer. Only once a
//! program that writes results asks for it ([`track_inputs`]: the CLI does at start):
//! a library host (a Python pipeline reading a million clips) keeps no list it never uses. Process-wide by
//! design: it is the edge of the program, and every reader already goes through here.

use std::collections::HashSet;
use std::fs::Metadata;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

/// Whether inputs are remembered ([`track_inputs`]).
static TRACKING: AtomicBool = AtomicBool::new(false);

/// From now on, every file opened for reading is remembered for [`was_read`].
pub fn track_inputs() {
    TRACKING.store(true, Ordering::Relaxed);
}

/// A file's identity: device, inode, change time (s, ns).
type Identity = (u64, u64, i64, i64);

/// Identities of the files read so far: 32 bytes each, 3.2 MB for a 100,000-file batch.
static READ: Mutex<Option<HashSet<Identity>>> = Mutex::new(None);

#[cfg(unix)]
fn identity(meta: &Metadata) -> Option<Identity> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino(), meta.ctime(), meta.ctime_nsec()))
}

#[cfg(not(unix))]
fn identity(_meta: &Metadata) -> Option<Identity> {
    None
}

/// Records that the regular file `meta` describes was opened for reading.
pub(crate) fn remember(meta: &Metadata) {
    if !TRACKING.load(Ordering::Relaxed) {
        return;
    }
    if let Some(id) = identity(meta) {
        let mut read = READ.lock().unwrap_or_else(PoisonError::into_inner);
        read.get_or_insert_with(HashSet::new).insert(id);
    }
}

/// Whether the file `meta` describes (from `metadata`, symlinks followed) was read by
/// this process through [`crate::open`], [`crate::read`] or [`crate::read_to_string`]
/// since [`track_inputs`].
pub fn was_read(meta: &Metadata) -> bool {
    let Some(id) = identity(meta) else {
        return false;
    };
    let read = READ.lock().unwrap_or_else(PoisonError::into_inner);
    read.as_ref().is_some_and(|r| r.contains(&id))
}
