//! `omote live --view`: the live page and its WebSocket, on `omote-serve`.
//!
//! | route | content |
//! |---|---|
//! | `/` | the page (`assets/viewer/live.html`; `?transparent=1` for OBS) |
//! | `/live.js` | the page's script |
//! | `/live` | the WebSocket: `hello`, then a `frame` per face (`omote_live::ViewSink`) |
//! | `/model.vrm` | the avatar (`--rig MODEL.vrm`, else the built-in one) |
//! | `/common.js`, `/vrm-applier.js`, `/vendor/…` | what every viewer page shares (`viewer_assets.rs`) |

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::{Context, Result};
use omote_core::Rig;
use omote_live::{ViewFrameWriter, ViewSink};
use omote_serve::{Body, Broadcast, Request, Response, Server, ServerHandle};

use crate::viewer_assets::{Asset, HTML, JS, VRM, serve_asset, viewer_asset};

/// The live page's own files.
const LIVE_PAGES: &[Asset] = &[
    viewer_asset!("/", HTML, "live.html"),
    viewer_asset!("/live.js", JS, "live.js"),
];

/// The running page server and its hub.
pub struct LiveView {
    hub: Broadcast,
    writer: ViewFrameWriter,
    server: Option<ServerHandle>,
    url: String,
}

impl LiveView {
    /// Serves the page on `addr` for faces of `rig` shown on `vrm` (none: a rig file
    /// without a model, refused: the page needs a VRM); `inputs` names the tracking
    /// inputs for the page's status.
    pub fn start(
        addr: SocketAddr,
        rig: &Rig,
        vrm: Option<Arc<[u8]>>,
        inputs: &[String],
    ) -> Result<Self> {
        let vrm = vrm.context(
            "--view shows the avatar as a VRM: give --rig MODEL.vrm (a rig file has no model to show)",
        )?;
        let writer = ViewFrameWriter::new(rig, "/model.vrm", inputs.to_vec());
        let hub = Broadcast::new();
        hub.set_greeting(Arc::from(writer.hello()));
        let server = Server::bind(addr).with_context(|| {
            format!("--view: cannot listen on {addr} (in use? try --view 0 for a free port)")
        })?;
        let url = server.url();
        let socket = hub.clone();
        let handle = server
            .spawn(move |request: &Request| route(request, &socket, &vrm))
            .context("--view: cannot start the page server")?;
        Ok(Self {
            hub,
            writer,
            server: Some(handle),
            url,
        })
    }

    /// The page's address.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// How many pages are connected, for the status line.
    pub fn clients(&self) -> Arc<dyn Fn() -> usize + Send + Sync> {
        let hub = self.hub.clone();
        Arc::new(move || hub.clients())
    }

    /// The sink that pushes every face to the pages (never blocks).
    pub fn sink(&self) -> ViewSink<impl FnMut(&str) + use<>> {
        let hub = self.hub.clone();
        ViewSink::new(self.writer.clone(), move |text: &str| {
            hub.send_text(Arc::from(text));
        })
    }
}

impl Drop for LiveView {
    fn drop(&mut self) {
        self.hub.close_all();
        if let Some(s) = self.server.take() {
            s.stop();
        }
    }
}

fn route(request: &Request, hub: &Broadcast, vrm: &Arc<[u8]>) -> Response {
    match request.path.as_str() {
        "/live" => Response::websocket(hub),
        "/model.vrm" => Response::ok(VRM, Body::Shared(Arc::clone(vrm))),
        path => serve_asset(LIVE_PAGES, path).unwrap_or_else(Response::not_found),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_live_route_is_unique_and_non_empty() {
        assert_eq!(crate::viewer_assets::check_routes(LIVE_PAGES), Ok(()));
    }
}
