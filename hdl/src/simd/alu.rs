//! The integer VALU operations and one 32-bit ALU lane of a SIMD / SpSIMD.
//!
//! The semantics follow the GCN3 ISA manual for the integer vector ALU (the operation list of
//! the compute-unit interface spec): carries and borrows as 33-bit arithmetic, the high word of
//! the 64-bit product for `MulHi*`, 24-bit multiplies on the low 24 bits (zero- or
//! sign-extended), `Bfe*` with offset and width taken mod 32, 32-bit shifts by `b[4:0]` and
//! 64-bit shifts by `b[5:0]`. The lane is combinational; the vector unit registers around it.

use rust_hdl::prelude::*;

/// Operation of a VALU instruction on operands a, b, c (sources 0, 1, 2 as decoded; the
/// decoder swaps the operands of the `*rev` forms), the lane's mask bit m (carry-in or
/// `v_cndmask` select) and, for the 64-bit shifts, the pair a_hi:a.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum ValuOp {
    /// d = a (v_mov_b32)
    Mov,
    /// d = !a
    Not,
    /// d = a + b, carry-out to the mask result
    Add,
    /// d = a + b + m, carry-out to the mask result
    Addc,
    /// d = a - b, borrow (b > a) to the mask result
    Sub,
    /// d = a - b - m, borrow (b + m > a) to the mask result
    Subb,
    /// d = low word of a * b
    MulLo,
    /// d = high word of the unsigned 64-bit product
    MulHiU,
    /// d = high word of the signed 64-bit product
    MulHiI,
    /// d = a[23:0] * b[23:0] (low word)
    MulU24,
    /// d = sext(a[23:0]) * sext(b[23:0]) (low word)
    MulI24,
    /// d = a[23:0] * b[23:0] + c
    MadU24,
    /// d = sext(a[23:0]) * sext(b[23:0]) + c
    MadI24,
    And,
    Or,
    Xor,
    /// d = a << `b[4:0]`
    Shl,
    /// d = a >> `b[4:0]` (logical)
    Shr,
    /// d = a >> `b[4:0]` (arithmetic)
    Ashr,
    /// d:d+1 = (a_hi:a) << `b[5:0]`
    Shl64,
    /// d:d+1 = (a_hi:a) >> `b[5:0]` (logical)
    Shr64,
    /// d:d+1 = (a_hi:a) >> `b[5:0]` (arithmetic)
    Ashr64,
    MinI,
    MaxI,
    MinU,
    MaxU,
    /// d = `c[4:0]` bits of a from bit `b[4:0]` (0 for width 0)
    BfeU,
    /// the field of `BfeU`, sign-extended from its top bit
    BfeI,
    /// d = m ? b : a
    Cndmask,
    CmpEq,
    CmpNe,
    CmpLtU,
    CmpLeU,
    CmpGtU,
    CmpGeU,
    CmpLtI,
    CmpLeI,
    CmpGtI,
    CmpGeI,
}

impl ValuOp {
    /// Every operation, in encoding order.
    pub const ALL: [ValuOp; 39] = [
        ValuOp::Mov,
        ValuOp::Not,
        ValuOp::Add,
        ValuOp::Addc,
        ValuOp::Sub,
        ValuOp::Subb,
        ValuOp::MulLo,
        ValuOp::MulHiU,
        ValuOp::MulHiI,
        ValuOp::MulU24,
        ValuOp::MulI24,
        ValuOp::MadU24,
        ValuOp::MadI24,
        ValuOp::And,
        ValuOp::Or,
        ValuOp::Xor,
        ValuOp::Shl,
        ValuOp::Shr,
        ValuOp::Ashr,
        ValuOp::Shl64,
        ValuOp::Shr64,
        ValuOp::Ashr64,
        ValuOp::MinI,
        ValuOp::MaxI,
        ValuOp::MinU,
        ValuOp::MaxU,
        ValuOp::BfeU,
        ValuOp::BfeI,
        ValuOp::Cndmask,
        ValuOp::CmpEq,
        ValuOp::CmpNe,
        ValuOp::CmpLtU,
        ValuOp::CmpLeU,
        ValuOp::CmpGtU,
        ValuOp::CmpGeU,
        ValuOp::CmpLtI,
        ValuOp::CmpLeI,
        ValuOp::CmpGtI,
        ValuOp::CmpGeI,
    ];

    /// Compares write only the mask result, no VGPR.
    pub fn is_compare(self) -> bool {
        use ValuOp::*;
        matches!(
            self,
            CmpEq | CmpNe | CmpLtU | CmpLeU | CmpGtU | CmpGeU | CmpLtI | CmpLeI | CmpGtI | CmpGeI
        )
    }

    /// Carry ops write the VGPR and the carry/borrow mask.
    pub fn is_carry(self) -> bool {
        matches!(
            self,
            ValuOp::Add | ValuOp::Addc | ValuOp::Sub | ValuOp::Subb
        )
    }

    /// The op's mask result is meaningful (compare or carry-out); it is 0 for the others.
    pub fn writes_mask(self) -> bool {
        self.is_compare() || self.is_carry()
    }

    /// The op reads the mask input (carry-in or select).
    pub fn reads_mask(self) -> bool {
        matches!(self, ValuOp::Addc | ValuOp::Subb | ValuOp::Cndmask)
    }

    /// 64-bit shifts: operand a is the pair a_hi:a and the result is the pair d, d+1.
    pub fn is_wide(self) -> bool {
        matches!(self, ValuOp::Shl64 | ValuOp::Shr64 | ValuOp::Ashr64)
    }

    /// Source operands the op reads (a, b, c in that order).
    pub fn sources(self) -> usize {
        use ValuOp::*;
        match self {
            Mov | Not => 1,
            MadU24 | MadI24 | BfeU | BfeI => 3,
            _ => 2,
        }
    }
}

/// One 32-bit integer ALU lane (combinational).
#[derive(LogicBlock)]
pub struct LaneAlu {
    pub op: Signal<In, ValuOp>,
    pub a: Signal<In, Bits<32>>,
    /// High word of operand a for the 64-bit shifts.
    pub a_hi: Signal<In, Bits<32>>,
    pub b: Signal<In, Bits<32>>,
    pub c: Signal<In, Bits<32>>,
    /// The lane's bit of the mask input: carry-in of `Addc`/`Subb`, select of `Cndmask`.
    pub m: Signal<In, Bit>,
    pub result: Signal<Out, Bits<32>>,
    /// High word of a 64-bit shift's result.
    pub result_hi: Signal<Out, Bits<32>>,
    /// Compare outcome or carry/borrow-out (false for the other ops).
    pub flag: Signal<Out, Bit>,
    // Multiplier operands (24-bit forms extended) and the 64-bit product from four of
    // rust-hdl's 16 x 16 multipliers, computed only for the multiply ops.
    ma: Signal<Local, Bits<32>>,
    mb: Signal<Local, Bits<32>>,
    p_ll: Signal<Local, Bits<32>>,
    p_lh: Signal<Local, Bits<32>>,
    p_hl: Signal<Local, Bits<32>>,
    p_hh: Signal<Local, Bits<32>>,
    mid: Signal<Local, Bits<32>>,
    prod_lo: Signal<Local, Bits<32>>,
    prod_hi: Signal<Local, Bits<32>>,
    /// a + b, and a, b with the sign bit flipped (signed order as unsigned order).
    sum: Signal<Local, Bits<32>>,
    sa: Signal<Local, Bits<32>>,
    sb: Signal<Local, Bits<32>>,
    /// Shift amount mod 32 and (32 - amount) mod 32 for the bits crossing between words
    /// (rust-hdl simulates shifts through big integers, so the lane shifts only for the ops
    /// that need it; truncations are `bit_cast`s).
    sh: Signal<Local, Bits<5>>,
    shc: Signal<Local, Bits<5>>,
    /// Sign fill of the arithmetic shifts (all ones for a negative value).
    fill: Signal<Local, Bits<32>>,
    /// Bit field of the `Bfe` ops and its width.
    field: Signal<Local, Bits<32>>,
    width: Signal<Local, Bits<5>>,
    ones: Constant<Bits<32>>,
    sign: Constant<Bits<32>>,
    low24: Constant<Bits<32>>,
    high8: Constant<Bits<32>>,
    bit16: Constant<Bits<32>>,
    zero5: Constant<Bits<5>>,
}

impl Default for LaneAlu {
    fn default() -> Self {
        LaneAlu {
            op: Default::default(),
            a: Default::default(),
            a_hi: Default::default(),
            b: Default::default(),
            c: Default::default(),
            m: Default::default(),
            result: Default::default(),
            result_hi: Default::default(),
            flag: Default::default(),
            ma: Default::default(),
            mb: Default::default(),
            p_ll: Default::default(),
            p_lh: Default::default(),
            p_hl: Default::default(),
            p_hh: Default::default(),
            mid: Default::default(),
            prod_lo: Default::default(),
            prod_hi: Default::default(),
            sum: Default::default(),
            sa: Default::default(),
            sb: Default::default(),
            sh: Default::default(),
            shc: Default::default(),
            fill: Default::default(),
            field: Default::default(),
            width: Default::default(),
            ones: Constant::new(0xFFFF_FFFFu64.to_bits()),
            sign: Constant::new(0x8000_0000u64.to_bits()),
            low24: Constant::new(0x00FF_FFFFu64.to_bits()),
            high8: Constant::new(0xFF00_0000u64.to_bits()),
            bit16: Constant::new(0x0001_0000u64.to_bits()),
            zero5: Constant::new(0u64.to_bits()),
        }
    }
}

impl Logic for LaneAlu {
    #[hdl_gen]
    fn update(&mut self) {
        self.result.next = 0.into();
        self.result_hi.next = 0.into();
        self.flag.next = false;
        self.ma.next = self.a.val();
        self.mb.next = self.b.val();
        self.p_ll.next = 0.into();
        self.p_lh.next = 0.into();
        self.p_hl.next = 0.into();
        self.p_hh.next = 0.into();
        self.mid.next = 0.into();
        self.prod_lo.next = 0.into();
        self.prod_hi.next = 0.into();
        self.sum.next = self.a.val() + self.b.val();
        self.sa.next = self.a.val() ^ self.sign.val();
        self.sb.next = self.b.val() ^ self.sign.val();
        self.sh.next = bit_cast::<5, 32>(self.b.val());
        self.shc.next = self.zero5.val() - bit_cast::<5, 32>(self.b.val());
        self.fill.next = 0.into();
        self.field.next = 0.into();
        self.width.next = bit_cast::<5, 32>(self.c.val());

        // The 24-bit multiplies use the low 24 bits, zero- or sign-extended.
        if (self.op.val() == ValuOp::MulU24) | (self.op.val() == ValuOp::MadU24) {
            self.ma.next = self.a.val() & self.low24.val();
            self.mb.next = self.b.val() & self.low24.val();
        }
        if (self.op.val() == ValuOp::MulI24) | (self.op.val() == ValuOp::MadI24) {
            self.ma.next = self.a.val() & self.low24.val();
            if self.a.val().get_bit(23) {
                self.ma.next = self.a.val() | self.high8.val();
            }
            self.mb.next = self.b.val() & self.low24.val();
            if self.b.val().get_bit(23) {
                self.mb.next = self.b.val() | self.high8.val();
            }
        }
        // The full product, only for the multiplies (the partial products are the expensive
        // part of a lane in simulation).
        if (self.op.val() == ValuOp::MulLo)
            | (self.op.val() == ValuOp::MulHiU)
            | (self.op.val() == ValuOp::MulHiI)
            | (self.op.val() == ValuOp::MulU24)
            | (self.op.val() == ValuOp::MulI24)
            | (self.op.val() == ValuOp::MadU24)
            | (self.op.val() == ValuOp::MadI24)
        {
            self.p_ll.next = bit_cast::<16, 32>(self.ma.val()) * bit_cast::<16, 32>(self.mb.val());
            self.p_lh.next = bit_cast::<16, 32>(self.ma.val()) * self.mb.val().get_bits::<16>(16);
            self.p_hl.next = self.ma.val().get_bits::<16>(16) * bit_cast::<16, 32>(self.mb.val());
            self.p_hh.next = self.ma.val().get_bits::<16>(16) * self.mb.val().get_bits::<16>(16);
            self.mid.next = self.p_lh.val() + self.p_hl.val();
            self.prod_lo.next = self.p_ll.val() + (self.mid.val() << 16);
            self.prod_hi.next =
                self.p_hh.val() + (self.mid.val() >> 16) + (self.prod_lo.val() < self.p_ll.val());
            // The middle sum's own carry is worth 2^48: bit 16 of the high word.
            if self.mid.val() < self.p_lh.val() {
                self.prod_hi.next = self.p_hh.val()
                    + (self.mid.val() >> 16)
                    + (self.prod_lo.val() < self.p_ll.val())
                    + self.bit16.val();
            }
        }
        // Arithmetic shifts fill with the sign of the (high) word.
        if ((self.op.val() == ValuOp::Ashr) & self.a.val().get_bit(31))
            | ((self.op.val() == ValuOp::Ashr64) & self.a_hi.val().get_bit(31))
        {
            self.fill.next = self.ones.val();
        }
        if (self.op.val() == ValuOp::BfeU) | (self.op.val() == ValuOp::BfeI) {
            self.field.next =
                (self.a.val() >> self.sh.val()) & !(self.ones.val() << self.width.val());
        }

        match self.op.val() {
            ValuOp::Mov => self.result.next = self.a.val(),
            ValuOp::Not => self.result.next = !self.a.val(),
            ValuOp::Add => {
                self.result.next = self.sum.val();
                self.flag.next = self.sum.val() < self.a.val();
            }
            ValuOp::Addc => {
                // At most one of the two additions carries.
                self.result.next = self.sum.val() + self.m.val();
                self.flag.next = (self.sum.val() < self.a.val())
                    | (self.m.val() & (self.sum.val() == self.ones.val()));
            }
            ValuOp::Sub => {
                self.result.next = self.a.val() - self.b.val();
                self.flag.next = self.b.val() > self.a.val();
            }
            ValuOp::Subb => {
                self.result.next = self.a.val() - (self.b.val() + self.m.val());
                self.flag.next =
                    (self.b.val() > self.a.val()) | (self.m.val() & (self.b.val() == self.a.val()));
            }
            ValuOp::MulLo => self.result.next = self.prod_lo.val(),
            ValuOp::MulHiU => self.result.next = self.prod_hi.val(),
            ValuOp::MulHiI => {
                // Signed high word = unsigned high word - (a < 0 ? b : 0) - (b < 0 ? a : 0).
                self.result.next = self.prod_hi.val();
                if self.a.val().get_bit(31) & self.b.val().get_bit(31) {
                    self.result.next = self.prod_hi.val() - self.b.val() - self.a.val();
                } else if self.a.val().get_bit(31) {
                    self.result.next = self.prod_hi.val() - self.b.val();
                } else if self.b.val().get_bit(31) {
                    self.result.next = self.prod_hi.val() - self.a.val();
                }
            }
            ValuOp::MulU24 => self.result.next = self.prod_lo.val(),
            ValuOp::MulI24 => self.result.next = self.prod_lo.val(),
            ValuOp::MadU24 => self.result.next = self.prod_lo.val() + self.c.val(),
            ValuOp::MadI24 => self.result.next = self.prod_lo.val() + self.c.val(),
            ValuOp::And => self.result.next = self.a.val() & self.b.val(),
            ValuOp::Or => self.result.next = self.a.val() | self.b.val(),
            ValuOp::Xor => self.result.next = self.a.val() ^ self.b.val(),
            ValuOp::Shl => self.result.next = self.a.val() << self.sh.val(),
            ValuOp::Shr => self.result.next = self.a.val() >> self.sh.val(),
            ValuOp::Ashr => {
                self.result.next = (self.a.val() >> self.sh.val())
                    | (self.fill.val() & !(self.ones.val() >> self.sh.val()));
            }
            ValuOp::Shl64 => {
                if self.b.val().get_bit(5) {
                    self.result_hi.next = self.a.val() << self.sh.val();
                } else if self.sh.val().any() {
                    self.result.next = self.a.val() << self.sh.val();
                    self.result_hi.next =
                        (self.a_hi.val() << self.sh.val()) | (self.a.val() >> self.shc.val());
                } else {
                    self.result.next = self.a.val();
                    self.result_hi.next = self.a_hi.val();
                }
            }
            ValuOp::Shr64 => {
                if self.b.val().get_bit(5) {
                    self.result.next = self.a_hi.val() >> self.sh.val();
                } else if self.sh.val().any() {
                    self.result.next =
                        (self.a.val() >> self.sh.val()) | (self.a_hi.val() << self.shc.val());
                    self.result_hi.next = self.a_hi.val() >> self.sh.val();
                } else {
                    self.result.next = self.a.val();
                    self.result_hi.next = self.a_hi.val();
                }
            }
            ValuOp::Ashr64 => {
                if self.b.val().get_bit(5) {
                    self.result.next = (self.a_hi.val() >> self.sh.val())
                        | (self.fill.val() & !(self.ones.val() >> self.sh.val()));
                    self.result_hi.next = self.fill.val();
                } else if self.sh.val().any() {
                    self.result.next =
                        (self.a.val() >> self.sh.val()) | (self.a_hi.val() << self.shc.val());
                    self.result_hi.next = (self.a_hi.val() >> self.sh.val())
                        | (self.fill.val() & !(self.ones.val() >> self.sh.val()));
                } else {
                    self.result.next = self.a.val();
                    self.result_hi.next = self.a_hi.val();
                }
            }
            ValuOp::MinI => {
                self.result.next = self.b.val();
                if self.sa.val() < self.sb.val() {
                    self.result.next = self.a.val();
                }
            }
            ValuOp::MaxI => {
                self.result.next = self.b.val();
                if self.sa.val() > self.sb.val() {
                    self.result.next = self.a.val();
                }
            }
            ValuOp::MinU => {
                self.result.next = self.b.val();
                if self.a.val() < self.b.val() {
                    self.result.next = self.a.val();
                }
            }
            ValuOp::MaxU => {
                self.result.next = self.b.val();
                if self.a.val() > self.b.val() {
                    self.result.next = self.a.val();
                }
            }
            ValuOp::BfeU => self.result.next = self.field.val(),
            ValuOp::BfeI => {
                self.result.next = self.field.val();
                if self.width.val().any() & self.field.val().get_bit((self.width.val() - 1).index())
                {
                    self.result.next = self.field.val() | (self.ones.val() << self.width.val());
                }
            }
            ValuOp::Cndmask => {
                self.result.next = self.a.val();
                if self.m.val() {
                    self.result.next = self.b.val();
                }
            }
            ValuOp::CmpEq => self.flag.next = self.a.val() == self.b.val(),
            ValuOp::CmpNe => self.flag.next = self.a.val() != self.b.val(),
            ValuOp::CmpLtU => self.flag.next = self.a.val() < self.b.val(),
            ValuOp::CmpLeU => self.flag.next = self.a.val() <= self.b.val(),
            ValuOp::CmpGtU => self.flag.next = self.a.val() > self.b.val(),
            ValuOp::CmpGeU => self.flag.next = self.a.val() >= self.b.val(),
            ValuOp::CmpLtI => self.flag.next = self.sa.val() < self.sb.val(),
            ValuOp::CmpLeI => self.flag.next = self.sa.val() <= self.sb.val(),
            ValuOp::CmpGtI => self.flag.next = self.sa.val() > self.sb.val(),
            ValuOp::CmpGeI => self.flag.next = self.sa.val() >= self.sb.val(),
        }
    }
}
