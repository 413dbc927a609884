//! Interpolation curves: how a channel moves from one key to the next.
//!
//! A curve maps the segment's normalized time `u = (t - t_i) / (t_{i+1} - t_i)` in `[0, 1]`
//! to the fraction `f(u)` of the way from the key's value to the next key's value:
//! `v(t) = v_i + (v_{i+1} - v_i) f(u)`. Every curve has `f(0) = 0`; all but `Stepped` have
//! `f(1) = 1` (a stepped segment holds `v_i` until the next key).
//!
//! | curve | `f(u)` |
//! |---|---|
//! | `Stepped` | 0 |
//! | `Linear` | u |
//! | `Bezier {x1, y1, x2, y2}` | the cubic Bézier through (0,0), (x1,y1), (x2,y2), (1,1): `y(s)` where `x(s) = u`, `x(s) = 3(1-s)²s x1 + 3(1-s)s² x2 + s³` (same for y); solved to 1e-14 in `s` |
//! | `EaseIn` | u² |
//! | `EaseOut` | 1 - (1-u)² |
//! | `EaseInOut` | 2u² for u < 1/2, 1 - 2(1-u)² otherwise |
//! | `Bounce` | Penner's ease-out bounce with n = 7.5625, d = 2.75: `n u²` for u < 1/d, `n (u - 1.5/d)² + 0.75` for u < 2/d, `n (u - 2.25/d)² + 0.9375` for u < 2.5/d, else `n (u - 2.625/d)² + 0.984375` |
//! | `Back` | Penner's ease-out back with s = 1.70158: `1 + (s+1)(u-1)³ + s(u-1)²` (overshoots by 10 % and settles) |
//! | `GodotEase(c)` | Godot's `ease(u, c)`: `u^c` for c >= 1 (ease in), `1 - (1-u)^(1/c)` for 0 < c < 1 (ease out), 0 for c = 0 (constant), and for c < 0 in-out: `(2u)^-c / 2` for u < 1/2, `1 - (2(1-u))^-c / 2` otherwise |
//!
//! The presets (ease-in, ease-out, ease-in-out, bounce, back) are known by name, not formula;
//! the table gives the definitions used (Robert Penner's quadratic, bounce and back easings,
//! the ones animation tools and CSS libraries call by these names). Bézier control points are
//! normalized to the segment: a Spine 4 `curve` array holds the absolute (time, value) of the
//! two control points and converts with [`Curve::from_absolute_bezier`]; a DragonBones `curve`
//! array is already normalized.

/// How a channel moves from a key to the next (see the module documentation for formulas).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Curve {
    /// Holds the key's value until the next key.
    Stepped,
    /// Straight line to the next key. The default.
    #[default]
    Linear,
    /// Cubic Bézier timing curve normalized to the segment: control points `(x1, y1)` and
    /// `(x2, y2)`, with `x1, x2` in `[0, 1]` (so time moves forward); `y` may overshoot.
    Bezier {
        /// Time of the first control point, in `[0, 1]`.
        x1: f64,
        /// Value fraction of the first control point.
        y1: f64,
        /// Time of the second control point, in `[0, 1]`.
        x2: f64,
        /// Value fraction of the second control point.
        y2: f64,
    },
    /// A named easing preset.
    Easing(Easing),
    /// Godot's transition exponent (`ease(u, c)`).
    GodotEase(f64),
}

/// The usual easing presets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Easing {
    /// Quadratic ease in: `u²`.
    EaseIn,
    /// Quadratic ease out: `1 - (1-u)²`.
    EaseOut,
    /// Quadratic ease in-out.
    EaseInOut,
    /// Ease-out bounce (Penner).
    Bounce,
    /// Ease-out back (Penner, overshoot 1.70158).
    Back,
}

impl Easing {
    /// Every preset.
    pub const ALL: [Easing; 5] = [
        Easing::EaseIn,
        Easing::EaseOut,
        Easing::EaseInOut,
        Easing::Bounce,
        Easing::Back,
    ];

    /// The preset's name in scene files: `ease-in`, `ease-out`, `ease-in-out`, `bounce`,
    /// `back`.
    pub fn name(self) -> &'static str {
        match self {
            Easing::EaseIn => "ease-in",
            Easing::EaseOut => "ease-out",
            Easing::EaseInOut => "ease-in-out",
            Easing::Bounce => "bounce",
            Easing::Back => "back",
        }
    }

    /// The preset called `name`.
    pub fn from_name(name: &str) -> Option<Easing> {
        Easing::ALL.into_iter().find(|e| e.name() == name)
    }

    /// `f(u)` for `u` in `[0, 1]` (exactly 0 at `u <= 0` and 1 at `u >= 1`, where the
    /// formulas would leave rounding residue).
    pub fn eval(self, u: f64) -> f64 {
        if u <= 0.0 {
            return 0.0;
        }
        if u >= 1.0 {
            return 1.0;
        }
        match self {
            Easing::EaseIn => u * u,
            Easing::EaseOut => 1.0 - (1.0 - u) * (1.0 - u),
            Easing::EaseInOut => {
                if u < 0.5 {
                    2.0 * u * u
                } else {
                    1.0 - 2.0 * (1.0 - u) * (1.0 - u)
                }
            }
            Easing::Bounce => {
                const N: f64 = 7.5625;
                const D: f64 = 2.75;
                if u < 1.0 / D {
                    N * u * u
                } else if u < 2.0 / D {
                    let v = u - 1.5 / D;
                    N * v * v + 0.75
                } else if u < 2.5 / D {
                    let v = u - 2.25 / D;
                    N * v * v + 0.9375
                } else {
                    let v = u - 2.625 / D;
                    N * v * v + 0.984375
                }
            }
            Easing::Back => {
                const S: f64 = 1.70158;
                let v = u - 1.0;
                1.0 + (S + 1.0) * v * v * v + S * v * v
            }
        }
    }
}

/// Tolerance on `x(s) = u` when solving a Bézier timing curve.
pub const BEZIER_TOLERANCE: f64 = 1e-14;

impl Curve {
    /// The fraction `f(u)` of the way to the next key at normalized time `u` (clamped to
    /// `[0, 1]`).
    pub fn eval(&self, u: f64) -> f64 {
        // Exactly the key's value at the key (Back's formula would leave 2e-16).
        if u <= 0.0 || u.is_nan() {
            return 0.0;
        }
        let u = u.min(1.0);
        match *self {
            Curve::Stepped => {
                if u >= 1.0 {
                    1.0
                } else {
                    0.0
                }
            }
            Curve::Linear => u,
            Curve::Bezier { x1, y1, x2, y2 } => {
                let s = bezier_parameter(x1, x2, u);
                bezier(y1, y2, s)
            }
            Curve::Easing(e) => e.eval(u),
            Curve::GodotEase(c) => godot_ease(u, c),
        }
    }

    /// A Spine 4 Bézier segment from key `(t0, v0)` to key `(t1, v1)` with absolute control
    /// points `[cx1, cy1, cx2, cy2]`, normalized. `None` when the segment has no length in
    /// time; a segment whose two values are equal has no normalized form (the curve may
    /// still bulge between them) and becomes `Linear`, with `false` in the second place.
    pub fn from_absolute_bezier(
        t0: f64,
        v0: f64,
        t1: f64,
        v1: f64,
        c: [f64; 4],
    ) -> Option<(Curve, bool)> {
        let dt = t1 - t0;
        if dt.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
            return None;
        }
        let dv = v1 - v0;
        if dv == 0.0 {
            return Some((Curve::Linear, false));
        }
        Some((
            Curve::Bezier {
                x1: (c[0] - t0) / dt,
                y1: (c[1] - v0) / dv,
                x2: (c[2] - t0) / dt,
                y2: (c[3] - v0) / dv,
            },
            true,
        ))
    }
}

/// One coordinate of the cubic Bézier from 0 to 1 with control values `p1`, `p2`.
pub fn bezier(p1: f64, p2: f64, s: f64) -> f64 {
    let r = 1.0 - s;
    3.0 * r * r * s * p1 + 3.0 * r * s * s * p2 + s * s * s
}

fn bezier_slope(p1: f64, p2: f64, s: f64) -> f64 {
    let r = 1.0 - s;
    3.0 * r * r * p1 + 6.0 * r * s * (p2 - p1) + 3.0 * s * s * (1.0 - p2)
}

/// The parameter `s` in `[0, 1]` with `x(s) = u`, for `x1, x2` in `[0, 1]` (where `x` is
/// non-decreasing): Newton steps kept inside a shrinking bisection bracket, to
/// [`BEZIER_TOLERANCE`].
pub fn bezier_parameter(x1: f64, x2: f64, u: f64) -> f64 {
    let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
    let mut s = u;
    for _ in 0..200 {
        let x = bezier(x1, x2, s) - u;
        if x.abs() <= BEZIER_TOLERANCE {
            return s;
        }
        if x < 0.0 {
            lo = s;
        } else {
            hi = s;
        }
        let slope = bezier_slope(x1, x2, s);
        let next = if slope > 1e-12 {
            s - x / slope
        } else {
            f64::NAN
        };
        s = if next > lo && next < hi {
            next
        } else {
            0.5 * (lo + hi)
        };
        if hi - lo <= f64::EPSILON {
            return s;
        }
    }
    s
}

/// Godot's `ease(x, c)` (its documented transition exponent), for `x` in `[0, 1]`.
pub fn godot_ease(x: f64, c: f64) -> f64 {
    let x = x.clamp(0.0, 1.0);
    if c > 0.0 {
        if c < 1.0 {
            1.0 - (1.0 - x).powf(1.0 / c)
        } else {
            x.powf(c)
        }
    } else if c < 0.0 {
        if x < 0.5 {
            (x * 2.0).powf(-c) * 0.5
        } else {
            (1.0 - (1.0 - (x - 0.5) * 2.0).powf(-c)) * 0.5 + 0.5
        }
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_and_presets() {
        for e in Easing::ALL {
            assert_eq!(e.eval(0.0), 0.0, "{e:?}");
            assert!((e.eval(1.0) - 1.0).abs() < 1e-12, "{e:?}");
        }
        assert!((Easing::Back.eval(0.7) - 1.0) > 0.0); // overshoot
        let b = Curve::Bezier {
            x1: 0.25,
            y1: 0.1,
            x2: 0.25,
            y2: 1.0,
        };
        assert_eq!(b.eval(0.0), 0.0);
        assert!((b.eval(1.0) - 1.0).abs() < 1e-12);
        // The linear Bézier is the identity.
        let lin = Curve::Bezier {
            x1: 1.0 / 3.0,
            y1: 1.0 / 3.0,
            x2: 2.0 / 3.0,
            y2: 2.0 / 3.0,
        };
        for i in 0..=10 {
            let u = i as f64 / 10.0;
            assert!((lin.eval(u) - u).abs() < 1e-12);
        }
        assert_eq!(godot_ease(0.5, 2.0), 0.25);
        assert_eq!(godot_ease(0.5, 0.0), 0.0);
        assert!((godot_ease(0.25, -2.0) - 0.125).abs() < 1e-15);
    }

    #[test]
    fn flat_bezier_ends_are_solved() {
        // x1 = 0 and x2 = 1: x'(0) = x'(1) = 0, where Newton alone stalls.
        for i in 0..=1000 {
            let u = i as f64 / 1000.0;
            let s = bezier_parameter(0.0, 1.0, u);
            assert!((bezier(0.0, 1.0, s) - u).abs() <= 1e-12, "u {u}");
        }
    }
}
