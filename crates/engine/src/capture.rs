//! A turn's stdout: file descriptor 1 pointed at a temporary file while it runs (hosts print straight to it).
//! Process-wide: captures take turns (two engines in one process would otherwise restore each other's
//! descriptors), and anything else the process prints meanwhile lands in the capture.

use std::io::{Read, Seek, Write};
use std::os::fd::AsRawFd;

/// Runs `f` with stdout going to a temporary file; returns what was written there.
pub(crate) fn stdout<R>(f: impl FnOnce() -> R) -> std::io::Result<(String, R)> {
    static CAPTURING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one_at_a_time = CAPTURING.lock().unwrap_or_else(|e| e.into_inner());
    std::io::stdout().flush()?;
    let mut file = tempfile::tempfile()?;
    // SAFETY: plain descriptor calls; `saved` is a duplicate of descriptor 1 that this function owns and closes.
    let saved = unsafe {
        let saved = libc::dup(1);
        if saved < 0 || libc::dup2(file.as_raw_fd(), 1) < 0 {
            return Err(std::io::Error::last_os_error());
        }
        saved
    };
    let result = f();
    let _ = std::io::stdout().flush();
    // SAFETY: `saved` came from `dup` above.
    unsafe {
        if libc::dup2(saved, 1) < 0 {
            return Err(std::io::Error::last_os_error());
        }
        libc::close(saved);
    }
    file.seek(std::io::SeekFrom::Start(0))?;
    let mut text = String::new();
    file.read_to_string(&mut text)?;
    Ok((text, result))
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
