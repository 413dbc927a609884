//! glTF import: the first skinned mesh node as a planar scene with its weights (what is read
//! and how is in the module documentation of [`super`]).

use super::animation_import::read_clips;
use super::json::{lookup, Doc, MeshJson, SkinJson};
use super::primitives::{mesh_parts, plane_geometry, read_primitives, Kept};
use super::reader::{load_buffers, Reader};
use super::skeleton_read::read_skeleton;
use super::{texture, EmbeddedImage, GLTF_SOLVER_NAME};
use crate::error::{Error, FormatError, Result, WeightsError};
use crate::io::rig::weighted_parts;
use crate::io::{Imported, RigReport, WeightsFile};
use crate::mesh::Mesh;
use crate::scene::Scene;
use crate::weights::Weights;
use std::path::{Path, PathBuf};

/// Row sums of imported weights further than this from 1 are reported in a note.
const ROW_SUM_NOTE: f64 = 1e-6;

/// What [`import_gltf`] read: the scene, its weights when the mesh has `JOINTS_0` /
/// `WEIGHTS_0` (`artist`, columns in the skeleton's bone order), and the [`GltfReport`].
pub type GltfImport = Imported<GltfReport, Option<Weights>>;

/// What a glTF import repaired or assumed, and the images it found inside the file.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct GltfReport {
    /// Repairs and assumptions (flipped winding, renormalized rows, dropped vertices, ...).
    pub notes: Vec<String>,
    /// Images the file embeds (`data:` URIs, buffer views) that the scene's art names by file
    /// name: write them with [`GltfImport::write_embedded_images`] before saving the scene.
    pub embedded_images: Vec<EmbeddedImage>,
    /// Each part whose weights use two or more bones, with those bones
    /// ([`RigReport::scored_meshes`]).
    pub scored: Vec<(String, Vec<String>)>,
}

impl RigReport for GltfReport {
    fn notes(&self) -> &[String] {
        &self.notes
    }

    fn scored_meshes(&self) -> Vec<(String, Vec<String>)> {
        self.scored.clone()
    }

    fn unshown_notes(&self) -> &[String] {
        &self.notes
    }

    fn write_embedded_images(
        &self,
        scene: &mut Scene,
        dir: &Path,
        force: bool,
    ) -> Result<Vec<PathBuf>> {
        texture::write_embedded_images(scene, &self.embedded_images, dir, force)
    }
}

/// Nothing: `import` prints a glTF import's notes on their own ([`RigReport::unshown_notes`]).
impl std::fmt::Display for GltfReport {
    fn fmt(&self, _: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        Ok(())
    }
}

impl GltfImport {
    /// The weights as a weights file (solver [`GLTF_SOLVER_NAME`]), when the mesh has them.
    pub fn weights_file(&self) -> Option<WeightsFile> {
        self.artist.as_ref().map(|w| {
            WeightsFile::new(
                &self.scene.name,
                GLTF_SOLVER_NAME,
                self.scene.skeleton.names(),
                w,
            )
        })
    }
}

/// Reads a glTF 2.0 file holding a skinned mesh in a plane: `.gltf` JSON (buffers embedded
/// or next to it) or binary glTF (`.glb`, recognised by its magic whatever the extension;
/// buffer 0 in its BIN chunk). The scene is named after the file stem. See the module docs
/// for what is read and how.
pub fn import_gltf(path: impl AsRef<Path>) -> Result<GltfImport> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let (text, bin) = if bytes.starts_with(super::GLB_MAGIC) {
        super::split_glb(&bytes)?
    } else {
        let text = String::from_utf8(bytes).map_err(|e| {
            Error::Format(FormatError::Json {
                context: path.display().to_string(),
                message: e.to_string(),
            })
        })?;
        (text, None)
    };
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| "gltf".into());
    import_document(&text, bin.as_deref(), path.parent(), &name).map_err(|e| e.in_file(path))
}

/// Most joints a skin may have: `JOINTS_n` are at most `UNSIGNED_SHORT`, so no vertex can be
/// weighted to a joint past 65535.
pub const MAX_JOINTS: usize = 1 << 16;

/// Most entries (vertices x joints) of the dense weight matrix an import builds: 2^28 f64,
/// 2 GiB. Far above any real 2D character (3,000 vertices x 70 bones is 2^18).
pub const MAX_WEIGHT_ENTRIES: usize = 1 << 28;

/// [`import_gltf`] on JSON text; `base_dir` resolves external buffer files.
pub fn import_gltf_str(text: &str, base_dir: Option<&Path>, name: &str) -> Result<GltfImport> {
    import_document(text, None, base_dir, name)
}

/// [`import_gltf_str`] with the BIN chunk of a `.glb` (buffer 0 when it has no `uri`).
fn import_document(
    text: &str,
    bin: Option<&[u8]>,
    base_dir: Option<&Path>,
    name: &str,
) -> Result<GltfImport> {
    let doc = parse_document(text)?;
    let target = SkinnedNode::find(&doc)?;
    let reader = Reader {
        buffers: load_buffers(&doc, bin, base_dir)?,
        doc: &doc,
    };
    let mut notes = Vec::new();
    target.note_others(&mut notes);
    let read = ImportedMesh::read(&reader, &target, &mut notes)?;
    let skeleton = read_skeleton(
        &reader,
        target.skin,
        target.skin_index,
        &read.mesh,
        read.plane_z,
        &mut notes,
    )?;
    let (lo, hi) = read.mesh.bounds();
    let size = (hi.x - lo.x).max(hi.y - lo.y);
    let clips = read_clips(&reader, target.skin, &skeleton, size, &mut notes)?;
    let weights = match &read.weight_rows {
        Some(rows) => Some(normalized_weights(rows, skeleton.len(), &mut notes)?),
        None => {
            notes.push("the mesh has no JOINTS_0 / WEIGHTS_0: no weights".into());
            None
        }
    };
    let art = texture::read_art(
        &reader,
        &target.mesh.primitives,
        target.mesh_index,
        &read.vertex_counts,
        &read.mesh,
        &read.kept,
        name,
        base_dir,
        &mut notes,
    )?;
    let probes = read_probes(&doc, target.node_index, &read.kept, &mut notes)?;
    let mut scene = match Scene::new(name, read.mesh.clone(), skeleton.clone(), probes) {
        Ok(scene) => scene,
        Err(e) => {
            notes.push(format!(
                "extras.skinweights.probes left out: {e} (the scene is imported without them)"
            ));
            Scene::new(name, read.mesh, skeleton, vec![])?
        }
    };
    if !clips.is_empty() {
        scene = scene.with_animation(clips, Vec::new())?;
    }
    let mut embedded_images = Vec::new();
    if let Some((art, embedded)) = art {
        scene = scene.with_art(art)?;
        embedded_images = embedded;
    }
    let scored = weights
        .as_ref()
        .map_or_else(Vec::new, |a| weighted_parts(&scene, a));
    Ok(GltfImport {
        scene,
        artist: weights,
        report: GltfReport {
            notes,
            embedded_images,
            scored,
        },
    })
}

/// The document parsed, a glTF 2.x file that requires no extension.
fn parse_document(text: &str) -> Result<Doc> {
    let doc: Doc = serde_json::from_str(text).map_err(|e| {
        Error::Format(FormatError::Json {
            context: "glTF".into(),
            message: e.to_string(),
        })
    })?;
    if !doc.asset.version.starts_with("2.") {
        return Err(Error::field(
            "asset.version",
            format!("{:?} (only glTF 2.x is read)", doc.asset.version),
        ));
    }
    if let Some(ext) = doc.extensions_required.first() {
        return Err(Error::field(
            "extensionsRequired",
            format!("the file requires extension {ext:?}, which this importer does not support"),
        ));
    }
    Ok(doc)
}

/// The node the import reads: the first with both a mesh and a skin.
struct SkinnedNode<'a> {
    node_index: usize,
    mesh_index: usize,
    mesh: &'a MeshJson,
    skin_index: usize,
    skin: &'a SkinJson,
    /// How many nodes have both a mesh and a skin.
    skinned_nodes: usize,
}

impl<'a> SkinnedNode<'a> {
    /// The first skinned mesh node, its mesh and its skin (1 to [`MAX_JOINTS`] joints).
    fn find(doc: &'a Doc) -> Result<Self> {
        let skinned: Vec<(usize, usize, usize)> = doc
            .nodes
            .iter()
            .enumerate()
            .filter_map(|(i, n)| Some((i, n.mesh?, n.skin?)))
            .collect();
        let &(node_index, mesh_index, skin_index) = skinned
            .first()
            .ok_or_else(|| Error::field("nodes", "no node has both a mesh and a skin"))?;
        let mesh = lookup(&doc.meshes, mesh_index, "meshes")?;
        let skin = lookup(&doc.skins, skin_index, "skins")?;
        if skin.joints.is_empty() {
            return Err(Error::field(
                format!("skins[{skin_index}].joints"),
                "empty (a skin needs at least one joint)",
            ));
        }
        if skin.joints.len() > MAX_JOINTS {
            return Err(Error::field(
                format!("skins[{skin_index}].joints"),
                format!(
                    "{} joints (at most {MAX_JOINTS}: JOINTS_n cannot name more)",
                    skin.joints.len()
                ),
            ));
        }
        Ok(SkinnedNode {
            node_index,
            mesh_index,
            mesh,
            skin_index,
            skin,
            skinned_nodes: skinned.len(),
        })
    }

    /// A note when other skinned mesh nodes are left out.
    fn note_others(&self, notes: &mut Vec<String>) {
        if self.skinned_nodes > 1 {
            notes.push(format!(
                "read node {} (mesh {}, skin {}), the first of {} skinned mesh nodes",
                self.node_index, self.mesh_index, self.skin_index, self.skinned_nodes
            ));
        }
    }
}

/// The mesh read from the node's primitives, with what the weights and the art need.
struct ImportedMesh {
    mesh: Mesh,
    /// The plane z = const the mesh lies in.
    plane_z: f64,
    /// Per mesh vertex, where it came from.
    kept: Vec<Kept>,
    /// Sparse weights per mesh vertex, when the mesh has `JOINTS_0` / `WEIGHTS_0`.
    weight_rows: Option<Vec<Vec<(usize, f64)>>>,
    /// Per primitive, the vertex count of its `POSITION` accessor.
    vertex_counts: Vec<usize>,
}

impl ImportedMesh {
    fn read(reader: &Reader, target: &SkinnedNode, notes: &mut Vec<String>) -> Result<Self> {
        let (mesh_index, skin_index) = (target.mesh_index, target.skin_index);
        let joints = target.skin.joints.len();
        let (streams, primitives) = read_primitives(reader, target.mesh, mesh_index, joints)?;
        let geometry = plane_geometry(&streams, &primitives, notes)?;
        let (parts, vertex_parts) = mesh_parts(
            target.mesh,
            mesh_index,
            &streams,
            &primitives,
            &geometry.kept,
        )?;
        let entries = geometry.vertices.len().saturating_mul(joints);
        if geometry.weights.is_some() && entries > MAX_WEIGHT_ENTRIES {
            return Err(Error::field(
                format!("skins[{skin_index}].joints"),
                format!(
                    "{joints} joints x {} vertices = {entries} weights (at most \
                     {MAX_WEIGHT_ENTRIES} are imported)",
                    geometry.vertices.len()
                ),
            ));
        }
        let (mesh, flipped) = Mesh::with_parts_fix_winding(
            geometry.vertices,
            geometry.triangles,
            parts,
            vertex_parts,
        )?;
        if flipped {
            notes.push(format!(
                "all {} triangles were clockwise seen from +z (the mesh faces -z): flipped",
                mesh.triangle_count()
            ));
        }
        let vertex_counts = primitives
            .iter()
            .map(|p| streams[p.stream].positions.count())
            .collect();
        Ok(ImportedMesh {
            mesh,
            plane_z: geometry.plane_z,
            kept: geometry.kept,
            weight_rows: geometry.weights,
            vertex_counts,
        })
    }
}

/// Dense, renormalized weights from sparse rows; a row with no weight is an error.
fn normalized_weights(
    rows: &[Vec<(usize, f64)>],
    joints: usize,
    notes: &mut Vec<String>,
) -> Result<Weights> {
    let mut w = Weights::zeros_unchecked(rows.len(), joints);
    let mut off = (0usize, 0.0f64);
    for (v, row) in rows.iter().enumerate() {
        let dense = w.row_mut_unchecked(v);
        for &(j, x) in row {
            dense[j] += x;
        }
        let sum: f64 = dense.iter().sum();
        if sum <= 0.0 {
            return Err(WeightsError::RowSum {
                vertex: v,
                sum,
                tolerance: ROW_SUM_NOTE,
            }
            .into());
        }
        if (sum - 1.0).abs() > ROW_SUM_NOTE {
            off = (off.0 + 1, off.1.max((sum - 1.0).abs()));
        }
        dense.iter_mut().for_each(|x| *x /= sum);
    }
    if off.0 > 0 {
        notes.push(format!(
            "{} vertices' weights did not sum to 1 (off by up to {:.3e}): renormalized",
            off.0, off.1
        ));
    }
    Ok(w)
}

/// The probes the skinned mesh node's `extras.skinweights.probes` hold (what
/// [`super::export_gltf`] writes, in the scene file's `probes` form); none without them.
/// Probes that watch vertex indices are kept only while the mesh's vertices are the file's
/// first vertex stream in order (no vertex dropped or merged from another stream).
fn read_probes(
    doc: &Doc,
    node: usize,
    kept: &[Kept],
    notes: &mut Vec<String>,
) -> Result<Vec<crate::scene::Probe>> {
    let Some(value) = doc.nodes[node]
        .extras
        .as_ref()
        .and_then(|e| e.get("skinweights")?.get("probes"))
    else {
        return Ok(Vec::new());
    };
    let files: Vec<crate::io::scene_json::ProbeFile> = serde_json::from_value(value.clone())
        .map_err(|e| {
            Error::Format(FormatError::Json {
                context: format!("nodes[{node}].extras.skinweights.probes"),
                message: e.to_string(),
            })
        })?;
    let in_order = kept.iter().enumerate().all(|(i, k)| k.vertex == i);
    let mut probes = crate::io::scene_json::probes_from_file(files);
    probes.retain(|p| {
        let keep = in_order || p.watch.vertices.is_none();
        if !keep {
            notes.push(format!(
                "probe {:?} left out: it watches vertex indices and the mesh's vertices were \
                 renumbered on import",
                p.name
            ));
        }
        keep
    });
    Ok(probes)
}
