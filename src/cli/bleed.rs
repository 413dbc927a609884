//! `skinweights bleed`: the alpha repairs on a PNG (colour into the transparent
//! texels, optionally premultiplied).

use super::check_outputs;
use crate::cli::error::Result;
use clap::Args;
use skinweights::io::Sprite;
use skinweights::render::{bleed, premultiply};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `bleed`.
#[derive(Args)]
pub struct BleedArgs {
    /// Input PNG.
    input: PathBuf,
    /// Output PNG.
    #[arg(short, long)]
    output: PathBuf,
    /// Fill at most this many rings of transparent texels around the visible ones (default:
    /// all).
    #[arg(long)]
    rings: Option<u32>,
    /// Also premultiply the colours by alpha (for a premultiplied-alpha pipeline).
    #[arg(long)]
    premultiply: bool,
    /// Overwrite the output file if it exists.
    #[arg(long)]
    force: bool,
}

/// Runs `bleed`.
pub fn run(a: BleedArgs) -> Result<ExitCode> {
    check_outputs(&[&a.input], &[&a.output], a.force)?;
    let sprite = Sprite::load(&a.input)?;
    let transparent = sprite.image.pixels().filter(|p| p[3] == 0).count();
    let mut out = bleed(&sprite.image, a.rings);
    if a.premultiply {
        out = premultiply(&out);
    }
    super::save_image(&out, &a.output)?;
    super::status(
        &a.output,
        format_args!(
            "wrote {}: {} x {} px, {transparent} transparent texels coloured from their visible \
         neighbours{}{}",
            a.output.display(),
            out.width(),
            out.height(),
            a.rings
                .map(|k| format!(" (at most {k} rings)"))
                .unwrap_or_default(),
            if a.premultiply { ", premultiplied" } else { "" }
        ),
    );
    Ok(ExitCode::SUCCESS)
}
