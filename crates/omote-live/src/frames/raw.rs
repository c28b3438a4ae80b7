//! [`RawFrames`]: raw RGB frames of a known size from any byte stream (ffmpeg's
//! `-f rawvideo -pix_fmt rgb24`).

use std::io::Read;
use std::str::FromStr;

use omote_tracker::RgbImage;

use super::{Frame, FrameSource};
use crate::LiveError;

/// A frame size given as `WIDTHxHEIGHT` (parses from `"640x480"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameSize {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

impl FrameSize {
    /// Bytes of one RGB frame.
    pub fn rgb_bytes(self) -> usize {
        self.width as usize * self.height as usize * 3
    }
}

impl FromStr for FrameSize {
    type Err = LiveError;

    /// `640x480` (or `640X480`); both sides positive whole numbers.
    fn from_str(s: &str) -> Result<Self, LiveError> {
        let bad = |problem: String| LiveError::FrameSize {
            text: s.to_owned(),
            problem,
        };
        let (w, h) = s
            .split_once(['x', 'X'])
            .ok_or_else(|| bad("not WIDTHxHEIGHT (e.g. 640x480)".into()))?;
        let parse = |v: &str| {
            v.trim()
                .parse::<u32>()
                .ok()
                .filter(|v| *v > 0)
                .ok_or_else(|| bad(format!("`{v}` is not a positive whole number")))
        };
        Ok(FrameSize {
            width: parse(w)?,
            height: parse(h)?,
        })
    }
}

impl std::fmt::Display for FrameSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}", self.width, self.height)
    }
}

/// Raw RGB frames of one size, back to back, from `input`; frame *i* is at `i / fps`
/// seconds. A clean end between frames is the end of the input; an end inside a frame
/// is a [`LiveError::TruncatedFrame`].
pub struct RawFrames<R> {
    input: R,
    size: FrameSize,
    fps: f64,
    name: String,
    index: u64,
    done: bool,
}

impl<R: Read> RawFrames<R> {
    /// Frames of `size` at `fps` from `input`, named `stdin` in errors.
    ///
    /// Fails when the size is not one the tracker takes (no pixels, a side over
    /// 16384, over 256 MiB).
    pub fn new(input: R, size: FrameSize, fps: f64) -> Result<Self, LiveError> {
        omote_tracker::rgb::check_size("--stdin", u64::from(size.width), u64::from(size.height))?;
        Ok(Self {
            input,
            size,
            fps,
            name: "stdin".into(),
            index: 0,
            done: false,
        })
    }

    /// Names the stream in errors (`NAME frame 12`).
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The frame size.
    pub fn size(&self) -> FrameSize {
        self.size
    }

    /// How frame `index` is named in errors: `stdin frame 12`.
    pub fn frame_name(&self, index: u64) -> String {
        format!("{} frame {index}", self.name)
    }

    /// Reads one frame; `None` at a clean end of input.
    fn read_frame(&mut self) -> Result<Option<RgbImage>, LiveError> {
        let len = self.size.rgb_bytes();
        // Not zeroed first: `read_to_end` fills spare capacity (a frame is ~1 MB, read
        // 30 times a second), and `take` stops it at the frame's end.
        let mut buf = Vec::with_capacity(len);
        if let Err(e) = (&mut self.input).take(len as u64).read_to_end(&mut buf) {
            return Err(LiveError::Read {
                what: self.frame_name(self.index),
                source: e,
            });
        }
        let filled = buf.len();
        if filled == 0 {
            return Ok(None);
        }
        if filled < len {
            return Err(LiveError::TruncatedFrame {
                what: self.frame_name(self.index),
                width: self.size.width,
                height: self.size.height,
                got: filled,
                expected: len,
            });
        }
        Ok(RgbImage::from_raw(self.size.width, self.size.height, buf))
    }
}

impl<R: Read> FrameSource for RawFrames<R> {
    type Frame = RgbImage;

    fn next_frame(&mut self) -> Result<Option<Frame<RgbImage>>, LiveError> {
        if self.done {
            return Ok(None);
        }
        let img = self.read_frame();
        if !matches!(img, Ok(Some(_))) {
            self.done = true;
        }
        let Some(img) = img? else { return Ok(None) };
        let index = self.index;
        self.index += 1;
        Ok(Some(Frame {
            index,
            time_s: index as f64 / self.fps,
            data: img,
        }))
    }
}
