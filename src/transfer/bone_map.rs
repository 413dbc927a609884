//! Which scene bone takes each source bone's weight: the bone of the same name when the
//! target is bound to it; else, for a target with known bones, the target bone most like it
//! by rest position, hierarchy depth and name ([`bone_map_cost`]), one to one first.

use super::closest::Hit;
use super::TransferSource;
use crate::geometry::Bounds;
use crate::skeleton::{Bone, Skeleton};

/// Where each source bone's weight goes.
#[derive(Debug, Clone, PartialEq)]
pub struct BonePlan {
    /// Per source bone: the scene bone that takes its weight, `None` for none.
    pub to_scene: Vec<Option<usize>>,
    /// Source bones given to a scene bone of another name: (source, scene).
    pub mapped: Vec<(String, String)>,
    /// Weighted source bones with no counterpart.
    pub unmapped: Vec<String>,
}

impl BonePlan {
    /// The plan for the source bones `used` (flags per bone of `source`) onto `scene`, whose
    /// target is bound to `target` (scene indices; `None`: keep every bone found by name).
    pub fn new(
        source: &Skeleton,
        used: &[bool],
        scene: &Skeleton,
        target: Option<&[usize]>,
        max_cost: f64,
    ) -> BonePlan {
        let by_name: Vec<Option<usize>> = source
            .bones()
            .iter()
            .map(|b| scene.index_of(&b.name))
            .collect();
        let mut plan = BonePlan {
            to_scene: vec![None; source.len()],
            mapped: Vec::new(),
            unmapped: Vec::new(),
        };
        let Some(target) = target else {
            plan.to_scene = by_name;
            plan.unmapped = unmapped(source, used, &plan.to_scene);
            return plan;
        };
        let mut covered = vec![false; scene.len()];
        let mut pending = Vec::new();
        for s in (0..source.len()).filter(|&s| used[s]) {
            match by_name[s].filter(|j| target.contains(j)) {
                Some(j) => {
                    plan.to_scene[s] = Some(j);
                    covered[j] = true;
                }
                None => pending.push(s),
            }
        }
        let diag = skeleton_diagonal(scene);
        let depth_s = depths(source);
        let depth_t = depths(scene);
        let cost = |s: usize, t: usize| {
            bone_map_cost(
                &source.bones()[s],
                depth_s[s],
                &scene.bones()[t],
                depth_t[t],
                diag,
            )
        };
        let mut pairs: Vec<(f64, usize, usize)> = pending
            .iter()
            .flat_map(|&s| target.iter().map(move |&t| (s, t)))
            .map(|(s, t)| (cost(s, t), s, t))
            .filter(|&(c, _, _)| c <= max_cost)
            .collect();
        pairs.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        // One to one onto the bones no source bone covers, then the rest onto any target bone.
        for free_only in [true, false] {
            for &(_, s, t) in &pairs {
                if plan.to_scene[s].is_some() || (free_only && covered[t]) {
                    continue;
                }
                plan.to_scene[s] = Some(t);
                covered[t] = true;
                plan.mapped.push((
                    source.bones()[s].name.clone(),
                    scene.bones()[t].name.clone(),
                ));
            }
        }
        plan.unmapped = unmapped(source, used, &plan.to_scene);
        plan
    }

    /// Adds the source weights at `hit` into `row` (scene bones, then one last column for the
    /// share of bones with no counterpart).
    pub(super) fn interpolate(&self, source: &TransferSource, hit: &Hit, row: &mut [f64]) {
        let nb = row.len() - 1;
        let corners = source.triangles[hit.triangle];
        for (k, &c) in corners.iter().enumerate() {
            let b = hit.bary[k];
            if b == 0.0 {
                continue;
            }
            for (s, &w) in source.weights.row(c).iter().enumerate() {
                if w != 0.0 {
                    let col = self.to_scene[s].unwrap_or(nb);
                    row[col] += b * w;
                }
            }
        }
    }
}

fn unmapped(source: &Skeleton, used: &[bool], to_scene: &[Option<usize>]) -> Vec<String> {
    (0..source.len())
        .filter(|&s| used[s] && to_scene[s].is_none())
        .map(|s| source.bones()[s].name.clone())
        .collect()
}

/// How unlike two bones are, 0 for the same bone: four times the mean distance of their
/// heads and tails over the skeleton's diagonal, plus the difference of their depths in the
/// hierarchy over the deeper depth plus one, plus the edit distance of their names
/// (lower case) over the longer name.
pub fn bone_map_cost(a: &Bone, depth_a: usize, b: &Bone, depth_b: usize, diag: f64) -> f64 {
    let position = ((a.head - b.head).norm() + (a.tail - b.tail).norm()) / 2.0 / diag.max(1e-12);
    let depth = depth_a.abs_diff(depth_b) as f64 / (1 + depth_a.max(depth_b)) as f64;
    4.0 * position + depth + name_distance(&a.name, &b.name)
}

fn skeleton_diagonal(s: &Skeleton) -> f64 {
    let points: Vec<_> = s.bones().iter().flat_map(|b| [b.head, b.tail]).collect();
    Bounds::of(points.iter()).size().norm()
}

fn depths(s: &Skeleton) -> Vec<usize> {
    let mut d = vec![0; s.len()];
    for &j in s.topological_order() {
        if let Some(p) = s.bones()[j].parent {
            d[j] = d[p] + 1;
        }
    }
    d
}

/// Levenshtein distance of the lower-case names over the longer name's length.
fn name_distance(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let longest = a.len().max(b.len());
    if longest == 0 {
        return 0.0;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()] as f64 / longest as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Point2;

    #[test]
    fn names_differ_by_their_edit_distance() {
        assert_eq!(name_distance("base-angry", "base-angry"), 0.0);
        assert_eq!(name_distance("Arm", "arm"), 0.0);
        assert!((name_distance("base-angry", "base-happy") - 0.4).abs() < 1e-12);
        assert_eq!(name_distance("", ""), 0.0);
    }

    #[test]
    fn a_renamed_bone_at_the_same_place_maps_and_a_far_one_does_not() {
        let bone = |n: &str, x: f64| Bone::new(n, Point2::new(x, 0.0), Point2::new(x + 10.0, 0.0));
        let source =
            Skeleton::new(vec![bone("root", 0.0), bone("l_arm", 10.0).with_parent(0)]).unwrap();
        let scene = Skeleton::new(vec![
            bone("root", 0.0),
            bone("arm_l", 10.0).with_parent(0),
            bone("tail", 90.0).with_parent(0),
        ])
        .unwrap();
        let plan = BonePlan::new(&source, &[true, true], &scene, Some(&[0, 1]), 1.0);
        assert_eq!(plan.to_scene, vec![Some(0), Some(1)]);
        assert_eq!(
            plan.mapped,
            vec![("l_arm".to_string(), "arm_l".to_string())]
        );
        let plan = BonePlan::new(&source, &[true, true], &scene, Some(&[0, 2]), 1.0);
        assert_eq!(plan.to_scene, vec![Some(0), None]);
        assert_eq!(plan.unmapped, vec!["l_arm".to_string()]);
    }
}
