//! The binary scene and weights files (`.swb`): the same content as the JSON files, with the
//! big arrays stored raw, for meshes where JSON text dominates the run time (at 500k vertices
//! a scene is 42 MB of JSON and dense weights 54 MB).
//!
//! Layout, little-endian: 8 magic bytes (`SWSCENE\0` or `SWWGHTS\0`), a `u32` version (1), a
//! `u32` zero, a `u64` header length, the header (UTF-8 JSON: the JSON file's small fields
//! plus the array lengths), then the arrays.
//! - scene: vertices `n x 2 f64`, triangles `m x 3 u32`, vertex parts `n u32`;
//! - weights (sparse rows, zero weights omitted): row offsets `(n + 1) u32`, then `nnz` bone
//!   indices `u32`, then `nnz` weights `f64`.
//!
//! Every length is checked against the file's size before anything is allocated, so a
//! corrupt or hostile file gives a typed error naming the field, never a huge allocation.

use crate::error::{Error, Result};

/// Magic bytes of binary scene files.
pub const SCENE_MAGIC: &[u8; 8] = b"SWSCENE\0";
/// Magic bytes of binary weights files.
pub const WEIGHTS_MAGIC: &[u8; 8] = b"SWWGHTS\0";
/// The binary layout's version.
const VERSION: u32 = 1;
/// File extension that selects the binary format when saving.
pub const BINARY_EXTENSION: &str = "swb";

/// Whether `path` asks for the binary format (extension `.swb`).
pub fn wants_binary(path: &std::path::Path) -> bool {
    path.extension().is_some_and(|e| e == BINARY_EXTENSION)
}

/// A binary file being written: magic, version, header, arrays.
pub(crate) struct Writer {
    bytes: Vec<u8>,
}

impl Writer {
    /// Starts a file with `magic` and the JSON `header`; `capacity` is the arrays' size.
    pub(crate) fn new(magic: &[u8; 8], header: &str, capacity: usize) -> Self {
        let mut bytes = Vec::with_capacity(24 + header.len() + capacity);
        bytes.extend_from_slice(magic);
        bytes.extend_from_slice(&VERSION.to_le_bytes());
        bytes.extend_from_slice(&0u32.to_le_bytes());
        bytes.extend_from_slice(&(header.len() as u64).to_le_bytes());
        bytes.extend_from_slice(header.as_bytes());
        Writer { bytes }
    }

    pub(crate) fn f64s(&mut self, values: impl IntoIterator<Item = f64>) {
        for v in values {
            self.bytes.extend_from_slice(&v.to_le_bytes());
        }
    }

    /// Writes indices as `u32`; the error names `field` when one does not fit.
    pub(crate) fn u32s(
        &mut self,
        field: &str,
        values: impl IntoIterator<Item = usize>,
    ) -> Result<()> {
        for v in values {
            let v = u32::try_from(v).map_err(|_| {
                Error::field(field, format!("{v} does not fit the binary format's u32"))
            })?;
            self.bytes.extend_from_slice(&v.to_le_bytes());
        }
        Ok(())
    }

    /// Appends `len` zero bytes and returns them, for arrays filled together in one pass.
    pub(crate) fn region(&mut self, len: usize) -> &mut [u8] {
        let start = self.bytes.len();
        self.bytes.resize(start + len, 0);
        &mut self.bytes[start..]
    }

    pub(crate) fn finish(self) -> Vec<u8> {
        self.bytes
    }
}

/// A binary file being read: the header first, then arrays, each checked against what is
/// left of the file.
pub(crate) struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    /// Checks magic and version and returns the reader and the header text.
    pub(crate) fn open(bytes: &'a [u8], magic: &[u8; 8]) -> Result<(Self, &'a str)> {
        let what = String::from_utf8_lossy(&magic[..7]).to_lowercase();
        if bytes.len() < 24 || &bytes[..8] != magic {
            return Err(Error::field(
                "magic",
                format!("not a binary {what} file (it must start with {magic:?})"),
            ));
        }
        let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
        if version != VERSION {
            return Err(Error::field(
                "version",
                format!("binary {what} version {version} is not supported (this reads {VERSION})"),
            ));
        }
        let len = u64::from_le_bytes(bytes[16..24].try_into().expect("8 bytes"));
        let rest = &bytes[24..];
        if len > rest.len() as u64 {
            return Err(Error::field(
                "header",
                format!("length {len} runs past the end of the file"),
            ));
        }
        let (header, rest) = rest.split_at(len as usize);
        let header =
            std::str::from_utf8(header).map_err(|_| Error::field("header", "is not UTF-8 text"))?;
        Ok((Reader { rest }, header))
    }

    fn take(&mut self, field: &str, count: usize, size: usize) -> Result<&'a [u8]> {
        let bytes = count
            .checked_mul(size)
            .filter(|&b| b <= self.rest.len())
            .ok_or_else(|| {
                Error::field(
                    field,
                    format!(
                        "{count} entries of {size} bytes do not fit in the {} bytes left",
                        self.rest.len()
                    ),
                )
            })?;
        let (head, rest) = self.rest.split_at(bytes);
        self.rest = rest;
        Ok(head)
    }

    pub(crate) fn f64s(&mut self, field: &str, count: usize) -> Result<Vec<f64>> {
        Ok(self
            .take(field, count, 8)?
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect())
    }

    /// `count` records of `K` little-endian `f64`s each (vertices: `K = 2`), read straight
    /// into their final array (a 500k-vertex scene is read without intermediate copies).
    pub(crate) fn f64_records<const K: usize>(
        &mut self,
        field: &str,
        count: usize,
    ) -> Result<Vec<[f64; K]>> {
        Ok(self
            .take(field, count, 8 * K)?
            .chunks_exact(8 * K)
            .map(|c| {
                std::array::from_fn(|k| {
                    f64::from_le_bytes(c[8 * k..8 * k + 8].try_into().expect("8 bytes"))
                })
            })
            .collect())
    }

    /// `count` records of `K` little-endian `u32` indices each, widened to `usize`
    /// (triangles: `K = 3`; vertex parts: `K = 1`).
    pub(crate) fn index_records<const K: usize>(
        &mut self,
        field: &str,
        count: usize,
    ) -> Result<Vec<[usize; K]>> {
        Ok(self
            .take(field, count, 4 * K)?
            .chunks_exact(4 * K)
            .map(|c| {
                std::array::from_fn(|k| {
                    u32::from_le_bytes(c[4 * k..4 * k + 4].try_into().expect("4 bytes")) as usize
                })
            })
            .collect())
    }

    pub(crate) fn u32s(&mut self, field: &str, count: usize) -> Result<Vec<u32>> {
        Ok(self
            .take(field, count, 4)?
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect())
    }

    /// Fails unless every byte was read.
    pub(crate) fn finish(self) -> Result<()> {
        if self.rest.is_empty() {
            Ok(())
        } else {
            Err(Error::field(
                "arrays",
                format!("{} unexpected bytes after the last array", self.rest.len()),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_round_trip_and_overruns_are_errors() {
        let mut w = Writer::new(SCENE_MAGIC, "{}", 0);
        w.f64s([1.5, -2.0]);
        w.u32s("t", [7, 8, 9]).unwrap();
        assert!(w.u32s("t", [usize::MAX]).is_err());
        let bytes = w.finish();
        let (mut r, header) = Reader::open(&bytes, SCENE_MAGIC).unwrap();
        assert_eq!(header, "{}");
        assert_eq!(r.f64s("v", 2).unwrap(), vec![1.5, -2.0]);
        assert_eq!(r.u32s("t", 3).unwrap(), vec![7, 8, 9]);
        r.finish().unwrap();
        let (mut r, _) = Reader::open(&bytes, SCENE_MAGIC).unwrap();
        let e = r.f64s("vertices", usize::MAX / 4).unwrap_err().to_string();
        assert!(e.contains("vertices") && e.contains("do not fit"), "{e}");
        let e = Reader::open(&bytes, WEIGHTS_MAGIC)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("not a binary swwghts file"), "{e}");
        let mut bad = bytes.clone();
        bad[16..24].copy_from_slice(&u64::MAX.to_le_bytes());
        let e = Reader::open(&bad, SCENE_MAGIC).err().unwrap().to_string();
        assert!(e.contains("header") && e.contains("past the end"), "{e}");
    }
}
