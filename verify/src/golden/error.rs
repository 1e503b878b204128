//! Errors of the golden model. Each names where it happened (wavefront, context, PC, source
//! line and instruction), so a failing kernel can be fixed without a debugger.

use std::fmt;

use pws_isa::manifest::ManifestError;
use serde::Serialize;

use super::memory::MemFault;
use super::pws::ContextId;

/// A context at a PC.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Site {
    pub workgroup: u32,
    /// Wavefront index within the workgroup.
    pub wave: u32,
    pub context: ContextId,
    pub pc: u32,
    /// `file:line` of the instruction, when the program came from source.
    pub source: Option<String>,
    /// The instruction in llvm-mc syntax, if `pc` holds one.
    pub instruction: Option<String>,
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "workgroup {} wave {} context {} pc {:#06x}",
            self.workgroup, self.wave, self.context, self.pc
        )?;
        match (&self.source, &self.instruction) {
            (Some(src), Some(inst)) => write!(f, " ({src}: `{inst}`)"),
            (None, Some(inst)) => write!(f, " (`{inst}`)"),
            _ => write!(f, " (no instruction there)"),
        }
    }
}

/// A context that can never continue, and what it waits for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Stuck {
    pub site: Site,
    pub waits_for: String,
}

/// How often an instruction ran before the instruction limit stopped the launch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HotPc {
    pub pc: u32,
    pub count: u64,
    pub instruction: String,
}

/// Why a golden-model run failed.
#[derive(Debug, thiserror::Error)]
pub enum GoldenError {
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    #[error(transparent)]
    Budget(#[from] pws_isa::manifest::BudgetError),
    #[error("{0}")]
    Assemble(pws_isa::AsmError),
    #[error("{0}")]
    Config(String),
    #[error("{site}: not executable: {message}")]
    NotExecutable { site: Site, message: String },
    #[error("{site}: {}{fault}", lane.map(|l| format!("lane {l}: ")).unwrap_or_default())]
    Memory {
        site: Site,
        lane: Option<usize>,
        fault: MemFault,
    },
    #[error("{site}: control reached {pc:#x}, which is not the start of an instruction (program size {size:#x} bytes)")]
    BadPc { site: Site, pc: u32, size: u32 },
    #[error("{site}: reads {register}, which the merge at {merge} dropped: the split wavefront wrote it and its value is lost (the split does not preserve the program; see pws compile's safety check)")]
    DroppedScalar {
        site: Site,
        register: String,
        merge: Site,
    },
    #[error("deadlock: no context can continue{}", list_stuck(stuck))]
    Deadlock { stuck: Vec<Stuck> },
    #[error(
        "runaway: workgroup {workgroup} wave {wave} reached the limit of {limit} instructions per wavefront (--max-instructions); its contexts still running:{}{}",
        list_sites(running),
        list_hot(hot)
    )]
    InstructionLimit {
        limit: u64,
        workgroup: u32,
        /// Wavefront index within the workgroup.
        wave: u32,
        running: Vec<Site>,
        hot: Vec<HotPc>,
    },
}

fn list_stuck(stuck: &[Stuck]) -> String {
    stuck
        .iter()
        .map(|s| format!("\n  {}: {}", s.site, s.waits_for))
        .collect()
}

fn list_sites(sites: &[Site]) -> String {
    sites.iter().map(|s| format!("\n  {s}")).collect()
}

fn list_hot(hot: &[HotPc]) -> String {
    if hot.is_empty() {
        return String::new();
    }
    let mut out = String::from("\nmost executed instructions:");
    for h in hot {
        out.push_str(&format!(
            "\n  pc {:#06x} x{}: `{}`",
            h.pc, h.count, h.instruction
        ));
    }
    out
}
