//! The one error type of omote-live.

use std::net::SocketAddr;
use std::path::PathBuf;

/// What went wrong on the live side. Every variant names its file, stream or address.
#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    /// A file or pipe could not be opened.
    #[error("{}: cannot open {what}: {source}", path.display())]
    Open {
        /// The file.
        path: PathBuf,
        /// What it was meant to be (`the voice input`, …).
        what: &'static str,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// Reading a stream failed.
    #[error("{what}: read failed: {source}")]
    Read {
        /// The stream and position (`stdin frame 12`, `mic.pcm`, …).
        what: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A camera named like a video file (`clip.mp4`) that is not there.
    #[error(
        "{}: no such video file (a camera is a device, `0` or `/dev/video0`; a video file must exist)",
        path.display()
    )]
    MissingVideo {
        /// The name given.
        path: PathBuf,
    },
    /// A raw PCM input starts with an audio file's header: it is a file to decode, not
    /// samples (read as samples it would play its header and at the wrong rate).
    #[error(
        "{what}: {kind}, not raw PCM: this input reads raw samples (arecord -t raw, ffmpeg -f s16le); read the file with `omote lipsync FILE`, or play it as a microphone with `omote live --audio FILE`"
    )]
    NotRawPcm {
        /// The stream (`stdin`, `voice.wav`).
        what: String,
        /// What its header says it is ("a WAV file").
        kind: &'static str,
    },
    /// A raw frame stream ended part-way through a frame.
    #[error(
        "{what} (input ended mid-frame): {got} of the {expected} bytes a {width}x{height} RGB frame needs"
    )]
    TruncatedFrame {
        /// The stream and frame (`stdin frame 12`).
        what: String,
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
        /// Bytes that arrived.
        got: usize,
        /// Bytes of a whole frame.
        expected: usize,
    },
    /// A frame size that is not `WIDTHxHEIGHT` with positive sides.
    #[error("`{text}`: {problem}")]
    FrameSize {
        /// What was given.
        text: String,
        /// Why it is not a size.
        problem: String,
    },
    /// The tracker refused a frame (the error names the frame).
    #[error(transparent)]
    Tracker(#[from] omote_tracker::TrackerError),
    /// Tracking a frame failed.
    #[error("tracking {what}: {source}")]
    Track {
        /// The frame (`stdin frame 12`).
        what: String,
        /// The tracker's error.
        source: omote_tracker::TrackerError,
    },
    /// Audio could not be decoded or resampled (the error names the file).
    #[error(transparent)]
    Audio(#[from] omote_audio::AudioError),
    /// A raw PCM stream with no channels.
    #[error("{what}: the channel count must be at least 1")]
    NoChannels {
        /// The stream.
        what: String,
    },
    /// A UDP socket could not be opened to send to an address.
    #[error("cannot open a UDP socket to send to {to}: {source}")]
    Socket {
        /// The destination.
        to: SocketAddr,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// Sending a packet failed.
    #[error("send to {to} failed: {source}")]
    Send {
        /// The destination.
        to: SocketAddr,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A UDP address could not be listened on.
    #[error("cannot listen on {addr}{}: {source}", if source.kind() == std::io::ErrorKind::AddrInUse { " (is another app using it?)" } else { "" })]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// Receiving on a socket failed.
    #[error("receive on {addr} failed: {source}")]
    Receive {
        /// The listening address.
        addr: SocketAddr,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// ffmpeg (the camera capture) could not be started or misbehaved.
    #[error("{}: {problem}", program.display())]
    Ffmpeg {
        /// The program.
        program: PathBuf,
        /// What went wrong.
        problem: String,
    },
    /// A thread could not be started.
    #[error("cannot start a thread for {what}: {source}")]
    Thread {
        /// What it was for.
        what: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// No audio input device at all (`MicVoice` with the `mic` feature).
    #[error(
        "no microphone: the {host} audio host has no input device (devices there: {})",
        list(devices)
    )]
    NoInputDevice {
        /// The audio host (`ALSA`, `CoreAudio`, `WASAPI`, …).
        host: String,
        /// Every device it has, with why it cannot capture.
        devices: Vec<String>,
    },
    /// No input device's name contains the text asked for.
    #[error(
        "no microphone's name contains `{wanted}`; input devices: {}",
        list(inputs)
    )]
    MicNotFound {
        /// The text asked for.
        wanted: String,
        /// The input devices there are.
        inputs: Vec<String>,
    },
    /// A microphone offering no sample format omote can read.
    #[error(
        "microphone {device}: no input format omote can read (it offers {})",
        list(offered)
    )]
    MicFormat {
        /// The device.
        device: String,
        /// What it offers.
        offered: Vec<String>,
    },
    /// Opening, starting or running a microphone failed.
    #[error("microphone {device}: {problem}")]
    Mic {
        /// The device.
        device: String,
        /// What failed, and the audio system's error.
        problem: String,
    },
    /// A reader thread panicked.
    #[error("{what}: the reader thread crashed")]
    ReaderPanicked {
        /// What it was reading.
        what: String,
    },
}

/// `a, b, c`, or `none`.
fn list(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_owned()
    } else {
        items.join(", ")
    }
}
