//! The one way pws reads a file a user names: assembly, launch manifests, buffer data files,
//! DOT CFGs, unit scripts, program images, configuration files and reports.
//!
//! - Regular files only. A directory, FIFO, socket or device is refused by its type before it
//!   is read, and the file is opened non-blocking, so `/dev/zero` cannot fill memory and a FIFO
//!   without a writer cannot hang the process (even if it replaces the file between the check
//!   and the open: the open does not wait and the opened file's type is checked again).
//! - A size limit per kind of input ([`Kind::default_limit`]); reading stops one byte past it.
//!   The limits are process-wide and the CLI raises them with `--input-limit KIND=SIZE`
//!   ([`set_limit`]).
//! - Text must be UTF-8; the error names the line and column of the first bad byte.
//!
//! Errors never show the file's contents: a message names the file and what is wrong.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::diag;

/// What a file is read as; each kind has its own size limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// GCN3 assembly (`.s`).
    Assembly,
    /// A launch manifest (`.toml`).
    Manifest,
    /// A buffer's data file (`buffer.file` of a manifest).
    BufferData,
    /// A DOT CFG.
    Dot,
    /// A script of `pws unit split-merge` or `pws unit stack`.
    UnitScript,
    /// A program image (`pws disasm`).
    Image,
    /// A hardware or GPU configuration (TOML).
    Config,
    /// A JSON report read back (`pws wcet --observed`).
    Report,
    /// OpenCL C source.
    OpenCl,
}

impl Kind {
    pub const ALL: [Kind; 9] = [
        Kind::Assembly,
        Kind::Manifest,
        Kind::BufferData,
        Kind::Dot,
        Kind::UnitScript,
        Kind::Image,
        Kind::Config,
        Kind::Report,
        Kind::OpenCl,
    ];

    /// The name `--input-limit` takes.
    pub fn key(self) -> &'static str {
        match self {
            Kind::Assembly => "asm",
            Kind::Manifest => "manifest",
            Kind::BufferData => "data",
            Kind::Dot => "dot",
            Kind::UnitScript => "script",
            Kind::Image => "image",
            Kind::Config => "config",
            Kind::Report => "report",
            Kind::OpenCl => "cl",
        }
    }

    /// What the file is, for messages.
    pub fn what(self) -> &'static str {
        match self {
            Kind::Assembly => "an assembly source",
            Kind::Manifest => "a launch manifest",
            Kind::BufferData => "a buffer data file",
            Kind::Dot => "a DOT CFG",
            Kind::UnitScript => "a unit script",
            Kind::Image => "a program image",
            Kind::Config => "a configuration file",
            Kind::Report => "a JSON report",
            Kind::OpenCl => "an OpenCL source",
        }
    }

    /// The limit without `--input-limit`. Each is far above what the kind holds in practice
    /// (clang's output for a large kernel is a few MB, its image a few hundred KB; 10^5 CFG
    /// nodes are about 4 MB of DOT; 2^24 buffer values are about 190 MB of text) and keeps the
    /// parser's memory near 250 MB: 8 MiB of `s_nop 0` lines assemble in about 220 MB, a
    /// 4 MiB image disassembles in about 200 MB, and a manifest's inline `data` costs the TOML
    /// parser about 190 bytes per value (large data belongs in a data file).
    pub fn default_limit(self) -> u64 {
        const MIB: u64 = 1 << 20;
        match self {
            Kind::Assembly => 8 * MIB,
            Kind::Manifest => 4 * MIB,
            Kind::BufferData => 256 * MIB,
            Kind::Dot => 16 * MIB,
            Kind::UnitScript => 16 * MIB,
            Kind::Image => 4 * MIB,
            Kind::Config => MIB,
            Kind::Report => 256 * MIB,
            Kind::OpenCl => 16 * MIB,
        }
    }

    fn index(self) -> usize {
        Kind::ALL
            .iter()
            .position(|&k| k == self)
            .expect("every kind is listed")
    }

    /// The kind `--input-limit` names `key`.
    pub fn from_key(key: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.key() == key)
    }
}

/// 0 stands for "the default" so that the table can be a plain static.
static LIMITS: [AtomicU64; Kind::ALL.len()] = [const { AtomicU64::new(0) }; Kind::ALL.len()];

/// The size limit of `kind` in bytes.
pub fn limit(kind: Kind) -> u64 {
    match LIMITS[kind.index()].load(Ordering::Relaxed) {
        0 => kind.default_limit(),
        n => n,
    }
}

/// Sets the size limit of `kind` for the rest of the process (0 restores the default).
pub fn set_limit(kind: Kind, bytes: u64) {
    LIMITS[kind.index()].store(bytes, Ordering::Relaxed);
}

/// Parses and applies one `--input-limit` setting, `KIND=SIZE` (e.g. `asm=64M`).
pub fn set_limit_from_flag(setting: &str) -> Result<(), String> {
    let keys: Vec<&str> = Kind::ALL.iter().map(|k| k.key()).collect();
    let (key, size) = setting.split_once('=').ok_or_else(|| {
        format!(
            "--input-limit `{}`: expected KIND=SIZE with KIND one of {}",
            diag::value(setting),
            keys.join(", ")
        )
    })?;
    let kind = Kind::from_key(key).ok_or_else(|| {
        format!(
            "--input-limit: unknown kind `{}` (one of {})",
            diag::value(key),
            keys.join(", ")
        )
    })?;
    let bytes = diag::parse_size(size).map_err(|e| format!("--input-limit {key}: {e}"))?;
    if bytes == 0 {
        return Err(format!(
            "--input-limit {key}: the limit must be at least 1 byte"
        ));
    }
    set_limit(kind, bytes);
    Ok(())
}

/// Why a file could not be read.
#[derive(Debug)]
pub struct InputError {
    pub path: PathBuf,
    pub kind: Kind,
    pub problem: Problem,
}

#[derive(Debug)]
pub enum Problem {
    /// The operating system's error (missing file, permission, ...).
    Io(std::io::Error),
    /// Not a regular file: what it is instead.
    NotRegular(&'static str),
    /// Longer than the limit.
    TooLarge { limit: u64 },
    /// Text that is not UTF-8: where the first bad byte is and its value.
    NotUtf8 {
        line: usize,
        column: usize,
        byte: u8,
    },
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = diag::path(&self.path);
        match &self.problem {
            Problem::Io(e) => write!(f, "{path}: cannot read: {}", io_text(e)),
            Problem::NotRegular(what) => write!(
                f,
                "{path}: is {what}, not a regular file ({} must be a file)",
                self.kind.what()
            ),
            Problem::TooLarge { limit } => write!(
                f,
                "{path}: larger than the {} limit for {} (raise it with --input-limit {}=SIZE)",
                diag::bytes(*limit),
                self.kind.what(),
                self.kind.key()
            ),
            Problem::NotUtf8 { line, column, byte } => write!(
                f,
                "{path}:{line}:{column}: not UTF-8 text (byte 0x{byte:02x}); {} is text",
                self.kind.what()
            ),
        }
    }
}

impl std::error::Error for InputError {}

/// An I/O error without Rust's `(os error N)` suffix.
fn io_text(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

/// What a file that is not a regular one is.
fn type_name(t: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
    }
    if t.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// Opens `path` for reading without ever blocking in `open` (a FIFO with no writer).
fn open(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

/// Reads `path` as `kind`: a regular file of at most [`limit`]`(kind)` bytes.
pub fn read_bytes(path: &Path, kind: Kind) -> Result<Vec<u8>, InputError> {
    let fail = |problem| InputError {
        path: path.to_path_buf(),
        kind,
        problem,
    };
    let meta = std::fs::metadata(path).map_err(|e| fail(Problem::Io(e)))?;
    if !meta.is_file() {
        return Err(fail(Problem::NotRegular(type_name(meta.file_type()))));
    }
    let file = open(path).map_err(|e| fail(Problem::Io(e)))?;
    let meta = file.metadata().map_err(|e| fail(Problem::Io(e)))?;
    if !meta.is_file() {
        return Err(fail(Problem::NotRegular(type_name(meta.file_type()))));
    }
    let max = limit(kind);
    if meta.len() > max {
        return Err(fail(Problem::TooLarge { limit: max }));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| fail(Problem::Io(e)))?;
    if bytes.len() as u64 > max {
        return Err(fail(Problem::TooLarge { limit: max }));
    }
    Ok(bytes)
}

/// Reads `path` as UTF-8 text of `kind` (see [`read_bytes`]).
pub fn read_text(path: &Path, kind: Kind) -> Result<String, InputError> {
    let bytes = read_bytes(path, kind)?;
    String::from_utf8(bytes).map_err(|e| {
        let good = e.utf8_error().valid_up_to();
        let bytes = e.into_bytes();
        let text = std::str::from_utf8(&bytes[..good]).expect("valid up to here");
        let (line, column) = diag::line_col(text, good);
        InputError {
            path: path.to_path_buf(),
            kind,
            problem: Problem::NotUtf8 {
                line,
                column,
                byte: bytes[good],
            },
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_directories_and_fifos_are_refused_without_reading() {
        let e = read_text(Path::new("/dev/zero"), Kind::Assembly).unwrap_err();
        assert_eq!(
            e.to_string(),
            "/dev/zero: is a character device, not a regular file (an assembly source must be a file)"
        );
        let e = read_text(Path::new("/"), Kind::Manifest).unwrap_err();
        assert!(e.to_string().contains("is a directory"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("k.s");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = read_text(&fifo, Kind::Assembly).unwrap_err();
        assert!(e.to_string().contains("is a FIFO"), "{e}");
        // Opening it directly must not block either (the race the type check cannot close).
        let file = open(&fifo).unwrap();
        assert!(!file.metadata().unwrap().is_file());
    }

    #[test]
    fn sizes_are_limited_per_kind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.sm");
        std::fs::write(&path, vec![b'#'; 2048]).unwrap();
        assert_eq!(read_text(&path, Kind::UnitScript).unwrap().len(), 2048);
        set_limit(Kind::UnitScript, 1024);
        let e = read_text(&path, Kind::UnitScript).unwrap_err().to_string();
        set_limit(Kind::UnitScript, 0);
        assert!(
            e.ends_with("larger than the 1 KiB limit for a unit script (raise it with --input-limit script=SIZE)"),
            "{e}"
        );
        assert!(set_limit_from_flag("script=2K").is_ok());
        assert_eq!(limit(Kind::UnitScript), 2048);
        set_limit(Kind::UnitScript, 0);
        assert!(set_limit_from_flag("scripts=2K")
            .unwrap_err()
            .contains("unknown kind"));
        assert!(set_limit_from_flag("script")
            .unwrap_err()
            .contains("KIND=SIZE"));
    }

    #[test]
    fn binary_text_is_located_not_shown() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k.s");
        std::fs::write(&path, b"s_nop 0\nsecret \xff\xfe tail").unwrap();
        let e = read_text(&path, Kind::Assembly).unwrap_err().to_string();
        assert!(
            e.ends_with("k.s:2:8: not UTF-8 text (byte 0xff); an assembly source is text"),
            "{e}"
        );
        assert!(!e.contains("secret"));
        let e = read_text(&dir.path().join("missing.s"), Kind::Assembly)
            .unwrap_err()
            .to_string();
        assert!(
            e.ends_with("missing.s: cannot read: No such file or directory"),
            "{e}"
        );
    }
}
