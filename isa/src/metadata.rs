//! The code object metadata clang writes after the kernels (`.amdgpu_metadata`, the YAML of
//! AMDGPU code object v3): where each kernel argument lies in the kernarg segment and what it
//! is, and the workgroup sizes the code was compiled for. An HSA runtime lays out a launch's
//! arguments and checks its workgroup from this record; the manifest does the same
//! ([`crate::manifest`]), so a `char`, `long` or `float4` argument lands where the kernel
//! loads it, and a launch the code was not compiled for is refused instead of computing
//! garbage.

use std::fmt;

use yaml_rust2::{Yaml, YamlLoader};

use crate::elem::ElemType;

/// What the metadata says about one kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelMetadata {
    pub name: String,
    /// Every argument in kernarg order, the hidden ones (global offsets, printf buffer, ...)
    /// included.
    pub args: Vec<ArgMetadata>,
    /// The most work-items per workgroup the code allows (`.max_flat_workgroup_size`; clang
    /// assumes 256 for OpenCL unless the kernel says otherwise).
    pub max_flat_workgroup_size: Option<u32>,
    /// `__attribute__((reqd_work_group_size(x, y, z)))`.
    pub reqd_workgroup_size: Option<[u32; 3]>,
    /// The OpenCL C version the kernel was compiled as (`.language: OpenCL C` and its
    /// `.language_version`), `None` for another language or none given.
    pub opencl_version: Option<(u32, u32)>,
}

impl KernelMetadata {
    /// The arguments a launch gives (the hidden ones are the runtime's).
    pub fn explicit_args(&self) -> impl Iterator<Item = &ArgMetadata> {
        self.args.iter().filter(|a| a.kind != ValueKind::Hidden)
    }

    /// The kernel's parameter list as OpenCL C writes it: `(int* out, char c, float4 v)`.
    pub fn signature(&self) -> String {
        let params: Vec<String> = self.explicit_args().map(ArgMetadata::describe).collect();
        format!("{}({})", self.name, params.join(", "))
    }
}

/// One kernel argument's slot in the kernarg segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgMetadata {
    /// The parameter's name (clang writes it with `-cl-kernel-arg-info`).
    pub name: Option<String>,
    /// The parameter's type as written in the source (`float4`, `int*`, a struct's name, a
    /// typedef's name).
    pub type_name: Option<String>,
    /// The type with its typedefs resolved, where it differs from `type_name` (`float` for a
    /// `typedef float DATA_TYPE` parameter): pws records it when it compiles a kernel
    /// ([`crate::base_types`]).
    pub base_type_name: Option<String>,
    pub offset: u32,
    pub size: u32,
    pub kind: ValueKind,
}

impl ArgMetadata {
    /// `int* out`, `float4 v`, or the kind when clang wrote no type.
    pub fn describe(&self) -> String {
        let ty = self.type_name.clone().unwrap_or_else(|| match self.kind {
            ValueKind::GlobalBuffer => "a global pointer".into(),
            ValueKind::DynamicSharedPointer => "a __local pointer".into(),
            _ => format!("{} bytes", self.size),
        });
        match &self.name {
            Some(n) => format!("{ty} {n}"),
            None => ty,
        }
    }

    /// The type with typedefs resolved when pws knows it, else as written.
    pub fn resolved_type_name(&self) -> Option<&str> {
        self.base_type_name.as_deref().or(self.type_name.as_deref())
    }

    /// The argument's value type, when its type name is one of OpenCL C's scalars or vectors
    /// and agrees with its size.
    pub fn value_type(&self) -> Option<ValueType> {
        let ty = ValueType::parse(self.resolved_type_name()?)?;
        (ty.bytes() == self.size).then_some(ty)
    }
}

/// How the runtime fills an argument (`.value_kind`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValueKind {
    /// A pointer to `__global` or `__constant` memory: a buffer's address.
    GlobalBuffer,
    /// A `__local` pointer: the LDS offset of memory the launch allocates.
    DynamicSharedPointer,
    /// A value copied into the segment (scalars, vectors, structs).
    ByValue,
    /// Filled by the runtime (`hidden_*`): pws leaves them 0 (no global offset, no printf
    /// buffer, no default queue).
    Hidden,
    /// Images, samplers, pipes and queues: pws has none.
    Unsupported(String),
}

/// The element type of an OpenCL C scalar type name (`uchar`, `size_t`, `half`).
fn scalar(name: &str) -> Option<ElemType> {
    Some(match name {
        "char" | "signed char" => ElemType::I8,
        "uchar" | "unsigned char" => ElemType::U8,
        "short" => ElemType::I16,
        "ushort" | "unsigned short" => ElemType::U16,
        "int" => ElemType::I32,
        "uint" | "unsigned int" => ElemType::U32,
        "long" | "ptrdiff_t" | "intptr_t" => ElemType::I64,
        "ulong" | "unsigned long" | "size_t" | "uintptr_t" => ElemType::U64,
        "half" => ElemType::F16,
        "float" => ElemType::F32,
        "double" => ElemType::F64,
        _ => return None,
    })
}

/// OpenCL C's name of a scalar type.
pub fn opencl_name(ty: ElemType) -> &'static str {
    match ty {
        ElemType::I8 => "char",
        ElemType::U8 => "uchar",
        ElemType::I16 => "short",
        ElemType::U16 => "ushort",
        ElemType::I32 => "int",
        ElemType::U32 => "uint",
        ElemType::I64 => "long",
        ElemType::U64 => "ulong",
        ElemType::F16 => "half",
        ElemType::F32 => "float",
        ElemType::F64 => "double",
    }
}

/// A scalar or vector argument type: `float`, `uchar4`, `long2`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValueType {
    pub scalar: ElemType,
    /// 1 for a scalar; 2, 3, 4, 8 or 16 for a vector.
    pub lanes: u32,
}

impl ValueType {
    pub fn parse(name: &str) -> Option<ValueType> {
        let name = name.trim();
        if let Some(scalar) = scalar(name) {
            return Some(ValueType { scalar, lanes: 1 });
        }
        let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (base, n) = name.split_at(name.len() - digits);
        let lanes = n.parse().ok().filter(|n| [2, 3, 4, 8, 16].contains(n))?;
        Some(ValueType {
            scalar: scalar(base)?,
            lanes,
        })
    }

    /// Bytes in the kernarg segment: a 3-vector takes the room of a 4-vector.
    pub fn bytes(self) -> u32 {
        self.scalar.bytes() as u32 * if self.lanes == 3 { 4 } else { self.lanes }
    }
}

/// Metadata that cannot be read, with its line in the assembly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MetadataError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for MetadataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// Largest kernarg segment the metadata may describe: HSA runtimes give a few KiB, and the
/// bound keeps a hostile record from sizing a launch's memory.
pub const MAX_KERNARG_BYTES: u32 = 64 * 1024;

/// The metadata of `kernel` in assembly `asm`, or `None` when the assembly has no
/// `.amdgpu_metadata` block (hand-written kernels), in which case arguments are packed in
/// order. A block that does not describe `kernel`, or does not parse, is an error.
pub fn kernel_metadata(asm: &str, kernel: &str) -> Result<Option<KernelMetadata>, MetadataError> {
    let Some((line, body)) = metadata_block(asm)? else {
        return Ok(None);
    };
    let err = |message: String| MetadataError { line, message };
    let docs = YamlLoader::load_from_str(&body).map_err(|e| MetadataError {
        line: line + e.marker().line(),
        message: format!("the metadata is not YAML: {}", e.info()),
    })?;
    let Some(kernels) = docs.first().and_then(|d| d["amdhsa.kernels"].as_vec()) else {
        return Err(err("the metadata has no `amdhsa.kernels` list".into()));
    };
    let names: Vec<&str> = kernels.iter().filter_map(|k| k[".name"].as_str()).collect();
    let Some(k) = kernels.iter().find(|k| k[".name"].as_str() == Some(kernel)) else {
        return Err(err(format!(
            "the metadata describes {} but not the kernel `{kernel}`",
            if names.is_empty() {
                "no kernel".to_string()
            } else {
                format!("`{}`", names.join("`, `"))
            }
        )));
    };
    let ctx = |m: String| err(format!("kernel `{kernel}`: {m}"));
    let args = match &k[".args"] {
        Yaml::BadValue => Vec::new(),
        Yaml::Array(a) => a
            .iter()
            .enumerate()
            .map(|(i, a)| arg(a).map_err(|m| ctx(format!("argument {i}: {m}"))))
            .collect::<Result<Vec<_>, _>>()?,
        _ => return Err(ctx("`.args` is not a list".into())),
    };
    check_layout(&args).map_err(ctx)?;
    let max_flat_workgroup_size = match &k[".max_flat_workgroup_size"] {
        Yaml::BadValue => None,
        v => Some(u32_of(v).map_err(|m| ctx(format!(".max_flat_workgroup_size: {m}")))?),
    };
    let reqd_workgroup_size = match &k[".reqd_workgroup_size"] {
        Yaml::BadValue => None,
        Yaml::Array(v) if v.len() == 3 => {
            let mut xyz = [0; 3];
            for (d, v) in xyz.iter_mut().zip(v) {
                *d = u32_of(v).map_err(|m| ctx(format!(".reqd_workgroup_size: {m}")))?;
            }
            Some(xyz)
        }
        _ => return Err(ctx(".reqd_workgroup_size is not a list of 3 sizes".into())),
    };
    let opencl_version = match (&k[".language"], &k[".language_version"]) {
        (Yaml::String(l), Yaml::Array(v)) if l == "OpenCL C" && v.len() == 2 => Some((
            u32_of(&v[0]).map_err(|m| ctx(format!(".language_version: {m}")))?,
            u32_of(&v[1]).map_err(|m| ctx(format!(".language_version: {m}")))?,
        )),
        _ => None,
    };
    Ok(Some(KernelMetadata {
        name: kernel.to_string(),
        args,
        max_flat_workgroup_size,
        reqd_workgroup_size,
        opencl_version,
    }))
}

/// The line of `.amdgpu_metadata` (1-based) and the YAML after it, up to
/// `.end_amdgpu_metadata`.
pub(crate) fn metadata_block(asm: &str) -> Result<Option<(usize, String)>, MetadataError> {
    let mut lines = asm.lines().enumerate();
    let Some((start, _)) = lines.by_ref().find(|(_, l)| l.trim() == ".amdgpu_metadata") else {
        return Ok(None);
    };
    let mut body = String::new();
    for (_, l) in lines {
        if l.trim() == ".end_amdgpu_metadata" {
            return Ok(Some((start + 1, body)));
        }
        body.push_str(l);
        body.push('\n');
    }
    Err(MetadataError {
        line: start + 1,
        message: ".amdgpu_metadata block without .end_amdgpu_metadata".into(),
    })
}

fn u32_of(v: &Yaml) -> Result<u32, String> {
    v.as_i64()
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| "not a 32-bit unsigned integer".to_string())
}

fn arg(a: &Yaml) -> Result<ArgMetadata, String> {
    let text = |key: &str| match &a[key] {
        Yaml::BadValue => Ok(None),
        Yaml::String(s) => Ok(Some(s.clone())),
        _ => Err(format!("`{key}` is not a string")),
    };
    let number = |key: &str| match &a[key] {
        Yaml::BadValue => Err(format!("no `{key}`")),
        v => u32_of(v).map_err(|m| format!("`{key}` is {m}")),
    };
    let kind = match text(".value_kind")?.as_deref() {
        None => return Err("no `.value_kind`".into()),
        Some("global_buffer") => ValueKind::GlobalBuffer,
        Some("dynamic_shared_pointer") => ValueKind::DynamicSharedPointer,
        Some("by_value") => ValueKind::ByValue,
        Some(k) if k.starts_with("hidden_") => ValueKind::Hidden,
        Some(k) => ValueKind::Unsupported(k.to_string()),
    };
    Ok(ArgMetadata {
        name: text(".name")?,
        type_name: text(".type_name")?,
        base_type_name: text(crate::base_types::KEY)?,
        offset: number(".offset")?,
        size: number(".size")?,
        kind,
    })
}

/// Every argument inside the segment's bound, none empty, none overlapping another.
fn check_layout(args: &[ArgMetadata]) -> Result<(), String> {
    let mut slots: Vec<(u32, u32, usize)> = Vec::with_capacity(args.len());
    for (i, a) in args.iter().enumerate() {
        let end = a
            .offset
            .checked_add(a.size)
            .filter(|&e| e <= MAX_KERNARG_BYTES);
        match end {
            _ if a.size == 0 => return Err(format!("argument {i} has size 0")),
            None => {
                return Err(format!(
                    "argument {i} ({} bytes at offset {}) lies past the {MAX_KERNARG_BYTES}-byte kernarg segment pws accepts",
                    a.size, a.offset
                ))
            }
            Some(end) => slots.push((a.offset, end, i)),
        }
    }
    slots.sort_unstable();
    for w in slots.windows(2) {
        if w[1].0 < w[0].1 {
            return Err(format!(
                "arguments {} and {} overlap (bytes {}..{} and {}..{})",
                w[0].2, w[1].2, w[0].0, w[0].1, w[1].0, w[1].1
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// clang-14's metadata of `kernel void k(global int *o, char c, long n, float4 v,
    /// local float *t)` with `-cl-kernel-arg-info`, its hidden arguments shortened.
    const CLANG: &str = r#"
	.end_amdhsa_kernel
	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - .address_space:  global
        .name:           o
        .offset:         0
        .size:           8
        .type_name:      'int*'
        .value_kind:     global_buffer
      - .name:           c
        .offset:         8
        .size:           1
        .type_name:      char
        .value_kind:     by_value
      - .name:           n
        .offset:         16
        .size:           8
        .type_name:      long
        .value_kind:     by_value
      - .name:           v
        .offset:         32
        .size:           16
        .type_name:      float4
        .value_kind:     by_value
      - .address_space:  local
        .name:           t
        .offset:         48
        .pointee_align:  1
        .size:           4
        .type_name:      'float*'
        .value_kind:     dynamic_shared_pointer
      - .offset:         56
        .size:           8
        .value_kind:     hidden_global_offset_x
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 16
    .kernarg_segment_size: 64
    .language:       OpenCL C
    .language_version:
      - 1
      - 2
    .max_flat_workgroup_size: 256
    .name:           k
    .symbol:         k.kd
amdhsa.target:   amdgcn-amd-amdhsa--gfx803
amdhsa.version:
  - 1
  - 1
...

	.end_amdgpu_metadata
"#;

    #[test]
    fn reads_clangs_argument_layout() {
        let m = kernel_metadata(CLANG, "k").unwrap().unwrap();
        assert_eq!(m.args.len(), 6);
        assert_eq!(m.explicit_args().count(), 5);
        assert_eq!(
            m.signature(),
            "k(int* o, char c, long n, float4 v, float* t)"
        );
        assert_eq!((m.args[2].offset, m.args[2].size), (16, 8));
        assert_eq!(m.args[4].kind, ValueKind::DynamicSharedPointer);
        assert_eq!(m.args[5].kind, ValueKind::Hidden);
        assert_eq!(m.max_flat_workgroup_size, Some(256));
        assert_eq!(m.reqd_workgroup_size, None);
        assert_eq!(m.opencl_version, Some((1, 2)));
        let v = m.args[3].value_type().unwrap();
        assert_eq!((v.scalar, v.lanes), (ElemType::F32, 4));
    }

    #[test]
    fn value_types_follow_opencl_c() {
        let t = |s: &str| ValueType::parse(s).map(|v| (v.scalar, v.lanes, v.bytes()));
        assert_eq!(t("uchar"), Some((ElemType::U8, 1, 1)));
        assert_eq!(t("short2"), Some((ElemType::I16, 2, 4)));
        assert_eq!(t("float3"), Some((ElemType::F32, 3, 16)));
        assert_eq!(t("ulong16"), Some((ElemType::U64, 16, 128)));
        assert_eq!(t("half8"), Some((ElemType::F16, 8, 16)));
        assert_eq!(t("int5"), None);
        assert_eq!(t("struct P"), None);
        assert_eq!(t("4"), None);
    }

    #[test]
    fn assembly_without_metadata_has_none() {
        assert_eq!(kernel_metadata("s_endpgm\n", "k"), Ok(None));
    }

    #[test]
    fn bad_metadata_is_an_error_with_its_line() {
        let e = |text: &str| kernel_metadata(text, "k").unwrap_err().to_string();
        assert_eq!(
            e("x\n.amdgpu_metadata\n---\n"),
            "line 2: .amdgpu_metadata block without .end_amdgpu_metadata"
        );
        assert!(e(".amdgpu_metadata\na: [1\nb: 2\n.end_amdgpu_metadata\n")
            .starts_with("line 3: the metadata is not YAML"));
        assert_eq!(
            e(&CLANG.replace(".name:           k", ".name:           j")),
            "line 3: the metadata describes `j` but not the kernel `k`"
        );
        assert_eq!(
            e(&CLANG.replace(".offset:         16", ".offset:         4")),
            "line 3: kernel `k`: arguments 0 and 2 overlap (bytes 0..8 and 4..12)"
        );
        assert_eq!(
            e(&CLANG.replace(".offset:         16", ".offset:         -1")),
            "line 3: kernel `k`: argument 2: `.offset` is not a 32-bit unsigned integer"
        );
        assert!(
            e(&CLANG.replace(".offset:         48", ".offset:         4294967295"))
                .contains("lies past the 65536-byte kernarg segment")
        );
        let deep = format!(
            ".amdgpu_metadata\n{}\n.end_amdgpu_metadata\n",
            "[".repeat(100_000)
        );
        assert!(e(&deep).contains("not YAML"));
    }

    #[test]
    fn image_arguments_are_named_unsupported() {
        let m = kernel_metadata(&CLANG.replace("by_value", "image"), "k")
            .unwrap()
            .unwrap();
        assert_eq!(m.args[1].kind, ValueKind::Unsupported("image".into()));
    }

    /// Tokens a hostile or mistaken record holds: YAML structure, odd numbers, other kinds.
    const TOKENS: &[&str] = &[
        "\n",
        "  ",
        "- ",
        ": ",
        "[",
        "]",
        "{",
        "}",
        "&a ",
        "*a",
        "!!str ",
        "'",
        "\"",
        "#",
        "---",
        "...",
        ".args:",
        ".offset:",
        ".size:",
        ".value_kind:",
        ".name:",
        "by_value",
        "global_buffer",
        "hidden_none",
        "image",
        "-1",
        "0",
        "4294967296",
        "65535",
        "18446744073709551616",
        "1e9",
        "~",
        "\t",
        "\0",
        ".max_flat_workgroup_size:",
        ".reqd_workgroup_size:",
        "[1, 2]",
        "[0, 0, 0]",
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(
            crate::testing::proptest_cases(1000)
        ))]
        /// Any edit of clang's record reads or is an error; what reads is a consistent layout.
        #[test]
        fn edited_records_read_or_fail_cleanly(
            edits in proptest::collection::vec(
                (0usize..CLANG.len(), 0usize..8, proptest::sample::select(TOKENS)),
                1..6,
            )
        ) {
            let mut text = CLANG.to_string();
            for (at, cut, token) in edits {
                let at = (0..=at.min(text.len())).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
                let end = (at..=(at + cut).min(text.len())).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(at);
                text.replace_range(at..end, token);
            }
            match kernel_metadata(&text, "k") {
                Ok(Some(m)) => {
                    proptest::prop_assert!(check_layout(&m.args).is_ok());
                    proptest::prop_assert!(m.args.iter().all(|a| a.offset + a.size <= MAX_KERNARG_BYTES));
                }
                Ok(None) => proptest::prop_assert!(!text.contains("\n\t.amdgpu_metadata\n")),
                Err(e) => {
                    proptest::prop_assert!(e.line >= 1 && e.line <= text.lines().count() + 1, "{e}");
                    proptest::prop_assert!(!e.message.is_empty());
                }
            }
        }
    }
}
