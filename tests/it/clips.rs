//! Clips: sampling equals the keys at key times, curves equal their formulas evaluated
//! independently, clip metrics are 0 for the reference itself and equal an independent LBS
//! from `pose --json` for other weights, the scene file keeps clips, hostile clips are typed
//! errors.

use crate::common;
use skinweights::{ClipError, SkeletonError};

use common::{scene_at, skinweights, small_scene, solved, text};
use nalgebra::{Point2, Vector2};
use serde_json::Value;
use skinweights::animation::{
    apply_ik, BoneTrack, ChannelKind, Clip, Curve, Easing, IkConstraint, IkKey, IkTrack, Key,
};
use skinweights::io::{save_scene, scene_from_json, scene_to_json, WeightsFile};
use skinweights::metrics::clip::{clip_metrics, clips_metrics, ClipMetrics, ClipOptions};
use skinweights::{scene::Scene, skeleton::Affine2, skeleton::Pose, Error};

fn bezier(x1: f64, y1: f64, x2: f64, y2: f64) -> Curve {
    Curve::Bezier { x1, y1, x2, y2 }
}

/// A clip on the bar: the second bone swings with every kind of curve.
fn swing() -> Clip {
    Clip::new("swing", 2.0)
        .with_track(BoneTrack::new("lower").with(
            ChannelKind::Rotation,
            vec![
                Key::new(0.0, 0.0).with_curve(bezier(0.25, 0.1, 0.25, 1.0)),
                Key::new(0.4, 60.0).with_curve(Curve::Easing(Easing::Bounce)),
                Key::new(0.8, -30.0).with_curve(Curve::Easing(Easing::Back)),
                Key::new(1.2, 45.0).with_curve(Curve::GodotEase(-2.5)),
                Key::new(1.6, 10.0).with_curve(Curve::Stepped),
                Key::new(2.0, 0.0),
            ],
        ))
        .with_track(
            BoneTrack::new("upper")
                .with(
                    ChannelKind::Rotation,
                    vec![
                        Key::new(0.0, 0.0).with_curve(Curve::Easing(Easing::EaseInOut)),
                        Key::new(1.0, -20.0).with_curve(Curve::Easing(Easing::EaseIn)),
                        Key::new(2.0, 5.0),
                    ],
                )
                .with(
                    ChannelKind::ScaleX,
                    vec![
                        Key::new(0.0, 1.0).with_curve(Curve::Easing(Easing::EaseOut)),
                        Key::new(2.0, 1.2),
                    ],
                )
                .with(ChannelKind::TranslateY, vec![Key::new(0.5, 3.0)]),
        )
}

fn bar_with_clip() -> Scene {
    let scene = small_scene("bar");
    let names = scene.skeleton().names();
    assert_eq!(names, ["upper", "lower"], "the bar's bones");
    scene.with_animation(vec![swing()], vec![]).unwrap()
}

/// Independent Bézier: bisection on x(s) = u, then y(s). The ends are exact (x(0) = 0,
/// x(1) = 1); bisection there would stop where a flat x(s) rounds to u, up to 1e-8 early.
fn bezier_reference(x1: f64, y1: f64, x2: f64, y2: f64, u: f64) -> f64 {
    if u <= 0.0 || u >= 1.0 {
        return u.clamp(0.0, 1.0);
    }
    let b = |p1: f64, p2: f64, s: f64| {
        let r = 1.0 - s;
        3.0 * r * r * s * p1 + 3.0 * r * s * s * p2 + s * s * s
    };
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if b(x1, x2, mid) < u {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    b(y1, y2, 0.5 * (lo + hi))
}

#[test]
fn curves_agree_with_their_formulas() {
    let mut worst: f64 = 0.0;
    for i in 0..=2000 {
        let u = i as f64 / 2000.0;
        for (x1, y1, x2, y2) in [
            (0.25, 0.1, 0.25, 1.0),
            (0.42, 0.0, 0.58, 1.0),
            (0.0, 1.5, 1.0, -0.5),
            (0.9, 0.0, 0.1, 1.0),
        ] {
            let got = bezier(x1, y1, x2, y2).eval(u);
            worst = worst.max((got - bezier_reference(x1, y1, x2, y2, u)).abs());
        }
        let n = 7.5625;
        let d = 2.75;
        let bounce = if u < 1.0 / d {
            n * u * u
        } else if u < 2.0 / d {
            n * (u - 1.5 / d).powi(2) + 0.75
        } else if u < 2.5 / d {
            n * (u - 2.25 / d).powi(2) + 0.9375
        } else {
            n * (u - 2.625 / d).powi(2) + 0.984375
        };
        let s = 1.70158;
        let expect = [
            (Easing::EaseIn, u.powi(2)),
            (Easing::EaseOut, 1.0 - (1.0 - u).powi(2)),
            (
                Easing::EaseInOut,
                if u < 0.5 {
                    2.0 * u * u
                } else {
                    1.0 - 2.0 * (1.0 - u).powi(2)
                },
            ),
            (Easing::Bounce, bounce),
            (
                Easing::Back,
                1.0 + (s + 1.0) * (u - 1.0).powi(3) + s * (u - 1.0).powi(2),
            ),
        ];
        for (e, v) in expect {
            worst = worst.max((Curve::Easing(e).eval(u) - v).abs());
        }
        for c in [0.3, 1.0, 2.0, 4.5, -0.5, -2.5] {
            let g = if c > 0.0 && c < 1.0 {
                1.0 - (1.0 - u).powf(1.0 / c)
            } else if c >= 1.0 {
                u.powf(c)
            } else if u < 0.5 {
                (2.0 * u).powf(-c) / 2.0
            } else {
                1.0 - (2.0 * (1.0 - u)).powf(-c) / 2.0
            };
            worst = worst.max((Curve::GodotEase(c).eval(u) - g).abs());
        }
    }
    assert!(worst <= 1e-9, "worst curve difference {worst:e}");
}

#[test]
fn channels_equal_their_keys_at_key_times() {
    let scene = bar_with_clip();
    let clip = &scene.clips()[0];
    let mut checked = 0;
    for track in &clip.tracks {
        for (kind, ch) in track.channels.iter() {
            for k in &ch.keys {
                assert_eq!(ch.sample(k.time), Some(k.value), "{kind:?} at {}", k.time);
                let pose = clip.sample(scene.skeleton(), k.time).unwrap();
                let got = match kind {
                    ChannelKind::Rotation => pose.rotations[&track.bone],
                    ChannelKind::ScaleX => pose.scales[&track.bone].x,
                    ChannelKind::TranslateY => pose.translations[&track.bone].y,
                    _ => unreachable!(),
                };
                assert_eq!(got, k.value);
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 12);
    // Clamped outside the clip; a stepped segment holds; halfway through a linear key pair.
    let r = |t: f64| clip.sample(scene.skeleton(), t).unwrap().rotations["lower"];
    assert_eq!(r(-1.0), 0.0);
    assert_eq!(r(5.0), 0.0);
    assert_eq!(r(1.8), 10.0);
    let ty = clip.sample(scene.skeleton(), 1.7).unwrap().translations["upper"];
    assert_eq!(ty, Vector2::new(0.0, 3.0));
}

fn write_weights(
    dir: &std::path::Path,
    name: &str,
    scene: &Scene,
    w: &skinweights::weights::Weights,
) -> String {
    let p = dir.join(name);
    WeightsFile::new(scene.name(), name, scene.skeleton().names(), w)
        .save(&p)
        .unwrap();
    p.display().to_string()
}

/// The clip metrics computed the straightforward way: every frame skinned twice with
/// `lbs_with_affines`, every deviation kept, percentiles by sorting, flips and area by a
/// loop over the triangles. `(per clip, all)` as (max, p95, mean, flipped per frame, area
/// change per frame) and the per-frame deviation (max, p95, mean).
#[allow(clippy::type_complexity)]
fn straightforward(
    scene: &Scene,
    w: &skinweights::weights::Weights,
    r: &skinweights::weights::Weights,
    fps: f64,
) -> (Vec<([f64; 3], Vec<[f64; 3]>, Vec<(usize, f64)>)>, [f64; 3]) {
    use skinweights::metrics::percentile;
    use skinweights::skinning::lbs_with_affines;
    let rest = scene.mesh().vertices();
    let signed = |p: &[Point2<f64>], t: &[usize; 3]| {
        let (a, b, c) = (p[t[0]], p[t[1]], p[t[2]]);
        (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)
    };
    let rest_area: f64 = scene
        .mesh()
        .triangles()
        .iter()
        .map(|t| signed(rest, t).abs())
        .sum();
    let stats = |d: &[f64]| {
        let max = d.iter().copied().fold(0.0, f64::max);
        [
            max,
            percentile(d, 0.95),
            d.iter().sum::<f64>() / d.len() as f64,
        ]
    };
    let mut everything = Vec::new();
    let mut clips = Vec::new();
    for clip in scene.clips() {
        let (mut pooled, mut frames, mut tris) = (Vec::new(), Vec::new(), Vec::new());
        for t in clip.frame_times(fps).unwrap() {
            let s = scene
                .skeleton()
                .skinning_affines(&scene.clip_pose(clip, t).unwrap())
                .unwrap();
            let pw = lbs_with_affines(rest, w, &s).unwrap();
            let pr = lbs_with_affines(rest, r, &s).unwrap();
            let d: Vec<f64> = pw.iter().zip(&pr).map(|(a, b)| (a - b).norm()).collect();
            frames.push(stats(&d));
            let (mut flipped, mut area) = (0, 0.0);
            for tri in scene.mesh().triangles() {
                let a = signed(&pw, tri);
                flipped += usize::from(a * signed(rest, tri).signum() <= 0.0);
                area += a.abs();
            }
            tris.push((flipped, (area / rest_area - 1.0) * 100.0));
            pooled.extend(d);
        }
        clips.push((stats(&pooled), frames, tris));
        everything.extend(pooled);
    }
    (clips, stats(&everything))
}

fn assert_close(got: Option<f64>, want: f64, what: &str) {
    let got = got.unwrap();
    assert!(
        (got - want).abs() <= 1e-12 * want.abs().max(1.0),
        "{what}: {got} vs {want}"
    );
}

fn assert_deviations(m: &ClipMetrics, want: &[f64; 3], what: &str) {
    assert_close(m.deviation_max_px, want[0], &format!("{what} max"));
    assert_close(m.deviation_p95_px, want[1], &format!("{what} p95"));
    assert_close(m.deviation_mean_px, want[2], &format!("{what} mean"));
}

/// A seeded generator of uniform numbers in [0, 1).
fn uniform(seed: u64) -> impl FnMut() -> f64 {
    let mut state = seed;
    move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Rigidly bound parts (one-hot rows on one bone), whose triangles the clip metrics score by
/// the bone's determinant instead of per triangle: the same flips and area as the
/// straightforward loop, with a clip that mirrors one bone (every triangle it carries flips)
/// and scales the other, and deviations from a reference that differs on some one-hot rows.
#[test]
fn rigid_parts_score_as_the_straightforward_computation() {
    let mut next = uniform(0x61d_5eed);
    let scene = scene_at("bar", 20_000);
    let mirror = Clip::new("mirror", 1.0)
        .with_track(BoneTrack::new("lower").with(
            ChannelKind::ScaleX,
            vec![Key::new(0.0, 1.0), Key::new(0.5, -1.0), Key::new(1.0, 1.0)],
        ))
        .with_track(BoneTrack::new("upper").with(
            ChannelKind::ScaleY,
            vec![Key::new(0.0, 1.0), Key::new(1.0, 0.5)],
        ));
    let scene = scene.with_animation(vec![swing(), mirror], vec![]).unwrap();
    let joint = scene.skeleton().bones()[0].tail.x;
    let n = scene.mesh().vertex_count();
    let (mut weights, mut reference) = (Vec::with_capacity(2 * n), Vec::with_capacity(2 * n));
    for v in scene.mesh().vertices() {
        // One-hot by side of the joint, blended in a band around it; the reference moves
        // some one-hot rows to the other bone and blends some more.
        let d = v.x - joint;
        let row = if d.abs() < 15.0 {
            let u = d / 30.0 + 0.5;
            [1.0 - u, u]
        } else if d < 0.0 {
            [1.0, 0.0]
        } else {
            [0.0, 2.5]
        };
        let r = match next() {
            x if x < 0.05 => [row[1], row[0]],
            x if x < 0.1 => [0.5, 0.5],
            _ => row,
        };
        weights.extend(row);
        reference.extend(r);
    }
    let w = skinweights::weights::Weights::from_row_major(weights, 2).unwrap();
    let r = skinweights::weights::Weights::from_row_major(reference, 2).unwrap();
    let clips: Vec<&Clip> = scene.clips().iter().collect();
    let options = ClipOptions::default().with_fps(20.0);
    let got = clips_metrics(&scene, &w, Some(&r), &clips, &options).unwrap();
    let (want, want_all) = straightforward(&scene, &w, &r, 20.0);
    let mut mirrored = 0;
    for (m, (pooled, frames, tris)) in got.clips.iter().zip(&want) {
        assert_deviations(m, pooled, &format!("clip {}", m.clip));
        for (k, (f, want)) in m.per_frame.iter().zip(frames).enumerate() {
            let what = format!("clip {} frame {k}", m.clip);
            assert_close(f.deviation_p95_px, want[1], &what);
            assert_eq!(f.flipped, tris[k].0, "{what}");
            assert_close(Some(f.area_change_pct), tris[k].1, &what);
            mirrored = mirrored.max(f.flipped);
        }
    }
    assert_deviations(&got.all, &want_all, "all");
    // The mirrored frame flips every triangle of the lower bone's side: thousands.
    assert!(
        mirrored > n / 4,
        "{mirrored} of {} triangles",
        scene.mesh().triangle_count()
    );
}

#[test]
fn clip_metrics_equal_a_straightforward_computation_on_random_weights() {
    let mut next = uniform(0xc11b_5eed);
    // 600 vertices, and 140 000 (more than one parallel block of the vertex pass).
    for (case, vertices) in [600, 600, 600, 140_000].into_iter().enumerate() {
        let scene = scene_at("bar", vertices);
        let second = Clip::new("nod", 0.7).with_track(BoneTrack::new("upper").with(
            ChannelKind::Rotation,
            vec![Key::new(0.0, 0.0), Key::new(0.7, 35.0 * next())],
        ));
        let scene = scene.with_animation(vec![swing(), second], vec![]).unwrap();
        let n = scene.mesh().vertex_count();
        // Reference rows: random, some entries 0, some rows all 0 or unnormalized; the
        // weights: a third of the rows equal to the reference's, the others random.
        let mut reference = Vec::with_capacity(2 * n);
        let mut weights = Vec::with_capacity(2 * n);
        for _ in 0..n {
            let row: Vec<f64> = (0..2)
                .map(|_| if next() < 0.3 { 0.0 } else { next() })
                .collect();
            let own: Vec<f64> = if next() < 0.33 {
                row.clone()
            } else {
                (0..2)
                    .map(|_| if next() < 0.2 { 0.0 } else { next() * 1.5 })
                    .collect()
            };
            reference.extend(row);
            weights.extend(own);
        }
        let r = skinweights::weights::Weights::from_row_major(reference, 2).unwrap();
        let w = skinweights::weights::Weights::from_row_major(weights, 2).unwrap();
        let fps = [30.0, 12.0, 7.5, 10.0][case];
        let clips: Vec<&Clip> = scene.clips().iter().collect();
        let options = ClipOptions::default().with_fps(fps);
        let got = clips_metrics(&scene, &w, Some(&r), &clips, &options).unwrap();
        let (want, want_all) = straightforward(&scene, &w, &r, fps);
        for (m, (pooled, frames, tris)) in got.clips.iter().zip(&want) {
            assert_deviations(m, pooled, &format!("case {case} clip {}", m.clip));
            assert_eq!(m.per_frame.len(), frames.len());
            for (k, (f, want)) in m.per_frame.iter().zip(frames).enumerate() {
                let what = format!("case {case} clip {} frame {k}", m.clip);
                assert_close(f.deviation_max_px, want[0], &what);
                assert_close(f.deviation_p95_px, want[1], &what);
                assert_close(f.deviation_mean_px, want[2], &what);
                assert_eq!(f.flipped, tris[k].0, "{what}");
                assert_close(Some(f.area_change_pct), tris[k].1, &what);
            }
        }
        assert_deviations(&got.all, &want_all, &format!("case {case} all"));
        let single = clip_metrics(&scene, &w, Some(&r), clips[0], &options).unwrap();
        assert_eq!(single, got.clips[0]);
        // Without reference: the same flips and area, no deviations.
        let plain = clips_metrics(&scene, &w, None, &clips, &options).unwrap();
        assert_eq!(plain.all.deviation_p95_px, None);
        for (a, b) in plain.clips.iter().zip(&got.clips) {
            assert_eq!(a.flipped_max, b.flipped_max);
            assert_eq!(a.area_change_max_pct, b.area_change_max_pct);
        }
    }
}

#[test]
fn clip_deviation_is_zero_for_the_reference_and_matches_lbs_from_pose_json() {
    let scene = bar_with_clip();
    let artist = solved(&scene, "linear");
    let other = solved(&scene, "euclidean");
    let m0 = clip_metrics(
        &scene,
        &artist,
        Some(&artist),
        &scene.clips()[0],
        &ClipOptions::default(),
    )
    .unwrap();
    assert_eq!(m0.deviation_max_px, Some(0.0));
    assert_eq!(m0.deviation_mean_px, Some(0.0));
    assert_eq!(m0.frames, 61);

    let dir = tempfile::tempdir().unwrap();
    let scene_path = dir.path().join("bar.json");
    save_scene(&scene, &scene_path).unwrap();
    let sp = scene_path.display().to_string();
    let wa = write_weights(dir.path(), "artist.json", &scene, &artist);
    let wo = write_weights(dir.path(), "other.json", &scene, &other);
    let out = skinweights(&[
        "eval",
        &sp,
        &wo,
        "--clip",
        "all",
        "--reference",
        &wa,
        "--fps",
        "10",
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let all_max = v["all"]["deviation_max_px"].as_f64().unwrap();
    assert!(all_max > 0.1, "euclidean differs from linear: {all_max}");
    for key in [
        "deviation_max_px",
        "deviation_p95_px",
        "deviation_mean_px",
        "deviation_max_pct",
        "deviation_p95_pct",
        "deviation_mean_pct",
    ] {
        assert!(v["all"][key].is_number(), "{key}");
        assert!(v["clips"][0][key].is_number(), "{key}");
    }
    let frames = v["clips"][0]["per_frame"].as_array().unwrap();
    assert_eq!(frames.len(), 21);

    // Independent LBS from the world matrices `pose --json` prints.
    let world_at = |t: Option<f64>| -> Vec<Affine2> {
        let ts = t.map(|t| t.to_string());
        let mut args = vec!["pose", sp.as_str(), "--json"];
        if let Some(ts) = &ts {
            args.extend(["--clip", "swing", "--time", ts.as_str()]);
        }
        let o = skinweights(&args);
        assert!(o.status.success(), "{}", text(&o));
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        v["bones"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| {
                let m: Vec<f64> = b["world"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap())
                    .collect();
                Affine2::new(m[0], m[1], m[2], m[3], m[4], m[5])
            })
            .collect()
    };
    let rest = world_at(None);
    let lbs = |w: &skinweights::weights::Weights, s: &[Affine2]| -> Vec<Point2<f64>> {
        scene
            .mesh()
            .vertices()
            .iter()
            .zip(w.rows())
            .map(|(v, row)| {
                let (mut acc, mut sum) = (Vector2::zeros(), 0.0);
                for (j, &wj) in row.iter().enumerate() {
                    let (a, r) = (s[j], rest[j]);
                    // S = W(t) W(rest)^-1, applied by hand.
                    let det = r.a * r.d - r.b * r.c;
                    let (x, y) = (v.x - r.tx, v.y - r.ty);
                    let lx = (r.d * x - r.b * y) / det;
                    let ly = (-r.c * x + r.a * y) / det;
                    acc +=
                        wj * Vector2::new(a.a * lx + a.b * ly + a.tx, a.c * lx + a.d * ly + a.ty);
                    sum += wj;
                }
                Point2::from(acc / sum)
            })
            .collect()
    };
    let mut worst: f64 = 0.0;
    for f in frames.iter().step_by(4) {
        let t = f["time"].as_f64().unwrap();
        let s = world_at(Some(t));
        let (p, q) = (lbs(&other, &s), lbs(&artist, &s));
        let max = p
            .iter()
            .zip(&q)
            .map(|(a, b)| (a - b).norm())
            .fold(0.0, f64::max);
        worst = worst.max((max - f["deviation_max_px"].as_f64().unwrap()).abs());
    }
    assert!(worst <= 1e-9, "independent LBS differs by {worst:e} px");
}

#[test]
fn clips_and_ik_round_trip_through_the_scene_file() {
    let scene = small_scene("arms-down");
    let ik = IkConstraint::new(
        "arm",
        vec!["upper_arm_l".into(), "forearm_l".into()],
        "spine",
    );
    let scene = scene
        .with_animation(
            vec![
                Clip::new("wave", 1.0).with_track(BoneTrack::new("upper_arm_l").with(
                    ChannelKind::Rotation,
                    vec![
                        Key::new(0.0, 0.0).with_curve(bezier(0.3, -0.2, 0.7, 1.3)),
                        Key::new(1.0, -90.0),
                    ],
                )),
            ],
            vec![ik],
        )
        .unwrap();
    let text = scene_to_json(&scene, None).unwrap();
    assert!(text.contains("skinweights.scene/3"));
    let (back, _) = scene_from_json(&text, None).unwrap();
    assert_eq!(back.clips(), scene.clips());
    assert_eq!(back.ik(), scene.ik());
}

/// `Scene::without_ik` drops the constraints and the clips' IK tracks together (a clip keying
/// a constraint the scene lacks is refused), so the clip poses are the sampled ones.
#[test]
fn without_ik_drops_the_constraints_and_the_clips_ik_tracks() {
    let ik = IkConstraint::new(
        "arm",
        vec!["upper_arm_l".into(), "forearm_l".into()],
        "upper_arm_r",
    );
    let wave = Clip::new("wave", 1.0)
        .with_track(BoneTrack::new("upper_arm_l").with(
            ChannelKind::Rotation,
            vec![Key::new(0.0, 0.0), Key::new(1.0, -90.0)],
        ))
        .with_ik_track(IkTrack::new(
            "arm",
            vec![IkKey::new(0.0, 1.0), IkKey::new(1.0, 0.5)],
        ));
    let scene = small_scene("arms-down")
        .with_animation(vec![wave], vec![ik])
        .unwrap();
    assert!(matches!(
        scene
            .clone()
            .with_animation(scene.clips().to_vec(), Vec::new()),
        Err(Error::Skeleton(SkeletonError::InvalidIk { .. }))
    ));
    let plain = scene.clone().without_ik();
    plain.sanity_check().unwrap();
    assert!(plain.ik().is_empty() && plain.clips()[0].ik.is_empty());
    assert_eq!(plain.clips()[0].tracks, scene.clips()[0].tracks);
    let (with, without) = (&scene.clips()[0], &plain.clips()[0]);
    for t in [0.0, 0.5, 1.0] {
        let sampled = without.sample(plain.skeleton(), t).unwrap();
        assert_eq!(plain.clip_pose(without, t).unwrap(), sampled);
        assert_ne!(scene.clip_pose(with, t).unwrap(), sampled, "t {t}");
    }
}

#[test]
fn ik_reaches_a_reachable_target() {
    let scene = small_scene("arms-down");
    let sk = scene.skeleton();
    // Target: the right shoulder, 154 px from the left one; the left arm (85 + 80 px long)
    // bends to reach it.
    let ik = IkConstraint::new(
        "arm",
        vec!["upper_arm_l".into(), "forearm_l".into()],
        "upper_arm_r",
    );
    let posed = apply_ik(sk, &Pose::rest(), std::slice::from_ref(&ik)).unwrap();
    let seg = sk.posed_segments(&posed).unwrap();
    let f = sk.index_of("forearm_l").unwrap();
    let goal = sk.bones()[sk.index_of("upper_arm_r").unwrap()].head;
    assert!(
        (seg[f][1] - goal).norm() < 1e-6,
        "{:?} vs {goal:?}",
        seg[f][1]
    );
    // The other bend reaches it too, mirrored.
    let mut other = ik;
    other.bend_positive = false;
    let posed2 = apply_ik(sk, &Pose::rest(), &[other]).unwrap();
    let seg2 = sk.posed_segments(&posed2).unwrap();
    assert!((seg2[f][1] - goal).norm() < 1e-6);
    assert!((seg2[f][0] - seg[f][0]).norm() > 1.0);
}

#[test]
fn hostile_clips_are_typed_errors() {
    let scene = small_scene("bar");
    let one = |clip: Clip| scene.clone().with_animation(vec![clip], vec![]).map(|_| ());
    let rot = |keys: Vec<Key>| {
        Clip::new("c", 1.0).with_track(BoneTrack::new("lower").with(ChannelKind::Rotation, keys))
    };
    assert!(matches!(
        one(rot(vec![Key::new(0.0, f64::NAN)])),
        Err(Error::Clip(ClipError::InvalidKey { key: 0, .. }))
    ));
    assert!(matches!(
        one(rot(vec![Key::new(0.5, 0.0), Key::new(0.25, 1.0)])),
        Err(Error::Clip(ClipError::InvalidKey { key: 1, .. }))
    ));
    assert!(matches!(
        one(rot(vec![
            Key::new(0.0, 0.0).with_curve(bezier(1.5, 0.0, 0.5, 1.0)),
            Key::new(1.0, 1.0)
        ])),
        Err(Error::Clip(ClipError::InvalidKey {
            channel: "rotation",
            ..
        }))
    ));
    assert!(matches!(
        one(rot(vec![Key::new(2.0, 0.0)])),
        Err(Error::Clip(ClipError::InvalidKey { .. }))
    ));
    assert!(matches!(
        one(Clip::new("c", 1.0)
            .with_track(BoneTrack::new("nope").with(ChannelKind::Rotation, vec![]))),
        Err(Error::Skeleton(SkeletonError::UnknownBone { .. }))
    ));
    let max = skinweights::animation::MAX_KEYS;
    let many: Vec<Key> = (0..max + 1)
        .map(|i| Key::new(i as f64 * 1e-8, 0.0))
        .collect();
    assert!(matches!(
        one(rot(many)),
        Err(Error::Clip(ClipError::TooManyKeys { .. }))
    ));
    // In a file: a scene with one key over the budget fails while it is read (the keys
    // written as text: a JSON value per key would take gigabytes).
    let mut v: Value = serde_json::from_str(&scene_to_json(&scene, None).unwrap()).unwrap();
    v["format"] = "skinweights.scene/3".into();
    v["clips"] = serde_json::json!([{"name": "c", "duration": 1, "tracks": [{"bone": "lower", "rotation": "KEYS"}]}]);
    let keys = vec![r#"{"time":0,"value":0}"#; max + 1].join(",");
    let text = v.to_string().replace("\"KEYS\"", &format!("[{keys}]"));
    let e = scene_from_json(&text, None).unwrap_err().to_string();
    assert!(e.contains(&format!("more than {max} keys")), "{e}");
    // IK with unknown bones or bad mix.
    let ik = |bones: Vec<&str>, target: &str, mix: f64| {
        let mut c = IkConstraint::new("k", bones.into_iter().map(String::from).collect(), target);
        c.mix = mix;
        scene.clone().with_animation(vec![], vec![c]).map(|_| ())
    };
    assert!(matches!(
        ik(vec!["nope"], "upper", 1.0),
        Err(Error::Skeleton(SkeletonError::UnknownBone { .. }))
    ));
    assert!(matches!(
        ik(vec!["lower"], "upper", f64::NAN),
        Err(Error::Skeleton(SkeletonError::InvalidIk { .. }))
    ));
    assert!(matches!(
        ik(vec!["upper"], "lower", 1.0),
        Err(Error::Skeleton(SkeletonError::InvalidIk { .. }))
    ));
    assert!(ik(vec!["lower"], "upper", 0.5).is_ok());
}
