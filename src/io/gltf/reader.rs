//! Buffers and accessors: decoded, checked against their views and buffers before anything
//! is allocated, and read as f64.

use super::json::{lookup, AccessorJson, Doc};
use super::{BYTE, SHORT, UNSIGNED_BYTE, UNSIGNED_INT, UNSIGNED_SHORT};
use crate::error::{Error, Result};
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use std::path::Path;

/// The decoded buffers of a document.
pub(super) fn load_buffers(
    doc: &Doc,
    bin: Option<&[u8]>,
    base_dir: Option<&Path>,
) -> Result<Vec<Vec<u8>>> {
    doc.buffers
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let field = format!("buffers[{i}].uri");
            let bytes =
                match (b.uri.as_deref(), i, bin) {
                    (None, 0, Some(bin)) => bin.to_vec(),
                    (None, ..) => return Err(Error::field(
                        &field,
                        "missing (only the first buffer of a .glb with a BIN chunk may omit it)",
                    )),
                    (Some(uri), ..) => read_uri(uri, b.byte_length, &field, base_dir)?,
                };
            if bytes.len() < b.byte_length {
                return Err(Error::field(
                    format!("buffers[{i}].byteLength"),
                    format!("{} but the data has {} bytes", b.byte_length, bytes.len()),
                ));
            }
            Ok(bytes)
        })
        .collect()
}

/// The bytes a buffer's `uri` names: a base64 `data:` URI, or a file beside the `.gltf`
/// (read up to `byte_length`).
fn read_uri(
    uri: &str,
    byte_length: usize,
    field: &str,
    base_dir: Option<&Path>,
) -> Result<Vec<u8>> {
    if let Some(rest) = uri.strip_prefix("data:") {
        let (_, data) = rest
            .split_once(";base64,")
            .ok_or_else(|| Error::field(field, "data URI is not base64"))?;
        return BASE64
            .decode(data)
            .map_err(|e| Error::field(field, format!("bad base64: {e}")));
    }
    let name = relative_file(uri).map_err(|m| Error::field(field, m))?;
    let dir = base_dir.ok_or_else(|| {
        Error::field(
            field,
            format!("external file {uri:?} but no directory to resolve it"),
        )
    })?;
    read_file_prefix(&dir.join(name), byte_length, field)
}

/// The file name a buffer URI that is not a `data:` URI stands for: percent-decoded, and
/// refused unless it is a relative path that stays in the `.gltf`'s directory (no scheme such
/// as `file:` or `http:`, no absolute path, no `..`).
pub(super) fn relative_file(uri: &str) -> std::result::Result<String, String> {
    if let Some(scheme) = uri_scheme(uri) {
        return Err(format!(
            "{uri:?}: scheme {scheme}: is not read (only data: URIs and relative file names)"
        ));
    }
    let name = percent_decode(uri);
    if name.is_empty() || name.contains('\0') {
        return Err(format!("{uri:?} is not a file name"));
    }
    if name.starts_with(['/', '\\']) || Path::new(&name).has_root() {
        return Err(format!(
            "{uri:?} is an absolute path (buffer files must lie beside the .gltf)"
        ));
    }
    if name.split(['/', '\\']).any(|c| c == "..") {
        return Err(format!(
            "{uri:?} climbs out of the .gltf's directory with `..`"
        ));
    }
    Ok(name)
}

/// The scheme of a URI (RFC 3986: a letter, then letters, digits, `+`, `-` or `.`, then `:`),
/// if it has one. A Windows drive (`C:\...`) counts as one.
pub(super) fn uri_scheme(uri: &str) -> Option<&str> {
    let (scheme, _) = uri.split_once(':')?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic() && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)))
        .then_some(scheme)
}

/// The first `len` bytes (or fewer, when the file is shorter) of the regular file `path`; a
/// device or a pipe is refused, since reading it might never end.
pub(super) fn read_file_prefix(path: &Path, len: usize, field: &str) -> Result<Vec<u8>> {
    use std::io::Read as _;
    let io = |e: std::io::Error| Error::io(path, e);
    let file = std::fs::File::open(path).map_err(io)?;
    if !file.metadata().map_err(io)?.is_file() {
        return Err(Error::field(
            field,
            format!("{} is not a regular file", path.display()),
        ));
    }
    let mut bytes = Vec::new();
    file.take(u64::try_from(len).unwrap_or(u64::MAX))
        .read_to_end(&mut bytes)
        .map_err(io)?;
    Ok(bytes)
}

/// A relative URI as a file name: `%XX` escapes decoded (glTF URIs follow RFC 3986, so a
/// space is written `%20`); anything malformed is kept as written.
pub(super) fn percent_decode(uri: &str) -> String {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Reads accessors as f64 (normalized integers mapped to [0, 1] / [-1, 1]).
pub(super) struct Reader<'a> {
    pub(super) doc: &'a Doc,
    pub(super) buffers: Vec<Vec<u8>>,
}

/// An accessor's values, `components` per element.
pub(super) struct Values {
    pub(super) data: Vec<f64>,
    pub(super) components: usize,
    pub(super) component_type: u32,
}

impl Values {
    pub(super) fn element(&self, i: usize) -> &[f64] {
        &self.data[i * self.components..(i + 1) * self.components]
    }
    pub(super) fn count(&self) -> usize {
        self.data.len() / self.components
    }
}

/// What an accessor must be in the role it is read for.
pub(super) struct Want<'a> {
    /// `POSITION`, `indices`, `JOINTS_0`, ...: named in errors.
    pub(super) role: &'a str,
    pub(super) kinds: &'a [&'a str],
    pub(super) component_types: &'a [u32],
    /// The count the accessor must have and what fixes it ("one per POSITION"). Only such an
    /// accessor may lack a bufferView (the spec's all zeros): nothing else bounds its count.
    pub(super) count: Option<(usize, &'a str)>,
    /// Index data: its buffer view must not have a byteStride.
    pub(super) indices: bool,
}

/// Largest `byteStride` the spec allows.
pub(super) const MAX_STRIDE: usize = 252;

impl Reader<'_> {
    /// The bytes of buffer view `view_index`, checked to lie inside its buffer.
    pub(super) fn view_bytes(&self, view_index: usize) -> Result<&[u8]> {
        let view = lookup(&self.doc.buffer_views, view_index, "bufferViews")?;
        let buffer = lookup(&self.buffers, view.buffer, "buffers")?;
        let view_end = view
            .byte_offset
            .checked_add(view.byte_length)
            .filter(|&end| end <= buffer.len())
            .ok_or_else(|| {
                Error::field(
                    format!("bufferViews[{view_index}].byteLength"),
                    format!(
                        "{} bytes from byteOffset {} lie outside buffers[{}] ({} bytes)",
                        view.byte_length,
                        view.byte_offset,
                        view.buffer,
                        buffer.len()
                    ),
                )
            })?;
        Ok(&buffer[view.byte_offset..view_end])
    }

    /// Accessor `index`, checked against `want` and against its buffer view and buffer before
    /// anything is allocated: what it reads lies in the file.
    pub(super) fn read(&self, index: usize, want: &Want) -> Result<Values> {
        let a = lookup(&self.doc.accessors, index, "accessors")?;
        let shape = Shape::of(a, index, want)?;
        let Some(view_index) = a.buffer_view else {
            // The spec: no buffer view means all zeros. The count was checked above.
            if want.count.is_none() {
                return Err(Error::field(
                    format!("accessors[{index}].bufferView"),
                    format!(
                        "missing: {} would be all zeros (the spec's default), which makes \
                         no mesh",
                        want.role
                    ),
                ));
            }
            return Ok(Values {
                data: vec![0.0; a.count * shape.components],
                components: shape.components,
                component_type: a.component_type,
            });
        };
        let stride = self.checked_stride(a, index, view_index, &shape, want)?;
        let bytes = self.view_bytes(view_index)?;
        let element = shape.element();
        // Within the view: count * components <= byteLength / size, so this is bounded by the file.
        let mut data = Vec::with_capacity(a.count * shape.components);
        for e in 0..a.count {
            let start = a.byte_offset + e * stride;
            for c in bytes[start..start + element].chunks_exact(shape.size) {
                data.push(component(c, a.component_type, a.normalized));
            }
        }
        if let Some(i) = data.iter().position(|x| !x.is_finite()) {
            return Err(Error::field(
                format!("accessors[{index}] ({})", want.role),
                format!("element {} is not finite", i / shape.components),
            ));
        }
        Ok(Values {
            data,
            components: shape.components,
            component_type: a.component_type,
        })
    }

    /// The stride of accessor `index` in buffer view `view_index`, after checking the view's
    /// `byteStride`, the alignment of both offsets and that every element lies in the view.
    fn checked_stride(
        &self,
        a: &AccessorJson,
        index: usize,
        view_index: usize,
        shape: &Shape,
        want: &Want,
    ) -> Result<usize> {
        let at = |f: &str| format!("accessors[{index}].{f}");
        let view_at = |f: &str| format!("bufferViews[{view_index}].{f}");
        let view = lookup(&self.doc.buffer_views, view_index, "bufferViews")?;
        let (size, element) = (shape.size, shape.element());
        if let Some(stride) = view.byte_stride {
            check_byte_stride(stride, element, index, view_index, want)?;
        }
        let stride = view.byte_stride.unwrap_or(element);
        if a.byte_offset % size != 0 {
            return Err(Error::field(
                at("byteOffset"),
                format!(
                    "{} is not a multiple of the component size {size}",
                    a.byte_offset
                ),
            ));
        }
        // With the accessor's offset aligned, its start in the buffer is aligned iff the view's is.
        if view.byte_offset % size != 0 {
            return Err(Error::field(
                view_at("byteOffset"),
                format!(
                    "{}: accessors[{index}] would start at a buffer offset that is not a multiple \
                     of its component size {size}",
                    view.byte_offset
                ),
            ));
        }
        if a.byte_offset > view.byte_length {
            return Err(Error::field(
                at("byteOffset"),
                format!(
                    "{} is past the end of bufferViews[{view_index}] ({} bytes)",
                    a.byte_offset, view.byte_length
                ),
            ));
        }
        // Bytes the accessor spans: byteOffset + stride * (count - 1) + element.
        let span = match a.count {
            0 => Some(0),
            c => (c - 1)
                .checked_mul(stride)
                .and_then(|x| x.checked_add(element))
                .and_then(|x| x.checked_add(a.byte_offset)),
        };
        if span.is_none_or(|s| s > view.byte_length) {
            return Err(Error::field(
                at("count"),
                format!(
                    "{} elements of {element} bytes (stride {stride}) from byteOffset {} overrun \
                     bufferViews[{view_index}] ({} bytes)",
                    a.count, a.byte_offset, view.byte_length
                ),
            ));
        }
        Ok(stride)
    }
}

/// An accessor's element layout, checked against what its role wants.
struct Shape {
    /// Components per element.
    components: usize,
    /// Bytes per component.
    size: usize,
}

impl Shape {
    /// The type, component type, sparseness and count of accessor `a` (number `index`)
    /// checked against `want`.
    fn of(a: &AccessorJson, index: usize, want: &Want) -> Result<Shape> {
        let role = want.role;
        let at = |f: &str| format!("accessors[{index}].{f}");
        if !want.kinds.contains(&a.kind.as_str())
            || !want.component_types.contains(&a.component_type)
        {
            return Err(Error::field(
                format!("accessors[{index}] ({role})"),
                format!(
                    "type {} / componentType {} (expected {:?} of {:?})",
                    a.kind, a.component_type, want.kinds, want.component_types
                ),
            ));
        }
        if a.sparse.is_some() {
            return Err(Error::field(
                at("sparse"),
                format!("sparse accessors are not supported ({role})"),
            ));
        }
        let components = match a.kind.as_str() {
            "SCALAR" => 1,
            "VEC2" => 2,
            "VEC3" => 3,
            "VEC4" => 4,
            "MAT4" => 16,
            other => return Err(Error::field(at("type"), format!("unsupported {other}"))),
        };
        let size = match a.component_type {
            BYTE | UNSIGNED_BYTE => 1,
            SHORT | UNSIGNED_SHORT => 2,
            _ => 4,
        };
        if let Some((expected, why)) = want.count {
            if a.count != expected {
                return Err(Error::field(
                    at("count"),
                    format!("{} {role} elements, expected {expected} ({why})", a.count),
                ));
            }
        }
        Ok(Shape { components, size })
    }

    /// Bytes per element.
    fn element(&self) -> usize {
        self.components * self.size
    }
}

/// A buffer view's `byteStride` for accessor `index`: absent on index data, a multiple of 4
/// in 4..=[`MAX_STRIDE`], and at least one element.
fn check_byte_stride(
    stride: usize,
    element: usize,
    index: usize,
    view_index: usize,
    want: &Want,
) -> Result<()> {
    let field = format!("bufferViews[{view_index}].byteStride");
    if want.indices {
        return Err(Error::field(
            field,
            format!("{stride}, but index data (accessors[{index}]) has no stride"),
        ));
    }
    if stride % 4 != 0 || !(4..=MAX_STRIDE).contains(&stride) {
        return Err(Error::field(
            field,
            format!("{stride} (must be a multiple of 4 in 4..={MAX_STRIDE})"),
        ));
    }
    if stride < element {
        return Err(Error::field(
            field,
            format!("{stride} is less than the {element}-byte elements of accessors[{index}]"),
        ));
    }
    Ok(())
}

/// One little-endian component as f64 (normalized integers mapped to [0, 1] / [-1, 1]).
pub(super) fn component(c: &[u8], component_type: u32, normalized: bool) -> f64 {
    let raw = match component_type {
        BYTE => f64::from(c[0] as i8),
        UNSIGNED_BYTE => f64::from(c[0]),
        SHORT => f64::from(i16::from_le_bytes([c[0], c[1]])),
        UNSIGNED_SHORT => f64::from(u16::from_le_bytes([c[0], c[1]])),
        UNSIGNED_INT => f64::from(u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
        _ => f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
    };
    if !normalized {
        return raw;
    }
    match component_type {
        BYTE => (raw / 127.0).max(-1.0),
        UNSIGNED_BYTE => raw / 255.0,
        SHORT => (raw / 32767.0).max(-1.0),
        UNSIGNED_SHORT => raw / 65535.0,
        _ => raw,
    }
}
