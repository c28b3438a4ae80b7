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
#[derive(Clone, Debug, Default)]
pub struct VmcReceiver {
    pending: HashMap<String, f32>,
    blends: HashMap<String, f32>,
    bones: HashMap<String, (Vec3, Quat)>,
    time: Option<f32>,
    applies: u64,
}

impl VmcReceiver {
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
                        *dst = if x.is_finite() { *x } else { 0.0 };
                    }
                    let q = quat_from_unity([f[3], f[4], f[5], f[6]]);
                    let q = if q.length_squared() > 1e-12 {
                        q.normalize()
                    } else {
                        Quat::IDENTITY
                    };
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

fn bad(m: &OscMessage, expected: &'static str) -> VmcError {
    VmcError::BadArguments {
        address: m.address.clone(),
        expected,
        got: m.tags(),
    }
}
