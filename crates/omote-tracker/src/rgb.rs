//! [`RgbView`]: a borrowed 8-bit RGB image, the tracker's only image input, and
//! [`load_rgb`] to read one from a PNG or JPEG file.

use std::io::Cursor;
use std::path::Path;

use image::ImageFormat;
use image::io::{Limits, Reader};

use crate::error::{Result, TrackerError};

/// Largest accepted width or height in pixels. Landmark coordinates are `f32`, and
/// larger frames are not what a face tracker is for.
pub const MAX_SIDE: u32 = 16_384;

/// Largest accepted decoded image, in bytes of 8-bit RGB (256 MiB, about 89
/// megapixels). Files claiming more are refused before decoding.
pub const MAX_RGB_BYTES: u64 = 256 << 20;

/// A borrowed, tightly packed, row-major 8-bit RGB image.
#[derive(Debug, Clone, Copy)]
pub struct RgbView<'a> {
    width: u32,
    height: u32,
    data: &'a [u8],
}

impl<'a> RgbView<'a> {
    /// Wraps `data` (`width * height * 3` bytes, rows top to bottom, RGB order).
    /// `what` names the source in errors (a file name, "stdin frame 12", ...).
    pub fn new(what: &str, width: u32, height: u32, data: &'a [u8]) -> Result<Self> {
        check_size(what, u64::from(width), u64::from(height))?;
        let expected = width as usize * height as usize * 3;
        if data.len() != expected {
            return Err(TrackerError::FrameBytes {
                what: what.to_owned(),
                width,
                height,
                got: data.len(),
                expected,
            });
        }
        Ok(Self {
            width,
            height,
            data,
        })
    }

    /// Wraps an `image` crate RGB buffer.
    pub fn from_image(what: &str, img: &'a image::RgbImage) -> Result<Self> {
        Self::new(what, img.width(), img.height(), img.as_raw())
    }

    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in pixels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The packed RGB bytes.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }
}

/// Checks a width and height against [`MAX_SIDE`] and [`MAX_RGB_BYTES`] and refuses
/// empty images.
pub fn check_size(what: &str, width: u64, height: u64) -> Result<()> {
    let problem = if width == 0 || height == 0 {
        Some("it has no pixels")
    } else if width > u64::from(MAX_SIDE) || height > u64::from(MAX_SIDE) {
        Some("a side is longer than 16384 pixels")
    } else if width * height * 3 > MAX_RGB_BYTES {
        Some("it is larger than 256 MiB as RGB")
    } else {
        None
    };
    match problem {
        Some(problem) => Err(TrackerError::ImageSize {
            what: what.to_owned(),
            width,
            height,
            problem,
        }),
        None => Ok(()),
    }
}

/// Reads a PNG or JPEG file as 8-bit RGB. Grey, grey+alpha, RGBA and 16-bit images
/// are converted (alpha is dropped, 16-bit values scaled to 8 bits). Oversized
/// images are refused from their header, before any pixel is decoded.
pub fn load_rgb(path: &Path) -> Result<image::RgbImage> {
    let bytes =
        omote_fs::read(path, omote_fs::Limit::IMAGE).map_err(|e| TrackerError::ReadImage {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
    decode_rgb_bytes(&path.display().to_string(), &bytes)
}

/// Like [`load_rgb`], from the encoded bytes of a PNG or JPEG file (`what` names
/// them in errors).
pub fn decode_rgb_bytes(what: &str, bytes: &[u8]) -> Result<image::RgbImage> {
    let read_err = |message: String| TrackerError::ReadImage {
        path: what.into(),
        message,
    };
    let reader = || -> Result<Reader<Cursor<&[u8]>>> {
        let mut reader = Reader::new(Cursor::new(bytes))
            .with_guessed_format()
            .map_err(|e| read_err(e.to_string()))?;
        match reader.format() {
            Some(ImageFormat::Png | ImageFormat::Jpeg) => {}
            // `image` guesses WebP from "RIFF" alone; a WAV is a RIFF file too.
            Some(ImageFormat::WebP) if bytes.get(8..12) != Some(b"WEBP".as_slice()) => {
                let kind = if bytes.get(8..12) == Some(b"WAVE".as_slice()) {
                    "a WAV audio file"
                } else {
                    "a RIFF file"
                };
                return Err(read_err(format!("{kind}, not a PNG or JPEG image")));
            }
            Some(other) => {
                return Err(read_err(format!(
                    "{other:?} images are not supported (PNG or JPEG only)"
                )));
            }
            None => return Err(read_err("not a PNG or JPEG file".into())),
        }
        let mut limits = Limits::default();
        limits.max_image_width = Some(MAX_SIDE);
        limits.max_image_height = Some(MAX_SIDE);
        limits.max_alloc = Some(4 * MAX_RGB_BYTES);
        reader.limits(limits);
        Ok(reader)
    };
    let (w, h) = reader()?
        .into_dimensions()
        .map_err(|e| read_err(e.to_string()))?;
    check_size(what, u64::from(w), u64::from(h))?;
    let img = reader()?.decode().map_err(|e| read_err(e.to_string()))?;
    Ok(img.into_rgb8())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_checks_sizes() {
        let px = [0u8; 12];
        assert!(RgbView::new("t", 2, 2, &px).is_ok());
        let e = RgbView::new("t", 3, 2, &px).unwrap_err().to_string();
        assert!(e.contains("18"), "{e}");
        assert!(RgbView::new("t", 0, 2, &[]).is_err());
        assert!(check_size("t", 20_000, 10).is_err());
        assert!(check_size("t", 16_000, 16_000).is_err());
        assert!(check_size("t", 1, 1).is_ok());
    }

    #[test]
    fn refuses_garbage_and_other_formats() {
        let e = decode_rgb_bytes("x.bin", b"hello world")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("x.bin: cannot read image"), "{e}");
        let e = decode_rgb_bytes("x.gif", b"GIF89a\x01\x00\x01\x00")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("not supported") || e.contains("not a PNG"),
            "{e}"
        );
        // A WAV starts "RIFF" as a WebP does: it is named for what it is.
        let e = decode_rgb_bytes("voice.wav", b"RIFF\x24\0\0\0WAVEfmt \x10\0\0\0")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "voice.wav: cannot read image: a WAV audio file, not a PNG or JPEG image"
        );
    }
}
