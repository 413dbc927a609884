//! `skinweights compare --json | head` closes the pipe early. Rust ignores SIGPIPE, so the
//! next `println!` would panic on the broken pipe; Unix tools die quietly of the signal
//! instead, and so do the CLI and the experiment binaries (they include this file).

/// Restores the default SIGPIPE action (terminate) on Unix; nothing elsewhere.
pub fn die_quietly_on_broken_pipe() {
    #[cfg(unix)]
    // SAFETY: called first thing in `main`, before any other thread exists; setting a signal's
    // disposition to the default has no other precondition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
