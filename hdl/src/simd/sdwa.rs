//! SDWA (sub-dword addressing, GCN3 manual "SDWA") in one ALU lane: the byte or word
//! selects of the two sources before the lane's ALU and the destination merge after it.
//!
//! The decoder packs an SDWA instruction's fields into one control word ([`sdwa_word`], in
//! ALU operand order: the `*rev` swap already applied) and the vector unit hands it to every
//! lane with the op. A word without [`SDWA_ON`] leaves operands and result untouched, so the
//! other instructions pass through. UNUSED_PRESERVE merges into the destination's old value,
//! which the decoder makes source 2 of an SDWA VOP1/VOP2 (as `v_mac_f32` reads its
//! accumulator): it arrives on the lane's `old` input.

use rust_hdl::prelude::*;

/// Width of the control word.
pub const SDWA_BITS: usize = 14;
/// Bit 0: the op is SDWA.
pub const SDWA_ON: u64 = 1;
/// Bits 3:1 DST_SEL, 5:4 DST_UNUSED, 8:6 the select of ALU operand a and 9 its sign
/// extension, 12:10 and 13 those of operand b. The selects use the ISA's encoding
/// (`pws_isa::SdwaSel::bits`, `pws_isa::DstUnused::bits`), and select 7 (reserved there) takes
/// the low 4 bits. The decoder also makes the 16-bit integer ops SDWA ops: halves in,
/// a zero-extended half out.
pub const SDWA_DST_SEL: usize = 1;
pub const SDWA_DST_UNUSED: usize = 4;
pub const SDWA_A: usize = 6;
pub const SDWA_B: usize = 10;

/// The control word of an SDWA op from its fields in ALU operand order (`sel_*` 3 bits,
/// `unused` 2 bits).
pub fn sdwa_word(dst_sel: u32, unused: u32, a: (u32, bool), b: (u32, bool)) -> u64 {
    let src = |(sel, sext): (u32, bool)| u64::from(sel & 7) | u64::from(sext) << 3;
    SDWA_ON
        | u64::from(dst_sel & 7) << SDWA_DST_SEL
        | u64::from(unused & 3) << SDWA_DST_UNUSED
        | src(a) << SDWA_A
        | src(b) << SDWA_B
}

/// One source select: the byte (0..3) or word (4, 5) `sel` names of `x`, at bit 0 and zero-
/// or (`sext`) sign-extended; DWORD (6) passes `x`. Select 7, reserved in the encoding, is the
/// decoder's for the amount of a 16-bit shift: the low 4 bits of `x`.
#[derive(LogicBlock, Default)]
pub struct SdwaSelect {
    pub x: Signal<In, Bits<32>>,
    pub sel: Signal<In, Bits<3>>,
    pub sext: Signal<In, Bit>,
    pub y: Signal<Out, Bits<32>>,
    /// The field's top bit and the bits above the field.
    sign: Signal<Local, Bit>,
    fill: Signal<Local, Bits<32>>,
}

impl Logic for SdwaSelect {
    #[hdl_gen]
    fn update(&mut self) {
        self.y.next = self.x.val();
        self.sign.next = false;
        self.fill.next = 0.into();
        match self.sel.val().index() {
            0 => {
                self.y.next = bit_cast::<32, 8>(self.x.val().get_bits::<8>(0));
                self.sign.next = self.x.val().get_bit(7);
                self.fill.next = 0xFFFF_FF00_u64.into();
            }
            1 => {
                self.y.next = bit_cast::<32, 8>(self.x.val().get_bits::<8>(8));
                self.sign.next = self.x.val().get_bit(15);
                self.fill.next = 0xFFFF_FF00_u64.into();
            }
            2 => {
                self.y.next = bit_cast::<32, 8>(self.x.val().get_bits::<8>(16));
                self.sign.next = self.x.val().get_bit(23);
                self.fill.next = 0xFFFF_FF00_u64.into();
            }
            3 => {
                self.y.next = bit_cast::<32, 8>(self.x.val().get_bits::<8>(24));
                self.sign.next = self.x.val().get_bit(31);
                self.fill.next = 0xFFFF_FF00_u64.into();
            }
            4 => {
                self.y.next = bit_cast::<32, 16>(self.x.val().get_bits::<16>(0));
                self.sign.next = self.x.val().get_bit(15);
                self.fill.next = 0xFFFF_0000_u64.into();
            }
            5 => {
                self.y.next = bit_cast::<32, 16>(self.x.val().get_bits::<16>(16));
                self.sign.next = self.x.val().get_bit(31);
                self.fill.next = 0xFFFF_0000_u64.into();
            }
            7 => self.y.next = bit_cast::<32, 4>(self.x.val().get_bits::<4>(0)),
            _ => {}
        }
        if self.sext.val() & self.sign.val() {
            self.y.next = self.y.val() | self.fill.val();
        }
    }
}

/// The SDWA stage of one lane: `a_o`, `b_o` are the ALU operands, `d_o` the value written
/// to the destination from the ALU's `result` and the destination's `old` value.
#[derive(LogicBlock, Default)]
pub struct LaneSdwa {
    pub ctrl: Signal<In, Bits<SDWA_BITS>>,
    pub a: Signal<In, Bits<32>>,
    pub b: Signal<In, Bits<32>>,
    pub old: Signal<In, Bits<32>>,
    pub result: Signal<In, Bits<32>>,
    pub a_o: Signal<Out, Bits<32>>,
    pub b_o: Signal<Out, Bits<32>>,
    pub d_o: Signal<Out, Bits<32>>,
    pub sel_a: SdwaSelect,
    pub sel_b: SdwaSelect,
    /// The result's low byte or word placed at DST_SEL, the destination bits it covers,
    /// the bits above it, and the field's top bit.
    field: Signal<Local, Bits<32>>,
    covered: Signal<Local, Bits<32>>,
    above: Signal<Local, Bits<32>>,
    sign: Signal<Local, Bit>,
}

impl Logic for LaneSdwa {
    #[hdl_gen]
    fn update(&mut self) {
        self.sel_a.x.next = self.a.val();
        self.sel_a.sel.next = self.ctrl.val().get_bits::<3>(6);
        self.sel_a.sext.next = self.ctrl.val().get_bit(9);
        self.sel_b.x.next = self.b.val();
        self.sel_b.sel.next = self.ctrl.val().get_bits::<3>(10);
        self.sel_b.sext.next = self.ctrl.val().get_bit(13);
        self.a_o.next = self.a.val();
        self.b_o.next = self.b.val();
        self.d_o.next = self.result.val();
        self.field.next = self.result.val();
        self.covered.next = 0xFFFF_FFFF_u64.into();
        self.above.next = 0.into();
        self.sign.next = false;
        if self.ctrl.val().get_bit(0) {
            self.a_o.next = self.sel_a.y.val();
            self.b_o.next = self.sel_b.y.val();
            match self.ctrl.val().get_bits::<3>(1).index() {
                0 => {
                    self.field.next = bit_cast::<32, 8>(self.result.val().get_bits::<8>(0));
                    self.covered.next = 0x0000_00FF_u64.into();
                    self.above.next = 0xFFFF_FF00_u64.into();
                    self.sign.next = self.result.val().get_bit(7);
                }
                1 => {
                    self.field.next = bit_cast::<32, 8>(self.result.val().get_bits::<8>(0)) << 8;
                    self.covered.next = 0x0000_FF00_u64.into();
                    self.above.next = 0xFFFF_0000_u64.into();
                    self.sign.next = self.result.val().get_bit(7);
                }
                2 => {
                    self.field.next = bit_cast::<32, 8>(self.result.val().get_bits::<8>(0)) << 16;
                    self.covered.next = 0x00FF_0000_u64.into();
                    self.above.next = 0xFF00_0000_u64.into();
                    self.sign.next = self.result.val().get_bit(7);
                }
                3 => {
                    self.field.next = bit_cast::<32, 8>(self.result.val().get_bits::<8>(0)) << 24;
                    self.covered.next = 0xFF00_0000_u64.into();
                    self.sign.next = self.result.val().get_bit(7);
                }
                4 => {
                    self.field.next = bit_cast::<32, 16>(self.result.val().get_bits::<16>(0));
                    self.covered.next = 0x0000_FFFF_u64.into();
                    self.above.next = 0xFFFF_0000_u64.into();
                    self.sign.next = self.result.val().get_bit(15);
                }
                5 => {
                    self.field.next = bit_cast::<32, 16>(self.result.val().get_bits::<16>(0)) << 16;
                    self.covered.next = 0xFFFF_0000_u64.into();
                    self.sign.next = self.result.val().get_bit(15);
                }
                _ => {}
            }
            match self.ctrl.val().get_bits::<2>(4).index() {
                0 => self.d_o.next = self.field.val(),
                1 => {
                    self.d_o.next = self.field.val();
                    if self.sign.val() {
                        self.d_o.next = self.field.val() | self.above.val();
                    }
                }
                _ => self.d_o.next = (self.old.val() & !self.covered.val()) | self.field.val(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::settle;

    fn run(ctrl: u64, a: u32, b: u32, old: u32, result: u32) -> (u32, u32, u32) {
        let mut s = LaneSdwa::default();
        s.connect_all();
        s.ctrl.next = ctrl.to_bits();
        s.a.next = (a as u64).to_bits();
        s.b.next = (b as u64).to_bits();
        s.old.next = (old as u64).to_bits();
        s.result.next = (result as u64).to_bits();
        settle(&mut s);
        let v = |x: Bits<32>| x.to_u64() as u32;
        (v(s.a_o.val()), v(s.b_o.val()), v(s.d_o.val()))
    }

    /// Values worked by hand: selects of a and b, and each DST_UNUSED at a byte and a word.
    #[test]
    fn selects_and_merges() {
        let (a, b, old) = (0x89AB_CDEF, 0x0123_4567, 0x1122_3344);
        assert_eq!(run(0, a, b, old, 0x80F0), (a, b, 0x80F0));
        let w = sdwa_word(6, 2, (1, false), (5, true));
        assert_eq!(run(w, a, b, old, 0x80F0), (0xCD, 0x0123, 0x80F0));
        let w = sdwa_word(1, 0, (3, true), (6, false));
        assert_eq!(run(w, a, b, old, 0x80F0), (0xFFFF_FF89, b, 0xF000));
        let w = sdwa_word(1, 1, (4, true), (0, true));
        assert_eq!(run(w, a, b, old, 0x80F0), (0xFFFF_CDEF, 0x67, 0xFFFF_F000));
        let w = sdwa_word(1, 2, (6, false), (6, false));
        assert_eq!(run(w, a, b, old, 0x80F0).2, 0x1122_F044);
        let w = sdwa_word(5, 2, (6, false), (6, false));
        assert_eq!(run(w, a, b, old, 0x80F0).2, 0x80F0_3344);
        let w = sdwa_word(4, 1, (6, false), (6, false));
        assert_eq!(run(w, a, b, old, 0x80F0).2, 0xFFFF_80F0);
        let w = sdwa_word(3, 1, (6, false), (6, false));
        assert_eq!(run(w, a, b, old, 0x80F0).2, 0xF000_0000);
        // Select 7: a 16-bit shift's amount.
        let w = sdwa_word(4, 0, (4, true), (7, false));
        assert_eq!(run(w, a, b, old, 0x1_80F0), (0xFFFF_CDEF, 0x7, 0x80F0));
    }
}
