//! Meshing of outlines with spade (constrained Delaunay + quality refinement).

use crate::error::{Error, Result};
use nalgebra::Point2;

/// Polygonal outline to mesh: closed loops (outer boundaries counter-clockwise, holes
/// clockwise; several outer loops make several components) plus extra constraint segments
/// (e.g. bones) that the mesh must contain as edges.
#[derive(Debug, Clone, Default)]
pub struct Outline {
    /// Closed loops (the last point connects back to the first).
    pub loops: Vec<Vec<Point2<f64>>>,
    /// Segments that must appear as (chains of) mesh edges.
    pub segments: Vec<[Point2<f64>; 2]>,
}

/// Meshing options.
#[derive(Debug, Clone)]
pub struct MeshingOptions {
    /// Target vertex count (default 10 000); ignored when `max_area` is set.
    pub target_vertices: usize,
    /// Maximum triangle area (default `None`: derived from `target_vertices`).
    pub max_area: Option<f64>,
    /// Minimum angle refinement aims for, degrees (default 25).
    pub min_angle_deg: f64,
}

impl Default for MeshingOptions {
    fn default() -> Self {
        MeshingOptions {
            target_vertices: 10_000,
            max_area: None,
            min_angle_deg: 25.0,
        }
    }
}

/// What meshing did.
#[derive(Debug, Clone, Default)]
pub struct MeshingReport {
    /// Vertices in the result.
    pub vertices: usize,
    /// Triangles in the result.
    pub triangles: usize,
}

/// Meshes an outline into vertices and counter-clockwise triangles.
pub fn mesh_outline(
    _outline: &Outline,
    _options: &MeshingOptions,
) -> Result<(Vec<Point2<f64>>, Vec<[usize; 3]>, MeshingReport)> {
    Err(Error::Meshing {
        message: "not implemented yet".into(),
    })
}
