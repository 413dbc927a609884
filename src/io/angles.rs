//! Angles as the file formats store them: degrees, wrapped to one turn.

/// `d` degrees wrapped into `(-180, 180]`: `d` minus the nearest whole number of turns,
/// computed exactly (the subtraction loses no bits), with `-180` taken as `180`.
///
/// A format whose angles run over `[-180, 180)` takes `-wrap_degrees(-d)`.
pub(crate) fn wrap_degrees(d: f64) -> f64 {
    let w = d - 360.0 * (d / 360.0).round();
    if w <= -180.0 {
        w + 360.0
    } else {
        w
    }
}

/// The same range as [`wrap_degrees`], through `d mod 360` in `[0, 360)`: a negative `d`
/// becomes `d + 360` rounded, so the result can differ from [`wrap_degrees`] in the last
/// bits. The glTF importer's clip angles are computed with it, and its scenes are kept bit
/// for bit.
pub(crate) fn wrap_degrees_euclid(d: f64) -> f64 {
    let y = d.rem_euclid(360.0);
    if y > 180.0 {
        y - 360.0
    } else {
        y
    }
}

#[cfg(test)]
mod tests {
    use super::{wrap_degrees, wrap_degrees_euclid};

    #[test]
    fn wraps_into_one_turn() {
        assert_eq!(wrap_degrees(190.0), -170.0);
        assert_eq!(wrap_degrees(-180.0), 180.0);
        assert_eq!(wrap_degrees(180.0), 180.0);
        assert_eq!(wrap_degrees(-10.3), -10.3);
        assert_eq!(wrap_degrees(720.5), 0.5);
        assert_eq!(-wrap_degrees(180.0), -180.0);
        assert_eq!(wrap_degrees_euclid(190.0), -170.0);
        assert_eq!(wrap_degrees_euclid(-180.0), 180.0);
        assert!((wrap_degrees_euclid(-10.3) - -10.3).abs() < 1e-12);
    }
}
