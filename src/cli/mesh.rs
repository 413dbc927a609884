//! `skinweights mesh`: a sprite's alpha traced and meshed around its bones into a scene.

use super::{check_outputs, spinner};
use crate::cli::error::Result;
use clap::Args;
use skinweights::io::{
    save_scene, sprite_scene, BonesFile, Sprite, SpriteOptions, TraceOptions, DEFAULT_MIN_AREA,
    DEFAULT_THRESHOLD, DEFAULT_TOLERANCE,
};
use skinweights::mesh::MeshingOptions;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `mesh`.
#[derive(Args)]
pub struct MeshArgs {
    /// Sprite image (PNG with an alpha channel).
    sprite: PathBuf,
    /// Bones file (JSON): bones, optional parts and probes.
    #[arg(long)]
    bones: PathBuf,
    /// Output scene file (JSON).
    #[arg(short, long)]
    output: PathBuf,
    /// A pixel is opaque when its alpha is at least this (1-255).
    #[arg(long, default_value_t = DEFAULT_THRESHOLD)]
    threshold: u8,
    /// Outline simplification tolerance in pixels (0 keeps every traced point).
    #[arg(long, default_value_t = DEFAULT_TOLERANCE)]
    tolerance: f64,
    /// Islands and holes whose traced area is under this many square pixels are dropped
    /// (marching squares traces n pixels as n - 1/2 px², so 2 x 2 pixels = 3.5).
    #[arg(long, default_value_t = DEFAULT_MIN_AREA)]
    min_area: f64,
    /// Approximate vertex count of the mesh.
    #[arg(long, default_value_t = 10_000)]
    vertices: usize,
    /// Overwrite the output file if it exists.
    #[arg(long)]
    force: bool,
}

/// Runs `mesh`.
pub fn run(a: MeshArgs) -> Result<ExitCode> {
    check_outputs(&[&a.sprite, &a.bones], &[&a.output], a.force)?;
    let image = Sprite::load(&a.sprite)?;
    let bones = BonesFile::load(&a.bones)?;
    let options = SpriteOptions::default()
        .with_trace(
            TraceOptions::default()
                .with_threshold(a.threshold)
                .with_tolerance(a.tolerance)
                .with_min_area(a.min_area),
        )
        .with_meshing(MeshingOptions::default().with_target_vertices(a.vertices));
    let pb = spinner(format!("tracing and meshing {}", a.sprite.display()));
    let result = sprite_scene(&image, bones, &options);
    pb.finish_and_clear();
    let (scene, trace, notes) = result?;
    for n in notes {
        eprintln!("note: {}: {n}", a.sprite.display());
    }
    save_scene(&scene, &a.output)?;
    super::status(
        &a.output,
        format_args!(
            "wrote {}: {} vertices, {} triangles, {} components, {} bones, {} probes; \
         outline: {} loops, {} of {} traced points kept, area {:.1} px² ({:.1} traced) \
         for {} opaque pixels",
            a.output.display(),
            scene.mesh().vertex_count(),
            scene.mesh().triangle_count(),
            scene.mesh().topology().component_count(),
            scene.skeleton().len(),
            scene.probes().len(),
            trace.outline.loops.len(),
            trace.kept_points(),
            trace.traced_points,
            trace.outline.area(),
            trace.traced_area,
            trace.opaque_pixels
        ),
    );
    Ok(ExitCode::SUCCESS)
}
