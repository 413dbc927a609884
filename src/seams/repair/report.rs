//! The repair reports as text: what `skinweights repair` prints, one line per step and an
//! indented line per item (islands, seams), without a final newline.

use super::{
    IslandReport, OverlapReport, OverlapWeightsReport, RepairReport, SeamWeightsReport,
    SmoothReport, WeldReport,
};
use std::fmt;

impl fmt::Display for IslandReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "tiny components (< {} px^2): {} islands merged, {} already in their neighbour's \
             part, {} kept; {} holes closed ({:.3} px^2)",
            self.area,
            self.merged.len(),
            self.already_same_part,
            self.kept.len(),
            self.holes_closed,
            self.hole_area_closed
        )?;
        for m in &self.merged {
            write!(
                f,
                "\n  island of {} vertices ({:.3} px^2): {} -> {} ({:.3} px away{})",
                m.vertices,
                m.area,
                m.from,
                m.into,
                m.distance,
                m.colour_distance
                    .map(|c| format!(", colour distance {c:.3}"))
                    .unwrap_or_default()
            )?;
        }
        for k in &self.kept {
            write!(f, "\n  kept: {k}")?;
        }
        Ok(())
    }
}

impl fmt::Display for WeldReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "weld (tolerance {} px): {} seams, {} vertices moved (max {:.4} px), {} inserted; \
             silhouette moved {:.4} px",
            self.tolerance,
            self.seams.len(),
            self.vertices_moved,
            self.max_displacement,
            self.vertices_inserted,
            self.silhouette_change
        )?;
        for s in &self.seams {
            write!(
                f,
                "\n  seam {} | {}: {} shared positions",
                s.layers[0], s.layers[1], s.shared_positions
            )?;
        }
        Ok(())
    }
}

impl fmt::Display for OverlapReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "overlap ({} px): {} seams extended, {} vertices and {} triangles added, {:.3} px^2 \
             under the front layers; existing vertices moved: {}; silhouette moved {:.4} px",
            self.px,
            self.seams,
            self.vertices_added,
            self.triangles_added,
            self.area_added,
            self.vertices_moved,
            self.silhouette_change
        )?;
        if self.seams == 0 {
            write!(
                f,
                "\n  no welded seam between a back and a front layer: nothing to extend"
            )?;
        }
        Ok(())
    }
}

impl fmt::Display for RepairReport {
    /// The steps that ran, in order, a line (or more) each.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let steps: [Option<&dyn fmt::Display>; 3] = [
            self.islands.as_ref().map(|r| r as _),
            self.weld.as_ref().map(|r| r as _),
            self.overlap.as_ref().map(|r| r as _),
        ];
        for (i, step) in steps.into_iter().flatten().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{step}")?;
        }
        Ok(())
    }
}

impl fmt::Display for SeamWeightsReport {
    /// What follows `seam-consistent weights (SOLVER): ` in the CLI's line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} seam positions ({} joined), {} overlap vertices interpolated; max weight \
             difference across a seam: layers alone {:.4}, seam-consistent {:.1e} ({:.3} s)",
            self.seam_positions,
            self.joined,
            self.overlap_vertices,
            self.alone_max_difference,
            self.consistent_max_difference,
            self.seconds
        )
    }
}

impl fmt::Display for SmoothReport {
    /// What follows `smoothing (band PX px): ` in the CLI's line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} band vertices, {} rows changed (max {:.4}), {} silhouette vertices unchanged; \
             seam difference {:.1e} -> {:.1e}",
            self.band_vertices,
            self.vertices_changed,
            self.max_change,
            self.silhouette_vertices,
            self.seam_difference[0],
            self.seam_difference[1]
        )
    }
}

impl fmt::Display for OverlapWeightsReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "overlap blend: layers linked by a joint {:?}, {} vertices blended; weight \
             difference in the overlaps {:.4} -> {:.4}",
            self.linked,
            self.vertices_blended,
            self.overlap_difference[0],
            self.overlap_difference[1]
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::WeldedPair;
    use super::*;

    #[test]
    fn a_repair_report_prints_a_line_per_step_and_an_indented_line_per_seam() {
        let report = RepairReport {
            islands: None,
            weld: Some(WeldReport {
                tolerance: 1.0,
                seams: vec![WeldedPair {
                    layers: ["upper".into(), "forearm".into()],
                    shared_positions: 12,
                }],
                vertices_moved: 3,
                vertices_inserted: 2,
                max_displacement: 0.25,
                silhouette_change: 0.125,
            }),
            overlap: Some(OverlapReport {
                px: 2.0,
                seams: 0,
                vertices_added: 0,
                triangles_added: 0,
                area_added: 0.0,
                vertices_moved: 0,
                silhouette_change: 0.0,
            }),
        };
        assert_eq!(
            report.to_string(),
            "weld (tolerance 1 px): 1 seams, 3 vertices moved (max 0.2500 px), 2 inserted; \
             silhouette moved 0.1250 px\n  seam upper | forearm: 12 shared positions\n\
             overlap (2 px): 0 seams extended, 0 vertices and 0 triangles added, 0.000 px^2 \
             under the front layers; existing vertices moved: 0; silhouette moved 0.0000 px\n  \
             no welded seam between a back and a front layer: nothing to extend"
        );
        assert_eq!(RepairReport::default().to_string(), "");
    }
}
