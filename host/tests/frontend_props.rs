//! The assembly front end on programs nobody would write: random sequences of the instructions
//! the EXEC idioms are made of (saveexec, EXEC writes, skip branches, uniform branches, loops
//! back to random labels, `split`, `merge`, `s_endpgm`) and annotations. Extraction and the
//! split pass either work or give an error; they never panic or hang, and what the pass
//! writes assembles and is its own fixed point. The repair of irreducible flow never fails on
//! them, and what it changes is reducible.

use proptest::prelude::*;
use pws_host::compile::compile;
use pws_host::compile::SplitPolicy;
use pws_host::extract::extract;
use pws_host::reducible::repair;
use pws_host::timing::TimingTable;
use pws_isa::testing::proptest_cases;

fn line(choice: u8, a: u8, b: u8, labels: u8) -> String {
    let l = |x: u8| format!("L{}", x % labels);
    let p = |x: u8| format!("s[{}:{}]", 2 * (x % 6), 2 * (x % 6) + 1);
    match choice % 17 {
        0 => format!("s_and_saveexec_b64 {}, vcc", p(a)),
        1 => format!("s_xor_b64 {}, exec, {}", p(a), p(b)),
        2 => format!("s_or_saveexec_b64 {}, {}", p(a), p(b)),
        3 => format!("s_xor_b64 exec, exec, {}", p(a)),
        4 => format!("s_or_b64 exec, exec, {}", p(a)),
        5 => format!("s_and_b64 exec, exec, {}", p(a)),
        6 => format!("s_andn2_b64 exec, exec, {}", p(a)),
        7 => format!("s_cbranch_execz {}", l(a)),
        8 => format!("s_cbranch_execnz {}", l(a)),
        9 => format!("s_cbranch_scc1 {}", l(a)),
        10 => format!("s_branch {}", l(a)),
        11 => "v_cmp_gt_i32_e32 vcc, 7, v0".into(),
        12 => format!("s_mov_b64 {}, {}", p(a), p(b)),
        13 => "split vcc_lo, vcc_hi".into(),
        14 => "merge".into(),
        15 => "; pws: split".into(),
        _ => format!("; pws: loop_bound {}", 1 + a % 9),
    }
}

fn program(ops: &[(u8, u8, u8)], labels: u8, endpgm_at: &[u8]) -> String {
    let mut s = String::new();
    for (k, &(c, a, b)) in ops.iter().enumerate() {
        if k % 3 == 0 && k / 3 < usize::from(labels) {
            s.push_str(&format!("L{}:\n", k / 3));
        }
        s.push_str("    ");
        s.push_str(&line(c, a, b, labels));
        s.push('\n');
        if endpgm_at.contains(&(k as u8)) {
            s.push_str("    s_endpgm\n");
        }
    }
    // Labels the branches may name that the loop above did not place.
    for k in (ops.len().div_ceil(3) as u8)..labels {
        s.push_str(&format!("L{k}:\n"));
    }
    s.push_str("    s_endpgm\n");
    s
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(400)))]

    #[test]
    fn extraction_and_the_split_pass_never_panic(
        ops in prop::collection::vec((any::<u8>(), any::<u8>(), any::<u8>()), 1..40),
        labels in 1u8..8,
        endpgm_at in prop::collection::vec(any::<u8>(), 0..3),
        split in prop::sample::select(SplitPolicy::ALL.to_vec()),
    ) {
        let src = program(&ops, labels, &endpgm_at);
        // The repair of irreducible flow changes a program only into a reducible one.
        let repaired = repair(&src, "r.s");
        prop_assert!(repaired.is_ok(), "{:?}\n{}", repaired.err(), src);
        let repaired = repaired.unwrap();
        if repaired.text != src {
            prop_assert!(!repaired.notes.is_empty());
            let p = pws_isa::assemble(&repaired.text, "r.s").unwrap();
            prop_assert!(pws_host::flow::Flow::new(&p, "r.s").is_ok(), "{}", repaired.text);
        }
        let extracted = extract(&src, "r.s", &TimingTable::GCN3);
        if let Err(e) = &extracted {
            // Only flow errors: every instruction here assembles.
            let e = e.to_string();
            prop_assert!(e.contains("irreducible") || e.contains("falls off"), "{}\n{}", e, src);
        }
        if let Ok(c) = compile(&src, "r.s", split) {
            let again = pws_isa::assemble(&c.text, "r.s");
            prop_assert!(again.is_ok(), "{:?}\n{}", again.err(), c.text);
            // Its output asks for the same splits by itself: a second pass changes nothing.
            // (Unless a policy that adds splits skipped a marked branch that cannot split: without it, that
            // marker is an error, as it is in the source.)
            prop_assume!(!c.skipped.iter().any(|s| s.marked));
            let twice = compile(&c.text, "r.s", SplitPolicy::Marked);
            prop_assert!(twice.is_ok(), "{:?}\n{}", twice.err(), c.text);
            let twice = twice.unwrap();
            prop_assert_eq!(&twice.text, &c.text);
            prop_assert_eq!(twice.split_points.len(), c.split_points.len());
        }
    }
}
