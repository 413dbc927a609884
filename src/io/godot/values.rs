//! Reading typed values out of parsed `.tscn` sections, with errors that name the line and
//! the field: vectors, transforms, packed arrays, resource references.

use super::tscn::{section_name, Property, Section, Value};
use crate::error::{Error, FormatError, Result};
use crate::skeleton::Affine2;

/// `Transform2D(xx, xy, yx, yy, ox, oy)` (x axis, y axis, origin) as an affine map.
pub fn affine_from_columns(m: [f64; 6]) -> Affine2 {
    Affine2::new(m[0], m[2], m[1], m[3], m[4], m[5])
}

/// The six numbers Godot writes for a `Transform2D`.
pub fn affine_columns(m: &Affine2) -> [f64; 6] {
    [m.a, m.c, m.b, m.d, m.tx, m.ty]
}

/// Godot's `Transform2D(rotation, scale, skew, position)` (angles in radians).
pub fn affine_from_parts(position: [f64; 2], rotation: f64, scale: [f64; 2], skew: f64) -> Affine2 {
    Affine2::from_axis_angles(
        rotation,
        rotation + skew,
        scale[0],
        scale[1],
        position[0],
        position[1],
    )
}

/// The inverse of `m` by cofactors over the determinant, as a 3 x 3 homogeneous matrix
/// inverts (the translation takes one rounding fewer than [`Affine2::inverse`]'s, and the
/// Godot files written and read stay the same to the last bit); `None` when the determinant
/// is 0.
pub fn inverse_by_cofactors(m: &Affine2) -> Option<Affine2> {
    // The homogeneous matrix [[a, b, tx], [c, d, ty], [0, 0, 1]], written out in full so that
    // every product and its rounding is the one of the 3 x 3 formula.
    let (m11, m12, m13) = (m.a, m.b, m.tx);
    let (m21, m22, m23) = (m.c, m.d, m.ty);
    let (m31, m32, m33) = (0.0_f64, 0.0_f64, 1.0_f64);
    let minor_m12_m23 = m22 * m33 - m32 * m23;
    let minor_m11_m23 = m21 * m33 - m31 * m23;
    let minor_m11_m22 = m21 * m32 - m31 * m22;
    let det = m11 * minor_m12_m23 - m12 * minor_m11_m23 + m13 * minor_m11_m22;
    if det == 0.0 {
        return None;
    }
    Some(Affine2::new(
        minor_m12_m23 / det,
        (m13 * m32 - m33 * m12) / det,
        -minor_m11_m23 / det,
        (m11 * m33 - m31 * m13) / det,
        (m12 * m23 - m22 * m13) / det,
        (m13 * m21 - m23 * m11) / det,
    ))
}

/// Applies `m` to a point.
pub fn apply(m: &Affine2, [x, y]: [f64; 2]) -> [f64; 2] {
    [m.a * x + m.b * y + m.tx, m.c * x + m.d * y + m.ty]
}

/// Where a value came from: the section and the property (or header attribute).
pub struct At<'a> {
    /// The section.
    pub section: &'a Section,
    /// The property or attribute name.
    pub key: &'a str,
    /// Its line.
    pub line: usize,
}

impl<'a> At<'a> {
    /// A property of `section`.
    pub fn property(section: &'a Section, p: &'a Property) -> Self {
        At {
            section,
            key: &p.key,
            line: p.line,
        }
    }

    /// An error about this value; `detail` narrows the field (e.g. `[3]`).
    pub fn error(&self, detail: &str, message: impl Into<String>) -> Error {
        Error::Format(FormatError::Godot {
            line: self.line,
            field: format!(
                "{} property {}{detail}",
                section_name(self.section),
                self.key
            ),
            message: message.into(),
        })
    }

    /// A finite number.
    pub fn number(&self, v: &Value) -> Result<f64> {
        match v.as_f64() {
            Some(x) if x.is_finite() => Ok(x),
            Some(x) => Err(self.error("", format!("{x} is not a finite number"))),
            None => Err(self.error("", format!("expected a number, found {}", v.kind()))),
        }
    }

    /// `true` / `false`.
    pub fn boolean(&self, v: &Value) -> Result<bool> {
        match v {
            Value::Bool(b) => Ok(*b),
            _ => Err(self.error("", format!("expected true or false, found {}", v.kind()))),
        }
    }

    /// The finite numbers inside `Name(...)` when `Name` is one of `names`.
    fn call_numbers(&self, v: &Value, names: &[&str]) -> Result<Option<Vec<f64>>> {
        let Value::Call { name, args } = v else {
            return Ok(None);
        };
        if !names.contains(&name.as_str()) {
            return Ok(None);
        }
        let mut out = Vec::with_capacity(args.len());
        for (i, a) in args.iter().enumerate() {
            match a.as_f64() {
                Some(x) if x.is_finite() => out.push(x),
                _ => {
                    return Err(self.error(
                        "",
                        format!(
                            "argument {i} of {name}(...) is {}, expected a finite number",
                            a.kind()
                        ),
                    ))
                }
            }
        }
        Ok(Some(out))
    }

    /// `Vector2(x, y)`.
    pub fn vector2(&self, v: &Value) -> Result<[f64; 2]> {
        match self.call_numbers(v, &["Vector2", "Vector2i"])? {
            Some(n) if n.len() == 2 => Ok([n[0], n[1]]),
            Some(n) => Err(self.error("", format!("Vector2 has {} numbers, expected 2", n.len()))),
            None => Err(self.error("", format!("expected Vector2(x, y), found {}", v.kind()))),
        }
    }

    /// `Transform2D(xx, xy, yx, yy, ox, oy)`.
    pub fn transform(&self, v: &Value) -> Result<Affine2> {
        match self.call_numbers(v, &["Transform2D"])? {
            Some(n) if n.len() == 6 => {
                Ok(affine_from_columns([n[0], n[1], n[2], n[3], n[4], n[5]]))
            }
            Some(n) => Err(self.error(
                "",
                format!("Transform2D has {} numbers, expected 6", n.len()),
            )),
            None => Err(self.error("", format!("expected Transform2D(...), found {}", v.kind()))),
        }
    }

    /// `PoolVector2Array(x, y, ...)`, `PackedVector2Array(...)` or `[Vector2(...), ...]`.
    pub fn vector2_array(&self, v: &Value) -> Result<Vec<[f64; 2]>> {
        if let Value::Array(items) = v {
            return items.iter().map(|i| self.vector2(i)).collect();
        }
        match self.call_numbers(v, &["PoolVector2Array", "PackedVector2Array"])? {
            Some(n) if n.len() % 2 == 0 => Ok(n.chunks_exact(2).map(|c| [c[0], c[1]]).collect()),
            Some(n) => Err(self.error(
                "",
                format!("{} numbers: an odd count cannot be (x, y) pairs", n.len()),
            )),
            None => Err(self.error(
                "",
                format!(
                    "expected PackedVector2Array(...) or PoolVector2Array(...), found {}",
                    v.kind()
                ),
            )),
        }
    }

    /// `PoolRealArray(...)`, `PackedFloat32Array(...)`, `PackedFloat64Array(...)` or an array
    /// of numbers; `detail` narrows the field in errors.
    pub fn float_array(&self, v: &Value, detail: &str) -> Result<Vec<f64>> {
        if let Value::Array(items) = v {
            return items
                .iter()
                .enumerate()
                .map(|(i, x)| match x.as_f64() {
                    Some(x) if x.is_finite() => Ok(x),
                    _ => Err(self.error(
                        detail,
                        format!("entry {i} is {}, expected a finite number", x.kind()),
                    )),
                })
                .collect();
        }
        match self.call_numbers(
            v,
            &["PoolRealArray", "PackedFloat32Array", "PackedFloat64Array"],
        ) {
            Ok(Some(n)) => Ok(n),
            Ok(None) => Err(self.error(
                detail,
                format!(
                    "expected PackedFloat32Array(...) or PoolRealArray(...), found {}",
                    v.kind()
                ),
            )),
            Err(Error::Format(FormatError::Godot { message, .. })) => {
                Err(self.error(detail, message))
            }
            Err(e) => Err(e),
        }
    }

    /// `PoolIntArray(...)`, `PackedInt32Array(...)`, `PackedInt64Array(...)` or an array of
    /// integers, each in `0..limit`; `detail` narrows the field in errors.
    pub fn index_array(&self, v: &Value, detail: &str, limit: usize) -> Result<Vec<usize>> {
        let items: &[Value] = match v {
            Value::Array(items) => items,
            Value::Call { name, args }
                if matches!(
                    name.as_str(),
                    "PoolIntArray" | "PackedInt32Array" | "PackedInt64Array"
                ) =>
            {
                args
            }
            _ => {
                return Err(self.error(
                    detail,
                    format!(
                        "expected PackedInt32Array(...) or PoolIntArray(...), found {}",
                        v.kind()
                    ),
                ))
            }
        };
        items
            .iter()
            .enumerate()
            .map(|(i, x)| match x {
                Value::Int(k) if *k >= 0 && (*k as u64) < limit as u64 => Ok(*k as usize),
                Value::Int(k) => Err(self.error(
                    detail,
                    format!("entry {i} is {k}, out of range (the polygon has {limit} vertices)"),
                )),
                _ => Err(self.error(
                    detail,
                    format!("entry {i} is {}, expected an integer", x.kind()),
                )),
            })
            .collect()
    }
}

/// `ExtResource(id)` / `SubResource(id)`: which kind and the id as written (Godot 3 integer
/// ids and Godot 4 string ids both become strings).
pub fn resource_ref(v: &Value) -> Option<(&'static str, String)> {
    let Value::Call { name, args } = v else {
        return None;
    };
    let kind = match name.as_str() {
        "ExtResource" => "ExtResource",
        "SubResource" => "SubResource",
        _ => return None,
    };
    let id = match args.as_slice() {
        [Value::Int(i)] => i.to_string(),
        [Value::Str(s)] => s.clone(),
        _ => return None,
    };
    Some((kind, id))
}

/// A header `id` as a string (see [`resource_ref`]).
pub fn resource_id(s: &Section) -> Option<String> {
    match s.attr("id")? {
        Value::Int(i) => Some(i.to_string()),
        Value::Str(s) => Some(s.clone()),
        _ => None,
    }
}

/// Calls `f` on every `ExtResource(...)` / `SubResource(...)` inside `v`, and on malformed
/// ones (wrong arguments) with `None`.
pub fn each_resource_ref(v: &Value, f: &mut dyn FnMut(Option<(&'static str, String)>)) {
    match v {
        Value::Call { name, args } => {
            if name == "ExtResource" || name == "SubResource" {
                f(resource_ref(v));
            } else {
                args.iter().for_each(|a| each_resource_ref(a, f));
            }
        }
        Value::Array(items) => items.iter().for_each(|a| each_resource_ref(a, f)),
        Value::Dict(entries) => entries.iter().for_each(|(k, x)| {
            each_resource_ref(k, f);
            each_resource_ref(x, f);
        }),
        _ => {}
    }
}
