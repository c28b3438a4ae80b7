//! [`VmcReceiver`]: the state a marionette keeps from the messages it receives.

use std::collections::HashMap;

use glam::{Quat, Vec3};

use crate::coords::{quat_from_unity, vec_from_unity};
use crate::error::VmcError;
use crate::osc::{OscMessage, OscValue};

/// Applies decoded VMC messages: blend values become visible at `/VMC/Ext/Blend/Apply`
/// (as the protocol says), bone transforms at once, converted to glTF space.
/// Unknown addresses are ignored (VMC has many we do not use); known ones with wrong
/// arguments are errors.
///
/// **Bounded against hostile senders.** Values are checked as they arrive: a blend value
/// that is not finite becomes 0, others are clamped to 0..1; a bone whose numbers are not
/// all finite or whose rotation cannot be normalised is refused ([`VmcError::BadBone`],
/// the bone keeps its previous pose — never a `[0, 0, 0, 0]` rotation); a rotation with
/// huge finite components is normalised without overflow. At most
/// [`VmcReceiver::MAX_NAMES`] blend names and as many bone names are kept
/// ([`VmcError::TooManyNames`] beyond).
#[derive(Clone, Debug, Default)]
pub struct VmcReceiver {
    pending: HashMap<String, f32>,
    blends: HashMap<String, f32>,
    bones: HashMap<String, (Vec3, Quat)>,
    time: Option<f32>,
    applies: u64,
}

impl VmcReceiver {
    /// Most different blend shape names, and most bone names, a receiver keeps (VRM has
    /// 18 presets, ARKit 52 shapes, a humanoid 55 bones; a model's custom expressions
    /// fit easily).
    pub const MAX_NAMES: usize = 256;

    /// Nothing received yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Applies the messages of one packet in order; returns how many `Blend/Apply` it held.
    pub fn apply(&mut self, messages: &[OscMessage]) -> Result<usize, VmcError> {
        let mut applies = 0;
        for m in messages {
            match m.address.as_str() {
                "/VMC/Ext/Blend/Val" => match m.args.as_slice() {
                    [OscValue::Str(name), OscValue::Float(v)] => {
                        let v = if v.is_finite() {
                            v.clamp(0.0, 1.0)
                        } else {
                            0.0
                        };
                        let known =
                            self.pending.contains_key(name) || self.blends.contains_key(name);
                        if !known && self.blends.len() + self.pending.len() >= Self::MAX_NAMES {
                            return Err(too_many(m, name));
                        }
                        self.pending.insert(name.clone(), v);
                    }
                    _ => return Err(bad(m, "sf")),
                },
                "/VMC/Ext/Blend/Apply" => {
                    for (k, v) in self.pending.drain() {
                        self.blends.insert(k, v);
                    }
                    applies += 1;
                    self.applies += 1;
                }
                "/VMC/Ext/Bone/Pos" | "/VMC/Ext/Root/Pos" => {
                    let [OscValue::Str(name), rest @ ..] = m.args.as_slice() else {
                        return Err(bad(m, "sfffffff"));
                    };
                    let mut f = [0f32; 7];
                    if rest.len() < 7 {
                        return Err(bad(m, "sfffffff"));
                    }
                    for (dst, v) in f.iter_mut().zip(rest) {
                        let OscValue::Float(x) = v else {
                            return Err(bad(m, "sfffffff"));
                        };
                        *dst = *x;
                    }
                    let bad_bone = |problem| VmcError::BadBone {
                        address: m.address.clone(),
                        bone: name.clone(),
                        problem,
                    };
                    if !f.iter().all(|x| x.is_finite()) {
                        return Err(bad_bone("a number is not finite"));
                    }
                    let q = normalised(quat_from_unity([f[3], f[4], f[5], f[6]]))
                        .ok_or_else(|| bad_bone("the rotation is all zero"))?;
                    if !self.bones.contains_key(name) && self.bones.len() >= Self::MAX_NAMES {
                        return Err(too_many(m, name));
                    }
                    self.bones
                        .insert(name.clone(), (vec_from_unity([f[0], f[1], f[2]]), q));
                }
                "/VMC/Ext/T" => match m.args.as_slice() {
                    [OscValue::Float(t)] if t.is_finite() => self.time = Some(*t),
                    [OscValue::Float(_)] => {}
                    _ => return Err(bad(m, "f")),
                },
                _ => {}
            }
        }
        Ok(applies)
    }

    /// The applied value of a blend shape clip (by its wire name), if received.
    pub fn blend(&self, name: &str) -> Option<f32> {
        self.blends.get(name).copied()
    }

    /// All applied blend values by wire name.
    pub fn blends(&self) -> &HashMap<String, f32> {
        &self.blends
    }

    /// The latest local (position, rotation) of a bone (`Head`, `LeftEye`, …), glTF space.
    pub fn bone(&self, name: &str) -> Option<(Vec3, Quat)> {
        self.bones.get(name).copied()
    }

    /// The performer's clock from `/VMC/Ext/T`, if sent.
    pub fn time(&self) -> Option<f32> {
        self.time
    }

    /// `Blend/Apply` messages seen so far.
    pub fn applies(&self) -> u64 {
        self.applies
    }
}

/// `q` scaled to unit length without overflow (huge finite components are first divided
/// by the largest); `None` when it has no direction (all zero).
fn normalised(q: Quat) -> Option<Quat> {
    let big = q.x.abs().max(q.y.abs()).max(q.z.abs()).max(q.w.abs());
    if !(big > 0.0 && big.is_finite()) {
        return None;
    }
    let q = Quat::from_xyzw(q.x / big, q.y / big, q.z / big, q.w / big);
    let len = q.length();
    (len > 1e-6).then(|| q / len).filter(|q| q.is_finite())
}

fn too_many(m: &OscMessage, name: &str) -> VmcError {
    VmcError::TooManyNames {
        address: m.address.clone(),
        name: name.to_owned(),
        limit: VmcReceiver::MAX_NAMES,
    }
}

fn bad(m: &OscMessage, expected: &'static str) -> VmcError {
    VmcError::BadArguments {
        address: m.address.clone(),
        expected,
        got: m.tags(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bone(q: [f32; 4]) -> OscMessage {
        let mut args = vec![OscValue::Str("Head".into())];
        args.extend([0.0, 0.0, 0.0].into_iter().chain(q).map(OscValue::Float));
        OscMessage {
            address: "/VMC/Ext/Bone/Pos".into(),
            args,
        }
    }

    #[test]
    fn a_huge_rotation_is_normalised_and_a_bad_one_refused() {
        let mut r = VmcReceiver::new();
        r.apply(&[bone([3e38, 0.0, 0.0, 3e38])]).unwrap();
        let (_, q) = r.bone("Head").unwrap();
        assert!(q.is_finite() && (q.length() - 1.0).abs() < 1e-5, "{q:?}");
        for bad in [
            [0.0; 4],
            [f32::NAN, 0.0, 0.0, 1.0],
            [f32::INFINITY, 0.0, 0.0, 1.0],
        ] {
            let e = r.apply(&[bone(bad)]).unwrap_err();
            assert!(matches!(e, VmcError::BadBone { .. }), "{e}");
            // The bone keeps its previous pose.
            assert_eq!(r.bone("Head").unwrap().1, q);
        }
    }

    #[test]
    fn invented_names_are_capped() {
        let mut r = VmcReceiver::new();
        let val = |name: String| OscMessage {
            address: "/VMC/Ext/Blend/Val".into(),
            args: vec![OscValue::Str(name), OscValue::Float(0.5)],
        };
        for i in 0..VmcReceiver::MAX_NAMES {
            r.apply(&[val(format!("n{i}"))]).unwrap();
        }
        let e = r.apply(&[val("one more".into())]).unwrap_err();
        assert!(matches!(e, VmcError::TooManyNames { .. }), "{e}");
        // A known name still updates.
        r.apply(&[val("n0".into())]).unwrap();
    }
}
