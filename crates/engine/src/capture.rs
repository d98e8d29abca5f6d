//! What a run prints: file descriptors 1 (and 2) pointed at temporary files while a host or a turn runs (hosts
//! print straight to them). Process-wide: captures take turns (two engines in one process would otherwise restore
//! each other's descriptors), and anything else the process prints meanwhile lands in the capture. A descriptor
//! is restored however the capture ends: an error, or a panic in what ran.

use std::fs::File;
use std::io::{Read, Seek, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::Mutex;

/// Held for the whole of a capture.
static CAPTURING: Mutex<()> = Mutex::new(());

/// Runs `f` with stdout going to a temporary file; returns what was written there.
pub fn stdout<R>(f: impl FnOnce() -> R) -> std::io::Result<(String, R)> {
    let (mut texts, result) = capture(&[1], f)?;
    Ok((texts.remove(0), result))
}

/// [`stdout`] for stdout and stderr both: (stdout, stderr, result).
pub fn output<R>(f: impl FnOnce() -> R) -> std::io::Result<(String, String, R)> {
    let (mut texts, result) = capture(&[1, 2], f)?;
    let stderr = texts.remove(1);
    Ok((texts.remove(0), stderr, result))
}

/// Runs `f` with each of `fds` going to a temporary file of its own; returns what was written to each, in order.
fn capture<R>(fds: &[i32], f: impl FnOnce() -> R) -> std::io::Result<(Vec<String>, R)> {
    let _one_at_a_time = CAPTURING.lock().unwrap_or_else(|e| e.into_inner());
    flush_std();
    let redirects = fds.iter().map(|&fd| Redirected::new(fd)).collect::<std::io::Result<Vec<_>>>()?;
    let result = f();
    flush_std();
    let mut texts = Vec::with_capacity(redirects.len());
    // Restored in the reverse order of redirection, each to what it was before.
    for redirect in redirects.into_iter().rev() {
        texts.push(redirect.finish()?);
    }
    texts.reverse();
    Ok((texts, result))
}

/// What Rust's own buffers hold goes where the descriptors point now.
fn flush_std() {
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
}

/// Descriptor `fd` pointed at a temporary file until [`Redirected::finish`] or drop restores it.
struct Redirected {
    fd: i32,
    /// What `fd` was before; `None` once restored.
    saved: Option<OwnedFd>,
    file: File,
}

impl Redirected {
    fn new(fd: i32) -> std::io::Result<Redirected> {
        let file = tempfile::tempfile()?;
        // SAFETY: `dup` of a descriptor number is a plain call; a negative result is checked below.
        let raw = unsafe { libc::dup(fd) };
        if raw < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: `raw` is a descriptor `dup` just made, owned by nothing else.
        let saved = unsafe { OwnedFd::from_raw_fd(raw) };
        // SAFETY: both descriptors are open (the file's, and `fd`, which `dup` just read).
        if unsafe { libc::dup2(file.as_raw_fd(), fd) } < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Redirected { fd, saved: Some(saved), file })
    }

    fn restore(&mut self) -> std::io::Result<()> {
        if let Some(saved) = self.saved.take() {
            // SAFETY: `saved` is open (this owns it) and `fd` is a descriptor number; dup2 replaces it atomically.
            if unsafe { libc::dup2(saved.as_raw_fd(), self.fd) } < 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(())
    }

    /// Restores the descriptor and returns what was written to it meanwhile.
    fn finish(mut self) -> std::io::Result<String> {
        self.restore()?;
        self.file.seek(std::io::SeekFrom::Start(0))?;
        let mut text = String::new();
        self.file.read_to_string(&mut text)?;
        Ok(text)
    }
}

impl Drop for Redirected {
    fn drop(&mut self) {
        let _ = self.restore();
    }
}

/// For a process whose stdout carries a protocol while it runs hosts (`lacuna serve --stdio` with sessions): a
/// file writing to the original stdout, with descriptor 1 itself pointed at stderr, so what hosts print (and a
/// turn's capture, which restores descriptor 1 to this) never mixes into the protocol.
pub fn protocol_stdout() -> std::io::Result<std::fs::File> {
    use std::os::fd::AsFd;
    std::io::stdout().flush()?;
    let protocol = std::io::stdout().as_fd().try_clone_to_owned()?;
    // SAFETY: plain descriptor call on the process's own descriptors 2 and 1.
    if unsafe { libc::dup2(2, 1) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(std::fs::File::from(protocol))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_panic_inside_leaves_the_descriptors_restored() {
        let caught = std::panic::catch_unwind(|| super::stdout(|| panic!("inside a capture")));
        assert!(caught.is_err());
        // Were descriptor 1 still the capture's file, this capture would see a stale file, not its own text.
        let (text, ()) = super::stdout(|| {
            use std::io::Write;
            let mut out = std::io::stdout();
            let _ = write!(out, "after");
            let _ = out.flush();
        })
        .unwrap();
        assert_eq!(text, "after");
    }
}
