//! Binary glTF (`.glb`, glTF 2.0 section 4.4): a 12-byte header (magic `glTF`, version 2,
//! total length), a JSON chunk padded with spaces to 4 bytes, then a BIN chunk padded with
//! zeros that holds buffer 0 (the buffer without a `uri`).

use crate::error::{Error, FormatError, Result};

/// The magic every binary glTF file starts with.
pub const GLB_MAGIC: &[u8; 4] = b"glTF";
/// Chunk type of the JSON chunk (`JSON` in ASCII, little-endian).
const CHUNK_JSON: u32 = 0x4E4F_534A;
/// Chunk type of the binary chunk (`BIN\0`).
const CHUNK_BIN: u32 = 0x004E_4942;

/// `bytes` padded with `fill` to a multiple of 4.
fn padded(mut bytes: Vec<u8>, fill: u8) -> Vec<u8> {
    while bytes.len() % 4 != 0 {
        bytes.push(fill);
    }
    bytes
}

/// A length as the u32 the container stores, or a typed error when the file would exceed
/// 4 GiB.
fn length_u32(n: usize, what: &str) -> Result<u32> {
    u32::try_from(n).map_err(|_| {
        Error::field(
            "glb length",
            format!("{what} of {n} bytes does not fit a .glb (at most 4 GiB)"),
        )
    })
}

/// Wraps a glTF JSON document and its one binary buffer into a `.glb` container.
///
/// Errors: [`FormatError::InvalidField`] when the whole file would not fit in 4 GiB.
pub fn glb_bytes(json: &str, bin: &[u8]) -> Result<Vec<u8>> {
    let json = padded(json.as_bytes().to_vec(), b' ');
    let bin = padded(bin.to_vec(), 0);
    let total = 12 + 8 + json.len() + if bin.is_empty() { 0 } else { 8 + bin.len() };
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(GLB_MAGIC);
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&length_u32(total, "the file")?.to_le_bytes());
    out.extend_from_slice(&length_u32(json.len(), "the JSON chunk")?.to_le_bytes());
    out.extend_from_slice(&CHUNK_JSON.to_le_bytes());
    out.extend_from_slice(&json);
    if !bin.is_empty() {
        out.extend_from_slice(&length_u32(bin.len(), "the BIN chunk")?.to_le_bytes());
        out.extend_from_slice(&CHUNK_BIN.to_le_bytes());
        out.extend_from_slice(&bin);
    }
    Ok(out)
}

/// The little-endian u32 at `at`, or an error naming the field when the file ends first.
fn u32_at(bytes: &[u8], at: usize, field: &str) -> Result<u32> {
    bytes
        .get(at..at + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or_else(|| Error::field(field, format!("the file ends at byte {}", bytes.len())))
}

/// Splits a `.glb` container into its JSON text and its BIN chunk (when it has one).
///
/// Errors: [`FormatError::InvalidField`] naming the header or chunk field that is wrong (magic,
/// version other than 2, a length past the end of the file, a first chunk that is not
/// JSON); [`FormatError::Json`] when the JSON chunk is not UTF-8.
pub fn split_glb(bytes: &[u8]) -> Result<(String, Option<Vec<u8>>)> {
    if !bytes.starts_with(GLB_MAGIC) {
        return Err(Error::field(
            "glb magic",
            "the file does not start with \"glTF\"",
        ));
    }
    let version = u32_at(bytes, 4, "glb version")?;
    if version != 2 {
        return Err(Error::field(
            "glb version",
            format!("{version}: only binary glTF 2 is read"),
        ));
    }
    let length = u32_at(bytes, 8, "glb length")? as usize;
    if length > bytes.len() {
        return Err(Error::field(
            "glb length",
            format!("{length} but the file has {} bytes", bytes.len()),
        ));
    }
    let bytes = &bytes[..length];
    let mut json = None;
    let mut bin = None;
    let mut at = 12;
    while at < bytes.len() {
        let chunk_length = u32_at(bytes, at, "glb chunk length")? as usize;
        let kind = u32_at(bytes, at + 4, "glb chunk type")?;
        let data = bytes.get(at + 8..at + 8 + chunk_length).ok_or_else(|| {
            Error::field(
                "glb chunk length",
                format!(
                    "{chunk_length} bytes from byte {} but the file ends at {}",
                    at + 8,
                    bytes.len()
                ),
            )
        })?;
        match (kind, json.is_some()) {
            (CHUNK_JSON, false) => {
                json = Some(String::from_utf8(data.to_vec()).map_err(|e| {
                    Error::Format(FormatError::Json {
                        context: "glb JSON chunk".into(),
                        message: e.to_string(),
                    })
                })?)
            }
            (_, false) => {
                return Err(Error::field(
                    "glb chunk type",
                    format!("{kind:#010x}: the first chunk must be JSON"),
                ))
            }
            (CHUNK_BIN, true) if bin.is_none() => bin = Some(data.to_vec()),
            // Chunks of other types are to be ignored (glTF 2.0 section 4.4.3.1).
            _ => {}
        }
        at += 8 + chunk_length;
    }
    let json = json.ok_or_else(|| Error::field("glb chunk type", "no JSON chunk"))?;
    Ok((json, bin))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_glb_splits_back_into_its_json_and_buffer() {
        let bytes = glb_bytes("{\"a\":1}", &[1, 2, 3]).unwrap();
        assert_eq!(&bytes[..4], b"glTF");
        assert_eq!(bytes.len() % 4, 0);
        assert_eq!(u32_at(&bytes, 8, "").unwrap() as usize, bytes.len());
        let (json, bin) = split_glb(&bytes).unwrap();
        assert_eq!(json.trim_end(), "{\"a\":1}");
        assert_eq!(bin.unwrap(), vec![1, 2, 3, 0]);
    }

    #[test]
    fn a_truncated_glb_is_an_error_naming_the_field() {
        let bytes = glb_bytes("{}", &[1, 2, 3, 4]).unwrap();
        let mut cut = bytes[..bytes.len() - 2].to_vec();
        let length = cut.len() as u32;
        cut[8..12].copy_from_slice(&length.to_le_bytes());
        match split_glb(&cut) {
            Err(Error::Format(FormatError::InvalidField { field, .. })) => {
                assert_eq!(field, "glb chunk length")
            }
            other => panic!("{other:?}"),
        }
    }
}
