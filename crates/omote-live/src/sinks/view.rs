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
    /// Names of the inputs as JSON strings, by inbox index (for the status).
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
            inputs: inputs.iter().map(|n| json_string(n)).collect(),
        }
    }

    /// The `hello` message.
    pub fn hello(&self) -> &str {
        &self.hello
    }

    /// The `frame` message of `face` at `time_s` with `status` (written into a reused
    /// buffer: no allocation once warm).
    pub fn frame(&mut self, time_s: f64, face: &FaceState, status: &LiveStatus) -> &str {
        let sent_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64() * 1e3);
        self.seq += 1;
        let t = &mut self.text;
        t.clear();
        let _ = write!(t, "{{\"type\":\"frame\",\"seq\":{},\"t\":", self.seq);
        push_num(t, time_s, 4);
        t.push_str(",\"sentMs\":");
        push_num(t, sent_ms, 3);
        t.push_str(",\"w\":[");
        for (i, w) in face.expressions.iter().enumerate() {
            if i > 0 {
                t.push(',');
            }
            push_num(t, f64::from(*w), 4);
        }
        t.push(']');
        for (key, q) in [
            ("head", face.head),
            ("leftEye", face.left_eye),
            ("rightEye", face.right_eye),
        ] {
            let _ = write!(t, ",\"{key}\":");
            push_quat(t, q);
        }
        t.push_str(",\"status\":{\"tracking\":");
        match status.source.and_then(|i| self.inputs.get(i)) {
            Some(name) => t.push_str(name),
            None => t.push_str("null"),
        }
        for (key, v, decimals) in [
            ("fpsIn", status.fps_in, 1),
            ("fpsOut", status.fps_out, 1),
            ("latencyMs", status.latency_ms, 2),
        ] {
            let _ = write!(t, ",\"{key}\":");
            push_num(t, f64::from(v), decimals);
        }
        t.push_str(",\"voice\":");
        match status.voice_volume {
            Some(v) => push_num(t, f64::from(v), 3),
            None => t.push_str("null"),
        }
        let _ = write!(t, ",\"voiced\":{}}}}}", status.voiced);
        &self.text
    }
}

/// Appends `v` as JSON with at most `decimals` decimals (trailing zeros dropped); not
/// finite → 0.
fn push_num(out: &mut String, v: f64, decimals: usize) {
    if !v.is_finite() {
        out.push('0');
        return;
    }
    let start = out.len();
    let _ = write!(out, "{v:.decimals$}");
    if out[start..].contains('.') {
        let keep = out.trim_end_matches('0').trim_end_matches('.').len();
        out.truncate(keep);
    }
    if &out[start..] == "-0" {
        out.truncate(start);
        out.push('0');
    }
}

fn push_quat(out: &mut String, q: Quat) {
    let q = if q.is_finite() { q } else { Quat::IDENTITY };
    for (i, c) in [q.x, q.y, q.z, q.w].into_iter().enumerate() {
        out.push(if i == 0 { '[' } else { ',' });
        push_num(out, f64::from(c), 5);
    }
    out.push(']');
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
    fn names_are_escaped_and_numbers_short() {
        assert_eq!(json_string("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000a\"");
        let num = |v: f64, d: usize| {
            let mut s = String::from("x");
            push_num(&mut s, v, d);
            s[1..].to_string()
        };
        assert_eq!(num(-0.00001, 3), "0");
        assert_eq!(num(2.0, 3), "2");
        assert_eq!(num(0.12345, 3), "0.123");
        assert_eq!(num(120.0, 1), "120");
        assert_eq!(num(f64::NAN, 1), "0");
    }
}
