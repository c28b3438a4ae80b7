//! The README's quick start, walked as written: its code block is read out of README.md
//! and every command run on the built binary (`omote` → this test's binary) in a scratch
//! folder standing in for the checkout's root (`examples/` linked, `web/example/`
//! copied). Each must exit 0 or serve, and write the files its comment names, so the
//! README cannot change without its commands still working. Servers get a free port
//! instead of the README's 8080 / 8000. `web/build.sh` (the wasm toolchain) is not
//! rerun: its `web/dist` must be there under CI (`.ci/run` builds it) and is skipped
//! with a message otherwise.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use support::{Server, omote, repo, scratch};

mod support;

/// One line of the quick start: its commands (split at `&&`) and its comment.
struct Line {
    commands: Vec<Vec<String>>,
    comment: String,
}

/// The first `sh` block under "## Quick start" in README.md.
fn quick_start() -> Vec<Line> {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let section = readme
        .split_once("\n## Quick start\n")
        .expect("README.md has a \"## Quick start\" section")
        .1;
    let block = section
        .split_once("```sh\n")
        .expect("a ```sh block in the quick start")
        .1
        .split_once("```")
        .unwrap()
        .0;
    block
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let (cmd, comment) = l.split_once('#').unwrap_or((l, ""));
            // Only plain words and `&&` are followed here; anything else must fail loudly.
            for c in ['|', '>', '<', '\'', '"', '$', ';', '`'] {
                assert!(!cmd.contains(c), "quick start line has {c:?}: {l}");
            }
            let commands = cmd
                .split("&&")
                .map(|c| c.split_whitespace().map(str::to_string).collect())
                .collect();
            Line {
                commands,
                comment: comment.trim().to_string(),
            }
        })
        .collect()
}

/// Outside CI: say why and skip; under CI: fail.
fn skip(what: &str) {
    if std::env::var_os("CI").is_some() {
        panic!("quick start: {what}, under CI");
    }
    eprintln!("SKIP quick start: {what}");
}

/// The checkout's root as the quick start needs it, in a scratch folder.
fn root() -> omote_testdata::Scratch {
    let dir = scratch("root");
    std::os::unix::fs::symlink(repo().join("examples"), dir.join("examples")).unwrap();
    let example = dir.join("web/example");
    std::fs::create_dir_all(&example).unwrap();
    for f in ["index.html", "example.js"] {
        std::fs::copy(repo().join("web/example").join(f), example.join(f)).unwrap();
    }
    if repo().join("web/dist").is_dir() {
        std::os::unix::fs::symlink(repo().join("web/dist"), dir.join("web/dist")).unwrap();
    }
    dir
}

/// Runs `args` (`omote` first) in `dir` to the end; its stdout.
fn run(dir: &Path, args: &[String]) -> String {
    let out = omote().args(&args[1..]).current_dir(dir).output().unwrap();
    assert!(
        out.status.success(),
        "{}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Each of `files` (under `dir`) is there, not empty, and named in the line's comment
/// (so the README says what the command writes).
fn wrote(dir: &Path, line: &Line, files: &[&str]) {
    for f in files {
        let name = Path::new(f).file_name().unwrap().to_str().unwrap();
        // By name, or by kind as the README lists them (`*.anim.json`).
        let kind = format!("*.{}", name.split_once('.').unwrap().1);
        assert!(
            line.comment.contains(name) || line.comment.contains(&kind),
            "the README's comment should name {f}: {}",
            line.comment
        );
        let len = std::fs::metadata(dir.join(f)).map_or(0, |m| m.len());
        assert!(len > 0, "{f} was not written");
    }
}

/// `GET path` from `addr`: status and body.
fn get(addr: &str, path: &str) -> (u16, Vec<u8>) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut bytes = Vec::new();
    s.read_to_end(&mut bytes).unwrap();
    let end = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a response head");
    let head = String::from_utf8_lossy(&bytes[..end]);
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, bytes[end + 4..].to_vec())
}

/// Kills a child when dropped (also when the test panics).
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `child` and waits for a stdout line containing `marker`; that line.
fn started(mut cmd: Command, marker: &str) -> (Killed, String) {
    let mut child = Killed(
        cmd.stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let mut out = BufReader::new(child.0.stdout.take().unwrap());
    let mut line = String::new();
    loop {
        line.clear();
        let n = out.read_line(&mut line).unwrap();
        assert!(n > 0, "exited without printing {marker:?}");
        if line.contains(marker) {
            // Keep draining, so a chatty server never blocks on a full pipe.
            std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
            return (child, line.trim().to_string());
        }
    }
}

#[test]
fn the_readme_quick_start_runs_as_written() {
    let lines = quick_start();
    assert_eq!(lines.len(), 5, "the quick start is five lines");
    let dir = root();
    let mut steps = Vec::new();
    for line in &lines {
        for args in &line.commands {
            let words: Vec<&str> = args.iter().map(String::as_str).collect();
            match words.as_slice() {
                ["omote", "demo"] => {
                    let out = run(&dir, args);
                    // What it prints as the next step is the README's next line.
                    assert!(
                        out.contains("omote view demo-out/scene.toml"),
                        "demo's next step: {out}"
                    );
                    wrote(
                        &dir,
                        line,
                        &[
                            "demo-out/scene.toml",
                            "demo-out/voice/aoi_1.wav",
                            "demo-out/aoi.anim.json",
                            "demo-out/beni.png",
                            "demo-out/aoi.vrm",
                            "demo-out/beni.vrma",
                        ],
                    );
                    steps.push("demo");
                }
                ["omote", "view", rest @ ..] => {
                    let rest: Vec<&OsStr> = rest.iter().map(OsStr::new).collect();
                    let server = Server::start_in(&dir, &rest);
                    assert_eq!(server.get("/").0, 200, "{}", args.join(" "));
                    assert!(line.comment.contains("http://127.0.0.1:8080/"));
                    steps.push("view");
                }
                ["omote", "speak", ..] => {
                    run(&dir, args);
                    wrote(
                        &dir,
                        line,
                        &[
                            "speak-out/speak.scene.toml",
                            "speak-out/speak.anim.json",
                            "speak-out/speak.png",
                            "speak-out/speak.vrma",
                            "speak-out/speak.vrm",
                        ],
                    );
                    steps.push("speak");
                }
                ["omote", "live", rest @ ..] => {
                    assert!(rest.contains(&"--view") && rest.contains(&"--seconds"));
                    let mut cmd = omote();
                    cmd.arg("live").current_dir(&dir);
                    for w in rest {
                        cmd.arg(w);
                        if *w == "--view" {
                            cmd.arg("127.0.0.1:0");
                        }
                    }
                    let (_live, url) = started(cmd, "omote live: http://");
                    let addr = url
                        .trim_start_matches("omote live: http://")
                        .trim_end_matches('/');
                    assert_eq!(get(addr, "/").0, 200, "{url}");
                    assert!(line.comment.contains("http://127.0.0.1:8080/"));
                    steps.push("live");
                }
                ["omote", "avatar", ..] => {
                    run(&dir, args);
                    let out = args.last().unwrap();
                    assert!(dir.join(out).is_file(), "{out}");
                    steps.push("avatar");
                }
                ["web/build.sh"] => {
                    assert!(repo().join("web/build.sh").is_file());
                    if !dir.join("web/dist/index.js").is_file() {
                        skip("web/dist is not built (web/build.sh needs the wasm toolchain)");
                    }
                    steps.push("build");
                }
                ["python3", "-m", "http.server", port] => {
                    assert!(line.comment.contains(&format!("http://127.0.0.1:{port}/")));
                    let mut cmd = Command::new("python3");
                    cmd.args(["-u", "-m", "http.server", "0", "--bind", "127.0.0.1"])
                        .current_dir(&dir);
                    if Command::new("python3").arg("--version").output().is_err() {
                        skip("python3 is not installed");
                        steps.push("serve");
                        continue;
                    }
                    let (_server, said) = started(cmd, "port ");
                    let port = said
                        .split_whitespace()
                        .skip_while(|w| *w != "port")
                        .nth(1)
                        .unwrap();
                    let addr = format!("127.0.0.1:{port}");
                    let page = "/web/example/";
                    assert!(line.comment.contains(page));
                    let (status, html) = get(&addr, page);
                    assert_eq!(status, 200);
                    assert!(String::from_utf8_lossy(&html).contains("example.js"));
                    // What the page loads: the avatar, the demo's line and the package.
                    assert_eq!(get(&addr, "/web/example/avatar.vrm").0, 200);
                    let voice = "/examples/scenes/demo/voice/aoi_1.wav";
                    assert_eq!(get(&addr, voice).0, 200);
                    if dir.join("web/dist/index.js").is_file() {
                        assert_eq!(get(&addr, "/web/dist/index.js").0, 200);
                    }
                    steps.push("serve");
                }
                _ => panic!("the quick start has a command this test does not know: {args:?}"),
            }
        }
    }
    assert_eq!(
        steps,
        ["demo", "view", "speak", "live", "avatar", "build", "serve"]
    );
    std::fs::remove_dir_all(&dir).ok();
}
