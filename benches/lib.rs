//! The criterion benches of skinweights are this package's `[[bench]]` targets (see
//! `Cargo.toml`); the library is empty and exists because a package needs one target.
