//! [`VmcSink`]: faces to a VMC marionette (VSeeFace, VMagicMirror, Warudo, EVMC4U) over
//! UDP.

use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

use omote_core::rig::LookAtType;
use omote_core::{FaceState, Rig};
use omote_vmc::{BlendNames, BlendWeights, BonePose, VmcFrameWriter};

use super::FaceSink;
use crate::LiveError;

/// Sends one VMC bundle per frame (blend values, then head and eye bones) to `to`.
///
/// A marionette that is not running yet (connection refused on loopback) is not an
/// error: a live sender keeps going until it starts.
pub struct VmcSink {
    socket: UdpSocket,
    to: SocketAddr,
    writer: VmcFrameWriter,
    eye_bones: bool,
    weights: BlendWeights,
    min_interval: Duration,
    last_sent: Option<Instant>,
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
            min_interval: Duration::ZERO,
            last_sent: None,
            skipped: 0,
        })
    }

    /// A sink for the faces of `rig`: every channel in rig order; eye bones when the
    /// rig's lookAt moves bones.
    pub fn for_rig(to: SocketAddr, rig: &Rig, names: BlendNames) -> Result<Self, LiveError> {
        let channels = rig.channels().map(|(id, _)| rig.channel_name(id));
        Ok(Self::new(to, channels, names)?.with_eye_bones(rig.look_at().kind == LookAtType::Bone))
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

    /// Sends at most one frame per `rate_hz`-th of a second (a receiver's send rate):
    /// faces offered sooner are skipped (with 1 ms of slack, so a face offered on the
    /// beat is not skipped for jitter). Not a positive finite rate: every face.
    pub fn with_rate(mut self, rate_hz: f64) -> Self {
        self.min_interval = if rate_hz.is_finite() && rate_hz > 0.0 {
            Duration::from_secs_f64(1.0 / rate_hz).saturating_sub(Duration::from_millis(1))
        } else {
            Duration::ZERO
        };
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
        let packet = self.writer.write(time_s, weights, pose);
        match self.socket.send_to(packet, self.to) {
            Ok(_) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => Ok(()),
            Err(source) => Err(LiveError::Send {
                to: self.to,
                source,
            }),
        }
    }
}

impl FaceSink for VmcSink {
    fn send(&mut self, time_s: f64, face: &FaceState) -> Result<(), LiveError> {
        let now = Instant::now();
        if self
            .last_sent
            .is_some_and(|t| now.saturating_duration_since(t) < self.min_interval)
        {
            self.skipped += 1;
            return Ok(());
        }
        self.last_sent = Some(now);
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
