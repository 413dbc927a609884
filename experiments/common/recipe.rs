//! `best` at variants of its recipe, by the former option keys of the recipe's fixed values
//! (feature `internals`): the cross-validation of `best`'s recipe (`pareto`, `leakage_folds`,
//! `rig_*` specs `best@KEY=VALUE;...`) and the timing tools solve with such variants. Not a
//! user option: the library's `best` takes four options.

use skinweights::solvers::internals::BestRecipe;
use skinweights::solvers::{Best, BestOptions, SolverOptions};
use skinweights::{Error, Result, SolverError};

/// The keys [`set`] takes: the recipe's fixed values by their former options' names.
pub const KEYS: [&str; 13] = [
    "visibility",
    "part_sources",
    "blend_widen",
    "blend_fade",
    "cut_fade",
    "artist_mesh_seed_blend",
    "joint_band",
    "own_on_bone",
    "lock_fade",
    "lock_source_fade",
    "handle_length",
    "artist_mesh_source_blend",
    "far_sources",
];

fn invalid(key: &str, message: String) -> Error {
    Error::Solver(SolverError::InvalidOption {
        option: key.to_string(),
        message,
    })
}

fn number(key: &str, value: &str, ok: impl Fn(f64) -> bool, expect: &str) -> Result<f64> {
    let x: f64 = value
        .trim()
        .parse()
        .map_err(|_| invalid(key, format!("{value:?} is not a number")))?;
    if !x.is_finite() || !ok(x) {
        return Err(invalid(
            key,
            format!("must be finite and {expect}, got {x}"),
        ));
    }
    Ok(x)
}

fn boolean(key: &str, value: &str) -> Result<bool> {
    match value.trim() {
        "true" | "1" | "yes" | "on" => Ok(true),
        "false" | "0" | "no" | "off" => Ok(false),
        _ => Err(invalid(
            key,
            format!("{value:?} is not a boolean (true/false)"),
        )),
    }
}

/// `A:B` (or `A` for `A:A`) with `A >= 0` and `B` related to `A` by `ok` (described by
/// `expect`, which names `A`).
fn pair(key: &str, value: &str, ok: impl Fn(f64, f64) -> bool, expect: &str) -> Result<(f64, f64)> {
    let (a, b) = value.split_once(':').unwrap_or((value, value));
    let a = number(key, a, |x| x >= 0.0, ">= 0")?;
    let b = number(key, b, |x| ok(a, x), &format!("{expect} A ({a}) in A:B"))?;
    Ok((a, b))
}

/// Sets one fixed value of `recipe` by its key (see [`KEYS`]).
pub fn set(recipe: &mut BestRecipe, key: &str, value: &str) -> Result<()> {
    let non_negative = |v: &str| number(key, v, |x| x >= 0.0, ">= 0");
    match key {
        "visibility" => recipe.heat.visibility = boolean(key, value)?,
        "part_sources" => recipe.part_sources = boolean(key, value)?,
        "artist_mesh_seed_blend" => recipe.artist_mesh_seed_blend = boolean(key, value)?,
        "joint_band" => recipe.joint_band = boolean(key, value)?,
        "own_on_bone" => recipe.own_on_bone = boolean(key, value)?,
        "lock_fade" => recipe.lock_fade = non_negative(value)?,
        "lock_source_fade" => recipe.lock_source_fade = non_negative(value)?,
        "handle_length" => recipe.handle_length = non_negative(value)?,
        "far_sources" if value == "none" => recipe.far_sources = None,
        "far_sources" => recipe.far_sources = Some(pair(key, value, |a, b| b > a, ">")?),
        "artist_mesh_source_blend" => {
            recipe.artist_mesh_source_blend = number(key, value, |x| x > 0.0, "> 0")?
        }
        "blend_widen" => recipe.blend_widen = non_negative(value)?,
        "cut_fade" => recipe.cut_fade = non_negative(value)?,
        "blend_fade" => recipe.blend_fade = pair(key, value, |a, b| b >= a, ">=")?,
        _ => {
            let mut keys = BestOptions::keys();
            keys.extend(KEYS);
            return Err(invalid(
                key,
                format!(
                    "unknown option for solver best (recipe); it accepts: {}",
                    keys.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// Whether `key` is one of the recipe's (not one of `best`'s four options).
pub fn is_recipe_key(key: &str) -> bool {
    KEYS.contains(&key)
}

/// `best` with some of the recipe's fixed values changed (the keys of [`KEYS`]); any other
/// key is one of [`BestOptions`].
pub fn best_with_recipe(pairs: &[(&str, &str)]) -> Result<Best> {
    let (mut options, mut recipe) = (BestOptions::default(), BestRecipe::default());
    for &(k, v) in pairs {
        if is_recipe_key(k) {
            set(&mut recipe, k, v)?;
        } else {
            options.set(k, v)?;
        }
    }
    Ok(Best::with_recipe(options, recipe))
}
