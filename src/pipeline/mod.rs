//! One job's pipeline (feature `io`): load an item, solve, lint, score against a
//! reference, export. Every driver (the `skinweights` commands, `batch`, the browser view,
//! the benchmark) takes its items through these functions, so a step is done one way.
//!
//! [`Item`] is a loaded character: a scene file with its `SCENE.artist.json`
//! ([`Item::scene_file`]), an imported rig ([`Item::rig`]) or a meshed sprite
//! ([`Item::sprite`]), optionally written out as a scene file ([`Item::saved_as`]).
//! [`binding`] and [`solve`] solve it as `skinweights solve` does, [`lint`] checks weights
//! against the artist's as the reference, [`score`] scores them against the artist's meshes,
//! [`export`] writes them in a rig format.

mod item;
mod steps;

pub use item::Item;
pub use steps::{binding, export, lint, score, solve, ArtistScores, Linted};
