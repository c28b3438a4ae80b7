//! What the `omote` binary's end-to-end tests share: running the binary, scratch
//! folders, the repository's files, free ports, feeding stdin, test frames, and the
//! browser tools. Each test file has `mod support;`; not every file uses every helper.

#![allow(dead_code)]

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpStream, UdpSocket};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

/// The `omote` binary under test.
pub fn omote() -> Command {
    Command::new(env!("CARGO_BIN_EXE_omote"))
}

/// The repository's root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The demo scene, `examples/scenes/demo/scene.toml`.
pub fn demo_scene() -> PathBuf {
    repo().join("examples/scenes/demo/scene.toml")
}

/// An empty folder of this test file's own under the temporary folder:
/// `omote-<file>-<pid>-<name>`, emptied first, removed when the test passes.
pub fn scratch(name: &str) -> omote_testdata::Scratch {
    omote_testdata::Scratch::new(&env!("CARGO_CRATE_NAME").replace('_', "-"), name)
}

/// A UDP port that was free a moment ago.
pub fn free_udp_port() -> u16 {
    UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A JSON file's value.
pub fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Writes a 16-bit mono PCM WAV.
pub fn write_wav16(path: &Path, rate: u32, samples: &[i16]) {
    std::fs::write(path, omote_testdata::wav16(samples, rate, 1)).unwrap();
}

/// Runs `cmd` with `input` on its stdin (written from a thread of its own, so a
/// command that stops reading early does not block the test).
pub fn run_with_stdin(cmd: &mut Command, input: Vec<u8>) -> Output {
    run_with_paced_stdin(cmd, input, usize::MAX, Duration::ZERO)
}

/// Like [`run_with_stdin`], writing `chunk` bytes every `every` (a camera pipe's pace).
pub fn run_with_paced_stdin(
    cmd: &mut Command,
    input: Vec<u8>,
    chunk: usize,
    every: Duration,
) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        for part in input.chunks(chunk) {
            if stdin.write_all(part).is_err() {
                return;
            }
            std::thread::sleep(every);
        }
    });
    let o = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    o
}

/// `n` raw rgb24 640x480 frames of `photo` drifting right, then lost (grey).
pub fn raw_frames(photo: &Path, n: usize, lost_after: usize) -> Vec<u8> {
    let img = image::open(photo).unwrap().to_rgb8();
    let (w, h) = (640i64, 480i64);
    let mut out = Vec::with_capacity(n * (w * h * 3) as usize);
    for k in 0..n {
        let dx = 40 + 3 * k as i64;
        for y in 0..h {
            for x in 0..w {
                let (sx, sy) = (x - dx, y + 16);
                let px = if k < lost_after
                    && (0..img.width() as i64).contains(&sx)
                    && (0..img.height() as i64).contains(&sy)
                {
                    img.get_pixel(sx as u32, sy as u32).0
                } else {
                    [90, 90, 90]
                };
                out.extend_from_slice(&px);
            }
        }
    }
    out
}

/// Node, the Playwright package (`tools/viewer-check`) and Chromium for the check
/// named `what`; `None` (after saying why) when one is missing outside CI, a failure
/// under CI.
pub fn browser_tools(what: &str) -> Option<PathBuf> {
    let dir = repo().join("tools/viewer-check");
    let chromium = std::env::var_os("CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    let node_ok = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let why = if !node_ok {
        "node is not installed".to_string()
    } else if !dir.join("node_modules/playwright-core").is_dir() {
        format!(
            "{}/node_modules is missing (run `npm ci` there)",
            dir.display()
        )
    } else if !chromium.is_file() {
        format!(
            "{} is missing (apt-get install chromium)",
            chromium.display()
        )
    } else {
        return Some(dir);
    };
    if std::env::var_os("CI").is_some() {
        panic!("{what} cannot run under CI: {why}");
    }
    eprintln!("SKIP {what}: {why}");
    None
}

/// A running `omote view`, killed when dropped (also when a test panics).
pub struct Server {
    child: Child,
    /// The URL it printed.
    pub url: String,
    /// Its port.
    pub port: u16,
}

impl Server {
    /// `omote view ARGS --bind 127.0.0.1:0`.
    pub fn start(args: &[&OsStr]) -> Server {
        Self::spawn(args, "--bind", "127.0.0.1:0")
    }

    /// `omote view ARGS --bind ADDR`, for an `addr` that is 127.0.0.1 port 0 written
    /// some other way (the URL printed must say 127.0.0.1).
    pub fn start_at(args: &[&OsStr], addr: &str) -> Server {
        Self::spawn(args, "--bind", addr)
    }

    /// `omote view SCENE --addr 127.0.0.1:0` (`--addr` is `--bind`'s other name).
    pub fn start_scene(scene: &Path) -> Server {
        Self::spawn(&[scene.as_os_str()], "--addr", "127.0.0.1:0")
    }

    /// `omote view ARGS --bind 127.0.0.1:0` run in `dir` (relative paths as a user types them).
    pub fn start_in(dir: &Path, args: &[&OsStr]) -> Server {
        Self::spawn_in(Some(dir), args, "--bind", "127.0.0.1:0")
    }

    fn spawn(args: &[&OsStr], bind: &str, addr: &str) -> Server {
        Self::spawn_in(None, args, bind, addr)
    }

    fn spawn_in(dir: Option<&Path>, args: &[&OsStr], bind: &str, addr: &str) -> Server {
        let mut cmd = omote();
        if let Some(dir) = dir {
            cmd.current_dir(dir);
        }
        let mut child = cmd
            .arg("view")
            .args(args)
            .args([bind, addr])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let Some(url) = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .map(str::to_string)
        else {
            let _ = child.kill();
            let mut err = String::new();
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            panic!("omote view printed no URL: {line:?}\n{err}");
        };
        let port = url
            .trim_end_matches('/')
            .rsplit(':')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(url.starts_with("http://127.0.0.1:"), "{url}");
        Server { child, url, port }
    }

    /// Send `request` (a raw request head); status, headers and body of the answer.
    pub fn raw(&self, request: &str) -> (u16, String, Vec<u8>) {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        s.write_all(request.as_bytes()).unwrap();
        let mut bytes = Vec::new();
        s.read_to_end(&mut bytes).unwrap();
        let end = bytes
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("a response head");
        let head = String::from_utf8(bytes[..end].to_vec()).unwrap();
        let status = head.split(' ').nth(1).unwrap().parse().unwrap();
        let body = bytes[end + 4..].to_vec();
        let is_head = request.starts_with("HEAD ");
        if let Some(len) = header(&head, "content-length").filter(|_| !is_head) {
            assert_eq!(len.parse::<usize>().unwrap(), body.len(), "{head}");
        }
        (status, head, body)
    }

    /// `GET path`.
    pub fn get(&self, path: &str) -> (u16, String, Vec<u8>) {
        self.raw(&format!(
            "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n",
            self.port
        ))
    }

    /// A 200 JSON answer.
    pub fn json(&self, path: &str) -> serde_json::Value {
        let (status, head, body) = self.get(path);
        assert_eq!(status, 200, "{path}: {}", String::from_utf8_lossy(&body));
        assert_eq!(header(&head, "content-type"), Some("application/json"));
        serde_json::from_slice(&body).unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The value of header `name` in a response head.
pub fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|l| {
        let (n, v) = l.split_once(':')?;
        n.eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

/// `omote view ARGS` must fail at once with a message containing each of `needles`.
pub fn view_fails_naming(args: &[&OsStr], needles: &[&str]) {
    let out = omote()
        .arg("view")
        .args(args)
        .args(["--bind", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{args:?} should fail");
    assert!(out.stdout.is_empty(), "no URL for a failed start");
    for n in needles {
        assert!(err.contains(n), "{n:?} not in: {err}");
    }
    // The file is named once, not once per layer of the error.
    let error_line = err.lines().find(|l| l.starts_with("error:")).unwrap_or("");
    if let Some(file) = needles.first() {
        assert_eq!(
            error_line.matches(file).count(),
            1,
            "{file:?} repeated: {err}"
        );
    }
}
