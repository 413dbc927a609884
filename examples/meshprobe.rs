use skinweights::*;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).map(|s| s.parse().unwrap()).unwrap_or(10000);
    for name in scene::BUILTIN_SCENES {
        let t = std::time::Instant::now();
        let s = builtin_scene(
            name,
            &BuiltinOptions {
                vertices: n,
                ..Default::default()
            },
        );
        let dt = t.elapsed().as_secs_f64();
        match s {
            Ok(s) => {
                let m = &s.mesh;
                let mina = (0..m.triangle_count())
                    .map(|t| m.min_angle_deg(t))
                    .fold(f64::INFINITY, f64::min);
                println!(
                    "{name}: v={} t={} err={:.3}% minang={:.2} area={} comps={} time={:.3}s",
                    m.vertex_count(),
                    m.triangle_count(),
                    (m.vertex_count() as f64 / n as f64 - 1.0) * 100.0,
                    mina,
                    m.area(),
                    m.topology().component_count(),
                    dt
                );
            }
            Err(e) => println!("{name}: ERROR {e}"),
        }
    }
}
