//! [`VmcFrameWriter`]: one face frame → one VMC bundle (what a performer sends per frame).

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

/// Encodes frames of one rig as VMC bundles into a reused buffer (no allocation per
/// frame once warm).
///
/// A bundle holds `/VMC/Ext/OK 1`, `/VMC/Ext/T time`, one `/VMC/Ext/Blend/Val name value`
/// per channel, `/VMC/Ext/Blend/Apply`, and `/VMC/Ext/Bone/Pos` for the head and eyes that
/// the [`BonePose`] has.
///
/// ```
/// use omote_vmc::{BlendNames, BonePose, VmcFrameWriter, VmcReceiver, osc::parse_packet};
/// let mut w = VmcFrameWriter::new(["aa", "happy"], BlendNames::Vrm0);
/// let bytes = w.write(0.5, &[0.25, 1.0], &BonePose::default());
/// let mut r = VmcReceiver::new();
/// r.apply(&parse_packet(bytes).unwrap()).unwrap();
/// assert_eq!(r.blend("A"), Some(0.25));
/// assert_eq!(r.blend("Joy"), Some(1.0));
/// ```
#[derive(Clone, Debug)]
pub struct VmcFrameWriter {
    osc: OscWriter,
    names: Vec<String>,
    rest: BoneRest,
}

impl VmcFrameWriter {
    /// A writer for channels named `channels` (VRM 1.0 / custom names, in the order the
    /// weights will come), sending preset names as `names` says.
    pub fn new<'a>(channels: impl IntoIterator<Item = &'a str>, names: BlendNames) -> Self {
        Self {
            osc: OscWriter::new(),
            names: channels
                .into_iter()
                .map(|c| names.to_wire(c).to_owned())
                .collect(),
            rest: BoneRest::default(),
        }
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
    pub fn write(&mut self, time_s: f32, weights: &[f32], pose: &BonePose) -> &[u8] {
        let o = &mut self.osc;
        o.begin_bundle();
        o.message("/VMC/Ext/OK", &[OscArg::Int(1)]);
        o.message(
            "/VMC/Ext/T",
            &[OscArg::Float(if time_s.is_finite() { time_s } else { 0.0 })],
        );
        for (name, w) in self.names.iter().zip(weights) {
            let w = if w.is_finite() {
                w.clamp(0.0, 1.0)
            } else {
                0.0
            };
            o.message("/VMC/Ext/Blend/Val", &[OscArg::Str(name), OscArg::Float(w)]);
        }
        o.message("/VMC/Ext/Blend/Apply", &[]);
        if let Some(q) = pose.head {
            bone(o, "Head", self.rest.head, q);
        }
        if let Some(q) = pose.left_eye {
            bone(o, "LeftEye", self.rest.left_eye, q);
        }
        if let Some(q) = pose.right_eye {
            bone(o, "RightEye", self.rest.right_eye, q);
        }
        o.bytes()
    }
}

fn bone(o: &mut OscWriter, name: &str, pos: Vec3, rot: Quat) {
    let rot = if rot.is_finite() {
        rot.normalize()
    } else {
        Quat::IDENTITY
    };
    let p = vec_to_unity(pos);
    let q = quat_to_unity(rot);
    o.message(
        "/VMC/Ext/Bone/Pos",
        &[
            OscArg::Str(name),
            OscArg::Float(p[0]),
            OscArg::Float(p[1]),
            OscArg::Float(p[2]),
            OscArg::Float(q[0]),
            OscArg::Float(q[1]),
            OscArg::Float(q[2]),
            OscArg::Float(q[3]),
        ],
    );
}
