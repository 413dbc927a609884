//! Stable names and keys: FNV-1a hashes (no dependency, the same on every platform and run),
//! output names derived from an input's path, and the resume key of an (item, solver).

use std::path::{Component, Path, PathBuf};

/// 64-bit FNV-1a, fed field by field (each field length-prefixed, so `("ab", "c")` and
/// `("a", "bc")` differ).
#[derive(Debug, Clone)]
pub struct Fnv64(u64);

impl Default for Fnv64 {
    fn default() -> Self {
        Fnv64(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv64 {
    /// Feeds raw bytes.
    pub fn bytes(&mut self, bytes: &[u8]) -> &mut Self {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
        self
    }

    /// Feeds one field: its length, then its bytes.
    pub fn field(&mut self, bytes: impl AsRef<[u8]>) -> &mut Self {
        let bytes = bytes.as_ref();
        self.bytes(&(bytes.len() as u64).to_le_bytes()).bytes(bytes)
    }

    /// The hash as 16 lower-case hex digits.
    pub fn hex(&self) -> String {
        format!("{:016x}", self.0)
    }
}

/// `path` made absolute (against the current folder) with `.` and `..` resolved lexically:
/// the same file named two ways gets one name.
pub fn normalized(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for c in absolute.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// Characters kept in a file name part; others become `_`.
fn sanitized(s: &str, max: usize) -> String {
    let mut out: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '+' | '.') {
                c
            } else {
                '_'
            }
        })
        .take(max)
        .collect();
    if out.is_empty() || out.starts_with('.') {
        out.insert(0, '_');
    }
    out
}

/// The output name stem of an input: its sanitized file stem and 8 hex digits of the hash of
/// its [`normalized`] path, e.g. `owl-pro-1f0c33a9`. Deterministic, and two inputs at
/// different paths get different names (up to a 32-bit hash collision).
pub fn item_id(path: &Path) -> String {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let hash = Fnv64::default()
        .field(normalized(path).as_os_str().as_encoded_bytes())
        .hex();
    format!("{}-{}", sanitized(&stem, 60), &hash[..8])
}

/// A solver spec as a file name part (`heat+mask` stays, other characters become `_`).
pub fn solver_tag(spec: &str) -> String {
    sanitized(spec, 80)
}
