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
//! The server is `omote_serve` (one short-lived thread per connection, `Connection:
//! close`, GET and HEAD only, the loopback `Host` check); this module is its
//! [`Handler`]: a fixed route table and nothing else — no file system paths are ever
//! derived from a request, so there is nothing to traverse. For an anim:
//!
//! | route | content |
//! |---|---|
//! | `/` | the page (`assets/viewer/index.html`) |
//! | `/viewer.js` | the player (`assets/viewer/viewer.js`) |
//! | `/anim.json` | the anim, re-read and validated on every request (edit, then reload) |
//! | `/model.vrm` | the model given with `--model` (checked at start), else the built-in avatar |
//! | `/info.json` | file names for the page title |
//!
//! For a scene, the routes in `view/scene.rs`. Both serve the shared assets of
//! `viewer_assets.rs` (which other commands' pages use too):
//!
//! | route | content |
//! |---|---|
//! | `/common.js` | what both players share (`assets/viewer/common.js`: the stage, loading a VRM, posing it from an anim) |
//! | `/vrm-applier.js` | applying a face to a three-vrm VRM, the npm package's module (`web/src/vrm-applier.js`) |
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
//! in `common.js`, `appliedTracks`). For tests it exposes `window.omoteViewer` (`ready`,
//! `error`, `seek(t)`, `expressions()`, `morphs()`, `bones()`, `info()`; used by
//! `tools/viewer-check/check.mjs`); the scene page `window.omoteStatus` and
//! `window.omoteScene` (`tools/viewer-check/scene.mjs`).

use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use omote_serve::{Body, Handler, Request, Response, ServeError, Server};

use crate::viewer_assets::{Asset, HTML, JS, JSON, VRM, serve_asset, viewer_asset};

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
    /// Address to listen on: PORT (on 127.0.0.1), localhost:PORT, HOST:PORT, IP:PORT or
    /// [IPv6]:PORT; port 0 picks a free port. Use a non-loopback address only on a
    /// network you trust: the server has no authentication.
    #[arg(long, visible_alias = "addr", value_name = "[HOST:]PORT", default_value = "127.0.0.1:8080", value_parser = crate::limits::address)]
    pub bind: SocketAddr,
}

/// The page of the anim player.
const ANIM_PAGES: &[Asset] = &[
    viewer_asset!("/", HTML, "index.html"),
    viewer_asset!("/viewer.js", JS, "viewer.js"),
];

/// The page of the scene player.
const SCENE_PAGES: &[Asset] = &[
    viewer_asset!("/", HTML, "scene.html"),
    viewer_asset!("/scene.js", JS, "scene.js"),
];

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
    // Its errors name the file.
    let anim = load_playable(&args.anim)?;
    let (model, model_name) = match &args.model {
        Some(path) => {
            let bytes = omote_fs::read(path, omote_fs::Limit::VRM)
                .with_context(|| format!("cannot read the model {}", path.display()))?;
            (bytes, path.display().to_string())
        }
        None => (
            omote_vrm::avatar::generate(),
            "built-in test avatar".to_string(),
        ),
    };
    let vrm = omote_vrm::VrmModel::from_slice(&model, model_name.clone())
        // Its errors name the file.
        .context("not a usable VRM model")?;
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
    let server = match Server::bind(bind) {
        Ok(server) => server,
        Err(ServeError::Bind { addr, source }) => {
            return Err(anyhow::Error::new(source).context(format!(
                "cannot listen on {addr} (in use? try --bind 0 for a free port)"
            )));
        }
        Err(e) => return Err(e.into()),
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "omote view: {}", server.url())
        .and_then(|()| out.flush())
        .context("writing the URL to stdout")?;
    drop(out);
    eprintln!(
        "{}; Ctrl-C to stop",
        crate::output::escape_terminal(summary)
    );
    server.serve(content)
}

impl Handler for Content {
    /// The player's own routes, then its page and the shared assets; else 404.
    fn respond(&self, request: &Request) -> Response {
        let path = request.path.as_str();
        let (routed, pages) = match self {
            Content::Anim(a) => (anim_route(a, path), ANIM_PAGES),
            Content::Scene(s) => (s.route(path, &request.query), SCENE_PAGES),
        };
        routed
            .or_else(|| serve_asset(pages, path))
            .unwrap_or_else(Response::not_found)
    }

    fn warn(&self, message: &str) {
        crate::output::warn(message);
    }
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

/// The anim, re-read and validated; a 500 naming the file when that fails.
/// An anim the page can play: valid and at least one frame long (the page poses the
/// model from a frame; with none there is nothing to show).
fn load_playable(path: &Path) -> anyhow::Result<omote_core::Anim> {
    let anim = omote_config::load_anim(path)?;
    anyhow::ensure!(
        anim.frames() > 0,
        "{}: the anim has no frames: there is nothing to play",
        path.display()
    );
    Ok(anim)
}

fn anim_response(path: &Path) -> Response {
    let result = load_playable(path)
        .and_then(|anim| serde_json::to_vec(&anim).context("serialising the anim"));
    match result {
        Ok(json) => Response::ok(JSON, Body::Owned(json)),
        Err(e) => {
            let msg = format!("cannot serve the anim: {e:#}");
            eprintln!("error: {}", crate::output::escape_terminal(&msg));
            Response::text(500, msg)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_asset_route_is_unique_and_non_empty() {
        for pages in [ANIM_PAGES, SCENE_PAGES] {
            assert_eq!(crate::viewer_assets::check_routes(pages), Ok(()));
        }
    }

    #[test]
    fn anim_routes_then_the_page_then_404() {
        let dir = std::env::temp_dir().join(format!("omote-view-unit-{}", std::process::id()));
        let content = Content::Anim(AnimSite {
            anim_path: dir.join("missing.anim.json"),
            model: Arc::from(&b"glTF"[..]),
            info: b"{}".to_vec(),
        });
        let answer = |path: &str| content.respond(&Request::get(path));
        assert_eq!(answer("/").body(), ANIM_PAGES[0].body);
        assert_eq!(answer("/viewer.js").content_type(), JS);
        assert_eq!(answer("/common.js").status(), 200);
        assert_eq!(answer("/vrm-applier.js").status(), 200);
        assert_eq!(answer("/model.vrm").body(), b"glTF");
        assert_eq!(answer("/info.json?x").body(), b"{}");
        let broken = answer("/anim.json");
        assert_eq!(broken.status(), 500);
        assert!(String::from_utf8_lossy(broken.body()).contains("missing.anim.json"));
        assert_eq!(answer("/scene.js").status(), 404);
        assert_eq!(answer("/index.html").status(), 404);
    }
}
