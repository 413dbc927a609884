//! The weights file: JSON, `"format": "skinweights.weights/1"` (see docs/formats.md).

use super::binary;
use crate::error::{Error, FormatError, Result, WeightsError, WeightsShapeProblem};
use crate::weights::Weights;

/// The `format` tag of weights files.
pub const WEIGHTS_FORMAT: &str = "skinweights.weights/1";

/// The header of a binary weights file.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct BinaryHeader {
    format: String,
    scene: String,
    solver: String,
    bones: Vec<String>,
    vertices: usize,
    entries: usize,
}

/// A weights file (JSON, `"format": "skinweights.weights/1"`): dense rows in bone order.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeightsFile {
    /// Always [`WEIGHTS_FORMAT`].
    pub format: String,
    /// Name of the scene the weights belong to.
    pub scene: String,
    /// Name of the solver (or tool) that made them.
    pub solver: String,
    /// Bone names, in column order.
    pub bones: Vec<String>,
    /// One row per vertex, one weight per bone.
    pub weights: Vec<Vec<f64>>,
}

impl WeightsFile {
    /// Packs weights for saving.
    pub fn new(scene: &str, solver: &str, bones: Vec<String>, weights: &Weights) -> Self {
        WeightsFile {
            format: WEIGHTS_FORMAT.to_string(),
            scene: scene.to_string(),
            solver: solver.to_string(),
            bones,
            weights: weights.rows().map(<[f64]>::to_vec).collect(),
        }
    }

    /// Parses a weights file from JSON text (shape and format are checked; values are not,
    /// so that `eval` and `lint` can score broken weights).
    pub fn from_json(text: &str) -> Result<Self> {
        let f: WeightsFile = serde_json::from_str(text).map_err(|e| {
            Error::Format(FormatError::Json {
                context: "weights".into(),
                message: e.to_string(),
            })
        })?;
        if f.format != WEIGHTS_FORMAT {
            return Err(Error::field(
                "format",
                format!("expected {WEIGHTS_FORMAT:?}, found {:?}", f.format),
            ));
        }
        Ok(f)
    }

    /// Weights painted by an artist for `scene` (solver `"artist"`), as importers return them.
    pub fn artist(scene: &crate::scene::Scene, weights: &Weights) -> Self {
        WeightsFile::new(&scene.name, "artist", scene.skeleton.names(), weights)
    }

    /// Reads a weights file, binary (it starts with the binary magic) or JSON.
    pub fn load(path: impl AsRef<std::path::Path>) -> Result<Self> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        if bytes.starts_with(binary::WEIGHTS_MAGIC) {
            return Self::from_binary(&bytes).map_err(|e| e.in_file(path));
        }
        let text = String::from_utf8(bytes).map_err(|e| {
            Error::field(
                "weights",
                format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()),
            )
        })?;
        Self::from_json(&text).map_err(|e| e.in_file(path))
    }

    /// Writes the file, whole or not at all: binary when the extension is `.swb`, JSON
    /// otherwise.
    pub fn save(&self, path: impl AsRef<std::path::Path>) -> Result<()> {
        self.borrowed().save(path.as_ref())
    }

    /// Writes solver output as a weights file, like `WeightsFile::new(..).save(path)` but
    /// without copying every row first (at 500k vertices that copy is half a million
    /// allocations).
    pub fn save_weights(
        path: impl AsRef<std::path::Path>,
        scene: &str,
        solver: &str,
        bones: &[String],
        weights: &Weights,
    ) -> Result<()> {
        FileRef {
            format: WEIGHTS_FORMAT,
            scene,
            solver,
            bones,
            rows: weights.rows(),
        }
        .save(path.as_ref())
    }

    /// The binary form (see [`super::binary`]): zero weights are left out.
    pub fn to_binary(&self) -> Result<Vec<u8>> {
        self.borrowed().to_binary()
    }

    fn borrowed(&self) -> FileRef<'_, impl Iterator<Item = &[f64]> + Clone> {
        FileRef {
            format: &self.format,
            scene: &self.scene,
            solver: &self.solver,
            bones: &self.bones,
            rows: self.weights.iter().map(Vec::as_slice),
        }
    }

    /// Parses the binary form; shape and offsets are checked (values are not, as in
    /// [`WeightsFile::from_json`]).
    pub fn from_binary(bytes: &[u8]) -> Result<Self> {
        let (mut r, header) = binary::Reader::open(bytes, binary::WEIGHTS_MAGIC)?;
        let h: BinaryHeader = serde_json::from_str(header).map_err(|e| {
            Error::Format(FormatError::Json {
                context: "binary weights header".into(),
                message: e.to_string(),
            })
        })?;
        if h.format != WEIGHTS_FORMAT {
            return Err(Error::field(
                "format",
                format!("expected {WEIGHTS_FORMAT:?}, found {:?}", h.format),
            ));
        }
        let offsets = r.u32s("row offsets", h.vertices.saturating_add(1))?;
        let bones = r.u32s("bones", h.entries)?;
        let values = r.f64s("weights", h.entries)?;
        r.finish()?;
        // Dense rows: check their total size against the entries the file holds, so a
        // header claiming a billion vertices of a thousand bones cannot allocate for it.
        let dense = h.vertices.saturating_mul(h.bones.len());
        if dense > 64 * (bytes.len() + 1024) {
            return Err(Error::field(
                "vertices",
                format!(
                    "{} rows x {} bones is too large for a {}-byte file",
                    h.vertices,
                    h.bones.len(),
                    bytes.len()
                ),
            ));
        }
        let mut weights = Vec::with_capacity(h.vertices);
        for v in 0..h.vertices {
            let (a, b) = (offsets[v] as usize, offsets[v + 1] as usize);
            if a > b || b > h.entries {
                return Err(Error::field(
                    "row offsets",
                    format!(
                        "row {v} runs from {a} to {b} (the file has {} entries)",
                        h.entries
                    ),
                ));
            }
            let mut row = vec![0.0; h.bones.len()];
            for e in a..b {
                let j = bones[e] as usize;
                if j >= row.len() {
                    return Err(Error::field(
                        "bones",
                        format!("row {v} names bone {j}, the file lists {}", row.len()),
                    ));
                }
                row[j] = values[e];
            }
            weights.push(row);
        }
        Ok(WeightsFile {
            format: h.format,
            scene: h.scene,
            solver: h.solver,
            bones: h.bones,
            weights,
        })
    }

    /// The weights with columns in the order of `bone_names` (the scene's skeleton), after
    /// checking that the file has exactly those bones and `n_vertices` rows.
    pub fn to_weights_for(&self, bone_names: &[String], n_vertices: usize) -> Result<Weights> {
        if self.weights.len() != n_vertices {
            return Err(WeightsError::WeightsShape {
                problem: WeightsShapeProblem::RowCount {
                    rows: self.weights.len(),
                    vertices: n_vertices,
                },
            }
            .into());
        }
        for (i, name) in self.bones.iter().enumerate() {
            if let Some(first) = self.bones[..i].iter().position(|b| b == name) {
                return Err(WeightsError::WeightsShape {
                    problem: WeightsShapeProblem::DuplicateBone {
                        bone: name.clone(),
                        first,
                        second: i,
                    },
                }
                .into());
            }
        }
        let mut columns = Vec::with_capacity(bone_names.len());
        for name in bone_names {
            let c = self.bones.iter().position(|b| b == name).ok_or_else(|| {
                Error::Weights(WeightsError::WeightsShape {
                    problem: WeightsShapeProblem::MissingBone {
                        bone: name.clone(),
                        file_bones: self.bones.clone(),
                    },
                })
            })?;
            columns.push(c);
        }
        if let Some(extra) = self.bones.iter().find(|b| !bone_names.contains(b)) {
            return Err(WeightsError::WeightsShape {
                problem: WeightsShapeProblem::ExtraBone {
                    bone: extra.clone(),
                },
            }
            .into());
        }
        let mut w = Weights::zeros_unchecked(n_vertices, bone_names.len());
        for (v, row) in self.weights.iter().enumerate() {
            if row.len() != self.bones.len() {
                return Err(WeightsError::WeightsShape {
                    problem: WeightsShapeProblem::RowLength {
                        row: v,
                        entries: row.len(),
                        bones: self.bones.len(),
                    },
                }
                .into());
            }
            for (b, &c) in columns.iter().enumerate() {
                w.set_unchecked(v, b, row[c]);
            }
        }
        Ok(w)
    }
}

/// A weights file's content, borrowed (rows from a [`WeightsFile`] or a [`Weights`]), as
/// it is written.
struct FileRef<'a, R> {
    format: &'a str,
    scene: &'a str,
    solver: &'a str,
    bones: &'a [String],
    rows: R,
}

impl<'a, R: Iterator<Item = &'a [f64]> + Clone> FileRef<'a, R> {
    fn save(&self, path: &std::path::Path) -> Result<()> {
        let bytes = if binary::wants_binary(path) {
            self.to_binary()?
        } else {
            serde_json::to_vec(self).map_err(|e| {
                Error::Format(FormatError::Json {
                    context: path.display().to_string(),
                    message: e.to_string(),
                })
            })?
        };
        crate::io::write_atomic(path, bytes)
    }

    fn to_binary(&self) -> Result<Vec<u8>> {
        // Two passes over the rows: entries per row, then bones and values together.
        let mut offsets = vec![0usize];
        let mut entries = 0;
        for row in self.rows.clone() {
            entries += row.iter().filter(|&&x| x != 0.0).count();
            offsets.push(entries);
        }
        let vertices = offsets.len() - 1;
        let header = BinaryHeader {
            format: self.format.to_string(),
            scene: self.scene.to_string(),
            solver: self.solver.to_string(),
            bones: self.bones.to_vec(),
            vertices,
            entries,
        };
        let text = serde_json::to_string(&header).map_err(|e| {
            Error::Format(FormatError::Json {
                context: "weights".into(),
                message: e.to_string(),
            })
        })?;
        let mut w = binary::Writer::new(binary::WEIGHTS_MAGIC, &text, 4 * vertices + 12 * entries);
        w.u32s("weights", offsets)?;
        if self.bones.len() > u32::MAX as usize {
            return Err(Error::field(
                "bones",
                format!("{} do not fit the binary format's u32", self.bones.len()),
            ));
        }
        let (bones, values) = w.region(12 * entries).split_at_mut(4 * entries);
        let entries = self
            .rows
            .clone()
            .flat_map(|row| row.iter().enumerate().filter(|(_, &x)| x != 0.0));
        for ((b, &x), (bo, vo)) in
            entries.zip(bones.chunks_exact_mut(4).zip(values.chunks_exact_mut(8)))
        {
            bo.copy_from_slice(&(b as u32).to_le_bytes());
            vo.copy_from_slice(&x.to_le_bytes());
        }
        Ok(w.finish())
    }
}

/// The same JSON as the derived `Serialize` of [`WeightsFile`] (fields in that order).
impl<'a, R: Iterator<Item = &'a [f64]> + Clone> serde::Serialize for FileRef<'a, R> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("WeightsFile", 5)?;
        st.serialize_field("format", self.format)?;
        st.serialize_field("scene", self.scene)?;
        st.serialize_field("solver", self.solver)?;
        st.serialize_field("bones", self.bones)?;
        st.serialize_field("weights", &Rows(self.rows.clone()))?;
        st.end()
    }
}

/// Rows serialized as a JSON array of arrays.
struct Rows<R>(R);

impl<'a, R: Iterator<Item = &'a [f64]> + Clone> serde::Serialize for Rows<R> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_seq(self.0.clone())
    }
}
