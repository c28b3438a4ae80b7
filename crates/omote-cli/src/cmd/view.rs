//! `omote view ANIM.json [--model MODEL.vrm] [--bind 127.0.0.1:8080]`: play an anim on a
//! VRM model in the browser, with the real three.js + `@pixiv/three-vrm`;
//! `omote view SCENE.toml`: play a dialogue scene, every character on its VRM, with its
//! voices, Advance and Skip (`view/scene.rs`).
//!
//! ```sh
//! omote demo --out demo-out
//! omote view demo-out/demo.anim.json                          # built-in test avatar
//! omote view demo-out/demo.anim.json --model MY.vrm --bind 127.0.0.1:0
//! omote view examples/scenes/demo/scene.toml                  # a scene, with sound
//! # → prints `omote view: http://127.0.0.1:8080/`; open it in a browser, Ctrl-C to stop
//! ```
//!
//! A small HTTP/1.1 server on std's `TcpListener` (one short-lived thread per
//! connection, `Connection: close`, GET and HEAD only) serves a fixed route table and
//! nothing else — no file system paths are ever derived from a request, so there is
//! nothing to traverse. For an anim:
//!
//! | route | content |
//! |---|---|
//! | `/` | the page (`assets/viewer/index.html`) |
//! | `/viewer.js` | the player (`assets/viewer/viewer.js`) |
//! | `/anim.json` | the anim, re-read and validated on every request (edit, then reload) |
//! | `/model.vrm` | the model given with `--model` (checked at start), else the built-in avatar |
//! | `/info.json` | file names for the page title |
//!
//! For a scene, the routes in `view/scene.rs`. Both serve:
//!
//! | route | content |
//! |---|---|
//! | `/common.js` | what both players share (`assets/viewer/common.js`: the stage, loading a VRM, posing it from an anim) |
//! | `/vendor/…` | three.js 0.180.0 and three-vrm 3.5.5, embedded in the binary (`assets/viewer/vendor/README.md`) |
//!
//! Everything else is 404. Bound to loopback (the default), requests whose `Host` is not
//! a loopback name are refused (403), so a web page elsewhere cannot read the files
//! through DNS rebinding.
//!
//! The anim page plays the anim in a loop (play/pause, time slider, loop), shows the
//! most active expressions and lists anim channels the model does not have. It shows
//! what the face shows: the anim's `appliedExpressions` (after the VRM override rules),
//! with three-vrm's own override rules switched off so they are not applied twice (why,
//! in `common.js`, `showApplied`). For tests it exposes `window.omoteViewer` (`ready`,
//! `error`, `seek(t)`, `expressions()`, `morphs()`, `bones()`, `info()`; used by
//! `tools/viewer-check/check.mjs`); the scene page `window.omoteStatus` and
//! `window.omoteScene` (`tools/viewer-check/scene.mjs`).

use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use anyhow::Context;

mod scene;

/// Arguments of `omote view`.
#[derive(Debug, clap::Args)]
pub struct ViewArgs {
    /// The anim to play (`*.anim.json`), or a scene to play with its voices
    /// (`*.toml`, docs/scene-format.md).
    #[arg(value_name = "ANIM_OR_SCENE")]
    pub anim: PathBuf,
    /// The VRM (0.x or 1.0) to play an anim on; default: the built-in test avatar.
    /// A scene names its own models.
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Address to listen on; port 0 picks a free port. Use a non-loopback address
    /// only on a network you trust: the server has no authentication.
    #[arg(long, visible_alias = "addr", default_value = "127.0.0.1:8080")]
    pub bind: SocketAddr,
}

/// An embedded file.
struct Asset {
    route: &'static str,
    content_type: &'static str,
    body: &'static [u8],
}

const JS: &str = "text/javascript; charset=utf-8";
const TEXT: &str = "text/plain; charset=utf-8";
const JSON: &str = "application/json";
const VRM: &str = "model/gltf-binary";

macro_rules! asset {
    ($route:literal, $type:expr, $file:literal) => {
        Asset {
            route: $route,
            content_type: $type,
            body: include_bytes!(concat!("../../assets/viewer/", $file)),
        }
    };
}

const HTML: &str = "text/html; charset=utf-8";

/// The page of the anim player.
const ANIM_PAGES: &[Asset] = &[
    asset!("/", HTML, "index.html"),
    asset!("/viewer.js", JS, "viewer.js"),
];

/// The page of the scene player.
const SCENE_PAGES: &[Asset] = &[
    asset!("/", HTML, "scene.html"),
    asset!("/scene.js", JS, "scene.js"),
];

/// The fixed routes both pages use, served from the binary.
const ASSETS: &[Asset] = &[
    asset!("/common.js", JS, "common.js"),
    asset!(
        "/vendor/three/three.module.min.js",
        JS,
        "vendor/three/three.module.min.js"
    ),
    asset!(
        "/vendor/three/three.core.min.js",
        JS,
        "vendor/three/three.core.min.js"
    ),
    asset!(
        "/vendor/three/examples/jsm/loaders/GLTFLoader.js",
        JS,
        "vendor/three/examples/jsm/loaders/GLTFLoader.js"
    ),
    asset!(
        "/vendor/three/examples/jsm/utils/BufferGeometryUtils.js",
        JS,
        "vendor/three/examples/jsm/utils/BufferGeometryUtils.js"
    ),
    asset!(
        "/vendor/three-vrm/three-vrm.module.min.js",
        JS,
        "vendor/three-vrm/three-vrm.module.min.js"
    ),
    asset!("/vendor/three/LICENSE", TEXT, "vendor/three/LICENSE"),
    asset!(
        "/vendor/three-vrm/LICENSE",
        TEXT,
        "vendor/three-vrm/LICENSE"
    ),
];

/// Largest request head we read (request line + headers).
const MAX_HEAD: usize = 16 * 1024;
/// Connections served at once; more are closed unanswered.
const MAX_CONNECTIONS: usize = 64;

/// What the server shares between connection threads.
struct Site {
    content: Content,
    /// `Some(port)` when bound to loopback: only loopback `Host`s are served.
    loopback_port: Option<u16>,
    active: AtomicUsize,
}

/// What is played: one anim, or a scene.
enum Content {
    Anim(AnimSite),
    Scene(Box<scene::SceneSite>),
}

/// The anim player's content.
struct AnimSite {
    anim_path: PathBuf,
    model: Arc<[u8]>,
    info: Vec<u8>,
}

/// Whether `path` names a scene file (`*.toml`) rather than an anim.
fn is_scene(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"))
}

/// Run `omote view`.
pub fn run(args: ViewArgs) -> anyhow::Result<()> {
    if is_scene(&args.anim) {
        anyhow::ensure!(
            args.model.is_none(),
            "--model is for anims; the scene {} names its characters' models",
            args.anim.display()
        );
        let site = scene::SceneSite::load(&args.anim)?;
        let summary = site.summary();
        return listen(args.bind, Content::Scene(Box::new(site)), &summary);
    }
    let anim = omote_config::load_anim(&args.anim)
        .with_context(|| format!("cannot play {}", args.anim.display()))?;
    let (model, model_name) = match &args.model {
        Some(path) => {
            let bytes = std::fs::read(path)
                .with_context(|| format!("cannot read the model {}", path.display()))?;
            (bytes, path.display().to_string())
        }
        None => (
            omote_vrm::avatar::generate(),
            "built-in test avatar".to_string(),
        ),
    };
    let vrm = omote_vrm::VrmModel::from_slice(&model, model_name.clone())
        .with_context(|| format!("{model_name} is not a usable VRM"))?;
    let missing: Vec<&str> = anim
        .expressions
        .0
        .iter()
        .map(|(name, _)| name.as_str())
        .filter(|name| !vrm.expressions.iter().any(|e| e.name == *name))
        .collect();
    if !missing.is_empty() {
        eprintln!(
            "note: {} of {} anim channels are not in {model_name} and will not show: {}",
            missing.len(),
            anim.expressions.0.len(),
            missing.join(", ")
        );
    }
    let info = serde_json::to_vec(&serde_json::json!({
        "anim": args.anim.display().to_string(),
        "model": model_name,
    }))
    .context("serialising the page info")?;

    let summary = format!(
        "playing {} ({} frames at {} fps) on {model_name}",
        args.anim.display(),
        anim.frames(),
        anim.fps
    );
    let content = Content::Anim(AnimSite {
        anim_path: args.anim.clone(),
        model: model.into(),
        info,
    });
    listen(args.bind, content, &summary)
}

/// Listen on `bind`, print the URL, serve `content` until killed.
fn listen(bind: SocketAddr, content: Content, summary: &str) -> anyhow::Result<()> {
    let listener = TcpListener::bind(bind).with_context(|| {
        format!("cannot listen on {bind} (in use? try --bind 127.0.0.1:0 for a free port)")
    })?;
    let addr = listener.local_addr().context("reading the bound address")?;
    let site = Arc::new(Site {
        content,
        loopback_port: addr.ip().is_loopback().then_some(addr.port()),
        active: AtomicUsize::new(0),
    });
    let host = match addr.ip() {
        IpAddr::V6(ip) => format!("[{ip}]"),
        IpAddr::V4(ip) if ip.is_unspecified() => "127.0.0.1".to_string(),
        IpAddr::V4(ip) => ip.to_string(),
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "omote view: http://{host}:{}/", addr.port())
        .and_then(|()| out.flush())
        .context("writing the URL to stdout")?;
    drop(out);
    eprintln!(
        "{}; Ctrl-C to stop",
        crate::output::escape_terminal(summary)
    );

    for conn in listener.incoming() {
        let stream = match conn {
            Ok(s) => s,
            Err(e) => {
                eprintln!("warning: accept failed: {e}");
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
        };
        if site.active.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
            site.active.fetch_sub(1, Ordering::SeqCst);
            continue; // dropping the stream closes it
        }
        let site = Arc::clone(&site);
        let spawned = std::thread::Builder::new()
            .name("omote-view-conn".into())
            .spawn(move || {
                serve(&site, stream);
                site.active.fetch_sub(1, Ordering::SeqCst);
            });
        if let Err(e) = spawned {
            eprintln!("warning: cannot start a connection thread: {e}");
        }
    }
    Ok(())
}

/// A response: status, content type, body.
struct Response {
    status: u16,
    content_type: &'static str,
    body: Body,
    allow: bool,
}

enum Body {
    Static(&'static [u8]),
    Owned(Vec<u8>),
    Shared(Arc<[u8]>),
}

impl Response {
    fn text(status: u16, msg: impl Into<String>) -> Self {
        let mut body = msg.into().into_bytes();
        body.push(b'\n');
        Response {
            status,
            content_type: TEXT,
            body: Body::Owned(body),
            allow: status == 405,
        }
    }

    /// A 200 with this body.
    fn ok(content_type: &'static str, body: Body) -> Self {
        Response {
            status: 200,
            content_type,
            body,
            allow: false,
        }
    }
}

/// Serve one connection: one request, then close.
fn serve(site: &Arc<Site>, mut stream: TcpStream) {
    // Best effort: a socket that refuses timeouts is still served.
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let _ = stream.set_write_timeout(Some(Duration::from_secs(30)));
    let Some(head) = read_head(&mut stream) else {
        return;
    };
    let (response, head_only) = match head {
        Ok(text) => route(site, &text),
        Err(resp) => (resp, false),
    };
    let body: &[u8] = match &response.body {
        Body::Static(b) => b,
        Body::Owned(b) => b,
        Body::Shared(b) => b,
    };
    let mut header = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n",
        response.status,
        reason(response.status),
        response.content_type,
        body.len()
    );
    if response.allow {
        header.push_str("Allow: GET, HEAD\r\n");
    }
    header.push_str("\r\n");
    let result = stream
        .write_all(header.as_bytes())
        .and_then(|()| {
            if head_only {
                Ok(())
            } else {
                stream.write_all(body)
            }
        })
        .and_then(|()| stream.flush());
    if let Err(e) = result {
        // The browser went away (reload, closed tab): nothing to do.
        if !matches!(
            e.kind(),
            std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::ConnectionReset
        ) {
            eprintln!("warning: writing a response failed: {e}");
        }
    }
    let _ = stream.shutdown(std::net::Shutdown::Both);
}

/// Read the request head (up to the blank line). `None`: the client sent nothing
/// usable and gets no answer (closed, timed out); `Err`: answer with this error.
fn read_head(stream: &mut TcpStream) -> Option<Result<String, Response>> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 2048];
    loop {
        if let Some(end) = find(&buf, b"\r\n\r\n") {
            buf.truncate(end);
            return Some(match String::from_utf8(buf) {
                Ok(s) => Ok(s),
                Err(_) => Err(Response::text(400, "request head is not UTF-8")),
            });
        }
        if buf.len() > MAX_HEAD {
            return Some(Err(Response::text(431, "request head too large")));
        }
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Answer a parsed request head; the flag is true for HEAD (no body).
fn route(site: &Arc<Site>, head: &str) -> (Response, bool) {
    let mut lines = head.split("\r\n");
    let request_line = lines.next().unwrap_or_default();
    let mut parts = request_line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return (Response::text(400, "malformed request line"), false);
    };
    if !version.starts_with("HTTP/1.") {
        return (Response::text(505, "only HTTP/1.x is served"), false);
    }
    let head_only = match method {
        "GET" => false,
        "HEAD" => true,
        _ => return (Response::text(405, "only GET and HEAD are served"), false),
    };
    if let Some(port) = site.loopback_port {
        let host = lines.find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.trim()
                .eq_ignore_ascii_case("host")
                .then(|| value.trim())
        });
        match host {
            None => return (Response::text(400, "missing Host header"), head_only),
            Some(h) if !loopback_host(h, port) => {
                return (
                    Response::text(403, format!("Host {h:?} is not this loopback server")),
                    head_only,
                );
            }
            Some(_) => {}
        }
    }
    // The path without query or fragment, matched exactly against the route table.
    let target = target.split('#').next().unwrap_or_default();
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let (routed, pages) = match &site.content {
        Content::Anim(a) => (anim_route(a, path), ANIM_PAGES),
        Content::Scene(s) => (s.route(path, query), SCENE_PAGES),
    };
    let response =
        routed.unwrap_or_else(
            || match pages.iter().chain(ASSETS).find(|a| a.route == path) {
                Some(a) => Response::ok(a.content_type, Body::Static(a.body)),
                None => Response::text(404, "not found"),
            },
        );
    (response, head_only)
}

/// The anim player's own routes; `None`: not one of them.
fn anim_route(site: &AnimSite, path: &str) -> Option<Response> {
    Some(match path {
        "/anim.json" => anim_response(&site.anim_path),
        "/model.vrm" => Response::ok(VRM, Body::Shared(Arc::clone(&site.model))),
        "/info.json" => Response::ok(JSON, Body::Owned(site.info.clone())),
        _ => return None,
    })
}

/// Is `host` (a `Host` header value) this server on loopback?
fn loopback_host(host: &str, port: u16) -> bool {
    let (name, host_port) = match host.rsplit_once(':') {
        Some((n, p)) if !p.contains(']') => (n, Some(p)),
        _ => (host, None),
    };
    let port_ok = host_port.is_none_or(|p| p.parse::<u16>() == Ok(port));
    let name_ok = name.eq_ignore_ascii_case("localhost")
        || name
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    port_ok && name_ok
}

/// The anim, re-read and validated; a 500 naming the file when that fails.
fn anim_response(path: &Path) -> Response {
    let result = omote_config::load_anim(path)
        .map_err(anyhow::Error::from)
        .and_then(|anim| serde_json::to_vec(&anim).context("serialising the anim"));
    match result {
        Ok(json) => Response::ok(JSON, Body::Owned(json)),
        Err(e) => {
            let msg = format!("cannot serve {}: {e:#}", path.display());
            eprintln!("error: {}", crate::output::escape_terminal(&msg));
            Response::text(500, msg)
        }
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        413 => "Content Too Large",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        505 => "HTTP Version Not Supported",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts() {
        assert!(loopback_host("127.0.0.1:8080", 8080));
        assert!(loopback_host("localhost:8080", 8080));
        assert!(loopback_host("LOCALHOST", 8080));
        assert!(loopback_host("[::1]:8080", 8080));
        assert!(loopback_host("127.0.0.1", 8080));
        assert!(!loopback_host("127.0.0.1:8081", 8080));
        assert!(!loopback_host("evil.example:8080", 8080));
        assert!(!loopback_host("localhost.evil.example:8080", 8080));
        assert!(!loopback_host("", 8080));
    }

    #[test]
    fn every_asset_route_is_unique_and_non_empty() {
        for pages in [ANIM_PAGES, SCENE_PAGES] {
            let all: Vec<&Asset> = pages.iter().chain(ASSETS).collect();
            for (i, a) in all.iter().enumerate() {
                assert!(!a.body.is_empty(), "{}", a.route);
                assert!(all[..i].iter().all(|b| b.route != a.route), "{}", a.route);
            }
        }
    }
}
