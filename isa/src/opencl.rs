//! OpenCL C as kernel input: a manifest's `kernel = "k.cl"` is compiled to GCN3 assembly by
//! clang-14 for gfx803 (fiji), the target pws models, and cached by a content hash so that a
//! kernel is compiled once per source, header, flags and compiler.
//!
//! The command is
//!
//! ```text
//! clang-14 -x cl -cl-std=CL1.2 -target amdgcn-amd-amdhsa -mcpu=fiji -nogpulib -O2
//!          -cl-kernel-arg-info -gline-tables-only
//!          -I <cache>/include -include pws.h [manifest cflags] -S -o <cache>/cl/<stem>-<hash>.s k.cl
//! ```
//!
//! `pws.h` (kernels/include/pws.h, built into the binary) gives kernels what a device library
//! would, plus the PWS annotations; the manifest's `cflags` come last, so `-O0` there wins over
//! the default `-O2`. The `.s` stays in the cache for inspection: reports name it, and so do
//! assembler and analysis errors, by line. Of the debug information only the line table stays
//! (`.file`, `.loc`: [`line_table_only`]), which the analysis reads. A source with several
//! kernels needs `entry`; only that kernel's code is kept. `PWS_CLANG` names another compiler, `PWS_CACHE_DIR` another
//! cache (default `$XDG_CACHE_HOME/pws`, else `~/.cache/pws`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

use crate::base_types;
use crate::input::Kind;

/// The header every OpenCL kernel is compiled with.
pub const PWS_H: &str = include_str!("../../kernels/include/pws.h");

/// The flags before the manifest's own.
pub const DEFAULT_FLAGS: &[&str] = &[
    "-x",
    "cl",
    "-cl-std=CL1.2",
    "-target",
    "amdgcn-amd-amdhsa",
    "-mcpu=fiji",
    "-nogpulib",
    "-O2",
    // Parameter names in the metadata, for messages about a launch's arguments; the code is
    // the same.
    "-cl-kernel-arg-info",
    // Each instruction's source line (`.file`, `.loc`), by which the analysis tells a loop's
    // own `PWS_LOOP_BOUND` from that of an inner loop clang removed; the code is the same.
    "-gline-tables-only",
];

/// What to compile.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClOptions {
    /// Extra clang flags, after [`DEFAULT_FLAGS`].
    pub flags: Vec<String>,
    /// The kernel to keep when the source defines several.
    pub entry: Option<String>,
}

/// Why an OpenCL kernel could not be turned into assembly.
#[derive(Debug, thiserror::Error)]
pub enum ClError {
    /// The source or a header it includes from its directory could not be read: missing, not
    /// a regular file (a FIFO would hang clang), over the `cl` input limit or not UTF-8.
    #[error("{0}")]
    Read(#[from] crate::input::InputError),
    #[error("{clang} not found ({source}); install clang-14 (`make deps` does) or set PWS_CLANG")]
    NoCompiler {
        clang: String,
        source: std::io::Error,
    },
    #[error("{clang} failed on {}:\n{stderr}", path.display())]
    Compile {
        clang: String,
        path: PathBuf,
        stderr: String,
    },
    #[error("cache {}: {source}", path.display())]
    Cache {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: {message}", path.display())]
    Entry { path: PathBuf, message: String },
    #[error(
        "{}: the kernel calls {} ({}:{line}), which pws.h does not define; pws runs no \
         function calls: {}",
        path.display(),
        functions.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", "),
        asm.display(),
        if *unoptimized {
            "clang inlines no function at -O0 (but those marked \
             `__attribute__((always_inline))`): compile with -O1 or higher"
        } else {
            "define it in the kernel's source, or see docs/opencl.md for the built-ins pws.h \
             provides"
        }
    )]
    Calls {
        path: PathBuf,
        asm: PathBuf,
        /// The callees, demangled where they are OpenCL built-ins (`hadd`, not `_Z4haddjj`).
        functions: Vec<String>,
        /// The assembly line of the first call.
        line: usize,
        /// Compiled with `-O0`, where clang leaves the source's own helpers as calls.
        unoptimized: bool,
    },
}

impl ClError {
    /// Marks a [`ClError::Calls`] of a compilation whose last `-O` flag (after
    /// [`DEFAULT_FLAGS`]) is `-O0`.
    fn at_opt_level(self, flags: &[String]) -> ClError {
        let o0 = DEFAULT_FLAGS
            .iter()
            .copied()
            .chain(flags.iter().map(String::as_str))
            .rfind(|f| f.starts_with("-O"))
            == Some("-O0");
        match self {
            ClError::Calls {
                path,
                asm,
                functions,
                line,
                ..
            } => ClError::Calls {
                path,
                asm,
                functions,
                line,
                unoptimized: o0,
            },
            e => e,
        }
    }
}

/// The compiler pws runs: `PWS_CLANG`, or `clang-14`.
pub fn clang() -> String {
    std::env::var("PWS_CLANG").unwrap_or_else(|_| "clang-14".to_string())
}

/// The cache directory.
pub fn cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("PWS_CACHE_DIR") {
        return PathBuf::from(d);
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(d).join("pws");
    }
    match std::env::var_os("HOME") {
        Some(h) => PathBuf::from(h).join(".cache").join("pws"),
        None => std::env::temp_dir().join("pws-cache"),
    }
}

fn cache_err(path: &Path) -> impl FnOnce(std::io::Error) -> ClError + '_ {
    move |source| ClError::Cache {
        path: path.to_path_buf(),
        source,
    }
}

/// Writes `text` to `path` through a temporary file and a rename, so that a reader (another
/// pws process or thread sharing the cache) never sees a partial file.
fn write_atomic(path: &Path, text: &str) -> Result<(), ClError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(cache_err(dir))?;
    crate::output::write(path, text.as_bytes(), &[]).map_err(|e| match e {
        crate::output::OutputError::Io { path, source } => ClError::Cache { path, source },
        other => ClError::Cache {
            path: path.to_path_buf(),
            source: std::io::Error::other(other.to_string()),
        },
    })
}

/// The version of what a cached `.s` holds beyond clang's output (the header line,
/// [`DEFAULT_FLAGS`], [`select_kernel`]'s choice of code and the parameters' resolved types),
/// part of the cache key: raise it when one changes, or the cache keeps serving files written
/// by the old rule.
const CACHE_FORMAT: u32 = 7;

/// Compiles the OpenCL C kernel at `source` (or finds it in the cache) and returns the path
/// of its assembly.
pub fn compile(source: &Path, opts: &ClOptions) -> Result<PathBuf, ClError> {
    let text = crate::input::read_text(source, Kind::OpenCl)?;
    let clang = clang();
    let version = Command::new(&clang)
        .arg("--version")
        .output()
        .map_err(|e| ClError::NoCompiler {
            clang: clang.clone(),
            source: e,
        })?;
    let cache = cache_dir();
    let include = cache.join("include");
    let header = include.join("pws.h");
    if std::fs::read_to_string(&header).ok().as_deref() != Some(PWS_H) {
        write_atomic(&header, PWS_H)?;
    }
    let mut hash = Sha256::new();
    hash.update(CACHE_FORMAT.to_le_bytes());
    // The line table names the source by its path, where the analysis reads its loops: a
    // copy elsewhere is compiled again, so that the path in the assembly is never one that
    // went away.
    let at = std::fs::canonicalize(source).unwrap_or_else(|_| source.to_path_buf());
    hash.update(at.as_os_str().as_encoded_bytes());
    for part in [
        version.stdout.as_slice(),
        PWS_H.as_bytes(),
        text.as_bytes(),
        opts.entry.as_deref().unwrap_or("").as_bytes(),
    ] {
        hash.update((part.len() as u64).to_le_bytes());
        hash.update(part);
    }
    for f in &opts.flags {
        hash.update((f.len() as u64).to_le_bytes());
        hash.update(f.as_bytes());
    }
    // Headers the kernel includes from its own directory are part of its source, read under
    // the same rules before clang opens them. One that is not there may come from a `-I` of
    // the flags, and is clang's to find or report.
    let dir = source.parent().unwrap_or(Path::new("."));
    for inc in local_includes(&text) {
        let path = dir.join(&inc);
        if std::fs::symlink_metadata(&path).is_ok() {
            let body = crate::input::read_bytes(&path, Kind::OpenCl)?;
            hash.update(inc.as_bytes());
            hash.update(&body);
        }
    }
    let digest: String = hash
        .finalize()
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect();
    let stem = source
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("kernel");
    let out = cache.join("cl").join(format!("{stem}-{digest}.s"));
    if out.is_file() {
        let asm = std::fs::read_to_string(&out).map_err(cache_err(&out))?;
        return no_calls(&asm, source, &out)
            .map(|()| out)
            .map_err(|e| e.at_opt_level(&opts.flags));
    }
    let raw = cache.join("cl").join(format!(
        ".{stem}-{digest}.{}.s",
        crate::output::unique_suffix()
    ));
    std::fs::create_dir_all(cache.join("cl")).map_err(cache_err(&cache))?;
    let run = compile_command(&clang, &include, &opts.flags)
        .arg("-S")
        .arg("-o")
        .arg(&raw)
        .arg(source)
        .output()
        .map_err(|e| ClError::NoCompiler {
            clang: clang.clone(),
            source: e,
        })?;
    if !run.status.success() {
        let _ = std::fs::remove_file(&raw);
        return Err(ClError::Compile {
            clang,
            path: source.to_path_buf(),
            stderr: String::from_utf8_lossy(&run.stderr).trim_end().to_string(),
        });
    }
    let asm = std::fs::read_to_string(&raw).map_err(cache_err(&raw))?;
    let _ = std::fs::remove_file(&raw);
    let kept = select_kernel(&line_table_only(&asm), opts.entry.as_deref()).map_err(|message| {
        ClError::Entry {
            path: source.to_path_buf(),
            message,
        }
    })?;
    let kept = base_types::annotate(
        &kept,
        &resolved_types(&clang, &include, &opts.flags, source),
    );
    let header_line = format!(
        "; compiled for pws from {} by {} with {} {}\n",
        source.display(),
        clang,
        DEFAULT_FLAGS.join(" "),
        opts.flags.join(" ")
    );
    let text = format!("{header_line}{kept}");
    write_atomic(&out, &text)?;
    no_calls(&text, source, &out)
        .map(|()| out)
        .map_err(|e| e.at_opt_level(&opts.flags))
}

/// clang as pws compiles a kernel: its flags, pws.h included, the manifest's `flags` after
/// them. The assembly and [`resolved_types`]'s frontend run both start here, so the types are
/// those of the code compiled.
fn compile_command(clang: &str, include: &Path, flags: &[String]) -> Command {
    let mut command = Command::new(clang);
    command
        .args(DEFAULT_FLAGS)
        .arg(format!("-I{}", include.display()))
        .args(["-include", "pws.h"])
        .args(flags);
    command
}

/// The parameters' types with typedefs resolved ([`base_types`]): the same compile stopped
/// after the frontend, as LLVM IR. clang compiled the kernel a moment ago, so this run fails
/// only if something outside pws does (a killed process); the metadata then keeps the written
/// names alone, which pws reads as before.
fn resolved_types(
    clang: &str,
    include: &Path,
    flags: &[String],
    source: &Path,
) -> HashMap<String, Vec<String>> {
    let run = compile_command(clang, include, flags)
        .args([
            "-S",
            "-emit-llvm",
            "-Xclang",
            "-disable-llvm-passes",
            "-o",
            "-",
        ])
        .arg(source)
        .output();
    match run {
        Ok(out) if out.status.success() => {
            base_types::from_ir(&String::from_utf8_lossy(&out.stdout))
        }
        _ => HashMap::new(),
    }
}

/// Keeps of clang's debug output the line table the analysis reads (`.file` and `.loc`) and
/// drops the rest: the DWARF sections (data the assembler would refuse outside `.rodata`),
/// the call frame directives and the labels that only those sections use.
fn line_table_only(asm: &str) -> String {
    let mut out = String::with_capacity(asm.len());
    let mut in_debug = false;
    for line in asm.lines() {
        let t = line.trim();
        let directive = t.split_whitespace().next().unwrap_or("");
        if directive == ".section" {
            in_debug = t[directive.len()..].trim_start().starts_with(".debug_");
            if in_debug {
                continue;
            }
        }
        let label = t.split(';').next().unwrap_or("").trim_end();
        let debug_label = [".Ltmp", ".Lfunc_begin"].iter().any(|p| {
            label
                .strip_prefix(p)
                .and_then(|r| r.strip_suffix(':'))
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        });
        // A debug section holds labels, data and comments; any other line ends it (clang
        // writes `.ident` and the metadata after the last one).
        let debug_data =
            label.ends_with(':') || label.is_empty() || DEBUG_DATA.contains(&directive);
        in_debug &= debug_data;
        if in_debug || debug_label || directive.starts_with(".cfi_") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// What clang's DWARF sections are made of.
const DEBUG_DATA: &[&str] = &[
    ".byte", ".short", ".long", ".quad", ".uleb128", ".sleb128", ".asciz", ".ascii", ".p2align",
];

/// Without a device library clang turns a built-in that pws.h lacks into a call
/// (`s_getpc_b64`, `s_add_u32 s, s, sym@rel32@lo+4`, `s_swappc_b64`); pws runs no calls, and
/// the assembler would only say that the symbol is code, so the callees are named here. A
/// program-scope variable (a `__constant` table indexed at run time) is addressed the same
/// way; the source declares it an object (`.type name,@object`), and the assembler places it
/// in the program's `.rodata`.
fn no_calls(asm: &str, source: &Path, out: &Path) -> Result<(), ClError> {
    let objects = objects_in(asm);
    let mut functions: Vec<String> = Vec::new();
    let mut first_call = None;
    for (n, line) in asm.lines().enumerate() {
        let code = line.split(';').next().unwrap_or("");
        for (at, _) in code
            .match_indices("@rel32@lo")
            .chain(code.match_indices("@gotpcrel32@lo"))
        {
            let start = code[..at]
                .rfind(|c: char| !(c.is_ascii_alphanumeric() || "_.$".contains(c)))
                .map_or(0, |i| i + 1);
            let symbol = &code[start..at];
            if objects.contains(&symbol) {
                continue;
            }
            first_call.get_or_insert(n + 1);
            let name = demangle(symbol);
            if !functions.contains(&name) {
                functions.push(name);
            }
        }
    }
    match first_call {
        None => Ok(()),
        Some(line) => Err(ClError::Calls {
            path: source.to_path_buf(),
            asm: out.to_path_buf(),
            functions,
            line,
            unoptimized: false,
        }),
    }
}

/// The program-scope variables an assembly defines (`.type name,@object`).
fn objects_in(asm: &str) -> Vec<&str> {
    asm.lines()
        .filter_map(|l| {
            l.trim()
                .strip_prefix(".type")?
                .trim()
                .strip_suffix(",@object")
        })
        .map(str::trim)
        .collect()
}

/// The name in an Itanium-mangled symbol (`_Z4haddjj` is `hadd`); other symbols as they are.
fn demangle(symbol: &str) -> String {
    let Some(rest) = symbol.strip_prefix("_Z") else {
        return symbol.to_string();
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    match rest[..digits].parse::<usize>() {
        Ok(len) if digits + len <= rest.len() => rest[digits..digits + len].to_string(),
        _ => symbol.to_string(),
    }
}

/// `#include "x"` lines of a source.
fn local_includes(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            let l = l.trim_start().strip_prefix('#')?.trim_start();
            let rest = l.strip_prefix("include")?.trim();
            let rest = rest.strip_prefix('"')?;
            Some(rest[..rest.find('"')?].to_string())
        })
        .collect()
}

/// The kernels clang's assembly defines (its `.amdhsa_kernel` blocks), in order.
pub fn kernels_in(asm: &str) -> Vec<String> {
    asm.lines()
        .filter_map(|l| l.trim().strip_prefix(".amdhsa_kernel "))
        .map(|n| n.trim().to_string())
        .collect()
}

/// The kernel a launch means among the `kernels` an assembly defines ([`kernels_in`]):
/// `entry`, which must be one of them, or else the only one; `None` when there are none
/// (hand-written code without descriptors). An error names the kernels there are and
/// `option`, the way to choose one.
pub fn entry_kernel(
    kernels: &[String],
    entry: Option<&str>,
    option: &str,
) -> Result<Option<String>, String> {
    match (entry, kernels) {
        (Some(e), ks) if ks.iter().any(|k| k == e) => Ok(Some(e.to_string())),
        (Some(e), ks) => Err(format!(
            "no kernel `{e}` (the source defines {})",
            if ks.is_empty() {
                "none".to_string()
            } else {
                ks.join(", ")
            }
        )),
        (None, []) => Ok(None),
        (None, [one]) => Ok(Some(one.clone())),
        (None, ks) => Err(format!(
            "the source defines {} kernels ({}); say which with {option}",
            ks.len(),
            ks.join(", ")
        )),
    }
}

/// Keeps the code of one kernel: `entry`, or the only one. The text before the first function
/// (section and target directives) stays; every other function's code, from its `.globl` to
/// its `.Lfunc_end`, goes: other kernels, with their descriptors, and the source's helper
/// functions, which clang emits (with external linkage) even where it has inlined every call;
/// the line table's `.file` lines stay wherever they are;
/// a call that remains is refused by [`no_calls`]. Program-scope variables (`.type
/// name,@object`) stay, so that [`no_calls`] can tell a table from a function. The metadata
/// stays whole: it lays out the kept kernel's arguments ([`crate::metadata`]).
pub fn select_kernel(asm: &str, entry: Option<&str>) -> Result<String, String> {
    let Some(entry) = entry_kernel(&kernels_in(asm), entry, "`entry`")? else {
        return Ok(asm.to_string());
    };
    let objects = objects_in(asm);
    let mut out = String::with_capacity(asm.len());
    let mut keep = true;
    let mut in_metadata = false;
    for line in asm.lines() {
        let t = line.trim();
        if t == ".amdgpu_metadata" {
            in_metadata = true;
        }
        if in_metadata {
            if t == ".end_amdgpu_metadata" {
                in_metadata = false;
            }
            out.push_str(line);
            out.push('\n');
            continue;
        }
        // A function's code starts at `.globl name` (or `.protected` / `.hidden name` before
        // it) and a kernel's descriptor at `.amdhsa_kernel name`.
        let starts = [".protected", ".hidden", ".globl", ".amdhsa_kernel"]
            .iter()
            .find_map(|d| t.strip_prefix(d))
            .map(|rest| rest.split_whitespace().next().unwrap_or(""));
        if let Some(name) = starts.filter(|n| !objects.contains(n)) {
            keep = name == entry;
        }
        // clang writes the line table's files where the first function uses them.
        if keep || t.starts_with(".file") {
            out.push_str(line);
            out.push('\n');
        }
        if t.starts_with(".end_amdhsa_kernel") {
            keep = false;
        }
        if t.starts_with(".size") && t.contains(".Lfunc_end") {
            keep = true;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &str = "\t.text\n\t.protected\ta\n\t.globl\ta\na:\n\ts_endpgm\n.Lfunc_end0:\n\t.size\ta, .Lfunc_end0-a\n\t.section\t.rodata\n\t.amdhsa_kernel a\n\t.end_amdhsa_kernel\n\t.text\n\t.protected\tb\n\t.globl\tb\nb:\n\ts_nop 0\n\ts_endpgm\n.Lfunc_end1:\n\t.size\tb, .Lfunc_end1-b\n\t.section\t.rodata\n\t.amdhsa_kernel b\n\t.end_amdhsa_kernel\n\t.text\n\t.amdgpu_metadata\nx: 1\n\t.end_amdgpu_metadata\n";

    #[test]
    fn one_of_two_kernels_is_kept() {
        let b = select_kernel(TWO, Some("b")).unwrap();
        assert!(b.contains("b:\n\ts_nop 0"), "{b}");
        assert!(!b.contains("a:\n"), "{b}");
        assert!(b.contains(".amdhsa_kernel b") && !b.contains(".amdhsa_kernel a"));
        assert!(
            b.contains("\t.amdgpu_metadata\nx: 1\n\t.end_amdgpu_metadata\n"),
            "{b}"
        );
        // The line table's files, which clang writes in the first function, stay.
        let with_table = TWO.replace("a:\n", "a:\n\t.file\t0 \"/d\" \"k.cl\"\n");
        let b = select_kernel(&with_table, Some("b")).unwrap();
        assert!(
            b.contains("\t.file\t0 \"/d\" \"k.cl\"\n") && !b.contains("a:\n"),
            "{b}"
        );
        let e = select_kernel(TWO, None).unwrap_err();
        assert!(e.contains("2 kernels (a, b)"), "{e}");
        let e = select_kernel(TWO, Some("c")).unwrap_err();
        assert!(e.contains("no kernel `c` (the source defines a, b)"), "{e}");
    }

    /// `float cnd(float d) { ... }` beside the kernel: clang inlines it and still emits its
    /// body, which returns with `s_setpc_b64`.
    #[test]
    fn helper_functions_clang_inlined_are_dropped() {
        let asm = "\t.text\n\t.hidden\tcnd\n\t.globl\tcnd\n\t.type\tcnd,@function\ncnd:\n\ts_setpc_b64 s[30:31]\n.Lfunc_end0:\n\t.size\tcnd, .Lfunc_end0-cnd\n\t.text\n\t.protected\tk\n\t.globl\tk\nk:\n\ts_endpgm\n.Lfunc_end1:\n\t.size\tk, .Lfunc_end1-k\n\t.amdhsa_kernel k\n\t.end_amdhsa_kernel\n";
        for entry in [None, Some("k")] {
            let k = select_kernel(asm, entry).unwrap();
            assert!(!k.contains("cnd") && !k.contains("s_setpc_b64"), "{k}");
            assert!(
                k.contains("k:\n\ts_endpgm") && k.contains(".amdhsa_kernel k"),
                "{k}"
            );
        }
    }

    #[test]
    fn calls_name_their_callees_and_line() {
        let asm = "k:\n\ts_getpc_b64 s[18:19]\n\ts_add_u32 s18, s18, _Z4haddjj@rel32@lo+4\n\ts_addc_u32 s19, s19, _Z4haddjj@rel32@hi+12\n\ts_add_u32 s20, s20, helper@rel32@lo+4\n\ts_swappc_b64 s[30:31], s[18:19]\n";
        let err = no_calls(asm, Path::new("k.cl"), Path::new("k.s")).unwrap_err();
        assert!(matches!(&err, ClError::Calls { functions, line: 3, .. }
            if functions == &["hadd".to_string(), "helper".to_string()]));
        assert!(
            err.to_string()
                .starts_with("k.cl: the kernel calls `hadd`, `helper` (k.s:3)"),
            "{err}"
        );
        assert!(no_calls(
            "k:\n\ts_endpgm ; x@rel32@lo\n",
            Path::new("k.cl"),
            Path::new("k.s")
        )
        .is_ok());
    }

    /// `__constant uint sbox[16] = {...};` indexed at run time: clang addresses the table
    /// PC-relative, as it calls a function; the table stays, and is no call.
    #[test]
    fn program_scope_data_stays_and_is_no_call() {
        let raw = "\t.protected\tk\n\t.globl\tk\nk:\n\ts_getpc_b64 s[0:1]\n\ts_add_u32 s0, s0, sbox@rel32@lo+4\n\ts_endpgm\n\t.amdhsa_kernel k\n\t.end_amdhsa_kernel\n.Lfunc_end0:\n\t.size\tk, .Lfunc_end0-k\n\t.hidden\tsbox\n\t.type\tsbox,@object\n\t.section\t.rodata,#alloc\n\t.globl\tsbox\nsbox:\n\t.long\t12\n\t.size\tsbox, 4\n";
        let kept = select_kernel(raw, None).unwrap();
        assert!(
            kept.contains(".type\tsbox,@object") && kept.contains("sbox:"),
            "{kept}"
        );
        let asm = "k:\n\ts_getpc_b64 s[0:1]\n\ts_add_u32 s0, s0, sbox@rel32@lo+4\n\ts_addc_u32 s1, s1, sbox@rel32@hi+12\n\ts_endpgm\n\t.section\t.rodata,#alloc\n\t.type\tsbox,@object\nsbox:\n\t.long\t12\n";
        assert!(no_calls(asm, Path::new("k.cl"), Path::new("k.s")).is_ok());
        let with_call = format!("{asm}\ts_add_u32 s2, s2, helper@rel32@lo+4\n");
        assert!(matches!(
            no_calls(&with_call, Path::new("k.cl"), Path::new("k.s")),
            Err(ClError::Calls { functions, line: 10, .. }) if functions == ["helper"]
        ));
    }

    /// Of clang's `-gline-tables-only` output, the line table stays; the DWARF sections, the
    /// call frame directives and the labels only they use go.
    #[test]
    fn the_line_table_stays_and_the_dwarf_goes() {
        let asm = "\t.text\nk:\n.Lfunc_begin0:\n\t.file\t0 \"/d\" \"k.cl\" md5 0x01\n\t.loc\t0 1 0\n\t.cfi_sections .debug_frame\n\t.cfi_startproc\n\t.loc\t0 2 3 prologue_end\n\ts_nop 0\n.Ltmp0:\n.LBB0_1:\n\ts_endpgm\n.Ltmp1:\n\t.cfi_endproc\n\t.section\t.debug_abbrev\n\t.byte\t1 ; Abbreviation Code\n\n\t.section\t.debug_str,\"MS\",@progbits,1\n.Linfo_string0:\n\t.asciz\t\"k\"\n\t.ident\t\"clang\"\n\t.section\t\".note.GNU-stack\"\n\t.amdgpu_metadata\n---\n\t.end_amdgpu_metadata\n";
        assert_eq!(
            line_table_only(asm),
            "\t.text\nk:\n\t.file\t0 \"/d\" \"k.cl\" md5 0x01\n\t.loc\t0 1 0\n\t.loc\t0 2 3 prologue_end\n\ts_nop 0\n.LBB0_1:\n\ts_endpgm\n\t.ident\t\"clang\"\n\t.section\t\".note.GNU-stack\"\n\t.amdgpu_metadata\n---\n\t.end_amdgpu_metadata\n"
        );
    }

    #[test]
    fn mangled_names_lose_their_parameters() {
        assert_eq!(demangle("_Z3dotDv4_fS_"), "dot");
        assert_eq!(demangle("_Z15convert_int_satf"), "convert_int_sat");
        assert_eq!(demangle("_Z99x"), "_Z99x");
        assert_eq!(demangle("helper"), "helper");
    }

    #[test]
    fn local_includes_are_found() {
        assert_eq!(
            local_includes("#include \"k.h\"\n#  include \"sub/x.h\"\n#include <y.h>\n"),
            ["k.h", "sub/x.h"]
        );
    }
}
