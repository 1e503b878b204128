//! An assembled (or decoded) program: instructions with their byte addresses, encodings and
//! source lines, the label table, the little-endian image and a disassembly listing.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::abi::KernelDescriptor;
use crate::decode::decode_one;
use crate::error::DecodeError;
use crate::inst::{Instruction, Operand};
use crate::opcode::Opcode;

/// An item placed in the program image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located<T> {
    /// Byte address of the first word.
    pub pc: u32,
    /// The encoded dwords (instruction, then its literal if any).
    pub words: Vec<u32>,
    /// 1-based source line; 0 for instructions decoded from a binary.
    pub line: u32,
    pub item: T,
}

/// A program image with its instructions and labels.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Program {
    /// Instructions in address order; they tile the image without gaps.
    pub instructions: Vec<Located<Instruction>>,
    /// Label name -> byte address.
    pub labels: BTreeMap<String, u32>,
    /// The kernel descriptor (`.amdhsa_kernel` block) of the kernel that starts at address 0,
    /// which decides its launch ABI; None for a kernel without one (and a decoded image).
    pub descriptor: Option<KernelDescriptor>,
    /// The read-only data the code addresses PC-relative (`.rodata`: program-scope
    /// `__constant` tables); empty for most programs.
    pub rodata: Rodata,
}

/// A program's read-only data segment. The code object is the code followed by this segment
/// at [`Rodata::offset`]; the loader places it at `layout::CODE_BASE` (docs/manifest.md), so
/// that `s_getpc_b64` plus a `sym@rel32` offset lands on the symbol.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rodata {
    /// Byte offset of the segment from the first instruction: the code's size rounded up to
    /// [`Rodata::ALIGN`].
    pub offset: u32,
    /// The segment's contents.
    pub bytes: Vec<u8>,
    /// Symbol -> byte offset inside the segment.
    pub symbols: BTreeMap<String, u32>,
}

impl Rodata {
    /// Alignment of the segment after the code (clang aligns `.rodata` objects to at most 64).
    pub const ALIGN: u32 = 256;

    /// The segment as little-endian dwords, the last one zero-padded.
    pub fn words(&self) -> Vec<u32> {
        self.bytes
            .chunks(4)
            .map(|c| {
                let mut w = [0u8; 4];
                w[..c.len()].copy_from_slice(c);
                u32::from_le_bytes(w)
            })
            .collect()
    }
}

impl Program {
    /// Scalar registers the program names: one past the highest SGPR any instruction reads or
    /// writes (0 when it names none). A split copies this many SGPRs into the new context.
    pub fn sgprs_used(&self) -> u32 {
        self.instructions
            .iter()
            .flat_map(|l| l.item.operands())
            .filter_map(|(op, width)| match op {
                Operand::Sgpr(n) => Some(u32::from(n) + u32::from(width.dwords())),
                _ => None,
            })
            .max()
            .unwrap_or(0)
    }

    /// The image as dwords.
    pub fn words(&self) -> Vec<u32> {
        self.instructions
            .iter()
            .flat_map(|l| l.words.iter().copied())
            .collect()
    }

    /// The image as bytes, little-endian (the order llvm-mc lists encodings in).
    pub fn bytes(&self) -> Vec<u8> {
        self.words().iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// Image size in bytes.
    pub fn size_bytes(&self) -> u32 {
        self.instructions
            .last()
            .map_or(0, |l| l.pc + 4 * l.words.len() as u32)
    }

    /// Decodes an image; every branch target inside the image gets a label `L_<hex pc>`.
    pub fn from_words(words: &[u32]) -> Result<Program, DecodeError> {
        let mut instructions = Vec::new();
        let mut i = 0;
        while i < words.len() {
            let pc = 4 * i as u32;
            let (inst, len) = decode_one(&words[i..], pc)?;
            instructions.push(Located {
                pc,
                words: words[i..i + len].to_vec(),
                line: 0,
                item: inst,
            });
            i += len;
        }
        let mut program = Program {
            instructions,
            labels: BTreeMap::new(),
            descriptor: None,
            rodata: Rodata::default(),
        };
        let targets: Vec<u32> = program
            .instructions
            .iter()
            .filter_map(|l| l.item.branch_target(l.pc))
            .filter(|&t| program.instruction_at(t).is_some())
            .collect();
        for t in targets {
            program.labels.insert(format!("L_{t:04x}"), t);
        }
        Ok(program)
    }

    /// Decodes a little-endian byte image (its length must be a multiple of 4).
    pub fn from_bytes(bytes: &[u8]) -> Result<Program, DecodeError> {
        if bytes.len() % 4 != 0 {
            let tail = bytes.len() / 4 * 4;
            return Err(DecodeError {
                offset: tail as u32,
                word: bytes[tail..]
                    .iter()
                    .rev()
                    .fold(0, |acc, b| acc << 8 | *b as u32),
                message: format!("image size {} is not a multiple of 4 bytes", bytes.len()),
            });
        }
        let words: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        Program::from_words(&words)
    }

    /// The instruction starting at byte address `pc`.
    pub fn instruction_at(&self, pc: u32) -> Option<&Located<Instruction>> {
        self.instructions
            .binary_search_by_key(&pc, |l| l.pc)
            .ok()
            .map(|i| &self.instructions[i])
    }

    /// Index into `instructions` of the instruction at `pc`.
    pub fn index_of(&self, pc: u32) -> Option<usize> {
        self.instructions.binary_search_by_key(&pc, |l| l.pc).ok()
    }

    /// For each instruction, whether it starts one of the blocks the compute unit's timing is
    /// stated for: maximal straight-line runs between leaders, which are the entry, branch
    /// targets and the instruction after a branch, `s_endpgm`, `split` or `merge` (labels alone
    /// do not start one). The simulator measures these blocks and the WCET analysis bounds
    /// them, so both take the boundaries from here.
    pub fn block_leaders(&self) -> Vec<bool> {
        let insts = &self.instructions;
        let mut leader = vec![false; insts.len()];
        if let Some(first) = leader.first_mut() {
            *first = true;
        }
        for (i, l) in insts.iter().enumerate() {
            if let Some(t) = l.item.branch_target(l.pc).and_then(|pc| self.index_of(pc)) {
                leader[t] = true;
            }
            let ends = l.item.is_branch()
                || matches!(
                    l.item.opcode,
                    Opcode::SEndpgm | Opcode::Split | Opcode::Merge
                );
            if ends && i + 1 < insts.len() {
                leader[i + 1] = true;
            }
        }
        leader
    }

    /// The first label (alphabetically) at every labelled pc: [`Program::label_at`] for many
    /// pcs at the cost of one pass over the labels.
    pub fn labels_by_pc(&self) -> std::collections::HashMap<u32, &str> {
        let mut by_pc = std::collections::HashMap::new();
        for (name, &pc) in &self.labels {
            by_pc.entry(pc).or_insert(name.as_str());
        }
        by_pc
    }

    /// The first label (alphabetically) at `pc`.
    pub fn label_at(&self, pc: u32) -> Option<&str> {
        self.labels
            .iter()
            .find(|(_, &p)| p == pc)
            .map(|(n, _)| n.as_str())
    }

    /// llvm-mc text, one instruction per line, branch targets as labels, each line commented
    /// with its byte offset and encoding; the listing assembles back to the same image.
    pub fn listing(&self) -> String {
        let mut by_pc: BTreeMap<u32, Vec<&str>> = BTreeMap::new();
        for (name, &pc) in &self.labels {
            by_pc.entry(pc).or_default().push(name);
        }
        let mut out = String::new();
        for l in &self.instructions {
            for name in by_pc.get(&l.pc).into_iter().flatten() {
                let _ = writeln!(out, "{name}:");
            }
            let target = l.item.branch_target(l.pc);
            let label = target
                .filter(|&t| self.instruction_at(t).is_some())
                .and_then(|t| by_pc.get(&t))
                .and_then(|names| names.first().copied());
            let text = l.item.display_with_label(label).to_string();
            let hex: Vec<String> = l.words.iter().map(|w| format!("{w:08x}")).collect();
            let _ = writeln!(out, "\t{text:<48} // {:06x}: {}", l.pc, hex.join(" "));
        }
        for (name, &pc) in &self.labels {
            if pc == self.size_bytes() {
                let _ = writeln!(out, "{name}:");
            }
        }
        out
    }
}
