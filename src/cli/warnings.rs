//! Long lists of warnings, summarised by kind: the first few of each kind, then how many more, with
//! the full list behind `--verbose` (issue 47); and times printed with sensible precision.

use skinweights::solvers::SolveWarning;

/// Warnings of one kind printed before the rest is summarised.
pub const SHOWN_PER_KIND: usize = 3;

/// The lines to print for `warnings`: all of them when `verbose`; otherwise, per kind
/// ([`SolveWarning::kind`], a mesh's apart from the whole solve's, in order of first
/// appearance), the first [`SHOWN_PER_KIND`] and one line saying how many more there are.
pub fn summary(warnings: &[SolveWarning], verbose: bool) -> Vec<String> {
    if verbose {
        return warnings.iter().map(|w| w.to_string()).collect();
    }
    // A mesh's warnings are listed apart from the whole solve's of the same kind.
    let mut kinds: Vec<((&str, bool), Vec<&SolveWarning>)> = Vec::new();
    for w in warnings {
        let k = (w.kind(), matches!(w, SolveWarning::InMesh { .. }));
        match kinds.iter_mut().find(|(kk, _)| *kk == k) {
            Some((_, list)) => list.push(w),
            None => kinds.push((k, vec![w])),
        }
    }
    let mut lines = Vec::new();
    for (_, list) in kinds {
        lines.extend(list.iter().take(SHOWN_PER_KIND).map(|w| w.to_string()));
        if list.len() > SHOWN_PER_KIND {
            lines.push(format!(
                "... and {} more of this kind; --verbose for all",
                list.len() - SHOWN_PER_KIND
            ));
        }
    }
    lines
}

/// Prints [`summary`] of `warnings` on standard error, each line as `warning: {prefix}...`.
pub fn print_warnings(prefix: &str, warnings: &[SolveWarning], verbose: bool) {
    for line in summary(warnings, verbose) {
        eprintln!("warning: {prefix}{line}");
    }
}

/// A time or duration in seconds as people read it: three decimals with trailing zeros
/// dropped (`2.333`, `0.5`, `2`), and two significant digits below a millisecond.
pub fn seconds(t: f64) -> String {
    if t != 0.0 && t.abs() < 1e-3 {
        return format!("{t:.1e}");
    }
    let s = format!("{t:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_warnings_of_one_kind_are_summarised() {
        let mut w: Vec<SolveWarning> = (0..10)
            .map(|i| SolveWarning::HandlesNearBone {
                bone: format!("b{i}"),
                handles: i,
                step: 1.0,
                closest: i as f64 + 0.5,
            })
            .collect();
        w.insert(
            2,
            SolveWarning::BoneWithoutHandle { bone: "x".into() }.in_mesh("torso"),
        );
        let lines = summary(&w, false);
        assert_eq!(lines.len(), 5, "{lines:?}");
        assert_eq!(lines[3], "... and 7 more of this kind; --verbose for all");
        assert_eq!(lines[4], w[2].to_string());
        let all: Vec<String> = w.iter().map(|w| w.to_string()).collect();
        assert_eq!(summary(&w, true), all);
    }

    #[test]
    fn seconds_read_as_people_write_them() {
        assert_eq!(seconds(7.0 / 3.0), "2.333");
        assert_eq!(seconds(0.5), "0.5");
        assert_eq!(seconds(2.0), "2");
        assert_eq!(seconds(0.0), "0");
        assert_eq!(seconds(0.00042), "4.2e-4");
    }
}
