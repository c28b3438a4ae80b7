//! The GLB container: split a `.vrm` / `.vrma` into its JSON and BIN chunks (borrowed, no
//! copy), and join them again when writing. The splitting is done by the `gltf` crate;
//! this module checks the header first, so that hostile lengths become errors rather than
//! arithmetic overflow inside the dependency.

use std::borrow::Cow;

use gltf::binary::{self, Glb, Header};

use crate::error::VrmError;

/// The two chunks of a GLB, borrowed from the input.
#[derive(Clone, Copy, Debug)]
pub struct GlbChunks<'a> {
    /// The JSON chunk (UTF-8 glTF JSON, maybe padded with spaces).
    pub json: &'a [u8],
    /// The BIN chunk, if present.
    pub bin: Option<&'a [u8]>,
}

const HEADER_LEN: usize = 12;

/// Split GLB bytes into chunks without copying them.
pub fn split<'a>(data: &'a [u8], file: &str) -> Result<GlbChunks<'a>, VrmError> {
    if data.len() < 4 || &data[..4] != b"glTF" {
        return Err(VrmError::NotGlb {
            file: file.to_string(),
            magic: String::from_utf8_lossy(&data[..data.len().min(4)]).into_owned(),
        });
    }
    if data.len() < HEADER_LEN {
        return Err(truncated(file, "header", HEADER_LEN as u64, data.len()));
    }
    let word = |at: usize| u32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]);
    let version = word(4);
    if version != 2 {
        return Err(VrmError::GlbVersion {
            file: file.to_string(),
            version,
        });
    }
    let length = word(8) as usize;
    if length < HEADER_LEN + 8 {
        return Err(VrmError::BadChunk {
            file: file.to_string(),
            detail: format!("header length {length} leaves no room for the JSON chunk"),
        });
    }
    if length > data.len() {
        return Err(truncated(file, "header", length as u64, data.len()));
    }
    // Ignore bytes after the declared length (some writers pad files).
    let glb = Glb::from_slice(&data[..length]).map_err(|e| map_error(e, file))?;
    match (glb.json, glb.bin) {
        (Cow::Borrowed(json), bin) => Ok(GlbChunks {
            json,
            bin: match bin {
                Some(Cow::Borrowed(b)) => Some(b),
                Some(Cow::Owned(_)) => unreachable_owned(file)?,
                None => None,
            },
        }),
        (Cow::Owned(_), _) => unreachable_owned(file),
    }
}

/// `Glb::from_slice` always borrows; should that ever change, fail loudly rather than
/// silently copy (the reader promises not to copy the binary buffer).
fn unreachable_owned<T>(file: &str) -> Result<T, VrmError> {
    Err(VrmError::BadChunk {
        file: file.to_string(),
        detail: "internal: the GLB splitter copied a chunk".into(),
    })
}

fn truncated(file: &str, part: &'static str, declared: u64, available: usize) -> VrmError {
    VrmError::Truncated {
        file: file.to_string(),
        part,
        declared,
        available: available as u64,
    }
}

fn map_error(e: gltf::Error, file: &str) -> VrmError {
    let bad = |detail: String| VrmError::BadChunk {
        file: file.to_string(),
        detail,
    };
    match e {
        gltf::Error::Binary(b) => match b {
            binary::Error::Magic(m) => VrmError::NotGlb {
                file: file.to_string(),
                magic: String::from_utf8_lossy(&m).into_owned(),
            },
            binary::Error::Version(version) => VrmError::GlbVersion {
                file: file.to_string(),
                version,
            },
            binary::Error::Length {
                length,
                length_read,
            } => truncated(file, "header", length as u64, length_read),
            binary::Error::ChunkLength {
                ty,
                length,
                length_read,
            } => truncated(
                file,
                match ty {
                    binary::ChunkType::Json => "JSON chunk",
                    binary::ChunkType::Bin => "BIN chunk",
                },
                length as u64,
                length_read,
            ),
            binary::Error::ChunkType(ty) => bad(format!("unexpected chunk type {ty:?}")),
            binary::Error::UnknownChunkType(t) => bad(format!(
                "unknown chunk type {:?}",
                String::from_utf8_lossy(&t)
            )),
            binary::Error::Io(e) => bad(format!("a chunk header is cut short ({e})")),
        },
        other => bad(other.to_string()),
    }
}

/// Join a JSON chunk and a BIN chunk into GLB bytes (padding both to four bytes).
pub fn join(json: &[u8], bin: &[u8], file: &str) -> Result<Vec<u8>, VrmError> {
    let glb = Glb {
        header: Header {
            magic: *b"glTF",
            version: 2,
            // `to_vec` computes the real length.
            length: 0,
        },
        json: Cow::Borrowed(json),
        bin: if bin.is_empty() {
            None
        } else {
            Some(Cow::Borrowed(bin))
        },
    };
    glb.to_vec().map_err(|e| VrmError::Write {
        file: file.to_string(),
        message: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_borrows_chunks() {
        let bytes = join(br#"{"asset":{"version":"2.0"}}"#, &[1, 2, 3], "t").unwrap();
        let c = split(&bytes, "t").unwrap();
        assert!(c.json.starts_with(b"{\"asset\""));
        assert_eq!(&c.bin.unwrap()[..3], &[1, 2, 3]);
        // Borrowed: the chunk lies inside the input buffer.
        let range = bytes.as_ptr_range();
        assert!(range.contains(&c.json.as_ptr()));
    }

    #[test]
    fn bad_headers_are_errors() {
        assert!(matches!(split(b"", "t"), Err(VrmError::NotGlb { .. })));
        assert!(matches!(
            split(b"PK\x03\x04....", "t"),
            Err(VrmError::NotGlb { .. })
        ));
        assert!(matches!(
            split(b"glTF\x02\0\0", "t"),
            Err(VrmError::Truncated { .. })
        ));
        // Declared length smaller than the header itself (overflows inside `gltf`).
        let mut h = b"glTF\x02\0\0\0\x04\0\0\0".to_vec();
        assert!(matches!(split(&h, "t"), Err(VrmError::BadChunk { .. })));
        h[8] = 200;
        assert!(matches!(split(&h, "t"), Err(VrmError::Truncated { .. })));
        let bytes = join(b"{}", &[], "t").unwrap();
        let mut v1 = bytes.clone();
        v1[4] = 1;
        assert!(matches!(
            split(&v1, "t"),
            Err(VrmError::GlbVersion { version: 1, .. })
        ));
        // JSON chunk length past the end.
        let mut long = bytes.clone();
        long[12] = 0xff;
        let e = split(&long, "x.vrm").unwrap_err();
        assert!(
            matches!(
                e,
                VrmError::Truncated {
                    part: "JSON chunk",
                    ..
                }
            ),
            "{e}"
        );
        assert!(e.to_string().starts_with("x.vrm: "));
    }
}
