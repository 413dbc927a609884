//! Binding the shipped raptor (Spine, default skin: 642 vertices, 13 weighted meshes, 76
//! bones): protocol (c) (`bind` with `Bind::Auto`: the whole solve, the binder, each mesh
//! re-solved, under 150 vertices on a subdivided copy by default, or on its own vertices)
//! against heat and `best` per mesh over the artist's bones (issue 60's unit: (c) should
//! take at most 1.5x heat's per-mesh time).
//!
//! Measured on this 2-core machine, `cargo bench -p skinweights-benches --bench binding`
//! (medians of 20 samples), with `solve_bound` solving the meshes side by side: heat per mesh
//! 0.37 ms, `best` per mesh 0.59 ms (1.6x heat), `Bind::Auto` on the meshes' own vertices
//! 5.55 ms (15x), with the default subdivided re-solve 6.07 ms (16x); one mesh after the other
//! they were 1.47, 1.74, 6.58 and 8.60 ms. `docs/binding.md` has the figures over every
//! painted rig.

use criterion::{criterion_group, criterion_main, Criterion};
use skinweights::binding::{bind, solve_bound, Bind, BindOptions, FileBindings};
use skinweights::io::rig::load_rig;
use skinweights::io::spine::SkinSelection;
use skinweights::scene::Scene;
use skinweights::solvers::{recommended, solver_by_name};
use skinweights::weights::Weights;
use skinweights::RigFormat;
use std::hint::black_box;
use std::path::Path;

fn raptor() -> (Scene, FileBindings) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/spine/raptor/raptor-pro.json");
    let rig = load_rig(&path, RigFormat::SPINE, SkinSelection::Default).expect("the raptor");
    let artist = rig.artist.expect("the raptor's weights");
    let file = FileBindings::from_weights(&rig.scene, &artist).expect("bindings");
    (rig.scene, file)
}

fn binding(c: &mut Criterion) {
    let (scene, file) = raptor();
    eprintln!(
        "raptor: {} vertices, {} weighted meshes, {} bones",
        scene.mesh().vertex_count(),
        file.artist.len(),
        scene.skeleton().len()
    );
    let deforming = scene.deforming_bones(None).expect("bones").kept;
    let heat = solver_by_name("heat", Vec::<(String, String)>::new()).expect("heat");
    let best = recommended();
    let zeros = Weights::zeros_unchecked(scene.mesh().vertex_count(), scene.skeleton().len());
    let auto_file = FileBindings {
        artist: Vec::new(),
        home: file.home.clone(),
    };
    let own = BindOptions {
        refine: None,
        ..BindOptions::default()
    };
    let mut group = c.benchmark_group("raptor");
    group.sample_size(20);
    for (name, solver) in [("heat", &heat), ("best", &best)] {
        group.bench_function(format!("{name} per mesh, artist's bones"), |b| {
            b.iter(|| {
                black_box(solve_bound(
                    solver.as_ref(),
                    &scene,
                    &file.artist,
                    zeros.clone(),
                ))
            })
        });
    }
    let auto = [
        ("own vertices", own),
        ("default (subdivided re-solve)", BindOptions::default()),
    ];
    for (name, options) in auto {
        group.bench_function(format!("Bind::Auto, {name}"), |b| {
            b.iter(|| {
                black_box(bind(
                    best.as_ref(),
                    &scene,
                    Bind::Auto,
                    &deforming,
                    &auto_file,
                    &options,
                ))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, binding);
criterion_main!(benches);
