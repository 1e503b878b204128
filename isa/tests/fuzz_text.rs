//! The assembler on hostile text: random mnemonics, garbage, and valid lines with one random
//! edit. It must return Ok or an error whose line lies within the input and whose column is
//! on that line (or just past its end) — never panic, never hang.

mod common;

use proptest::prelude::*;
use pws_isa::testing::proptest_cases;
use pws_isa::{assemble, OPCODES};

fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::sample::select(
            OPCODES
                .iter()
                .map(|i| i.mnemonic.to_string())
                .collect::<Vec<_>>()
        ),
        proptest::sample::select(
            [
                "s0",
                "s101",
                "s102",
                "s999999999999",
                "v255",
                "v256",
                "s[2:3]",
                "s[3:4]",
                "s[2:",
                "s[",
                "v[1:0]",
                "v[0:3]",
                "ttmp[4:7]",
                "vcc",
                "exec",
                "m0",
                "vcc_lo",
                "src_scc",
                "-",
                "|",
                "neg(",
                "abs(v1)",
                "sext(",
                "sext(v2)",
                "v_or_b32_sdwa",
                "v_cmp_eq_u32_sdwa",
                "dst_sel:BYTE_1",
                "dst_sel",
                "dst_unused:UNUSED_PRESERVE",
                "src0_sel:WORD_1",
                "src1_sel:",
                "src1_sel:DWORD",
                "BYTE_3",
                "UNUSED_SEXT",
                "off",
                "offen",
                "idxen",
                "offset:4095",
                "offset:4096",
                "s[0:3]",
                "buffer_load_dword v1, off, s[0:3], s7 offset:4",
                "v_readlane_b32",
                "v_writelane_b32 v1, s5, 63",
                "v_readfirstlane_b32 s4, v1",
                "v_readfirstlane_b32_e64",
                "(",
                ")",
                "[",
                "]",
                ":",
                ",",
                "&",
                "+",
                "0",
                "-16",
                "65",
                "0x",
                "0xffffffffffffffffff",
                "1e",
                "1e999",
                "0.5",
                "-0.5",
                "1.",
                "2e-3",
                "99999999999999999999999",
                "glc",
                "slc",
                "clamp",
                "mul:2",
                "div:3",
                "mul:",
                "vmcnt(",
                "vmcnt(99)",
                "lgkmcnt(0)",
                "expcnt(7)",
                "label",
                "label:",
                ".text",
                ".long",
                ".amdgpu_metadata",
                ".end_amdgpu_metadata",
                "_e32",
                "_e64",
                ";",
                "//",
                "\"",
                "\\",
                "é",
                "\t",
                "split",
                "merge",
                "s_branch",
                "x:",
                "::",
                ".rodata",
                ".section .rodata",
                ".section .data",
                ".byte",
                ".short",
                ".quad",
                ".ascii",
                ".asciz",
                ".zero",
                ".p2align",
                "\"a\\x4g\"",
                "\"\\777",
                "@",
                "@rel32",
                "@lo",
                "label@rel32@lo+4",
                "label@rel32@hi+12",
                "x@gotpcrel32@lo",
                "s_getpc_b64",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
        ),
        "[ -~]{0,6}",
        "\\PC{0,3}",
    ]
}

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::collection::vec(token(), 0..8).prop_map(|t| t.join(" ")),
        proptest::collection::vec(token(), 0..8).prop_map(|t| t.join(", ")),
        // A valid instruction with one character deleted, replaced or inserted.
        (
            common::instruction(),
            any::<prop::sample::Index>(),
            "[ -~]",
            0..3u8
        )
            .prop_map(|(inst, at, c, edit)| {
                let mut s: Vec<char> = inst.to_string().chars().collect();
                let i = at.index(s.len() + 1);
                match edit {
                    0 if i < s.len() => {
                        s.remove(i);
                    }
                    1 if i < s.len() => s[i] = c.chars().next().unwrap(),
                    _ => s.insert(i.min(s.len()), c.chars().next().unwrap()),
                }
                s.into_iter().collect()
            }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        max_local_rejects: proptest_cases(10_000).saturating_mul(100),
        ..ProptestConfig::with_cases(proptest_cases(10_000))
    })]

    #[test]
    fn never_panics_and_points_into_the_input(lines in proptest::collection::vec(line(), 1..6)) {
        let src = lines.join("\n");
        if let Err(e) = assemble(&src, "fuzz.s") {
            let text: Vec<&str> = src.lines().collect();
            prop_assert!(e.line >= 1 && (e.line as usize) <= text.len().max(1), "{e} in {src:?}");
            let width = text.get(e.line as usize - 1).map_or(0, |l| l.chars().count());
            prop_assert!(e.column >= 1 && e.column as usize <= width + 1, "{e} in {src:?}");
            let prefix = format!("fuzz.s:{}:{}: ", e.line, e.column);
            prop_assert!(e.to_string().starts_with(&prefix));
        }
    }
}

/// Deeply nested or repeated operand decorations are an error, not a stack overflow.
#[test]
fn hostile_nesting_is_an_error() {
    for prefix in ["-", "|", "neg(", "abs(", "-|"] {
        let src = format!("v_add_f32 v0, {}v1, v2", prefix.repeat(50_000));
        let e = assemble(&src, "deep.s").unwrap_err();
        assert_eq!(
            (e.line, e.message.as_str()),
            (1, "too many operand modifiers"),
            "{prefix}"
        );
    }
    let long = "s_nop 0\n".repeat(100_000);
    assert_eq!(
        assemble(&long, "long.s").unwrap().instructions.len(),
        100_000
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(256)))]

    /// Wherever the code and the data fall, `s_getpc_b64` plus the two relocated literals that
    /// follow it is the symbol's address, the segment follows the code at its alignment, and
    /// the data directives lay their bytes down in order.
    #[test]
    fn pc_relative_references_reach_their_symbols(
        pad in 0usize..80,
        tables in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 1..40), 1..5),
        align in 0u32..4,
        uses in proptest::collection::vec((0usize..5, -8i64..8), 1..6),
    ) {
        let mut src = String::from("k:\n");
        src.push_str(&"\ts_nop 0\n".repeat(pad));
        for (k, (t, addend)) in uses.iter().enumerate() {
            let t = t % tables.len();
            let r = 2 * (k % 8);
            src.push_str(&format!(
                "\ts_getpc_b64 s[{r}:{}]\n\ts_add_u32 s{r}, s{r}, t{t}@rel32@lo{:+}\n\ts_addc_u32 s{}, s{}, t{t}@rel32@hi{:+}\n",
                r + 1, 4 + addend, r + 1, r + 1, 12 + addend
            ));
        }
        src.push_str("\ts_endpgm\n\t.section\t.rodata,#alloc\n");
        let mut bytes = Vec::new();
        let mut offsets = Vec::new();
        for (t, table) in tables.iter().enumerate() {
            src.push_str(&format!("\t.p2align\t{align}\n"));
            bytes.resize(bytes.len().next_multiple_of(1 << align), 0);
            offsets.push(bytes.len() as u64);
            src.push_str(&format!(
                "t{t}:\n\t.byte\t{}\n",
                table.iter().map(u8::to_string).collect::<Vec<_>>().join(", ")
            ));
            bytes.extend(table);
        }
        src.push_str("\t.text\n");
        let p = assemble(&src, "k.s").unwrap();
        prop_assert_eq!(&p.rodata.bytes, &bytes);
        prop_assert_eq!(p.rodata.offset, p.size_bytes().next_multiple_of(pws_isa::Rodata::ALIGN));
        for (k, (t, addend)) in uses.iter().enumerate() {
            let t = t % tables.len();
            let getpc = pad + 3 * k;
            let next = u64::from(p.instructions[getpc + 1].pc);
            let lo = u64::from(p.instructions[getpc + 1].words[1]);
            let hi = u64::from(p.instructions[getpc + 2].words[1]);
            // The 64-bit add of s_add_u32 / s_addc_u32, less the addends' bias.
            let address = (next + lo + (hi << 32)) as i64 - addend;
            prop_assert_eq!(
                address as u64 & 0xffff_ffff_ffff,
                u64::from(p.rodata.offset) + offsets[t],
                "use {} of t{}", k, t
            );
        }
    }
}
