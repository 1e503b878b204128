//! What `pws wcet` analyses with the paper's kernel-level formulas: a DOT CFG or a GCN3 kernel
//! (`.s`), turned into a [`Cfg`]. A launch manifest is bounded on the compute unit by
//! [`crate::launch`].

use std::path::Path;

use pws_isa::abi::LaunchAbi;
use pws_isa::input::{read_text, Kind};

use crate::cfg::Cfg;
use crate::compile::SplitPolicy;
use crate::dot::parse_cfg;
use crate::error::{HostError, Result};
use crate::extract::launch_values::LaunchValues;
use crate::extract::{extract, LoopBounds};
use crate::kernel::Launch;
use crate::timing::TimingTable;

/// A loaded input: its CFG (with the split points P marked).
#[derive(Debug, Clone)]
pub struct Input {
    pub cfg: Cfg,
    /// For a kernel: the scalar registers each wavefront holds (those it names, and at least the
    /// ones the launch ABI initialises), which a split copies.
    pub sgprs: Option<u32>,
    /// What was changed in a kernel before the analysis read it ([`crate::reducible`]).
    pub warnings: Vec<String>,
    /// How the analysis bounded a kernel's loops nobody annotated, `file:line: what`.
    pub notes: Vec<String>,
}

pub(crate) fn program_sgprs(program: &pws_isa::Program) -> u32 {
    program
        .sgprs_used()
        .max(LaunchAbi::of_program(program).sgpr_count())
}

/// Reads `path` through the bounded reader (`pws_isa::input`).
fn read(path: &Path, kind: Kind) -> Result<String> {
    read_text(path, kind).map_err(|e| HostError::Input(e.to_string()))
}

/// Loads `path` by its extension: `.dot`/`.gv`, `.s`/`.asm`. A kernel's split points are
/// chosen by `policy`'s cost model when it is [`SplitPolicy::Auto`] (the blocks the pass splits
/// are marked); a CFG has no instructions to estimate, so `Auto` is an error there, and
/// [`SplitPolicy::All`] is the caller's to apply. A kernel's loops are bounded for `launch`
/// where its workgroup and grid sizes bound them ([`LaunchValues::geometry`]).
pub fn load(path: &Path, policy: SplitPolicy, launch: &Launch) -> Result<Input> {
    let name = path.display().to_string();
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    match ext {
        "dot" | "gv" if policy == SplitPolicy::Auto => Err(HostError::Input(format!(
            "{name}: the split cost model needs the kernel's instructions; a CFG's split points are its marked branches, or all of them with --split-all"
        ))),
        "dot" | "gv" => Ok(Input {
            cfg: parse_cfg(&read(path, Kind::Dot)?, &name)?,
            sgprs: None,
            warnings: Vec::new(),
            notes: Vec::new(),
        }),
        "s" | "asm" => {
            let repaired = crate::reducible::repair(&read(path, Kind::Assembly)?, &name)?;
            let mut text = repaired.text;
            if policy == SplitPolicy::Auto {
                let opts = crate::compile::Options {
                    policy,
                    strict_markers: false,
                    restore_skips: true,
                };
                text = crate::compile::compile_with(&text, &name, &opts)?.text;
            }
            let mut kernel = extract(&text, &name, &TimingTable::GCN3)?;
            let sizes = (u32::try_from(launch.groups), u32::try_from(launch.wg_size));
            if let (Ok(groups), Ok(workgroup)) = sizes {
                let values = LaunchValues::geometry(&kernel.program, groups, workgroup);
                kernel.bound_loops(&values, &LoopBounds::default());
            }
            let notes = kernel.loop_notes(&name);
            Ok(Input {
                sgprs: Some(program_sgprs(&kernel.program)),
                cfg: kernel.cfg,
                warnings: repaired.notes,
                notes,
            })
        }
        "toml" => Err(HostError::Input(format!(
            "{name}: a launch manifest is bounded on the compute unit (pws_host::launch), not by the paper's formulas"
        ))),
        _ => Err(HostError::Input(format!(
            "{name}: unknown input type (expected a .dot CFG or a .s kernel; pws wcet also takes a .cl OpenCL C kernel and a .toml launch manifest)"
        ))),
    }
}
