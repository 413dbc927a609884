//! Rig slots: a slot shows one attachment at a time (its setup attachment at rest, the one a
//! clip's attachment keys name while it plays), so renders of a rig imported with every skin
//! draw the character, not every attachment at once; scenes without slots draw as before.

use crate::common;

use image::RgbImage;
use skinweights::io::spine::{load_spine, SkinSelection, SpineImportOptions};
use skinweights::render::{
    drawn_parts, hide_parts, posed_vertices, render, Drawing, Frame, RenderOptions, Skinning,
    Texture, View,
};
use std::collections::BTreeMap;
use std::path::Path;

/// Imports a shipped Spine rig into `dir` with `--skin SKIN`; the scene's and the artist
/// weights' paths.
fn import(dir: &Path, rig: &str, skin: &str, name: &str) -> (String, String) {
    let src = common::data(&format!("spine/{rig}/{rig}-pro.json"));
    let scene = dir.join(format!("{name}.json"));
    let o = common::skinweights(&[
        "import",
        "spine",
        src.to_str().unwrap(),
        "--skin",
        skin,
        "-o",
        scene.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", common::text(&o));
    let artist = dir.join(format!("{name}.artist.json"));
    (
        scene.to_str().unwrap().to_string(),
        artist.to_str().unwrap().to_string(),
    )
}

/// `skinweights render ARGS -o OUT` (the PNG read back).
fn render_cli(args: &[&str], out: &Path) -> RgbImage {
    let mut all: Vec<&str> = vec!["render"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-o", out.to_str().unwrap(), "--samples", "2"]);
    let o = common::skinweights(&all);
    assert!(o.status.success(), "{}", common::text(&o));
    image::open(out).unwrap().to_rgb8()
}

/// The bounding box (x0, y0, x1, y1) of the pixels that are not the black background, and
/// how many there are.
fn drawn_box(im: &RgbImage) -> ([u32; 4], usize) {
    let mut b = [u32::MAX, u32::MAX, 0, 0];
    let mut n = 0;
    for (x, y, p) in im.enumerate_pixels() {
        if p.0 != [0, 0, 0] {
            n += 1;
            b = [b[0].min(x), b[1].min(y), b[2].max(x), b[3].max(y)];
        }
    }
    (b, n)
}

/// spineboy imported with every skin draws at rest what the default-skin import draws (each
/// slot's setup attachment: the character), not the portal, hoverboard, crosshair and
/// muzzle flashes it also holds; before slots were recorded that render was 1424 x 1052 px.
#[test]
fn spineboy_with_every_skin_draws_the_character_at_rest() {
    let dir = tempfile::tempdir().unwrap();
    let (all, all_w) = import(dir.path(), "spineboy", "all", "all");
    let (one, one_w) = import(dir.path(), "spineboy", "default", "one");
    let a = render_cli(&[&all, &all_w], &dir.path().join("all.png"));
    let b = render_cli(&[&one, &one_w], &dir.path().join("one.png"));
    assert_eq!(a.dimensions(), b.dimensions());
    assert!(a == b, "the same pixels as the default-skin import");
    // About the character's size (its setup pose is ~420 x 690 px at scale 1).
    let (w, h) = a.dimensions();
    assert!(
        (380..=470).contains(&w) && (640..=740).contains(&h),
        "{w} x {h}"
    );
    let ([x0, y0, x1, y1], n) = drawn_box(&a);
    assert!(
        x1 - x0 + 40 >= w && y1 - y0 + 40 >= h,
        "the drawing fills the frame: {w} x {h} px, drawn in {:?}",
        [x0, y0, x1, y1]
    );
    assert!(n as f64 > 0.25 * (w * h) as f64, "{n} drawn pixels");
    // A skin that does not exist is a typed error naming the skins.
    let o = common::skinweights(&[
        "render",
        &all,
        &all_w,
        "--skin",
        "nope",
        "-o",
        dir.path().join("x.png").to_str().unwrap(),
    ]);
    let t = common::text(&o);
    assert!(
        !o.status.success() && t.contains("\"nope\"") && t.contains("[\"default\"]"),
        "{t}"
    );
    // `--skin default` is the default.
    let c = render_cli(
        &[&all, &all_w, "--skin", "default"],
        &dir.path().join("c.png"),
    );
    assert!(a == c);
    // The walk cycle's contact sheet fits the character's frames (it was too large to
    // render: 9222 x 8022 px).
    let sheet = render_cli(
        &[&all, &all_w, "--clip", "walk", "--fps", "10"],
        &dir.path().join("walk.png"),
    );
    let (sw, sh) = sheet.dimensions();
    assert!(sw < 4 * 700 && sh < 4 * 900, "{sw} x {sh}");
}

/// The owl at rest shows its open eyes (the closed-eye slots have no setup attachment): the
/// layers drawn are exactly the slots with a setup attachment. In its blink the clip's
/// attachment keys draw the closed eyes, over the open ones.
#[test]
fn owl_at_rest_has_open_eyes_and_blinks_in_its_clip() {
    let src = common::data("spine/owl/owl-pro.json");
    let rig = load_spine(
        &src,
        None,
        &SpineImportOptions::default().with_skin(SkinSelection::All),
    )
    .unwrap();
    let scene = &rig.scene;
    let art = scene.art().expect("the owl has an atlas");
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&src).unwrap()).unwrap();
    let with_setup = file["slots"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s.get("attachment").is_some_and(|a| a.is_string()))
        .count();
    let rest = art.drawn_layers(None, &BTreeMap::new());
    assert_eq!(rest.iter().filter(|&&d| d).count(), with_setup);
    assert_eq!((art.layers.len(), with_setup), (27, 25));
    let closed: Vec<usize> = art
        .layers
        .iter()
        .enumerate()
        .filter(|(_, l)| l.part.ends_with("eye-closed"))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(closed.len(), 2);
    assert!(closed.iter().all(|&i| !rest[i]), "eyes open at rest");

    let blink = scene.clip("blink").unwrap();
    let keyed = blink.attachments_at(0.5);
    let during = art.drawn_layers(None, &keyed);
    assert!(closed.iter().all(|&i| during[i]), "closed eyes at 0.5 s");
    assert_eq!(
        during.iter().filter(|&&d| d).count(),
        with_setup + 2,
        "the closed eyes are drawn over the open ones"
    );
    let after = art.drawn_layers(None, &blink.attachments_at(0.6));
    assert_eq!(after, rest, "open again after the key at 0.5333 s");

    // Drawn: at 0.5 s the pixels over the eyes change, and nothing else.
    let textures = Texture::load_art(art).unwrap();
    let pose = scene.clip_pose(blink, 0.5).unwrap();
    let positions = posed_vertices(scene, &rig.artist, &pose, Skinning::Lbs).unwrap();
    let frame = Frame::fit(&positions, &View::default(), 2.0).unwrap();
    let draw = |keyed: &BTreeMap<String, Option<String>>| {
        let drawn = drawn_parts(scene, None, keyed).unwrap().expect("slots");
        let mut p = positions.clone();
        hide_parts(scene.mesh(), &mut p, &drawn);
        let d = Drawing {
            mesh: scene.mesh(),
            positions: &p,
            art: Some(art),
            textures: &textures,
        };
        render(&d, &frame, &RenderOptions::default()).unwrap()
    };
    let open = draw(&BTreeMap::new());
    let shut = draw(&keyed);
    let changed: Vec<(u32, u32)> = open
        .enumerate_pixels()
        .filter(|(x, y, p)| shut.get_pixel(*x, *y) != *p)
        .map(|(x, y, _)| (x, y))
        .collect();
    assert!(changed.len() > 2000, "{} pixels change", changed.len());
    // Every changed pixel lies over a closed-eye attachment.
    let mesh = scene.mesh();
    let eyes: Vec<_> = (0..mesh.vertex_count())
        .filter(|&v| mesh.parts()[mesh.vertex_parts()[v]].ends_with("eye-closed"))
        .map(|v| frame.to_pixels(positions[v]))
        .collect();
    let (lo_x, hi_x) = eyes
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.x), b.max(p.x)));
    let (lo_y, hi_y) = eyes
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.y), b.max(p.y)));
    assert!(changed.iter().all(|&(x, y)| {
        let (x, y) = (x as f64, y as f64);
        x >= lo_x - 2.0 && x <= hi_x + 2.0 && y >= lo_y - 2.0 && y <= hi_y + 2.0
    }));
}

/// FNV-1a over the bytes: a fixed hash of a render's pixels.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A scene without slot fields renders as before they existed: the built-in figure's render
/// (flat colours) has the pixels the code before slots drew (hash frozen from its render),
/// and the owl imported with its default skin (every layer a setup attachment in a slot)
/// draws the same pixels with its slot fields as with them stripped from the file.
#[test]
fn scenes_without_slots_render_as_before() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).to_str().unwrap().to_string();
    for args in [
        vec![
            "scene",
            "figure",
            "--vertices",
            "2000",
            "-o",
            &p("fig.json"),
        ],
        vec![
            "solve",
            &p("fig.json"),
            "--solver",
            "linear",
            "-o",
            &p("w.json"),
        ],
    ] {
        let o = common::skinweights(&args);
        assert!(o.status.success(), "{}", common::text(&o));
    }
    let o = common::skinweights(&["render", &p("fig.json"), &p("w.json"), "-o", &p("fig.png")]);
    assert!(o.status.success(), "{}", common::text(&o));
    let fig = image::open(p("fig.png")).unwrap().to_rgb8();
    assert_eq!(fig.dimensions(), (196, 475));
    assert_eq!(
        fnv(fig.as_raw()),
        FIGURE_RENDER_HASH,
        "{:#x}",
        fnv(fig.as_raw())
    );

    let (owl, owl_w) = import(dir.path(), "owl", "default", "owl");
    let mut file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&owl).unwrap()).unwrap();
    let layers = file["art"]["layers"].as_array_mut().unwrap();
    assert!(layers.iter().all(|l| l.get("slot").is_some()));
    for l in layers {
        let l = l.as_object_mut().unwrap();
        for k in ["slot", "attachment", "skin", "setup"] {
            l.remove(k);
        }
    }
    let stripped = p("owl-stripped.json");
    std::fs::write(&stripped, file.to_string()).unwrap();
    let a = render_cli(&[&owl, &owl_w], &dir.path().join("a.png"));
    let b = render_cli(&[&stripped, &owl_w], &dir.path().join("b.png"));
    assert!(a == b);
}

/// The pixels of `skinweights render` of `scene figure --vertices 2000` with `solve
/// --solver linear` weights, rendered by the code before slots were recorded.
const FIGURE_RENDER_HASH: u64 = 0x3ebf_b7ab_8d44_3b45;

/// goblins has skins `goblin` and `goblingirl` over a default skin holding only the
/// weapons: imported with every skin, `render --skin NAME` draws the pixels the import of
/// that one skin (merged over the default one) draws.
#[test]
fn goblins_skin_picks_the_skin_an_import_of_that_skin_draws() {
    let dir = tempfile::tempdir().unwrap();
    let (all, all_w) = import(dir.path(), "goblins", "all", "all");
    for skin in ["goblin", "goblingirl"] {
        let (one, one_w) = import(dir.path(), "goblins", skin, skin);
        let a = render_cli(
            &[&all, &all_w, "--skin", skin],
            &dir.path().join(format!("all-{skin}.png")),
        );
        let b = render_cli(&[&one, &one_w], &dir.path().join(format!("{skin}.png")));
        assert_eq!(a.dimensions(), b.dimensions(), "{skin}");
        assert!(a == b, "{skin}");
        let (_, n) = drawn_box(&a);
        assert!(n > 20_000, "{skin}: {n} drawn pixels");
    }
    // Without --skin the default skin shows: only the weapons.
    let d = render_cli(&[&all, &all_w], &dir.path().join("default.png"));
    let g = render_cli(
        &[&all, &all_w, "--skin", "goblin"],
        &dir.path().join("g.png"),
    );
    assert!(drawn_box(&d).1 < drawn_box(&g).1 / 3);
}

/// The slot fields and attachment keys go through the scene file (JSON and `.swb`)
/// unchanged; slot fields in a `/2` file are refused, naming the format.
#[test]
fn slots_and_attachment_keys_round_trip_through_scene_files() {
    use skinweights::io::{load_scene, save_scene};
    let rig = load_spine(
        common::data("spine/owl/owl-pro.json"),
        None,
        &SpineImportOptions::default().with_skin(SkinSelection::All),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    for name in ["owl.json", "owl.swb"] {
        let path = dir.path().join(name);
        save_scene(&rig.scene, &path).unwrap();
        let (back, _) = load_scene(&path).unwrap();
        assert_eq!(back.art().unwrap().layers, rig.scene.art().unwrap().layers);
        let (a, b) = (
            back.clip("blink").unwrap(),
            rig.scene.clip("blink").unwrap(),
        );
        assert_eq!(a.attachments, b.attachments);
        assert_eq!(a.attachments.len(), 2);
    }
    let text = std::fs::read_to_string(dir.path().join("owl.json")).unwrap();
    assert!(text.contains("\"format\":\"skinweights.scene/3\""));
    assert!(text.contains("\"setup\":false") && text.contains("\"skin\":\"default\""));
    // A /2 scene (art, no animation) with a slot field is refused.
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let o = v.as_object_mut().unwrap();
    for k in ["clips", "ik"] {
        o.remove(k);
    }
    for b in o["bones"].as_array_mut().unwrap() {
        b.as_object_mut().unwrap().remove("local");
    }
    o.insert("format".into(), "skinweights.scene/2".into());
    let e = skinweights::io::scene_from_json(&v.to_string(), Some(dir.path()))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("slots") && e.contains("skinweights.scene/3"),
        "{e}"
    );
}

/// The rule of [`skinweights::scene::Art::drawn_layers`] on a hand-made art: a slot shows
/// its setup attachment, a key's, or nothing; a named skin's attachment replaces the
/// default skin's of the same name; layers in no slot always draw.
#[test]
fn drawn_layers_follow_the_slot_rule() {
    use skinweights::scene::{Art, Layer, SlotAttachment};
    let layer = |part: &str, slot: &str, att: &str, skin: Option<&str>, setup: bool| Layer {
        slot: Some(SlotAttachment {
            slot: slot.into(),
            attachment: att.into(),
            skin: skin.map(Into::into),
            setup,
        }),
        ..Layer::new(part, None)
    };
    let art = Art {
        images: vec![],
        uvs: vec![],
        layers: vec![
            Layer::new("free", None),
            layer("head", "head", "head", Some("default"), true),
            layer("red:head", "head", "head", Some("red"), true),
            layer("head/hat", "head", "hat", Some("default"), false),
            layer("gun", "hand", "gun", Some("default"), true),
            layer("flash", "muzzle", "flash", Some("default"), false),
        ],
    };
    let none = BTreeMap::new();
    let on = |v: &[bool]| v.iter().map(|&b| b as u8).collect::<Vec<_>>();
    assert_eq!(on(&art.drawn_layers(None, &none)), [1, 1, 0, 0, 1, 0]);
    assert_eq!(
        on(&art.drawn_layers(Some("red"), &none)),
        [1, 0, 1, 0, 1, 0]
    );
    let keyed: BTreeMap<String, Option<String>> = [
        ("head".to_string(), Some("hat".to_string())),
        ("hand".to_string(), None),
        ("muzzle".to_string(), Some("flash".to_string())),
    ]
    .into_iter()
    .collect();
    assert_eq!(
        on(&art.drawn_layers(Some("red"), &keyed)),
        [1, 0, 0, 1, 0, 1]
    );
    assert_eq!(art.skins(), ["default", "red"]);
    let e = art.check_skin("blue").unwrap_err().to_string();
    assert!(
        e.contains("\"blue\"") && e.contains("[\"default\", \"red\"]"),
        "{e}"
    );
}
