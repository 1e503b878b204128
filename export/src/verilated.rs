//! An exported design compiled by Verilator into a shared library and stepped from Rust, the
//! foundation of the compute unit's Verilator engine (issue 12).
//!
//! Why a C ABI shim loaded at run time: the Verilog is generated at run time, for whatever
//! configuration the user names, so the model cannot be a Rust dependency compiled with pws
//! (the `verilator` crates bind a design at build time). pws writes a small C++ file with
//! `extern "C"` functions (`pws_model_new`, `_set`, `_get`, `_eval`, `_free`) that switch over the
//! ports by number, lets Verilator build it with the design into `libpws_model.so`, and loads
//! that with `dlopen` (the `libc` crate, which pws already uses). Ports are numbered in the order
//! of the module's port list, inputs and outputs separately; ports of up to 64 bits are
//! supported (every port of the exported units and the compute unit).
//!
//! Models are cached: a build goes to `CACHE/<top>-<hash>/` where the hash covers the Verilog,
//! the shim, the Verilator flags and `verilator --version`, so a second run of the same design
//! loads the library without building (the compute unit takes minutes to compile). Builds of
//! one model by several processes at once (parallel tests, two `pws run`s) take a lock on
//! `CACHE/<top>-<hash>.lock`: one builds, the others wait and load its library.
//!
//! A traced model ([`Tracing::Vcd`]) is built with `--trace` and can write Verilator's VCD of
//! every signal ([`VerilatedModel::trace_to`], [`VerilatedModel::dump`]).

use std::ffi::{c_void, CStr, CString};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::bench::verilator_name;
use crate::tools::{self, Tool};
use crate::verilog::{self, Direction, Port};
use crate::ExportError;

/// Flags of every model build (part of the cache key). The build is the engine's main cost (the
/// compute unit's model is some 80 MB of C++), so the generated evaluation is compiled at `-O1`
/// (`OPT_FAST`; Verilator's default is `-Os`): about half of `-O2`'s compile time per file for
/// 7% less simulation speed. Files of 60 000 statements instead of Verilator's 20 000 parse the
/// model's 4 MB header a third as often (docs/verilog.md).
const FLAGS: [&str; 15] = [
    "--cc",
    "--exe",
    "--build",
    "-O3",
    "--x-assign",
    "fast",
    "-Wno-fatal",
    "--output-split",
    "60000",
    "-CFLAGS",
    "-fPIC",
    "-LDFLAGS",
    "-shared",
    "-MAKEFLAGS",
    "OPT_FAST=-O1",
];

/// Whether a model can write a VCD (a second build: `--trace` slows every evaluation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tracing {
    Off,
    Vcd,
}
const LIBRARY: &str = "libpws_model.so";

type NewFn = unsafe extern "C" fn() -> *mut c_void;
type FreeFn = unsafe extern "C" fn(*mut c_void);
type EvalFn = unsafe extern "C" fn(*mut c_void);
type SetFn = unsafe extern "C" fn(*mut c_void, u32, u64);
type GetFn = unsafe extern "C" fn(*mut c_void, u32) -> u64;
type TraceFn = unsafe extern "C" fn(*mut c_void, *const std::ffi::c_char) -> i32;
type DumpFn = unsafe extern "C" fn(*mut c_void, u64);

/// A Verilated design: set inputs, evaluate, read outputs.
pub struct VerilatedModel {
    library: *mut c_void,
    model: *mut c_void,
    free: FreeFn,
    eval: EvalFn,
    set: SetFn,
    get: GetFn,
    /// `pws_model_trace` and `pws_model_dump` of a traced model.
    trace: Option<(TraceFn, DumpFn)>,
    inputs: Vec<Port>,
    outputs: Vec<Port>,
    path: PathBuf,
}

impl VerilatedModel {
    /// The model of module `top` of `verilog`, built under `cache` (or loaded from there).
    pub fn build(verilog_text: &str, top: &str, cache: &Path) -> Result<Self, ExportError> {
        Self::build_with(verilog_text, top, cache, Tracing::Off, &|_| {})
    }

    /// Like [`Self::build`], with a VCD writer when `tracing` asks for one; `building` is
    /// called with the model's directory before a build (not when the model is cached).
    pub fn build_with(
        verilog_text: &str,
        top: &str,
        cache: &Path,
        tracing: Tracing,
        building: &dyn Fn(&Path),
    ) -> Result<Self, ExportError> {
        let (inputs, outputs) = split_ports(verilog_text, top)?;
        let dir = model_dir(verilog_text, top, cache, tracing, &inputs, &outputs)?;
        let path = dir.join("obj").join(LIBRARY);
        {
            let _lock = BuildLock::take(&dir)?;
            if !path.is_file() {
                building(&dir);
                let shim = shim(top, &inputs, &outputs, tracing);
                build_library(&dir, top, verilog_text, &shim, tracing)?;
            }
        }
        // SAFETY: the library is the one built above from the shim, whose functions have exactly
        // these signatures; the model pointer stays private to this value and is freed once.
        unsafe { Self::load(path, inputs, outputs, tracing) }
    }

    /// The model built in `dir` by [`Self::build_with`] (its Verilog is there), without
    /// hashing or building anything: `None` if it is not (completely) built.
    pub fn load_built(dir: &Path, top: &str, tracing: Tracing) -> Option<Self> {
        let path = dir.join("obj").join(LIBRARY);
        if !path.is_file() {
            return None;
        }
        let text = std::fs::read_to_string(dir.join(format!("{top}.v"))).ok()?;
        let (inputs, outputs) = split_ports(&text, top).ok()?;
        // SAFETY: as in `build_with`: the directory holds a library built from this Verilog's
        // shim.
        unsafe { Self::load(path, inputs, outputs, tracing) }.ok()
    }
}

/// The ports of `top`, inputs and outputs, each numbered as the shim numbers them.
fn split_ports(verilog_text: &str, top: &str) -> Result<(Vec<Port>, Vec<Port>), ExportError> {
    let ports = verilog::ports(verilog_text, top)?;
    if let Some(wide) = ports.iter().find(|p| p.width > 64) {
        return Err(ExportError::BadArgument(format!(
            "port {} of {top} is {} bits wide; the Verilator shim drives ports of at most \
                 64 bits",
            wide.name, wide.width
        )));
    }
    Ok(ports
        .into_iter()
        .partition(|p| p.direction == Direction::Input))
}

/// `CACHE/<top>-<hash>`: the hash covers everything the library is built from.
fn model_dir(
    verilog_text: &str,
    top: &str,
    cache: &Path,
    tracing: Tracing,
    inputs: &[Port],
    outputs: &[Port],
) -> Result<PathBuf, ExportError> {
    let shim = shim(top, inputs, outputs, tracing);
    let version = tools::run(Tool::Verilator, &["--version"], cache_root(cache)?, top)?;
    let mut hash = Sha256::new();
    for part in [
        verilog_text.as_bytes(),
        shim.as_bytes(),
        flags(tracing).join(" ").as_bytes(),
        &version.stdout,
    ] {
        hash.update((part.len() as u64).to_le_bytes());
        hash.update(part);
    }
    Ok(cache.join(format!("{top}-{}", short_hex(&hash.finalize()))))
}

/// The first 12 bytes of a digest in hex: the cache's keys.
pub fn short_hex(digest: &[u8]) -> String {
    digest.iter().take(12).fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

fn flags(tracing: Tracing) -> Vec<&'static str> {
    let mut flags = FLAGS.to_vec();
    if tracing == Tracing::Vcd {
        flags.push("--trace");
    }
    flags
}

/// An exclusive `flock` on `<dir>.lock`, released when dropped.
struct BuildLock(std::fs::File);

impl BuildLock {
    fn take(dir: &Path) -> Result<BuildLock, ExportError> {
        let path = dir.with_extension("lock");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| ExportError::io(&path, e))?;
        use std::os::fd::AsRawFd;
        // SAFETY: flock on a descriptor this value owns.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
            return Err(ExportError::io(&path, std::io::Error::last_os_error()));
        }
        Ok(BuildLock(file))
    }
}

impl Drop for BuildLock {
    fn drop(&mut self) {
        use std::os::fd::AsRawFd;
        // SAFETY: as in `take`; closing the file would release it too.
        unsafe { libc::flock(self.0.as_raw_fd(), libc::LOCK_UN) };
    }
}

impl VerilatedModel {
    unsafe fn load(
        path: PathBuf,
        inputs: Vec<Port>,
        outputs: Vec<Port>,
        tracing: Tracing,
    ) -> Result<Self, ExportError> {
        let c_path = CString::new(path.as_os_str().as_encoded_bytes())
            .map_err(|_| ExportError::BadArgument(format!("{}: NUL in path", path.display())))?;
        let library = libc::dlopen(c_path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL);
        if library.is_null() {
            return Err(ExportError::BadArgument(format!(
                "cannot load {}: {}",
                path.display(),
                dl_error()
            )));
        }
        let symbol = |name: &str| -> Result<*mut c_void, ExportError> {
            let c_name = CString::new(name).expect("symbol names have no NUL");
            let f = libc::dlsym(library, c_name.as_ptr());
            if f.is_null() {
                Err(ExportError::BadArgument(format!(
                    "{} has no {name}: {}",
                    path.display(),
                    dl_error()
                )))
            } else {
                Ok(f)
            }
        };
        // Every function is found before a model is made, so a failure leaks neither.
        let functions = (|| {
            Ok::<_, ExportError>((
                std::mem::transmute::<*mut c_void, NewFn>(symbol("pws_model_new")?),
                std::mem::transmute::<*mut c_void, FreeFn>(symbol("pws_model_free")?),
                std::mem::transmute::<*mut c_void, EvalFn>(symbol("pws_model_eval")?),
                std::mem::transmute::<*mut c_void, SetFn>(symbol("pws_model_set")?),
                std::mem::transmute::<*mut c_void, GetFn>(symbol("pws_model_get")?),
                match tracing {
                    Tracing::Off => None,
                    Tracing::Vcd => Some((
                        std::mem::transmute::<*mut c_void, TraceFn>(symbol("pws_model_trace")?),
                        std::mem::transmute::<*mut c_void, DumpFn>(symbol("pws_model_dump")?),
                    )),
                },
            ))
        })();
        let (new, free, eval, set, get, trace) = match functions {
            Ok(f) => f,
            Err(e) => {
                libc::dlclose(library);
                return Err(e);
            }
        };
        Ok(Self {
            library,
            model: new(),
            free,
            eval,
            set,
            get,
            trace,
            inputs,
            outputs,
            path,
        })
    }

    /// The input ports, numbered as [`Self::set`] takes them.
    pub fn inputs(&self) -> &[Port] {
        &self.inputs
    }

    /// The output ports, numbered as [`Self::get`] takes them.
    pub fn outputs(&self) -> &[Port] {
        &self.outputs
    }

    /// The input called `name`.
    pub fn input(&self, name: &str) -> Option<usize> {
        self.inputs.iter().position(|p| p.name == name)
    }

    /// The output called `name`.
    pub fn output(&self, name: &str) -> Option<usize> {
        self.outputs.iter().position(|p| p.name == name)
    }

    /// Drives input `port` (bits above its width are dropped) until the next `set` of it.
    pub fn set(&mut self, port: usize, value: u64) {
        assert!(
            port < self.inputs.len(),
            "input {port} of {}",
            self.inputs.len()
        );
        let width = self.inputs[port].width;
        let value = if width >= 64 {
            value
        } else {
            value & ((1 << width) - 1)
        };
        // SAFETY: `model` is live and `port` is one of the shim's cases.
        unsafe { (self.set)(self.model, port as u32, value) }
    }

    /// Output `port` as of the last [`Self::eval`].
    pub fn get(&self, port: usize) -> u64 {
        assert!(
            port < self.outputs.len(),
            "output {port} of {}",
            self.outputs.len()
        );
        // SAFETY: as in `set`.
        unsafe { (self.get)(self.model, port as u32) }
    }

    /// Settles the design on its inputs (Verilator's `eval`).
    pub fn eval(&mut self) {
        // SAFETY: as in `set`.
        unsafe { (self.eval)(self.model) }
    }

    /// Starts a VCD of every signal in `path` (the model must be built with [`Tracing::Vcd`]);
    /// [`Self::dump`] writes the values at a time.
    pub fn trace_to(&mut self, path: &Path) -> Result<(), ExportError> {
        let Some((trace, _)) = self.trace else {
            return Err(ExportError::BadArgument(format!(
                "{} was built without --trace",
                self.path.display()
            )));
        };
        let c_path = CString::new(path.as_os_str().as_encoded_bytes())
            .map_err(|_| ExportError::BadArgument(format!("{}: NUL in path", path.display())))?;
        // SAFETY: `model` is live; the shim copies the path before returning.
        if unsafe { trace(self.model, c_path.as_ptr()) } == 0 {
            return Err(ExportError::io(
                path,
                std::io::Error::other("cannot open the VCD"),
            ));
        }
        Ok(())
    }

    /// Writes the signals that changed to the VCD at `time` (picoseconds); nothing without
    /// [`Self::trace_to`].
    pub fn dump(&mut self, time: u64) {
        if let Some((_, dump)) = self.trace {
            // SAFETY: `model` is live; the shim does nothing before `pws_model_trace`.
            unsafe { dump(self.model, time) }
        }
    }

    /// The shared library the model runs from.
    pub fn library(&self) -> &Path {
        &self.path
    }
}

impl Drop for VerilatedModel {
    fn drop(&mut self) {
        // SAFETY: `model` came from this library's `pws_model_new` and is freed once; the
        // library is closed after its last use.
        unsafe {
            (self.free)(self.model);
            libc::dlclose(self.library);
        }
    }
}

fn dl_error() -> String {
    // SAFETY: dlerror returns NULL or a NUL-terminated string owned by the C library.
    let e = unsafe { libc::dlerror() };
    if e.is_null() {
        "unknown error".into()
    } else {
        unsafe { CStr::from_ptr(e) }.to_string_lossy().into_owned()
    }
}

fn cache_root(cache: &Path) -> Result<&Path, ExportError> {
    std::fs::create_dir_all(cache).map_err(|e| ExportError::io(cache, e))?;
    Ok(cache)
}

/// Builds `dir/obj/libpws_model.so`; a half-built directory is built again from scratch.
fn build_library(
    dir: &Path,
    top: &str,
    verilog_text: &str,
    shim: &str,
    tracing: Tracing,
) -> Result<(), ExportError> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(|e| ExportError::io(dir, e))?;
    }
    std::fs::create_dir_all(dir).map_err(|e| ExportError::io(dir, e))?;
    let file = verilog::write(dir, top, verilog_text)?;
    let shim_path = dir.join("pws_model.cpp");
    std::fs::write(&shim_path, shim).map_err(|e| ExportError::io(&shim_path, e))?;
    let file_name = file.file_name().map(|n| n.to_string_lossy().into_owned());
    let mut args = flags(tracing);
    // Not part of the key: the same library on any machine.
    let jobs = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .to_string();
    args.extend(["--build-jobs", jobs.as_str()]);
    args.extend(["-o", LIBRARY, "-Mdir", "obj", "--top-module", top]);
    let file_name = file_name.unwrap_or_default();
    args.extend([file_name.as_str(), "pws_model.cpp"]);
    tools::run(Tool::Verilator, &args, dir, top).map(drop)
}

/// The C ABI over the Verilated class `V<top>`: the model is evaluated once with every input 0
/// when it is made, so that the first clock edge the caller drives is seen as one.
fn shim(top: &str, inputs: &[Port], outputs: &[Port], tracing: Tracing) -> String {
    let traced = tracing == Tracing::Vcd;
    let class = format!("V{top}");
    let mut s = String::new();
    let _ = writeln!(
        s,
        "// Generated by pws-export (verilated.rs): the C ABI of {class}."
    );
    let _ = writeln!(
        s,
        "#include \"{class}.h\"\n#include \"verilated.h\"\n#include <cstdint>"
    );
    if traced {
        let _ = writeln!(s, "#include \"verilated_vcd_c.h\"");
        let _ = writeln!(
            s,
            "struct PwsModel {{ VerilatedContext context; {class}* top; \
             VerilatedVcdC* vcd = nullptr; }};"
        );
    } else {
        let _ = writeln!(
            s,
            "struct PwsModel {{ VerilatedContext context; {class}* top; }};"
        );
    }
    let _ = writeln!(s, "extern \"C\" {{");
    let trace_on = if traced {
        "m->context.traceEverOn(true); "
    } else {
        ""
    };
    let _ = writeln!(
        s,
        "void* pws_model_new() {{ auto* m = new PwsModel; {trace_on}\
         m->top = new {class}{{&m->context}}; m->top->eval(); return m; }}"
    );
    let close_vcd = if traced {
        "if (m->vcd) { m->vcd->close(); delete m->vcd; } "
    } else {
        ""
    };
    let _ = writeln!(
        s,
        "void pws_model_free(void* p) {{ auto* m = static_cast<PwsModel*>(p); m->top->final(); \
         {close_vcd}delete m->top; delete m; }}"
    );
    if traced {
        let _ = writeln!(
            s,
            "int pws_model_trace(void* p, const char* path) {{ auto* m = \
             static_cast<PwsModel*>(p); m->vcd = new VerilatedVcdC; m->top->trace(m->vcd, 99); \
             m->vcd->open(path); return m->vcd->isOpen() ? 1 : 0; }}"
        );
        let _ = writeln!(
            s,
            "void pws_model_dump(void* p, uint64_t t) {{ auto* m = static_cast<PwsModel*>(p); \
             if (m->vcd) m->vcd->dump(t); }}"
        );
    }
    let _ = writeln!(
        s,
        "void pws_model_eval(void* p) {{ static_cast<PwsModel*>(p)->top->eval(); }}"
    );
    let _ = writeln!(
        s,
        "void pws_model_set(void* p, uint32_t port, uint64_t v) {{\n  auto* t = \
         static_cast<PwsModel*>(p)->top;\n  switch (port) {{"
    );
    for (i, port) in inputs.iter().enumerate() {
        let _ = writeln!(
            s,
            "  case {i}: t->{} = v; break;",
            verilator_name(&port.name)
        );
    }
    let _ = writeln!(s, "  default: break;\n  }}\n}}");
    let _ = writeln!(
        s,
        "uint64_t pws_model_get(void* p, uint32_t port) {{\n  auto* t = \
         static_cast<PwsModel*>(p)->top;\n  switch (port) {{"
    );
    for (i, port) in outputs.iter().enumerate() {
        let _ = writeln!(
            s,
            "  case {i}: return static_cast<uint64_t>(t->{});",
            verilator_name(&port.name)
        );
    }
    let _ = writeln!(s, "  default: return 0;\n  }}\n}}\n}}");
    s
}
