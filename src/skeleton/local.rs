//! A bone's transform relative to its parent, in Spine's model (the Spine user guide's
//! "Bones" page: translation, rotation, scale, shear and transform inheritance).
//!
//! ## The local matrix
//! A [`LocalTransform`] `(x, y, rotation r, scale_x sx, scale_y sy, shear_x hx, shear_y hy)`
//! (angles in degrees, counter-clockwise) is the affine map whose x axis points at angle
//! `r + hx` with length `sx`, whose y axis points at angle `r + 90 + hy` with length `sy`,
//! and whose origin is `(x, y)` in the parent's frame:
//!
//! ```text
//! a = sx cos(r + hx)   b = -sy sin(r + hy)   tx = x
//! c = sx sin(r + hx)   d =  sy cos(r + hy)   ty = y
//! ```
//!
//! (`-sin(r + hy) = cos(r + 90 + hy)` is written without the 90 so that zero shear gives an
//! exact rotation.) The bone's own x axis is the bone direction: its tail is the world image
//! of `(length, 0)`.
//!
//! ## World transforms and inheritance
//! With the parent's world transform `P = [A | p]` (linear part `A`, origin `p`) and the
//! local matrix `L = [l | (x, y)]`, the bone's world origin is always `P (x, y)`: every
//! mode inherits the parent's translation, so children stay attached. The linear part is:
//!
//! | [`Inherit`] | world linear part | meaning (user guide checkboxes) |
//! |---|---|---|
//! | `Normal` | `A l` | rotation, scale, reflection and shear inherited |
//! | `OnlyTranslation` | `l` | nothing but the position inherited |
//! | `NoRotationOrReflection` | `R(φ) D R(-φ) l` | the parent's scale along its own axes, not its rotation, reflection or shear |
//! | `NoScale` | `[z, ±z⊥] K` | the parent's rotation (and reflection), not its scale |
//! | `NoScaleOrReflection` | `[z, z⊥] K` | the parent's rotation only |
//! | `ParentAngleOnly` | `R(φ) l` | the angle of the parent's x axis only (DragonBones' `inheritScale: false`) |
//!
//! where `φ = atan2(c, a)` is the world angle of the parent's x axis, `R(φ)` the rotation by
//! it and `D = diag(|A x|, |det A| / |A x|)` the parent's scale with a positive determinant
//! (when `|A x|² <= 1e-4` the y axis gives `φ` instead). For the two no-scale modes `z` is
//! the unit vector along `A (cos r, sin r)` (the parent's image of the bone's rotation
//! direction), `z⊥` it turned by 90 degrees, `-z⊥` for `NoScale` under a reflecting parent
//! (`det A < 0`), and `K` the bone's own scale and shear without its rotation
//! (`linear_part(0, scale, shear)`). A root bone's world transform is its local matrix.
//! For parents that are rotations and uniform scales every mode reduces to the plain
//! reading of the user guide's Inherit Rotation / Scale / Reflection checkboxes; the Spine
//! importer places setup poses with exactly these matrices, so clips sampled in the scene
//! move bones the way the project's setup pose was built.

use super::affine::Affine2;
use nalgebra::Vector2;

/// Which parts of the parent's world transform a bone inherits (Spine's `inherit`, called
/// `transform` in Spine 4.0 and 4.1). Translation is always inherited.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Inherit {
    /// Everything: `world = parent * local`.
    #[default]
    Normal,
    /// Only the parent's translation.
    OnlyTranslation,
    /// The parent's scale and shear, not its rotation or reflection.
    NoRotationOrReflection,
    /// The parent's rotation and reflection, not its scale.
    NoScale,
    /// The parent's rotation, not its scale or reflection.
    NoScaleOrReflection,
    /// The angle of the parent's x axis added to the bone's own rotation, nothing else of
    /// the parent's matrix: `world linear = R(φ) l`. DragonBones' `inheritScale: false`; not
    /// a Spine mode (Spine's `noScaleOrReflection` turns the bone's direction through the
    /// parent's matrix instead, which differs under non-uniformly scaled parents).
    ParentAngleOnly,
}

impl Inherit {
    /// Every mode: Spine's five in Spine's order, then [`Inherit::ParentAngleOnly`].
    pub const ALL: [Inherit; 6] = [
        Inherit::Normal,
        Inherit::OnlyTranslation,
        Inherit::NoRotationOrReflection,
        Inherit::NoScale,
        Inherit::NoScaleOrReflection,
        Inherit::ParentAngleOnly,
    ];

    /// The five modes Spine has, in Spine's order.
    pub const SPINE: [Inherit; 5] = [
        Inherit::Normal,
        Inherit::OnlyTranslation,
        Inherit::NoRotationOrReflection,
        Inherit::NoScale,
        Inherit::NoScaleOrReflection,
    ];

    /// The mode named as in Spine's JSON (`"normal"`, `"onlyTranslation"`,
    /// `"noRotationOrReflection"`, `"noScale"`, `"noScaleOrReflection"`).
    pub fn from_spine_name(name: &str) -> Option<Inherit> {
        Inherit::SPINE.into_iter().find(|m| m.spine_name() == name)
    }

    /// The mode named as in the scene file: Spine's names and `"parentAngleOnly"`.
    pub fn from_scene_name(name: &str) -> Option<Inherit> {
        Inherit::ALL.into_iter().find(|m| m.spine_name() == name)
    }

    /// The mode's name in Spine's JSON and the scene file (`"parentAngleOnly"`, which Spine
    /// lacks, only in the scene file).
    pub fn spine_name(self) -> &'static str {
        match self {
            Inherit::Normal => "normal",
            Inherit::OnlyTranslation => "onlyTranslation",
            Inherit::NoRotationOrReflection => "noRotationOrReflection",
            Inherit::NoScale => "noScale",
            Inherit::NoScaleOrReflection => "noScaleOrReflection",
            Inherit::ParentAngleOnly => "parentAngleOnly",
        }
    }

    /// The world transform of a bone with parent world `parent` and (posed) local transform
    /// `local` (see the module documentation for each mode's matrix).
    pub fn compose(self, parent: &Affine2, local: &LocalTransform) -> Affine2 {
        let origin = parent.apply(nalgebra::Point2::new(local.x, local.y));
        let lin = match self {
            Inherit::Normal => *parent * local.linear(),
            Inherit::OnlyTranslation => local.linear(),
            Inherit::NoRotationOrReflection => {
                // The parent as a rotation R(φ) times an upper-triangular scale with a
                // positive determinant: keep the scale on the parent's rotated axes
                // (R(φ) diag(|A x|, |det A| / |A x|)), take φ out of the bone's rotation.
                let p = parent;
                let s2 = p.a * p.a + p.c * p.c;
                let (pa, pb, pc, pd, phi) = if s2 > 1e-4 {
                    let s = p.determinant().abs() / s2;
                    (p.a, -p.c * s, p.c, p.a * s, p.c.atan2(p.a).to_degrees())
                } else {
                    // A collapsed x axis: the y axis gives the rotation.
                    (0.0, p.b, 0.0, p.d, 90.0 - p.d.atan2(p.b).to_degrees())
                };
                let l = linear_part(local.rotation - phi, local.scale(), local.shear());
                Affine2::new(pa, pb, pc, pd, 0.0, 0.0) * l
            }
            Inherit::ParentAngleOnly => {
                let p = parent;
                let phi = if p.a * p.a + p.c * p.c > 1e-4 {
                    p.c.atan2(p.a)
                } else {
                    // A collapsed x axis: the y axis gives the angle.
                    p.d.atan2(p.b) - std::f64::consts::FRAC_PI_2
                };
                let (sin, cos) = phi.sin_cos();
                Affine2::new(cos, -sin, sin, cos, 0.0, 0.0) * local.linear()
            }
            Inherit::NoScale | Inherit::NoScaleOrReflection => {
                // The parent's image of the bone's rotation direction, made unit length; the
                // y axis perpendicular to it, flipped when the mode keeps the parent's
                // reflection; then the bone's own scale and shear (not its rotation again).
                let (sin, cos) = local.rotation.to_radians().sin_cos();
                let p = parent;
                let mut za = p.a * cos + p.b * sin;
                let mut zc = p.c * cos + p.d * sin;
                let n = za.hypot(zc);
                if n > 1e-5 {
                    za /= n;
                    zc /= n;
                }
                let mut s = za.hypot(zc);
                if self == Inherit::NoScale && p.determinant() < 0.0 {
                    s = -s;
                }
                let r = std::f64::consts::FRAC_PI_2 + zc.atan2(za);
                let z = Affine2::new(za, r.cos() * s, zc, r.sin() * s, 0.0, 0.0);
                z * linear_part(0.0, local.scale(), local.shear())
            }
        };
        Affine2 {
            tx: origin.x,
            ty: origin.y,
            ..lin
        }
    }
}

/// A bone's setup transform relative to its parent (Spine's bone fields). Default: the
/// identity with `Inherit::Normal`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LocalTransform {
    /// Origin x in the parent's frame. Default: 0.
    pub x: f64,
    /// Origin y in the parent's frame. Default: 0.
    pub y: f64,
    /// Rotation in degrees, counter-clockwise. Default: 0.
    pub rotation: f64,
    /// Scale of the bone's x axis. Default: 1.
    pub scale_x: f64,
    /// Scale of the bone's y axis. Default: 1.
    pub scale_y: f64,
    /// Extra rotation of the x axis, degrees. Default: 0.
    pub shear_x: f64,
    /// Extra rotation of the y axis, degrees. Default: 0.
    pub shear_y: f64,
    /// What the bone inherits from its parent. Default: `Normal`.
    pub inherit: Inherit,
}

impl Default for LocalTransform {
    fn default() -> Self {
        LocalTransform {
            x: 0.0,
            y: 0.0,
            rotation: 0.0,
            scale_x: 1.0,
            scale_y: 1.0,
            shear_x: 0.0,
            shear_y: 0.0,
            inherit: Inherit::Normal,
        }
    }
}

impl LocalTransform {
    /// A translation and rotation (degrees), unit scale, no shear, `Normal`.
    pub fn new(x: f64, y: f64, rotation: f64) -> Self {
        LocalTransform {
            x,
            y,
            rotation,
            ..Default::default()
        }
    }
    /// Sets the scale.
    pub fn with_scale(mut self, scale_x: f64, scale_y: f64) -> Self {
        self.scale_x = scale_x;
        self.scale_y = scale_y;
        self
    }
    /// Sets the shear (degrees).
    pub fn with_shear(mut self, shear_x: f64, shear_y: f64) -> Self {
        self.shear_x = shear_x;
        self.shear_y = shear_y;
        self
    }
    /// Sets the inheritance mode.
    pub fn with_inherit(mut self, inherit: Inherit) -> Self {
        self.inherit = inherit;
        self
    }

    /// The fields by name, for error messages and file formats.
    pub fn fields(&self) -> [(&'static str, f64); 7] {
        [
            ("x", self.x),
            ("y", self.y),
            ("rotation", self.rotation),
            ("scale_x", self.scale_x),
            ("scale_y", self.scale_y),
            ("shear_x", self.shear_x),
            ("shear_y", self.shear_y),
        ]
    }

    /// The first field that is not finite, if any.
    pub fn non_finite_field(&self) -> Option<&'static str> {
        self.fields()
            .into_iter()
            .find(|(_, v)| !v.is_finite())
            .map(|(n, _)| n)
    }

    /// This transform with a pose's offsets applied: rotation, translation and shear added,
    /// scale multiplied (Spine's animated local = setup + offsets).
    pub fn offset(&self, by: &BoneOffset) -> LocalTransform {
        LocalTransform {
            x: self.x + by.translation.x,
            y: self.y + by.translation.y,
            rotation: self.rotation + by.rotation,
            scale_x: self.scale_x * by.scale.x,
            scale_y: self.scale_y * by.scale.y,
            shear_x: self.shear_x + by.shear.x,
            shear_y: self.shear_y + by.shear.y,
            inherit: self.inherit,
        }
    }

    /// The local matrix (see the module documentation).
    pub fn matrix(&self) -> Affine2 {
        let mut m = linear_part(self.rotation, self.scale(), self.shear());
        m.tx = self.x;
        m.ty = self.y;
        m
    }

    /// The local matrix without its translation.
    pub fn linear(&self) -> Affine2 {
        linear_part(self.rotation, self.scale(), self.shear())
    }

    fn scale(&self) -> Vector2<f64> {
        Vector2::new(self.scale_x, self.scale_y)
    }
    fn shear(&self) -> Vector2<f64> {
        Vector2::new(self.shear_x, self.shear_y)
    }
}

/// `x axis = sx (cos(r + hx), sin(r + hx))`, `y axis = sy (-sin(r + hy), cos(r + hy))`.
pub(crate) fn linear_part(
    rotation: f64,
    scale: impl Into<Vector2<f64>>,
    shear: Vector2<f64>,
) -> Affine2 {
    let scale = scale.into();
    Affine2::from_axis_angles(
        (rotation + shear.x).to_radians(),
        (rotation + shear.y).to_radians(),
        scale.x,
        scale.y,
        0.0,
        0.0,
    )
}

/// A pose's offsets for one bone, relative to its setup transform.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoneOffset {
    /// Degrees added to the rotation.
    pub rotation: f64,
    /// Added to the origin, in the parent's frame.
    pub translation: Vector2<f64>,
    /// Multiplies the setup scale.
    pub scale: Vector2<f64>,
    /// Degrees added to the shear.
    pub shear: Vector2<f64>,
}

impl Default for BoneOffset {
    fn default() -> Self {
        BoneOffset {
            rotation: 0.0,
            translation: Vector2::zeros(),
            scale: Vector2::new(1.0, 1.0),
            shear: Vector2::zeros(),
        }
    }
}
