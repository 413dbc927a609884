//! The libgdx text atlas Spine writes (`*.atlas`), in its 4.x layout (`bounds`, `offsets`,
//! `rotate: 90`, page fields indented) and its 3.x layout (`xy`, `size`, `orig`, `offset`,
//! `rotate: true`), as the user guide's "Texture packing" pages describe it.
//!
//! The file is a list of pages, each starting after a blank line (or at the top) with the
//! page image's file name and its `key: value` fields (`size`, `format`, `filter`, `repeat`,
//! `pma`, `scale`); then the page's regions, each a name line and its fields. A region's
//! `bounds` (`x, y, width, height`, pixels from the page's top-left corner) give its size
//! *before* packing rotation: a region packed with `rotate: 90` (or `true`) covers `height`
//! columns and `width` rows of the page. `offsets` (`x, y, originalWidth, originalHeight`) place
//! the trimmed region inside its original image: `x` from the left, `y` from the bottom.

use crate::error::{Error, FormatError, Result};
use crate::io::png_dimensions;
use crate::scene::AlphaMode;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Largest page side (px) accepted.
const MAX_PAGE_SIDE: f64 = 65_536.0;

/// One page: an image and its size.
#[derive(Debug, Clone, PartialEq)]
pub struct AtlasPage {
    /// The image file name as the atlas gives it.
    pub name: String,
    /// The image, resolved against the atlas file's folder.
    pub image: PathBuf,
    /// Page size in pixels (`size`, else the PNG header's).
    pub size: (f64, f64),
    /// Whether the image stores premultiplied alpha (`pma: true`).
    pub pma: bool,
}

/// One packed region.
#[derive(Debug, Clone, PartialEq)]
pub struct AtlasRegion {
    /// Region name (the attachment's `path`, or its name).
    pub name: String,
    /// Index into [`Atlas::pages`].
    pub page: usize,
    /// `x, y, width, height`: top-left corner on the page and size before packing rotation.
    pub bounds: [f64; 4],
    /// `x, y, originalWidth, originalHeight`: where the trimmed region sits in the original
    /// image (x from the left, y from the bottom) and that image's size. Default: no trim.
    pub offsets: [f64; 4],
    /// Packing rotation, degrees counter-clockwise: 0, 90, 180 or 270.
    pub degrees: u32,
    /// `index` (frames of a sequence), -1 when absent.
    pub index: i64,
}

impl AtlasRegion {
    /// Page pixel (u right, v down) of a point of the original image given in 0..1 texture
    /// coordinates across the original image (`u` right, `v` down), as mesh `uvs` are.
    pub fn page_pixel(&self, u: f64, v: f64) -> [f64; 2] {
        let [x, y, w, h] = self.bounds;
        let [ox, oy, ow, oh] = self.offsets;
        // In the trimmed region, from its top-left corner.
        let tx = u * ow - ox;
        let ty = v * oh - (oh - h - oy);
        match self.degrees {
            90 => [x + ty, y + w - tx],
            180 => [x + w - tx, y + h - ty],
            270 => [x + h - ty, y + tx],
            _ => [x + tx, y + ty],
        }
    }

    /// Page pixel of a point of the *trimmed* region, 0..1 across it (u right, v down).
    pub fn trimmed_pixel(&self, u: f64, v: f64) -> [f64; 2] {
        let [_, _, w, h] = self.bounds;
        let [ox, oy, ow, oh] = self.offsets;
        self.page_pixel((ox + u * w) / ow, ((oh - h - oy) + v * h) / oh)
    }
}

/// A Spine atlas: pages and regions by name.
#[derive(Debug, Clone, Default)]
pub struct Atlas {
    /// The pages in file order.
    pub pages: Vec<AtlasPage>,
    /// The regions in file order.
    pub regions: Vec<AtlasRegion>,
    by_name: HashMap<String, usize>,
}

impl Atlas {
    /// Reads an atlas file (see [`Atlas::parse`]); pages are resolved against its folder.
    pub fn load(path: impl AsRef<Path>) -> Result<Atlas> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Atlas::parse(
            &text,
            path.parent().unwrap_or(Path::new("")),
            &path.display().to_string(),
        )
    }

    /// Parses atlas text; page images are `dir/NAME`. A page without `size` takes its PNG's
    /// size. Errors ([`FormatError::SpineAtlas`], naming the line and region): a field before any
    /// page or region, numbers that are not finite or of the wrong count, a rotation other
    /// than 0/90/180/270, a region not inside its page, a repeated region name and index.
    pub fn parse(text: &str, dir: &Path, file: &str) -> Result<Atlas> {
        let mut atlas = Atlas::default();
        let mut entry = Entry::None;
        let mut expect_page = true;
        let mut region_lines: Vec<usize> = Vec::new();
        let mut page_sized: Vec<bool> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let at = AtlasLine { file, line: i + 1 };
            let line = raw.trim();
            if line.is_empty() {
                expect_page = true;
                continue;
            }
            let field = line.split_once(':').filter(|_| {
                // A name line may contain ':' only if it is not a `key: value` line; Spine's
                // keys are single words.
                let key = line.split(':').next().unwrap_or("");
                !key.trim().is_empty() && !key.trim().contains(char::is_whitespace)
            });
            match (field, &entry) {
                (Some((key, value)), Entry::Page) => {
                    let page = atlas.pages.last_mut().expect("a page entry has a page");
                    let sized = page_sized.last_mut().expect("sized per page");
                    page_field(page, sized, key.trim(), value.trim(), at)?;
                }
                (Some((key, value)), Entry::Region) => {
                    let region = atlas
                        .regions
                        .last_mut()
                        .expect("a region entry has a region");
                    region_field(region, key.trim(), value.trim(), at)?;
                }
                (Some((key, _)), Entry::None) => {
                    return Err(
                        at.error(format!("field {:?} before any page or region", key.trim()))
                    )
                }
                (None, _) => {
                    if expect_page {
                        atlas.pages.push(AtlasPage {
                            name: line.to_string(),
                            image: dir.join(line),
                            size: (0.0, 0.0),
                            pma: false,
                        });
                        page_sized.push(false);
                        entry = Entry::Page;
                        expect_page = false;
                    } else {
                        atlas.regions.push(AtlasRegion {
                            name: line.to_string(),
                            page: atlas.pages.len() - 1,
                            bounds: [0.0; 4],
                            offsets: [0.0, 0.0, f64::NAN, f64::NAN],
                            degrees: 0,
                            index: -1,
                        });
                        region_lines.push(i + 1);
                        entry = Entry::Region;
                    }
                }
            }
        }
        for (k, page) in atlas.pages.iter_mut().enumerate() {
            if !page_sized[k] {
                let (w, h) = png_dimensions(&page.image)?;
                page.size = (w as f64, h as f64);
            }
        }
        atlas.check_regions(file, &region_lines)?;
        atlas.by_name = atlas.index_by_name();
        Ok(atlas)
    }

    /// Fills the regions' original sizes and checks each lies inside its page and image,
    /// with no name and index repeated; `lines` are the regions' lines.
    fn check_regions(&mut self, file: &str, lines: &[usize]) -> Result<()> {
        let mut seen: HashMap<(String, i64), usize> = HashMap::new();
        for (k, r) in self.regions.iter_mut().enumerate() {
            let line = lines[k];
            let at = AtlasLine { file, line };
            if r.offsets[2].is_nan() {
                r.offsets[2] = r.bounds[2];
            }
            if r.offsets[3].is_nan() {
                r.offsets[3] = r.bounds[3];
            }
            let [x, y, w, h] = r.bounds;
            let (pw, ph) = self.pages[r.page].size;
            let (fw, fh) = if r.degrees % 180 == 90 {
                (h, w)
            } else {
                (w, h)
            };
            if !(w > 0.0 && h > 0.0 && x >= 0.0 && y >= 0.0 && x + fw <= pw && y + fh <= ph) {
                return Err(at.error(format!(
                    "region {:?}: bounds {:?} (rotated {}) are not inside its {pw} x {ph} page {:?}",
                    r.name, r.bounds, r.degrees, self.pages[r.page].name
                )));
            }
            let [ox, oy, ow, oh] = r.offsets;
            if !(ox >= 0.0 && oy >= 0.0 && ox + w <= ow + 1e-9 && oy + h <= oh + 1e-9) {
                return Err(at.error(format!(
                    "region {:?}: the {w} x {h} trimmed region at offsets ({ox}, {oy}) is not inside its {ow} x {oh} original image",
                    r.name
                )));
            }
            if let Some(first) = seen.insert((r.name.clone(), r.index), line) {
                return Err(at.error(format!(
                    "region {:?} index {} is also on line {first}",
                    r.name, r.index
                )));
            }
        }
        Ok(())
    }

    /// Each region name's region: the first frame of a sequence (lowest index) answers a
    /// plain name.
    fn index_by_name(&self) -> HashMap<String, usize> {
        let mut by_name: HashMap<String, usize> = HashMap::new();
        for (k, r) in self.regions.iter().enumerate() {
            let better = by_name.get(&r.name).is_none_or(|&o| {
                atlas_index_rank(r.index) < atlas_index_rank(self.regions[o].index)
            });
            if better {
                by_name.insert(r.name.clone(), k);
            }
        }
        by_name
    }

    /// The region called `name` (the lowest `index` when there are several).
    pub fn region(&self, name: &str) -> Option<&AtlasRegion> {
        self.by_name.get(name).map(|&k| &self.regions[k])
    }

    /// The page's alpha mode.
    pub fn alpha(&self, page: usize) -> AlphaMode {
        if self.pages[page].pma {
            AlphaMode::Premultiplied
        } else {
            AlphaMode::Straight
        }
    }

    /// The `.atlas` beside a skeleton file: `NAME.atlas`, or `NAME` without a `-pro`/`-ess`
    /// suffix (`spineboy-pro.json` -> `spineboy.atlas`), if one exists.
    pub fn beside(skeleton: &Path) -> Option<PathBuf> {
        let stem = skeleton.file_stem()?.to_str()?;
        let mut candidates = vec![skeleton.with_file_name(format!("{stem}.atlas"))];
        for suffix in ["-pro", "-ess"] {
            if let Some(s) = stem.strip_suffix(suffix) {
                candidates.push(skeleton.with_file_name(format!("{s}.atlas")));
            }
        }
        candidates.into_iter().find(|p| p.is_file())
    }
}
/// Where the fields of the atlas line being read go.
enum Entry {
    None,
    Page,
    Region,
}

/// The atlas file and line being read, for errors.
#[derive(Clone, Copy)]
struct AtlasLine<'a> {
    file: &'a str,
    line: usize,
}

impl AtlasLine<'_> {
    /// An [`FormatError::SpineAtlas`] at this line.
    fn error(self, message: String) -> Error {
        Error::Format(FormatError::SpineAtlas {
            file: self.file.to_string(),
            line: self.line,
            message,
        })
    }

    /// The `n` comma-separated numbers of field `key`, each finite and within
    /// ±4 × [`MAX_PAGE_SIDE`].
    fn numbers(self, key: &str, value: &str, n: usize) -> Result<Vec<f64>> {
        let v: Vec<&str> = value.split(',').map(str::trim).collect();
        if v.len() != n {
            return Err(self.error(format!("{key}: {} values, expected {n}", v.len())));
        }
        v.iter()
            .map(|s| match s.parse::<f64>() {
                Ok(x) if x.is_finite() && x.abs() <= MAX_PAGE_SIDE * 4.0 => Ok(x),
                _ => Err(self.error(format!(
                    "{key}: {s:?} is not a number within ±{}",
                    MAX_PAGE_SIDE * 4.0
                ))),
            })
            .collect()
    }
}

/// Reads one `key: value` field of a page; `sized` records a `size` field.
fn page_field(
    page: &mut AtlasPage,
    sized: &mut bool,
    key: &str,
    value: &str,
    at: AtlasLine,
) -> Result<()> {
    match key {
        "size" => {
            let s = at.numbers(key, value, 2)?;
            if !(s[0] > 0.0 && s[1] > 0.0 && s[0] <= MAX_PAGE_SIDE && s[1] <= MAX_PAGE_SIDE) {
                return Err(at.error(format!("size {s:?} is outside 1..={MAX_PAGE_SIDE}")));
            }
            page.size = (s[0], s[1]);
            *sized = true;
        }
        "pma" => page.pma = value == "true",
        _ => {}
    }
    Ok(())
}

/// Reads one `key: value` field of a region.
fn region_field(region: &mut AtlasRegion, key: &str, value: &str, at: AtlasLine) -> Result<()> {
    let numbers = |n: usize| at.numbers(key, value, n);
    match key {
        "bounds" => region.bounds = numbers(4)?.try_into().expect("4 numbers"),
        "xy" => {
            let v = numbers(2)?;
            region.bounds[0] = v[0];
            region.bounds[1] = v[1];
        }
        "size" => {
            let v = numbers(2)?;
            region.bounds[2] = v[0];
            region.bounds[3] = v[1];
        }
        "offsets" => region.offsets = numbers(4)?.try_into().expect("4 numbers"),
        "offset" => {
            let v = numbers(2)?;
            region.offsets[0] = v[0];
            region.offsets[1] = v[1];
        }
        "orig" => {
            let v = numbers(2)?;
            region.offsets[2] = v[0];
            region.offsets[3] = v[1];
        }
        "rotate" => {
            region.degrees = match value {
                "true" => 90,
                "false" => 0,
                s => match s.parse::<f64>() {
                    Ok(d) if [0.0, 90.0, 180.0, 270.0].contains(&d.rem_euclid(360.0)) => {
                        d.rem_euclid(360.0) as u32
                    }
                    _ => {
                        return Err(at.error(format!(
                    "region {:?}: rotate {s:?} is not 0, 90, 180 or 270 degrees (or true/false)",
                    region.name
                )))
                    }
                },
            }
        }
        "index" => {
            region.index = value.parse().map_err(|_| {
                at.error(format!(
                    "region {:?}: index {value:?} is not an integer",
                    region.name
                ))
            })?
        }
        _ => {}
    }
    Ok(())
}

/// Order of `index` values for picking a sequence's first frame: -1 (no index) first.
fn atlas_index_rank(index: i64) -> (bool, i64) {
    (index >= 0, index)
}

#[cfg(test)]
mod tests {
    use super::*;

    const V4: &str = "\npage.png\n\tsize: 100, 50\n\tfilter: Linear, Linear\n\tpma: true\na\n\tbounds: 10, 5, 20, 10\nb\n\tbounds: 40, 0, 10, 30\n\toffsets: 2, 3, 16, 40\n\trotate: 90\n";
    const V3: &str = "\npage.png\nsize: 100,50\nformat: RGBA8888\nfilter: Linear,Linear\nrepeat: none\na\n  rotate: false\n  xy: 10, 5\n  size: 20, 10\n  orig: 20, 10\n  offset: 0, 0\n  index: -1\nb\n  rotate: true\n  xy: 40, 0\n  size: 10, 30\n  orig: 16, 40\n  offset: 2, 3\n  index: -1\n";

    #[test]
    fn both_layouts_read_the_same() {
        for text in [V4, V3] {
            let a = Atlas::parse(text, Path::new("d"), "t.atlas").unwrap();
            assert_eq!(a.pages.len(), 1);
            assert_eq!(a.pages[0].size, (100.0, 50.0));
            let r = a.region("b").unwrap();
            assert_eq!(r.bounds, [40.0, 0.0, 10.0, 30.0]);
            assert_eq!(r.offsets, [2.0, 3.0, 16.0, 40.0]);
            assert_eq!(r.degrees, 90);
            assert_eq!(a.region("a").unwrap().page_pixel(0.5, 1.0), [20.0, 15.0]);
        }
        assert!(Atlas::parse(V4, Path::new("d"), "t").unwrap().pages[0].pma);
    }

    #[test]
    fn rotated_region_corners() {
        let a = Atlas::parse(V4, Path::new("d"), "t").unwrap();
        let r = a.region("b").unwrap();
        // Trimmed top-left goes to the page's bottom-left of the footprint (30 wide, 10 tall).
        assert_eq!(r.trimmed_pixel(0.0, 0.0), [40.0, 10.0]);
        assert_eq!(r.trimmed_pixel(1.0, 0.0), [40.0, 0.0]);
        assert_eq!(r.trimmed_pixel(1.0, 1.0), [70.0, 0.0]);
    }

    #[test]
    fn regions_outside_their_page_are_refused() {
        let text = V4.replace("10, 5, 20, 10", "90, 5, 20, 10");
        let e = Atlas::parse(&text, Path::new("d"), "t.atlas")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("line 6") && e.contains("\"a\"") && e.contains("not inside"),
            "{e}"
        );
        let text = V4.replace("rotate: 90", "rotate: 45");
        let e = Atlas::parse(&text, Path::new("d"), "t")
            .unwrap_err()
            .to_string();
        assert!(e.contains("rotate"), "{e}");
    }
}
