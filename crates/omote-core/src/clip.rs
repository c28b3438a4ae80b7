//! Clips: a curve per channel over time (an expression timeline, a blink motion, …).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::curve::ResponseCurve;
use crate::rig::{ChannelId, Rig};

/// A clip as data: curves by channel name. Names resolve against a rig with [`Clip::new`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClipDesc {
    /// Curve of each channel over time (seconds).
    pub tracks: BTreeMap<String, ResponseCurve>,
}

/// A clip resolved against a rig: sampling writes straight into a channel array.
#[derive(Clone, Debug, PartialEq)]
pub struct Clip {
    tracks: Vec<(ChannelId, ResponseCurve)>,
    duration: f32,
}

/// A track name that the rig does not have.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("track `{name}` names no channel of the rig")]
pub struct UnknownChannel {
    /// The name.
    pub name: String,
}

impl Clip {
    /// Resolve `desc` against `rig`. Every track must name a rig channel.
    pub fn new(desc: &ClipDesc, rig: &Rig) -> Result<Self, UnknownChannel> {
        let mut tracks = Vec::with_capacity(desc.tracks.len());
        for (name, curve) in &desc.tracks {
            let id = rig
                .channel(name)
                .ok_or_else(|| UnknownChannel { name: name.clone() })?;
            tracks.push((id, curve.clone()));
        }
        tracks.sort_by_key(|t| t.0);
        let duration = tracks
            .iter()
            .map(|(_, c)| c.time_range().1)
            .fold(0.0, f32::max);
        Ok(Self { tracks, duration })
    }

    /// Time of the last key of any track.
    pub fn duration(&self) -> f32 {
        self.duration
    }

    /// The channels this clip animates.
    pub fn channels(&self) -> impl Iterator<Item = ChannelId> + '_ {
        self.tracks.iter().map(|t| t.0)
    }

    /// Write every track's value at `t` into `out` (indexed by channel); channels the clip
    /// has no track for are left alone.
    pub fn sample_into(&self, t: f32, out: &mut [f32]) {
        for (id, curve) in &self.tracks {
            out[id.index()] = curve.eval(t);
        }
    }

    /// The value of one channel at `t`, if the clip animates it.
    pub fn sample(&self, channel: ChannelId, t: f32) -> Option<f32> {
        self.tracks
            .iter()
            .find(|(id, _)| *id == channel)
            .map(|(_, c)| c.eval(t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_names_and_samples_into_channels() {
        let rig = Rig::standard();
        let desc: ClipDesc = serde_json::from_str(
            r#"{"tracks":{"happy":{"keys":[{"t":0,"v":0,"interp":"linear"},{"t":2,"v":1}]}}}"#,
        )
        .unwrap();
        let clip = Clip::new(&desc, &rig).unwrap();
        assert_eq!(clip.duration(), 2.0);
        let mut out = vec![0.5; rig.len()];
        clip.sample_into(1.0, &mut out);
        let happy = rig.channel("happy").unwrap();
        assert_eq!(out[happy.index()], 0.5);
        assert_eq!(out[rig.channel("sad").unwrap().index()], 0.5);
        let bad: ClipDesc = serde_json::from_str(r#"{"tracks":{"nope":"linear"}}"#).unwrap();
        assert_eq!(Clip::new(&bad, &rig).unwrap_err().name, "nope");
    }
}
