//! One lane's bank of the vector register file: the lane's VGPRs of one wavefront, with four
//! synchronous read ports (the three source operands of a VALU op and the high word of a 64-bit
//! one) and a write port that can also write the next register (the high word of a 64-bit
//! result) in the same cycle.
//!
//! GCN spreads a lane's VGPRs over banks by register number, so registers v and v + 1 are
//! always in different banks and both halves of a 64-bit result are written in one cycle; the
//! bank here is that arrangement without bank conflicts (reads never stall). Reads see the
//! registers as they were before the edge's writes (read-before-write, like a block RAM).
//! Addresses past the bank read 0 and are not written, both in simulation and in the Verilog.
//!
//! The bank is a leaf with its own Verilog (like rust-hdl's `RAM`) and a flat array in
//! simulation: the VRF is 64 of them, and a map per bank made simulation several times slower.

use rust_hdl::core::timing::TimingInfo;
use rust_hdl::prelude::*;

use crate::config::VGPR_ADDR_BITS;

/// One lane's VGPRs: 4 read ports, 1 write port with an optional second word at address + 1.
#[derive(LogicBlock)]
pub struct VrfBank {
    pub clock: Signal<In, Clock>,
    pub ra0: Signal<In, Bits<VGPR_ADDR_BITS>>,
    pub ra1: Signal<In, Bits<VGPR_ADDR_BITS>>,
    pub ra2: Signal<In, Bits<VGPR_ADDR_BITS>>,
    pub ra3: Signal<In, Bits<VGPR_ADDR_BITS>>,
    /// Register `raN` as of the last rising edge.
    pub rd0: Signal<Out, Bits<32>>,
    pub rd1: Signal<Out, Bits<32>>,
    pub rd2: Signal<Out, Bits<32>>,
    pub rd3: Signal<Out, Bits<32>>,
    /// Write `wd` to register `wa` at the edge.
    pub we: Signal<In, Bit>,
    pub wa: Signal<In, Bits<VGPR_ADDR_BITS>>,
    pub wd: Signal<In, Bits<32>>,
    /// Write `wd_hi` to register `wa` + 1 at the edge.
    pub we_hi: Signal<In, Bit>,
    pub wd_hi: Signal<In, Bits<32>>,
    _regs: Vec<u32>,
}

impl VrfBank {
    /// A bank of `depth` registers (1..=256), all 0.
    pub fn new(depth: usize) -> Self {
        VrfBank {
            clock: Default::default(),
            ra0: Default::default(),
            ra1: Default::default(),
            ra2: Default::default(),
            ra3: Default::default(),
            rd0: Default::default(),
            rd1: Default::default(),
            rd2: Default::default(),
            rd3: Default::default(),
            we: Default::default(),
            wa: Default::default(),
            wd: Default::default(),
            we_hi: Default::default(),
            wd_hi: Default::default(),
            _regs: vec![0; depth],
        }
    }

    fn read(&self, addr: Bits<VGPR_ADDR_BITS>) -> Bits<32> {
        let v = self._regs.get(addr.index()).copied().unwrap_or(0);
        (v as u64).to_bits()
    }

    fn write(&mut self, addr: usize, data: Bits<32>) {
        if let Some(r) = self._regs.get_mut(addr) {
            *r = data.to_u64() as u32;
        }
    }
}

impl Logic for VrfBank {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            self.rd0.next = self.read(self.ra0.val());
            self.rd1.next = self.read(self.ra1.val());
            self.rd2.next = self.read(self.ra2.val());
            self.rd3.next = self.read(self.ra3.val());
            let wa = self.wa.val().index();
            if self.we.val() {
                self.write(wa, self.wd.val());
            }
            if self.we_hi.val() {
                self.write(wa + 1, self.wd_hi.val());
            }
        }
    }

    fn connect(&mut self) {
        self.rd0.connect();
        self.rd1.connect();
        self.rd2.connect();
        self.rd3.connect();
    }

    fn hdl(&self) -> Verilog {
        let depth = self._regs.len();
        let last = depth - 1;
        let a = VGPR_ADDR_BITS;
        let a1 = VGPR_ADDR_BITS + 1;
        Verilog::Custom(format!(
            "\
reg [31:0] regs[{last}:0];
integer i;
initial begin
    for (i = 0; i < {depth}; i = i + 1) regs[i] = 32'h0;
end

always @(posedge clock) begin
    rd0 <= ({{1'b0, ra0}} < {a1}'d{depth}) ? regs[ra0] : 32'h0;
    rd1 <= ({{1'b0, ra1}} < {a1}'d{depth}) ? regs[ra1] : 32'h0;
    rd2 <= ({{1'b0, ra2}} < {a1}'d{depth}) ? regs[ra2] : 32'h0;
    rd3 <= ({{1'b0, ra3}} < {a1}'d{depth}) ? regs[ra3] : 32'h0;
    if (we && ({{1'b0, wa}} < {a1}'d{depth})) regs[wa] <= wd;
    if (we_hi && ({{1'b0, wa}} + {a1}'d1 < {a1}'d{depth})) regs[wa + {a}'d1] <= wd_hi;
end
"
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![
            TimingInfo {
                name: "vrf_read".into(),
                clock: "clock".into(),
                inputs: vec!["ra0".into(), "ra1".into(), "ra2".into(), "ra3".into()],
                outputs: vec!["rd0".into(), "rd1".into(), "rd2".into(), "rd3".into()],
            },
            TimingInfo {
                name: "vrf_write".into(),
                clock: "clock".into(),
                inputs: vec![
                    "we".into(),
                    "wa".into(),
                    "wd".into(),
                    "we_hi".into(),
                    "wd_hi".into(),
                ],
                outputs: vec![],
            },
        ]
    }
}
