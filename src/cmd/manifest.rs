//! `pws manifest KERNEL`: writes a launch manifest for a kernel from its code object metadata
//! (`pws_isa::skeleton`): a buffer per global pointer typed by its pointee, a zero for every
//! value, so that a user starts from a manifest that runs and only fills in the data.

use std::path::{Path, PathBuf};

use pws_isa::input::{read_text, Kind};
use pws_isa::{metadata, opencl, output};

use super::CmdResult;

#[derive(clap::Args)]
pub struct Args {
    /// The kernel: OpenCL C (.cl, compiled by clang-14) or clang's assembly (.s) with its
    /// `.amdgpu_metadata`.
    pub file: PathBuf,
    #[command(flatten)]
    pub cl: super::ClArgs,
    /// Work-items of the launch (each buffer gets one element per work-item).
    #[arg(long, default_value_t = 64)]
    pub grid: u32,
    /// Work-items per workgroup (default 64, or the kernel's maximum if lower; a kernel with a
    /// required workgroup size gets that size, and the grid rounded up to it).
    #[arg(long)]
    pub workgroup: Option<u32>,
    /// Output file (default: standard output). The manifest names the kernel relative to it.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

pub fn run(args: Args) -> CmdResult {
    let asm = args.cl.assembly(&args.file, "manifest")?;
    let text = read_text(&asm, Kind::Assembly)?;
    let kernels = opencl::kernels_in(&text);
    let name = opencl::entry_kernel(&kernels, args.cl.entry.as_deref(), "--entry")
        .map_err(|e| format!("{}: {e}", args.file.display()))?
        .ok_or_else(|| format!("{}: defines no kernel (no `.amdhsa_kernel`)", asm.display()))?;
    let meta = metadata::kernel_metadata(&text, &name)
        .map_err(|e| format!("{}:{}: {}", asm.display(), e.line, e.message))?
        .ok_or_else(|| {
            format!(
                "{}: has no `.amdgpu_metadata`, which says what the kernel's arguments are: \
                 write the manifest's `args` by hand (docs/manifest.md)",
                asm.display()
            )
        })?;
    let (grid, workgroup) = pws_isa::skeleton::shape(&meta, args.grid, args.workgroup);
    let kernel = relative_to(&args.file, args.output.as_deref());
    let entry = (kernels.len() > 1 || args.cl.entry.is_some()).then_some(name.as_str());
    let manifest = pws_isa::skeleton::manifest(&kernel, entry, &meta, grid, workgroup);
    match &args.output {
        Some(path) => {
            output::write(path, manifest.as_bytes(), &[&args.file])?;
            eprintln!("wrote {} ({})", path.display(), meta.signature());
        }
        None => print!("{manifest}"),
    }
    Ok(())
}

/// `kernel` as a manifest at `manifest` names it: its file name when both are in one
/// directory, else its absolute path (the path as given, for standard output).
fn relative_to(kernel: &Path, manifest: Option<&Path>) -> String {
    let Some(manifest) = manifest else {
        return kernel.display().to_string();
    };
    let dir = |p: &Path| {
        let parent = p.parent().filter(|d| !d.as_os_str().is_empty());
        std::path::absolute(parent.unwrap_or(Path::new("."))).ok()
    };
    match (dir(kernel), dir(manifest), kernel.file_name()) {
        (Some(a), Some(b), Some(name)) if a == b => name.to_string_lossy().into_owned(),
        _ => std::path::absolute(kernel)
            .unwrap_or_else(|_| kernel.to_path_buf())
            .display()
            .to_string(),
    }
}
