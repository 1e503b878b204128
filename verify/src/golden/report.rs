//! What a golden-model run reports: final buffers (typed per the manifest), the final
//! registers of every wavefront, the split/merge event trace and statistics. The report is
//! what the RTL compute unit is compared against, and what `pws golden` prints (as a table or
//! as JSON).

use std::fmt::Write;

use pws_isa::elem::listing;
use pws_isa::manifest::{ElemType, Value};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use super::pws::{ContextId, EventKind};
use super::Mode;

/// A 64-bit lane mask; JSON writes it as a hex string (`"0x000000000000000e"`) so that no
/// consumer rounds it through a double.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Mask(pub u64);

impl Serialize for Mask {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{:#018x}", self.0))
    }
}

impl std::fmt::Display for Mask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#018x}", self.0)
    }
}

/// Final contents of one buffer, typed as the manifest declares it; JSON writes its values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferValues {
    pub ty: ElemType,
    /// Elements of `ty` the words hold.
    pub len: usize,
    words: Vec<u32>,
}

impl BufferValues {
    pub fn new(ty: ElemType, len: usize, words: Vec<u32>) -> BufferValues {
        BufferValues { ty, len, words }
    }

    /// The raw 32-bit words (what memory holds).
    pub fn words(&self) -> Vec<u32> {
        self.words.clone()
    }

    /// The elements, as the type reads them.
    pub fn values(&self) -> Vec<Value> {
        self.ty.values(&self.words, self.len)
    }
}

impl Serialize for BufferValues {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.values().serialize(s)
    }
}

/// Buffers in manifest order; JSON writes them as an object `name -> [values]`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Buffers(pub Vec<(String, BufferValues)>);

impl Buffers {
    pub fn get(&self, name: &str) -> Option<&BufferValues> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}

impl Serialize for Buffers {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (name, values) in &self.0 {
            map.serialize_entry(name, values)?;
        }
        map.end()
    }
}

/// Final architectural state of one wavefront: its WfContext's scalar state and the shared
/// vector registers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WavefrontState {
    pub workgroup: u32,
    /// Index within the workgroup.
    pub wave: u32,
    /// Index within the launch.
    pub id: u32,
    pub exec: Mask,
    pub vcc: Mask,
    pub scc: bool,
    /// The WfContext's split mask (all ones once every split has merged back).
    pub spm: Mask,
    /// s0.. up to the highest SGPR the program names (at least the ABI's s0..s6).
    pub sgprs: Vec<u32>,
    /// `vgprs[r][lane]`: v0.. up to the highest VGPR the program names, all 64 lanes.
    pub vgprs: Vec<Vec<u32>>,
    /// SwfContexts still allocated at the end (they ended without merging back).
    pub unmerged: Vec<ContextId>,
}

/// One split/merge event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PwsEvent {
    pub workgroup: u32,
    pub wave: u32,
    /// The context that executed the instruction (for `merge`: the parent).
    pub context: ContextId,
    pub pc: u32,
    pub kind: EventKind,
    /// The context's split mask after the event.
    pub spm: Mask,
    /// `split`: the new context; `merge-wait`: the awaited one; `merge`: the freed child.
    pub partner: Option<ContextId>,
    /// The partner's split mask after the event (`merge`: the lanes the child returned).
    pub partner_spm: Option<Mask>,
}

/// Counters of a run.
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize)]
pub struct Stats {
    pub workgroups: u32,
    pub wavefronts: u32,
    /// Instructions executed, summed over all contexts.
    pub instructions: u64,
    /// `split` instructions executed (every mode).
    pub split_instructions: u64,
    /// `merge` instructions executed (every mode).
    pub merge_instructions: u64,
    /// Splits that allocated a SwfContext.
    pub splits: u64,
    /// Splits with an empty side.
    pub noop_splits: u64,
    /// Splits that found no free SwfContext (or a full child stack) and serialised instead.
    pub fallbacks: u64,
    /// Completed parent/child merges.
    pub merges: u64,
    /// Released workgroup barriers.
    pub barriers: u64,
    /// Largest number of SwfContexts one wavefront had allocated at once.
    pub peak_swf_contexts: usize,
    /// Instructions of the wavefront that executed the most (summed over its contexts).
    pub peak_wavefront_instructions: u64,
    /// Split/merge events past the trace's cap (`golden::MAX_TRACE_EVENTS`), counted only.
    pub trace_omitted: u64,
}

/// Everything a golden-model run produces.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Report {
    pub kernel: String,
    pub mode: Mode,
    /// SpSIMDs per SIMD (PWS mode only).
    #[serde(rename = "S")]
    pub s: Option<usize>,
    /// Work-items in each dimension the manifest gives (x, then y, z).
    pub grid: Vec<u32>,
    /// Work-items per workgroup in those dimensions.
    pub workgroup: Vec<u32>,
    pub buffers: Buffers,
    /// Final registers of every wavefront (empty unless `Config::final_registers`).
    pub wavefronts: Vec<WavefrontState>,
    pub trace: Vec<PwsEvent>,
    pub stats: Stats,
}

/// `4`, `4x2`, `4x2x2`.
fn extent(e: &[u32]) -> String {
    e.iter().map(u32::to_string).collect::<Vec<_>>().join("x")
}

/// Lines of values per buffer in the human report.
const MAX_LINES: usize = 16;

impl Report {
    /// The human-readable report of `pws golden` for the kernel the manifest names `label`
    /// (its `.cl` source when it has one; the assembly that ran is named below the header
    /// then).
    pub fn to_text(&self, label: &str) -> String {
        let mut out = String::new();
        let mode = match self.s {
            Some(s) => format!("pws, S = {s}"),
            None => "nosplit".to_string(),
        };
        let _ = writeln!(
            out,
            "kernel {label} ({mode}): grid {}, workgroup {}: {} workgroup(s), {} wavefront(s)",
            extent(&self.grid),
            extent(&self.workgroup),
            self.stats.workgroups,
            self.stats.wavefronts
        );
        if !self.kernel.ends_with(label) {
            let _ = writeln!(out, "assembly {}", self.kernel);
        }
        out.push_str("\nbuffers\n");
        let width = self
            .buffers
            .0
            .iter()
            .map(|(n, _)| n.len())
            .max()
            .unwrap_or(0);
        for (name, buffer) in &self.buffers.0 {
            out.push_str(&listing(
                name,
                width,
                buffer.ty,
                &buffer.values(),
                MAX_LINES,
            ));
        }
        out.push_str("\nsplit/merge trace\n");
        if self.trace.is_empty() {
            out.push_str("  (none)\n");
        } else {
            let _ = writeln!(
                out,
                "  {:>3} {:>4} {:>3} {:>7}  {:<14} {:<18} {:>7}  {:<18}",
                "wg", "wave", "ctx", "pc", "event", "SpM", "partner", "partner SpM"
            );
            for e in &self.trace {
                let _ = writeln!(
                    out,
                    "  {:>3} {:>4} {:>3} {:>#7x}  {:<14} {} {:>7}  {}",
                    e.workgroup,
                    e.wave,
                    e.context.to_string(),
                    e.pc,
                    kind_name(e.kind),
                    e.spm,
                    e.partner
                        .map(|p| p.to_string())
                        .unwrap_or_else(|| "-".into()),
                    e.partner_spm
                        .map(|m| m.to_string())
                        .unwrap_or_else(|| "-".into()),
                );
            }
            if self.stats.trace_omitted > 0 {
                let _ = writeln!(
                    out,
                    "  ... {} more event(s) not kept (the trace holds the first {})",
                    self.stats.trace_omitted,
                    self.trace.len()
                );
            }
        }
        let s = &self.stats;
        let _ = writeln!(
            out,
            "\nstatistics\n  instructions {}  split instructions {}  merge instructions {}\n  \
             splits {}  no-op splits {}  fallbacks {}  merges {}  barriers {}  peak SWF contexts {}",
            s.instructions,
            s.split_instructions,
            s.merge_instructions,
            s.splits,
            s.noop_splits,
            s.fallbacks,
            s.merges,
            s.barriers,
            s.peak_swf_contexts
        );
        out
    }
}

fn kind_name(kind: EventKind) -> &'static str {
    match kind {
        EventKind::Split => "split",
        EventKind::NoopSplit => "noop-split",
        EventKind::FallbackSplit => "fallback-split",
        EventKind::MergeWait => "merge-wait",
        EventKind::Merge => "merge",
        EventKind::NoopMerge => "noop-merge",
        EventKind::UnpairedMerge => "unpaired-merge",
    }
}
