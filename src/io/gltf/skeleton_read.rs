//! The skin's joints as a skeleton: heads and axes from the inverse bind matrices, parents
//! from the node hierarchy, tails from `extras`, the single child or a leaf length.

use super::json::{lookup, Doc, NodeJson, SkinJson};
use super::reader::{Reader, Want};
use super::{FLOAT, LEAF_BONE_FRACTION, PLANE_TOLERANCE};
use crate::error::{Error, Result};
use crate::mesh::Mesh;
use crate::skeleton::{Bone, Skeleton};
use nalgebra::{Matrix4, Point2, Vector2};
use serde_json::Value;
use std::collections::BTreeMap;

/// The skeleton of `skin` (number `skin_index`) over `mesh`, which lies in the plane
/// `z = plane_z`; joints off that plane are projected onto it (a note says how far).
pub(super) fn read_skeleton(
    reader: &Reader,
    skin: &SkinJson,
    skin_index: usize,
    mesh: &Mesh,
    plane_z: f64,
    notes: &mut Vec<String>,
) -> Result<Skeleton> {
    let doc = reader.doc;
    let joint_of_node = joint_of_node(doc, skin, skin_index)?;
    let joint_above = joints_above(&doc.nodes, &joint_of_node)?;
    let bind = world_bind_matrices(reader, skin)?;
    let (lo, hi) = mesh.bounds();
    let size = (hi.x - lo.x).max(hi.y - lo.y);
    let off_plane = bind
        .iter()
        .map(|b| (b[(2, 3)] - plane_z).abs())
        .fold(0.0, f64::max);
    if off_plane > PLANE_TOLERANCE * size {
        notes.push(format!(
            "joints lie up to {off_plane} off the mesh plane: projected onto it"
        ));
    }
    let frames = JointFrames::new(&bind, skin, &joint_above);
    let leaf_length = LEAF_BONE_FRACTION * size;
    let names = joint_names(doc, &skin.joints);
    let bones = skin
        .joints
        .iter()
        .enumerate()
        .map(|(k, &node)| frames.bone(k, &doc.nodes[node], node, &names[k], leaf_length))
        .collect::<Result<Vec<Bone>>>()?;
    Skeleton::new(bones)
}

/// Per node, its index in the skin's joint list (`None`: not a joint); a node listed twice
/// is an error.
pub(super) fn joint_of_node(
    doc: &Doc,
    skin: &SkinJson,
    skin_index: usize,
) -> Result<Vec<Option<usize>>> {
    let mut joint_of_node = vec![None; doc.nodes.len()];
    for (k, &node) in skin.joints.iter().enumerate() {
        lookup(&doc.nodes, node, "nodes")?;
        if joint_of_node[node].replace(k).is_some() {
            return Err(Error::field(
                format!("skins[{skin_index}].joints"),
                format!("node {node} is listed twice"),
            ));
        }
    }
    Ok(joint_of_node)
}

/// World bind matrices: inverses of the inverse bind matrices (identity without them, as
/// the spec says).
fn world_bind_matrices(reader: &Reader, skin: &SkinJson) -> Result<Vec<Matrix4<f64>>> {
    let nj = skin.joints.len();
    let Some(a) = skin.inverse_bind_matrices else {
        return Ok(vec![Matrix4::identity(); nj]);
    };
    let m = reader.read(
        a,
        &Want {
            role: "inverseBindMatrices",
            kinds: &["MAT4"],
            component_types: &[FLOAT],
            count: Some((nj, "one per skin joint")),
            indices: false,
        },
    )?;
    (0..nj)
        .map(|k| {
            Matrix4::from_column_slice(m.element(k))
                .try_inverse()
                .ok_or_else(|| {
                    Error::field(
                        format!("accessors[{a}] (inverseBindMatrices)"),
                        format!("matrix {k} is singular"),
                    )
                })
        })
        .collect()
}

/// The joints' bind frames in the plane and their hierarchy.
struct JointFrames {
    heads: Vec<Point2<f64>>,
    /// Unit x axis of each joint at bind (the world x axis when it points out of the plane).
    x_axes: Vec<Vector2<f64>>,
    parents: Vec<Option<usize>>,
    children: Vec<Vec<usize>>,
}

impl JointFrames {
    fn new(bind: &[Matrix4<f64>], skin: &SkinJson, joint_above: &[Option<usize>]) -> Self {
        let heads = bind
            .iter()
            .map(|b| Point2::new(b[(0, 3)], b[(1, 3)]))
            .collect();
        let x_axes = bind
            .iter()
            .map(|b| {
                let x = Vector2::new(b[(0, 0)], b[(1, 0)]);
                // A joint whose x axis points out of the plane keeps the world x axis.
                if x.norm() > 1e-9 {
                    x.normalize()
                } else {
                    Vector2::x()
                }
            })
            .collect();
        let parents: Vec<Option<usize>> = skin.joints.iter().map(|&n| joint_above[n]).collect();
        let mut children = vec![Vec::new(); skin.joints.len()];
        for (k, p) in parents.iter().enumerate() {
            if let Some(p) = *p {
                children[p].push(k);
            }
        }
        JointFrames {
            heads,
            x_axes,
            parents,
            children,
        }
    }

    /// Joint `k` (node `node_index`) as a bone: its tail at `extras.skinweights.length`
    /// along its x axis, else at its single child's head, else `leaf_length` along x; part
    /// and influences from `extras`.
    fn bone(
        &self,
        k: usize,
        node: &NodeJson,
        node_index: usize,
        name: &str,
        leaf_length: f64,
    ) -> Result<Bone> {
        let (heads, x_axes) = (&self.heads, &self.x_axes);
        let extras = node.extras.as_ref().and_then(|e| e.get("skinweights"));
        let length = match extras.and_then(|e| e.get("length")) {
            None => None,
            Some(l) => match l.as_f64() {
                Some(l) if l.is_finite() && l > 0.0 => Some(l),
                _ => {
                    return Err(Error::field(
                        format!("nodes[{node_index}].extras.skinweights.length"),
                        format!("{l} is not a positive number"),
                    ))
                }
            },
        };
        let tail = match (length, self.children[k].as_slice()) {
            (Some(l), _) => heads[k] + l * x_axes[k],
            (None, &[c]) if (heads[c] - heads[k]).norm() > 1e-9 * leaf_length => heads[c],
            _ => heads[k] + leaf_length * x_axes[k],
        };
        let mut bone = Bone::new(name.to_string(), heads[k], tail);
        bone.parent = self.parents[k];
        if let Some(e) = extras {
            bone.part = e.get("part").and_then(Value::as_str).map(str::to_string);
            bone.influences = e.get("influences").and_then(|i| {
                i.as_array().map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
            });
        }
        Ok(bone)
    }
}

/// For every node, the joint (index in the skin, from `joint_of_node`) nearest above it: its
/// parent when that is a joint, else the parent's. The node graph must be a forest: a node
/// listed as a child twice, or a cycle of children, is an error. Linear in the node count,
/// without recursion.
pub(super) fn joints_above(
    nodes: &[NodeJson],
    joint_of_node: &[Option<usize>],
) -> Result<Vec<Option<usize>>> {
    let mut parent_of = vec![None; nodes.len()];
    for (p, node) in nodes.iter().enumerate() {
        for (i, &c) in node.children.iter().enumerate() {
            if c >= nodes.len() {
                return Err(Error::field(
                    format!("nodes[{p}].children[{i}]"),
                    format!(
                        "node {c} does not exist (the file has {} nodes)",
                        nodes.len()
                    ),
                ));
            }
            if let Some(first) = parent_of[c].replace(p) {
                return Err(Error::field(
                    format!("nodes[{c}]"),
                    format!("is a child of both nodes {first} and {p}"),
                ));
            }
        }
    }
    // Walk down from the roots, parents before children.
    let mut order: Vec<usize> = (0..nodes.len())
        .filter(|&i| parent_of[i].is_none())
        .collect();
    let mut joint_above = vec![None; nodes.len()];
    let mut next = 0;
    while let Some(&p) = order.get(next) {
        next += 1;
        for &c in &nodes[p].children {
            joint_above[c] = joint_of_node[p].or(joint_above[p]);
            order.push(c);
        }
    }
    if order.len() < nodes.len() {
        // A node no root reaches: with one parent each, going up from it ends in a cycle,
        // which `nodes.len()` steps up is certainly inside of.
        let mut reached = vec![false; nodes.len()];
        order.iter().for_each(|&i| reached[i] = true);
        let mut at = reached.iter().position(|r| !r).unwrap_or(0);
        for _ in 0..nodes.len() {
            at = parent_of[at].unwrap_or(at);
        }
        return Err(Error::field(
            format!("nodes[{at}]"),
            "is its own ancestor (its children lead back to it)",
        ));
    }
    Ok(joint_above)
}

/// Bone names: the joint node's name, or `joint<k>` when it has none; repeated names get the
/// joint index appended so that every bone is addressable.
pub(super) fn joint_names(doc: &Doc, joints: &[usize]) -> Vec<String> {
    let raw: Vec<String> = joints
        .iter()
        .enumerate()
        .map(|(k, &node)| {
            doc.nodes[node]
                .name
                .clone()
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| format!("joint{k}"))
        })
        .collect();
    let mut uses: BTreeMap<&str, usize> = BTreeMap::new();
    for n in &raw {
        *uses.entry(n).or_default() += 1;
    }
    raw.iter()
        .enumerate()
        .map(|(k, n)| {
            if uses[n.as_str()] > 1 {
                format!("{n}#{k}")
            } else {
                n.clone()
            }
        })
        .collect()
}
