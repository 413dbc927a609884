//! `view --transfer-from`: a costume transfer shown live, its sources beside its targets.
//!
//! The weights the page poses are the artist's, with each target's rows transferred from its
//! sources ([`transfer_parts`], as `skinweights transfer` computes them); the page's solver
//! weights only what the sources do not cover. The page draws two panels, the sources on the
//! left and the targets on the right, posed together.

use crate::cli::error::{CliError, Result};
use serde_json::{json, Value};
use skinweights::binding::FileBindings;
use skinweights::scene::Scene;
use skinweights::solvers::Solver;
use skinweights::transfer::{
    art_slots, default_targets, skin_parts, transfer_parts, SlotPart, SourceSet, TransferOptions,
    TransferTarget,
};
use skinweights::weights::Weights;
use skinweights::ArgumentError;

/// A costume transfer the viewer shows: the artist's weights, the parts in slots, the
/// targets and where their sources come from.
pub struct TransferView {
    artist: Weights,
    slots: Vec<SlotPart>,
    from: SourceSet,
    targets: Vec<TransferTarget>,
}

/// The parts `to` names (parts, or `skin:NAME` for a skin's parts), each checked.
fn named_parts(scene: &Scene, slots: &[SlotPart], to: &[String]) -> Result<Vec<String>> {
    let mut parts = Vec::new();
    for t in to {
        match t.strip_prefix("skin:") {
            Some(skin) => {
                let of_skin = skin_parts(slots, skin);
                if of_skin.is_empty() {
                    return Err(invalid(
                        "--transfer-to",
                        t,
                        format!("no part of the scene is in skin {skin:?} (import the rig with --skin all)"),
                    ));
                }
                parts.extend(of_skin);
            }
            None if scene.mesh().parts().contains(t) => parts.push(t.clone()),
            None => {
                return Err(invalid(
                    "--transfer-to",
                    t,
                    format!(
                        "no such part; the scene's parts: {}",
                        list(scene.mesh().parts())
                    ),
                ))
            }
        }
    }
    Ok(parts)
}

impl TransferView {
    /// The transfer of `to` (parts, or `skin:NAME` for a skin's parts; empty: every
    /// attachment the artist's weights leave on one bone whose slot holds one they weight)
    /// from `from` (`slot`, `all` or `skin:NAME`), with `artist` the rig's own weights.
    ///
    /// Errors: a bad `from`, an unknown part, no target, or a target without a source, each
    /// naming the argument.
    pub fn new(scene: &Scene, artist: Weights, from: &str, to: &[String]) -> Result<Self> {
        let from: SourceSet = from.parse().map_err(|_| {
            invalid(
                "--transfer-from",
                from,
                "expected slot, all or skin:NAME (as `skinweights transfer --from`)".into(),
            )
        })?;
        let file = FileBindings::from_weights(scene, &artist)?;
        let weighted = |part: &str| file.artist.iter().any(|m| m.part == part);
        let slots: Vec<SlotPart> = art_slots(scene)
            .into_iter()
            .map(|mut s| {
                s.weighted = weighted(&s.part);
                s
            })
            .collect();
        let parts = if to.is_empty() {
            default_targets(&slots)
        } else {
            named_parts(scene, &slots, to)?
        };
        if parts.is_empty() {
            return Err(invalid(
                "--transfer-to",
                &to.join(","),
                "no part to weight: no attachment the artist's weights leave on one bone shares a \
                 slot with one they weight; name parts or skin:NAME with --transfer-to"
                    .into(),
            ));
        }
        for part in &parts {
            if from.parts(scene, &slots, part).is_empty() {
                return Err(invalid(
                    "--transfer-from",
                    &format!("{from:?}"),
                    format!(
                        "target {part:?} has no source: {} (none)",
                        from.describe(part)
                    ),
                ));
            }
        }
        let targets = parts
            .into_iter()
            .map(|part| TransferTarget {
                bones: file
                    .artist
                    .iter()
                    .find(|m| m.part == part)
                    .map(|m| m.bones.clone()),
                part,
            })
            .collect();
        Ok(TransferView {
            artist,
            slots,
            from,
            targets,
        })
    }

    /// The artist's weights with every target transferred; `solver` weights what the
    /// sources do not cover. Also each target's notes, prefixed with its name.
    pub fn weights(&self, scene: &Scene, solver: &dyn Solver) -> Result<(Weights, Vec<String>)> {
        let (weights, done) = transfer_parts(
            scene,
            &self.artist,
            &self.slots,
            &self.targets,
            &self.from,
            &TransferOptions::default(),
            solver,
        )?;
        let notes = done
            .iter()
            .flat_map(|t| {
                t.report
                    .notes
                    .iter()
                    .map(move |n| format!("{}: {n}", t.part))
            })
            .collect();
        Ok((weights, notes))
    }

    /// What the page draws in its two panels: part indices of the sources and the targets.
    pub fn page_json(&self, scene: &Scene) -> Value {
        let parts = scene.mesh().parts();
        let index = |name: &str| parts.iter().position(|p| p == name);
        let mut sources: Vec<usize> = self
            .targets
            .iter()
            .flat_map(|t| self.from.parts(scene, &self.slots, &t.part))
            .filter_map(|p| index(&p))
            .collect();
        sources.sort_unstable();
        sources.dedup();
        let targets: Vec<usize> = self.targets.iter().filter_map(|t| index(&t.part)).collect();
        json!({"sources": sources, "targets": targets})
    }

    /// Target part names, for the command line's note.
    pub fn target_names(&self) -> Vec<&str> {
        self.targets.iter().map(|t| t.part.as_str()).collect()
    }
}

fn list(names: &[String]) -> String {
    const SHOWN: usize = 12;
    let mut text = names
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > SHOWN {
        text.push_str(&format!(" and {} more", names.len() - SHOWN));
    }
    text
}

fn invalid(argument: &'static str, value: &str, reason: String) -> CliError {
    skinweights::Error::from(ArgumentError::InvalidArgument {
        argument,
        value: value.to_string(),
        reason,
    })
    .into()
}
