//! 2D affine transforms: the world and skinning transforms of bones that scale and shear.
//!
//! An [`Affine2`] maps `(x, y)` to `(a x + b y + tx, c x + d y + ty)`: the columns `(a, c)` and
//! `(b, d)` are the images of the x and y axes, `(tx, ty)` the image of the origin (Spine's
//! `a, b, c, d, worldX, worldY`). Rigid transforms ([`Isometry2`]) convert exactly.

use crate::error::{Error, Result, SkeletonError};
use nalgebra::{Isometry2, Point2, Vector2};
use std::ops::Mul;

/// A 2D affine transform `x' = a x + b y + tx`, `y' = c x + d y + ty`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Affine2 {
    /// Row 1, column 1: x' per unit x.
    pub a: f64,
    /// Row 1, column 2: x' per unit y.
    pub b: f64,
    /// Row 2, column 1: y' per unit x.
    pub c: f64,
    /// Row 2, column 2: y' per unit y.
    pub d: f64,
    /// Translation in x (image of the origin).
    pub tx: f64,
    /// Translation in y (image of the origin).
    pub ty: f64,
}

impl Default for Affine2 {
    fn default() -> Self {
        Affine2::IDENTITY
    }
}

impl Affine2 {
    /// The identity transform.
    pub const IDENTITY: Affine2 = Affine2 {
        a: 1.0,
        b: 0.0,
        c: 0.0,
        d: 1.0,
        tx: 0.0,
        ty: 0.0,
    };

    /// The identity transform.
    pub fn identity() -> Self {
        Affine2::IDENTITY
    }

    /// A transform from its six entries.
    pub fn new(a: f64, b: f64, c: f64, d: f64, tx: f64, ty: f64) -> Self {
        Affine2 { a, b, c, d, tx, ty }
    }

    /// A pure translation.
    pub fn translation(tx: f64, ty: f64) -> Self {
        Affine2 {
            tx,
            ty,
            ..Affine2::IDENTITY
        }
    }

    /// The same map as a rigid transform: `a = d = cos θ`, `c = -b = sin θ`.
    pub fn from_isometry(iso: &Isometry2<f64>) -> Self {
        let (re, im) = (iso.rotation.re, iso.rotation.im);
        Affine2 {
            a: re,
            b: -im,
            c: im,
            d: re,
            tx: iso.translation.x,
            ty: iso.translation.y,
        }
    }

    /// Rotation, scale and skew: the x axis `sx (cos θx, sin θx)`, the y axis
    /// `sy (-sin θy, cos θy)` and the origin `(tx, ty)`, angles in radians (skew = `θy - θx`).
    /// Spine's, DragonBones' and Godot's local transforms are all this composition.
    pub fn from_axis_angles(
        x_angle: f64,
        y_angle: f64,
        sx: f64,
        sy: f64,
        tx: f64,
        ty: f64,
    ) -> Self {
        let (sin_x, cos_x) = x_angle.sin_cos();
        let (sin_y, cos_y) = y_angle.sin_cos();
        Affine2 {
            a: sx * cos_x,
            b: -sy * sin_y,
            c: sx * sin_x,
            d: sy * cos_y,
            tx,
            ty,
        }
    }

    /// The entries as `[a, b, c, d, tx, ty]` (the order `pose --json` prints).
    pub fn to_array(&self) -> [f64; 6] {
        [self.a, self.b, self.c, self.d, self.tx, self.ty]
    }

    /// The transform from `[a, b, c, d, tx, ty]`.
    pub fn from_array(m: [f64; 6]) -> Self {
        Affine2::new(m[0], m[1], m[2], m[3], m[4], m[5])
    }

    /// `a d - b c`: the factor areas are multiplied by (negative = reflection).
    pub fn determinant(&self) -> f64 {
        self.a * self.d - self.b * self.c
    }

    /// Whether all six entries are finite.
    pub fn is_finite(&self) -> bool {
        self.to_array().iter().all(|v| v.is_finite())
    }

    /// The image of a point.
    pub fn apply(&self, p: Point2<f64>) -> Point2<f64> {
        Point2::new(
            self.a * p.x + self.b * p.y + self.tx,
            self.c * p.x + self.d * p.y + self.ty,
        )
    }

    /// The image of a direction (the linear part only).
    pub fn apply_vector(&self, v: Vector2<f64>) -> Vector2<f64> {
        Vector2::new(self.a * v.x + self.b * v.y, self.c * v.x + self.d * v.y)
    }

    /// The inverse transform. A transform whose determinant is 0 or not finite, or whose
    /// inverse overflows, is an [`SkeletonError::SingularTransform`].
    pub fn inverse(&self) -> Result<Affine2> {
        let det = self.determinant();
        let singular = || {
            Error::Skeleton(SkeletonError::SingularTransform {
                context: "affine transform".into(),
                determinant: det,
            })
        };
        if det == 0.0 || !det.is_finite() {
            return Err(singular());
        }
        let inv = self.inverse_unchecked();
        if inv.is_finite() {
            Ok(inv)
        } else {
            Err(singular())
        }
    }

    /// The inverse's arithmetic without [`Affine2::inverse`]'s checks: callers test the
    /// determinant with their own threshold.
    pub(crate) fn inverse_unchecked(&self) -> Affine2 {
        let det = self.determinant();
        let (a, b, c, d) = (self.d / det, -self.b / det, -self.c / det, self.a / det);
        Affine2 {
            a,
            b,
            c,
            d,
            tx: -(a * self.tx + b * self.ty),
            ty: -(c * self.tx + d * self.ty),
        }
    }

    /// The largest absolute difference between corresponding entries.
    pub fn max_difference(&self, other: &Affine2) -> f64 {
        self.to_array()
            .iter()
            .zip(other.to_array())
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f64::max)
    }
}

impl Mul for Affine2 {
    type Output = Affine2;
    /// Composition: `(self * rhs).apply(p) == self.apply(rhs.apply(p))`.
    fn mul(self, r: Affine2) -> Affine2 {
        Affine2 {
            a: self.a * r.a + self.b * r.c,
            b: self.a * r.b + self.b * r.d,
            c: self.c * r.a + self.d * r.c,
            d: self.c * r.b + self.d * r.d,
            tx: self.a * r.tx + self.b * r.ty + self.tx,
            ty: self.c * r.tx + self.d * r.ty + self.ty,
        }
    }
}

impl Mul<Point2<f64>> for Affine2 {
    type Output = Point2<f64>;
    fn mul(self, p: Point2<f64>) -> Point2<f64> {
        self.apply(p)
    }
}

impl Mul<Point2<f64>> for &Affine2 {
    type Output = Point2<f64>;
    fn mul(self, p: Point2<f64>) -> Point2<f64> {
        self.apply(p)
    }
}

impl From<Isometry2<f64>> for Affine2 {
    fn from(iso: Isometry2<f64>) -> Self {
        Affine2::from_isometry(&iso)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn composition_inverse_and_isometry_agree() {
        let iso = Isometry2::new(Vector2::new(3.0, -2.0), 0.7);
        let m = Affine2::from_isometry(&iso);
        let p = Point2::new(1.25, -4.5);
        assert!((m.apply(p) - iso * p).norm() < 1e-15);
        assert!((m.determinant() - 1.0).abs() < 1e-15);
        let s = Affine2::new(2.0, 0.5, -0.25, 3.0, 1.0, 7.0);
        let back = (s * m).inverse().unwrap() * (s * m);
        assert!(back.max_difference(&Affine2::IDENTITY) < 1e-14);
        assert!(((s * m).apply(p) - s.apply(m.apply(p))).norm() < 1e-13);
    }

    #[test]
    fn singular_inverse_is_an_error() {
        let flat = Affine2::new(1.0, 2.0, 2.0, 4.0, 0.0, 0.0);
        match flat.inverse() {
            Err(Error::Skeleton(SkeletonError::SingularTransform { determinant, .. })) => {
                assert_eq!(determinant, 0.0)
            }
            other => panic!("{other:?}"),
        }
        let huge = Affine2::new(1e308, 0.0, 0.0, 1e308, 0.0, 0.0);
        assert!(matches!(
            huge.inverse(),
            Err(Error::Skeleton(SkeletonError::SingularTransform { .. }))
        ));
    }
}
