//! [`VmcReceiver`]: the state a marionette keeps from the messages it receives.

use std::collections::HashMap;

use glam::{Quat, Vec3};

use crate::coords::{quat_from_unity, vec_from_unity};
use crate::error::VmcError;
use crate::osc::{OscMessage, OscValue};

/// Applies decoded VMC messages: blend values become visible at `/VMC/Ext/Blend/Apply`
/// (as the protocol says), bone transforms at once, converted to glTF space.
///
/// **What it cannot use, it skips, and uses the rest** (the protocol's rule: a receiver
/// ignores what it does not understand). Unknown addresses are ignored silently (VMC has
/// many we do not use); arguments after the ones a message needs are ignored. A known
/// message it still cannot use (a name that is not a string, an integer where a float
/// goes, a bone with a non-finite number) is skipped and reported in the
/// [`ApplyReport`]; the packet's other messages are applied.
///
/// **Bounded against hostile senders.** A blend value that is not finite becomes 0
/// (counted: [`ApplyReport::non_finite`]), others are clamped to 0..1; a bone whose
/// numbers are not all finite or whose rotation cannot be normalised is skipped
/// ([`VmcError::BadBone`], the bone keeps its previous pose — never a `[0, 0, 0, 0]`
/// rotation); a rotation with huge finite components is normalised without overflow.
/// At most [`VmcReceiver::MAX_NAMES`] blend names and as many bone names are kept; a new
/// name beyond them is skipped ([`VmcError::TooManyNames`]), never the known ones.
#[derive(Clone, Debug, Default)]
pub struct VmcReceiver {
    pending: HashMap<String, f32>,
    blends: HashMap<String, f32>,
    bones: HashMap<String, (Vec3, Quat)>,
    time: Option<f32>,
    applies: u64,
}

/// What one packet's messages did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ApplyReport {
    /// `Blend/Apply` messages it held.
    pub applies: usize,
    /// Known messages it used (values, applies, bones, the clock).
    pub used: usize,
    /// Known messages skipped because they could not be used.
    pub skipped: usize,
    /// Why the first of them was skipped.
    pub first_problem: Option<VmcError>,
    /// Blend values that were not finite, taken as 0.
    pub non_finite: usize,
}

impl ApplyReport {
    /// The `Blend/Apply` count when every known message was used, else why the first
    /// one was not (the others were applied all the same).
    pub fn all_used(self) -> Result<usize, VmcError> {
        match self.first_problem {
            None => Ok(self.applies),
            Some(e) => Err(e),
        }
    }
}

/// An argument as a float: only a float (the protocol's type; an integer where a weight
/// goes is a sender's mistake, skipped, not guessed at).
fn float_of(v: &OscValue) -> Option<f32> {
    match v {
        OscValue::Float(x) => Some(*x),
        _ => None,
    }
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

    /// Applies the messages of one packet in order, skipping those it cannot use.
    pub fn apply(&mut self, messages: &[OscMessage]) -> ApplyReport {
        let mut report = ApplyReport::default();
        for m in messages {
            match self.apply_one(m, &mut report) {
                Ok(true) => report.used += 1,
                Ok(false) => {}
                Err(e) => {
                    report.skipped += 1;
                    report.first_problem.get_or_insert(e);
                }
            }
        }
        report
    }

    /// One message; `Ok(false)`: an address VMC has that we do not use.
    fn apply_one(&mut self, m: &OscMessage, report: &mut ApplyReport) -> Result<bool, VmcError> {
        match m.address.as_str() {
            "/VMC/Ext/Blend/Val" => {
                let (Some(OscValue::Str(name)), Some(v)) =
                    (m.args.first(), m.args.get(1).and_then(float_of))
                else {
                    return Err(bad(m, "sf"));
                };
                let v = if v.is_finite() {
                    v.clamp(0.0, 1.0)
                } else {
                    report.non_finite += 1;
                    0.0
                };
                if let Some(slot) = self.pending.get_mut(name.as_str()) {
                    *slot = v;
                    return Ok(true);
                }
                if !self.blends.contains_key(name.as_str()) {
                    // Names held: the applied ones and the new ones waiting for Apply.
                    let waiting_new = self
                        .pending
                        .keys()
                        .filter(|k| !self.blends.contains_key(*k));
                    if self.blends.len() + waiting_new.count() >= Self::MAX_NAMES {
                        return Err(too_many(m, name));
                    }
                }
                self.pending.insert(name.clone(), v);
            }
            "/VMC/Ext/Blend/Apply" => {
                for (k, v) in self.pending.drain() {
                    self.blends.insert(k, v);
                }
                report.applies += 1;
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
                    *dst = float_of(v).ok_or_else(|| bad(m, "sfffffff"))?;
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
            "/VMC/Ext/T" => match m.args.first().and_then(float_of) {
                Some(t) if t.is_finite() => self.time = Some(t),
                Some(_) => {}
                None => return Err(bad(m, "f")),
            },
            _ => return Ok(false),
        }
        Ok(true)
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
        r.apply(&[bone([3e38, 0.0, 0.0, 3e38])]).all_used().unwrap();
        let (_, q) = r.bone("Head").unwrap();
        assert!(q.is_finite() && (q.length() - 1.0).abs() < 1e-5, "{q:?}");
        for bad in [
            [0.0; 4],
            [f32::NAN, 0.0, 0.0, 1.0],
            [f32::INFINITY, 0.0, 0.0, 1.0],
        ] {
            let e = r.apply(&[bone(bad)]).all_used().unwrap_err();
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
            r.apply(&[val(format!("n{i}"))]).all_used().unwrap();
        }
        let e = r.apply(&[val("one more".into())]).all_used().unwrap_err();
        assert!(matches!(e, VmcError::TooManyNames { .. }), "{e}");
        // A known name still updates, in the same packet as a refused one.
        let report = r.apply(&[
            val("and another".into()),
            OscMessage {
                address: "/VMC/Ext/Blend/Val".into(),
                args: vec![OscValue::Str("n0".into()), OscValue::Float(0.25)],
            },
            OscMessage {
                address: "/VMC/Ext/Blend/Apply".into(),
                args: vec![],
            },
        ]);
        assert_eq!((report.applies, report.skipped), (1, 1));
        assert_eq!(r.blend("n0"), Some(0.25));
        assert_eq!(r.blend("and another"), None);
    }

    /// Known names waiting for an Apply are not counted twice: a performer re-sending
    /// 200 names each frame can still add a new one.
    #[test]
    fn known_names_waiting_for_apply_count_once() {
        let mut r = VmcReceiver::new();
        let val = |name: String| OscMessage {
            address: "/VMC/Ext/Blend/Val".into(),
            args: vec![OscValue::Str(name), OscValue::Float(0.5)],
        };
        let apply = OscMessage {
            address: "/VMC/Ext/Blend/Apply".into(),
            args: vec![],
        };
        let mut frame: Vec<OscMessage> = (0..200).map(|i| val(format!("n{i}"))).collect();
        frame.push(apply.clone());
        r.apply(&frame).all_used().unwrap();
        frame.insert(200, val("new".into()));
        r.apply(&frame).all_used().unwrap();
        assert_eq!(r.blend("new"), Some(0.5));
        assert_eq!(r.blends().len(), 201);
    }
}
