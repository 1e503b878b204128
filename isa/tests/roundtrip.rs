//! Round trips over random valid instructions of every opcode:
//! decode(encode(i)) == i, assemble(print(i)) == i, and decode -> listing -> assemble gives the
//! same image for whole random programs (branches included).

mod common;

use proptest::prelude::*;
use pws_isa::testing::proptest_cases;
use pws_isa::{assemble, decode, decode_one, encode, Opcode, Program, OPCODES};

/// The generator filters candidates through the operand checker; about half pass, so a
/// 40-instruction program needs many local rejects.
fn config(cases: u32) -> ProptestConfig {
    let cases = proptest_cases(cases);
    ProptestConfig {
        max_local_rejects: cases.saturating_mul(1_000),
        ..ProptestConfig::with_cases(cases)
    }
}

proptest! {
    #![proptest_config(config(2_000))]

    #[test]
    fn encode_decode(inst in common::instruction()) {
        let words = encode(&inst).unwrap();
        prop_assert_eq!(words.len() as u32, inst.size_dwords());
        let (back, len) = decode_one(&words, 0).unwrap();
        prop_assert_eq!(len, words.len());
        prop_assert_eq!(back, inst);
    }

    #[test]
    fn print_assemble(inst in common::instruction()) {
        let text = inst.to_string();
        let program = assemble(&text, "rt.s").map_err(|e| TestCaseError::fail(format!("`{text}`: {e}")))?;
        prop_assert_eq!(program.instructions.len(), 1);
        prop_assert_eq!(program.instructions[0].item, inst, "text `{}`", text);
        prop_assert_eq!(&program.instructions[0].words, &encode(&inst).unwrap());
    }

    #[test]
    fn program_listing_reassembles(insts in proptest::collection::vec(common::instruction(), 1..40)) {
        let words: Vec<u32> = insts.iter().flat_map(|i| encode(i).unwrap()).collect();
        let program = Program::from_words(&words).unwrap();
        prop_assert_eq!(program.words(), words.clone());
        let listing = program.listing();
        let again = assemble(&listing, "listing.s").map_err(|e| TestCaseError::fail(format!("{e}\n{listing}")))?;
        prop_assert_eq!(again.words(), words);
        let decoded: Vec<_> = decode(&again.words()).unwrap().into_iter().map(|(_, i)| i).collect();
        prop_assert_eq!(decoded, insts);
    }
}

/// Every opcode is reachable by the generator and round-trips at least once.
#[test]
fn every_opcode_round_trips() {
    use proptest::strategy::ValueTree;
    let mut runner = common::seeded_runner();
    for info in OPCODES {
        for _ in 0..20 {
            let inst = common::instruction_of(info.opcode)
                .new_tree(&mut runner)
                .unwrap()
                .current();
            let program = assemble(&inst.to_string(), "op.s").unwrap();
            assert_eq!(program.instructions[0].item, inst);
            assert_eq!(decode(&program.words()).unwrap()[0].1, inst);
        }
    }
    assert!(OPCODES.iter().any(|i| i.opcode == Opcode::Split));
}

proptest! {
    #![proptest_config(config(2_000))]

    /// Arbitrary words: decoding never panics, and an error names a word inside the image.
    #[test]
    fn decode_arbitrary_words(words in proptest::collection::vec(any::<u32>(), 0..16)) {
        match decode(&words) {
            Ok(insts) => {
                let reencoded: Vec<u32> = insts.iter().flat_map(|(_, i)| encode(i).unwrap()).collect();
                prop_assert_eq!(reencoded, words);
            }
            Err(e) => {
                prop_assert!(e.offset % 4 == 0 && (e.offset as usize) < 4 * words.len());
                prop_assert_eq!(e.word, words[e.offset as usize / 4]);
            }
        }
    }
}
