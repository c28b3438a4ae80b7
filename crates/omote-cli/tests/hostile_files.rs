//! Hostile and careless file use (issue 37, the file half), one test per class: a
//! result never replaces what is not a regular file nor splits a hard link, and a run
//! never writes over a file it reads or, unless told, a user's file.

use std::path::Path;
use std::process::{Output, Stdio};

use support::{omote, scratch};

mod support;

fn run<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    omote().args(args).stdin(Stdio::null()).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `omote avatar -o NAME` through a symlink, a FIFO and a hard link: the link stays and
/// its file gets the avatar, the FIFO gets it through, the hard link is refused whole.
#[cfg(unix)]
#[test]
fn results_keep_symlinks_fifos_and_hard_links() {
    let dir = scratch("kinds");
    let avatar = omote_vrm::avatar::generate();
    // A symlink: the file it points to is replaced, the link stays.
    std::fs::write(dir.join("real.vrm"), b"old").unwrap();
    std::os::unix::fs::symlink("real.vrm", dir.join("link.vrm")).unwrap();
    let o = run(&["avatar".as_ref(), "-o".as_ref(), dir.join("link.vrm").as_os_str()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let meta = std::fs::symlink_metadata(dir.join("link.vrm")).unwrap();
    assert!(meta.file_type().is_symlink(), "the symlink was replaced");
    assert_eq!(std::fs::read(dir.join("real.vrm")).unwrap(), avatar);
    // A hard link: refused, both names keep the old file.
    std::fs::write(dir.join("a.vrm"), b"shared").unwrap();
    std::fs::hard_link(dir.join("a.vrm"), dir.join("b.vrm")).unwrap();
    let o = run(&["avatar".as_ref(), "-o".as_ref(), dir.join("a.vrm").as_os_str()]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("a.vrm") && stderr(&o).contains("hard links"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(dir.join("b.vrm")).unwrap(), b"shared");
    assert_eq!(std::fs::read(dir.join("a.vrm")).unwrap(), b"shared");
    // A FIFO: written through to its reader, and still a FIFO.
    let fifo = dir.join("pipe.vrm");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        let o = run(&["avatar".as_ref(), "-o".as_ref(), fifo.as_os_str()]);
        assert!(o.status.success(), "{}", stderr(&o));
        use std::os::unix::fs::FileTypeExt;
        let still = std::fs::symlink_metadata(&fifo).unwrap().file_type();
        if !still.is_fifo() {
            // Unblock the reader before failing (it waits on the FIFO's open).
            let _ = std::fs::OpenOptions::new().write(true).open(&fifo);
            panic!("the FIFO was replaced by a file");
        }
        assert_eq!(reader.join().unwrap(), avatar);
    } else {
        eprintln!("skipped the FIFO: mkfifo is not available");
    }
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut expected = vec!["a.vrm", "b.vrm", "link.vrm", "real.vrm"];
    if fifo.exists() {
        expected.insert(3, "pipe.vrm");
    }
    assert_eq!(names, expected, "no temporary is left");
    std::fs::remove_dir_all(&dir).ok();
}
