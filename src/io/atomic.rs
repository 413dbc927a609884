//! Writing an output whole or not at all, without ever replacing what is not a regular file.
//!
//! A regular file is written through a temporary file in its folder and a rename, so a
//! failure (a full disk, an error while encoding, an interrupted process) never leaves a
//! half-written file nor truncates the one that was there. Everything else is written
//! *through*, because a rename would replace it: a device node (`/dev/null`, `/dev/full`, a
//! terminal), a FIFO (its reader gets the bytes) and `-` (standard output). A symlink is
//! followed: its target is replaced atomically in the target's own folder and the link
//! stays. A full disk and a refused permission come back as [`Error::NoSpace`] and
//! [`Error::PermissionDenied`] (through [`Error::io`]).

use crate::error::{Error, OutputError, Result};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Symlinks followed before giving up (the kernel's own limit is 40).
const MAX_SYMLINK_HOPS: usize = 40;

/// What an output path names now, as far as writing to it is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum OutputKind {
    /// `-`: standard output.
    Stdout,
    /// Nothing there yet (or a symlink whose target does not exist yet): created.
    Missing,
    /// A regular file (possibly through symlinks): replaced atomically.
    Regular,
    /// A folder: refused.
    Directory,
    /// A character device or a FIFO: written through, nothing replaced.
    Stream,
    /// A block device (a disk): written through, but it holds data, so callers ask first.
    Block,
}

impl OutputKind {
    /// Whether writing there replaces data the user may want (a command asks for `--force`).
    pub fn holds_data(self) -> bool {
        matches!(self, OutputKind::Regular | OutputKind::Block)
    }
}

/// Whether `path` is `-`, standard output.
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// `path` with every symlink at its end followed (the path itself when it is no symlink; a
/// dangling link gives the path its target would have). Relative targets are resolved from
/// the link's folder.
pub fn resolve_output(path: &Path) -> Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_SYMLINK_HOPS {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = std::fs::read_link(&p).map_err(|e| Error::io(&p, e))?;
                p = if target.is_absolute() {
                    target
                } else {
                    p.parent().unwrap_or(Path::new("")).join(target)
                };
            }
            _ => return Ok(p),
        }
    }
    Err(OutputError::SymlinkLoop {
        path: path.to_path_buf(),
        hops: MAX_SYMLINK_HOPS,
    }
    .into())
}

/// What `path` names (after following symlinks).
pub fn output_kind(path: &Path) -> Result<OutputKind> {
    if is_stdout(path) {
        return Ok(OutputKind::Stdout);
    }
    let target = resolve_output(path)?;
    Ok(match std::fs::metadata(&target) {
        Err(_) => OutputKind::Missing,
        Ok(m) => kind_of(&m),
    })
}

fn kind_of(m: &std::fs::Metadata) -> OutputKind {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if m.file_type().is_block_device() {
            return OutputKind::Block;
        }
    }
    if m.is_dir() {
        OutputKind::Directory
    } else if m.is_file() {
        OutputKind::Regular
    } else {
        OutputKind::Stream
    }
}

/// Writes `bytes` to `path`: standard output for `-`, through to a device or FIFO, else
/// atomically (a temporary file in the target's folder renamed over it; a symlink's target
/// is the file replaced). See the module docs.
pub fn write_atomic(path: impl AsRef<Path>, bytes: impl AsRef<[u8]>) -> Result<()> {
    let path = path.as_ref();
    let bytes = bytes.as_ref();
    if is_stdout(path) {
        let mut out = std::io::stdout().lock();
        return out
            .write_all(bytes)
            .and_then(|()| out.flush())
            .map_err(|e| Error::io("standard output", e));
    }
    let target = resolve_output(path)?;
    let meta = std::fs::metadata(&target).ok();
    match meta.as_ref().map(kind_of) {
        Some(OutputKind::Directory) => Err(OutputError::OutputIsDirectory {
            path: path.to_path_buf(),
        }
        .into()),
        Some(OutputKind::Stream | OutputKind::Block) => write_through(&target, bytes),
        _ => replace(path, &target, bytes, meta.as_ref()),
    }
}

/// Writes into an existing device or FIFO without creating, truncating or renaming anything.
fn write_through(target: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .open(target)
        .map_err(|e| Error::io(target, e))?;
    f.write_all(bytes)
        .and_then(|()| f.flush())
        .map_err(|e| Error::io(target, e))
}

/// Replaces (or creates) the regular file `target` through a temporary file beside it.
fn replace(
    path: &Path,
    target: &Path,
    bytes: &[u8],
    existing: Option<&std::fs::Metadata>,
) -> Result<()> {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = target.file_name().ok_or_else(|| {
        Error::Output(OutputError::OutputNamesNoFile {
            path: path.to_path_buf(),
        })
    })?;
    let tmp = dir.join(format!(
        ".{}.partial-{}-{}",
        name.to_string_lossy(),
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        // create_new: never write through something planted at the temporary name.
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.flush()?;
        drop(f);
        if let Some(m) = existing {
            // The replaced file keeps its permissions.
            std::fs::set_permissions(&tmp, m.permissions())?;
        }
        std::fs::rename(&tmp, target)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::io(path, e));
    }
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::{FileTypeExt, MetadataExt};

    fn temp_dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("sw_atomic_{tag}_{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_regular_file_is_replaced_and_keeps_its_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let d = temp_dir("regular");
        let p = d.join("out.json");
        write_atomic(&p, "one").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&p, "two").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "two");
        assert_eq!(std::fs::metadata(&p).unwrap().mode() & 0o777, 0o640);
        // No temporary file is left behind.
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), 1);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_symlink_stays_and_its_target_in_another_folder_is_written() {
        let d = temp_dir("symlink");
        std::fs::create_dir_all(d.join("real")).unwrap();
        let target = d.join("real/w.json");
        std::fs::write(&target, "old").unwrap();
        let link = d.join("link.json");
        std::os::unix::fs::symlink("real/w.json", &link).unwrap();
        assert_eq!(output_kind(&link).unwrap(), OutputKind::Regular);
        write_atomic(&link, "new").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        // A dangling link creates its target.
        let dangling = d.join("dangling.json");
        std::os::unix::fs::symlink("real/made.json", &dangling).unwrap();
        assert_eq!(output_kind(&dangling).unwrap(), OutputKind::Missing);
        write_atomic(&dangling, "made").unwrap();
        assert_eq!(
            std::fs::read_to_string(d.join("real/made.json")).unwrap(),
            "made"
        );
        // A loop is a typed error.
        std::os::unix::fs::symlink("b", d.join("a")).unwrap();
        std::os::unix::fs::symlink("a", d.join("b")).unwrap();
        assert!(matches!(
            write_atomic(d.join("a"), "x"),
            Err(Error::Output(OutputError::SymlinkLoop { hops: 40, .. }))
        ));
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn dev_full_is_a_typed_no_space_error_and_stays_a_device() {
        let full = Path::new("/dev/full");
        if !full.exists() {
            eprintln!("note: no /dev/full here; skipped");
            return;
        }
        assert_eq!(output_kind(full).unwrap(), OutputKind::Stream);
        match write_atomic(full, "x") {
            Err(Error::NoSpace { path }) => assert_eq!(path, full),
            other => panic!("{other:?}"),
        }
        assert!(std::fs::metadata(full)
            .unwrap()
            .file_type()
            .is_char_device());
    }

    #[test]
    fn a_folder_is_refused() {
        let d = temp_dir("folder");
        assert!(matches!(
            write_atomic(&d, "x"),
            Err(Error::Output(OutputError::OutputIsDirectory { .. }))
        ));
        std::fs::remove_dir_all(&d).unwrap();
    }
}
