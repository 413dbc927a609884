//! Finding the seams of a layered scene and measuring their opening in a pose.
