//! Files that hold secrets (an event's seed file, a deal book): created readable by their
//! owner alone and never over an existing file, and read no further than their size cap, as
//! any file a person may hand in is untrusted.

use std::path::Path;

/// Creates the file `path` (never an existing one), readable by its owner alone, with `text`,
/// synced.
pub(crate) fn create(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.sync_all())
}

/// Why [`read`] gives no text.
pub(crate) enum ReadError {
    Io(std::io::Error),
    /// More than the cap.
    TooLarge,
}

/// The text of `path`, read no further than `max` bytes.
pub(crate) fn read(path: &Path, max: u64) -> Result<String, ReadError> {
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(max + 1).read_to_string(&mut text))
        .map_err(ReadError::Io)?;
    if text.len() as u64 > max {
        return Err(ReadError::TooLarge);
    }
    Ok(text)
}
