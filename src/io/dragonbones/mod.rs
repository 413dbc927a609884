//! DragonBones 5.5 JSON (`*_ske.json`): import of an armature with its mesh displays and the
//! artist's weights, and export of a scene with weights as weighted mesh displays.
//!
//! Format semantics, as DragonBonesJS's `ObjectDataParser` reads them (`_parseBone`,
//! `_parseTransform`, `_parseMesh`):
//!
//! - A bone's `transform` `{x, y, skX, skY, scX, scY}` is its *setup* transform relative to
//!   its parent: rotation = `skY`, skew = `skX - skY` (degrees), matrix
//!   `a = cos(rot)·scX, b = sin(rot)·scX, c = -sin(rot+skew)·scY, d = cos(rot+skew)·scY`.
//!   Matrices act as `x' = a·x + c·y + tx`, `y' = b·x + d·y + ty`.
//! - A weighted mesh stores `vertices` in the slot's frame at bind time; `slotPose`
//!   `[a, b, c, d, tx, ty]` maps them to armature space, and `bonePose`
//!   `[boneIndex, a, b, c, d, tx, ty]*` is each bound bone's armature-space matrix at bind
//!   time. `boneIndex` indexes the armature's `bone` list in file order (the parser looks it
//!   up in its raw bone list). `weights` is, per vertex, `[count, boneIndex, w, ...]`; the
//!   runtime computes `Σ w · boneWorld · bonePose⁻¹ · slotPose · v`.
//! - An unweighted mesh's `vertices` are in its slot's frame: the slot follows its parent
//!   bone (plus the display's own `transform`).
//!
//! DragonBones is y-down; skinweights is y-up. Points are flipped `(x, y) → (x, -y)` and
//! matrices conjugated by that flip, so rotations change sign. DragonBones draws triangles
//! double-sided and its files mix windings; the importer makes each triangle
//! counter-clockwise and reports how many it turned.

mod atlas;
mod clips;
mod export;
mod ffd;
mod import;
mod parse;

pub use atlas::Atlas;
pub use clips::{DEFAULT_FRAME_RATE, EXPORT_FRAME_RATES};
pub use export::{export_dragonbones, save_dragonbones};
pub use import::{
    import_dragonbones, import_dragonbones_with_atlas, load_dragonbones, BindDifference,
    DragonBonesImport, ImportReport, MeshReport,
};

use crate::error::Result;
use crate::io::json_path::JsonAt;
use nalgebra::{Isometry2, Point2};
use serde_json::Value;

/// Largest coordinate (px) accepted anywhere in a file or produced from it: vertices,
/// translations, bone lengths, bone heads and placed vertices. A character is a few thousand
/// px; beyond this a number is a corrupt file, and the mesh's relative zero-area test would
/// start flagging the other meshes' ordinary triangles.
const MAX_COORDINATE: f64 = 1e6;

/// Largest scale accepted in a matrix or transform (`|a|, |b|, |c|, |d|`, `scX`, `scY`), and
/// 1 / the smallest length of a matrix axis.
const MAX_SCALE: f64 = 1e3;

/// Largest angle (degrees) accepted in a transform: beyond it the degrees have no fraction left.
const MAX_ANGLE_DEG: f64 = 1e6;

/// Smallest `|det| / (|x axis| · |y axis|)` (the sine of the angle between the axes) of a
/// matrix that is not singular.
const MIN_AXIS_SINE: f64 = 1e-6;

/// A 2D affine matrix in DragonBones' layout: `x' = a·x + c·y + tx`, `y' = b·x + d·y + ty`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Affine {
    a: f64,
    b: f64,
    c: f64,
    d: f64,
    tx: f64,
    ty: f64,
}

impl Affine {
    const IDENTITY: Affine = Affine {
        a: 1.0,
        b: 0.0,
        c: 0.0,
        d: 1.0,
        tx: 0.0,
        ty: 0.0,
    };

    fn from_array(m: [f64; 6]) -> Self {
        Affine {
            a: m[0],
            b: m[1],
            c: m[2],
            d: m[3],
            tx: m[4],
            ty: m[5],
        }
    }

    fn to_array(self) -> [f64; 6] {
        [self.a, self.b, self.c, self.d, self.tx, self.ty]
    }

    /// DragonBones' `Transform.toMatrix` (angles in radians).
    fn from_transform(x: f64, y: f64, rotation: f64, skew: f64, sx: f64, sy: f64) -> Self {
        Affine {
            a: rotation.cos() * sx,
            b: rotation.sin() * sx,
            c: -(rotation + skew).sin() * sy,
            d: (rotation + skew).cos() * sy,
            tx: x,
            ty: y,
        }
    }

    /// `self · other` (apply `other` first).
    fn then(self, other: Affine) -> Affine {
        let m = self;
        Affine {
            a: m.a * other.a + m.c * other.b,
            b: m.b * other.a + m.d * other.b,
            c: m.a * other.c + m.c * other.d,
            d: m.b * other.c + m.d * other.d,
            tx: m.a * other.tx + m.c * other.ty + m.tx,
            ty: m.b * other.tx + m.d * other.ty + m.ty,
        }
    }

    fn apply(self, [x, y]: [f64; 2]) -> [f64; 2] {
        [
            self.a * x + self.c * y + self.tx,
            self.b * x + self.d * y + self.ty,
        ]
    }

    fn inverse(self) -> Option<Affine> {
        let det = self.a * self.d - self.b * self.c;
        if det.abs() < 1e-12 || !det.is_finite() {
            return None;
        }
        let (a, b, c, d) = (self.d / det, -self.b / det, -self.c / det, self.a / det);
        Some(Affine {
            a,
            b,
            c,
            d,
            tx: -(a * self.tx + c * self.ty),
            ty: -(b * self.tx + d * self.ty),
        })
    }

    /// What is wrong with a bind matrix (`slotPose`, `bonePose`), or `None`: not finite,
    /// scales beyond [`MAX_SCALE`] either way, translates beyond [`MAX_COORDINATE`], or is
    /// singular (an axis of length 0 or the axes parallel).
    fn problem(self) -> Option<String> {
        let linear = [("a", self.a), ("b", self.b), ("c", self.c), ("d", self.d)];
        for (name, x) in linear {
            if !x.is_finite() || x.abs() > MAX_SCALE {
                return Some(format!("{name} = {x:e} is beyond ±{MAX_SCALE} (scale)"));
            }
        }
        for (name, x) in [("tx", self.tx), ("ty", self.ty)] {
            if !x.is_finite() || x.abs() > MAX_COORDINATE {
                return Some(format!("{name} = {x:e} is beyond ±{MAX_COORDINATE:e} px"));
            }
        }
        let sx = self.a.hypot(self.b);
        let sy = self.c.hypot(self.d);
        let det = self.a * self.d - self.b * self.c;
        if sx < 1.0 / MAX_SCALE || sy < 1.0 / MAX_SCALE || det.abs() < MIN_AXIS_SINE * sx * sy {
            return Some(format!(
                "is singular (axis lengths {sx:e} and {sy:e}, determinant {det:e})"
            ));
        }
        None
    }

    /// The same map seen through the y flip `F = diag(1, -1)`: `F · self · F`. Converts
    /// between DragonBones' y-down and skinweights' y-up frames (its own inverse).
    fn flip_y(self) -> Affine {
        Affine {
            a: self.a,
            b: -self.b,
            c: -self.c,
            d: self.d,
            tx: self.tx,
            ty: -self.ty,
        }
    }

    /// Angle of the x axis, radians.
    fn angle(self) -> f64 {
        self.b.atan2(self.a)
    }

    /// How far the matrix is from a rotation: the largest deviation of the axes' lengths from
    /// 1 and of their dot product from 0, and of the determinant's sign.
    fn rigidity_error(self) -> f64 {
        let sx = (self.a * self.a + self.b * self.b).sqrt();
        let sy = (self.c * self.c + self.d * self.d).sqrt();
        let dot = self.a * self.c + self.b * self.d;
        let det = self.a * self.d - self.b * self.c;
        let reflect = if det < 0.0 { 2.0 } else { 0.0 };
        (sx - 1.0).abs().max((sy - 1.0).abs()).max(dot.abs()) + reflect
    }

    fn from_isometry(iso: &Isometry2<f64>) -> Affine {
        let (s, c) = iso.rotation.angle().sin_cos();
        Affine {
            a: c,
            b: s,
            c: -s,
            d: c,
            tx: iso.translation.x,
            ty: iso.translation.y,
        }
    }
}

/// y-down DragonBones point to a y-up scene point.
fn to_scene([x, y]: [f64; 2]) -> Point2<f64> {
    Point2::new(x, -y)
}

/// DragonBones' matrices and transforms read at a place in the file.
trait ReadTransform {
    fn matrix(&self, obj: &Value, field: &str) -> Result<Affine>;
    fn transform(&self, obj: &Value) -> Result<Affine>;
}

impl ReadTransform for JsonAt<'_> {
    /// A bind matrix `[a, b, c, d, tx, ty]`, checked with [`Affine::problem`].
    fn matrix(&self, obj: &Value, field: &str) -> Result<Affine> {
        let m = self.numbers(obj, field)?;
        let m: [f64; 6] = m
            .try_into()
            .map_err(|m: Vec<f64>| self.error(field, format!("{} numbers, expected 6", m.len())))?;
        let m = Affine::from_array(m);
        match m.problem() {
            Some(p) => Err(self.error(field, format!("the matrix {p}"))),
            None => Ok(m),
        }
    }

    /// A bone or display `transform` object (absent: identity).
    fn transform(&self, obj: &Value) -> Result<Affine> {
        let Some(t) = obj.get("transform") else {
            return Ok(Affine::IDENTITY);
        };
        self.object(t, "transform")?;
        // A finite number within ±limit.
        let n = |f: &str, default: f64, limit: f64| -> Result<f64> {
            let x = self.number_or(t, f, default)?;
            if x.abs() > limit {
                return Err(self.error(
                    &format!("transform.{f}"),
                    format!("{x:e} is beyond ±{limit:e}"),
                ));
            }
            Ok(x)
        };
        let angle = |f: &str| n(f, 0.0, MAX_ANGLE_DEG);
        let (rotation, skew) = if t.get("rotate").is_some() || t.get("skew").is_some() {
            (angle("rotate")?, angle("skew")?)
        } else {
            let sky = angle("skY")?;
            (sky, angle("skX")? - sky)
        };
        Ok(Affine::from_transform(
            n("x", 0.0, MAX_COORDINATE)?,
            n("y", 0.0, MAX_COORDINATE)?,
            rotation.to_radians(),
            skew.to_radians(),
            n("scX", 1.0, MAX_SCALE)?,
            n("scY", 1.0, MAX_SCALE)?,
        ))
    }
}
