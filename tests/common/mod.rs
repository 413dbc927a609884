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
    builtin_scene(
        name,
        &BuiltinOptions {
            vertices: 500,
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
