//! Structured fuzzing of every loader (issue 10, item 5), on stable Rust and inside
//! `cargo test --release`: a seeded mutation loop over the shipped files in `data/` and over
//! files the crate writes itself, plus grammar-aware mutations of the parsed JSON (hostile
//! numbers, wrong types, deleted and duplicated fields, renamed references) and generated
//! alpha images for the PNG tracer.
//!
//! Every case must end in a typed error or a valid result: no panic (caught and reported), no
//! case slower than [`SLOW_CASE`], no allocation beyond [`alloc_budget`] of the input size,
//! and every loaded scene and weights set passes `Scene::sanity_check`, `Weights::validate`
//! (imports) and scores to finite metrics. Seeds are fixed, so a run is reproducible; a failing
//! case prints its target, seed and a path where the input was written.
//!
//! Inputs that failed once are frozen under `tests/fuzz_regressions/` and run first by
//! [`frozen_regressions`].
//!
//! Each test re-runs itself alone in a child process of the test binary ([`alone`]), where
//! the allocator counts: the other integration tests share the binary's process.

use crate::common;

use serde_json::{Map, Value};
use skinweights::io::{
    gltf::import_gltf_str, scene_from_json, scene_to_json, sprite_scene, trace_alpha, BonesFile,
    ExportOptions, Sprite, SpriteOptions, TraceOptions, WeightsFile,
};
use skinweights::lint::{lint, LintOptions};
use skinweights::mesh::MeshingOptions;
use skinweights::metrics::{evaluate, Metrics};
use skinweights::{
    scene::builtin_scene, scene::BuiltinOptions, scene::Scene, solvers::solve, weights::Weights,
    Error,
};
use std::alloc::{GlobalAlloc, Layout, System};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

// ---------------------------------------------------------------- allocation accounting

/// The system allocator, counting live bytes and the peak since the last [`reset_peak`] once
/// [`COUNTING`] is set. Signed: memory allocated before counting began may be freed after.
struct Counting;

/// Set in a child process that runs one fuzz target alone ([`alone`]); the other tests of
/// the binary (all integration tests are one binary) pay one load per allocation.
static COUNTING: AtomicBool = AtomicBool::new(false);
static LIVE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);

fn grew(by: usize) {
    let by = by as isize;
    let now = LIVE.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

fn shrank(by: usize) {
    LIVE.fetch_sub(by as isize, Ordering::Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() && COUNTING.load(Ordering::Relaxed) {
            grew(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        if COUNTING.load(Ordering::Relaxed) {
            shrank(layout.size());
        }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() && COUNTING.load(Ordering::Relaxed) {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                shrank(layout.size() - new_size);
            }
        }
        p
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The targets run one at a time so that the global peak belongs to one case.
static SERIAL: Mutex<()> = Mutex::new(());

fn reset_peak() -> isize {
    let live = LIVE.load(Ordering::Relaxed);
    PEAK.store(live, Ordering::Relaxed);
    live
}

/// Set in the environment of the child process [`alone`] starts.
const ALONE: &str = "SKINWEIGHTS_FUZZ_ALONE";

/// The allocation budget needs a process that runs nothing but the target: the integration
/// tests are one binary, whose other tests allocate meanwhile. So in the test process this
/// runs the test `fuzz::{test}` again in a child process of the same binary, by itself, and
/// returns `true` once it passed (its output printed here); in that child it turns allocation
/// accounting on and returns `false`: the caller then runs the target. Children run one at a
/// time.
fn alone(test: &str) -> bool {
    if std::env::var_os(ALONE).is_some() {
        COUNTING.store(true, Ordering::SeqCst);
        return false;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let name = format!("fuzz::{test}");
    let out = Command::new(std::env::current_exe().expect("the test binary's path"))
        .args([&name, "--exact", "--nocapture", "--test-threads=1"])
        .env(ALONE, "1")
        .output()
        .expect("runs the test binary");
    let stdout = String::from_utf8_lossy(&out.stdout);
    print!("{stdout}");
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{name} failed in its own process");
    assert!(
        stdout.contains("test result: ok. 1 passed"),
        "{name} did not run in its own process"
    );
    true
}

/// Bytes a case may allocate above what was live when it started: what a loader that keeps
/// a few copies of its input plus the mesh it builds needs, with a floor for fixed costs (the
/// seed scene's solve and metrics, the PNG decoder's buffers).
fn alloc_budget(input_len: usize) -> usize {
    (96 << 20) + 400 * input_len
}

/// A case slower than this counts as a hang (release build; the slowest seed case takes
/// about 50 ms).
const SLOW_CASE: Duration = Duration::from_secs(3);

// ---------------------------------------------------------------- deterministic randomness

/// SplitMix64: tiny, fast and good enough to drive mutations reproducibly.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Numbers a hostile user types: overflow, underflow, signs, integers past u32/u64.
const HOSTILE_NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "0.5",
    "1e308",
    "-1e308",
    "1.7976931348623157e308",
    "1e300",
    "-1e300",
    "1e-300",
    "5e-324",
    "1e-320",
    "1e9",
    "-1e9",
    "1e38",
    "3.5e38",
    "1e-46",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "9007199254740993",
    "2",
    "3",
    "255",
    "256",
    "65535",
    "-2147483649",
    "1e20",
    "100000000",
];

/// Byte strings spliced into raw text by the byte mutator.
const HOSTILE_TOKENS: &[&str] = &[
    "null",
    "true",
    "[]",
    "{}",
    "\"\"",
    "\"x\"",
    "NaN",
    "Infinity",
    "-",
    ",",
    "]",
    "}",
    "[",
    "{",
    "\"",
    "\\u0000",
    "1e308",
    "-1e308",
    "1e-320",
    "0",
    "-1",
    "\u{feff}",
    "\u{1F600}",
];

fn hostile_number(rng: &mut Rng) -> Value {
    let text: &&str = rng.pick(HOSTILE_NUMBERS);
    serde_json::from_str(text).expect("valid JSON number")
}

/// One structural mutation of a JSON document (the grammar-aware half of the fuzzer).
fn mutate_json(rng: &mut Rng, doc: &mut Value) {
    // Walk to a random node: at each level stop with probability 1/3 or descend.
    let mut node = doc;
    loop {
        let n = match node {
            Value::Array(a) => a.len(),
            Value::Object(o) => o.len(),
            _ => 0,
        };
        if n == 0 || rng.chance(3) {
            break;
        }
        let i = rng.below(n);
        node = match node {
            Value::Array(a) => &mut a[i],
            Value::Object(o) => o.values_mut().nth(i).expect("in range"),
            _ => unreachable!(),
        };
    }
    match rng.below(12) {
        0 | 1 => *node = hostile_number(rng),
        2 => {
            *node = rng
                .pick(&[
                    Value::Null,
                    Value::Bool(true),
                    Value::String(String::new()),
                    Value::String("x".into()),
                    Value::Array(vec![]),
                    Value::Object(Map::new()),
                ])
                .clone()
        }
        3 => match node {
            // Delete an element or key.
            Value::Array(a) if !a.is_empty() => {
                let i = rng.below(a.len());
                a.remove(i);
            }
            Value::Object(o) if !o.is_empty() => {
                let k = o.keys().nth(rng.below(o.len())).cloned().expect("in range");
                o.remove(&k);
            }
            _ => *node = Value::Null,
        },
        4 => match node {
            // Duplicate an element (repeated names, triangles, bones, parts).
            Value::Array(a) if !a.is_empty() => {
                let i = rng.below(a.len());
                let e = a[i].clone();
                a.insert(rng.below(a.len() + 1), e);
            }
            _ => *node = Value::Array(vec![node.clone(), node.clone()]),
        },
        5 => {
            // Scale or shift every number below the node: overflow, underflow, far origins.
            let op = rng.below(4);
            map_numbers(node, &|x| match op {
                0 => x * 1e300,
                1 => x * 1e-300,
                2 => x + 1e9,
                _ => x * 1e-6,
            });
        }
        6 => match node {
            // Swap two elements.
            Value::Array(a) if a.len() >= 2 => {
                let (i, j) = (rng.below(a.len()), rng.below(a.len()));
                a.swap(i, j);
            }
            _ => *node = hostile_number(rng),
        },
        7 => {
            // Truncate an array (fewer rows, vertices, weights than promised).
            if let Value::Array(a) = node {
                let n = rng.below(a.len() + 1);
                a.truncate(n);
            }
        }
        8 => {
            // Add an unknown key or element.
            match node {
                Value::Object(o) => {
                    o.insert("unexpected".into(), hostile_number(rng));
                }
                Value::Array(a) => a.push(hostile_number(rng)),
                _ => *node = Value::String("1".into()),
            }
        }
        9 => {
            // Integers: off by one, negative, huge.
            if let Some(i) = node.as_i64() {
                let delta = *rng.pick(&[1i64, -1, 1000, -1000, i64::MAX / 2]);
                *node = Value::from(i.saturating_add(delta));
            } else {
                *node = Value::from(rng.below(64) as u64);
            }
        }
        10 => {
            // Make every number below the node equal (degenerate geometry, coincident bones).
            let c = (rng.below(5) as f64) - 2.0;
            map_numbers(node, &|_| c);
        }
        _ => {
            // Nudge numbers by tiny amounts (near-coincident points).
            let eps = *rng.pick(&[1e-12, 1e-9, 1e-6]);
            map_numbers(node, &|x| x + eps);
        }
    }
}

fn map_numbers(v: &mut Value, f: &dyn Fn(f64) -> f64) {
    match v {
        Value::Number(n) => {
            if let Some(x) = n.as_f64() {
                let y = f(x);
                // Integer slots stay integers when the result is one (indices stay indices).
                *v = if n.is_u64() && y >= 0.0 && y.fract() == 0.0 && y < 1.8e19 {
                    Value::from(y as u64)
                } else {
                    serde_json::Number::from_f64(y).map_or(Value::Null, Value::Number)
                };
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|e| map_numbers(e, f)),
        Value::Object(o) => o.values_mut().for_each(|e| map_numbers(e, f)),
        _ => {}
    }
}

/// One byte-level mutation (the blind half: truncation, bit flips, splices).
fn mutate_bytes(rng: &mut Rng, data: &mut Vec<u8>) {
    if data.is_empty() {
        data.extend_from_slice(rng.pick(HOSTILE_TOKENS).as_bytes());
        return;
    }
    let i = rng.below(data.len());
    match rng.below(6) {
        0 => data[i] ^= 1 << rng.below(8),
        1 => data[i] = rng.next() as u8,
        2 => data.truncate(i),
        3 => {
            let end = (i + 1 + rng.below(64)).min(data.len());
            data.drain(i..end);
        }
        4 => {
            let end = (i + 1 + rng.below(256)).min(data.len());
            let chunk = data[i..end].to_vec();
            let at = rng.below(data.len());
            data.splice(at..at, chunk);
        }
        _ => {
            let t = rng.pick(HOSTILE_TOKENS).as_bytes();
            data.splice(i..i, t.iter().copied());
        }
    }
}

/// A mutated text: mostly structural JSON mutations, sometimes raw byte damage on top.
fn mutate_text(rng: &mut Rng, seed: &Value) -> Vec<u8> {
    let mut doc = seed.clone();
    for _ in 0..1 + rng.below(2) {
        mutate_json(rng, &mut doc);
    }
    let mut bytes = serde_json::to_vec(&doc).expect("serializes");
    if rng.chance(6) {
        for _ in 0..1 + rng.below(4) {
            mutate_bytes(rng, &mut bytes);
        }
    }
    bytes
}

// ---------------------------------------------------------------- the harness

/// What one case produced when it did not end well.
enum Bad {
    Panic(String),
    Slow(Duration),
    Alloc(usize),
    /// A result that loaded but is not valid (NaN metrics, failed sanity check, ...).
    Invalid(String),
}

impl std::fmt::Display for Bad {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Bad::Panic(m) => write!(f, "panic: {m}"),
            Bad::Slow(d) => write!(f, "slow: {:.1} s", d.as_secs_f64()),
            Bad::Alloc(b) => write!(f, "allocated {} MB", b >> 20),
            Bad::Invalid(m) => write!(f, "invalid result: {m}"),
        }
    }
}

/// Outcome of a target on one input: `Ok(true)` loaded, `Ok(false)` typed error.
type Outcome = Result<bool, String>;

/// A target's check, boxed so the frozen cases can pick one by folder name.
type Check<'a> = Box<dyn Fn(&[u8]) -> Outcome + 'a>;

struct Report {
    target: &'static str,
    cases: usize,
    loaded: usize,
    failures: Vec<(u64, Bad, PathBuf)>,
    elapsed: Duration,
}

/// Runs `check` on one input with panic, time and allocation accounting.
fn run_case(input: &[u8], check: &dyn Fn(&[u8]) -> Outcome) -> Result<bool, Bad> {
    let base = reset_peak();
    let start = Instant::now();
    let result = catch_unwind(AssertUnwindSafe(|| check(input)));
    let took = start.elapsed();
    let peak = (PEAK.load(Ordering::Relaxed) - base).max(0) as usize;
    let loaded = match result {
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            return Err(Bad::Panic(msg));
        }
        Ok(Err(why)) => return Err(Bad::Invalid(why)),
        Ok(Ok(loaded)) => loaded,
    };
    if took > SLOW_CASE {
        return Err(Bad::Slow(took));
    }
    if peak > alloc_budget(input.len()) {
        return Err(Bad::Alloc(peak));
    }
    Ok(loaded)
}

/// How many of a target's `cases` this run tries: all of them with `SKINWEIGHTS_FUZZ=full`
/// (what CI runs, `.ci/run`), else the first half of the seeds, so that a plain
/// `cargo test` stays quick (docs/hardening.md).
fn cases_this_run(cases: usize) -> usize {
    match std::env::var("SKINWEIGHTS_FUZZ").as_deref() {
        Ok("full") => cases,
        _ => cases.div_ceil(2),
    }
}

/// Runs `cases` mutated inputs through `check` (half of them unless `SKINWEIGHTS_FUZZ=full`,
/// [`cases_this_run`]); case `i` uses seed `seed_base + i`.
fn fuzz(
    target: &'static str,
    seed_base: u64,
    cases: usize,
    generate: &dyn Fn(&mut Rng) -> Vec<u8>,
    check: &dyn Fn(&[u8]) -> Outcome,
) -> Report {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let quiet = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let start = Instant::now();
    let mut report = Report {
        target,
        cases: 0,
        loaded: 0,
        failures: Vec::new(),
        elapsed: Duration::ZERO,
    };
    // Failing inputs are kept under the target directory, to be frozen as regressions.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-failures");
    for i in 0..cases_this_run(cases) {
        let seed = seed_base + i as u64;
        let input = generate(&mut Rng(seed));
        report.cases += 1;
        match run_case(&input, check) {
            Ok(loaded) => report.loaded += usize::from(loaded),
            Err(bad) => {
                std::fs::create_dir_all(&dir).expect("temp dir");
                let path = dir.join(format!("{target}-{seed}.bin"));
                std::fs::write(&path, &input).expect("writes the failing input");
                report.failures.push((seed, bad, path));
            }
        }
    }
    std::panic::set_hook(quiet);
    report.elapsed = start.elapsed();
    println!(
        "fuzz {}: {} cases ({} loaded, {} typed errors), {} failures, {:.2} s",
        report.target,
        report.cases,
        report.loaded,
        report.cases - report.loaded - report.failures.len(),
        report.failures.len(),
        report.elapsed.as_secs_f64()
    );
    report
}

fn assert_clean(report: Report) {
    for (seed, bad, path) in &report.failures {
        eprintln!(
            "  {} seed {seed}: {bad}\n    input: {}",
            report.target,
            path.display()
        );
    }
    assert!(
        report.failures.is_empty(),
        "{}: {} of {} cases failed (inputs listed above)",
        report.target,
        report.failures.len(),
        report.cases
    );
}

// ---------------------------------------------------------------- result validation

/// Errors that admit a bug rather than describe the input.
fn admits_bug(e: &Error) -> bool {
    let s = e.to_string();
    s.contains("this is a bug") || s.contains("NonPositivePivot")
}

fn typed(e: Error) -> Outcome {
    if admits_bug(&e) {
        Err(format!("misleading error: {e}"))
    } else {
        Ok(false)
    }
}

/// The metrics that must be finite (distortion may be infinite: a collapsed triangle, written
/// as `null`).
fn check_metrics(m: &Metrics) -> Result<(), String> {
    for (name, x) in [
        ("drag_max_pct", m.drag_max_pct),
        ("drag_mean_pct", m.drag_mean_pct),
        ("leaked_weight", m.leaked_weight),
        ("area_change_pct", m.area_change_pct),
        ("norm_err", m.norm_err),
        ("bind_err", m.bind_err),
        ("dirichlet", m.dirichlet),
    ] {
        if !x.is_finite() {
            return Err(format!("metric {name} = {x}"));
        }
    }
    if m.distortion_max.is_nan() || m.distortion_p99.is_nan() {
        return Err("distortion is NaN".into());
    }
    Ok(())
}

/// Scores `weights` on every probe of `scene` and lints them: each either a typed error or
/// finite numbers.
fn score(scene: &Scene, weights: &Weights) -> Result<(), String> {
    for probe in scene.probes() {
        match evaluate(scene, weights, probe) {
            Ok(m) => check_metrics(&m)?,
            Err(e) if admits_bug(&e) => return Err(format!("eval: {e}")),
            Err(_) => {}
        }
    }
    match lint(scene, weights, &LintOptions::default()) {
        Ok(checks) => {
            for c in checks {
                if c.measured.contains("NaN") || c.measured.contains("inf") {
                    return Err(format!("lint {}: {}", c.check, c.measured));
                }
            }
        }
        Err(e) if admits_bug(&e) => return Err(format!("lint: {e}")),
        Err(_) => {}
    }
    Ok(())
}

/// Every clip of a loaded scene, sampled at these fractions of its duration, gives finite
/// world transforms (or a typed refusal such as overflow).
fn check_clip_poses(scene: &Scene, fractions: &[f64]) -> Result<(), String> {
    for clip in scene.clips() {
        for t in fractions.iter().map(|f| f * clip.duration) {
            match scene
                .clip_pose(clip, t)
                .and_then(|p| scene.skeleton().world_affines(&p))
            {
                Ok(w) if w.iter().any(|m| !m.is_finite()) => {
                    return Err(format!(
                        "clip {:?} at {t}: non-finite world transform",
                        clip.name
                    ))
                }
                Err(e) if admits_bug(&e) => return Err(format!("clip {:?}: {e}", clip.name)),
                _ => {}
            }
        }
    }
    Ok(())
}

/// A loaded scene: sane, solvable (or a typed refusal), and its solved weights score finite.
fn check_scene(scene: &Scene) -> Result<(), String> {
    scene
        .sanity_check()
        .map_err(|e| format!("loaded scene fails sanity_check: {e}"))?;
    check_clip_poses(scene, &[0.0, 0.37, 1.0])?;
    if scene.mesh().vertex_count() > 5000 {
        return Ok(()); // solving is not the loader's cost; keep cases fast
    }
    match solve(scene, "euclidean") {
        Ok(w) => {
            w.validate()
                .map_err(|e| format!("solved weights invalid: {e}"))?;
            score(scene, &w)
        }
        Err(e) if admits_bug(&e) => Err(format!("solve: {e}")),
        Err(_) => Ok(()),
    }
}

// ---------------------------------------------------------------- seeds

fn data(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(path)
}

fn small_scene(name: &str) -> Scene {
    builtin_scene(name, &BuiltinOptions::default().with_vertices(500)).expect("built-in scene")
}

fn json_of(text: &str) -> Value {
    serde_json::from_str(text).expect("seed is JSON")
}

/// Picks a seed document and mutates it.
fn from_seeds(seeds: Vec<Value>) -> impl Fn(&mut Rng) -> Vec<u8> {
    move |rng| {
        let seed = rng.pick(&seeds);
        mutate_text(rng, seed)
    }
}

// ---------------------------------------------------------------- targets

fn check_scene_json(input: &[u8]) -> Outcome {
    let Ok(text) = std::str::from_utf8(input) else {
        return Ok(false);
    };
    match scene_from_json(text, None) {
        Ok((scene, _)) => check_scene(&scene).map(|()| true),
        Err(e) => typed(e),
    }
}

fn scene_seeds() -> Vec<Value> {
    let mut seeds: Vec<Value> = ["bar", "arms-down", "layered-arms"]
        .iter()
        .map(|n| json_of(&scene_to_json(&small_scene(n), None).expect("writes")))
        .collect();
    seeds.push(json_of(
        &scene_to_json(&animated_bar(), None).expect("writes"),
    ));
    seeds
}

/// The bar with a clip of every curve kind and a one-bone IK constraint (format /3).
fn animated_bar() -> Scene {
    use skinweights::animation::{
        BoneTrack, ChannelKind as K, Clip, Curve, Easing, IkConstraint, Key,
    };
    let clip = Clip::new("swing", 1.0)
        .with_track(
            BoneTrack::new("lower")
                .with(
                    K::Rotation,
                    vec![
                        Key::new(0.0, 0.0).with_curve(Curve::Bezier {
                            x1: 0.2,
                            y1: -0.3,
                            x2: 0.8,
                            y2: 1.4,
                        }),
                        Key::new(0.3, 40.0).with_curve(Curve::Easing(Easing::Bounce)),
                        Key::new(0.6, -20.0).with_curve(Curve::GodotEase(-1.5)),
                        Key::new(1.0, 0.0).with_curve(Curve::Stepped),
                    ],
                )
                .with(K::ShearX, vec![Key::new(0.0, 0.0), Key::new(1.0, 10.0)]),
        )
        .with_track(BoneTrack::new("upper").with(K::ScaleY, vec![Key::new(0.5, 1.2)]));
    let ik = IkConstraint::new("aim", vec!["lower".into()], "upper");
    small_scene("bar")
        .with_animation(vec![clip], vec![ik])
        .expect("valid clip")
}

#[test]
fn fuzz_scene_json() {
    if alone("fuzz_scene_json") {
        return;
    }
    let gen = from_seeds(scene_seeds());
    assert_clean(fuzz("scene-json", 1_000_000, 5000, &gen, &check_scene_json));
}

fn weights_scene() -> Scene {
    small_scene("arms-down")
}

fn check_weights_json(scene: &Scene, input: &[u8]) -> Outcome {
    let Ok(text) = std::str::from_utf8(input) else {
        return Ok(false);
    };
    let file = match WeightsFile::from_json(text) {
        Ok(f) => f,
        Err(e) => return typed(e),
    };
    let names: Vec<String> = scene
        .skeleton()
        .bones()
        .iter()
        .map(|b| b.name.clone())
        .collect();
    match file.to_weights_for(&names, scene.mesh().vertex_count()) {
        Ok(w) => score(scene, &w).map(|()| true),
        Err(e) => typed(e),
    }
}

#[test]
fn fuzz_weights_json() {
    if alone("fuzz_weights_json") {
        return;
    }
    let scene = weights_scene();
    let names: Vec<String> = scene
        .skeleton()
        .bones()
        .iter()
        .map(|b| b.name.clone())
        .collect();
    let seeds: Vec<Value> = ["euclidean", "heat+mask"]
        .iter()
        .map(|s| {
            let w = solve(&scene, s).expect("solves");
            serde_json::to_value(WeightsFile::new(scene.name(), s, names.clone(), &w))
                .expect("serializes")
        })
        .collect();
    let gen = from_seeds(seeds);
    assert_clean(fuzz("weights-json", 2_000_000, 3000, &gen, &|i| {
        check_weights_json(&scene, i)
    }));
}

/// A small sprite (a person-like blob) the bones files are traced against.
fn robot() -> Sprite {
    Sprite::load(data("kenney-toon/robot_idle.png")).expect("robot sprite")
}

fn sprite_options() -> SpriteOptions {
    SpriteOptions::default().with_meshing(MeshingOptions::default().with_target_vertices(400))
}

fn check_bones_json(sprite: &Sprite, input: &[u8]) -> Outcome {
    let Ok(text) = std::str::from_utf8(input) else {
        return Ok(false);
    };
    let bones = match BonesFile::from_json(text) {
        Ok(b) => b,
        Err(e) => return typed(e),
    };
    match sprite_scene(sprite, bones, &sprite_options()) {
        Ok((scene, _, _)) => check_scene(&scene).map(|()| true),
        Err(e) => typed(e),
    }
}

#[test]
fn fuzz_bones_json() {
    if alone("fuzz_bones_json") {
        return;
    }
    let sprite = robot();
    let seeds: Vec<Value> = ["robot_idle", "malePerson_idle", "femaleAdventurer_idle"]
        .iter()
        .map(|s| {
            json_of(
                &std::fs::read_to_string(data(&format!("kenney-toon/{s}_bones.json")))
                    .expect("bones file"),
            )
        })
        .collect();
    let gen = from_seeds(seeds);
    assert_clean(fuzz("bones-json", 3_000_000, 700, &gen, &|i| {
        check_bones_json(&sprite, i)
    }));
}

/// A generated alpha image: blobs, stripes, noise, checkerboards, single pixels, holes.
fn generated_png(rng: &mut Rng) -> Vec<u8> {
    let w = 1 + rng.below(48) as u32;
    let h = 1 + rng.below(48) as u32;
    let kind = rng.below(6);
    let (cx, cy, r) = (
        rng.below(w as usize) as f64,
        rng.below(h as usize) as f64,
        1.0 + rng.below(24) as f64,
    );
    let mut img = image::RgbaImage::new(w, h);
    for (x, y, p) in img.enumerate_pixels_mut() {
        let a = match kind {
            0 => (((x as f64 - cx).powi(2) + (y as f64 - cy).powi(2)).sqrt() < r) as u8 * 255,
            1 => ((x + y) % 2 == 0) as u8 * 255,
            2 => rng.next() as u8,
            3 => ((x / 3) % 2 == 0) as u8 * 200,
            4 => (x == w / 2 && y == h / 2) as u8 * 255,
            _ => {
                let d = ((x as f64 - cx).powi(2) + (y as f64 - cy).powi(2)).sqrt();
                ((d < r) && (d > r / 2.0)) as u8 * 255
            }
        };
        *p = image::Rgba([200, 100, 50, a]);
    }
    let mut bytes = Vec::new();
    image::DynamicImage::ImageRgba8(img)
        .write_to(
            &mut std::io::Cursor::new(&mut bytes),
            image::ImageFormat::Png,
        )
        .expect("encodes");
    bytes
}

/// Trace options packed into the input's first three bytes so a frozen case replays exactly.
fn trace_options(b: [u8; 3]) -> TraceOptions {
    TraceOptions::default()
        .with_threshold(b[0])
        .with_tolerance([0.0, 0.25, 0.5, 1.0, 2.0, 8.0][b[1] as usize % 6])
        .with_min_area([0.0, 0.5, 3.0, 10.0, 1e9][b[2] as usize % 5])
}

fn check_png(input: &[u8]) -> Outcome {
    if input.len() < 3 {
        return Ok(false);
    }
    let options = trace_options([input[0], input[1], input[2]]);
    let sprite = match Sprite::from_png_bytes(&input[3..], "fuzz.png") {
        Ok(s) => s,
        Err(e) => return typed(e),
    };
    let trace = match trace_alpha(&sprite, &options) {
        Ok(t) => t,
        Err(e) => return typed(e),
    };
    for (i, l) in trace.outline.loops.iter().enumerate() {
        if l.iter().any(|p| !p.x.is_finite() || !p.y.is_finite()) {
            return Err(format!("loop {i} has a non-finite point"));
        }
    }
    if !trace.outline.area().is_finite() {
        return Err("traced area is not finite".into());
    }
    let bones = BonesFile::from_json(&format!(
        r#"{{"bones":[{{"name":"b","parent":null,"head":[0,0],"tail":[{},{}]}}]}}"#,
        sprite.image.width(),
        sprite.image.height()
    ))
    .expect("bones");
    let mut opts = sprite_options();
    opts.trace = options;
    match sprite_scene(&sprite, bones, &opts) {
        Ok((scene, _, _)) => scene
            .sanity_check()
            .map(|()| true)
            .map_err(|e| format!("traced scene fails sanity_check: {e}")),
        Err(e) => typed(e),
    }
}

#[test]
fn fuzz_png_tracing() {
    if alone("fuzz_png_tracing") {
        return;
    }
    let shipped: Vec<Vec<u8>> = [
        "kenney-toon/robot_idle.png",
        "kenney-toon/malePerson_idle.png",
        "kenney-toon/femaleAdventurer_idle.png",
    ]
    .iter()
    .map(|p| std::fs::read(data(p)).expect("png"))
    .collect();
    let gen = move |rng: &mut Rng| {
        let mut out = vec![1 + rng.below(255) as u8, rng.next() as u8, rng.next() as u8];
        let mut png = if rng.chance(3) {
            rng.pick(&shipped).clone()
        } else {
            generated_png(rng)
        };
        if rng.chance(3) {
            for _ in 0..1 + rng.below(3) {
                mutate_bytes(rng, &mut png);
            }
        }
        out.extend(png);
        out
    };
    assert_clean(fuzz("png-tracing", 4_000_000, 1000, &gen, &check_png));
}

fn check_gltf(input: &[u8]) -> Outcome {
    let Ok(text) = std::str::from_utf8(input) else {
        return Ok(false);
    };
    match import_gltf_str(text, None, "fuzz") {
        Ok(import) => {
            check_scene(&import.scene)?;
            if let Some(file) = import.weights_file() {
                let names: Vec<String> = import
                    .scene
                    .skeleton()
                    .bones()
                    .iter()
                    .map(|b| b.name.clone())
                    .collect();
                let w = file
                    .to_weights_for(&names, import.scene.mesh().vertex_count())
                    .map_err(|e| format!("imported weights do not fit the scene: {e}"))?;
                w.validate()
                    .map_err(|e| format!("imported weights invalid: {e}"))?;
            }
            Ok(true)
        }
        Err(e) => typed(e),
    }
}

#[test]
fn fuzz_gltf() {
    if alone("fuzz_gltf") {
        return;
    }
    let simple = json_of(
        &std::fs::read_to_string(data("khronos-simpleskin/SimpleSkin.gltf")).expect("gltf"),
    );
    let scene = small_scene("arms-down");
    let w = solve(&scene, "heat").expect("solves");
    let exported = json_of(
        &common::export_text("gltf", &scene, &w, &ExportOptions::default()).expect("exports"),
    );
    // The same scene with a clip: linear, stepped and Bézier keys become LINEAR and STEP
    // samplers on the joint nodes (the animation import).
    let animated = {
        use skinweights::animation::{BoneTrack, ChannelKind, Clip, Curve, Key};
        let bone = scene.skeleton().bones()[1].name.clone();
        let keys = vec![
            Key::new(0.0, 0.0),
            Key::new(0.5, 30.0).with_curve(Curve::Stepped),
            Key::new(1.0, -20.0),
        ];
        let moves = vec![Key::new(0.0, 0.0), Key::new(1.0, 4.0)];
        let clip = Clip::new("wave", 1.2).with_track(
            BoneTrack::new(bone)
                .with(ChannelKind::Rotation, keys)
                .with(ChannelKind::TranslateX, moves.clone())
                .with(ChannelKind::ScaleY, moves),
        );
        let scene = scene
            .clone()
            .with_animation(vec![clip], vec![])
            .expect("clip");
        json_of(
            &common::export_text("gltf", &scene, &w, &ExportOptions::default()).expect("exports"),
        )
    };
    let gen = from_seeds(vec![simple, exported, animated]);
    assert_clean(fuzz("gltf", 5_000_000, 4000, &gen, &check_gltf));
}

fn check_dragonbones(input: &[u8]) -> Outcome {
    let Ok(text) = std::str::from_utf8(input) else {
        return Ok(false);
    };
    match skinweights::io::dragonbones::import_dragonbones(text) {
        Ok(import) => {
            import
                .scene
                .sanity_check()
                .map_err(|e| format!("imported scene fails sanity_check: {e}"))?;
            import
                .artist
                .validate()
                .map_err(|e| format!("artist weights invalid: {e}"))?;
            score(&import.scene, &import.artist).map(|()| true)
        }
        Err(e) => typed(e),
    }
}

/// The DragonBones seed: You Xin's body, 7 weighted meshes.
fn dragonbones_seed() -> Value {
    json_of(
        &std::fs::read_to_string(data("dragonbones-you-xin/body_ske.json")).expect("dragonbones"),
    )
}

#[test]
fn fuzz_dragonbones() {
    if alone("fuzz_dragonbones") {
        return;
    }
    let seed = dragonbones_seed();
    let gen = from_seeds(vec![seed]);
    assert_clean(fuzz(
        "dragonbones",
        6_000_000,
        700,
        &gen,
        &check_dragonbones,
    ));
}

// ---------------------------------------------------------------- Creature

fn check_creature(input: &[u8]) -> Outcome {
    let Ok(text) = std::str::from_utf8(input) else {
        return Ok(false);
    };
    match skinweights::io::creature::import_creature(text) {
        Ok(import) => {
            import
                .scene
                .sanity_check()
                .map_err(|e| format!("imported scene fails sanity_check: {e}"))?;
            import
                .artist
                .validate()
                .map_err(|e| format!("artist weights invalid: {e}"))?;
            check_clip_poses(&import.scene, &[0.0, 0.37, 1.0])?;
            score(&import.scene, &import.artist).map(|()| true)
        }
        Err(e) => typed(e),
    }
}

#[test]
fn fuzz_creature() {
    if alone("fuzz_creature") {
        return;
    }
    // The tiny rig, and the bat with its clip cut to its first four frames (cases stay fast).
    let tiny = json_of(common::TINY_CREATURE);
    let mut bat =
        json_of(&std::fs::read_to_string(data("creature/creature-bat.json")).expect("creature"));
    if let Some(frames) = bat["animation"]["default"]["bones"].as_object_mut() {
        let keep: Vec<String> = frames.keys().take(4).cloned().collect();
        frames.retain(|k, _| keep.contains(k));
    }
    for field in ["meshes", "uv_swaps", "mesh_opacities"] {
        bat["animation"]["default"][field] = Value::Object(Map::new());
    }
    let gen = from_seeds(vec![tiny.clone(), tiny, bat]);
    assert_clean(fuzz("creature", 9_000_000, 3000, &gen, &check_creature));
}

// ---------------------------------------------------------------- Spine

/// An atlas for the tiny Spine project: a 64 x 64 page with both regions on it.
const TINY_ATLAS: &str = "tiny.png\nsize: 64, 64\nfilter: Linear, Linear\narm\nbounds: 0, 0, 32, 32\nhat\nbounds: 40, 40, 20, 20\n";

/// A Spine case: the tiny project with one hostile edit of the kinds issue 25 and 26 name
/// (or generic mutations), or an atlas case (`ATLAS\n` + text).
fn spine_case(rng: &mut Rng) -> Vec<u8> {
    use serde_json::json;
    let seed = json_of(common::TINY_SPINE);
    let mut doc = seed.clone();
    let anim =
        |d: &mut Value| -> Value { d["animations"]["wave"]["bones"]["upper"]["rotate"].clone() };
    match rng.below(16) {
        0..=3 => return mutate_text(rng, &seed),
        4 => {
            // A bone index past the skeleton (or negative, fractional).
            let i = *rng.pick(&[1usize, 6, 11, 15]);
            doc["skins"][0]["attachments"]["arm"]["arm"]["vertices"][i] = rng
                .pick(&[json!(5), json!(99), json!(-1), json!(1.5), json!(1e300)])
                .clone();
        }
        5 => {
            // boneCount overrunning the array, or zero.
            let i = *rng.pick(&[0usize, 5, 10, 19]);
            doc["skins"][0]["attachments"]["arm"]["arm"]["vertices"][i] = rng
                .pick(&[json!(4), json!(0), json!(1_000_000), json!(2)])
                .clone();
        }
        6 => {
            // A parent cycle (a parent named after its child) or a self parent.
            let (b, p) = *rng.pick(&[(1usize, "tip"), (2, "lower"), (1, "upper"), (4, "ghost")]);
            doc["bones"][b]["parent"] = json!(p);
        }
        7 => {
            let b = rng.below(5);
            let key = *rng.pick(&["scaleX", "scaleY", "shearX", "rotation", "x"]);
            doc["bones"][b][key] = rng
                .pick(&[
                    json!(0),
                    json!(1e308),
                    json!(-0.0),
                    json!(1e-300),
                    json!(1e3),
                    json!(-1e3),
                ])
                .clone();
        }
        8 => {
            // Many keys: 10^6 (the limit) now and then, else 10^4.
            let n = if rng.chance(40) { 1_000_000 } else { 10_000 };
            let keys: Vec<Value> = (0..n).map(|_| json!({})).collect();
            doc["animations"]["idle"]["bones"]["root"]["rotate"] = Value::Array(keys);
        }
        9 => {
            // Not-a-number keys: strings and values past every limit.
            let mut k = anim(&mut doc);
            k[rng.below(3)][*rng.pick(&["time", "value"])] = rng
                .pick(&[
                    json!("NaN"),
                    json!(1e308),
                    json!(-1e308),
                    json!(null),
                    json!([]),
                ])
                .clone();
            doc["animations"]["wave"]["bones"]["upper"]["rotate"] = k;
        }
        10 => {
            // Times out of order, duplicated, negative.
            let mut k = anim(&mut doc);
            k[rng.below(3)]["time"] = rng
                .pick(&[json!(5), json!(0.4), json!(-1), json!(0)])
                .clone();
            doc["animations"]["wave"]["bones"]["upper"]["rotate"] = k;
        }
        11 => {
            // Unknown bones in animations and IK, unknown IK targets.
            match rng.below(3) {
                0 => doc["animations"]["wave"]["bones"]["ghost"] = json!({"rotate": [{}]}),
                1 => doc["ik"][0]["bones"][rng.below(2)] = json!("ghost"),
                _ => doc["ik"][0]["target"] = json!(*rng.pick(&["ghost", "upper", "lower"])),
            }
        }
        12 => {
            // Bézier control points outside the segment, huge, or of the wrong count.
            let mut k = anim(&mut doc);
            k[rng.below(2)]["curve"] = rng
                .pick(&[
                    json!([-5, 1e6, 99, -1e6]),
                    json!([2, 0, -1, 0]),
                    json!([0.1, 5, 0.3]),
                    json!([1e308, 1, 1, 1]),
                    json!("bounce"),
                ])
                .clone();
            doc["animations"]["wave"]["bones"]["upper"]["rotate"] = k;
        }
        13 => {
            // IK values Spine would not write.
            doc["ik"][0][*rng.pick(&["mix", "softness", "bendPositive", "order"])] = rng
                .pick(&[json!(-1), json!(1e308), json!("x"), json!(2)])
                .clone();
        }
        _ => {
            // An atlas case: regions outside their page, bad sizes, generic byte damage.
            let mut text = TINY_ATLAS.to_string();
            let edit = *rng.pick(&[
                ("bounds: 40, 40, 20, 20", "bounds: 50, 50, 32, 32"),
                ("bounds: 0, 0, 32, 32", "bounds: -1, 0, 32, 32"),
                ("size: 64, 64", "size: 0, 0"),
                ("size: 64, 64", "size: 99999999999, 1"),
                ("bounds: 0, 0, 32, 32", "bounds: 0, 0, 1e308, 32"),
                ("hat\n", ""),
            ]);
            text = text.replace(edit.0, edit.1);
            let mut bytes = format!("ATLAS\n{text}").into_bytes();
            if rng.chance(3) {
                mutate_bytes(rng, &mut bytes);
            }
            return bytes;
        }
    }
    if rng.chance(3) {
        mutate_json(rng, &mut doc);
    }
    serde_json::to_vec(&doc).expect("serializes")
}

fn check_spine(input: &[u8]) -> Outcome {
    use skinweights::io::spine::{import_spine, Atlas, SkinSelection, SpineImportOptions};
    let Ok(text) = std::str::from_utf8(input) else {
        return Ok(false);
    };
    if let Some(atlas) = text.strip_prefix("ATLAS\n") {
        return match Atlas::parse(atlas, Path::new("."), "fuzz.atlas") {
            Ok(a) => {
                // Every region's corners on its page.
                for r in &a.regions {
                    let (w, h) = a.pages[r.page].size;
                    for (u, v) in [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)] {
                        let [x, y] = r.trimmed_pixel(u, v);
                        if !(x >= -1e-9 && x <= w + 1e-9 && y >= -1e-9 && y <= h + 1e-9) {
                            return Err(format!(
                                "region {:?} corner ({x}, {y}) is off its {w} x {h} page",
                                r.name
                            ));
                        }
                    }
                }
                Ok(true)
            }
            Err(e) => typed(e),
        };
    }
    let options = SpineImportOptions::default().with_skin(SkinSelection::All);
    match import_spine(text, None, &options) {
        Ok(import) => {
            let scene = &import.scene;
            import
                .artist
                .validate()
                .map_err(|e| format!("artist weights invalid: {e}"))?;
            if import.artist.as_slice().iter().any(|w| !w.is_finite()) {
                return Err("NaN artist weights".into());
            }
            for clip in scene.clips() {
                for t in [0.0, clip.duration * 0.37, clip.duration] {
                    match scene
                        .clip_pose(clip, t)
                        .and_then(|p| scene.skeleton().world_affines(&p))
                    {
                        Ok(w) if w.iter().any(|m| !m.is_finite()) => {
                            return Err(format!("clip {:?} at {t}: non-finite world", clip.name))
                        }
                        Err(e) if admits_bug(&e) => {
                            return Err(format!("clip {:?}: {e}", clip.name))
                        }
                        _ => {}
                    }
                }
            }
            score(scene, &import.artist).map(|()| true)
        }
        Err(e) => typed(e),
    }
}

#[test]
fn fuzz_spine() {
    if alone("fuzz_spine") {
        return;
    }
    assert_clean(fuzz("spine", 8_000_000, 1500, &spine_case, &check_spine));
}

// ---------------------------------------------------------------- artist triangle soups

/// Every solver of the registry and both wrappers (issue 25: artist meshes solve with all).
const ARTIST_SOLVERS: &[(&str, &str)] = &[
    ("linear", ""),
    ("euclidean", ""),
    ("geodesic", ""),
    ("heat", ""),
    ("mask", ""),
    ("heat+mask", ""),
    ("bbw", ""),
    ("best", ""),
    ("heat", "limit=0.05:0.1"),
    ("geodesic", "refine=200"),
];

/// A scene file of random triangles over random points (either orientation, folds, repeats,
/// unused and repeated vertices, edges of many triangles), two parts, and bones of which some
/// have length 0 and some lie far outside the mesh.
fn artist_soup(rng: &mut Rng) -> Vec<u8> {
    let n = 3 + rng.below(40);
    let coord = |rng: &mut Rng| (rng.below(2001) as f64 - 1000.0) / 100.0;
    let mut vertices: Vec<[f64; 2]> = (0..n).map(|_| [coord(rng), coord(rng)]).collect();
    if rng.chance(4) {
        vertices[1] = vertices[0]; // two vertices on one point
    }
    let triangles: Vec<[usize; 3]> = (0..1 + rng.below(60))
        .map(|_| {
            if rng.chance(5) {
                [0, 1, 2] // one edge of many triangles
            } else {
                [rng.below(n), rng.below(n), rng.below(n)]
            }
        })
        .collect();
    let vertex_parts: Vec<usize> = (0..n).map(|_| rng.below(2)).collect();
    let bones: Vec<Value> = (0..1 + rng.below(4))
        .map(|j| {
            let head = [coord(rng), coord(rng)];
            let tail = match rng.below(3) {
                0 => head,                               // length 0: a control bone
                1 => [head[0] + 500.0, head[1] + 500.0], // far outside
                _ => [coord(rng), coord(rng)],
            };
            let parent = if j > 0 {
                Value::from(format!("b{}", rng.below(j)))
            } else {
                Value::Null
            };
            let part = ["a", "b"][rng.below(2)];
            serde_json::json!({"name": format!("b{j}"), "parent": parent, "head": head,
                "tail": tail, "part": part})
        })
        .collect();
    serde_json::json!({
        "format": "skinweights.scene/1", "name": "soup", "vertices": vertices,
        "triangles": triangles, "parts": ["a", "b"], "vertex_parts": vertex_parts,
        "bones": bones,
    })
    .to_string()
    .into_bytes()
}

/// A loaded soup solves with every solver: weights finite, `>= 0`, rows summing to 1.
fn check_artist_soup(input: &[u8]) -> Outcome {
    let Ok(text) = std::str::from_utf8(input) else {
        return Ok(false);
    };
    let scene = match scene_from_json(text, None) {
        Ok((scene, _)) => scene,
        Err(e) => return typed(e),
    };
    scene
        .sanity_check()
        .map_err(|e| format!("loaded scene fails sanity_check: {e}"))?;
    for &(name, option) in ARTIST_SOLVERS {
        let options: Vec<(String, String)> = option
            .split_once('=')
            .map(|(k, v)| vec![(k.to_string(), v.to_string())])
            .unwrap_or_default();
        let w = skinweights::solvers::solver_by_name(name, &options)
            .and_then(|s| s.solve(&scene))
            .map_err(|e| format!("{name} {option}: {e}"))?
            .weights;
        w.validate()
            .map_err(|e| format!("{name} {option}: invalid weights: {e}"))?;
    }
    Ok(true)
}

#[test]
fn fuzz_artist_soups() {
    if alone("fuzz_artist_soups") {
        return;
    }
    assert_clean(fuzz(
        "artist-soup",
        7_000_000,
        150,
        &artist_soup,
        &check_artist_soup,
    ));
}

// ---------------------------------------------------------------- Godot clips

/// Tokens a hostile Godot animation puts where a key number was (issue 26).
const GODOT_HOSTILE: &[&str] = &[
    "nan", "inf", "-inf", "-1", "1e39", "-1e39", "1e300", "0", "3", "1e-45", "", "x", ",", ")",
    "(", "[", "]",
];

/// The byte range of gBot's `Animation` sub-resources (the clips; the rest of the scene is
/// left alone so that cases reach the clip loader).
fn godot_animation_range(text: &str) -> (usize, usize) {
    let start = text
        .find("[sub_resource type=\"Animation\"")
        .expect("gBot has animations");
    let last = text
        .rfind("[sub_resource type=\"Animation\"")
        .expect("gBot has animations");
    let end = text[last + 1..]
        .find("\n[")
        .map_or(text.len(), |k| last + 1 + k);
    (start, end)
}

/// The byte ranges of the number tokens in `s`.
fn number_tokens(s: &str) -> Vec<(usize, usize)> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts =
            b[i].is_ascii_digit() || (b[i] == b'-' && b.get(i + 1).is_some_and(u8::is_ascii_digit));
        if starts && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) {
            let j0 = i;
            i += 1;
            while i < b.len()
                && (b[i].is_ascii_digit() || matches!(b[i], b'.' | b'e' | b'E' | b'-' | b'+'))
            {
                i += 1;
            }
            out.push((j0, i));
        } else {
            i += 1;
        }
    }
    out
}

/// A Godot case: gBot with one to three hostile edits of its animations: a key number
/// replaced by a hostile token, a `times` array reversed (keys out of order), a track's
/// path pointed at no node, or raw byte damage inside the animations.
fn godot_clip_case(rng: &mut Rng, text: &str) -> Vec<u8> {
    let (start, end) = godot_animation_range(text);
    let mut region = text[start..end].to_string();
    for _ in 0..1 + rng.below(3) {
        match rng.below(5) {
            0 | 1 => {
                let tokens = number_tokens(&region);
                if let Some(&(a, b)) = tokens.get(rng.below(tokens.len().max(1))) {
                    let token: &&str = rng.pick(GODOT_HOSTILE);
                    region.replace_range(a..b, token);
                }
            }
            2 => {
                let arrays: Vec<usize> = region
                    .match_indices("\"times\": PackedFloat32Array(")
                    .map(|(k, m)| k + m.len())
                    .collect();
                if let Some(&a) = arrays.get(rng.below(arrays.len().max(1))) {
                    let b = a + region[a..].find(')').unwrap_or(0);
                    let mut reversed: Vec<&str> = region[a..b].split(", ").collect();
                    reversed.reverse();
                    let reversed = reversed.join(", ");
                    region.replace_range(a..b, &reversed);
                }
            }
            3 => {
                let paths: Vec<usize> = region
                    .match_indices("NodePath(\"")
                    .map(|(k, m)| k + m.len())
                    .collect();
                if let Some(&a) = paths.get(rng.below(paths.len().max(1))) {
                    region.insert_str(a, "Nobody/");
                }
            }
            _ => {
                let mut bytes = region.into_bytes();
                mutate_bytes(rng, &mut bytes);
                region = String::from_utf8_lossy(&bytes).into_owned();
            }
        }
    }
    let mut out = text[..start].to_string();
    out.push_str(&region);
    out.push_str(&text[end..]);
    out.into_bytes()
}

/// A Godot case ends in a typed error or a sane scene whose clips pose to finite transforms.
fn check_godot(input: &[u8]) -> Outcome {
    let Ok(text) = std::str::from_utf8(input) else {
        return Ok(false);
    };
    match skinweights::io::godot::import_godot(text, None) {
        Ok(import) => {
            let scene = &import.scene;
            scene
                .sanity_check()
                .map_err(|e| format!("imported scene fails sanity_check: {e}"))?;
            import
                .artist
                .validate()
                .map_err(|e| format!("artist weights invalid: {e}"))?;
            check_clip_poses(scene, &[0.0, 0.37, 0.81, 1.0])?;
            Ok(true)
        }
        Err(e) => typed(e),
    }
}

/// Seeded mutations of gBot's Godot animations (issue 26): no panic, no allocation past the
/// budget, a typed error or finite clip poses. Slow cases are reported but not failed (this
/// target makes no timing claim).
#[test]
fn fuzz_godot_clips() {
    if alone("fuzz_godot_clips") {
        return;
    }
    let text = std::fs::read_to_string(data("godot-gbot/player.tscn")).expect("gBot");
    let gen = |rng: &mut Rng| godot_clip_case(rng, &text);
    let mut report = fuzz("godot-clips", 7_000_000, 2000, &gen, &check_godot);
    report.failures.retain(|(seed, bad, _)| {
        let slow = matches!(bad, Bad::Slow(_));
        if slow {
            println!("  godot-clips seed {seed}: {bad} (not failed: no timing claim)");
        }
        !slow
    });
    assert!(
        report.loaded > 0 && report.loaded < report.cases,
        "{} of {} loaded",
        report.loaded,
        report.cases
    );
    assert_clean(report);
}

// ---------------------------------------------------------------- tolerance rules

// The readers' tolerances (src/io/tolerance.rs, `MAX_IK_MIX`): values just inside a limit
// load (clamped or applied, with a note), values past it are a typed error naming the field.
// A case is `FORMAT FIELD\n` + the file: the format to read it as and the field an error
// must name (`json`: text serde_json refuses, a `Json` error).

/// A tolerance case: its format, the field its error must name, and the file.
fn tolerance_case(format: &str, field: &str, doc: &Value) -> Vec<u8> {
    format!("{format} {field}\n{doc}").into_bytes()
}

/// A number near and past a tolerance: most within `inside`, the rest at its ends, just
/// past them, far past, or not a number at all.
fn near_limit(rng: &mut Rng, inside: (f64, f64)) -> Value {
    use serde_json::json;
    let (lo, hi) = inside;
    match rng.below(10) {
        0..=4 => json!(lo + (hi - lo) * (rng.next() >> 11) as f64 / (1u64 << 53) as f64),
        5 => json!(*rng.pick(&[lo, hi, 0.0, -0.0])),
        6 => json!(*rng.pick(&[
            lo - 1e-9,
            hi + 1e-9,
            lo - (hi - lo) * 1e-3,
            hi + (hi - lo) * 1e-3
        ])),
        7 => json!(*rng.pick(&[-1e308, 1e308, 5e-324, -5e-324, 1e300])),
        8 => rng
            .pick(&[
                json!("NaN"),
                json!("1"),
                json!(null),
                json!([]),
                json!({}),
                json!(true),
            ])
            .clone(),
        _ => {
            let w = hi - lo;
            json!(lo - w + 3.0 * w * (rng.next() >> 11) as f64 / (1u64 << 53) as f64)
        }
    }
}

/// The artist's weights of an import: every entry finite and >= 0, every row summing to 1.
fn check_rows(w: &Weights) -> Result<(), String> {
    for (v, row) in w.rows().enumerate() {
        if let Some(x) = row.iter().find(|x| !x.is_finite() || **x < 0.0) {
            return Err(format!("vertex {v} has weight {x}"));
        }
        let sum: f64 = row.iter().sum();
        if (sum - 1.0).abs() > 1e-9 {
            return Err(format!("vertex {v}'s weights sum to {sum}"));
        }
    }
    Ok(())
}

/// Reads a tolerance case: Ok(true) when it loaded sane with clean weights, Ok(false) when
/// it was refused with an error naming its field.
fn check_tolerance(input: &[u8]) -> Outcome {
    use skinweights::io::spine::{import_spine, SkinSelection, SpineImportOptions};
    let text = std::str::from_utf8(input).map_err(|_| "the case is not UTF-8".to_string())?;
    let (head, file) = text.split_once('\n').ok_or("no case header")?;
    let (format, field) = head.split_once(' ').ok_or("no case field")?;
    let loaded = match format {
        "spine" => {
            let options = SpineImportOptions::default().with_skin(SkinSelection::All);
            import_spine(file, None, &options).map(|i| (i.scene, i.artist, i.report.notes))
        }
        "dragonbones" => skinweights::io::dragonbones::import_dragonbones(file)
            .map(|i| (i.scene, i.artist, i.report.notes)),
        _ => skinweights::io::creature::import_creature(file)
            .map(|i| (i.scene, i.artist, i.report.notes)),
    };
    match loaded {
        Ok((scene, artist, notes)) => {
            scene
                .sanity_check()
                .map_err(|e| format!("imported scene fails sanity_check: {e}"))?;
            check_rows(&artist)?;
            for ik in scene.ik() {
                if !ik.mix.is_finite() || ik.mix.abs() > skinweights::animation::MAX_IK_MIX {
                    return Err(format!("IK {:?} loaded with mix {}", ik.name, ik.mix));
                }
                let noted = notes.iter().any(|n| n.contains("applied unclamped"));
                if !(0.0..=1.0).contains(&ik.mix) && !noted {
                    return Err(format!("IK mix {} applied without a note", ik.mix));
                }
            }
            check_clip_poses(&scene, &[0.0, 0.37, 1.0])?;
            score(&scene, &artist).map(|()| true)
        }
        Err(e) if admits_bug(&e) => Err(format!("misleading error: {e}")),
        Err(Error::Format(skinweights::FormatError::Json { .. })) if field == "json" => Ok(false),
        Err(e) if field != "json" && e.to_string().contains(field) => Ok(false),
        Err(e) => Err(format!("the error does not name {field:?}: {e}")),
    }
}

/// (a) Spine IK `mix`, in the setup and in an IK timeline, anywhere in [-2000, 2000], at and
/// past ±[`MAX_IK_MIX`], or not a number (also raw tokens serde_json refuses).
fn ik_mix_case(rng: &mut Rng) -> Vec<u8> {
    use serde_json::json;
    let mut doc = json_of(common::TINY_SPINE);
    let limit = skinweights::animation::MAX_IK_MIX;
    let mix = if rng.chance(2) {
        near_limit(rng, (-limit, limit))
    } else {
        json!(-2000.0 + 4000.0 * (rng.next() >> 11) as f64 / (1u64 << 53) as f64)
    };
    let timeline = rng.chance(3);
    if timeline {
        doc["animations"]["wave"]["ik"]["reach"] =
            json!([{"mix": 0.5}, {"time": 0.5, "mix": mix}, {"time": 1}]);
    } else {
        doc["ik"][0]["mix"] = mix;
    }
    if rng.chance(8) {
        // Tokens JSON has no number for: the parser refuses them.
        let raw = *rng.pick(&["NaN", "Infinity", "-Infinity", "1e999", "-1e400", "0x10"]);
        let text = doc
            .to_string()
            .replacen("\"mix\":0.5", &format!("\"mix\":{raw}"), 1);
        let text = if text.contains(raw) {
            text
        } else {
            doc["ik"][0]["mix"] = json!("@");
            doc.to_string().replace("\"@\"", raw)
        };
        return format!("spine json\n{text}").into_bytes();
    }
    tolerance_case("spine", "mix", &doc)
}

#[test]
fn fuzz_spine_ik_mix() {
    if alone("fuzz_spine_ik_mix") {
        return;
    }
    assert_clean(fuzz(
        "spine-ik-mix",
        11_000_000,
        600,
        &ik_mix_case,
        &check_tolerance,
    ));
}

/// Where the weights are in a weighted-vertex array written `count, (bone, ...values,
/// weight) * count` per vertex, `stride` numbers per influence (weight last).
fn weight_entries(v: &[Value], stride: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(n) = v.get(i).and_then(Value::as_u64) {
        let n = n as usize;
        out.extend((0..n).map(|k| i + (k + 1) * stride));
        i += 1 + n * stride;
    }
    out.retain(|&k| k < v.len());
    out
}

/// (b) Weights slightly below 0 (to [`MIN_ROUNDED_WEIGHT`] read as rounding of 0) and
/// below it, slightly above 1 and above [`MAX_ROUNDED_WEIGHT`], in the weighted meshes of
/// Spine (`vertices`), DragonBones (`weights`) and Creature (`weights.BONE`): one to three
/// weights per case, sometimes a whole row.
///
/// [`MIN_ROUNDED_WEIGHT`]: skinweights::io::MIN_ROUNDED_WEIGHT
/// [`MAX_ROUNDED_WEIGHT`]: skinweights::io::MAX_ROUNDED_WEIGHT
fn weight_case(rng: &mut Rng, dragonbones: &Value) -> Vec<u8> {
    use skinweights::io::{MAX_ROUNDED_WEIGHT, MIN_ROUNDED_WEIGHT};
    let weight = |rng: &mut Rng| {
        if rng.chance(3) {
            near_limit(rng, (1.0, MAX_ROUNDED_WEIGHT))
        } else {
            near_limit(rng, (MIN_ROUNDED_WEIGHT, 0.0))
        }
    };
    let edits = 1 + rng.below(3);
    match rng.below(3) {
        0 => {
            let mut doc = json_of(common::TINY_SPINE);
            let v = &mut doc["skins"][0]["attachments"]["arm"]["arm"]["vertices"];
            let entries = weight_entries(v.as_array().expect("vertices"), 4);
            for _ in 0..edits {
                v[*rng.pick(&entries)] = weight(rng);
            }
            tolerance_case("spine", "vertices", &doc)
        }
        1 => {
            let mut doc = dragonbones.clone();
            let slots = doc["armature"][0]["skin"][0]["slot"]
                .as_array_mut()
                .expect("slots");
            let meshes: Vec<(usize, usize)> = slots
                .iter()
                .enumerate()
                .flat_map(|(s, slot)| {
                    let displays = slot["display"].as_array().cloned().unwrap_or_default();
                    (0..displays.len())
                        .filter(move |&d| displays[d].get("weights").is_some())
                        .map(move |d| (s, d))
                })
                .collect();
            let (s, d) = *rng.pick(&meshes);
            let w = &mut slots[s]["display"][d]["weights"];
            let entries = weight_entries(w.as_array().expect("weights"), 2);
            for _ in 0..edits {
                w[*rng.pick(&entries)] = weight(rng);
            }
            tolerance_case("dragonbones", "weights", &doc)
        }
        _ => {
            let mut doc = json_of(common::TINY_CREATURE);
            let (region, points) = *rng.pick(&[("body", 6), ("tip", 3)]);
            let point = rng.below(points);
            for _ in 0..edits {
                let bone = *rng.pick(&["Bone_0", "Bone_1"]);
                // A whole point now and then: every bone's weight of it near 0.
                let p = if rng.chance(3) {
                    point
                } else {
                    rng.below(points)
                };
                doc["mesh"]["regions"][region]["weights"][bone][p] = weight(rng);
            }
            tolerance_case("creature", "weights", &doc)
        }
    }
}

#[test]
fn fuzz_rounded_weights() {
    if alone("fuzz_rounded_weights") {
        return;
    }
    let dragonbones = dragonbones_seed();
    let gen = |rng: &mut Rng| weight_case(rng, &dragonbones);
    assert_clean(fuzz(
        "rounded-weights",
        12_000_000,
        900,
        &gen,
        &check_tolerance,
    ));
}

/// (c) Spine 4.3's one `constraints` list (the tiny rig's IK, a transform, a physics and a
/// slider constraint), shuffled, with a `type` unknown, missing, of the wrong type or of
/// the wrong case, entries that are no objects, a list that is none, or beside a 4.2 `ik`
/// list.
fn constraints_case(rng: &mut Rng) -> Vec<u8> {
    use serde_json::json;
    let mut doc = json_of(common::TINY_SPINE);
    let ik = doc
        .as_object_mut()
        .expect("object")
        .remove("ik")
        .expect("ik");
    let mut list = vec![
        json!({"type": "transform", "name": "follow", "bones": ["tip"], "target": "target",
               "mixRotate": 0.5}),
        json!({"type": "physics", "name": "sway", "bone": "lower", "inertia": 0.5}),
        json!({"type": "slider", "name": "dial"}),
    ];
    let mut reach = ik[0].clone();
    reach["type"] = json!("ik");
    list.insert(rng.below(list.len() + 1), reach);
    for i in (1..list.len()).rev() {
        list.swap(i, rng.below(i + 1));
    }
    let mut field = "type";
    match rng.below(8) {
        0 | 1 => field = "(none)", // shuffled only: it loads
        2 => {
            let i = rng.below(list.len());
            list[i]["type"] = rng
                .pick(&[
                    json!("wobble"),
                    json!("IK"),
                    json!(""),
                    json!(" ik"),
                    json!("sliders"),
                ])
                .clone();
        }
        3 => {
            let i = rng.below(list.len());
            list[i].as_object_mut().expect("object").remove("type");
        }
        4 => {
            let i = rng.below(list.len());
            list[i]["type"] = rng
                .pick(&[
                    json!(null),
                    json!(5),
                    json!(["ik"]),
                    json!({"ik": 1}),
                    json!(true),
                ])
                .clone();
        }
        5 => {
            let i = rng.below(list.len() + 1);
            list.insert(
                i,
                rng.pick(&[json!("ik"), json!(7), json!(null), json!([])])
                    .clone(),
            );
            field = "constraints";
        }
        6 => {
            // The 4.2 list too: the constraint twice, or the list of another shape.
            if rng.chance(2) {
                doc["ik"] = ik;
                field = "reach";
            } else {
                doc["ik"] = rng.pick(&[json!({}), json!("x"), json!(1)]).clone();
                field = "ik";
            }
        }
        _ => {
            let whole = rng
                .pick(&[json!({}), json!("ik"), json!(null), json!(3)])
                .clone();
            doc["constraints"] = whole;
            return tolerance_case("spine", "constraints", &doc);
        }
    }
    doc["constraints"] = Value::Array(list);
    doc["skeleton"]["spine"] = json!("4.3.23");
    tolerance_case("spine", field, &doc)
}

#[test]
fn fuzz_spine_43_constraints() {
    if alone("fuzz_spine_43_constraints") {
        return;
    }
    assert_clean(fuzz(
        "spine-43-constraints",
        13_000_000,
        600,
        &constraints_case,
        &check_tolerance,
    ));
}

// ---------------------------------------------------------------- frozen regressions

/// Every file under `tests/fuzz_regressions/<target>/` replays through its target.
#[test]
fn frozen_regressions() {
    if alone("frozen_regressions") {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions");
    let scene = weights_scene();
    let sprite = robot();
    let mut failures = Vec::new();
    let mut count = 0;
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // The frozen spade cases panic inside the library, which catches it: keep the log quiet.
    let loud = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    for target in [
        "scene-json",
        "weights-json",
        "bones-json",
        "png-tracing",
        "gltf",
        "dragonbones",
        "artist-soup",
        "spine",
        "godot-clips",
        "creature",
        "spine-ik-mix",
        "rounded-weights",
        "spine-43-constraints",
    ] {
        let Ok(dir) = std::fs::read_dir(root.join(target)) else {
            continue;
        };
        let mut files: Vec<PathBuf> = dir.map(|e| e.expect("entry").path()).collect();
        files.sort();
        for path in files {
            let input = std::fs::read(&path).expect("reads");
            count += 1;
            let check: Check<'_> = match target {
                "scene-json" => Box::new(check_scene_json),
                "weights-json" => Box::new(|i| check_weights_json(&scene, i)),
                "bones-json" => Box::new(|i| check_bones_json(&sprite, i)),
                "png-tracing" => Box::new(check_png),
                "gltf" => Box::new(check_gltf),
                "artist-soup" => Box::new(check_artist_soup),
                "spine" => Box::new(check_spine),
                "godot-clips" => Box::new(check_godot),
                "creature" => Box::new(check_creature),
                "spine-ik-mix" | "rounded-weights" | "spine-43-constraints" => {
                    Box::new(check_tolerance)
                }
                _ => Box::new(check_dragonbones),
            };
            if let Err(bad) = run_case(&input, &*check) {
                failures.push(format!("{}: {bad}", path.display()));
            }
        }
    }
    std::panic::set_hook(loud);
    println!("fuzz regressions: {count} frozen cases replayed");
    assert!(failures.is_empty(), "{failures:#?}");
}
