//! Helpers shared by the integration tests: running the `skinweights` binary, small built-in
//! scenes, solved weights and comparisons. Each test file uses a subset.

#![allow(dead_code)]

use skinweights::{builtin_scene, solve, BuiltinOptions, Scene, Weights};
use std::process::{Command, Output};

/// Runs the `skinweights` binary with `args`.
#[cfg(feature = "cli")]
pub fn skinweights(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skinweights"))
        .args(args)
        .output()
        .expect("runs")
}

/// Its stdout followed by its stderr.
#[cfg(feature = "cli")]
pub fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Built-in scene `name` at 500 vertices (the smallest accepted): fast to solve.
pub fn small_scene(name: &str) -> Scene {
    scene_at(name, 500)
}

/// Built-in scene `name` meshed with about `vertices` vertices (default options otherwise).
pub fn scene_at(name: &str, vertices: usize) -> Scene {
    builtin_scene(
        name,
        &BuiltinOptions {
            vertices,
            ..Default::default()
        },
    )
    .expect("built-in scene")
}

/// Weights of `solver` on `scene`, checked valid.
pub fn solved(scene: &Scene, solver: &str) -> Weights {
    let w = solve(scene, solver).expect("solves");
    w.validate().expect("valid weights");
    w
}

/// Largest absolute difference between two equally long slices (pass `Weights::as_slice()`
/// to compare weight matrices; check their shapes first).
pub fn max_abs_diff(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len(), "lengths differ");
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

/// A file under the repository's `data/` folder.
pub fn data(rel: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(rel)
}

/// A seeded xorshift generator (no dependency, the same numbers on every run).
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
    /// A random byte.
    pub fn byte(&mut self) -> u8 {
        (self.next() >> 24) as u8
    }
}
