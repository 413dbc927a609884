//! Seam repairs, in the seeds' order; each returns what it changed.
