//! One lane's bank of a SIMD's vector register file: the lane's VGPRs of every wavefront the
//! SIMD holds, with one port set per (Sp)SIMD (four synchronous reads: the three source
//! operands of a VALU op and the high word of a 64-bit one; one write that can also write the
//! next register, the high word of a 64-bit result), one read and one write port for the
//! load/store unit, and one write port for the dispatcher, which initialises a new wavefront's
//! registers while the others run.
//!
//! Why a port set per (Sp)SIMD: the SIMD and its SpSIMDs run ops of different wavefronts at
//! once (PWS mode), and wavefronts hold different register ranges, so two (Sp)SIMDs can read
//! or write the same lane in one cycle at different registers. Within one wavefront the split
//! masks are disjoint (decision 3), so two ports never write one register in one cycle unless
//! the protocol is broken; then the higher port wins, every (Sp)SIMD port wins over the LSU's
//! and the LSU's over the dispatcher's.
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

/// One lane's VGPRs: per (Sp)SIMD port p 4 reads and 1 write with an optional second word at
/// address + 1; one LSU read and one LSU write.
#[derive(LogicBlock)]
pub struct VrfBank {
    pub clock: Signal<In, Clock>,
    pub ra0: Vec<Signal<In, Bits<VGPR_ADDR_BITS>>>,
    pub ra1: Vec<Signal<In, Bits<VGPR_ADDR_BITS>>>,
    pub ra2: Vec<Signal<In, Bits<VGPR_ADDR_BITS>>>,
    pub ra3: Vec<Signal<In, Bits<VGPR_ADDR_BITS>>>,
    /// Register `raN[p]` as of the last rising edge.
    pub rd0: Vec<Signal<Out, Bits<32>>>,
    pub rd1: Vec<Signal<Out, Bits<32>>>,
    pub rd2: Vec<Signal<Out, Bits<32>>>,
    pub rd3: Vec<Signal<Out, Bits<32>>>,
    /// Write `wd[p]` to register `wa[p]` at the edge.
    pub we: Vec<Signal<In, Bit>>,
    pub wa: Vec<Signal<In, Bits<VGPR_ADDR_BITS>>>,
    pub wd: Vec<Signal<In, Bits<32>>>,
    /// Write `wd_hi[p]` to register `wa[p]` + 1 at the edge.
    pub we_hi: Vec<Signal<In, Bit>>,
    pub wd_hi: Vec<Signal<In, Bits<32>>>,
    /// The LSU's read (register `lsu_ra` as of the last edge) and write.
    pub lsu_ra: Signal<In, Bits<VGPR_ADDR_BITS>>,
    pub lsu_rd: Signal<Out, Bits<32>>,
    pub lsu_we: Signal<In, Bit>,
    pub lsu_wa: Signal<In, Bits<VGPR_ADDR_BITS>>,
    pub lsu_wd: Signal<In, Bits<32>>,
    /// The dispatcher's write.
    pub init_we: Signal<In, Bit>,
    pub init_wa: Signal<In, Bits<VGPR_ADDR_BITS>>,
    pub init_wd: Signal<In, Bits<32>>,
    _regs: Vec<u32>,
}

impl VrfBank {
    /// A bank of `depth` registers (1..=256), all 0, with `ports` (Sp)SIMD port sets.
    pub fn new(depth: usize, ports: usize) -> Self {
        fn many<T: Default>(n: usize) -> Vec<T> {
            (0..n).map(|_| T::default()).collect()
        }
        VrfBank {
            clock: Default::default(),
            ra0: many(ports),
            ra1: many(ports),
            ra2: many(ports),
            ra3: many(ports),
            rd0: many(ports),
            rd1: many(ports),
            rd2: many(ports),
            rd3: many(ports),
            we: many(ports),
            wa: many(ports),
            wd: many(ports),
            we_hi: many(ports),
            wd_hi: many(ports),
            lsu_ra: Default::default(),
            lsu_rd: Default::default(),
            lsu_we: Default::default(),
            lsu_wa: Default::default(),
            lsu_wd: Default::default(),
            init_we: Default::default(),
            init_wa: Default::default(),
            init_wd: Default::default(),
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
            for p in 0..self.ra0.len() {
                self.rd0[p].next = self.read(self.ra0[p].val());
                self.rd1[p].next = self.read(self.ra1[p].val());
                self.rd2[p].next = self.read(self.ra2[p].val());
                self.rd3[p].next = self.read(self.ra3[p].val());
            }
            self.lsu_rd.next = self.read(self.lsu_ra.val());
            if self.init_we.val() {
                self.write(self.init_wa.val().index(), self.init_wd.val());
            }
            if self.lsu_we.val() {
                self.write(self.lsu_wa.val().index(), self.lsu_wd.val());
            }
            for p in 0..self.we.len() {
                let wa = self.wa[p].val().index();
                if self.we[p].val() {
                    self.write(wa, self.wd[p].val());
                }
                if self.we_hi[p].val() {
                    self.write(wa + 1, self.wd_hi[p].val());
                }
            }
        }
    }

    fn connect(&mut self) {
        for p in 0..self.rd0.len() {
            self.rd0[p].connect();
            self.rd1[p].connect();
            self.rd2[p].connect();
            self.rd3[p].connect();
        }
        self.lsu_rd.connect();
    }

    fn hdl(&self) -> Verilog {
        let depth = self._regs.len();
        let last = depth - 1;
        let a = VGPR_ADDR_BITS;
        let a1 = VGPR_ADDR_BITS + 1;
        let fits = |addr: &str| format!("({{1'b0, {addr}}} < {a1}'d{depth})");
        let read = |out: &str, addr: &str| {
            format!("    {out} <= {} ? regs[{addr}] : 32'h0;\n", fits(addr))
        };
        let mut body = read("lsu_rd", "lsu_ra");
        for p in 0..self.ra0.len() {
            for n in 0..4 {
                body += &read(&format!("rd{n}${p}"), &format!("ra{n}${p}"));
            }
        }
        body += &format!(
            "    if (init_we && {}) regs[init_wa] <= init_wd;\n\
             \x20   if (lsu_we && {}) regs[lsu_wa] <= lsu_wd;\n",
            fits("init_wa"),
            fits("lsu_wa")
        );
        for p in 0..self.we.len() {
            body += &format!(
                "    if (we${p} && {}) regs[wa${p}] <= wd${p};\n\
                 \x20   if (we_hi${p} && ({{1'b0, wa${p}}} + {a1}'d1 < {a1}'d{depth})) \
                 regs[wa${p} + {a}'d1] <= wd_hi${p};\n",
                fits(&format!("wa${p}"))
            );
        }
        Verilog::Custom(format!(
            "\
reg [31:0] regs[{last}:0];
integer i;
initial begin
    for (i = 0; i < {depth}; i = i + 1) regs[i] = 32'h0;
end

always @(posedge clock) begin
{body}end
"
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        let names = |base: &[&str]| -> Vec<String> {
            let mut out = Vec::new();
            for p in 0..self.ra0.len() {
                for b in base {
                    out.push(format!("{b}${p}"));
                }
            }
            out
        };
        let mut reads = names(&["ra0", "ra1", "ra2", "ra3"]);
        reads.push("lsu_ra".into());
        let mut outs = names(&["rd0", "rd1", "rd2", "rd3"]);
        outs.push("lsu_rd".into());
        let mut writes = names(&["we", "wa", "wd", "we_hi", "wd_hi"]);
        writes.extend(
            [
                "lsu_we", "lsu_wa", "lsu_wd", "init_we", "init_wa", "init_wd",
            ]
            .map(String::from),
        );
        vec![
            TimingInfo {
                name: "vrf_read".into(),
                clock: "clock".into(),
                inputs: reads,
                outputs: outs,
            },
            TimingInfo {
                name: "vrf_write".into(),
                clock: "clock".into(),
                inputs: writes,
                outputs: vec![],
            },
        ]
    }
}
