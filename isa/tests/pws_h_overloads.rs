//! pws.h against the OpenCL 1.2 built-in declarations clang-14 ships (`opencl-c.h`): every
//! overload a kernel can call must compile with pws.h and reach pws.h's definition of that same
//! overload. A missing one is a compile error (or, for `convert_*`, which clang declares
//! itself, a call pws refuses); worse, a call can bind silently to another overload through an
//! implicit conversion: `convert_int_sat(uint)` took the `float` one and rounded 16777217 to
//! 16777216, `any(long)` the `int` one and dropped the high word.
//!
//! The test preprocesses `opencl-c.h` for gfx803, writes one kernel per declaration calling it
//! with arguments of exactly its parameter types, and compiles them twice to LLVM IR: against
//! the declarations themselves (the mangled name of the overload meant) and against a copy of
//! pws.h whose functions are not inlined (the mangled name of the overload reached, which must
//! be defined there), and checks that no pws.h function reaches itself through its calls.
//! A second test compiles the calls at -O2, as `pws` does, and checks that every instruction
//! clang emits for them is in the executable subset of both executors (one overload in 16
//! under `make test`, all 7,000-odd under `make soak`: three minutes of clang). Fails (never
//! skips) when clang-14 is missing.
//!
//! Not checked, with the reason: `half` arithmetic and `double` (pws runs neither; the
//! half-precision loads and stores are checked), images, samplers and pipes (no such
//! hardware), the 64-bit atomics (declared unavailable on purpose), the async copies (their
//! `event_t` cannot be a kernel argument; `tests/cli_opencl.rs` runs them), OpenCL 2.0's
//! work-group, sub-group, enqueue, C11-atomic and generic-address-space functions (pws
//! compiles OpenCL 1.2), and the `amd_*` media operations of `cl_amd_media_ops` (an AMD
//! extension pws.h does not offer).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use pws_isa::opencl::{clang, DEFAULT_FLAGS as TARGET};

fn run(cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?}: {e}; `make deps` installs clang-14"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
            .lines()
            .take(40)
            .collect::<Vec<_>>()
            .join("\n")
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The declarations of clang's `opencl-c.h` this test checks, and the header's text.
fn checked_declarations() -> (Vec<Decl>, String) {
    let resources = run(Command::new(clang()).arg("-print-resource-dir"));
    let opencl_c = Path::new(resources.trim()).join("include/opencl-c.h");
    let header = run(Command::new(clang())
        .args(["-E", "-P"])
        .args(TARGET)
        .arg(&opencl_c));
    let decls = declarations(&header);
    assert!(
        decls.len() > 7000,
        "only {} declarations parsed from {}",
        decls.len(),
        opencl_c.display()
    );
    (decls, header)
}

/// One overloaded declaration: `ret name(params)`.
struct Decl {
    ret: String,
    name: String,
    params: Vec<String>,
}

impl Decl {
    fn signature(&self) -> String {
        format!("{} {}({})", self.ret, self.name, self.params.join(", "))
    }
}

/// The first `n` of `wrong`, one per line.
fn first(wrong: &[String], n: usize) -> String {
    wrong[..wrong.len().min(n)].join("\n")
}

const SKIPPED_TYPES: &[&str] = &[
    "double",
    "image",
    "sampler",
    "event_t",
    "queue",
    "ndrange",
    "clk_event",
    "reserve_id",
    "pipe",
    "memory_order",
    "memory_scope",
    "atomic_int",
    "atomic_uint",
    "atomic_long",
    "atomic_ulong",
    "atomic_float",
    "atomic_flag",
];
const SKIPPED_NAMES: &[&str] = &[
    "amd_",
    "async_",
    "wait_group",
    "prefetch",
    "work_group",
    "sub_group",
    "enqueue",
    "to_global",
    "to_local",
    "to_private",
    "printf",
    "read_image",
    "write_image",
];

/// `half` only as the memory of the half-precision loads and stores (a private `half`
/// variable needs cl_khr_fp16, so not through a private pointer), and no 64-bit atomics,
/// which pws.h declares unavailable on purpose (`tests/cli_opencl.rs` checks the message).
fn skipped(line: &str, name: &str) -> bool {
    let half_memory = ["vload_half", "vloada_half", "vstore_half", "vstorea_half"]
        .iter()
        .any(|p| name.starts_with(p));
    let half = line
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .any(|w| {
            w.strip_prefix("half")
                .is_some_and(|n| n.chars().all(|c| c.is_ascii_digit()))
        });
    SKIPPED_TYPES.iter().any(|t| line.contains(t))
        || SKIPPED_NAMES.iter().any(|s| name.starts_with(s))
        || (half && (!half_memory || line.contains("__private half")))
        || (name.starts_with("atom") && line.contains("long"))
}

fn type_word(w: &str) -> bool {
    let base = w.trim_end_matches(|c: char| c.is_ascii_digit());
    matches!(
        base,
        "char"
            | "uchar"
            | "short"
            | "ushort"
            | "int"
            | "uint"
            | "long"
            | "ulong"
            | "float"
            | "size_t"
            | "void"
    )
}

/// A parameter's type without its name (`const __global float *p` -> `const __global float *`).
fn param_type(p: &str) -> String {
    let spaced = p.replace('*', " * ");
    let mut words: Vec<&str> = spaced.split_whitespace().collect();
    if words.len() >= 2 && *words.last().unwrap() != "*" && !type_word(words.last().unwrap()) {
        words.pop();
    }
    words.join(" ")
}

fn declarations(header: &str) -> Vec<Decl> {
    let mut decls = Vec::new();
    for line in header.lines().map(str::trim) {
        let Some((ret, rest)) = line.split_once("__attribute__((overloadable))") else {
            continue;
        };
        if !line.ends_with(");") {
            continue;
        }
        let mut rest = rest.trim().trim_end_matches(");");
        while let Some(after) = rest.strip_prefix("__attribute__((") {
            rest = after.split_once("))").unwrap().1.trim_start();
        }
        let (head, params) = rest.split_once('(').unwrap();
        let name = head.split_whitespace().last().unwrap().to_string();
        if skipped(line, &name) {
            continue;
        }
        let params = params.trim();
        let params = if params.is_empty() || params == "void" {
            Vec::new()
        } else {
            params.split(',').map(param_type).collect()
        };
        decls.push(Decl {
            ret: ret.trim().trim_start_matches("const ").to_string(),
            name,
            params,
        });
    }
    decls
}

fn without_const(t: &str) -> String {
    t.split_whitespace()
        .filter(|w| *w != "const")
        .collect::<Vec<_>>()
        .join(" ")
}

/// One kernel per declaration, `k<i>`, calling it with arguments of its parameter types:
/// kernel parameters for values and global/local/constant pointers, locals for private ones.
fn probe(decls: &[Decl]) -> String {
    let mut src = String::new();
    for (i, d) in decls.iter().enumerate() {
        let mut params = Vec::new();
        let mut locals = String::new();
        let mut args = Vec::new();
        if d.ret != "void" {
            params.push(format!("__global {} *o", d.ret));
        }
        for (j, p) in d.params.iter().enumerate() {
            if let Some(base) = p.strip_suffix('*') {
                let base = without_const(base);
                let base = base.as_str();
                if let Some(t) = base.strip_prefix("__private") {
                    locals.push_str(&format!("{} t{j}; ", t.trim()));
                    args.push(format!("&t{j}"));
                } else {
                    params.push(format!("{base} *a{j}"));
                    args.push(format!("a{j}"));
                }
            } else {
                let t = without_const(p);
                let t = t.as_str();
                if t == "size_t" {
                    // size_t is not a kernel parameter type.
                    params.push(format!("uint a{j}"));
                    args.push(format!("(size_t)a{j}"));
                } else {
                    params.push(format!("{t} a{j}"));
                    args.push(format!("a{j}"));
                }
            }
        }
        let call = format!("{}({})", d.name, args.join(", "));
        let body = if d.ret == "void" {
            format!("{call};")
        } else {
            format!("*o = {call};")
        };
        src.push_str(&format!(
            "__kernel void k{i}({}) {{ {locals}{body} }}\n",
            params.join(", ")
        ));
    }
    src
}

/// A mangled name as if external: pws.h's functions are `static` (`_ZL` + the name).
fn external(mangled: &str) -> String {
    match mangled.strip_prefix("_ZL") {
        Some(rest) => format!("_Z{rest}"),
        None => mangled.to_string(),
    }
}

/// Every function the module defines -> the (mangled) functions it calls.
fn call_graph(ir: &str) -> BTreeMap<String, Vec<String>> {
    let mut graph = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in ir.lines() {
        if let Some(rest) = line.strip_prefix("define ") {
            let name = rest.split('@').nth(1).unwrap().split('(').next().unwrap();
            current = Some(external(name));
            graph.insert(external(name), Vec::new());
            continue;
        }
        if line.starts_with('}') {
            current = None;
        }
        if let Some(f) = &current {
            for part in line.split("call ").skip(1) {
                if let Some(callee) = part.split('@').nth(1) {
                    let callee: String = callee
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    graph.get_mut(f).unwrap().push(external(&callee));
                }
            }
        }
    }
    graph
}

/// A function of `graph` that reaches itself through its calls, if any: in pws.h that is a
/// definition calling an overload declared after it, which binds to itself instead (infinite
/// recursion, which LLVM deletes as undefined behaviour together with the path to it).
fn recursive(graph: &BTreeMap<String, Vec<String>>) -> Option<String> {
    fn visit<'a>(
        f: &'a str,
        graph: &'a BTreeMap<String, Vec<String>>,
        on_path: &mut BTreeSet<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) -> Option<String> {
        if on_path.contains(f) {
            return Some(f.to_string());
        }
        if !done.insert(f) {
            return None;
        }
        on_path.insert(f);
        for g in graph.get(f).into_iter().flatten() {
            if let Some(cycle) = visit(g, graph, on_path, done) {
                return Some(cycle);
            }
        }
        on_path.remove(f);
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|f| visit(f, graph, &mut BTreeSet::new(), &mut done))
}

/// The callee of kernel `k` that is `name` (mangled `_Z<len><name>`).
fn callee_named<'a>(calls: &'a [String], name: &str) -> Option<&'a String> {
    let prefix = format!("_Z{}{name}", name.len());
    calls.iter().find(|c| c.starts_with(&prefix))
}

#[test]
fn every_opencl_built_in_reaches_its_own_overload_in_pws_h() {
    let dir = tempfile::tempdir().unwrap();
    let (decls, header) = checked_declarations();
    let probe_cl = dir.path().join("probe.cl");
    std::fs::write(&probe_cl, probe(&decls)).unwrap();

    // The overload meant: the kernels against the declarations themselves.
    let declared = dir.path().join("opencl-c.i");
    std::fs::write(&declared, &header).unwrap();
    let compile = |include: &Path| {
        let ir = dir.path().join("probe.ll");
        run(Command::new(clang())
            .args(TARGET)
            // After the defaults' -O2: the last -O counts.
            .args(["-O0", "-emit-llvm", "-S", "-ferror-limit=0", "-include"])
            .arg(include)
            .arg(&probe_cl)
            .arg("-o")
            .arg(&ir));
        call_graph(&std::fs::read_to_string(ir).unwrap())
    };
    let meant = compile(&declared);

    // The overload reached: the kernels against pws.h, with nothing inlined.
    let pws_h = dir.path().join("pws.h");
    std::fs::write(
        &pws_h,
        pws_isa::opencl::PWS_H.replace("always_inline", "noinline"),
    )
    .unwrap();
    let reached = compile(&pws_h);
    assert_eq!(recursive(&reached), None, "a pws.h function calls itself");

    let mut wrong = Vec::new();
    for (i, d) in decls.iter().enumerate() {
        let signature = d.signature();
        let kernel = format!("k{i}");
        let want = callee_named(&meant[&kernel], &d.name)
            .unwrap_or_else(|| panic!("{kernel} does not call {signature}"));
        match callee_named(&reached[&kernel], &d.name) {
            Some(got) if got == want && reached.contains_key(got) => {}
            Some(got) if got == want => wrong.push(format!("{signature}: not defined by pws.h")),
            Some(got) => wrong.push(format!("{signature}: reaches {got}, not {want}")),
            None => wrong.push(format!("{signature}: no call to it")),
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} OpenCL 1.2 overloads are wrong in pws.h:\n{}",
        wrong.len(),
        decls.len(),
        first(&wrong, 60)
    );
}

#[test]
fn every_opencl_built_in_compiles_to_instructions_pws_runs() {
    let dir = tempfile::tempdir().unwrap();
    let (decls, _) = checked_declarations();
    let every = if pws_isa::testing::proptest_cases(1) >= 10 {
        1
    } else {
        16
    };
    let sample: Vec<Decl> = decls.into_iter().step_by(every).collect();
    let probe_cl = dir.path().join("probe.cl");
    std::fs::write(&probe_cl, probe(&sample)).unwrap();
    let header = dir.path().join("pws.h");
    std::fs::write(&header, pws_isa::opencl::PWS_H).unwrap();
    let asm = dir.path().join("probe.s");
    run(Command::new(clang())
        .args(TARGET)
        .args(["-S", "-include"])
        .arg(&header)
        .arg(&probe_cl)
        .arg("-o")
        .arg(&asm));
    let asm = std::fs::read_to_string(asm).unwrap();

    // Each kernel's code: from its label to the end of the function, labels and instructions.
    let mut wrong = Vec::new();
    let mut checked = 0;
    let mut current: Option<(usize, String)> = None;
    for line in asm.lines() {
        let t = line.split(';').next().unwrap_or("").trim();
        if let Some(k) = t.strip_suffix(':').and_then(|l| l.strip_prefix('k')) {
            if let Ok(k) = k.parse::<usize>() {
                current = Some((k, String::new()));
                continue;
            }
        }
        let Some((k, body)) = current.as_mut() else {
            continue;
        };
        if t.starts_with(".Lfunc_end") {
            let signature = sample[*k].signature();
            match pws_isa::assemble(body, "probe.s") {
                Err(e) => wrong.push(format!("{signature}: {e}")),
                Ok(program) => {
                    for l in &program.instructions {
                        if let Err(why) = pws_isa::subset::executable(&l.item) {
                            wrong.push(format!("{signature}: `{}`: {why}", l.item));
                        } else if pws_isa::subset::golden_only(l.item.opcode) {
                            wrong.push(format!(
                                "{signature}: `{}` runs on the golden model only",
                                l.item
                            ));
                        }
                    }
                }
            }
            checked += 1;
            current = None;
        } else if !t.is_empty() && (!t.starts_with('.') || t.ends_with(':')) {
            body.push_str(t);
            body.push('\n');
        }
    }
    assert_eq!(checked, sample.len(), "kernels found in clang's assembly");
    assert!(
        wrong.is_empty(),
        "{} of {} OpenCL 1.2 overloads compile to instructions pws does not run:\n{}",
        wrong.len(),
        sample.len(),
        first(&wrong, 40)
    );
}
