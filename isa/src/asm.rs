//! The assembler: llvm-mc's GCN3 text syntax (plus `split`/`merge`) to a [`Program`].
//!
//! Two passes: the first parses every line into an instruction (branch targets still named),
//! the second resolves labels into SIMM16 offsets and encodes. The kernel descriptor
//! (`.amdhsa_kernel` ... `.end_amdhsa_kernel`) is read into [`KernelDescriptor`], with the
//! checks llvm-mc makes; the other directives that clang-14 emits around a kernel are accepted
//! and ignored (see [`IGNORED_DIRECTIVES`]); the YAML between `.amdgpu_metadata` and
//! `.end_amdgpu_metadata` is skipped. Data goes in `.rodata` only (the read-only segment of
//! [`Rodata`], which clang fills with program-scope `__constant` tables); code reaches it
//! PC-relative, `s_getpc_b64` and a literal `sym@rel32@lo+4` / `sym@rel32@hi+12`, which the
//! second pass resolves as a linker would.

use std::collections::BTreeMap;

use crate::abi::{DescriptorBuilder, KernelDescriptor};
use crate::check::{check, check_decoded};
use crate::diag;
use crate::encode::{encode, encode_decoded};
use crate::error::{AsmError, ErrorKind, OperandError, Slot};
use crate::inst::{DstUnused, InlineFloat, Instruction, Omod, Operand, Sdwa, SdwaSel};
use crate::opcode::{hwreg_field, Format, ImmKind, Opcode, Width};
use crate::print::{EXPCNT_MAX, HWREG_NAMES, LGKMCNT_MAX, VMCNT_MAX};
use crate::program::{Located, Program, Rodata};

/// Directives accepted and ignored (a directive whose name starts with `.amdgpu_`, or with
/// `.amdhsa_` outside a kernel descriptor block, is ignored too): they describe sections,
/// symbols and alignment, none of which changes the instruction image.
pub const IGNORED_DIRECTIVES: &[&str] = &[
    ".text",
    ".globl",
    ".global",
    ".protected",
    ".hidden",
    ".local",
    ".weak",
    ".p2align",
    ".align",
    ".balign",
    ".type",
    ".size",
    ".section",
    ".data",
    ".rodata",
    ".bss",
    ".ident",
    ".addrsig",
    ".addrsig_sym",
    ".file",
    ".loc",
    ".cfi_startproc",
    ".cfi_endproc",
    ".cfi_sections",
    ".amdgcn_target",
    ".amd_kernel_code_t",
    ".end_amd_kernel_code_t",
    ".end_amdgpu_metadata",
];

/// Directives that place data other than integers: strings and fills. With [`DATA_SIZES`]
/// they are taken in `.rodata` and rejected elsewhere.
const BYTES_DIRECTIVES: &[&str] = &[".ascii", ".asciz", ".string", ".zero", ".space", ".skip"];

/// Bytes per value of the integer data directives.
const DATA_SIZES: &[(&str, usize)] = &[
    (".byte", 1),
    (".short", 2),
    (".hword", 2),
    (".2byte", 2),
    (".long", 4),
    (".int", 4),
    (".4byte", 4),
    (".quad", 8),
    (".8byte", 8),
];

/// Directives that define symbols by value, repeat, or include text: never taken.
const REJECTED_DIRECTIVES: &[&str] = &[
    ".word", ".fill", ".set", ".equ", ".org", ".comm", ".lcomm", ".macro", ".rept", ".if",
    ".include",
];

/// Largest `.rodata` segment an assembly may build (a hostile `.zero` must not exhaust memory).
pub const RODATA_LIMIT: usize = 16 << 20;

/// A literal that a relocated symbol reference holds until the second pass: any value that is
/// not an inline constant, so that the first pass sizes and checks the instruction with its
/// literal dword.
const RELOC_PLACEHOLDER: u32 = 0x5157_0000;

/// Other names llvm-mc accepts for an opcode (same encoding; the disassembler prints the
/// table's mnemonic, as llvm-mc's does).
const MNEMONIC_ALIASES: &[(&str, Opcode)] = &[("v_mul_lo_i32", Opcode::VMulLoU32)];

/// Prefixes of GCN3 instruction families: a mnemonic with one of these that is not in the
/// opcode table is reported as unsupported rather than unknown.
const GCN_PREFIXES: &[&str] = &[
    "s_", "v_", "flat_", "buffer_", "tbuffer_", "ds_", "image_", "exp", "global_", "scratch_",
];

/// Assembles `source`; `file` names it in error messages.
pub fn assemble(source: &str, file: &str) -> Result<Program, AsmError> {
    assemble_lines(
        source.lines().enumerate().map(|(i, l)| (i as u32 + 1, l)),
        file,
    )
}

/// Assembles `(line number, text)` pairs in order: each statement keeps the number given with
/// it, so that code a pass inserts into a source (numbered as the instruction it follows) is
/// reported, and maps back, at the user's lines.
pub fn assemble_lines<'s>(
    lines: impl IntoIterator<Item = (u32, &'s str)>,
    file: &str,
) -> Result<Program, AsmError> {
    let mut asm = Assembler {
        file,
        line: 0,
        items: Vec::new(),
        labels: BTreeMap::new(),
        pc: 0,
        block: None,
        descriptors: Vec::new(),
        section: Section::Text,
        rodata: Vec::new(),
        data_symbols: BTreeMap::new(),
        foreign_symbols: BTreeMap::new(),
        last_foreign: None,
        c_files: BTreeMap::new(),
        c_locs: Vec::new(),
    };
    // Line of an open `.amdgpu_metadata` block, whose YAML body is skipped.
    let mut metadata_from = None;
    for (line, raw) in lines {
        asm.line = line;
        let text = strip_comment(raw);
        if metadata_from.is_some() {
            if text.trim() == ".end_amdgpu_metadata" {
                metadata_from = None;
            }
            continue;
        }
        if asm.line_item(text)? {
            metadata_from = Some(asm.line);
        }
    }
    if let Some(line) = metadata_from {
        asm.line = line;
        return Err(asm.error(
            1,
            ErrorKind::Syntax,
            ".amdgpu_metadata block without .end_amdgpu_metadata",
        ));
    }
    if let Some(block) = &asm.block {
        asm.line = block.1;
        return Err(asm.error(
            1,
            ErrorKind::Syntax,
            ".amdhsa_kernel block without .end_amdhsa_kernel",
        ));
    }
    asm.finish()
}

/// A parsed instruction; `target` is its branch label and that label's column, resolved to
/// an offset in the second pass.
struct Item {
    line: u32,
    inst: Instruction,
    target: Option<(String, u32)>,
    reloc: Option<Reloc>,
    /// A source is a `lit(..)`: encoded under the decoder's literal rule.
    forced_literal: bool,
    pc: u32,
}

/// A PC-relative reference to a symbol in a 32-bit literal source: `sym@rel32@lo+4` is the low
/// half of `sym + 4 - P`, `@hi` the high half, P being the literal's own address (ELF's
/// `R_AMDGPU_REL32_LO`/`_HI`).
#[derive(Clone, Debug)]
struct Reloc {
    symbol: String,
    hi: bool,
    addend: i64,
    /// The source slot holding the literal, and the reference's column.
    src: usize,
    col: u32,
}

/// The section statements go to.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Section {
    Text,
    Rodata,
    /// Any other section, by name: it may hold directives, but neither code nor data.
    Other(String),
}

struct Assembler<'a> {
    file: &'a str,
    line: u32,
    items: Vec<Item>,
    labels: BTreeMap<String, u32>,
    pc: u32,
    /// The open `.amdhsa_kernel` block and its line.
    block: Option<(DescriptorBuilder, u32)>,
    descriptors: Vec<KernelDescriptor>,
    section: Section,
    /// The `.rodata` contents so far and its symbols (offsets into it).
    rodata: Vec<u8>,
    data_symbols: BTreeMap<String, u32>,
    /// Labels of other sections, with the section: named when code refers to them.
    foreign_symbols: BTreeMap<String, String>,
    /// The latest of them, named when data follows it.
    last_foreign: Option<String>,
    /// clang's line table ([`crate::lines`]): the files by number, and from which line each
    /// `.loc` holds. Errors name the C position of their line.
    c_files: BTreeMap<u32, String>,
    c_locs: Vec<(u32, Option<crate::lines::Loc>)>,
}

/// Removes a `;` or `//` comment (outside double-quoted strings).
fn strip_comment(line: &str) -> &str {
    let bytes = line.as_bytes();
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => in_string = !in_string,
            b'\\' if in_string => i += 1,
            b';' if !in_string => return &line[..i],
            b'/' if !in_string && bytes.get(i + 1) == Some(&b'/') => return &line[..i],
            _ => {}
        }
        i += 1;
    }
    line
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || c == '.' || c == '$'
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$'
}

/// A decimal or `0x` hexadecimal integer (a directive's value).
fn parse_integer(text: &str) -> Option<u64> {
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => text.parse().ok(),
        None => None,
    }
}

/// An integer of a data directive: decimal, `0x` hex or a character-free `-` negation.
fn parse_data_int(text: &str) -> Option<i128> {
    match text.strip_prefix('-') {
        Some(rest) => parse_integer(rest.trim()).map(|v| -(v as i128)),
        None => parse_integer(text).map(i128::from),
    }
}

/// A double-quoted string with the assembler's escapes (`\n`, `\t`, `\b`, `\f`, `\r`,
/// `\\`, `\"`, octal `\NNN`, hex `\xHH`); returns its bytes and the text after it.
pub(crate) fn parse_string(text: &str) -> Result<(Vec<u8>, &str), String> {
    let bytes = text.as_bytes();
    if bytes.first() != Some(&b'"') {
        return Err("expected a double-quoted string".to_string());
    }
    let mut out = Vec::new();
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => return Ok((out, &text[i + 1..])),
            b'\\' => {
                let Some(&e) = bytes.get(i + 1) else { break };
                i += 2;
                match e {
                    b'n' => out.push(b'\n'),
                    b't' => out.push(b'\t'),
                    b'r' => out.push(b'\r'),
                    b'b' => out.push(8),
                    b'f' => out.push(12),
                    b'0'..=b'7' => {
                        let mut v = u32::from(e - b'0');
                        for _ in 0..2 {
                            match bytes.get(i) {
                                Some(&d @ b'0'..=b'7') => {
                                    v = v * 8 + u32::from(d - b'0');
                                    i += 1;
                                }
                                _ => break,
                            }
                        }
                        out.push(v as u8);
                    }
                    b'x' | b'X' => {
                        let digits = bytes[i..]
                            .iter()
                            .take_while(|b| b.is_ascii_hexdigit())
                            .count();
                        if digits == 0 {
                            return Err("`\\x` needs hexadecimal digits".to_string());
                        }
                        let v = bytes[i..i + digits].iter().fold(0u32, |v, &d| {
                            (v << 4 | (d as char).to_digit(16).unwrap_or(0)) & 0xff
                        });
                        out.push(v as u8);
                        i += digits;
                    }
                    other => out.push(other),
                }
                continue;
            }
            b => out.push(b),
        }
        i += 1;
    }
    Err("unterminated string".to_string())
}

/// Column (1-based, in characters) of byte offset `offset` of `line`.
fn column_of(line: &str, offset: usize) -> u32 {
    line[..offset].chars().count() as u32 + 1
}

impl Assembler<'_> {
    /// An error at `column` of the current line. The message's quoted values (tokens, labels,
    /// mnemonics: whatever the source holds) are escaped and shortened ([`diag::message`]).
    fn error(&self, column: u32, kind: ErrorKind, message: impl Into<String>) -> AsmError {
        let mut message = diag::message(&message.into());
        if let Some(at) = self.c_position() {
            message.push_str(&format!(" (source: {at})"));
        }
        AsmError {
            file: self.file.to_string(),
            line: self.line,
            column,
            kind,
            message,
        }
    }

    /// The C position of the current line, `k.cl:4:12`, where clang's line table gives one.
    fn c_position(&self) -> Option<String> {
        let k = self.c_locs.partition_point(|&(line, _)| line <= self.line);
        let loc = self.c_locs[..k].last()?.1?;
        let file = diag::escape(self.c_files.get(&loc.file)?);
        Some(match loc.col {
            0 => format!("{file}:{}", loc.line),
            col => format!("{file}:{}:{col}", loc.line),
        })
    }

    /// Handles one comment-free line; returns true if it opens a metadata block.
    fn line_item(&mut self, text: &str) -> Result<bool, AsmError> {
        if self.block.is_some() {
            return self.descriptor_line(text).map(|()| false);
        }
        let mut rest_start = 0;
        // Labels: `name:` at the start, possibly several, possibly followed by a statement.
        loop {
            let rest = &text[rest_start..];
            let trimmed = rest.trim_start();
            let lead = rest.len() - trimmed.len();
            let name_len = trimmed
                .char_indices()
                .find(|&(i, c)| {
                    if i == 0 {
                        !is_ident_start(c)
                    } else {
                        !is_ident_char(c)
                    }
                })
                .map_or(trimmed.len(), |(i, _)| i);
            if name_len == 0 || !trimmed[name_len..].starts_with(':') {
                break;
            }
            let name = &trimmed[..name_len];
            let column = column_of(text, rest_start + lead);
            let defined = self.labels.contains_key(name)
                || self.data_symbols.contains_key(name)
                || self.foreign_symbols.contains_key(name);
            match &self.section {
                Section::Text => {
                    self.labels.insert(name.to_string(), self.pc);
                }
                Section::Rodata => {
                    let offset = self.rodata.len() as u32;
                    self.data_symbols.insert(name.to_string(), offset);
                }
                Section::Other(section) => {
                    let section = section.clone();
                    self.foreign_symbols.insert(name.to_string(), section);
                    self.last_foreign = Some(name.to_string());
                }
            }
            if defined {
                return Err(self.error(
                    column,
                    ErrorKind::DuplicateLabel,
                    format!("duplicate label `{name}`"),
                ));
            }
            rest_start += lead + name_len + 1;
        }
        let rest = &text[rest_start..];
        let trimmed = rest.trim_start();
        if trimmed.is_empty() {
            return Ok(false);
        }
        let start = rest_start + rest.len() - trimmed.len();
        if trimmed.starts_with('.') {
            return self.directive(text, start);
        }
        if self.section != Section::Text {
            return Err(self.error(
                column_of(text, start),
                ErrorKind::Syntax,
                format!(
                    "an instruction in section {}: code belongs in .text",
                    self.section_name()
                ),
            ));
        }
        let tokens = lex(text, start).map_err(|(col, kind, msg)| self.error(col, kind, msg))?;
        let (inst, target, reloc, forced_literal) = self.instruction(&tokens)?;
        let pc = self.pc;
        self.pc += 4 * inst.size_dwords();
        self.items.push(Item {
            line: self.line,
            inst,
            target,
            reloc,
            forced_literal,
            pc,
        });
        Ok(false)
    }

    fn directive(&mut self, text: &str, start: usize) -> Result<bool, AsmError> {
        let name_end = text[start..]
            .find(|c: char| c.is_whitespace())
            .map_or(text.len(), |i| start + i);
        let name = &text[start..name_end];
        let column = column_of(text, start);
        if name == ".amdgpu_metadata" {
            return Ok(true);
        }
        if name == ".amdhsa_kernel" {
            let kernel = text[name_end..].trim();
            if kernel.is_empty() || !kernel.chars().all(is_ident_char) {
                return Err(self.error(
                    column,
                    ErrorKind::Syntax,
                    "expected a kernel name after .amdhsa_kernel",
                ));
            }
            self.block = Some((DescriptorBuilder::new(kernel, self.line), self.line));
            return Ok(false);
        }
        if name == ".end_amdhsa_kernel" || DescriptorBuilder::is_block_directive(name) {
            return Err(self.error(
                column,
                ErrorKind::Syntax,
                format!("`{name}` outside an .amdhsa_kernel block"),
            ));
        }
        let args = &text[name_end..];
        match name {
            ".file" => {
                if let Some(f) = crate::lines::file_directive(args) {
                    self.c_files.insert(f.number, f.name);
                }
            }
            ".loc" => self
                .c_locs
                .push((self.line, crate::lines::loc_directive(args))),
            ".text" => self.section = Section::Text,
            ".rodata" => self.section = Section::Rodata,
            ".data" | ".bss" => self.section = Section::Other(name.to_string()),
            ".section" => {
                let section = args
                    .trim()
                    .split(|c: char| c == ',' || c.is_whitespace())
                    .next()
                    .unwrap_or("")
                    .trim_matches('"');
                self.section = if section == ".text" || section.starts_with(".text.") {
                    Section::Text
                } else if section == ".rodata" || section.starts_with(".rodata.") {
                    Section::Rodata
                } else {
                    Section::Other(section.to_string())
                };
            }
            ".p2align" | ".align" | ".balign" if self.section == Section::Rodata => {
                self.align(name, args, column)?;
            }
            _ => {}
        }
        if IGNORED_DIRECTIVES.contains(&name)
            || name.starts_with(".amdhsa_")
            || name.starts_with(".amdgpu_")
        {
            return Ok(false);
        }
        if BYTES_DIRECTIVES.contains(&name) || DATA_SIZES.iter().any(|(d, _)| *d == name) {
            if self.section == Section::Rodata {
                self.data(name, args, column_of(text, name_end))?;
                return Ok(false);
            }
            let why = match &self.section {
                Section::Other(s) if s.starts_with(".data") || s.starts_with(".bss") => {
                    let variable = self
                        .last_foreign
                        .as_ref()
                        .map_or(String::new(), |name| format!(" `{name}`"));
                    format!(
                        "pws loads only the read-only .rodata, not {s} (the writable program-scope \
                         variable{variable}): pass it as a buffer"
                    )
                }
                _ => format!("data belongs in .rodata, not in {}", self.section_name()),
            };
            return Err(self.error(
                column,
                ErrorKind::Unsupported,
                format!("unsupported directive `{name}` here: {why}"),
            ));
        }
        if REJECTED_DIRECTIVES.contains(&name) {
            return Err(self.error(
                column,
                ErrorKind::Unsupported,
                format!("unsupported directive `{name}`"),
            ));
        }
        Err(self.error(
            column,
            ErrorKind::Syntax,
            format!("unknown directive `{name}`"),
        ))
    }

    fn section_name(&self) -> String {
        match &self.section {
            Section::Text => ".text".to_string(),
            Section::Rodata => ".rodata".to_string(),
            Section::Other(s) => s.clone(),
        }
    }

    /// `.p2align n` (2^n bytes), `.align n` / `.balign n` (n bytes) in `.rodata`: zero-fill
    /// up to the boundary.
    fn align(&mut self, name: &str, args: &str, column: u32) -> Result<(), AsmError> {
        let first = args.split(',').next().unwrap_or("").trim();
        let bytes = parse_integer(first).and_then(|n| match name {
            ".p2align" => (n <= 16).then(|| 1u64 << n),
            _ => (n.is_power_of_two() && n <= 1 << 16).then_some(n),
        });
        let Some(bytes) = bytes else {
            return Err(self.error(
                column,
                ErrorKind::Syntax,
                format!("`{name}` takes an alignment up to 64 KiB, found `{first}`"),
            ));
        };
        let end = self.rodata.len().next_multiple_of(bytes as usize);
        self.grow_rodata(end, column)?;
        self.rodata.resize(end, 0);
        Ok(())
    }

    fn grow_rodata(&self, end: usize, column: u32) -> Result<(), AsmError> {
        if end > RODATA_LIMIT {
            return Err(self.error(
                column,
                ErrorKind::Unsupported,
                format!(
                    "the .rodata segment would grow to {end} bytes; pws takes at most {RODATA_LIMIT}"
                ),
            ));
        }
        Ok(())
    }

    /// A data directive in `.rodata`: integers of [`DATA_SIZES`] (little-endian, two's
    /// complement, each within its size), strings, or `.zero`/`.space`/`.skip N[, fill]`.
    fn data(&mut self, name: &str, args: &str, column: u32) -> Result<(), AsmError> {
        let args = args.trim();
        match name {
            ".ascii" | ".asciz" | ".string" => {
                let mut rest = args;
                loop {
                    let (bytes, after) =
                        parse_string(rest).map_err(|m| self.error(column, ErrorKind::Syntax, m))?;
                    self.grow_rodata(self.rodata.len() + bytes.len() + 1, column)?;
                    self.rodata.extend_from_slice(&bytes);
                    if name != ".ascii" {
                        self.rodata.push(0);
                    }
                    rest = after.trim_start();
                    match rest.strip_prefix(',') {
                        Some(r) => rest = r.trim_start(),
                        None if rest.is_empty() => return Ok(()),
                        None => {
                            return Err(self.error(
                                column,
                                ErrorKind::Syntax,
                                format!(
                                "expected `,` or the end of the line after a string in `{name}`"
                            ),
                            ))
                        }
                    }
                }
            }
            ".zero" | ".space" | ".skip" => {
                let mut parts = args.split(',').map(str::trim);
                let count = parts.next().and_then(parse_data_int);
                let fill = parts.next().map_or(Some(0), parse_data_int);
                let (Some(count), Some(fill), None) = (count, fill, parts.next()) else {
                    return Err(self.error(
                        column,
                        ErrorKind::Syntax,
                        format!("`{name}` takes a byte count and an optional fill byte"),
                    ));
                };
                let Some(count) = usize::try_from(count)
                    .ok()
                    .filter(|_| (-128..=255).contains(&fill))
                else {
                    return Err(self.error(
                        column,
                        ErrorKind::ImmediateOutOfRange,
                        format!("`{name} {args}`: the count must not be negative and the fill must be a byte"),
                    ));
                };
                let end = self.rodata.len().saturating_add(count);
                self.grow_rodata(end, column)?;
                self.rodata.resize(end, fill as u8);
                Ok(())
            }
            _ => {
                let size = DATA_SIZES
                    .iter()
                    .find(|(d, _)| *d == name)
                    .map(|&(_, n)| n)
                    .expect("a data directive");
                for value in args.split(',').map(str::trim) {
                    let Some(v) = parse_data_int(value) else {
                        let what = if value.chars().next().is_some_and(is_ident_start) {
                            format!(
                                "`{value}` is a symbol: pws places no addresses in data (a table of pointers)"
                            )
                        } else {
                            format!("expected an integer, found `{value}`")
                        };
                        return Err(self.error(
                            column,
                            ErrorKind::Syntax,
                            format!("`{name}`: {what}"),
                        ));
                    };
                    let bits = 8 * size as u32;
                    let fits = bits == 64 || (-(1i128 << (bits - 1))..1i128 << bits).contains(&v);
                    if !fits || !(i64::MIN as i128..=u64::MAX as i128).contains(&v) {
                        return Err(self.error(
                            column,
                            ErrorKind::ImmediateOutOfRange,
                            format!("`{name}`: {value} does not fit in {size} bytes"),
                        ));
                    }
                    self.grow_rodata(self.rodata.len() + size, column)?;
                    self.rodata
                        .extend_from_slice(&(v as u64).to_le_bytes()[..size]);
                }
                Ok(())
            }
        }
    }

    /// A line inside an `.amdhsa_kernel` block: a descriptor directive with an integer value,
    /// or `.end_amdhsa_kernel`.
    fn descriptor_line(&mut self, text: &str) -> Result<(), AsmError> {
        let trimmed = text.trim_start();
        if trimmed.is_empty() {
            return Ok(());
        }
        let start = text.len() - trimmed.len();
        let column = column_of(text, start);
        let (name, arg) = trimmed
            .split_once(char::is_whitespace)
            .unwrap_or((trimmed, ""));
        let (arg, arg_column) = (
            arg.trim(),
            column_of(text, text.len() - arg.trim_start().len()),
        );
        if name == ".end_amdhsa_kernel" {
            let (builder, _) = self.block.take().expect("inside a block");
            let descriptor = builder
                .finish()
                .map_err(|m| self.error(column, ErrorKind::Syntax, m))?;
            self.descriptors.push(descriptor);
            return Ok(());
        }
        if !name.starts_with(".amdhsa_") {
            return Err(self.error(
                column,
                ErrorKind::Syntax,
                format!("expected an .amdhsa_ directive or .end_amdhsa_kernel, found `{name}`"),
            ));
        }
        let value = parse_integer(arg).ok_or_else(|| {
            self.error(
                arg_column,
                ErrorKind::Syntax,
                format!("`{name}` takes an integer, found `{arg}`"),
            )
        })?;
        let (builder, _) = self.block.as_mut().expect("inside a block");
        builder
            .apply(name, value)
            .map_err(|m| self.error(column, ErrorKind::Syntax, m))
    }

    /// The descriptor of the kernel at address 0 (where a launch starts), if the file has any.
    fn kernel_descriptor(&mut self) -> Result<Option<KernelDescriptor>, AsmError> {
        let mut chosen = None;
        for d in std::mem::take(&mut self.descriptors) {
            self.line = d.line;
            match self.labels.get(&d.name) {
                None => {
                    return Err(self.error(
                        1,
                        ErrorKind::UndefinedLabel,
                        format!("kernel descriptor `{}` names no label of this file", d.name),
                    ))
                }
                Some(0) if chosen.is_none() => chosen = Some(d),
                Some(_) => {}
            }
        }
        Ok(chosen)
    }

    fn finish(mut self) -> Result<Program, AsmError> {
        let first = self.descriptors.first().map(|d| (d.name.clone(), d.line));
        let descriptor = self.kernel_descriptor()?;
        if let (None, Some((name, line))) = (&descriptor, first) {
            self.line = line;
            return Err(self.error(
                1,
                ErrorKind::Syntax,
                format!(
                    "kernel `{name}` does not start at address 0; a launch runs the program from its first instruction"
                ),
            ));
        }
        let data = !self.rodata.is_empty() || !self.data_symbols.is_empty();
        let rodata = Rodata {
            offset: if data {
                self.pc.next_multiple_of(Rodata::ALIGN)
            } else {
                0
            },
            bytes: std::mem::take(&mut self.rodata),
            symbols: std::mem::take(&mut self.data_symbols),
        };
        let mut instructions = Vec::with_capacity(self.items.len());
        for mut item in std::mem::take(&mut self.items) {
            self.line = item.line;
            if let Some((name, column)) = &item.target {
                let Some(&target) = self.labels.get(name) else {
                    return Err(self.error(
                        *column,
                        ErrorKind::UndefinedLabel,
                        format!("undefined label `{name}`"),
                    ));
                };
                let offset = (target as i64 - item.pc as i64 - 4) / 4;
                if !(i16::MIN as i64..=i16::MAX as i64).contains(&offset) {
                    return Err(self.error(
                        *column,
                        ErrorKind::ImmediateOutOfRange,
                        format!("branch to `{name}` is out of range ({offset} dwords)"),
                    ));
                }
                item.inst.imm = offset as u16 as u32;
            }
            let words = match &item.reloc {
                Some(r) => {
                    // The literal is the instruction's last dword; it stays a literal whatever
                    // its value, as a linker's fix-up leaves it, so it encodes as a decoded
                    // instruction does.
                    let at = item.pc + 4 * (item.inst.size_dwords() - 1);
                    item.inst.srcs[r.src] = Some(Operand::Literal(self.relocate(r, &rodata, at)?));
                    encode_decoded(&item.inst)
                }
                None if item.forced_literal => encode_decoded(&item.inst),
                None => encode(&item.inst),
            }
            .map_err(|e| self.error(1, e.kind, e.message))?;
            instructions.push(Located {
                pc: item.pc,
                words,
                line: item.line,
                item: item.inst,
            });
        }
        Ok(Program {
            instructions,
            labels: self.labels,
            descriptor,
            rodata,
        })
    }

    /// The literal a relocated reference at byte address `at` holds.
    fn relocate(&self, r: &Reloc, rodata: &Rodata, at: u32) -> Result<u32, AsmError> {
        let Some(&offset) = rodata.symbols.get(&r.symbol) else {
            let why = if self.labels.contains_key(&r.symbol) {
                format!("`{}` is code: pws runs no calls", r.symbol)
            } else if let Some(section) = self.foreign_symbols.get(&r.symbol) {
                format!(
                    "`{}` is in section {section}: pws loads only .rodata (read-only program-scope data)",
                    r.symbol
                )
            } else {
                format!("undefined symbol `{}`", r.symbol)
            };
            return Err(self.error(r.col, ErrorKind::UndefinedLabel, why));
        };
        let distance = i64::from(rodata.offset) + i64::from(offset) + r.addend - i64::from(at);
        Ok(if r.hi {
            (distance >> 32) as u32
        } else {
            distance as u32
        })
    }

    /// Parses one instruction line (already lexed); returns the instruction, for a branch to a
    /// label the label and its column, its relocated literal, and whether a source is a
    /// `lit(..)`.
    #[allow(clippy::type_complexity)]
    fn instruction(
        &self,
        tokens: &[Token],
    ) -> Result<(Instruction, Option<(String, u32)>, Option<Reloc>, bool), AsmError> {
        let first = &tokens[0];
        let Tok::Ident(word) = &first.tok else {
            return Err(self.error(first.col, ErrorKind::Syntax, "expected a mnemonic"));
        };
        let mnemonic = word.to_ascii_lowercase();
        let sdwa_suffix = mnemonic.ends_with("_sdwa");
        let (base, suffix) = if let Some(b) = mnemonic.strip_suffix("_e32") {
            (b, Some(false))
        } else if let Some(b) = mnemonic.strip_suffix("_e64") {
            (b, Some(true))
        } else if let Some(b) = mnemonic.strip_suffix("_sdwa") {
            (b, None)
        } else {
            (mnemonic.as_str(), None)
        };
        let named = Opcode::from_mnemonic(base).or_else(|| {
            MNEMONIC_ALIASES
                .iter()
                .find(|(alias, _)| *alias == base)
                .map(|&(_, op)| op)
        });
        // llvm-mc takes `_e32` on the lane accesses (v_readlane_b32 is still VOP3) and
        // refuses `_e64`.
        let suffix = match (named, suffix) {
            (Some(op), Some(true)) if op.is_lane_access() => {
                return Err(self.error(
                    first.col,
                    ErrorKind::Unsupported,
                    format!("`{mnemonic}`: {op} has no e64 encoding on gfx8"),
                ));
            }
            (Some(op), Some(false)) if op.is_lane_access() => None,
            _ => suffix,
        };
        let opcode = named
            .filter(|op| match suffix {
                None => true,
                // llvm-mc also takes `_e64` on the VOP3-only instructions.
                Some(true) => op.has_vop3_form() || op.format() == Format::Vop3,
                Some(false) => op.has_vop3_form(),
            })
            // `_sdwa` names a vector ALU instruction; whether it has the form is checked below.
            .filter(|op| !sdwa_suffix || op.format().has_vop3_form())
            .ok_or_else(|| {
                if GCN_PREFIXES.iter().any(|p| mnemonic.starts_with(p)) {
                    self.error(
                        first.col,
                        ErrorKind::Unsupported,
                        format!(
                            "unsupported instruction `{mnemonic}`: not in the pws GCN3 subset{}",
                            unsupported_hint(&mnemonic)
                        ),
                    )
                } else {
                    self.error(
                        first.col,
                        ErrorKind::UnknownMnemonic,
                        format!("unknown mnemonic `{mnemonic}`"),
                    )
                }
            })?;
        let mut parser = Parser {
            asm: self,
            tokens,
            pos: 1,
            reloc: None,
            offen: None,
            forced_literal: false,
        };
        let mut inst = Instruction::new(opcode);
        if sdwa_suffix {
            inst.sdwa = Some(Sdwa::default());
        }
        let mut cols: Vec<(Slot, u32)> = vec![(Slot::Instruction, first.col)];
        let target = parser.operands(&mut inst, &mut cols)?;
        let mods_col = parser.modifiers(&mut inst)?;
        cols.push((Slot::Modifiers, mods_col));
        if inst.sdwa.is_some() && suffix.is_some() {
            return Err(self.error(
                mods_col,
                ErrorKind::Modifier,
                "the SDWA selects (dst_sel, dst_unused, src0_sel, src1_sel) need the _sdwa form, not _e32/_e64",
            ));
        }
        let col_of = |slot: Slot| {
            cols.iter()
                .find(|(s, _)| *s == slot)
                .or_else(|| cols.first())
                .map_or(1, |c| c.1)
        };
        let to_error = |e: OperandError| self.error(col_of(e.slot), e.kind, e.message);
        if opcode.format() == Format::Mubuf {
            match (parser.offen, inst.srcs[0]) {
                (Some(col), None) => {
                    return Err(self.error(
                        col,
                        ErrorKind::Modifier,
                        "`offen` takes its offset from a VGPR: write the VGPR instead of `off`",
                    ))
                }
                (None, Some(_)) => {
                    return Err(self.error(
                        col_of(Slot::Src(0)),
                        ErrorKind::Modifier,
                        "a VGPR offset needs `offen` after the operands (or `off` for none)",
                    ))
                }
                _ => {}
            }
        }
        // A `lit(..)` source is a literal dword whatever its value, as the decoder reads one.
        let verify = |inst: &Instruction| {
            if parser.forced_literal {
                check_decoded(inst)
            } else {
                check(inst)
            }
        };
        if opcode.has_vop3_form() && inst.sdwa.is_none() {
            let needs_vop3 = inst.mods.clamp
                || inst.mods.omod != Omod::None
                || inst.mods.neg != 0
                || inst.mods.abs != 0;
            match suffix {
                Some(v) => inst.vop3 = v,
                None if needs_vop3 => inst.vop3 = true,
                None => {
                    // llvm-mc picks the 32-bit encoding when the operands allow it.
                    if verify(&inst).is_err() {
                        inst.vop3 = true;
                    }
                }
            }
        }
        // A label is resolved later; check with a placeholder offset.
        verify(&inst).map_err(to_error)?;
        Ok((inst, target, parser.reloc, parser.forced_literal))
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    /// An unsigned integer (a leading `-` is a separate token).
    Int(u64),
    Float(f64),
    Punct(char),
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    col: u32,
}

type LexError = (u32, ErrorKind, String);

/// Splits an instruction line into tokens with their columns.
fn lex(line: &str, start: usize) -> Result<Vec<Token>, LexError> {
    let mut tokens = Vec::new();
    let chars: Vec<(usize, char)> = line[start..]
        .char_indices()
        .map(|(i, c)| (i + start, c))
        .collect();
    // Columns count characters; counting from the start once keeps long lines linear.
    let first_col = column_of(line, start);
    let mut i = 0;
    while i < chars.len() {
        let (offset, c) = chars[i];
        let col = first_col + i as u32;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let span_end = |mut j: usize, pred: &dyn Fn(char) -> bool| {
            while j < chars.len() && pred(chars[j].1) {
                j += 1;
            }
            j
        };
        let byte = |j: usize| chars.get(j).map_or(line.len(), |&(o, _)| o);
        if is_ident_start(c) {
            let j = span_end(i + 1, &is_ident_char);
            tokens.push(Token {
                tok: Tok::Ident(line[offset..byte(j)].to_string()),
                col,
            });
            i = j;
        } else if c.is_ascii_digit() {
            let hex = c == '0' && matches!(chars.get(i + 1), Some((_, 'x' | 'X')));
            let j;
            let tok = if hex {
                j = span_end(i + 2, &|c| c.is_ascii_alphanumeric());
                let digits = &line[byte(i + 2)..byte(j)];
                let v = u64::from_str_radix(digits, 16).map_err(|_| {
                    (
                        col,
                        if digits.chars().all(|c| c.is_ascii_hexdigit()) && !digits.is_empty() {
                            ErrorKind::ImmediateOutOfRange
                        } else {
                            ErrorKind::Syntax
                        },
                        format!("invalid hexadecimal number `{}`", &line[offset..byte(j)]),
                    )
                })?;
                Tok::Int(v)
            } else {
                let mut k = span_end(i, &|c| c.is_ascii_digit());
                let mut float = false;
                if matches!(chars.get(k), Some((_, '.'))) {
                    float = true;
                    k = span_end(k + 1, &|c| c.is_ascii_digit());
                }
                if matches!(chars.get(k), Some((_, 'e' | 'E'))) {
                    let mut m = k + 1;
                    if matches!(chars.get(m), Some((_, '+' | '-'))) {
                        m += 1;
                    }
                    let n = span_end(m, &|c| c.is_ascii_digit());
                    if n > m {
                        float = true;
                        k = n;
                    }
                }
                if matches!(chars.get(k), Some((_, c)) if is_ident_char(*c)) {
                    let end = span_end(k, &is_ident_char);
                    return Err((
                        col,
                        ErrorKind::Syntax,
                        format!("invalid number `{}`", &line[offset..byte(end)]),
                    ));
                }
                j = k;
                let text = &line[offset..byte(j)];
                if float {
                    Tok::Float(text.parse().map_err(|_| {
                        (col, ErrorKind::Syntax, format!("invalid number `{text}`"))
                    })?)
                } else {
                    Tok::Int(text.parse().map_err(|_| {
                        (
                            col,
                            ErrorKind::ImmediateOutOfRange,
                            format!("number `{text}` is too large"),
                        )
                    })?)
                }
            };
            tokens.push(Token { tok, col });
            i = j;
        } else if "[]:,|-()&+@".contains(c) {
            tokens.push(Token {
                tok: Tok::Punct(c),
                col,
            });
            i += 1;
        } else {
            return Err((
                col,
                ErrorKind::Syntax,
                format!("unexpected character `{c}`"),
            ));
        }
    }
    Ok(tokens)
}

/// A parsed operand before it is fitted to its slot.
enum Value {
    /// A register and the number of dwords its text names.
    Reg(Operand, u8),
    Int(i128),
    Float(f64),
    Label(String),
    /// `sym@rel32@lo+4`: symbol, high half, addend.
    Reloc(String, bool, i64),
}

struct ParsedOperand {
    value: Value,
    neg: bool,
    abs: bool,
    /// `sext(..)`: the SDWA sign extension of an integer source.
    sext: bool,
    /// `lit(..)`: a literal dword even where an inline constant holds the value (LLVM's
    /// syntax since LLVM 18; what `pws disasm` prints for such a literal in a linked image).
    lit: bool,
    col: u32,
}

struct Parser<'a, 'b> {
    asm: &'a Assembler<'b>,
    tokens: &'a [Token],
    pos: usize,
    /// The instruction's relocated literal, if it has one.
    reloc: Option<Reloc>,
    /// Column of a MUBUF `offen`, if the instruction has one.
    offen: Option<u32>,
    /// A source is a `lit(..)`: the instruction is checked under the decoder's literal rule.
    forced_literal: bool,
}

const NAMED_REGISTERS: &[(&str, Operand, u8)] = &[
    ("vcc", Operand::VccLo, 2),
    ("vcc_lo", Operand::VccLo, 1),
    ("vcc_hi", Operand::VccHi, 1),
    ("exec", Operand::ExecLo, 2),
    ("exec_lo", Operand::ExecLo, 1),
    ("exec_hi", Operand::ExecHi, 1),
    ("m0", Operand::M0, 1),
    ("flat_scratch", Operand::FlatScratchLo, 2),
    ("flat_scratch_lo", Operand::FlatScratchLo, 1),
    ("flat_scratch_hi", Operand::FlatScratchHi, 1),
    ("src_vccz", Operand::Vccz, 1),
    ("vccz", Operand::Vccz, 1),
    ("src_execz", Operand::Execz, 1),
    ("execz", Operand::Execz, 1),
    ("src_scc", Operand::Scc, 1),
    ("scc", Operand::Scc, 1),
];

/// Registers of other GCN generations or outside the subset: named in a clear error.
const UNSUPPORTED_REGISTERS: &[&str] = &[
    "xnack_mask",
    "xnack_mask_lo",
    "xnack_mask_hi",
    "tba",
    "tba_lo",
    "tba_hi",
    "tma",
    "tma_lo",
    "tma_hi",
    "lds_direct",
    "src_lds_direct",
    "src_shared_base",
    "src_shared_limit",
    "src_private_base",
    "src_private_limit",
    "src_pops_exiting_wave_id",
    "vcc_lo_hi",
];

impl Parser<'_, '_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn end_col(&self) -> u32 {
        self.tokens.last().map_or(1, |t| t.col + 1)
    }

    fn col(&self) -> u32 {
        self.peek().map_or_else(|| self.end_col(), |t| t.col)
    }

    fn err(&self, col: u32, kind: ErrorKind, msg: impl Into<String>) -> AsmError {
        self.asm.error(col, kind, msg)
    }

    fn eat_punct(&mut self, c: char) -> bool {
        if matches!(self.peek(), Some(Token { tok: Tok::Punct(p), .. }) if *p == c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect_punct(&mut self, c: char) -> Result<(), AsmError> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            Err(self.err(self.col(), ErrorKind::Syntax, format!("expected `{c}`")))
        }
    }

    fn expect_int(&mut self) -> Result<(u64, u32), AsmError> {
        match self.peek() {
            Some(Token {
                tok: Tok::Int(v),
                col,
            }) => {
                let r = (*v, *col);
                self.pos += 1;
                Ok(r)
            }
            _ => Err(self.err(self.col(), ErrorKind::Syntax, "expected an integer")),
        }
    }

    /// Parses the operands in text order (`dst`, `sdst`, sources, immediate) into `inst`.
    fn operands(
        &mut self,
        inst: &mut Instruction,
        cols: &mut Vec<(Slot, u32)>,
    ) -> Result<Option<(String, u32)>, AsmError> {
        let sig = inst.opcode.signature();
        let mut slots: Vec<(Slot, Option<Width>)> = Vec::new();
        // A FLAT atomic names a destination only with `glc` (which comes after the operands;
        // no operand can be spelled `glc`).
        let returns = !inst.opcode.is_flat_atomic()
            || self.tokens[self.pos..]
                .iter()
                .any(|t| matches!(&t.tok, Tok::Ident(n) if n.eq_ignore_ascii_case("glc")));
        if inst.opcode.is_flat_atomic() {
            let commas = self.tokens[self.pos..]
                .iter()
                .filter(|t| t.tok == Tok::Punct(','))
                .count();
            let why = match (returns, commas) {
                (false, 2) => Some("a destination needs glc"),
                (true, 1) => Some("with glc it names a destination first"),
                _ => None,
            };
            if let Some(why) = why {
                return Err(self.err(
                    self.col(),
                    ErrorKind::Modifier,
                    format!(
                        "{}: {why} (glc returns the value before the operation)",
                        inst.opcode
                    ),
                ));
            }
        }
        let mubuf = inst.opcode.format() == Format::Mubuf;
        if let Some(w) = sig.dst.filter(|_| returns) {
            slots.push((Slot::Dst, Some(w)));
        }
        // MUBUF text: VDATA (a store's is its last source), VADDR or `off`, SRSRC, SOFFSET.
        if mubuf && sig.dst.is_none() {
            slots.push((Slot::Src(3), sig.srcs.get(3).copied()));
        }
        if let Some(w) = sig.sdst {
            slots.push((Slot::Sdst, Some(w)));
        }
        // `s_setreg_imm32_b32 hwreg(...), value`: the register field comes first.
        if sig.imm == ImmKind::Hwreg {
            slots.push((Slot::Imm, None));
        }
        for (i, w) in sig.srcs.iter().enumerate().take(if mubuf { 3 } else { 4 }) {
            slots.push((Slot::Src(i), Some(*w)));
        }
        // DS and MUBUF offsets are written as modifiers (`offset:N`), parsed with them.
        if !matches!(
            sig.imm,
            ImmKind::None
                | ImmKind::DsOffset
                | ImmKind::DsOffset2
                | ImmKind::MubufOffset
                | ImmKind::Hwreg
        ) {
            slots.push((Slot::Imm, None));
        }
        let mut target = None;
        for (n, (slot, width)) in slots.iter().enumerate() {
            if n > 0 {
                self.expect_punct(',').map_err(|_| {
                    self.err(
                        self.col(),
                        ErrorKind::Syntax,
                        format!("too few operands: {} takes {}", inst.opcode, slots.len()),
                    )
                })?;
            }
            if self.peek().is_none() {
                return Err(self.err(
                    self.end_col(),
                    ErrorKind::Syntax,
                    format!("too few operands: {} takes {}", inst.opcode, slots.len()),
                ));
            }
            cols.push((*slot, self.col()));
            match (slot, width) {
                (Slot::Imm, _) => target = self.immediate(inst)?,
                (Slot::Src(0), Some(_))
                    if mubuf
                        && matches!(self.peek(), Some(Token { tok: Tok::Ident(n), .. })
                            if n.eq_ignore_ascii_case("off")) =>
                {
                    self.pos += 1;
                }
                (_, Some(_)) if inst.opcode.setreg_from_literal() => {
                    inst.srcs[0] = Some(self.setreg_value()?);
                }
                (_, Some(w)) => {
                    let op = self.operand()?;
                    if let Value::Reloc(symbol, hi, addend) = op.value {
                        let (Slot::Src(src), Width::B32, false, false, false) =
                            (*slot, *w, op.neg, op.abs, op.sext)
                        else {
                            return Err(self.err(
                                op.col,
                                ErrorKind::BadOperand,
                                format!("`{symbol}@rel32` is a 32-bit source without modifiers"),
                            ));
                        };
                        inst.srcs[src] = Some(Operand::Literal(RELOC_PLACEHOLDER));
                        self.reloc = Some(Reloc {
                            symbol,
                            hi,
                            addend,
                            src,
                            col: op.col,
                        });
                    } else {
                        self.place(inst, *slot, *w, op)?;
                    }
                }
                (_, None) => {}
            }
        }
        if self.eat_punct(',') {
            let atomic = if inst.opcode.is_flat_atomic() {
                " (one more with glc, which returns the value before the operation)"
            } else {
                ""
            };
            return Err(self.err(
                self.col(),
                ErrorKind::Syntax,
                format!(
                    "too many operands: {} takes {}{atomic}",
                    inst.opcode,
                    slots.len()
                ),
            ));
        }
        Ok(target)
    }

    /// Trailing modifiers; returns the column of the first one (for errors).
    fn modifiers(&mut self, inst: &mut Instruction) -> Result<u32, AsmError> {
        let first = self.col();
        let mut offsets_seen: Vec<String> = Vec::new();
        while let Some(t) = self.peek().cloned() {
            let Tok::Ident(name) = &t.tok else {
                return Err(self.err(t.col, ErrorKind::Syntax, "unexpected token after operands"));
            };
            self.pos += 1;
            let m = &mut inst.mods;
            let duplicate = match name.to_ascii_lowercase().as_str() {
                "glc" => std::mem::replace(&mut m.glc, true),
                "slc" => std::mem::replace(&mut m.slc, true),
                "gds" => std::mem::replace(&mut m.gds, true),
                "offen" if inst.opcode.format() == Format::Mubuf => {
                    self.offen.replace(t.col).is_some()
                }
                unmodelled @ ("idxen" | "addr64" | "lds" | "tfe")
                    if inst.opcode.format() == Format::Mubuf =>
                {
                    return Err(self.err(
                        t.col,
                        ErrorKind::Unsupported,
                        format!(
                            "MUBUF `{unmodelled}` is not supported: pws runs the buffer \
                             accesses clang emits for private memory (`off` or `offen`)"
                        ),
                    ));
                }
                "clamp" => std::mem::replace(&mut m.clamp, true),
                field @ ("offset" | "offset0" | "offset1") => {
                    let kind = inst.opcode.signature().imm;
                    let (shift, max) = match (field, kind) {
                        ("offset", ImmKind::DsOffset) => (0, 0xffff),
                        ("offset0", ImmKind::DsOffset2) => (0, 0xff),
                        ("offset1", ImmKind::DsOffset2) => (8, 0xff),
                        ("offset", ImmKind::MubufOffset) => (0, 0xfff),
                        _ => {
                            return Err(self.err(
                                t.col,
                                ErrorKind::Modifier,
                                format!("{} does not accept `{field}`", inst.opcode),
                            ))
                        }
                    };
                    self.expect_punct(':')?;
                    let (v, col) = self.expect_int()?;
                    if v > max {
                        return Err(self.err(
                            col,
                            ErrorKind::ImmediateOutOfRange,
                            format!("`{field}` {v} out of range 0..={max}"),
                        ));
                    }
                    inst.imm |= (v as u32) << shift;
                    let seen = offsets_seen.contains(&field.to_string());
                    offsets_seen.push(field.to_string());
                    seen
                }
                field @ ("dst_sel" | "dst_unused" | "src0_sel" | "src1_sel") => {
                    self.sdwa_select(inst, field, t.col)?;
                    let seen = offsets_seen.contains(&field.to_string());
                    offsets_seen.push(field.to_string());
                    seen
                }
                "mul" | "div" => {
                    self.expect_punct(':')?;
                    let (v, col) = self.expect_int()?;
                    let omod = match (name.as_str(), v) {
                        ("mul", 2) => Omod::Mul2,
                        ("mul", 4) => Omod::Mul4,
                        ("div", 2) => Omod::Div2,
                        _ => {
                            return Err(self.err(
                                col,
                                ErrorKind::Modifier,
                                format!("invalid output modifier `{name}:{v}`"),
                            ))
                        }
                    };
                    let m = &mut inst.mods;
                    std::mem::replace(&mut m.omod, omod) != Omod::None
                }
                other => {
                    return Err(self.err(
                        t.col,
                        ErrorKind::Syntax,
                        format!("unexpected `{other}` after operands (not a modifier)"),
                    ))
                }
            };
            if duplicate {
                return Err(self.err(
                    t.col,
                    ErrorKind::Modifier,
                    format!("duplicate modifier `{name}`"),
                ));
            }
        }
        Ok(first)
    }

    /// `field:VALUE` of an SDWA select (after the field name at column `col`): stores it in
    /// `inst.sdwa`, making the instruction SDWA.
    fn sdwa_select(
        &mut self,
        inst: &mut Instruction,
        field: &str,
        col: u32,
    ) -> Result<(), AsmError> {
        self.expect_punct(':')?;
        let vcol = self.col();
        let value = match self.peek() {
            Some(Token {
                tok: Tok::Ident(v), ..
            }) => v.clone(),
            _ => {
                return Err(self.err(
                    vcol,
                    ErrorKind::Syntax,
                    format!("expected a value for `{field}`"),
                ))
            }
        };
        self.pos += 1;
        let format = inst.opcode.format();
        if !format.has_vop3_form() {
            return Err(self.err(
                col,
                ErrorKind::Modifier,
                format!(
                    "{} does not accept `{field}` (SDWA is for VOP1, VOP2 and VOPC)",
                    inst.opcode
                ),
            ));
        }
        let refuse = match field {
            "dst_sel" | "dst_unused" if format == Format::Vopc => {
                Some("an SDWA compare writes a lane mask to vcc")
            }
            "src1_sel" if format == Format::Vop1 => Some("it has one source"),
            _ => None,
        };
        if let Some(why) = refuse {
            return Err(self.err(
                col,
                ErrorKind::Modifier,
                format!("{} does not accept `{field}` ({why})", inst.opcode),
            ));
        }
        let sdwa = inst.sdwa.get_or_insert_with(Sdwa::default);
        let bad = |this: &Self, expected: &str| {
            Err(this.err(
                vcol,
                ErrorKind::Modifier,
                format!("invalid {field} value `{value}` (expected {expected})"),
            ))
        };
        const SELS: &str = "BYTE_0..BYTE_3, WORD_0, WORD_1 or DWORD";
        match field {
            "dst_unused" => match DstUnused::from_name(&value) {
                Some(u) => sdwa.dst_unused = u,
                None => return bad(self, "UNUSED_PAD, UNUSED_SEXT or UNUSED_PRESERVE"),
            },
            _ => {
                let Some(sel) = SdwaSel::from_name(&value) else {
                    return bad(self, SELS);
                };
                match field {
                    "dst_sel" => sdwa.dst_sel = sel,
                    "src0_sel" => sdwa.src0_sel = sel,
                    _ => sdwa.src1_sel = sel,
                }
            }
        }
        Ok(())
    }

    /// One operand with its optional `-`, `|..|`, `neg(..)`, `abs(..)` decoration.
    fn operand(&mut self) -> Result<ParsedOperand, AsmError> {
        self.decorated_operand(0)
    }

    /// `operand` inside `depth` decorations; the depth bound keeps hostile input such as a
    /// million `-` from exhausting the stack (no valid operand nests more than two deep).
    fn decorated_operand(&mut self, depth: u32) -> Result<ParsedOperand, AsmError> {
        let col = self.col();
        if depth > 2 {
            return Err(self.err(col, ErrorKind::BadOperand, "too many operand modifiers"));
        }
        if self.eat_punct('-') {
            if matches!(
                self.peek(),
                Some(Token {
                    tok: Tok::Int(_) | Tok::Float(_),
                    ..
                })
            ) {
                let mut op = self.plain()?;
                op.value = match op.value {
                    Value::Int(v) => Value::Int(-v),
                    Value::Float(f) => Value::Float(-f),
                    v => v,
                };
                op.col = col;
                return Ok(op);
            }
            let mut op = self.decorated_operand(depth + 1)?;
            if op.neg {
                return Err(self.err(col, ErrorKind::BadOperand, "operand negated twice"));
            }
            op.neg = true;
            op.col = col;
            return Ok(op);
        }
        if self.eat_punct('|') {
            let mut op = self.decorated_operand(depth + 1)?;
            self.expect_punct('|')?;
            if op.abs {
                return Err(self.err(col, ErrorKind::BadOperand, "nested absolute value"));
            }
            op.abs = true;
            op.col = col;
            return Ok(op);
        }
        if let Some(Token {
            tok: Tok::Ident(name),
            ..
        }) = self.peek()
        {
            let func = name.to_ascii_lowercase();
            let is_call = matches!(
                self.tokens.get(self.pos + 1),
                Some(Token {
                    tok: Tok::Punct('('),
                    ..
                })
            );
            if is_call && func == "lit" {
                self.pos += 2;
                let mut op = self.decorated_operand(depth + 1)?;
                self.expect_punct(')')?;
                if op.neg || op.abs || op.sext || op.lit {
                    return Err(self.err(
                        col,
                        ErrorKind::BadOperand,
                        "lit(..) takes a number, without modifiers",
                    ));
                }
                op.lit = true;
                op.col = col;
                return Ok(op);
            }
            if is_call && (func == "neg" || func == "abs" || func == "sext") {
                self.pos += 2;
                let mut op = self.decorated_operand(depth + 1)?;
                self.expect_punct(')')?;
                let flag = match func.as_str() {
                    "neg" => &mut op.neg,
                    "abs" => &mut op.abs,
                    _ => &mut op.sext,
                };
                if std::mem::replace(flag, true) {
                    return Err(self.err(col, ErrorKind::BadOperand, format!("duplicate {func}")));
                }
                op.col = col;
                return Ok(op);
            }
        }
        self.plain()
    }

    /// A register, number or label.
    fn plain(&mut self) -> Result<ParsedOperand, AsmError> {
        let col = self.col();
        let Some(t) = self.peek().cloned() else {
            return Err(self.err(col, ErrorKind::Syntax, "expected an operand"));
        };
        self.pos += 1;
        let value = match t.tok {
            Tok::Int(v) => Value::Int(v as i128),
            Tok::Float(f) => Value::Float(f),
            Tok::Ident(name) if self.eat_punct('@') => self.symbol_reference(name, col)?,
            Tok::Ident(name) => self.register_or_label(&name, col)?,
            Tok::Punct(c) => {
                return Err(self.err(col, ErrorKind::Syntax, format!("unexpected `{c}`")))
            }
        };
        Ok(ParsedOperand {
            value,
            neg: false,
            abs: false,
            sext: false,
            lit: false,
            col,
        })
    }

    /// The next token if it is a word, lower-cased.
    fn word(&mut self) -> Option<String> {
        match self.peek() {
            Some(Token {
                tok: Tok::Ident(w), ..
            }) => {
                let w = w.to_ascii_lowercase();
                self.pos += 1;
                Some(w)
            }
            _ => None,
        }
    }

    /// The rest of `name@rel32@lo+4` after the first `@`.
    fn symbol_reference(&mut self, name: String, col: u32) -> Result<Value, AsmError> {
        let kind = self.word();
        if kind.as_deref() != Some("rel32") {
            return Err(self.err(
                col,
                ErrorKind::Unsupported,
                format!(
                    "`{name}@{}`: pws resolves PC-relative references to .rodata only (`{name}@rel32@lo+4`, `@rel32@hi+12`)",
                    kind.unwrap_or_default()
                ),
            ));
        }
        let half = if self.eat_punct('@') {
            self.word()
        } else {
            None
        };
        let hi = match half.as_deref() {
            Some("lo") => false,
            Some("hi") => true,
            _ => {
                return Err(self.err(
                    col,
                    ErrorKind::Syntax,
                    format!("`{name}@rel32` needs `@lo` or `@hi`"),
                ))
            }
        };
        let sign = if self.eat_punct('+') {
            1
        } else if self.eat_punct('-') {
            -1
        } else {
            0
        };
        let addend = if sign == 0 {
            0
        } else {
            let (v, vcol) = self.expect_int()?;
            let v = i64::try_from(v)
                .map_err(|_| self.err(vcol, ErrorKind::ImmediateOutOfRange, "addend too large"))?;
            sign * v
        };
        Ok(Value::Reloc(name, hi, addend))
    }

    fn register_or_label(&mut self, name: &str, col: u32) -> Result<Value, AsmError> {
        let lower = name.to_ascii_lowercase();
        if let Some((_, op, n)) = NAMED_REGISTERS.iter().find(|(r, _, _)| *r == lower) {
            return Ok(Value::Reg(*op, *n));
        }
        if UNSUPPORTED_REGISTERS.contains(&lower.as_str()) {
            return Err(self.err(
                col,
                ErrorKind::Unsupported,
                format!("register `{lower}` is not available on gfx8 or not in the pws subset"),
            ));
        }
        for (prefix, make) in [
            ("ttmp", Operand::Ttmp as fn(u8) -> Operand),
            ("s", Operand::Sgpr),
            ("v", Operand::Vgpr),
        ] {
            let Some(num) = lower.strip_prefix(prefix) else {
                continue;
            };
            if num.is_empty()
                && matches!(
                    self.peek(),
                    Some(Token {
                        tok: Tok::Punct('['),
                        ..
                    })
                )
            {
                self.pos += 1;
                let (first, fcol) = self.expect_int()?;
                let last = if self.eat_punct(':') {
                    self.expect_int()?.0
                } else {
                    first
                };
                self.expect_punct(']')?;
                if last < first || !matches!(last - first + 1, 1 | 2 | 3 | 4 | 8 | 16) {
                    return Err(self.err(
                        fcol,
                        ErrorKind::BadOperand,
                        format!("invalid register range {prefix}[{first}:{last}]"),
                    ));
                }
                let reg = u8::try_from(first).map_err(|_| self.out_of_range(col, prefix))?;
                return Ok(Value::Reg(make(reg), (last - first + 1) as u8));
            }
            if !num.is_empty() && num.chars().all(|c| c.is_ascii_digit()) {
                let n: u64 = num.parse().unwrap_or(u64::MAX);
                let reg = u8::try_from(n).map_err(|_| self.out_of_range(col, prefix))?;
                return Ok(Value::Reg(make(reg), 1));
            }
        }
        Ok(Value::Label(name.to_string()))
    }

    fn out_of_range(&self, col: u32, prefix: &str) -> AsmError {
        let max = match prefix {
            "s" => "s101",
            "v" => "v255",
            _ => "ttmp11",
        };
        self.err(
            col,
            ErrorKind::RegisterOutOfRange,
            format!("register out of range (last is {max})"),
        )
    }

    /// Fits a parsed operand into `slot` of `inst` with the signature's `width`.
    /// The dword of a literal written as a number (an integer in -2^31..2^32, or a float as
    /// its f32 bits); `what` is the error otherwise.
    fn literal_bits(&self, op: &ParsedOperand, what: &str) -> Result<u32, AsmError> {
        match op.value {
            Value::Int(v) if (-(1i128 << 31)..1i128 << 32).contains(&v) => Ok(v as u32),
            Value::Float(f) => Ok((f as f32).to_bits()),
            _ => Err(self.err(op.col, ErrorKind::BadOperand, what)),
        }
    }

    fn place(
        &mut self,
        inst: &mut Instruction,
        slot: Slot,
        width: Width,
        op: ParsedOperand,
    ) -> Result<(), AsmError> {
        let col = op.col;
        if op.lit {
            let bits = self.literal_bits(&op, "lit(..) takes a 32-bit number")?;
            let Slot::Src(i) = slot else {
                return Err(self.err(col, ErrorKind::BadOperand, "lit(..) is a source"));
            };
            inst.srcs[i] = Some(Operand::Literal(bits));
            self.forced_literal = true;
            return Ok(());
        }
        if slot == Slot::Src(inst.opcode.literal_k().unwrap_or(usize::MAX)) {
            // K is a literal dword whatever its value (llvm-mc prints it in hex).
            let bits = self.literal_bits(&op, "expected a 32-bit constant K")?;
            if op.neg || op.abs || op.sext {
                return Err(self.err(col, ErrorKind::Modifier, "modifiers on the constant K"));
            }
            inst.srcs[slot_index(slot)] = Some(Operand::Literal(bits));
            return Ok(());
        }
        let operand = match op.value {
            // A 16-bit integer instruction reads a 16-bit constant: an integer or a float (as
            // its f16 bits) that is not an inline integer is a literal, as llvm-mc encodes it.
            Value::Int(v) if inst.opcode.is_int16() && matches!(slot, Slot::Src(_)) => {
                if !(-0x8000..=0xffff).contains(&v) {
                    return Err(self.err(
                        col,
                        ErrorKind::ImmediateOutOfRange,
                        format!("immediate {v} does not fit in a 16-bit operand (-32768..=65535)"),
                    ));
                }
                Operand::half_constant(v as u16)
            }
            Value::Float(f) if inst.opcode.is_int16() && matches!(slot, Slot::Src(_)) => {
                Operand::half_constant(f16_bits(f))
            }
            // The `src_*` condition bits read as 0 or 1 at any width.
            Value::Reg(r @ (Operand::Vccz | Operand::Execz | Operand::Scc), _) => r,
            Value::Reg(r, n) => {
                if n != width.dwords() {
                    return Err(self.err(
                        col,
                        ErrorKind::BadOperand,
                        format!(
                            "expected a {}-dword operand, found a {n}-dword register",
                            width.dwords()
                        ),
                    ));
                }
                r
            }
            Value::Int(v) => {
                if !matches!(slot, Slot::Src(_)) {
                    return Err(self.err(col, ErrorKind::BadOperand, "expected a register"));
                }
                // 64-bit patterns above i64::MAX (negative doubles) wrap like llvm-mc's parser.
                let value = i64::try_from(v)
                    .ok()
                    .or_else(|| u64::try_from(v).ok().map(|u| u as i64));
                let operand = value
                    .and_then(|v| Operand::constant(v, width))
                    .ok_or_else(|| {
                        self.err(
                            col,
                            ErrorKind::ImmediateOutOfRange,
                            format!("immediate {v} does not fit in a 32-bit literal"),
                        )
                    })?;
                // llvm-mc takes `s_mov_b64 s[0:1], -17` and encodes 0xffffffef, which the
                // hardware zero-extends for a b64 or u64 operand: refused, rather than read
                // as 4294967279.
                if let (Operand::Literal(bits), Some(value @ ..0)) = (operand, value) {
                    if width == Width::B64 && !inst.opcode.sign_extends_literal64() {
                        return Err(self.err(
                            col,
                            ErrorKind::ImmediateOutOfRange,
                            format!(
                                "{value} is not a 64-bit literal of {}: the hardware zero-extends a 32-bit literal in an unsigned 64-bit operand, so it would read {} ({bits:#x}); write that if it is meant",
                                inst.opcode,
                                u64::from(bits)
                            ),
                        ));
                    }
                }
                operand
            }
            Value::Float(f) => {
                if !matches!(slot, Slot::Src(_)) {
                    return Err(self.err(col, ErrorKind::BadOperand, "expected a register"));
                }
                float_operand(f, width).ok_or_else(|| {
                    self.err(
                        col,
                        ErrorKind::ImmediateOutOfRange,
                        "a 64-bit operand takes only the inline floating-point constants",
                    )
                })?
            }
            Value::Label(name) | Value::Reloc(name, ..) => {
                return Err(self.err(
                    col,
                    ErrorKind::BadOperand,
                    format!("expected an operand, found `{name}`"),
                ))
            }
        };
        match slot {
            Slot::Dst => inst.dst = Some(operand),
            Slot::Sdst => inst.sdst = Some(operand),
            Slot::Src(i) => {
                inst.srcs[i] = Some(operand);
                inst.mods.neg |= (op.neg as u8) << i;
                inst.mods.abs |= (op.abs as u8) << i;
                inst.mods.sext |= (op.sext as u8) << i;
            }
            _ => {}
        }
        if (op.neg || op.abs || op.sext) && !matches!(slot, Slot::Src(_)) {
            return Err(self.err(
                col,
                ErrorKind::Modifier,
                "input modifiers apply to sources only",
            ));
        }
        Ok(())
    }

    /// The immediate operand of SOPK, SOPP and SMEM; returns a branch label to resolve.
    fn immediate(&mut self, inst: &mut Instruction) -> Result<Option<(String, u32)>, AsmError> {
        let kind = inst.opcode.signature().imm;
        if kind == ImmKind::Waitcnt {
            inst.imm = self.waitcnt()?;
            return Ok(None);
        }
        if kind == ImmKind::Hwreg
            && matches!(
                self.peek(),
                Some(Token {
                    tok: Tok::Ident(_),
                    ..
                })
            )
        {
            inst.imm = self.hwreg()?;
            return Ok(None);
        }
        let op = self.operand()?;
        let col = op.col;
        if op.neg || op.abs || op.sext {
            return Err(self.err(col, ErrorKind::Modifier, "modifiers on an immediate"));
        }
        let (min, max) = match kind {
            ImmKind::Simm16 | ImmKind::Branch => (-0x8000, 0xffff),
            ImmKind::Uimm16 | ImmKind::Nop => (0, 0xffff),
            _ => (0, 0xf_ffff),
        };
        match op.value {
            Value::Int(v) => {
                if v < min || v > max {
                    return Err(self.err(
                        col,
                        ErrorKind::ImmediateOutOfRange,
                        format!("immediate {v} out of range {min}..={max}"),
                    ));
                }
                inst.imm = if kind == ImmKind::SmemOffset {
                    v as u32
                } else {
                    v as u16 as u32
                };
                Ok(None)
            }
            Value::Label(name) if kind == ImmKind::Branch => Ok(Some((name, col))),
            Value::Reg(r, 1) if kind == ImmKind::SmemOffset => {
                inst.srcs[1] = Some(r);
                Ok(None)
            }
            _ => Err(self.err(
                col,
                ErrorKind::BadOperand,
                match kind {
                    ImmKind::Branch => "expected a label or a dword offset",
                    ImmKind::SmemOffset => "expected a 20-bit offset or an SGPR",
                    _ => "expected an integer immediate",
                },
            )),
        }
    }

    /// `hwreg(REG)` or `hwreg(REG, offset, size)`, REG a name of [`HWREG_NAMES`] or an id
    /// 0..=63, as llvm-mc writes them: the 16-bit field of `s_setreg_imm32_b32`.
    fn hwreg(&mut self) -> Result<u32, AsmError> {
        let col = self.col();
        match self.peek() {
            Some(Token {
                tok: Tok::Ident(name),
                ..
            }) if name.eq_ignore_ascii_case("hwreg") => self.pos += 1,
            _ => {
                return Err(self.err(
                    col,
                    ErrorKind::Syntax,
                    "expected hwreg(...) or a 16-bit value",
                ))
            }
        }
        self.expect_punct('(')?;
        let id = match self.peek().cloned() {
            Some(Token {
                tok: Tok::Ident(name),
                col,
            }) => {
                self.pos += 1;
                HWREG_NAMES
                    .iter()
                    .position(|n| n.eq_ignore_ascii_case(&name))
                    .ok_or_else(|| {
                        self.err(
                            col,
                            ErrorKind::BadOperand,
                            format!("unknown hardware register `{}`", crate::diag::value(&name)),
                        )
                    })? as u64
            }
            _ => {
                let (v, vcol) = self.expect_int()?;
                if v > 63 {
                    return Err(self.err(
                        vcol,
                        ErrorKind::ImmediateOutOfRange,
                        "a hardware register id is 0..=63",
                    ));
                }
                v
            }
        };
        let (mut offset, mut size) = (0, 32);
        if self.eat_punct(',') {
            let (o, ocol) = self.expect_int()?;
            self.expect_punct(',')?;
            let (s, scol) = self.expect_int()?;
            if o > 31 {
                return Err(self.err(
                    ocol,
                    ErrorKind::ImmediateOutOfRange,
                    "a field offset is 0..=31",
                ));
            }
            if !(1..=32).contains(&s) {
                return Err(self.err(
                    scol,
                    ErrorKind::ImmediateOutOfRange,
                    "a field size is 1..=32",
                ));
            }
            (offset, size) = (o, s);
        }
        self.expect_punct(')')?;
        Ok(hwreg_field(id as u32, offset as u32, size as u32))
    }

    /// The value `s_setreg_imm32_b32` writes: an integer, always encoded as a literal dword.
    fn setreg_value(&mut self) -> Result<Operand, AsmError> {
        let op = self.operand()?;
        match op.value {
            Value::Int(v)
                if !(op.neg || op.abs || op.sext) && (-(1i128 << 31)..1i128 << 32).contains(&v) =>
            {
                Ok(Operand::Literal(v as u32))
            }
            _ => Err(self.err(
                op.col,
                ErrorKind::BadOperand,
                "s_setreg_imm32_b32 writes a 32-bit integer",
            )),
        }
    }

    /// `vmcnt(n) expcnt(n) lgkmcnt(n)` (any subset, any order, separated by spaces, `&` or
    /// `,`), or a raw 16-bit value.
    fn waitcnt(&mut self) -> Result<u32, AsmError> {
        if let Some(Token {
            tok: Tok::Int(v),
            col,
        }) = self.peek().cloned()
        {
            self.pos += 1;
            if v > 0xffff {
                return Err(self.err(
                    col,
                    ErrorKind::ImmediateOutOfRange,
                    "s_waitcnt takes a 16-bit value",
                ));
            }
            return Ok(v as u32);
        }
        let mut imm = VMCNT_MAX | EXPCNT_MAX << 4 | LGKMCNT_MAX << 8;
        let mut any = false;
        while let Some(Token {
            tok: Tok::Ident(name),
            col,
        }) = self.peek().cloned()
        {
            let (shift, max) = match name.to_ascii_lowercase().as_str() {
                "vmcnt" => (0, VMCNT_MAX),
                "expcnt" => (4, EXPCNT_MAX),
                "lgkmcnt" => (8, LGKMCNT_MAX),
                _ if any => break,
                _ => {
                    return Err(self.err(
                        col,
                        ErrorKind::BadOperand,
                        format!("expected vmcnt, expcnt or lgkmcnt, found `{name}`"),
                    ))
                }
            };
            self.pos += 1;
            self.expect_punct('(')?;
            let (v, vcol) = self.expect_int()?;
            self.expect_punct(')')?;
            if v > max as u64 {
                return Err(self.err(
                    vcol,
                    ErrorKind::ImmediateOutOfRange,
                    format!("too large value for {name} (max {max})"),
                ));
            }
            imm = imm & !(max << shift) | (v as u32) << shift;
            any = true;
            if !self.eat_punct('&') {
                self.eat_punct(',');
            }
        }
        if !any {
            return Err(self.err(
                self.col(),
                ErrorKind::Syntax,
                "expected vmcnt(n), expcnt(n), lgkmcnt(n) or a number",
            ));
        }
        Ok(imm)
    }
}

/// The operand for a floating-point constant read with `width`: an inline constant, or for
/// 32-bit operands a literal holding its single-precision bits (as llvm-mc does).
fn float_operand(f: f64, width: Width) -> Option<Operand> {
    match width {
        Width::B32 => Operand::constant((f as f32).to_bits() as i64, Width::B32),
        _ => {
            if f == 0.0 && f.is_sign_positive() {
                return Some(Operand::Int(0));
            }
            InlineFloat::ALL
                .into_iter()
                .find(|c| c.f64_bits() == f.to_bits())
                .map(Operand::Float)
        }
    }
}

/// `f` rounded to the nearest IEEE half-precision value, ties to even (overflow to infinity):
/// the bits of a float written as the operand of a 16-bit instruction.
fn f16_bits(f: f64) -> u16 {
    let sign = if f.is_sign_negative() { 0x8000 } else { 0 };
    let a = f.abs();
    if a.is_nan() {
        return 0x7e00;
    }
    if a <= 2f64.powi(-25) {
        return sign;
    }
    // The spacing of halves at `a`: 2^-24 below 2^-14 (subnormals), 2^(e - 10) from 2^e.
    let exponent = |v: f64| ((v.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let quantum = 2f64.powi(exponent(a).max(-14) - 10);
    let v = (a / quantum).round_ties_even() * quantum;
    if v >= 65520.0 {
        return sign | 0x7c00;
    }
    if v < 2f64.powi(-14) {
        return sign | (v / 2f64.powi(-24)) as u16;
    }
    let e = exponent(v);
    let mantissa = (v / 2f64.powi(e - 10)) as u16 - 0x400;
    sign | ((e + 15) as u16) << 10 | mantissa
}

/// Why clang's output holds an unsupported `mnemonic`, for the kinds users meet: buffer forms
/// beyond private memory, 16-bit arithmetic and doubles.
fn unsupported_hint(mnemonic: &str) -> &'static str {
    let base = mnemonic
        .strip_suffix("_e32")
        .or_else(|| mnemonic.strip_suffix("_e64"))
        .or_else(|| mnemonic.strip_suffix("_sdwa"))
        .unwrap_or(mnemonic);
    // A conversion names its destination type first (`v_cvt_f64_f32`, `v_cvt_f16_f32`).
    let has_type = |t: &str| base.split('_').any(|part| part == t);
    if mnemonic.starts_with("buffer_") {
        " (pws runs the untyped dword, byte and short buffer loads and stores clang emits for \
         private memory, not this one)"
    } else if has_type("f16") {
        " (a half-precision instruction: clang emits them for half arithmetic; pws runs float \
         (f32) arithmetic only: compute in float, and load and store halves with vload_half \
         and vstore_half)"
    } else if ["_u16", "_i16", "_b16"].iter().any(|w| base.ends_with(w)) {
        " (pws runs the 16-bit integer add, subtract, multiply, multiply-add, shift, min, max \
         and compares, not this one: compute in int or uint and convert when storing)"
    } else if has_type("f64") {
        " (a double-precision instruction: pws runs float (f32) arithmetic only)"
    } else {
        ""
    }
}

/// The source index of a `Slot::Src`.
fn slot_index(slot: Slot) -> usize {
    match slot {
        Slot::Src(i) => i,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::f16_bits;

    #[test]
    fn halves_round_to_nearest_even() {
        assert_eq!(f16_bits(1.0), 0x3c00);
        assert_eq!(f16_bits(-0.5), 0xb800);
        assert_eq!(f16_bits(1.5), 0x3e00);
        assert_eq!(f16_bits(0.15915494), 0x3118);
        assert_eq!(f16_bits(65504.0), 0x7bff);
        assert_eq!(f16_bits(65520.0), 0x7c00);
        assert_eq!(f16_bits(2f64.powi(-24)), 0x0001);
        assert_eq!(
            f16_bits(2f64.powi(-25)),
            0x0000,
            "a tie rounds to the even zero"
        );
        assert_eq!(f16_bits(3.0 * 2f64.powi(-25)), 0x0002);
        assert_eq!(f16_bits(2f64.powi(-14)), 0x0400);
        assert_eq!(
            f16_bits(1.0 + 2f64.powi(-11)),
            0x3c00,
            "a tie rounds to even"
        );
        assert_eq!(f16_bits(1.0 + 3.0 * 2f64.powi(-11)), 0x3c02);
        assert_eq!(f16_bits(-0.0), 0x8000);
    }
}
