//! Built-in scene generators.

use super::Scene;
use crate::error::{Error, Result};

/// Names of the built-in scenes.
pub const BUILTIN_SCENES: &[&str] = &[
    "arms-down",
    "arms-touching",
    "layered-arms",
    "bar",
    "figure",
];

/// Options of the built-in generators.
#[derive(Debug, Clone)]
pub struct BuiltinOptions {
    /// Gap between arms and torso (arms-down, layered-arms; default 12; arms-touching forces 0).
    pub gap: Option<f64>,
    /// Approximate vertex count (default 10 000).
    pub vertices: usize,
}

impl Default for BuiltinOptions {
    fn default() -> Self {
        BuiltinOptions {
            gap: None,
            vertices: 10_000,
        }
    }
}

/// Generates the built-in scene `name`.
pub fn builtin_scene(name: &str, _options: &BuiltinOptions) -> Result<Scene> {
    Err(Error::field(
        "scene",
        format!("built-in scene {name:?} not implemented yet"),
    ))
}
