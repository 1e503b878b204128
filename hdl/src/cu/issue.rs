//! One issue unit (front end) of the compute unit: the gem5 stages **schedule**, **fetch**,
//! **decode**, **operand read**, **execute** and **write-back** for the contexts it serves.
//!
//! Issue unit u of SIMD m serves contexts u of the SIMD's slots in `pws` mode (so a parent and
//! its children issue in parallel on their own (Sp)SIMDs), and issue unit 0 serves every
//! context of the SIMD's slots in `dws` and `nosplit` mode; the compute unit tells it which
//! candidates are eligible (`eligible_i`). A context has at most one instruction in flight
//! (wavefront-granularity scoreboard), so `s_waitcnt` is satisfied at issue.
//!
//! # Pipeline (one instruction in the front end at a time; cycle counts are exact)
//!
//! 1. **Schedule + fetch** (1 cycle, overlapping the previous instruction's execute cycle):
//!    round-robin among the eligible candidates, starting after the last one picked, so a
//!    ready context waits for at most one instruction of every other candidate. The picked
//!    context's PC addresses the unit's instruction-memory port.
//! 2. **Decode** (1 cycle): the [`Decoder`] on the fetched 64 bits; errors (illegal
//!    instruction, PC outside the program, SGPR outside the register file) stop the unit; the
//!    first SGPR operand read is issued.
//! 3. **Operand read** (one cycle per SGPR operand, `r` = 0..=4): the context's SRF pair port
//!    reads one operand (32 or 64 bits) per cycle; VCC, EXEC, M0, SCC and constants need no
//!    cycle; `split sN, sN+1` reads its two halves as one pair.
//! 4. **Execute + write-back** (1 cycle): scalar ALU ([`ScalarAlu`]) and branch unit
//!    ([`BranchUnit`]) results are written at the edge that ends the cycle (the context
//!    retires then); a VALU op is handed to the vector unit (waiting here while the target
//!    (Sp)SIMD is busy, which happens only in `dws`, where a slot's contexts share the SIMD);
//!    memory instructions are deposited at the LSU, split/merge at the slot's split/merge
//!    arbiter, `s_barrier` at the barrier unit; those retire when their unit completes them.
//!
//! So an instruction with r SGPR operands occupies the front end for 2 + r cycles and a scalar
//! instruction completes 3 + r cycles after it was picked ([`super::timing`]).

use rust_hdl::prelude::*;

use super::branch::BranchUnit;
use super::decode::{Decoder, DstKind, InstClass, SaluOp, SrcKind};
use super::salu::ScalarAlu;
use super::CuError;
use crate::config::{SGPR_ADDR_BITS, VGPR_ADDR_BITS};
use crate::simd::fpu::FMOD_BITS;
use crate::simd::ValuOp;
use crate::simd::SDWA_BITS;

/// Front-end stage.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum IssueStage {
    Idle,
    Decode,
    Read,
    Exec,
}

/// Operand slots: 0 and 1 = scalar sources / vector sources a and b, 2 = vector source c or
/// the SMEM offset register, 3 = the lane-mask source or the SMEM base pair.
const SLOTS: usize = 4;

/// One issue unit (see the module documentation). Candidate vectors are indexed by the
/// context's position among the SIMD's contexts (slot · (S + 1) + k).
#[derive(LogicBlock)]
pub struct IssueUnit {
    pub clock: Signal<In, Clock>,
    /// Split and merge are no-ops (`nosplit` mode).
    pub nosplit_i: Signal<In, Bit>,
    /// Byte size of the loaded program: a PC at or beyond it is an error.
    pub prog_bytes_i: Signal<In, Bits<32>>,
    /// SGPRs each context has: an operand beyond them is an error.
    pub n_sgprs_i: Signal<In, Bits<8>>,
    pub eligible_i: Vec<Signal<In, Bit>>,
    pub pc_i: Vec<Signal<In, Bits<32>>>,
    pub exec_lo_i: Vec<Signal<In, Bits<32>>>,
    pub exec_hi_i: Vec<Signal<In, Bits<32>>>,
    pub spm_lo_i: Vec<Signal<In, Bits<32>>>,
    pub spm_hi_i: Vec<Signal<In, Bits<32>>>,
    pub vcc_lo_i: Vec<Signal<In, Bits<32>>>,
    pub vcc_hi_i: Vec<Signal<In, Bits<32>>>,
    pub m0_i: Vec<Signal<In, Bits<32>>>,
    pub scc_i: Vec<Signal<In, Bit>>,
    /// Schedule: candidate `pick_o` is picked this cycle (it is busy from the next edge).
    pub pick_valid_o: Signal<Out, Bit>,
    pub pick_o: Signal<Out, Bits<8>>,
    /// The candidate in the front end (decode, read or execute).
    pub active_o: Signal<Out, Bit>,
    pub cur_o: Signal<Out, Bits<8>>,
    pub fetch_pc_o: Signal<Out, Bits<32>>,
    pub word0_i: Signal<In, Bits<32>>,
    pub word1_i: Signal<In, Bits<32>>,
    /// SRF pair port of the current context.
    pub srf_rd_o: Signal<Out, Bit>,
    pub srf_raddr_o: Signal<Out, Bits<SGPR_ADDR_BITS>>,
    pub srf_rdata_lo_i: Signal<In, Bits<32>>,
    pub srf_rdata_hi_i: Signal<In, Bits<32>>,
    pub srf_we_lo_o: Signal<Out, Bit>,
    pub srf_we_hi_o: Signal<Out, Bit>,
    pub srf_waddr_o: Signal<Out, Bits<SGPR_ADDR_BITS>>,
    pub srf_wdata_lo_o: Signal<Out, Bits<32>>,
    pub srf_wdata_hi_o: Signal<Out, Bits<32>>,
    /// Write-back of the current context's PC, EXEC, VCC, M0 and SCC.
    pub wr_pc_en_o: Signal<Out, Bit>,
    pub wr_pc_o: Signal<Out, Bits<32>>,
    pub wr_exec_en_o: Signal<Out, Bit>,
    pub wr_exec_lo_o: Signal<Out, Bits<32>>,
    pub wr_exec_hi_o: Signal<Out, Bits<32>>,
    pub wr_vcc_lo_en_o: Signal<Out, Bit>,
    pub wr_vcc_hi_en_o: Signal<Out, Bit>,
    pub wr_vcc_lo_o: Signal<Out, Bits<32>>,
    pub wr_vcc_hi_o: Signal<Out, Bits<32>>,
    pub wr_m0_en_o: Signal<Out, Bit>,
    pub wr_m0_o: Signal<Out, Bits<32>>,
    pub wr_scc_en_o: Signal<Out, Bit>,
    pub wr_scc_o: Signal<Out, Bit>,
    /// The current instruction completes in this cycle (scalar, branch, nop, waitcnt,
    /// s_endpgm, no-op split/merge).
    pub retire_o: Signal<Out, Bit>,
    /// VALU hand-off to the vector unit (port chosen by the compute unit).
    pub valu_issue_o: Signal<Out, Bit>,
    pub valu_ready_i: Signal<In, Bit>,
    pub valu_op_o: Signal<Out, ValuOp>,
    pub valu_dst_o: Signal<Out, Bits<VGPR_ADDR_BITS>>,
    /// VOP3 modifiers of an f32 op (`simd::fpu::fmod_word`).
    pub valu_fmod_o: Signal<Out, Bits<FMOD_BITS>>,
    /// SDWA control word (`simd::sdwa::sdwa_word`; 0 for the other ops).
    pub valu_sdwa_o: Signal<Out, Bits<SDWA_BITS>>,
    pub valu_src_is_vgpr_o: Vec<Signal<Out, Bit>>,
    pub valu_src_vgpr_o: Vec<Signal<Out, Bits<VGPR_ADDR_BITS>>>,
    pub valu_src_value_o: Vec<Signal<Out, Bits<32>>>,
    pub valu_src_value_hi_o: Vec<Signal<Out, Bits<32>>>,
    pub valu_mask_in_lo_o: Signal<Out, Bits<32>>,
    pub valu_mask_in_hi_o: Signal<Out, Bits<32>>,
    pub valu_en_lo_o: Signal<Out, Bits<32>>,
    pub valu_en_hi_o: Signal<Out, Bits<32>>,
    /// Where the op's lane-mask result goes when it completes.
    pub valu_mask_dst_o: Signal<Out, DstKind>,
    pub valu_mask_sgpr_o: Signal<Out, Bits<SGPR_ADDR_BITS>>,
    /// The mask result is a 32-bit scalar for one SGPR (a read lane access's value).
    pub valu_mask_d32_o: Signal<Out, Bit>,
    pub valu_writes_exec_o: Signal<Out, Bit>,
    /// Memory instruction for the LSU.
    pub mem_valid_o: Signal<Out, Bit>,
    pub mem_store_o: Signal<Out, Bit>,
    pub mem_scalar_o: Signal<Out, Bit>,
    pub mem_dwords_o: Signal<Out, Bits<5>>,
    /// FLAT access size (0 dwords, 1 byte, 2 half) and sign extension of sub-dword loads.
    pub mem_size_o: Signal<Out, Bits<2>>,
    pub mem_signed_o: Signal<Out, Bit>,
    pub mem_addr_vgpr_o: Signal<Out, Bits<VGPR_ADDR_BITS>>,
    /// Store / atomic data (DS DATA0), the second DS operand (DATA1), the returned data's VGPR.
    pub mem_data_vgpr_o: Signal<Out, Bits<VGPR_ADDR_BITS>>,
    pub mem_data1_vgpr_o: Signal<Out, Bits<VGPR_ADDR_BITS>>,
    pub mem_ret_vgpr_o: Signal<Out, Bits<VGPR_ADDR_BITS>>,
    /// The atomic and DS fields, packed as `lsu::ext` lays them out.
    pub mem_ext_o: Signal<Out, Bits<32>>,
    /// M0, the DS instructions' LDS limit.
    pub mem_m0_o: Signal<Out, Bits<32>>,
    pub mem_sdst_o: Signal<Out, Bits<SGPR_ADDR_BITS>>,
    pub mem_saddr_o: Signal<Out, Bits<32>>,
    /// Split (`sm_split_o`) or merge for the slot's split/merge arbiter.
    pub sm_valid_o: Signal<Out, Bit>,
    pub sm_split_o: Signal<Out, Bit>,
    pub sm_mask_lo_o: Signal<Out, Bits<32>>,
    pub sm_mask_hi_o: Signal<Out, Bits<32>>,
    /// PC after the current instruction (the split child's start PC).
    pub next_pc_o: Signal<Out, Bits<32>>,
    pub barrier_o: Signal<Out, Bit>,
    pub end_o: Signal<Out, Bit>,
    pub error_o: Signal<Out, Bit>,
    pub error_code_o: Signal<Out, CuError>,
    /// PC of the instruction in the front end.
    pub pc_o: Signal<Out, Bits<32>>,
    pub decoder: Decoder,
    pub salu: ScalarAlu,
    pub branch: BranchUnit,
    stage: DFF<IssueStage>,
    cur: DFF<Bits<8>>,
    rr: DFF<Bits<8>>,
    pc: DFF<Bits<32>>,
    need: DFF<Bits<SLOTS>>,
    rd_slot: DFF<Bits<2>>,
    opnd_lo: Vec<DFF<Bits<32>>>,
    opnd_hi: Vec<DFF<Bits<32>>>,
    // The current context's state, muxed from the candidates.
    c_exec_lo: Signal<Local, Bits<32>>,
    c_exec_hi: Signal<Local, Bits<32>>,
    c_spm_lo: Signal<Local, Bits<32>>,
    c_spm_hi: Signal<Local, Bits<32>>,
    c_vcc_lo: Signal<Local, Bits<32>>,
    c_vcc_hi: Signal<Local, Bits<32>>,
    c_m0: Signal<Local, Bits<32>>,
    c_scc: Signal<Local, Bit>,
    act_lo: Signal<Local, Bits<32>>,
    act_hi: Signal<Local, Bits<32>>,
    /// A lane access's one enabled lane: source 1's low 6 bits, or the lowest active lane
    /// (`act & -act`, lane 0 when no lane is active).
    act64: Signal<Local, Bits<64>>,
    lane_en: Signal<Local, Bits<64>>,
    /// The last SGPR a VALU op's mask result writes.
    mask_top: Signal<Local, Bits<8>>,
    // Operand slot n: kind, register, constant, used by this instruction.
    s_kind: Vec<Signal<Local, SrcKind>>,
    s_sgpr: Vec<Signal<Local, Bits<SGPR_ADDR_BITS>>>,
    s_const_lo: Vec<Signal<Local, Bits<32>>>,
    s_const_hi: Vec<Signal<Local, Bits<32>>>,
    s_used: Vec<Signal<Local, Bit>>,
    s_wide: Vec<Signal<Local, Bit>>,
    s_addr8: Vec<Signal<Local, Bits<8>>>,
    need_now: Signal<Local, Bits<SLOTS>>,
    need_cur: Signal<Local, Bits<SLOTS>>,
    split_pair: Signal<Local, Bit>,
    first: Signal<Local, Bits<2>>,
    first_found: Signal<Local, Bit>,
    nsrc: Signal<Local, Bits<2>>,
    exec_go: Signal<Local, Bit>,
    can_pick: Signal<Local, Bit>,
    found: Signal<Local, Bit>,
    pick: Signal<Local, Bits<8>>,
    next_pc: Signal<Local, Bits<32>>,
    bad_sgpr: Signal<Local, Bit>,
    smem_addr: Signal<Local, Bits<32>>,
    dst_top: Signal<Local, Bits<8>>,
    addr_mask: Constant<Bits<32>>,
    one64: Constant<Bits<64>>,
    /// Where the loader places the code (`layout::CODE_BASE`): `s_getpc_b64` reads it plus
    /// the next instruction's offset.
    code_base: Constant<Bits<32>>,
}

impl IssueUnit {
    /// An issue unit choosing among `candidates` contexts.
    pub fn new(candidates: usize) -> Self {
        fn many<T: Default>(n: usize) -> Vec<T> {
            (0..n).map(|_| T::default()).collect()
        }
        IssueUnit {
            clock: Default::default(),
            nosplit_i: Default::default(),
            prog_bytes_i: Default::default(),
            n_sgprs_i: Default::default(),
            eligible_i: many(candidates),
            pc_i: many(candidates),
            exec_lo_i: many(candidates),
            exec_hi_i: many(candidates),
            spm_lo_i: many(candidates),
            spm_hi_i: many(candidates),
            vcc_lo_i: many(candidates),
            vcc_hi_i: many(candidates),
            m0_i: many(candidates),
            scc_i: many(candidates),
            pick_valid_o: Default::default(),
            pick_o: Default::default(),
            active_o: Default::default(),
            cur_o: Default::default(),
            fetch_pc_o: Default::default(),
            word0_i: Default::default(),
            word1_i: Default::default(),
            srf_rd_o: Default::default(),
            srf_raddr_o: Default::default(),
            srf_rdata_lo_i: Default::default(),
            srf_rdata_hi_i: Default::default(),
            srf_we_lo_o: Default::default(),
            srf_we_hi_o: Default::default(),
            srf_waddr_o: Default::default(),
            srf_wdata_lo_o: Default::default(),
            srf_wdata_hi_o: Default::default(),
            wr_pc_en_o: Default::default(),
            wr_pc_o: Default::default(),
            wr_exec_en_o: Default::default(),
            wr_exec_lo_o: Default::default(),
            wr_exec_hi_o: Default::default(),
            wr_vcc_lo_en_o: Default::default(),
            wr_vcc_hi_en_o: Default::default(),
            wr_vcc_lo_o: Default::default(),
            wr_vcc_hi_o: Default::default(),
            wr_m0_en_o: Default::default(),
            wr_m0_o: Default::default(),
            wr_scc_en_o: Default::default(),
            wr_scc_o: Default::default(),
            retire_o: Default::default(),
            valu_issue_o: Default::default(),
            valu_ready_i: Default::default(),
            valu_op_o: Default::default(),
            valu_dst_o: Default::default(),
            valu_fmod_o: Default::default(),
            valu_sdwa_o: Default::default(),
            valu_src_is_vgpr_o: many(3),
            valu_src_vgpr_o: many(3),
            valu_src_value_o: many(3),
            valu_src_value_hi_o: many(3),
            valu_mask_in_lo_o: Default::default(),
            valu_mask_in_hi_o: Default::default(),
            valu_en_lo_o: Default::default(),
            valu_en_hi_o: Default::default(),
            valu_mask_dst_o: Default::default(),
            valu_mask_sgpr_o: Default::default(),
            valu_mask_d32_o: Default::default(),
            valu_writes_exec_o: Default::default(),
            mem_valid_o: Default::default(),
            mem_store_o: Default::default(),
            mem_scalar_o: Default::default(),
            mem_dwords_o: Default::default(),
            mem_size_o: Default::default(),
            mem_signed_o: Default::default(),
            mem_addr_vgpr_o: Default::default(),
            mem_data_vgpr_o: Default::default(),
            mem_data1_vgpr_o: Default::default(),
            mem_ret_vgpr_o: Default::default(),
            mem_ext_o: Default::default(),
            mem_m0_o: Default::default(),
            mem_sdst_o: Default::default(),
            mem_saddr_o: Default::default(),
            sm_valid_o: Default::default(),
            sm_split_o: Default::default(),
            sm_mask_lo_o: Default::default(),
            sm_mask_hi_o: Default::default(),
            next_pc_o: Default::default(),
            barrier_o: Default::default(),
            end_o: Default::default(),
            error_o: Default::default(),
            error_code_o: Default::default(),
            pc_o: Default::default(),
            decoder: Default::default(),
            salu: Default::default(),
            branch: Default::default(),
            stage: Default::default(),
            cur: Default::default(),
            rr: Default::default(),
            pc: Default::default(),
            need: Default::default(),
            rd_slot: Default::default(),
            opnd_lo: many(SLOTS),
            opnd_hi: many(SLOTS),
            c_exec_lo: Default::default(),
            c_exec_hi: Default::default(),
            c_spm_lo: Default::default(),
            c_spm_hi: Default::default(),
            c_vcc_lo: Default::default(),
            c_vcc_hi: Default::default(),
            c_m0: Default::default(),
            c_scc: Default::default(),
            act_lo: Default::default(),
            act_hi: Default::default(),
            act64: Default::default(),
            lane_en: Default::default(),
            mask_top: Default::default(),
            s_kind: many(SLOTS),
            s_sgpr: many(SLOTS),
            s_const_lo: many(SLOTS),
            s_const_hi: many(SLOTS),
            s_used: many(SLOTS),
            s_wide: many(SLOTS),
            s_addr8: many(SLOTS),
            need_now: Default::default(),
            need_cur: Default::default(),
            split_pair: Default::default(),
            first: Default::default(),
            first_found: Default::default(),
            nsrc: Default::default(),
            exec_go: Default::default(),
            can_pick: Default::default(),
            found: Default::default(),
            pick: Default::default(),
            next_pc: Default::default(),
            bad_sgpr: Default::default(),
            smem_addr: Default::default(),
            dst_top: Default::default(),
            addr_mask: Constant::new(0xFFFF_FFFCu64.to_bits()),
            one64: Constant::new(1u64.to_bits()),
            code_base: Constant::new(pws_isa::manifest::layout::CODE_BASE.to_bits()),
        }
    }
}

// hdl_gen has no match guards, so MUBUF's operand slots stay an `if` inside the FLAT arm.
#[allow(clippy::collapsible_match)]
impl Logic for IssueUnit {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, stage, cur, rr, pc, need, rd_slot);
        for n in 0..SLOTS {
            self.opnd_lo[n].clock.next = self.clock.val();
            self.opnd_hi[n].clock.next = self.clock.val();
            self.opnd_lo[n].d.next = self.opnd_lo[n].q.val();
            self.opnd_hi[n].d.next = self.opnd_hi[n].q.val();
        }

        // The current context's state.
        self.c_exec_lo.next = 0.into();
        self.c_exec_hi.next = 0.into();
        self.c_spm_lo.next = 0.into();
        self.c_spm_hi.next = 0.into();
        self.c_vcc_lo.next = 0.into();
        self.c_vcc_hi.next = 0.into();
        self.c_m0.next = 0.into();
        self.c_scc.next = false;
        for i in 0..self.eligible_i.len() {
            if self.cur.q.val().index() == i {
                self.c_exec_lo.next = self.exec_lo_i[i].val();
                self.c_exec_hi.next = self.exec_hi_i[i].val();
                self.c_spm_lo.next = self.spm_lo_i[i].val();
                self.c_spm_hi.next = self.spm_hi_i[i].val();
                self.c_vcc_lo.next = self.vcc_lo_i[i].val();
                self.c_vcc_hi.next = self.vcc_hi_i[i].val();
                self.c_m0.next = self.m0_i[i].val();
                self.c_scc.next = self.scc_i[i].val();
            }
        }
        self.act_lo.next = self.c_exec_lo.val() & self.c_spm_lo.val();
        self.act_hi.next = self.c_exec_hi.val() & self.c_spm_hi.val();

        // Fetch: the picked context's PC this cycle, then the current one's while it is
        // decoded, read and executed (the memory's outputs stay valid).
        self.decoder.word0_i.next = self.word0_i.val();
        self.decoder.word1_i.next = self.word1_i.val();
        self.next_pc.next = self.pc.q.val() + (bit_cast::<32, 2>(self.decoder.size_o.val()) << 2);

        // Operand slots of the decoded instruction.
        self.nsrc.next = self.decoder.nsrc_o.val();
        self.s_kind[0].next = self.decoder.ssrc0_kind_o.val();
        self.s_sgpr[0].next = self.decoder.ssrc0_sgpr_o.val();
        self.s_const_lo[0].next = self.decoder.ssrc0_const_o.val();
        self.s_const_hi[0].next = self.decoder.ssrc0_const_hi_o.val();
        self.s_wide[0].next = self.decoder.src0_wide_o.val();
        self.s_kind[1].next = self.decoder.ssrc1_kind_o.val();
        self.s_sgpr[1].next = self.decoder.ssrc1_sgpr_o.val();
        self.s_const_lo[1].next = self.decoder.ssrc1_const_o.val();
        self.s_const_hi[1].next = self.decoder.ssrc1_const_hi_o.val();
        self.s_wide[1].next = self.decoder.wide1_o.val();
        self.s_kind[2].next = SrcKind::Sgpr;
        self.s_sgpr[2].next = self
            .decoder
            .smem_offset_o
            .val()
            .get_bits::<SGPR_ADDR_BITS>(0);
        self.s_const_lo[2].next = 0.into();
        self.s_const_hi[2].next = 0.into();
        self.s_wide[2].next = false;
        self.s_kind[3].next = SrcKind::Sgpr;
        self.s_sgpr[3].next = self.decoder.sbase_sgpr_o.val();
        self.s_const_lo[3].next = 0.into();
        self.s_const_hi[3].next = 0.into();
        self.s_wide[3].next = true;
        for n in 0..SLOTS {
            self.s_used[n].next = false;
        }
        self.split_pair.next = (self.decoder.ssrc0_kind_o.val() == SrcKind::Sgpr)
            & (self.decoder.ssrc1_kind_o.val() == SrcKind::Sgpr)
            & (self.decoder.ssrc1_sgpr_o.val() == self.decoder.ssrc0_sgpr_o.val() + 1);
        match self.decoder.class_o.val() {
            InstClass::Salu => {
                self.s_used[0].next = true;
                // The SOP1 operations read one source.
                self.s_used[1].next = !((self.decoder.salu_op_o.val() == SaluOp::Mov)
                    | (self.decoder.salu_op_o.val() == SaluOp::Not)
                    | (self.decoder.salu_op_o.val() == SaluOp::AndSaveexec)
                    | (self.decoder.salu_op_o.val() == SaluOp::OrSaveexec)
                    | (self.decoder.salu_op_o.val() == SaluOp::XorSaveexec)
                    | (self.decoder.salu_op_o.val() == SaluOp::Andn2Saveexec)
                    | (self.decoder.salu_op_o.val() == SaluOp::Orn2Saveexec)
                    | (self.decoder.salu_op_o.val() == SaluOp::NandSaveexec)
                    | (self.decoder.salu_op_o.val() == SaluOp::NorSaveexec)
                    | (self.decoder.salu_op_o.val() == SaluOp::XnorSaveexec)
                    | (self.decoder.salu_op_o.val() == SaluOp::Brev)
                    | (self.decoder.salu_op_o.val() == SaluOp::Bcnt0)
                    | (self.decoder.salu_op_o.val() == SaluOp::Bcnt1)
                    | (self.decoder.salu_op_o.val() == SaluOp::Ff0)
                    | (self.decoder.salu_op_o.val() == SaluOp::Ff1)
                    | (self.decoder.salu_op_o.val() == SaluOp::Flbit)
                    | (self.decoder.salu_op_o.val() == SaluOp::FlbitI)
                    | (self.decoder.salu_op_o.val() == SaluOp::Sext8)
                    | (self.decoder.salu_op_o.val() == SaluOp::Sext16)
                    | (self.decoder.salu_op_o.val() == SaluOp::Abs));
            }
            InstClass::Split => {
                // In `nosplit` a split is a no-op and reads nothing. `split sN, sN+1` (the
                // compare's SGPR pair, the usual form) is one pair read.
                self.s_used[0].next = !self.nosplit_i.val();
                self.s_used[1].next = !self.nosplit_i.val() & !self.split_pair.val();
                self.s_wide[0].next = self.split_pair.val();
                self.s_wide[1].next = false;
            }
            InstClass::Valu => {
                for n in 0..3 {
                    self.s_kind[n].next = self.decoder.vsrc_kind_o[n].val();
                    self.s_sgpr[n].next = self.decoder.vsrc_sgpr_o[n].val();
                    self.s_const_lo[n].next = self.decoder.vsrc_const_o[n].val();
                    self.s_const_hi[n].next = self.decoder.vsrc_const_hi_o[n].val();
                    self.s_wide[n].next = self.decoder.vsrc_wide_o[n].val();
                    self.s_used[n].next =
                        !self.decoder.vsrc_is_vgpr_o[n].val() & (self.nsrc.val().index() > n);
                }
                // A lane access's lane number is source 1, a scalar.
                if self.decoder.lane_o.val() & !self.decoder.lane_first_o.val() {
                    self.s_used[1].next = true;
                }
                self.s_kind[3].next = self.decoder.mask_src_kind_o.val();
                self.s_sgpr[3].next = self.decoder.mask_src_sgpr_o.val();
                self.s_used[3].next = self.decoder.reads_mask_o.val();
            }
            InstClass::Smem => {
                self.s_used[2].next = self.decoder.smem_offset_is_sgpr_o.val();
                self.s_used[3].next = true;
            }
            InstClass::Flat => {
                // MUBUF: the resource's base pair in slot 3, SOFFSET (any scalar source) in
                // slot 2.
                if self.decoder.mubuf_o.val() {
                    self.s_kind[2].next = self.decoder.vsrc_kind_o[2].val();
                    self.s_sgpr[2].next = self.decoder.vsrc_sgpr_o[2].val();
                    self.s_const_lo[2].next = self.decoder.vsrc_const_o[2].val();
                    self.s_const_hi[2].next = self.decoder.vsrc_const_hi_o[2].val();
                    self.s_used[2].next = true;
                    self.s_used[3].next = true;
                }
            }
            _ => {}
        }
        // SGPR operands need a read cycle each; the others are read now.
        self.need_now.next = 0.into();
        self.bad_sgpr.next = false;
        // bit_cast cannot take a loop-indexed argument in hdl_gen.
        self.s_addr8[0].next = bit_cast::<8, SGPR_ADDR_BITS>(self.s_sgpr[0].val());
        self.s_addr8[1].next = bit_cast::<8, SGPR_ADDR_BITS>(self.s_sgpr[1].val());
        self.s_addr8[2].next = bit_cast::<8, SGPR_ADDR_BITS>(self.s_sgpr[2].val());
        self.s_addr8[3].next = bit_cast::<8, SGPR_ADDR_BITS>(self.s_sgpr[3].val());
        for n in 0..SLOTS {
            if self.s_used[n].val() & (self.s_kind[n].val() == SrcKind::Sgpr) {
                self.need_now.next = self.need_now.val().replace_bit(n, true);
                if self.s_addr8[n].val() >= self.n_sgprs_i.val() {
                    self.bad_sgpr.next = true;
                }
                if self.s_wide[n].val() & (self.s_addr8[n].val() + 1 >= self.n_sgprs_i.val()) {
                    self.bad_sgpr.next = true;
                }
            }
        }
        self.dst_top.next = bit_cast::<8, SGPR_ADDR_BITS>(self.decoder.sdst_sgpr_o.val());
        if self.decoder.dst_wide_o.val() {
            self.dst_top.next = bit_cast::<8, SGPR_ADDR_BITS>(self.decoder.sdst_sgpr_o.val()) + 1;
        }
        if (self.decoder.class_o.val() == InstClass::Salu)
            & (self.decoder.sdst_kind_o.val() == DstKind::Sgpr)
            & (self.dst_top.val() >= self.n_sgprs_i.val())
        {
            self.bad_sgpr.next = true;
        }
        if (self.decoder.class_o.val() == InstClass::Smem)
            & (bit_cast::<8, SGPR_ADDR_BITS>(self.decoder.sdst_sgpr_o.val())
                + bit_cast::<8, 5>(self.decoder.mem_dwords_o.val())
                > self.n_sgprs_i.val())
        {
            self.bad_sgpr.next = true;
        }
        self.mask_top.next = bit_cast::<8, SGPR_ADDR_BITS>(self.decoder.mask_dst_sgpr_o.val());
        if !self.decoder.mask_dst32_o.val() {
            self.mask_top.next =
                bit_cast::<8, SGPR_ADDR_BITS>(self.decoder.mask_dst_sgpr_o.val()) + 1;
        }
        if (self.decoder.class_o.val() == InstClass::Valu)
            & (self.decoder.mask_dst_kind_o.val() == DstKind::Sgpr)
            & (self.mask_top.val() >= self.n_sgprs_i.val())
        {
            self.bad_sgpr.next = true;
        }
        self.need_cur.next = self.need.q.val();
        if self.stage.q.val() == IssueStage::Decode {
            self.need_cur.next = self.need_now.val();
        }
        self.first.next = 0.into();
        self.first_found.next = false;
        for n in 0..SLOTS {
            if !self.first_found.val() & self.need_cur.val().get_bit(n) {
                self.first_found.next = true;
                self.first.next = n.to_bits();
            }
        }

        // Defaults of every output.
        self.pick_valid_o.next = false;
        self.pick_o.next = 0.into();
        self.active_o.next = self.stage.q.val() != IssueStage::Idle;
        self.cur_o.next = self.cur.q.val();
        self.pc_o.next = self.pc.q.val();
        self.next_pc_o.next = self.next_pc.val();
        self.fetch_pc_o.next = self.pc.q.val();
        self.srf_rd_o.next = false;
        self.srf_raddr_o.next = self.s_sgpr[0].val();
        self.srf_we_lo_o.next = false;
        self.srf_we_hi_o.next = false;
        self.srf_waddr_o.next = self.decoder.sdst_sgpr_o.val();
        self.srf_wdata_lo_o.next = self.salu.d_lo_o.val();
        self.srf_wdata_hi_o.next = self.salu.d_hi_o.val();
        self.wr_pc_en_o.next = false;
        self.wr_pc_o.next = self.next_pc.val();
        self.wr_exec_en_o.next = false;
        self.wr_exec_lo_o.next = self.c_exec_lo.val();
        self.wr_exec_hi_o.next = self.c_exec_hi.val();
        self.wr_vcc_lo_en_o.next = false;
        self.wr_vcc_hi_en_o.next = false;
        self.wr_vcc_lo_o.next = self.salu.d_lo_o.val();
        self.wr_vcc_hi_o.next = self.salu.d_hi_o.val();
        self.wr_m0_en_o.next = false;
        self.wr_m0_o.next = self.salu.d_lo_o.val();
        self.wr_scc_en_o.next = false;
        self.wr_scc_o.next = self.salu.scc_o.val();
        self.retire_o.next = false;
        self.valu_issue_o.next = false;
        self.valu_op_o.next = self.decoder.valu_op_o.val();
        self.valu_dst_o.next = self.decoder.vdst_o.val();
        self.valu_fmod_o.next = self.decoder.fmod_o.val();
        self.valu_sdwa_o.next = self.decoder.sdwa_o.val();
        for n in 0..3 {
            self.valu_src_is_vgpr_o[n].next = self.decoder.vsrc_is_vgpr_o[n].val();
            self.valu_src_vgpr_o[n].next = self.decoder.vsrc_vgpr_o[n].val();
            self.valu_src_value_o[n].next = self.opnd_lo[n].q.val();
            self.valu_src_value_hi_o[n].next = self.opnd_hi[n].q.val();
        }
        self.valu_mask_in_lo_o.next = self.opnd_lo[3].q.val();
        self.valu_mask_in_hi_o.next = self.opnd_hi[3].q.val();
        self.valu_en_lo_o.next = self.act_lo.val();
        self.valu_en_hi_o.next = self.act_hi.val();
        self.act64.next =
            (bit_cast::<64, 32>(self.act_hi.val()) << 32) | bit_cast::<64, 32>(self.act_lo.val());
        self.lane_en.next = self.one64.val() << self.opnd_lo[1].q.val().get_bits::<6>(0);
        if self.decoder.lane_first_o.val() {
            self.lane_en.next = self.act64.val() & (!self.act64.val() + 1);
            if !self.act64.val().any() {
                self.lane_en.next = self.one64.val();
            }
        }
        if self.decoder.lane_o.val() {
            self.valu_en_lo_o.next = self.lane_en.val().get_bits::<32>(0);
            self.valu_en_hi_o.next = self.lane_en.val().get_bits::<32>(32);
        }
        self.valu_mask_dst_o.next = self.decoder.mask_dst_kind_o.val();
        self.valu_mask_sgpr_o.next = self.decoder.mask_dst_sgpr_o.val();
        self.valu_mask_d32_o.next = self.decoder.mask_dst32_o.val();
        self.valu_writes_exec_o.next = self.decoder.writes_exec_o.val();
        self.smem_addr.next = self.opnd_lo[3].q.val() + self.decoder.smem_offset_o.val();
        if self.decoder.smem_offset_is_sgpr_o.val() | self.decoder.mubuf_o.val() {
            self.smem_addr.next = self.opnd_lo[3].q.val() + self.opnd_lo[2].q.val();
        }
        self.mem_valid_o.next = false;
        self.mem_store_o.next = self.decoder.mem_store_o.val();
        self.mem_scalar_o.next = self.decoder.class_o.val() == InstClass::Smem;
        self.mem_dwords_o.next = self.decoder.mem_dwords_o.val();
        self.mem_size_o.next = self.decoder.mem_size_o.val();
        self.mem_signed_o.next = self.decoder.mem_signed_o.val();
        self.mem_addr_vgpr_o.next = self.decoder.addr_vgpr_o.val();
        self.mem_data_vgpr_o.next = self.decoder.data_vgpr_o.val();
        self.mem_data1_vgpr_o.next = self.decoder.data1_vgpr_o.val();
        self.mem_ret_vgpr_o.next = self.decoder.vdst_o.val();
        self.mem_m0_o.next = self.c_m0.val();
        self.mem_ext_o.next = bit_cast::<32, 4>(self.decoder.mem_rmw_o.val())
            | (bit_cast::<32, 8>(self.decoder.ds_offset0_o.val()) << 8)
            | (bit_cast::<32, 8>(self.decoder.ds_offset1_o.val()) << 16);
        if self.decoder.mem_ret_o.val() {
            self.mem_ext_o.next = self.mem_ext_o.val() | 0x10_u64;
        }
        if self.decoder.class_o.val() == InstClass::Ds {
            self.mem_ext_o.next = self.mem_ext_o.val() | 0x20_u64;
        }
        if self.decoder.ds_two_o.val() {
            self.mem_ext_o.next = self.mem_ext_o.val() | 0x40_u64;
        }
        if self.decoder.ds_st64_o.val() {
            self.mem_ext_o.next = self.mem_ext_o.val() | 0x80_u64;
        }
        if self.decoder.mubuf_o.val() {
            self.mem_ext_o.next = self.mem_ext_o.val() | 0x100_0000_u64;
        }
        self.mem_sdst_o.next = self.decoder.sdst_sgpr_o.val();
        // A scalar load's address is dword-aligned; a MUBUF base (resource + SOFFSET) is not
        // cut.
        self.mem_saddr_o.next = self.smem_addr.val() & self.addr_mask.val();
        if self.decoder.mubuf_o.val() {
            self.mem_saddr_o.next = self.smem_addr.val();
        }
        self.sm_valid_o.next = false;
        self.sm_split_o.next = self.decoder.class_o.val() == InstClass::Split;
        self.sm_mask_lo_o.next = self.opnd_lo[0].q.val();
        self.sm_mask_hi_o.next = self.opnd_lo[1].q.val();
        if self.split_pair.val() {
            self.sm_mask_hi_o.next = self.opnd_hi[0].q.val();
        }
        self.barrier_o.next = false;
        self.end_o.next = false;
        self.error_o.next = false;
        self.error_code_o.next = CuError::None;

        // Scalar ALU and branch unit see the operands and the current context.
        self.salu.op_i.next = self.decoder.salu_op_o.val();
        self.salu.wide_i.next = self.decoder.wide_o.val();
        self.salu.a_lo_i.next = self.opnd_lo[0].q.val();
        self.salu.a_hi_i.next = self.opnd_hi[0].q.val();
        self.salu.b_lo_i.next = self.opnd_lo[1].q.val();
        self.salu.b_hi_i.next = self.opnd_hi[1].q.val();
        self.salu.scc_i.next = self.c_scc.val();
        self.salu.exec_lo_i.next = self.c_exec_lo.val();
        self.salu.exec_hi_i.next = self.c_exec_hi.val();
        self.branch.cond_i.next = self.decoder.branch_o.val();
        self.branch.scc_i.next = self.c_scc.val();
        self.branch.vcc_lo_i.next = self.c_vcc_lo.val();
        self.branch.vcc_hi_i.next = self.c_vcc_hi.val();
        self.branch.active_lo_i.next = self.act_lo.val();
        self.branch.active_hi_i.next = self.act_hi.val();
        self.branch.next_pc_i.next = self.next_pc.val();
        self.branch.simm16_i.next = self.decoder.simm16_o.val();

        self.exec_go.next = (self.stage.q.val() == IssueStage::Exec)
            & ((self.decoder.class_o.val() != InstClass::Valu) | self.valu_ready_i.val());
        self.can_pick.next = (self.stage.q.val() == IssueStage::Idle) | self.exec_go.val();
        match self.stage.q.val() {
            IssueStage::Idle => {}
            IssueStage::Decode => {
                if !self.decoder.legal_o.val() {
                    self.error_o.next = true;
                    self.error_code_o.next = CuError::IllegalInstruction;
                    self.stage.d.next = IssueStage::Idle;
                } else if self.bad_sgpr.val() {
                    self.error_o.next = true;
                    self.error_code_o.next = CuError::SgprOutOfRange;
                    self.stage.d.next = IssueStage::Idle;
                } else {
                    // Operands that need no SRF read are latched now.
                    for n in 0..SLOTS {
                        match self.s_kind[n].val() {
                            SrcKind::VccLo => {
                                self.opnd_lo[n].d.next = self.c_vcc_lo.val();
                                self.opnd_hi[n].d.next = self.c_vcc_hi.val();
                            }
                            SrcKind::VccHi => {
                                self.opnd_lo[n].d.next = self.c_vcc_hi.val();
                                self.opnd_hi[n].d.next = 0.into();
                            }
                            SrcKind::ExecLo => {
                                self.opnd_lo[n].d.next = self.c_exec_lo.val();
                                self.opnd_hi[n].d.next = self.c_exec_hi.val();
                            }
                            SrcKind::ExecHi => {
                                self.opnd_lo[n].d.next = self.c_exec_hi.val();
                                self.opnd_hi[n].d.next = 0.into();
                            }
                            SrcKind::M0 => {
                                self.opnd_lo[n].d.next = self.c_m0.val();
                                self.opnd_hi[n].d.next = 0.into();
                            }
                            SrcKind::Scc => {
                                self.opnd_lo[n].d.next = 0.into();
                                if self.c_scc.val() {
                                    self.opnd_lo[n].d.next = 1.into();
                                }
                                self.opnd_hi[n].d.next = 0.into();
                            }
                            SrcKind::Vccz => {
                                self.opnd_lo[n].d.next = 0.into();
                                if (self.c_vcc_lo.val() | self.c_vcc_hi.val()) == 0 {
                                    self.opnd_lo[n].d.next = 1.into();
                                }
                                self.opnd_hi[n].d.next = 0.into();
                            }
                            SrcKind::Execz => {
                                self.opnd_lo[n].d.next = 0.into();
                                if (self.act_lo.val() | self.act_hi.val()) == 0 {
                                    self.opnd_lo[n].d.next = 1.into();
                                }
                                self.opnd_hi[n].d.next = 0.into();
                            }
                            SrcKind::Pc => {
                                self.opnd_lo[n].d.next = self.code_base.val() + self.next_pc.val();
                                self.opnd_hi[n].d.next = 0.into();
                            }
                            _ => {
                                self.opnd_lo[n].d.next = self.s_const_lo[n].val();
                                self.opnd_hi[n].d.next = self.s_const_hi[n].val();
                            }
                        }
                    }
                    self.stage.d.next = IssueStage::Exec;
                    if self.need_now.val() != 0 {
                        self.stage.d.next = IssueStage::Read;
                    }
                }
            }
            IssueStage::Read => {}
            IssueStage::Exec => {
                if self.exec_go.val() {
                    self.stage.d.next = IssueStage::Idle;
                    self.wr_pc_en_o.next = true;
                    match self.decoder.class_o.val() {
                        InstClass::Salu => {
                            self.retire_o.next = true;
                            self.wr_scc_en_o.next = self.salu.scc_we_o.val();
                            match self.decoder.sdst_kind_o.val() {
                                DstKind::Sgpr => {
                                    self.srf_we_lo_o.next = true;
                                    self.srf_we_hi_o.next = self.decoder.dst_wide_o.val();
                                }
                                DstKind::VccLo => {
                                    self.wr_vcc_lo_en_o.next = true;
                                    self.wr_vcc_hi_en_o.next = self.decoder.dst_wide_o.val();
                                }
                                DstKind::VccHi => {
                                    self.wr_vcc_hi_en_o.next = true;
                                    self.wr_vcc_hi_o.next = self.salu.d_lo_o.val();
                                }
                                DstKind::ExecLo => {
                                    self.wr_exec_en_o.next = true;
                                    self.wr_exec_lo_o.next = self.salu.d_lo_o.val();
                                    if self.decoder.dst_wide_o.val() {
                                        self.wr_exec_hi_o.next = self.salu.d_hi_o.val();
                                    }
                                }
                                DstKind::ExecHi => {
                                    self.wr_exec_en_o.next = true;
                                    self.wr_exec_hi_o.next = self.salu.d_lo_o.val();
                                }
                                DstKind::M0 => self.wr_m0_en_o.next = true,
                                DstKind::None => {}
                            }
                            // Saveexec: the new EXEC lands after the old one was saved.
                            if self.salu.exec_we_o.val() {
                                self.wr_exec_en_o.next = true;
                                self.wr_exec_lo_o.next = self.salu.exec_lo_o.val();
                                self.wr_exec_hi_o.next = self.salu.exec_hi_o.val();
                            }
                        }
                        InstClass::Branch => {
                            self.retire_o.next = true;
                            self.wr_pc_o.next = self.branch.target_o.val();
                        }
                        InstClass::Valu => self.valu_issue_o.next = true,
                        InstClass::Smem => self.mem_valid_o.next = true,
                        InstClass::Flat => self.mem_valid_o.next = true,
                        InstClass::Ds => self.mem_valid_o.next = true,
                        InstClass::Split => {
                            self.sm_valid_o.next = !self.nosplit_i.val();
                            self.retire_o.next = self.nosplit_i.val();
                        }
                        InstClass::Merge => {
                            self.sm_valid_o.next = !self.nosplit_i.val();
                            self.retire_o.next = self.nosplit_i.val();
                        }
                        InstClass::Barrier => self.barrier_o.next = true,
                        InstClass::EndPgm => {
                            self.end_o.next = true;
                            self.retire_o.next = true;
                            self.wr_pc_en_o.next = false;
                        }
                        _ => self.retire_o.next = true,
                    }
                }
            }
        }
        // Operand read: latch the pair read last cycle, issue the next read.
        if self.stage.q.val() == IssueStage::Read {
            for n in 0..SLOTS {
                if self.rd_slot.q.val().index() == n {
                    self.opnd_lo[n].d.next = self.srf_rdata_lo_i.val();
                    self.opnd_hi[n].d.next = self.srf_rdata_hi_i.val();
                }
            }
        }
        if ((self.stage.q.val() == IssueStage::Read) | (self.stage.q.val() == IssueStage::Decode))
            & self.first_found.val()
        {
            self.srf_rd_o.next = true;
            for n in 0..SLOTS {
                if self.first.val().index() == n {
                    self.srf_raddr_o.next = self.s_sgpr[n].val();
                }
            }
            self.rd_slot.d.next = self.first.val();
            for n in 0..SLOTS {
                if self.first.val().index() == n {
                    self.need.d.next = self.need_cur.val().replace_bit(n, false);
                }
            }
        }
        if (self.stage.q.val() == IssueStage::Read) & !self.first_found.val() {
            self.stage.d.next = IssueStage::Exec;
        }
        // A PC outside the program is caught before anything is decoded from it.
        if (self.stage.q.val() == IssueStage::Decode) & (self.pc.q.val() >= self.prog_bytes_i.val())
        {
            self.error_o.next = true;
            self.error_code_o.next = CuError::BadPc;
            self.stage.d.next = IssueStage::Idle;
            self.srf_rd_o.next = false;
        }

        // Schedule: round-robin after the last pick (slot 0 never is).
        self.found.next = false;
        self.pick.next = 0.into();
        for i in 1..self.eligible_i.len() {
            if !self.found.val() & self.eligible_i[i].val() & (self.rr.q.val().index() < i) {
                self.found.next = true;
                self.pick.next = i.to_bits();
            }
        }
        for i in 0..self.eligible_i.len() {
            if !self.found.val() & self.eligible_i[i].val() {
                self.found.next = true;
                self.pick.next = i.to_bits();
            }
        }
        if self.can_pick.val() & self.found.val() {
            self.pick_valid_o.next = true;
            self.pick_o.next = self.pick.val();
            self.cur.d.next = self.pick.val();
            self.rr.d.next = self.pick.val();
            self.stage.d.next = IssueStage::Decode;
            for i in 0..self.eligible_i.len() {
                if self.pick.val().index() == i {
                    self.pc.d.next = self.pc_i[i].val();
                    self.fetch_pc_o.next = self.pc_i[i].val();
                }
            }
        }
    }
}
