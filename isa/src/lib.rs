//! GCN3 (gfx803) instruction subset plus PWS's `split` and `merge`: the instruction model,
//! binary encodings (byte-identical to `llvm-mc -arch=amdgcn -mcpu=fiji`), assembler,
//! disassembler and the launch manifest.
//!
//! - [`Instruction`], [`Operand`], [`Opcode`] (with its table [`OPCODES`]): the model.
//! - [`assemble`]: text -> [`Program`]; [`encode`] / [`decode`]: instruction <-> words.
//! - `Display` for [`Instruction`] and [`Program::listing`]: llvm-mc syntax.
//! - [`manifest`]: launches; [`opencl`]: OpenCL C kernels compiled by clang-14 for them;
//!   [`metadata`]: the argument layout clang records with a kernel, which [`kernarg`] follows
//!   to place a launch's arguments.
//! - [`input`]: the bounded reader every command reads its files through; [`output`]: atomic
//!   writes that never replace an input; [`diag`]: how messages show values and positions.
//! - [`manifest::Manifest`] (a launch) and [`abi::LaunchAbi`] (a kernel's initial registers
//!   and read-only segments, from its kernel descriptor).

pub mod abi;
pub mod asm;
pub mod base_types;
pub mod check;
pub mod decode;
pub mod diag;
pub mod elem;
pub mod encode;
pub mod error;
pub mod input;
pub mod inst;
pub mod kernarg;
pub mod lines;
pub mod manifest;
pub mod metadata;
pub mod opcode;
pub mod opencl;
pub mod output;
pub mod print;
pub mod program;
pub mod sequence;
pub mod skeleton;
pub mod subset;
pub mod testing;

pub use asm::{assemble, assemble_lines};
pub use check::check;
pub use decode::{decode, decode_one};
pub use encode::encode;
pub use error::{AsmError, DecodeError, ErrorKind, OperandError, Slot};
pub use inst::{
    DstUnused, InlineFloat, Instruction, Modifiers, Omod, Operand, Sdwa, SdwaSel, LITERAL_CODE,
    NUM_SGPRS, NUM_TTMPS, NUM_VGPRS, SDWA_CODE,
};
pub use opcode::{
    Format, ImmKind, OpInfo, Opcode, Signature, Width, MOD_CLAMP, MOD_INPUT, MOD_OMOD, OPCODES,
};
pub use program::{Located, Program, Rodata};
