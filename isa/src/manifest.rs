//! Launch manifest: the TOML file that says which kernel runs on which data (grid and
//! workgroup extents in 1 to 3 dimensions, buffers, kernel arguments), plus the numbering of
//! workgroups and work-items and the global-memory layout every executor (golden model, RTL
//! simulation) must share so that their memories can be compared word for word. The registers
//! a wavefront starts with are [`crate::abi`]'s. Both are documented in docs/manifest.md.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};

use crate::abi::LaunchAbi;
use crate::diag;
pub use crate::elem::{ElemType, Value};
use crate::input::{self, InputError};
pub use crate::kernarg::{KernelArg, MAX_LOCAL_ARG_BYTES};
use crate::kernarg::{Number, RawArg};
use crate::metadata::{KernelMetadata, MetadataError};
use crate::sequence::Repeat;

/// Work-items per wavefront (GCN3 wave64).
pub const WAVEFRONT_SIZE: u32 = 64;

/// Largest grid (total work-items) a manifest may ask for; keeps a typo from allocating
/// gigabytes of register state.
pub const MAX_GRID: u64 = 1 << 24;
/// Largest workgroup (GCN3's flat workgroup limit).
pub const MAX_WORKGROUP: u64 = 1024;
/// Largest buffer, in elements (64 MiB of 32-bit ones).
pub const MAX_BUFFER_ELEMENTS: u64 = 1 << 24;
/// Most launches a sequence may list (`[[launch]]`).
pub const MAX_LAUNCHES: usize = 64;
/// Most passes a sequence's `[repeat]` may allow.
pub const MAX_PASSES: u64 = 100_000;

/// Global-memory layout shared by every executor. Address 0 and everything outside the
/// kernarg segment and the buffers is unmapped: an access there is an error.
pub mod layout {
    /// Byte address of the HSA kernel dispatch packet (64 bytes, read-only).
    pub const DISPATCH_PACKET_BASE: u64 = 0x800;
    /// Byte address of the kernarg segment.
    pub const KERNARG_BASE: u64 = 0x1000;
    /// The HSA kernarg segment alignment: a descriptor's kernarg size is rounded up to it.
    pub const KERNARG_ALIGN: u64 = 16;
    /// Byte address of the first buffer, unless the kernarg segment reaches past
    /// `BUFFER_BASE - GUARD_BYTES`: then the buffers start after it and its guard.
    pub const BUFFER_BASE: u64 = 0x1_0000;
    /// Where the loader places the code object, below 4 GiB as every address of the layout
    /// (the compute unit's memory port carries 32 bits): `s_getpc_b64` reads this plus the
    /// instruction's offset, and the program's `.rodata` lies at this plus
    /// [`crate::Rodata::offset`] (read-only). The buffers lie below it.
    pub const CODE_BASE: u64 = 0xF000_0000;
    /// Every buffer starts on a multiple of this.
    pub const REGION_ALIGN: u64 = 0x1000;
    /// Unmapped bytes left after each buffer, so that running off its end is an error and
    /// never a silent write into the next buffer.
    pub const GUARD_BYTES: u64 = 0x1000;
}

/// The memory budget of a launch without `--max-memory`: its buffers, its kernarg segment and
/// the per-wavefront state an executor keeps for its report, together.
pub const DEFAULT_MEMORY_BUDGET: u64 = 1 << 30;

/// 0 stands for [`DEFAULT_MEMORY_BUDGET`].
static MEMORY_BUDGET: AtomicU64 = AtomicU64::new(0);

/// The memory budget of a launch, in bytes.
pub fn memory_budget() -> u64 {
    match MEMORY_BUDGET.load(Ordering::Relaxed) {
        0 => DEFAULT_MEMORY_BUDGET,
        n => n,
    }
}

/// Sets the memory budget for the rest of the process (0 restores the default).
pub fn set_memory_budget(bytes: u64) {
    MEMORY_BUDGET.store(bytes, Ordering::Relaxed);
}

/// A launch that would take more memory than the budget; nothing was allocated for it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "the launch needs {} ({what}), more than the memory budget of {} (raise it with --max-memory SIZE)",
    diag::bytes(*needed),
    diag::bytes(*budget)
)]
pub struct BudgetError {
    pub needed: u64,
    pub budget: u64,
    /// What the bytes are for.
    pub what: String,
}

/// Checks `needed` bytes against the budget; `what` says what they are for.
pub fn check_budget(needed: u64, what: impl FnOnce() -> String) -> Result<(), BudgetError> {
    let budget = memory_budget();
    if needed <= budget {
        return Ok(());
    }
    Err(BudgetError {
        needed,
        budget,
        what: what(),
    })
}

/// Bytes a buffer of `words` 32-bit words named `name` takes, with its bookkeeping.
fn buffer_bytes(words: u64, name: &str) -> u64 {
    4 * words + name.len() as u64 + 64
}

/// A buffer of the launch with its initial contents.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Buffer {
    pub name: String,
    pub ty: ElemType,
    /// Elements (`init` holds them packed: [`ElemType::pack`]).
    pub len: usize,
    /// The initial contents as memory holds them: 32-bit words, little-endian.
    pub init: Vec<u32>,
    /// The contents the kernel must leave, when the manifest gives them (`expect`): computed
    /// outside pws, they check every executor, the golden model included. Packed as `init`.
    pub expect: Option<Vec<u32>>,
    /// Float types only: the ulp distance within which a final value equals its `expect`
    /// value (NaN equals any NaN, +0 equals -0); `None`: bit-exact.
    pub tolerance_ulp: Option<u32>,
}

impl Buffer {
    /// A buffer of 32-bit elements holding `init`.
    pub fn of_words(name: &str, ty: ElemType, init: Vec<u32>) -> Buffer {
        debug_assert_eq!(ty.bytes(), 4);
        Buffer {
            name: name.into(),
            ty,
            len: init.len(),
            init,
            expect: None,
            tolerance_ulp: None,
        }
    }

    /// The final values of the buffer, read from its memory `words`.
    pub fn values(&self, words: &[u32]) -> Vec<Value> {
        self.ty.values(words, self.len)
    }

    /// The first element where `words` differs from `expect`, as a user reads it:
    /// `out[3] is 1204, the manifest expects 0` (with ` (within N ulp)` under a tolerance).
    pub fn mismatch(&self, words: &[u32]) -> Option<String> {
        let i = self.first_mismatch(words)?;
        let expect = self.values(self.expect.as_deref()?);
        let show = |v: Option<&Value>| v.map_or("nothing".to_string(), Value::to_string);
        Some(format!(
            "{}[{i}] is {}, the manifest expects {}{}",
            self.name,
            show(self.values(words).get(i)),
            show(expect.get(i)),
            self.tolerance_ulp
                .map_or(String::new(), |t| format!(" (within {t} ulp)"))
        ))
    }

    /// The first element where `words` differs from `expect` under the buffer's comparison.
    pub fn first_mismatch(&self, words: &[u32]) -> Option<usize> {
        let expect = self.ty.unpack(self.expect.as_deref()?, self.len);
        let got = self.ty.unpack(words, self.len);
        if got.len() != expect.len() {
            return Some(got.len().min(expect.len()));
        }
        got.iter()
            .zip(&expect)
            .position(|(&g, &e)| match self.tolerance_ulp {
                Some(t) => self.ty.ulp_distance(g, e) > u64::from(t),
                None => g != e,
            })
    }
}

/// Alignment of each `__local` pointer argument's LDS region (a float4's, as runtimes give).
pub const LOCAL_ARG_ALIGN: u32 = 16;

/// A parsed and checked launch manifest. Programs that build one (generators, tests) fill
/// what they need and take the rest from `Default`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Manifest {
    /// The manifest file itself (errors name it; relative paths are resolved against it).
    pub path: PathBuf,
    /// The kernel's GCN3 assembly: the manifest's `kernel` resolved relative to it, or for an
    /// OpenCL C kernel the assembly clang made of it (in the cache, see [`crate::opencl`]).
    pub kernel: PathBuf,
    /// The OpenCL C source, when `kernel` names a `.cl` file.
    pub opencl: Option<PathBuf>,
    /// Extra clang flags for an OpenCL kernel (`cflags`).
    pub cflags: Vec<String>,
    /// The kernel to run from a source that defines several (`entry`).
    pub entry: Option<String>,
    /// Loop bounds for the WCET analysis, by loop-header label, and `default` for every loop
    /// the kernel does not bound itself (`[loop_bounds]`).
    pub loop_bounds: BTreeMap<String, u64>,
    /// Work-items in x, y, z (1 in the dimensions the manifest leaves out).
    pub grid: [u32; 3],
    /// Work-items per workgroup in x, y, z. The last workgroup of a dimension may be partial.
    pub workgroup: [u32; 3],
    /// Dimensions of the launch (1..=3): how many extents `grid` gives.
    pub dims: u32,
    pub buffers: Vec<Buffer>,
    pub args: Vec<KernelArg>,
    /// Each argument's byte offset in the kernarg segment, as the kernel's code object
    /// metadata places it; `None` for a kernel without metadata, whose arguments are packed in
    /// order ([`crate::kernarg::packed_offsets`]).
    pub arg_offsets: Option<Vec<u32>>,
}

/// A byte range of global memory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Region {
    pub name: String,
    pub base: u64,
    pub bytes: u64,
}

impl Region {
    pub fn end(&self) -> u64 {
        self.base + self.bytes
    }
}

/// Initial global memory of a launch: the kernarg segment and every buffer, at the addresses
/// of [`layout`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryImage {
    /// The HSA kernel dispatch packet (read-only).
    pub dispatch_packet: Region,
    pub dispatch_packet_words: Vec<u32>,
    pub kernarg: Region,
    /// Kernarg segment contents, little-endian 32-bit words.
    pub kernarg_words: Vec<u32>,
    /// One region per manifest buffer, in manifest order.
    pub buffers: Vec<Region>,
    /// The program's `.rodata` (read-only) and its words, when it has any.
    pub rodata: Option<(Region, Vec<u32>)>,
    /// The private segment (scratch memory, zero at launch) when the kernel asks for private
    /// memory: every wavefront's lanes' private bytes after the buffers
    /// ([`Manifest::scratch_bytes`]).
    pub scratch: Option<Region>,
}

/// A manifest that could not be read or is invalid. The message names the file, the line and
/// column of the key (when the manifest's text is at hand) and the key.
#[derive(Debug)]
pub struct ManifestError {
    pub path: PathBuf,
    /// Line and column (1-based) of the key or of the syntax error.
    pub at: Option<(usize, usize)>,
    pub kind: ManifestErrorKind,
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut position = diag::path(&self.path);
        if let Some((line, column)) = self.at {
            position = format!("{position}:{line}:{column}");
        }
        match &self.kind {
            // The reader's own error names the manifest already.
            ManifestErrorKind::Read(e) => write!(f, "{e}"),
            // The data file's position comes first: that is where the fix is.
            ManifestErrorKind::Data { key, message } => {
                write!(f, "{message} (key `{}` of {position})", diag::value(key))
            }
            kind => write!(f, "{position}: {kind}"),
        }
    }
}

impl std::error::Error for ManifestError {}

#[derive(Debug, thiserror::Error)]
pub enum ManifestErrorKind {
    /// The manifest itself could not be read.
    #[error("{0}")]
    Read(InputError),
    /// A file the manifest names (`kernel`, `buffer.file`) could not be read.
    #[error(
        "key `{}`: `{}` (relative to the manifest): {source}",
        diag::value(key),
        diag::value(written)
    )]
    File {
        key: String,
        /// The path as the manifest writes it.
        written: String,
        source: InputError,
    },
    /// A value of a buffer's data file: `file:line:col: what is wrong`.
    #[error("key `{}`: {message}", diag::value(key))]
    Data { key: String, message: String },
    /// The TOML parser's message (without its quote of the line).
    #[error("{}", diag::message(.0))]
    Syntax(String),
    #[error("key `{}`: {}", diag::value(key), diag::message(message))]
    Invalid { key: String, message: String },
    #[error("key `kernel`: {0}")]
    OpenCl(crate::opencl::ClError),
    /// The kernel's `.amdgpu_metadata`, which lays out its arguments, does not read.
    #[error("key `kernel`: {}:{}: {}", diag::path(asm), error.line, diag::message(&error.message))]
    Metadata {
        asm: PathBuf,
        error: Box<MetadataError>,
    },
    #[error(transparent)]
    Budget(#[from] BudgetError),
}

/// A manifest file as written. Its launch keys repeat [`RawLaunch`]'s instead of flattening it
/// in: serde does not support `deny_unknown_fields` with `#[serde(flatten)]`, and a misspelt
/// key must be an error, not ignored.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawManifest {
    kernel: Option<String>,
    entry: Option<String>,
    cflags: Option<Vec<String>>,
    loop_bounds: Option<BTreeMap<String, u64>>,
    grid: Option<Dim>,
    workgroup: Option<Dim>,
    args: Option<Vec<RawArg>>,
    #[serde(default, rename = "buffer")]
    buffers: Vec<RawBuffer>,
    /// A launch sequence: the launches in order, each taking the top level's keys it omits.
    #[serde(default, rename = "launch")]
    launches: Vec<RawLaunch>,
    repeat: Option<RawRepeat>,
}

/// What one launch of a manifest says: the top level's keys, or one `[[launch]]` table's.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLaunch {
    kernel: Option<String>,
    entry: Option<String>,
    cflags: Option<Vec<String>>,
    loop_bounds: Option<BTreeMap<String, u64>>,
    grid: Option<Dim>,
    workgroup: Option<Dim>,
    args: Option<Vec<RawArg>>,
}

impl RawLaunch {
    /// This `[[launch]]` table with the top level's value for every key it omits; its loop
    /// bounds are added to the top level's.
    fn or(self, top: &RawLaunch) -> RawLaunch {
        let loop_bounds = match (&top.loop_bounds, self.loop_bounds) {
            (Some(t), Some(own)) => Some(t.clone().into_iter().chain(own).collect()),
            (t, own) => own.or_else(|| t.clone()),
        };
        RawLaunch {
            kernel: self.kernel.or_else(|| top.kernel.clone()),
            entry: self.entry.or_else(|| top.entry.clone()),
            cflags: self.cflags.or_else(|| top.cflags.clone()),
            loop_bounds,
            grid: self.grid.or_else(|| top.grid.clone()),
            workgroup: self.workgroup.or_else(|| top.workgroup.clone()),
            args: self.args.or_else(|| top.args.clone()),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRepeat {
    until_zero: String,
    #[serde(default)]
    reset: Vec<String>,
    max: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBuffer {
    name: String,
    #[serde(rename = "type")]
    ty: ElemType,
    data: Option<Vec<Number>>,
    file: Option<String>,
    len: Option<u64>,
    expect: Option<RawExpect>,
    tolerance_ulp: Option<u32>,
}

/// Expected final contents: inline values or a data file.
#[derive(Deserialize)]
#[serde(untagged)]
enum RawExpect {
    Data(Vec<Number>),
    File(String),
}

/// `x`, `[x]`, `[x, y]` or `[x, y, z]`: the extents of a launch or a workgroup.
#[derive(Clone)]
struct Dim(Vec<u64>);

impl<'de> Deserialize<'de> for Dim {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct DimVisitor;
        impl<'de> Visitor<'de> for DimVisitor {
            type Value = Dim;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a positive integer or an array [x], [x, y] or [x, y, z]")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Dim, E> {
                u64::try_from(v)
                    .map(|v| Dim(vec![v]))
                    .map_err(|_| E::custom(format!("negative size {v}")))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Dim, E> {
                Ok(Dim(vec![v]))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Dim, A::Error> {
                let mut dims = Vec::new();
                while let Some(v) = seq.next_element::<i64>()? {
                    dims.push(
                        u64::try_from(v)
                            .map_err(|_| de::Error::custom(format!("negative size {v}")))?,
                    );
                }
                Ok(Dim(dims))
            }
        }
        d.deserialize_any(DimVisitor)
    }
}

impl Manifest {
    /// Reads and checks the manifest at `path` (and the data files it names), through the
    /// bounded reader ([`input`]).
    pub fn load(path: impl AsRef<Path>) -> Result<Manifest, ManifestError> {
        let path = path.as_ref();
        Manifest::parse(&Manifest::read(path)?, path)
    }

    /// The text of the manifest at `path`, through the bounded reader. A kernel given where a
    /// manifest belongs (`pws run k.cl`) is named as one, not read as TOML.
    pub(crate) fn read(path: &Path) -> Result<String, ManifestError> {
        let kernel = match path.extension().and_then(|e| e.to_str()) {
            Some("cl") => Some("an OpenCL C kernel"),
            Some("s" | "asm") => Some("a GCN3 kernel"),
            _ => None,
        };
        if let Some(what) = kernel {
            let name = path
                .file_name()
                .map_or(String::new(), |n| n.to_string_lossy().into());
            return Err(ManifestError {
                path: path.to_path_buf(),
                at: None,
                kind: ManifestErrorKind::Syntax(format!(
                    "{what}, not a launch manifest: a launch runs a manifest (TOML) that names \
                     its kernel, grid, buffers and arguments (`kernel = \"{name}\"`; \
                     docs/manifest.md); `pws manifest {name}` writes one to fill in"
                )),
            });
        }
        input::read_text(path, input::Kind::Manifest).map_err(|e| ManifestError {
            path: path.to_path_buf(),
            at: None,
            kind: ManifestErrorKind::Read(e),
        })
    }

    /// Parses manifest `text` as if it were the file `path`: errors name `path`, and the
    /// kernel and data files are resolved relative to its directory.
    pub fn parse(text: &str, path: impl AsRef<Path>) -> Result<Manifest, ManifestError> {
        let path = path.as_ref();
        let (mut launches, repeat) = Manifest::parse_launches(text, path)?;
        if launches.len() > 1 || repeat.is_some() {
            let key = if launches.len() > 1 {
                "launch"
            } else {
                "repeat"
            };
            return Err(ManifestError {
                path: path.to_path_buf(),
                at: key_position(text, key),
                kind: ManifestErrorKind::Invalid {
                    key: key.into(),
                    message: "a launch sequence: `pws run`, `golden`, `wcet`, `compare` and `eval` run it; this command takes one launch".into(),
                },
            });
        }
        Ok(launches.pop().expect("a manifest has at least one launch"))
    }

    /// Parses a manifest's launches: one for a plain manifest, the `[[launch]]` tables in
    /// order for a sequence, all on the one set of buffers; and the sequence's `[repeat]`.
    pub(crate) fn parse_launches(
        text: &str,
        path: &Path,
    ) -> Result<(Vec<Manifest>, Option<Repeat>), ManifestError> {
        let fail = |kind: ManifestErrorKind| {
            let at = match &kind {
                ManifestErrorKind::Invalid { key, .. }
                | ManifestErrorKind::File { key, .. }
                | ManifestErrorKind::Data { key, .. } => key_position(text, key),
                _ => None,
            };
            ManifestError {
                path: path.to_path_buf(),
                at,
                kind,
            }
        };
        let invalid = |key: &str, message: String| {
            fail(ManifestErrorKind::Invalid {
                key: key.to_string(),
                message,
            })
        };
        let raw: RawManifest = toml::from_str(text).map_err(|e| {
            let offset = e.span().map(|s| s.start);
            let message = match offset.and_then(|o| key_at(text, o)) {
                Some(key) => format!("key `{key}`: {}", e.message()),
                None => e.message().to_string(),
            };
            ManifestError {
                path: path.to_path_buf(),
                at: offset.map(|o| diag::line_col(text, o)),
                kind: ManifestErrorKind::Syntax(message),
            }
        })?;
        let dir = path.parent().unwrap_or(Path::new(""));

        // The budget is checked on the sizes the manifest declares before any buffer exists, and
        // again on each buffer's actual size before its memory is allocated.
        let declared: u64 = raw
            .buffers
            .iter()
            .map(|b| {
                let n = b
                    .len
                    .unwrap_or(0)
                    .max(b.data.as_ref().map_or(0, |d| d.len() as u64));
                buffer_bytes(
                    b.ty.words_for(n.min(MAX_BUFFER_ELEMENTS) as usize) as u64,
                    &b.name,
                )
            })
            .sum();
        check_budget(declared, || {
            format!("{} buffer(s) as declared", raw.buffers.len())
        })
        .map_err(|e| fail(e.into()))?;
        let mut allocated = 0u64;
        let mut buffers: Vec<Buffer> = Vec::with_capacity(raw.buffers.len());
        let mut by_name = HashMap::new();
        for (i, b) in raw.buffers.into_iter().enumerate() {
            let key = format!("buffer[{i}]");
            if b.name.is_empty() {
                return Err(invalid(&format!("{key}.name"), "empty name".into()));
            }
            if by_name.insert(b.name.clone(), i).is_some() {
                return Err(invalid(
                    &format!("{key}.name"),
                    format!("duplicate buffer name `{}`", b.name),
                ));
            }
            let key = format!("buffer[{i}] ({})", b.name);
            if let Some(len) = b.len.filter(|&l| l > MAX_BUFFER_ELEMENTS) {
                return Err(invalid(
                    &format!("{key}.len"),
                    format!("{len} elements exceed the limit of {MAX_BUFFER_ELEMENTS}"),
                ));
            }
            // Initial and expected values are given the same two ways: inline under `key`
            // (each value named `key[j]`) or in a data file named by `key`.
            let inline = |values: &[Number], key: &str| -> Result<Vec<u64>, ManifestError> {
                values
                    .iter()
                    .enumerate()
                    .map(|(j, &v)| {
                        b.ty.element(v).ok_or_else(|| {
                            let why = match (b.ty, v) {
                                (ElemType::F16, _) => "is not exactly an f16 (integers up to 2^11, finite floats up to 65504)",
                                (ElemType::F32, _) => "is not exactly an f32 (integers up to 2^24, finite floats up to 3.4e38)",
                                (ElemType::F64, _) => "is not exactly an f64 (integers up to 2^53)",
                                (_, Number::Float(_)) => "is not an integer",
                                _ => "is out of range",
                            };
                            invalid(&format!("{key}[{j}]"), format!("{v} {why} for {}", b.ty))
                        })
                    })
                    .collect()
            };
            if b.tolerance_ulp.is_some() && (!b.ty.is_float() || b.expect.is_none()) {
                return Err(invalid(
                    &format!("{key}.tolerance_ulp"),
                    "tolerance_ulp applies to the expected values of a float (f16, f32, f64) buffer"
                        .into(),
                ));
            }
            let from_file = |file: &String, key: String| {
                read_data_file(&dir.join(file), b.ty).map_err(|e| match e {
                    DataError::Read(source) => fail(ManifestErrorKind::File {
                        key: key.clone(),
                        written: file.clone(),
                        source,
                    }),
                    DataError::Value(message) => fail(ManifestErrorKind::Data {
                        key: key.clone(),
                        message,
                    }),
                })
            };
            let mut init: Vec<u64> = match (&b.data, &b.file) {
                (Some(_), Some(_)) => {
                    return Err(invalid(&key, "give `data` or `file`, not both".into()))
                }
                (Some(data), None) => inline(data, &format!("{key}.data"))?,
                (None, Some(file)) => from_file(file, format!("{key}.file"))?,
                (None, None) if b.len.is_none() => {
                    return Err(invalid(&key, "needs `data`, `file` or `len`".into()))
                }
                (None, None) => Vec::new(),
            };
            let len = b.len.unwrap_or(init.len() as u64);
            if len > MAX_BUFFER_ELEMENTS {
                return Err(invalid(
                    &format!("{key}.len"),
                    format!("{len} elements exceed the limit of {MAX_BUFFER_ELEMENTS}"),
                ));
            }
            if (init.len() as u64) > len {
                return Err(invalid(
                    &format!("{key}.len"),
                    format!("{} initial values do not fit len = {len}", init.len()),
                ));
            }
            allocated += buffer_bytes(b.ty.words_for(len as usize) as u64, &b.name);
            check_budget(allocated, || {
                format!("buffers up to `{}`", diag::value(&b.name))
            })
            .map_err(|e| fail(e.into()))?;
            init.resize(len as usize, 0);
            let expect = match &b.expect {
                None => None,
                Some(e) => {
                    let ekey = format!("{key}.expect");
                    let values = match e {
                        RawExpect::Data(d) => inline(d, &ekey)?,
                        RawExpect::File(f) => from_file(f, ekey.clone())?,
                    };
                    if values.len() as u64 != len {
                        return Err(invalid(
                            &ekey,
                            format!("{} expected values for a buffer of {len}", values.len()),
                        ));
                    }
                    Some(b.ty.pack(&values))
                }
            };
            buffers.push(Buffer {
                name: b.name,
                ty: b.ty,
                len: len as usize,
                init: b.ty.pack(&init),
                expect,
                tolerance_ulp: b.tolerance_ulp,
            });
        }

        let top = RawLaunch {
            kernel: raw.kernel,
            entry: raw.entry,
            cflags: raw.cflags,
            loop_bounds: raw.loop_bounds,
            grid: raw.grid,
            workgroup: raw.workgroup,
            args: raw.args,
        };
        if raw.launches.len() > MAX_LAUNCHES {
            return Err(invalid(
                "launch",
                format!(
                    "{} launches exceed the limit of {MAX_LAUNCHES}",
                    raw.launches.len()
                ),
            ));
        }
        if raw.launches.is_empty() && raw.repeat.is_some() {
            return Err(invalid(
                "repeat",
                "repeats a launch sequence: give the launches as `[[launch]]` tables".into(),
            ));
        }
        let launches: Vec<(String, RawLaunch)> = if raw.launches.is_empty() {
            vec![(String::new(), top)]
        } else {
            raw.launches
                .into_iter()
                .enumerate()
                .map(|(k, l)| (format!("launch[{k}]."), l.or(&top)))
                .collect()
        };
        let mut manifests = Vec::with_capacity(launches.len());
        for (prefix, launch) in launches {
            let manifest = Manifest::launch(launch, &prefix, &buffers, &by_name, path, dir, &fail)?;
            let kernarg = 4 * manifest.kernarg_words() as u64;
            check_budget(allocated + kernarg, || "buffers and kernarg segment".into())
                .map_err(|e| fail(e.into()))?;
            manifests.push(manifest);
        }
        let repeat = match raw.repeat {
            None => None,
            Some(r) => {
                let known = |key: &str, name: &String| {
                    if by_name.contains_key(name) {
                        Ok(name.clone())
                    } else {
                        Err(invalid(key, format!("unknown buffer `{name}`")))
                    }
                };
                if !(1..=MAX_PASSES).contains(&r.max) {
                    return Err(invalid(
                        "repeat.max",
                        format!("{} passes: give 1 to {MAX_PASSES}", r.max),
                    ));
                }
                Some(Repeat {
                    until_zero: known("repeat.until_zero", &r.until_zero)?,
                    reset: r
                        .reset
                        .iter()
                        .enumerate()
                        .map(|(i, n)| known(&format!("repeat.reset[{i}]"), n))
                        .collect::<Result<_, _>>()?,
                    max: r.max as u32,
                })
            }
        };
        Ok((manifests, repeat))
    }

    /// One launch on the manifest's `buffers`: `raw` with the top level's keys filled in,
    /// `prefix` naming its table in messages (`launch[1].`, or nothing at the top level).
    fn launch(
        raw: RawLaunch,
        prefix: &str,
        buffers: &[Buffer],
        by_name: &HashMap<String, usize>,
        path: &Path,
        dir: &Path,
        fail: &dyn Fn(ManifestErrorKind) -> ManifestError,
    ) -> Result<Manifest, ManifestError> {
        let invalid = |key: &str, message: String| {
            fail(ManifestErrorKind::Invalid {
                key: format!("{prefix}{key}"),
                message,
            })
        };
        let kernel = match raw.kernel {
            None => {
                return Err(invalid(
                    "kernel",
                    "missing field `kernel` (the kernel's .s or .cl file)".into(),
                ))
            }
            Some(k) if k.is_empty() => return Err(invalid("kernel", "empty path".into())),
            Some(k) => k,
        };
        let missing = |key: &str| invalid(key, format!("missing field `{key}`"));
        let (grid, dims) = extents(&raw.grid.ok_or_else(|| missing("grid"))?, MAX_GRID)
            .map_err(|m| invalid("grid", m))?;
        let (workgroup, wg_dims) = extents(
            &raw.workgroup.ok_or_else(|| missing("workgroup"))?,
            MAX_WORKGROUP,
        )
        .map_err(|m| invalid("workgroup", m))?;
        if wg_dims > dims {
            return Err(invalid(
                "workgroup",
                format!("{wg_dims} dimensions, but the grid has {dims}"),
            ));
        }
        let raw_args = raw.args.unwrap_or_default();
        for (i, a) in raw_args.iter().enumerate() {
            if let RawArg::Buffer(name) = a {
                if !by_name.contains_key(name) {
                    return Err(invalid(
                        &format!("args[{i}]"),
                        format!("unknown buffer `{name}`"),
                    ));
                }
            }
        }
        let cflags = raw.cflags.unwrap_or_default();
        let loop_bounds = raw.loop_bounds.unwrap_or_default();
        if let Some((label, _)) = loop_bounds.iter().find(|(_, &b)| b == 0) {
            return Err(invalid(
                &format!("loop_bounds.{label}"),
                "a loop bound is at least 1".into(),
            ));
        }
        let source = dir.join(&kernel);
        let (kernel, opencl) = if source.extension().is_some_and(|e| e == "cl") {
            let opts = crate::opencl::ClOptions {
                flags: cflags.clone(),
                entry: raw.entry.clone(),
            };
            let asm = crate::opencl::compile(&source, &opts)
                .map_err(|e| fail(ManifestErrorKind::OpenCl(e)))?;
            (asm, Some(source))
        } else {
            if !cflags.is_empty() {
                return Err(invalid(
                    "cflags",
                    "compiler flags apply to an OpenCL C kernel (`kernel = \"k.cl\"`) only".into(),
                ));
            }
            (source, None)
        };

        let metadata = kernel_metadata(&kernel, raw.entry.as_deref()).map_err(|error| {
            fail(ManifestErrorKind::Metadata {
                asm: kernel.clone(),
                error: Box::new(error),
            })
        })?;
        let (args, arg_offsets) = match &metadata {
            Some(meta) => {
                let uniform_flag = cflags.iter().any(|f| f == "-cl-uniform-work-group-size");
                check_workgroup(meta, grid, workgroup, uniform_flag)
                    .map_err(|m| invalid("workgroup", m))?;
                let (args, offsets) =
                    crate::kernarg::lay_out(raw_args, meta).map_err(|e| match e.index {
                        Some(i) => invalid(&format!("args[{i}]"), e.message),
                        None => invalid("args", e.message),
                    })?;
                (args, Some(offsets))
            }
            None => {
                let args = raw_args
                    .into_iter()
                    .enumerate()
                    .map(|(i, a)| {
                        crate::kernarg::packed(a).map_err(|m| invalid(&format!("args[{i}]"), m))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                (args, None)
            }
        };
        let manifest = Manifest {
            path: path.to_path_buf(),
            kernel,
            opencl,
            cflags,
            entry: raw.entry,
            loop_bounds,
            grid,
            workgroup,
            dims,
            buffers: buffers.to_vec(),
            args,
            arg_offsets,
        };
        // Checked with the arguments' kernarg segment: a descriptor's `.amdhsa_kernarg_size`
        // (hidden arguments, at most a few hundred bytes in clang's output) moves the buffers
        // up by no more than that.
        let end = manifest.memory_image(&LaunchAbi::legacy()).end();
        if end > layout::CODE_BASE {
            return Err(invalid(
                "buffer",
                format!(
                    "the kernarg segment and the buffers need addresses up to {end:#x}; they must stay below the code object at {:#x}",
                    layout::CODE_BASE
                ),
            ));
        }
        Ok(manifest)
    }

    /// The buffers whose element type the kernel reads as another kind of number: a buffer of
    /// `i32` values passed for a `float*` (clang's metadata names the pointee; typedefs
    /// resolved), or elements of another size. The kernel then reads each value's bits as its
    /// own type, which is rarely what the manifest's author meant, but not an error (a kernel
    /// may take the bits of floats as integers on purpose), so it is a warning. Signedness
    /// alone (`u32` values for an `int*`) and structs are not flagged.
    pub fn buffer_type_warnings(&self) -> Vec<String> {
        let Ok(Some(meta)) = kernel_metadata(&self.kernel, self.entry.as_deref()) else {
            return Vec::new();
        };
        let mut warnings = Vec::new();
        for (i, (arg, param)) in self.args.iter().zip(meta.explicit_args()).enumerate() {
            let KernelArg::Buffer(name) = arg else {
                continue;
            };
            let Some(buffer) = self.buffers.iter().find(|b| &b.name == name) else {
                continue;
            };
            let Some((ty, _)) = param
                .resolved_type_name()
                .and_then(crate::skeleton::pointee)
            else {
                continue;
            };
            if ty.is_float() != buffer.ty.is_float() || ty.bytes() != buffer.ty.bytes() {
                warnings.push(format!(
                    "buffer `{}` holds {} values, but args[{i}] is the kernel's `{}`: it reads their bits as {}; give the buffer type = \"{ty}\" if its values are meant as {ty}",
                    diag::value(name),
                    buffer.ty,
                    diag::value(&param.describe()),
                    crate::metadata::opencl_name(ty),
                ));
            }
        }
        warnings
    }

    /// The kernel as the manifest names it: its source file (`bfs.cl`, not the assembly clang
    /// made of it) and the `entry`, when it gives one (`bfs.cl:bfs_update`).
    pub fn kernel_label(&self) -> String {
        let file = self.opencl.as_ref().unwrap_or(&self.kernel);
        let name = file
            .file_name()
            .map_or_else(|| diag::path(file), |n| diag::value(&n.to_string_lossy()));
        match &self.entry {
            Some(e) => format!("{name}:{}", diag::value(e)),
            None => name,
        }
    }

    /// Reads the kernel's assembly source (relative to the manifest) through the bounded
    /// reader; an error names the manifest's `kernel` key and the path as it is written.
    pub fn kernel_source(&self) -> Result<String, ManifestError> {
        input::read_text(&self.kernel, input::Kind::Assembly).map_err(|source| {
            let dir = self.path.parent().unwrap_or(Path::new(""));
            let written = match self.kernel.strip_prefix(dir) {
                Ok(p) if !p.as_os_str().is_empty() => p.display().to_string(),
                _ => self.kernel.display().to_string(),
            };
            // The manifest's text again, only to say where its `kernel` key is.
            let at = input::read_text(&self.path, input::Kind::Manifest)
                .ok()
                .and_then(|text| key_position(&text, "kernel"));
            ManifestError {
                path: self.path.clone(),
                at,
                kind: ManifestErrorKind::File {
                    key: "kernel".into(),
                    written,
                    source,
                },
            }
        })
    }

    /// Bytes the launch's memory takes: every buffer (with its bookkeeping) and the kernarg
    /// segment, the part of the memory budget every executor shares.
    pub fn memory_bytes(&self) -> u64 {
        self.buffers
            .iter()
            .map(|b| buffer_bytes(b.init.len() as u64, &b.name))
            .sum::<u64>()
            + 4 * self.kernarg_words() as u64
    }

    /// Each argument's byte offset in the kernarg segment: the metadata's, or packed in order.
    pub fn arg_layout(&self) -> Vec<u32> {
        self.arg_offsets
            .clone()
            .unwrap_or_else(|| crate::kernarg::packed_offsets(&self.args))
    }

    /// Number of 32-bit words the arguments take in the kernarg segment.
    fn kernarg_words(&self) -> usize {
        self.arg_layout()
            .iter()
            .zip(&self.args)
            .map(|(at, a)| (at + a.bytes()).div_ceil(4) as usize)
            .max()
            .unwrap_or(0)
    }

    /// The LDS region (offset, end) of each `__local` pointer argument, in argument order, for
    /// a kernel whose own `__local` variables take `fixed` bytes: each region aligned to
    /// [`LOCAL_ARG_ALIGN`], one after the other.
    fn local_arg_regions(&self, fixed: u32) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.args
            .iter()
            .scan(fixed, |next, a| {
                Some(match a {
                    KernelArg::Local(bytes) => {
                        let at = next.next_multiple_of(LOCAL_ARG_ALIGN);
                        *next = at.saturating_add(*bytes);
                        Some((at, *next))
                    }
                    _ => None,
                })
            })
            .flatten()
    }

    /// The LDS offset of each `__local` pointer argument, in argument order, for a kernel
    /// whose own `__local` variables take `fixed` bytes.
    pub fn local_arg_offsets(&self, fixed: u32) -> Vec<u32> {
        self.local_arg_regions(fixed).map(|(at, _)| at).collect()
    }

    /// The group segment (LDS bytes per workgroup) of this launch of a kernel whose own
    /// `__local` variables take `fixed` bytes.
    pub fn group_segment_size(&self, fixed: u32) -> u32 {
        self.local_arg_regions(fixed)
            .last()
            .map_or(fixed, |(_, end)| end)
    }

    /// Workgroups in x, y, z (the last one of a dimension may be partial).
    pub fn workgroup_counts(&self) -> [u32; 3] {
        [0, 1, 2].map(|d| self.grid[d].div_ceil(self.workgroup[d]))
    }

    /// Number of workgroups. They are numbered 0.. with x fastest, then y, then z: the order the
    /// dispatcher starts them in.
    pub fn workgroups(&self) -> u32 {
        self.workgroup_counts().iter().product()
    }

    /// Total work-items of the launch.
    pub fn work_items(&self) -> u32 {
        self.grid.iter().product()
    }

    /// The x, y, z workgroup id of workgroup number `wg`.
    pub fn workgroup_id(&self, wg: u32) -> [u32; 3] {
        let [nx, ny, _] = self.workgroup_counts();
        [wg % nx, wg / nx % ny, wg / (nx * ny)]
    }

    /// The extents of workgroup `wg`: the manifest's, cut at the grid's edge.
    pub fn workgroup_size(&self, wg: u32) -> [u32; 3] {
        let id = self.workgroup_id(wg);
        [0, 1, 2].map(|d| (self.grid[d] - id[d] * self.workgroup[d]).min(self.workgroup[d]))
    }

    /// Work-items in workgroup `wg`.
    pub fn workgroup_items(&self, wg: u32) -> u32 {
        self.workgroup_size(wg).iter().product()
    }

    /// The x, y, z work-item id (within its workgroup) of the work-item with flat id `flat` in
    /// workgroup `wg`: flat = x + y·size_x + z·size_x·size_y over the workgroup's own extents,
    /// as the dispatcher packs work-items into wavefronts.
    pub fn workitem_id(&self, wg: u32, flat: u32) -> [u32; 3] {
        let [sx, sy, _] = self.workgroup_size(wg);
        [flat % sx, flat / sx % sy, flat / (sx * sy)]
    }

    /// Wavefronts in workgroup `wg`.
    pub fn wavefronts_in(&self, wg: u32) -> u32 {
        self.workgroup_items(wg).div_ceil(WAVEFRONT_SIZE)
    }

    /// Initial EXEC of wavefront `wave` of workgroup `wg`: one bit per existing work-item.
    pub fn initial_exec(&self, wg: u32, wave: u32) -> u64 {
        let lanes = (self.workgroup_items(wg) - wave * WAVEFRONT_SIZE).min(WAVEFRONT_SIZE);
        if lanes == WAVEFRONT_SIZE {
            u64::MAX
        } else {
            (1u64 << lanes) - 1
        }
    }

    /// `grid` (or `workgroup`) over the launch's dimensions: `4`, `4x2` or `4x2x2`.
    pub fn format_extent(&self, e: [u32; 3]) -> String {
        e[..self.dims as usize]
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join("x")
    }

    /// Addresses of the dispatch packet, the kernarg segment and the buffers, and the contents
    /// of the two read-only segments for a kernel with launch ABI `abi`. Its kernarg segment is
    /// at least `abi.kernarg_size` bytes rounded up to the HSA kernarg alignment of 16 (hidden
    /// arguments and the padding read 0): clang widens adjacent scalar argument loads up to that
    /// alignment (three dwords at 0x18 of a 36-byte segment load as `s_load_dwordx4`). The buffers start at [`layout::BUFFER_BASE`], or after the kernarg segment and a guard
    /// gap when the segment is larger: the two never overlap.
    pub fn memory_image(&self, abi: &LaunchAbi) -> MemoryImage {
        let (kernarg_bytes, buffers, scratch) = self.data_regions(abi);
        let mut kernarg = vec![0u8; 4 * self.kernarg_words().max(kernarg_bytes as usize / 4)];
        let mut local_offsets = self
            .local_arg_offsets(abi.group_segment_fixed_size)
            .into_iter();
        for (a, at) in self.args.iter().zip(self.arg_layout()) {
            let bytes = match a {
                KernelArg::Buffer(name) => buffers
                    .iter()
                    .find(|r| &r.name == name)
                    .map_or(0, |r| r.base)
                    .to_le_bytes()
                    .to_vec(),
                KernelArg::Value(v) => v.clone(),
                KernelArg::Local(_) => local_offsets.next().unwrap_or(0).to_le_bytes().to_vec(),
            };
            kernarg[at as usize..at as usize + bytes.len()].copy_from_slice(&bytes);
        }
        let kernarg_words: Vec<u32> = kernarg
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        let dispatch_packet_words = abi.dispatch_packet(self).to_vec();
        MemoryImage {
            dispatch_packet: Region {
                name: "dispatch packet".into(),
                base: layout::DISPATCH_PACKET_BASE,
                bytes: 4 * dispatch_packet_words.len() as u64,
            },
            dispatch_packet_words,
            kernarg: Region {
                name: "kernarg".into(),
                base: layout::KERNARG_BASE,
                bytes: 4 * kernarg_words.len() as u64,
            },
            kernarg_words,
            buffers,
            rodata: abi.rodata.as_ref().map(|(base, words)| {
                (
                    Region {
                        name: "rodata".into(),
                        base: *base,
                        bytes: 4 * words.len() as u64,
                    },
                    words.clone(),
                )
            }),
            scratch,
        }
    }

    /// The kernarg segment's size and where the buffers and the private segment lie for a
    /// kernel with launch ABI `abi` ([`Manifest::memory_image`]'s layout).
    fn data_regions(&self, abi: &LaunchAbi) -> (u64, Vec<Region>, Option<Region>) {
        let kernarg_bytes = (4 * self.kernarg_words() as u64)
            .max(u64::from(abi.kernarg_size).next_multiple_of(layout::KERNARG_ALIGN));
        let kernarg_end = layout::KERNARG_BASE + kernarg_bytes;
        let mut buffers = Vec::with_capacity(self.buffers.len());
        let mut next = layout::BUFFER_BASE
            .max((kernarg_end + layout::GUARD_BYTES).next_multiple_of(layout::REGION_ALIGN));
        for b in &self.buffers {
            let bytes = 4 * b.init.len() as u64;
            buffers.push(Region {
                name: b.name.clone(),
                base: next,
                bytes,
            });
            next = (next + bytes + layout::GUARD_BYTES).next_multiple_of(layout::REGION_ALIGN);
        }
        let scratch = (abi.private_segment_size > 0).then(|| Region {
            name: "private segment".into(),
            base: next,
            bytes: self.scratch_bytes(abi.private_segment_size),
        });
        (kernarg_bytes, buffers, scratch)
    }

    /// The private segment of a kernel with launch ABI `abi`, if it asks for private memory
    /// (without building the rest of the memory image: the dispatcher asks per wavefront).
    pub fn scratch_region(&self, abi: &LaunchAbi) -> Option<Region> {
        self.data_regions(abi).2
    }

    /// Wavefront slots every workgroup has in the private segment: as many as a whole
    /// workgroup has wavefronts.
    fn scratch_waves_per_workgroup(&self) -> u32 {
        self.workgroup
            .iter()
            .product::<u32>()
            .div_ceil(WAVEFRONT_SIZE)
    }

    /// The wavefront slot of the private segment that wavefront `wave` of workgroup `wg`
    /// uses.
    pub fn scratch_wave_index(&self, wg: u32, wave: u32) -> u32 {
        wg * self.scratch_waves_per_workgroup() + wave
    }

    /// Bytes of the private segment of a kernel with `private_size` bytes per work-item: 64
    /// lanes' worth for every wavefront slot ([`Manifest::scratch_wave_index`]).
    pub fn scratch_bytes(&self, private_size: u32) -> u64 {
        u64::from(self.workgroups())
            * u64::from(self.scratch_waves_per_workgroup())
            * u64::from(WAVEFRONT_SIZE)
            * u64::from(private_size)
    }

    /// Checks that the private segment of `abi`'s kernel fits below the code object, where
    /// the memory port reaches (its bytes count against the memory budget with the buffers').
    pub fn check_scratch(&self, abi: &LaunchAbi) -> Result<(), String> {
        match self.scratch_region(abi) {
            Some(r) if r.end() > layout::CODE_BASE => Err(format!(
                "the kernel's private memory ({} bytes per work-item, {} for the launch) would \
                 reach {:#x}, past the code object at {:#x}: use fewer work-items or less \
                 private memory",
                abi.private_segment_size,
                diag::bytes(r.bytes),
                r.end(),
                layout::CODE_BASE
            )),
            _ => Ok(()),
        }
    }
}

impl MemoryImage {
    /// One past the last byte of the kernarg segment and the buffers (the private segment
    /// follows them, the `.rodata` lies apart at `layout::CODE_BASE`).
    pub fn end(&self) -> u64 {
        self.buffers
            .iter()
            .map(Region::end)
            .fold(self.kernarg.end(), u64::max)
    }
}

/// The code object metadata of the kernel in assembly file `asm` (`entry`, or its only
/// kernel), `None` when it has none. A file that cannot be read is the assembler's to report.
fn kernel_metadata(
    asm: &Path,
    entry: Option<&str>,
) -> Result<Option<KernelMetadata>, MetadataError> {
    let Ok(text) = input::read_text(asm, input::Kind::Assembly) else {
        return Ok(None);
    };
    // A wrong or missing `entry` is the compiler's error to report (opencl::select_kernel).
    let kernels = crate::opencl::kernels_in(&text);
    let Ok(Some(name)) = crate::opencl::entry_kernel(&kernels, entry, "`entry`") else {
        return Ok(None);
    };
    crate::metadata::kernel_metadata(&text, &name)
}

/// The launch's workgroup against the sizes the kernel was compiled for, as a runtime checks
/// them (`CL_INVALID_WORK_GROUP_SIZE`): clang's code may rely on them, for instance folding
/// `get_local_size()` to a required size, or to the enqueued size where the workgroups are
/// uniform: always in OpenCL C 1.x, and with `-cl-uniform-work-group-size` (`uniform_flag`).
fn check_workgroup(
    meta: &KernelMetadata,
    grid: [u32; 3],
    workgroup: [u32; 3],
    uniform_flag: bool,
) -> Result<(), String> {
    let items: u32 = workgroup.iter().product();
    if let Some(req) = meta.reqd_workgroup_size {
        if req != workgroup {
            return Err(format!(
                "the kernel requires workgroups of {}x{}x{} (`reqd_work_group_size`), not {}x{}x{}",
                req[0], req[1], req[2], workgroup[0], workgroup[1], workgroup[2]
            ));
        }
        if let Some(d) = (0..3).find(|&d| grid[d] % req[d] != 0) {
            return Err(format!(
                "the kernel requires workgroups of {}x{}x{} (`reqd_work_group_size`), and clang \
                 folds get_local_size() to it: the grid's {} in dimension {d} must be a multiple \
                 of {}",
                req[0], req[1], req[2], grid[d], req[d]
            ));
        }
    }
    let uniform = match meta.opencl_version {
        Some((major, minor)) if major < 2 => Some((
            format!(
                "the kernel was compiled as OpenCL C {major}.{minor}, which requires the grid to \
                 be a multiple of the workgroup"
            ),
            "compile it as OpenCL C 2.0, which allows a partial last workgroup (cflags = \
             [\"-cl-std=CL2.0\"])",
        )),
        _ if uniform_flag => Some((
            "the kernel was compiled with -cl-uniform-work-group-size".to_string(),
            "compile it without that flag",
        )),
        _ => None,
    };
    if let Some((why, fix)) = uniform {
        if let Some(d) = (0..3).find(|&d| grid[d] % workgroup[d] != 0) {
            return Err(format!(
                "the grid's {} work-items in dimension {d} are not a multiple of the workgroup's \
                 {}: {why}, and clang folds get_local_size() to the workgroup's size, which a \
                 partial last workgroup does not have. Make the grid a multiple, or {fix}",
                grid[d], workgroup[d]
            ));
        }
    }
    match meta.max_flat_workgroup_size {
        Some(max) if items > max => Err(format!(
            "{items} work-items per workgroup, but the kernel was compiled for at most {max} \
             (`.max_flat_workgroup_size`; clang assumes 256 for OpenCL unless the kernel has \
             `__attribute__((reqd_work_group_size(x, y, z)))` or \
             `__attribute__((amdgpu_flat_work_group_size(1, n)))`)"
        )),
        _ => Ok(()),
    }
}

/// Line and column of the value of `key` in the manifest `text` (as [`Manifest::parse`]'s
/// messages name keys: `grid`, `args[2]`, `buffer[0] (name).data[3]`), if it is there.
fn key_position(text: &str, key: &str) -> Option<(usize, usize)> {
    let root: toml::Spanned<SpannedValue> = toml::from_str(text).ok()?;
    let mut here = &root;
    let mut best = None;
    for segment in key_segments(key) {
        here = match (&here.get_ref(), segment) {
            (SpannedValue::Table(t), Segment::Key(k)) => t.get(k)?,
            (SpannedValue::Array(a), Segment::Index(i)) => a.get(i)?,
            _ => break,
        };
        best = Some(here.span().start);
    }
    best.map(|offset| diag::line_col(text, offset))
}

/// The key whose value holds byte `offset` of the manifest `text` (`buffer[1].len`), for a
/// message of the TOML parser that names the position only.
fn key_at(text: &str, offset: usize) -> Option<String> {
    let root: toml::Spanned<SpannedValue> = toml::from_str(text).ok()?;
    let mut here = &root;
    let mut key = String::new();
    loop {
        let inside = |v: &&toml::Spanned<SpannedValue>| v.span().contains(&offset);
        here = match here.get_ref() {
            SpannedValue::Table(t) => {
                let (k, v) = t.iter().find(|(_, v)| inside(v))?;
                if !key.is_empty() {
                    key.push('.');
                }
                key.push_str(k);
                v
            }
            SpannedValue::Array(a) => match a.iter().position(|v| inside(&v)) {
                Some(i) => {
                    key.push_str(&format!("[{i}]"));
                    &a[i]
                }
                None => break,
            },
            SpannedValue::Scalar => break,
        };
    }
    (!key.is_empty()).then_some(key)
}

enum Segment<'a> {
    Key(&'a str),
    Index(usize),
}

/// `buffer[0] (a).data[3]` -> buffer, 0, data, 3 (the parenthesised names are for people).
fn key_segments(key: &str) -> Vec<Segment<'_>> {
    let mut out = Vec::new();
    let mut rest = key;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix(" (") {
            rest = r.find(')').map_or("", |i| &r[i + 1..]);
        } else if let Some(r) = rest.strip_prefix('.') {
            rest = r;
        } else if let Some(r) = rest.strip_prefix('[') {
            let Some(close) = r.find(']') else { break };
            match r[..close].parse() {
                Ok(i) => out.push(Segment::Index(i)),
                Err(_) => break,
            }
            rest = &r[close + 1..];
        } else {
            let end = rest.find(['.', '[', ' ']).unwrap_or(rest.len());
            out.push(Segment::Key(&rest[..end]));
            rest = &rest[end..];
        }
    }
    out
}

/// A TOML value with the span of every table entry and array element, for [`key_position`].
enum SpannedValue {
    Table(HashMap<String, toml::Spanned<SpannedValue>>),
    Array(Vec<toml::Spanned<SpannedValue>>),
    Scalar,
}

impl<'de> Deserialize<'de> for SpannedValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = SpannedValue;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any TOML value")
            }
            fn visit_bool<E>(self, _: bool) -> Result<SpannedValue, E> {
                Ok(SpannedValue::Scalar)
            }
            fn visit_i64<E>(self, _: i64) -> Result<SpannedValue, E> {
                Ok(SpannedValue::Scalar)
            }
            fn visit_u64<E>(self, _: u64) -> Result<SpannedValue, E> {
                Ok(SpannedValue::Scalar)
            }
            fn visit_f64<E>(self, _: f64) -> Result<SpannedValue, E> {
                Ok(SpannedValue::Scalar)
            }
            fn visit_str<E>(self, _: &str) -> Result<SpannedValue, E> {
                Ok(SpannedValue::Scalar)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<SpannedValue, A::Error> {
                let mut items = Vec::new();
                while let Some(v) = seq.next_element()? {
                    items.push(v);
                }
                Ok(SpannedValue::Array(items))
            }
            fn visit_map<A: de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<SpannedValue, A::Error> {
                let mut table = HashMap::new();
                while let Some((k, v)) = map.next_entry::<String, _>()? {
                    table.insert(k, v);
                }
                Ok(SpannedValue::Table(table))
            }
        }
        d.deserialize_any(V)
    }
}

/// Checks extents `[x]`, `[x, y]` or `[x, y, z]`: each at least 1, their product at most
/// `max`. Returns them padded with 1 and the number given.
fn extents(dim: &Dim, max: u64) -> Result<([u32; 3], u32), String> {
    match dim.0.len() {
        0 => return Err("empty array; write x, [x], [x, y] or [x, y, z]".into()),
        1..=3 => {}
        n => return Err(format!("{n} dimensions; at most 3")),
    }
    if let Some(d) = dim.0.iter().position(|&v| v == 0) {
        return Err(format!("extent {} is 0", ["x", "y", "z"][d]));
    }
    let total = dim.0.iter().try_fold(1u64, |acc, &v| acc.checked_mul(v));
    match total {
        Some(t) if t <= max => {}
        _ => {
            let shown: Vec<String> = dim.0.iter().map(u64::to_string).collect();
            return Err(format!(
                "{} work-items is out of range 1..={max}",
                shown.join(" x ")
            ));
        }
    }
    let mut e = [1; 3];
    for (d, &v) in dim.0.iter().enumerate() {
        e[d] = v as u32;
    }
    Ok((e, dim.0.len() as u32))
}

/// Why a data file gave no words.
enum DataError {
    Read(InputError),
    /// `file:line:col: what is wrong` (the file's contents are never quoted).
    Value(String),
}

/// Reads a data file through the bounded reader: integers (decimal, or hex with 0x)
/// separated by whitespace, each fitting `ty`; `#` starts a comment that runs to the end of
/// the line. A bad value is reported by its position only: the file may be anything the
/// manifest names (`/etc/passwd`), and its contents are not the message's to show.
fn read_data_file(file: &Path, ty: ElemType) -> Result<Vec<u64>, DataError> {
    let text = input::read_text(file, input::Kind::BufferData).map_err(DataError::Read)?;
    let mut values = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("");
        let mut rest = line;
        while let Some(start) = rest.find(|c: char| !c.is_whitespace()) {
            let tail = &rest[start..];
            let end = tail.find(char::is_whitespace).unwrap_or(tail.len());
            let tok = &tail[..end];
            let value = ty.parse(tok).ok_or_else(|| {
                let column = line[..line.len() - tail.len()].chars().count() + 1;
                let what = if ty.is_float() {
                    format!("not an {ty} (decimal or exponent float, inf, nan, or 0x bits)")
                } else if crate::elem::is_integer(tok) {
                    format!("value out of range for {ty}")
                } else {
                    "not an integer (decimal or 0x hexadecimal)".to_string()
                };
                DataError::Value(format!("{}:{}:{column}: {what}", diag::path(file), n + 1))
            })?;
            values.push(value);
            rest = &tail[end..];
        }
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Manifest, ManifestError> {
        Manifest::parse(text, "dir/launch.toml")
    }

    const FIG2: &str = r#"
kernel = "figure2.s"
grid = 4
workgroup = [4]
args = ["A", "out", 7, -1]

[[buffer]]
name = "A"
type = "i32"
data = [17, 29, 52, 80]

[[buffer]]
name = "out"
type = "u32"
len = 4
"#;

    #[test]
    fn parses_and_lays_out_memory() {
        let m = parse(FIG2).unwrap();
        assert_eq!(m.kernel, Path::new("dir/figure2.s"));
        assert_eq!((m.grid, m.workgroup, m.dims), ([4, 1, 1], [4, 1, 1], 1));
        assert_eq!(m.workgroups(), 1);
        assert_eq!(m.buffers[0].init, vec![17, 29, 52, 80]);
        assert_eq!(m.buffers[1].init, vec![0; 4]);
        assert_eq!(m.initial_exec(0, 0), 0xF);
        let img = m.memory_image(&LaunchAbi::legacy());
        assert_eq!(img.buffers[0].base, layout::BUFFER_BASE);
        assert_eq!(img.buffers[1].base, layout::BUFFER_BASE + 0x2000);
        let b = img.buffers[1].base;
        assert_eq!(
            img.kernarg_words,
            vec![0x1_0000, 0, b as u32, 0, 7, u32::MAX]
        );
    }

    #[test]
    fn f32_buffers_take_floats_ints_inf_and_nan() {
        let m = parse(
            "kernel = \"k.s\"\ngrid = 1\nworkgroup = 1\n[[buffer]]\nname = \"x\"\ntype = \"f32\"\n\
             data = [1.5, -2, inf, -inf, nan, -0.0, 1e-45]\nexpect = [1, 2, 3, 4, 5, 6, 7]\n\
             tolerance_ulp = 2\n",
        )
        .unwrap();
        let b = &m.buffers[0];
        assert_eq!(
            b.init,
            vec![
                0x3FC0_0000,
                0xC000_0000,
                0x7F80_0000,
                0xFF80_0000,
                0x7FC0_0000,
                0x8000_0000,
                1
            ]
        );
        assert_eq!(b.tolerance_ulp, Some(2));
        let shown: Vec<String> = b.values(&b.init).iter().map(Value::to_string).collect();
        assert_eq!(
            shown,
            ["1.5", "-2.0", "inf", "-inf", "nan", "-0.0", "1e-45"]
        );
        assert_eq!(ElemType::F32.show(0xFFC0_0001), "nan:0xffc00001");
        let e = parse(
            "kernel = \"k.s\"\ngrid = 1\nworkgroup = 1\n[[buffer]]\nname = \"x\"\n\
             type = \"f32\"\ndata = [16777217]\n",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("launch.toml:7:") && e.contains("16777217 is not exactly an f32"),
            "{e}"
        );
        let e = parse(
            "kernel = \"k.s\"\ngrid = 1\nworkgroup = 1\n[[buffer]]\nname = \"x\"\n\
             type = \"i32\"\ndata = [1.5]\n",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("1.5 is not an integer for i32"), "{e}");
        let e = parse(
            "kernel = \"k.s\"\ngrid = 1\nworkgroup = 1\n[[buffer]]\nname = \"x\"\n\
             type = \"u32\"\ndata = [1]\nexpect = [1]\ntolerance_ulp = 1\n",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("tolerance_ulp applies to the expected values of a float"),
            "{e}"
        );
    }

    #[test]
    fn ulp_tolerance_compares_nan_zero_and_neighbours() {
        let b = Buffer {
            name: "x".into(),
            ty: ElemType::F32,
            len: 2,
            init: vec![],
            expect: Some(vec![0x3F80_0000, 0x7FC0_0000]),
            tolerance_ulp: Some(1),
        };
        assert_eq!(b.first_mismatch(&[0x3F80_0001, 0x7FC0_1234]), None);
        assert_eq!(b.first_mismatch(&[0x3F80_0002, 0x7FC0_1234]), Some(0));
        let exact = Buffer {
            tolerance_ulp: None,
            ..b
        };
        assert_eq!(exact.first_mismatch(&[0x3F80_0000, 0x7FC0_1234]), Some(1));
    }

    #[test]
    fn f32_data_files_take_floats_and_bits() {
        let dir = std::env::temp_dir().join(format!("pws-f32-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("x.txt"),
            "1.25 -3e2 # comment\ninf nan 0x7fc00001\n",
        )
        .unwrap();
        std::fs::write(dir.join("bad.txt"), "1.0 abc\n").unwrap();
        let text = "kernel = \"k.s\"\ngrid = 1\nworkgroup = 1\n[[buffer]]\nname = \"x\"\n\
                    type = \"f32\"\nfile = \"x.txt\"\n";
        let m = Manifest::parse(text, dir.join("l.toml")).unwrap();
        assert_eq!(
            m.buffers[0].init,
            vec![
                0x3FA0_0000,
                0xC396_0000,
                0x7F80_0000,
                0x7FC0_0000,
                0x7FC0_0001
            ]
        );
        let e = Manifest::parse(&text.replace("x.txt", "bad.txt"), dir.join("l.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("bad.txt:1:5: not an f32"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn value_after_odd_value_aligns_pointer() {
        let m = parse(
            "kernel = \"k.s\"\ngrid = 1\nworkgroup = 1\nargs = [3, \"b\"]\n\
             [[buffer]]\nname = \"b\"\ntype = \"i32\"\nlen = 1\n",
        )
        .unwrap();
        assert_eq!(
            m.memory_image(&LaunchAbi::legacy()).kernarg_words,
            vec![3, 0, 0x1_0000, 0]
        );
    }

    #[test]
    fn float_arguments_pass_their_binary32_bits() {
        let m = parse("kernel = \"k.s\"\ngrid = 1\nworkgroup = 1\nargs = [0.5, -2.0, 1e-50]\n")
            .unwrap();
        assert_eq!(
            m.memory_image(&LaunchAbi::legacy()).kernarg_words[..3],
            [0x3F00_0000, 0xC000_0000, 0]
        );
        let e = error("kernel = \"k.s\"\ngrid = 1\nworkgroup = 1\nargs = [1e39]\n");
        assert!(e.contains("args[0]") && e.contains("overflows"), "{e}");
    }

    #[test]
    fn local_arguments_follow_the_kernels_own_lds_aligned() {
        let m = parse(
            "kernel = \"k.s\"\ngrid = 1\nworkgroup = 1\nargs = [{ local = 10 }, 7, { local = 4 }]\n",
        )
        .unwrap();
        assert_eq!(m.local_arg_offsets(100), vec![112, 128]);
        assert_eq!(m.group_segment_size(100), 132);
        assert_eq!(m.group_segment_size(0), 20);
        let abi = LaunchAbi {
            group_segment_fixed_size: 100,
            ..LaunchAbi::legacy()
        };
        assert_eq!(m.memory_image(&abi).kernarg_words, vec![112, 7, 128]);
        let e = parse("kernel = \"k.s\"\ngrid = 1\nworkgroup = 1\nargs = [{ local = 70000 }]\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("a __local argument of 70000 bytes: give 1 to 65536"),
            "{e}"
        );
    }

    #[test]
    fn hidden_kernel_arguments_read_zero() {
        let m = parse("kernel = \"k.s\"\ngrid = 1\nworkgroup = 1\nargs = [3]\n").unwrap();
        let abi = LaunchAbi {
            kernarg_size: 10,
            ..LaunchAbi::legacy()
        };
        assert_eq!(m.memory_image(&abi).kernarg_words, vec![3, 0, 0, 0]);
        assert_eq!(m.memory_image(&abi).kernarg.bytes, 16);
    }

    #[test]
    fn three_dimensional_launches() {
        let m = parse("kernel = \"k.s\"\ngrid = [5, 3, 2]\nworkgroup = [4, 2]\n").unwrap();
        assert_eq!((m.grid, m.workgroup, m.dims), ([5, 3, 2], [4, 2, 1], 3));
        assert_eq!(m.workgroup_counts(), [2, 2, 2]);
        assert_eq!(m.workgroups(), 8);
        assert_eq!(m.work_items(), 30);
        // Workgroup 3 is (1, 1, 0): one column and one row left.
        assert_eq!(m.workgroup_id(3), [1, 1, 0]);
        assert_eq!(m.workgroup_size(3), [1, 1, 1]);
        assert_eq!(m.workgroup_id(6), [0, 1, 1]);
        assert_eq!(m.workgroup_size(6), [4, 1, 1]);
        assert_eq!(m.workgroup_items(0), 8);
        assert_eq!(m.workitem_id(0, 5), [1, 1, 0]);
        assert_eq!(
            m.workitem_id(1, 1),
            [0, 1, 0],
            "partial workgroup packs 1 x 2"
        );
        assert_eq!(m.initial_exec(1, 0), 0b11);
        assert_eq!(m.format_extent(m.grid), "5x3x2");
        assert_eq!(m.format_extent(m.workgroup), "4x2x1");
        let packet = LaunchAbi::legacy().dispatch_packet(&m);
        assert_eq!(packet[0] >> 16, 3, "setup: dimensions");
        assert_eq!(packet[1..6], [4 | 2 << 16, 1, 5, 3, 2]);
    }

    #[test]
    fn partial_workgroups_and_wavefronts() {
        let m = parse("kernel = \"k.s\"\ngrid = 300\nworkgroup = 128\n").unwrap();
        assert_eq!(m.workgroups(), 3);
        assert_eq!(m.format_extent(m.grid), "300");
        assert_eq!(m.workgroup_items(2), 44);
        assert_eq!(m.wavefronts_in(2), 1);
        assert_eq!(m.initial_exec(0, 1), u64::MAX);
        assert_eq!(m.initial_exec(2, 0), (1 << 44) - 1);
    }

    fn error(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    #[test]
    fn errors_name_file_and_key() {
        let e = error("kernel = \"k.s\"\ngrid = 4\nworkgroup = 4\ncolour = 1\n");
        assert!(
            e.starts_with("dir/launch.toml:") && e.contains("colour"),
            "{e}"
        );
        let e = error("grid = 4\nworkgroup = 4\n");
        assert!(e.contains("missing field `kernel`"), "{e}");
        let e = error("kernel = 3\ngrid = 4\nworkgroup = 4\n");
        assert!(e.contains("kernel"), "{e}");
        let e = error("kernel = \"k.s\"\ngrid = [4, 2, 1, 1]\nworkgroup = 4\n");
        assert!(e.contains("`grid`") && e.contains("at most 3"), "{e}");
        let e = error("kernel = \"k.s\"\ngrid = [4, 0]\nworkgroup = 4\n");
        assert!(e.contains("`grid`") && e.contains("extent y is 0"), "{e}");
        let e = error("kernel = \"k.s\"\ngrid = [4, 2]\nworkgroup = [64, 32]\n");
        assert!(e.contains("`workgroup`") && e.contains("64 x 32"), "{e}");
        let e = error("kernel = \"k.s\"\ngrid = [4, 2]\nworkgroup = [1, 1, 1]\n");
        assert!(
            e.contains("`workgroup`") && e.contains("3 dimensions"),
            "{e}"
        );
        let e = error("kernel = \"k.s\"\ngrid = [65536, 65536, 65536]\nworkgroup = 1\n");
        assert!(e.contains("`grid`"), "{e}");
        let e = error("kernel = \"k.s\"\ngrid = 0\nworkgroup = 4\n");
        assert!(e.contains("`grid`"), "{e}");
        let e = error("kernel = \"k.s\"\ngrid = 4\nworkgroup = 2000\n");
        assert!(e.contains("`workgroup`"), "{e}");
        let e = error("kernel = \"k.s\"\ngrid = 4\nworkgroup = 4\nargs = [\"nope\"]\n");
        assert!(e.contains("args[0]") && e.contains("nope"), "{e}");
        let e = error(
            "kernel = \"k.s\"\ngrid = 4\nworkgroup = 4\n[[buffer]]\nname = \"a\"\ntype = \"i32\"\ndata = [1, 3000000000]\n",
        );
        assert!(
            e.contains("buffer[0] (a).data[1]") && e.contains("i32"),
            "{e}"
        );
        let e = error(
            "kernel = \"k.s\"\ngrid = 4\nworkgroup = 4\n[[buffer]]\nname = \"a\"\ntype = \"f128\"\nlen = 1\n",
        );
        assert!(e.contains("f128"), "{e}");
        let e = error(
            "kernel = \"k.s\"\ngrid = 4\nworkgroup = 4\n[[buffer]]\nname = \"a\"\ntype = \"u32\"\n",
        );
        assert!(e.contains("buffer[0] (a)") && e.contains("`len`"), "{e}");
        let e = error(
            "kernel = \"k.s\"\ngrid = 4\nworkgroup = 4\n[[buffer]]\nname = \"a\"\ntype = \"u32\"\ndata = [-1]\n",
        );
        assert!(e.contains("-1 is out of range for u32"), "{e}");
        let e = error(
            "kernel = \"k.s\"\ngrid = 4\nworkgroup = 4\n[[buffer]]\nname = \"a\"\ntype = \"u32\"\ndata = [1, 2]\nlen = 1\n",
        );
        assert!(e.contains("buffer[0] (a).len"), "{e}");
        let e = error(
            "kernel = \"k.s\"\ngrid = 4\nworkgroup = 4\n[[buffer]]\nname = \"a\"\ntype = \"u32\"\nlen = 1\n[[buffer]]\nname = \"a\"\ntype = \"u32\"\nlen = 1\n",
        );
        assert!(e.contains("duplicate"), "{e}");
    }

    #[test]
    fn data_files_are_read_relative_to_the_manifest() {
        let dir = std::env::temp_dir().join(format!("pws-manifest-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.txt"), "1 2 # comment\n-3\n0x10\n").unwrap();
        std::fs::write(dir.join("bad.txt"), "1\n2x\n").unwrap();
        let text = |file: &str| {
            format!(
                "kernel = \"k.s\"\ngrid = 4\nworkgroup = 4\n[[buffer]]\nname = \"a\"\n\
                 type = \"i32\"\nfile = \"{file}\"\nlen = 6\n"
            )
        };
        let m = Manifest::parse(&text("a.txt"), dir.join("l.toml")).unwrap();
        assert_eq!(m.buffers[0].init, vec![1, 2, (-3i32) as u32, 16, 0, 0]);
        let e = Manifest::parse(&text("bad.txt"), dir.join("l.toml"))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(&format!(
                "{}:2:1: not an integer",
                dir.join("bad.txt").display()
            )) && e.ends_with(&format!(
                "(key `buffer[0] (a).file` of {}:7:8)",
                dir.join("l.toml").display()
            )),
            "{e}"
        );
        let e = Manifest::parse(&text("missing.txt"), dir.join("l.toml"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(
                ":7:8: key `buffer[0] (a).file`: `missing.txt` (relative to the manifest): "
            ) && e.ends_with("missing.txt: cannot read: No such file or directory"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_data_file_is_never_quoted_and_must_be_a_regular_file() {
        let text = |file: &str| {
            format!(
                "kernel = \"k.s\"\ngrid = 4\nworkgroup = 4\n[[buffer]]\nname = \"a\"\n\
                 type = \"i32\"\nfile = \"{file}\"\n"
            )
        };
        let e = Manifest::parse(&text("/etc/passwd"), "l.toml")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("/etc/passwd:1:1: not an integer"), "{e}");
        assert!(!e.contains("root"), "{e}");
        for device in ["/dev/zero", "/dev/urandom"] {
            let e = Manifest::parse(&text(device), "l.toml")
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("is a character device, not a regular file"),
                "{e}"
            );
        }
    }

    #[test]
    fn errors_have_line_and_column() {
        let e = error("kernel = \"k.s\"\ngrid = 4\nworkgroup = 4\ncolour = 1\n");
        assert!(
            e.starts_with("dir/launch.toml:4:1: unknown field `colour`"),
            "{e}"
        );
        let e = error("kernel = \"k.s\"\ngrid = 4\n  workgroup = 2000\n");
        assert!(
            e.starts_with(
                "dir/launch.toml:3:15: key `workgroup`: 2000 work-items is out of range 1..=1024"
            ),
            "{e}"
        );
        let e = error("kernel = \"k.s\"\ngrid = 4\nworkgroup = 4\nargs = [1, \"x\"]\n");
        assert!(e.starts_with("dir/launch.toml:4:12: key `args[1]`"), "{e}");
        let e = error(&format!(
            "kernel = \"k.s\"\ngrid = 4\nworkgroup = 4\n{} = 1\n",
            "\u{1b}".repeat(10) + &"k".repeat(10_000)
        ));
        assert!(e.len() < 300 && !e.contains('\u{1b}'), "{e}");
    }

    /// A kernel with metadata gets each argument at clang's offset, in clang's size; one
    /// without keeps the packed layout.
    #[test]
    fn arguments_go_where_the_kernels_metadata_puts_them() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("k.s"),
            "k:\n\ts_endpgm\n\t.amdhsa_kernel k\n\t.end_amdhsa_kernel\n\t.amdgpu_metadata\n\
             amdhsa.kernels:\n  - .args:\n\
             \x20     - { .offset: 0, .size: 1, .type_name: char, .value_kind: by_value }\n\
             \x20     - { .offset: 8, .size: 8, .type_name: 'int*', .value_kind: global_buffer }\n\
             \x20     - { .offset: 16, .size: 6, .type_name: ushort3, .value_kind: by_value }\n\
             \x20     - { .offset: 24, .size: 8, .value_kind: hidden_global_offset_x }\n\
             \x20   .name: k\n\t.end_amdgpu_metadata\n",
        )
        .unwrap();
        let text = "kernel = \"k.s\"\ngrid = 1\nworkgroup = 1\nargs = [-1, \"b\", [1, 2, 65535]]\n\
                    [[buffer]]\nname = \"b\"\ntype = \"i32\"\nlen = 1\n";
        // A size that is not its type's makes the value raw bytes, which a list cannot fill.
        let e = Manifest::parse(text, dir.path().join("m.toml"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("key `args[2]`: `ushort3` (6 bytes) is not an OpenCL C scalar"),
            "{e}"
        );
        std::fs::write(
            dir.path().join("k.s"),
            std::fs::read_to_string(dir.path().join("k.s"))
                .unwrap()
                .replace(".size: 6", ".size: 8"),
        )
        .unwrap();
        let m = Manifest::parse(text, dir.path().join("m.toml")).unwrap();
        assert_eq!(m.arg_layout(), vec![0, 8, 16]);
        let abi = LaunchAbi {
            kernarg_size: 32,
            ..LaunchAbi::legacy()
        };
        assert_eq!(
            m.memory_image(&abi).kernarg_words,
            vec![0xFF, 0, 0x1_0000, 0, 0x2_0001, 0xFFFF, 0, 0]
        );
        let e = Manifest::parse(&text.replace("[-1, ", "["), dir.path().join("m.toml"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("key `args`: the kernel takes 3 arguments, `k(char, int*, ushort3)`"),
            "{e}"
        );
    }

    #[test]
    fn a_large_kernarg_segment_moves_the_buffers_instead_of_overlapping_them() {
        let values = vec!["7"; 20_000].join(", ");
        let m = parse(&format!(
            "kernel = \"k.s\"\ngrid = 1\nworkgroup = 1\nargs = [{values}, \"b\"]\n\
             [[buffer]]\nname = \"b\"\ntype = \"i32\"\nlen = 4\n"
        ))
        .unwrap();
        let img = m.memory_image(&LaunchAbi::legacy());
        assert_eq!(img.kernarg_words.len(), 20_002);
        assert!(
            img.kernarg.end() + layout::GUARD_BYTES <= img.buffers[0].base,
            "{img:?}"
        );
        assert_eq!(img.buffers[0].base % layout::REGION_ALIGN, 0);
        assert_eq!(img.kernarg_words[20_000] as u64, img.buffers[0].base);
        // Below the threshold the documented layout holds.
        assert_eq!(
            parse(FIG2)
                .unwrap()
                .memory_image(&LaunchAbi::legacy())
                .buffers[0]
                .base,
            layout::BUFFER_BASE
        );
    }

    #[test]
    fn the_memory_budget_is_checked_before_allocating() {
        let buffers: String = (0..100)
            .map(|i| format!("[[buffer]]\nname = \"b{i}\"\ntype = \"u32\"\nlen = 16777216\n"))
            .collect();
        let e = error(&format!(
            "kernel = \"k.s\"\ngrid = 1\nworkgroup = 1\n{buffers}"
        ));
        assert!(
            e.starts_with("dir/launch.toml: the launch needs 6.3 GiB (100 buffer(s) as declared), more than the memory budget of 1 GiB (raise it with --max-memory SIZE)"),
            "{e}"
        );
        let m = parse(FIG2).unwrap();
        assert_eq!(m.memory_bytes(), 2 * (16 + 64 + 1) + 4 * 6 + 2);
    }
}
