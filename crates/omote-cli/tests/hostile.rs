//! Hostile and mistaken input (issue 18), one test per class: every number is range
//! checked at the edge, settings files are checked field by field, nothing recorded is
//! lost (Ctrl-C, end of input inside a frame), a performer's clock is trusted only
//! within limits, batches never write one file twice, text from files and the network is
//! escaped, and messages say what is wrong in words.

use std::io::{BufRead, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use support::{omote, run_with_stdin, scratch, write_wav16};

mod support;

fn run(args: &[&str]) -> Output {
    omote().args(args).stdin(Stdio::null()).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn list(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Every number class on the command line — frame rates, durations, threads, sample
/// rates, channels, speeds, shares, sizes, lip sync profile numbers — refuses 0, NaN,
/// infinities, negatives and huge values as a usage error (exit 2) naming the range, in
/// every command; none panics or allocates first.
#[test]
fn every_number_on_the_command_line_is_range_checked() {
    let dir = scratch("numbers");
    let wav = dir.join("v.wav");
    write_wav16(&wav, 16_000, &omote_testdata::buzz(16_000, 0.5, 0.1..0.4));
    let wav = wav.to_str().unwrap();
    let out = dir.join("o");
    let out = out.to_str().unwrap();
    let bad_numbers = ["0", "nan", "inf", "-inf", "-1", "1e9", "1e400"];
    // (command before the option, option, command after the value, expected words)
    let cases: Vec<(Vec<&str>, &str, Vec<&str>, &str)> = vec![
        (
            vec!["simulate", "--out", out],
            "--fps",
            vec![],
            "between 1 and 1000",
        ),
        (
            vec!["simulate", "--out", out],
            "--seconds",
            vec![],
            "at most 86400",
        ),
        (
            vec!["retarget", "x.jsonl"],
            "--fps",
            vec![],
            "between 1 and 1000",
        ),
        (vec!["lipsync", wav], "--fps", vec![], "between 1 and 1000"),
        (vec!["lipsync", wav], "--jobs", vec![], "between 1 and 256"),
        (
            vec!["live", "--stdin", "64x64"],
            "--fps",
            vec![],
            "between 1 and 1000",
        ),
        (
            vec!["live", "--stdin", "64x64"],
            "--voice-rate",
            vec![],
            "between 4000 and 384000",
        ),
        (
            vec!["track", "--stdin", "64x64", "--out", "-"],
            "--fps",
            vec![],
            "between 1 and 1000",
        ),
        (vec!["vmc", "listen"], "--fps", vec![], "between 1 and 1000"),
        (vec!["vmc", "listen"], "--seconds", vec![], "at most 86400"),
        (vec!["vmc", "listen"], "--idle", vec![], "at most 86400"),
        (
            vec!["vmc", "send", "x.anim.json"],
            "--speed",
            vec![],
            "between 0.01 and 100",
        ),
        (
            vec!["lipsync", "live"],
            "--rate",
            vec![],
            "between 4000 and 384000",
        ),
        (
            vec!["lipsync", "live"],
            "--channels",
            vec![],
            "between 1 and 64",
        ),
        (
            vec!["lipsync", "calibrate", "--build", "--labelled-dir", "."],
            "--sharpness",
            vec!["-o", "p.json"],
            "between 0.001 and 100",
        ),
        (
            vec!["lipsync", "calibrate", "--build", "--labelled-dir", "."],
            "--n-bias",
            vec!["-o", "p.json"],
            "between -100 and 100",
        ),
        (
            vec!["retarget", "x.jsonl"],
            "--mouth-blend",
            vec![],
            "between 0 and 1",
        ),
    ];
    for (before, option, after, words) in &cases {
        for bad in bad_numbers {
            // 0 and -1 are fine for the log-prior, 0 for a share.
            if (*option == "--n-bias" && (bad == "0" || bad == "-1"))
                || (*option == "--mouth-blend" && bad == "0")
            {
                continue;
            }
            let mut args = before.clone();
            let flag = format!("{option}={bad}");
            args.push(&flag);
            args.extend(after);
            let o = run(&args);
            let err = stderr(&o);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
            assert!(!err.contains("panicked"), "{args:?}: {err}");
            if !["nan", "inf", "-inf", "1e400"].contains(&bad) {
                assert!(err.contains(words), "{args:?}: {err}");
            } else {
                assert!(err.contains("not a finite number"), "{args:?}: {err}");
            }
            // A negative as its own argument (`--fps -1`) is the option's value, checked
            // the same way, not an unknown flag.
            if bad == "-1" && *option != "--n-bias" {
                let mut args = before.clone();
                args.extend([*option, bad]);
                args.extend(after);
                let o = run(&args);
                let err = stderr(&o);
                assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
                assert!(err.contains(words), "{args:?}: {err}");
            }
        }
    }
    // Sizes: no pixels, or more than the tracker takes, before a buffer is allocated.
    for size in ["0x0", "640x0", "100000x100000", "16384x16384", "axb"] {
        for cmd in [
            &["live", "--stdin"][..],
            &["track", "--out", "-", "--stdin"][..],
        ] {
            let mut args = cmd.to_vec();
            args.push(size);
            let o = run(&args);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        }
    }
    // Within every range, but the anim would not fit in memory: refused up front with
    // the limit (a day at 1000 fps needs ~65 GB).
    let o = run(&[
        "simulate",
        "--seconds",
        "86400",
        "--fps",
        "1000",
        "--out",
        out,
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("over the limit of 134217728"), "{err}");
    assert!(!Path::new(out).exists(), "nothing is written");
    // A sequence whose timestamps give 1e9 fps is refused, not written as an anim that
    // `vmc send` would play as a flood.
    let seq = dir.join("fast.jsonl");
    std::fs::write(
        &seq,
        "{\"t\":0,\"blendshapes\":{}}\n{\"t\":1e-9,\"blendshapes\":{}}\n{\"t\":2e-9,\"blendshapes\":{}}\n",
    )
    .unwrap();
    let o = omote()
        .args(["retarget", "--input", "arkit", "--out", out])
        .arg(&seq)
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("outside 1–1000 fps"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Settings and profile files: every number is checked on load with an error naming the
/// file and the field; a profile of finite but huge numbers is refused instead of
/// writing NaN rows.
#[test]
fn settings_and_profiles_are_checked_field_by_field() {
    let dir = scratch("settings");
    for (name, text, field) in [
        (
            "yaw.toml",
            "[limits]\nyawDeg = -10\n",
            "limits.yawDeg = -10",
        ),
        (
            "pitch.toml",
            "[limits]\npitchDeg = nan\n",
            "limits.pitchDeg = NaN",
        ),
        ("gain.toml", "[mouth]\ngain = -3\n", "mouth.gain = -3"),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let o = omote()
            .args(["live", "--stdin", "64x64", "--config"])
            .arg(&path)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.contains(name) && err.contains(field), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    // A profile with a huge (finite) mean.
    let wav = dir.join("v.wav");
    write_wav16(&wav, 16_000, &omote_testdata::buzz(16_000, 0.6, 0.1..0.5));
    let mut profile: serde_json::Value = serde_json::from_str(include_str!(
        "../../omote-lipsync/assets/default_profile.json"
    ))
    .unwrap();
    profile["means"][0][0] = serde_json::json!(3e38);
    let huge = dir.join("huge.json");
    std::fs::write(&huge, profile.to_string()).unwrap();
    let o = omote()
        .arg("lipsync")
        .arg(&wav)
        .arg("--profile")
        .arg(&huge)
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("huge.json") && err.contains("means"), "{err}");
    assert!(!dir.join("v.lipsync.json").exists());
    std::fs::remove_dir_all(&dir).ok();
}

fn gray_frames(n: usize, w: usize, h: usize) -> Vec<u8> {
    vec![90u8; n * w * h * 3]
}

/// `live` and `track` on stdin that ends inside a frame (an interrupted ffmpeg) keep the
/// whole frames before it; a `--record` folder that does not exist is an error before
/// the session starts.
#[test]
fn an_input_ending_inside_a_frame_keeps_what_was_recorded() {
    let dir = scratch("partial");
    let rec = dir.join("r.anim.json");
    let mut input = gray_frames(3, 64, 48);
    input.extend(vec![90u8; 1000]); // a third of a frame
    let o = run_with_stdin(
        omote()
            .args(["live", "--stdin", "64x48", "--record"])
            .arg(&rec),
        input.clone(),
    );
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("ended inside a frame"), "{err}");
    assert!(err.contains("input stdin: 3 results"), "{err}");
    // The recording follows the session's clock (a few milliseconds here): not empty.
    let anim = omote_config::load_anim(&rec).unwrap();
    assert!(anim.frames() >= 1);
    let seq = dir.join("t.jsonl");
    let o = run_with_stdin(
        omote()
            .args(["track", "--stdin", "64x48", "--out"])
            .arg(&seq),
        input,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&seq).unwrap().lines().count(), 3);
    assert_eq!(
        list(&dir),
        ["r.anim.json", "t.jsonl"],
        "no temporary files left"
    );
    // A missing folder is noticed at once, not after the session.
    let t0 = Instant::now();
    let o = omote()
        .args(["live", "--stdin", "64x48", "--record"])
        .arg(dir.join("missing/r.anim.json"))
        .stdin(Stdio::piped()) // never closed: the session would wait forever
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("does not exist"), "{}", stderr(&o));
    assert!(t0.elapsed() < Duration::from_secs(30));
    std::fs::remove_dir_all(&dir).ok();
}

/// Sends `signal` (`-INT`: Ctrl-C; `-TERM`: `timeout`, systemd, a script) to `child`.
fn interrupt(child: &std::process::Child, signal: &str) {
    let ok = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
}

/// Waits for `child` at most `limit`; kills it and fails when it does not end.
fn wait_for(mut child: std::process::Child, limit: Duration) -> Output {
    let t0 = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t0.elapsed() > limit {
            child.kill().ok();
            panic!("did not stop within {limit:?} of Ctrl-C");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

/// Ctrl-C on `live --record` and SIGTERM on `vmc listen --record` end the session and
/// write the recording (exit 0), even while the input is idle.
#[test]
fn ctrl_c_writes_the_recording() {
    let dir = scratch("ctrl-c");
    // live: frames on a pipe that stays open; a VMC packet proves a frame went through.
    let vmc = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    vmc.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let rec = dir.join("live.anim.json");
    let mut child = omote()
        .args(["live", "--stdin", "64x48", "--vmc"])
        .arg(vmc.local_addr().unwrap().to_string())
        .arg("--record")
        .arg(&rec)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&gray_frames(2, 64, 48)).unwrap();
    stdin.flush().unwrap();
    let mut buf = [0u8; 65_536];
    loop {
        match vmc.recv_from(&mut buf) {
            Ok(_) => break,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => panic!("no frame was driven: {e}"),
        }
    }
    interrupt(&child, "-INT");
    let o = wait_for(child, Duration::from_secs(30));
    drop(stdin);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("interrupted"), "{err}");
    let anim = omote_config::load_anim(&rec).unwrap();
    assert!(anim.frames() >= 1);

    // vmc listen: a few packets, then Ctrl-C long before --idle would end it.
    let port = std::net::UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    let rec = dir.join("listen.anim.json");
    let child = spawn_listener(&addr, &rec, &["--idle", "600"]);
    let send = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    for i in 0..10 {
        let packet = bundle(&[
            msg("/VMC/Ext/T", &[Arg::F(i as f32 / 60.0)]),
            msg("/VMC/Ext/Blend/Val", &[Arg::S("A"), Arg::F(0.5)]),
            msg("/VMC/Ext/Blend/Apply", &[]),
        ]);
        send.send_to(&packet, &addr).unwrap();
    }
    std::thread::sleep(Duration::from_millis(300));
    interrupt(&child, "-TERM");
    let o = wait_for(child, Duration::from_secs(10));
    assert!(o.status.success(), "{:?}: {}", o.status, listener_stderr());
    let anim = omote_config::load_anim(&rec).unwrap();
    assert!(
        anim.frames() >= 1 && anim.frames() <= 10,
        "{}",
        anim.frames()
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `omote vmc listen` bound to `addr`, recording to `rec`; returns once it listens.
fn spawn_listener(addr: &str, rec: &Path, extra: &[&str]) -> std::process::Child {
    let mut child = omote()
        .args(["vmc", "listen", "--bind", addr, "--record"])
        .arg(rec)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for "vmc listen: on ADDR", then hand stderr back through a thread.
    let err = child.stderr.take().unwrap();
    let mut lines = std::io::BufReader::new(err);
    let mut first = String::new();
    lines.read_line(&mut first).unwrap();
    assert!(first.contains("vmc listen: on"), "{first}");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut rest = Vec::new();
        let _ = std::io::Read::read_to_end(&mut lines, &mut rest);
        let _ = tx.send(rest);
    });
    LISTENER_STDERR.with(|s| s.borrow_mut().push(rx));
    child
}

thread_local! {
    static LISTENER_STDERR: std::cell::RefCell<Vec<std::sync::mpsc::Receiver<Vec<u8>>>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// The rest of the last listener's stderr (after it ended).
fn listener_stderr() -> String {
    LISTENER_STDERR.with(|s| {
        let rx = s.borrow_mut().pop().unwrap();
        String::from_utf8_lossy(&rx.recv_timeout(Duration::from_secs(10)).unwrap()).into_owned()
    })
}

enum Arg<'a> {
    S(&'a str),
    F(f32),
}

fn osc_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(s.as_bytes());
    out.push(0);
    while !out.len().is_multiple_of(4) {
        out.push(0);
    }
}

fn msg(address: &str, args: &[Arg]) -> Vec<u8> {
    let mut out = Vec::new();
    osc_str(&mut out, address);
    let tags: String = std::iter::once(',')
        .chain(args.iter().map(|a| match a {
            Arg::S(_) => 's',
            Arg::F(_) => 'f',
        }))
        .collect();
    osc_str(&mut out, &tags);
    for a in args {
        match a {
            Arg::S(s) => osc_str(&mut out, s),
            Arg::F(f) => out.extend_from_slice(&f.to_be_bytes()),
        }
    }
    out
}

fn bundle(messages: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    osc_str(&mut out, "#bundle");
    out.extend_from_slice(&1u64.to_be_bytes());
    for m in messages {
        out.extend_from_slice(&(m.len() as i32).to_be_bytes());
        out.extend_from_slice(m);
    }
    out
}

/// A hostile performer: a clock that leaps to 1e30 and back, a quaternion that
/// overflows, an all-zero one, thousands of invented names. The recording stays within
/// the real time (plus the slack), has no `[0, 0, 0, 0]` rotation, and the bad packets
/// are counted; what is printed is escaped.
#[test]
fn a_hostile_vmc_performer_cannot_blow_up_the_recording() {
    let dir = scratch("vmc-hostile");
    let port = std::net::UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    let rec = dir.join("r.anim.json");
    let child = spawn_listener(&addr, &rec, &["--idle", "1", "--fps", "60"]);
    let t0 = Instant::now();
    let send = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let head = |q: [f32; 4]| {
        msg(
            "/VMC/Ext/Bone/Pos",
            &[
                Arg::S("Head"),
                Arg::F(0.0),
                Arg::F(0.0),
                Arg::F(0.0),
                Arg::F(q[0]),
                Arg::F(q[1]),
                Arg::F(q[2]),
                Arg::F(q[3]),
            ],
        )
    };
    let apply = || msg("/VMC/Ext/Blend/Apply", &[]);
    let clock = |t: f32| msg("/VMC/Ext/T", &[Arg::F(t)]);
    // A clock that runs fast: 9 s per packet (each gap just under the fill cap).
    for i in 0..100 {
        let packet = bundle(&[
            clock(1000.0 + 9.0 * i as f32),
            msg("/VMC/Ext/Blend/Val", &[Arg::S("A"), Arg::F(0.5)]),
            apply(),
        ]);
        send.send_to(&packet, &addr).unwrap();
    }
    let times = [0.0, 1e30, 100_000.0, 1e30, 0.5, 3e38, 7.0, 1e12];
    for (i, t) in times.iter().cycle().take(400).enumerate() {
        let q = match i % 3 {
            0 => [3e38, 0.0, 0.0, 3e38], // overflows when squared
            1 => [0.0, 0.0, 0.0, 0.0],   // no rotation at all
            _ => [0.0, 0.0, 0.0, 1.0],
        };
        let name = format!("\u{1b}]0;pwned{i}\u{7}");
        let packet = bundle(&[
            clock(*t),
            head(q),
            msg("/VMC/Ext/Blend/Val", &[Arg::S(&name), Arg::F(1.0)]),
            apply(),
        ]);
        send.send_to(&packet, &addr).unwrap();
        if i % 50 == 0 {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    let o = wait_for(child, Duration::from_secs(30));
    let elapsed = t0.elapsed().as_secs_f64();
    let err = listener_stderr();
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "{err}");
    assert!(err.contains("ignored"), "bad packets are reported: {err}");
    assert!(
        !err.contains('\u{1b}') && !out.contains('\u{1b}'),
        "{err}{out}"
    );
    let anim = omote_config::load_anim(&rec).unwrap();
    // Bounded by the real time (at most 100× fast, a replay's top speed) plus the clock
    // slack (10 s at 60 fps), never by the performer's clock (1e30 s).
    let bound = ((elapsed * 100.0 + 10.0) * 60.0).ceil() as usize;
    assert!(anim.frames() <= bound, "{} > {bound}", anim.frames());
    assert!(anim.head.iter().all(|q| q.iter().all(|v| v.is_finite())
        && (q.iter().map(|v| v * v).sum::<f32>() - 1.0).abs() < 1e-3));
    std::fs::remove_dir_all(&dir).ok();
}

/// A batch never lets two inputs write one output, and a folder walk visits every file
/// once (a symbolic link loop, a link to a sibling, a path given twice).
#[test]
fn batches_never_write_one_file_twice() {
    let dir = scratch("batch");
    for sub in ["a", "b"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
        write_wav16(
            &dir.join(sub).join("x.wav"),
            16_000,
            &omote_testdata::buzz(16_000, 0.4, 0.1..0.3),
        );
    }
    let out = dir.join("out");
    let lipsync = |args: &[&std::ffi::OsStr]| omote().arg("lipsync").args(args).output().unwrap();
    // Two inputs whose results would be one file in --out: refused before any work, the
    // error (its stderr) naming the clash.
    let clash = |p: &Path, q: &Path| {
        let o = lipsync(&[
            p.as_os_str(),
            q.as_os_str(),
            "--out".as_ref(),
            out.as_os_str(),
        ]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.contains("would both write"), "{err}");
        assert!(list(&out).is_empty(), "nothing written: {:?}", list(&out));
        err
    };
    let (a, b) = (dir.join("a"), dir.join("b"));
    let err = clash(&a, &b);
    assert!(
        err.contains("--keep-folders"),
        "the way out is named: {err}"
    );
    // Two files of one folder that differ only by extension: --keep-folders cannot help,
    // so it is not offered.
    let (x, x_upper) = (dir.join("a/x.wav"), dir.join("a/x.WAV"));
    std::fs::copy(&x, &x_upper).unwrap();
    let err = clash(&x, &x_upper);
    assert!(
        err.contains("differ only by extension") && !err.contains("--keep-folders"),
        "{err}"
    );
    std::fs::remove_file(&x_upper).unwrap();
    // --keep-folders: each result in its sub-folder below the folder the inputs share.
    let keep = "--keep-folders".as_ref();
    let o = lipsync(&[
        a.as_os_str(),
        b.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
        keep,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.join("a/x.lipsync.json").is_file(), "{:?}", list(&out));
    assert!(out.join("b/x.lipsync.json").is_file(), "{:?}", list(&out));
    // A folder given alone: its own files go straight into --out.
    let single = dir.join("single");
    let o = lipsync(&[a.as_os_str(), "--out".as_ref(), single.as_os_str(), keep]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        single.join("x.lipsync.json").is_file(),
        "{:?}",
        list(&single)
    );
    std::fs::remove_dir_all(&out).ok();
    std::fs::remove_dir_all(&single).ok();
    // Links: a loop back to the top and a second name for a file.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&dir, dir.join("a").join("loop")).unwrap();
        std::os::unix::fs::symlink(dir.join("a/x.wav"), dir.join("a/again.wav")).unwrap();
        let o = omote()
            .arg("lipsync")
            .arg(dir.join("a"))
            .arg(dir.join("a/x.wav"))
            .output()
            .unwrap();
        let err = stderr(&o);
        assert!(o.status.success(), "{err}");
        // a/x.wav once (the link and the named path are the same file); b/x.wav through
        // the loop once.
        assert!(err.contains("2 of 2 files analysed"), "{err}");
    }
    // Images with the same name into one folder.
    let o = omote()
        .arg("track")
        .arg(dir.join("a/x.png"))
        .arg(dir.join("b/x.png"))
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("would both write"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Messages: text from files is escaped before it reaches the terminal, plot names are
/// checked before any work (no Debug dump of an image error), help text promises only
/// what commands do, labels far past the end of the audio are refused.
#[test]
fn messages_are_words_and_escaped() {
    let dir = scratch("messages");
    // A file name with an escape sequence (it would retitle the terminal).
    let o = run(&["lipsync", "/nonexistent/\u{1b}]0;pwned\u{7}.wav"]);
    let err = stderr(&o);
    assert!(!o.status.success());
    assert!(!err.contains('\u{1b}') && err.contains("\\u{1b}"), "{err}");
    // A missing file once, not once per layer that quotes it, in omote's words (the
    // OS's differ by platform and language).
    assert_eq!(err.matches("no such file").count(), 1, "{err}");
    assert!(!err.contains("os error"), "{err}");
    // Nothing analysed: no word on how the files were grouped into speakers.
    assert!(
        err.contains("0 of 1 files analysed, 1 failed") && !err.contains("speaker"),
        "{err}"
    );
    // A plot name without .png: said in words, before the audio is read.
    let wav = dir.join("v.wav");
    write_wav16(&wav, 16_000, &omote_testdata::buzz(16_000, 0.5, 0.1..0.4));
    for args in [
        vec!["lipsync", "plot", wav.to_str().unwrap(), "-o", "plot"],
        vec!["motion-map", "missing.toml", "--plot", "plot"],
    ] {
        let o = run(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.contains("ending in .png"), "{err}");
        assert!(
            !err.contains("Error(") && !err.contains("Unsupported"),
            "{err}"
        );
    }
    // track: `--out -` is for video only.
    let o = run(&["track", "face.png", "--out", "-"]);
    assert!(
        stderr(&o).contains("standard output is for video"),
        "{}",
        stderr(&o)
    );
    // inspect does not promise VRMA.
    let help = String::from_utf8_lossy(&run(&["--help"]).stdout).into_owned();
    let line = help
        .lines()
        .find(|l| l.trim_start().starts_with("inspect"))
        .unwrap();
    assert!(!line.contains("VRMA"), "{line}");
    // eval: a label far past the end of its audio.
    std::fs::write(
        dir.join("v.lab.tsv"),
        "start\tend\tclass\tphone\n0\t0.3\tA\ta\n0.3\t100000\tS\tsil\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("manifest.tsv"),
        "clip\tlanguage\tsource\ttext\nv.wav\tja\tsynth\tあ\n",
    )
    .unwrap();
    let o = omote()
        .args(["lipsync", "eval"])
        .arg(&dir)
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("v.lab.tsv") && err.contains("past the end"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
