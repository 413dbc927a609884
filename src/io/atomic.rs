//! Writing an output file whole or not at all.

use crate::error::{Error, Result};
use std::path::Path;

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename, so
/// that a failure (a full disk, an error while encoding, an interrupted process) never leaves
/// a half-written file at `path` nor truncates a file that was there.
pub fn write_atomic(path: impl AsRef<Path>, bytes: impl AsRef<[u8]>) -> Result<()> {
    let path = path.as_ref();
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| Error::field("output", format!("{} names no file", path.display())))?;
    let tmp = dir.join(format!(
        ".{}.partial-{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::io(path, e));
    }
    Ok(())
}
