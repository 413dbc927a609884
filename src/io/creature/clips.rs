//! Creature clips → [`Clip`]s: each frame's world bone points as per-bone channels.
//!
//! A Creature frame gives every bone's world start and end point. The bone's posed world frame
//! is taken as `W = T(start) · R(φ) · diag(λ, 1)`: origin at the start point, x axis along
//! start → end, stretched by `λ = |end - start| / rest length`, so that the scene bone's head
//! and tail land exactly on the frame's start and end points (a Creature bone that grows
//! stretches the vertices along it; its children are not scaled with it).
//!
//! The scene's bones are rigid segments; a rigid bone's posed world transform is
//! `P · T(t) · rel · own` with `P` its parent's posed world transform, `rel` its rest frame
//! relative to its parent's, and `own` the pose's rotation, scale and shear. Solving
//! `P · T(t) · rel · own = W` for each bone, parents first, gives exact channel values at
//! every key: translation `t`, and `own` decomposed as rotation, scale x / y and y shear
//! (x shear 0). A parent's stretch otherwise carries into its children; the solved offsets
//! undo it. Keys sit at the file's frames at [`FRAME_RATE`] fps, the first frame at time 0,
//! linear in between (Creature plays its baked frames linearly).

use super::parse::FileClip;
use super::{creature_error, MAX_SCALE};
use crate::animation::{BoneTrack, Channel, ChannelKind, Clip, Key};
use crate::error::Result;
use crate::io::angles::wrap_degrees;
use crate::skeleton::{Affine2, Skeleton};

/// Frames per second at which a Creature clip's integer frame numbers are read. The file
/// carries no rate: Creature's runtimes advance a clip in frames at a speed the game sets;
/// 60 is the rate of a game loop at 60 Hz playing one frame per tick.
pub const FRAME_RATE: f64 = 60.0;

/// Below this a channel's keys count as its rest value (no channel written).
const SAME_VALUE: f64 = 1e-12;

/// Channels solved per bone, in the order [`offsets`] returns them.
const KINDS: [ChannelKind; 6] = [
    ChannelKind::Rotation,
    ChannelKind::TranslateX,
    ChannelKind::TranslateY,
    ChannelKind::ScaleX,
    ChannelKind::ScaleY,
    ChannelKind::ShearY,
];

/// The clips, against the rest skeleton (bones in the file's id order).
pub(super) fn build_clips(clips: &[FileClip], skeleton: &Skeleton) -> Result<Vec<Clip>> {
    clips.iter().map(|c| build_clip(c, skeleton)).collect()
}

fn build_clip(c: &FileClip, skeleton: &Skeleton) -> Result<Clip> {
    let n = skeleton.len();
    let first = c.frames.first().copied().unwrap_or(0.0);
    let times: Vec<f64> = c.frames.iter().map(|f| (f - first) / FRAME_RATE).collect();
    // values[bone][kind][key]
    let mut values = vec![vec![Vec::with_capacity(times.len()); KINDS.len()]; n];
    for (k, pose) in c.poses.iter().enumerate() {
        let ctx = format!("clip {:?} frame {}", c.name, c.frames[k]);
        let world = posed_worlds(&ctx, pose, skeleton)?;
        for (j, per_kind) in values.iter_mut().enumerate() {
            let o = offsets(skeleton, &world, j).ok_or_else(|| {
                creature_error(
                    &ctx,
                    skeleton.bones()[j].name.as_str(),
                    None,
                    "the bone's parent frame is singular here",
                )
            })?;
            for (keys, v) in per_kind.iter_mut().zip(o) {
                keys.push(v);
            }
        }
    }
    let mut clip = Clip::new(c.name.clone(), times.last().copied().unwrap_or(0.0));
    for (j, per_kind) in values.into_iter().enumerate() {
        let mut track = BoneTrack::new(skeleton.bones()[j].name.clone());
        for (kind, mut v) in KINDS.into_iter().zip(per_kind) {
            if matches!(kind, ChannelKind::Rotation | ChannelKind::ShearY) {
                unwrap_degrees(&mut v);
            }
            if v.iter()
                .all(|x| (x - kind.rest_value()).abs() <= SAME_VALUE)
            {
                continue;
            }
            let keys = times.iter().zip(v).map(|(&t, x)| Key::new(t, x)).collect();
            *track.channels.get_mut(kind) = Some(Channel::new(keys));
        }
        if track.channels.iter().next().is_some() {
            clip.tracks.push(track);
        }
    }
    Ok(clip)
}

/// Each bone's posed world frame `T(start) · R(φ) · diag(λ, 1)` at one frame; a stretch
/// beyond [`MAX_SCALE`] either way is an error naming the bone.
fn posed_worlds(ctx: &str, pose: &[[[f64; 2]; 2]], skeleton: &Skeleton) -> Result<Vec<Affine2>> {
    pose.iter()
        .zip(skeleton.bones())
        .map(|(&[s, e], b)| {
            let (dx, dy) = (e[0] - s[0], e[1] - s[1]);
            let length = dx.hypot(dy);
            let lambda = length / b.length();
            if !(1.0 / MAX_SCALE..=MAX_SCALE).contains(&lambda) {
                return Err(creature_error(
                    ctx,
                    format!("{}.end_pt", b.name),
                    None,
                    format!(
                        "the bone is {length:e} long here, {lambda:e} times its rest length {:e} (at most {MAX_SCALE} either way)",
                        b.length()
                    ),
                ));
            }
            let (cos, sin) = (dx / length, dy / length);
            Ok(Affine2::new(cos * lambda, -sin, sin * lambda, cos, s[0], s[1]))
        })
        .collect()
}

/// Bone `j`'s offsets (rotation °, translation x, y, scale x, y, y shear °) that put it at
/// `world[j]` on its parent at `world[parent]`; `None` when the parent's frame is singular.
fn offsets(skeleton: &Skeleton, world: &[Affine2], j: usize) -> Option<[f64; 6]> {
    let bone = &skeleton.bones()[j];
    let (parent, rel) = match bone.parent {
        Some(p) => (
            world[p],
            skeleton.bones()[p].bind_transform().inverse() * bone.bind_transform(),
        ),
        None => (Affine2::IDENTITY, bone.bind_transform()),
    };
    let m = parent.inverse().ok()? * world[j];
    let rel = Affine2::from_isometry(&rel);
    // own = rel's rotation transposed · m's linear part.
    let (ra, rc) = (rel.a, rel.c);
    let own = Affine2::new(
        ra * m.a + rc * m.c,
        ra * m.b + rc * m.d,
        -rc * m.a + ra * m.c,
        -rc * m.b + ra * m.d,
        0.0,
        0.0,
    );
    let rotation = own.c.atan2(own.a);
    let scale_x = own.a.hypot(own.c);
    let det = own.a * own.d - own.b * own.c;
    // y axis = scale_y · (-sin(r + h), cos(r + h)); a mirrored frame has scale_y < 0.
    let (scale_y, yb, yd) = if det < 0.0 {
        (-own.b.hypot(own.d), -own.b, -own.d)
    } else {
        (own.b.hypot(own.d), own.b, own.d)
    };
    let shear = wrap_degrees((-yb).atan2(yd).to_degrees() - rotation.to_degrees());
    Some([
        rotation.to_degrees(),
        m.tx - rel.tx,
        m.ty - rel.ty,
        scale_x,
        scale_y,
        shear,
    ])
}

/// Consecutive angles made to differ by at most 180° (the short way round between baked
/// frames), so linear interpolation turns the way the frames do.
fn unwrap_degrees(v: &mut [f64]) {
    for i in 1..v.len() {
        v[i] = v[i - 1] + wrap_degrees(v[i] - v[i - 1]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skeleton::{Bone, Pose};
    use nalgebra::{Point2, Vector2};

    /// Offsets solved for a stretched, turned parent and a moved child reproduce both world
    /// frames through the skeleton's forward kinematics.
    #[test]
    fn solved_offsets_reproduce_world_frames() {
        let skeleton = Skeleton::new(vec![
            Bone::new("a", Point2::new(0.0, 0.0), Point2::new(2.0, 0.0)),
            Bone::new("b", Point2::new(2.0, 0.0), Point2::new(2.0, 1.0)).with_parent(0),
        ])
        .unwrap();
        let pose = [[[1.0, 1.0], [1.0, 4.0]], [[0.0, 4.0], [-2.0, 5.0]]];
        let world = posed_worlds("t", &pose, &skeleton).unwrap();
        let mut p = Pose::rest();
        for j in 0..2 {
            let o = offsets(&skeleton, &world, j).unwrap();
            let name = skeleton.bones()[j].name.clone();
            p = p
                .rotate(name.clone(), o[0])
                .translate(name.clone(), Vector2::new(o[1], o[2]))
                .scale(name.clone(), Vector2::new(o[3], o[4]))
                .shear(name, Vector2::new(0.0, o[5]));
        }
        let segs = skeleton.posed_segments(&p).unwrap();
        for (j, seg) in segs.iter().enumerate() {
            for (k, q) in seg.iter().enumerate() {
                let want = pose[j][k];
                assert!(
                    (q.x - want[0]).abs() < 1e-9 && (q.y - want[1]).abs() < 1e-9,
                    "{j} {k} {q:?} {want:?}"
                );
            }
        }
    }
}
