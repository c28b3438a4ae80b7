//! Container probing and decoding to mono (symphonia).

use std::io::Cursor;
use std::path::{Path, PathBuf};

use symphonia::core::audio::SampleBuffer;
use symphonia::core::codecs::{CODEC_TYPE_NULL, CodecParameters, Decoder, DecoderOptions};
use symphonia::core::errors::Error as SymError;
use symphonia::core::formats::{FormatOptions, FormatReader};
use symphonia::core::io::MediaSourceStream;
use symphonia::core::meta::MetadataOptions;
use symphonia::core::probe::Hint;

use crate::{AudioError, HEAD_BYTES, MAX_RATE, MIN_RATE, MonoAudio, container_kind};

/// How many undecodable packets in a row we skip before calling the file corrupt.
const MAX_BAD_PACKETS: usize = 16;

/// Reads and decodes an audio file to mono at its own sample rate.
///
/// Errors name the file: unreadable, not a regular file (a FIFO, a device: refused
/// before it is opened, so nothing hangs or grows), larger than
/// [`omote_fs::Limit::AUDIO`], empty, not audio, corrupt, or a rate outside
/// [`MIN_RATE`]..=[`MAX_RATE`]. A valid file with no samples (a header-only WAV) gives an
/// empty [`MonoAudio`], not an error.
pub fn decode_file(path: &Path) -> Result<MonoAudio, AudioError> {
    let bytes = omote_fs::read(path, omote_fs::Limit::AUDIO).map_err(|source| AudioError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let ext = path.extension().and_then(|e| e.to_str());
    decode_bytes(bytes, ext, path)
}

/// Decodes in-memory file bytes; `ext` is an optional extension hint and `name` is used in
/// errors.
///
/// A well-formed 16-bit PCM WAV is read directly (the same samples symphonia gives, much
/// faster); everything else goes through symphonia.
///
/// Symphonia 0.5 still asserts on some hostile headers (fuzzing found a WAV with sample
/// rate 0 reaching `TimeBase::new`'s assert), so a panic inside the decoder is caught and
/// reported as [`AudioError::Corrupt`] (with the assert's message) instead of taking the
/// caller down. Nothing is printed for it: the panic hook stays silent while this thread
/// decodes (any other panic is reported as before).
pub fn decode_bytes(
    bytes: Vec<u8>,
    ext: Option<&str>,
    name: &Path,
) -> Result<MonoAudio, AudioError> {
    let mut samples = Vec::new();
    if let Some(sample_rate) = crate::wav::pcm16(&bytes, &mut samples) {
        return Ok(MonoAudio {
            samples,
            sample_rate,
        });
    }
    decode_with_symphonia(bytes, ext, name)
}

/// One mono sample from one frame's channel samples: their sum times `scale` (1 / the
/// channel count), clamped to −1..1, non-finite as 0. Both decoding paths use it, so
/// they agree to the bit.
pub(crate) fn mono_sample(frame: &[f32], scale: f32) -> f32 {
    let s: f32 = frame.iter().sum::<f32>() * scale;
    if s.is_finite() {
        s.clamp(-1.0, 1.0)
    } else {
        0.0
    }
}

/// [`mono_sample`], adding to `non_finite` the frame's samples that are NaN or infinite
/// (the frame is read as silence): the count both decoding paths and the stream report.
pub(crate) fn mono_sample_counting(frame: &[f32], scale: f32, non_finite: &mut u64) -> f32 {
    let s = mono_sample(frame, scale);
    if s == 0.0 {
        *non_finite += frame.iter().filter(|x| !x.is_finite()).count() as u64;
    }
    s
}

/// What a reader says of `count` samples that are not numbers, or `None` for none: the
/// one wording of the loader and the stream.
pub(crate) fn non_finite_note(count: u64) -> Option<String> {
    (count > 0)
        .then(|| format!("{count} samples are not numbers (NaN or infinite); read as silence"))
}

/// [`decode_bytes`] without the direct WAV path.
pub(crate) fn decode_with_symphonia(
    bytes: Vec<u8>,
    ext: Option<&str>,
    name: &Path,
) -> Result<MonoAudio, AudioError> {
    decode_with_symphonia_counting(bytes, ext, name, &mut 0)
}

/// [`decode_with_symphonia`], adding to `non_finite` the frames whose samples were NaN or
/// infinite (read as silence: [`mono_sample`]).
pub(crate) fn decode_with_symphonia_counting(
    bytes: Vec<u8>,
    ext: Option<&str>,
    name: &Path,
    non_finite: &mut u64,
) -> Result<MonoAudio, AudioError> {
    let run = std::panic::AssertUnwindSafe(|| decode_unguarded(bytes, ext, name, non_finite));
    quiet::catch_unwind_silently(run).unwrap_or_else(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown".into());
        Err(AudioError::Corrupt {
            path: name.to_path_buf(),
            reason: format!("the decoder rejected the header ({what})"),
        })
    })
}

/// Catching a panic without the panic hook printing it.
///
/// The hook runs before unwinding starts, so `catch_unwind` alone still lets the default
/// hook print `thread '…' panicked at …` to stderr. Once per process we install a hook
/// that says nothing while the panicking thread is inside
/// [`catch_unwind_silently`] and otherwise hands the panic to the hook that was there
/// before (the default one, a test harness's, an application's). The flag is per
/// thread, so a real panic on another thread (a rayon worker analysing another file)
/// is still reported while one thread decodes. An application that installs its own
/// hook after ours replaces it; then decoder panics are printed again, and still caught.
pub(crate) use quiet::catch_unwind_silently;

mod quiet {
    use std::cell::Cell;
    use std::panic::UnwindSafe;
    use std::sync::Once;

    thread_local! {
        static SILENT: Cell<bool> = const { Cell::new(false) };
    }

    static INSTALL: Once = Once::new();

    fn install() {
        INSTALL.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                // `try_with`: a panic while the thread-locals are being torn down
                // still reaches the previous hook.
                if !SILENT.try_with(Cell::get).unwrap_or(false) {
                    previous(info);
                }
            }));
        });
    }

    /// Resets the flag on the way out, also when `f` unwinds.
    struct Restore(bool);

    impl Drop for Restore {
        fn drop(&mut self) {
            let was = self.0;
            let _ = SILENT.try_with(|s| s.set(was));
        }
    }

    /// [`std::panic::catch_unwind`], with a panic inside `f` (on this thread) printed by
    /// no hook. Nests.
    pub(crate) fn catch_unwind_silently<R>(
        f: impl FnOnce() -> R + UnwindSafe,
    ) -> std::thread::Result<R> {
        // Setting a hook is not allowed while this thread panics (a decode from a
        // `Drop` during unwinding): then decode without installing.
        if !std::thread::panicking() {
            install();
        }
        let _restore = Restore(SILENT.with(|s| s.replace(true)));
        std::panic::catch_unwind(f)
    }
}

fn decode_unguarded(
    bytes: Vec<u8>,
    ext: Option<&str>,
    name: &Path,
    non_finite: &mut u64,
) -> Result<MonoAudio, AudioError> {
    let path: PathBuf = name.to_path_buf();
    if bytes.is_empty() {
        return Err(AudioError::EmptyFile { path });
    }
    let head = bytes[..bytes.len().min(HEAD_BYTES)].to_vec();
    let mss = MediaSourceStream::new(Box::new(Cursor::new(bytes)), Default::default());
    let (mut format, track_id, params, mut decoder) = open_track(mss, ext, &path, &head)?;
    let mut rate = params.sample_rate.unwrap_or(0);
    let mut samples: Vec<f32> = Vec::new();
    if let Some(n) = params.n_frames {
        // Trust the header only for a modest pre-allocation (a hostile header can lie).
        samples.reserve((n as usize).min(1 << 24));
    }
    let mut buf: Option<SampleBuffer<f32>> = None;
    let mut bad_in_a_row = 0usize;
    let mut decoded_any = false;
    loop {
        let packet = match format.next_packet() {
            Ok(p) => p,
            Err(SymError::IoError(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
            Err(SymError::ResetRequired) => break,
            Err(SymError::DecodeError(e)) => {
                bad_in_a_row += 1;
                if bad_in_a_row > MAX_BAD_PACKETS {
                    return Err(AudioError::Corrupt {
                        path,
                        reason: e.to_string(),
                    });
                }
                continue;
            }
            Err(e) => {
                if decoded_any {
                    // A truncated tail: keep what decoded.
                    break;
                }
                return Err(AudioError::Corrupt {
                    path,
                    reason: e.to_string(),
                });
            }
        };
        if packet.track_id() != track_id {
            continue;
        }
        match decoder.decode(&packet) {
            Ok(decoded) => {
                bad_in_a_row = 0;
                decoded_any = true;
                let spec = *decoded.spec();
                if rate == 0 {
                    rate = spec.rate;
                }
                let channels = spec.channels.count().max(1);
                let frames = decoded.frames();
                let sb = match &mut buf {
                    Some(b) if b.capacity() >= frames * channels => b,
                    _ => buf.insert(SampleBuffer::<f32>::new(decoded.capacity() as u64, spec)),
                };
                sb.copy_interleaved_ref(decoded);
                let inter = sb.samples();
                let scale = 1.0 / channels as f32;
                for frame in inter.chunks_exact(channels) {
                    samples.push(mono_sample_counting(frame, scale, non_finite));
                }
            }
            Err(SymError::DecodeError(e)) => {
                bad_in_a_row += 1;
                if bad_in_a_row > MAX_BAD_PACKETS {
                    return Err(AudioError::Corrupt {
                        path,
                        reason: e.to_string(),
                    });
                }
            }
            Err(SymError::IoError(_)) if decoded_any => break,
            Err(e) => {
                return Err(AudioError::Corrupt {
                    path,
                    reason: e.to_string(),
                });
            }
        }
    }
    if rate == 0 && samples.is_empty() {
        // Header-only file without a declared rate: nothing to analyse, nothing wrong.
        return Ok(MonoAudio {
            samples,
            sample_rate: 0,
        });
    }
    if !(MIN_RATE..=MAX_RATE).contains(&rate) {
        return Err(AudioError::SampleRate {
            path,
            rate,
            min: MIN_RATE,
            max: MAX_RATE,
        });
    }
    Ok(MonoAudio {
        samples,
        sample_rate: rate,
    })
}

/// The container's reader, the audio track's id and parameters, and its decoder.
pub(crate) type OpenTrack = (
    Box<dyn FormatReader>,
    u32,
    CodecParameters,
    Box<dyn Decoder>,
);

/// A media source's container probed (`ext` as the hint), its first audio track and a
/// decoder for it: the one opening of a file for the whole-file decode and the stream.
/// `head` is the source's first bytes ([`HEAD_BYTES`]), for the error.
pub(crate) fn open_track(
    mss: MediaSourceStream,
    ext: Option<&str>,
    path: &Path,
    head: &[u8],
) -> Result<OpenTrack, AudioError> {
    let unsupported = |reason: String| AudioError::UnsupportedFormat {
        path: path.to_path_buf(),
        reason,
    };
    let mut hint = Hint::new();
    if let Some(ext) = ext {
        hint.with_extension(ext);
    }
    // Gapless: the encoder's delay and padding (MP3's LAME header, Ogg's granule
    // positions) are trimmed, so sample 0 is the first sample the encoder was given and
    // a mouth is not drawn late (an MP3 from LAME starts ~50 ms late untrimmed).
    let options = FormatOptions {
        enable_gapless: true,
        ..FormatOptions::default()
    };
    let probed = symphonia::default::get_probe()
        .format(&hint, mss, &options, &MetadataOptions::default())
        .map_err(|e| unsupported(not_read(ext, e, head)))?;
    let format = probed.format;
    let track = format
        .tracks()
        .iter()
        .find(|t| t.codec_params.codec != CODEC_TYPE_NULL)
        .ok_or_else(|| unsupported("no audio track".into()))?;
    let track_id = track.id;
    let params = track.codec_params.clone();
    let decoder = symphonia::default::get_codecs()
        .make(&params, &DecoderOptions::default())
        .map_err(|e| match (e, codec_name(params.codec)) {
            (SymError::Unsupported(_), Some(name)) => unsupported(format!(
                "its audio is {name}, which omote does not decode; {CONVERT}"
            )),
            (e, _) => unsupported(e.to_string()),
        })?;
    Ok((format, track_id, params, decoder))
}

/// How to make a file omote reads, for the errors below.
const CONVERT: &str = "convert it, e.g. `ffmpeg -i IN -ac 1 OUT.wav`";

/// The prober's failure, said plainly for formats people have that omote does not read
/// (symphonia is built here with WAV, FLAC, Ogg, Vorbis and MP3 only).
fn not_read(ext: Option<&str>, e: SymError, head: &[u8]) -> String {
    let ext = ext.map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some(x @ ("m4a" | "mp4" | "aac" | "opus" | "webm" | "wma" | "aiff" | "aif" | "caf")) => {
            format!("a .{x} file, which omote does not read; {CONVERT}")
        }
        // Symphonia's "end of stream" while probing: for a file that starts as audio, its
        // header is cut short; for any other bytes (an image, a model), a reader that
        // looked for a header in them and ran out.
        _ if matches!(&e, SymError::IoError(io) if io.kind() == std::io::ErrorKind::UnexpectedEof) =>
        {
            // An MP3 without an ID3 tag starts at a frame's sync (11 bits set); kept out of
            // `container_kind`, whose raw PCM would match it (a sample of −1 is FF FF).
            let mp3_frame = head.len() >= 2 && head[0] == 0xFF && head[1] & 0xE0 == 0xE0;
            match container_kind(head).or(mp3_frame.then_some("an MP3 file")) {
                Some(kind) => format!("{kind} that ends inside its header (cut short)"),
                None => "its bytes are none of these".into(),
            }
        }
        // The prober knows no reader for these bytes: said plainly, not in its words. Bytes
        // that start as audio (`RIFF…WAVE`) and go on as none are a broken header.
        _ if matches!(e, SymError::Unsupported(_)) => match container_kind(head) {
            // (A RIFF that is not WAVE, or AIFF, is another format, not a broken one.)
            Some(kind) if kind != "a RIFF file" && kind != "an AIFF file" => {
                format!(
                    "{kind} whose header is broken (it starts as one, but what follows cannot be read)"
                )
            }
            _ => "its bytes are none of these".into(),
        },
        _ => e.to_string(),
    }
}

/// Codecs a supported container may hold that omote does not decode.
fn codec_name(codec: symphonia::core::codecs::CodecType) -> Option<&'static str> {
    use symphonia::core::codecs::{
        CODEC_TYPE_AAC, CODEC_TYPE_ALAC, CODEC_TYPE_OPUS, CODEC_TYPE_SPEEX,
    };
    match codec {
        CODEC_TYPE_OPUS => Some("Opus"),
        CODEC_TYPE_AAC => Some("AAC"),
        CODEC_TYPE_ALAC => Some("ALAC"),
        CODEC_TYPE_SPEEX => Some("Speex"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eof() -> SymError {
        SymError::IoError(std::io::Error::from(std::io::ErrorKind::UnexpectedEof))
    }

    /// The prober running out of bytes is "cut short" only for bytes that start as audio.
    #[test]
    fn running_out_of_bytes_is_cut_short_only_for_audio() {
        for (head, kind) in [
            (&b"RIFF\x24\0\0\0WAVEfmt "[..], "a WAV file"),
            (&b"ID3\x03\0\0\0\0\0\0\0\0"[..], "an MP3 file"),
            (&b"\xff\xfb\x90\x64\0\0\0\0"[..], "an MP3 file"),
            (&b"OggS\0\x02\0\0"[..], "an Ogg file"),
        ] {
            assert_eq!(
                not_read(Some("wav"), eof(), head),
                format!("{kind} that ends inside its header (cut short)")
            );
        }
        for head in [&b"\x89PNG\r\n\x1a\n"[..], b"glTF\x02\0\0\0", b""] {
            assert_eq!(not_read(None, eof(), head), "its bytes are none of these");
        }
        // Not out of bytes, but no reader: a WAV's start followed by garbage.
        let unsupported = || SymError::Unsupported("core (probe): no suitable format reader found");
        assert_eq!(
            not_read(Some("wav"), unsupported(), b"RIFF\x24\0\0\0WAVEjunk"),
            "a WAV file whose header is broken (it starts as one, but what follows cannot be read)"
        );
        assert_eq!(
            not_read(None, unsupported(), b"\x89PNG\r\n\x1a\n"),
            "its bytes are none of these"
        );
    }
}
