//! The numeric pieces the solvers share, written once: `distance` (point-to-bone distance and
//! the falloff kernel), `visibility` (is a vertex-to-bone segment inside the shape),
//! `dijkstra` (multi-source shortest paths over the mesh), `nearest` (nearest visible bones,
//! blind components), `ordering` (nested dissection for the heat system's Cholesky
//! factorization), `subdomain` and `substructure` (solving a large system by parts).

pub(crate) mod dijkstra;
pub(crate) mod distance;
pub(crate) mod nearest;
pub(crate) mod ordering;
pub(crate) mod subdomain;
pub(crate) mod substructure;
pub(crate) mod visibility;
