//! [`Loader`]: many files in a row to one rate, with buffers and filters kept between
//! them.

use std::io::Read;
use std::path::Path;

use crate::polyphase::Polyphase;
use crate::resample::check_rate;
use crate::{AudioError, wav};

/// Resamplers kept for the input rates seen (a folder rarely has more than a few).
const KEPT_RESAMPLERS: usize = 4;

/// Loads audio files one after another, mono at one rate, reusing its buffers (file
/// bytes, decoded and resampled samples) and the resampling filters between files.
///
/// Gives exactly what [`crate::load_mono`] gives for each file.
///
/// ```no_run
/// let mut loader = omote_audio::Loader::new(16_000)?;
/// for name in ["a.wav", "b.flac"] {
///     let samples: &[f32] = loader.load(std::path::Path::new(name))?;
///     println!("{name}: {} samples", samples.len());
/// }
/// # Ok::<(), omote_audio::AudioError>(())
/// ```
#[derive(Debug)]
pub struct Loader {
    rate: u32,
    bytes: Vec<u8>,
    decoded: Vec<f32>,
    resampled: Vec<f32>,
    resamplers: Vec<Polyphase>,
    /// The rate of the file decoded last.
    from_last: u32,
    /// How many bytes the last file's WAV data was short of its header.
    short_by: Option<u64>,
    /// Samples of the file loaded last that were NaN or infinite (their frames read as
    /// silence).
    non_finite: u64,
}

impl Loader {
    /// A loader giving mono samples at `rate` Hz ([`crate::MIN_RATE`]..=[`crate::MAX_RATE`]).
    pub fn new(rate: u32) -> Result<Self, AudioError> {
        check_rate(rate)?;
        Ok(Self {
            rate,
            bytes: Vec::new(),
            decoded: Vec::new(),
            resampled: Vec::new(),
            resamplers: Vec::new(),
            from_last: 0,
            short_by: None,
            non_finite: 0,
        })
    }

    /// The output rate (Hz).
    pub fn rate(&self) -> u32 {
        self.rate
    }

    /// Reads, decodes and resamples `path`; the samples stay valid until the next call.
    /// Errors name the file, as [`crate::decode_file`]'s do (a FIFO or a device is
    /// refused before it is opened; a file over [`omote_fs::Limit::AUDIO`] before it is
    /// read).
    pub fn load(&mut self, path: &Path) -> Result<&[f32], AudioError> {
        let mut bytes = std::mem::take(&mut self.bytes);
        bytes.clear();
        let limit = omote_fs::Limit::AUDIO;
        let read = omote_fs::open_capped(path, limit).and_then(|(f, _)| {
            // One byte past the limit tells a file that grew while read.
            f.take(limit.bytes + 1).read_to_end(&mut bytes)?;
            if bytes.len() as u64 > limit.bytes {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::FileTooLarge,
                    format!(
                        "it grew past the {} MiB {} may have while read",
                        limit.bytes >> 20,
                        limit.what
                    ),
                ));
            }
            Ok(())
        });
        if let Err(source) = read {
            self.bytes = bytes;
            return Err(AudioError::Io {
                path: path.to_path_buf(),
                source,
            });
        }
        let result = self.decode(&bytes, path);
        self.bytes = bytes;
        result?;
        Ok(self.output())
    }

    /// Decodes and resamples in-memory file bytes; `name` is the file's name for the
    /// extension hint and errors.
    pub fn load_bytes(&mut self, bytes: &[u8], name: &Path) -> Result<&[f32], AudioError> {
        self.decode(bytes, name)?;
        Ok(self.output())
    }

    /// The samples of the file loaded last (what [`Self::load`] returned).
    pub fn last(&self) -> &[f32] {
        self.output()
    }

    /// For the file loaded last: how many bytes its WAV `data` chunk ends before what its
    /// header declares (a file cut off while copied or recorded: what is there is
    /// decoded, and a caller should say so); `None` for a whole file or another format.
    pub fn truncated_by(&self) -> Option<u64> {
        self.short_by
    }

    /// For the file loaded last: how many of its samples were NaN or infinite (a float
    /// file written by a broken tool); their frames are read as silence.
    pub fn non_finite_samples(&self) -> u64 {
        self.non_finite
    }

    /// For the file loaded last as `path`: the warning every reader gives (the CLI, the
    /// bindings) for a file cut short of its header or holding samples that are not
    /// numbers, or `None` for a sound file.
    pub fn warning(&self, path: &Path) -> Option<String> {
        self.note()
            .map(|note| format!("{}: {note}", path.display()))
    }

    /// [`Self::warning`] without the file's name, for a caller that names the file its
    /// own way (a scene names the line too).
    pub fn note(&self) -> Option<String> {
        reading_note(self.short_by, self.non_finite)
    }

    /// Whether the last [`Self::decode`] left its result in `resampled` (else `decoded`).
    fn output(&self) -> &[f32] {
        if self.from_last == self.rate || self.decoded.is_empty() {
            &self.decoded
        } else {
            &self.resampled
        }
    }

    fn decode(&mut self, bytes: &[u8], name: &Path) -> Result<(), AudioError> {
        self.short_by = wav::data_shortfall(bytes);
        if bytes.is_empty() {
            return Err(AudioError::EmptyFile {
                path: name.to_path_buf(),
            });
        }
        // A short data chunk is read as far as it goes, whatever else its header says.
        self.non_finite = 0;
        let fixed = self.short_by.and_then(|_| wav::with_true_lengths(bytes));
        let bytes = fixed.as_deref().unwrap_or(bytes);
        let from = match wav::pcm16(bytes, &mut self.decoded) {
            Some(rate) => rate,
            None => {
                // Everything else through symphonia, which needs the bytes by value.
                let ext = name.extension().and_then(|e| e.to_str());
                let audio = crate::decode::decode_with_symphonia_counting(
                    bytes.to_vec(),
                    ext,
                    name,
                    &mut self.non_finite,
                )?;
                self.decoded = audio.samples;
                audio.sample_rate
            }
        };
        self.from_last = from;
        if from == self.rate || self.decoded.is_empty() {
            return Ok(());
        }
        check_rate(from).map_err(|e| e.with_path(name))?;
        let at = match self.resamplers.iter().position(|r| r.input_rate() == from) {
            Some(at) => at,
            None => {
                if self.resamplers.len() == KEPT_RESAMPLERS {
                    self.resamplers.remove(0);
                }
                self.resamplers.push(Polyphase::new(from, self.rate));
                self.resamplers.len() - 1
            }
        };
        self.resamplers[at].process_into(&self.decoded, &mut self.resampled);
        Ok(())
    }
}

/// What reading a file warns of, in the words every reader uses: a WAV `short_by` bytes
/// short of its header, `non_finite` samples that are not numbers; `None` for neither.
pub(crate) fn reading_note(short_by: Option<u64>, non_finite: u64) -> Option<String> {
    let short = short_by.map(|n| {
        format!("ends {n} bytes early (cut short of what its header declares); read what is there")
    });
    let bad = crate::decode::non_finite_note(non_finite);
    match (short, bad) {
        (Some(a), Some(b)) => Some(format!("{a}; {b}")),
        (a, b) => a.or(b),
    }
}
