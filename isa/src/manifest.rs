//! Launch manifest: the TOML file that says which kernel runs on which data (grid and
//! workgroup size, buffers, kernel arguments), plus the launch ABI and global-memory layout
//! every executor (golden model, RTL simulation) must share so that their memories can be
//! compared word for word. The format and the ABI are documented in docs/manifest.md.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};

use crate::diag;
use crate::input::{self, InputError};

/// Work-items per wavefront (GCN3 wave64).
pub const WAVEFRONT_SIZE: u32 = 64;

/// Largest grid (total work-items) a manifest may ask for; keeps a typo from allocating
/// gigabytes of register state.
pub const MAX_GRID: u64 = 1 << 24;
/// Largest workgroup (GCN3's flat workgroup limit).
pub const MAX_WORKGROUP: u64 = 1024;
/// Largest buffer, in 32-bit elements (64 MiB).
pub const MAX_BUFFER_ELEMENTS: u64 = 1 << 24;

/// Register ABI of a launch: what the dispatcher writes into a wavefront before its first
/// instruction. It is what clang-14 `-mcpu=fiji` emits for an OpenCL kernel that reads its
/// arguments and `__builtin_amdgcn_workgroup_id_x()` / `__builtin_amdgcn_workitem_id_x()`:
/// `.amdhsa_user_sgpr_private_segment_buffer 1`, `.amdhsa_user_sgpr_kernarg_segment_ptr 1`,
/// `.amdhsa_system_sgpr_workgroup_id_x 1`, `.amdhsa_system_vgpr_workitem_id 0`.
pub mod abi {
    /// s[0:3]: private segment buffer descriptor. There is no scratch memory; it is zero.
    pub const PRIVATE_SEGMENT_BUFFER_SGPR: u8 = 0;
    /// s[4:5]: 64-bit byte address of the kernarg segment.
    pub const KERNARG_SEGMENT_PTR_SGPR: u8 = 4;
    /// s6: workgroup id x.
    pub const WORKGROUP_ID_X_SGPR: u8 = 6;
    /// v0: work-item id x within the workgroup (wavefront w, lane l: w * 64 + l).
    pub const WORKITEM_ID_X_VGPR: u8 = 0;
}

/// Global-memory layout shared by every executor. Address 0 and everything outside the
/// kernarg segment and the buffers is unmapped: an access there is an error.
pub mod layout {
    /// Byte address of the kernarg segment.
    pub const KERNARG_BASE: u64 = 0x1000;
    /// Byte address of the first buffer, unless the kernarg segment reaches past
    /// `BUFFER_BASE - GUARD_BYTES`: then the buffers start after it and its guard.
    pub const BUFFER_BASE: u64 = 0x1_0000;
    /// Every address of the layout lies below this (the compute unit's memory port carries
    /// the low 32 bits of an address).
    pub const ADDRESS_LIMIT: u64 = 1 << 32;
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

/// Bytes a buffer of `elements` words named `name` takes, with its bookkeeping.
fn buffer_bytes(elements: u64, name: &str) -> u64 {
    4 * elements + name.len() as u64 + 64
}

/// Element type of a buffer; the report prints values with it. Memory itself holds 32-bit
/// words, the kernel decides how to interpret them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElemType {
    #[default]
    I32,
    U32,
}

impl ElemType {
    /// Checks that `value` fits the type and returns its 32-bit two's-complement word.
    fn word(self, value: i64) -> Option<u32> {
        match self {
            ElemType::I32 => i32::try_from(value).ok().map(|v| v as u32),
            ElemType::U32 => u32::try_from(value).ok(),
        }
    }
}

impl fmt::Display for ElemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ElemType::I32 => "i32",
            ElemType::U32 => "u32",
        })
    }
}

/// A buffer of the launch with its initial contents (32-bit words).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Buffer {
    pub name: String,
    pub ty: ElemType,
    pub init: Vec<u32>,
    /// The contents the kernel must leave, when the manifest gives them (`expect`): computed
    /// outside pws, they check every executor, the golden model included.
    pub expect: Option<Vec<u32>>,
}

/// One kernel argument, in kernarg order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KernelArg {
    /// The 64-bit base address of the named buffer (8 bytes, 8-byte aligned).
    Buffer(String),
    /// A 32-bit integer (4 bytes, 4-byte aligned), given as i32 or u32.
    Value(u32),
}

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
    /// Total work-items (1-D).
    pub grid: u32,
    /// Work-items per workgroup (1-D). The last workgroup may be partial.
    pub workgroup: u32,
    pub buffers: Vec<Buffer>,
    pub args: Vec<KernelArg>,
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
    pub kernarg: Region,
    /// Kernarg segment contents, little-endian 32-bit words.
    pub kernarg_words: Vec<u32>,
    /// One region per manifest buffer, in manifest order.
    pub buffers: Vec<Region>,
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
        "key `{key}`: `{}` (relative to the manifest): {source}",
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
    #[error(transparent)]
    Budget(#[from] BudgetError),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawManifest {
    kernel: String,
    entry: Option<String>,
    #[serde(default)]
    cflags: Vec<String>,
    #[serde(default)]
    loop_bounds: BTreeMap<String, u64>,
    grid: Dim,
    workgroup: Dim,
    #[serde(default)]
    args: Vec<RawArg>,
    #[serde(default, rename = "buffer")]
    buffers: Vec<RawBuffer>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBuffer {
    name: String,
    #[serde(rename = "type")]
    ty: ElemType,
    data: Option<Vec<i64>>,
    file: Option<String>,
    len: Option<u64>,
    expect: Option<RawExpect>,
}

/// Expected final contents: inline values or a data file.
#[derive(Deserialize)]
#[serde(untagged)]
enum RawExpect {
    Data(Vec<i64>),
    File(String),
}

/// `x` or `[x]` (or `[x, 1]`, `[x, 1, 1]`): the extents of a 1-D launch.
struct Dim(Vec<u64>);

impl<'de> Deserialize<'de> for Dim {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct DimVisitor;
        impl<'de> Visitor<'de> for DimVisitor {
            type Value = Dim;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a positive integer or an array [x] of one")
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

/// A kernel argument as written: a buffer name or an integer.
enum RawArg {
    Buffer(String),
    Value(i64),
}

impl<'de> Deserialize<'de> for RawArg {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ArgVisitor;
        impl Visitor<'_> for ArgVisitor {
            type Value = RawArg;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a buffer name (string) or a 32-bit integer")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RawArg, E> {
                Ok(RawArg::Buffer(v.to_string()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RawArg, E> {
                Ok(RawArg::Value(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RawArg, E> {
                i64::try_from(v)
                    .map(RawArg::Value)
                    .map_err(|_| E::custom(format!("{v} does not fit 32 bits")))
            }
        }
        d.deserialize_any(ArgVisitor)
    }
}

impl Manifest {
    /// Reads and checks the manifest at `path` (and the data files it names), through the
    /// bounded reader ([`input`]).
    pub fn load(path: impl AsRef<Path>) -> Result<Manifest, ManifestError> {
        let path = path.as_ref();
        let text = input::read_text(path, input::Kind::Manifest).map_err(|e| ManifestError {
            path: path.to_path_buf(),
            at: None,
            kind: ManifestErrorKind::Read(e),
        })?;
        Manifest::parse(&text, path)
    }

    /// Parses manifest `text` as if it were the file `path`: errors name `path`, and the
    /// kernel and data files are resolved relative to its directory.
    pub fn parse(text: &str, path: impl AsRef<Path>) -> Result<Manifest, ManifestError> {
        let path = path.as_ref();
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

        if raw.kernel.is_empty() {
            return Err(invalid("kernel", "empty path".into()));
        }
        let grid = one_dim(&raw.grid, MAX_GRID).map_err(|m| invalid("grid", m))?;
        let workgroup =
            one_dim(&raw.workgroup, MAX_WORKGROUP).map_err(|m| invalid("workgroup", m))?;

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
                buffer_bytes(n.min(MAX_BUFFER_ELEMENTS), &b.name)
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
            let mut init: Vec<u32> = match (&b.data, &b.file) {
                (Some(_), Some(_)) => {
                    return Err(invalid(&key, "give `data` or `file`, not both".into()))
                }
                (Some(data), None) => {
                    let mut words = Vec::with_capacity(data.len());
                    for (j, &v) in data.iter().enumerate() {
                        words.push(b.ty.word(v).ok_or_else(|| {
                            invalid(
                                &format!("{key}.data[{j}]"),
                                format!("{v} is out of range for {}", b.ty),
                            )
                        })?);
                    }
                    words
                }
                (None, Some(file)) => {
                    let file_key = format!("{key}.file");
                    read_data_file(&dir.join(file), b.ty).map_err(|e| match e {
                        DataError::Read(source) => fail(ManifestErrorKind::File {
                            key: file_key.clone(),
                            written: file.clone(),
                            source,
                        }),
                        DataError::Value(message) => fail(ManifestErrorKind::Data {
                            key: file_key.clone(),
                            message,
                        }),
                    })?
                }
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
            allocated += buffer_bytes(len, &b.name);
            check_budget(allocated, || {
                format!("buffers up to `{}`", diag::value(&b.name))
            })
            .map_err(|e| fail(e.into()))?;
            init.resize(len as usize, 0);
            let expect = match &b.expect {
                None => None,
                Some(e) => {
                    let ekey = format!("{key}.expect");
                    let words = match e {
                        RawExpect::Data(d) => {
                            let mut words = Vec::with_capacity(d.len());
                            for (j, &v) in d.iter().enumerate() {
                                words.push(b.ty.word(v).ok_or_else(|| {
                                    invalid(
                                        &format!("{ekey}[{j}]"),
                                        format!("{v} is out of range for {}", b.ty),
                                    )
                                })?);
                            }
                            words
                        }
                        RawExpect::File(f) => {
                            read_data_file(&dir.join(f), b.ty).map_err(|e| match e {
                                DataError::Read(source) => fail(ManifestErrorKind::File {
                                    key: ekey.clone(),
                                    written: f.clone(),
                                    source,
                                }),
                                DataError::Value(message) => fail(ManifestErrorKind::Data {
                                    key: ekey.clone(),
                                    message,
                                }),
                            })?
                        }
                    };
                    if words.len() as u64 != len {
                        return Err(invalid(
                            &ekey,
                            format!("{} expected values for a buffer of {len}", words.len()),
                        ));
                    }
                    Some(words)
                }
            };
            buffers.push(Buffer {
                name: b.name,
                ty: b.ty,
                init,
                expect,
            });
        }

        let mut args = Vec::with_capacity(raw.args.len());
        for (i, a) in raw.args.into_iter().enumerate() {
            let key = format!("args[{i}]");
            args.push(match a {
                RawArg::Buffer(name) if by_name.contains_key(&name) => KernelArg::Buffer(name),
                RawArg::Buffer(name) => {
                    return Err(invalid(&key, format!("unknown buffer `{name}`")))
                }
                RawArg::Value(v) => KernelArg::Value(
                    i32::try_from(v)
                        .map(|v| v as u32)
                        .or_else(|_| u32::try_from(v))
                        .map_err(|_| invalid(&key, format!("{v} does not fit 32 bits")))?,
                ),
            });
        }

        if let Some((label, _)) = raw.loop_bounds.iter().find(|(_, &b)| b == 0) {
            return Err(invalid(
                &format!("loop_bounds.{label}"),
                "a loop bound is at least 1".into(),
            ));
        }
        let source = dir.join(&raw.kernel);
        let (kernel, opencl) = if source.extension().is_some_and(|e| e == "cl") {
            let opts = crate::opencl::ClOptions {
                flags: raw.cflags.clone(),
                entry: raw.entry.clone(),
            };
            let asm = crate::opencl::compile(&source, &opts)
                .map_err(|e| fail(ManifestErrorKind::OpenCl(e)))?;
            (asm, Some(source))
        } else {
            if !raw.cflags.is_empty() {
                return Err(invalid(
                    "cflags",
                    "compiler flags apply to an OpenCL C kernel (`kernel = \"k.cl\"`) only".into(),
                ));
            }
            (source, None)
        };

        let manifest = Manifest {
            path: path.to_path_buf(),
            kernel,
            opencl,
            cflags: raw.cflags,
            entry: raw.entry,
            loop_bounds: raw.loop_bounds,
            grid,
            workgroup,
            buffers,
            args,
        };
        let end = manifest.memory_image().end();
        if end > layout::ADDRESS_LIMIT {
            return Err(invalid(
                "buffer",
                format!(
                    "the kernarg segment and the buffers need addresses up to {end:#x}; the layout must stay below 4 GiB"
                ),
            ));
        }
        let kernarg = 4 * manifest.kernarg_words() as u64;
        check_budget(allocated + kernarg, || "buffers and kernarg segment".into())
            .map_err(|e| fail(e.into()))?;
        Ok(manifest)
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

    /// Number of 32-bit words of the kernarg segment (pointers 8-byte aligned).
    fn kernarg_words(&self) -> usize {
        self.args.iter().fold(0, |n, a| match a {
            KernelArg::Buffer(_) => n.next_multiple_of(2) + 2,
            KernelArg::Value(_) => n + 1,
        })
    }

    /// Number of workgroups (the last one may be partial).
    pub fn workgroups(&self) -> u32 {
        self.grid.div_ceil(self.workgroup)
    }

    /// Work-items in workgroup `wg`.
    pub fn workgroup_items(&self, wg: u32) -> u32 {
        (self.grid - wg * self.workgroup).min(self.workgroup)
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

    /// Addresses of the kernarg segment and the buffers, and the kernarg contents. The buffers
    /// start at [`layout::BUFFER_BASE`], or after the kernarg segment and a guard gap when the
    /// segment is larger: the two never overlap.
    pub fn memory_image(&self) -> MemoryImage {
        let kernarg_end = layout::KERNARG_BASE + 4 * self.kernarg_words() as u64;
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
        let mut kernarg_words = Vec::new();
        for a in &self.args {
            match a {
                KernelArg::Buffer(name) => {
                    // 64-bit pointers are 8-byte aligned, as in the HSA kernarg layout.
                    if kernarg_words.len() % 2 == 1 {
                        kernarg_words.push(0);
                    }
                    let base = buffers
                        .iter()
                        .find(|r| &r.name == name)
                        .map_or(0, |r| r.base);
                    kernarg_words.push(base as u32);
                    kernarg_words.push((base >> 32) as u32);
                }
                KernelArg::Value(v) => kernarg_words.push(*v),
            }
        }
        MemoryImage {
            kernarg: Region {
                name: "kernarg".into(),
                base: layout::KERNARG_BASE,
                bytes: 4 * kernarg_words.len() as u64,
            },
            kernarg_words,
            buffers,
        }
    }
}

impl MemoryImage {
    /// One past the last byte of the layout.
    pub fn end(&self) -> u64 {
        self.buffers
            .iter()
            .map(Region::end)
            .fold(self.kernarg.end(), u64::max)
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

/// Checks a 1-D extent: `[x]`, `[x, 1]` or `[x, 1, 1]` with 1 <= x <= `max`.
fn one_dim(dim: &Dim, max: u64) -> Result<u32, String> {
    let (&x, rest) = dim
        .0
        .split_first()
        .ok_or_else(|| "empty array; write x or [x]".to_string())?;
    if rest.len() > 2 {
        return Err(format!("{} dimensions; at most 3", dim.0.len()));
    }
    if rest.iter().any(|&d| d != 1) {
        return Err("only 1-D launches are supported: y and z must be 1".into());
    }
    if x == 0 || x > max {
        return Err(format!("{x} is out of range 1..={max}"));
    }
    Ok(x as u32)
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
fn read_data_file(file: &Path, ty: ElemType) -> Result<Vec<u32>, DataError> {
    let text = input::read_text(file, input::Kind::BufferData).map_err(DataError::Read)?;
    let mut words = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("");
        let mut rest = line;
        while let Some(start) = rest.find(|c: char| !c.is_whitespace()) {
            let tail = &rest[start..];
            let end = tail.find(char::is_whitespace).unwrap_or(tail.len());
            let tok = &tail[..end];
            let at = || {
                let column = line[..line.len() - tail.len()].chars().count() + 1;
                format!("{}:{}:{column}", diag::path(file), n + 1)
            };
            let v = parse_int(tok).ok_or_else(|| {
                DataError::Value(format!(
                    "{}: not an integer (decimal or 0x hexadecimal)",
                    at()
                ))
            })?;
            let word = ty.word(v).ok_or_else(|| {
                DataError::Value(format!("{}: value out of range for {ty}", at()))
            })?;
            words.push(word);
            rest = &tail[end..];
        }
    }
    Ok(words)
}

fn parse_int(tok: &str) -> Option<i64> {
    let (neg, digits) = match tok.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, tok.strip_prefix('+').unwrap_or(tok)),
    };
    let magnitude = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) => i64::from_str_radix(hex, 16).ok()?,
        None if digits.bytes().all(|b| b.is_ascii_digit()) => digits.parse().ok()?,
        None => return None,
    };
    Some(if neg { -magnitude } else { magnitude })
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
        assert_eq!((m.grid, m.workgroup, m.workgroups()), (4, 4, 1));
        assert_eq!(m.buffers[0].init, vec![17, 29, 52, 80]);
        assert_eq!(m.buffers[1].init, vec![0; 4]);
        assert_eq!(m.initial_exec(0, 0), 0xF);
        let img = m.memory_image();
        assert_eq!(img.buffers[0].base, layout::BUFFER_BASE);
        assert_eq!(img.buffers[1].base, layout::BUFFER_BASE + 0x2000);
        let b = img.buffers[1].base;
        assert_eq!(
            img.kernarg_words,
            vec![0x1_0000, 0, b as u32, 0, 7, u32::MAX]
        );
    }

    #[test]
    fn value_after_odd_value_aligns_pointer() {
        let m = parse(
            "kernel = \"k.s\"\ngrid = 1\nworkgroup = 1\nargs = [3, \"b\"]\n\
             [[buffer]]\nname = \"b\"\ntype = \"i32\"\nlen = 1\n",
        )
        .unwrap();
        assert_eq!(m.memory_image().kernarg_words, vec![3, 0, 0x1_0000, 0]);
    }

    #[test]
    fn partial_workgroups_and_wavefronts() {
        let m = parse("kernel = \"k.s\"\ngrid = 300\nworkgroup = 128\n").unwrap();
        assert_eq!(m.workgroups(), 3);
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
        let e = error("kernel = \"k.s\"\ngrid = [4, 2]\nworkgroup = 4\n");
        assert!(e.contains("`grid`") && e.contains("1-D"), "{e}");
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
            "kernel = \"k.s\"\ngrid = 4\nworkgroup = 4\n[[buffer]]\nname = \"a\"\ntype = \"f32\"\nlen = 1\n",
        );
        assert!(e.contains("f32"), "{e}");
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
            e.starts_with("dir/launch.toml:3:15: key `workgroup`: 2000 is out of range"),
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

    #[test]
    fn a_large_kernarg_segment_moves_the_buffers_instead_of_overlapping_them() {
        let values = vec!["7"; 20_000].join(", ");
        let m = parse(&format!(
            "kernel = \"k.s\"\ngrid = 1\nworkgroup = 1\nargs = [{values}, \"b\"]\n\
             [[buffer]]\nname = \"b\"\ntype = \"i32\"\nlen = 4\n"
        ))
        .unwrap();
        let img = m.memory_image();
        assert_eq!(img.kernarg_words.len(), 20_002);
        assert!(
            img.kernarg.end() + layout::GUARD_BYTES <= img.buffers[0].base,
            "{img:?}"
        );
        assert_eq!(img.buffers[0].base % layout::REGION_ALIGN, 0);
        assert_eq!(img.kernarg_words[20_000] as u64, img.buffers[0].base);
        // Below the threshold the documented layout holds.
        assert_eq!(
            parse(FIG2).unwrap().memory_image().buffers[0].base,
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
