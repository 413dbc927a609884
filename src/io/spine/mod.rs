//! Spine 4.x JSON projects (`*.json` + the libgdx text `*.atlas`): import of the skeleton in
//! its setup pose with every mesh and region attachment and the artist's weights, and export
//! of a scene with weights back to Spine (rewriting a source project, or a minimal one).
//!
//! Format semantics, as the Spine user guide's "JSON export format" page documents them (no
//! runtime code was read or copied):
//!
//! - Spine is y-up, like skinweights: no flip. Angles are degrees, counter-clockwise.
//! - A bone's local transform is `x, y, rotation, scaleX, scaleY, shearX, shearY`; its linear
//!   part has the x axis at angle `rotation + shearX` with length `scaleX` and the y axis at
//!   `rotation + 90 + shearY` with length `scaleY`. A root's world matrix is its local one.
//!   A child's origin is always its parent's world matrix applied to `(x, y)`; how the linear
//!   part inherits is the bone's `inherit` (4.2; `transform` in 4.0/4.1): `normal` (parent ·
//!   local), `onlyTranslation` (local only), `noRotationOrReflection` (the parent's scale
//!   along its own axes, without its rotation or a mirror), `noScale` (the parent's rotation
//!   and mirror, no scale) and `noScaleOrReflection` (the parent's rotation only).
//! - A weighted mesh's `vertices` (longer than its `uvs`) are, per vertex, `boneCount` then
//!   `boneIndex, bindX, bindY, weight` per bone, `boneIndex` into the file's `bones`; the
//!   vertex is `Σ weight · world(bone) · (bindX, bindY)`. An unweighted mesh's `vertices` are
//!   `x, y` pairs in its slot's bone frame. `uvs` run 0..1 across the attachment's whole
//!   (untrimmed) image, v down.
//! - A region attachment is the image's rectangle `width × height`, centred, scaled by
//!   `scaleX, scaleY`, turned by `rotation` and moved to `(x, y)` in its slot's bone frame; an
//!   atlas region with whitespace stripped draws only its trimmed part (`offsets`).
//! - A linked mesh (`linkedmesh`) takes its `parent` mesh's vertices, triangles and uvs (the
//!   parent in skin `skin`, default `default`, same slot) and its own image (`path`).

mod atlas;
mod export;
mod import;
mod parse;

pub use atlas::{Atlas, AtlasPage, AtlasRegion};
pub use export::{
    export_spine, save_spine, SpineExport, SpineExportOptions, DEFAULT_MAX_INFLUENCES,
};
pub use import::{
    import_spine, load_spine, AttachmentReport, SkinSelection, SpineImport, SpineImportOptions,
    SpineReport,
};

use crate::error::Error;

/// Largest coordinate (px) accepted in a file or produced from it (bone origins, vertices).
const MAX_COORDINATE: f64 = 1e6;

/// Largest |scale| accepted on a bone or attachment, and on a bone's world matrix.
const MAX_SCALE: f64 = 1e3;

/// Largest |angle| (degrees) accepted: beyond it the degrees have no fraction left.
const MAX_ANGLE_DEG: f64 = 1e6;

/// Tail length (px) given to bones of length 0 (IK targets, control bones), along the bone's
/// x axis, so that the scene's bone keeps its orientation; the export writes length 0 back
/// for a bone this short.
pub const ZERO_LENGTH_TAIL: f64 = 1.0;

/// A 2D affine matrix in Spine's layout: `x' = a·x + b·y + x0`, `y' = c·x + d·y + y0`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Affine {
    pub a: f64,
    pub b: f64,
    pub c: f64,
    pub d: f64,
    pub x: f64,
    pub y: f64,
}

impl Affine {
    pub const IDENTITY: Affine = Affine {
        a: 1.0,
        b: 0.0,
        c: 0.0,
        d: 1.0,
        x: 0.0,
        y: 0.0,
    };

    pub fn apply(&self, [x, y]: [f64; 2]) -> [f64; 2] {
        [
            self.a * x + self.b * y + self.x,
            self.c * x + self.d * y + self.y,
        ]
    }

    /// `self · other` (apply `other` first).
    pub fn then(&self, o: &Affine) -> Affine {
        Affine {
            a: self.a * o.a + self.b * o.c,
            b: self.a * o.b + self.b * o.d,
            c: self.c * o.a + self.d * o.c,
            d: self.c * o.b + self.d * o.d,
            x: self.a * o.x + self.b * o.y + self.x,
            y: self.c * o.x + self.d * o.y + self.y,
        }
    }

    pub fn det(&self) -> f64 {
        self.a * self.d - self.b * self.c
    }

    pub fn inverse(&self) -> Option<Affine> {
        let det = self.det();
        if !det.is_finite() || det.abs() < 1e-12 {
            return None;
        }
        let (a, b, c, d) = (self.d / det, -self.b / det, -self.c / det, self.a / det);
        Some(Affine {
            a,
            b,
            c,
            d,
            x: -(a * self.x + b * self.y),
            y: -(c * self.x + d * self.y),
        })
    }

    /// The linear part with x axis at `rx` and y axis at `ry` degrees, lengths `sx`, `sy`.
    fn axes(rx: f64, ry: f64, sx: f64, sy: f64) -> Affine {
        let (rx, ry) = (rx.to_radians(), ry.to_radians());
        Affine {
            a: rx.cos() * sx,
            b: ry.cos() * sy,
            c: rx.sin() * sx,
            d: ry.sin() * sy,
            x: 0.0,
            y: 0.0,
        }
    }
}

/// How a bone inherits its parent's world transform (`inherit`, or `transform` before 4.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SpineInherit {
    /// Parent world · local.
    #[default]
    Normal,
    /// Only the parent's translation.
    OnlyTranslation,
    /// The parent's scale, without its rotation or reflection.
    NoRotationOrReflection,
    /// The parent's rotation and reflection, without its scale.
    NoScale,
    /// The parent's rotation, without its scale or reflection.
    NoScaleOrReflection,
}

impl SpineInherit {
    /// The mode of a file's `inherit` / `transform` value.
    pub fn from_spine_name(name: &str) -> Option<Self> {
        Some(match name {
            "normal" => SpineInherit::Normal,
            "onlyTranslation" => SpineInherit::OnlyTranslation,
            "noRotationOrReflection" => SpineInherit::NoRotationOrReflection,
            "noScale" => SpineInherit::NoScale,
            "noScaleOrReflection" => SpineInherit::NoScaleOrReflection,
            _ => return None,
        })
    }
}

/// A bone's local setup transform, as the file gives it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Local {
    pub x: f64,
    pub y: f64,
    pub rotation: f64,
    pub scale_x: f64,
    pub scale_y: f64,
    pub shear_x: f64,
    pub shear_y: f64,
    pub inherit: SpineInherit,
}

/// A bone's world matrix from its local transform and its parent's world matrix.
pub(crate) fn world_of(l: &Local, parent: Option<&Affine>) -> Affine {
    let local = Affine::axes(
        l.rotation + l.shear_x,
        l.rotation + 90.0 + l.shear_y,
        l.scale_x,
        l.scale_y,
    );
    let Some(p) = parent else {
        return Affine {
            x: l.x,
            y: l.y,
            ..local
        };
    };
    let [x, y] = p.apply([l.x, l.y]);
    let linear = match l.inherit {
        SpineInherit::Normal => Affine {
            x: 0.0,
            y: 0.0,
            ..*p
        }
        .then(&local),
        SpineInherit::OnlyTranslation => local,
        SpineInherit::NoRotationOrReflection => {
            // The parent's frame as a rotation `prx` times an upper-triangular scale with a
            // positive determinant; keep the scale, take the rotation out of the local one.
            let s2 = p.a * p.a + p.c * p.c;
            let (pa, pb, pc, pd, prx) = if s2 > 1e-4 {
                let s = p.det().abs() / s2;
                (p.a, -p.c * s, p.c, p.a * s, p.c.atan2(p.a).to_degrees())
            } else {
                (0.0, p.b, 0.0, p.d, 90.0 - p.d.atan2(p.b).to_degrees())
            };
            let l2 = Affine::axes(
                l.rotation + l.shear_x - prx,
                l.rotation + l.shear_y - prx + 90.0,
                l.scale_x,
                l.scale_y,
            );
            Affine {
                a: pa,
                b: pb,
                c: pc,
                d: pd,
                x: 0.0,
                y: 0.0,
            }
            .then(&l2)
        }
        SpineInherit::NoScale | SpineInherit::NoScaleOrReflection => {
            // The parent's direction of the local x axis (rotation only), normalized; the y
            // axis perpendicular, mirrored when the mode keeps the parent's reflection.
            let (sin, cos) = l.rotation.to_radians().sin_cos();
            let mut za = p.a * cos + p.b * sin;
            let mut zc = p.c * cos + p.d * sin;
            let mut s = za.hypot(zc);
            if s > 1e-5 {
                za /= s;
                zc /= s;
            }
            s = za.hypot(zc);
            if l.inherit == SpineInherit::NoScale && p.det() < 0.0 {
                s = -s;
            }
            let r = std::f64::consts::FRAC_PI_2 + zc.atan2(za);
            let z = Affine {
                a: za,
                b: r.cos() * s,
                c: zc,
                d: r.sin() * s,
                x: 0.0,
                y: 0.0,
            };
            z.then(&Affine::axes(
                l.shear_x,
                90.0 + l.shear_y,
                l.scale_x,
                l.scale_y,
            ))
        }
    };
    Affine { x, y, ..linear }
}

/// A number for a message: as written when ordinary, in exponent form when huge.
fn shown(x: f64) -> String {
    if x.abs() < 1e9 {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// A Spine error naming the context (bone, slot, skin, attachment), the field and the vertex.
fn spine_error(
    context: impl Into<String>,
    field: impl Into<String>,
    vertex: Option<usize>,
    message: impl Into<String>,
) -> Error {
    Error::Spine {
        context: context.into(),
        field: field.into(),
        vertex,
        message: message.into(),
    }
}
