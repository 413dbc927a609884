//! Animation clips: named durations of keyed per-bone channels, sampled to poses, with IK as
//! a pose step. The format, the curves' formulas and examples are in `docs/clips.md`.
//!
//! - `model.rs`: [`Clip`], [`BoneTrack`], [`BoneChannels`], [`Channel`], [`Key`], the IK
//!   timelines [`IkTrack`] and [`IkKey`], the slot attachment timelines
//!   [`AttachmentTrack`] and [`AttachmentKey`], and their validation ([`Clip::check`]).
//! - `curves.rs`: [`Curve`] (stepped, linear, Bézier, easing presets, Godot's transition) and
//!   their exact evaluation.
//! - `sampling.rs`: [`Channel::sample`], [`Clip::sample`] (a [`crate::skeleton::Pose`] at a time),
//!   [`Clip::frame_times`], [`IkTrack::sample`] and [`Clip::ik_at`] (the scene's IK
//!   constraints with a clip's keyed mix, softness and bend at a time),
//!   [`Clip::attachments_at`] (the attachment each keyed slot shows at a time).
//! - `ik.rs`: [`IkConstraint`] and [`apply_ik`].
//!
//! Channel values are offsets from the setup pose exactly like [`crate::skeleton::Pose`]: rotation,
//! translation and shear added, scale multiplied; loaders of formats with absolute
//! properties (Godot) convert.

mod curves;
mod ik;
mod model;
mod sampling;

pub use curves::{bezier, bezier_parameter, godot_ease, Curve, Easing, BEZIER_TOLERANCE};
pub use ik::{apply_ik, IkConstraint, MAX_IK_MIX};
pub use model::{
    AttachmentKey, AttachmentTrack, BoneChannels, BoneTrack, Channel, ChannelKind, Clip, IkKey,
    IkTrack, Key, KEY_MEMORY_BUDGET, MAX_KEYS,
};
pub use sampling::{DEFAULT_FPS, MAX_FRAMES};

// docs/clips.md's Rust example runs as a doctest, so the page cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../../docs/clips.md")]
struct ClipsDocDoctests;
