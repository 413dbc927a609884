//! `skinweights view` for real: the server over HTTP (request validation, a long solve does not
//! block other requests), and the page in Debian's Chromium driven through chromedriver's
//! WebDriver HTTP API, served live and opened as an `--html` file from disk.
//!
//! The browser tests print a loud note and return when chromium or chromedriver is missing,
//! unless `SKINWEIGHTS_REQUIRE_BROWSER=1` (CI sets it), then they fail. Screenshots go to
//! `target/view-screenshots/*.png`.

use crate::common;
use serde_json::{json, Value};
use skinweights::metrics::{drag_of_positions, evaluate, Metrics};
use skinweights::skinning::{dqs_with_transforms, lbs_with_transforms, HalfAngleHelper};
use skinweights::solvers::solver_by_name;
use skinweights::{
    scene::builtin_scene, scene::BuiltinOptions, scene::Probe, scene::Scene, skeleton::Pose,
    weights::Weights,
};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::MutexGuard;
use std::time::{Duration, Instant};

// ------------------------------------------------------------------ a tiny HTTP/1.1 client

/// One request to 127.0.0.1:`port`; returns the status and the body.
fn http(port: u16, method: &str, path: &str, body: Option<&str>) -> (u16, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connects");
    s.set_read_timeout(Some(Duration::from_secs(300))).unwrap();
    let body = body.unwrap_or("");
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    // Read the head, then exactly the body (chromedriver keeps the connection open).
    let mut r = BufReader::new(s);
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).expect("reads the response") == 0 || line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    let status: u16 = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    let header = |name: &str| {
        head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_string())
        })
    };
    let mut rest = Vec::new();
    if let Some(n) = header("content-length").and_then(|n| n.parse::<usize>().ok()) {
        rest.resize(n, 0);
        r.read_exact(&mut rest).expect("reads the body");
    } else if header("transfer-encoding").is_some_and(|t| t.eq_ignore_ascii_case("chunked")) {
        loop {
            let mut size = String::new();
            r.read_line(&mut size).unwrap();
            let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            if n == 0 {
                break;
            }
            let mut chunk = vec![0; n + 2];
            r.read_exact(&mut chunk).unwrap();
            rest.extend_from_slice(&chunk[..n]);
        }
    } else {
        r.read_to_end(&mut rest).expect("reads the body");
    }
    (status, String::from_utf8(rest).expect("UTF-8 body"))
}

fn post_json(port: u16, path: &str, body: &Value) -> (u16, Value) {
    let (status, text) = http(port, "POST", path, Some(&body.to_string()));
    (status, serde_json::from_str(&text).expect("JSON answer"))
}

// ------------------------------------------------------------------ processes

/// A child process killed when dropped.
struct Running(Child);
impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `skinweights view ARGS --port 0`, running; returns it and its port.
fn start_view(args: &[&str]) -> (Running, u16) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_skinweights"))
        .arg("view")
        .args(args)
        .args(["--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("starts skinweights view");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line
        .split("http://127.0.0.1:")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no URL in {line:?}"));
    (Running(child), port)
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

// ------------------------------------------------------------------ WebDriver

struct Browser {
    _driver: Running,
    port: u16,
    session: String,
    /// Dropped last: the next engine test starts once this browser is gone.
    _engine: MutexGuard<'static, ()>,
}

fn find_program(names: &[&str]) -> Option<PathBuf> {
    names
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
        .or_else(|| {
            let path = std::env::var_os("PATH")?;
            std::env::split_paths(&path)
                .flat_map(|d| names.iter().map(move |n| d.join(n)))
                .find(|p| p.is_file())
        })
}

/// Chromium through chromedriver, headless; `None` (after a loud note) when either is missing
/// and the browser is not required.
/// Whether chromedriver on `port` answers `/status` with `ready`. A driver still starting
/// may accept the connection and then reset it: that is "not yet", not a failure (the
/// client's read panics on it; caught here).
fn driver_ready(port: u16) -> bool {
    if TcpStream::connect(("127.0.0.1", port)).is_err() {
        return false;
    }
    std::panic::catch_unwind(|| http(port, "GET", "/status", None))
        .ok()
        .and_then(|(_, body)| serde_json::from_str::<Value>(&body).ok())
        .is_some_and(|v| v["value"]["ready"] == true)
}

fn browser() -> Option<Browser> {
    let chromium = find_program(&["/usr/lib/chromium/chromium", "chromium", "chromium-browser"]);
    let driver = find_program(&["chromedriver"]);
    let (chromium, driver) = match (chromium, driver) {
        (Some(c), Some(d)) => (c, d),
        _ => {
            let msg = "chromium / chromedriver not found: the view browser test did NOT run \
                       (apt-get install chromium chromium-driver)";
            if std::env::var("SKINWEIGHTS_REQUIRE_BROWSER").as_deref() == Ok("1") {
                panic!("{msg}, and SKINWEIGHTS_REQUIRE_BROWSER=1");
            }
            eprintln!("\n!!!!!!!!!! {msg} !!!!!!!!!!\n");
            return None;
        }
    };
    let engine = common::engine();
    let port = free_port();
    let child = Command::new(driver)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("starts chromedriver");
    let driver = Running(child);
    let start = Instant::now();
    loop {
        let ready = driver_ready(port);
        if ready {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "chromedriver did not start"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let caps = json!({"capabilities": {"alwaysMatch": {
        "browserName": "chrome",
        "goog:chromeOptions": {
            "binary": chromium,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1200,900"],
        },
    }}});
    let (status, v) = post_json(port, "/session", &caps);
    assert_eq!(status, 200, "new session: {v}");
    let session = v["value"]["sessionId"].as_str().unwrap().to_string();
    Some(Browser {
        _driver: driver,
        port,
        session,
        _engine: engine,
    })
}

impl Browser {
    fn command(&self, method: &str, what: &str, body: Option<Value>) -> Value {
        let path = format!("/session/{}/{what}", self.session);
        let (status, text) = http(
            self.port,
            method,
            &path,
            body.map(|b| b.to_string()).as_deref(),
        );
        let v: Value = serde_json::from_str(&text).expect("WebDriver JSON");
        assert_eq!(status, 200, "{what}: {v}");
        v["value"].clone()
    }

    fn goto(&self, url: &str) {
        self.command("POST", "url", Some(json!({ "url": url })));
    }

    fn js(&self, script: &str, args: Value) -> Value {
        self.command(
            "POST",
            "execute/sync",
            Some(json!({"script": script, "args": args})),
        )
    }

    fn frame(&self) -> u64 {
        self.js(
            "return window.skinweightsView ? window.skinweightsView.frame : 0",
            json!([]),
        )
        .as_u64()
        .unwrap_or(0)
    }

    /// Waits until the page has drawn a frame after `after` and has nothing pending.
    fn wait_idle(&self, after: u64) -> u64 {
        let start = Instant::now();
        loop {
            let v = self.js(
                "const v = window.skinweightsView; return v ? [v.idle, v.frame] : [false, 0]",
                json!([]),
            );
            let frame = v[1].as_u64().unwrap_or(0);
            if v[0] == true && frame > after {
                return frame;
            }
            assert!(
                start.elapsed() < Duration::from_secs(180),
                "the page did not settle"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Opens `url` and waits for its first drawing.
    fn open(&self, url: &str) {
        self.goto("about:blank");
        self.goto(url);
        self.wait_idle(0);
    }

    /// Sets a control's value, fires `event` (`input` or `change`), waits for the redraw.
    fn set(&self, id: &str, value: &str, event: &str) {
        let before = self.frame();
        self.js(
            "const e = document.getElementById(arguments[0]); e.value = arguments[1]; \
             e.dispatchEvent(new Event(arguments[2]));",
            json!([id, value, event]),
        );
        self.wait_idle(before);
    }

    fn canvas(&self) -> String {
        self.js(
            "return document.getElementById('canvas').toDataURL()",
            json!([]),
        )
        .as_str()
        .unwrap()
        .to_string()
    }

    fn view(&self, field: &str) -> Value {
        self.js(
            "return window.skinweightsView[arguments[0]]",
            json!([field]),
        )
    }

    fn text(&self, id: &str) -> String {
        self.js(
            "return document.getElementById(arguments[0]).textContent",
            json!([id]),
        )
        .as_str()
        .unwrap()
        .to_string()
    }

    fn screenshot(&self, name: &str) -> PathBuf {
        use base64::Engine;
        let b64 = self.command("GET", "screenshot", None);
        let png = base64::engine::general_purpose::STANDARD
            .decode(b64.as_str().unwrap())
            .unwrap();
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/view-screenshots");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{name}.png"));
        std::fs::write(&path, png).unwrap();
        eprintln!("screenshot: {}", path.display());
        path
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = http(
            self.port,
            "DELETE",
            &format!("/session/{}", self.session),
            None,
        );
    }
}

// ------------------------------------------------------------------ expected numbers

fn scene(name: &str) -> Scene {
    builtin_scene(name, &BuiltinOptions::default().with_vertices(10_000)).unwrap()
}

fn weights(scene: &Scene, solver: &str, options: &[(&str, &str)]) -> Weights {
    let o: Vec<(String, String)> = options
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    solver_by_name(solver, &o)
        .unwrap()
        .solve(scene)
        .unwrap()
        .weights
}

/// `compare`'s metrics (`metrics::evaluate`) of `probe`'s watched vertices in `pose`.
fn expected(scene: &Scene, w: &Weights, probe: &str, pose: Pose) -> Metrics {
    let p = scene.probe(Some(probe)).unwrap();
    let probe = Probe {
        name: p.name.clone(),
        pose,
        watch: p.watch.clone(),
    };
    evaluate(scene, w, &probe).unwrap()
}

/// Checks the page's metrics against the library's within `tol` (relative), and the drag
/// shown as text against the library's number printed as compare prints it (3 decimals).
fn assert_metrics(page: &Value, shown_drag: &str, lib: &Metrics, tol: f64, what: &str) {
    let close = |key: &str, want: f64| {
        let got = page[key]
            .as_f64()
            .unwrap_or_else(|| panic!("{what}: no {key} in {page}"));
        assert!(
            (got - want).abs() <= tol * want.abs().max(1.0),
            "{what}: {key} page {got} library {want}"
        );
    };
    close("drag_max_pct", lib.drag_max_pct);
    close("drag_mean_pct", lib.drag_mean_pct);
    close("leaked_weight", lib.leaked_weight);
    close("distortion_p99", lib.distortion_p99);
    close("area_change_pct", lib.area_change_pct);
    assert_eq!(page["flipped"].as_u64(), Some(lib.flipped as u64), "{what}");
    assert_eq!(shown_drag, format!("{:.3}", lib.drag_max_pct), "{what}");
}

/// The page shows the library's metrics of the seeds' default (bar, linear, blend width 48,
/// lower bone at 55 degrees) within `tol`.
fn assert_seeds_default_metrics(b: &Browser, tol: f64, what: &str) {
    let bar = scene("bar");
    let lib = expected(
        &bar,
        &weights(&bar, "linear", &[("blend_radius", "48")]),
        "bend",
        Pose::rest().rotate("lower", 55.0),
    );
    assert_metrics(
        &b.view("metrics"),
        &b.text("m-drag_max_pct"),
        &lib,
        tol,
        what,
    );
}

/// Moves the left upper-arm slider from 0 to -90 degrees, prints how long the redraw took and
/// returns the new canvas, which must differ from the one at 0.
fn lift_upper_arm(b: &Browser, what: &str) -> String {
    b.set("angle-upper_arm_l", "0", "input");
    let rest = b.canvas();
    let t = Instant::now();
    b.set("angle-upper_arm_l", "-90", "input");
    eprintln!(
        "{what}: {:.3} s (in the page: {})",
        t.elapsed().as_secs_f64(),
        b.view("timing")
    );
    let lifted = b.canvas();
    assert_ne!(rest, lifted, "the upper-arm slider moved nothing");
    lifted
}

fn lift_l() -> Pose {
    Pose::rest().rotate("upper_arm_l", -90.0)
}

/// The library's drag max (% h) of lift_l's watched vertices posed by DQS or helper bones.
fn drag_other_skinning(scene: &Scene, w: &Weights, helper: bool) -> f64 {
    let probe = scene.probe(Some("lift_l")).unwrap();
    let rest = scene.mesh().vertices();
    let posed = if helper {
        let (mut sk, mut ww, mut pose) = (scene.skeleton().clone(), w.clone(), probe.pose.clone());
        for b in scene
            .skeleton()
            .bones()
            .iter()
            .filter(|b| b.parent.is_some())
        {
            let (s2, w2, h) = HalfAngleHelper::add(&sk, &ww, &b.name).unwrap();
            pose = h.drive(&s2, &pose);
            (sk, ww) = (s2, w2);
        }
        lbs_with_transforms(rest, &ww, &sk.skinning_transforms(&pose).unwrap()).unwrap()
    } else {
        let t = scene.skeleton().skinning_transforms(&probe.pose).unwrap();
        dqs_with_transforms(rest, w, &t).unwrap()
    };
    drag_of_positions(scene, probe, &posed).unwrap().max_pct()
}

// ------------------------------------------------------------------ the tests

/// Every bad request gets a JSON error naming the problem; a long solve does not hold up a
/// quick request made while it runs (no browser needed).
#[test]
fn server_validates_requests_and_serves_while_solving() {
    let too_big = Command::new(env!("CARGO_BIN_EXE_skinweights"))
        .args(["view", "arms-down", "--vertices", "300000", "--port", "0"])
        .output()
        .unwrap();
    assert_eq!(too_big.status.code(), Some(2));
    let e = String::from_utf8_lossy(&too_big.stderr);
    assert!(e.contains("at most 200000"), "{e}");
    let (_server, port) = start_view(&["arms-down"]);
    let (status, page) = http(port, "GET", "/", None);
    assert_eq!(status, 200);
    assert!(page.contains("skinweights view") && !page.contains("/*SCRIPT*/"));
    let base = json!({"scene": "arms-down", "solver": "euclidean", "pose": {"upper_arm_l": -90}});
    let with = |patch: Value| {
        let mut b = base.clone();
        for (k, v) in patch.as_object().unwrap() {
            b[k] = v.clone();
        }
        b
    };
    for (patch, needle) in [
        (json!({"solver": "nope"}), "unknown solver \"nope\""),
        (json!({"options": {"falloff_power": -2}}), "falloff_power"),
        (json!({"options": {"radius": 3}}), "unknown option"),
        (
            json!({"pose": {"upper_arm_l": null}}),
            "non-finite rotation",
        ),
        (json!({"pose": {"no_such_bone": 10}}), "no_such_bone"),
        (json!({"skinning": "magic"}), "unknown variant"),
        (
            json!({"scene": "arms-down", "vertices": 900000}),
            "at most 200000",
        ),
        (
            json!({"scene": "no-such-scene"}),
            "neither this server's scene",
        ),
        (json!({"probe": "nope"}), "nope"),
    ] {
        let (status, v) = post_json(port, "/api/pose", &with(patch.clone()));
        assert_eq!(status, 400, "{patch}: {v}");
        let e = v["error"].as_str().unwrap();
        assert!(e.contains(needle), "{patch}: {e:?} lacks {needle:?}");
    }
    let (status, text) = http(port, "POST", "/api/pose", Some("{not json"));
    assert_eq!(status, 400, "{text}");
    let (status, _) = http(port, "GET", "/api/pose", None);
    assert_eq!(status, 405);
    // Another site's page cannot drive the server: foreign Origin, or not JSON.
    let raw = |extra: &str| {
        let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        write!(
            s,
            "POST /api/solve HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{extra}\
             Content-Length: 2\r\nConnection: close\r\n\r\n{{}}"
        )
        .unwrap();
        let mut text = String::new();
        s.read_to_string(&mut text).unwrap();
        text
    };
    let foreign = raw("Content-Type: application/json\r\nOrigin: https://evil.example\r\n");
    assert!(foreign.starts_with("HTTP/1.1 403"), "{foreign}");
    let plain = raw("Content-Type: text/plain\r\n");
    assert!(plain.starts_with("HTTP/1.1 415"), "{plain}");
    let big = format!("{{\"scene\": \"{}\"}}", "x".repeat(100_000));
    let (status, text) = http(port, "POST", "/api/scene", Some(&big));
    assert_eq!(status, 400);
    assert!(text.contains("longer than"), "{text}");

    // The server's numbers are the library's.
    let (status, v) = post_json(port, "/api/pose", &base);
    assert_eq!(status, 200, "{v}");
    let s = scene("arms-down");
    let lib = expected(&s, &weights(&s, "euclidean", &[]), "lift_l", lift_l());
    assert_eq!(
        v["metrics"]["drag_max_pct"].as_f64(),
        Some(lib.drag_max_pct)
    );
    assert_eq!(v["metrics"]["flipped"].as_u64(), Some(lib.flipped as u64));

    // A slow solve (heat on a copy refined to 150k vertices) in one thread, a quick pose in
    // another: the quick one must come back while the slow one is still running.
    let slow = with(json!({"solver": "heat", "options": {"refine": 150000}}));
    let t0 = Instant::now();
    let handle = std::thread::spawn(move || {
        let (status, _) = post_json(port, "/api/solve", &slow);
        (status, t0.elapsed())
    });
    std::thread::sleep(Duration::from_millis(200));
    let t1 = Instant::now();
    let (status, _) = post_json(port, "/api/pose", &base);
    let quick = t1.elapsed();
    let quick_done = t0.elapsed();
    let (slow_status, slow_time) = handle.join().unwrap();
    assert_eq!((status, slow_status), (200, 200));
    eprintln!(
        "slow solve {:.2} s; a pose request made during it answered in {:.3} s",
        slow_time.as_secs_f64(),
        quick.as_secs_f64()
    );
    assert!(
        quick_done < slow_time,
        "the quick request ({quick_done:?}) waited for the slow solve ({slow_time:?})"
    );
}

/// The seeds' default view, then arms-down: slider, euclidean -> heat -> heat+mask, errors.
#[test]
fn browser_live_server() {
    let Some(b) = browser() else { return };

    // No SCENE: the two-bone bar, linear falloff with blend width 48, bent 55 degrees.
    let (_seeds, port) = start_view(&[]);
    b.open(&format!("http://127.0.0.1:{port}/"));
    assert_eq!(b.view("error"), Value::Null);
    b.set("angle-lower", "55", "input");
    eprintln!("seeds default, point grid: {}", b.view("timing"));
    let state = b.view("state");
    assert_eq!(state["scene"], "bar");
    assert_eq!(state["solver"], "linear");
    assert_eq!(state["options"]["blend_radius"], "48");
    assert_eq!(state["pose"]["lower"], 55.0);
    assert_eq!(state["colour"], "joint");
    let bones = b.view("bones");
    let lower = bones[1].as_array().unwrap();
    let (dx, dy) = (
        lower[2].as_f64().unwrap() - lower[0].as_f64().unwrap(),
        lower[3].as_f64().unwrap() - lower[1].as_f64().unwrap(),
    );
    let angle = dy.atan2(dx).to_degrees();
    assert!((angle - 55.0).abs() < 1e-9, "lower bone at {angle} degrees");
    assert_seeds_default_metrics(&b, 1e-12, "seeds default");
    b.screenshot("seeds_default");
    // Reset after moving the joint comes back to 55 degrees.
    let bent = b.canvas();
    b.set("angle-lower", "10", "input");
    assert_ne!(b.canvas(), bent, "moving the joint slider redraws");
    let before = b.frame();
    b.js("document.getElementById('reset').click()", json!([]));
    b.wait_idle(before);
    assert_eq!(b.view("state")["pose"]["lower"], 55.0);

    // arms-down, live.
    let (_arms, port) = start_view(&["arms-down"]);
    let url = format!("http://127.0.0.1:{port}/");
    b.open(&format!("{url}#solver=euclidean&probe=lift_l"));
    let mut last = lift_upper_arm(
        &b,
        "live: slider move to redrawn page (arms-down, 10k vertices)",
    );
    let s = scene("arms-down");
    for solver in ["euclidean", "heat", "heat+mask"] {
        if solver != "euclidean" {
            let t = Instant::now();
            b.set("solver", solver, "change");
            eprintln!(
                "live: switch to {solver} (solve + pose + redraw) {:.3} s; in the page: {}",
                t.elapsed().as_secs_f64(),
                b.view("timing")
            );
            let now = b.canvas();
            assert_ne!(now, last, "switching to {solver} drew the same image");
            last = now;
        }
        assert_eq!(b.view("error"), Value::Null);
        let lib = expected(&s, &weights(&s, solver, &[]), "lift_l", lift_l());
        assert_metrics(
            &b.view("metrics"),
            &b.text("m-drag_max_pct"),
            &lib,
            1e-12,
            solver,
        );
        b.screenshot(&format!("arms_down_{}", solver.replace('+', "_")));
    }

    // Errors are shown on the page and clear when the input is fixed.
    b.set("opt-tie_tolerance", "-1", "change");
    let e = b.view("error");
    assert!(e.as_str().unwrap_or("").contains("tie_tolerance"), "{e}");
    assert_eq!(
        b.js("return document.getElementById('error').hidden", json!([])),
        false
    );
    b.screenshot("error_option");
    b.set("opt-tie_tolerance", "", "change");
    assert_eq!(b.view("error"), Value::Null);
    b.set("angle-num-upper_arm_l", "", "change");
    assert!(b.view("error").as_str().unwrap().contains("non-finite"));
    b.open(&format!("{url}#solver=nope"));
    assert!(b.view("error").as_str().unwrap().contains("unknown solver"));
    b.open(&format!("{url}#scene=arms-down&vertices=900000"));
    assert!(b.view("error").as_str().unwrap().contains("at most 200000"));
    // The URL reopens the same view: the shared link of a heat+mask lift.
    b.open(&format!(
        "{url}#solver=heat%2Bmask&p.upper_arm_l=-90&probe=lift_l"
    ));
    assert_eq!(
        b.canvas(),
        last,
        "the shared URL did not reproduce the view"
    );
}

/// The `--html` file opened from disk: the same checks without a server; its pose and metrics
/// are the page's own ports of the library's, so they are checked against the library here.
#[test]
fn browser_html_file() {
    let Some(b) = browser() else { return };
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("arms.html");
    let out = Command::new(env!("CARGO_BIN_EXE_skinweights"))
        .args([
            "view",
            "arms-down",
            "--solvers",
            "euclidean,heat,heat+mask,linear",
        ])
        .arg("--html")
        .arg(&html)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    // Never overwritten without --force.
    let again = Command::new(env!("CARGO_BIN_EXE_skinweights"))
        .args(["view", "arms-down", "--html"])
        .arg(&html)
        .output()
        .unwrap();
    assert!(!again.status.success());
    let url = format!("file://{}", html.display());
    b.open(&format!("{url}#solver=euclidean&probe=lift_l"));
    assert_eq!(b.view("mode"), "file");
    let mut last = lift_upper_arm(
        &b,
        "file: slider move to redrawn page (arms-down, 10k vertices, posed in JS)",
    );
    let s = scene("arms-down");
    for solver in ["euclidean", "heat", "heat+mask"] {
        if solver != "euclidean" {
            b.set("solver", solver, "change");
            let now = b.canvas();
            assert_ne!(now, last, "switching to {solver} drew the same image");
            last = now;
        }
        assert_eq!(b.view("error"), Value::Null);
        let w = weights(&s, solver, &[]);
        let lib = expected(&s, &w, "lift_l", lift_l());
        assert_metrics(
            &b.view("metrics"),
            &b.text("m-drag_max_pct"),
            &lib,
            1e-9,
            solver,
        );
        // The page's DQS and helper-bone ports against the library's.
        for (mode, helper) in [("dqs", false), ("helper", true)] {
            b.set("skinning", mode, "change");
            let got = b.view("metrics")["drag_max_pct"].as_f64().unwrap();
            let want = drag_other_skinning(&s, &w, helper);
            assert!(
                (got - want).abs() <= 1e-9 * want.max(1.0),
                "{solver} {mode}: page {got} library {want}"
            );
        }
        b.set("skinning", "lbs", "change");
        b.screenshot(&format!("file_arms_down_{}", solver.replace('+', "_")));
    }
    b.open(&format!("{url}#solver=bbw"));
    assert!(b
        .view("error")
        .as_str()
        .unwrap()
        .contains("not in this file"));
    b.open(&format!("{url}#solver=heat&p.upper_arm_l=abc"));
    assert!(b.view("error").as_str().unwrap().contains("non-finite"));

    // The seeds' default as a file.
    let bar_html = dir.path().join("bar.html");
    let out = Command::new(env!("CARGO_BIN_EXE_skinweights"))
        .args(["view", "--solvers", "linear,heat"])
        .arg("--html")
        .arg(&bar_html)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    b.open(&format!("file://{}", bar_html.display()));
    assert_eq!(b.view("state")["pose"]["lower"], 55.0);
    assert_seeds_default_metrics(&b, 1e-9, "seeds default file");
    b.screenshot("file_seeds_default");
}

/// A scene with textured art (the Godot robot, imported): the art is drawn, posing moves it.
#[test]
fn browser_textured_art() {
    let Some(b) = browser() else { return };
    let dir = tempfile::tempdir().unwrap();
    let gbot = dir.path().join("gbot.json");
    let tscn = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/godot-gbot/player.tscn");
    let out = Command::new(env!("CARGO_BIN_EXE_skinweights"))
        .args(["import", "godot"])
        .arg(&tscn)
        .arg("-o")
        .arg(&gbot)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let (_server, port) = start_view(&[gbot.to_str().unwrap()]);
    let url = format!("http://127.0.0.1:{port}/");
    b.open(&format!("{url}#solver=heat&colour=blend"));
    assert_eq!(b.view("error"), Value::Null);
    // The import wrote gbot.artist.json beside the scene and the rig has clips but no probe:
    // the page opens on its first clip, each frame measured against the artist's weights.
    let clip = b.view("clip");
    assert!(
        clip["deviation_max_px"]
            .as_f64()
            .is_some_and(f64::is_finite),
        "the rig did not open on its clip deviation: {clip}"
    );
    let flat = b.canvas();
    b.set("colour", "art", "change");
    let art = b.canvas();
    assert_ne!(flat, art, "the art drew like the bone colours");
    // The texture is really drawn: a good share of the canvas is neither background nor a
    // bone colour, i.e. the robot's own pixels.
    let textured = b.js(
        "const c = document.getElementById('canvas'), g = c.getContext('2d');
         const d = g.getImageData(0, 0, c.width, c.height).data; let n = 0;
         for (let i = 0; i < d.length; i += 4) if (d[i] !== 15 || d[i+1] !== 17 || d[i+2] !== 21) n++;
         return n / (d.length / 4);",
        json!([]),
    );
    assert!(textured.as_f64().unwrap() > 0.05, "drawn share {textured}");
    let bone = b.js(
        "return document.querySelector('#bones input[type=range]').id",
        json!([]),
    );
    b.set(bone.as_str().unwrap(), "40", "input");
    assert_ne!(b.canvas(), art, "posing did not move the art");
    // Touching a pose control leaves the clip, so the pose shows.
    assert_eq!(b.view("clip"), Value::Null);
    assert_eq!(
        b.js("return document.getElementById('clip').value", json!([])),
        ""
    );
    b.screenshot("gbot_art");
}

/// A scene with a clip: arms-down at 2000 vertices, `wave` rotating its first child bone
/// 0 -> 70 -> 0 degrees over 1 s, saved as a scene file (format with clips) and read back.
fn clip_scene_file(dir: &Path) -> (PathBuf, Scene) {
    use skinweights::animation::{BoneTrack, ChannelKind, Clip, Key};
    let s = builtin_scene("arms-down", &BuiltinOptions::default().with_vertices(2000)).unwrap();
    let bone = s
        .skeleton()
        .bones()
        .iter()
        .find(|b| b.parent.is_some())
        .unwrap()
        .name
        .clone();
    let clip = Clip::new("wave", 1.0).with_track(BoneTrack::new(&bone).with(
        ChannelKind::Rotation,
        vec![Key::new(0.0, 0.0), Key::new(0.5, 70.0), Key::new(1.0, 0.0)],
    ));
    let s = s.with_animation(vec![clip], vec![]).unwrap();
    let path = dir.join("clip_scene.json");
    skinweights::io::save_scene(&s, &path).unwrap();
    let (loaded, _) = skinweights::io::load_scene(&path).unwrap();
    (path, loaded)
}

#[test]
fn browser_clip_playback() {
    use skinweights::metrics::clip::{clip_metrics, ClipOptions};
    let Some(b) = browser() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (path, s) = clip_scene_file(dir.path());
    // The page solves euclidean; `--reference` gives linear's weights as the "artist's".
    let reference = weights(&s, "linear", &[]);
    let ref_path = dir.path().join("reference.json");
    skinweights::io::WeightsFile::new(s.name(), "linear", s.skeleton().names(), &reference)
        .save(&ref_path)
        .unwrap();
    let (_view, port) = start_view(&[
        path.to_str().unwrap(),
        "--reference",
        ref_path.to_str().unwrap(),
    ]);
    b.open(&format!("http://127.0.0.1:{port}/#solver=euclidean"));
    assert_eq!(b.view("error"), Value::Null);
    b.set("clip", "wave", "change");
    assert_eq!(b.view("error"), Value::Null);
    let clip = b.view("clip");
    assert_eq!(clip["name"], "wave");
    assert_eq!(clip["frames"], 31, "1 s at 30 fps: {clip}");
    assert_eq!(clip["frame"], 0);

    // Playing changes the canvas frame to frame: every sample showing another frame index
    // than the sample before shows another picture.
    let rest = b.canvas();
    b.js("document.getElementById('clip-play').click()", json!([]));
    let (mut last, mut frames, mut changes) = ((0u64, rest.clone()), Vec::new(), 0);
    // Sample until four changes were seen (the clip loops; each sample reads a canvas, which
    // takes a while on a loaded machine, so the count and not a time decides).
    let start = Instant::now();
    while changes < 4 && start.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(60));
        // One script reads the frame index and the canvas, so they belong together.
        let v = b.js(
            "return [window.skinweightsView.clip.frame, \
             document.getElementById('canvas').toDataURL()]",
            json!([]),
        );
        let now = (v[0].as_u64().unwrap(), v[1].as_str().unwrap().to_string());
        if now.0 != last.0 {
            assert_ne!(
                now.1, last.1,
                "frames {} and {} drew the same",
                last.0, now.0
            );
            changes += 1;
        }
        frames.push(now.0);
        last = now;
    }
    b.js("document.getElementById('clip-play').click()", json!([]));
    assert!(
        changes >= 4,
        "playing showed frames {frames:?}: {changes} changes"
    );
    b.screenshot("clip_playing");

    // Scrubbing to 0.5 s (frame 15, the arm up) and 7 shows the library's clip metrics of
    // that frame (metrics::clip, what `eval --clip --reference` prints).
    let w = weights(&s, "euclidean", &[]);
    let clip_model = s.clip("wave").unwrap();
    let lib = clip_metrics(
        &s,
        &w,
        Some(&reference),
        clip_model,
        &ClipOptions::default().with_fps(30.0),
    )
    .unwrap();
    assert!(
        lib.deviation_max_px.unwrap() > 0.0,
        "the two solvers differ"
    );
    for frame in [15usize, 7] {
        b.set("clip-scrub", &frame.to_string(), "input");
        let shown = b.view("clip");
        assert_eq!(shown["frame"], frame as u64);
        let expect = &lib.per_frame[frame];
        assert_eq!(shown["flipped"].as_u64().unwrap() as usize, expect.flipped);
        let close = |key: &str, want: f64| {
            let got = shown[key].as_f64().unwrap_or(f64::NAN);
            assert!(
                (got - want).abs() <= 1e-12 * want.abs().max(1.0),
                "frame {frame} {key}: page {got}, library {want}"
            );
        };
        close("area_change_pct", expect.area_change_pct);
        let dmax = expect.deviation_max_px.unwrap();
        let dp95 = expect.deviation_p95_px.unwrap();
        assert!(
            dmax > 0.0,
            "frame {frame}: the weights differ where the arm bends"
        );
        close("deviation_max_px", dmax);
        close("deviation_p95_px", dp95);
        close("deviation_mean_px", expect.deviation_mean_px.unwrap());
        let text = b.text("clip-metric");
        for want in [
            format!("area change {:.3} %", expect.area_change_pct),
            format!("deviation max {dmax:.4} px"),
            format!("p95 {dp95:.4} px"),
        ] {
            assert!(text.contains(&want), "{text:?} lacks {want:?}");
        }
        assert_ne!(b.canvas(), rest, "frame {frame} looks like the rest pose");
    }
    // The clip's own summary is the library's too.
    let summary = &b.view("clip")["summary"];
    assert_eq!(summary["deviation_max_px"].as_f64(), lib.deviation_max_px);
    assert_eq!(summary["deviation_p95_px"].as_f64(), lib.deviation_p95_px);
    assert_eq!(
        summary["worst_frame"]["frame"].as_u64(),
        lib.worst_frame.as_ref().map(|w| w.frame as u64)
    );
    let text = b.text("clip-summary");
    assert!(
        text.contains(&format!(
            "deviation max {:.4} px",
            lib.deviation_max_px.unwrap()
        )),
        "{text}"
    );
    b.screenshot("clip_scrubbed");
}

/// A Spine rig imported with every skin draws one attachment per slot: at a frame of the
/// owl's `blink` where its eyes are open, the page draws exactly what it draws for the
/// default-skin import (which lacks the closed-eye attachments); at 0.5 s, where the clip's
/// attachment keys show the closed eyes, the two differ.
#[test]
fn browser_slots_draw_one_attachment_per_slot() {
    let Some(b) = browser() else { return };
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/spine/owl/owl-pro.json");
    let mut canvases = Vec::new();
    for skin in ["all", "default"] {
        let scene = dir.path().join(format!("owl-{skin}.json"));
        let out = Command::new(env!("CARGO_BIN_EXE_skinweights"))
            .args(["import", "spine"])
            .arg(&src)
            .args(["--skin", skin, "-o"])
            .arg(&scene)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let (_server, port) = start_view(&[scene.to_str().unwrap()]);
        b.open(&format!(
            "http://127.0.0.1:{port}/#solver=linear&colour=art"
        ));
        assert_eq!(b.view("error"), Value::Null);
        b.set("clip", "blink", "change");
        assert_eq!(b.view("error"), Value::Null);
        let mut shown = Vec::new();
        for frame in [15usize, 20] {
            b.set("clip-scrub", &frame.to_string(), "input");
            assert_eq!(b.view("clip")["frame"], frame as u64);
            shown.push(b.canvas());
        }
        if skin == "all" {
            b.set("clip-scrub", "15", "input");
            b.screenshot("owl_blink");
        }
        canvases.push(shown);
    }
    assert_ne!(canvases[0][0], canvases[1][0], "0.5 s: closed eyes drawn");
    assert_eq!(
        canvases[0][1], canvases[1][1],
        "0.667 s: the same attachments"
    );
}

/// `view --transfer-from`: the server's weights are `skinweights transfer`'s (the artist's,
/// each target's rows transferred), the page learns which parts are sources and which
/// targets, and draws both halves of the canvas.
#[test]
fn transfer_shows_the_sources_beside_the_targets() {
    let dir = tempfile::tempdir().unwrap();
    let rig = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/spine/goblins/goblins-pro.json");
    let scene = dir.path().join("goblins.json");
    let cli = |args: &[&std::ffi::OsStr]| {
        let out = Command::new(env!("CARGO_BIN_EXE_skinweights"))
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    };
    cli(&[
        "import".as_ref(),
        "spine".as_ref(),
        rig.as_os_str(),
        "--skin".as_ref(),
        "all".as_ref(),
        "-o".as_ref(),
        scene.as_os_str(),
    ]);
    let expected = dir.path().join("transferred.json");
    cli(&[
        "transfer".as_ref(),
        rig.as_os_str(),
        "--to-skin".as_ref(),
        "goblingirl".as_ref(),
        "--from".as_ref(),
        "skin:goblin".as_ref(),
        "--weights".as_ref(),
        expected.as_os_str(),
    ]);
    let expected = skinweights::io::WeightsFile::load(&expected).unwrap();
    let args = [
        scene.to_str().unwrap(),
        "--transfer-from",
        "skin:goblin",
        "--transfer-to",
        "skin:goblingirl",
    ];
    let (_server, port) = start_view(&args);
    let (status, info) = post_json(port, "/api/scene", &json!({}));
    assert_eq!(status, 200, "{info}");
    let parts: Vec<&str> = info["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    let named = |key: &str| -> Vec<&str> {
        info["transfer"][key]
            .as_array()
            .unwrap_or_else(|| panic!("no transfer.{key} in the scene info"))
            .iter()
            .map(|i| parts[i.as_u64().unwrap() as usize])
            .collect()
    };
    let (sources, targets) = (named("sources"), named("targets"));
    assert_eq!(targets.len(), 20, "{targets:?}");
    assert!(
        targets.iter().all(|p| p.starts_with("goblingirl:")),
        "{targets:?}"
    );
    assert!(
        sources.iter().all(|p| p.starts_with("goblin:")),
        "{sources:?}"
    );
    assert_eq!(info["default_state"]["colour"], "blend");
    let (status, solved) = post_json(port, "/api/solve", &json!({"solver": "best"}));
    assert_eq!(status, 200, "{solved}");
    use base64::Engine;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(solved["weights"].as_str().unwrap())
        .unwrap();
    let shown: Vec<f64> = bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()) as f64)
        .collect();
    let nb = expected.bones.len();
    assert_eq!(solved["bones"], nb as u64);
    assert_eq!(shown.len(), expected.weights.len() * nb);
    let worst = expected
        .weights
        .iter()
        .flatten()
        .zip(&shown)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(
        worst < 1e-6,
        "the view's weights are {worst} from `transfer`'s"
    );
    // A bad source set and a skin with no part are refused, naming the argument.
    for (bad, needle) in [
        (["--transfer-from", "nowhere"], "--transfer-from"),
        (["--transfer-to", "skin:nobody"], "skin \"nobody\""),
    ] {
        let mut a = vec![scene.to_str().unwrap(), "--port", "0"];
        if bad[0] == "--transfer-to" {
            a.extend(["--transfer-from", "slot"]);
        }
        a.extend(bad);
        let out = Command::new(env!("CARGO_BIN_EXE_skinweights"))
            .arg("view")
            .args(&a)
            .output()
            .unwrap();
        let e = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{e}");
        assert!(e.contains(needle), "{e}");
    }
    let Some(b) = browser() else { return };
    b.open(&format!("http://127.0.0.1:{port}/"));
    assert_eq!(b.view("error"), Value::Null);
    b.screenshot("goblins_transfer");
    // Both halves of the canvas hold drawn pixels (not the background).
    let halves = b.js(
        "const c = document.getElementById('canvas'), g = c.getContext('2d');
         const d = g.getImageData(0, 0, c.width, c.height).data; const n = [0, 0];
         for (let i = 0; i < d.length; i += 4) {
           if (d[i] === 15 && d[i+1] === 17 && d[i+2] === 21) continue;
           n[((i / 4) % c.width) < c.width / 2 ? 0 : 1]++;
         }
         return n.map((k) => k / (d.length / 8));",
        json!([]),
    );
    for (side, share) in ["left", "right"].iter().zip(halves.as_array().unwrap()) {
        assert!(
            share.as_f64().unwrap() > 0.05,
            "{side} half drawn share {share}"
        );
    }
}
