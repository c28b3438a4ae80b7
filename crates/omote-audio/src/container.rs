//! What an audio file's first bytes say it is: the one sniff of a container header, for
//! a decode error ("cut short" only for a file that starts as audio) and for a raw PCM
//! input that is given a file instead (omote-live).

/// Bytes of a file's or a stream's start that [`container_kind`] looks at.
pub const HEAD_BYTES: usize = 12;

/// What an audio file's header at `head` (its first [`HEAD_BYTES`] bytes, or fewer) says
/// it is, if it is one. Raw audio does not start with these bytes (a stream starts near
/// silence; "RIFF" then "WAVE" would be two loud samples and two more exactly so).
pub fn container_kind(head: &[u8]) -> Option<&'static str> {
    let at = |from: usize, tag: &[u8]| head.get(from..from + tag.len()) == Some(tag);
    if at(0, b"RIFF") {
        Some(if at(8, b"WAVE") {
            "a WAV file"
        } else {
            "a RIFF file"
        })
    } else if at(0, b"OggS") {
        Some("an Ogg file")
    } else if at(0, b"fLaC") {
        Some("a FLAC file")
    } else if at(0, b"FORM") && at(8, b"AIF") {
        Some("an AIFF file")
    } else if at(0, b"ID3") && matches!(head.get(3), Some(2..=4)) {
        Some("an MP3 file")
    } else {
        None
    }
}
