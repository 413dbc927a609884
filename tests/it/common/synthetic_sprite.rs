//! A synthetic character sprite for the leakage tests and the `leakage_folds` experiment:
//! the Kenney layout (legs, torso, head on a neck, arms hanging beside the torso behind a
//! slit that ends under the shoulder block), with sizes and outline noise from a seed.
//! Shared by `tests/it/best.rs` (as `common::synthetic_sprite`) and the experiments crate
//! (`experiments/leakage_folds.rs`, through `#[path]`).
#![allow(dead_code)]

use skinweights::io::{sprite_scene, BonesFile, Sprite, SpriteOptions};
use skinweights::scene::Scene;

/// A xorshift generator (the tests' `Rng`, so seeded sprites stay the same).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
}

/// A character sprite none of the solvers was tuned on, drawn into a 96 x 128 alpha image
/// the way the Kenney sprites are laid out (y up, origin at the bottom): legs, a torso, a
/// head on a neck, and arms hanging beside the torso separated from it by a slit `gap`
/// pixels wide up to the shoulder block. Sizes and the outline's pixel noise come from
/// `seed`. Returns the traced scene (`skinweights mesh` with a bones file) and its height.
pub fn synthetic_sprite(seed: u64, gap: f64) -> skinweights::Result<Scene> {
    synthetic_sprite_with(seed, gap, &Limbs::default())
}

/// The arms of a synthetic sprite: where they end and how far they spread.
pub struct Limbs {
    /// Lowest y of the arms (default 8: they reach below the torso's bottom at 18).
    pub arm_bottom: f64,
    /// The arms spread outward by this many degrees from hanging straight down (default 0).
    pub tilt_deg: f64,
    /// Image resolution multiplier for the traced mesh's vertex target (default 10 000).
    pub vertices: usize,
    /// The probe's lift angles (degrees, applied to the left upper arm; default -90).
    pub lifts: Vec<f64>,
    /// The probes watch the torso this many pixels below the slit's top (default 7).
    pub watch_below_armpit: f64,
    /// Each lift is also probed mirrored on the right arm (default false).
    pub both_arms: bool,
    /// The slits are closed between these two heights (y, pixels): the arms touch the torso
    /// there, far below the shoulder, as a hand resting on the hip does (default none).
    pub glued: Option<(f64, f64)>,
}

impl Default for Limbs {
    fn default() -> Self {
        Limbs {
            arm_bottom: 8.0,
            tilt_deg: 0.0,
            vertices: 10_000,
            lifts: vec![-90.0],
            watch_below_armpit: 7.0,
            both_arms: false,
            glued: None,
        }
    }
}

pub fn synthetic_sprite_with(seed: u64, gap: f64, limbs: &Limbs) -> skinweights::Result<Scene> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ seed.wrapping_mul(0x2545_F491_4F6C_DD1D));
    let (w, h) = (96u32, 128u32);
    let cx = 48.0;
    let tw = rng.range(12.0, 16.0); // torso half-width
    let aw = rng.range(9.0, 13.0); // arm width
    let armpit = rng.range(34.0, 38.0); // top of the slit
    let head_r = rng.range(17.0, 21.0);
    let noise: Vec<f64> = (0..(w * h)).map(|_| rng.unit()).collect();
    let arm_out = tw + gap + aw; // outer edge of an arm, from the centre line
    let inside = |x: f64, y: f64| -> bool {
        let dx = (x - cx).abs();
        let legs = (2.0..=20.0).contains(&y) && (2.0..=14.0).contains(&dx);
        let torso = (18.0..=48.0).contains(&y) && dx <= tw;
        let neck = (46.0..=54.0).contains(&y) && dx <= 5.0;
        let head = (x - cx).powi(2) + (y - 70.0).powi(2) <= head_r * head_r;
        // A tilted arm shifts outward by `tan(tilt)` per pixel below the shoulder block.
        let shift = (armpit - y).max(0.0) * limbs.tilt_deg.to_radians().tan();
        let arm = (limbs.arm_bottom..=48.0).contains(&y)
            && dx >= tw + gap + shift
            && dx <= arm_out + shift;
        let shoulder = (armpit..=48.0).contains(&y) && dx <= arm_out;
        let glue = limbs.glued.is_some_and(|(lo, hi)| {
            (lo..=hi).contains(&y) && dx >= tw - 3.0 && dx <= tw + gap + shift + 1.0
        });
        legs || torso || neck || head || arm || shoulder || glue
    };
    let mut image = image::RgbaImage::new(w, h);
    for row in 0..h {
        for col in 0..w {
            let (x, y) = (col as f64 + 0.5, (h - 1 - row) as f64 + 0.5);
            // Pixel noise on the outline: an opaque pixel on the edge is cleared with
            // probability 0.2 (clearing only, so a slit never closes).
            let here = inside(x, y);
            let edge = [(1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)]
                .iter()
                .any(|(a, b)| inside(x + a, y + b) != here);
            let flip = edge && here && noise[(row * w + col) as usize] < 0.2;
            let alpha = if here != flip { 255 } else { 0 };
            image.put_pixel(col, row, image::Rgba([90, 120, 200, alpha]));
        }
    }
    let sprite = Sprite::from_rgba(image, format!("synthetic-{seed}-gap{gap}"));
    let (l, r) = (cx - tw - gap - aw / 2.0, cx + tw + gap + aw / 2.0);
    let elbow_y = (limbs.arm_bottom + (armpit + 2.0)) / 2.0;
    let hand_y = limbs.arm_bottom + 2.0;
    let tan = limbs.tilt_deg.to_radians().tan();
    let (el, er) = (l - (armpit - elbow_y) * tan, r + (armpit - elbow_y) * tan);
    let (hl, hr) = (l - (armpit - hand_y) * tan, r + (armpit - hand_y) * tan);
    let watch_y = armpit - limbs.watch_below_armpit;
    let mut probes: Vec<String> = Vec::new();
    for a in &limbs.lifts {
        probes.push(format!(
            r#"{{"name": "lift_l {a}", "pose": {{"upper_arm_l": {a}}}, "watch": {{"part": "torso", "below_y": {watch_y}}}}}"#
        ));
        if limbs.both_arms {
            probes.push(format!(
                r#"{{"name": "lift_r {a}", "pose": {{"upper_arm_r": {}}}, "watch": {{"part": "torso", "below_y": {watch_y}}}}}"#,
                -a
            ));
        }
    }
    let slit_l = cx - tw - gap / 2.0;
    let slit_r = cx + tw + gap / 2.0;
    let top = armpit + 2.0;
    let bones = format!(
        r#"{{"bones": [
  {{"name": "spine", "parent": null, "head": [48, 18], "tail": [48, 46], "part": "torso"}},
  {{"name": "neck", "parent": "spine", "head": [48, 46], "tail": [48, 54], "part": "head"}},
  {{"name": "head", "parent": "neck", "head": [48, 54], "tail": [48, 88], "part": "head"}},
  {{"name": "upper_arm_l", "parent": "spine", "head": [{l}, {top}], "tail": [{el}, {elbow_y}], "part": "arm_l"}},
  {{"name": "forearm_l", "parent": "upper_arm_l", "head": [{el}, {elbow_y}], "tail": [{hl}, {hand_y}], "part": "arm_l"}},
  {{"name": "upper_arm_r", "parent": "spine", "head": [{r}, {top}], "tail": [{er}, {elbow_y}], "part": "arm_r"}},
  {{"name": "forearm_r", "parent": "upper_arm_r", "head": [{er}, {elbow_y}], "tail": [{hr}, {hand_y}], "part": "arm_r"}},
  {{"name": "thigh_l", "parent": "spine", "head": [40, 18], "tail": [40, 10], "part": "leg_l"}},
  {{"name": "shin_l", "parent": "thigh_l", "head": [40, 10], "tail": [40, 2], "part": "leg_l"}},
  {{"name": "thigh_r", "parent": "spine", "head": [56, 18], "tail": [56, 10], "part": "leg_r"}},
  {{"name": "shin_r", "parent": "thigh_r", "head": [56, 10], "tail": [56, 2], "part": "leg_r"}}
 ],
 "parts": [
  {{"part": "head", "polygon": [[0, 48.5], [96, 48.5], [96, 128], [0, 128]]}},
  {{"part": "arm_l", "polygon": [[0, 0], [{slit_l}, 0], [{slit_l}, 48.5], [0, 48.5]]}},
  {{"part": "arm_r", "polygon": [[{slit_r}, 0], [96, 0], [96, 48.5], [{slit_r}, 48.5]]}},
  {{"part": "leg_l", "polygon": [[0, 0], [48, 0], [48, 18.5], [0, 18.5]]}},
  {{"part": "leg_r", "polygon": [[48, 0], [96, 0], [96, 18.5], [48, 18.5]]}},
  {{"part": "torso", "polygon": [[0, 0], [96, 0], [96, 128], [0, 128]]}}
 ],
 "probes": [{probes}]}}"#,
        probes = probes.join(",")
    );
    let bones = BonesFile::from_json(&bones)?;
    let mut options = SpriteOptions::default();
    options.meshing.target_vertices = limbs.vertices;
    let (scene, _, _) = sprite_scene(&sprite, bones, &options)?;
    scene.sanity_check()?;
    Ok(scene)
}
