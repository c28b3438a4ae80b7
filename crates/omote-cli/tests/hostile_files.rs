//! Hostile and careless file use (issue 37, the file half), one test per class: a
//! result never replaces what is not a regular file nor splits a hard link, and a run
//! never writes over a file it reads or, unless told, a user's file.

use std::path::Path;
use std::process::{Output, Stdio};

use support::{omote, scratch, write_wav16};

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
    let o = run(&[
        "avatar".as_ref(),
        "-o".as_ref(),
        dir.join("link.vrm").as_os_str(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let meta = std::fs::symlink_metadata(dir.join("link.vrm")).unwrap();
    assert!(meta.file_type().is_symlink(), "the symlink was replaced");
    assert_eq!(std::fs::read(dir.join("real.vrm")).unwrap(), avatar);
    // A hard link: refused, both names keep the old file.
    std::fs::write(dir.join("a.vrm"), b"shared").unwrap();
    std::fs::hard_link(dir.join("a.vrm"), dir.join("b.vrm")).unwrap();
    let o = run(&[
        "avatar".as_ref(),
        "-o".as_ref(),
        dir.join("a.vrm").as_os_str(),
    ]);
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

/// A scene whose `friend` plays the user's `hero.vrm` while `hero` is the built-in
/// second avatar, which a bake writes out as `hero.vrm`.
fn hero_scene(dir: &Path) {
    std::fs::write(dir.join("hero.vrm"), omote_vrm::avatar::generate()).unwrap();
    std::fs::write(
        dir.join("scene.toml"),
        "[[character]]\nid = \"hero\"\nrig = \"builtin:second\"\n\n\
         [[character]]\nid = \"friend\"\nrig = \"hero.vrm\"\nposition = [0.5, 0.0, 0.0]\n",
    )
    .unwrap();
}

#[test]
fn a_bake_never_writes_over_a_file_it_reads() {
    let dir = scratch("bake-reads");
    hero_scene(&dir);
    let users = std::fs::read(dir.join("hero.vrm")).unwrap();
    for force in [false, true] {
        let scene = dir.join("scene.toml");
        let mut args: Vec<&std::ffi::OsStr> = vec![
            "bake".as_ref(),
            scene.as_os_str(),
            "--out".as_ref(),
            dir.as_os_str(),
        ];
        if force {
            args.push("--force".as_ref());
        }
        let o = run(&args);
        assert!(
            !o.status.success(),
            "force {force}: the bake wrote over hero.vrm"
        );
        let e = stderr(&o);
        assert!(e.contains("hero.vrm") && e.contains("reads"), "{e}");
        assert_eq!(std::fs::read(dir.join("hero.vrm")).unwrap(), users);
        assert!(
            !dir.join("hero.anim.json").exists(),
            "checked before any work"
        );
    }
    // Elsewhere it bakes, and bakes again over its own earlier results.
    let out = dir.join("out");
    for _ in 0..2 {
        let o = run(&[
            "bake".as_ref(),
            dir.join("scene.toml").as_os_str(),
            "--out".as_ref(),
            out.as_os_str(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    assert!(out.join("hero.vrm").is_file() && out.join("friend.anim.json").is_file());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn demo_never_replaces_a_users_scene_unless_forced() {
    let dir = scratch("demo-user");
    std::fs::write(dir.join("scene.toml"), "# my own scene\n").unwrap();
    let o = run(&["demo".as_ref(), "--out".as_ref(), dir.as_os_str()]);
    assert!(!o.status.success(), "the demo replaced the user's scene");
    let e = stderr(&o);
    assert!(e.contains("scene.toml") && e.contains("--force"), "{e}");
    assert_eq!(
        std::fs::read_to_string(dir.join("scene.toml")).unwrap(),
        "# my own scene\n"
    );
    assert!(
        !dir.join("voice").exists(),
        "checked before anything is written"
    );
    let o = run(&[
        "demo".as_ref(),
        "--out".as_ref(),
        dir.as_os_str(),
        "--force".as_ref(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Its own files again: nothing differs, nothing to force.
    let o = run(&["demo".as_ref(), "--out".as_ref(), dir.as_os_str()]);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn speak_never_writes_over_its_voice() {
    let dir = scratch("speak-reads");
    // A voice file under the name of a result (audio is decoded by its content).
    let voice = dir.join("speak.png");
    let tone: Vec<i16> = (0..16_000)
        .map(|i| ((i as f32 * 0.05).sin() * 8000.0) as i16)
        .collect();
    write_wav16(&voice, 16_000, &tone);
    let before = std::fs::read(&voice).unwrap();
    let o = run(&[
        "speak".as_ref(),
        voice.as_os_str(),
        "--out".as_ref(),
        dir.as_os_str(),
        "--force".as_ref(),
    ]);
    assert!(!o.status.success(), "speak wrote over its own voice");
    let e = stderr(&o);
    assert!(e.contains("speak.png") && e.contains("reads"), "{e}");
    assert_eq!(std::fs::read(&voice).unwrap(), before);
    assert!(!dir.join("speak.scene.toml").exists());
    std::fs::remove_dir_all(&dir).ok();
}

/// Runs `omote ARGS`, killed (and the test failed) if it takes longer than `limit`: a
/// read of a FIFO with no writer would block forever.
fn run_within(args: &[&std::ffi::OsStr], limit: std::time::Duration) -> Output {
    let mut child = omote()
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t0.elapsed() > limit {
            child.kill().ok();
            child.wait().ok();
            panic!("omote {args:?} did not finish within {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// `omote simulate --seconds 1 [--rig RIG] --out OUT`.
fn simulate_one_second<'a>(rig: Option<&'a Path>, out: &'a Path) -> Vec<&'a std::ffi::OsStr> {
    let mut args: Vec<&std::ffi::OsStr> =
        vec!["simulate".as_ref(), "--seconds".as_ref(), "1".as_ref()];
    if let Some(rig) = rig {
        args.extend(["--rig".as_ref(), rig.as_os_str()]);
    }
    args.extend(["--out".as_ref(), out.as_os_str()]);
    args
}

/// Input files that are not regular files — `/dev/zero` (behind a name of the right
/// kind, so the format check passes) as a VRM, a rig and a scene, a FIFO as a scene —
/// are refused at once with the file named, never read.
#[cfg(unix)]
#[test]
fn inputs_that_are_not_files_are_refused_unread() {
    let dir = scratch("not-files");
    let limit = std::time::Duration::from_secs(20);
    let zero = |name: &str| {
        let p = dir.join(name);
        std::os::unix::fs::symlink("/dev/zero", &p).unwrap();
        p
    };
    let out = dir.join("out");
    let vrm = zero("zero.vrm");
    let rig = zero("zero.toml");
    let scene = zero("scene.toml");
    let cases: Vec<(Vec<&std::ffi::OsStr>, &Path)> = vec![
        (vec!["inspect".as_ref(), vrm.as_os_str()], &vrm),
        (simulate_one_second(Some(&rig), &out), &rig),
        (
            vec![
                "bake".as_ref(),
                scene.as_os_str(),
                "--out".as_ref(),
                out.as_os_str(),
            ],
            &scene,
        ),
    ];
    for (args, named) in &cases {
        let o = run_within(args, limit);
        assert!(!o.status.success(), "{args:?}");
        let e = stderr(&o);
        assert!(
            e.contains(&*named.to_string_lossy()) && e.contains("a character device"),
            "{args:?}: {e}"
        );
        assert!(!e.contains("panicked"), "{e}");
    }
    let fifo = dir.join("pipe.toml");
    if std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success())
    {
        let o = run_within(
            &[
                "bake".as_ref(),
                fifo.as_os_str(),
                "--out".as_ref(),
                out.as_os_str(),
            ],
            limit,
        );
        assert!(!o.status.success());
        let e = stderr(&o);
        assert!(e.contains("pipe.toml") && e.contains("a FIFO"), "{e}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A scene file over its limit is refused before it is parsed, naming the file and the
/// limit (a parse costs tens of bytes of memory per byte).
#[test]
fn a_scene_file_is_capped_before_parsing() {
    let dir = scratch("scene-cap");
    let scene = dir.join("long.toml");
    let mut text = String::from("[[character]]\nid = \"a\"\nrig = \"builtin\"\n");
    let comment = format!("# {}\n", "x".repeat(1000));
    while text.len() <= 4 * 1024 * 1024 {
        text.push_str(&comment);
    }
    std::fs::write(&scene, &text).unwrap();
    let out = dir.join("out");
    let o = run(&[
        "bake".as_ref(),
        scene.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    assert!(!o.status.success(), "a scene over the limit was baked");
    let e = stderr(&o);
    assert!(
        e.contains("long.toml") && e.contains("4 MiB a scene file"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A VRM whose name holds a line feed and is 50 MB long: `omote inspect` prints it as one
/// short line (escaped, capped), never a forged line nor a 50 MB one.
#[test]
fn a_hostile_model_name_is_one_short_line() {
    let dir = scratch("name");
    let name = format!("Evil\nerror: forged line{}", "x".repeat(50 * 1024 * 1024));
    let style = omote_vrm::avatar::AvatarStyle {
        name: Box::leak(name.into_boxed_str()),
        ..omote_vrm::avatar::AvatarStyle::SECOND
    };
    let vrm = dir.join("evil.vrm");
    std::fs::write(&vrm, omote_vrm::avatar::generate_styled(&style)).unwrap();
    let o = run(&["inspect".as_ref(), vrm.as_os_str()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.len() < 64 * 1024, "{} bytes printed", out.len());
    assert!(
        !out.lines().any(|l| l.starts_with("error: forged")),
        "a forged line: {out}"
    );
    let line = out.lines().find(|l| l.starts_with("name:")).unwrap();
    assert!(line.contains("Evil\\nerror: forged line"), "{line}");
    assert!(line.ends_with("more bytes)"), "{line}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `omote speak`'s own scene is never blamed for the user's arguments: an unknown
/// expression is reported against `--expression`, not a line of `speak.scene.toml`.
#[test]
fn speak_blames_the_argument_not_its_own_scene() {
    let dir = scratch("speak-blame");
    let voice = dir.join("v.wav");
    let tone: Vec<i16> = (0..16_000)
        .map(|i| ((i as f32 * 0.05).sin() * 8000.0) as i16)
        .collect();
    write_wav16(&voice, 16_000, &tone);
    let out = dir.join("out");
    let o = run(&[
        "speak".as_ref(),
        voice.as_os_str(),
        "--expression".as_ref(),
        "hapy=1".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("--expression") && e.contains("hapy"), "{e}");
    assert!(!e.contains("speak.scene.toml"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

/// An error that quotes a name from a file (here an unknown key of a rig, a line feed in
/// it and a megabyte long) is printed as one short line: it cannot forge output lines.
#[test]
fn an_error_quoting_a_hostile_key_is_one_short_line() {
    let dir = scratch("hostile-key");
    let rig = dir.join("rig.json");
    let key = format!("k\nerror: forged line{}", "x".repeat(1 << 20));
    std::fs::write(&rig, serde_json::json!({ key: 1 }).to_string()).unwrap();
    let out = dir.join("out");
    let o = run(&simulate_one_second(Some(&rig), &out));
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.len() < 16 * 1024, "{} bytes printed", err.len());
    assert!(
        !err.lines().any(|l| l.starts_with("error: forged")),
        "a forged line: {}",
        &err[..err.len().min(400)]
    );
    assert!(err.contains("rig.json"), "{}", &err[..err.len().min(400)]);
    std::fs::remove_dir_all(&dir).ok();
}

/// Every writer refuses to replace a file the run has read, whatever the command: here
/// `convert` told to write its VRMA over its own input (named `.vrma` by mistake), and
/// through a symlink to it.
#[test]
fn no_result_replaces_an_input() {
    let dir = scratch("input-as-output");
    let o = run(&simulate_one_second(None, &dir));
    assert!(o.status.success(), "{}", stderr(&o));
    let input = dir.join("take.vrma");
    std::fs::rename(dir.join("simulate.anim.json"), &input).unwrap();
    let before = std::fs::read(&input).unwrap();
    let link = dir.join("link.vrma");
    std::os::unix::fs::symlink(&input, &link).unwrap();
    for out in [&input, &link] {
        let o = run(&[
            "convert".as_ref(),
            input.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
        ]);
        assert!(
            !o.status.success(),
            "wrote over its input through {}",
            out.display()
        );
        assert!(
            stderr(&o).contains("is a file this run reads"),
            "{}",
            stderr(&o)
        );
        assert_eq!(std::fs::read(&input).unwrap(), before, "the input changed");
    }
    // Another name is written as before.
    let o = run(&[
        "convert".as_ref(),
        input.as_os_str(),
        "-o".as_ref(),
        dir.join("take.out.vrma").as_os_str(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).ok();
}

/// `omote avatar` writes a VRM: an output named `.png` (or with no extension) is refused
/// by name, and nothing is written.
#[test]
fn the_avatar_is_not_written_under_another_format_s_name() {
    let dir = scratch("avatar-name");
    for name in ["av.png", "av"] {
        let out = dir.join(name);
        let o = run(&["avatar".as_ref(), "-o".as_ref(), out.as_os_str()]);
        let e = stderr(&o);
        assert!(!o.status.success(), "{name}: {e}");
        assert!(e.contains(name) && e.contains("name it .vrm"), "{e}");
        assert!(!out.exists(), "{name} was written");
    }
    let o = run(&[
        "avatar".as_ref(),
        "-o".as_ref(),
        dir.join("av.GLB").as_os_str(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// A bake whose output folder holds a name it may not replace (here a hard-linked plot)
/// is refused before anything is written: the earlier bake's files all stay as they were,
/// not half replaced.
#[cfg(unix)]
#[test]
fn a_refused_bake_writes_nothing() {
    let dir = scratch("refused-bake");
    let scene = dir.join("scene.toml");
    let out = dir.join("out");
    let bake = |happy: &str| {
        std::fs::write(
            &scene,
            format!(
                "[[character]]\nid = \"a\"\n  [[character.acting]]\n  t = 0.2\n  set = {{ happy = {happy} }}\n"
            ),
        )
        .unwrap();
        run(&[
            "bake".as_ref(),
            scene.as_os_str(),
            "--out".as_ref(),
            out.as_os_str(),
        ])
    };
    let o = bake("0.5");
    assert!(o.status.success(), "{}", stderr(&o));
    let snapshot = || {
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read(e.path()).unwrap(),
                )
            })
            .collect();
        files.sort();
        files
    };
    let plot = out.join("a.png");
    assert!(
        plot.is_file(),
        "the bake draws a plot: {:?}",
        snapshot().iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    std::fs::hard_link(&plot, dir.join("kept.png")).unwrap();
    let before = snapshot();
    let o = bake("0.9");
    assert!(!o.status.success(), "the hard link is refused");
    assert!(
        stderr(&o).contains("a.png") && stderr(&o).contains("hard links"),
        "{}",
        stderr(&o)
    );
    assert!(
        snapshot() == before,
        "a refused bake changed the output folder"
    );
}

/// `live --record` naming a file the session reads (its replay) is refused at start, not
/// after the session (which would lose the whole take); the input stays as it was.
#[test]
fn a_recording_over_an_input_is_refused_before_the_session() {
    let dir = scratch("record-over-input");
    // A name --record takes (.json): the replay's lines read as well under it.
    let take = dir.join("take.json");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/live/take.jsonl");
    std::fs::copy(&root, &take).unwrap();
    let before = std::fs::read(&take).unwrap();
    let t0 = std::time::Instant::now();
    let o = run(&[
        "live".as_ref(),
        "--replay".as_ref(),
        take.as_os_str(),
        "--loop".as_ref(),
        "--seconds".as_ref(),
        "60".as_ref(),
        "--record".as_ref(),
        take.as_os_str(),
    ]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("--record") && stderr(&o).contains("a result never replaces an input"),
        "{}",
        stderr(&o)
    );
    assert!(
        t0.elapsed() < std::time::Duration::from_secs(30),
        "refused only after the session"
    );
    assert_eq!(std::fs::read(&take).unwrap(), before);
}
