//! `skinweights pose`: every bone's local and world transform in a frame of a clip (or the
//! setup pose), so other tools can check the sampling.

use super::{resolve_scene, BuiltinArgs};
use crate::cli::error::Result;
use clap::Args;
use serde_json::json;
use skinweights::skeleton::BoneOffset;
use skinweights::skeleton::Pose;
use std::process::ExitCode;

/// Arguments of `pose`.
#[derive(Args)]
pub struct PoseArgs {
    /// Scene file or built-in name.
    scene: String,
    /// Clip to sample (default: the setup pose).
    #[arg(long)]
    clip: Option<String>,
    /// Time in seconds (clamped to the clip; default 0).
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    time: f64,
    /// Print `{"bones": [{"name", "local": {...}, "world": [a, b, c, d, tx, ty]}]}` with
    /// x' = a x + b y + tx, y' = c x + d y + ty.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    builtin: BuiltinArgs,
}

/// Runs `pose`.
pub fn run(a: PoseArgs) -> Result<ExitCode> {
    let scene = resolve_scene(Some(&a.scene), &a.builtin)?;
    let pose = match &a.clip {
        Some(name) => scene.clip_pose(scene.clip(name)?, a.time)?,
        None => Pose::rest(),
    };
    let sk = scene.skeleton();
    let offsets: Vec<BoneOffset> = pose.resolve(sk)?;
    let world = sk.world_affines_with(&offsets)?;
    let bones: Vec<_> = sk
        .bones()
        .iter()
        .enumerate()
        .map(|(j, b)| {
            let l = sk.setup_local(j).offset(&offsets[j]);
            json!({
                "name": b.name,
                "local": {
                    "x": l.x, "y": l.y, "rotation": l.rotation,
                    "scale_x": l.scale_x, "scale_y": l.scale_y,
                    "shear_x": l.shear_x, "shear_y": l.shear_y,
                    "inherit": l.inherit.spine_name(),
                },
                "world": world[j].to_array(),
            })
        })
        .collect();
    if a.json {
        println!("{}", json!({ "bones": bones }));
    } else {
        println!(
            "{:<24} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}",
            "bone", "a", "b", "c", "d", "tx", "ty"
        );
        for (b, w) in sk.bones().iter().zip(&world) {
            let m = w.to_array();
            println!(
                "{:<24} {:>10.4} {:>10.4} {:>10.4} {:>10.4} {:>10.3} {:>10.3}",
                b.name, m[0], m[1], m[2], m[3], m[4], m[5]
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
