//! The common case read directly: a well-formed 16-bit PCM WAV.
//!
//! Most voice files are exactly that, and for them symphonia's packet machinery costs
//! more than the analysis. [`pcm16`] recognises such a file and returns its samples as
//! symphonia would (the same chunk walk, `s / 32768` per sample, the same mixdown), or
//! `None` for anything else or anything unusual — other formats, a `LIST` or `fact`
//! chunk, a length that does not fit, a rate outside the accepted range — which then goes
//! through symphonia as before, errors and all. The tests compare the two on real clips
//! and on thousands of damaged headers.

use crate::{MAX_RATE, MIN_RATE};

/// Channels accepted on the direct path (more go through symphonia).
const MAX_CHANNELS: u16 = 8;

/// A recognised file: its rate, channels and the bytes of its whole frames.
struct Pcm16<'a> {
    rate: u32,
    channels: usize,
    data: &'a [u8],
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// Walks the RIFF chunks the way symphonia's WAV reader does (lengths bounded by the
/// RIFF length, odd chunks padded, unknown chunks skipped) and accepts only what it
/// would read without complaint.
fn parse(b: &[u8]) -> Option<Pcm16<'_>> {
    if b.get(0..4)? != b"RIFF" || b.get(8..12)? != b"WAVE" {
        return None;
    }
    let riff_len = u32_at(b, 4)?;
    // Counted from after the form type, as symphonia does.
    let mut consumed: u32 = 0;
    let mut at = 12usize;
    let mut format: Option<(u32, u16)> = None;
    loop {
        if consumed & 1 == 1 {
            consumed = consumed.checked_add(1)?;
            at += 1;
        }
        if consumed.checked_add(8)? > riff_len {
            return None; // no data chunk: symphonia's error
        }
        let tag: [u8; 4] = b.get(at..at + 4)?.try_into().ok()?;
        let len = u32_at(b, at + 4)?;
        consumed += 8;
        at += 8;
        if riff_len - consumed < len {
            return None; // too long for its parent (or an unknown-length stream)
        }
        consumed = consumed.saturating_add(len);
        let body = b.get(at..at.checked_add(len as usize)?);
        match &tag {
            b"fmt " => {
                if format.is_some() || len != 16 {
                    return None;
                }
                let f = body?;
                let (tag, channels) = (u16_at(f, 0)?, u16_at(f, 2)?);
                let (rate, block_align, bits) = (u32_at(f, 4)?, u16_at(f, 12)?, u16_at(f, 14)?);
                let usable = tag == 1
                    && bits == 16
                    && (1..=MAX_CHANNELS).contains(&channels)
                    && block_align == 2 * channels
                    && (MIN_RATE..=MAX_RATE).contains(&rate);
                if !usable {
                    return None;
                }
                format = Some((rate, channels));
            }
            b"data" => {
                let (rate, channels) = format?;
                let data = body?; // the whole chunk must be in the file
                let frame = 2 * usize::from(channels);
                let whole = data.len() / frame * frame;
                return Some(Pcm16 {
                    rate,
                    channels: usize::from(channels),
                    data: &data[..whole],
                });
            }
            // Parsed (and possibly rejected) by symphonia: leave those files to it.
            b"LIST" | b"fact" => return None,
            _ => {
                body?; // skipped by symphonia, but it must be there
            }
        }
        at += len as usize;
    }
}

/// How many bytes a RIFF/WAVE file's `data` chunk is short of what its header declares
/// (a file cut off while copied or recorded); `None` for a whole file, another format,
/// or a streamed WAV whose length field is unset (`0xFFFFFFFF`).
pub(crate) fn data_shortfall(b: &[u8]) -> Option<u64> {
    data_shortfall_of(b, b.len() as u64)
}

/// [`data_shortfall`] of a file `len` bytes long whose first bytes are `head` (a file
/// streamed, not held: its chunk headers before `data` are within the head).
pub(crate) fn data_shortfall_of(head: &[u8], len: u64) -> Option<u64> {
    short_data_of(head, len).map(|(_, declared, there)| declared - there)
}

/// A short `data` chunk: where its length field is, what it declares, what is there.
fn short_data(b: &[u8]) -> Option<(usize, u64, u64)> {
    short_data_of(b, b.len() as u64)
}

/// [`short_data`] of a file `len` bytes long that starts with `b`.
fn short_data_of(b: &[u8], len: u64) -> Option<(usize, u64, u64)> {
    if b.get(0..4)? != b"RIFF" || b.get(8..12)? != b"WAVE" {
        return None;
    }
    let mut at = 12u64;
    while at + 8 <= len {
        let i = at as usize;
        let tag = b.get(i..i + 4)?;
        let chunk = u64::from(u32_at(b, i + 4)?);
        at += 8;
        if tag == b"data" {
            let there = len - at;
            return (chunk != u64::from(u32::MAX) && chunk > there).then_some((
                i + 4,
                chunk,
                there,
            ));
        }
        at += chunk + (chunk & 1);
    }
    None
}

/// A copy of a WAV whose `data` chunk is short ([`data_shortfall`]) with its lengths
/// made true (the `data` chunk's and the RIFF's): what is there then reads the same
/// whether the header also lied about the RIFF length (a file cut off while copied) or
/// only about the data (a header written wrong), instead of the second being refused
/// as a chunk longer than its parent. `None` when the data is not short.
pub(crate) fn with_true_lengths(b: &[u8]) -> Option<Vec<u8>> {
    let (field, _, there) = short_data(b)?;
    let mut fixed = b.to_vec();
    let there = u32::try_from(there).ok()?;
    fixed[field..field + 4].copy_from_slice(&there.to_le_bytes());
    let riff = u32::try_from(b.len() - 8).ok()?;
    fixed[4..8].copy_from_slice(&riff.to_le_bytes());
    Some(fixed)
}

/// A well-formed 16-bit PCM WAV's mono samples and rate, decoded into `samples`
/// (cleared first); `None` (and `samples` untouched) for any other bytes.
pub(crate) fn pcm16(bytes: &[u8], samples: &mut Vec<f32>) -> Option<u32> {
    let wav = parse(bytes)?;
    samples.clear();
    samples.reserve(wav.data.len() / (2 * wav.channels));
    if wav.channels == 1 {
        samples.extend(wav.data.chunks_exact(2).map(|s| {
            let x = f32::from(i16::from_le_bytes([s[0], s[1]])) / 32_768.0;
            crate::decode::mono_sample(&[x], 1.0)
        }));
    } else {
        let scale = 1.0 / wav.channels as f32;
        let mut frame = [0.0f32; MAX_CHANNELS as usize];
        for bytes in wav.data.chunks_exact(2 * wav.channels) {
            for (x, s) in frame.iter_mut().zip(bytes.chunks_exact(2)) {
                *x = f32::from(i16::from_le_bytes([s[0], s[1]])) / 32_768.0;
            }
            samples.push(crate::decode::mono_sample(&frame[..wav.channels], scale));
        }
    }
    Some(wav.rate)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::decode::{decode_bytes, decode_with_symphonia};

    /// The direct path against symphonia for `bytes`: both fail (the error naming the
    /// file), or both give the same rate and the same samples to the bit.
    fn same_as_symphonia(bytes: &[u8]) -> bool {
        let name = Path::new("damaged.wav");
        let ours = decode_bytes(bytes.to_vec(), Some("wav"), name);
        let theirs = decode_with_symphonia(bytes.to_vec(), Some("wav"), name);
        match (ours, theirs) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a.sample_rate, b.sample_rate);
                assert_eq!(a.samples.len(), b.samples.len());
                let same = a
                    .samples
                    .iter()
                    .zip(&b.samples)
                    .all(|(x, y)| x.to_bits() == y.to_bits());
                assert!(same, "samples differ");
            }
            (Err(a), Err(b)) => {
                for e in [a, b] {
                    assert!(e.to_string().contains("damaged.wav"), "{e}");
                }
            }
            (a, b) => panic!("direct {a:?}, symphonia {b:?}"),
        }
        pcm16(bytes, &mut Vec::new()).is_some()
    }

    fn pcm(n: usize, channels: u16) -> Vec<i16> {
        let mut x: u32 = 99;
        (0..n * usize::from(channels))
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                match i % 50 {
                    0 => i16::MIN,
                    1 => i16::MAX,
                    2 => 0,
                    _ => x as i16,
                }
            })
            .collect()
    }

    /// A `data` chunk shorter than its header says reads as far as it goes, with the
    /// warning, whether the RIFF length lies too (a file cut off while copied) or not
    /// (only the data length written wrong, which symphonia alone refuses as a chunk
    /// longer than its parent); the samples are the whole file's first ones, to the bit.
    #[test]
    fn a_short_data_chunk_reads_what_is_there_however_the_header_lies() {
        let name = Path::new("short.wav");
        let whole = omote_testdata::wav16(&pcm(4000, 1), 16_000, 1);
        let mut loader = crate::Loader::new(16_000).unwrap();
        let all = loader.load_bytes(&whole, name).unwrap().to_vec();
        assert_eq!(loader.truncated_by(), None);
        let cut = whole[..whole.len() - 3001].to_vec();
        let mut lying = whole.clone();
        lying[40..44].copy_from_slice(&(8000u32 * 10).to_le_bytes());
        for (bytes, short_by) in [(&cut, 3001), (&lying, 8000 * 10 - 8000)] {
            let got = loader.load_bytes(bytes, name).unwrap().to_vec();
            let n = (bytes.len() - 44) / 2;
            assert_eq!(got.len(), n);
            assert!(
                got.iter()
                    .zip(&all)
                    .all(|(a, b)| a.to_bits() == b.to_bits())
            );
            assert_eq!(loader.truncated_by(), Some(short_by));
            let w = loader.warning(name).unwrap();
            assert!(
                w.starts_with("short.wav: ends ") && w.ends_with("read what is there"),
                "{w}"
            );
        }
        let e = decode_with_symphonia(lying, Some("wav"), name).unwrap_err();
        assert!(
            e.to_string().contains("exceeds parent"),
            "symphonia alone: {e}"
        );
    }

    /// A float file with NaN and infinite samples reads them as silence and says how
    /// many; the file after it carries no warning.
    #[test]
    fn samples_that_are_not_numbers_are_read_as_silence_and_counted() {
        let name = Path::new("broken.wav");
        let mut samples: Vec<f32> = (0..4800).map(|i| (i as f32 * 0.05).sin() * 0.3).collect();
        samples[100] = f32::NAN;
        samples[2000] = f32::INFINITY;
        samples[2001] = f32::NEG_INFINITY;
        let mut loader = crate::Loader::new(16_000).unwrap();
        let got = loader
            .load_bytes(&omote_testdata::wav_f32(&samples, 48_000), name)
            .unwrap()
            .to_vec();
        assert_eq!(got.len(), 1600);
        assert!(got.iter().all(|s| s.is_finite()));
        assert_eq!(loader.non_finite_samples(), 3);
        assert_eq!(
            loader.warning(name).unwrap(),
            "broken.wav: 3 samples are not numbers (NaN or infinite); read as silence"
        );
        loader
            .load_bytes(&omote_testdata::wav_f32(&samples[..100], 16_000), name)
            .unwrap();
        assert_eq!(loader.warning(name), None);
        // The stream (files too long to hold) reads and counts them as the loader does.
        let dir = std::env::temp_dir().join(format!("omote-audio-nan-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("broken.wav");
        std::fs::write(&file, omote_testdata::wav_f32(&samples, 48_000)).unwrap();
        let mut stream = crate::AudioStream::open(&file, 16_000).unwrap();
        let mut streamed = Vec::new();
        while stream.next_chunk(&mut streamed).unwrap() {}
        assert_eq!(streamed, got);
        assert_eq!(
            stream.warning().unwrap(),
            format!(
                "{}: 3 samples are not numbers (NaN or infinite); read as silence",
                file.display()
            )
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn every_shared_speech_clip_reads_as_symphonia_reads_it() {
        let Some(wavs) = omote_testdata::shared_files("speech", "wav") else {
            return;
        };
        assert!(!wavs.is_empty());
        for wav in wavs {
            let bytes = std::fs::read(&wav).unwrap();
            assert!(
                same_as_symphonia(&bytes),
                "{}: not read directly",
                wav.display()
            );
        }
    }

    #[test]
    fn channels_rates_chunks_and_odd_ends_read_as_symphonia_reads_them() {
        for channels in 1..=10u16 {
            for rate in [3_999u32, 4_000, 8_000, 22_050, 48_000, 384_000, 384_001] {
                let bytes = omote_testdata::wav16(&pcm(300, channels), rate, channels);
                let direct = same_as_symphonia(&bytes);
                let expected = channels <= MAX_CHANNELS && (MIN_RATE..=MAX_RATE).contains(&rate);
                assert_eq!(direct, expected, "{channels} channels at {rate} Hz");
            }
        }
        let base = omote_testdata::wav16(&pcm(500, 2), 16_000, 2);
        // An unknown chunk of odd length (so a pad byte) before the data.
        let mut odd = base[..36].to_vec();
        odd.extend_from_slice(b"junk\x03\x00\x00\x00abc\x00");
        odd.extend_from_slice(&base[36..]);
        let riff = u32::from_le_bytes(odd[4..8].try_into().unwrap()) + 12;
        odd[4..8].copy_from_slice(&riff.to_le_bytes());
        assert!(same_as_symphonia(&odd));
        // Bytes after the data chunk, and a data chunk ending inside a frame.
        let mut tail = base.clone();
        tail.extend_from_slice(b"LIST\x04\x00\x00\x00abcd");
        assert!(same_as_symphonia(&tail));
        let mut partial = base.clone();
        partial.push(7);
        let data = u32::from_le_bytes(partial[40..44].try_into().unwrap()) + 1;
        partial[40..44].copy_from_slice(&data.to_le_bytes());
        let riff = u32::from_le_bytes(partial[4..8].try_into().unwrap()) + 1;
        partial[4..8].copy_from_slice(&riff.to_le_bytes());
        assert!(same_as_symphonia(&partial));
        // Truncated inside the data: left to symphonia (it drops the cut packet).
        assert!(!same_as_symphonia(&base[..base.len() - 10]));
        // A header and no frames.
        assert!(same_as_symphonia(&omote_testdata::wav16(&[], 16_000, 1)));
    }

    #[test]
    fn damaged_headers_read_as_symphonia_reads_them_or_fail_naming_the_file() {
        let clean = omote_testdata::wav16(&pcm(700, 1), 22_050, 1);
        let mut with_chunk = clean[..36].to_vec();
        with_chunk.extend_from_slice(b"cue \x05\x00\x00\x00abcde\x00");
        with_chunk.extend_from_slice(&clean[36..]);
        let riff = u32::from_le_bytes(with_chunk[4..8].try_into().unwrap()) + 14;
        with_chunk[4..8].copy_from_slice(&riff.to_le_bytes());
        let mut x: u32 = 2_024;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as usize
        };
        let (mut direct, mut total) = (0, 0);
        for base in [&clean, &with_chunk] {
            for _ in 0..3_000 {
                let mut b = base.clone();
                match next() % 4 {
                    // A few bytes of the header changed.
                    0 | 1 => {
                        for _ in 0..1 + next() % 3 {
                            let at = next() % 64;
                            b[at] = next() as u8;
                        }
                    }
                    // One header field replaced by a random or boundary value.
                    2 => {
                        let at = 4 * (next() % 16);
                        let v = [0u32, 1, 2, 0xffff_ffff, 0x8000_0000, next() as u32][next() % 6];
                        b[at..at + 4].copy_from_slice(&v.to_le_bytes());
                    }
                    // Cut anywhere.
                    _ => b.truncate(next() % b.len()),
                }
                total += 1;
                if same_as_symphonia(&b) {
                    direct += 1;
                }
            }
        }
        // Damage in the samples or unused fields still reads directly.
        assert!(
            direct > total / 20 && direct < total,
            "{direct} of {total} direct"
        );
    }
}
