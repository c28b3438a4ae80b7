//! Response curves: keyframed cubic Hermite curves with in/out tangents, like Unity's
//! `AnimationCurve`, plus linear and constant segments.

use serde::{Deserialize, Serialize};

pub use crate::error::CurveError;

/// How a segment is interpolated from its starting key to the next key.
///
/// Read from its name as a string (`try_from`), so a wrong one is said in words
/// (serde's enum reader also took a `{"linear": null}` form nobody writes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "String")]
pub enum Interp {
    /// Cubic Hermite using the keys' tangents.
    #[default]
    Hermite,
    /// Straight line (tangents ignored).
    Linear,
    /// Hold this key's value until the next key.
    Constant,
}

impl TryFrom<String> for Interp {
    type Error = String;
    fn try_from(name: String) -> Result<Self, String> {
        match name.as_str() {
            "hermite" => Ok(Self::Hermite),
            "linear" => Ok(Self::Linear),
            "constant" => Ok(Self::Constant),
            _ => Err(format!(
                "`{name}` is not an interpolation: hermite, linear or constant"
            )),
        }
    }
}

/// One key: time, value, tangents (slopes, value per time unit) and the segment kind
/// that starts here.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Keyframe {
    /// Time (or input value, for a response curve).
    pub t: f32,
    /// Value.
    pub v: f32,
    /// Slope arriving at this key.
    #[serde(rename = "in", default)]
    pub in_tangent: f32,
    /// Slope leaving this key.
    #[serde(rename = "out", default)]
    pub out_tangent: f32,
    /// Interpolation of the segment that starts at this key.
    #[serde(default)]
    pub interp: Interp,
}

impl Keyframe {
    /// A Hermite key with both tangents equal to `slope`.
    pub const fn new(t: f32, v: f32, slope: f32) -> Self {
        Self {
            t,
            v,
            in_tangent: slope,
            out_tangent: slope,
            interp: Interp::Hermite,
        }
    }

    /// A key whose outgoing segment is linear.
    pub const fn linear(t: f32, v: f32) -> Self {
        Self {
            t,
            v,
            in_tangent: 0.0,
            out_tangent: 0.0,
            interp: Interp::Linear,
        }
    }

    /// A key whose value holds until the next key.
    pub const fn constant(t: f32, v: f32) -> Self {
        Self {
            t,
            v,
            in_tangent: 0.0,
            out_tangent: 0.0,
            interp: Interp::Constant,
        }
    }
}

/// A validated keyframed curve. Outside its key range it holds the end values.
///
/// In files a curve is either a preset name or a key list:
/// `"smoothstep"` or `{"keys": [{"t": 0, "v": 0, "out": 0}, {"t": 1, "v": 1, "in": 2}]}`.
///
/// ```
/// use omote_core::curve::ResponseCurve;
/// let c = ResponseCurve::preset("ease-in").unwrap();
/// assert!((c.eval(0.5) - 0.25).abs() < 1e-6);
/// assert_eq!(c.eval(2.0), 1.0);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "CurveSpec", into = "CurveSpec")]
pub struct ResponseCurve {
    keys: Vec<Keyframe>,
}

/// The file form of a curve.
///
/// Read by hand rather than as an untagged enum: serde's untagged form buffers the value
/// and tries each variant, which says only "did not match any variant" for a bad key,
/// and its code was 3.1 KB of the browser package, gzipped.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum CurveSpec {
    /// A named preset.
    Preset(String),
    /// Explicit keys.
    Keys {
        /// The keys, in increasing time.
        keys: Vec<Keyframe>,
    },
}

impl<'de> Deserialize<'de> for CurveSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{Error, MapAccess, Visitor};
        struct SpecVisitor;
        impl<'de> Visitor<'de> for SpecVisitor {
            type Value = CurveSpec;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a curve: a preset name (\"smoothstep\") or {\"keys\": [...]}")
            }
            fn visit_str<E: Error>(self, name: &str) -> Result<CurveSpec, E> {
                Ok(CurveSpec::Preset(name.to_owned()))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<CurveSpec, A::Error> {
                let mut keys = None;
                while let Some(field) = map.next_key::<String>()? {
                    if field != "keys" {
                        return Err(A::Error::unknown_field(&field, &["keys"]));
                    }
                    if keys.is_some() {
                        return Err(A::Error::duplicate_field("keys"));
                    }
                    keys = Some(map.next_value()?);
                }
                let keys = keys.ok_or_else(|| A::Error::missing_field("keys"))?;
                Ok(CurveSpec::Keys { keys })
            }
        }
        d.deserialize_any(SpecVisitor)
    }
}

impl TryFrom<CurveSpec> for ResponseCurve {
    type Error = CurveError;
    fn try_from(spec: CurveSpec) -> Result<Self, CurveError> {
        match spec {
            CurveSpec::Preset(name) => Self::preset(&name),
            CurveSpec::Keys { keys } => Self::new(keys),
        }
    }
}

impl From<ResponseCurve> for CurveSpec {
    fn from(c: ResponseCurve) -> Self {
        CurveSpec::Keys { keys: c.keys }
    }
}

impl ResponseCurve {
    /// A curve from keys; times must strictly increase and all numbers be finite.
    pub fn new(keys: Vec<Keyframe>) -> Result<Self, CurveError> {
        if keys.is_empty() {
            return Err(CurveError::NoKeys);
        }
        for (index, k) in keys.iter().enumerate() {
            for (field, x) in [
                ("t", k.t),
                ("v", k.v),
                ("in", k.in_tangent),
                ("out", k.out_tangent),
            ] {
                if !x.is_finite() {
                    return Err(CurveError::NonFinite { index, field });
                }
            }
            if index > 0 && k.t <= keys[index - 1].t {
                return Err(CurveError::NotIncreasing {
                    index,
                    t: k.t,
                    previous: keys[index - 1].t,
                });
            }
        }
        Ok(Self { keys })
    }

    /// A named preset on [0, 1] → [0, 1]: `linear`, `ease-in` (t²), `ease-out` (2t − t²),
    /// `smoothstep` (3t² − 2t³), `constant-zero`, `constant-one`.
    pub fn preset(name: &str) -> Result<Self, CurveError> {
        let keys = match name {
            "linear" => vec![Keyframe::new(0.0, 0.0, 1.0), Keyframe::new(1.0, 1.0, 1.0)],
            "ease-in" => vec![Keyframe::new(0.0, 0.0, 0.0), Keyframe::new(1.0, 1.0, 2.0)],
            "ease-out" => vec![Keyframe::new(0.0, 0.0, 2.0), Keyframe::new(1.0, 1.0, 0.0)],
            "smoothstep" => vec![Keyframe::new(0.0, 0.0, 0.0), Keyframe::new(1.0, 1.0, 0.0)],
            "constant-zero" => vec![Keyframe::constant(0.0, 0.0)],
            "constant-one" => vec![Keyframe::constant(0.0, 1.0)],
            _ => {
                return Err(CurveError::UnknownPreset {
                    name: name.to_string(),
                });
            }
        };
        Self::new(keys)
    }

    /// The identity on [0, 1].
    pub fn linear() -> Self {
        Self::preset("linear").expect("preset is valid")
    }

    /// The keys.
    pub fn keys(&self) -> &[Keyframe] {
        &self.keys
    }

    /// First and last key time.
    pub fn time_range(&self) -> (f32, f32) {
        (self.keys[0].t, self.keys[self.keys.len() - 1].t)
    }

    /// Value at `t`. NaN input gives the first key's value.
    pub fn eval(&self, t: f32) -> f32 {
        let keys = &self.keys;
        let first = keys[0];
        let last = keys[keys.len() - 1];
        if t.is_nan() || t <= first.t {
            return first.v;
        }
        if t >= last.t {
            return last.v;
        }
        // Index of the first key with time > t; the segment is [i-1, i].
        let i = keys.partition_point(|k| k.t <= t);
        let (k0, k1) = (keys[i - 1], keys[i]);
        let dt = k1.t - k0.t;
        let s = (t - k0.t) / dt;
        match k0.interp {
            Interp::Constant => k0.v,
            Interp::Linear => k0.v + (k1.v - k0.v) * s,
            Interp::Hermite => {
                let s2 = s * s;
                let s3 = s2 * s;
                let h00 = 2.0 * s3 - 3.0 * s2 + 1.0;
                let h10 = s3 - 2.0 * s2 + s;
                let h01 = -2.0 * s3 + 3.0 * s2;
                let h11 = s3 - s2;
                h00 * k0.v + h10 * dt * k0.out_tangent + h01 * k1.v + h11 * dt * k1.in_tangent
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_match_their_formulas() {
        type Formula = fn(f32) -> f32;
        let cases: [(&str, Formula); 4] = [
            ("linear", |t| t),
            ("ease-in", |t| t * t),
            ("ease-out", |t| 2.0 * t - t * t),
            ("smoothstep", |t| 3.0 * t * t - 2.0 * t * t * t),
        ];
        for (name, f) in cases {
            let c = ResponseCurve::preset(name).unwrap();
            for i in 0..=20 {
                let t = i as f32 / 20.0;
                assert!((c.eval(t) - f(t)).abs() < 1e-5, "{name} at {t}");
            }
        }
    }

    #[test]
    fn hermite_hits_keys_and_respects_tangents() {
        let c = ResponseCurve::new(vec![
            Keyframe::new(0.0, 0.0, 0.0),
            Keyframe::new(0.5, 1.0, 0.0),
            Keyframe::new(2.0, 0.0, 0.0),
        ])
        .unwrap();
        assert_eq!(c.eval(0.5), 1.0);
        // Flat tangent at the peak: values just around it stay just under 1.
        assert!(c.eval(0.49) < 1.0 && c.eval(0.49) > 0.99);
        // Numerical slope near a key equals its tangent.
        let c = ResponseCurve::new(vec![
            Keyframe::new(0.0, 0.0, 3.0),
            Keyframe::new(1.0, 1.0, 0.0),
        ])
        .unwrap();
        let slope = (c.eval(1e-3) - c.eval(0.0)) / 1e-3;
        assert!((slope - 3.0).abs() < 0.01, "{slope}");
    }

    #[test]
    fn linear_and_constant_segments() {
        let c = ResponseCurve::new(vec![
            Keyframe::linear(0.0, 0.0),
            Keyframe::constant(1.0, 2.0),
            Keyframe::linear(2.0, 5.0),
        ])
        .unwrap();
        assert_eq!(c.eval(0.25), 0.5);
        assert_eq!(c.eval(1.5), 2.0);
        assert_eq!(c.eval(2.0), 5.0);
        assert_eq!(c.eval(-1.0), 0.0);
        assert_eq!(c.eval(f32::NAN), 0.0);
    }

    #[test]
    fn bad_curves_name_the_field() {
        let e = ResponseCurve::new(vec![
            Keyframe::new(0.0, 0.0, 0.0),
            Keyframe::new(0.0, 1.0, 0.0),
        ]);
        assert_eq!(
            e.unwrap_err().to_string(),
            "keys[1].t = 0 is not after the previous key's time 0"
        );
        let e = ResponseCurve::new(vec![Keyframe::new(0.0, f32::NAN, 0.0)]);
        assert_eq!(e.unwrap_err().to_string(), "keys[0].v must be finite");
        assert!(ResponseCurve::new(vec![]).is_err());
        assert!(ResponseCurve::preset("bouncy").is_err());
    }

    #[test]
    fn serde_reads_presets_and_keys() {
        let c: ResponseCurve = serde_json::from_str(r#""ease-out""#).unwrap();
        assert!((c.eval(0.5) - 0.75).abs() < 1e-6);
        let c: ResponseCurve =
            serde_json::from_str(r#"{"keys":[{"t":0,"v":1,"interp":"linear"},{"t":1,"v":0}]}"#)
                .unwrap();
        assert_eq!(c.eval(0.5), 0.5);
        let e = serde_json::from_str::<ResponseCurve>(r#"{"keys":[{"t":1,"v":1},{"t":0,"v":0}]}"#);
        assert!(e.unwrap_err().to_string().contains("keys[1].t"));
    }
}
