//! [`VmcInput`]: tracking from another performer over the VMC protocol — a phone
//! tracker or a VTuber tool sending ARKit-52 "perfect sync" blend shapes and the `Head`
//! bone — published like the camera's.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::{InputState, TrackingSender};
use crate::{LiveError, Packet, VmcListener};

/// A [`VmcListener`] on its own thread: every valid packet that brings ARKit values or
/// the head becomes a tracking result; packets that are not OSC, or hold nothing it can
/// use, are dropped and counted ([`InputStats::dropped`](super::InputStats)), and a
/// packet's unusable messages skipped (the first reason kept as the input's note). A
/// performer that stops sending goes stale like a camera; one that starts again is
/// picked up at its first packet.
pub struct VmcInput {
    thread: std::thread::JoinHandle<Result<(), LiveError>>,
}

impl VmcInput {
    /// Receives on `listener` until `stop` is set.
    pub fn spawn(
        mut listener: VmcListener,
        sender: TrackingSender,
        stop: Arc<AtomicBool>,
    ) -> Result<Self, LiveError> {
        let thread = std::thread::Builder::new()
            .name("omote-vmc-in".into())
            .spawn(move || {
                let result = receive(&mut listener, &sender, &stop);
                if let Err(e) = &result {
                    sender.set_state(InputState::Failed(e.to_string()));
                }
                result
            })
            .map_err(|source| LiveError::Thread {
                what: "the VMC input".into(),
                source,
            })?;
        Ok(Self { thread })
    }

    /// Waits for the thread after `stop` was set; its error, if any.
    pub fn finish(self) -> Result<(), LiveError> {
        self.thread.join().unwrap_or_else(|_| {
            Err(LiveError::ReaderPanicked {
                what: "the VMC input".into(),
            })
        })
    }
}

fn receive(
    listener: &mut VmcListener,
    sender: &TrackingSender,
    stop: &AtomicBool,
) -> Result<(), LiveError> {
    // The first reason anything was ignored, for the session's report.
    let mut told = false;
    let mut tell = |why: String| {
        if !std::mem::replace(&mut told, true) {
            sender.note(why);
        }
    };
    while !stop.load(Ordering::SeqCst) {
        let head_before = listener.receiver().bone("Head");
        match listener.recv(Duration::from_millis(50))? {
            None => {}
            Some(Packet::Malformed(e)) => {
                sender.dropped(1);
                tell(format!("a packet that is not OSC was dropped: {e}"));
            }
            Some(Packet::Applied(report)) => {
                if let Some(e) = &report.first_problem {
                    tell(format!("a message it could not use was skipped: {e}"));
                    // Nothing in it was usable: as good as dropped.
                    if report.used == 0 {
                        sender.dropped(1);
                    }
                }
                sender.non_finite(report.non_finite as u64);
                let applies = report.applies;
                let captured = Instant::now();
                let head_moved = listener.receiver().bone("Head") != head_before;
                if (applies > 0 || head_moved)
                    && let Some(face) = omote_vmc::tracked_face(listener.receiver())
                {
                    sender.publish_captured(Some(face), captured);
                }
            }
        }
    }
    Ok(())
}
