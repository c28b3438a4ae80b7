//! Writing result files with context-rich errors. Every result file is written whole or
//! not at all: into a hidden temporary file beside it, then renamed over the final name,
//! so a failed write (a full disk, an interrupted process) never leaves a truncated file
//! under the name a user or a pipeline would read. A batch of many files
//! ([`stage_file`], [`commit_behind`]) does the same but syncs them a group at a time.
//!
//! A rename replaces whatever has the name, so only a regular file (or nothing) is ever
//! renamed over ([`Target`], decided once for every writer here):
//! - a symlink to a regular file: the file it points to is replaced (written beside the
//!   resolved file and renamed over it), the link stays;
//! - a character device or a FIFO (`-o /dev/null`, `-o /dev/stdout`, a named pipe), and
//!   any name under `/dev/` or `/proc/` (the system's names for open streams): written
//!   through — opened for writing and written to, never renamed over nor removed;
//! - a regular file with several names (hard links): refused, as a new file would split
//!   the link; a folder, a block device, a socket or a symlink to nothing: refused.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use omote_core::{Anim, anim::AnimEvent};
use omote_plot::{Panel, Series, TimePlot};

/// Prints a warning on stderr, as every command does (`warning: …`, terminal controls
/// escaped): what was read but not whole, what a server could not do for a page.
pub fn warn(message: &str) {
    eprintln!("warning: {}", escape_terminal(message));
}

/// Create `dir` (and parents) if needed.
pub fn ensure_dir(dir: &Path) -> anyhow::Result<()> {
    refuse_non_folder(dir)?;
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create output folder {}", dir.display()))
}

/// Refuses an output folder that exists as something else (a file, e.g. the scene given
/// as `--out`), in those words rather than the OS's "Not a directory" on the first write.
pub fn refuse_non_folder(dir: &Path) -> anyhow::Result<()> {
    if std::fs::metadata(dir).is_ok_and(|m| !m.is_dir()) {
        anyhow::bail!(
            "{}: cannot be the output folder: it exists and is not a folder",
            dir.display()
        );
    }
    Ok(())
}

/// Write `anim` as its file ([`omote_config::anim_json`]: checked, compact JSON).
pub fn write_anim(anim: &Anim, path: &Path) -> anyhow::Result<()> {
    let json = omote_config::anim_json(anim)
        .with_context(|| format!("refusing to write an invalid anim to {}", path.display()))?;
    write_file(path, json.as_bytes())
}

/// Write `bytes` to `path` whole or not at all (see the module docs).
pub fn write_file(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    if let Target::Through(stream) = Target::of(path)? {
        return write_through(&stream, bytes);
    }
    write_with(path, |tmp| {
        use std::io::Write;
        let mut f = std::fs::File::create(tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        Ok(())
    })
}

/// Writing behind the work: `threads` threads inside `scope` each take the next item
/// sent on the returned channel (at most `queue` wait) and give it to `write`, so each
/// result file's write and sync, which mostly wait for the disk, overlap the next
/// item's work. They end when every sender is dropped; the scope joins them.
pub fn write_behind<'scope, T: Send + 'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    threads: usize,
    queue: usize,
    write: impl Fn(T) + Send + Sync + 'scope,
) -> anyhow::Result<std::sync::mpsc::SyncSender<T>> {
    let (to_write, writes) = std::sync::mpsc::sync_channel::<T>(queue);
    let writes = std::sync::Arc::new(std::sync::Mutex::new(writes));
    let write = std::sync::Arc::new(write);
    for i in 0..threads {
        let (writes, write) = (writes.clone(), write.clone());
        std::thread::Builder::new()
            .name(format!("write {i}"))
            .spawn_scoped(scope, move || {
                loop {
                    // The lock is held only while waiting for the next item.
                    let next = writes.lock().ok().and_then(|rx| rx.recv().ok());
                    let Some(item) = next else { break };
                    write(item);
                }
            })
            .context("cannot start a result writing thread")?;
    }
    Ok(to_write)
}

/// An error of what a file is made from (a frame that cannot be read), not of writing
/// it: [`write_with`] passes it on as it is, not as "cannot write" the output.
#[derive(Debug)]
pub struct InputError(pub anyhow::Error);

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#}", self.0)
    }
}

impl std::error::Error for InputError {}

/// Let `write` produce the file at a temporary path beside `path` (same extension, so
/// format-by-extension writers such as PNG encoders work), then rename it to `path`. On
/// any error the temporary file is removed and an existing `path` is left untouched; an
/// [`InputError`] is reported as it is, any other as "cannot write" `path`.
pub fn write_with(
    path: &Path,
    write: impl FnOnce(&Path) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let target = match Target::of(path)? {
        Target::Replace(target) => target,
        Target::Through(stream) => return write_with_through(path, &stream, write),
    };
    // Said in the words `check_output_file` uses, not as the OS's "No such file or
    // directory" on the hidden file beside it.
    if let Some(parent) = target.parent().filter(|p| !p.as_os_str().is_empty())
        && std::fs::metadata(parent).is_err()
    {
        anyhow::bail!(
            "cannot write {}: the folder {} does not exist",
            path.display(),
            parent.display()
        );
    }
    let tmp = temporary_path(&target)?;
    let result = write(&tmp).and_then(|()| rename_over(&tmp, &target));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    match result {
        Err(e) if e.is::<InputError>() => Err(e),
        result => result.with_context(|| format!("cannot write {}", path.display())),
    }
}

/// Moves the finished `tmp` to `target`, checking first that the name still holds a
/// regular file or nothing (it may have changed while the result was made).
fn rename_over(tmp: &Path, target: &Path) -> anyhow::Result<()> {
    match std::fs::symlink_metadata(target) {
        Ok(m) if !m.file_type().is_file() => anyhow::bail!(
            "{}: is no longer a regular file ({}); not replaced",
            target.display(),
            omote_fs::describe(&m)
        ),
        _ => {}
    }
    std::fs::rename(tmp, target)
        .with_context(|| format!("cannot move the finished file to {}", target.display()))
}

/// How a result file's name is written (see the module docs): decided from what the
/// name holds now.
#[derive(Debug, PartialEq, Eq)]
pub enum Target {
    /// Nothing, or a regular file with one name: written beside this path (the resolved
    /// file for a symlink) and renamed over it.
    Replace(PathBuf),
    /// A character device, a FIFO or a stream's name: opened and written to in place.
    Through(PathBuf),
}

impl Target {
    /// What `path` holds and how to write it, or why it is refused (naming `path`).
    pub fn of(path: &Path) -> anyhow::Result<Target> {
        let link = match std::fs::symlink_metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Target::Replace(path.to_path_buf()));
            }
            Err(e) => {
                return Err(
                    anyhow::Error::new(e).context(format!("cannot write {}", path.display()))
                );
            }
            Ok(m) => m,
        };
        // The system's names for open streams (/dev/stdout, /dev/fd/N, /proc/self/fd/N)
        // point at whatever the stream is: a pipe, a terminal, a file a shell opened.
        if cfg!(unix) && (path.starts_with("/dev") || path.starts_with("/proc")) {
            if link.file_type().is_dir() {
                anyhow::bail!("{}: is a folder, not a file", path.display());
            }
            return Ok(Target::Through(path.to_path_buf()));
        }
        let (resolved, meta) = if link.file_type().is_symlink() {
            let meta = std::fs::metadata(path).with_context(|| {
                format!(
                    "{}: a symlink to a file that cannot be reached; write to the file itself",
                    path.display()
                )
            })?;
            if meta.file_type().is_file() {
                let resolved = std::fs::canonicalize(path)
                    .with_context(|| format!("cannot resolve the symlink {}", path.display()))?;
                (resolved, meta)
            } else {
                (path.to_path_buf(), meta)
            }
        } else {
            (path.to_path_buf(), link)
        };
        let kind = meta.file_type();
        if kind.is_file() {
            // The one backstop for every writer: never replace one of this run's inputs.
            if omote_fs::was_read(&meta) {
                anyhow::bail!(
                    "{}: is a file this run reads; a result never replaces an input (write elsewhere)",
                    path.display()
                );
            }
            #[cfg(unix)]
            {
                use std::os::unix::fs::MetadataExt;
                if meta.nlink() > 1 {
                    anyhow::bail!(
                        "{}: the file has {} names (hard links); a new file would split them, \
                         so it is not replaced: remove it first or write elsewhere",
                        path.display(),
                        meta.nlink()
                    );
                }
            }
            return Ok(Target::Replace(resolved));
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            if kind.is_fifo() || kind.is_char_device() {
                return Ok(Target::Through(path.to_path_buf()));
            }
        }
        if kind.is_dir() {
            anyhow::bail!("{}: is a folder, not a file", path.display());
        }
        anyhow::bail!(
            "{}: is {}; results are written only to regular files, character devices and FIFOs",
            path.display(),
            omote_fs::describe(&meta)
        )
    }
}

/// `bytes` written into the device or FIFO `stream` (opened, never created, truncated
/// nor renamed over). A FIFO's open waits for its reader, as any writer's does.
fn write_through(stream: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .open(stream)
        .with_context(|| format!("cannot open {} for writing", stream.display()))?;
    f.write_all(bytes)
        .and_then(|()| f.flush())
        .with_context(|| format!("cannot write {}", stream.display()))
}

/// [`write_with`] for a stream: `write` makes the file in the temporary folder (never in
/// the stream's own folder, `/dev` say), which is then copied into the stream.
fn write_with_through(
    path: &Path,
    stream: &Path,
    write: impl FnOnce(&Path) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let name = path
        .file_name()
        .map_or("result".into(), |n| n.to_string_lossy().into_owned());
    let ext = path
        .extension()
        .map_or(String::new(), |e| format!(".{}", e.to_string_lossy()));
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = std::env::temp_dir().join(format!(
        ".omote-{}-{n}-{name}.partial{ext}",
        std::process::id()
    ));
    let result = write(&tmp).and_then(|()| {
        let mut from = std::fs::File::open(&tmp)?;
        let mut to = std::fs::OpenOptions::new()
            .write(true)
            .open(stream)
            .with_context(|| format!("cannot open {} for writing", stream.display()))?;
        std::io::copy(&mut from, &mut to)?;
        Ok(())
    });
    let _ = std::fs::remove_file(&tmp);
    match result {
        Err(e) if e.is::<InputError>() => Err(e),
        result => result.with_context(|| format!("cannot write {}", path.display())),
    }
}

/// The hidden file beside `path` that is written first, with the same extension.
fn temporary_path(path: &Path) -> anyhow::Result<PathBuf> {
    let name = path
        .file_name()
        .with_context(|| format!("{}: not a file name", path.display()))?
        .to_string_lossy();
    let ext = path
        .extension()
        .map_or(String::new(), |e| format!(".{}", e.to_string_lossy()));
    Ok(path.with_file_name(format!(".{name}.partial-{}{ext}", std::process::id())))
}

/// A result file written by [`stage_file`], waiting for [`commit_behind`] to make it
/// durable and move it to its name.
pub struct Staged<T> {
    /// The staged file; `None` when the result was written at once instead (its name is
    /// not a plain file: see [`stage_file`]).
    tmp: Option<PathBuf>,
    path: PathBuf,
    tag: T,
}

/// The first half of [`write_file`] for a batch: `bytes` into a file of the same name in
/// `lane`'s own hidden folder beside `path` (`.omote-partial-PID/LANE/`), not yet synced
/// (on Linux; elsewhere synced here) nor moved. Creating a file holds its folder's lock,
/// and on some filesystems takes long (ext4 without a journal steps over recently freed
/// inodes one by one): in one shared folder the workers would wait for each other.
/// `tag` (the input, say) comes back with the outcome from [`commit_behind`]. A name
/// that holds anything but a regular file or nothing (a symlink, a FIFO, a device) is
/// written at once by [`write_file`], which knows how (see the module docs).
pub fn stage_file<T>(path: &Path, bytes: &[u8], lane: usize, tag: T) -> anyhow::Result<Staged<T>> {
    use crate::stages::{self, Stage};
    let name = path
        .file_name()
        .with_context(|| format!("{}: not a file name", path.display()))?;
    if Target::of(path)? != Target::Replace(path.to_path_buf()) {
        write_file(path, bytes)?;
        return Ok(Staged {
            tmp: None,
            path: path.to_path_buf(),
            tag,
        });
    }
    let root = folder_of(path).join(staging_name());
    let lane = root.join(lane.to_string());
    let tmp = lane.join(name);
    let written = (|| -> std::io::Result<()> {
        use std::io::Write;
        let create = || stages::time(Stage::Create, || std::fs::File::create(&tmp));
        let mut f = match create() {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                // One level at a time: a missing result folder stays an error.
                for folder in [&root, &lane] {
                    match std::fs::create_dir(folder) {
                        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(e),
                        _ => {}
                    }
                }
                create()?
            }
            f => f?,
        };
        stages::time(Stage::Write, || f.write_all(bytes))?;
        // Only Linux has a sync of many files at once (see `Durable`): elsewhere one each.
        #[cfg(not(target_os = "linux"))]
        f.sync_all()?;
        Ok(())
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(anyhow::Error::new(e).context(format!("cannot write {}", path.display())));
    }
    Ok(Staged {
        tmp: Some(tmp),
        path: path.to_path_buf(),
        tag,
    })
}

/// The hidden folder, in each result folder, of this process's [`stage_file`] lanes.
fn staging_name() -> String {
    format!(".omote-partial-{}", std::process::id())
}

/// The shortest time between two syncs of [`commit_behind`].
pub const GATHER: std::time::Duration = std::time::Duration::from_millis(50);

/// The second half of [`write_file`] for a batch, on one thread inside `scope` beside the
/// work. It gathers staged files (at most `queue` wait; one group every [`GATHER`] at
/// most), makes the whole group durable at once — one `syncfs` per filesystem on Linux,
/// where a sync per file capped a batch at what the disk flushes (1,200–6,500 files a
/// second here, however many threads synced) — then renames each to its name and gives
/// its tag and outcome to `done`. A name never shows a file that is not whole and on the
/// disk. When every sender is gone ([`Committer::finish`]) it syncs once more, so the
/// renames are on the disk too, and ends.
pub fn commit_behind<'scope, T: Send + 'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    queue: usize,
    done: impl Fn(T, anyhow::Result<()>) + Send + 'scope,
) -> anyhow::Result<(std::sync::mpsc::SyncSender<Staged<T>>, Committer<'scope>)> {
    use crate::stages::{self, Stage};
    let (to_commit, staged) = std::sync::mpsc::sync_channel::<Staged<T>>(queue);
    let committer = std::thread::Builder::new()
        .name("commit".into())
        .spawn_scoped(scope, move || {
            let mut durable = Durable::default();
            let mut synced_at = std::time::Instant::now();
            while let Ok(first) = staged.recv() {
                // A group every GATHER at most, taken at once: syncs back to back would
                // flush the disk without pause, and waking this thread for each file sent
                // cost the sending worker its core (a fifth of its time on 2 loaded cores).
                std::thread::park_timeout(
                    (synced_at + GATHER).saturating_duration_since(std::time::Instant::now()),
                );
                let mut group = vec![first];
                group.extend(staged.try_iter().take(queue));
                let synced = stages::time(Stage::Sync, || durable.sync(&group));
                stages::time(Stage::Commit, || {
                    for (s, synced) in group.into_iter().zip(synced) {
                        let Some(tmp) = &s.tmp else {
                            done(s.tag, synced);
                            continue;
                        };
                        let result = synced.and_then(|()| rename_over(tmp, &s.path));
                        if result.is_err() {
                            let _ = std::fs::remove_file(tmp);
                        }
                        done(
                            s.tag,
                            result.with_context(|| format!("cannot write {}", s.path.display())),
                        );
                    }
                });
                synced_at = std::time::Instant::now();
            }
            stages::time(Stage::Finish, || durable.finish())
        })
        .context("cannot start the result writing thread")?;
    Ok((to_commit, Committer(committer)))
}

/// The thread of [`commit_behind`].
pub struct Committer<'scope>(std::thread::ScopedJoinHandle<'scope, anyhow::Result<()>>);

impl Committer<'_> {
    /// Waits for the last group and the last sync; call it once every sender is gone. It
    /// wakes the thread if it is gathering, so the batch does not end up to GATHER late.
    pub fn finish(self) -> anyhow::Result<()> {
        self.0.thread().unpark();
        self.0
            .join()
            .map_err(|_| anyhow::anyhow!("the result writing thread stopped"))?
    }
}

/// Makes a batch's staged files durable a group at a time, and at the end the folders
/// they were renamed into.
#[derive(Default)]
struct Durable {
    /// Every folder results go to, with its filesystem's place in `filesystems`.
    folders: HashMap<PathBuf, usize>,
    /// One open folder on each filesystem written to (what `syncfs` takes), by device.
    #[cfg(target_os = "linux")]
    filesystems: Vec<(u64, std::fs::File)>,
}

impl Durable {
    /// Each staged file's outcome, in order: its data on the disk, or why not.
    fn sync<T>(&mut self, group: &[Staged<T>]) -> Vec<anyhow::Result<()>> {
        match self.sync_group(group) {
            Ok(()) => group.iter().map(|_| Ok(())).collect(),
            // A failed sync does not say whose data it lost: each file alone tells.
            Err(_) => group
                .iter()
                .map(|s| s.tmp.as_deref().map_or(Ok(()), sync_file))
                .collect(),
        }
    }

    /// Every file of `group` on the disk at once: one `syncfs` for each filesystem they
    /// are on (it writes out and waits for all their data, then flushes the disk once).
    /// Linux before 5.8 does not report a failed write-back here.
    #[cfg(target_os = "linux")]
    fn sync_group<T>(&mut self, group: &[Staged<T>]) -> std::io::Result<()> {
        let mut which = Vec::new();
        // Results written at once (no staged file) were synced, or are streams.
        for s in group.iter().filter(|s| s.tmp.is_some()) {
            let i = self.filesystem(&s.path)?;
            if !which.contains(&i) {
                which.push(i);
            }
        }
        for i in which {
            nix::unistd::syncfs(&self.filesystems[i].1)?;
        }
        Ok(())
    }

    /// Elsewhere [`stage_file`] synced each file; the folders are kept for [`Self::finish`].
    #[cfg(not(target_os = "linux"))]
    fn sync_group<T>(&mut self, group: &[Staged<T>]) -> std::io::Result<()> {
        for s in group.iter().filter(|s| s.tmp.is_some()) {
            self.folders
                .entry(folder_of(&s.path).to_path_buf())
                .or_default();
        }
        Ok(())
    }

    /// `path`'s filesystem, its folder opened the first time it is seen.
    #[cfg(target_os = "linux")]
    fn filesystem(&mut self, path: &Path) -> std::io::Result<usize> {
        use std::os::unix::fs::MetadataExt;
        let folder = folder_of(path);
        if let Some(&i) = self.folders.get(folder) {
            return Ok(i);
        }
        let open = std::fs::File::open(folder)?;
        let device = open.metadata()?.dev();
        let i = match self.filesystems.iter().position(|(d, _)| *d == device) {
            Some(i) => i,
            None => {
                self.filesystems.push((device, open));
                self.filesystems.len() - 1
            }
        };
        self.folders.insert(folder.to_path_buf(), i);
        Ok(i)
    }

    /// The staging folders removed and the renames on the disk: one more `syncfs` per
    /// filesystem on Linux, each folder's own sync elsewhere on Unix (Windows cannot open
    /// a folder to sync it).
    fn finish(self) -> anyhow::Result<()> {
        for folder in self.folders.keys() {
            // Empty by now; a folder that is not (another writer?) is left alone.
            let root = folder.join(staging_name());
            if let Ok(lanes) = std::fs::read_dir(&root) {
                for lane in lanes.flatten() {
                    let _ = std::fs::remove_dir(lane.path());
                }
            }
            let _ = std::fs::remove_dir(&root);
        }
        #[cfg(target_os = "linux")]
        for (_, open) in &self.filesystems {
            nix::unistd::syncfs(open).context("cannot sync the result files to the disk")?;
        }
        #[cfg(all(unix, not(target_os = "linux")))]
        for folder in self.folders.keys() {
            std::fs::File::open(folder)
                .and_then(|f| f.sync_all())
                .with_context(|| format!("cannot sync the folder {}", folder.display()))?;
        }
        Ok(())
    }
}

/// The folder `path` is in (`.` for a bare name).
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// One staged file's data on the disk.
fn sync_file(tmp: &Path) -> anyhow::Result<()> {
    std::fs::File::open(tmp).and_then(|f| f.sync_all())?;
    Ok(())
}

/// The files a command writes into its output folder and the files it reads, checked
/// before the work starts ([`OutputPlan::check`]) so a run never writes over its own
/// inputs or a user's files: `bake`, `demo` and `speak` each make one.
#[derive(Default)]
pub struct OutputPlan {
    /// Each file to be written, with its bytes when they are known before the work.
    writes: Vec<(PathBuf, Option<Vec<u8>>)>,
    /// Every file the run reads.
    reads: Vec<PathBuf>,
}

impl OutputPlan {
    /// A plan that writes and reads nothing yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The run will write `path`; `known` is its content when it is known now (a file
    /// copied out, the built-in avatar), `None` when the work makes it (an anim, a plot).
    pub fn writes(&mut self, path: PathBuf, known: Option<&[u8]>) {
        self.writes.push((path, known.map(<[u8]>::to_vec)));
    }

    /// The run reads `path`.
    pub fn reads(&mut self, path: impl Into<PathBuf>) {
        self.reads.push(path.into());
    }

    /// Refuses, naming the file, a write over a file the run reads (the same file by
    /// identity: device and inode, so another name, a symlink or a hard link to it counts),
    /// always; and, unless `force`, a write over an existing file whose content is known
    /// and differs (a user's `scene.toml`, a `hero.vrm` that is not the built-in one). A
    /// name whose content only the work makes (an anim, a plot, a VRMA) holds an earlier
    /// result of the same command and is replaced. Any name a write would refuse
    /// ([`Target::of`]) is refused here too, so a run refused is a run that wrote nothing.
    pub fn check(&self, force: bool) -> anyhow::Result<()> {
        let inputs: Vec<(FileId, &PathBuf)> = self
            .reads
            .iter()
            .filter_map(|p| Some((file_id(p)?, p)))
            .collect();
        for (path, known) in &self.writes {
            // What every write would refuse (a file with several names, a folder, a
            // socket…) is refused now, before any file of the run is written.
            Target::of(path)?;
            let Some(id) = file_id(path) else { continue };
            if let Some((_, input)) = inputs.iter().find(|(i, _)| *i == id) {
                anyhow::bail!(
                    "{}: this run reads that file (as {}) and would write over it; \
                     choose another output folder",
                    path.display(),
                    input.display()
                );
            }
            if let Some(bytes) = known
                && !force
                && omote_fs::read_earlier_result(path, omote_fs::Limit::VRM)
                    .map_or(true, |old| old != *bytes)
            {
                anyhow::bail!(
                    "{} exists and is not the file this run writes there; \
                     choose another output folder, or give --force to replace it",
                    path.display()
                );
            }
        }
        Ok(())
    }
}

/// A file's identity: what two names of one file share.
#[derive(Clone, Copy, PartialEq, Eq)]
struct FileId(u64, u64);

/// `path`'s identity (symlinks followed), `None` when nothing is there.
fn file_id(path: &Path) -> Option<FileId> {
    let meta = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some(FileId(meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        // Without inodes: the canonical path, hashed.
        use std::hash::{Hash, Hasher};
        let _ = meta;
        let mut h = std::collections::hash_map::DefaultHasher::new();
        std::fs::canonicalize(path).ok()?.hash(&mut h);
        Some(FileId(0, h.finish()))
    }
}

/// Checks, before a session or a long job starts, that a result file can be made at
/// `path`: its folder exists, is a folder, and takes a new file (a probe file is made and
/// removed). A missing folder is an error at once, not after an hour of recording.
pub fn check_output_file(path: &Path, what: &str) -> anyhow::Result<()> {
    let name = path
        .file_name()
        .with_context(|| format!("{what} {}: not a file name", path.display()))?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => anyhow::bail!(
            "{what} {}: {} is not a folder",
            path.display(),
            dir.display()
        ),
        Err(_) => anyhow::bail!(
            "{what} {}: the folder {} does not exist",
            path.display(),
            dir.display()
        ),
    }
    if path.is_dir() {
        anyhow::bail!("{what} {}: is a folder, not a file", path.display());
    }
    let probe = dir.join(format!(
        ".{}.probe-{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    std::fs::File::create(&probe).with_context(|| {
        format!(
            "{what} {}: cannot create files in {}",
            path.display(),
            dir.display()
        )
    })?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// `Ok` when `path`'s extension is one of `allowed` (in any case); else the extension it
/// has (empty for none), for the caller's message. Output names are checked before any work.
pub fn extension_in<'a>(path: &'a Path, allowed: &[&str]) -> Result<(), &'a str> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    if allowed.iter().any(|a| ext.eq_ignore_ascii_case(a)) {
        Ok(())
    } else {
        Err(ext)
    }
}

/// Checks that `path` names a PNG file (the plots are PNG only), before any work.
pub fn check_png_name(path: &Path) -> anyhow::Result<()> {
    if extension_in(path, &["png"]).is_err() {
        anyhow::bail!(
            "{}: plots are written as PNG; give a file name ending in .png",
            path.display()
        );
    }
    Ok(())
}

pub use omote_fs::escape_terminal;

/// The most characters of one cause an error line shows: room for a path and a quoted
/// name, never a 50 MB message.
const ERROR_CAUSE_CHARS: usize = 2000;

/// An error and its causes as one line for the terminal: each cause once (a library
/// error that quotes its OS error and also chains it as its source would otherwise print
/// "No such file or directory" twice), each escaped and capped ([`omote_fs::echo_at_most`]).
pub fn error_text(e: &anyhow::Error) -> String {
    let mut out = String::new();
    let mut not_found = None;
    for cause in e.chain() {
        let text = cause.to_string();
        if let Some(io) = cause.downcast_ref::<std::io::Error>()
            && io.kind() == std::io::ErrorKind::NotFound
        {
            not_found = Some(text.clone());
        }
        if out.contains(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        // One line, whatever a cause quotes: a line feed in a name could forge output.
        out.push_str(&omote_fs::echo_at_most(&text, ERROR_CAUSE_CHARS));
    }
    // A missing file in the words every command and binding uses, not the OS's
    // ("No such file or directory (os error 2)" differs by platform and language).
    match not_found {
        Some(os) if !os.is_empty() => out.replace(&os, omote_fs::NO_SUCH_FILE),
        _ => out,
    }
}

/// Render `plot` to the PNG file `path`, whole or not at all.
pub fn write_png(plot: &TimePlot, path: &Path) -> anyhow::Result<()> {
    check_png_name(path)?;
    write_with(path, |tmp| {
        plot.render_png(tmp)
            .map(drop)
            .with_context(|| format!("drawing {}", path.display()))
    })
}

/// Head orientation as YXZ Euler angles (yaw about +Y, pitch about +X, roll about +Z)
/// in degrees, in the VRM frame: yaw > 0 turns toward the avatar's left, pitch > 0 nods
/// down.
pub fn head_angles(q: [f32; 4]) -> (f32, f32, f32) {
    let q = omote_core::Quat::from_array(q);
    let (y, x, z) = q.to_euler(omote_core::glam::EulerRot::YXZ);
    (y.to_degrees(), x.to_degrees(), z.to_degrees())
}

/// The standard overview plot of an anim: chosen expression groups, gaze and head.
pub fn anim_plot(anim: &Anim, title: &str, groups: &[(&str, &[&str])]) -> TimePlot {
    let dt = 1.0 / anim.fps;
    let t = |i: usize| i as f32 * dt;
    let mut plot = TimePlot::new(title);
    for (name, channels) in groups {
        let mut panel = Panel::new(*name).y_range(-0.02, 1.05);
        // What the face shows: the weights after the override rules. Channels with the
        // same curve (both eyes' blinks) are one series named `a = b`, not a line drawn
        // over another.
        let mut curves: Vec<(String, &[f32])> = Vec::new();
        for ch in *channels {
            if let Some(track) = anim.applied().get(ch) {
                match curves.iter_mut().find(|(_, c)| *c == track) {
                    Some((label, _)) => *label = format!("{label} = {ch}"),
                    None => curves.push((ch.to_string(), track)),
                }
            }
        }
        for (label, track) in curves {
            panel = panel.series(Series::new(
                label,
                track.iter().enumerate().map(|(i, v)| (t(i), *v)).collect(),
            ));
        }
        plot = plot.panel(panel);
    }
    let mut plot = plot
        .panel(gaze_panel(anim))
        .panel(head_panel(anim, "head (degrees)"));
    // Cues on the first panel, blinks on the eyes panel, saccades on the gaze panel.
    let find = |plot: &TimePlot, prefix: &str| {
        plot.panels.iter().position(|p| p.title.starts_with(prefix))
    };
    let (eyes, gaze, mouth) = (
        find(&plot, "eyes"),
        find(&plot, "gaze"),
        find(&plot, "mouth"),
    );
    let hand_over_lead = omote_core::speech::SpeechConfig::default().end_lead_s;
    for e in &anim.events {
        let (panel, label) = match e {
            AnimEvent::Marker { name, .. } => (Some(0), name.clone()),
            AnimEvent::Blink { cause, .. } => (eyes, format!("{cause:?}").to_lowercase()),
            AnimEvent::Saccade { direction, .. } => (gaze, format!("{direction:?}").to_lowercase()),
            AnimEvent::Expression { name, weight, .. } => (Some(0), format!("{name} {weight:.1}")),
            AnimEvent::Voice {
                clip,
                voiced_start,
                voiced_end,
                ..
            } => {
                // The voiced span shaded, the hand-over marked, on the mouth panel.
                if let (Some(p), Some(s), Some(end)) = (
                    mouth.and_then(|i| plot.panels.get_mut(i)),
                    voiced_start,
                    voiced_end,
                ) {
                    p.spans.push((*s, *end));
                    p.markers
                        .push(((end - hand_over_lead).max(*s), "hand-over".into()));
                }
                (mouth, clip.clone())
            }
        };
        if let Some(p) = panel.and_then(|i| plot.panels.get_mut(i)) {
            p.markers.push((e.time(), label));
        }
    }
    plot
}

/// Gaze yaw and pitch over time.
pub fn gaze_panel(anim: &Anim) -> Panel {
    let dt = 1.0 / anim.fps;
    let axis = |k: usize| {
        anim.look_at
            .iter()
            .enumerate()
            .map(|(i, v)| (i as f32 * dt, v[k]))
            .collect()
    };
    Panel::new("gaze (degrees; yaw > 0 left, pitch > 0 down)")
        .series(Series::new("yaw", axis(0)))
        .series(Series::new("pitch", axis(1)))
}

/// Head yaw, pitch and roll over time.
pub fn head_panel(anim: &Anim, title: &str) -> Panel {
    let dt = 1.0 / anim.fps;
    let angles: Vec<[f32; 3]> = anim
        .head
        .iter()
        .map(|q| {
            let (y, p, r) = head_angles(*q);
            [y, p, r]
        })
        .collect();
    let axis = |k: usize| {
        angles
            .iter()
            .enumerate()
            .map(|(i, a)| (i as f32 * dt, a[k]))
            .collect()
    };
    Panel::new(title)
        .series(Series::new("yaw", axis(0)))
        .series(Series::new("pitch", axis(1)))
        .series(Series::new("roll", axis(2)))
}

/// The retarget settings behind `--config` (the defaults without one), with `--mirror`
/// switched on when given.
pub fn load_retarget_config(
    path: Option<&Path>,
    mirror: bool,
) -> anyhow::Result<omote_core::RetargetConfig> {
    let mut config = match path {
        Some(p) => omote_config::load_retarget_config(p)?,
        None => omote_core::RetargetConfig::default(),
    };
    config.mirror |= mirror;
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("omote-output-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn listing(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn channels_with_the_same_curve_are_one_series() {
        let anim: Anim = serde_json::from_str(
            r#"{"format":"omote-anim","version":1,"fps":30,"duration":0.0667,
            "expressions":{"blink":[0,0],"eyeBlinkLeft":[0.5,0.4],"eyeBlinkRight":[0.5,0.4],"happy":[0.5,0.3]},
            "head":[[0,0,0,1],[0,0,0,1]],"leftEye":[[0,0,0,1],[0,0,0,1]],
            "rightEye":[[0,0,0,1],[0,0,0,1]],"lookAt":[[0,0],[0,0]]}"#,
        )
        .unwrap();
        let names: &[&str] = &["blink", "eyeBlinkLeft", "eyeBlinkRight", "happy"];
        let plot = anim_plot(&anim, "t", &[("eyes", names)]);
        let labels: Vec<&str> = plot.panels[0]
            .series
            .iter()
            .map(|s| s.label.as_str())
            .collect();
        assert_eq!(labels, ["blink", "eyeBlinkLeft = eyeBlinkRight", "happy"]);
    }

    #[test]
    fn an_os_error_is_printed_once() {
        #[derive(Debug)]
        struct Quoting(std::io::Error);
        impl std::fmt::Display for Quoting {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "a.wav: cannot read: {}", self.0)
            }
        }
        impl std::error::Error for Quoting {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "Permission denied");
        let e = anyhow::Error::from(Quoting(io)).context("loading the voice");
        assert_eq!(
            error_text(&e),
            "loading the voice: a.wav: cannot read: Permission denied"
        );
        // A missing file in omote's words, however the OS says it.
        let io = std::io::Error::from_raw_os_error(2);
        assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
        let e = anyhow::Error::from(Quoting(io)).context("loading the voice");
        assert_eq!(
            error_text(&e),
            "loading the voice: a.wav: cannot read: no such file"
        );
    }

    #[test]
    fn an_error_is_one_capped_line_whatever_it_quotes() {
        let name = format!("bad\nerror: forged{}", "x".repeat(1 << 20));
        let e = anyhow::anyhow!("unknown field `{name}`").context("rig.json");
        let text = error_text(&e);
        assert!(!text.contains('\n'), "{}", &text[..200]);
        assert!(text.contains("bad\\nerror: forged"), "{}", &text[..200]);
        assert!(text.len() < 3 * ERROR_CAUSE_CHARS, "{} bytes", text.len());
        assert!(
            text.ends_with("more bytes)"),
            "{}",
            &text[text.len() - 40..]
        );
    }

    #[test]
    fn output_folders_are_checked_up_front() {
        let dir = scratch("check");
        assert!(check_output_file(&dir.join("r.anim.json"), "--record").is_ok());
        assert!(listing(&dir).is_empty(), "the probe is removed");
        let e = check_output_file(&dir.join("missing/r.anim.json"), "--record").unwrap_err();
        assert!(e.to_string().contains("does not exist"), "{e}");
        let e = check_output_file(&dir, "--record").unwrap_err();
        assert!(e.to_string().contains("is a folder"), "{e}");
        assert!(check_png_name(Path::new("plot")).is_err());
        assert!(check_png_name(Path::new("plot.PNG")).is_ok());
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_failed_write_leaves_no_file_and_keeps_the_old_one() {
        let dir = scratch("fail");
        let path = dir.join("out.anim.json");
        // Half a file, then the disk is "full": nothing appears under the final name.
        let e = write_with(&path, |tmp| {
            std::fs::write(tmp, b"{\"format\": \"omote-an")?;
            anyhow::bail!("No space left on device")
        })
        .unwrap_err();
        assert!(format!("{e:#}").contains("out.anim.json"), "{e:#}");
        assert!(listing(&dir).is_empty(), "{:?}", listing(&dir));
        // An earlier result survives a failed rewrite untouched.
        write_file(&path, b"old").unwrap();
        let _ = write_with(&path, |tmp| {
            std::fs::write(tmp, b"new, trunc")?;
            anyhow::bail!("interrupted")
        });
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert_eq!(listing(&dir), ["out.anim.json"]);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_finished_write_is_the_whole_file_and_leaves_no_temporary() {
        let dir = scratch("ok");
        let path = dir.join("plot.png");
        write_file(&path, b"first").unwrap();
        write_file(&path, b"second, longer").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second, longer");
        let mut plot = TimePlot::new("t");
        plot = plot.panel(Panel::new("p").series(Series::new("s", vec![(0.0, 0.0), (1.0, 1.0)])));
        write_png(&plot, &path).unwrap();
        assert_eq!(&std::fs::read(&path).unwrap()[1..4], b"PNG");
        assert_eq!(listing(&dir), ["plot.png"]);
        // A missing folder is an error naming the file, not a panic.
        let e = write_file(&dir.join("nope/x.json"), b"x").unwrap_err();
        assert!(format!("{e:#}").contains("nope/x.json"), "{e:#}");
        assert!(format!("{e:#}").contains("the folder"), "{e:#}");
        assert!(format!("{e:#}").contains("does not exist"), "{e:#}");
        // So does a plot (its own writer, through the same hidden file).
        let e = write_png(&plot, &dir.join("nope/p.png")).unwrap_err();
        let e = format!("{e:#}");
        assert!(
            e.contains("the folder") && !e.contains("backend error"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    /// Stages `files` (name, bytes) on two lanes and commits them; each file's outcome.
    fn batch(files: &[(PathBuf, &[u8])]) -> Vec<(PathBuf, Result<(), String>)> {
        let done = std::sync::Mutex::new(Vec::new());
        std::thread::scope(|scope| {
            let (to_commit, committer) = commit_behind(scope, 4, |path: PathBuf, r| {
                let r = r.map_err(|e| format!("{e:#}"));
                done.lock().unwrap().push((path, r));
            })
            .unwrap();
            for (i, (path, bytes)) in files.iter().enumerate() {
                match stage_file(path, bytes, i % 2, path.clone()) {
                    Ok(staged) => to_commit.send(staged).unwrap(),
                    Err(e) => done
                        .lock()
                        .unwrap()
                        .push((path.clone(), Err(format!("{e:#}")))),
                }
            }
            drop(to_commit);
            committer.finish().unwrap();
        });
        let mut done = done.into_inner().unwrap();
        done.sort_by(|a, b| a.0.cmp(&b.0));
        done
    }

    /// A FIFO opened for reading without waiting for a writer: what a writer puts in it
    /// stays in the pipe until [`drain`] reads it, so a wrong writer fails, never hangs.
    #[cfg(target_os = "linux")]
    fn fifo_reader(path: &Path) -> std::fs::File {
        use std::os::unix::fs::OpenOptionsExt;
        nix::unistd::mkfifo(path, nix::sys::stat::Mode::S_IRWXU).unwrap();
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
            .open(path)
            .unwrap()
    }

    #[cfg(target_os = "linux")]
    fn drain(mut reader: &std::fs::File) -> Vec<u8> {
        use std::io::Read;
        let mut got = Vec::new();
        let _ = reader.read_to_end(&mut got);
        got
    }

    #[cfg(target_os = "linux")]
    fn is_fifo(path: &Path) -> bool {
        use std::os::unix::fs::FileTypeExt;
        std::fs::symlink_metadata(path)
            .unwrap()
            .file_type()
            .is_fifo()
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_fifo_is_written_through_never_replaced() {
        let dir = scratch("fifo");
        let fifo = dir.join("out.anim.json");
        let reader = fifo_reader(&fifo);
        write_file(&fifo, b"through the pipe").unwrap();
        assert!(is_fifo(&fifo), "the FIFO was replaced by a file");
        assert_eq!(drain(&reader), b"through the pipe");
        // A writer that needs a path (the PNG encoder) writes in the temporary folder.
        write_with(&fifo, |tmp| Ok(std::fs::write(tmp, b"made at a path")?)).unwrap();
        assert!(is_fifo(&fifo));
        assert_eq!(drain(&reader), b"made at a path");
        // A batch's result whose name is a FIFO.
        let done = batch(&[(fifo.clone(), b"batched")]);
        assert!(done[0].1.is_ok(), "{done:?}");
        assert!(is_fifo(&fifo));
        assert_eq!(drain(&reader), b"batched");
        assert_eq!(listing(&dir), ["out.anim.json"], "no temporary is left");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_keeps_its_link_and_the_file_it_points_to_is_replaced() {
        let dir = scratch("symlink");
        std::fs::create_dir_all(dir.join("real")).unwrap();
        std::fs::create_dir_all(dir.join("links")).unwrap();
        let real = dir.join("real/r.json");
        std::fs::write(&real, b"old").unwrap();
        let link = dir.join("links/r.json");
        std::os::unix::fs::symlink("../real/r.json", &link).unwrap();
        let still_a_link = |p: &Path| {
            std::fs::symlink_metadata(p)
                .unwrap()
                .file_type()
                .is_symlink()
        };
        write_file(&link, b"new").unwrap();
        assert!(still_a_link(&link), "the symlink was replaced by a file");
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
        write_with(&link, |tmp| Ok(std::fs::write(tmp, b"by path")?)).unwrap();
        assert!(still_a_link(&link));
        assert_eq!(std::fs::read(&real).unwrap(), b"by path");
        let done = batch(&[(link.clone(), b"batched")]);
        assert!(done[0].1.is_ok(), "{done:?}");
        assert!(still_a_link(&link));
        assert_eq!(std::fs::read(&real).unwrap(), b"batched");
        assert_eq!(listing(&dir.join("real")), ["r.json"]);
        assert_eq!(listing(&dir.join("links")), ["r.json"]);
        // A link to nothing is refused, naming it.
        let dangling = dir.join("links/gone.json");
        std::os::unix::fs::symlink("../real/missing/x.json", &dangling).unwrap();
        let e = format!("{:#}", write_file(&dangling, b"x").unwrap_err());
        assert!(e.contains("gone.json") && e.contains("symlink"), "{e}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[cfg(unix)]
    #[test]
    fn a_hard_link_is_not_split() {
        use std::os::unix::fs::MetadataExt;
        let dir = scratch("hardlink");
        let a = dir.join("a.json");
        std::fs::write(&a, b"shared").unwrap();
        std::fs::hard_link(&a, dir.join("b.json")).unwrap();
        let e = format!("{:#}", write_file(&a, b"new").unwrap_err());
        assert!(e.contains("a.json") && e.contains("hard links"), "{e}");
        let e = write_with(&a, |tmp| Ok(std::fs::write(tmp, b"new")?)).unwrap_err();
        assert!(format!("{e:#}").contains("hard links"), "{e:#}");
        let done = batch(&[(a.clone(), b"batched")]);
        assert!(done[0].1.is_err(), "{done:?}");
        assert_eq!(std::fs::metadata(&a).unwrap().nlink(), 2);
        assert_eq!(std::fs::read(dir.join("b.json")).unwrap(), b"shared");
        assert_eq!(listing(&dir), ["a.json", "b.json"]);
        // A folder is refused by what it is.
        let e = format!("{:#}", write_file(&dir, b"x").unwrap_err());
        assert!(e.contains("is a folder"), "{e}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_batch_commits_whole_files_and_leaves_no_staging_folder() {
        let dir = scratch("batch");
        std::fs::write(dir.join("f3.json"), b"an older result").unwrap();
        let names: Vec<PathBuf> = (0..10).map(|i| dir.join(format!("f{i}.json"))).collect();
        let texts: Vec<String> = (0..10).map(|i| format!("result {i}")).collect();
        let files: Vec<(PathBuf, &[u8])> = names
            .iter()
            .zip(&texts)
            .map(|(n, t)| (n.clone(), t.as_bytes()))
            .collect();
        let done = batch(&files);
        assert_eq!(done.len(), 10);
        assert!(done.iter().all(|(_, r)| r.is_ok()), "{done:?}");
        for (name, text) in names.iter().zip(&texts) {
            assert_eq!(std::fs::read_to_string(name).unwrap(), *text);
        }
        let mut expected: Vec<String> = (0..10).map(|i| format!("f{i}.json")).collect();
        expected.sort();
        assert_eq!(listing(&dir), expected, "no staging folder is left");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_batch_names_the_file_it_could_not_write() {
        let dir = scratch("batch-fail");
        // A folder where a result should go: its rename fails, the others are written.
        std::fs::create_dir_all(dir.join("taken.json")).unwrap();
        let files: Vec<(PathBuf, &[u8])> = vec![
            (dir.join("ok.json"), b"fine"),
            (dir.join("taken.json"), b"lost"),
            (dir.join("missing/x.json"), b"nowhere"),
        ];
        let done = batch(&files);
        let outcome = |name: &str| {
            done.iter()
                .find(|(p, _)| p.ends_with(name))
                .unwrap()
                .1
                .clone()
        };
        assert!(outcome("ok.json").is_ok());
        let e = outcome("taken.json").unwrap_err();
        assert!(e.contains("taken.json") && e.contains("is a folder"), "{e}");
        let e = outcome("x.json").unwrap_err();
        assert!(e.contains("missing/x.json"), "{e}");
        assert!(
            !dir.join("missing").exists(),
            "a missing result folder is not made"
        );
        assert_eq!(listing(&dir), ["ok.json", "taken.json"]);
        assert_eq!(
            std::fs::read_dir(dir.join("taken.json")).unwrap().count(),
            0
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}
