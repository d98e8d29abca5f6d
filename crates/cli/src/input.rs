//! Reading the files a user names (hosts, snippets, batch files, configurations, prompts): one function, so the
//! same bad input gets the same words from every command.

use std::path::Path;

/// The text of `path`, which is the user's `what` (`host`, `snippet`, ...), or a message that says what is wrong
/// and names both.
pub fn read_text(what: &str, path: &Path) -> Result<String, String> {
    let shown = path.display();
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!("cannot read {what} {shown}: no such file"))
        }
        Ok(meta) if meta.is_dir() => return Err(format!("cannot read {what} {shown}: it is a directory, not a file")),
        _ => {}
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {what} {shown}: {e}"))?;
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "cannot read {what} {shown}: not UTF-8 (invalid byte at offset {}); save it as UTF-8",
            e.utf8_error().valid_up_to()
        )
    })
}

/// [`read_text`] for `anyhow` callers.
pub fn read(what: &str, path: &Path) -> anyhow::Result<String> {
    read_text(what, path).map_err(anyhow::Error::msg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_directory_and_non_utf8_inputs_say_so() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope.rs");
        assert!(read_text("host", &missing).unwrap_err().ends_with("nope.rs: no such file"));
        assert!(read_text("host", dir.path()).unwrap_err().ends_with("it is a directory, not a file"));
        let latin1 = dir.path().join("l.rs");
        std::fs::write(&latin1, b"fn main() { let s = \"\xe9\"; }").unwrap();
        let err = read_text("snippet", &latin1).unwrap_err();
        assert!(
            err.starts_with("cannot read snippet ") && err.contains("not UTF-8 (invalid byte at offset 21)"),
            "{err}"
        );
    }
}
