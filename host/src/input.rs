//! What `pws wcet` accepts as INPUT: a DOT CFG, a GCN3 kernel (`.s`) or a launch manifest
//! (`.toml`, which names the kernel and gives G and N_WIWG), all turned into a [`Cfg`].

use std::path::Path;

use pws_isa::manifest::{abi, Manifest};

use crate::cfg::Cfg;
use crate::dot::parse_cfg;
use crate::error::{HostError, Result};
use crate::extract::{extract, Kernel};
use crate::kernel::Launch;
use crate::timing::TimingTable;

/// A loaded input: its CFG (with the split points P marked) and, for a manifest, its launch.
#[derive(Debug, Clone)]
pub struct Input {
    pub cfg: Cfg,
    pub launch: Option<Launch>,
    /// For a kernel: the scalar registers each wavefront holds (those it names, and at least the
    /// ones the launch ABI initialises), which a split copies.
    pub sgprs: Option<u32>,
}

fn kernel_sgprs(kernel: &Kernel) -> u32 {
    kernel
        .program
        .sgprs_used()
        .max(u32::from(abi::WORKGROUP_ID_X_SGPR) + 1)
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|e| HostError::Input(format!("{}: {e}", path.display())))
}

/// Loads `path` by its extension: `.dot`/`.gv`, `.s`/`.asm`, `.toml`.
pub fn load(path: &Path) -> Result<Input> {
    let name = path.display().to_string();
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    match ext {
        "dot" | "gv" => Ok(Input {
            cfg: parse_cfg(&read(path)?, &name)?,
            launch: None,
            sgprs: None,
        }),
        "s" | "asm" => {
            let kernel = extract(&read(path)?, &name, &TimingTable::PLACEHOLDER)?;
            Ok(Input {
                sgprs: Some(kernel_sgprs(&kernel)),
                cfg: kernel.cfg,
                launch: None,
            })
        }
        "toml" => {
            let m = Manifest::load(path).map_err(|e| HostError::Input(e.to_string()))?;
            let source = m.kernel_source().map_err(|e| HostError::Input(e.to_string()))?;
            let kernel = extract(&source, &m.kernel.display().to_string(), &TimingTable::PLACEHOLDER)?;
            Ok(Input {
                sgprs: Some(kernel_sgprs(&kernel)),
                cfg: kernel.cfg,
                launch: Some(Launch {
                    groups: u64::from(m.workgroups()),
                    wg_size: u64::from(m.workgroup),
                }),
            })
        }
        _ => Err(HostError::Input(format!(
            "{name}: unknown input type (expected a .dot CFG, a .s kernel or a .toml launch manifest)"
        ))),
    }
}
