//! The fuzz harness: every parser of a user's file on hostile bytes. Each parser gets random
//! bytes, and the shipped inputs of its kind (kernels/) with random edits: bytes replaced,
//! chunks inserted, deleted or repeated (long lines, long tokens), and tokens of its language
//! spliced in (control bytes, huge numbers, device paths, deep nesting).
//!
//! Every input must end in a value or an error, never a panic; an error must be one message of
//! printable text (control bytes escaped, values shortened); a case must finish within
//! [`CASE_LIMIT`] (a watchdog thread aborts the process with the input if one runs 20 times
//! longer: a hang is a failure, not a stuck CI job); and the process's peak memory stays under
//! [`MEMORY_LIMIT`]. `make test` runs `proptest_cases(10_000)` inputs per parser, `make soak`
//! ten times as many (10^5).

mod common;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use pws_hdl::config::HwConfig;
use pws_isa::manifest::{layout, Manifest};
use pws_isa::sequence::LaunchSequence;
use pws_isa::testing::proptest_cases;
use pws_isa::Program;
use pws_verify::units::script;

/// The longest one input may take to parse.
const CASE_LIMIT: Duration = Duration::from_secs(2);
/// Peak resident memory of the whole test process.
const MEMORY_LIMIT_MIB: f64 = 2048.0;

fn config() -> ProptestConfig {
    ProptestConfig {
        // The failing input is printed in full; shrinking a byte string would take long.
        max_shrink_iters: 200,
        ..ProptestConfig::with_cases(proptest_cases(10_000))
    }
}

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// The shipped files of `dir` ending in `ext`.
fn seeds(dir: &str, ext: &str) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = std::fs::read_dir(repo(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    assert!(!out.is_empty(), "no {ext} seeds in {dir}");
    out.sort();
    out
}

/// One random edit of an input.
#[derive(Clone, Debug)]
enum Edit {
    Replace(usize, u8),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    /// Repeat the range [at, at + len) this many times in place.
    Repeat(usize, usize, usize),
    Token(usize, usize),
}

fn edit(tokens: usize) -> impl Strategy<Value = Edit> {
    prop_oneof![
        3 => (any::<usize>(), any::<u8>()).prop_map(|(a, b)| Edit::Replace(a, b)),
        2 => (any::<usize>(), proptest::collection::vec(any::<u8>(), 1..16))
            .prop_map(|(a, b)| Edit::Insert(a, b)),
        2 => (any::<usize>(), 1usize..64).prop_map(|(a, n)| Edit::Delete(a, n)),
        1 => (any::<usize>(), 1usize..64, 2usize..400).prop_map(|(a, n, k)| Edit::Repeat(a, n, k)),
        3 => (any::<usize>(), 0..tokens).prop_map(|(a, t)| Edit::Token(a, t)),
    ]
}

fn apply(mut bytes: Vec<u8>, edits: &[Edit], tokens: &[&str]) -> Vec<u8> {
    for e in edits {
        let at = |i: usize, len: usize| if len == 0 { 0 } else { i % (len + 1) };
        match e {
            Edit::Replace(i, b) if !bytes.is_empty() => {
                let n = bytes.len();
                bytes[i % n] = *b;
            }
            Edit::Insert(i, chunk) => {
                let p = at(*i, bytes.len());
                bytes.splice(p..p, chunk.iter().copied());
            }
            Edit::Delete(i, n) => {
                let p = at(*i, bytes.len());
                let end = (p + n).min(bytes.len());
                bytes.drain(p..end);
            }
            Edit::Repeat(i, n, k) => {
                let p = at(*i, bytes.len());
                let end = (p + n).min(bytes.len());
                let chunk = bytes[p..end].to_vec();
                let copies: Vec<u8> = chunk
                    .iter()
                    .copied()
                    .cycle()
                    .take(chunk.len() * k)
                    .collect();
                bytes.splice(p..p, copies);
            }
            Edit::Token(i, t) => {
                let p = at(*i, bytes.len());
                bytes.splice(p..p, tokens[*t].bytes());
            }
            Edit::Replace(..) => {}
        }
    }
    bytes
}

/// Random bytes, or a seed with random edits.
fn input(seeds: Vec<Vec<u8>>, tokens: &'static [&'static str]) -> BoxedStrategy<Vec<u8>> {
    prop_oneof![
        1 => proptest::collection::vec(any::<u8>(), 0..2048),
        1 => proptest::collection::vec(
            proptest::sample::select(tokens.to_vec()),
            0..64
        )
        .prop_map(|t| t.join(" ").into_bytes()),
        4 => (proptest::sample::select(seeds), proptest::collection::vec(edit(tokens.len()), 1..8))
            .prop_map(move |(seed, edits)| apply(seed, &edits, tokens)),
    ]
    .boxed()
}

/// Tokens every language gets: control bytes, terminal escapes, huge and odd numbers.
const COMMON: &[&str] = &[
    "\0",
    "\x1b[2J",
    "\r",
    "\t",
    "\u{202e}",
    "\u{feff}",
    "\u{fffd}",
    "\x7f",
    "\\",
    "\"",
    "'",
    "`",
    "#",
    ";",
    "//",
    "/*",
    "*/",
    "\n",
    "\n\n",
    "=",
    ",",
    "[",
    "]",
    "{",
    "}",
    "(",
    ")",
    ":",
    "0",
    "-1",
    "4294967296",
    "18446744073709551616",
    "99999999999999999999999999",
    "0x",
    "0xffffffffffffffffff",
    "1e999",
    "-0",
    "nan",
    "inf",
];

const ASM: &[&str] = &[
    "\0",
    "\x1b[2J",
    "\u{202e}",
    "\r",
    "s_branch",
    "s_cbranch_scc1",
    "L:",
    "L",
    "s_endpgm",
    "split",
    "merge",
    "s_barrier",
    "v_add_u32",
    "s_mov_b32",
    "ttmp0",
    "ttmp[4:7]",
    "flat_scratch",
    "s[0:1]",
    "s[",
    "v[0:1]",
    "v256",
    "s102",
    "exec",
    "vcc",
    "m0",
    "src_scc",
    ",",
    ":",
    "-",
    "|",
    "neg(",
    "abs(",
    "0x",
    "1e999",
    ".text",
    ".amdgpu_metadata",
    ".end_amdgpu_metadata",
    ".long",
    "; pws: split",
    "; pws: loop_bound 99999999999",
    "glc",
    "clamp",
    "mul:2",
    "vmcnt(99)",
    "\n",
    "99999999999999999999999",
];

const MANIFEST: &[&str] = &[
    "\0",
    "\x1b[2J",
    "\n",
    "kernel = ",
    "grid = ",
    "workgroup = ",
    "args = ",
    "[[buffer]]",
    "name = ",
    "type = \"i32\"",
    "type = \"u32\"",
    "type = \"u8\"",
    "type = \"f16\"",
    "type = \"i64\"",
    "data = ",
    "file = ",
    "len = ",
    "[[launch]]",
    "[repeat]",
    "until_zero = \"c\"",
    "reset = [\"a\"]",
    "max = ",
    "entry = ",
    "\"/dev/zero\"",
    "\"/dev/urandom\"",
    "\"/etc/passwd\"",
    "\"fifo\"",
    "\"zero\"",
    "\"dir\"",
    "\"../../../../etc/passwd\"",
    "\"\"",
    "16777216",
    "16777217",
    "4294967295",
    "-2147483649",
    "[1, 1, 1]",
    "[64, 2]",
    "\"meta.s\"",
    "[1.5, -2, 3, 4]",
    "{ local = 64 }",
    "-129",
    "0x7fffffffffffffff",
    "[]",
    "[[[[[[[[[[",
    "]]]]]]]]]]",
    "{",
    "}",
    "=",
    "'''",
    "\"\"\"",
    "9223372036854775808",
    "1e999",
    "nan",
    "inf",
    "true",
    "1979-05-27T07:32:00Z",
];

const DOT: &[&str] = &[
    "\0",
    "\x1b[2J",
    "digraph",
    "graph",
    "{",
    "}",
    "->",
    "--",
    "[",
    "]",
    ";",
    "=",
    "wcet=",
    "wcet=99999999999999999999",
    "wcet=18446744073709551615",
    "kind=branch",
    "kind=bsb",
    "kind=block",
    "split=true",
    "loop_bound=",
    "loop_bound=0",
    "label=\"",
    "\"",
    "/*",
    "*/",
    "//",
    "#",
    "a",
    "b",
    "entry",
    "subgraph",
    "strict",
    "node",
    "edge",
    "\n",
];

const SCRIPT: &[&str] = &[
    "\0",
    "\x1b[2J",
    "launch",
    "split",
    "merge",
    "end",
    "sgpr",
    "init",
    "advance",
    "branch",
    "nop",
    "l",
    "r",
    "0",
    "7",
    "8",
    "ffffffffffffffff",
    "0x",
    "0x_",
    "_",
    "#",
    "\n",
    "99999999999999999999",
    "4294967296",
    "-1",
];

/// The input being parsed and when it started, for the watchdog.
struct Current {
    started: Instant,
    what: &'static str,
    input: Vec<u8>,
}

static CURRENT: OnceLock<Mutex<Vec<Option<Current>>>> = OnceLock::new();
static SLOWEST_MS: AtomicU64 = AtomicU64::new(0);

/// Starts the watchdog (once) and returns this test's slot in the table of running cases.
fn watchdog_slot() -> usize {
    let table = CURRENT.get_or_init(|| {
        std::thread::spawn(|| loop {
            std::thread::sleep(Duration::from_millis(200));
            let table = CURRENT.get().unwrap().lock().unwrap();
            for c in table.iter().flatten() {
                if c.started.elapsed() > CASE_LIMIT * 20 {
                    eprintln!(
                        "fuzz: the {} parser hangs on this input ({} bytes):\n{}",
                        c.what,
                        c.input.len(),
                        pws_isa::diag::escape(&String::from_utf8_lossy(&c.input))
                    );
                    std::process::abort();
                }
            }
        });
        Mutex::new(Vec::new())
    });
    let mut t = table.lock().unwrap();
    t.push(None);
    t.len() - 1
}

/// Runs `parse` on `input` under the watchdog and checks the time it took.
fn timed<T>(
    slot: usize,
    what: &'static str,
    input: &[u8],
    parse: impl FnOnce() -> T,
) -> Result<T, TestCaseError> {
    let started = Instant::now();
    CURRENT.get().unwrap().lock().unwrap()[slot] = Some(Current {
        started,
        what,
        input: input.to_vec(),
    });
    let out = parse();
    let took = started.elapsed();
    CURRENT.get().unwrap().lock().unwrap()[slot] = None;
    SLOWEST_MS.fetch_max(took.as_millis() as u64, Ordering::Relaxed);
    prop_assert!(
        took < CASE_LIMIT,
        "the {what} parser took {took:?} on {} bytes",
        input.len()
    );
    Ok(out)
}

/// An error message as the user sees it must be printable and bounded.
fn check_message(what: &str, message: &str) -> Result<(), TestCaseError> {
    prop_assert!(
        !message
            .chars()
            .any(|c| (c.is_control() && c != '\n') || c == '\u{202e}'),
        "{what}: a raw control character in {message:?}"
    );
    prop_assert!(
        message.chars().count() <= 1500,
        "{what}: a {}-character message: {}",
        message.chars().count(),
        &message[..message
            .char_indices()
            .nth(300)
            .map_or(message.len(), |(i, _)| i)]
    );
    Ok(())
}

/// Peak resident memory of this process in MiB.
fn peak_rss_mib() -> f64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage only writes the struct it is given.
    assert_eq!(
        unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) },
        0
    );
    // SAFETY: getrusage returned 0, so it filled the struct.
    unsafe { usage.assume_init() }.ru_maxrss as f64 / 1024.0
}

fn check_memory() {
    let peak = peak_rss_mib();
    eprintln!(
        "peak memory {peak:.0} MiB, slowest input {} ms",
        SLOWEST_MS.load(Ordering::Relaxed)
    );
    assert!(peak < MEMORY_LIMIT_MIB, "peak memory {peak:.0} MiB");
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn assembler() {
    let slot = watchdog_slot();
    let mut tokens = ASM.to_vec();
    tokens.extend(COMMON);
    let tokens: &'static [&str] = Box::leak(tokens.into_boxed_slice());
    proptest!(config(), |(bytes in input(seeds("kernels", "s"), tokens))| {
        let text = lossy(&bytes);
        let result = timed(slot, "assembler", &bytes, || pws_isa::assemble(&text, "f.s"))?;
        match result {
            Ok(program) => {
                // What assembles encodes and decodes back to itself, and the executors' check
                // of the subset has an answer for it.
                let image = program.bytes();
                let back = Program::from_bytes(&image).map_err(|e| TestCaseError::fail(e.to_string()))?;
                prop_assert_eq!(back.bytes(), image);
                if let Err(e) = pws_isa::subset::check(&program, "f.s") {
                    check_message("subset", &e.to_string())?;
                }
            }
            Err(e) => {
                let lines = text.lines().count().max(1) as u32;
                prop_assert!(e.line >= 1 && e.line <= lines, "{e}");
                check_message("assembler", &e.to_string())?;
            }
        }
    });
    check_memory();
}

#[test]
fn disassembler() {
    let slot = watchdog_slot();
    let images: Vec<Vec<u8>> = seeds("kernels", "s")
        .iter()
        .filter_map(|s| pws_isa::assemble(&lossy(s), "k.s").ok())
        .map(|p| p.bytes())
        .collect();
    proptest!(config(), |(bytes in input(images, COMMON))| {
        match timed(slot, "disassembler", &bytes, || Program::from_bytes(&bytes))? {
            Ok(program) => {
                // The listing assembles back to the same image.
                let again = pws_isa::assemble(&program.listing(), "listing.s")
                    .map_err(|e| TestCaseError::fail(e.to_string()))?;
                prop_assert_eq!(again.bytes(), bytes);
            }
            Err(e) => check_message("disassembler", &e.to_string())?,
        }
    });
    check_memory();
}

#[test]
fn dot_cfgs() {
    let slot = watchdog_slot();
    let mut tokens = DOT.to_vec();
    tokens.extend(COMMON);
    let tokens: &'static [&str] = Box::leak(tokens.into_boxed_slice());
    proptest!(config(), |(bytes in input(seeds("kernels/cfg", "dot"), tokens))| {
        let text = lossy(&bytes);
        let parsed = timed(slot, "DOT", &bytes, || {
            pws_host::dot::parse_cfg(&text, "f.dot").and_then(pws_host::BsbCfg::new)
        })?;
        if let Err(e) = parsed {
            check_message("DOT", &e.to_string())?;
        }
    });
    check_memory();
}

/// A kernel with clang's argument metadata (`k(int* o, char c, long n, float4 v, float* t)`,
/// at most 256 work-items per workgroup), whose launches the manifest checks against it.
const META_KERNEL: &str = "k:\n\ts_endpgm\n\t.amdhsa_kernel k\n\t.end_amdhsa_kernel\n\
    \t.amdgpu_metadata\n---\namdhsa.kernels:\n  - .args:\n\
    \x20     - { .name: o, .offset: 0, .size: 8, .type_name: 'int*', .value_kind: global_buffer }\n\
    \x20     - { .name: c, .offset: 8, .size: 1, .type_name: char, .value_kind: by_value }\n\
    \x20     - { .name: n, .offset: 16, .size: 8, .type_name: long, .value_kind: by_value }\n\
    \x20     - { .name: v, .offset: 32, .size: 16, .type_name: float4, .value_kind: by_value }\n\
    \x20     - { .name: t, .offset: 48, .size: 4, .type_name: 'float*', .value_kind: dynamic_shared_pointer }\n\
    \x20     - { .offset: 56, .size: 8, .value_kind: hidden_global_offset_x }\n\
    \x20   .max_flat_workgroup_size: 256\n    .name: k\n...\n\t.end_amdgpu_metadata\n";

/// A directory for manifests to name files in: the shipped data files, and the hostile
/// neighbours a manifest might point at (a FIFO, a link to /dev/zero, a directory).
fn manifest_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(repo("kernels")).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_some_and(|e| e == "txt" || e == "s") {
            std::fs::copy(&p, dir.path().join(p.file_name().unwrap())).unwrap();
        }
    }
    std::fs::write(dir.path().join("meta.s"), META_KERNEL).unwrap();
    common::mkfifo(&dir.path().join("fifo"));
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("zero")).unwrap();
    std::fs::create_dir(dir.path().join("dir")).unwrap();
    dir
}

#[test]
fn launch_manifests() {
    let slot = watchdog_slot();
    let dir = manifest_dir();
    let path = dir.path().join("f.toml");
    let mut tokens = MANIFEST.to_vec();
    tokens.extend(COMMON);
    let tokens: &'static [&str] = Box::leak(tokens.into_boxed_slice());
    // The shipped manifests, and one of them as a launch sequence (docs/manifest.md).
    let mut corpus = seeds("kernels", "toml");
    corpus.push(
        b"kernel = \"meta.s\"\ngrid = 128\nworkgroup = 64\n\
          args = [\"o\", -3, 0x500000000, [1, 2, 3, 40.5], { local = 256 }]\n\
          [[buffer]]\nname = \"o\"\ntype = \"i32\"\nlen = 128\n"
            .to_vec(),
    );
    let vecadd = std::fs::read_to_string(repo("kernels/vecadd.toml")).unwrap();
    corpus.push(
        format!("{vecadd}\n[[launch]]\n\n[[launch]]\ngrid = 64\nargs = [\"c\", \"b\", \"a\"]\n\n[repeat]\nuntil_zero = \"c\"\nreset = [\"a\"]\nmax = 3\n")
            .into_bytes(),
    );
    proptest!(config(), |(bytes in input(corpus.clone(), tokens))| {
        let text = lossy(&bytes);
        let parsed = timed(slot, "manifest", &bytes, || {
            LaunchSequence::parse(&text, &path).map(|s| {
                let kernels = s
                    .launches
                    .iter()
                    .map(|m| m.kernel_source().map(|_| ()).map_err(|e| e.to_string()))
                    .collect::<Vec<_>>();
                (s, kernels)
            })
        })?;
        match parsed {
            Ok((s, kernels)) => {
                for e in kernels.into_iter().filter_map(Result::err) {
                    check_message("manifest kernel", &e)?;
                }
                // The layout of every accepted launch: below 4 GiB, kernarg clear of every
                // buffer; and the launches share their buffers.
                for m in &s.launches {
                    let img = m.memory_image(&pws_isa::abi::LaunchAbi::legacy());
                    prop_assert!(img.end() <= layout::CODE_BASE);
                    for b in &img.buffers {
                        prop_assert!(b.base >= img.kernarg.end() + layout::GUARD_BYTES, "{img:?}");
                    }
                    prop_assert_eq!(&m.buffers, &s.launches[0].buffers);
                }
                // Manifest::parse takes exactly the plain ones.
                let plain = Manifest::parse(&text, &path).ok();
                prop_assert_eq!(plain.as_ref(), s.single());
            }
            Err(e) => check_message("manifest", &e.to_string())?,
        }
    });
    check_memory();
}

#[test]
fn unit_scripts() {
    let slot = watchdog_slot();
    let mut tokens = SCRIPT.to_vec();
    tokens.extend(COMMON);
    let tokens: &'static [&str] = Box::leak(tokens.into_boxed_slice());
    let cfg = HwConfig::small();
    proptest!(config(), |(bytes in input(seeds("kernels/units", "sm"), tokens), dual in any::<bool>())| {
        let text = lossy(&bytes);
        let errors = timed(slot, "unit script", &bytes, || {
            [
                script::split_merge(&text, &cfg).err(),
                script::stack(&text, dual).err(),
            ]
        })?;
        for e in errors.into_iter().flatten() {
            check_message("unit script", &e.to_string())?;
        }
    });
    check_memory();
}

#[test]
fn gpu_configurations() {
    let slot = watchdog_slot();
    let mut tokens = MANIFEST.to_vec();
    tokens.extend(["N_CU", "N_SIMD", "N_WFC", "N_WIWF", "S", "e_s", "e_m", "d"]);
    tokens.extend(COMMON);
    let tokens: &'static [&str] = Box::leak(tokens.into_boxed_slice());
    let seed = vec![std::fs::read(repo("kernels/gpu.toml")).unwrap()];
    proptest!(config(), |(bytes in input(seed.clone(), tokens))| {
        let text = lossy(&bytes);
        if let Err(e) = timed(slot, "GPU configuration", &bytes, || {
            pws_host::GpuConfig::from_toml(&text, "g.toml")
        })? {
            check_message("GPU configuration", &e.to_string())?;
        }
    });
    check_memory();
}

/// The hostile files of issue 15 and its review, through the binary: each gives a clear error
/// at once.
#[test]
fn hostile_files_end_to_end() {
    let dir = manifest_dir();
    let d = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let started = Instant::now();
    for (args, expect) in [
        (
            vec!["asm", "/dev/zero"],
            "/dev/zero: is a character device, not a regular file",
        ),
        (
            vec!["asm", &d("fifo")],
            "is a FIFO (named pipe), not a regular file",
        ),
        (vec!["asm", &d("dir")], "is a directory, not a regular file"),
        (vec!["disasm", &d("zero")], "is a character device"),
        (vec!["wcet", &d("fifo")], "unknown input type"),
        (vec!["unit", "stack", &d("fifo")], "is a FIFO"),
        (vec!["golden", &d("fifo")], "is a FIFO"),
    ] {
        let err = common::pws_err(&args);
        assert!(err.contains(expect), "pws {args:?}: {err}");
    }
    let manifest = |name: &str, body: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, body).unwrap();
        p.to_str().unwrap().to_string()
    };
    for (kernel, expect) in [
        (
            "/dev/zero",
            "`/dev/zero` (relative to the manifest): /dev/zero: is a character device",
        ),
        ("/dev/urandom", "is a character device"),
        ("fifo", "is a FIFO"),
        ("zero", "is a character device"),
    ] {
        let m = manifest(
            "k.toml",
            &format!("kernel = \"{kernel}\"\ngrid = 1\nworkgroup = 1\n"),
        );
        for cmd in ["golden", "run", "wcet"] {
            let err = common::pws_err(&[cmd, &m]);
            assert!(
                err.contains(expect),
                "pws {cmd} with kernel {kernel}: {err}"
            );
            assert!(err.contains("k.toml:1:10: key `kernel`"), "{err}");
        }
    }
    for (file, expect) in [
        ("/dev/zero", "is a character device"),
        ("fifo", "is a FIFO"),
        ("/etc/passwd", "/etc/passwd:1:1: not an integer"),
    ] {
        let m = manifest(
            "b.toml",
            &format!(
                "kernel = \"vecadd.s\"\ngrid = 1\nworkgroup = 1\n[[buffer]]\nname = \"a\"\ntype = \"i32\"\nfile = \"{file}\"\n"
            ),
        );
        let err = common::pws_err(&["golden", &m]);
        assert!(
            err.contains(expect) && !err.contains("root"),
            "{file}: {err}"
        );
    }
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
}
