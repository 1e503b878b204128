//! `split` and `merge`, which llvm-mc cannot check: encodings from design decision 2
//! (`split sA, sB` = 0xBF14_0000 | sB << 8 | sA, `merge` = 0xBF15_0000), checked by hand in
//! both directions.

use pws_isa::{assemble, decode, encode, ErrorKind, Instruction, Opcode, Operand, Program};

fn words(src: &str) -> Vec<u32> {
    assemble(src, "t.s")
        .unwrap_or_else(|e| panic!("{e}"))
        .words()
}

#[test]
fn split_encoding() {
    assert_eq!(words("split s0, s1"), [0xBF14_0100]);
    assert_eq!(words("split s4, s5"), [0xBF14_0504]);
    assert_eq!(words("split s101, s100"), [0xBF14_6465]);
    assert_eq!(words("split vcc_lo, vcc_hi"), [0xBF14_6B6A]);
    assert_eq!(words("split exec_lo, exec_hi"), [0xBF14_7F7E]);
    assert_eq!(
        words("SPLIT s2, s3 ; upper case and a comment"),
        [0xBF14_0302]
    );
}

#[test]
fn merge_encoding() {
    assert_eq!(words("merge"), [0xBF15_0000]);
    assert_eq!(words("  merge // comment"), [0xBF15_0000]);
}

#[test]
fn split_merge_decode_and_print() {
    let decoded = decode(&[0xBF14_0504, 0xBF15_0000, 0xBF81_0000]).unwrap();
    let text: Vec<String> = decoded.iter().map(|(_, i)| i.to_string()).collect();
    assert_eq!(text, ["split s4, s5", "merge", "s_endpgm"]);
    assert_eq!(decoded[1].0, 4);
    let split = decoded[0].1;
    assert_eq!(split.opcode, Opcode::Split);
    assert_eq!(split.srcs[0], Some(Operand::Sgpr(4)));
    assert_eq!(split.srcs[1], Some(Operand::Sgpr(5)));
    assert!(!split.writes_scc() && !split.writes_exec() && !split.is_branch());
}

#[test]
fn split_merge_model_round_trip() {
    let mut split = Instruction::new(Opcode::Split);
    split.srcs = [Some(Operand::Sgpr(10)), Some(Operand::Sgpr(11)), None, None];
    assert_eq!(encode(&split).unwrap(), [0xBF14_0B0A]);
    assert_eq!(
        encode(&Instruction::new(Opcode::Merge)).unwrap(),
        [0xBF15_0000]
    );
    let program = Program::from_words(&[0xBF14_0B0A, 0xBF15_0000]).unwrap();
    assert_eq!(program.instructions[0].item, split);
    assert_eq!(program.instructions[1].pc, 4);
}

#[test]
fn split_merge_operand_rules() {
    for (src, kind) in [
        ("split s0", ErrorKind::Syntax),
        ("split s0, s1, s2", ErrorKind::Syntax),
        ("split s[0:1], s2", ErrorKind::BadOperand),
        ("split s0, 5", ErrorKind::BadOperand),
        ("split s0, 0x12345", ErrorKind::BadOperand),
        ("split s0, v1", ErrorKind::BadOperand),
        ("split s0, s102", ErrorKind::RegisterOutOfRange),
        ("merge s0", ErrorKind::Syntax),
    ] {
        let e = assemble(src, "t.s").expect_err(src);
        assert_eq!(e.kind, kind, "{src}: {e}");
    }
    // Merge's operand bits are unused; a word that sets them is not canonical.
    assert!(decode(&[0xBF15_0001]).is_err());
    // SOPC 22 is still free in GCN3.
    let e = decode(&[0xBF16_0000]).unwrap_err();
    assert_eq!((e.offset, e.word), (0, 0xBF16_0000));
}
