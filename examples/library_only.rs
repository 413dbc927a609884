//! The solvers as a library, with none of the CLI, file formats or plotting: this example
//! builds with `--no-default-features` (what `skinweights = { default-features = false }`
//! gives a dependent crate).
//!
//! ```sh
//! cargo run --release --no-default-features --example library_only
//! ```
//!
//! It meshes a two-bone strip, solves it with the recommended solver and with heat, bends the
//! joint 90 degrees with linear blend skinning and prints how far the tip moved.

use nalgebra::Point2;
use skinweights::mesh::{mesh_outline, MeshingOptions, Outline};
use skinweights::{
    mesh::Mesh, scene::Scene, skeleton::Bone, skeleton::Pose, skeleton::Skeleton,
    skinning::linear_blend_skinning, solvers,
};

fn main() -> skinweights::Result<()> {
    // A 200 x 40 strip along x, the bones inserted as mesh edges.
    let outline = Outline {
        loops: vec![vec![
            Point2::new(0.0, -20.0),
            Point2::new(200.0, -20.0),
            Point2::new(200.0, 20.0),
            Point2::new(0.0, 20.0),
        ]],
        segments: vec![[Point2::new(0.0, 0.0), Point2::new(200.0, 0.0)]],
    };
    let options = MeshingOptions::default().with_target_vertices(2000);
    let (vertices, triangles, _) = mesh_outline(&outline, &options)?;
    let mesh = Mesh::new(vertices, triangles)?;
    let skeleton = Skeleton::new(vec![
        Bone::new("upper", Point2::new(0.0, 0.0), Point2::new(100.0, 0.0)),
        Bone::new("lower", Point2::new(100.0, 0.0), Point2::new(200.0, 0.0)).with_parent(0),
    ])?;
    let scene = Scene::from_mesh(mesh, skeleton)?;
    let bend = Pose::rest().rotate("lower", 90.0);
    let tip = scene
        .mesh()
        .vertices()
        .iter()
        .position(|p| p.x == 200.0 && p.y == 0.0)
        .expect("the bone's tail is a mesh vertex");
    for solver in [
        solvers::recommended(),
        solvers::solver_by_name("heat", skinweights::solvers::NO_OPTIONS)?,
    ] {
        let solution = solver.solve(&scene)?;
        solution.weights.validate()?;
        let posed = linear_blend_skinning(
            scene.mesh().vertices(),
            scene.skeleton(),
            &solution.weights,
            &bend,
        )?;
        println!(
            "{:<10} {} vertices in {:.3} s; the tip (200, 0) goes to ({:.2}, {:.2})",
            solution.report.solver,
            scene.mesh().vertex_count(),
            solution.report.seconds,
            posed[tip].x,
            posed[tip].y
        );
    }
    Ok(())
}
