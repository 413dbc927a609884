//! **mask** (`SOLVER+mask`; plain `mask` is `euclidean+mask`): part-restricted masking around
//! any solver.
//!
//! Bone `j` may only influence vertices whose part is in its *allowed parts*: its
//! `influences` when given, otherwise its own part and the parts of all its descendants (so a
//! child never reaches back into its parent's part). A bone that names neither a part nor
//! influences is not restricted. Masked rows are renormalized; a row left empty goes wholly to
//! the nearest bone allowed for that vertex's part, and a part that no bone may influence
//! keeps the inner solver's row (with a warning naming the part).

use super::distance::bone_segments;
use super::{finish, Solution, SolveWarning, Solver};
use crate::error::Result;
use crate::scene::Scene;
use crate::weights::Weights;
use rayon::prelude::*;
use std::time::Instant;

/// Masking around an inner solver.
pub struct Masked {
    inner: Box<dyn Solver>,
}

impl Masked {
    /// Masks the output of `inner`.
    pub fn new(inner: Box<dyn Solver>) -> Self {
        Masked { inner }
    }
}

/// `allowed[j][part]`: whether bone `j` may influence vertices of `part`.
pub fn allowed_parts(scene: &Scene) -> Vec<Vec<bool>> {
    let bones = scene.skeleton.bones();
    let n_parts = scene.mesh.parts().len();
    let own = scene.bone_parts();
    let mut allowed = vec![vec![false; n_parts]; bones.len()];
    for (j, b) in bones.iter().enumerate() {
        match (&b.influences, own[j]) {
            (Some(list), _) => {
                for p in list.iter().filter_map(|p| scene.mesh.part_index(p)) {
                    allowed[j][p] = true;
                }
            }
            (None, Some(_)) => {
                // Own part and every descendant's part.
                for (k, part) in own.iter().enumerate() {
                    if let Some(p) = part {
                        if scene.skeleton.is_ancestor_or_self(j, k) {
                            allowed[j][*p] = true;
                        }
                    }
                }
            }
            (None, None) => allowed[j].iter_mut().for_each(|a| *a = true),
        }
    }
    allowed
}

/// The parts (of `n_parts`) that no bone of `allowed` (`allowed[j][part]`) may influence.
/// Such a part is open to every bone: the rule every part-restricted solver applies (mask
/// leaves its rows as the inner solver gave them; see [`open_to_every_bone`]).
pub(crate) fn unclaimed_parts(allowed: &[Vec<bool>], n_parts: usize) -> Vec<bool> {
    (0..n_parts)
        .map(|p| !allowed.iter().any(|a| a[p]))
        .collect()
}

/// `allowed` (`allowed[j][part]`, over `n_parts` parts) with every part no bone may influence
/// opened to every bone ([`unclaimed_parts`]): `may[j][part]`, whether bone `j` may weight
/// vertices of `part`.
pub(crate) fn open_to_every_bone(allowed: &[Vec<bool>], n_parts: usize) -> Vec<Vec<bool>> {
    let unclaimed = unclaimed_parts(allowed, n_parts);
    allowed
        .iter()
        .map(|a| a.iter().zip(&unclaimed).map(|(&x, &u)| x || u).collect())
        .collect()
}

impl Solver for Masked {
    fn name(&self) -> String {
        format!("{}+mask", self.inner.name())
    }

    fn compute(&self, scene: &Scene) -> Result<Solution> {
        let started = Instant::now();
        let inner = self.inner.compute(scene)?;
        let mut data = inner.weights.as_slice().to_vec();
        let mut warnings = inner.report.warnings;
        let allowed = allowed_parts(scene);
        let nb = inner.weights.bone_count();
        let mesh = &scene.mesh;
        let parts = mesh.vertex_parts();
        let pts = mesh.vertices();
        let segments = bone_segments(scene.skeleton.bones());
        let unmaskable = unclaimed_parts(&allowed, mesh.parts().len());
        data.par_chunks_mut(nb).enumerate().for_each(|(v, row)| {
            let part = parts[v];
            if unmaskable[part] {
                return;
            }
            let mut sum = 0.0;
            for (j, w) in row.iter_mut().enumerate() {
                if !allowed[j][part] {
                    *w = 0.0;
                }
                sum += *w;
            }
            if sum > 0.0 {
                row.iter_mut().for_each(|w| *w /= sum);
                return;
            }
            // Empty row: the nearest allowed bone takes it all.
            let mut best = (f64::INFINITY, 0);
            for (j, s) in segments.iter().enumerate() {
                let d = s.distance(&pts[v]);
                if allowed[j][part] && d < best.0 {
                    best = (d, j);
                }
            }
            row[best.1] = 1.0;
        });
        for (p, &flag) in unmaskable.iter().enumerate() {
            if flag {
                warnings.push(SolveWarning::UnmaskablePart {
                    part: mesh.parts()[p].clone(),
                });
            }
        }
        let weights = Weights::from_row_major(data, nb)?;
        finish(self.name(), started, weights, warnings)
    }
}
