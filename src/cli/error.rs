//! The errors of the command line alone: arguments that contradict each other, outputs that
//! collide with inputs, scenes named on the command line, the view's server. Everything else
//! is a library error ([`skinweights::Error`]), nested as [`CliError::Lib`].

use std::path::PathBuf;

/// Result alias of the command line's functions.
pub type Result<T, E = CliError> = std::result::Result<T, E>;

/// An error of the `skinweights` command: a library error, or one only the command line
/// makes.
#[allow(missing_docs)] // variant fields are named for what they hold; the variant docs explain them
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CliError {
    /// An error of the library.
    #[error(transparent)]
    Lib(#[from] skinweights::Error),
    /// A scene (or other input) path names a folder, and no built-in scene has that name.
    #[error("{path} is a folder, not a scene file (built-in scenes: {known})")]
    InputIsDirectory { path: PathBuf, known: String },
    /// An output of a command is also one of its inputs (same file, or a hard link to it).
    #[error("{path} is also an input of this command; write to another path")]
    OutputIsInput { path: PathBuf },
    /// Two outputs of one command go to the same file.
    #[error("two outputs of this command go to {path}")]
    DuplicateOutput { path: PathBuf },
    /// Command-line arguments that contradict each other or would be ignored.
    #[error("{argument}: {reason}")]
    ConflictingArguments {
        argument: &'static str,
        reason: String,
    },
    /// `import --weights` on a file that carries no skin weights.
    #[error("--weights: {} has no JOINTS_0 / WEIGHTS_0", .path.display())]
    NoFileWeights { path: PathBuf },
    /// The view's server cannot listen on `127.0.0.1:port` (`reason` is the system's error).
    #[error("--port: cannot listen on 127.0.0.1:{port}: {reason}")]
    Listen { port: u16, reason: String },
    /// A request to the view's server has a body longer than `max` bytes.
    #[error("request: body longer than {max} bytes")]
    RequestTooLarge { max: usize },
    /// A scene has more vertices than the view draws (`max`).
    #[error("scene: {scene} has {vertices} vertices; the view draws at most {max} (use `skinweights compare` or `render` for larger meshes)")]
    ViewTooLarge {
        scene: String,
        vertices: usize,
        max: usize,
    },
    /// A scene argument that names neither a file, nor (for the view) the server's scene,
    /// nor a built-in scene; `known` lists the built-ins, `server` is the view's own scene.
    #[error("scene: {name:?} is neither {} nor a built-in scene ({known})", .server.as_ref().map_or("a file".to_string(), |s| format!("this server's scene ({s:?})")))]
    UnknownScene {
        name: String,
        known: String,
        server: Option<String>,
    },
    /// An input file is of another kind than the command reads; `command` reads it.
    #[error("{}: this is {looks_like}, not {expected}{}", .path.display(), .command.as_ref().map_or(String::new(), |c| format!(": `{c}` reads it")))]
    WrongFile {
        path: PathBuf,
        looks_like: &'static str,
        expected: &'static str,
        command: Option<String>,
    },
    /// An input JSON file ends (after `bytes` bytes) before its last value closes.
    #[error("{}: the file looks truncated: its JSON stops after {bytes} bytes before it closes; copy or export it again", .path.display())]
    Truncated { path: PathBuf, bytes: u64 },
    /// Every clip of a scene was asked for (`--clip all`) and it has none.
    #[error("--clip: scene {scene:?} has no clips")]
    NoClips { scene: String },
}

/// `?` and `.into()` on a domain error of the library give a [`CliError::Lib`].
macro_rules! from_domain {
    ($($domain:ident),* $(,)?) => {
        $(
            impl From<skinweights::$domain> for CliError {
                fn from(e: skinweights::$domain) -> Self {
                    CliError::Lib(e.into())
                }
            }
        )*
    };
}

from_domain!(
    ArgumentError,
    ArtError,
    BatchError,
    ClipError,
    CorrectiveError,
    FormatError,
    MeshError,
    OutputError,
    SceneError,
    SeamError,
    SkeletonError,
    SolverError,
    WeightsError,
);
