//! [`ViewSink`]: faces to the live browser page as JSON text messages (the page applies
//! each one to the VRM at once). The messages:
//!
//! * `hello` (first, to each new page): `{"type":"hello","channels":[…],"model":URL}` —
//!   the channel names in the order of every frame's weights;
//! * `frame`: `{"type":"frame","seq":N,"t":S,"sentMs":UNIX_MS,"w":[…],"head":[x,y,z,w],
//!   "leftEye":[…],"rightEye":[…],"status":{…}}` — the weights after the VRM override
//!   rules (what the face shows), rotations in glTF space, and the session's status
//!   (`tracking` input name or null, `fpsIn`, `fpsOut`, `latencyMs`, `voice`).
//!
//! Numbers that are not finite are written as 0: no NaN reaches the page.

use std::fmt::Write as _;
use std::time::{SystemTime, UNIX_EPOCH};

use omote_core::{FaceState, Quat, Rig};

use super::FaceSink;
use crate::LiveError;
use crate::session::LiveStatus;

/// Writes the page's messages into one reused buffer.
#[derive(Clone, Debug)]
pub struct ViewFrameWriter {
    hello: String,
    text: String,
    seq: u64,
    /// Names of the inputs, by inbox index (for the status).
    inputs: Vec<String>,
}

impl ViewFrameWriter {
    /// A writer for the faces of `rig`; the page loads its model from `model_url`;
    /// `inputs` names the tracking inputs by their inbox index.
    pub fn new(rig: &Rig, model_url: &str, inputs: Vec<String>) -> Self {
        let names: Vec<&str> = rig.channels().map(|(id, _)| rig.channel_name(id)).collect();
        let hello = hello_message(&names, model_url);
        Self {
            hello,
            text: String::with_capacity(4096),
            seq: 0,
            inputs,
        }
    }

    /// The `hello` message.
    pub fn hello(&self) -> &str {
        &self.hello
    }

    /// The `frame` message of `face` at `time_s` with `status`.
    pub fn frame(&mut self, time_s: f64, face: &FaceState, status: &LiveStatus) -> &str {
        let sent_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64() * 1e3);
        self.seq += 1;
        let t = &mut self.text;
        t.clear();
        let _ = write!(
            t,
            "{{\"type\":\"frame\",\"seq\":{},\"t\":{},\"sentMs\":{},\"w\":[",
            self.seq,
            num(time_s, 4),
            num(sent_ms, 3)
        );
        for (i, w) in face.expressions.iter().enumerate() {
            if i > 0 {
                t.push(',');
            }
            t.push_str(&num(f64::from(*w), 4));
        }
        t.push(']');
        for (key, q) in [
            ("head", face.head),
            ("leftEye", face.left_eye),
            ("rightEye", face.right_eye),
        ] {
            let _ = write!(t, ",\"{key}\":{}", quat(q));
        }
        let tracking = status
            .source
            .and_then(|i| self.inputs.get(i))
            .map_or("null".to_string(), |n| json_string(n));
        let _ = write!(
            t,
            ",\"status\":{{\"tracking\":{tracking},\"fpsIn\":{},\"fpsOut\":{},\"latencyMs\":{},\"voice\":{},\"voiced\":{}}}}}",
            num(f64::from(status.fps_in), 1),
            num(f64::from(status.fps_out), 1),
            num(f64::from(status.latency_ms), 2),
            status
                .voice_volume
                .map_or("null".to_string(), |v| num(f64::from(v), 3)),
            status.voiced
        );
        &self.text
    }
}

/// A number as JSON with at most `decimals` decimals; not finite → 0.
fn num(v: f64, decimals: usize) -> String {
    if !v.is_finite() {
        return "0".into();
    }
    let s = format!("{v:.decimals$}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    if s == "-0" { "0".into() } else { s }
}

fn quat(q: Quat) -> String {
    let q = if q.is_finite() { q } else { Quat::IDENTITY };
    format!(
        "[{},{},{},{}]",
        num(f64::from(q.x), 5),
        num(f64::from(q.y), 5),
        num(f64::from(q.z), 5),
        num(f64::from(q.w), 5)
    )
}

/// A JSON string literal.
fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn hello_message(names: &[&str], model_url: &str) -> String {
    let channels: Vec<String> = names.iter().map(|n| json_string(n)).collect();
    format!(
        "{{\"type\":\"hello\",\"channels\":[{}],\"model\":{}}}",
        channels.join(","),
        json_string(model_url)
    )
}

/// Sends every face to the live page through `publish` (e.g. a WebSocket hub's
/// broadcast, which must not block).
pub struct ViewSink<F: FnMut(&str)> {
    writer: ViewFrameWriter,
    publish: F,
    status: LiveStatus,
}

impl<F: FnMut(&str)> ViewSink<F> {
    /// Faces written by `writer`, handed to `publish`.
    pub fn new(writer: ViewFrameWriter, publish: F) -> Self {
        Self {
            writer,
            publish,
            status: LiveStatus::default(),
        }
    }

    /// The `hello` message (the greeting of each new page).
    pub fn hello(&self) -> &str {
        self.writer.hello()
    }
}

impl<F: FnMut(&str)> FaceSink for ViewSink<F> {
    fn send(&mut self, time_s: f64, face: &FaceState) -> Result<(), LiveError> {
        let text = self.writer.frame(time_s, face, &self.status);
        (self.publish)(text);
        Ok(())
    }

    fn status(&mut self, status: &LiveStatus) {
        self.status = *status;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use omote_core::{DriverInputs, FaceConfig, FaceDriver};
    use std::sync::Arc;

    #[test]
    fn frames_are_json_in_channel_order_with_no_nan() {
        let rig = Arc::new(Rig::standard());
        let mut driver = FaceDriver::new(rig.clone(), FaceConfig::default(), 1);
        let mut writer = ViewFrameWriter::new(&rig, "/model.vrm", vec!["camera".into()]);
        let hello: serde_json::Value = serde_json::from_str(writer.hello()).unwrap();
        assert_eq!(hello["channels"].as_array().unwrap().len(), rig.len());
        assert_eq!(
            hello["channels"][0],
            rig.channel_name(rig.channels().next().unwrap().0)
        );
        let mut state = driver.update(0.016, &DriverInputs::default()).clone();
        state.expressions[0] = f32::NAN;
        state.expressions[1] = 0.25;
        state.head = Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0);
        let status = LiveStatus {
            source: Some(0),
            fps_out: f32::INFINITY,
            voice_volume: Some(0.5),
            ..LiveStatus::default()
        };
        let frame: serde_json::Value =
            serde_json::from_str(writer.frame(1.5, &state, &status)).unwrap();
        assert_eq!(frame["type"], "frame");
        assert_eq!(frame["seq"], 1);
        assert_eq!(frame["t"], 1.5);
        let w = frame["w"].as_array().unwrap();
        assert_eq!(w.len(), rig.len());
        assert_eq!((w[0].as_f64(), w[1].as_f64()), (Some(0.0), Some(0.25)));
        assert_eq!(frame["head"], serde_json::json!([0, 0, 0, 1]));
        assert_eq!(frame["status"]["tracking"], "camera");
        assert_eq!(frame["status"]["fpsOut"], 0);
        assert_eq!(frame["status"]["voice"], 0.5);
        assert!(frame["sentMs"].as_f64().unwrap() > 1.6e12);
    }

    #[test]
    fn names_are_escaped() {
        assert_eq!(json_string("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000a\"");
        assert_eq!(num(-0.00001, 3), "0");
        assert_eq!(num(2.0, 3), "2");
        assert_eq!(num(0.12345, 3), "0.123");
    }
}
