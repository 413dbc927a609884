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
pub(crate) use export::dragonbones_text;
#[cfg(test)]
pub(crate) use export::export_dragonbones;
pub use import::{
    import_dragonbones, import_dragonbones_with_atlas, load_dragonbones, BindDifference,
    DragonBonesImport, ImportReport, MeshReport,
};

use super::format::{boxed, Format, Source};
use super::{Exported, FileKind};
use crate::error::{Result, RigFormat};
use crate::io::json_path::JsonAt;
use crate::skeleton::Affine2;
use nalgebra::{Isometry2, Point2};
use serde_json::Value;

impl RigFormat {
    /// DragonBones 5.5 JSON (`*_ske.json`).
    pub const DRAGONBONES: Self = Self::named("DragonBones");
}

/// Its row of the format table ([`super::FORMATS`]).
pub(super) const FORMAT: Format = Format {
    kind: RigFormat::DRAGONBONES,
    name: "dragonbones",
    extensions: &[],
    import_help: "DragonBones 5.5 JSON (`*_ske.json`): armature, mesh displays, artist weights",
    export_help: "DragonBones 5.5 JSON: one weighted mesh display per part",
    file_kinds: &[FileKind::DragonBones],
    always_weighted: true,
    weights_solver: "artist",
    skins: false,
    source: Source::Never,
    influence_limit: false,
    scales: false,
    atlas_without_source: false,
    batch_suffix: "_ske.json",
    transfer_writes: true,
    detect: Some(|json| json["armature"].is_array()),
    import: |path, _| Ok(boxed(load_dragonbones(path)?)),
    export: |scene, weights, o| {
        let text = dragonbones_text(scene, weights, &o.output_name())?;
        let summary = format!(
            ": {} parts as weighted mesh displays, {} bones",
            scene.mesh().parts().len(),
            scene.skeleton().len()
        );
        Ok(Exported::new(text, summary))
    },
};

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

/// DragonBones' conventions on an [`Affine2`]. Its matrices are `[a, b, c, d, tx, ty]` with
/// `x' = a·x + c·y + tx`, `y' = b·x + d·y + ty`: DragonBones' `b` is [`Affine2::c`] and its `c`
/// is [`Affine2::b`]. Composition is [`Affine2`]'s `*`.
trait DragonBonesAffine: Sized {
    /// A matrix from DragonBones' `[a, b, c, d, tx, ty]`.
    fn from_db_array(m: [f64; 6]) -> Self;
    /// DragonBones' `[a, b, c, d, tx, ty]`.
    fn db_array(&self) -> [f64; 6];
    /// DragonBones' `Transform.toMatrix` (angles in radians).
    fn from_transform(x: f64, y: f64, rotation: f64, skew: f64, sx: f64, sy: f64) -> Self;
    /// A rotation by the isometry's angle, then its translation.
    fn from_isometry_angle(iso: &Isometry2<f64>) -> Self;
    /// The image of a point `[x, y]`.
    fn apply_xy(&self, p: [f64; 2]) -> [f64; 2];
    /// The inverse, `None` when `|det| < 1e-12` or not finite.
    fn db_inverse(&self) -> Option<Self>;
    /// What is wrong with a bind matrix, or `None`.
    fn problem(&self) -> Option<String>;
    /// `F · self · F` for the y flip `F`.
    fn flip_y(&self) -> Self;
    /// Angle of the x axis, radians.
    fn angle(&self) -> f64;
    /// How far the matrix is from a rotation.
    fn rigidity_error(&self) -> f64;
}

impl DragonBonesAffine for Affine2 {
    fn from_db_array(m: [f64; 6]) -> Self {
        Affine2::new(m[0], m[2], m[1], m[3], m[4], m[5])
    }

    fn db_array(&self) -> [f64; 6] {
        [self.a, self.c, self.b, self.d, self.tx, self.ty]
    }

    fn from_transform(x: f64, y: f64, rotation: f64, skew: f64, sx: f64, sy: f64) -> Self {
        Affine2::from_axis_angles(rotation, rotation + skew, sx, sy, x, y)
    }

    fn from_isometry_angle(iso: &Isometry2<f64>) -> Self {
        let angle = iso.rotation.angle();
        Affine2::from_axis_angles(angle, angle, 1.0, 1.0, iso.translation.x, iso.translation.y)
    }

    fn apply_xy(&self, [x, y]: [f64; 2]) -> [f64; 2] {
        let p = self.apply(Point2::new(x, y));
        [p.x, p.y]
    }

    fn db_inverse(&self) -> Option<Self> {
        let det = self.determinant();
        if det.abs() < 1e-12 || !det.is_finite() {
            return None;
        }
        Some(self.inverse_unchecked())
    }

    /// What is wrong with a bind matrix (`slotPose`, `bonePose`), or `None`: not finite,
    /// scales beyond [`MAX_SCALE`] either way, translates beyond [`MAX_COORDINATE`], or is
    /// singular (an axis of length 0 or the axes parallel).
    fn problem(&self) -> Option<String> {
        let [a, b, c, d, tx, ty] = self.db_array();
        for (name, x) in [("a", a), ("b", b), ("c", c), ("d", d)] {
            if !x.is_finite() || x.abs() > MAX_SCALE {
                return Some(format!("{name} = {x:e} is beyond ±{MAX_SCALE} (scale)"));
            }
        }
        for (name, x) in [("tx", tx), ("ty", ty)] {
            if !x.is_finite() || x.abs() > MAX_COORDINATE {
                return Some(format!("{name} = {x:e} is beyond ±{MAX_COORDINATE:e} px"));
            }
        }
        let sx = a.hypot(b);
        let sy = c.hypot(d);
        let det = a * d - b * c;
        if sx < 1.0 / MAX_SCALE || sy < 1.0 / MAX_SCALE || det.abs() < MIN_AXIS_SINE * sx * sy {
            return Some(format!(
                "is singular (axis lengths {sx:e} and {sy:e}, determinant {det:e})"
            ));
        }
        None
    }

    /// The same map seen through the y flip `F = diag(1, -1)`: `F · self · F`. Converts
    /// between DragonBones' y-down and skinweights' y-up frames (its own inverse).
    fn flip_y(&self) -> Self {
        Affine2::new(self.a, -self.b, -self.c, self.d, self.tx, -self.ty)
    }

    fn angle(&self) -> f64 {
        self.c.atan2(self.a)
    }

    /// The largest deviation of the axes' lengths from 1 and of their dot product from 0, plus
    /// 2 for a reflection.
    fn rigidity_error(&self) -> f64 {
        let [a, b, c, d, _, _] = self.db_array();
        let sx = (a * a + b * b).sqrt();
        let sy = (c * c + d * d).sqrt();
        let dot = a * c + b * d;
        let det = a * d - b * c;
        let reflect = if det < 0.0 { 2.0 } else { 0.0 };
        (sx - 1.0).abs().max((sy - 1.0).abs()).max(dot.abs()) + reflect
    }
}

/// y-down DragonBones point to a y-up scene point.
fn to_scene([x, y]: [f64; 2]) -> Point2<f64> {
    Point2::new(x, -y)
}

/// DragonBones' matrices and transforms read at a place in the file.
trait ReadTransform {
    fn matrix(&self, obj: &Value, field: &str) -> Result<Affine2>;
    fn transform(&self, obj: &Value) -> Result<Affine2>;
}

impl ReadTransform for JsonAt<'_> {
    /// A bind matrix `[a, b, c, d, tx, ty]`, checked with [`DragonBonesAffine::problem`].
    fn matrix(&self, obj: &Value, field: &str) -> Result<Affine2> {
        let m = self.numbers(obj, field)?;
        let m: [f64; 6] = m
            .try_into()
            .map_err(|m: Vec<f64>| self.error(field, format!("{} numbers, expected 6", m.len())))?;
        let m = Affine2::from_db_array(m);
        match m.problem() {
            Some(p) => Err(self.error(field, format!("the matrix {p}"))),
            None => Ok(m),
        }
    }

    /// A bone or display `transform` object (absent: identity).
    fn transform(&self, obj: &Value) -> Result<Affine2> {
        let Some(t) = obj.get("transform") else {
            return Ok(Affine2::IDENTITY);
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
        Ok(Affine2::from_transform(
            n("x", 0.0, MAX_COORDINATE)?,
            n("y", 0.0, MAX_COORDINATE)?,
            rotation.to_radians(),
            skew.to_radians(),
            n("scX", 1.0, MAX_SCALE)?,
            n("scY", 1.0, MAX_SCALE)?,
        ))
    }
}
