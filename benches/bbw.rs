//! Bounded biharmonic weights end to end (criterion; 10 samples: the machine has 2 cores).
//!
//! Measured figures (release build, this 2-core machine shared with other builds). The
//! machine's load changes the figures threefold, so both are given: single runs on a
//! lightly loaded machine (load average about 2) and, under a load average of 9.7, this
//! bench (`cargo bench -p skinweights-benches --bench bbw`, 10000-vertex case: mean 1.19 s) and
//! `cargo run --release --features internals --bin solver_timing -- arms-down N bbw`.
//!
//! | arms-down vertices | bbw, load ~2 | bbw, load 9.7 | iterations per bone | heat, load ~2 | libigl bbw | target |
//! |--------------------|--------------|---------------|---------------------|---------------|------------|--------|
//! | 9 817              | 0.37 s       | 1.19-1.25 s   | 6-7                 | 19 ms         | -          | -      |
//! | 49 751             | 10.1 s       | 28.4 s (peak 270 MB) | 11-18        | 0.10 s        | 5 s        | 0.5 s  |
//! | 500k               | not run (minutes, from the per-iteration cost) | | | 1.1 s | > 240 s | 10 s |
//!
//! **The targets are missed.** Where the time goes at 49 751 vertices: assembly 0.05 s, the
//! shared factorization of `Q_FF = (L M^-1 L)_FF` (AMD; its stencil is the two-ring, so the
//! factor is about 4x heat's) 0.19 s including the unconstrained solve of every bone, then
//! each active-set iteration refactorizes `Q` with the active rows fixed (numeric only, the
//! symbolic analysis is reused: 0.12 s) per bone. The number of iterations grows with the
//! resolution (the active region's border advances about one ring of vertices per
//! iteration), so the cost is about `iterations x bones x numeric factorization / 2 cores`.
//!
//! **Bulk release** (option `release_rings`, default 1; issue 13): a vertex the active set
//! releases also releases the vertices fixed at the same bound one step of `Q`'s stencil
//! around it (each vertex at most once). `cargo run --release -p skinweights-benches --example bbw_compare` (old =
//! `release_rings=0` and new in one process, load average 3.8-4.0, arms-down):
//!
//! | vertices | rings=0 | rings=1 (default) | rings=2 | passes per bone, 0 -> 1 | lift_l drag 0 / 1 | max weight difference |
//! |----------|---------|-------------------|---------|-------------------------|-------------------|-----------------------|
//! | 9 817    | 0.515 s | 0.246 s (2.09x)   | 0.367 s (1.40x) | 6-7 -> 2-4      | 0.365% / 0.365%   | 4.2e-3 |
//! | 49 751   | 10.7 s  | 3.73 s (2.87x)    | 3.78 s (2.83x)  | 11-18 -> 5-6    | 0.345% / 0.343%   | 3.5e-3 |
//!
//! With the default, `cargo run --release --features internals --bin solver_timing --
//! arms-down 100000 bbw` (99 739 vertices, load average 5.5): 11.2 s, peak 530 MB; 500k was
//! not run (minutes at this rate).
//!
//! **Subdomains** (option `subdomain`, issue 13 item 1). A bone whose weight is off its
//! bounds on at most half of the free set is solved on that part plus two stencil steps,
//! with its own symbolic analysis; the multipliers outside grow it when needed and the
//! stopping test covers the whole mesh (test `bbw_subdomains_give_the_whole_mesh_optimum`:
//! same weights within 2e-3 as the whole free set, with and without `parts`).
//! `cargo run --release -p skinweights-benches --example bbw_compare -- [figure] N parts=true,subdomain=0
//! parts=true` (old = `subdomain=0` and new in one process; uptime's load average given):
//!
//! | scene, vertices | load | bbw old / new | bbw parts=true old / new | parts speed-up |
//! |-----------------|------|---------------|--------------------------|----------------|
//! | arms-down 9 817 | 4.7-5.9 | 0.345 s / 0.288 s | 0.277 s / 0.093 s | 3.0x |
//! | arms-down 49 751 | 3.1-4.0 | 5.10 s / 5.07 s | 5.56 s / 1.98 s | 2.8x |
//! | figure 10 080 | 4.7 | 1.97 s / 2.26 s | 4.14 s / 0.88 s | 4.7x |
//!
//! For plain BBW they change nothing: each bone's weight is strictly inside `(0, 1)` on
//! 55-97% of arms-down (free vertices per bone at 10k after the first pass: 5 212, 7 786,
//! 9 131 of 9 556) and 70-97% of `figure` (13 bones), so the region is most of the mesh,
//! and a region's own symbolic analysis (faer, in the free set's AMD order restricted to
//! it) costs about 2.4 numeric factorizations (10k: 0.024-0.035 s for the first pass of a
//! region vs 0.007-0.014 s for the next ones). Forcing them (`subdomain=1`) was slower:
//! 10k 0.447 s vs 0.225 s (load 2.4), 50k 8.50 s vs 7.05 s (load 7.7). With `parts=true`
//! most of the mesh is locked to 0 for every bone, and the regions are small.
//!
//! **The targets stayed missed for plain BBW** (last round, before the local passes). Figures with the default (old and new are the
//! same path there; the load-1 figures were taken at the start of the round with the code
//! before the subdomains, the others with it), `solver_timing -- arms-down N bbw`:
//!
//! | arms-down vertices | bbw | load | peak memory | libigl bbw | target |
//! |--------------------|-----|------|-------------|------------|--------|
//! | 9 817   | 0.138 s (new code: 0.245 s, 55 MB) | 0.9 (5.3) | 43 MB | - | - |
//! | 49 751  | 2.98 s (new code: 3.64 s, 256 MB) | 1.1 (5.2) | 245 MB | 5 s | 0.5 s |
//! | 99 739  | 12.3 s  | 5.8-6.1 | 854 MB | - | - |
//! | 496 293 | 267 s wall, 249 s CPU (207 user + 42 sys; load 1-4); an earlier run: 1 075 s wall, 278 s CPU (the process got 25% of a core pair) | 1-4; 6.6-8.8 | 3.16 GB | > 240 s | 10 s |
//!
//! The cost is passes x bones x one numeric factorization of the whole free set (5 bones,
//! 4-7 passes at 10k, 5-6 at 50k, more at 500k: the border of the zero set recedes about
//! two stencil steps a pass, since a multiplier is 0 wherever its whole stencil sits at one
//! bound). Reaching the targets needs the passes down to 1-2 per bone (a coarse-to-fine
//! prediction of the active set, which needs a coarser mesh of the same shape: not built
//! here) or a cheaper solve per pass.
//!
//! **Local passes** (option `local_reach`, default 0.1; this round). A trace of the passes
//! at 496 293 vertices showed each bone taking 14-20 whole passes (3.2 s of numeric
//! factorization each), the later ones releasing 2-50 vertices: the border of the zero set
//! creeps. Between whole passes the active set is now iterated on the rows within
//! `0.1 x sqrt(free vertices)` stencil steps of the vertices that changed (22 steps at 50k,
//! 70 at 500k), the rest held at its current values, with its own small factorization (in
//! the whole set's AMD order restricted: no AMD per pass); the next whole pass solves with
//! that active set and its stopping test covers every vertex, so the optimum is the same
//! (test `bbw_local_passes_give_the_whole_pass_optimum`: within 2e-3 of `local_reach=0`
//! at 3k and 10k, with and without parts, reaches 0.03 / 0.1 / 1). Whole passes per bone at
//! 500k: 14-20 -> 1-2 (8 for the 5 bones; 85 local passes of 0.05-0.19 s). Local passes
//! also run before the first whole pass when at most a tenth of the free vertices start
//! out of bounds (a larger change moves the far field, which they hold fixed: tried, the
//! next whole pass then changed 3 000-30 000 vertices). Reach measured (one process each,
//! load 1-2): 50k 0.03 / 0.07 / 0.1 / 0.14 -> 1.15 / 0.88 / 0.70 / 0.77 s; 500k
//! 0.05 / 0.07 / 0.1 / 0.2 -> 15.1 / 18.2 / 17.6 / 24.9 s. Also: whole-set factors reuse
//! one storage pool (at 500k a fresh 0.7 GB factor per pass cost 1-2 s of page faults; a
//! whole pass went from 3.7-5.6 s to 1.7-1.8 s), faer zero-fills the factor itself (no
//! second fill), `subdomain` default 0.5 -> 0.7 (50k 0.72-0.79 s -> 0.67 s). Tried and
//! dropped: smaller regions for a phase's later local passes (50k same, 500k 11-21 whole
//! passes instead of 8), bulk release of 0 / 2 / 3 rings inside local passes (0: 49 s at
//! 500k; 2: 23.3 s CPU vs 25.5 s, within noise), faer's parallel numeric factorization
//! (`Par::rayon(2)` at 500k: 2.36 s vs 1.65 s sequential, and 40 more crates).
//!
//! | arms-down vertices | before this round (5c659d6) | `local_reach=0, subdomain=0.5` | new default | libigl bbw | target |
//! |--------------------|-----------------------------|-------------------------------|-------------|------------|--------|
//! | 9 817   | 0.120 s | 0.151 s | 0.083 s | - | - |
//! | 49 751  | 1.74 s  | 1.56 s  | 0.653 s (criterion: 690 ms) | 5 s | 0.5 s |
//! | 99 739  | -       | 4.99 s  | 1.58 s  | - | - |
//! | 496 293 | 267 s (earlier round) | - | 15.5 s wall, 25.2 s user + 2.3 s sys, peak 2.32 GB (was 3.16 GB) | > 240 s | 10 s |
//!
//! (`solver_timing -- arms-down N bbw:local_reach=0:subdomain=0.5,bbw`, one process, load
//! average 0.8-1.8 with one other developer building; `figure` 10k: 0.759 s -> 0.315 s.)
//! Criterion this round (`cargo bench -p skinweights-benches --bench bbw`, load 1.3-1.8): 10k 77.6 ms, 10k parts
//! 51.7 ms, 50k 690 ms. Both targets are still missed: 1.3x at 50k and 1.55x at 500k. What
//! is left at 500k: the shared factorization of the unconstrained system (AMD + numeric,
//! 2.8 s, sequential), 8 whole passes of 1.7 s, and 9.4 s of local passes (CPU).
//!
//! **Round 5 (profiled; nothing kept).** A `perf` profile at 496 293 vertices (29 s of CPU
//! for one solve) put about 40% in faer's dense kernels and the rest in overheads: faer's
//! symbolic analysis of each local pass 11%, first-touch page faults 12%, faer's zero fill
//! 4% (outside faults), its permutation of the matrix into factor order 4.6%, `dilate` 2.6%.
//! A pass-by-pass trace (one process, idle machine): the shared unconstrained factorization
//! and assembly 3.2 s on one core; then per bone, the two arm bones take whole 1.0 s +
//! local 3.4 s (16 passes, each releasing 186 -> 0 vertices, about 128k rows in reach) +
//! whole 1.0 s, the three others 1.4-1.7 s of local passes and one or two whole passes of
//! 1.6-2.9 s. At 49 751 vertices the five bones cost about the same (0.14-0.15 s each),
//! so two threads run three bones on one core and two on the other: 0.44 s against an even
//! split's 0.36 s. Tried, all measured in one process against the default, none kept:
//! - reusing every factor's memory (values and faer's work space, region factors and local
//!   passes through pools, the fixed-row matrix in place): the whole passes' CPU went from
//!   13.9 s to 11.9 s at 500k, but wall time 17.7-18.8 s -> 18.9-19.5 s and peak memory
//!   2.39 -> 2.95 GB; 50k 0.73-0.76 s -> 0.74-0.80 s;
//! - faer's supernode amalgamation (`relax`) looser than CHOLMOD's defaults (8/32/96 up to
//!   32/128/256 columns): the factor grows 5.4 M -> 6.0-8.0 M values at 50k and each
//!   numeric factorization gets slower (0.063 s -> 0.065-0.076 s);
//! - faer's parallel numeric factorization (`Par::rayon(2)`, for the shared factorization
//!   that runs alone): 50k 0.065 s -> 0.164 s, 500k 1.61 s -> 2.15 s (into reused memory);
//! - local passes at a third or 0.4 of the reach, with one full-reach pass to confirm
//!   (50k 0.65-0.69 s as before, 500k 16.6-17.8 s);
//! - `local_reach` 0.03 / 0.05 / 0.07 at 500k: 23.7 / 14.9 / 14.3 s (default 0.1: 15.7-17.3 s
//!   in the same hour; 0.07 is 0.88 s at 50k against 0.70 s, so the default stays);
//! - `release_rings` 2 / 3 at 500k: 19.0 / 16.3 s; inside local passes only, doubling the
//!   rings (up to 4, 8 or 16) after a pass that fixed nothing: 50k 0.72-0.75 s -> 0.75-0.81 s,
//!   500k 17.6 s -> 20.2 s (up to 8).
//!
//! Reaching 0.5 s at 50k would need the five bones' per-bone work cut by half (even a
//! perfect split of today's work gives about 0.55 s), and 10 s at 500k needs fewer creeping
//! local passes or a cheaper factorization than faer's sequential supernodal one.
//!
//! Also tried this round: nested dissection (`ordering::nested_dissection`, restricted to
//! the free set) instead of AMD for `Q`: its one-ring separators do not separate `Q`'s
//! two-ring stencil, and the factor had 22.0 M values instead of 5.4 M at 50k (shared
//! factorization 1.0-2.8 s vs 0.31-0.51 s at load 8, whole solve 49-81 s vs 6.8-8.2 s).
//! With two-ring separators (the upper half's two layers nearest the lower half; a scratch
//! build, not kept) the first factorization is on par (50k: 0.158 s vs AMD's 0.189 s) but
//! the passes are slower: whole solve 3.37 s vs 2.84 s at 50k, 30.6 s vs 17.6 s at 150k
//! (one after the other, load average 3-4).
//!
//! Tried and dropped: conjugate gradients on each pass's system preconditioned with the
//! previous pass's factorization (it differs by the few released vertices), warm-started
//! from the previous iterate, refactorizing after 40 iterations: slower (10k 1.51 s vs
//! 0.53 s, 50k 50.1 s vs 11.9 s in one process), since 40 triangular solves cost more than
//! one supernodal numeric refactorization and CG seldom reached the 1e-12 residual in time.
//!
//! Starting the active set wider (values of the unconstrained solution below a margin fixed
//! at 0, above 1 - margin at 1, so that passes release instead of grow): slower in one
//! process at load average 9 (10k: 1.44 s -> 2.15 s / 1.97 s for margins 0.01 / 0.05; 50k:
//! 12.8 s -> 14.9 s / 32.2 s); the bulk release already recedes the border several rings a
//! pass, and a wider start only adds releases.
//!
//! ADMM with one prefactored `Q + rho M` shared by all bones was tried first: 2 ms per
//! iteration at 10k vertices but it needed more than 2000 iterations to reach 1e-3 (3.9 s),
//! and a large `rho` stops early far from the optimum (drag 143%).
//!
//! **Round 6: an interior point** (Clarabel 0.11 with its default sparse LDL', the issue's
//! third route; `cargo run --release -p skinweights-benches --example bbw_qp_methods -- N`,
//! one bone at a time, load average 1.4-1.5 with a second job on the other core at 148k):
//!
//! | arms-down vertices | interior point, per bone | iterations | 5 bones | active set, 5 bones |
//! |--------------------|--------------------------|------------|---------|---------------------|
//! | 9 817   | 0.52-0.62 s  | 15-16 | 2.90 s  | 0.092 s |
//! | 49 751  | 11.1-14.7 s  | 14-18 | 65.2 s  | 0.775 s |
//! | 148 421 | 188 s (1 bone) | 17  | -       | 8.2 s   |
//!
//! Each iteration factorizes a quasi-definite KKT system three times the size of `Q` (its
//! faer-based LDL' was 10.6 s against 11.9 s for one bone at 50k, in a scratch build). The
//! objectives agree (50k: -2.092753291e3 both for bone 0; the others within 3.6e-8
//! relative). The unit test `the_active_set_reaches_the_certified_optimum` checks optimality
//! at 3k vertices without a second solver, against a lower bound proved by duality. Also measured this round: faer's AVX-512 kernels (feature
//! `nightly`, which builds on stable 1.95) give the same numeric factorization time at 50k
//! (0.081-0.089 s against 0.082-0.087 s, alternating runs); nested dissection on `Q`'s own
//! two-ring graph gives 6.4 M factor values against AMD's 5.4 M at 50k and 93.7 M against
//! 90.4 M at 496k. Local passes before the first whole pass up to a fifth of the free
//! vertices out of bounds instead of a tenth (`LOCAL_START` 5; it spares the torso bone one
//! whole pass): arms-down 50k 0.822-0.834 s -> 0.765-0.799 s, 150k 2.96-2.99 s -> 2.92-2.96 s,
//! 496k 17.54 s -> 17.59 s, `figure` 10k 0.356-0.369 s -> 0.372-0.392 s, `figure` 50k
//! 2.18-2.23 s -> 2.14-2.19 s (alternating runs): within the noise except arms-down 50k, so
//! not kept.
//!
//! **Round 7: the coarse start (option `coarse`, default 8) meets both targets.** A trace
//! in a scratch build first started every bone from the optimum's own active set (the
//! oracle): 2 passes per bone, 0.10 s for the 5 bones at 50k and 1.9 s at 496k, against
//! 0.77 s and 19.8 s for the whole solve in the same runs. So the creeping border was the
//! cost, and a prediction of the active set a few rings off would remove most of it. The
//! prediction is the QP solved on a copy meshed again with 8 times fewer vertices
//! (`mesh::CoarseMesh`, recursive), interpolated; each bone's first region is its
//! predicted free set with no margin, and the whole free set gets only its symbolic
//! analysis, beside the coarse solve.
//! `cargo run --release --features internals --bin solver_timing -- arms-down N
//! bbw:coarse=0:tolerance=0.001,bbw:coarse=0,bbw` twice in one process (load average
//! 1.5-1.8): the previous default, the unconstrained start at the new default tolerance
//! 1e-4 (see the last item below), and the new default:
//!
//! | arms-down vertices | before | `coarse=0` | default | libigl bbw | target |
//! |--------------------|--------|------------|---------|------------|--------|
//! | 2 956   | 0.023-0.025 s | 0.024 s | 0.013 s | - | - |
//! | 9 817   | 0.069-0.082 s | 0.101-0.105 s | 0.057-0.059 s | - | - |
//! | 49 751  | 0.65-0.70 s | 0.89-0.90 s | 0.31-0.33 s (criterion 324 ms) | 5 s | 0.5 s |
//! | 496 293 | 15.6 s, peak 2.41 GB | 37.2 s | 7.0-7.1 s, peak 1.24 GB (criterion 7.05 s) | > 240 s | 10 s |
//! | 994 561 | - | - | 25.4 s, peak 2.66 GB | - | - |
//!
//! `figure` (19 bones): 10k 0.31-0.32 / 0.40-0.42 / 0.16-0.18 s, 50k 1.91 / 2.65-2.66 /
//! 0.89-0.91 s. The Kenney sprites traced at 60k vertices (11 bones, scene files from
//! `skinweights mesh ... --vertices 60000`): robot 4.04-4.24 / 5.63-5.73 / 3.18-3.22 s,
//! malePerson 4.13-4.24 / 4.77-4.89 / 2.35 s, femaleAdventurer 3.90-3.96 / 5.43-5.44 /
//! 1.91-1.92 s. Criterion (`cargo bench -p skinweights-benches --bench bbw`): 10k 54.6 ms, 10k parts 41.1 ms,
//! 50k 324 ms, 50k parts 277 ms, 500k 7.05 s (7.01-7.09 s).
//!
//! Measured on the way (scratch builds, one process each, `figure` and arms-down at 50k
//! unless said), in the order they were tried:
//! - the copy meshed with spade's refinement from loops resampled at the coarse edge
//!   length: `figure` failed to mesh at every size (its long straight runs kept nearly
//!   collinear vertices, whose slivers spade does not refine away); simplifying the loops
//!   by deviation alone (a tenth of the coarse edge) meshes every built-in at 25k-500k;
//! - the coarse ratio at 496k: 4 / 8 / 16 -> 7.70 / 6.30-6.93 / 6.35 s (8 kept; with a
//!   2-step region margin, before the two changes below);
//! - region margin for the predicted start: 2 / 1 / 0 steps -> 496k 6.13 / 6.11 / 5.28 s,
//!   arms-down 0.37-0.40 / 0.37 / 0.31 s, `figure` 1.15 / 1.10 / 1.03-1.04 s (0 kept: the
//!   torso's first pass at 496k fell from 2.7 s to 0.9 s, its region from 340k rows to
//!   208k); at 10k, without the coarse start, 0 and 2 are within noise, so the unconstrained
//!   start keeps `region_rings`;
//! - the whole free set's AMD analysis overlapped with the coarse solve (`rayon::join`):
//!   496k 5.28 s -> 4.59 s;
//! - local passes before the first whole pass of a predicted start: passes per bone 2 -> 1,
//!   but no faster (`figure` 1.27-1.30 s against 1.24-1.25 s, arms-down 0.45-0.47 s
//!   against 0.40-0.42 s), not kept;
//! - `local_reach` 0.03 / 0.05 / 0.15 with the coarse start: `figure` 1.11 / 1.04 / 1.29 s
//!   against 1.15-1.21 s, arms-down 0.376 / 0.374 / 0.374 s against 0.37-0.41 s (before
//!   the two changes above); measured again after them, with the sprites and at 496k: 0 /
//!   0.03 / 0.04 / 0.05 / 0.07 / 0.1 -> robot 60k 4.67 / 2.92 / 2.68 / 2.32-2.38 / 2.58 /
//!   2.81-2.90 s, `figure` 1.82 / - / 0.88 / 0.84-0.89 / 0.91 / 0.96-1.00 s, arms-down 50k
//!   0.344 / - / - / 0.250 / - / 0.254-0.283 s, 496k - / 4.79 / - / 4.09-4.10 / - / 4.89 s.
//!   So local passes from a coarse start reach half of `local_reach` (0.05 by default); the
//!   unconstrained start keeps the full reach, measured best there in round 4;
//! - the smallest mesh that takes the coarse start (`COARSE_MIN_FREE`), first 20 000 free
//!   vertices: the coarse start measured faster at every size down to 2.5k (arms-down 2.5k
//!   0.018 s -> 0.009 s, 10k 0.067-0.076 s -> 0.045 s, 20k 0.15-0.18 s -> 0.074 s, `figure`
//!   10k 0.30-0.31 s -> 0.13 s; 1.5k within noise), so it is 2 000 now;
//! - the pareto run then showed `figure` 10k's kick probes folding 58-62 triangles with
//!   `bbw` instead of 31: both stops are within the tolerance 1e-3, but `Q`'s flat
//!   directions leave vertices fixed whose release would still move the weights, and the
//!   coarse start leaves different ones. At 1e-4 either start folds 29-30 (1e-5: 29, the
//!   optimum), so the default tolerance is 1e-4 now. Its cost with the coarse start: 10k
//!   0.046 -> 0.051 s, 50k 0.23 -> 0.30-0.33 s, 496k 4.2 -> 6.6-7.1 s, 994k 11.5 -> 25.4 s
//!   (3e-4: 0.26-0.28 s, 4.8 s, 18.2 s and 30-31 folds; 1e-5: 0.49-0.51 s, 11.3 s).

use criterion::{criterion_group, criterion_main, Criterion};
use skinweights::{scene::builtin_scene, scene::BuiltinOptions, solvers::solver_by_name};
use std::time::Duration;

fn bbw(c: &mut Criterion) {
    let mut group = c.benchmark_group("bbw");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    for vertices in [10_000, 50_000, 500_000] {
        let scene = builtin_scene(
            "arms-down",
            &BuiltinOptions::default()
                .with_gap(None)
                .with_vertices(vertices),
        )
        .expect("built-in scene");
        let solver =
            solver_by_name("bbw", skinweights::solvers::NO_OPTIONS).expect("bbw is registered");
        group.bench_function(format!("arms-down {vertices}"), |b| {
            b.iter(|| solver.solve(&scene).expect("bbw solves arms-down"))
        });
        if vertices > 50_000 {
            continue;
        }
        // The subdomains' case: parts lock most of the mesh for every bone.
        let parts = solver_by_name("bbw", [("parts", "true")]).expect("bbw takes parts");
        group.bench_function(format!("arms-down {vertices} parts"), |b| {
            b.iter(|| parts.solve(&scene).expect("bbw parts solves arms-down"))
        });
    }
    group.finish();
}

criterion_group!(benches, bbw);
criterion_main!(benches);
