//! The mesh's triangle primitives: vertex streams (POSITION with its JOINTS_n / WEIGHTS_n),
//! triangles, the merged planar vertex list and the parts.

use super::json::{MeshJson, PrimitiveJson};
use super::reader::{Reader, Values, Want};
use super::{FLOAT, PLANE_TOLERANCE, TRIANGLES, UNSIGNED_BYTE, UNSIGNED_INT, UNSIGNED_SHORT};
use crate::error::{Error, FormatError, MeshError, Result, WeightsError};
use crate::mesh::DEFAULT_PART;
use nalgebra::Point2;
use serde::Deserialize;
use std::collections::BTreeMap;

/// The vertices of one POSITION accessor, with the skin attributes read beside it. Primitives
/// that name the same POSITION and JOINTS_n / WEIGHTS_n accessors share one stream, so a
/// vertex they share is read once.
pub(super) struct Stream {
    pub(super) positions: Values,
    /// Sparse weights per vertex: (joint, weight), from every JOINTS_n / WEIGHTS_n pair.
    pub(super) influences: Option<Vec<Vec<(usize, f64)>>>,
}

/// One triangle primitive: its triangles index the vertices of `streams[stream]`.
pub(super) struct Primitive {
    pub(super) stream: usize,
    pub(super) triangles: Vec<[usize; 3]>,
}

/// The distinct vertex streams of a mesh's primitives as they are read, and the running
/// counts errors number vertices and triangles by.
#[derive(Default)]
struct StreamSet {
    streams: Vec<Stream>,
    /// (POSITION, [(JOINTS_n, WEIGHTS_n)]) -> stream.
    stream_of: BTreeMap<(usize, Vec<(usize, usize)>), usize>,
    /// Errors count vertices through the streams in order: the number of the first of each.
    bases: Vec<usize>,
    vertex_total: usize,
}

impl StreamSet {
    /// The stream of `prim` (`at` names it in errors), read on its first use.
    fn stream_for(
        &mut self,
        reader: &Reader,
        prim: &PrimitiveJson,
        at: &str,
        joint_count: usize,
    ) -> Result<usize> {
        let position = *prim
            .attributes
            .get("POSITION")
            .ok_or_else(|| Error::field(format!("{at}.attributes.POSITION"), "missing"))?;
        let mut sets = Vec::new();
        while let (Some(&j), Some(&w)) = (
            prim.attributes.get(&format!("JOINTS_{}", sets.len())),
            prim.attributes.get(&format!("WEIGHTS_{}", sets.len())),
        ) {
            sets.push((j, w));
        }
        let key = (position, sets);
        if let Some(&s) = self.stream_of.get(&key) {
            return Ok(s);
        }
        let stream = read_stream(reader, position, &key.1, self.vertex_total, joint_count)?;
        self.bases.push(self.vertex_total);
        self.vertex_total += stream.positions.count();
        self.streams.push(stream);
        self.stream_of.insert(key, self.streams.len() - 1);
        Ok(self.streams.len() - 1)
    }
}

/// Reads every primitive of the mesh, each distinct vertex stream once.
pub(super) fn read_primitives(
    reader: &Reader,
    gltf_mesh: &MeshJson,
    mesh_index: usize,
    joint_count: usize,
) -> Result<(Vec<Stream>, Vec<Primitive>)> {
    let mut set = StreamSet::default();
    let mut primitives: Vec<Primitive> = Vec::new();
    // Errors count triangles through the primitives in order.
    let mut triangle_base = 0;
    for (p, prim) in gltf_mesh.primitives.iter().enumerate() {
        let at = format!("meshes[{mesh_index}].primitives[{p}]");
        if prim.mode != TRIANGLES {
            return Err(Error::field(
                format!("{at}.mode"),
                format!("{} (only triangles, mode 4, are read)", prim.mode),
            ));
        }
        let stream = set.stream_for(reader, prim, &at, joint_count)?;
        let n = set.streams[stream].positions.count();
        let triangles = read_triangles(reader, prim, &at, n)?;
        let base = set.bases[stream];
        for (t, tri) in triangles.iter().enumerate() {
            if let Some(&index) = tri.iter().find(|&&i| i >= n) {
                return Err(MeshError::IndexOutOfRange {
                    triangle: triangle_base + t,
                    index: base + index,
                    vertex_count: base + n,
                }
                .into());
            }
        }
        triangle_base += triangles.len();
        primitives.push(Primitive { stream, triangles });
    }
    if primitives.is_empty() {
        return Err(Error::field(
            format!("meshes[{mesh_index}].primitives"),
            "empty",
        ));
    }
    let streams = set.streams;
    let with_weights = streams.iter().filter(|s| s.influences.is_some()).count();
    if with_weights != 0 && with_weights != streams.len() {
        return Err(Error::field(
            format!("meshes[{mesh_index}].primitives"),
            format!(
                "{with_weights} of {} vertex streams (POSITION accessors) have JOINTS_0 / \
                 WEIGHTS_0",
                streams.len()
            ),
        ));
    }
    Ok((streams, primitives))
}

/// The triangles of `prim` over a stream of `n` vertices: its indices, or `0..n` without;
/// a count that is not a multiple of 3 is an error (the range of each index is checked by
/// the caller, which numbers vertices across streams).
fn read_triangles(
    reader: &Reader,
    prim: &PrimitiveJson,
    at: &str,
    n: usize,
) -> Result<Vec<[usize; 3]>> {
    let indices: Vec<usize> = match prim.indices {
        Some(i) => reader
            .read(
                i,
                &Want {
                    role: "indices",
                    kinds: &["SCALAR"],
                    component_types: &[UNSIGNED_BYTE, UNSIGNED_SHORT, UNSIGNED_INT],
                    count: None,
                    indices: true,
                },
            )?
            .data
            .iter()
            .map(|&x| x as usize)
            .collect(),
        None => (0..n).collect(),
    };
    if indices.len() % 3 != 0 {
        return Err(Error::field(
            format!("{at}.indices"),
            format!("{} indices is not a multiple of 3", indices.len()),
        ));
    }
    Ok(indices
        .chunks_exact(3)
        .map(|t| [t[0], t[1], t[2]])
        .collect())
}

/// Reads the POSITION accessor `position` and its `(JOINTS_n, WEIGHTS_n)` accessors; `base`
/// numbers its first vertex in errors.
fn read_stream(
    reader: &Reader,
    position: usize,
    sets: &[(usize, usize)],
    base: usize,
    joint_count: usize,
) -> Result<Stream> {
    let positions = reader.read(
        position,
        &Want {
            role: "POSITION",
            kinds: &["VEC3"],
            component_types: &[FLOAT],
            count: None,
            indices: false,
        },
    )?;
    let n = positions.count();
    let mut influences: Option<Vec<Vec<(usize, f64)>>> = None;
    for (set, &(j, w)) in sets.iter().enumerate() {
        let rows = influences.get_or_insert_with(|| vec![Vec::new(); n]);
        let pair = WeightSet {
            set,
            joints: j,
            weights: w,
        };
        pair.add_to(reader, rows, base, joint_count)?;
    }
    Ok(Stream {
        positions,
        influences,
    })
}

/// One `JOINTS_n` / `WEIGHTS_n` pair of accessors.
struct WeightSet {
    /// n.
    set: usize,
    joints: usize,
    weights: usize,
}

impl WeightSet {
    /// Adds the pair's non-zero influences to `rows` (one per POSITION); `base` numbers the
    /// first vertex in errors.
    fn add_to(
        &self,
        reader: &Reader,
        rows: &mut [Vec<(usize, f64)>],
        base: usize,
        joint_count: usize,
    ) -> Result<()> {
        let (set, w) = (self.set, self.weights);
        let per_position = Some((rows.len(), "one per POSITION"));
        let joints = reader.read(
            self.joints,
            &Want {
                role: &format!("JOINTS_{set}"),
                kinds: &["VEC4"],
                component_types: &[UNSIGNED_BYTE, UNSIGNED_SHORT],
                count: per_position,
                indices: false,
            },
        )?;
        let weights = reader.read(
            w,
            &Want {
                role: &format!("WEIGHTS_{set}"),
                kinds: &["VEC4"],
                component_types: &[FLOAT, UNSIGNED_BYTE, UNSIGNED_SHORT],
                count: per_position,
                indices: false,
            },
        )?;
        if weights.component_type != FLOAT && !reader.doc.accessors[w].normalized {
            return Err(Error::field(
                format!("accessors[{w}].normalized"),
                format!("false, but integer WEIGHTS_{set} must be normalized"),
            ));
        }
        for (v, row) in rows.iter_mut().enumerate() {
            for (&joint, &weight) in joints.element(v).iter().zip(weights.element(v)) {
                if weight == 0.0 {
                    continue; // padding; its joint index does not matter
                }
                // An UNSIGNED_BYTE / UNSIGNED_SHORT value: exact in f64 and in usize.
                let joint = joint as usize;
                if weight < 0.0 {
                    return Err(WeightsError::InvalidWeight {
                        vertex: base + v,
                        bone: joint,
                        value: weight,
                    }
                    .into());
                }
                if joint >= joint_count {
                    return Err(FormatError::JointOutOfRange {
                        vertex: base + v,
                        joint,
                        joints: joint_count,
                    }
                    .into());
                }
                row.push((joint, weight));
            }
        }
        Ok(())
    }
}

/// The streams merged into one planar vertex list.
pub(super) struct Geometry {
    pub(super) vertices: Vec<Point2<f64>>,
    pub(super) triangles: Vec<[usize; 3]>,
    /// The plane the mesh lies in.
    pub(super) plane_z: f64,
    /// Per kept vertex, where it came from.
    pub(super) kept: Vec<Kept>,
    pub(super) weights: Option<Vec<Vec<(usize, f64)>>>,
}

/// Where a kept vertex came from.
#[derive(Clone, Copy)]
pub(super) struct Kept {
    /// The first primitive (in the mesh's order) whose triangles use it: it gives the part.
    pub(super) primitive: usize,
    /// Its index in its stream.
    pub(super) vertex: usize,
}

/// Concatenates the streams, checks that every vertex lies in the plane z = z of the first
/// vertex, and drops vertices no triangle uses (a note counts them).
pub(super) fn plane_geometry(
    streams: &[Stream],
    primitives: &[Primitive],
    notes: &mut Vec<String>,
) -> Result<Geometry> {
    let all: Vec<&[f64]> = streams
        .iter()
        .flat_map(|s| (0..s.positions.count()).map(|v| s.positions.element(v)))
        .collect();
    let extent = all
        .iter()
        .flat_map(|p| p.iter().copied())
        .fold(0.0f64, |m, x| m.max(x.abs()));
    let plane_z = all.first().map_or(0.0, |p| p[2]);
    if let Some((vertex, p)) = all
        .iter()
        .enumerate()
        .find(|(_, p)| (p[2] - plane_z).abs() > PLANE_TOLERANCE * extent.max(f64::MIN_POSITIVE))
    {
        return Err(FormatError::NonPlanarMesh {
            vertex,
            z: p[2],
            plane_z,
        }
        .into());
    }
    // Per stream vertex, the first primitive that uses it (usize::MAX: none).
    let mut first_use: Vec<Vec<usize>> = streams
        .iter()
        .map(|s| vec![usize::MAX; s.positions.count()])
        .collect();
    for (pi, prim) in primitives.iter().enumerate() {
        let uses = &mut first_use[prim.stream];
        for &i in prim.triangles.iter().flatten() {
            uses[i] = uses[i].min(pi);
        }
    }
    let mut geometry = Geometry {
        vertices: Vec::new(),
        triangles: Vec::new(),
        plane_z,
        kept: Vec::new(),
        weights: streams[0].influences.as_ref().map(|_| Vec::new()),
    };
    let mut dropped = 0;
    // Per stream vertex, its index in the merged mesh; first_use turns into it.
    for (stream, uses) in streams.iter().zip(&mut first_use) {
        for (v, slot) in uses.iter_mut().enumerate() {
            if *slot == usize::MAX {
                dropped += 1;
                continue;
            }
            geometry.kept.push(Kept {
                primitive: *slot,
                vertex: v,
            });
            *slot = geometry.vertices.len();
            let p = stream.positions.element(v);
            geometry.vertices.push(Point2::new(p[0], p[1]));
            if let (Some(out), Some(rows)) = (&mut geometry.weights, &stream.influences) {
                out.push(rows[v].clone());
            }
        }
    }
    for prim in primitives {
        let new_index = &first_use[prim.stream];
        geometry
            .triangles
            .extend(prim.triangles.iter().map(|t| t.map(|i| new_index[i])));
    }
    if dropped > 0 {
        notes.push(format!("dropped {dropped} vertices that no triangle uses"));
    }
    if plane_z != 0.0 {
        notes.push(format!("the mesh lies in the plane z = {plane_z}"));
    }
    Ok(geometry)
}

/// Part names and per-vertex labels: from `extras.skinweights` when present, else one part
/// per primitive (one default part for a single primitive); a vertex that several primitives
/// use belongs to the first of them.
pub(super) fn mesh_parts(
    gltf_mesh: &MeshJson,
    mesh_index: usize,
    streams: &[Stream],
    primitives: &[Primitive],
    kept: &[Kept],
) -> Result<(Vec<String>, Vec<usize>)> {
    if let Some(extras) = gltf_mesh.extras.as_ref().and_then(|e| e.get("skinweights")) {
        #[derive(Deserialize)]
        struct PartsExtras {
            parts: Vec<String>,
            vertex_parts: Vec<usize>,
        }
        let field = format!("meshes[{mesh_index}].extras.skinweights");
        let e: PartsExtras = serde_json::from_value(extras.clone())
            .map_err(|e| Error::field(&field, e.to_string()))?;
        let total: usize = streams.iter().map(|s| s.positions.count()).sum();
        // The labels number the vertices of the one POSITION accessor.
        if e.vertex_parts.len() != total || streams.len() != 1 {
            return Err(Error::field(
                format!("{field}.vertex_parts"),
                format!(
                    "{} labels for {total} vertices in {} POSITION accessors (one expected)",
                    e.vertex_parts.len(),
                    streams.len()
                ),
            ));
        }
        let labels = kept.iter().map(|k| e.vertex_parts[k.vertex]).collect();
        return Ok((e.parts, labels));
    }
    if primitives.len() == 1 {
        return Ok((vec![DEFAULT_PART.to_string()], vec![0; kept.len()]));
    }
    Ok((
        (0..primitives.len())
            .map(|p| format!("primitive{p}"))
            .collect(),
        kept.iter().map(|k| k.primitive).collect(),
    ))
}
