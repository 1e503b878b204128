//! The one way pws writes a file a user names: atomically, and never onto one of the command's
//! inputs.
//!
//! A file is written to a temporary file in the same directory and renamed over the target only
//! when it is complete ([`write`], or [`Staged`] for a file that is streamed while a command
//! runs, such as a VCD), so the target is always either its old contents or the whole new
//! ones: a failed or interrupted write leaves no truncated file behind, and a reader never sees
//! half a file. Before anything is written, an output that is the same file as an input (the
//! same path, a hard link or a symbolic link to it) is refused: `pws compile k.s -o k.s` would
//! otherwise replace the kernel it reads.
//!
//! A symbolic link is followed: the file it points to is replaced, the link stays. A target
//! that exists and is no regular file (`/dev/null`, `/dev/stdout`, a FIFO) cannot be renamed
//! over, and replacing it would be wrong: it is written directly.

use std::fmt;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::diag;

/// Why an output could not be written.
#[derive(Debug)]
pub enum OutputError {
    /// The output is one of the command's inputs.
    IsInput { output: PathBuf, input: PathBuf },
    /// Creating, writing or renaming failed.
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl fmt::Display for OutputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OutputError::IsInput { output, input } if output == input => write!(
                f,
                "{}: refusing to write the output onto the input; choose another output file",
                diag::path(output)
            ),
            OutputError::IsInput { output, input } => write!(
                f,
                "{}: refusing to write the output: it is the input {}; choose another output file",
                diag::path(output),
                diag::path(input)
            ),
            OutputError::Io { path, source } => {
                write!(f, "{}: cannot write: {source}", diag::path(path))
            }
        }
    }
}

impl std::error::Error for OutputError {}

/// Refuses `output` if it is the same file as one of `inputs`.
pub fn check_not_input(output: &Path, inputs: &[&Path]) -> Result<(), OutputError> {
    let Ok(out) = std::fs::metadata(output) else {
        // A file that does not exist is no input.
        return Ok(());
    };
    for &input in inputs {
        let Ok(inp) = std::fs::metadata(input) else {
            continue;
        };
        if same_file(&out, &inp) {
            return Err(OutputError::IsInput {
                output: output.to_path_buf(),
                input: input.to_path_buf(),
            });
        }
    }
    Ok(())
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(_: &std::fs::Metadata, _: &std::fs::Metadata) -> bool {
    false
}

/// A part of a temporary file's name that no other writer uses at the same time: other
/// processes differ in the process id, other threads of this one (`pws eval` prepares points
/// in parallel) in the counter.
pub(crate) fn unique_suffix() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!(
        "{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// Writes `bytes` to `path` atomically, after checking that `path` is none of `inputs`.
pub fn write(path: &Path, bytes: &[u8], inputs: &[&Path]) -> Result<(), OutputError> {
    let mut staged = Staged::create(path, inputs)?;
    staged
        .file()
        .write_all(bytes)
        .map_err(|source| staged.io_error(source))?;
    staged.commit()
}

/// An output being written: a temporary file beside the target that [`Staged::commit`] renames
/// over it. Dropped without a commit, the temporary file is removed and the target is left as
/// it was.
#[derive(Debug)]
pub struct Staged {
    target: PathBuf,
    /// The temporary file; `None` when the target is written directly (not a regular file).
    temp: Option<PathBuf>,
    file: Option<File>,
}

impl Staged {
    /// Creates the temporary file for `target`, after checking that `target` is none of
    /// `inputs`.
    pub fn create(target: &Path, inputs: &[&Path]) -> Result<Staged, OutputError> {
        check_not_input(target, inputs)?;
        let fail = |source| OutputError::Io {
            path: target.to_path_buf(),
            source,
        };
        if let Ok(meta) = std::fs::metadata(target) {
            if meta.is_dir() {
                return Err(fail(std::io::Error::other("is a directory")));
            }
            if !meta.is_file() {
                let file = std::fs::OpenOptions::new()
                    .write(true)
                    .open(target)
                    .map_err(fail)?;
                return Ok(Staged {
                    target: target.to_path_buf(),
                    temp: None,
                    file: Some(file),
                });
            }
        }
        // Through a symbolic link to the file it names, so the link survives the rename.
        let resolved = std::fs::canonicalize(target).unwrap_or_else(|_| target.to_path_buf());
        let target = resolved.as_path();
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = target
            .file_name()
            .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
        loop {
            let temp = dir.join(format!(".{name}.{}.tmp", unique_suffix()));
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&temp)
            {
                Ok(file) => {
                    return Ok(Staged {
                        target: target.to_path_buf(),
                        temp: Some(temp),
                        file: Some(file),
                    })
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(source) => {
                    return Err(OutputError::Io {
                        path: target.to_path_buf(),
                        source,
                    })
                }
            }
        }
    }

    /// The temporary file, to write to (or to hand to a writer with `try_clone`).
    pub fn file(&mut self) -> &mut File {
        self.file
            .as_mut()
            .expect("an uncommitted output has its file")
    }

    /// An error writing this output, named by its target.
    pub fn io_error(&self, source: std::io::Error) -> OutputError {
        OutputError::Io {
            path: self.target.clone(),
            source,
        }
    }

    /// Flushes the file to disk and renames it over the target.
    pub fn commit(mut self) -> Result<(), OutputError> {
        let file = self.file.take().expect("committed once");
        let Some(temp) = self.temp.take() else {
            return Ok(());
        };
        let done = file
            .sync_all()
            .and_then(|()| std::fs::rename(&temp, &self.target));
        if done.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
        done.map_err(|source| self.io_error(source))
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if let (Some(_), Some(temp)) = (self.file.take(), &self.temp) {
            let _ = std::fs::remove_file(temp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_replace_the_target_whole_and_leave_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.bin");
        std::fs::write(&out, b"old contents").unwrap();
        write(&out, b"new", &[]).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"new");
        // Abandoned: the target keeps its contents.
        let mut staged = Staged::create(&out, &[]).unwrap();
        staged.file().write_all(b"half").unwrap();
        drop(staged);
        assert_eq!(std::fs::read(&out).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn an_input_is_never_an_output() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("k.s");
        std::fs::write(&input, b"s_endpgm\n").unwrap();
        let e = write(&input, b"x", &[&input]).unwrap_err().to_string();
        assert!(
            e.ends_with(
                "k.s: refusing to write the output onto the input; choose another output file"
            ),
            "{e}"
        );
        let link = dir.path().join("link.s");
        std::fs::hard_link(&input, &link).unwrap();
        let e = write(&link, b"x", &[&input]).unwrap_err().to_string();
        assert!(e.contains("it is the input"), "{e}");
        let other = dir.path().join("./k.s");
        assert!(write(&other, b"x", &[&input]).is_err());
        assert_eq!(std::fs::read(&input).unwrap(), b"s_endpgm\n");
    }

    #[test]
    fn links_are_followed_and_devices_written_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.bin");
        std::fs::write(&real, b"old").unwrap();
        let link = dir.path().join("link.bin");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write(&link, b"new", &[]).unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
        write(Path::new("/dev/null"), b"discarded", &[]).unwrap();
        assert!(!std::fs::metadata("/dev/null").unwrap().is_file());
    }

    #[test]
    fn a_failed_write_leaves_the_target() {
        let dir = tempfile::tempdir().unwrap();
        let e = write(dir.path(), b"x", &[]).unwrap_err().to_string();
        assert!(e.contains("cannot write: is a directory"), "{e}");
        let missing = dir.path().join("no/such/dir/out");
        assert!(write(&missing, b"x", &[]).is_err());
    }
}
