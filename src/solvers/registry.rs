//! The solver registry: the one table of solver names, what each one is, its options with
//! their docs and defaults, and whether `compare` runs it by default.
//!
//! Everything that lists solvers reads this table: [`super::solver_by_name`], `solve --help`
//! and `compare --help`, `compare`'s default rows, the browser view's selector, the Python
//! module's `SOLVER_NAMES` and the experiments. A name not in the table may still be built:
//! `SOLVER+mask` masks any unmasked entry ([`super::Masked`]).

use super::{
    Bbw, BbwOptions, Best, BestOptions, Euclidean, EuclideanOptions, Geodesic, GeodesicOptions,
    Heat, HeatOptions, Linear, LinearOptions, Masked, Solver, SolverOptions,
};
use crate::error::Result;

/// What a registered solver is for, so that drivers can pick a set without naming solvers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Role {
    /// One of the baselines (closed-form falloffs, diffusion and their masked forms):
    /// the set the sweeps in `experiments/` measure.
    Baseline,
    /// The optimum reference: slow, the yardstick the recommended solver is measured against.
    Reference,
    /// The solver this crate recommends ([`super::RECOMMENDED_SOLVER`]).
    Recommended,
}

/// One documented option of a registered solver, with its default read from the options
/// struct's `Default` (`None`: unset, or a generic option with no default).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionHelp {
    /// The key, e.g. `tie_tolerance`.
    pub key: &'static str,
    /// What the value looks like, e.g. `F` or `nd|amd`.
    pub value: &'static str,
    /// One line on what it does.
    pub doc: &'static str,
    /// The default as text.
    pub default: Option<String>,
}

/// Options every solver takes, applied around it by [`super::solver_by_name`]: the key, its
/// value form and its meaning. A solver whose own options have the same key (`best`'s
/// `limit`) takes the value itself instead, so no option is ever applied twice.
pub const GENERIC_OPTIONS: &[(&str, &str, &str)] = &[
    (
        "limit",
        "LOW:HIGH|none",
        "soft weight limit after the solve (weights < LOW -> 0)",
    ),
    (
        "refine",
        "N",
        "solve on a copy refined to ~N vertices, read back",
    ),
];

/// What builds a registered solver from its `key=value` options.
type Build = fn(&[(String, String)]) -> Result<Box<dyn Solver>>;

/// One row of the registry.
#[derive(Clone, Copy)]
pub struct SolverEntry {
    /// The registry name (`heat`, `heat+mask`, ...).
    pub name: &'static str,
    /// One line on what it does.
    pub summary: &'static str,
    /// Whether `skinweights compare` runs it when no `--solvers` are given.
    pub compare: bool,
    /// What it is for.
    pub role: Role,
    /// Whether it is already a masked solver (then `NAME+mask` is not offered).
    pub masked: bool,
    options: fn() -> Vec<OptionHelp>,
    build: Build,
}

impl std::fmt::Debug for SolverEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SolverEntry")
            .field("name", &self.name)
            .field("compare", &self.compare)
            .field("role", &self.role)
            .finish_non_exhaustive()
    }
}

impl SolverEntry {
    /// Its own option keys (without [`GENERIC_OPTIONS`]), documented, with defaults.
    pub fn options(&self) -> Vec<OptionHelp> {
        (self.options)()
    }

    /// Its own options followed by the generic ones it does not take itself.
    pub fn all_options(&self) -> Vec<OptionHelp> {
        let mut own = self.options();
        for &(key, value, doc) in GENERIC_OPTIONS {
            if !own.iter().any(|o| o.key == key) {
                own.push(OptionHelp {
                    key,
                    value,
                    doc,
                    default: None,
                });
            }
        }
        own
    }

    /// Whether its own options include `key`.
    pub fn takes(&self, key: &str) -> bool {
        self.options().iter().any(|o| o.key == key)
    }

    /// The solver with these options (generic options already taken out).
    pub fn build(&self, options: &[(String, String)]) -> Result<Box<dyn Solver>> {
        (self.build)(options)
    }
}

fn docs<O: SolverOptions>() -> Vec<OptionHelp> {
    let defaults = O::default();
    O::OPTIONS
        .iter()
        .map(|o| OptionHelp {
            key: o.key,
            value: o.value,
            doc: o.doc,
            default: defaults.get(o.key),
        })
        .collect()
}

/// The registry, in `compare`'s table order. The solver names are written here and nowhere
/// else in the library.
pub const SOLVERS: &[SolverEntry] = &[
    SolverEntry {
        name: "linear",
        summary: "nearest bone, a linear blend across each joint",
        compare: true,
        role: Role::Baseline,
        masked: false,
        options: docs::<LinearOptions>,
        build: |o| {
            Ok(Box::new(Linear::new(LinearOptions::from_pairs(
                "linear", o,
            )?)))
        },
    },
    SolverEntry {
        name: "euclidean",
        summary: "inverse-distance falloff to every bone segment, straight lines",
        compare: true,
        role: Role::Baseline,
        masked: false,
        options: docs::<EuclideanOptions>,
        build: |o| {
            Ok(Box::new(Euclidean::new(EuclideanOptions::from_pairs(
                "euclidean",
                o,
            )?)))
        },
    },
    SolverEntry {
        name: "geodesic",
        summary: "the same falloff over distances measured inside the mesh",
        compare: true,
        role: Role::Baseline,
        masked: false,
        options: docs::<GeodesicOptions>,
        build: |o| {
            Ok(Box::new(Geodesic::new(GeodesicOptions::from_pairs(
                "geodesic", o,
            )?)))
        },
    },
    SolverEntry {
        name: "heat",
        summary: "bone heat (Blender's automatic weights) with 2D visibility",
        compare: true,
        role: Role::Baseline,
        masked: false,
        options: docs::<HeatOptions>,
        build: |o| Ok(Box::new(Heat::new(HeatOptions::from_pairs("heat", o)?))),
    },
    SolverEntry {
        name: "mask",
        summary: "euclidean with each bone cut to the parts it may influence",
        compare: true,
        role: Role::Baseline,
        masked: true,
        options: docs::<EuclideanOptions>,
        build: |o| {
            Ok(Box::new(Masked::new(Box::new(Euclidean::new(
                EuclideanOptions::from_pairs("euclidean", o)?,
            )))))
        },
    },
    SolverEntry {
        name: "heat+mask",
        summary: "heat with each bone cut to the parts it may influence",
        compare: true,
        role: Role::Baseline,
        masked: true,
        options: docs::<HeatOptions>,
        build: |o| {
            Ok(Box::new(Masked::new(Box::new(Heat::new(
                HeatOptions::from_pairs("heat", o)?,
            )))))
        },
    },
    SolverEntry {
        name: "bbw",
        summary: "bounded biharmonic weights: the optimum reference, slower",
        compare: true,
        role: Role::Reference,
        masked: false,
        options: docs::<BbwOptions>,
        build: |o| Ok(Box::new(Bbw::new(BbwOptions::from_pairs("bbw", o)?))),
    },
    SolverEntry {
        name: "best",
        summary: "the recommended solver: part-aware heat, blended sources, soft limit",
        compare: true,
        role: Role::Recommended,
        masked: false,
        options: docs::<BestOptions>,
        build: |o| Ok(Box::new(Best::new(BestOptions::from_pairs("best", o)?))),
    },
];

const fn names() -> [&'static str; SOLVERS.len()] {
    let mut out = [""; SOLVERS.len()];
    let mut i = 0;
    while i < SOLVERS.len() {
        out[i] = SOLVERS[i].name;
        i += 1;
    }
    out
}

/// The registry's names, in table order (read from [`SOLVERS`]).
pub const SOLVER_NAMES: &[&str] = &names();

/// The registry entry called `name` (exact, after trimming).
pub fn entry(name: &str) -> Option<&'static SolverEntry> {
    SOLVERS.iter().find(|e| e.name == name.trim())
}

const COMPARE_COUNT: usize = {
    let (mut n, mut i) = (0, 0);
    while i < SOLVERS.len() {
        n += SOLVERS[i].compare as usize;
        i += 1;
    }
    n
};

const fn compare_names() -> [&'static str; COMPARE_COUNT] {
    let mut out = [""; COMPARE_COUNT];
    let (mut n, mut i) = (0, 0);
    while i < SOLVERS.len() {
        if SOLVERS[i].compare {
            out[n] = SOLVERS[i].name;
            n += 1;
        }
        i += 1;
    }
    out
}

/// The solvers `compare` runs by default, in table order: the entries marked `compare`
/// (read from [`SOLVERS`]).
pub const COMPARE_DEFAULTS: &[&str] = &compare_names();

/// The solvers of one role, in table order.
pub fn with_role(role: Role) -> Vec<&'static str> {
    SOLVERS
        .iter()
        .filter(|e| e.role == role)
        .map(|e| e.name)
        .collect()
}

/// The names as one line for errors and help: `linear, euclidean, ..., and SOLVER+mask`.
pub fn known_names() -> String {
    format!("{}, and SOLVER+mask", SOLVER_NAMES.join(", "))
}

/// The `--option` keys of every solver with their meaning and defaults, for `--help`.
pub fn options_help() -> String {
    let mut out = String::from("Solver options (--option KEY=VALUE):\n");
    for e in SOLVERS.iter().filter(|e| !e.masked) {
        for (i, o) in e.options().iter().enumerate() {
            let label = if i == 0 { e.name } else { "" };
            let d = o.default.clone().unwrap_or_else(|| "unset".into());
            out.push_str(&format!(
                "  {label:<11}{:<20} {} (default {d})\n",
                format!("{}={}", o.key, o.value),
                o.doc
            ));
        }
    }
    out.push_str("  SOLVER+mask            the base solver's keys; mask = euclidean+mask\n");
    for (key, value, doc) in GENERIC_OPTIONS {
        out.push_str(&format!(
            "  any solver {:<17} {doc}\n",
            format!("{key}={value}")
        ));
    }
    out.push_str("  (best takes limit= as its own soft limit: default 0.02:0.05, none = off)\n");
    out
}

/// The solver list for `--help`: one line per registered solver, its summary, and which
/// ones `compare` runs by default.
pub fn solvers_help() -> String {
    let mut out = String::from("Solvers:\n");
    for e in SOLVERS {
        out.push_str(&format!("  {:<12}{}\n", e.name, e.summary));
    }
    out.push_str("  SOLVER+mask any of them cut to the parts each bone may influence\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solvers::{solver_by_name, NO_OPTIONS};

    #[test]
    fn names_are_unique_and_every_entry_builds_under_its_name() {
        for (i, e) in SOLVERS.iter().enumerate() {
            assert_eq!(SOLVER_NAMES[i], e.name);
            assert!(!SOLVER_NAMES[..i].contains(&e.name), "{} twice", e.name);
            let built = solver_by_name(e.name, NO_OPTIONS).unwrap().name();
            let expected = if e.name == "mask" {
                "euclidean+mask"
            } else {
                e.name
            };
            assert_eq!(built, expected);
        }
        assert_eq!(
            COMPARE_DEFAULTS,
            [
                "linear",
                "euclidean",
                "geodesic",
                "heat",
                "mask",
                "heat+mask",
                "bbw",
                "best"
            ]
        );
        assert_eq!(
            with_role(Role::Recommended),
            [super::super::RECOMMENDED_SOLVER]
        );
        assert_eq!(with_role(Role::Reference), ["bbw"]);
    }

    #[test]
    fn options_come_as_any_pairs_of_strings() {
        let owned = vec![("falloff_power".to_string(), "2".to_string())];
        for s in [
            solver_by_name("euclidean", [("falloff_power", "2")]).unwrap(),
            solver_by_name("euclidean", &owned).unwrap(),
            solver_by_name("euclidean", owned.clone()).unwrap(),
            solver_by_name("euclidean", owned.iter().map(|(k, v)| (k, v))).unwrap(),
        ] {
            assert_eq!(s.name(), "euclidean");
        }
        assert!(matches!(
            solver_by_name("euclidean", [("falloff_power", "-1")]),
            Err(crate::Error::Solver(crate::SolverError::InvalidOption { ref option, .. })) if option == "falloff_power"
        ));
    }

    #[test]
    fn best_takes_limit_as_its_own_soft_limit_so_only_one_applies() {
        let scene = crate::scene::builtin_scene(
            "bar",
            &crate::scene::BuiltinOptions {
                vertices: 500,
                ..Default::default()
            },
        )
        .unwrap();
        let solve = |o: &[(&str, &str)]| {
            let s = solver_by_name("best", o).unwrap();
            (s.name(), s.solve(&scene).unwrap().weights)
        };
        let (name, generic) = solve(&[("limit", "0.1:0.2")]);
        // Not wrapped in a second limit: the name stays, and the weights are best's with
        // its own limit set to 0.1:0.2.
        assert_eq!(name, "best");
        let (_, own) = solve(&[("soft_limit", "0.1:0.2")]);
        assert_eq!(generic.as_slice(), own.as_slice());
        let (_, default) = solve(&[]);
        assert_ne!(generic.as_slice(), default.as_slice());
        // limit=none turns it off, for best and for any other solver.
        let (_, off) = solve(&[("limit", "none")]);
        let (_, off2) = solve(&[("soft_limit", "none")]);
        assert_eq!(off.as_slice(), off2.as_slice());
        assert_eq!(
            solver_by_name("heat", [("limit", "none")]).unwrap().name(),
            "heat"
        );
        assert_eq!(
            solver_by_name("heat", [("limit", "0.1:0.2")])
                .unwrap()
                .name(),
            "heat+limit(0.1:0.2)"
        );
    }

    #[test]
    fn every_generic_option_is_listed_once_per_solver() {
        for e in SOLVERS {
            let keys: Vec<&str> = e.all_options().iter().map(|o| o.key).collect();
            for (k, _, _) in GENERIC_OPTIONS {
                assert_eq!(keys.iter().filter(|x| *x == k).count(), 1, "{} {k}", e.name);
            }
        }
        let best = entry("best").unwrap().all_options();
        let limit = best.iter().find(|o| o.key == "limit").unwrap();
        assert_eq!(limit.default.as_deref(), Some("0.02:0.05"));
    }
}
