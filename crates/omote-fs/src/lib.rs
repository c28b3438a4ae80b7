//! Reading input files safely: the one place omote opens a file it was given.
//!
//! A path from a user, a scene or a network peer can name anything: a FIFO (reading
//! it hangs until a writer comes), `/dev/zero` (reading it grows memory until the
//! process dies), a directory, or a regular file far larger than any real input of
//! its kind. Every reader goes through [`open`], [`read`] or [`read_to_string`], which
//!
//! - refuse anything but a regular file (after following symlinks), saying what it is,
//!   checked before the file is opened (so a FIFO never blocks) and again on the open
//!   handle (so a swap in between is caught);
//! - refuse a file larger than its kind's [`Limit`] before reading a byte, and stop
//!   reading at the limit should the file grow while it is read.
//!
//! Once asked ([`track_inputs`]), every file opened is remembered ([`was_read`]), so a
//! writer can refuse to replace one of the run's own inputs.
//!
//! Text that came from a file or the network (a model's name, an expression, a scene
//! id, a key, an OSC address) is shown through [`echo`], one line and short.
//!
//! Errors are [`std::io::Error`]s (kind `InvalidInput` for a non-regular file,
//! `FileTooLarge` for a large one) so they slot into the readers' existing
//! `ReadFile` seams, whose error types already name the file.

mod inputs;
mod text;

pub use inputs::{track_inputs, was_read};
pub use text::{ECHO_CHARS, echo, echo_at_most, escape_terminal};

use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::path::Path;

/// What a missing file is called in every binding's messages (the OS's words differ by
/// platform and language): `PATH: no such file`, from [`no_such_file`].
pub const NO_SUCH_FILE: &str = "no such file";

/// The message for a file that is not there: `PATH: no such file`.
pub fn no_such_file(path: &Path) -> String {
    format!("{}: {NO_SUCH_FILE}", path.display())
}

/// The most bytes an input of one kind may have, and the kind's name for messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    /// The largest size accepted, in bytes.
    pub bytes: u64,
    /// What the file is, for messages ("a VRM", "a scene file").
    pub what: &'static str,
}

const MIB: u64 = 1024 * 1024;

impl Limit {
    /// A VRM or glTF avatar: the largest real ones are a few hundred MB.
    pub const VRM: Limit = Limit {
        bytes: 1024 * MIB,
        what: "a VRM",
    };
    /// A scene file: thousands of lines of text fit in a few MB; parsing costs tens of
    /// bytes of memory per byte, so the cap keeps a parse bounded.
    pub const SCENE: Limit = Limit {
        bytes: 4 * MIB,
        what: "a scene file",
    };
    /// A config file (rig, curves, clips, motion map, tracking, name maps).
    pub const CONFIG: Limit = Limit {
        bytes: 16 * MIB,
        what: "a config file",
    };
    /// A data file written by omote or a peer (anim JSON, a lip-sync track, tracking
    /// frames, labels): hours of frames.
    pub const DATA: Limit = Limit {
        bytes: 1024 * MIB,
        what: "a data file",
    };
    /// An image (a face photo).
    pub const IMAGE: Limit = Limit {
        bytes: 256 * MIB,
        what: "an image",
    };
    /// A voice file read whole (decoders that need the whole file).
    pub const AUDIO: Limit = Limit {
        bytes: 2048 * MIB,
        what: "an audio file",
    };

    /// The limit of a file known only by its name (a file a scene names, read through
    /// one seam): by extension, any case — `.vrm`/`.glb`/`.gltf` a VRM, `.toml` a config
    /// file, `.json`/`.jsonl` a data file, `.png`/`.jpg`/`.jpeg` an image; anything else
    /// (voices are decoded by content, whatever their name) an audio file.
    pub fn for_path(path: &Path) -> Limit {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        match ext.as_str() {
            "vrm" | "glb" | "gltf" => Limit::VRM,
            "toml" => Limit::CONFIG,
            "json" | "jsonl" => Limit::DATA,
            "png" | "jpg" | "jpeg" => Limit::IMAGE,
            _ => Limit::AUDIO,
        }
    }

    /// Refuses `size` bytes over this limit, as [`read`] does.
    pub fn check(self, size: u64) -> io::Result<()> {
        if size > self.bytes {
            return Err(too_large(size, self));
        }
        Ok(())
    }
}

/// What a file is, in words, for messages ("a FIFO", "a character device"): from
/// `metadata` (symlinks followed) or `symlink_metadata` (a link is "a symlink").
pub fn describe(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a directory";
    }
    if t.is_symlink() {
        return "a symlink";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_file() {
        return "a regular file";
    }
    "not a regular file"
}

fn not_regular(meta: &Metadata) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("not a regular file (it is {})", describe(meta)),
    )
}

fn too_large(size: u64, limit: Limit) -> io::Error {
    io::Error::new(
        io::ErrorKind::FileTooLarge,
        format!(
            "{} bytes, more than the {} MiB {} may have",
            size,
            limit.bytes / MIB,
            limit.what
        ),
    )
}

/// Opens `path` for reading if it is a regular file (symlinks followed).
pub fn open(path: &Path) -> io::Result<File> {
    let (file, meta) = open_regular(path)?;
    inputs::remember(&meta);
    Ok(file)
}

/// A regular file's bytes read *not* as an input: an earlier result a writer compares
/// with what it would write. Not remembered by [`was_read`], so it may be replaced.
pub fn read_earlier_result(path: &Path, limit: Limit) -> io::Result<Vec<u8>> {
    let (file, meta) = open_regular(path)?;
    read_open(file, meta.len(), limit)
}

/// [`open`] without remembering the file.
fn open_regular(path: &Path) -> io::Result<(File, Metadata)> {
    // Checked before opening: opening a FIFO for reading blocks until a writer comes.
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(not_regular(&meta));
    }
    let file = File::open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_regular(&meta));
    }
    Ok((file, meta))
}

/// Opens `path` with [`open`] and refuses it if it is larger than `limit`; returns the
/// file and its size.
pub fn open_capped(path: &Path, limit: Limit) -> io::Result<(File, u64)> {
    let file = open(path)?;
    let size = file.metadata()?.len();
    limit.check(size)?;
    Ok((file, size))
}

/// The whole of a regular file no larger than `limit`.
pub fn read(path: &Path, limit: Limit) -> io::Result<Vec<u8>> {
    let (file, meta) = open_regular(path)?;
    inputs::remember(&meta);
    read_open(file, meta.len(), limit)
}

/// The whole of an opened regular file of `size` bytes, no more than `limit`.
fn read_open(file: File, size: u64, limit: Limit) -> io::Result<Vec<u8>> {
    limit.check(size)?;
    let mut bytes = Vec::with_capacity(size as usize);
    // One byte past the limit tells a file that grew while read from one that did not.
    file.take(limit.bytes + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit.bytes {
        return Err(too_large(bytes.len() as u64, limit));
    }
    Ok(bytes)
}

/// [`read`] as UTF-8 text ([`utf8_text`]).
pub fn read_to_string(path: &Path, limit: Limit) -> io::Result<String> {
    utf8_text(read(path, limit)?)
}

/// A file's bytes as text, or `InvalidData` "not UTF-8 text" (an audio file or an image
/// given where text goes): the one wording of every text file's read.
pub fn utf8_text(bytes: Vec<u8>) -> io::Result<String> {
    String::from_utf8(bytes)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("omote-fs-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_regular_file_is_read_whole() {
        let dir = temp("regular");
        let path = dir.join("a.txt");
        std::fs::write(&path, "hello").unwrap();
        assert_eq!(read(&path, Limit::CONFIG).unwrap(), b"hello");
        assert_eq!(read_to_string(&path, Limit::CONFIG).unwrap(), "hello");
    }

    #[test]
    fn a_file_over_its_limit_is_refused_before_reading() {
        let dir = temp("large");
        let path = dir.join("big.toml");
        std::fs::write(&path, vec![b'x'; 100]).unwrap();
        let limit = Limit {
            bytes: 99,
            what: "a test file",
        };
        let e = read(&path, limit).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::FileTooLarge);
        assert!(e.to_string().contains("100 bytes"), "{e}");
        assert!(e.to_string().contains("a test file"), "{e}");
        assert_eq!(
            read(
                &path,
                Limit {
                    bytes: 100,
                    what: "x"
                }
            )
            .unwrap()
            .len(),
            100
        );
    }

    #[test]
    fn a_directory_is_refused_by_name() {
        let dir = temp("dir");
        let e = read(&dir, Limit::CONFIG).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert!(e.to_string().contains("a directory"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn devices_are_refused_without_reading() {
        // /dev/zero would grow memory forever if it were read.
        let e = read(Path::new("/dev/zero"), Limit::VRM).unwrap_err();
        assert!(e.to_string().contains("a character device"), "{e}");
        let e = open(Path::new("/dev/null")).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = temp("fifo");
        let fifo = dir.join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("skipped: mkfifo is not available");
            return;
        }
        // Opening a FIFO for reading with no writer would block this test forever.
        let e = read(&fifo, Limit::SCENE).unwrap_err();
        assert!(e.to_string().contains("a FIFO"), "{e}");
    }

    #[test]
    fn a_file_known_by_name_gets_its_kinds_limit() {
        assert_eq!(Limit::for_path(Path::new("a/hero.VRM")), Limit::VRM);
        assert_eq!(Limit::for_path(Path::new("names.toml")), Limit::CONFIG);
        assert_eq!(Limit::for_path(Path::new("t.json")), Limit::DATA);
        assert_eq!(Limit::for_path(Path::new("voice/a.wav")), Limit::AUDIO);
        assert_eq!(Limit::for_path(Path::new("voice/a")), Limit::AUDIO);
        assert!(Limit::SCENE.check(Limit::SCENE.bytes).is_ok());
        let e = Limit::SCENE.check(Limit::SCENE.bytes + 1).unwrap_err();
        assert!(e.to_string().contains("4 MiB a scene file"), "{e}");
    }

    #[test]
    fn a_file_read_is_remembered_by_identity() {
        track_inputs();
        let dir = temp("remembered");
        let path = dir.join("input.toml");
        std::fs::write(&path, "x").unwrap();
        let other = dir.join("other.toml");
        std::fs::write(&other, "y").unwrap();
        assert!(!was_read(&std::fs::metadata(&path).unwrap()));
        read(&path, Limit::CONFIG).unwrap();
        assert!(was_read(&std::fs::metadata(&path).unwrap()));
        // Another spelling of the same file is the same file.
        assert!(was_read(
            &std::fs::metadata(dir.join(".").join("input.toml")).unwrap()
        ));
        assert!(!was_read(&std::fs::metadata(&other).unwrap()));
        // A new file in its place (which may reuse the inode) is not the file read.
        std::fs::remove_file(&path).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(10));
        std::fs::write(&path, "new").unwrap();
        assert!(!was_read(&std::fs::metadata(&path).unwrap()));
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_to_a_regular_file_is_followed() {
        let dir = temp("link");
        let path = dir.join("a.txt");
        std::fs::write(&path, "via link").unwrap();
        let link = dir.join("link.txt");
        std::os::unix::fs::symlink(&path, &link).unwrap();
        assert_eq!(read_to_string(&link, Limit::CONFIG).unwrap(), "via link");
    }
}
