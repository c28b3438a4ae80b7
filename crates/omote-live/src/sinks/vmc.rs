//! [`VmcSink`]: faces to a VMC marionette (VSeeFace, VMagicMirror, Warudo, EVMC4U) over
//! UDP.

use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

use omote_core::rig::LookAtType;
use omote_core::{FaceState, Rig};
use omote_vmc::{BlendNames, BlendWeights, BonePose, BoneRest, VmcFrameWriter};

use super::FaceSink;
use crate::LiveError;

/// Sends each frame (head and eye bones, then blend values and Apply) to `to`, in
/// bundles of at most [`omote_vmc::MAX_PACKET_BYTES`].
///
/// A marionette that is not running yet (connection refused on loopback) is not an
/// error: a live sender keeps going until it starts.
pub struct VmcSink {
    socket: UdpSocket,
    to: SocketAddr,
    writer: VmcFrameWriter,
    eye_bones: bool,
    weights: BlendWeights,
    rate: SendRate,
    skipped: u64,
}

impl VmcSink {
    /// A sink for frames whose weights are `channels` (omote names, in order), with
    /// `names` on the wire. Eye bones are not sent (see [`VmcSink::with_eye_bones`]).
    pub fn new<'a>(
        to: SocketAddr,
        channels: impl IntoIterator<Item = &'a str>,
        names: BlendNames,
    ) -> Result<Self, LiveError> {
        Ok(Self {
            socket: sender_socket(to)?,
            to,
            writer: VmcFrameWriter::new(channels, names),
            eye_bones: false,
            weights: BlendWeights::for_names(names),
            rate: SendRate::default(),
            skipped: 0,
        })
    }

    /// A sink for the faces of `rig`: every channel in rig order; eye bones when the
    /// rig's lookAt moves bones.
    pub fn for_rig(to: SocketAddr, rig: &Rig, names: BlendNames) -> Result<Self, LiveError> {
        let channels = rig.channels().map(|(id, _)| rig.channel_name(id));
        Ok(Self::new(to, channels, names)?.with_eye_bones(rig.look_at().kind == LookAtType::Bone))
    }

    /// The avatar's own bone rest positions, sent with each bone (a receiver that
    /// applies positions would otherwise pull the head and eyes to an average adult's).
    pub fn with_rest(mut self, rest: BoneRest) -> Self {
        self.writer = self.writer.with_rest(rest);
        self
    }

    /// Whether the channels that are not presets go as they are named (a VRM 0.x
    /// model's own clip names; see [`VmcFrameWriter::keep_channel_spelling`]).
    pub fn with_channel_spelling_kept(mut self, keep: bool) -> Self {
        if keep {
            self.writer = self.writer.keep_channel_spelling();
        }
        self
    }

    /// Whether [`FaceSink::send`] sends the eye bones.
    pub fn with_eye_bones(mut self, eye_bones: bool) -> Self {
        self.eye_bones = eye_bones;
        self
    }

    /// Which weights [`FaceSink::send`] sends: after the override rules (VRM 0.x
    /// receivers) or before them (VRM 1.0 receivers apply them); by default the one the
    /// wire names suggest ([`BlendWeights::for_names`]).
    pub fn with_weights(mut self, weights: BlendWeights) -> Self {
        self.weights = weights;
        self
    }

    /// Sends one frame per `rate_hz`-th of a second (a receiver's send rate): the first
    /// face offered in each beat goes, the others are skipped ([`SendRate`]). Not a
    /// positive finite rate: every face.
    pub fn with_rate(mut self, rate_hz: f64) -> Self {
        self.rate = SendRate::new(rate_hz);
        self
    }

    /// Faces skipped by the send rate ([`VmcSink::with_rate`]).
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// Where the packets go.
    pub fn to(&self) -> SocketAddr {
        self.to
    }

    /// Sends one frame: `weights` in channel order, the bones of `pose` that are set.
    pub fn send_weights(
        &mut self,
        time_s: f32,
        weights: &[f32],
        pose: &BonePose,
    ) -> Result<(), LiveError> {
        for packet in self.writer.write(time_s, weights, pose) {
            match self.socket.send_to(packet, self.to) {
                Ok(_) => {}
                // No marionette listening yet: the frame is not for anyone.
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => return Ok(()),
                Err(source) => {
                    return Err(LiveError::Send {
                        to: self.to,
                        source,
                    });
                }
            }
        }
        Ok(())
    }
}

impl FaceSink for VmcSink {
    fn send(&mut self, time_s: f64, face: &FaceState) -> Result<(), LiveError> {
        if !self.rate.due(Instant::now()) {
            self.skipped += 1;
            return Ok(());
        }
        let pose = BonePose {
            head: Some(face.head),
            left_eye: self.eye_bones.then_some(face.left_eye),
            right_eye: self.eye_bones.then_some(face.right_eye),
        };
        let weights = self
            .weights
            .pick(&*face.expressions, &*face.input_expressions);
        self.send_weights(time_s as f32, weights, &pose)
    }
}

/// The send rate of a sink that is offered faces at uneven times (tracking results
/// between the session's ticks): beats on a fixed grid, and the first face offered in
/// each beat goes. Measuring from the last send instead lost a beat whenever a face
/// came just before it was due — 45–50 packets a second of 60 while a video was tracked.
/// A stall longer than a beat restarts the grid (no burst to catch up).
#[derive(Clone, Copy, Debug, Default)]
pub struct SendRate {
    period: Duration,
    next: Option<Instant>,
}

impl SendRate {
    /// Offered faces early by at most this much still count for the beat (timer jitter).
    const SLACK: Duration = Duration::from_millis(1);

    /// `rate_hz` beats a second; not a positive finite rate: every face goes.
    pub fn new(rate_hz: f64) -> Self {
        let period = if rate_hz.is_finite() && rate_hz > 0.0 {
            Duration::from_secs_f64(1.0 / rate_hz)
        } else {
            Duration::ZERO
        };
        Self { period, next: None }
    }

    /// Whether a face offered at `now` goes (and if so, the beat is taken).
    pub fn due(&mut self, now: Instant) -> bool {
        if let Some(next) = self.next
            && now + Self::SLACK < next
        {
            return false;
        }
        self.next = Some(match self.next {
            Some(next) if now < next + self.period => next + self.period,
            _ => now + self.period,
        });
        true
    }
}

/// A UDP socket for sending to `to`: bound to loopback when the target is local.
fn sender_socket(to: SocketAddr) -> Result<UdpSocket, LiveError> {
    use std::net::{Ipv4Addr, Ipv6Addr};
    let ip: std::net::IpAddr = match (to.is_ipv4(), to.ip().is_loopback()) {
        (true, true) => Ipv4Addr::LOCALHOST.into(),
        (true, false) => Ipv4Addr::UNSPECIFIED.into(),
        (false, true) => Ipv6Addr::LOCALHOST.into(),
        (false, false) => Ipv6Addr::UNSPECIFIED.into(),
    };
    UdpSocket::bind(SocketAddr::new(ip, 0)).map_err(|source| LiveError::Socket { to, source })
}

#[cfg(test)]
mod send_rate_tests {
    use super::*;

    /// Faces offered every 8–16 ms (never a whole beat apart), as a 60 Hz tick
    /// pushed about by 30 fps tracking results: 60 go a second, one per beat.
    #[test]
    fn uneven_offers_give_every_beat_one_send() {
        let t0 = Instant::now();
        let mut rate = SendRate::new(60.0);
        let (mut t, mut sent, mut k) = (Duration::ZERO, 0, 0u32);
        while t < Duration::from_secs(10) {
            sent += u32::from(rate.due(t0 + t));
            k += 1;
            t += Duration::from_micros(8_000 + u64::from(k * 7_919 % 8_000));
        }
        assert!((598..=601).contains(&sent), "{sent} in 10 s");
        // A stall of half a second: no burst after it.
        let mut after = 0;
        for i in 0..10 {
            after += u32::from(rate.due(t0 + t + Duration::from_millis(500 + i)));
        }
        assert_eq!(after, 1);
        // No rate: every face.
        let mut every = SendRate::new(0.0);
        assert!((0..5).all(|_| every.due(t0)));
    }
}
