//! [`VmcFrameWriter`]: one face frame → VMC bundles (what a performer sends per frame).

use glam::{Quat, Vec3};

use crate::coords::{quat_to_unity, vec_to_unity};
use crate::names::BlendNames;
use crate::osc::{OscArg, OscWriter};

/// Head and eye bones of one frame, glTF space, local rotations relative to the rest pose.
/// The default sends no bones (blend values only).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BonePose {
    /// Head rotation (`None`: not sent, so another performer can own the head).
    pub head: Option<Quat>,
    /// Left eye rotation (`None`: not sent, e.g. a model whose gaze is expressions).
    pub left_eye: Option<Quat>,
    /// Right eye rotation.
    pub right_eye: Option<Quat>,
}

/// Local rest positions of the bones VMC carries (glTF space, metres). VMC's bone message
/// has a position; receivers that apply it would otherwise pull the bone to its parent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoneRest {
    /// Head position relative to the neck.
    pub head: Vec3,
    /// Left eye position relative to the head.
    pub left_eye: Vec3,
    /// Right eye position relative to the head.
    pub right_eye: Vec3,
}

impl Default for BoneRest {
    /// Proportions of an average adult VRM (used when the model is not known).
    fn default() -> Self {
        Self {
            head: Vec3::new(0.0, 0.1, 0.0),
            left_eye: Vec3::new(0.03, 0.06, 0.08),
            right_eye: Vec3::new(-0.03, 0.06, 0.08),
        }
    }
}

/// The largest packet a frame is sent in (bytes): an Ethernet frame's 1500 less the IP
/// and UDP headers. The protocol asks for bundles "within 1500 bytes"; a larger datagram
/// is sent in IP fragments, and losing any one loses the frame.
pub const MAX_PACKET_BYTES: usize = 1472;

/// Encodes frames of one rig as VMC bundles into reused buffers (no allocation per
/// frame once warm).
///
/// A frame holds `/VMC/Ext/OK 1`, `/VMC/Ext/T time`, `/VMC/Ext/Bone/Pos` for the head
/// and eyes that the [`BonePose`] has, one `/VMC/Ext/Blend/Val name value` per channel
/// and `/VMC/Ext/Blend/Apply` — in that order (VirtualMotionCapture's: `Apply` ends the
/// frame), in as many bundles of at most [`MAX_PACKET_BYTES`] as it needs (a model with
/// ARKit's 52 shapes takes three), so every value arrives before the `Apply` that shows
/// it.
///
/// ```
/// use omote_vmc::{BlendNames, BonePose, VmcFrameWriter, VmcReceiver, osc::parse_packet};
/// let mut w = VmcFrameWriter::new(["aa", "happy"], BlendNames::Vrm0);
/// let mut r = VmcReceiver::new();
/// for packet in w.write(0.5, &[0.25, 1.0], &BonePose::default()) {
///     r.apply(&parse_packet(packet).unwrap()).all_used().unwrap();
/// }
/// assert_eq!(r.blend("A"), Some(0.25));
/// assert_eq!(r.blend("Joy"), Some(1.0));
/// ```
#[derive(Clone, Debug)]
pub struct VmcFrameWriter {
    packets: Vec<OscWriter>,
    used: usize,
    /// The channels' omote names, and what goes on the wire for each.
    channels: Vec<String>,
    names: Vec<String>,
    blend_names: BlendNames,
    rest: BoneRest,
}

impl VmcFrameWriter {
    /// A writer for channels named `channels` (VRM 1.0 / custom names, in the order the
    /// weights will come), sending preset names as `names` says.
    pub fn new<'a>(channels: impl IntoIterator<Item = &'a str>, names: BlendNames) -> Self {
        let channels: Vec<String> = channels.into_iter().map(str::to_owned).collect();
        Self {
            packets: vec![OscWriter::new()],
            used: 0,
            names: channels
                .iter()
                .map(|c| names.to_wire(c).into_owned())
                .collect(),
            channels,
            blend_names: names,
            rest: BoneRest::default(),
        }
    }

    /// Sends every channel that is not a preset as it is named
    /// ([`BlendNames::preset_to_wire`]): for a VRM 0.x model's own channels, which are
    /// its clip names, whatever their spelling.
    pub fn keep_channel_spelling(mut self) -> Self {
        let names = self.blend_names;
        self.names = self
            .channels
            .iter()
            .map(|c| names.preset_to_wire(c).to_owned())
            .collect();
        self
    }

    /// Uses the model's own bone rest positions.
    pub fn with_rest(mut self, rest: BoneRest) -> Self {
        self.rest = rest;
        self
    }

    /// Number of channels.
    pub fn channels(&self) -> usize {
        self.names.len()
    }

    /// Encodes one frame; `weights` are in channel order (extra values are ignored, missing
    /// ones not sent). Non-finite weights are sent as 0 and all are clamped to 0..1.
    /// Gives the frame's packets, each at most [`MAX_PACKET_BYTES`] (a single message
    /// larger than that, a name of a kilobyte, goes alone), to send in order.
    pub fn write<'a>(
        &'a mut self,
        time_s: f32,
        weights: &[f32],
        pose: &BonePose,
    ) -> impl ExactSizeIterator<Item = &'a [u8]> + use<'a> {
        self.used = 1;
        self.packets[0].begin_bundle();
        self.message("/VMC/Ext/OK", &[OscArg::Int(1)]);
        let t = if time_s.is_finite() { time_s } else { 0.0 };
        self.message("/VMC/Ext/T", &[OscArg::Float(t)]);
        let rest = self.rest;
        for (name, pos, q) in [
            ("Head", rest.head, pose.head),
            ("LeftEye", rest.left_eye, pose.left_eye),
            ("RightEye", rest.right_eye, pose.right_eye),
        ] {
            if let Some(q) = q {
                let (p, r) = bone_numbers(pos, q);
                self.message(
                    "/VMC/Ext/Bone/Pos",
                    &[
                        OscArg::Str(name),
                        OscArg::Float(p[0]),
                        OscArg::Float(p[1]),
                        OscArg::Float(p[2]),
                        OscArg::Float(r[0]),
                        OscArg::Float(r[1]),
                        OscArg::Float(r[2]),
                        OscArg::Float(r[3]),
                    ],
                );
            }
        }
        for (k, &w) in weights.iter().enumerate().take(self.names.len()) {
            let w = if w.is_finite() {
                w.clamp(0.0, 1.0)
            } else {
                0.0
            };
            let name = std::mem::take(&mut self.names[k]);
            self.message(
                "/VMC/Ext/Blend/Val",
                &[OscArg::Str(&name), OscArg::Float(w)],
            );
            self.names[k] = name;
        }
        self.message("/VMC/Ext/Blend/Apply", &[]);
        self.packets[..self.used].iter().map(OscWriter::bytes)
    }

    /// Appends a message to the frame's last packet, or to a new one when it would make
    /// that packet too large.
    fn message(&mut self, address: &str, args: &[OscArg<'_>]) {
        let last = self.used - 1;
        let at = self.packets[last].len();
        self.packets[last].message(address, args);
        if self.packets[last].len() > MAX_PACKET_BYTES && at > crate::osc::BUNDLE_HEADER {
            if self.packets.len() == self.used {
                self.packets.push(OscWriter::new());
            }
            let (done, next) = self.packets.split_at_mut(self.used);
            done[last].move_elements_from(at, &mut next[0]);
            self.used += 1;
        }
    }
}

/// A bone's position and rotation in Unity's axes (a rotation that is not finite is sent
/// as none).
fn bone_numbers(pos: Vec3, rot: Quat) -> ([f32; 3], [f32; 4]) {
    let rot = if rot.is_finite() {
        rot.normalize()
    } else {
        Quat::IDENTITY
    };
    (vec_to_unity(pos), quat_to_unity(rot))
}
