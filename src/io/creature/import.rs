//! Creature JSON → one [`Scene`] with a part per mesh region, plus the artist's weights.

use super::clips::build_clips;
use super::creature_error;
use super::parse::{parse_creature, FileBone, FileClip, FileCreature, FileRegion};
use crate::error::{Error, Result};
use crate::io::scene_builder::SceneBuilder;
use crate::mesh::Mesh;
use crate::scene::Scene;
use crate::skeleton::Bone;
use nalgebra::Point2;
use std::fmt;
use std::path::Path;

/// What [`import_creature`] produced: the scene, the artist's weights and the report.
pub type CreatureImport = crate::io::Imported<ImportReport>;

/// The import report: regions, bones, clips and notes on everything repaired or left out.
#[derive(Debug, Clone, Default)]
pub struct ImportReport {
    /// One entry per region, in part order (the regions' point order).
    pub meshes: Vec<MeshReport>,
    /// Number of bones.
    pub bones: usize,
    /// Clip names with their number of keyed frames.
    pub clips: Vec<(String, usize)>,
    /// Repairs and things left out (skipped weights, normalized rows, unapplied clip data).
    pub notes: Vec<String>,
}

/// One imported region.
#[derive(Debug, Clone, PartialEq)]
pub struct MeshReport {
    /// Part name in the scene (the region's name).
    pub part: String,
    /// Region name in the file.
    pub region: String,
    /// Vertices imported (the region's points).
    pub vertices: usize,
    /// Triangles in the file's region.
    pub triangles: usize,
    /// Index in the scene's mesh of the region's first vertex (its vertices are contiguous).
    pub first_vertex: usize,
    /// Index in the file's `points` of the region's first point.
    pub first_point: usize,
    /// Bones the artist's weights use on this region, in skeleton order.
    pub bones: Vec<String>,
    /// Bones whose weights were left out, with why.
    pub skipped_weights: Vec<(String, String)>,
    /// Largest `|row sum - 1|` in the file's weights before normalizing.
    pub max_row_sum_error: f64,
}

impl MeshReport {
    /// Scene vertex indices of this region.
    pub fn vertex_range(&self) -> std::ops::Range<usize> {
        self.first_vertex..self.first_vertex + self.vertices
    }
}

/// Scored: the regions with two or more bones.
impl crate::io::RigReport for ImportReport {
    fn notes(&self) -> &[String] {
        &self.notes
    }

    fn scored_meshes(&self) -> Vec<(String, Vec<String>)> {
        self.meshes
            .iter()
            .filter(|m| m.bones.len() >= 2)
            .map(|m| (m.part.clone(), m.bones.clone()))
            .collect()
    }
}

impl fmt::Display for ImportReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "Creature: {} regions, {} bones, {} clips",
            self.meshes.len(),
            self.bones,
            self.clips.len()
        )?;
        for m in &self.meshes {
            writeln!(
                f,
                "  {:<16} {:>5} vertices {:>5} triangles  weighted: {}",
                m.part,
                m.vertices,
                m.triangles,
                m.bones.join(", ")
            )?;
        }
        for (name, frames) in &self.clips {
            writeln!(f, "  clip {name:<12} {frames:>4} keyed frames")?;
        }
        for n in &self.notes {
            writeln!(f, "note: {n}")?;
        }
        Ok(())
    }
}

/// Reads a Creature JSON file (see [`import_creature`]); the scene is named after the
/// file's stem (`creature-bat.json` → `creature-bat`; `creature` when the path has none).
pub fn load_creature(path: impl AsRef<Path>) -> Result<CreatureImport> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let mut import = import_creature(&text).map_err(|e| e.in_file(path))?;
    if let Some(stem) = path.file_stem().filter(|s| !s.is_empty()) {
        import.scene = import.scene.with_name(stem.to_string_lossy());
    }
    Ok(import)
}

/// Parses a Creature JSON export and builds one scene named `creature` (see the module
/// docs; [`load_creature`] names it after the file).
///
/// - Every region becomes a part named after it, in the order of its points; its vertices
///   are its points as the file places them (the rest pose, y up), its triangles the
///   region's `indices` (made counter-clockwise; zero-area ones left out, folds and unused
///   points kept, as in artist meshes anywhere, noted).
/// - Bones: the segment from the rest world start point to the end point
///   (`restParentMat · localRestStartPt`, `· localRestEndPt`), in id order, parents from the
///   `children` ids.
/// - The region's weights are the artist's weights, each row normalized to sum to 1 (the
///   file rounds them). A bone whose array is not one weight per point of the region is
///   skipped and noted (Creature-like tolerance); weights on a bone the skeleton lacks are an
///   error unless all 0 (then noted).
/// - Clips: one key per frame at 60 fps (docs/formats/creature.md); mesh displacements, uv swaps and opacities are not applied
///   (a note names the clips that key them).
///
/// Errors: [`FormatError::Json`](crate::error::FormatError::Json) for text that is not JSON; [`FormatError::Rig`](crate::error::FormatError::Rig) naming the region,
/// bone, clip or frame, the field and, for points, the vertex: wrong types, numbers beyond
/// ±1e6 or NaN, indices outside the mesh or their region, overlapping regions, weights
/// outside `[-0.05, 1.05]` (those in `[-0.05, 0)` read as 0, noted) or a point whose weights are all 0, bones of zero length or stretched
/// beyond 1000×, frames missing a bone; [`ClipError::TooManyKeys`](crate::error::ClipError::TooManyKeys); the skeleton's errors
/// ([`SkeletonError::ParentCycle`](crate::error::SkeletonError::ParentCycle)) for the hierarchy.
pub fn import_creature(text: &str) -> Result<CreatureImport> {
    let FileCreature {
        points,
        bones,
        regions,
        clips,
        mut notes,
    } = parse_creature(text)?;
    let mut builder = SceneBuilder::for_artist_meshes(bones.len());
    let mut meshes = Vec::with_capacity(regions.len());
    for r in &regions {
        meshes.push(add_region(&mut builder, r, &points, &bones, &mut notes)?);
    }
    row_sum_note(&meshes, &mut notes);
    builder.normalize_weights();
    let scene_bones: Vec<Bone> = bones
        .iter()
        .map(|b| Bone {
            parent: b.parent,
            ..Bone::new(
                b.name.clone(),
                Point2::new(b.start[0], b.start[1]),
                Point2::new(b.end[0], b.end[1]),
            )
        })
        .collect();
    // Parents first for the part assignment; the skeleton checks for cycles.
    let order = crate::skeleton::Skeleton::new(scene_bones.clone())?
        .topological_order()
        .to_vec();
    let built = builder.finish(scene_bones, &order, &mut notes)?;
    let scene_clips = build_clips(&clips, &built.skeleton)?;
    unapplied_note(&clips, &mut notes);
    let scene = Scene::new("creature", built.mesh, built.skeleton, built.probes)?
        .with_animation(scene_clips, Vec::new())?;
    let report = ImportReport {
        meshes,
        bones: bones.len(),
        clips: clips
            .iter()
            .map(|c| (c.name.clone(), c.frames.len()))
            .collect(),
        notes,
    };
    Ok(CreatureImport {
        scene,
        artist: built.artist,
        report,
    })
}

/// Region `r` as a part of `builder` with its weight rows; its own mesh checked first, so that
/// an error names the region.
fn add_region(
    builder: &mut SceneBuilder,
    r: &FileRegion,
    points: &[[f64; 2]],
    bones: &[FileBone],
    notes: &mut Vec<String>,
) -> Result<MeshReport> {
    let ctx = format!("region {:?}", r.name);
    let part = builder.unique_name(&r.name);
    let placed: Vec<Point2<f64>> = points[r.first_point..r.first_point + r.points]
        .iter()
        .map(|p| Point2::new(p[0], p[1]))
        .collect();
    Mesh::from_artist(
        placed.clone(),
        r.triangles.clone(),
        vec![part.clone()],
        vec![0; placed.len()],
    )
    .map_err(|e| creature_error(&ctx, "indices", None, e.to_string()))?;
    for (bone, why) in &r.skipped {
        notes.push(format!(
            "{ctx}: the weights of bone {bone:?} are skipped ({why}); the region's other weights are kept"
        ));
    }
    if let Some((point, bone, x)) = r.clamped.first() {
        notes.push(format!(
            "{ctx}: {} weights just below 0 (rounding) read as 0 and their rows renormalised, \
             the first {x} on bone {bone:?} at point {point}",
            r.clamped.len()
        ));
    }
    let mut sums = vec![0.0; r.points];
    for (_, w) in &r.weights {
        sums.iter_mut().zip(w).for_each(|(s, x)| *s += x);
    }
    if let Some(v) = sums.iter().position(|&s| s <= 0.0) {
        return Err(creature_error(
            &ctx,
            "weights",
            Some(r.first_point + v),
            "the point has no weight on any bone",
        ));
    }
    let max_row_sum_error = sums.iter().map(|s| (s - 1.0).abs()).fold(0.0, f64::max);
    let added = builder.add_part(part, placed, &r.triangles);
    let mut used = Vec::new();
    for (j, w) in &r.weights {
        for (v, &x) in added.vertices.clone().zip(w) {
            builder.add_weight(v, *j, x);
        }
        if w.iter().any(|&x| x > 0.0) {
            used.push(*j);
        }
    }
    used.sort_unstable();
    used.dedup();
    Ok(MeshReport {
        part: added.name,
        region: r.name.clone(),
        vertices: r.points,
        triangles: r.triangles.len(),
        first_vertex: added.vertices.start,
        first_point: r.first_point,
        bones: used.iter().map(|&j| bones[j].name.clone()).collect(),
        skipped_weights: r.skipped.clone(),
        max_row_sum_error,
    })
}

fn row_sum_note(meshes: &[MeshReport], notes: &mut Vec<String>) {
    let max_err = meshes
        .iter()
        .map(|m| m.max_row_sum_error)
        .fold(0.0, f64::max);
    // Below 1e-9 is float noise (e.g. our own export), not worth a note.
    if max_err > 1e-9 {
        notes.push(format!(
            "artist weight rows summed to 1 within {max_err:.1e} (rounded in the file): normalized"
        ));
    }
}

/// One note per kind of clip data not applied, naming the clips that key it.
fn unapplied_note(clips: &[FileClip], notes: &mut Vec<String>) {
    for what in ["mesh displacements", "uv swaps", "opacities"] {
        let names: Vec<&str> = clips
            .iter()
            .filter(|c| c.unapplied.contains(&what))
            .map(|c| c.name.as_str())
            .collect();
        if !names.is_empty() {
            notes.push(format!("{what} not applied: clips {}", names.join(", ")));
        }
    }
}
