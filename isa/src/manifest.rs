//! Launch manifest: the TOML file that says which kernel runs on which data (grid and
//! workgroup size, buffers, kernel arguments), plus the launch ABI and global-memory layout
//! every executor (golden model, RTL simulation) must share so that their memories can be
//! compared word for word. The format and the ABI are documented in docs/manifest.md.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};

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
    /// Byte address of the first buffer.
    pub const BUFFER_BASE: u64 = 0x1_0000;
    /// Every buffer starts on a multiple of this.
    pub const REGION_ALIGN: u64 = 0x1000;
    /// Unmapped bytes left after each buffer, so that running off its end is an error and
    /// never a silent write into the next buffer.
    pub const GUARD_BYTES: u64 = 0x1000;
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

/// A manifest that could not be read or is invalid. The message names the file and the key.
#[derive(Debug, thiserror::Error)]
#[error("{}: {kind}", path.display())]
pub struct ManifestError {
    pub path: PathBuf,
    pub kind: ManifestErrorKind,
}

#[derive(Debug, thiserror::Error)]
pub enum ManifestErrorKind {
    #[error("cannot read {}: {source}", file.display())]
    Io {
        file: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    Syntax(Box<toml::de::Error>),
    #[error("key `{key}`: {message}")]
    Invalid { key: String, message: String },
    #[error("key `kernel`: {0}")]
    OpenCl(crate::opencl::ClError),
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
    /// Reads and checks the manifest at `path` (and the data files it names).
    pub fn load(path: impl AsRef<Path>) -> Result<Manifest, ManifestError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| ManifestError {
            path: path.to_path_buf(),
            kind: ManifestErrorKind::Io {
                file: path.to_path_buf(),
                source,
            },
        })?;
        Manifest::parse(&text, path)
    }

    /// Parses manifest `text` as if it were the file `path`: errors name `path`, and the
    /// kernel and data files are resolved relative to its directory.
    pub fn parse(text: &str, path: impl AsRef<Path>) -> Result<Manifest, ManifestError> {
        let path = path.as_ref();
        let fail = |kind| ManifestError {
            path: path.to_path_buf(),
            kind,
        };
        let invalid = |key: &str, message: String| {
            fail(ManifestErrorKind::Invalid {
                key: key.to_string(),
                message,
            })
        };
        let raw: RawManifest =
            toml::from_str(text).map_err(|e| fail(ManifestErrorKind::Syntax(Box::new(e))))?;
        let dir = path.parent().unwrap_or(Path::new(""));

        if raw.kernel.is_empty() {
            return Err(invalid("kernel", "empty path".into()));
        }
        let grid = one_dim(&raw.grid, MAX_GRID).map_err(|m| invalid("grid", m))?;
        let workgroup =
            one_dim(&raw.workgroup, MAX_WORKGROUP).map_err(|m| invalid("workgroup", m))?;

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
            let values: Vec<(i64, String)> = match (&b.data, &b.file) {
                (Some(_), Some(_)) => {
                    return Err(invalid(&key, "give `data` or `file`, not both".into()))
                }
                (Some(data), None) => data
                    .iter()
                    .enumerate()
                    .map(|(j, &v)| (v, format!("{key}.data[{j}]")))
                    .collect(),
                (None, Some(file)) => {
                    read_data_file(&dir.join(file), &format!("{key}.file")).map_err(fail)?
                }
                (None, None) if b.len.is_none() => {
                    return Err(invalid(&key, "needs `data`, `file` or `len`".into()))
                }
                (None, None) => Vec::new(),
            };
            let len = b.len.unwrap_or(values.len() as u64);
            if len > MAX_BUFFER_ELEMENTS {
                return Err(invalid(
                    &format!("{key}.len"),
                    format!("{len} elements exceed the limit of {MAX_BUFFER_ELEMENTS}"),
                ));
            }
            if (values.len() as u64) > len {
                return Err(invalid(
                    &format!("{key}.len"),
                    format!("{} initial values do not fit len = {len}", values.len()),
                ));
            }
            let mut init = Vec::with_capacity(len as usize);
            for (v, vkey) in values {
                let word = b
                    .ty
                    .word(v)
                    .ok_or_else(|| invalid(&vkey, format!("{v} is out of range for {}", b.ty)))?;
                init.push(word);
            }
            init.resize(len as usize, 0);
            let expect = match &b.expect {
                None => None,
                Some(e) => {
                    let ekey = format!("{key}.expect");
                    let values: Vec<(i64, String)> = match e {
                        RawExpect::Data(d) => d
                            .iter()
                            .enumerate()
                            .map(|(j, &v)| (v, format!("{ekey}[{j}]")))
                            .collect(),
                        RawExpect::File(f) => {
                            read_data_file(&dir.join(f), &ekey).map_err(fail)?
                        }
                    };
                    if values.len() as u64 != len {
                        return Err(invalid(
                            &ekey,
                            format!("{} expected values for a buffer of {len}", values.len()),
                        ));
                    }
                    let mut words = Vec::with_capacity(values.len());
                    for (v, vkey) in values {
                        words.push(b.ty.word(v).ok_or_else(|| {
                            invalid(&vkey, format!("{v} is out of range for {}", b.ty))
                        })?);
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

        Ok(Manifest {
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
        })
    }

    /// Reads the kernel's assembly source.
    pub fn kernel_source(&self) -> Result<String, ManifestError> {
        std::fs::read_to_string(&self.kernel).map_err(|source| ManifestError {
            path: self.path.clone(),
            kind: ManifestErrorKind::Io {
                file: self.kernel.clone(),
                source,
            },
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

    /// Addresses of the kernarg segment and the buffers, and the kernarg contents.
    pub fn memory_image(&self) -> MemoryImage {
        let mut buffers = Vec::with_capacity(self.buffers.len());
        let mut next = layout::BUFFER_BASE;
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

/// Reads a data file: integers (decimal, or hex with 0x) separated by whitespace; `#` starts
/// a comment that runs to the end of the line.
fn read_data_file(file: &Path, key: &str) -> Result<Vec<(i64, String)>, ManifestErrorKind> {
    let text = std::fs::read_to_string(file).map_err(|source| ManifestErrorKind::Io {
        file: file.to_path_buf(),
        source,
    })?;
    let mut values = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("");
        for tok in line.split_whitespace() {
            let vkey = format!("{key} ({}:{})", file.display(), n + 1);
            let v = parse_int(tok).ok_or_else(|| ManifestErrorKind::Invalid {
                key: vkey.clone(),
                message: format!("`{tok}` is not an integer"),
            })?;
            values.push((v, vkey));
        }
    }
    Ok(values)
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
        assert!(e.contains("bad.txt:2") && e.contains("`2x`"), "{e}");
        let e = Manifest::parse(&text("missing.txt"), dir.join("l.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("missing.txt"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
