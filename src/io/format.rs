//! The format table: the one list of the rig formats the toolkit reads and writes, what
//! each is called, how a file is told to be one, and its import and export, each with one
//! signature for every format.
//!
//! Everything that handles "any format" reads this table: [`crate::io::rig::load_rig`],
//! `batch` (what an input is, how a rig is read and written back), and the `import` and
//! `export` commands (their format argument, help and checks). A new format is its folder
//! in `src/io/`, one row of [`FORMATS`] (and a [`RigFormat`] variant naming it) and its docs
//! page.
//!
//! Telling a file's format: a file whose extension a row claims ([`Format::extensions`])
//! is that format; any other file is parsed as JSON and is the format whose
//! [`Format::detect`] holds (the detections exclude each other): Spine when its `skeleton`
//! names a `spine` version, Creature when it has `mesh.regions` beside a `skeleton`,
//! DragonBones when it has an `armature` list.

use super::exported::{ExportOptions, Exported};
use super::imported::{ImportOptions, Imported, RigImport, RigReport};
use super::sniff::FileKind;
use super::{creature, dragonbones, gltf, godot, spine};
use crate::error::{Result, RigFormat};
use crate::scene::Scene;
use crate::weights::Weights;
use serde_json::Value;
use std::path::Path;

/// Whether a format's export takes the file the scene was imported from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Source {
    /// It takes none.
    Never,
    /// It may: the source then keeps everything but the weights.
    Optional,
    /// It must: only the weights of the source are rewritten.
    Required,
}

/// What reads a file of a format.
type Import = fn(&Path, &ImportOptions) -> Result<RigImport>;

/// What writes a scene and weights in a format.
type Export = fn(&Scene, &Weights, &ExportOptions) -> Result<Exported>;

/// One row of the format table.
#[derive(Clone, Copy)]
pub struct Format {
    /// The format, as errors and `batch` name it.
    pub kind: RigFormat,
    /// Lower-case name, as the `import` and `export` commands spell it.
    pub name: &'static str,
    /// Extensions (lower case) that make a file this format whatever its content; JSON
    /// formats claim none and are told apart by [`Format::detect`].
    pub extensions: &'static [&'static str],
    /// `import --help`'s line on it.
    pub import_help: &'static str,
    /// `export --help`'s line on it.
    pub export_help: &'static str,
    /// The kinds of file ([`FileKind`]) it reads, the first when the file is none of them:
    /// what an import error expected.
    pub file_kinds: &'static [FileKind],
    /// Whether every file carries the artist's weights (glTF's may not).
    pub always_weighted: bool,
    /// The solver name of its weights file.
    pub weights_solver: &'static str,
    /// Whether its import takes a skin and an atlas ([`ImportOptions`]).
    pub skins: bool,
    /// Whether its export takes the file the scene was imported from.
    pub source: Source,
    /// Whether its export takes an influence limit ([`ExportOptions::max_influences`]).
    pub influence_limit: bool,
    /// Whether its export scales coordinates ([`ExportOptions::gltf_scale`]); the others
    /// keep pixels.
    pub scales: bool,
    /// Whether an export without a source also writes `OUTPUT.atlas`.
    pub atlas_without_source: bool,
    /// What `batch` appends to an item's stem for the rig written back.
    pub batch_suffix: &'static str,
    /// Whether `transfer -o` writes the rig back: the formats whose costume parts (Spine
    /// skins, DragonBones displays) it carries weights between.
    pub transfer_writes: bool,
    detect: Option<fn(&Value) -> bool>,
    import: Import,
    export: Export,
}

impl std::fmt::Debug for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Format")
            .field("kind", &self.kind)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl Format {
    /// Whether the parsed JSON document is a file of this format (by its content).
    pub fn detect(&self, json: &Value) -> bool {
        self.detect.is_some_and(|d| d(json))
    }

    /// Reads the file at `path`. Errors: the format's importer's.
    pub fn import(&self, path: &Path, options: &ImportOptions) -> Result<RigImport> {
        (self.import)(path, options)
    }

    /// The scene and its weights as a file of this format. Errors: the format's
    /// exporter's (weights of the wrong shape or not valid, a source that is not the
    /// scene's, a missing required source).
    pub fn export(
        &self,
        scene: &Scene,
        weights: &Weights,
        options: &ExportOptions,
    ) -> Result<Exported> {
        (self.export)(scene, weights, options)
    }

    /// The row named `name` (as the commands spell it).
    pub fn by_name(name: &str) -> Option<&'static Format> {
        FORMATS.iter().find(|f| f.name == name)
    }

    /// The row claiming the extension `ext` (lower case).
    pub fn by_extension(ext: &str) -> Option<&'static Format> {
        FORMATS.iter().find(|f| f.extensions.contains(&ext))
    }

    /// The kind of file an import error expected, given the kind `found`.
    pub fn expected_kind(&self, found: FileKind) -> FileKind {
        if self.file_kinds.contains(&found) {
            found
        } else {
            self.file_kinds
                .first()
                .copied()
                .unwrap_or(FileKind::Unknown)
        }
    }
}

impl RigFormat {
    /// Its row of [`FORMATS`].
    pub fn format(self) -> &'static Format {
        FORMATS
            .iter()
            .find(|f| f.kind == self)
            // Only a format's folder makes a `RigFormat`, for the row it lists here.
            .expect("every RigFormat is the kind of a row of FORMATS")
    }

    /// Lower-case name, as the `import` and `export` commands spell it.
    pub fn name(self) -> &'static str {
        self.format().name
    }

    /// The format of a parsed JSON document, by its content (see the module docs); `None`
    /// for JSON that is none of the JSON rig formats.
    pub fn of_json(json: &Value) -> Option<RigFormat> {
        FORMATS.iter().find(|f| f.detect(json)).map(|f| f.kind)
    }

    /// The format of the file at `path` whose bytes are `bytes`: by extension when a
    /// format claims it, else by content. `Ok(None)`: valid JSON that is no rig. Errors:
    /// JSON that does not parse ([`FormatError::Json`](crate::error::FormatError::Json),
    /// naming the file).
    pub fn of_file(path: &Path, bytes: &[u8]) -> Result<Option<RigFormat>> {
        if let Some(f) = Format::by_extension(&extension(path)) {
            return Ok(Some(f.kind));
        }
        Ok(RigFormat::of_json(&parse_json(path, bytes)?))
    }
}

/// The lower-case extension of `path` (empty when it has none).
pub(crate) fn extension(path: &Path) -> String {
    path.extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
}

/// Parses `bytes` as JSON (a UTF-8 byte order mark skipped, as the importers do); errors
/// name the file.
pub(crate) fn parse_json(path: &Path, bytes: &[u8]) -> Result<Value> {
    crate::io::json_path::parse_json(bytes, &path.display().to_string())
}

/// The format table, in the commands' order.
pub const FORMATS: &[Format] = &[
    Format {
        kind: RigFormat::GLTF,
        name: "gltf",
        extensions: &["gltf", "glb"],
        import_help: "glTF 2.0 (.gltf; buffers embedded or beside it)",
        export_help: "glTF 2.0 (.gltf with an embedded buffer, or binary glTF when the output ends in .glb; the scene's art as embedded PNG images, one material per image and one primitive per layer)",
        file_kinds: &[FileKind::Gltf, FileKind::Glb],
        always_weighted: false,
        weights_solver: gltf::GLTF_SOLVER_NAME,
        skins: false,
        source: Source::Never,
        influence_limit: false,
        scales: true,
        atlas_without_source: false,
        batch_suffix: ".gltf",
        transfer_writes: false,
        detect: None,
        import: |path, _| {
            let g = gltf::import_gltf(path)?;
            Ok(Imported {
                scene: g.scene,
                artist: g.artist,
                report: Box::new(g.report),
            })
        },
        export: export_gltf,
    },
    Format {
        kind: RigFormat::CREATURE,
        name: "creature",
        extensions: &[],
        import_help: "Creature JSON (Kestrel Moon's \"Game Engines\" export): mesh regions as parts, the skeleton, artist weights and clips (frames at 60 fps)",
        export_help: "Creature JSON: the `--source` file (required) with each region's weights rewritten, everything else kept as in the source",
        file_kinds: &[FileKind::Creature],
        always_weighted: true,
        weights_solver: "artist",
        skins: false,
        source: Source::Required,
        influence_limit: false,
        scales: false,
        atlas_without_source: false,
        batch_suffix: ".creature.json",
        transfer_writes: false,
        // A Spine skeleton names its version where a Creature skeleton names a bone.
        detect: Some(|json| {
            json["mesh"]["regions"].is_object()
                && json["skeleton"].is_object()
                && !json["skeleton"]["spine"].is_string()
        }),
        import: |path, _| Ok(boxed(creature::load_creature(path)?)),
        export: export_creature,
    },
    Format {
        kind: RigFormat::DRAGONBONES,
        name: "dragonbones",
        extensions: &[],
        import_help: "DragonBones 5.5 JSON (`*_ske.json`): armature, mesh displays, artist weights",
        export_help: "DragonBones 5.5 JSON: one weighted mesh display per part",
        file_kinds: &[FileKind::DragonBones],
        always_weighted: true,
        weights_solver: "artist",
        skins: false,
        source: Source::Never,
        influence_limit: false,
        scales: false,
        atlas_without_source: false,
        batch_suffix: "_ske.json",
        transfer_writes: true,
        detect: Some(|json| json["armature"].is_array()),
        import: |path, _| Ok(boxed(dragonbones::load_dragonbones(path)?)),
        export: |scene, weights, o| {
            let text = dragonbones::dragonbones_text(scene, weights, &o.output_name())?;
            let summary = format!(
                ": {} parts as weighted mesh displays, {} bones",
                scene.mesh().parts().len(),
                scene.skeleton().len()
            );
            Ok(Exported::new(text, summary))
        },
    },
    Format {
        kind: RigFormat::GODOT,
        name: "godot",
        extensions: &["tscn"],
        import_help: "Godot 3 or 4 text scene (.tscn): Skeleton2D, Polygon2D layers, painted weights",
        export_help: "Godot .tscn (text scene): a Skeleton2D and one skinned Polygon2D per part",
        file_kinds: &[FileKind::GodotScene],
        always_weighted: true,
        weights_solver: "artist",
        skins: false,
        source: Source::Never,
        influence_limit: false,
        scales: false,
        atlas_without_source: false,
        batch_suffix: ".tscn",
        transfer_writes: false,
        detect: None,
        import: |path, _| Ok(boxed(godot::load_godot(path)?)),
        export: export_godot,
    },
    Format {
        kind: RigFormat::SPINE,
        name: "spine",
        extensions: &[],
        import_help: "Spine 4.x JSON: bones in the setup pose, mesh and region attachments, artist weights, the atlas (`--atlas`, default NAME.atlas beside the file)",
        export_help: "Spine 4.2 JSON: with `--source`, that project with its meshes' weighted vertices rewritten; without, a minimal project (bones, a slot and mesh per part, the atlas)",
        file_kinds: &[FileKind::SpineJson],
        always_weighted: true,
        weights_solver: "artist",
        skins: true,
        source: Source::Optional,
        influence_limit: true,
        scales: false,
        atlas_without_source: true,
        batch_suffix: ".spine.json",
        transfer_writes: true,
        detect: Some(|json| json["skeleton"]["spine"].is_string()),
        import: |path, o| {
            let options = spine::SpineImportOptions::default().with_skin(o.skin.clone());
            Ok(boxed(spine::load_spine(path, o.atlas.as_deref(), &options)?))
        },
        export: export_spine,
    },
];

/// An importer's result with its report boxed and its weights optional.
fn boxed<R: RigReport + 'static>(i: Imported<R>) -> RigImport {
    Imported {
        scene: i.scene,
        artist: Some(i.artist),
        report: Box::new(i.report),
    }
}

/// glTF, binary when the output ends in `.glb`; a note on the influences past four.
fn export_gltf(scene: &Scene, weights: &Weights, o: &ExportOptions) -> Result<Exported> {
    let options = gltf::GltfOptions::default()
        .with_scale(o.gltf_scale)
        .with_extras(o.gltf_extras);
    let binary = o
        .output
        .as_deref()
        .and_then(Path::extension)
        .is_some_and(|e| e.eq_ignore_ascii_case("glb"));
    let bytes = if binary {
        gltf::export_glb(scene, weights, &options)?
    } else {
        gltf::export_gltf(scene, weights, &options)?.into_bytes()
    };
    let art = scene.art().map_or(String::new(), |art| {
        format!(
            ", {} images embedded, {} layers as primitives",
            art.images.len(),
            art.layers.len()
        )
    });
    let summary = format!(
        ": {} vertices, {} triangles, {} joints{art}",
        scene.mesh().vertex_count(),
        scene.mesh().triangle_count(),
        scene.skeleton().len()
    );
    let mut out = Exported::new(bytes, summary);
    out.notes.extend(gltf::truncation_note(weights));
    Ok(out)
}

/// The weights written into a copy of the source file.
fn export_creature(scene: &Scene, weights: &Weights, o: &ExportOptions) -> Result<Exported> {
    let source = o.source.as_deref();
    let text = match (o.source_text.as_deref(), source) {
        (Some(text), _) => {
            creature::export_creature(text, scene, weights).map_err(|e| match source {
                Some(s) => e.in_file(s),
                None => e,
            })?
        }
        (None, Some(source)) => creature::creature_file(scene, weights, source)?,
        (None, None) => {
            return Err(crate::error::ArgumentError::MissingArgument {
                argument: "--source",
                reason: "a Creature export needs the file the scene was imported from".into(),
            }
            .into())
        }
    };
    let summary = format!(
        ": {} with the weights of {} vertices on {} bones",
        source.map_or_else(|| "the source".into(), |s| s.display().to_string()),
        scene.mesh().vertex_count(),
        scene.skeleton().len()
    );
    Ok(Exported::new(text, summary))
}

/// One Polygon2D per part; a reminder for each texture not beside the output.
fn export_godot(scene: &Scene, weights: &Weights, o: &ExportOptions) -> Result<Exported> {
    let text = godot::export_godot(scene, weights, o.godot.number())?;
    let summary = format!(
        " (Godot {}): {} parts as Polygon2D nodes, {} bones",
        o.godot.number(),
        scene.mesh().parts().len(),
        scene.skeleton().len()
    );
    let mut out = Exported::new(text, summary);
    if let Some(output) = o.output.as_deref() {
        let out_dir = output.parent().unwrap_or(Path::new("."));
        for image in scene.art().iter().flat_map(|art| &art.images) {
            if let Some(file) = image.path.file_name() {
                if !out_dir.join(file).exists() {
                    out.reminders.push(format!(
                        "the scene's texture is res://{}: copy {} beside {}",
                        file.to_string_lossy(),
                        image.path.display(),
                        output.display()
                    ));
                }
            }
        }
    }
    Ok(out)
}

/// The weights into the source project's meshes, or a new project and its atlas.
fn export_spine(scene: &Scene, weights: &Weights, o: &ExportOptions) -> Result<Exported> {
    let options = spine::SpineExportOptions::default()
        .with_max_influences(o.max_influences)
        .with_regions_to_meshes(o.regions_to_meshes);
    let (out, json) = spine::spine_file(
        scene,
        weights,
        o.source.as_deref(),
        o.source_text.as_deref(),
        &options,
        &o.output_name(),
    )?;
    let summary = format!(
        ": {} mesh attachments with weighted vertices{}, {} bones{}",
        out.meshes,
        if out.regions_to_meshes > 0 {
            format!(" ({} of them regions before)", out.regions_to_meshes)
        } else {
            String::new()
        },
        scene.skeleton().len(),
        match (&out.atlas, o.output.as_deref()) {
            (Some(_), Some(path)) => format!(" (and {})", path.with_extension("atlas").display()),
            _ => String::new(),
        }
    );
    let mut exported = Exported::new(json, summary);
    exported.atlas = out.atlas;
    exported.notes = out.notes;
    exported.meshes = out.meshes;
    exported.regions_to_meshes = out.regions_to_meshes;
    exported.bent_regions = out.bent_regions;
    Ok(exported)
}
