//! The timing contract of the compute unit (design.md decision 6; docs/timing.md): the
//! worst-case cycles of every instruction class as this RTL implements it.
//!
//! A context's instruction **takes** the cycles from the one in which its issue unit picks it
//! (`ctx_issue_o`) to the one in which it retires (`ctx_retire_o`), both counted; the
//! context's next instruction can be picked in the cycle after. So a straight-line block of
//! instructions i takes at most Σ (takes(i) + schedule wait(i)) cycles, where the schedule
//! wait is 0 for a context alone on its issue unit (every `pws` kernel of one wavefront) and
//! bounded by [`schedule_wait`] otherwise. Numbers for waiting at a merge for the partner or at
//! a barrier for the other contexts are not here: the WCET analysis covers them through the
//! partner's path (as e_m excludes them, docs/rtl-units.md).
//!
//! Derivations (issue unit, docs of [`super::issue`]): pick (1 cycle), decode (1), one read
//! cycle per SGPR operand (r), execute (1). Scalar instructions retire in the execute cycle.
//! Units that finish later hand the instruction over at the edge ending the execute cycle.
//!
//! f32 VALU instructions are VALU instructions here: the lanes' f32 units
//! (`crate::simd::fpu`) are combinational within the pass cycle, so [`valu_cycles`] is their
//! cost too (docs/timing.md, "f32 operations").

use crate::config::HwConfig;
use crate::simd::valu_cycles_for;
use crate::split_merge::{split_cycles, MERGE_CYCLES};

/// Most SGPR operands a scalar ALU instruction reads (two sources, 32 or 64 bits each; one
/// cycle each).
pub const SALU_MAX_READS: u64 = 2;
/// Most SGPR operands a VALU instruction reads: three sources and an SGPR-pair mask.
pub const VALU_MAX_READS: u64 = 4;
/// SGPR operands of `s_load_dword*`: the base pair, and the offset when it is an SGPR.
pub const SMEM_MAX_READS: u64 = 2;
/// SGPR operands of `split sA, sB`.
pub const SPLIT_MAX_READS: u64 = 2;

/// Front-end cycles of an instruction with `reads` SGPR operands before its execute cycle:
/// pick, decode and the reads.
fn front(reads: u64) -> u64 {
    2 + reads
}

/// A scalar ALU instruction (SOP1/SOP2/SOPC/SOPK) with `reads` SGPR operands: 3 + reads.
pub fn salu_cycles(reads: u64) -> u64 {
    front(reads) + 1
}

/// Worst-case scalar ALU instruction: 5.
pub fn salu_worst() -> u64 {
    salu_cycles(SALU_MAX_READS)
}

/// `s_branch` / `s_cbranch_*` (no SGPR operand), taken or not: 3.
pub fn branch_cycles() -> u64 {
    front(0) + 1
}

/// `s_nop`, `s_waitcnt`, `s_endpgm`, and `split`/`merge` in `nosplit` mode: 3.
pub fn nop_cycles() -> u64 {
    front(0) + 1
}

/// A VALU instruction with `reads` SGPR operands and `passes` passes (BCC/SCC: the passes of
/// its enable mask): handed to the vector unit at the edge ending the execute cycle, done
/// [`valu_cycles_for`]`(passes)` edges later, retired in the done cycle:
/// front + 1 + valu_cycles_for(passes) = reads + 4 + max(passes, 1) for a (Sp)SIMD that is
/// idle. Add [`valu_port_wait`] when other contexts share the issue unit ([`dws_valu_wait`]
/// for the slot's own contexts in `dws`).
pub fn valu_cycles(reads: u64, passes: u64) -> u64 {
    front(reads) + 1 + valu_cycles_for(passes as usize)
}

/// Worst-case VALU instruction (4 SGPR operands, every pass).
pub fn valu_worst(cfg: &HwConfig) -> u64 {
    valu_cycles(VALU_MAX_READS, cfg.passes() as u64)
}

/// Cycles the LSU's request sequencer spends on a vector memory instruction: per pass one
/// address read, then one request per dword (loads), or one data read and one request per
/// dword (stores).
pub fn lsu_vector_occupancy(cfg: &HwConfig, store: bool, dwords: u64) -> u64 {
    cfg.passes() as u64 * (1 + dwords + store as u64)
}

/// Sequencer cycles of `s_load_dword{,x2,x4,x8,x16}`: one request, and one cycle per dword
/// pair of its SRF write-back (the write-back of the pairs after the first overlaps the
/// sequencer's further cycles).
pub fn lsu_scalar_occupancy(dwords: u64) -> u64 {
    (dwords / 2).max(1)
}

/// The most cycles one LDS access of a pass can take: every one of the 16 lanes on a different
/// dword of one bank (a read or write) or on one bank at all (an atomic), `lds` module docs.
pub const LDS_MAX_CONFLICT: u64 = 16;

/// Sequencer cycles of a DS instruction of `accesses` accesses per pass (dwords; both
/// elements' dwords for `read2`/`write2`; 1 for an atomic), each after `reads` data VGPR reads
/// (0 for reads, 1 for writes and atomics, 2 for `ds_cmpst`/`ds_mskor`) and taking `conflict`
/// cycles in the LDS (1 ..= [`LDS_MAX_CONFLICT`]: the most distinct dwords, for atomics lanes,
/// one bank is asked for): per pass the address read, then per access its reads and cycles.
pub fn lsu_ds_occupancy(cfg: &HwConfig, accesses: u64, reads: u64, conflict: u64) -> u64 {
    cfg.passes() as u64 * (1 + accesses * (reads + conflict))
}

/// The longest any memory instruction holds the sequencer: `ds_write_b128` / `ds_write2_b64`
/// with a 16-way bank conflict in every access.
pub fn lsu_max_occupancy(cfg: &HwConfig) -> u64 {
    lsu_vector_occupancy(cfg, true, 4)
        .max(lsu_scalar_occupancy(16))
        .max(lsu_ds_occupancy(cfg, 4, 1, LDS_MAX_CONFLICT))
}

/// Contexts of the compute unit (all can have a memory instruction pending).
pub fn contexts(cfg: &HwConfig) -> u64 {
    (cfg.simds_per_cu * cfg.wf_contexts_per_simd * cfg.contexts_per_wavefront()) as u64
}

/// Worst-case wait of a memory instruction for the LSU when `competitors` other contexts may
/// have memory instructions (round-robin: each is served at most once first, each for at most
/// [`lsu_max_occupancy`]).
pub fn lsu_wait(cfg: &HwConfig, competitors: u64) -> u64 {
    lsu_wait_holding(competitors, lsu_max_occupancy(cfg))
}

/// The same when the competitors run a kernel whose longest memory instruction holds the
/// sequencer `hold` cycles ([`lsu_vector_occupancy`], [`lsu_scalar_occupancy`]).
pub fn lsu_wait_holding(competitors: u64, hold: u64) -> u64 {
    competitors * hold
}

/// A FLAT load or store with the sequencer free: front + 1 (execute) + 1 (the sequencer picks
/// it) + its occupancy + `mem_latency` (the last response; the instruction retires in its
/// cycle).
pub fn flat_cycles(cfg: &HwConfig, store: bool, dwords: u64) -> u64 {
    front(0) + 2 + lsu_vector_occupancy(cfg, store, dwords) + cfg.mem_latency as u64
}

/// A FLAT atomic with `data` data dwords (2 for `cmpswap`) and the sequencer free, with or
/// without `glc`: the sequencer reads its address and data as a store's and sends one request
/// per pass, whose response (the old values, written back with `glc`) retires it, so it takes
/// a store's cycles: [`flat_cycles`]`(cfg, true, data)`.
pub fn flat_atomic_cycles(cfg: &HwConfig, data: u64) -> u64 {
    front(0) + 2 + lsu_vector_occupancy(cfg, true, data) + cfg.mem_latency as u64
}

/// A DS instruction with the sequencer free (see [`lsu_ds_occupancy`]): front + 1 (execute) +
/// 1 (the sequencer picks it) + its occupancy + `mem_latency`: the LDS data of an access goes
/// through a ring read with the access's tag, so every response, LDS or memory, comes exactly
/// `mem_latency` cycles after the cycle that sent it and the VRF's one write port never sees two.
/// The worst case is `conflict` = [`LDS_MAX_CONFLICT`].
pub fn ds_cycles(cfg: &HwConfig, accesses: u64, reads: u64, conflict: u64) -> u64 {
    front(0) + 2 + lsu_ds_occupancy(cfg, accesses, reads, conflict) + cfg.mem_latency as u64
}

/// `s_load_dword{,x2,x4,x8,x16}` with `reads` SGPR operands and the sequencer free: front + 1
/// (execute) + 1 (the sequencer picks it) + `mem_latency` + one cycle per dword pair written
/// back (the last pair retires it).
pub fn smem_cycles(cfg: &HwConfig, reads: u64, dwords: u64) -> u64 {
    front(reads) + 2 + cfg.mem_latency as u64 + lsu_scalar_occupancy(dwords)
}

/// Worst-case memory instruction without arbitration wait.
pub fn mem_worst(cfg: &HwConfig) -> u64 {
    flat_cycles(cfg, true, 4)
        .max(smem_cycles(cfg, SMEM_MAX_READS, 16))
        .max(ds_cycles(cfg, 4, 1, LDS_MAX_CONFLICT))
}

/// Worst-case memory instruction including the LSU wait when every other context of the
/// compute unit competes.
pub fn mem_worst_shared(cfg: &HwConfig) -> u64 {
    mem_worst(cfg) + lsu_wait(cfg, contexts(cfg) - 1)
}

/// `split` with `reads` SGPR operands (1 for `split sN, sN+1`) whose slot's split/merge
/// datapath is free: front + 1 (the execute cycle presents it to the datapath, which samples
/// it at the edge ending that cycle) + e (`split_cycles` when it allocates a context and copies
/// `sgprs` SGPRs; 1 for a no-op or fallback split) edges, retiring in the cycle `done` is high.
pub fn split_cycles_cu(cfg: &HwConfig, reads: u64, sgprs: usize) -> u64 {
    front(reads) + 1 + split_cycles(cfg, sgprs)
}

/// A split that allocates nothing (no-op or fallback): front + 1 + 1.
pub fn split_noop_cycles_cu(reads: u64) -> u64 {
    front(reads) + 1 + MERGE_CYCLES
}

/// `merge` (merging, popping a marker or starting to wait): front + 1 + e_m = 4.
pub fn merge_cycles_cu() -> u64 {
    front(0) + 1 + MERGE_CYCLES
}

/// Worst-case wait of a split or merge for its slot's datapath: the slot's S other contexts
/// each served first once, each holding the datapath for its request plus the done cycle, and
/// one more cycle because a request that had to wait is presented from its pending entry (in
/// the cycle after its execute cycle at the earliest) instead of directly.
pub fn split_merge_wait(cfg: &HwConfig, sgprs: usize) -> u64 {
    let others = cfg.spsimds_per_simd as u64;
    others * (split_cycles(cfg, sgprs) + 1) + u64::from(others > 0)
}

/// `s_barrier` when every other context has already arrived: front + 1 + 1 (release).
pub fn barrier_cycles() -> u64 {
    front(0) + 2
}

/// A VALU op's wait for its (Sp)SIMD when its issue unit serves other contexts too: (Sp)SIMD k
/// of a SIMD runs the ops of context k of every slot of the SIMD (all contexts on k = 0 in
/// `dws` and `nosplit`), and only issue unit k feeds it, so an op waits at most for the one its
/// issue unit handed over before (another context's: a context's own op retires in the cycle
/// the (Sp)SIMD is ready again), which holds it for valu_cycles_for(P) - 1 cycles.
pub fn valu_port_wait(cfg: &HwConfig) -> u64 {
    valu_cycles_for(cfg.passes()) - 1
}

/// `dws`: a VALU op waits for the SIMD while the slot's S other contexts may each have one op
/// on it (each holds it for valu_cycles_for(P) - 1 cycles, the SIMD accepting the next op in
/// its done cycle).
pub fn dws_valu_wait(cfg: &HwConfig) -> u64 {
    cfg.spsimds_per_simd as u64 * (valu_cycles_for(cfg.passes()) - 1)
}

/// Longest front-end occupancy of one instruction (pick overlaps the previous execute):
/// decode + 4 reads + execute, plus a VALU op's wait for its (Sp)SIMD ([`valu_port_wait`]; in
/// `dws` [`dws_valu_wait`] when that is longer).
pub fn frontend_worst(cfg: &HwConfig, dws: bool) -> u64 {
    let wait = if dws {
        dws_valu_wait(cfg).max(valu_port_wait(cfg))
    } else {
        valu_port_wait(cfg)
    };
    2 + VALU_MAX_READS + wait
}

/// Worst-case wait to be picked when `competitors` other contexts share the issue unit: the
/// instruction in the front end finishes, then round-robin picks each other competitor at most
/// once before this context (the one just served comes last), each holding the front end for
/// at most [`frontend_worst`] cycles (the pick overlaps the previous execute cycle).
pub fn schedule_wait(cfg: &HwConfig, competitors: u64, dws: bool) -> u64 {
    competitors * frontend_worst(cfg, dws)
}

/// Dispatch of one wavefront: one init write per cycle (SGPRs, then VGPRs one pass per
/// cycle), then the launch cycle.
pub fn dispatch_cycles(cfg: &HwConfig, sgprs: u64, vgprs: u64) -> u64 {
    sgprs + vgprs * cfg.passes() as u64 + 1
}
