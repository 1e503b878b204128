//! Launch manifest: the TOML file that says which kernel runs on which data (grid and
//! workgroup extents in 1 to 3 dimensions, buffers, kernel arguments), plus the numbering of
//! workgroups and work-items and the global-memory layout every executor (golden model, RTL
//! simulation) must share so that their memories can be compared word for word. The registers
//! a wavefront starts with are [`crate::abi`]'s. Both are documented in docs/manifest.md.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};

use crate::abi::LaunchAbi;

/// Work-items per wavefront (GCN3 wave64).
pub const WAVEFRONT_SIZE: u32 = 64;

/// Largest grid (total work-items) a manifest may ask for; keeps a typo from allocating
/// gigabytes of register state.
pub const MAX_GRID: u64 = 1 << 24;
/// Largest workgroup (GCN3's flat workgroup limit).
pub const MAX_WORKGROUP: u64 = 1024;
/// Largest buffer, in 32-bit elements (64 MiB).
pub const MAX_BUFFER_ELEMENTS: u64 = 1 << 24;

/// Global-memory layout shared by every executor. Address 0 and everything outside the
/// kernarg segment and the buffers is unmapped: an access there is an error.
pub mod layout {
    /// Byte address of the HSA kernel dispatch packet (64 bytes, read-only).
    pub const DISPATCH_PACKET_BASE: u64 = 0x800;
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElemType {
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
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buffer {
    pub name: String,
    pub ty: ElemType,
    pub init: Vec<u32>,
}

/// One kernel argument, in kernarg order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KernelArg {
    /// The 64-bit base address of the named buffer (8 bytes, 8-byte aligned).
    Buffer(String),
    /// A 32-bit integer (4 bytes, 4-byte aligned), given as i32 or u32.
    Value(u32),
}

/// A parsed and checked launch manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Manifest {
    /// The manifest file itself (errors name it; relative paths are resolved against it).
    pub path: PathBuf,
    /// The kernel source, resolved relative to the manifest.
    pub kernel: PathBuf,
    /// Work-items in x, y, z (1 in the dimensions the manifest leaves out).
    pub grid: [u32; 3],
    /// Work-items per workgroup in x, y, z. The last workgroup of a dimension may be partial.
    pub workgroup: [u32; 3],
    /// Dimensions of the launch (1..=3): how many extents `grid` gives.
    pub dims: u32,
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
    /// The HSA kernel dispatch packet (read-only).
    pub dispatch_packet: Region,
    pub dispatch_packet_words: Vec<u32>,
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
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawManifest {
    kernel: String,
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
}

/// `x`, `[x]`, `[x, y]` or `[x, y, z]`: the extents of a launch or a workgroup.
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
        let (grid, dims) = extents(&raw.grid, MAX_GRID).map_err(|m| invalid("grid", m))?;
        let (workgroup, wg_dims) =
            extents(&raw.workgroup, MAX_WORKGROUP).map_err(|m| invalid("workgroup", m))?;
        if wg_dims > dims {
            return Err(invalid(
                "workgroup",
                format!("{wg_dims} dimensions, but the grid has {dims}"),
            ));
        }

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
            buffers.push(Buffer {
                name: b.name,
                ty: b.ty,
                init,
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

        Ok(Manifest {
            path: path.to_path_buf(),
            kernel: dir.join(&raw.kernel),
            grid,
            workgroup,
            dims,
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
    /// of the two read-only segments for a kernel with launch ABI `abi` (its kernarg segment is
    /// at least `abi.kernarg_size` bytes: hidden arguments read 0).
    pub fn memory_image(&self, abi: &LaunchAbi) -> MemoryImage {
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
        let hidden = (abi.kernarg_size as usize).div_ceil(4);
        if kernarg_words.len() < hidden {
            kernarg_words.resize(hidden, 0);
        }
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
        }
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
    fn hidden_kernel_arguments_read_zero() {
        let m = parse("kernel = \"k.s\"\ngrid = 1\nworkgroup = 1\nargs = [3]\n").unwrap();
        let abi = LaunchAbi {
            kernarg_size: 10,
            ..LaunchAbi::legacy()
        };
        assert_eq!(m.memory_image(&abi).kernarg_words, vec![3, 0, 0]);
        assert_eq!(m.memory_image(&abi).kernarg.bytes, 12);
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
        assert_eq!(m.workitem_id(1, 1), [0, 1, 0], "partial workgroup packs 1 x 2");
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
        assert!(e.contains("`workgroup`") && e.contains("3 dimensions"), "{e}");
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
