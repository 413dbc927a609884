//! The integration tests, one module per topic, linked into one test binary (`it`) instead
//! of one binary per file: a fresh `cargo test` links once. Run one module with
//! `cargo test --release --test it gltf::` (a filter matches the test's path, `gltf::name`),
//! one test with `cargo test --release --test it gltf::name -- --exact`.
//!
//! The tests share one process: none sets environment variables or changes the working
//! directory (a child `Command` gets its own), the fuzz targets re-run themselves alone in a
//! child process to account for their allocations (`fuzz.rs`), and the tests that start Godot
//! or Chromium take [`common::engine`] so that no two overlap.
//!
//! Modules that need the `io` or `cli` feature are compiled only with it, so
//! `cargo test --no-default-features` runs the rest.

mod common;

#[cfg(feature = "io")]
mod affine;
mod architecture;
#[cfg(feature = "io")]
mod artist_meshes;
#[cfg(feature = "cli")]
mod batch;
mod bbw;
#[cfg(feature = "io")]
mod best;
#[cfg(feature = "io")]
mod best_artists;
#[cfg(feature = "io")]
mod binary;
#[cfg(feature = "cli")]
mod binding;
#[cfg(feature = "cli")]
mod cli;
#[cfg(feature = "cli")]
mod cli_examples;
#[cfg(feature = "cli")]
mod clips;
#[cfg(feature = "cli")]
mod clips_formats;
mod compare;
#[cfg(feature = "cli")]
mod compare_clip;
mod correctives;
#[cfg(feature = "cli")]
mod correctives_io;
#[cfg(feature = "io")]
mod creature;
#[cfg(feature = "io")]
mod creature_large;
mod docs;
#[cfg(feature = "io")]
mod dragonbones;
#[cfg(feature = "cli")]
mod first_hour;
#[cfg(feature = "cli")]
mod first_hour_speed;
#[cfg(feature = "io")]
mod formats_coverage;
#[cfg(feature = "io")]
mod formats_table;
#[cfg(feature = "io")]
mod fringe;
#[cfg(feature = "io")]
mod fuzz;
#[cfg(feature = "io")]
mod gltf;
#[cfg(feature = "io")]
mod gltf_art;
#[cfg(feature = "cli")]
mod gltf_clips;
#[cfg(feature = "io")]
mod gltf_texture;
#[cfg(feature = "io")]
mod godot;
#[cfg(feature = "cli")]
mod hardening;
mod interpenetration;
mod limit;
mod meshing_parts;
mod metrics;
#[cfg(feature = "io")]
mod refine;
#[cfg(feature = "io")]
mod render;
#[cfg(feature = "cli")]
mod render_clips;
#[cfg(feature = "io")]
mod robustness;
mod scenes;
mod seams;
#[cfg(feature = "io")]
mod seams_layered_scenes;
#[cfg(feature = "io")]
mod seams_model;
#[cfg(feature = "io")]
mod seams_pixels;
#[cfg(feature = "io")]
mod seams_repair;
mod seed;
mod skinning;
#[cfg(feature = "cli")]
mod slots;
mod solvers;
#[cfg(feature = "io")]
mod spine;
#[cfg(feature = "io")]
mod spine43;
#[cfg(all(feature = "io", feature = "cli"))]
mod spine_clips;
#[cfg(feature = "cli")]
mod sprite;
#[cfg(feature = "cli")]
mod transfer;
#[cfg(feature = "cli")]
mod typed_errors;
#[cfg(feature = "io")]
mod validation;
#[cfg(feature = "cli")]
mod view_browser;
