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
//! Models are cached: a build goes to `CACHE/<hash>/` where the hash covers the Verilog, the
//! shim, the Verilator flags and `verilator --version`, so a second run of the same design loads
//! the library without building (the compute unit takes minutes to compile).

use std::ffi::{c_void, CStr, CString};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::bench::verilator_name;
use crate::tools::{self, Tool};
use crate::verilog::{self, Direction, Port};
use crate::ExportError;

/// Flags of every model build (part of the cache key).
const FLAGS: [&str; 11] = [
    "--cc",
    "--exe",
    "--build",
    "-O3",
    "--x-assign",
    "fast",
    "-Wno-fatal",
    "-CFLAGS",
    "-fPIC",
    "-LDFLAGS",
    "-shared",
];
const LIBRARY: &str = "libpws_model.so";

type NewFn = unsafe extern "C" fn() -> *mut c_void;
type FreeFn = unsafe extern "C" fn(*mut c_void);
type EvalFn = unsafe extern "C" fn(*mut c_void);
type SetFn = unsafe extern "C" fn(*mut c_void, u32, u64);
type GetFn = unsafe extern "C" fn(*mut c_void, u32) -> u64;

/// A Verilated design: set inputs, evaluate, read outputs.
pub struct VerilatedModel {
    library: *mut c_void,
    model: *mut c_void,
    free: FreeFn,
    eval: EvalFn,
    set: SetFn,
    get: GetFn,
    inputs: Vec<Port>,
    outputs: Vec<Port>,
    path: PathBuf,
}

impl VerilatedModel {
    /// The model of module `top` of `verilog`, built under `cache` (or loaded from there).
    pub fn build(verilog_text: &str, top: &str, cache: &Path) -> Result<Self, ExportError> {
        let ports = verilog::ports(verilog_text, top)?;
        if let Some(wide) = ports.iter().find(|p| p.width > 64) {
            return Err(ExportError::BadArgument(format!(
                "port {} of {top} is {} bits wide; the Verilator shim drives ports of at most \
                 64 bits",
                wide.name, wide.width
            )));
        }
        let (inputs, outputs): (Vec<Port>, Vec<Port>) = ports
            .into_iter()
            .partition(|p| p.direction == Direction::Input);
        let shim = shim(top, &inputs, &outputs);
        let version = tools::run(Tool::Verilator, &["--version"], cache_root(cache)?, top)?;
        let mut hash = Sha256::new();
        for part in [
            verilog_text.as_bytes(),
            shim.as_bytes(),
            FLAGS.join(" ").as_bytes(),
            &version.stdout,
        ] {
            hash.update((part.len() as u64).to_le_bytes());
            hash.update(part);
        }
        let key: String = hash.finalize()[..12]
            .iter()
            .fold(String::new(), |mut s, b| {
                let _ = write!(s, "{b:02x}");
                s
            });
        let dir = cache.join(format!("{top}-{key}"));
        let path = dir.join("obj").join(LIBRARY);
        if !path.is_file() {
            build_library(&dir, top, verilog_text, &shim)?;
        }
        // SAFETY: the library is the one built above from the shim, whose functions have exactly
        // these signatures; the model pointer stays private to this value and is freed once.
        unsafe { Self::load(path, inputs, outputs) }
    }

    unsafe fn load(
        path: PathBuf,
        inputs: Vec<Port>,
        outputs: Vec<Port>,
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
            ))
        })();
        let (new, free, eval, set, get) = match functions {
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
fn build_library(dir: &Path, top: &str, verilog_text: &str, shim: &str) -> Result<(), ExportError> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(|e| ExportError::io(dir, e))?;
    }
    std::fs::create_dir_all(dir).map_err(|e| ExportError::io(dir, e))?;
    let file = verilog::write(dir, top, verilog_text)?;
    let shim_path = dir.join("pws_model.cpp");
    std::fs::write(&shim_path, shim).map_err(|e| ExportError::io(&shim_path, e))?;
    let file_name = file.file_name().map(|n| n.to_string_lossy().into_owned());
    let mut args: Vec<&str> = FLAGS.to_vec();
    args.extend(["-o", LIBRARY, "-Mdir", "obj", "--top-module", top]);
    let file_name = file_name.unwrap_or_default();
    args.extend([file_name.as_str(), "pws_model.cpp"]);
    tools::run(Tool::Verilator, &args, dir, top).map(drop)
}

/// The C ABI over the Verilated class `V<top>`: the model is evaluated once with every input 0
/// when it is made, so that the first clock edge the caller drives is seen as one.
fn shim(top: &str, inputs: &[Port], outputs: &[Port]) -> String {
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
    let _ = writeln!(
        s,
        "struct PwsModel {{ VerilatedContext context; {class}* top; }};"
    );
    let _ = writeln!(s, "extern \"C\" {{");
    let _ = writeln!(
        s,
        "void* pws_model_new() {{ auto* m = new PwsModel; m->top = new {class}{{&m->context}}; \
         m->top->eval(); return m; }}"
    );
    let _ = writeln!(
        s,
        "void pws_model_free(void* p) {{ auto* m = static_cast<PwsModel*>(p); m->top->final(); \
         delete m->top; delete m; }}"
    );
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
