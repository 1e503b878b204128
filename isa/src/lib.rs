//! GCN3 (gfx803) instruction subset plus PWS's `split` and `merge`: the instruction model,
//! binary encodings (byte-identical to `llvm-mc -arch=amdgcn -mcpu=fiji`), assembler,
//! disassembler and the launch manifest.

pub mod testing;
