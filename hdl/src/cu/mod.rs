//! The compute unit: the RTL that runs whole GCN3 kernels (docs/cu.md).
//!
//! [`ComputeUnit`] is a compute-unit slice built from one [`HwConfig`]: per SIMD, one
//! [`issue::IssueUnit`] per (Sp)SIMD number (schedule, fetch from the [`imem`], [`decode`],
//! operand read, scalar ALU ([`salu`]) and branch unit ([`branch`]) execute, write-back); per
//! wavefront slot, a [`slot::WavefrontSlot`] (its [`crate::split_merge::SplitMergeUnit`]:
//! contexts, SRFs, split/merge; the per-context state beside it; its split/merge arbiter);
//! per SIMD, the [`crate::simd::VectorUnit`] (SIMD, SpSIMDs, the VRF its slots share,
//! compaction); one
//! [`lsu::LoadStoreUnit`] with the compute unit's LDS ([`lds::Lds`], 32 banks) and one
//! [`barrier::BarrierUnit`] per compute unit. [`timing`] gives
//! the worst-case cycles of every instruction class as this RTL implements them (the timing
//! contract, docs/timing.md).

pub mod barrier;
pub mod branch;
pub mod decode;
pub mod imem;
pub mod issue;
pub mod lds;
pub mod lsu;
pub mod salu;
pub mod slot;
pub mod timing;
mod top;

pub use top::{ComputeUnit, CuConfigError};

/// Most wavefront slots of one compute unit (N_SIMD · N_WFC; GCN3 has 40).
pub const MAX_SLOTS: usize = 64;
/// Most wavefront slots per SIMD: an issue unit's candidates (N_WFC · (S + 1)) are numbered
/// in 8 bits.
pub const MAX_SLOTS_PER_SIMD: usize = 16;
/// Width of a slot number.
pub const SLOT_BITS: usize = 6;
/// Width of a context number on the ports (slot · 8 + k) and of a dense context index
/// (slot · (S + 1) + k).
pub const CTX_BITS: usize = 9;

use rust_hdl::prelude::*;

/// How split and merge behave (design.md decision 5).
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum CuMode {
    /// `split` and `merge` are no-ops; the wavefront serialises both paths.
    NoSplit,
    /// Splits and merges happen, but every context of a slot issues through issue unit 0
    /// onto the SIMD: the split wavefronts share their SIMD.
    Dws,
    /// Issue unit k serves contexts k: split wavefronts run on their own SpSIMDs.
    Pws,
}

/// Why the compute unit stopped (`error_code_o`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum CuError {
    None,
    /// The decoder does not implement the instruction (or its modifiers).
    IllegalInstruction,
    /// The PC left the loaded program.
    BadPc,
    /// An SGPR operand or destination beyond the configured scalar register file.
    SgprOutOfRange,
    /// More than 65,535 no-op markers nested above a full child stack.
    NestingOverflow,
    /// The split/merge datapath rejected a request (a protocol error of the compute unit).
    MergeProtocol,
}
