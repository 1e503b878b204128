//! `v_perm_b32` in one lane: each result byte picks a byte of the pair {a, b} (b the low
//! dword), a sign fill, zero or 0xFF by its selector byte of c (GCN3 manual, VOP3
//! `V_PERM_B32`). clang emits it to shuffle bytes, for `uchar` data and merged byte loads.

use rust_hdl::prelude::*;

/// One result byte: selector 0..7 picks byte 0..3 of b or 4..7 of a; 8..11 fill with the top
/// bit of byte 1 or 3 of b, or of byte 1 or 3 of a; 12 gives 0x00 and 13.. 0xFF.
#[derive(LogicBlock, Default)]
pub struct ByteSelect {
    pub a: Signal<In, Bits<32>>,
    pub b: Signal<In, Bits<32>>,
    pub sel: Signal<In, Bits<8>>,
    pub y: Signal<Out, Bits<8>>,
}

impl Logic for ByteSelect {
    #[hdl_gen]
    fn update(&mut self) {
        self.y.next = 0xFF.into();
        match self.sel.val().index() {
            0 => self.y.next = self.b.val().get_bits::<8>(0),
            1 => self.y.next = self.b.val().get_bits::<8>(8),
            2 => self.y.next = self.b.val().get_bits::<8>(16),
            3 => self.y.next = self.b.val().get_bits::<8>(24),
            4 => self.y.next = self.a.val().get_bits::<8>(0),
            5 => self.y.next = self.a.val().get_bits::<8>(8),
            6 => self.y.next = self.a.val().get_bits::<8>(16),
            7 => self.y.next = self.a.val().get_bits::<8>(24),
            8 => {
                if !self.b.val().get_bit(15) {
                    self.y.next = 0.into();
                }
            }
            9 => {
                if !self.b.val().get_bit(31) {
                    self.y.next = 0.into();
                }
            }
            10 => {
                if !self.a.val().get_bit(15) {
                    self.y.next = 0.into();
                }
            }
            11 => {
                if !self.a.val().get_bit(31) {
                    self.y.next = 0.into();
                }
            }
            12 => self.y.next = 0.into(),
            _ => {}
        }
    }
}

/// The four bytes of `v_perm_b32 d, a, b, c`, byte j by byte j of c.
#[derive(LogicBlock)]
pub struct BytePermute {
    pub a: Signal<In, Bits<32>>,
    pub b: Signal<In, Bits<32>>,
    pub c: Signal<In, Bits<32>>,
    pub y: Signal<Out, Bits<32>>,
    pub bytes: Vec<ByteSelect>,
}

impl Default for BytePermute {
    fn default() -> Self {
        BytePermute {
            a: Default::default(),
            b: Default::default(),
            c: Default::default(),
            y: Default::default(),
            bytes: (0..4).map(|_| ByteSelect::default()).collect(),
        }
    }
}

impl Logic for BytePermute {
    #[hdl_gen]
    fn update(&mut self) {
        for j in 0..4 {
            self.bytes[j].a.next = self.a.val();
            self.bytes[j].b.next = self.b.val();
        }
        self.bytes[0].sel.next = self.c.val().get_bits::<8>(0);
        self.bytes[1].sel.next = self.c.val().get_bits::<8>(8);
        self.bytes[2].sel.next = self.c.val().get_bits::<8>(16);
        self.bytes[3].sel.next = self.c.val().get_bits::<8>(24);
        self.y.next = bit_cast::<32, 8>(self.bytes[0].y.val())
            | (bit_cast::<32, 8>(self.bytes[1].y.val()) << 8)
            | (bit_cast::<32, 8>(self.bytes[2].y.val()) << 16)
            | (bit_cast::<32, 8>(self.bytes[3].y.val()) << 24);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::settle;

    fn perm(a: u32, b: u32, c: u32) -> u32 {
        let mut p = BytePermute::default();
        p.connect_all();
        p.a.next = u64::from(a).to_bits();
        p.b.next = u64::from(b).to_bits();
        p.c.next = u64::from(c).to_bits();
        settle(&mut p);
        p.y.val().to_u64() as u32
    }

    /// Values worked by hand from the manual's byte_permute table.
    #[test]
    fn selects_fills_and_constants() {
        let (a, b) = (0x8877_6655, 0x4433_2211);
        assert_eq!(perm(a, b, 0x0001_0203), 0x1122_3344);
        assert_eq!(perm(a, b, 0x0407_0506), 0x5588_6677);
        // 8: b's byte 1 top bit (0x22: 0), 10: a's byte 1 (0x66: 0), 11: a's byte 3 (0x88: 1).
        assert_eq!(perm(a, b, 0x0C0B_0A08), 0x00FF_0000);
        assert_eq!(perm(a, 0x8000_8000, 0x0908_0D0E), 0xFFFF_FFFF);
    }
}
