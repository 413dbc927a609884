//! # pareto: every solver on every shipped scene, and where `best` stands
//!
//! Scenes: arms-down at gaps 0, 2, 12 and 48 (about 10 000 vertices), `figure`, the three
//! Kenney sprites and gBot traced like `skinweights mesh` does (their `*_bones.json` give
//! bones, parts and probes), and the DragonBones character whole (its 330 artist vertices,
//! all 31 bones, its arm-lift probes).
//!
//! Solvers: compare's list (linear, euclidean, geodesic, heat, mask, heat+mask), `bbw` (plain
//! and with the part constraint inside the QP), heat with the soft limit at 0.02:0.05 and
//! 0.05:0.1, and `best` with its defaults and six variants (band 0.1; no soft limit; no
//! blended sources; `best v1` = neither part nor blended sources, the first version;
//! `best v2` = the blend before it was widened away from the axis and faded along the parent;
//! `best v3` = the half-width 0.05 and the hard part cut before the wider ramp).
//!
//! Per scene and solver, over the scene's probes: the largest drag (% of height), the most
//! flipped triangles, the largest distortion p99, the Dirichlet energy (also relative to
//! heat's), the solver time; on the DragonBones character also the dominant-bone agreement
//! with the artist, solving the whole character and solving each artist mesh with its own
//! bones (the artist_agreement experiment's two set-ups). A solver is *on the front* of a
//! scene when no other solver is at least as good on drag, flips and Dirichlet energy and
//! better on one.
//!
//! Writes `results/pareto/`: `pareto.csv`, `pareto.json`, and `fronts.png|svg` (per scene:
//! drag against flips, and drag against Dirichlet energy relative to heat; `best` in red;
//! "(front)" marks the solvers on the front).
//!
//! ```text
//! cargo run --release --features internals --bin pareto [-- --quick] [-- --out DIR]
//! ```
//!
//! `--quick` meshes the built-in scenes and sprites at 3 000 vertices instead of 10 000.
//!
//! The earlier `best` versions change values that are constants of the recipe, not options
//! (`blend_widen`, `blend_fade`, `cut_fade`, `part_sources`), hence the feature `internals`.

mod common;

use clap::Parser;
use common::{csv_num, json_num, main_with, progress, save_png_svg, write_json, write_text, Res};
use serde::Serialize;
use skinweights::io::dragonbones::load_dragonbones;
use skinweights::metrics::evaluate;
use skinweights::plot::{Grid, LegendPosition, LineChart, Series};
use skinweights::scene::SubScene;

use common::recipe::{best_with_recipe, is_recipe_key};
use skinweights::{
    scene::builtin_scene, scene::BuiltinOptions, scene::Scene, solvers::solver_by_name,
    solvers::Solver, weights::Weights,
};

#[derive(Parser)]
#[command(
    about = "Every solver on every shipped scene: drag, flips, smoothness, time; the Pareto fronts"
)]
struct Cli {
    #[command(flatten)]
    common: common::CommonArgs,
}

/// A solver variant: (label, registry name, `key=value` options).
type Variant = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
);

/// Every solver variant shown.
const SOLVERS: &[Variant] = &[
    ("linear", "linear", &[]),
    ("euclidean", "euclidean", &[]),
    ("geodesic", "geodesic", &[]),
    ("heat", "heat", &[]),
    ("mask", "mask", &[]),
    ("heat+mask", "heat+mask", &[]),
    ("bbw", "bbw", &[]),
    ("bbw parts", "bbw", &[("parts", "true")]),
    ("heat limit 0.02:0.05", "heat", &[("limit", "0.02:0.05")]),
    ("heat limit 0.05:0.1", "heat", &[("limit", "0.05:0.1")]),
    ("best", "best", &[]),
    ("best band 0.1", "best", &[("band", "0.1")]),
    ("best no limit", "best", &[("soft_limit", "none")]),
    ("best no blend", "best", &[("source_blend", "none")]),
    (
        "best v3",
        "best",
        &[
            ("source_blend", "0.05"),
            ("blend_fade", "0:1.5"),
            ("cut_fade", "0"),
        ],
    ),
    (
        "best v2",
        "best",
        &[
            ("source_blend", "0.05"),
            ("blend_widen", "0"),
            ("blend_fade", "1:1"),
            ("cut_fade", "0"),
        ],
    ),
    (
        "best v1",
        "best",
        &[("source_blend", "none"), ("part_sources", "false")],
    ),
];

/// The solver of a variant: `best` with one of its recipe's constants changed comes from
/// [`best_with_recipe`] (those are no options), any other from the registry.
fn solver_for(name: &str, options: &[(String, String)]) -> Res<Box<dyn Solver>> {
    if name == "best" && options.iter().any(|(k, _)| is_recipe_key(k)) {
        let pairs: Vec<(&str, &str)> = options
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        return Ok(Box::new(best_with_recipe(&pairs)?));
    }
    Ok(solver_by_name(name, options)?)
}

/// The DragonBones character, relative to the crate root.
const CHARACTER: &str = "data/dragonbones-you-xin/body_ske.json";
#[derive(Serialize, Clone)]
struct Row {
    scene: String,
    solver: String,
    vertices: usize,
    drag_max_pct: f64,
    flipped: usize,
    distortion_p99: Option<f64>,
    dirichlet: f64,
    dirichlet_vs_heat: f64,
    time_s: f64,
    artist_whole_pct: Option<f64>,
    artist_per_mesh_pct: Option<f64>,
    on_front: bool,
    warnings: Vec<skinweights::solvers::SolveWarning>,
}

#[derive(Serialize)]
struct Output {
    experiment: &'static str,
    quick: bool,
    rows: Vec<Row>,
    seconds: f64,
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    main_with(|| run(&cli))
}

/// Every scene, with the artist's weights and per-mesh cuts where they exist.
struct Case {
    scene: Scene,
    artist: Option<(Weights, Vec<SubScene>)>,
}

fn scenes(vertices: usize) -> Res<Vec<Case>> {
    let root = common::repo_root();
    let mut cases = Vec::new();
    for gap in [0.0, 2.0, 12.0, 48.0] {
        let scene = common::arms_down(gap, vertices)?.with_name(format!("arms-down gap {gap}"));
        cases.push(Case {
            scene,
            artist: None,
        });
    }
    cases.push(Case {
        scene: builtin_scene(
            "figure",
            &BuiltinOptions::default()
                .with_gap(None)
                .with_vertices(vertices),
        )?,
        artist: None,
    });
    for scene in common::traced_sprites(vertices)? {
        cases.push(Case {
            scene,
            artist: None,
        });
    }
    let imported = load_dragonbones(root.join(CHARACTER))?;
    let cuts = imported
        .report
        .meshes
        .iter()
        .map(|m| SubScene::new(&imported.scene, &m.part, &m.bones))
        .collect::<skinweights::Result<Vec<_>>>()?;
    let scene = imported.scene.with_name("DragonBones character");
    cases.push(Case {
        scene,
        artist: Some((imported.artist, cuts)),
    });
    Ok(cases)
}

/// % of vertices whose largest weight is on the same bone.
fn agreement(a: &Weights, b: &Weights) -> f64 {
    let (x, y) = (a.dominant_bones(), b.dominant_bones());
    100.0 * x.iter().zip(&y).filter(|(p, q)| p == q).count() as f64 / x.len().max(1) as f64
}

fn run(cli: &Cli) -> Res<()> {
    let started = std::time::Instant::now();
    let dir = cli.common.out_dir("pareto")?;
    let vertices = if cli.common.quick { 3_000 } else { 10_000 };
    let cases = scenes(vertices)?;
    let bar = progress((cases.len() * SOLVERS.len()) as u64, "solving");
    let mut rows: Vec<Row> = Vec::new();
    for case in &cases {
        let scene = &case.scene;
        let first = rows.len();
        for &(label, name, options) in SOLVERS {
            bar.set_message(format!("{label} on {}", scene.name()));
            let options: Vec<(String, String)> = options
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            let solver = solver_for(name, &options)?;
            let t = std::time::Instant::now();
            let solution = solver.solve(scene)?;
            let time_s = t.elapsed().as_secs_f64();
            let (mut drag, mut flipped, mut p99) = (0.0f64, 0usize, 0.0f64);
            let mut dirichlet = 0.0;
            for probe in scene.probes() {
                let m = evaluate(scene, &solution.weights, probe)?;
                drag = drag.max(m.drag_max_pct);
                flipped = flipped.max(m.flipped);
                p99 = p99.max(m.distortion_p99);
                dirichlet = m.dirichlet;
            }
            let (whole, per_mesh) = match &case.artist {
                Some((artist, cuts)) => {
                    let mut full = Weights::zeros_unchecked(
                        scene.mesh().vertex_count(),
                        scene.skeleton().len(),
                    );
                    for cut in cuts {
                        cut.scatter(&solver.solve(&cut.scene)?.weights, &mut full)?;
                    }
                    (
                        Some(agreement(&solution.weights, artist)),
                        Some(agreement(&full, artist)),
                    )
                }
                None => (None, None),
            };
            rows.push(Row {
                scene: scene.name().to_string(),
                solver: label.to_string(),
                vertices: scene.mesh().vertex_count(),
                drag_max_pct: drag,
                flipped,
                distortion_p99: json_num(p99),
                dirichlet,
                dirichlet_vs_heat: f64::NAN,
                time_s,
                artist_whole_pct: whole,
                artist_per_mesh_pct: per_mesh,
                on_front: false,
                warnings: solution.report.warnings,
            });
            bar.inc(1);
        }
        let block = &mut rows[first..];
        let heat = block
            .iter()
            .find(|r| r.solver == "heat")
            .map(|r| r.dirichlet)
            .unwrap_or(f64::NAN);
        for r in block.iter_mut() {
            r.dirichlet_vs_heat = r.dirichlet / heat;
        }
        mark_front(block);
    }
    bar.finish_and_clear();

    write_text(&dir, "pareto.csv", &csv(&rows))?;
    print_summary(&rows);
    let charts = fronts(&rows);
    save_png_svg(
        &Grid {
            panels: &charts,
            columns: 4,
        },
        &dir,
        "fronts",
        (1800, 450 * charts.len().div_ceil(4) as u32),
    )?;
    write_json(
        &dir,
        "pareto.json",
        &Output {
            experiment: "pareto",
            quick: cli.common.quick,
            rows,
            seconds: started.elapsed().as_secs_f64(),
        },
    )?;
    eprintln!("wrote {}", dir.display());
    Ok(())
}

/// Marks the rows no other row dominates on (drag, flips, Dirichlet energy). Drag is
/// compared at the table's resolution (0.001% of the height) so round-off (1e-14) does not
/// rank solvers, and Dirichlet energies within 1e-6 relative count as equal.
fn mark_front(rows: &mut [Row]) {
    let key = |r: &Row| {
        [
            (r.drag_max_pct * 1e3).round(),
            r.flipped as f64,
            (r.dirichlet_vs_heat * 1e6).round(),
        ]
    };
    let keys: Vec<[f64; 3]> = rows.iter().map(key).collect();
    for (i, r) in rows.iter_mut().enumerate() {
        r.on_front = !keys.iter().enumerate().any(|(j, k)| {
            j != i
                && k.iter().zip(&keys[i]).all(|(a, b)| a <= b)
                && k.iter().zip(&keys[i]).any(|(a, b)| a < b)
        });
    }
}

fn csv(rows: &[Row]) -> String {
    let mut out = String::from(
        "scene,solver,vertices,drag_max_pct,flipped,distortion_p99,dirichlet,dirichlet_vs_heat,\
         time_s,artist_whole_pct,artist_per_mesh_pct,on_front\n",
    );
    let opt = |v: Option<f64>| v.map(csv_num).unwrap_or_default();
    for r in rows {
        out += &format!(
            "{},{},{},{},{},{},{},{},{},{},{},{}\n",
            r.scene,
            r.solver,
            r.vertices,
            csv_num(r.drag_max_pct),
            r.flipped,
            opt(r.distortion_p99),
            csv_num(r.dirichlet),
            csv_num(r.dirichlet_vs_heat),
            csv_num(r.time_s),
            opt(r.artist_whole_pct),
            opt(r.artist_per_mesh_pct),
            r.on_front
        );
    }
    out
}

fn print_summary(rows: &[Row]) {
    println!(
        "{:<22} {:<22} {:>9} {:>6} {:>8} {:>9} {:>8} {:>7} {:>7} front",
        "scene", "solver", "drag %", "flips", "p99", "Dir/heat", "time s", "art W", "art M"
    );
    for r in rows {
        let opt = |v: Option<f64>| v.map(|x| format!("{x:.1}")).unwrap_or_else(|| "-".into());
        println!(
            "{:<22} {:<22} {:>9.3} {:>6} {:>8.2} {:>9.2} {:>8.3} {:>7} {:>7} {}",
            r.scene,
            r.solver,
            r.drag_max_pct,
            r.flipped,
            r.distortion_p99.unwrap_or(f64::NAN),
            r.dirichlet_vs_heat,
            r.time_s,
            opt(r.artist_whole_pct),
            opt(r.artist_per_mesh_pct),
            if r.on_front { "*" } else { "" }
        );
    }
}

/// Distinct colours for the solver variants, in [`SOLVERS`] order (`best` is red): one per
/// variant, so no two share a colour.
const COLORS: [(u8, u8, u8); 17] = [
    (31, 119, 180),
    (255, 127, 14),
    (44, 160, 44),
    (148, 103, 189),
    (140, 86, 75),
    (227, 119, 194),
    (127, 127, 127),
    (188, 189, 34),
    (23, 190, 207),
    (0, 0, 0),
    (220, 0, 0),
    (255, 152, 150),
    (152, 223, 138),
    (255, 187, 120),
    (158, 218, 229),
    (0, 90, 50),
    (0, 0, 128),
];
const _: () = assert!(COLORS.len() >= SOLVERS.len(), "a colour per pareto variant");

/// Charts show drag up to this (% of height) so the solvers near the front stay readable;
/// points above it (gap 0 and far-leaking solvers) are left out and counted in the title.
const DRAG_AXIS_MAX: f64 = 8.0;

/// Per scene: drag against flips, and drag against Dirichlet energy relative to heat's.
fn fronts(rows: &[Row]) -> Vec<LineChart> {
    let mut scenes: Vec<&str> = Vec::new();
    for r in rows {
        if !scenes.contains(&r.scene.as_str()) {
            scenes.push(&r.scene);
        }
    }
    let mut charts = Vec::new();
    for scene in scenes {
        let here: Vec<&Row> = rows.iter().filter(|r| r.scene == scene).collect();
        let shown: Vec<&&Row> = here
            .iter()
            .filter(|r| r.drag_max_pct <= DRAG_AXIS_MAX)
            .collect();
        let hidden = here.len() - shown.len();
        let top = shown.iter().map(|r| r.drag_max_pct).fold(0.0, f64::max);
        for (what, x_of) in [
            (
                "flipped triangles",
                (|r: &Row| r.flipped as f64) as fn(&Row) -> f64,
            ),
            ("Dirichlet energy / heat's", |r: &Row| r.dirichlet_vs_heat),
        ] {
            let title = match hidden {
                0 => scene.to_string(),
                k => format!("{scene} ({k} off the chart)"),
            };
            let mut chart = LineChart::new(
                title,
                what.to_string(),
                "drag max (% of height)".to_string(),
            )
            .with_legend(LegendPosition::UpperRight);
            let (lo, hi) = shown
                .iter()
                .map(|r| x_of(r))
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
                    (a.min(x), b.max(x))
                });
            let pad = ((hi - lo) * 0.1).max(0.05);
            // Room on the right for the legend.
            chart.x_range = Some((lo - pad, hi + (hi - lo + pad) * 1.2));
            chart.y_range = Some((-0.05 * top.max(0.5), top.max(0.5) * 1.1));
            for (k, r) in here.iter().enumerate() {
                if r.drag_max_pct > DRAG_AXIS_MAX {
                    continue;
                }
                chart.series.push(
                    Series::new(
                        format!("{}{}", r.solver, if r.on_front { " (front)" } else { "" }),
                        vec![(x_of(r), r.drag_max_pct)],
                    )
                    .markers()
                    .with_color(COLORS[k % COLORS.len()]),
                );
            }
            charts.push(chart);
        }
    }
    charts
}
