//! Triangulating what Godot stores as polygons: each entry of a Polygon2D's `polygons` is an
//! n-gon that Godot ear-clips when drawing (`Geometry2D::triangulate_polygon`), and a
//! Polygon2D without `polygons` is its outline, ear-clipped, with its internal vertices
//! then inserted by splitting the triangle (or the edge) they fall on.

use crate::geometry::signed_area2;
use nalgebra::Point2;

/// Ear clipping of a simple polygon given by `points` (either orientation; repeated or
/// collinear corners allowed). Triangles are indices into `points`, counter-clockwise in the
/// frame of `points`. `None` when no ear can be found (the polygon crosses itself).
pub fn ear_clip(points: &[Point2<f64>]) -> Option<Vec<[usize; 3]>> {
    let n = points.len();
    if n < 3 {
        return None;
    }
    let area: f64 = (0..n)
        .map(|i| {
            let (a, b) = (points[i], points[(i + 1) % n]);
            a.x * b.y - b.x * a.y
        })
        .sum();
    // Work counter-clockwise.
    let mut ring: Vec<usize> = if area >= 0.0 {
        (0..n).collect()
    } else {
        (0..n).rev().collect()
    };
    let mut out = Vec::with_capacity(n - 2);
    let convex =
        |a: usize, b: usize, c: usize| signed_area2(&points[a], &points[b], &points[c]) > 0.0;
    while ring.len() > 3 {
        let m = ring.len();
        let mut clipped = false;
        for i in 0..m {
            let (a, b, c) = (ring[(i + m - 1) % m], ring[i], ring[(i + 1) % m]);
            if !convex(a, b, c) {
                continue;
            }
            let blocked = ring.iter().any(|&p| {
                p != a
                    && p != b
                    && p != c
                    && points[p] != points[a]
                    && points[p] != points[b]
                    && points[p] != points[c]
                    && inside_or_on(&points[p], &points[a], &points[b], &points[c])
            });
            if blocked {
                continue;
            }
            out.push([a, b, c]);
            ring.remove(i);
            clipped = true;
            break;
        }
        if !clipped {
            // Only flat corners left (collinear or repeated points): drop one without a
            // triangle; the caller reports vertices no triangle uses.
            let i = (0..m).find(|&i| {
                let (a, b, c) = (ring[(i + m - 1) % m], ring[i], ring[(i + 1) % m]);
                signed_area2(&points[a], &points[b], &points[c]) == 0.0
            })?;
            ring.remove(i);
        }
    }
    if convex(ring[0], ring[1], ring[2]) {
        out.push([ring[0], ring[1], ring[2]]);
    }
    Some(out)
}

fn inside_or_on(p: &Point2<f64>, a: &Point2<f64>, b: &Point2<f64>, c: &Point2<f64>) -> bool {
    signed_area2(a, b, p) >= 0.0 && signed_area2(b, c, p) >= 0.0 && signed_area2(c, a, p) >= 0.0
}

/// Inserts each vertex of `extra` (indices into `points`) into the counter-clockwise
/// triangulation `triangles`: a point inside a triangle splits it in three, a point on an
/// edge splits the triangles on both sides in two. Returns the first vertex that lies in no
/// triangle, if any.
pub fn insert_points(
    points: &[Point2<f64>],
    triangles: &mut Vec<[usize; 3]>,
    extra: &[usize],
) -> std::result::Result<(), usize> {
    for &v in extra {
        let p = points[v];
        let Some(t) = triangles
            .iter()
            .position(|&[a, b, c]| inside_or_on(&p, &points[a], &points[b], &points[c]))
        else {
            return Err(v);
        };
        let [a, b, c] = triangles[t];
        let on = [(a, b), (b, c), (c, a)]
            .into_iter()
            .position(|(i, j)| signed_area2(&points[i], &points[j], &p) == 0.0);
        match on {
            None => {
                triangles[t] = [a, b, v];
                triangles.push([b, c, v]);
                triangles.push([c, a, v]);
            }
            Some(e) => {
                // Split this triangle and its neighbour across edge (i, j) in two each.
                let tri = triangles[t];
                let (i, j, k) = (tri[e], tri[(e + 1) % 3], tri[(e + 2) % 3]);
                triangles[t] = [i, v, k];
                triangles.push([v, j, k]);
                if let Some(u) = triangles
                    .iter()
                    .position(|tr| (0..3).any(|q| tr[q] == j && tr[(q + 1) % 3] == i))
                {
                    let tr = triangles[u];
                    let q = (0..3).find(|&q| tr[q] == j).unwrap_or(0);
                    let l = tr[(q + 2) % 3];
                    triangles[u] = [j, v, l];
                    triangles.push([v, i, l]);
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn area(points: &[Point2<f64>], tris: &[[usize; 3]]) -> f64 {
        tris.iter()
            .map(|[a, b, c]| {
                let s = signed_area2(&points[*a], &points[*b], &points[*c]);
                assert!(s > 0.0);
                0.5 * s
            })
            .sum()
    }

    #[test]
    fn clips_a_concave_polygon_in_both_orientations() {
        // An L shape of area 3.
        let l: Vec<Point2<f64>> = [(0., 0.), (2., 0.), (2., 1.), (1., 1.), (1., 2.), (0., 2.)]
            .iter()
            .map(|&(x, y)| Point2::new(x, y))
            .collect();
        let t = ear_clip(&l).unwrap();
        assert_eq!(t.len(), 4);
        assert!((area(&l, &t) - 3.0).abs() < 1e-12);
        let rev: Vec<_> = l.iter().rev().copied().collect();
        let t = ear_clip(&rev).unwrap();
        assert!((area(&rev, &t) - 3.0).abs() < 1e-12);
    }

    #[test]
    fn inserts_interior_and_edge_points() {
        let mut p: Vec<Point2<f64>> = [(0., 0.), (2., 0.), (2., 2.), (0., 2.)]
            .iter()
            .map(|&(x, y)| Point2::new(x, y))
            .collect();
        let mut t = ear_clip(&p).unwrap();
        p.push(Point2::new(0.5, 1.2));
        p.push(Point2::new(1.0, 0.0));
        insert_points(&p, &mut t, &[4, 5]).unwrap();
        assert_eq!(t.len(), 2 + 2 + 1);
        assert!((area(&p, &t) - 4.0).abs() < 1e-12);
        p.push(Point2::new(5.0, 5.0));
        assert_eq!(insert_points(&p, &mut t, &[6]), Err(6));
    }
}
