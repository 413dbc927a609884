//! The errors of the crate: one small enum per domain ([`MeshError`], [`SkeletonError`],
//! [`FormatError`], ...), all nested in the one [`Error`] that library functions return.
//!
//! Every input error names what is wrong and where: the vertex, triangle, bone or field and,
//! where it helps, the offending value. Library code returns [`Result`]; only the binaries
//! print or exit. Match a variant through its domain:
//! `matches!(e, Error::Mesh(MeshError::EmptyMesh { .. }))`.

use std::path::PathBuf;

/// Result alias used across the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in skinweights: an error of one domain, or an I/O error.
#[allow(missing_docs)] // variant fields are named for what they hold; the variant docs explain them
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An error of a mesh ([`MeshError`]).
    #[error(transparent)]
    Mesh(#[from] MeshError),
    /// An error of a skeleton, a pose or an IK constraint ([`SkeletonError`]).
    #[error(transparent)]
    Skeleton(#[from] SkeletonError),
    /// An error of an animation clip ([`ClipError`]).
    #[error(transparent)]
    Clip(#[from] ClipError),
    /// An error of a corrective shape ([`CorrectiveError`]).
    #[error(transparent)]
    Corrective(#[from] CorrectiveError),
    /// An error of a weights matrix ([`WeightsError`]).
    #[error(transparent)]
    Weights(#[from] WeightsError),
    /// An error of a file format (reading or writing a file) ([`FormatError`]).
    #[error(transparent)]
    Format(#[from] FormatError),
    /// An error of an output (a write, a render, a plot) ([`OutputError`]).
    #[error(transparent)]
    Output(#[from] OutputError),
    /// An error of a scene, probe or clip named by name ([`SceneError`]).
    #[error(transparent)]
    Scene(#[from] SceneError),
    /// An error of an argument ([`ArgumentError`]).
    #[error(transparent)]
    Argument(#[from] ArgumentError),
    /// An error of a seam or a seam repair ([`SeamError`]).
    #[error(transparent)]
    Seam(#[from] SeamError),
    /// An error of a scene's art ([`ArtError`]).
    #[error(transparent)]
    Art(#[from] ArtError),
    /// An error of a solver ([`SolverError`]).
    #[error(transparent)]
    Solver(#[from] SolverError),
    /// An error of a batch run ([`BatchError`]).
    #[error(transparent)]
    Batch(#[from] BatchError),
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The disk (or device) is full: nothing was replaced (ENOSPC).
    #[error("{path}: no space left on the device (nothing was replaced)")]
    NoSpace { path: PathBuf },
    /// The operating system refused access to the path (EACCES / EPERM).
    #[error("{path}: permission denied")]
    PermissionDenied { path: PathBuf },
}

/// Errors of a mesh: its vertices and triangles, its parts, meshing an outline, and lists of
/// per-vertex (posed positions) or per-triangle values that must fit it.
#[allow(missing_docs)] // variant fields are named for what they hold; the variant docs explain them
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MeshError {
    /// The mesh has no vertices or no triangles.
    #[error("empty mesh: {vertices} vertices, {triangles} triangles (need at least 3 vertices and 1 triangle)")]
    EmptyMesh { vertices: usize, triangles: usize },
    /// A vertex coordinate is NaN or infinite.
    #[error("vertex {vertex} has a non-finite coordinate ({x}, {y})")]
    NonFiniteCoordinate { vertex: usize, x: f64, y: f64 },
    /// A triangle refers to a vertex that does not exist.
    #[error("triangle {triangle} refers to vertex {index}, but the mesh has only {vertex_count} vertices")]
    IndexOutOfRange {
        triangle: usize,
        index: usize,
        vertex_count: usize,
    },
    /// A triangle has (numerically) zero area or repeats a vertex.
    #[error("triangle {triangle} {corners:?} has zero area ({area:e})")]
    ZeroAreaTriangle {
        triangle: usize,
        corners: [usize; 3],
        area: f64,
    },
    /// The same three vertices appear in two triangles.
    #[error("triangle {triangle} {corners:?} repeats triangle {first}")]
    RepeatedTriangle {
        triangle: usize,
        first: usize,
        corners: [usize; 3],
    },
    /// An edge is used by more than two triangles (the mesh is not a 2-manifold).
    #[error("edge ({a}, {b}) is shared by {count} triangles (at most 2 allowed), e.g. triangle {triangle}")]
    NonManifoldEdge {
        a: usize,
        b: usize,
        count: usize,
        triangle: usize,
    },
    /// Two counter-clockwise triangles lie on the same side of their shared edge: the mesh
    /// folds over itself there (an artist mesh; [`crate::mesh::Mesh::from_artist`] accepts it).
    #[error("edge ({a}, {b}) is folded: triangles {first} and {second} lie on the same side of it and overlap (load it as an artist mesh)")]
    FoldedEdge {
        a: usize,
        b: usize,
        first: usize,
        second: usize,
    },
    /// Triangles around a vertex form several separate fans (the mesh is pinched there, or
    /// a triangle reaches across it).
    #[error("vertex {vertex} is non-manifold: its triangles form {fans} separate fans (a pinch, or a misplaced triangle index)")]
    NonManifoldVertex { vertex: usize, fans: usize },
    /// Some triangles are counter-clockwise and others clockwise.
    #[error("mixed orientation: triangle {triangle} {corners:?} is clockwise while {ccw} of {total} triangles are counter-clockwise")]
    MixedOrientation {
        triangle: usize,
        corners: [usize; 3],
        ccw: usize,
        total: usize,
    },
    /// Every triangle is clockwise (e.g. a y-down file); loaders flip these and say so.
    #[error("all {total} triangles are clockwise (y-down coordinates?); flip them or load through a scene loader, which does")]
    ClockwiseMesh { total: usize },
    /// A vertex is used by no triangle.
    #[error("vertex {vertex} is not used by any triangle")]
    UnreferencedVertex { vertex: usize },
    /// A per-vertex part index is out of range, or the list has the wrong length.
    #[error("vertex_parts: {problem}")]
    VertexParts { problem: VertexPartsProblem },
    /// Splitting a part out of a mesh leaves one of its vertices only on triangles that
    /// cross into other parts.
    #[error("part: vertex {vertex} of part {part:?} is only used by triangles that cross into other parts")]
    StrandedVertex { part: String, vertex: usize },
    /// Meshing an outline failed, or a mesh's structure check did.
    #[error("meshing failed: {problem}")]
    Meshing { problem: MeshingProblem },
    /// A list of posed positions does not have one position per mesh vertex.
    #[error("posed: {given} positions for a mesh of {vertices} vertices")]
    PosedPositions { given: usize, vertices: usize },
    /// A posed position is NaN or infinite.
    #[error("positions[{vertex}] is not finite: ({x}, {y})")]
    NonFinitePosition { vertex: usize, x: f64, y: f64 },
    /// The per-triangle layer list does not fit the mesh (wrong length, or a layer index
    /// without a name).
    #[error("triangle layers: {problem}")]
    TriangleLayers { problem: TriangleLayersProblem },
}

/// Errors of a skeleton, a pose and IK constraints: bones, parents, transforms, pose values.
#[allow(missing_docs)] // variant fields are named for what they hold; the variant docs explain them
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SkeletonError {
    /// The skeleton has no bones.
    #[error("the skeleton has no bones")]
    EmptySkeleton,
    /// Two bones share a name.
    #[error("bone name {name:?} is used by bones {first} and {second}")]
    DuplicateBone {
        name: String,
        first: usize,
        second: usize,
    },
    /// A bone names a parent that does not exist.
    #[error("bone {bone:?} names parent {parent:?}, which is not a bone of this skeleton")]
    UnknownParent { bone: String, parent: String },
    /// Following parents from a bone comes back to it.
    #[error("bone {bone:?} is its own ancestor (parent cycle: {cycle})")]
    ParentCycle { bone: String, cycle: String },
    /// A bone coordinate is NaN or infinite.
    #[error("bone {bone:?}: {field} is not finite")]
    NonFiniteBone { bone: String, field: &'static str },
    /// A bone's head and tail are finite but so far apart that its length overflows f64.
    #[error("bone {bone:?}: head {head:?} and tail {tail:?} are too far apart (the length overflows f64)")]
    BoneTooLong {
        bone: String,
        head: [f64; 2],
        tail: [f64; 2],
    },
    /// A bone (or pose, probe, weights file) names a part that the mesh does not have.
    #[error("{context}: unknown part {part:?} (the mesh has parts {known:?})")]
    UnknownPart {
        context: String,
        part: String,
        known: Vec<String>,
    },
    /// A pose, probe or weights file names a bone that the skeleton does not have.
    #[error("{context}: unknown bone {bone:?}")]
    UnknownBone { context: String, bone: String },
    /// A transform that must be inverted has determinant 0 (a scale of 0) or its inverse
    /// overflows; `context` names the bone.
    #[error("{context} is singular (determinant {determinant:e}): it cannot be inverted (a scale of 0?)")]
    SingularTransform { context: String, determinant: f64 },
    /// A bone's world transform overflows f64 (scales like 1e308 compounded down the chain).
    #[error("bone {bone:?}: its world transform overflows f64 (scales or translations too large)")]
    TransformOverflow { bone: String },
    /// A bone's head and the origin of its local transform's world frame disagree.
    #[error(
        "bone {bone:?}: head {head:?} is not the world origin {origin:?} of its local transform"
    )]
    LocalHeadMismatch {
        bone: String,
        head: [f64; 2],
        origin: [f64; 2],
    },
    /// A bone length is negative.
    #[error("bone {bone:?}: length {length} is negative")]
    NegativeBoneLength { bone: String, length: f64 },
    /// A list of per-bone pose offsets does not have one offset per bone.
    #[error("pose offsets: {given} offsets for {bones} bones")]
    PoseOffsets { given: usize, bones: usize },
    /// A half-angle helper asked for a bone without a parent: there is no joint to help.
    #[error("half-angle helper: bone {bone:?} has no parent: there is no joint to help")]
    HelperWithoutJoint { bone: String },
    /// A pose value is not finite.
    #[error("pose: bone {bone:?} has a non-finite {field}")]
    NonFinitePose { bone: String, field: &'static str },
    /// An IK constraint does not fit the skeleton or has bad values.
    #[error("IK constraint {constraint:?}: {message}")]
    InvalidIk { constraint: String, message: String },
}

/// Errors of an animation clip: the clip as a whole, its keys, how many keys it holds.
#[allow(missing_docs)] // variant fields are named for what they hold; the variant docs explain them
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClipError {
    /// A clip as a whole is invalid (duration, duplicate tracks, sampling time).
    #[error("clip {clip:?}: {message}")]
    InvalidClip { clip: String, message: String },
    /// A key of a clip channel is invalid (not finite, out of order, outside the clip, bad
    /// curve control points).
    #[error("clip {clip:?}, bone {bone:?}, channel {channel}, key {key}: {message}")]
    InvalidKey {
        clip: String,
        bone: String,
        channel: &'static str,
        key: usize,
        message: String,
    },
    /// Clips hold more keys than accepted (checked before sampling or allocating).
    #[error("clip {clip:?}: {count} keys is more than the {max} accepted")]
    TooManyKeys {
        clip: String,
        count: usize,
        max: usize,
    },
}

/// Errors of corrective shapes (per-joint vertex offsets keyed on a joint angle).
#[allow(missing_docs)] // variant fields are named for what they hold; the variant docs explain them
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CorrectiveError {
    /// A corrective names a bone with no parent: there is no joint angle to key it on.
    #[error(
        "corrective for bone {bone:?}: the bone has no parent, so there is no joint to correct"
    )]
    NotAJoint { bone: String },
    /// Two correctives for the same joint.
    #[error("joint {joint:?} has two correctives (correctives {first} and {second})")]
    DuplicateCorrective {
        joint: String,
        first: usize,
        second: usize,
    },
    /// A corrective has no key angles.
    #[error("corrective for joint {joint:?} has no keys")]
    EmptyCorrective { joint: String },
    /// A key angle or an offset of a corrective is NaN or infinite.
    #[error("corrective for joint {joint:?}, key {key}: {what} is not finite")]
    NonFiniteCorrective {
        joint: String,
        key: usize,
        what: String,
    },
    /// Key angles of a corrective are not strictly increasing.
    #[error("corrective for joint {joint:?}: key {key} is at {angle} degrees, not after key {} at {previous} degrees (keys must be in strictly increasing angle order)", .key - 1)]
    CorrectiveAngleOrder {
        joint: String,
        key: usize,
        angle: f64,
        previous: f64,
    },
    /// A corrective names a vertex the mesh does not have.
    #[error(
        "corrective for joint {joint:?}: vertex {vertex} out of range (the mesh has {vertices})"
    )]
    CorrectiveVertex {
        joint: String,
        vertex: usize,
        vertices: usize,
    },
    /// A corrective lists a vertex twice.
    #[error("corrective for joint {joint:?} lists vertex {vertex} twice")]
    DuplicateCorrectiveVertex { joint: String, vertex: usize },
    /// A corrective key does not have one offset per vertex.
    #[error("corrective for joint {joint:?}, key {key}: {given} offsets for {vertices} vertices")]
    CorrectiveOffsets {
        joint: String,
        key: usize,
        given: usize,
        vertices: usize,
    },
}

/// Errors of a weights matrix: its shape, its values, its row sums.
#[allow(missing_docs)] // variant fields are named for what they hold; the variant docs explain them
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WeightsError {
    /// A weights matrix has the wrong shape for the scene.
    #[error("weights shape mismatch: {problem}")]
    WeightsShape { problem: WeightsShapeProblem },
    /// A weight is NaN, infinite or negative.
    #[error("weight of vertex {vertex} for bone {bone} is {value} (must be finite and >= 0)")]
    InvalidWeight {
        vertex: usize,
        bone: usize,
        value: f64,
    },
    /// A weight row does not sum to 1.
    #[error("weights of vertex {vertex} sum to {sum} (must be 1 within {tolerance:e})")]
    RowSum {
        vertex: usize,
        sum: f64,
        tolerance: f64,
    },
    /// A weight row cannot be scored: its sum is 0, not finite, or absurdly large.
    #[error("weights of vertex {vertex} sum to {sum:e}: scoring needs every row to sum to more than 0 and at most 1e6 (an all-zero row, or entries that overflow)")]
    UnscorableRow { vertex: usize, sum: f64 },
}

/// Errors of the file formats: JSON, a field of a file (glTF, scene JSON, weights JSON,
/// binary), the rig formats (DragonBones, Spine, Creature, Godot, Spine atlases), images and
/// sprites read as input, and meshes or skins that a file holds and the toolkit cannot take.
#[allow(missing_docs)] // variant fields are named for what they hold; the variant docs explain them
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FormatError {
    /// A JSON file is not valid JSON or does not match the schema.
    #[error("{context}: {message}")]
    Json { context: String, message: String },
    /// A field of a file has a bad value. Only the file-format readers and writers
    /// (`io::gltf`, `io::scene_json`, `io::weights_json`, `io::binary`, DragonBones, Godot)
    /// return it: `field` names the field as the file spells it (`accessors[3].count`,
    /// `format`), `message` says what is wrong with its value. Errors about arguments,
    /// scenes, probes, art, renders and the like have their own variants.
    #[error("{field}: {message}")]
    InvalidField { field: String, message: String },
    /// An image file is not a PNG or cannot be decoded.
    #[error("{path}: not a readable PNG image ({message})")]
    Image { path: PathBuf, message: String },
    /// An input file is in a variant of a format this build does not read; `hint` says what
    /// to do instead.
    #[error("{path}: {format} is not supported: {hint}")]
    UnsupportedInput {
        path: PathBuf,
        format: String,
        hint: String,
    },
    /// A sprite image is larger than the tracer accepts (checked before decoding).
    #[error("{path}: {width} x {height} pixels is too large to trace (at most {max_side} pixels a side and {max_pixels} pixels in all)")]
    ImageTooLarge {
        path: PathBuf,
        width: u32,
        height: u32,
        max_side: u32,
        max_pixels: u64,
    },
    /// Every opaque island of a sprite traces to less than `min_area` square pixels (the
    /// tracer's minimum area); `largest` is the largest island's traced area.
    #[error("min_area: {image}: every opaque island is smaller than {min_area} square pixels: the largest traces to {largest} px² (marching squares cuts 1/8 px² off each convex pixel corner, so an island of n pixels traces to n - 1/2); lower min_area (--min-area) to keep it")]
    IslandsTooSmall {
        image: String,
        min_area: f64,
        largest: f64,
    },
    /// A sprite's traced outline keeps more points than meshing accepts (`budget`: 10 per
    /// requested vertex, at least `min_budget`), checked before meshing.
    #[error("outline: {image}: the traced outline keeps {points} points in {loops} loops, more than {budget} (10 per requested vertex, at least {min_budget}); raise the tolerance or the minimum area, or ask for more vertices")]
    OutlineTooComplex {
        image: String,
        points: usize,
        loops: usize,
        budget: usize,
        min_budget: usize,
    },
    /// A sprite has no pixel opaque enough to trace.
    #[error("{image}: no pixel has alpha >= {threshold} (the image is fully transparent at this threshold)")]
    TransparentImage { image: String, threshold: u8 },
    /// A DragonBones, Spine or Creature file has a missing or bad value: `format` names the
    /// format, `context` names the part of the file (DragonBones: the armature, bone, slot or
    /// mesh; Spine: the skeleton, bone, slot, skin or attachment; Creature: the mesh, region,
    /// bone, clip and frame), `field` the JSON field, `vertex` the mesh vertex (Creature: the
    /// file's point index) when there is one.
    #[error("{format} {context}: {field}{}: {message}", .vertex.map(|v| format!(", vertex {v}")).unwrap_or_default())]
    Rig {
        format: RigFormat,
        context: String,
        field: String,
        vertex: Option<usize>,
        message: String,
    },
    /// A Spine (libgdx) text atlas has a syntax error or a bad value: `line` is 1-based.
    #[error("Spine atlas {file} line {line}: {message}")]
    SpineAtlas {
        file: String,
        line: usize,
        message: String,
    },
    /// A Godot `.tscn` scene has a syntax error or a missing or bad value: `line` is the
    /// 1-based line in the file, `field` names the node or resource and its property.
    #[error("Godot scene line {line}: {field}: {message}")]
    Godot {
        line: usize,
        field: String,
        message: String,
    },
    /// An imported mesh does not lie in one plane z = const.
    #[error("vertex {vertex} lies at z = {z}, off the mesh's plane z = {plane_z} (only flat meshes can be imported)")]
    NonPlanarMesh { vertex: usize, z: f64, plane_z: f64 },
    /// An imported vertex has weight on a joint the skin does not have.
    #[error("vertex {vertex} is weighted to joint {joint}, but the skin has {joints} joints")]
    JointOutOfRange {
        vertex: usize,
        joint: usize,
        joints: usize,
    },
}

/// Errors of outputs: where a file is written (the atomic writes of `io::atomic`), renders,
/// plots, and images and animations put together.
#[allow(missing_docs)] // variant fields are named for what they hold; the variant docs explain them
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OutputError {
    /// Refusing to overwrite a file the user did not ask to overwrite.
    #[error("{path} already exists (pass --force to overwrite)")]
    WouldOverwrite { path: PathBuf },
    /// An output path names a folder.
    #[error("{path} is a folder; name a file to write")]
    OutputIsDirectory { path: PathBuf },
    /// An output path names no file (`/`, `..`).
    #[error("{path} names no file")]
    OutputNamesNoFile { path: PathBuf },
    /// Following an output symlink came back to itself (or went on too long).
    #[error("{path}: more than {hops} symlinks to follow (a loop?)")]
    SymlinkLoop { path: PathBuf, hops: usize },
    /// An output's extension names a format this build does not write (e.g. `render --clip
    /// OUT.gif`); `supported` lists the extensions that work.
    #[error("{path}: cannot write .{extension} files here; use {supported}")]
    UnsupportedOutput {
        path: PathBuf,
        extension: String,
        supported: String,
    },
    /// A render would be larger than the renderer accepts (checked before allocating).
    #[error("a {width} x {height} pixel render at {samples} x {samples} samples is too large (at most {max_side} pixels a side and {max_pixels} pixels in all): lower the scale")]
    RenderTooLarge {
        width: u64,
        height: u64,
        samples: u32,
        max_side: u64,
        max_pixels: u64,
    },
    /// Plotting failed.
    #[error("plot: {message}")]
    Plot { message: String },
    /// Nothing to put together: no frames (`what` names the output, e.g. `apng`).
    #[error("{what}: no frames to put together")]
    NoFrames { what: &'static str },
    /// A frame whose size differs from frame 0 of the same output.
    #[error("{what}: frame {frame} is {} x {} px, frame 0 {} x {} px", .size.0, .size.1, .first.0, .first.1)]
    FrameSize {
        what: &'static str,
        frame: usize,
        size: (u32, u32),
        first: (u32, u32),
    },
    /// Images put side by side whose heights differ from image 0's.
    #[error("side by side: image {image} is {height} px high, image 0 {first} px")]
    ImageHeight {
        image: usize,
        height: u32,
        first: u32,
    },
    /// An animation whose frame times are not one per frame.
    #[error("apng: {given} frame times for {frames} frames")]
    FrameTimes { given: usize, frames: usize },
    /// A pixel mask that is not one flag per pixel.
    #[error("excluded: {given} flags for {pixels} pixels")]
    MaskSize { given: usize, pixels: usize },
    /// A view fitted around no points.
    #[error("points: nothing to frame")]
    NothingToFrame,
    /// A render whose size differs from the frame it is measured in.
    #[error("{render}: render is {got:?} pixels, the frame {frame:?}")]
    RenderSize {
        render: &'static str,
        got: (u32, u32),
        frame: (u32, u32),
    },
}

/// Errors of scenes, their probes and clips named by name: built-in scenes, probes, clips.
#[allow(missing_docs)] // variant fields are named for what they hold; the variant docs explain them
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SceneError {
    /// No built-in scene has this name; `known` lists the names.
    #[error("scene: unknown built-in scene {name:?} (known: {known})")]
    UnknownBuiltin { name: String, known: String },
    /// A scene has no clip of this name; `known` lists its clips.
    #[error("clip: scene {scene:?} has no clip {clip:?} (it has: {known:?})")]
    UnknownClip {
        scene: String,
        clip: String,
        known: Vec<String>,
    },
    /// A scene has no probe of this name; `known` lists its probes.
    #[error("probe: scene {scene:?} has no probe {probe:?} (it has: {known:?})")]
    UnknownProbe {
        scene: String,
        probe: String,
        known: Vec<String>,
    },
    /// A probe was asked for (the first by default) and the scene has none.
    #[error("probe: scene {scene:?} has no probes (add one under `probes` in the scene file, or in a sprite's bones file: docs/formats.md; or score a clip with --clip NAME)")]
    NoProbes { scene: String },
    /// Two probes of a scene share a name (probes `first` and `second`).
    #[error("probes[{second}].name: probe name {name:?} is used by probes {first} and {second}")]
    DuplicateProbe {
        name: String,
        first: usize,
        second: usize,
    },
    /// A probe watches a vertex the mesh does not have.
    #[error(
        "probes[{probe:?}].watch.vertices: vertex {vertex} out of range (mesh has {vertex_count})"
    )]
    ProbeVertex {
        probe: String,
        vertex: usize,
        vertex_count: usize,
    },
    /// A probe's watch selects no vertex: it would measure nothing (and pass).
    #[error("probes[{probe:?}].watch: selects no vertex of the mesh, so the probe cannot measure anything")]
    ProbeWatchesNothing { probe: String },
    /// A probe watches by distance from the moved bones (`watch.min_distance`) but its pose
    /// moves no bone.
    #[error("probes[{probe:?}].watch.min_distance: needs a pose that moves at least one bone")]
    ProbeMovesNoBone { probe: String },
    /// A measure of a probe's pose came out NaN or infinite: the pose moves vertices too far
    /// for f64 (e.g. a translation of 1e308). `measure` names the measure.
    #[error("probes[{probe:?}].pose: {measure} came out {value}: the pose moves vertices too far to measure in f64")]
    UnmeasurablePose {
        probe: String,
        measure: &'static str,
        value: f64,
    },
    /// A weight transfer was given no source mesh with a triangle and a weighted vertex:
    /// `given` names what was asked for (the parts, skin or file).
    #[error("transfer: no weighted source mesh in {given} (a source needs a triangle with a weighted corner)")]
    EmptyTransferSource { given: String },
    /// A weight transfer's target part has no vertex to weight.
    #[error("transfer: target part {part:?} has no vertex")]
    EmptyTransferTarget { part: String },
}

/// Errors of an argument a user gives through a library function: a command-line flag, a
/// setting of a built-in scene generator or of a render view, an option of a batch run.
#[allow(missing_docs)] // variant fields are named for what they hold; the variant docs explain them
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ArgumentError {
    /// An argument (a command-line flag, a setting of a built-in scene generator or of a
    /// render view) has a bad value: `argument` names it, `value` is the value as given,
    /// `reason` says what is wrong (and repeats the value where the message shows it).
    #[error("{argument}: {reason}")]
    InvalidArgument {
        argument: &'static str,
        value: String,
        reason: String,
    },
    /// A command or request lacks an argument it needs: `argument` names the argument (or
    /// the command when any of several would do), `reason` says what to give.
    #[error("{argument}: {reason}")]
    MissingArgument {
        argument: &'static str,
        reason: String,
    },
}

/// Errors of seams and their repairs: seam members, layers, repair amounts.
#[allow(missing_docs)] // variant fields are named for what they hold; the variant docs explain them
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SeamError {
    /// A seam names a vertex the mesh does not have.
    #[error("seam {seam}: vertex {vertex} is out of range (the mesh has {vertex_count} vertices)")]
    SeamVertexOutOfRange {
        seam: String,
        vertex: usize,
        vertex_count: usize,
    },
    /// A vertex is in two seams (or twice in one): its weights would depend on the order.
    #[error("seam {seam}: vertex {vertex} is already in seam {first} (a vertex belongs to one seam at most)")]
    SeamVertexRepeated {
        seam: String,
        vertex: usize,
        first: String,
    },
    /// The members of a joint are not at one rest position.
    #[error("seam {seam}: vertex {vertex} is {distance:e} px from vertex {other}; the vertices of a joint share one rest position (weld them first: repair --weld TOL)")]
    SeamSpread {
        seam: String,
        vertex: usize,
        other: usize,
        distance: f64,
    },
    /// A seam repair or measure needs two or more layers (parts drawn separately) and the
    /// scene has one.
    #[error("scene {scene:?} has a single layer (part {part:?}): seam repairs need two or more layers (parts drawn separately)")]
    SingleLayer { scene: String, part: String },
    /// A repair or measure amount (a tolerance, a width, an area, a strength) outside its
    /// range: `expected` says what it must be.
    #[error("{option}: must be {expected}, got {value}")]
    InvalidAmount {
        option: String,
        value: f64,
        expected: &'static str,
    },
    /// A repair amount that would weld or cover a whole layer instead of its edge.
    #[error("{option}: {}", .problem.describe(.layer))]
    RepairTooLarge {
        option: String,
        layer: String,
        problem: RepairProblem,
    },
    /// A seam that cannot be applied (too few members, bad barycentric coordinates, a chain).
    #[error("seam {seam}: {problem}")]
    InvalidSeam { seam: String, problem: SeamProblem },
}

/// Errors of a scene's art: its layers, images, texture coordinates, textures and per-vertex
/// colours.
#[allow(missing_docs)] // variant fields are named for what they hold; the variant docs explain them
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ArtError {
    /// A scene without art given to a step that reads its art.
    #[error("art: scene {scene:?} has no art")]
    NoArt { scene: String },
    /// A scene that already has art given to a step that would replace it.
    #[error("art: scene {scene:?} already has art")]
    HasArt { scene: String },
    /// Per-vertex colours that are not one per vertex.
    #[error("colours: {given} colours for {vertices} vertices")]
    VertexColours { given: usize, vertices: usize },
    /// Art whose texture coordinates are not one per mesh vertex.
    #[error("art.uvs: has {given} texture coordinates, the mesh has {vertices} vertices")]
    ArtUvs { given: usize, vertices: usize },
    /// An art texture coordinate is NaN or infinite.
    #[error("art.uvs[{vertex}]: ({u}, {v}) is not finite")]
    NonFiniteUv { vertex: usize, u: f64, v: f64 },
    /// An art texture coordinate lies outside its layer's image (`width` x `height` pixels).
    #[error(
        "art.uvs[{vertex}]: ({u}, {v}) is outside image {image:?} ({width} x {height} pixels)"
    )]
    UvOutsideImage {
        vertex: usize,
        u: f64,
        v: f64,
        image: String,
        width: f64,
        height: f64,
    },
    /// Two art layers draw the same part.
    #[error("art.layers[{layer}]: part {part:?} is listed twice")]
    DuplicateLayer { layer: usize, part: String },
    /// An art layer names an image the art does not have.
    #[error("art.layers[{layer}].image: image {image} out of range ({images} images)")]
    LayerImage {
        layer: usize,
        image: usize,
        images: usize,
    },
    /// A part that no art layer draws.
    #[error("art.layers: part {part:?} is not drawn: list every part once, back to front")]
    UndrawnPart { part: String },
    /// Textures given for art that are not one per art image.
    #[error("textures: {given} textures for {images} art images")]
    TextureCount { given: usize, images: usize },
    /// Painting a part (number `part`, called `name`) would need an image over `max` pixels a
    /// side.
    #[error("parts[{part}]: {name:?} needs a {width} x {height} image (limit {max} a side)")]
    LayerTooLarge {
        part: usize,
        name: String,
        width: f64,
        height: f64,
        max: u32,
    },
}

/// Errors of the solvers: unknown solvers, solver options, linear algebra.
#[allow(missing_docs)] // variant fields are named for what they hold; the variant docs explain them
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SolverError {
    /// No solver has this name.
    #[error("unknown solver {name:?}; known: {known}")]
    UnknownSolver { name: String, known: String },
    /// A solver option is out of range.
    #[error("solver option {option}: {message}")]
    InvalidOption { option: String, message: String },
    /// A sparse factorization or solve failed.
    #[error("linear algebra: {problem}")]
    LinearAlgebra { problem: LinearAlgebraProblem },
    /// A solver cannot produce weights for this input.
    #[error("solver {solver}: {message}")]
    Solver { solver: String, message: String },
}

/// Errors of batch runs: inputs that are no item, patterns that match nothing, steps that panicked.
#[allow(missing_docs)] // variant fields are named for what they hold; the variant docs explain them
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BatchError {
    /// A batch input is no item: not a scene, a rig nor a sprite (`reason` says what it is).
    #[error("{path}: not a scene, rig or sprite: {reason}")]
    NotAnItem { path: PathBuf, reason: String },
    /// A sprite given to a batch has no bones file beside it.
    #[error("{path}: a sprite needs a bones file beside it: none of {tried}")]
    SpriteWithoutBones { path: PathBuf, tried: String },
    /// A batch input pattern (a glob) matches no file.
    #[error("{pattern}: matches no file")]
    NoMatch { pattern: String },
    /// A step panicked (a bug): caught so that the rest of the batch goes on.
    #[error("{context}: panicked: {message}")]
    Panicked { context: String, message: String },
}

/// Why meshing an outline failed, or which structure check of a mesh did
/// ([`MeshError::Meshing`]).
#[allow(missing_docs)] // fields are named for what they hold; the variant docs explain them
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum MeshingProblem {
    /// The target vertex count is outside `3..=max`.
    #[error("target vertex count {target} is outside 3..={max}")]
    TargetVertices { target: usize, max: usize },
    /// The outline's area, which calibration scales from, is zero or not finite.
    #[error("outline area {area} is not positive and finite")]
    OutlineArea { area: f64 },
    /// Calibrating the triangle area ran no meshing pass.
    #[error("calibration ran no pass")]
    NoCalibrationPass,
    /// The minimum angle is outside `0..=max` degrees.
    #[error("min_angle_deg {degrees} is outside 0..={max}")]
    MinAngle { degrees: f64, max: f64 },
    /// The maximum triangle area is zero, negative or not finite.
    #[error("max_area {max_area} must be positive and finite")]
    MaxArea { max_area: f64 },
    /// A point of the outline (or of a labelled region) is NaN, infinite or too far out.
    #[error("{place} has a non-finite or out-of-range coordinate ({x}, {y})")]
    BadCoordinate { place: OutlinePlace, x: f64, y: f64 },
    /// The outline has no loops.
    #[error("the outline has no loops")]
    NoLoops,
    /// A loop has fewer than 3 distinct points or zero area.
    #[error("loop {loop_index} is degenerate ({points} distinct points, zero area)")]
    DegenerateLoop { loop_index: usize, points: usize },
    /// Two loop edges touch away from a shared vertex.
    #[error("the outline overlaps itself: edge {edge} of loop {loop_index} meets edge {other_edge} of loop {other_loop} away from a shared vertex")]
    OverlappingOutline {
        loop_index: usize,
        edge: usize,
        other_loop: usize,
        other_edge: usize,
    },
    /// The triangulator refused a point (`detail`: spade's own words).
    #[error("spade rejected point ({x}, {y}): {detail}")]
    PointRejected { x: f64, y: f64, detail: String },
    /// A loop edge crosses another loop edge.
    #[error("loop {loop_index} edge {edge} crosses another loop edge")]
    LoopEdgeCrosses { loop_index: usize, edge: usize },
    /// A segment (a bone inside the outline) crosses the outline or another segment.
    #[error("segment {segment} crosses the outline or another segment")]
    SegmentCrosses { segment: usize },
    /// The area bound would need more vertices than meshing allows on this outline.
    #[error("max area {max_area:e} would need more than {max} vertices on a {width:e} x {height:e} outline")]
    TooManyVertices {
        max_area: f64,
        max: usize,
        width: f64,
        height: f64,
    },
    /// The triangulator's refinement panicked (`detail`: its panic message).
    #[error("spade's mesh refinement failed on this outline ({detail}); simplifying it (a tracing tolerance above 0) or a lower minimum angle usually avoids this")]
    RefinementFailed { detail: String },
    /// Refinement used its whole vertex budget before meeting the area and angle bounds.
    #[error("refinement stopped after {budget} additional vertices without reaching max area {max_area:e} and min angle {min_angle_deg} degrees")]
    RefinementIncomplete {
        budget: usize,
        max_area: f64,
        min_angle_deg: f64,
    },
    /// The triangulation has a triangle of (numerically) zero area at these corners.
    #[error("the triangulation has a degenerate triangle at ({}, {}), ({}, {}), ({}, {}): outline points or bone ends lie closer together than f64 separates at this distance from the origin; move them apart or bring the drawing nearer the origin", .corners[0][0], .corners[0][1], .corners[1][0], .corners[1][1], .corners[2][0], .corners[2][1])]
    DegenerateTriangle { corners: [[f64; 2]; 3] },
    /// An artist mesh's stored triangle turns clockwise.
    #[error(
        "artist mesh sanity check failed: stored triangle {triangle} {corners:?} is clockwise"
    )]
    ClockwiseArtistTriangle {
        triangle: usize,
        corners: [usize; 3],
    },
    /// The mesh has more vertices or triangle corners than the topology's indices hold.
    #[error("{vertices} vertices and {triangles} triangles exceed the indices topology supports (2^32 vertices, 2^31 corners)")]
    TooLargeForTopology { vertices: usize, triangles: usize },
    /// A topology's stored structure disagrees with its mesh.
    #[error("topology sanity check failed: {check}")]
    TopologyBroken { check: &'static str },
    /// A vertex of a half mesh to be mirrored lies on the wrong side of the axis.
    #[error("half mesh vertex {vertex} ({x}, {y}) lies on the wrong side of the mirror axis")]
    MirrorWrongSide { vertex: usize, x: f64, y: f64 },
}

/// Which point of an outline a [`MeshingProblem::BadCoordinate`] is.
#[allow(missing_docs)] // fields are named for what they hold; the variant docs explain them
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum OutlinePlace {
    /// Point `point` of loop `loop_index`.
    LoopPoint { loop_index: usize, point: usize },
    /// An end of segment `segment`.
    Segment { segment: usize },
    /// A point of the labelled region of part `part`.
    Region { part: String },
}

impl std::fmt::Display for OutlinePlace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OutlinePlace::LoopPoint { loop_index, point } => {
                write!(f, "loop {loop_index} point {point}")
            }
            OutlinePlace::Segment { segment } => write!(f, "segment {segment}"),
            OutlinePlace::Region { part } => write!(f, "region {part:?}"),
        }
    }
}

/// What is wrong with per-vertex part labels or the regions that assign them
/// ([`MeshError::VertexParts`]).
#[allow(missing_docs)] // fields are named for what they hold; the variant docs explain them
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum VertexPartsProblem {
    /// Parts were to be assigned from labelled regions, and none was given.
    #[error("no labelled regions given")]
    NoRegions,
    /// A labelled region has fewer than 3 points.
    #[error("region {part:?} has {points} points (need 3)")]
    RegionTooSmall { part: String, points: usize },
    /// A vertex lies inside none of the labelled regions.
    #[error("vertex {vertex} at ({x}, {y}) lies in no labelled region")]
    OutsideRegions { vertex: usize, x: f64, y: f64 },
    /// The mesh has no part names.
    #[error("no part names given")]
    NoParts,
    /// A part name is listed twice (parts `first` and `second`).
    #[error("part name {name:?} is listed twice (parts {first} and {second})")]
    DuplicatePart {
        name: String,
        first: usize,
        second: usize,
    },
    /// The per-vertex part list does not have one label per vertex.
    #[error("{labels} labels for {vertices} vertices")]
    LabelCount { labels: usize, vertices: usize },
    /// A vertex's part index has no part name.
    #[error("vertex {vertex} has part {part}, but there are only {parts} parts")]
    PartOutOfRange {
        vertex: usize,
        part: usize,
        parts: usize,
    },
}

/// What is wrong with a per-triangle layer list ([`MeshError::TriangleLayers`]).
#[allow(missing_docs)] // fields are named for what they hold; the variant docs explain them
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TriangleLayersProblem {
    /// The list does not have one layer per triangle.
    #[error("{layers} layers for a mesh of {triangles} triangles")]
    Count { layers: usize, triangles: usize },
    /// A triangle's layer index has no layer name.
    #[error("triangle {triangle} is in layer {layer}, but there are {names} layer names")]
    UnnamedLayer {
        triangle: usize,
        layer: usize,
        names: usize,
    },
}

/// Why a repair amount is too large for a layer ([`SeamError::RepairTooLarge`], which names
/// the layer).
#[allow(missing_docs)] // fields are named for what they hold; the variant docs explain them
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum RepairProblem {
    /// `amount` px is more than half the layer's `thickness` (2 x area / boundary length).
    HalfTheThickness { amount: f64, thickness: f64 },
    /// Welding at `tolerance` px moves `vertex` by `moved` px and folds `triangle`.
    FoldsTriangle {
        tolerance: f64,
        vertex: usize,
        moved: f64,
        triangle: usize,
    },
    /// Welding at `tolerance` px would move `moved` of the layer's `total` vertices.
    MovesMostOfLayer {
        tolerance: f64,
        moved: usize,
        total: usize,
    },
}

impl RepairProblem {
    /// The problem in words, naming `layer`.
    pub fn describe(&self, layer: &str) -> String {
        match self {
            RepairProblem::HalfTheThickness { amount, thickness } => format!(
                "{amount} px is more than half the thickness of layer {layer:?} ({thickness:.3} px = \
                 2 x area / boundary length): it would weld or cover the whole layer, not its \
                 edge; use a value below {:.3}",
                0.5 * thickness
            ),
            RepairProblem::FoldsTriangle {
                tolerance,
                vertex,
                moved,
                triangle,
            } => format!(
                "{tolerance} px is too large here: welding moves vertex {vertex} of layer \
                 {layer:?} by {moved:.4} px and folds triangle {triangle}; use a smaller tolerance"
            ),
            RepairProblem::MovesMostOfLayer {
                tolerance,
                moved,
                total,
            } => format!(
                "{tolerance} px would move {moved} of the {total} vertices of layer {layer:?} \
                 (more than half): that welds the whole layer, not its edge; use a smaller \
                 tolerance"
            ),
        }
    }
}

/// Why a seam cannot be applied ([`SeamError::InvalidSeam`]).
#[allow(missing_docs)] // fields are named for what they hold; the variant docs explain them
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SeamProblem {
    /// A joint with fewer than two members.
    #[error("{members} member(s): a joint needs two or more")]
    TooFewMembers { members: usize },
    /// A weld's source triangle has a vertex that is itself a weld target.
    #[error("source vertex {vertex} is itself a weld target (welds do not chain)")]
    ChainedWeld { vertex: usize },
    /// A weld's barycentric coordinates (of its target `vertex`) are NaN or infinite.
    #[error("vertex {vertex}: barycentric coordinates {at:?} are not finite")]
    NonFiniteBarycentric { vertex: usize, at: [f64; 3] },
    /// A weld's coordinates (of its target `vertex`) are negative or do not sum to 1.
    #[error("vertex {vertex}: {at:?} are not barycentric coordinates (each >= 0, sum 1)")]
    NotBarycentric { vertex: usize, at: [f64; 3] },
}

/// What is wrong with the shape of a weights matrix (or a weights file, or what it is checked
/// against) ([`WeightsError::WeightsShape`]).
#[allow(missing_docs)] // fields are named for what they hold; the variant docs explain them
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WeightsShapeProblem {
    /// The weights are `found` (vertices, bones) where `expected` (vertices, bones) is
    /// needed; `context` names what they were checked against (`scene`, `sub-scene "arm"`,
    /// `transfer source ...`).
    #[error("{context}: weights are {} vertices x {} bones, expected {} vertices x {} bones", .found.0, .found.1, .expected.0, .expected.1)]
    Dimensions {
        context: String,
        found: (usize, usize),
        expected: (usize, usize),
    },
    /// Weights written back by a transfer to `part` must have `bones` bones and at least
    /// `min_vertices` rows; they are `found` (vertices, bones).
    #[error("transfer to {part:?}: weights are {} vertices x {} bones, the transfer needs at least {min_vertices} vertices x {bones} bones", .found.0, .found.1)]
    TransferRows {
        part: String,
        found: (usize, usize),
        min_vertices: usize,
        bones: usize,
    },
    /// A row does not have one entry per bone.
    #[error("row {row} has {entries} entries, expected {bones} (one per bone)")]
    RowLength {
        row: usize,
        entries: usize,
        bones: usize,
    },
    /// A row-major buffer whose length is not a multiple of the bone count (or 0 bones).
    #[error("{entries} entries is not a multiple of {bones} bones")]
    NotAMultiple { entries: usize, bones: usize },
    /// A weights file does not have one row per scene vertex.
    #[error("the weights file has {rows} rows, the scene has {vertices} vertices")]
    RowCount { rows: usize, vertices: usize },
    /// A weights file names a bone twice (columns `first` and `second`).
    #[error("the weights file names bone {bone:?} twice (columns {first} and {second})")]
    DuplicateBone {
        bone: String,
        first: usize,
        second: usize,
    },
    /// A bone of the scene has no column in the weights file (`file_bones` are its columns).
    #[error("the scene's bone {bone:?} is missing from the weights file (it has {file_bones:?})")]
    MissingBone {
        bone: String,
        file_bones: Vec<String>,
    },
    /// A weights file has a column for a bone the scene does not have.
    #[error("the weights file has bone {bone:?}, which the scene does not have")]
    ExtraBone { bone: String },
    /// An artist mesh names a vertex past the scene's `vertices`.
    #[error("artist mesh vertex {vertex} is out of range ({vertices} vertices)")]
    ArtistVertex { vertex: usize, vertices: usize },
    /// An artist mesh names a bone past the scene's `bones`.
    #[error("artist mesh bone {bone} is out of range ({bones} bones)")]
    ArtistBone { bone: usize, bones: usize },
    /// A triangle of a transfer source (`given` names the source) names a vertex past its
    /// `vertices`.
    #[error("transfer source {given}: triangle {triangle:?} names a vertex past {vertices}")]
    SourceTriangle {
        given: String,
        triangle: [usize; 3],
        vertices: usize,
    },
    /// More vertices than the clip metrics' 32-bit indices reach.
    #[error(
        "{vertices} vertices: the clip metrics index vertices and weight entries with 32 bits"
    )]
    TooManyVertices { vertices: usize },
}

/// What went wrong in a sparse factorization or solve ([`SolverError::LinearAlgebra`]).
#[allow(missing_docs)] // fields are named for what they hold; the variant docs explain them
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LinearAlgebraProblem {
    /// A diagonal term added to a Laplacian does not have one entry per vertex.
    #[error("diagonal term has {given} entries for {vertices} vertices")]
    DiagonalLength { given: usize, vertices: usize },
    /// A fill-reducing ordering does not have one entry per row.
    #[error("ordering has {given} entries for {rows} rows")]
    OrderingLength { given: usize, rows: usize },
    /// A fill-reducing ordering repeats a row or names one past the end.
    #[error("ordering is not a permutation (row {row})")]
    NotAPermutation { row: usize },
    /// The symbolic Cholesky analysis failed; `detail` is faer's error.
    #[error("symbolic Cholesky: {detail}")]
    Symbolic { detail: String },
    /// The numeric Cholesky factorization failed; `detail` is faer's error.
    #[error("the system is not positive definite ({detail})")]
    NotPositiveDefinite { detail: String },
}

/// A rig format the toolkit reads and writes: the one "which format" type. It shows as the
/// format's name in its tool's spelling ("DragonBones"). Each format's folder in `io`
/// defines its constant (`RigFormat::SPINE`), and its row of the format table (CLI name,
/// extensions, detection, import and export) is `io::Format` (feature `io`).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct RigFormat {
    name: &'static str,
}

impl RigFormat {
    /// The format its tool calls `name`: only a format's folder names one, beside its row.
    #[cfg_attr(not(feature = "io"), allow(dead_code))] // the folders are `io`'s
    pub(crate) const fn named(name: &'static str) -> Self {
        Self { name }
    }
}

impl std::fmt::Display for RigFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl std::fmt::Debug for RigFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("RigFormat").field(&self.name).finish()
    }
}

impl Error {
    /// Wraps an I/O error with the path it concerns.
    /// A full disk (ENOSPC) is [`Error::NoSpace`], a refused permission (EACCES, EPERM)
    /// [`Error::PermissionDenied`], so callers can match them.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        let path = path.into();
        match source.kind() {
            std::io::ErrorKind::StorageFull => Error::NoSpace { path },
            std::io::ErrorKind::PermissionDenied => Error::PermissionDenied { path },
            _ => Error::Io { path, source },
        }
    }

    /// Names the file a JSON error came from (other errors already say what they concern).
    pub fn in_file(self, path: &std::path::Path) -> Self {
        match self {
            Error::Format(FormatError::Json { message, .. }) => FormatError::Json {
                context: path.display().to_string(),
                message,
            }
            .into(),
            e => e,
        }
    }

    /// An invalid-field error ([`FormatError::InvalidField`]): only the file-format readers
    /// and writers of `io` return it.
    pub fn field(field: impl Into<String>, message: impl Into<String>) -> Self {
        FormatError::InvalidField {
            field: field.into(),
            message: message.into(),
        }
        .into()
    }

    /// The name of the variant that says what went wrong: the domain error's variant
    /// (`EmptyMesh`, `Json`, `NoMatch`), the rig format for a [`FormatError::Rig`]
    /// (`DragonBones`, `Spine`, `Creature`), or `Io`, `NoSpace`, `PermissionDenied`.
    pub fn variant_name(&self) -> &'static str {
        match self {
            Error::Format(FormatError::Rig { format, .. }) => format.name,
            Error::Mesh(e) => e.variant_name(),
            Error::Skeleton(e) => e.variant_name(),
            Error::Clip(e) => e.variant_name(),
            Error::Corrective(e) => e.variant_name(),
            Error::Weights(e) => e.variant_name(),
            Error::Format(e) => e.variant_name(),
            Error::Output(e) => e.variant_name(),
            Error::Scene(e) => e.variant_name(),
            Error::Argument(e) => e.variant_name(),
            Error::Seam(e) => e.variant_name(),
            Error::Art(e) => e.variant_name(),
            Error::Solver(e) => e.variant_name(),
            Error::Batch(e) => e.variant_name(),
            Error::Io { .. } => "Io",
            Error::NoSpace { .. } => "NoSpace",
            Error::PermissionDenied { .. } => "PermissionDenied",
        }
    }
}

impl MeshError {
    /// The variant's name, e.g. `EmptyMesh` (what [`Error::variant_name`] reports).
    pub fn variant_name(&self) -> &'static str {
        match self {
            Self::EmptyMesh { .. } => "EmptyMesh",
            Self::NonFiniteCoordinate { .. } => "NonFiniteCoordinate",
            Self::IndexOutOfRange { .. } => "IndexOutOfRange",
            Self::ZeroAreaTriangle { .. } => "ZeroAreaTriangle",
            Self::RepeatedTriangle { .. } => "RepeatedTriangle",
            Self::NonManifoldEdge { .. } => "NonManifoldEdge",
            Self::FoldedEdge { .. } => "FoldedEdge",
            Self::NonManifoldVertex { .. } => "NonManifoldVertex",
            Self::MixedOrientation { .. } => "MixedOrientation",
            Self::ClockwiseMesh { .. } => "ClockwiseMesh",
            Self::UnreferencedVertex { .. } => "UnreferencedVertex",
            Self::VertexParts { .. } => "VertexParts",
            Self::StrandedVertex { .. } => "StrandedVertex",
            Self::Meshing { .. } => "Meshing",
            Self::PosedPositions { .. } => "PosedPositions",
            Self::NonFinitePosition { .. } => "NonFinitePosition",
            Self::TriangleLayers { .. } => "TriangleLayers",
        }
    }
}

impl SkeletonError {
    /// The variant's name, e.g. `EmptySkeleton` (what [`Error::variant_name`] reports).
    pub fn variant_name(&self) -> &'static str {
        match self {
            Self::EmptySkeleton => "EmptySkeleton",
            Self::DuplicateBone { .. } => "DuplicateBone",
            Self::UnknownParent { .. } => "UnknownParent",
            Self::ParentCycle { .. } => "ParentCycle",
            Self::NonFiniteBone { .. } => "NonFiniteBone",
            Self::BoneTooLong { .. } => "BoneTooLong",
            Self::UnknownPart { .. } => "UnknownPart",
            Self::UnknownBone { .. } => "UnknownBone",
            Self::SingularTransform { .. } => "SingularTransform",
            Self::TransformOverflow { .. } => "TransformOverflow",
            Self::LocalHeadMismatch { .. } => "LocalHeadMismatch",
            Self::NegativeBoneLength { .. } => "NegativeBoneLength",
            Self::PoseOffsets { .. } => "PoseOffsets",
            Self::HelperWithoutJoint { .. } => "HelperWithoutJoint",
            Self::NonFinitePose { .. } => "NonFinitePose",
            Self::InvalidIk { .. } => "InvalidIk",
        }
    }
}

impl ClipError {
    /// The variant's name, e.g. `InvalidClip` (what [`Error::variant_name`] reports).
    pub fn variant_name(&self) -> &'static str {
        match self {
            Self::InvalidClip { .. } => "InvalidClip",
            Self::InvalidKey { .. } => "InvalidKey",
            Self::TooManyKeys { .. } => "TooManyKeys",
        }
    }
}

impl CorrectiveError {
    /// The variant's name, e.g. `NotAJoint` (what [`Error::variant_name`] reports).
    pub fn variant_name(&self) -> &'static str {
        match self {
            Self::NotAJoint { .. } => "NotAJoint",
            Self::DuplicateCorrective { .. } => "DuplicateCorrective",
            Self::EmptyCorrective { .. } => "EmptyCorrective",
            Self::NonFiniteCorrective { .. } => "NonFiniteCorrective",
            Self::CorrectiveAngleOrder { .. } => "CorrectiveAngleOrder",
            Self::CorrectiveVertex { .. } => "CorrectiveVertex",
            Self::DuplicateCorrectiveVertex { .. } => "DuplicateCorrectiveVertex",
            Self::CorrectiveOffsets { .. } => "CorrectiveOffsets",
        }
    }
}

impl WeightsError {
    /// The variant's name, e.g. `WeightsShape` (what [`Error::variant_name`] reports).
    pub fn variant_name(&self) -> &'static str {
        match self {
            Self::WeightsShape { .. } => "WeightsShape",
            Self::InvalidWeight { .. } => "InvalidWeight",
            Self::RowSum { .. } => "RowSum",
            Self::UnscorableRow { .. } => "UnscorableRow",
        }
    }
}

impl FormatError {
    /// The variant's name, e.g. `Json` (what [`Error::variant_name`] reports).
    pub fn variant_name(&self) -> &'static str {
        match self {
            Self::Json { .. } => "Json",
            Self::InvalidField { .. } => "InvalidField",
            Self::Image { .. } => "Image",
            Self::UnsupportedInput { .. } => "UnsupportedInput",
            Self::ImageTooLarge { .. } => "ImageTooLarge",
            Self::IslandsTooSmall { .. } => "IslandsTooSmall",
            Self::OutlineTooComplex { .. } => "OutlineTooComplex",
            Self::TransparentImage { .. } => "TransparentImage",
            Self::Rig { .. } => "Rig",
            Self::SpineAtlas { .. } => "SpineAtlas",
            Self::Godot { .. } => "Godot",
            Self::NonPlanarMesh { .. } => "NonPlanarMesh",
            Self::JointOutOfRange { .. } => "JointOutOfRange",
        }
    }
}

impl OutputError {
    /// The variant's name, e.g. `WouldOverwrite` (what [`Error::variant_name`] reports).
    pub fn variant_name(&self) -> &'static str {
        match self {
            Self::WouldOverwrite { .. } => "WouldOverwrite",
            Self::OutputIsDirectory { .. } => "OutputIsDirectory",
            Self::OutputNamesNoFile { .. } => "OutputNamesNoFile",
            Self::SymlinkLoop { .. } => "SymlinkLoop",
            Self::UnsupportedOutput { .. } => "UnsupportedOutput",
            Self::RenderTooLarge { .. } => "RenderTooLarge",
            Self::Plot { .. } => "Plot",
            Self::NoFrames { .. } => "NoFrames",
            Self::FrameSize { .. } => "FrameSize",
            Self::ImageHeight { .. } => "ImageHeight",
            Self::FrameTimes { .. } => "FrameTimes",
            Self::MaskSize { .. } => "MaskSize",
            Self::NothingToFrame => "NothingToFrame",
            Self::RenderSize { .. } => "RenderSize",
        }
    }
}

impl SceneError {
    /// The variant's name, e.g. `UnknownBuiltin` (what [`Error::variant_name`] reports).
    pub fn variant_name(&self) -> &'static str {
        match self {
            Self::UnknownBuiltin { .. } => "UnknownBuiltin",
            Self::UnknownClip { .. } => "UnknownClip",
            Self::UnknownProbe { .. } => "UnknownProbe",
            Self::NoProbes { .. } => "NoProbes",
            Self::DuplicateProbe { .. } => "DuplicateProbe",
            Self::ProbeVertex { .. } => "ProbeVertex",
            Self::ProbeWatchesNothing { .. } => "ProbeWatchesNothing",
            Self::ProbeMovesNoBone { .. } => "ProbeMovesNoBone",
            Self::UnmeasurablePose { .. } => "UnmeasurablePose",
            Self::EmptyTransferSource { .. } => "EmptyTransferSource",
            Self::EmptyTransferTarget { .. } => "EmptyTransferTarget",
        }
    }
}

impl ArgumentError {
    /// The variant's name, e.g. `InvalidArgument` (what [`Error::variant_name`] reports).
    pub fn variant_name(&self) -> &'static str {
        match self {
            Self::InvalidArgument { .. } => "InvalidArgument",
            Self::MissingArgument { .. } => "MissingArgument",
        }
    }
}

impl SeamError {
    /// The variant's name, e.g. `SeamVertexOutOfRange` (what [`Error::variant_name`] reports).
    pub fn variant_name(&self) -> &'static str {
        match self {
            Self::SeamVertexOutOfRange { .. } => "SeamVertexOutOfRange",
            Self::SeamVertexRepeated { .. } => "SeamVertexRepeated",
            Self::SeamSpread { .. } => "SeamSpread",
            Self::SingleLayer { .. } => "SingleLayer",
            Self::InvalidAmount { .. } => "InvalidAmount",
            Self::RepairTooLarge { .. } => "RepairTooLarge",
            Self::InvalidSeam { .. } => "InvalidSeam",
        }
    }
}

impl ArtError {
    /// The variant's name, e.g. `NoArt` (what [`Error::variant_name`] reports).
    pub fn variant_name(&self) -> &'static str {
        match self {
            Self::NoArt { .. } => "NoArt",
            Self::HasArt { .. } => "HasArt",
            Self::VertexColours { .. } => "VertexColours",
            Self::ArtUvs { .. } => "ArtUvs",
            Self::NonFiniteUv { .. } => "NonFiniteUv",
            Self::UvOutsideImage { .. } => "UvOutsideImage",
            Self::DuplicateLayer { .. } => "DuplicateLayer",
            Self::LayerImage { .. } => "LayerImage",
            Self::UndrawnPart { .. } => "UndrawnPart",
            Self::TextureCount { .. } => "TextureCount",
            Self::LayerTooLarge { .. } => "LayerTooLarge",
        }
    }
}

impl SolverError {
    /// The variant's name, e.g. `UnknownSolver` (what [`Error::variant_name`] reports).
    pub fn variant_name(&self) -> &'static str {
        match self {
            Self::UnknownSolver { .. } => "UnknownSolver",
            Self::InvalidOption { .. } => "InvalidOption",
            Self::LinearAlgebra { .. } => "LinearAlgebra",
            Self::Solver { .. } => "Solver",
        }
    }
}

impl BatchError {
    /// The variant's name, e.g. `NotAnItem` (what [`Error::variant_name`] reports).
    pub fn variant_name(&self) -> &'static str {
        match self {
            Self::NotAnItem { .. } => "NotAnItem",
            Self::SpriteWithoutBones { .. } => "SpriteWithoutBones",
            Self::NoMatch { .. } => "NoMatch",
            Self::Panicked { .. } => "Panicked",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rig_errors_show_their_format_as_the_per_format_variants_did() {
        let e = |format, vertex| -> Error {
            FormatError::Rig {
                format,
                context: "bone \"arm\"".into(),
                field: "length".into(),
                vertex,
                message: "must be finite".into(),
            }
            .into()
        };
        assert_eq!(
            e(RigFormat::named("Spine"), Some(3)).to_string(),
            "Spine bone \"arm\": length, vertex 3: must be finite"
        );
        assert_eq!(
            e(RigFormat::named("DragonBones"), None).to_string(),
            "DragonBones bone \"arm\": length: must be finite"
        );
        assert_eq!(
            e(RigFormat::named("Creature"), None).variant_name(),
            "Creature"
        );
    }

    #[test]
    fn variant_names_are_the_domain_errors_variants() {
        let e: Error = MeshError::EmptyMesh {
            vertices: 0,
            triangles: 0,
        }
        .into();
        assert_eq!(e.variant_name(), "EmptyMesh");
        assert_eq!(
            Error::from(SkeletonError::EmptySkeleton).variant_name(),
            "EmptySkeleton"
        );
        let shape: Error = WeightsError::WeightsShape {
            problem: WeightsShapeProblem::RowLength {
                row: 3,
                entries: 1,
                bones: 2,
            },
        }
        .into();
        assert_eq!(shape.variant_name(), "WeightsShape");
        assert_eq!(
            shape.to_string(),
            "weights shape mismatch: row 3 has 1 entries, expected 2 (one per bone)"
        );
        let parts: Error = MeshError::VertexParts {
            problem: VertexPartsProblem::NoParts,
        }
        .into();
        assert_eq!(parts.variant_name(), "VertexParts");
        let layers: Error = MeshError::TriangleLayers {
            problem: TriangleLayersProblem::Count {
                layers: 1,
                triangles: 2,
            },
        }
        .into();
        assert_eq!(layers.variant_name(), "TriangleLayers");
        let algebra: Error = SolverError::LinearAlgebra {
            problem: LinearAlgebraProblem::NotAPermutation { row: 4 },
        }
        .into();
        assert_eq!(algebra.variant_name(), "LinearAlgebra");
        let seam: Error = SeamError::InvalidSeam {
            seam: "joints[0]".into(),
            problem: SeamProblem::TooFewMembers { members: 1 },
        }
        .into();
        assert_eq!(seam.variant_name(), "InvalidSeam");
        assert_eq!(
            seam.to_string(),
            "seam joints[0]: 1 member(s): a joint needs two or more"
        );
        let io = Error::io("a(b).json", std::io::Error::other("x"));
        assert_eq!(io.variant_name(), "Io");
        assert!(matches!(
            Error::field("format", "bad"),
            Error::Format(FormatError::InvalidField { .. })
        ));
    }
}
