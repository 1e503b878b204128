//! Error types of the assembler, the encoder/operand checker and the decoder.

use std::fmt;

/// What went wrong, for callers and tests that branch on the error class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// Malformed text (unexpected token, missing comma, bad number syntax).
    Syntax,
    /// A mnemonic that is no GCN3 instruction.
    UnknownMnemonic,
    /// A GCN3 instruction (or directive) outside the pws subset.
    Unsupported,
    /// An operand of the wrong kind or width, or a misaligned register range.
    BadOperand,
    /// A register number past the end of its file (s0..s101, v0..v255, ttmp0..ttmp11).
    RegisterOutOfRange,
    /// An immediate that does not fit its field.
    ImmediateOutOfRange,
    /// More than one literal dword, or a literal where the encoding has none (VOP3 on gfx8).
    Literal,
    /// More than one scalar value read by a VALU instruction through the constant bus.
    ConstantBus,
    /// A modifier the instruction does not accept.
    Modifier,
    /// A branch to a label that is never defined.
    UndefinedLabel,
    /// A label defined twice.
    DuplicateLabel,
}

/// Where in an instruction an operand error lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Slot {
    /// The mnemonic / the instruction as a whole.
    Instruction,
    Dst,
    Sdst,
    Src(usize),
    /// The immediate operand (SOPK/SOPP value, branch target, SMEM offset).
    Imm,
    /// The trailing modifiers (`glc`, `clamp`, `mul:2`, ...).
    Modifiers,
}

/// An instruction that breaks an operand rule; the assembler turns it into an [`AsmError`] at
/// the operand's column, the encoder reports it as is.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct OperandError {
    pub slot: Slot,
    pub kind: ErrorKind,
    pub message: String,
}

impl OperandError {
    pub(crate) fn new(slot: Slot, kind: ErrorKind, message: impl Into<String>) -> OperandError {
        OperandError {
            slot,
            kind,
            message: message.into(),
        }
    }
}

/// An assembly error with its source position (1-based line and column). It displays as
/// `file:line:column: message`, the one form of every positioned error of pws.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmError {
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub kind: ErrorKind,
    pub message: String,
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            crate::diag::escape(&self.file),
            self.line,
            self.column,
            self.message
        )
    }
}

impl std::error::Error for AsmError {}

/// A word sequence that is not a valid instruction of the subset.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot decode word 0x{word:08x} at byte offset 0x{offset:x}: {message}")]
pub struct DecodeError {
    /// Byte offset of the instruction's first word.
    pub offset: u32,
    /// The instruction's first word.
    pub word: u32,
    pub message: String,
}
