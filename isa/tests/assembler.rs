//! Assembler behaviour beyond single instructions: labels and branches, directives, comments,
//! the program API, and one test per error class with its exact position and message.

use pws_isa::{assemble, decode, AsmError, ErrorKind, Opcode, Operand, Program};

fn err(src: &str) -> AsmError {
    assemble(src, "k.s").expect_err(src)
}

#[test]
fn labels_and_branches() {
    let src = "\
start:
  s_mov_b32 s0, 0x12345678   ; 8 bytes with its literal
loop: s_sub_u32 s0, s0, 1
  s_cmp_lg_u32 s0, 0
  s_cbranch_scc1 loop
  s_branch end
  s_nop 0
end:
  s_endpgm
";
    let p = assemble(src, "k.s").unwrap();
    assert_eq!(p.labels["start"], 0);
    assert_eq!(p.labels["loop"], 8);
    assert_eq!(p.labels["end"], 28);
    let pcs: Vec<u32> = p.instructions.iter().map(|l| l.pc).collect();
    assert_eq!(pcs, [0, 8, 12, 16, 20, 24, 28]);
    let lines: Vec<u32> = p.instructions.iter().map(|l| l.line).collect();
    assert_eq!(lines, [2, 3, 4, 5, 6, 7, 9]);
    // s_cbranch_scc1 at 16 -> 8: (8 - 20) / 4 = -3.
    let br = &p.instructions[3];
    assert_eq!(br.words, [0xBF85_FFFD]);
    assert_eq!(br.item.branch_target(br.pc), Some(8));
    assert!(br.item.is_branch() && br.item.is_conditional_branch() && !br.item.is_terminator());
    let jmp = &p.instructions[4];
    assert_eq!(jmp.item.branch_target(jmp.pc), Some(28));
    assert!(jmp.item.is_terminator());
    assert!(p.instructions[6].item.is_terminator());
    assert_eq!(
        p.bytes()[..8],
        [0xff, 0x00, 0x80, 0xbe, 0x78, 0x56, 0x34, 0x12]
    );
    assert_eq!(p.size_bytes(), 32);
    assert_eq!(p.instruction_at(8).unwrap().item.opcode, Opcode::SSubU32);
    assert!(
        p.instruction_at(4).is_none(),
        "4 is the literal of the first instruction"
    );
}

#[test]
fn listing_names_branch_targets() {
    let p = Program::from_words(&[0xBF85_FFFF, 0xBF82_0000, 0xBF81_0000]).unwrap();
    let listing = p.listing();
    assert_eq!(p.labels["L_0000"], 0);
    assert_eq!(p.labels["L_0008"], 8);
    assert!(
        listing.starts_with("L_0000:\n\ts_cbranch_scc1 L_0000"),
        "{listing}"
    );
    assert!(listing.contains("// 000004: bf820000"), "{listing}");
    assert_eq!(assemble(&listing, "l.s").unwrap().words(), p.words());
}

#[test]
fn exec_and_scc_properties() {
    let p = assemble(
        "s_and_saveexec_b64 s[2:3], vcc\n s_mov_b64 exec, s[2:3]\n v_cmpx_eq_u32 vcc, v0, v1\n \
         s_cbranch_execz 0\n v_mov_b32 v0, v1\n s_add_u32 s0, s1, s2\n s_addc_u32 s0, s1, s2\n \
         s_mov_b32 s0, exec_lo\n s_mov_b32 s0, s1",
        "k.s",
    )
    .unwrap();
    let i: Vec<_> = p.instructions.iter().map(|l| l.item).collect();
    assert!(i[0].writes_exec() && i[0].reads_exec() && i[0].writes_scc());
    assert!(i[1].writes_exec() && !i[1].reads_exec());
    assert!(i[2].writes_exec() && i[2].reads_exec());
    assert!(i[3].reads_exec() && !i[3].writes_exec());
    assert!(i[4].reads_exec() && !i[4].writes_exec());
    assert!(i[5].writes_scc() && !i[5].reads_scc());
    assert!(i[6].reads_scc() && i[6].writes_scc());
    assert!(i[7].reads_exec() && !i[8].reads_exec());
}

#[test]
fn implicit_operands_are_explicit_in_the_model() {
    let p = assemble(
        "v_addc_u32 v1, vcc, v2, v3, vcc\nv_cmp_lt_i32 vcc, v1, v2",
        "k.s",
    )
    .unwrap();
    let addc = p.instructions[0].item;
    assert!(!addc.vop3);
    assert_eq!(addc.sdst, Some(Operand::VccLo));
    assert_eq!(addc.srcs[2], Some(Operand::VccLo));
    assert_eq!(p.instructions[1].item.sdst, Some(Operand::VccLo));
    // Unsuffixed mnemonics take e32 when the operands allow it, e64 otherwise (as llvm-mc).
    let p = assemble(
        "v_add_u32 v1, s[4:5], v2, v3\nv_cmp_eq_u32 vcc, v1, s2",
        "k.s",
    )
    .unwrap();
    assert!(p.instructions.iter().all(|l| l.item.vop3));
}

/// clang's `.rodata` for program-scope `__constant` tables: the data lands after the code at
/// [`pws_isa::Rodata::ALIGN`], and each `sym@rel32@lo+4` / `@hi+12` literal holds the distance
/// from its own address minus the addend's bias, so that `s_getpc_b64` (the address of the
/// next instruction) plus the literals is the symbol's address.
#[test]
fn rodata_and_pc_relative_references() {
    let src = "\
k:
\ts_getpc_b64 s[4:5]
\ts_add_u32 s4, s4, lut@rel32@lo+4
\ts_addc_u32 s5, s5, lut@rel32@hi+12
\ts_getpc_b64 s[6:7]
\ts_add_u32 s6, s6, name@rel32@lo+4
\ts_addc_u32 s7, s7, name@rel32@hi+12
\ts_endpgm
\t.section\t.rodata,#alloc
\t.p2align\t2
lut:
\t.long\t1, -2
\t.short\t0x1234
\t.byte\t255, -1
\t.p2align\t3
\t.quad\t0x0102030405060708
name:
\t.ascii\t\"\\t\\004\\n\\x41\"
\t.asciz\t\"ok\"
\t.zero\t3
\t.space\t2, 7
\t.text
";
    let p = assemble(src, "k.s").unwrap();
    let code = p.size_bytes();
    assert_eq!(code, 4 + 8 + 8 + 4 + 8 + 8 + 4);
    assert_eq!(p.rodata.offset, 256);
    assert_eq!(p.rodata.symbols["lut"], 0);
    assert_eq!(p.rodata.symbols["name"], 24);
    let mut want = Vec::new();
    want.extend(1u32.to_le_bytes());
    want.extend((-2i32).to_le_bytes());
    want.extend(0x1234u16.to_le_bytes());
    want.extend([255, 255, 0, 0, 0, 0]);
    want.extend(0x0102_0304_0506_0708u64.to_le_bytes());
    want.extend([9, 4, 10, 0x41, b'o', b'k', 0, 0, 0, 0, 7, 7]);
    assert_eq!(p.rodata.bytes, want);
    assert_eq!(p.rodata.words()[..2], [1, (-2i32) as u32]);
    for (getpc, symbol) in [(0usize, "lut"), (3, "name")] {
        let next = p.instructions[getpc + 1].pc;
        let lo = p.instructions[getpc + 1].words[1];
        let hi = p.instructions[getpc + 2].words[1];
        // s_add_u32's literal sits at next + 4, s_addc_u32's at next + 12: the addends.
        let address = u64::from(next) + u64::from(lo) + (u64::from(hi) << 32);
        assert_eq!(
            address & 0xffff_ffff_ffff,
            u64::from(p.rodata.offset + p.rodata.symbols[symbol]),
            "{symbol}"
        );
        // The high half is a literal even when it is 0, as a linker leaves it.
        assert_eq!(p.instructions[getpc + 2].words.len(), 2);
    }
    assert_eq!(p.instructions[0].words, [0xBE84_1C00]);
    // The image decodes back, its relocated literals included (the high halves are 0 in a
    // literal dword, which text would write as an inline constant), and its listing writes
    // those as `lit(0x0)`, so that it assembles to the same words.
    let back = pws_isa::Program::from_words(&p.words()).unwrap();
    let items = |p: &pws_isa::Program| {
        p.instructions
            .iter()
            .map(|l| l.item.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(items(&back), items(&p));
    let listing = back.listing();
    assert!(listing.contains("lit(0x0)"), "{listing}");
    let again = assemble(&listing, "listing.s").unwrap();
    assert_eq!(again.words(), back.words());
}

/// `lit(..)` forces a literal dword where an inline constant would hold the value (LLVM 18's
/// syntax), and the printer writes such a literal that way: text and words round-trip.
#[test]
fn forced_literals_round_trip() {
    for (line, words) in [
        ("s_mov_b32 s1, lit(0x0)", vec![0xBE81_00FF, 0]),
        (
            "v_add_u32_e32 v1, vcc, lit(0x40), v2",
            vec![0x3202_04FF, 0x40],
        ),
        ("s_add_u32 s2, s3, lit(-1)", vec![0x8002_FF03, 0xFFFF_FFFF]),
    ] {
        let p = assemble(line, "k.s").unwrap();
        assert_eq!(p.words(), words, "{line}");
        let text = p.instructions[0].item.to_string();
        assert!(text.contains("lit(0x"), "{line}: {text}");
        assert_eq!(assemble(&text, "k.s").unwrap().words(), words, "{text}");
    }
    // A value no inline constant holds prints as a plain literal.
    let p = assemble("s_mov_b32 s1, lit(0x1234)", "k.s").unwrap();
    assert_eq!(p.instructions[0].item.to_string(), "s_mov_b32 s1, 0x1234");
    for (line, message) in [
        ("s_mov_b32 s1, lit(s2)", "lit(..) takes a 32-bit number"),
        (
            "s_mov_b32 s1, lit(|1|)",
            "lit(..) takes a number, without modifiers",
        ),
        ("s_mov_b32 lit(1), s2", "lit(..) is a source"),
    ] {
        let e = assemble(line, "k.s").unwrap_err();
        assert!(e.to_string().contains(message), "{line}: {e}");
    }
}

#[test]
fn clang_directives_are_ignored_and_the_descriptor_read() {
    let src = "\
\t.text
\t.amdgcn_target \"amdgcn-amd-amdhsa--gfx803\"
\t.globl\tk ; -- Begin function
\t.p2align\t8
\t.type\tk,@function
k:
\ts_endpgm
\t.section\t.rodata,#alloc
\t.amdhsa_kernel k
\t\t.amdhsa_next_free_vgpr 32
\t\t.amdhsa_next_free_sgpr 0x10 ; hex works too
\t\t.amdhsa_system_sgpr_workgroup_id_y 1
\t\t.amdhsa_system_vgpr_workitem_id 1
\t\t.amdhsa_ieee_mode 1
\t.end_amdhsa_kernel
\t.amdgpu_metadata
---
amdhsa.kernels:
  - .name: k
    .args: [ s_bogus v1 ]
...
\t.end_amdgpu_metadata
";
    let p = assemble(src, "k.s").unwrap();
    assert_eq!(p.words(), [0xBF81_0000]);
    assert_eq!(p.labels["k"], 0);
    let d = p
        .descriptor
        .expect("the kernel at address 0 has a descriptor");
    assert_eq!((d.name.as_str(), d.line), ("k", 9));
    assert_eq!((d.next_free_vgpr, d.next_free_sgpr), (32, 16));
    assert_eq!((d.workgroup_id, d.workitem_id), ([true, true, false], 1));
    assert!(!d.kernarg_segment_ptr);
    assert!(assemble("s_endpgm", "k.s").unwrap().descriptor.is_none());
}

/// A file with two kernels: the one at address 0 runs, so its descriptor is the program's.
#[test]
fn the_descriptor_is_the_first_kernels() {
    let block = |k: &str, v: u32| {
        format!(".amdhsa_kernel {k}\n.amdhsa_next_free_vgpr {v}\n.amdhsa_next_free_sgpr 8\n.end_amdhsa_kernel\n")
    };
    let src = format!(
        "a:\ns_endpgm\nb:\ns_endpgm\n{}{}",
        block("b", 2),
        block("a", 1)
    );
    let d = assemble(&src, "k.s").unwrap().descriptor.unwrap();
    assert_eq!((d.name.as_str(), d.next_free_vgpr), ("a", 1));
}

/// (source, kind, line, column, message)
const ERRORS: &[(&str, ErrorKind, u32, u32, &str)] = &[
    ("s_nop 0\n  frob s0", ErrorKind::UnknownMnemonic, 2, 3, "unknown mnemonic `frob`"),
    (
        "v_mac_legacy_f32 v0, v1, v2",
        ErrorKind::Unsupported,
        1,
        1,
        "unsupported instruction `v_mac_legacy_f32`: not in the pws GCN3 subset",
    ),
    (
        "v_writelane_b32 v40, v0, 0",
        ErrorKind::BadOperand,
        1,
        22,
        "the lane and the value written are scalar: a scalar register or an inline constant",
    ),
    (
        "v_readlane_b32 s4, v1, 0x100",
        ErrorKind::Literal,
        1,
        24,
        "a lane access takes no literal dword on gfx8: a scalar register or an inline constant",
    ),
    (
        "v_readfirstlane_b32 v4, v1",
        ErrorKind::BadOperand,
        1,
        21,
        "expected a 32-bit scalar register",
    ),
    (
        "v_add_f16_e32 v1, 3, v1",
        ErrorKind::Unsupported,
        1,
        1,
        "unsupported instruction `v_add_f16_e32`: not in the pws GCN3 subset (a half-precision instruction: clang emits them for half arithmetic; pws runs float (f32) arithmetic only: compute in float, and load and store halves with vload_half and vstore_half)",
    ),
    (
        "v_cmp_t_u16_e32 vcc, v1, v1",
        ErrorKind::Unsupported,
        1,
        1,
        "unsupported instruction `v_cmp_t_u16_e32`: not in the pws GCN3 subset (pws runs the 16-bit integer add, subtract, multiply, multiply-add, shift, min, max and compares, not this one: compute in int or uint and convert when storing)",
    ),
    ("v_add_u16 v1, 0x10000, v1", ErrorKind::ImmediateOutOfRange, 1, 15, "immediate 65536 does not fit in a 16-bit operand (-32768..=65535)"),
    (
        "v_fma_f64 v[0:1], v[2:3], v[4:5], v[6:7]",
        ErrorKind::Unsupported,
        1,
        1,
        "unsupported instruction `v_fma_f64`: not in the pws GCN3 subset (a double-precision instruction: pws runs float (f32) arithmetic only)",
    ),
    // A conversion is usually the first such instruction a kernel meets (`(double)x`,
    // `(half)x`): its destination type comes first.
    (
        "v_cvt_f64_f32_e32 v[0:1], v2",
        ErrorKind::Unsupported,
        1,
        1,
        "unsupported instruction `v_cvt_f64_f32_e32`: not in the pws GCN3 subset (a double-precision instruction: pws runs float (f32) arithmetic only)",
    ),
    (
        "v_cvt_f16_f32_e32 v0, v2",
        ErrorKind::Unsupported,
        1,
        1,
        "unsupported instruction `v_cvt_f16_f32_e32`: not in the pws GCN3 subset (a half-precision instruction: clang emits them for half arithmetic; pws runs float (f32) arithmetic only: compute in float, and load and store halves with vload_half and vstore_half)",
    ),
    ("buffer_load_dword v1, v2, s[0:3], 0 idxen", ErrorKind::Unsupported, 1, 37, "MUBUF `idxen` is not supported: pws runs the buffer accesses clang emits for private memory (`off` or `offen`)"),
    ("buffer_load_dword v1, v2, s[0:3], 0", ErrorKind::Modifier, 1, 23, "a VGPR offset needs `offen` after the operands (or `off` for none)"),
    ("buffer_store_dword v1, off, s[0:3], s4 offen", ErrorKind::Modifier, 1, 40, "`offen` takes its offset from a VGPR: write the VGPR instead of `off`"),
    ("buffer_load_dword v1, off, s[0:3], 0 offset:4096", ErrorKind::ImmediateOutOfRange, 1, 45, "`offset` 4096 out of range 0..=4095"),
    ("buffer_load_dword v1, off, s[0:3], 0x1234", ErrorKind::Literal, 1, 36, "MUBUF has no literal dword: SOFFSET is a scalar register or an inline constant"),
    ("buffer_load_dword v1, off, s[2:5], 0", ErrorKind::BadOperand, 1, 28, "invalid register alignment"),
    (
        "buffer_load_format_x v1, off, s[0:3], 0",
        ErrorKind::Unsupported,
        1,
        1,
        "unsupported instruction `buffer_load_format_x`: not in the pws GCN3 subset (pws runs the untyped dword, byte and short buffer loads and stores clang emits for private memory, not this one)",
    ),
    ("s_mov_b32 s0, v[1:2]", ErrorKind::BadOperand, 1, 15, "expected a 1-dword operand, found a 2-dword register"),
    ("s_mov_b32 s0, s102", ErrorKind::RegisterOutOfRange, 1, 15, "register s102 out of range (s0..s101)"),
    ("v_mov_b32 v0, v300", ErrorKind::RegisterOutOfRange, 1, 15, "register out of range (last is v255)"),
    ("s_movk_i32 s0, 0x12345", ErrorKind::ImmediateOutOfRange, 1, 16, "immediate 74565 out of range -32768..=65535"),
    ("s_branch nowhere", ErrorKind::UndefinedLabel, 1, 10, "undefined label `nowhere`"),
    ("a:\n s_nop 0\n a: s_endpgm", ErrorKind::DuplicateLabel, 3, 2, "duplicate label `a`"),
    ("s_add_u32 s0, 0x11111111, 0x22222222", ErrorKind::Literal, 1, 27, "only one literal operand is allowed"),
    (
        "v_add_f32 v0, s0, s1",
        ErrorKind::ConstantBus,
        1,
        19,
        "invalid operand (violates constant bus restrictions: at most one SGPR, special register or literal per VALU instruction)",
    ),
    ("v_and_b32_e64 v0, v1, v2 clamp", ErrorKind::Modifier, 1, 26, "v_and_b32 does not accept clamp"),
    (
        "v_add_f32_e32 v0, v1, v2 clamp",
        ErrorKind::Modifier,
        1,
        26,
        "v_add_f32 does not accept clamp in the e32 encoding (use _e64)",
    ),
    ("s_mov_b32 s0,", ErrorKind::Syntax, 1, 14, "too few operands: s_mov_b32 takes 2"),
    ("s_mov_b32 s0, s1 # x", ErrorKind::Syntax, 1, 18, "unexpected character `#`"),
    (".long 5", ErrorKind::Unsupported, 1, 1, "unsupported directive `.long` here: data belongs in .rodata, not in .text"),
    (".word 5", ErrorKind::Unsupported, 1, 1, "unsupported directive `.word`"),
    (
        ".data\nx: .long 1",
        ErrorKind::Unsupported,
        2,
        4,
        "unsupported directive `.long` here: pws loads only the read-only .rodata, not .data (the writable program-scope variable `x`): pass it as a buffer",
    ),
    (".section .rodata\n  s_endpgm", ErrorKind::Syntax, 2, 3, "an instruction in section .rodata: code belongs in .text"),
    ("s_add_u32 s0, s0, t@rel32@lo+4", ErrorKind::UndefinedLabel, 1, 19, "undefined symbol `t`"),
    ("f: s_add_u32 s0, s0, f@rel32@lo+4", ErrorKind::UndefinedLabel, 1, 22, "`f` is code: pws runs no calls"),
    (
        "s_add_u32 s0, s0, t@rel32@hi+12\n.bss\nt:",
        ErrorKind::UndefinedLabel,
        1,
        19,
        "`t` is in section .bss: pws loads only .rodata (read-only program-scope data)",
    ),
    (
        "s_add_u32 s0, s0, t@gotpcrel32@lo+4",
        ErrorKind::Unsupported,
        1,
        19,
        "`t@gotpcrel32`: pws resolves PC-relative references to .rodata only (`t@rel32@lo+4`, `@rel32@hi+12`)",
    ),
    ("s_add_u32 s0, s0, t@rel32+4", ErrorKind::Syntax, 1, 19, "`t@rel32` needs `@lo` or `@hi`"),
    ("s_add_u32 s[0:1], s0, t@rel32@lo", ErrorKind::BadOperand, 1, 11, "expected a 1-dword operand, found a 2-dword register"),
    ("s_add_u32 s0, -t@rel32@lo, s0", ErrorKind::BadOperand, 1, 15, "`t@rel32` is a 32-bit source without modifiers"),
    (
        ".rodata\n.zero 20000000",
        ErrorKind::Unsupported,
        2,
        6,
        "the .rodata segment would grow to 20000000 bytes; pws takes at most 16777216",
    ),
    (".rodata\n.byte 1, 256", ErrorKind::ImmediateOutOfRange, 2, 6, "`.byte`: 256 does not fit in 1 bytes"),
    (".rodata\n.short -32769", ErrorKind::ImmediateOutOfRange, 2, 7, "`.short`: -32769 does not fit in 2 bytes"),
    (
        ".rodata\n.quad t",
        ErrorKind::Syntax,
        2,
        6,
        "`.quad`: `t` is a symbol: pws places no addresses in data (a table of pointers)",
    ),
    (".rodata\n.ascii \"ab", ErrorKind::Syntax, 2, 7, "unterminated string"),
    (".rodata\n.p2align 40", ErrorKind::Syntax, 2, 1, "`.p2align` takes an alignment up to 64 KiB, found `40`"),
    ("x: s_nop 0\n.rodata\nx: .byte 1", ErrorKind::DuplicateLabel, 3, 1, "duplicate label `x`"),
    ("  .frobnicate", ErrorKind::Syntax, 1, 3, "unknown directive `.frobnicate`"),
    (
        "s_nop 0\n.amdgpu_metadata\n---\n",
        ErrorKind::Syntax,
        2,
        1,
        ".amdgpu_metadata block without .end_amdgpu_metadata",
    ),
    (
        "k:\n.amdhsa_kernel k\n.amdhsa_next_free_vgpr 1\n",
        ErrorKind::Syntax,
        2,
        1,
        ".amdhsa_kernel block without .end_amdhsa_kernel",
    ),
    (
        "k:\n.amdhsa_kernel k\n.amdhsa_next_free_vgpr 1\n.end_amdhsa_kernel",
        ErrorKind::Syntax,
        4,
        1,
        ".amdhsa_next_free_sgpr directive is required",
    ),
    (
        "k:\n.amdhsa_kernel k\n  .amdhsa_user_sgpr_queue_ptr yes\n",
        ErrorKind::Syntax,
        3,
        31,
        "`.amdhsa_user_sgpr_queue_ptr` takes an integer, found `yes`",
    ),
    (
        "k:\n.amdhsa_kernel k\n  .amdhsa_user_sgpr_queue_pointer 1\n",
        ErrorKind::Syntax,
        3,
        3,
        "unknown .amdhsa_kernel directive `.amdhsa_user_sgpr_queue_pointer`",
    ),
    (
        "k:\n.amdhsa_kernel k\n.amdhsa_system_vgpr_workitem_id 3\n",
        ErrorKind::Syntax,
        3,
        1,
        "`.amdhsa_system_vgpr_workitem_id` is 3; it must be at most 2",
    ),
    (
        "k:\n.amdhsa_kernel k\ns_endpgm\n",
        ErrorKind::Syntax,
        3,
        1,
        "expected an .amdhsa_ directive or .end_amdhsa_kernel, found `s_endpgm`",
    ),
    (
        "s_nop 0\n.amdhsa_system_sgpr_workgroup_id_y 1",
        ErrorKind::Syntax,
        2,
        1,
        "`.amdhsa_system_sgpr_workgroup_id_y` outside an .amdhsa_kernel block",
    ),
    (
        "s_nop 0\n.amdhsa_kernel k\n.amdhsa_next_free_vgpr 1\n.amdhsa_next_free_sgpr 1\n.end_amdhsa_kernel",
        ErrorKind::UndefinedLabel,
        2,
        1,
        "kernel descriptor `k` names no label of this file",
    ),
    (
        "s_nop 0\nk: s_endpgm\n.amdhsa_kernel k\n.amdhsa_next_free_vgpr 1\n.amdhsa_next_free_sgpr 1\n.end_amdhsa_kernel",
        ErrorKind::Syntax,
        3,
        1,
        "kernel `k` does not start at address 0; a launch runs the program from its first instruction",
    ),
];

#[test]
fn error_classes_positions_and_messages() {
    for &(src, kind, line, column, message) in ERRORS {
        let e = err(src);
        assert_eq!(
            (e.kind, e.line, e.column, e.message.as_str()),
            (kind, line, column, message),
            "{src:?}"
        );
        assert_eq!(e.to_string(), format!("k.s:{line}:{column}: {message}"));
    }
}

#[test]
fn branch_out_of_range() {
    let mut src = String::from("top:\n");
    for _ in 0..32_770 {
        src.push_str("s_nop 0\n");
    }
    src.push_str("s_branch top\n");
    let e = err(&src);
    assert_eq!((e.kind, e.line), (ErrorKind::ImmediateOutOfRange, 32_772));
    assert!(e.message.contains("out of range"), "{e}");
}

#[test]
fn decode_errors_name_offset_and_word() {
    // An unknown SOPP opcode (0x7f) after two good instructions.
    let e = decode(&[0xBF81_0000, 0x7E02_0302, 0xBFFF_0000]).unwrap_err();
    assert_eq!((e.offset, e.word), (8, 0xBFFF_0000));
    assert_eq!(
        e.to_string(),
        "cannot decode word 0xbfff0000 at byte offset 0x8: SOPP opcode 127 is not supported"
    );
    // A VOP3 instruction cut short, a literal past the end, an SGPR pair at an odd register.
    assert_eq!(decode(&[0xD285_0001]).unwrap_err().offset, 0);
    assert!(decode(&[0x7E0002FF])
        .unwrap_err()
        .message
        .contains("past the end"));
    assert!(
        decode(&[0xBE810104]).is_err(),
        "s_mov_b64 s[1:2], ... is misaligned"
    );
    assert!(Program::from_bytes(&[0, 0, 0x81, 0xbf, 1]).is_err());
    // A literal dword holding a value an inline constant could is what a linker leaves in a
    // resolved `sym@rel32` reference: the hardware reads it, and so does the decoder.
    let p = Program::from_words(&[0xBE8000FF, 5]).unwrap();
    assert_eq!(
        p.instructions[0].item.srcs[0],
        Some(pws_isa::Operand::Literal(5))
    );
    assert_eq!(p.instructions[0].words.len(), 2);
}

#[test]
fn sgprs_used_covers_register_ranges_and_every_operand_slot() {
    let used = |src: &str| assemble(src, "t.s").unwrap().sgprs_used();
    assert_eq!(used("v_mov_b32_e32 v1, v2\ns_endpgm"), 0);
    assert_eq!(used("s_mov_b32 s3, 0"), 4);
    // A 128-bit SMEM destination s[8:11] and the base pair s[4:5].
    assert_eq!(used("s_load_dwordx4 s[8:11], s[4:5], 0x0"), 12);
    // A VOP3 compare's SGPR-pair destination.
    assert_eq!(used("v_cmp_lt_i32_e64 s[14:15], 25, v2"), 16);
    // Sources count too, and vcc/exec are not SGPRs.
    assert_eq!(
        used("v_add_u32_e32 v1, vcc, s20, v1\ns_and_saveexec_b64 s[2:3], vcc"),
        21
    );
}

/// Assembly that clang wrote with its line table (OpenCL C compiled by pws): an error names
/// the C position of its line too, from the `.loc` in force there, in the first pass and in
/// the second (labels).
#[test]
fn errors_name_the_c_position_of_their_line() {
    let src = "\t.file\t0 \"/work\" \"k.cl\" md5 0x0123\n\t.file\t1 \"/inc\" \"pws.h\"\n\t.loc\t0 4 12 prologue_end ; k.cl:4:12\n\tv_cvt_f64_f32_e32 v[0:1], v2\n";
    let e = err(src);
    assert_eq!((e.line, e.column), (4, 2));
    assert!(e.message.ends_with(" (source: k.cl:4:12)"), "{}", e.message);
    let e =
        err("\t.file\t1 \"pws.h\"\n\t.loc\t1 98 0\n\ts_nop 0\n\t.loc\t0 0 3\n\ts_branch nowhere\n");
    assert!(
        !e.message.contains("source:"),
        "line 0 is no position: {}",
        e.message
    );
    let e = err("\t.file\t1 \"pws.h\"\n\t.loc\t1 98 0\n\ts_branch nowhere\n");
    assert_eq!(e.message, "undefined label `nowhere` (source: pws.h:98)");
    // Without a line table, as before.
    assert_eq!(
        err("\ts_branch nowhere\n").message,
        "undefined label `nowhere`"
    );
}
