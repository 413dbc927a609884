//! Cotangent Laplacian and lumped mass matrix (assembled with faer sparse).
//! Filled in by the solvers work (issue 3).
