//! The compute unit's local data share (LDS): 32 banks of dwords shared by the resident
//! workgroups, each of which owns a region (`base`, `size`) the dispatcher allocated. The LSU's
//! sequencer ([`super::lsu`]) hands it one access of a DS instruction at a time: one 16-lane
//! pass, one dword (or byte, or half) per lane at LDS-relative byte addresses, a read, a write or
//! an atomic read-modify-write.
//!
//! # Banks and conflicts
//!
//! Dword `d` of the LDS lives in bank `d mod 32`, row `d / 32`. Regions start at a row, so a
//! lane's bank depends only on its address within the workgroup's region and the cost of an
//! access is a property of the kernel, not of where its workgroup was placed. Every cycle each
//! bank serves the lowest pending lane that addresses it and, for reads and writes, every other
//! pending lane that addresses the same dword (a broadcast; writes to one dword merge their
//! bytes in lane order, so the highest lane's byte wins, as in the golden model's lane order).
//! An atomic serves one lane per bank and cycle, lanes on one dword in ascending lane order. So
//! an access takes as many cycles as the most distinct dwords (atomics: lanes) any bank is
//! asked for, 1 to 16 (`done_o` in its last cycle), and the banks are combinational reads with a
//! write at the edge, so a read-modify-write takes one cycle.
//!
//! # Limits
//!
//! An access is checked in its first cycle against the limit `min(M0, size)` and its alignment
//! (GCN3: a byte, a half at an even address, a dword at a multiple of 4): every byte of a lane's
//! access must lie below the limit. A failing access performs no lane: `fault_o` names the
//! lowest failing lane, its address and whether it was misaligned, and the access ends
//! (`done_o`) so the sequencer never hangs on it; the test bench stops the run there.
//!
//! # Clearing
//!
//! The golden model's workgroup sees its LDS zeroed. The dispatcher clears a new workgroup's
//! region one row (all 32 banks) per cycle through `clear_i` before its first wavefront starts,
//! on the banks' second write port, so the running workgroups' accesses never wait for it.

use rust_hdl::core::timing::TimingInfo;
use rust_hdl::prelude::*;

/// Banks of the LDS (GCN3: 32, one dword wide each).
pub const LDS_BANKS: usize = 32;
/// Width of a dword index into the largest LDS (64 KiB = 16384 dwords).
pub const LDS_DWORD_BITS: usize = 14;
/// Width of a row index (512 rows of 32 dwords in 64 KiB).
pub const LDS_ROW_BITS: usize = 9;
/// Bytes in one row: one dword in every bank, the granularity of regions and of clearing.
pub const LDS_ROW_BYTES: usize = 4 * LDS_BANKS;

/// One bank's storage: `depth` dwords, read combinationally at `ra` and written at the edge
/// through two ports: the access's (`we`) and the dispatcher's clear (`ce`: zero row `ca`),
/// which never address the same row (a region is cleared while no workgroup owns it). A leaf
/// with its own Verilog and a flat array in simulation, like the VRF banks.
#[derive(LogicBlock)]
pub struct LdsBankRam {
    pub clock: Signal<In, Clock>,
    pub ra: Signal<In, Bits<LDS_ROW_BITS>>,
    pub rd: Signal<Out, Bits<32>>,
    pub we: Signal<In, Bit>,
    pub wa: Signal<In, Bits<LDS_ROW_BITS>>,
    pub wd: Signal<In, Bits<32>>,
    pub ce: Signal<In, Bit>,
    pub ca: Signal<In, Bits<LDS_ROW_BITS>>,
    _rows: Vec<u32>,
}

impl LdsBankRam {
    /// A bank of `depth` rows (1..=512), all 0.
    pub fn new(depth: usize) -> Self {
        LdsBankRam {
            clock: Default::default(),
            ra: Default::default(),
            rd: Default::default(),
            we: Default::default(),
            wa: Default::default(),
            wd: Default::default(),
            ce: Default::default(),
            ca: Default::default(),
            _rows: vec![0; depth],
        }
    }
}

impl Logic for LdsBankRam {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            if self.ce.val() {
                if let Some(r) = self._rows.get_mut(self.ca.val().index()) {
                    *r = 0;
                }
            }
            if self.we.val() {
                if let Some(r) = self._rows.get_mut(self.wa.val().index()) {
                    *r = self.wd.val().to_u64() as u32;
                }
            }
        }
        let v = self._rows.get(self.ra.val().index()).copied().unwrap_or(0);
        self.rd.next = (v as u64).to_bits();
    }

    fn connect(&mut self) {
        self.rd.connect();
    }

    fn hdl(&self) -> Verilog {
        let depth = self._rows.len();
        let last = depth - 1;
        let a1 = LDS_ROW_BITS + 1;
        Verilog::Custom(format!(
            "\
reg [31:0] rows[{last}:0];
integer i;
initial begin
    for (i = 0; i < {depth}; i = i + 1) rows[i] = 32'h0;
end

always @(*) rd = ({{1'b0, ra}} < {a1}'d{depth}) ? rows[ra] : 32'h0;

always @(posedge clock) begin
    if (ce && ({{1'b0, ca}} < {a1}'d{depth})) rows[ca] <= 32'h0;
    if (we && ({{1'b0, wa}} < {a1}'d{depth})) rows[wa] <= wd;
end
"
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "lds_bank_write".into(),
            clock: "clock".into(),
            inputs: vec![
                "we".into(),
                "wa".into(),
                "wd".into(),
                "ce".into(),
                "ca".into(),
            ],
            outputs: vec![],
        }]
    }
}

/// One bank: picks the lanes it serves this cycle, reads its dword and writes the merged or
/// read-modify-written value back (see the module documentation).
#[derive(LogicBlock)]
pub struct LdsBank {
    pub clock: Signal<In, Clock>,
    /// Lanes still to be served, their dword indices, byte offsets within the dword and data.
    pub pend_i: Signal<In, Bits<16>>,
    pub dw_i: Vec<Signal<In, Bits<LDS_DWORD_BITS>>>,
    pub byte_i: Vec<Signal<In, Bits<2>>>,
    pub a_i: Vec<Signal<In, Bits<32>>>,
    pub b_i: Vec<Signal<In, Bits<32>>>,
    pub we_i: Signal<In, Bit>,
    /// `lsu::rmw` of an atomic, 0 otherwise.
    pub rmw_i: Signal<In, Bits<4>>,
    /// 0 a dword, 1 a byte, 2 a half.
    pub size_i: Signal<In, Bits<2>>,
    /// Write 0 to row `clear_row_i`.
    pub clear_i: Signal<In, Bit>,
    pub clear_row_i: Signal<In, Bits<LDS_ROW_BITS>>,
    /// Lanes served this cycle and the dword they read (its value before this edge's write).
    pub served_o: Signal<Out, Bits<16>>,
    pub rdata_o: Signal<Out, Bits<32>>,
    /// The bank's number (tied off by the LDS: an input rather than a constant, so the 32
    /// banks are one Verilog module).
    pub index_i: Signal<In, Bits<5>>,
    ram: LdsBankRam,
    found: Signal<Local, Bit>,
    sel: Signal<Local, Bits<4>>,
    sel_dw: Signal<Local, Bits<LDS_DWORD_BITS>>,
    sel_a: Signal<Local, Bits<32>>,
    sel_b: Signal<Local, Bits<32>>,
    old: Signal<Local, Bits<32>>,
    merged: Signal<Local, Bits<32>>,
    cur_byte: Signal<Local, Bits<2>>,
    shift: Signal<Local, Bits<32>>,
    mask: Signal<Local, Bits<32>>,
    sign: Constant<Bits<32>>,
    byte_mask: Constant<Bits<32>>,
    half_mask: Constant<Bits<32>>,
}

impl LdsBank {
    /// A bank of `depth` rows.
    pub fn new(depth: usize) -> Self {
        fn many<T: Default>(n: usize) -> Vec<T> {
            (0..n).map(|_| T::default()).collect()
        }
        LdsBank {
            clock: Default::default(),
            pend_i: Default::default(),
            dw_i: many(16),
            byte_i: many(16),
            a_i: many(16),
            b_i: many(16),
            we_i: Default::default(),
            rmw_i: Default::default(),
            size_i: Default::default(),
            clear_i: Default::default(),
            clear_row_i: Default::default(),
            served_o: Default::default(),
            rdata_o: Default::default(),
            index_i: Default::default(),
            ram: LdsBankRam::new(depth),
            found: Default::default(),
            sel: Default::default(),
            sel_dw: Default::default(),
            sel_a: Default::default(),
            sel_b: Default::default(),
            old: Default::default(),
            merged: Default::default(),
            cur_byte: Default::default(),
            shift: Default::default(),
            mask: Default::default(),
            sign: Constant::new(0x8000_0000u64.to_bits()),
            byte_mask: Constant::new(0xFFu64.to_bits()),
            half_mask: Constant::new(0xFFFFu64.to_bits()),
        }
    }
}

impl Logic for LdsBank {
    #[hdl_gen]
    fn update(&mut self) {
        self.ram.clock.next = self.clock.val();
        self.found.next = false;
        self.sel.next = 0.into();
        self.sel_dw.next = 0.into();
        self.sel_a.next = 0.into();
        self.sel_b.next = 0.into();
        self.served_o.next = 0.into();
        // The store merge's scratch words hold no state between cycles (no latch in Verilog).
        self.cur_byte.next = 0.into();
        self.shift.next = 0.into();
        self.mask.next = 0.into();
        // An idle bank (no access, the usual cycle) skips the lane loops.
        if self.pend_i.val().any() {
            for l in 0..16 {
                if !self.found.val()
                    & self.pend_i.val().get_bit(l)
                    & (self.dw_i[l].val().get_bits::<5>(0) == self.index_i.val())
                {
                    self.found.next = true;
                    self.sel.next = l.to_bits();
                    self.sel_dw.next = self.dw_i[l].val();
                    self.sel_a.next = self.a_i[l].val();
                    self.sel_b.next = self.b_i[l].val();
                }
            }
        }
        self.ram.ra.next = self.sel_dw.val().get_bits::<LDS_ROW_BITS>(5);
        self.old.next = self.ram.rd.val();
        self.rdata_o.next = self.old.val();
        self.merged.next = self.old.val();
        if self.found.val() {
            if self.rmw_i.val().any() {
                for l in 0..16 {
                    if self.sel.val().index() == l {
                        self.served_o.next = self.served_o.val().replace_bit(l, true);
                    }
                }
                match self.rmw_i.val().index() {
                    1 => self.merged.next = self.old.val() + self.sel_a.val(),
                    2 => self.merged.next = self.old.val() - self.sel_a.val(),
                    3 => self.merged.next = self.sel_a.val() - self.old.val(),
                    4 => {
                        if (self.sel_a.val() ^ self.sign.val()) < (self.old.val() ^ self.sign.val())
                        {
                            self.merged.next = self.sel_a.val();
                        }
                    }
                    5 => {
                        if self.sel_a.val() < self.old.val() {
                            self.merged.next = self.sel_a.val();
                        }
                    }
                    6 => {
                        if (self.sel_a.val() ^ self.sign.val()) > (self.old.val() ^ self.sign.val())
                        {
                            self.merged.next = self.sel_a.val();
                        }
                    }
                    7 => {
                        if self.sel_a.val() > self.old.val() {
                            self.merged.next = self.sel_a.val();
                        }
                    }
                    8 => self.merged.next = self.old.val() & self.sel_a.val(),
                    9 => self.merged.next = self.old.val() | self.sel_a.val(),
                    10 => self.merged.next = self.old.val() ^ self.sel_a.val(),
                    11 => {
                        self.merged.next = self.old.val() + 1;
                        if self.old.val() >= self.sel_a.val() {
                            self.merged.next = 0.into();
                        }
                    }
                    12 => {
                        self.merged.next = self.old.val() - 1;
                        if !self.old.val().any() | (self.old.val() > self.sel_a.val()) {
                            self.merged.next = self.sel_a.val();
                        }
                    }
                    13 => self.merged.next = self.sel_a.val(),
                    14 => {
                        if self.old.val() == self.sel_b.val() {
                            self.merged.next = self.sel_a.val();
                        }
                    }
                    15 => {
                        self.merged.next = (self.old.val() & !self.sel_a.val()) | self.sel_b.val();
                    }
                    _ => {}
                }
            } else {
                // Every pending lane on the selected dword, in lane order.
                for l in 0..16 {
                    if self.pend_i.val().get_bit(l) & (self.dw_i[l].val() == self.sel_dw.val()) {
                        self.served_o.next = self.served_o.val().replace_bit(l, true);
                        self.cur_byte.next = self.byte_i[l].val();
                        self.shift.next = bit_cast::<32, 2>(self.cur_byte.val()) << 3;
                        self.mask.next = 0xFFFF_FFFF_u64.into();
                        if self.size_i.val() == 1 {
                            self.mask.next = self.byte_mask.val() << self.shift.val();
                        }
                        if self.size_i.val() == 2 {
                            self.mask.next = self.half_mask.val() << self.shift.val();
                        }
                        self.merged.next = (self.merged.val() & !self.mask.val())
                            | ((self.a_i[l].val() << self.shift.val()) & self.mask.val());
                    }
                }
            }
        }
        self.ram.we.next = self.found.val() & (self.we_i.val() | self.rmw_i.val().any());
        self.ram.wa.next = self.sel_dw.val().get_bits::<LDS_ROW_BITS>(5);
        self.ram.wd.next = self.merged.val();
        self.ram.ce.next = self.clear_i.val();
        self.ram.ca.next = self.clear_row_i.val();
    }
}

/// The LDS (see the module documentation).
#[derive(LogicBlock)]
pub struct Lds {
    pub clock: Signal<In, Clock>,
    /// An access is in progress (from its first cycle to `done_o`); `start_i` marks its first.
    pub active_i: Signal<In, Bit>,
    pub start_i: Signal<In, Bit>,
    pub lanes_i: Signal<In, Bits<16>>,
    /// Byte addresses within the workgroup's region.
    pub addr_i: Vec<Signal<In, Bits<32>>>,
    /// The region's first byte (a multiple of [`LDS_ROW_BYTES`]) and `min(M0, size)`.
    pub base_i: Signal<In, Bits<32>>,
    pub limit_i: Signal<In, Bits<32>>,
    pub we_i: Signal<In, Bit>,
    pub rmw_i: Signal<In, Bits<4>>,
    pub size_i: Signal<In, Bits<2>>,
    pub signed_i: Signal<In, Bit>,
    /// The lane's data (a write's value, an atomic's first operand) and second operand.
    pub a_i: Vec<Signal<In, Bits<32>>>,
    pub b_i: Vec<Signal<In, Bits<32>>>,
    pub clear_i: Signal<In, Bit>,
    pub clear_row_i: Signal<In, Bits<LDS_ROW_BITS>>,
    /// The access's last cycle: every lane has been served (or it faulted).
    pub done_o: Signal<Out, Bit>,
    /// Per lane the value read (zero- or sign-extended) or the atomic's old value; complete in
    /// the `done_o` cycle.
    pub rdata_o: Vec<Signal<Out, Bits<32>>>,
    pub fault_o: Signal<Out, Bit>,
    pub fault_lane_o: Signal<Out, Bits<4>>,
    pub fault_addr_o: Signal<Out, Bits<32>>,
    pub fault_misaligned_o: Signal<Out, Bit>,
    pub banks: Vec<LdsBank>,
    pend_q: DFF<Bits<16>>,
    res_q: Vec<DFF<Bits<32>>>,
    pend: Signal<Local, Bits<16>>,
    served: Signal<Local, Bits<16>>,
    left: Signal<Local, Bits<16>>,
    lane_addr: Signal<Local, Bits<32>>,
    lane_shift: Signal<Local, Bits<32>>,
    bytes: Signal<Local, Bits<33>>,
    misaligned: Signal<Local, Bits<16>>,
    outside: Signal<Local, Bits<16>>,
    phys: Vec<Signal<Local, Bits<32>>>,
    dw: Vec<Signal<Local, Bits<LDS_DWORD_BITS>>>,
    word: Vec<Signal<Local, Bits<32>>>,
    part: Vec<Signal<Local, Bits<32>>>,
}

impl Lds {
    /// An LDS of `bytes` bytes (a multiple of [`LDS_ROW_BYTES`], at most 64 KiB).
    pub fn new(bytes: usize) -> Self {
        fn many<T: Default>(n: usize) -> Vec<T> {
            (0..n).map(|_| T::default()).collect()
        }
        let depth = (bytes / LDS_ROW_BYTES).max(1);
        Lds {
            clock: Default::default(),
            active_i: Default::default(),
            start_i: Default::default(),
            lanes_i: Default::default(),
            addr_i: many(16),
            base_i: Default::default(),
            limit_i: Default::default(),
            we_i: Default::default(),
            rmw_i: Default::default(),
            size_i: Default::default(),
            signed_i: Default::default(),
            a_i: many(16),
            b_i: many(16),
            clear_i: Default::default(),
            clear_row_i: Default::default(),
            done_o: Default::default(),
            rdata_o: many(16),
            fault_o: Default::default(),
            fault_lane_o: Default::default(),
            fault_addr_o: Default::default(),
            fault_misaligned_o: Default::default(),
            banks: (0..LDS_BANKS).map(|_| LdsBank::new(depth)).collect(),
            pend_q: Default::default(),
            res_q: many(16),
            pend: Default::default(),
            served: Default::default(),
            left: Default::default(),
            lane_addr: Default::default(),
            lane_shift: Default::default(),
            bytes: Default::default(),
            misaligned: Default::default(),
            outside: Default::default(),
            phys: many(16),
            dw: many(16),
            word: many(16),
            part: many(16),
        }
    }
}

impl Logic for Lds {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, pend_q);
        self.bytes.next = 4.into();
        if self.size_i.val() == 1 {
            self.bytes.next = 1.into();
        }
        if self.size_i.val() == 2 {
            self.bytes.next = 2.into();
        }
        // The first cycle checks every active lane; a failing access performs nothing.
        self.misaligned.next = 0.into();
        self.outside.next = 0.into();
        self.fault_o.next = false;
        self.fault_lane_o.next = 0.into();
        self.fault_addr_o.next = 0.into();
        self.fault_misaligned_o.next = false;
        if self.start_i.val() {
            for l in 0..16 {
                if self.lanes_i.val().get_bit(l) {
                    if ((self.size_i.val() == 0) & self.addr_i[l].val().get_bits::<2>(0).any())
                        | ((self.size_i.val() == 2) & self.addr_i[l].val().get_bit(0))
                    {
                        self.misaligned.next = self.misaligned.val().replace_bit(l, true);
                    }
                    self.lane_addr.next = self.addr_i[l].val();
                    if (bit_cast::<33, 32>(self.lane_addr.val()) + self.bytes.val())
                        > bit_cast::<33, 32>(self.limit_i.val())
                    {
                        self.outside.next = self.outside.val().replace_bit(l, true);
                    }
                }
            }
            for l in 0..16 {
                if !self.fault_o.val()
                    & (self.misaligned.val().get_bit(l) | self.outside.val().get_bit(l))
                {
                    self.fault_o.next = true;
                    self.fault_lane_o.next = l.to_bits();
                    self.fault_addr_o.next = self.addr_i[l].val();
                    self.fault_misaligned_o.next = self.misaligned.val().get_bit(l);
                }
            }
        }
        self.pend.next = self.pend_q.q.val();
        if self.start_i.val() {
            self.pend.next = self.lanes_i.val();
        }
        if self.fault_o.val() | !self.active_i.val() {
            self.pend.next = 0.into();
        }
        for l in 0..16 {
            self.phys[l].next = self.base_i.val() + self.addr_i[l].val();
            self.dw[l].next = self.phys[l].val().get_bits::<LDS_DWORD_BITS>(2);
        }
        self.served.next = 0.into();
        for b in 0..LDS_BANKS {
            self.banks[b].clock.next = self.clock.val();
            self.banks[b].index_i.next = b.to_bits();
            self.banks[b].pend_i.next = self.pend.val();
            self.banks[b].we_i.next = self.we_i.val();
            self.banks[b].rmw_i.next = self.rmw_i.val();
            self.banks[b].size_i.next = self.size_i.val();
            self.banks[b].clear_i.next = self.clear_i.val();
            self.banks[b].clear_row_i.next = self.clear_row_i.val();
            for l in 0..16 {
                self.banks[b].dw_i[l].next = self.dw[l].val();
                self.banks[b].byte_i[l].next = self.addr_i[l].val().get_bits::<2>(0);
                self.banks[b].a_i[l].next = self.a_i[l].val();
                self.banks[b].b_i[l].next = self.b_i[l].val();
            }
            self.served.next = self.served.val() | self.banks[b].served_o.val();
        }
        self.left.next = self.pend.val() & !self.served.val();
        self.pend_q.d.next = self.left.val();
        self.done_o.next = self.active_i.val() & !self.left.val().any();
        // Each lane takes its bank's dword in the cycle it is served.
        for l in 0..16 {
            self.res_q[l].clock.next = self.clock.val();
            self.word[l].next = 0.into();
            if self.served.val().get_bit(l) {
                for b in 0..LDS_BANKS {
                    if self.dw[l].val().get_bits::<5>(0).index() == b {
                        self.word[l].next = self.banks[b].rdata_o.val();
                    }
                }
            }
            self.lane_addr.next = self.addr_i[l].val();
            self.lane_shift.next = bit_cast::<32, 2>(self.lane_addr.val().get_bits::<2>(0)) << 3;
            self.part[l].next = self.word[l].val();
            if self.size_i.val() == 1 {
                self.part[l].next = (self.word[l].val() >> self.lane_shift.val()) & 0xFF_u64;
                if self.signed_i.val() & self.part[l].val().get_bit(7) {
                    self.part[l].next = self.part[l].val() | 0xFFFF_FF00_u64;
                }
            }
            if self.size_i.val() == 2 {
                self.part[l].next = (self.word[l].val() >> self.lane_shift.val()) & 0xFFFF_u64;
                if self.signed_i.val() & self.part[l].val().get_bit(15) {
                    self.part[l].next = self.part[l].val() | 0xFFFF_0000_u64;
                }
            }
            self.rdata_o[l].next = self.res_q[l].q.val();
            if self.served.val().get_bit(l) {
                self.rdata_o[l].next = self.part[l].val();
            }
            self.res_q[l].d.next = self.rdata_o[l].val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_hdl::core::simulate::simulate;

    fn lds() -> Lds {
        let mut lds = Lds::new(8192);
        lds.connect_all();
        lds.limit_i.next = 8192.into();
        assert!(simulate(&mut lds, 1000));
        lds
    }

    fn tick(lds: &mut Lds) {
        lds.clock.next = Clock::from(true);
        assert!(simulate(lds, 1000));
        lds.clock.next = Clock::from(false);
        assert!(simulate(lds, 1000));
    }

    /// Runs one access of all 16 lanes at `addr(lane)`; its cycles and each lane's data.
    fn access(lds: &mut Lds, we: bool, rmw: u64, addr: impl Fn(u64) -> u64) -> (u64, Vec<u64>) {
        lds.we_i.next = we;
        lds.rmw_i.next = rmw.into();
        lds.lanes_i.next = 0xFFFF.into();
        for l in 0..16 {
            lds.addr_i[l].next = addr(l as u64).into();
            lds.a_i[l].next = (100 + l as u64).into();
        }
        lds.active_i.next = true;
        lds.start_i.next = true;
        for cycle in 1..=32 {
            assert!(simulate(lds, 1000));
            if lds.done_o.val() {
                let data = lds.rdata_o.iter().map(|d| d.val().to_u64()).collect();
                tick(lds);
                lds.active_i.next = false;
                lds.start_i.next = false;
                assert!(simulate(lds, 1000));
                return (cycle, data);
            }
            tick(lds);
            lds.start_i.next = false;
        }
        panic!("the access never ended");
    }

    #[test]
    fn an_access_takes_the_distinct_dwords_of_its_busiest_bank() {
        let mut lds = lds();
        // One bank per lane; every lane in bank 0; 4 banks of 4 lanes; all on one dword.
        assert_eq!(access(&mut lds, true, 0, |l| 4 * l).0, 1);
        assert_eq!(access(&mut lds, true, 0, |l| 128 * l).0, 16);
        assert_eq!(access(&mut lds, false, 0, |l| 32 * l).0, 4);
        let (cycles, data) = access(&mut lds, false, 0, |_| 0);
        assert_eq!(
            (cycles, data[15]),
            (1, 100),
            "a broadcast of lane 0's write"
        );
        let (_, data) = access(&mut lds, false, 0, |l| 128 * l);
        assert_eq!(data, (100..116).collect::<Vec<_>>());
        // An atomic serialises the lanes of one dword in lane order.
        let (cycles, old) = access(&mut lds, false, super::super::lsu::rmw::ADD, |_| 0);
        assert_eq!(cycles, 16);
        assert_eq!(old[0..3], [100, 200, 301]);
    }

    /// rust-hdl unrolls a block's loops into one always block; the banks are child blocks, so
    /// the Verilog has a small module per bank instead of one block of 32 banks' logic.
    #[test]
    fn the_verilog_has_one_module_per_bank() {
        let mut lds = lds();
        let v = generate_verilog(&mut lds);
        let modules: Vec<&str> = v
            .lines()
            .filter_map(|l| l.strip_prefix("module "))
            .collect();
        let bank = |b: usize| format!("top$banks${b}(");
        assert!(
            (0..LDS_BANKS).all(|b| modules.iter().any(|m| m.starts_with(&bank(b)))),
            "{modules:?}"
        );
        assert!(v.contains("rows[ra]"), "the bank storage's own Verilog");
        // The load/store unit around it (its DS sequencer included) translates too.
        let cfg = crate::config::HwConfig::cu();
        let mut lsu = super::super::lsu::LoadStoreUnit::new(&cfg);
        lsu.connect_all();
        assert!(generate_verilog(&mut lsu).contains("top$lds$banks$31("));
    }

    #[test]
    fn an_access_past_the_limit_faults_on_its_lowest_lane_and_performs_nothing() {
        let mut lds = lds();
        lds.limit_i.next = 40.into();
        lds.we_i.next = true;
        lds.lanes_i.next = 0xFFF0.into();
        for l in 0..16 {
            lds.addr_i[l].next = (4 * l as u64).into();
        }
        lds.active_i.next = true;
        lds.start_i.next = true;
        assert!(simulate(&mut lds, 1000));
        assert!(lds.fault_o.val() && lds.done_o.val());
        assert_eq!(lds.fault_lane_o.val().to_u64(), 10);
        assert_eq!(lds.fault_addr_o.val().to_u64(), 40);
        assert!(!lds.fault_misaligned_o.val());
        tick(&mut lds);
        lds.limit_i.next = 8192.into();
        lds.active_i.next = false;
        lds.start_i.next = false;
        let (_, data) = access(&mut lds, false, 0, |l| 4 * l);
        assert!(data.iter().all(|&d| d == 0), "no lane wrote: {data:?}");
        lds.size_i.next = 2.into();
        lds.lanes_i.next = 0x0002.into();
        lds.addr_i[1].next = 3.into();
        lds.active_i.next = true;
        lds.start_i.next = true;
        assert!(simulate(&mut lds, 1000));
        assert!(lds.fault_o.val() && lds.fault_misaligned_o.val());
        assert_eq!(lds.fault_lane_o.val().to_u64(), 1);
    }
}
