//! The compute unit's timing contract as the WCET analysis sees it (design.md decision 6): the
//! worst-case cycles one instruction of each class may take on the RTL, including the waits for
//! the shared issue unit, vector ALU and memory port that the other contexts can cause. Every
//! block WCET of a `.s` kernel or a launch comes from here.
//!
//! The RTL documents the contract in docs/timing.md and `pws_hdl::cu::timing`; this crate does not
//! depend on the RTL (design.md layout), so [`TimingTable::contract`] mirrors it as formulas over
//! the hardware parameters ([`CuTiming`]) and the number of competing contexts
//! ([`Competition`]), and `tests/timing_contract.rs` keeps the two equal for several
//! configurations. A cost counts from the cycle its context may issue again (its launch, or the
//! retire of its previous instruction: a context has one instruction in flight) to the retire of
//! the instruction. It excludes only the waits that belong to other paths: a merge waiting for
//! its partner and `s_barrier` waiting for the other wavefronts, which the analysis covers at path
//! level ([`is_sync`]).

use std::fmt;
use std::str::FromStr;

use pws_isa::{Format, Instruction, Opcode, Operand, Program};
use serde::Serialize;

/// Execution mode of the compute unit (design.md decision 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// `split`/`merge` are no-ops; one SIMD serialises both paths of every branch.
    NoSplit,
    /// Split wavefronts share their SIMD and its issue unit.
    Dws,
    /// Split wavefronts run on S dedicated SpSIMDs with their own issue units.
    Pws,
}

impl Mode {
    /// The three modes in report order.
    pub const ALL: [Mode; 3] = [Mode::NoSplit, Mode::Dws, Mode::Pws];

    /// The name the CLI and the JSON use.
    pub fn name(self) -> &'static str {
        match self {
            Mode::NoSplit => "nosplit",
            Mode::Dws => "dws",
            Mode::Pws => "pws",
        }
    }

    /// True when `split` and `merge` act (DWS and PWS).
    pub fn splits(self) -> bool {
        self != Mode::NoSplit
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Mode {
    type Err = String;

    fn from_str(s: &str) -> Result<Mode, String> {
        Mode::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| format!("unknown mode '{s}' (expected nosplit, dws or pws)"))
    }
}

/// The hardware parameters the contract depends on: the host's mirror of the timing-relevant
/// fields of `pws_hdl::config::HwConfig`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CuTiming {
    /// Passes of one wavefront-wide vector op: wavefront width / lanes per (Sp)SIMD.
    pub passes: u64,
    /// Cycles from the edge that accepts a memory request to its response.
    pub mem_latency: u64,
    /// SGPRs the split datapath copies per cycle.
    pub srf_copy_width: u64,
    /// S: SpSIMDs per SIMD, hence split contexts per slot.
    pub spsimds: u64,
}

impl CuTiming {
    /// The `gcn3` preset: wave64 on 16 lanes, 32-cycle memory, 8 SGPRs copied per cycle, S = 2.
    pub const GCN3: CuTiming = CuTiming {
        passes: 4,
        mem_latency: 32,
        srf_copy_width: 8,
        spsimds: 2,
    };
}

/// e_s: cycles of a split that allocates a context and copies `sgprs` SGPRs, `srf_copy_width`
/// per cycle after two fixed cycles (docs/rtl-units.md, "Cycle costs").
pub const fn split_datapath_cycles(cu: &CuTiming, sgprs: u32) -> u64 {
    (sgprs as u64).div_ceil(cu.srf_copy_width) + pipeline::SPLIT_FIXED
}

/// Other contexts that can delay one context's instruction. Every arbiter of the compute unit is
/// round-robin, so each competitor is served at most once before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Competition {
    /// Other contexts scheduled by the same issue unit.
    pub issue: u64,
    /// Other contexts whose op may hold the same (Sp)SIMD when this one's is handed over: the
    /// SIMD's (Sp)SIMD k runs the ops of every slot's context k, but only its issue unit feeds
    /// it, so this is at most one whenever the issue unit is shared (DWS inside a split region
    /// charges the slot's S split contexts instead).
    pub valu: u64,
    /// Other contexts that can hold a memory instruction in the compute unit's one LSU.
    pub lsu: u64,
    /// Cycles each of them may hold the LSU's request sequencer: the longest occupancy among
    /// the kernel's memory instructions ([`lsu_hold`]; every context runs the same kernel).
    pub lsu_hold: u64,
    /// Other contexts of the slot that may use its split/merge datapath.
    pub split_merge: u64,
}

/// Instruction classes of the contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InstClass {
    /// SOP1/SOP2/SOPK/SOPC scalar ALU operations.
    Salu,
    /// Vector ALU operations (VOP1/VOP2/VOPC/VOP3), one wavefront over its (Sp)SIMD; the f32
    /// operations included, since the RTL's f32 unit works within the pass cycle.
    Valu,
    /// `s_load_dword`, `s_load_dwordx2` (one request), to completion.
    Smem,
    /// `s_load_dwordx4`, `x8`, `x16` (one request, one SRF write-back cycle per dword pair), to
    /// completion.
    SmemX4,
    SmemX8,
    SmemX16,
    /// FLAT loads of one (also a byte or a 16-bit half), two, three or four dwords per lane, to
    /// completion.
    FlatLoad,
    FlatLoadX2,
    FlatLoadX3,
    FlatLoadX4,
    /// FLAT stores of one (also a byte or a half), two, three or four dwords per lane, to their
    /// last response.
    FlatStore,
    FlatStoreX2,
    FlatStoreX3,
    FlatStoreX4,
    /// FLAT atomics with one data dword (with or without `glc`), and `flat_atomic_cmpswap`
    /// (two), to their last response: a store of their data dwords that returns data.
    FlatAtomic,
    FlatAtomicCmpswap,
    /// DS instructions (the LDS), to their last response: [`ds_shape`] gives their accesses
    /// and data reads per pass, each access charged the worst bank conflict.
    Ds,
    /// `s_branch` and `s_cbranch_*` (taken or not).
    Branch,
    /// `s_nop`, `s_waitcnt` (satisfied at issue: a context has one instruction in flight),
    /// `s_endpgm`, and `split`/`merge` in no-split mode.
    Nop,
    /// `s_barrier` when the others have arrived.
    Barrier,
    /// `split` through the pipeline (e_s is its datapath cost).
    Split,
    /// `merge` through the pipeline (e_m is its datapath cost), without the partner wait.
    Merge,
}

/// The timing contract of one configuration, mode and competition: cycles from the pick of an
/// instruction to its retire with no SGPR operand and no wait, plus the cycles each SGPR operand
/// and each kind of wait adds ([`TimingTable::cycles`] puts them together per instruction).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TimingTable {
    pub mode: Mode,
    pub salu: u64,
    pub valu: u64,
    pub smem: u64,
    pub smem_x4: u64,
    pub smem_x8: u64,
    pub smem_x16: u64,
    pub flat_load: u64,
    pub flat_load_x2: u64,
    pub flat_load_x3: u64,
    pub flat_load_x4: u64,
    pub flat_store: u64,
    pub flat_store_x2: u64,
    pub flat_store_x3: u64,
    pub flat_store_x4: u64,
    pub flat_atomic: u64,
    pub flat_atomic_cmpswap: u64,
    /// A DS instruction without its per-pass sequencer cycles; passes, and the LDS cycles the
    /// contract charges each access (the 16-way bank conflict).
    pub ds: u64,
    pub passes: u64,
    pub lds_access: u64,
    pub branch: u64,
    pub nop: u64,
    pub barrier: u64,
    /// `split` and `merge` without their datapath cycles e_s, e_m.
    pub split: u64,
    pub merge: u64,
    /// Per SGPR operand (one SRF read cycle each; VCC, EXEC, M0, SCC and constants are free).
    pub per_sgpr_read: u64,
    /// Every instruction: the wait to be picked by its issue unit.
    pub schedule_wait: u64,
    /// VALU: the wait for its (Sp)SIMD.
    pub valu_wait: u64,
    /// Memory: the wait for the LSU's request sequencer.
    pub lsu_wait: u64,
    /// `split`, `merge`: the wait for the slot's split/merge datapath.
    pub split_merge_wait: u64,
    /// e_s for the kernel's SGPRs, and e_m (0 in no-split mode, where they are no-ops).
    pub e_s: u64,
    pub e_m: u64,
}

/// The fixed part of the contract: cycle counts of the RTL's pipeline (`pws_hdl::cu::issue`,
/// `lsu`, `split_merge`), the same for every configuration.
mod pipeline {
    /// Pick and decode, before the operand reads.
    pub const PICK_DECODE: u64 = 2;
    /// The execute (and write-back) cycle.
    pub const EXECUTE: u64 = 1;
    /// The cycle the LSU's sequencer or the barrier unit takes to accept the instruction.
    pub const HANDOFF: u64 = 1;
    /// Most SGPR operands any instruction reads (three VALU sources and a lane mask): the
    /// front-end occupancy of a competitor.
    pub const MAX_READS: u64 = 4;
    /// A VALU op's cycles on the (Sp)SIMD beyond one per pass.
    pub const VALU_EXTRA: u64 = 1;
    /// The split datapath's decision edge and last row write (docs/rtl-units.md).
    pub const SPLIT_FIXED: u64 = 2;
    /// e_m: merge, wait or pop in the split/merge datapath.
    pub const MERGE: u64 = 1;
}

/// The most cycles one LDS access of a 16-lane pass takes: all 16 lanes on different dwords of
/// one bank (for an atomic: on one bank at all).
pub const LDS_MAX_CONFLICT: u64 = 16;

/// A DS instruction's (accesses, data reads per access) per pass: its dwords (both elements'
/// for `read2`/`write2`, one for an atomic), and 0 data VGPR reads for a read, 1 for a write or
/// an atomic, 2 for `ds_cmpst_b32` and `ds_mskor_b32` (two operands); `None` for other opcodes.
pub fn ds_shape(op: Opcode) -> Option<(u64, u64)> {
    if op.format() != Format::Ds {
        return None;
    }
    let sig = op.signature();
    let name = op.mnemonic();
    let two = name.starts_with("ds_read2") || name.starts_with("ds_write2");
    let elements = if two { 2 } else { 1 };
    if name.starts_with("ds_read") {
        let dwords = sig.dst.map_or(1, |w| w.dwords()) / elements;
        return Some((u64::from(dwords) * elements as u64, 0));
    }
    if name.starts_with("ds_write") && !name.starts_with("ds_wrxchg") {
        let dwords = sig.srcs.get(1).map_or(1, |w| w.dwords());
        return Some((u64::from(dwords) * elements as u64, 1));
    }
    // Atomics: DATA0, and DATA1 for the two-operand ones.
    let operands = sig.srcs.len().saturating_sub(1).max(1) as u64;
    Some((1, operands))
}

impl TimingTable {
    /// The contract for `cu` in `mode` for a kernel holding `sgprs` SGPRs, when `comp` other
    /// contexts compete. The one place the numbers live: `tests/timing_contract.rs` checks them
    /// against `pws_hdl::cu::timing` for several configurations.
    pub const fn contract(
        cu: &CuTiming,
        mode: Mode,
        comp: &Competition,
        sgprs: u32,
    ) -> TimingTable {
        use pipeline::*;
        let front = PICK_DECODE;
        let valu_op = if cu.passes > 1 { cu.passes } else { 1 } + VALU_EXTRA;
        // A competitor's VALU op may wait in the front end for the op its issue unit handed
        // over before to leave the (Sp)SIMD; in DWS for the slot's other contexts' ops.
        let dws = matches!(mode, Mode::Dws);
        let port_busy = valu_op - 1;
        let simd_busy = cu.spsimds * port_busy;
        let front_worst = PICK_DECODE
            + MAX_READS
            + if dws && simd_busy > port_busy {
                simd_busy
            } else {
                port_busy
            };
        // The LSU's request sequencer spends, per pass, one cycle reading the addresses, one
        // per dword sent and, for a store, one reading the data: a FLAT instruction holds it
        // passes · (1 + dwords + store) cycles ([`lsu_occupancy`]); a scalar load one cycle per
        // dword pair it writes back.
        let flat = front + EXECUTE + HANDOFF + cu.mem_latency;
        let smem = front + EXECUTE + HANDOFF + cu.mem_latency;
        let e_s = split_datapath_cycles(cu, sgprs);
        let splits = !matches!(mode, Mode::NoSplit);
        TimingTable {
            mode,
            salu: front + EXECUTE,
            valu: front + EXECUTE + valu_op,
            smem: smem + 1,
            smem_x4: smem + 2,
            smem_x8: smem + 4,
            smem_x16: smem + 8,
            flat_load: flat + cu.passes * 2,
            flat_load_x2: flat + cu.passes * 3,
            flat_load_x3: flat + cu.passes * 4,
            flat_load_x4: flat + cu.passes * 5,
            flat_store: flat + cu.passes * 3,
            flat_store_x2: flat + cu.passes * 4,
            flat_store_x3: flat + cu.passes * 5,
            flat_store_x4: flat + cu.passes * 6,
            // Address, data dword(s), one request per pass: a store's sequence.
            flat_atomic: flat + cu.passes * 3,
            flat_atomic_cmpswap: flat + cu.passes * 4,
            ds: flat,
            passes: cu.passes,
            lds_access: LDS_MAX_CONFLICT,
            branch: front + EXECUTE,
            nop: front + EXECUTE,
            barrier: front + EXECUTE + HANDOFF,
            // The execute cycle presents a split or merge to the slot's datapath directly; in
            // no-split they are no-ops.
            split: front + EXECUTE,
            merge: front + EXECUTE,
            per_sgpr_read: 1,
            schedule_wait: comp.issue * front_worst,
            valu_wait: comp.valu * (valu_op - 1),
            lsu_wait: comp.lsu * comp.lsu_hold,
            // Each other context holds the datapath for its request and the done cycle; a
            // request that had to wait is presented from its pending entry, one cycle later.
            split_merge_wait: if splits && comp.split_merge > 0 {
                comp.split_merge * (e_s + 1) + 1
            } else {
                0
            },
            e_s: if splits { e_s } else { 0 },
            e_m: if splits { MERGE } else { 0 },
        }
    }

    /// The `gcn3` configuration's contract in PWS for one wavefront alone on the compute unit,
    /// charging a full SRF copy (102 SGPRs): the table `pws compile` and `pws wcet` on a bare
    /// `.s` kernel use.
    pub const GCN3: TimingTable = TimingTable::contract(
        &CuTiming::GCN3,
        Mode::Pws,
        &Competition {
            issue: 0,
            valu: 0,
            lsu: 0,
            lsu_hold: 0,
            split_merge: 0,
        },
        102,
    );

    /// The class of `inst` in `mode`.
    pub fn class(inst: &Instruction, mode: Mode) -> InstClass {
        use Opcode::*;
        match inst.opcode {
            Split | Merge if mode == Mode::NoSplit => InstClass::Nop,
            Split => InstClass::Split,
            Merge => InstClass::Merge,
            SWaitcnt | SNop | SEndpgm | SSetregB32 | SSetregImm32B32 => InstClass::Nop,
            SBarrier => InstClass::Barrier,
            SLoadDwordx4 => InstClass::SmemX4,
            SLoadDwordx8 => InstClass::SmemX8,
            SLoadDwordx16 => InstClass::SmemX16,
            // A MUBUF access is sequenced as the FLAT one of its size (its SGPR operands are
            // read in the front end, [`TimingTable::sgpr_reads`]).
            FlatLoadUbyte | FlatLoadSbyte | FlatLoadUshort | FlatLoadSshort | FlatLoadDword
            | BufferLoadUbyte | BufferLoadSbyte | BufferLoadUshort | BufferLoadSshort
            | BufferLoadDword => InstClass::FlatLoad,
            FlatLoadDwordx2 | BufferLoadDwordx2 => InstClass::FlatLoadX2,
            FlatLoadDwordx3 | BufferLoadDwordx3 => InstClass::FlatLoadX3,
            FlatLoadDwordx4 | BufferLoadDwordx4 => InstClass::FlatLoadX4,
            FlatStoreByte | FlatStoreShort | FlatStoreDword | BufferStoreByte
            | BufferStoreShort | BufferStoreDword => InstClass::FlatStore,
            FlatStoreDwordx2 | BufferStoreDwordx2 => InstClass::FlatStoreX2,
            FlatStoreDwordx3 | BufferStoreDwordx3 => InstClass::FlatStoreX3,
            FlatStoreDwordx4 | BufferStoreDwordx4 => InstClass::FlatStoreX4,
            FlatAtomicCmpswap => InstClass::FlatAtomicCmpswap,
            op if op.is_flat_atomic() => InstClass::FlatAtomic,
            op if op.format() == Format::Ds => InstClass::Ds,
            _ if inst.is_branch() => InstClass::Branch,
            _ => match inst.opcode.format() {
                Format::Sop1 | Format::Sop2 | Format::Sopk | Format::Sopc | Format::Sopp => {
                    InstClass::Salu
                }
                Format::Smem => InstClass::Smem,
                // Every FLAT, MUBUF and DS opcode is classed above.
                Format::Flat | Format::Mubuf | Format::Ds => {
                    unreachable!("{:?} has no timing class", inst.opcode)
                }
                Format::Vop1 | Format::Vop2 | Format::Vopc | Format::Vop3 => InstClass::Valu,
            },
        }
    }

    /// SGPR operands the issue unit reads for `inst`, one cycle each: scalar registers among
    /// what it reads (a 64-bit pair is one; a MUBUF resource is read as its base pair; the
    /// destination of `s_addk_i32`, `s_mulk_i32` and `s_bitset*`, [`Instruction::reads`]).
    /// Classes that read none (branches, FLAT, no-ops) get 0.
    pub fn sgpr_reads(inst: &Instruction, mode: Mode) -> u64 {
        match Self::class(inst, mode) {
            InstClass::Salu
            | InstClass::Valu
            | InstClass::Smem
            | InstClass::SmemX4
            | InstClass::SmemX8
            | InstClass::SmemX16
            | InstClass::Split => {}
            _ if inst.opcode.format() == Format::Mubuf => {}
            _ => return 0,
        }
        let sources = inst
            .reads()
            .filter(|(op, _)| matches!(op, Operand::Sgpr(_) | Operand::Ttmp(_)))
            .count() as u64;
        // `split sN, sN+1` (a compare's SGPR pair) reads both halves in one cycle.
        let pair = match (inst.opcode, inst.src(0), inst.src(1)) {
            (Opcode::Split, Some(Operand::Sgpr(a)), Some(Operand::Sgpr(b))) => {
                u64::from(u16::from(b) == u16::from(a) + 1)
            }
            _ => 0,
        };
        sources - pair
    }

    /// Cycles `inst` holds its issue unit's front end, which a context waiting to be picked
    /// waits for (the contract's per-competitor wait is the longest: decode, 4 SGPR reads,
    /// execute): decode, its SGPR reads and execute, and for a VALU op its wait there for the
    /// op its issue unit handed over before (in DWS: for its slot's other contexts' ops) to
    /// leave the (Sp)SIMD.
    pub fn frontend_cycles(cu: &CuTiming, mode: Mode, inst: &Instruction) -> u64 {
        use pipeline::*;
        let valu_op = if cu.passes > 1 { cu.passes } else { 1 } + VALU_EXTRA;
        let simd = if Self::class(inst, mode) != InstClass::Valu {
            0
        } else if mode == Mode::Dws {
            (cu.spsimds * (valu_op - 1)).max(valu_op - 1)
        } else {
            valu_op - 1
        };
        PICK_DECODE + Self::sgpr_reads(inst, mode) + simd
    }

    /// Worst-case cycles of one execution of `inst` from the cycle its context may be
    /// picked to its retire, without the split/merge datapath's e_s / e_m (Lemma 5.1 charges
    /// those; see [`TimingTable::datapath_cycles`]).
    pub fn cycles(&self, inst: &Instruction) -> u64 {
        self.cycles_with_lds(inst, None)
    }

    /// [`TimingTable::cycles`] of `inst` where, for a DS instruction, one pass spends at most
    /// `lds` cycles in the LDS banks over all its accesses (their bank conflicts as an address
    /// analysis bounds them: [`crate::extract::lds_banks`]); `None` charges the contract's.
    pub fn cycles_with_lds(&self, inst: &Instruction, lds: Option<u64>) -> u64 {
        let class = Self::class(inst, self.mode);
        let base = match class {
            InstClass::Salu => self.salu,
            InstClass::Valu => self.valu + self.valu_wait,
            InstClass::Smem => self.smem + self.lsu_wait,
            InstClass::SmemX4 => self.smem_x4 + self.lsu_wait,
            InstClass::SmemX8 => self.smem_x8 + self.lsu_wait,
            InstClass::SmemX16 => self.smem_x16 + self.lsu_wait,
            InstClass::FlatLoad => self.flat_load + self.lsu_wait,
            InstClass::FlatLoadX2 => self.flat_load_x2 + self.lsu_wait,
            InstClass::FlatLoadX3 => self.flat_load_x3 + self.lsu_wait,
            InstClass::FlatLoadX4 => self.flat_load_x4 + self.lsu_wait,
            InstClass::FlatStore => self.flat_store + self.lsu_wait,
            InstClass::FlatStoreX2 => self.flat_store_x2 + self.lsu_wait,
            InstClass::FlatStoreX3 => self.flat_store_x3 + self.lsu_wait,
            InstClass::FlatStoreX4 => self.flat_store_x4 + self.lsu_wait,
            InstClass::FlatAtomic => self.flat_atomic + self.lsu_wait,
            InstClass::FlatAtomicCmpswap => self.flat_atomic_cmpswap + self.lsu_wait,
            InstClass::Ds => {
                self.ds + self.passes * ds_pass(inst, lds, self.lds_access) + self.lsu_wait
            }
            InstClass::Branch => self.branch,
            InstClass::Nop => self.nop,
            InstClass::Barrier => self.barrier,
            InstClass::Split => self.split + self.split_merge_wait,
            InstClass::Merge => self.merge + self.split_merge_wait,
        };
        base + self.schedule_wait + self.per_sgpr_read * Self::sgpr_reads(inst, self.mode)
    }

    /// The split/merge datapath's cycles of `inst`: e_s for a `split`, e_m for a `merge` (0 in
    /// no-split mode); the RTL measures them in the instruction's time.
    pub fn datapath_cycles(&self, inst: &Instruction) -> u64 {
        match inst.opcode {
            Opcode::Split => self.e_s,
            Opcode::Merge => self.e_m,
            _ => 0,
        }
    }
}

/// Cycles `inst` holds the LSU's request sequencer (0 for a non-memory instruction): a FLAT
/// instruction passes · (1 + dwords + store) (a byte or half access moves one dword per lane;
/// an atomic is a store of its data dwords), a scalar load one cycle per dword pair, at least
/// one.
pub fn lsu_occupancy(cu: &CuTiming, inst: &Instruction) -> u64 {
    lsu_occupancy_with_lds(cu, inst, None)
}

/// [`lsu_occupancy`] of `inst` where one pass of a DS instruction spends at most `lds`
/// cycles in the banks (as in [`TimingTable::cycles_with_lds`]).
pub fn lsu_occupancy_with_lds(cu: &CuTiming, inst: &Instruction, lds: Option<u64>) -> u64 {
    match inst.opcode.format() {
        Format::Ds => cu.passes * ds_pass(inst, lds, LDS_MAX_CONFLICT),
        Format::Flat if inst.opcode.is_flat_atomic() => {
            let data = inst.opcode.signature().srcs[1].dwords();
            cu.passes * (2 + u64::from(data))
        }
        Format::Flat | Format::Mubuf => {
            let bytes = inst.opcode.flat_bytes().unwrap_or(4);
            let store = u64::from(inst.dst.is_none());
            cu.passes * (1 + u64::from(bytes.div_ceil(4)) + store)
        }
        Format::Smem => {
            let dwords = inst.opcode.signature().dst.map_or(1, |w| w.dwords());
            u64::from(dwords / 2).max(1)
        }
        _ => 0,
    }
}

/// The sequencer cycles one pass of DS instruction `inst` takes: the address, each access's
/// data reads, and its LDS cycles: `per_access` each, or `lds` for all of them where an
/// address analysis bounds them lower.
fn ds_pass(inst: &Instruction, lds: Option<u64>, per_access: u64) -> u64 {
    let (accesses, reads) = ds_shape(inst.opcode).unwrap_or((1, 0));
    let worst = accesses * per_access;
    1 + accesses * reads + lds.map_or(worst, |k| k.min(worst))
}

/// The longest any memory instruction of `program` holds the LSU's sequencer: how long each
/// competitor of a context running it can make it wait ([`Competition::lsu_hold`]).
/// `lds` gives, per instruction, a DS instruction's LDS cycles per pass where they are
/// bounded below the contract's (an empty slice: none is).
pub fn lsu_hold(cu: &CuTiming, program: &Program, lds: &[Option<u64>]) -> u64 {
    program
        .instructions
        .iter()
        .enumerate()
        .map(|(i, l)| lsu_occupancy_with_lds(cu, &l.item, lds.get(i).copied().flatten()))
        .max()
        .unwrap_or(0)
}

/// What the dispatcher (the SPI-like port driven by `pws_sim`) and the end of a run cost, in
/// cycles: the part of the contract that is not per instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct DispatchCost {
    /// Per wavefront: one register-init write per cycle (the launch ABI's SGPRs, then its
    /// work-item id VGPRs one pass per write) and the launch.
    pub per_wavefront: u64,
    /// Per workgroup, on top of its wavefronts: zeroing its LDS region, one 128-byte row per
    /// cycle (`pws_sim`'s dispatcher starts a workgroup's first write in the cycle its slots
    /// and region are found free).
    pub per_workgroup: u64,
    /// From the retire of a wavefront's `s_endpgm` to its slot showing free.
    pub release: u64,
    /// From the start of the run to the first init write (0: a run's cycles count from it).
    pub start: u64,
    /// From the last slot freed to the end of the run (the cycle the compute unit shows idle).
    pub drain: u64,
}

impl DispatchCost {
    /// The dispatch contract for `cu` and a kernel with launch ABI `abi`.
    pub fn contract(cu: &CuTiming, abi: &pws_isa::abi::LaunchAbi) -> DispatchCost {
        let init_sgprs = u64::from(abi.sgpr_count());
        let init_vgprs = u64::from(abi.workitem_vgprs);
        DispatchCost {
            per_wavefront: init_sgprs + init_vgprs * cu.passes + 1,
            per_workgroup: u64::from(abi.group_segment_size.div_ceil(128)),
            release: 1,
            start: 0,
            drain: 1,
        }
    }
}

/// True for the instructions whose RTL time includes a wait for another context or wavefront
/// (a merge for its partner, `s_barrier` for the workgroup): the table bounds them without
/// that wait, which the analysis covers through the partner's path.
pub fn is_sync(inst: &Instruction) -> bool {
    matches!(inst.opcode, Opcode::Merge | Opcode::SBarrier)
}

/// A straight-line block as the RTL measures it (`pws run --json` "blocks").
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TimedBlock {
    /// Byte address of its first instruction (the key the RTL's measurement uses).
    pub pc: u32,
    /// Byte address of its last instruction.
    pub last_pc: u32,
    /// Instruction indices in the program.
    #[serde(skip)]
    pub insts: std::ops::Range<usize>,
    /// Worst-case cycles from the issue of its first instruction to the retire of its last.
    pub wcet: u64,
    /// It contains a merge or `s_barrier`: its measured time may include a partner's path.
    pub sync: bool,
}

/// The program's blocks with the RTL's boundaries ([`Program::block_leaders`]; unlike the CFG's
/// blocks, labels alone do not start one, and a split or merge ends one). A block's WCET is the
/// sum of `cost` (per instruction index) over it.
pub fn rtl_blocks(program: &Program, cost: &[u64]) -> Vec<TimedBlock> {
    let insts = &program.instructions;
    let leader = program.block_leaders();
    let starts: Vec<usize> = (0..insts.len()).filter(|&i| leader[i]).collect();
    starts
        .iter()
        .enumerate()
        .map(|(k, &s)| {
            let end = starts.get(k + 1).copied().unwrap_or(insts.len());
            TimedBlock {
                pc: insts[s].pc,
                last_pc: insts[end - 1].pc,
                insts: s..end,
                wcet: cost[s..end].iter().sum(),
                sync: insts[s..end].iter().any(|l| is_sync(&l.item)),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const KERNEL: &str = "k:\n    s_mov_b32 s0, 0\nL:\n    v_mov_b32_e32 v1, v0\n    split s0, s1\n    s_cbranch_execz E\n    v_add_u32_e32 v1, vcc, 1, v1\nE:\n    merge\n    s_barrier\n    flat_store_dword v[2:3], v1\n    s_endpgm\n";

    fn table(mode: Mode, comp: &Competition) -> TimingTable {
        TimingTable::contract(&CuTiming::GCN3, mode, comp, 16)
    }

    #[test]
    fn rtl_blocks_follow_branches_splits_and_merges_not_labels() {
        let p = pws_isa::assemble(KERNEL, "k.s").unwrap();
        let cost = |t: &TimingTable| -> Vec<u64> {
            p.instructions
                .iter()
                .map(|l| t.cycles(&l.item) + t.datapath_cycles(&l.item))
                .collect()
        };
        let t = table(Mode::Pws, &Competition::default());
        let b = rtl_blocks(&p, &cost(&t));
        let pcs: Vec<u32> = b.iter().map(|b| b.pc).collect();
        // s_mov + v_mov + split | s_cbranch | v_add | merge | s_barrier + store + s_endpgm
        assert_eq!(pcs, [0, 12, 16, 20, 24]);
        // `split s0, s1` reads its SGPR pair in one cycle; e_s copies 16 SGPRs 8 per cycle
        // after 2 cycles.
        assert_eq!(t.e_s, 4);
        assert_eq!(
            b[0].wcet,
            t.salu + t.valu + t.split + t.per_sgpr_read + t.e_s
        );
        assert!(b[3].sync && b[4].sync && !b[0].sync);
        assert_eq!(b[3].wcet, t.merge + t.e_m);
        assert_eq!(b[4].wcet, t.barrier + t.flat_store + t.nop);
        let n = table(Mode::NoSplit, &Competition::default());
        let nosplit = rtl_blocks(&p, &cost(&n));
        assert_eq!(nosplit[0].wcet, n.salu + n.valu + n.nop);
        assert_eq!((n.e_s, n.e_m), (0, 0));
        assert_eq!(nosplit[4].last_pc, p.instructions.last().unwrap().pc);
    }

    #[test]
    fn competition_only_raises_costs() {
        let alone = table(Mode::Dws, &Competition::default());
        let busy = table(
            Mode::Dws,
            &Competition {
                issue: 3,
                valu: 2,
                lsu: 5,
                lsu_hold: 12,
                split_merge: 1,
            },
        );
        let p = pws_isa::assemble(KERNEL, "k.s").unwrap();
        for l in &p.instructions {
            assert!(busy.cycles(&l.item) > alone.cycles(&l.item), "{:?}", l.item);
        }
        // Nothing waits when nothing competes.
        assert_eq!(
            (
                alone.schedule_wait,
                alone.valu_wait,
                alone.lsu_wait,
                alone.split_merge_wait
            ),
            (0, 0, 0, 0)
        );
        let cu = CuTiming::GCN3;
        assert!(alone.flat_load >= cu.mem_latency + cu.passes);
        assert_eq!(TimingTable::GCN3.e_s, split_datapath_cycles(&cu, 102));
    }

    #[test]
    fn lsu_occupancy_is_per_pass_address_dwords_and_store_data() {
        let cu = CuTiming::GCN3;
        let p = pws_isa::assemble(
            "flat_load_ubyte v1, v[2:3]\nflat_store_dwordx4 v[2:3], v[4:7]\n\
             s_load_dwordx16 s[16:31], s[4:5], 0x0\ns_load_dword s0, s[4:5], 0x0\ns_endpgm",
            "k.s",
        )
        .unwrap();
        let occ: Vec<u64> = p
            .instructions
            .iter()
            .map(|l| lsu_occupancy(&cu, &l.item))
            .collect();
        assert_eq!(occ, [4 * 2, 4 * 6, 8, 1, 0]);
        assert_eq!(lsu_hold(&cu, &p, &[]), 24);
    }

    #[test]
    fn modes_parse_and_print() {
        for m in Mode::ALL {
            assert_eq!(m.name().parse::<Mode>(), Ok(m));
        }
        assert!("split"
            .parse::<Mode>()
            .unwrap_err()
            .contains("nosplit, dws or pws"));
    }
}
