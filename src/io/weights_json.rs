//! The weights file: JSON, `"format": "skinweights.weights/1"` (see DESIGN.md).

use crate::error::{Error, Result};
use crate::weights::Weights;

/// The `format` tag of weights files.
pub const WEIGHTS_FORMAT: &str = "skinweights.weights/1";

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
        let f: WeightsFile = serde_json::from_str(text).map_err(|e| Error::Json {
            context: "weights".into(),
            message: e.to_string(),
        })?;
        if f.format != WEIGHTS_FORMAT {
            return Err(Error::field(
                "format",
                format!("expected {WEIGHTS_FORMAT:?}, found {:?}", f.format),
            ));
        }
        Ok(f)
    }

    /// Reads a weights file.
    pub fn load(path: impl AsRef<std::path::Path>) -> Result<Self> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Self::from_json(&text).map_err(|e| e.in_file(path))
    }

    /// Writes the file as JSON, whole or not at all.
    pub fn save(&self, path: impl AsRef<std::path::Path>) -> Result<()> {
        let path = path.as_ref();
        let text = serde_json::to_string(self).map_err(|e| Error::Json {
            context: path.display().to_string(),
            message: e.to_string(),
        })?;
        crate::io::write_atomic(path, text)
    }

    /// The weights with columns in the order of `bone_names` (the scene's skeleton), after
    /// checking that the file has exactly those bones and `n_vertices` rows.
    pub fn to_weights_for(&self, bone_names: &[String], n_vertices: usize) -> Result<Weights> {
        if self.weights.len() != n_vertices {
            return Err(Error::WeightsShape {
                message: format!(
                    "the weights file has {} rows, the scene has {n_vertices} vertices",
                    self.weights.len()
                ),
            });
        }
        for (i, name) in self.bones.iter().enumerate() {
            if let Some(first) = self.bones[..i].iter().position(|b| b == name) {
                return Err(Error::WeightsShape {
                    message: format!(
                        "the weights file names bone {name:?} twice (columns {first} and {i})"
                    ),
                });
            }
        }
        let mut columns = Vec::with_capacity(bone_names.len());
        for name in bone_names {
            let c =
                self.bones
                    .iter()
                    .position(|b| b == name)
                    .ok_or_else(|| Error::WeightsShape {
                        message: format!(
                        "the scene's bone {name:?} is missing from the weights file (it has {:?})",
                        self.bones
                    ),
                    })?;
            columns.push(c);
        }
        if let Some(extra) = self.bones.iter().find(|b| !bone_names.contains(b)) {
            return Err(Error::WeightsShape {
                message: format!(
                    "the weights file has bone {extra:?}, which the scene does not have"
                ),
            });
        }
        let mut w = Weights::zeros(n_vertices, bone_names.len());
        for (v, row) in self.weights.iter().enumerate() {
            if row.len() != self.bones.len() {
                return Err(Error::WeightsShape {
                    message: format!(
                        "row {v} has {} entries, the file lists {} bones",
                        row.len(),
                        self.bones.len()
                    ),
                });
            }
            for (b, &c) in columns.iter().enumerate() {
                w.set(v, b, row[c]);
            }
        }
        Ok(w)
    }
}
