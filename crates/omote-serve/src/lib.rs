//! A tiny HTTP/1.1 + WebSocket server on std threads for omote's browser pages.
//!
//! One thread per connection, one request per connection (`Connection: close`), GET and
//! HEAD only, answered from whatever the [`Handler`] returns — no file system path is
//! ever derived from a request. Every answer has `Cache-Control: no-store` and
//! `X-Content-Type-Options: nosniff`. Limits: a request head of [`MAX_HEAD`] bytes
//! (431 beyond) sent within [`HEAD_DEADLINE`] (all of it, not each read),
//! [`MAX_CONNECTIONS`] connections at once — at the cap a new connection closes the one
//! that has been sending its head longest (for [`HEAD_GRACE`] at least), else it is
//! closed unanswered, so clients trickling their heads cannot shut others out.
//! Bound to loopback, a request whose `Host` is not a loopback name is refused (403),
//! so a page elsewhere cannot read the server through DNS rebinding; a WebSocket
//! upgrade whose `Origin` is not a loopback page is refused too.
//!
//! A route answered with [`Response::websocket`] hands its connection to a
//! [`Broadcast`] hub (RFC 6455, server side): [`Broadcast::send_text`] queues a
//! message for every client and never waits — each client has a small queue and its
//! own writer thread, and a full queue drops its oldest message.
//!
//! ```
//! use std::sync::Arc;
//! use omote_serve::{Broadcast, Request, Response, Server};
//!
//! let live = Broadcast::new();
//! live.set_greeting(Arc::from(r#"{"hello": ["aa", "blink"]}"#));
//! let hub = live.clone();
//! let server = Server::bind("127.0.0.1:0".parse().unwrap())?;
//! println!("open {}", server.url());
//! let handle = server.spawn(move |request: &Request| match request.path.as_str() {
//!     "/" => Response::ok("text/html; charset=utf-8", &b"<h1>live</h1>"[..]),
//!     "/live" => Response::websocket(&hub),
//!     _ => Response::not_found(),
//! })?;
//! live.send_text(Arc::from(r#"{"aa": 0.5}"#)); // every frame; never blocks
//! handle.stop();
//! # Ok::<(), omote_serve::ServeError>(())
//! ```

#![deny(missing_docs)]

mod broadcast;
mod error;
pub mod frame;
mod handshake;
mod host;
mod request;
mod response;
mod server;

pub use broadcast::{Broadcast, MAX_CLIENTS, PING_EVERY, QUEUE_LEN};
pub use error::{FrameError, ServeError};
pub use handshake::{WEBSOCKET_GUID, accept_key, base64};
pub use host::{loopback_host, loopback_origin};
pub use request::{MAX_HEAD, Method, Request};
pub use response::{Body, Response, TEXT_PLAIN, reason};
pub use server::{HEAD_DEADLINE, HEAD_GRACE, Handler, MAX_CONNECTIONS, Server, ServerHandle};
