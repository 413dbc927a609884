//! Weight solvers: the [`Solver`] trait, the registry by name, and the shared pieces.
