#!/usr/bin/env bash
# Prints every error enum of the crate (src/error.rs) and of the command line
# (src/cli/error.rs) with its number of variants, and fails (exit 1) when one has more than
# MAX (default 25): issue #48, "errors by domain".
#
#   scripts/error_variants.sh [MAX]
set -euo pipefail

MAX="${1:-25}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
# A variant is a line indented by 4 spaces that starts with a capitalised name inside
# `pub enum NameError {` ... `}`.
awk -v max="$MAX" '
    /^pub enum [A-Za-z]*Error \{/ { name = $3; n = 0; inside = 1; next }
    inside && /^\}/ {
        flag = (n > max) ? "  <- more than " max : ""
        printf "%-18s %3d%s\n", name, n, flag
        if (n > max) over = 1
        inside = 0
        next
    }
    inside && /^    [A-Z][A-Za-z0-9]*( \{|\(|,|$)/ { n++ }
    END { exit over }
' "$ROOT/src/error.rs" "$ROOT/src/cli/error.rs"
