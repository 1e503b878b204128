//! The compute unit's instruction memory: the program image, loaded through a port before the
//! run, read 64 bits per fetch so a 32-bit literal arrives with its instruction.
//!
//! Each issue unit has its own fetch port, and each port its own copy of the image (an
//! instruction buffer per front end), so fetches never wait for each other: the fetch stage
//! has a fixed one-cycle latency whatever the other issue units do, which the timing contract
//! relies on. A copy is two RAMs of 32-bit words, the even and the odd word addresses, so the
//! word at the PC and the one after it are read in the same cycle whatever the PC's parity.

use rust_hdl::prelude::*;

/// Width of a word address into the instruction memory.
pub const IMEM_ADDR_BITS: usize = 14;
/// Width of a bank (even or odd words) address.
const BANK_ADDR_BITS: usize = IMEM_ADDR_BITS - 1;

/// Instruction memory with `ports` fetch ports (see the module documentation).
#[derive(LogicBlock)]
pub struct InstructionMemory {
    pub clock: Signal<In, Clock>,
    /// Load port: word `load_addr_i` of every copy becomes `load_data_i` at the edge.
    pub load_we_i: Signal<In, Bit>,
    pub load_addr_i: Signal<In, Bits<IMEM_ADDR_BITS>>,
    pub load_data_i: Signal<In, Bits<32>>,
    /// Byte address fetched by port p; the words are on `word0_o[p]`, `word1_o[p]` after the
    /// next edge.
    pub fetch_pc_i: Vec<Signal<In, Bits<32>>>,
    pub word0_o: Vec<Signal<Out, Bits<32>>>,
    pub word1_o: Vec<Signal<Out, Bits<32>>>,
    pub even: Vec<RAM<Bits<32>, BANK_ADDR_BITS>>,
    pub odd: Vec<RAM<Bits<32>, BANK_ADDR_BITS>>,
    odd_pc: Vec<DFF<Bit>>,
    row: Vec<Signal<Local, Bits<BANK_ADDR_BITS>>>,
}

impl InstructionMemory {
    /// An instruction memory with one fetch port (and copy) per issue unit.
    pub fn new(ports: usize) -> Self {
        fn many<T: Default>(n: usize) -> Vec<T> {
            (0..n).map(|_| T::default()).collect()
        }
        InstructionMemory {
            clock: Default::default(),
            load_we_i: Default::default(),
            load_addr_i: Default::default(),
            load_data_i: Default::default(),
            fetch_pc_i: many(ports),
            word0_o: many(ports),
            word1_o: many(ports),
            even: many(ports),
            odd: many(ports),
            odd_pc: many(ports),
            row: many(ports),
        }
    }
}

impl Logic for InstructionMemory {
    #[hdl_gen]
    fn update(&mut self) {
        for p in 0..self.even.len() {
            self.odd_pc[p].clock.next = self.clock.val();
            self.odd_pc[p].d.next = self.fetch_pc_i[p].val().get_bit(2);
            self.row[p].next = self.fetch_pc_i[p].val().get_bits::<BANK_ADDR_BITS>(3);
            self.even[p].read_clock.next = self.clock.val();
            self.even[p].write_clock.next = self.clock.val();
            self.odd[p].read_clock.next = self.clock.val();
            self.odd[p].write_clock.next = self.clock.val();
            // An odd PC's next word is the even word of the following row.
            self.even[p].read_address.next = self.row[p].val();
            if self.fetch_pc_i[p].val().get_bit(2) {
                self.even[p].read_address.next = self.row[p].val() + 1;
            }
            self.odd[p].read_address.next = self.row[p].val();
            self.even[p].write_address.next = self.load_addr_i.val().get_bits::<BANK_ADDR_BITS>(1);
            self.odd[p].write_address.next = self.load_addr_i.val().get_bits::<BANK_ADDR_BITS>(1);
            self.even[p].write_data.next = self.load_data_i.val();
            self.odd[p].write_data.next = self.load_data_i.val();
            self.even[p].write_enable.next =
                self.load_we_i.val() & !self.load_addr_i.val().get_bit(0);
            self.odd[p].write_enable.next =
                self.load_we_i.val() & self.load_addr_i.val().get_bit(0);
            self.word0_o[p].next = self.even[p].read_data.val();
            self.word1_o[p].next = self.odd[p].read_data.val();
            if self.odd_pc[p].q.val() {
                self.word0_o[p].next = self.odd[p].read_data.val();
                self.word1_o[p].next = self.even[p].read_data.val();
            }
        }
    }
}
