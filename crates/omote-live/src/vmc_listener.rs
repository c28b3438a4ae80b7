//! [`VmcListener`]: a VMC marionette's UDP end — packets in, a [`VmcReceiver`]'s state
//! (and optionally a [`VmcRecorder`]'s anim) out.

use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use omote_vmc::{ApplyReport, VmcError, VmcReceiver, VmcRecorder};

use crate::LiveError;

/// When [`VmcListener::run`] stops.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ListenLimits {
    /// Stop after this long in all; `None`: no limit.
    pub max: Option<Duration>,
    /// Stop when nothing arrived for this long, once something has.
    pub idle: Duration,
}

/// What one packet did.
#[derive(Debug, PartialEq)]
pub enum Packet {
    /// Decoded and applied, but for the messages it could not use (skipped, with the
    /// first one's reason: the protocol's receivers ignore what they cannot use).
    Applied(ApplyReport),
    /// Not valid OSC: ignored whole.
    Malformed(VmcError),
}

/// Counts of a listening session.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ListenStats {
    /// Packets received.
    pub packets: u64,
    /// Of which malformed (not OSC: ignored whole).
    pub malformed: u64,
    /// Messages skipped in the packets that were applied (see [`ApplyReport`]).
    pub skipped_messages: u64,
}

/// A bound UDP socket and the state of what arrived on it.
///
/// With a recorder attached ([`VmcListener::record`]), every packet that applies blend
/// values advances the recording to the performer's clock (`/VMC/Ext/T`), or to the
/// time since the first packet when the performer sends no clock. The performer's clock
/// is trusted only within the real time: the recording never holds more frames than the
/// time since the first packet × [`VmcListener::MAX_CLOCK_RATE`] plus
/// [`VmcListener::CLOCK_SLACK_S`] (the recorder's own rules handle jumps and restarts,
/// see [`VmcRecorder`]).
pub struct VmcListener {
    socket: UdpSocket,
    addr: SocketAddr,
    receiver: VmcReceiver,
    recorder: Option<VmcRecorder>,
    buf: Vec<u8>,
    first: Option<Instant>,
    last: Option<Instant>,
    stats: ListenStats,
    stop: Option<Arc<AtomicBool>>,
}

impl VmcListener {
    /// The largest UDP payload.
    const MAX_PACKET: usize = 65_536;
    /// Seconds a performer's clock may run ahead of the real time in a recording.
    pub const CLOCK_SLACK_S: f64 = 10.0;
    /// How much faster than real time a performer's clock may run (a replay sent at
    /// `omote vmc send --speed 100`, the largest speed it takes); the recording's value
    /// cap bounds the memory whatever the clock does.
    pub const MAX_CLOCK_RATE: f64 = 100.0;

    /// Listens on `addr` (port 0: any free port, see [`VmcListener::local_addr`]).
    pub fn bind(addr: SocketAddr) -> Result<Self, LiveError> {
        let socket = UdpSocket::bind(addr).map_err(|source| LiveError::Bind { addr, source })?;
        let addr = socket.local_addr().unwrap_or(addr);
        Ok(Self {
            socket,
            addr,
            receiver: VmcReceiver::new(),
            recorder: None,
            buf: vec![0u8; Self::MAX_PACKET],
            first: None,
            last: None,
            stats: ListenStats::default(),
            stop: None,
        })
    }

    /// [`VmcListener::run`] ends (as at its limits) within 100 ms of `flag` being set
    /// (a Ctrl-C).
    pub fn stop_on(&mut self, flag: Arc<AtomicBool>) {
        self.stop = Some(flag);
    }

    /// Records what arrives from now on into `recorder`.
    pub fn record(&mut self, recorder: VmcRecorder) {
        self.recorder = Some(recorder);
    }

    /// The recorder, if one was attached (its anim: [`VmcRecorder::finish`]).
    pub fn take_recorder(&mut self) -> Option<VmcRecorder> {
        self.recorder.take()
    }

    /// The address actually bound.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// What arrived so far: the latest blend values and bones.
    pub fn receiver(&self) -> &VmcReceiver {
        &self.receiver
    }

    /// Packet counts so far.
    pub fn stats(&self) -> ListenStats {
        self.stats
    }

    /// Waits up to `timeout` (at least 1 ms) for one packet and applies it; `None` when
    /// none came.
    pub fn recv(&mut self, timeout: Duration) -> Result<Option<Packet>, LiveError> {
        let receive = |source| LiveError::Receive {
            addr: self.addr,
            source,
        };
        self.socket
            .set_read_timeout(Some(timeout.max(Duration::from_millis(1))))
            .map_err(receive)?;
        let n = match self.socket.recv_from(&mut self.buf) {
            Ok((n, _)) => n,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock
                        | std::io::ErrorKind::TimedOut
                        // A signal (Ctrl-C) arrived: the caller looks at its stop flag.
                        | std::io::ErrorKind::Interrupted
                ) =>
            {
                return Ok(None);
            }
            Err(e) => return Err(receive(e)),
        };
        let now = Instant::now();
        let t0 = *self.first.get_or_insert(now);
        self.last = Some(now);
        self.stats.packets += 1;
        let report = match omote_vmc::osc::parse_packet(&self.buf[..n]) {
            Ok(m) => self.receiver.apply(&m),
            Err(e) => {
                self.stats.malformed += 1;
                return Ok(Some(Packet::Malformed(e)));
            }
        };
        self.stats.skipped_messages += report.skipped as u64;
        if let (Some(rec), true) = (self.recorder.as_mut(), report.applies > 0) {
            let t = self
                .receiver
                .time()
                .map_or_else(|| (now - t0).as_secs_f64(), f64::from);
            let real = (now - t0).as_secs_f64() * Self::MAX_CLOCK_RATE + Self::CLOCK_SLACK_S;
            let max_frames = (real * f64::from(rec.fps())).ceil() as usize;
            rec.advance_within(t, &self.receiver, max_frames);
        }
        Ok(Some(Packet::Applied(report)))
    }

    /// Receives until `limits` say stop; `on_problem` sees each packet with something
    /// it ignored: its number (from 1), the (first) reason, and how many of its messages
    /// were skipped (`None`: the whole packet, not OSC).
    pub fn run(
        &mut self,
        limits: ListenLimits,
        mut on_problem: impl FnMut(u64, &VmcError, Option<usize>),
    ) -> Result<ListenStats, LiveError> {
        let started = Instant::now();
        let poll = Duration::from_millis(100);
        loop {
            if limits.max.is_some_and(|m| started.elapsed() >= m) {
                break;
            }
            if self.last.is_some_and(|l| l.elapsed() >= limits.idle) {
                break;
            }
            if self.stop.as_ref().is_some_and(|f| f.load(Ordering::SeqCst)) {
                break;
            }
            match self.recv(poll)? {
                Some(Packet::Malformed(e)) => on_problem(self.stats.packets, &e, None),
                Some(Packet::Applied(ApplyReport {
                    skipped,
                    first_problem: Some(e),
                    ..
                })) => on_problem(self.stats.packets, &e, Some(skipped)),
                _ => {}
            }
        }
        Ok(self.stats)
    }
}
