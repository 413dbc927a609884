//! A rig's costumes: which parts to weight (a file's unweighted attachments whose slot holds
//! a weighted one), where each takes its weights from, and every target transferred in turn.

use super::{
    slot_partners, transfer, SlotPart, TransferOptions, TransferSource, TransferTarget, Transferred,
};
use crate::error::{ArgumentError, Result, SceneError};
use crate::scene::Scene;
use crate::solvers::Solver;
use crate::weights::Weights;

/// Where a target's sources come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceSet {
    /// The weighted attachments of the target's own slot (`slot`).
    Slot,
    /// Every part of the character but the target, weighted or rigid (`all`).
    All,
    /// The parts of one skin but the target, weighted or rigid (`skin:NAME`).
    Skin(String),
}

impl std::str::FromStr for SourceSet {
    type Err = crate::Error;

    /// `slot`, `all` or `skin:NAME`; anything else is an [`ArgumentError::InvalidArgument`]
    /// for `--from`.
    fn from_str(s: &str) -> Result<SourceSet> {
        match s {
            "slot" => Ok(SourceSet::Slot),
            "all" => Ok(SourceSet::All),
            _ => match s.strip_prefix("skin:") {
                Some(name) if !name.is_empty() => Ok(SourceSet::Skin(name.to_string())),
                _ => Err(ArgumentError::InvalidArgument {
                    argument: "--from",
                    value: s.to_string(),
                    reason: "expected slot, all or skin:NAME".into(),
                }
                .into()),
            },
        }
    }
}

impl SourceSet {
    /// The source parts for `target`. Without slots (`slots` empty: Creature, Godot, glTF),
    /// `all` and `slot` take every other part.
    pub fn parts(&self, scene: &Scene, slots: &[SlotPart], target: &str) -> Vec<String> {
        if slots.is_empty() {
            return scene
                .mesh
                .parts()
                .iter()
                .filter(|p| *p != target)
                .cloned()
                .collect();
        }
        match self {
            SourceSet::Slot => slot_partners(slots, target),
            SourceSet::All => slots
                .iter()
                .filter(|s| s.part != target)
                .map(|s| s.part.clone())
                .collect(),
            SourceSet::Skin(skin) => slots
                .iter()
                .filter(|s| s.part != target && s.skin.as_deref() == Some(skin))
                .map(|s| s.part.clone())
                .collect(),
        }
    }

    /// What the set is, for messages.
    pub fn describe(&self, target: &str) -> String {
        match self {
            SourceSet::Slot => format!("the weighted attachments of {target:?}'s slot"),
            SourceSet::All => "every other part".into(),
            SourceSet::Skin(s) => format!("the parts of skin {s:?}"),
        }
    }
}

/// The parts a costume transfer weights by default: every attachment the file does not weight
/// whose slot holds a weighted one, in the order of `slots`.
pub fn default_targets(slots: &[SlotPart]) -> Vec<String> {
    slots
        .iter()
        .filter(|s| !s.weighted && !slot_partners(slots, &s.part).is_empty())
        .map(|s| s.part.clone())
        .collect()
}

/// The parts of skin `skin` (every part when no part names a skin).
pub fn skin_parts(slots: &[SlotPart], skin: &str) -> Vec<String> {
    slots
        .iter()
        .filter(|s| s.skin.as_deref() == Some(skin))
        .map(|s| s.part.clone())
        .collect()
}

/// Every target transferred from its sources (`from`) in turn, written into a copy of
/// `weights` (weights on the whole scene: the artist's).
///
/// Errors: [`SceneError::EmptyTransferSource`] naming a target with no source, and those of
/// [`transfer`].
pub fn transfer_parts(
    scene: &Scene,
    weights: &Weights,
    slots: &[SlotPart],
    targets: &[TransferTarget],
    from: &SourceSet,
    options: &TransferOptions,
    solver: &dyn Solver,
) -> Result<(Weights, Vec<Transferred>)> {
    let mut out = weights.clone();
    let mut done = Vec::with_capacity(targets.len());
    for target in targets {
        let parts = from.parts(scene, slots, &target.part);
        if parts.is_empty() {
            return Err(SceneError::EmptyTransferSource {
                given: format!("{} (none)", from.describe(&target.part)),
            }
            .into());
        }
        let source = TransferSource::from_parts(scene, weights, &parts)?;
        let moved = transfer(scene, target, &source, options, solver)?;
        moved.scatter(&mut out)?;
        done.push(moved);
    }
    Ok((out, done))
}
