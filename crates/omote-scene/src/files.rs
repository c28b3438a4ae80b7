//! Where a scene's files come from: [`SceneFiles`]. The loader asks it for every file
//! the scene names (rigs and VRMs, voice audio, lip sync tracks, motion maps) by its
//! path — the scene's folder joined with what the scene wrote — so an engine whose
//! assets are not files (an Android package, an archive, memory) supplies the bytes.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The files a scene names, by path. [`FsFiles`] reads the filesystem (what
/// [`crate::load_scene`] uses); [`MemoryFiles`] holds bytes given to it; a host can
/// implement it over its own store.
pub trait SceneFiles {
    /// The whole file at `path`. An error is reported with the file and the scene
    /// field that names it, in the error's own words; one of kind
    /// [`io::ErrorKind::NotFound`] marks the scene's error as a missing file
    /// ([`crate::SceneFileError::missing_file`]), which the bindings report as one.
    fn read(&self, path: &Path) -> io::Result<Vec<u8>>;

    /// [`SceneFiles::read`] of a file that may have at most `limit` bytes (the scene file
    /// itself: its parse costs many times its size). By default it reads the file and
    /// then checks; implement it to refuse a large file before reading it.
    fn read_capped(&self, path: &Path, limit: omote_fs::Limit) -> io::Result<Vec<u8>> {
        let bytes = self.read(path)?;
        limit.check(bytes.len() as u64)?;
        Ok(bytes)
    }

    /// Whether `path` names a file: every voice file is checked before any is analysed.
    /// By default it reads the file; implement it when there is a cheaper way.
    fn exists(&self, path: &Path) -> bool {
        self.read(path).is_ok()
    }
}

/// The filesystem: regular files only, each within its kind's limit by its name
/// ([`omote_fs::Limit::for_path`]; a FIFO, a device, a huge file refused unread).
#[derive(Clone, Copy, Debug, Default)]
pub struct FsFiles;

impl SceneFiles for FsFiles {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        omote_fs::read(path, omote_fs::Limit::for_path(path))
    }

    fn read_capped(&self, path: &Path, limit: omote_fs::Limit) -> io::Result<Vec<u8>> {
        omote_fs::read(path, limit)
    }

    fn exists(&self, path: &Path) -> bool {
        path.is_file()
    }
}

/// Files held in memory, by path (as the loader asks for them: the scene's folder
/// joined with what the scene names).
///
/// ```
/// use omote_scene::{MemoryFiles, SceneFiles};
/// let mut files = MemoryFiles::new();
/// files.insert("scenes/voice/a.wav", vec![1, 2, 3]);
/// assert_eq!(files.read("scenes/voice/a.wav".as_ref()).unwrap(), [1, 2, 3]);
/// assert!(!files.exists("scenes/voice/b.wav".as_ref()));
/// ```
#[derive(Clone, Debug, Default)]
pub struct MemoryFiles {
    files: HashMap<PathBuf, Arc<[u8]>>,
}

impl MemoryFiles {
    /// No files.
    pub fn new() -> Self {
        Self::default()
    }

    /// Holds `bytes` as the file at `path` (replacing one there).
    pub fn insert(&mut self, path: impl Into<PathBuf>, bytes: impl Into<Arc<[u8]>>) {
        self.files.insert(path.into(), bytes.into());
    }

    /// How many files it holds.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

impl SceneFiles for MemoryFiles {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.files
            .get(path)
            .map(|b| b.to_vec())
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, omote_fs::NO_SUCH_FILE))
    }

    fn exists(&self, path: &Path) -> bool {
        self.files.contains_key(path)
    }
}

impl<T: SceneFiles + ?Sized> SceneFiles for &T {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        (**self).read(path)
    }

    fn read_capped(&self, path: &Path, limit: omote_fs::Limit) -> io::Result<Vec<u8>> {
        (**self).read_capped(path, limit)
    }

    fn exists(&self, path: &Path) -> bool {
        (**self).exists(path)
    }
}

/// `files` as the lower crates' reader (`omote_config::ReadFile`).
pub(crate) fn reader(files: &dyn SceneFiles) -> impl Fn(&Path) -> io::Result<Vec<u8>> + '_ {
    move |p| files.read(p)
}
