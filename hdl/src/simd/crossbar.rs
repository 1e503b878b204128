//! One lane group's slice of a (Sp)SIMD's operand crossbar and of its inverse (S1 Fig. 5(c)).
//!
//! Under SCC an ALU position p may execute any lane of any group: the group's 16 banks feed a
//! 16-input crossbar whose outputs are enabled per position, and the enabled outputs of the
//! four groups share one 16-wide bus (the vector unit ORs them: a position takes its lane from
//! at most one group). Write-back applies the inverse permutation: the lane a position executed
//! receives that position's result. One [`GroupCrossbar`] is that pair of crossbars for one
//! (Sp)SIMD and one lane group, so the per-lane muxes are one small module instantiated
//! S + 1 times per group rather than loops unrolled into the vector unit.
//!
//! A pass without a swizzle (every pass of mode `None` and BCC) bypasses the crossbars: the
//! vector unit connects position p to lane p of the pass's group itself.

use rust_hdl::prelude::*;

/// ALU positions, and lanes of a group.
const LANES: usize = 16;

/// The read and write crossbars between one lane group's banks and the 16 ALU positions.
#[derive(LogicBlock)]
pub struct GroupCrossbar {
    /// Bit p: position p executes a lane of this group in this pass.
    pub take_i: Signal<In, Bits<16>>,
    /// The lane position p executes.
    pub lane_i: Vec<Signal<In, Bits<4>>>,
    /// The group's banks' four read ports, by lane.
    pub rd0_i: Vec<Signal<In, Bits<32>>>,
    pub rd1_i: Vec<Signal<In, Bits<32>>>,
    pub rd2_i: Vec<Signal<In, Bits<32>>>,
    pub rd3_i: Vec<Signal<In, Bits<32>>>,
    /// The op's mask input of the group's lanes (carry-in, cndmask select).
    pub mask_i: Signal<In, Bits<16>>,
    /// By position: the read ports of the lane it executes, 0 when it takes no lane here.
    pub rd0_o: Vec<Signal<Out, Bits<32>>>,
    pub rd1_o: Vec<Signal<Out, Bits<32>>>,
    pub rd2_o: Vec<Signal<Out, Bits<32>>>,
    pub rd3_o: Vec<Signal<Out, Bits<32>>>,
    /// Bit p: the mask input of the lane position p executes.
    pub mask_o: Signal<Out, Bits<16>>,
    /// By position: its result words and its flag (compare outcome, carry-out).
    pub wd_i: Vec<Signal<In, Bits<32>>>,
    pub wd_hi_i: Vec<Signal<In, Bits<32>>>,
    pub flag_i: Signal<In, Bits<16>>,
    /// Bit m: lane m of the group executed in this pass; its result words and flag.
    pub we_o: Signal<Out, Bits<16>>,
    pub wd_o: Vec<Signal<Out, Bits<32>>>,
    pub wd_hi_o: Vec<Signal<Out, Bits<32>>>,
    pub flag_o: Signal<Out, Bits<16>>,
}

impl Default for GroupCrossbar {
    fn default() -> Self {
        fn many<T: Default>() -> Vec<T> {
            (0..LANES).map(|_| T::default()).collect()
        }
        GroupCrossbar {
            take_i: Default::default(),
            lane_i: many(),
            rd0_i: many(),
            rd1_i: many(),
            rd2_i: many(),
            rd3_i: many(),
            mask_i: Default::default(),
            rd0_o: many(),
            rd1_o: many(),
            rd2_o: many(),
            rd3_o: many(),
            mask_o: Default::default(),
            wd_i: many(),
            wd_hi_i: many(),
            flag_i: Default::default(),
            we_o: Default::default(),
            wd_o: many(),
            wd_hi_o: many(),
            flag_o: Default::default(),
        }
    }
}

impl Logic for GroupCrossbar {
    #[hdl_gen]
    fn update(&mut self) {
        self.mask_o.next = 0.into();
        self.we_o.next = 0.into();
        self.flag_o.next = 0.into();
        for p in 0..16 {
            self.rd0_o[p].next = 0.into();
            self.rd1_o[p].next = 0.into();
            self.rd2_o[p].next = 0.into();
            self.rd3_o[p].next = 0.into();
            self.wd_o[p].next = 0.into();
            self.wd_hi_o[p].next = 0.into();
        }
        for p in 0..16 {
            if self.take_i.val().get_bit(p) {
                for m in 0..16 {
                    if self.lane_i[p].val().index() == m {
                        self.rd0_o[p].next = self.rd0_i[m].val();
                        self.rd1_o[p].next = self.rd1_i[m].val();
                        self.rd2_o[p].next = self.rd2_i[m].val();
                        self.rd3_o[p].next = self.rd3_i[m].val();
                        self.mask_o.next = self
                            .mask_o
                            .val()
                            .replace_bit(p, self.mask_i.val().get_bit(m));
                        self.we_o.next = self.we_o.val().replace_bit(m, true);
                        self.wd_o[m].next = self.wd_i[p].val();
                        self.wd_hi_o[m].next = self.wd_hi_i[p].val();
                        self.flag_o.next = self
                            .flag_o
                            .val()
                            .replace_bit(m, self.flag_i.val().get_bit(p));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::settle;

    fn bits<const N: usize>(v: u64) -> Bits<N> {
        v.to_bits()
    }

    #[test]
    fn a_swizzled_pass_routes_lanes_to_positions_and_results_back() {
        let mut x = GroupCrossbar::default();
        x.connect_all();
        for m in 0..LANES {
            x.rd0_i[m].next = bits(100 + m as u64);
            x.rd3_i[m].next = bits(300 + m as u64);
        }
        // Positions 0 and 5 execute lanes 9 and 2; position 7 takes its lane elsewhere.
        x.take_i.next = bits(0b10_0001);
        x.lane_i[0].next = bits(9);
        x.lane_i[5].next = bits(2);
        x.lane_i[7].next = bits(4);
        x.mask_i.next = bits(1 << 9);
        for p in 0..LANES {
            x.wd_i[p].next = bits(1000 + p as u64);
            x.wd_hi_i[p].next = bits(2000 + p as u64);
        }
        x.flag_i.next = bits(0b1000_0001);
        settle(&mut x);
        assert_eq!(x.rd0_o[0].val(), bits::<32>(109));
        assert_eq!(x.rd3_o[5].val(), bits::<32>(302));
        assert_eq!(x.rd0_o[7].val(), bits::<32>(0));
        assert_eq!(x.mask_o.val(), bits::<16>(1));
        assert_eq!(x.we_o.val(), bits::<16>((1 << 9) | (1 << 2)));
        assert_eq!(x.wd_o[9].val(), bits::<32>(1000));
        assert_eq!(x.wd_hi_o[2].val(), bits::<32>(2005));
        assert_eq!(x.flag_o.val(), bits::<16>(1 << 9));
        assert_eq!(x.wd_o[4].val(), bits::<32>(0));
    }
}
