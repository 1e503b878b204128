//! Uniform cycles with several entries, given one by copying code (node splitting).
//!
//! clang-14 -O3 peels the first test of an outer loop whose inner loop may run zero times and
//! jumps from the prologue either into the inner loop's set-up or to the outer loop's latch:
//!
//! ```text
//!     s_cmp_ge_i32 s6, s4
//!     s_cbranch_scc1 .LBB10_4      ; second entry, at the latch
//! .LBB10_2:                        ; first entry: the inner loop's set-up
//!     s_mov_b32 s8, 1
//! .LBB10_3:                        ; the inner loop
//!     ...
//!     s_cbranch_scc0 .LBB10_3
//! .LBB10_4:                        ; the outer loop's latch and test
//!     ...
//!     s_cbranch_scc0 .LBB10_2
//!     s_branch .LBB10_4
//! ```
//!
//! The cycle through .LBB10_2, .LBB10_3 and .LBB10_4 has two entries, so no loop analysis
//! applies. [`split`] keeps one entry as the header and gives the other entries' outside
//! predecessors a copy of the blocks they reach in the cycle before the header, placed after the
//! kernel's last instruction (here a copy of .LBB10_4 for the prologue's branch): the copies run
//! the same instructions, so the program computes what it did, with one `s_branch` more where a
//! copied block fell through. It repeats that until the flow is reducible, copying at most as
//! many instructions as the kernel has. Code that reads its own address (`s_getpc_b64`) is never copied; the `pws:`
//! annotations inside copied blocks are copied with them.

use std::collections::{BTreeMap, BTreeSet};

use petgraph::graph::{DiGraph, NodeIndex};
use pws_isa::{Opcode, Program};

use crate::error::HostError;
use crate::flow::{EdgeKind, Flow};

/// Copy-and-redirect rounds tried per kernel.
const MAX_ROUNDS: usize = 16;

/// `source` with its multiple-entry cycles given one entry each, and a note per copy; `None`
/// when its flow is not irreducible in that way or copying cannot make it reducible.
pub fn split(source: &str, file: &str) -> Option<(String, Vec<String>)> {
    let mut text = source.to_string();
    let mut notes = Vec::new();
    let mut copied = 0usize;
    let mut size = None;
    let mut fresh = 0usize;
    for _ in 0..MAX_ROUNDS {
        let program = pws_isa::assemble(&text, file).ok()?;
        match Flow::new(&program, file) {
            Ok(_) => return (!notes.is_empty()).then_some((text, notes)),
            Err(HostError::Structure(_)) => {}
            Err(_) => return None,
        }
        let flow = Flow::unstructured(&program, file).ok()?;
        let (scc, entries) = multi_entry_cycle(&flow)?;
        let (header, copies) = cheapest_header(&program, &flow, &scc, &entries)?;
        copied += copies.iter().map(|&b| flow.blocks[b].len()).sum::<usize>();
        if copied > *size.get_or_insert(program.instructions.len()) {
            return None;
        }
        let line = |b: usize| program.instructions[flow.blocks[b].start].line;
        let others: Vec<u32> = entries
            .iter()
            .filter(|&&e| e != header)
            .map(|&e| line(e))
            .collect();
        notes.push(format!(
            "{file}:{}: the loop at this line is also entered at line{} {}; pws runs a copy of the {} instruction(s) from there to it, so that the loop has one entry",
            line(header),
            if others.len() > 1 { "s" } else { "" },
            others
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            copies.iter().map(|&b| flow.blocks[b].len()).sum::<usize>()
        ));
        text = with_copies(&text, &program, &flow, &scc, &copies, &mut fresh)?;
    }
    None
}

/// A cycle (strongly connected blocks) with more than one entry: its blocks and its entries,
/// the outermost found first, looking inside single-entry cycles without their header.
fn multi_entry_cycle(flow: &Flow) -> Option<(BTreeSet<usize>, Vec<usize>)> {
    let entry = flow.block_of(0);
    let mut work: Vec<BTreeSet<usize>> = vec![(0..flow.blocks.len())
        .filter(|&b| flow.reachable[b])
        .collect()];
    while let Some(nodes) = work.pop() {
        for scc in cycles_in(flow, &nodes) {
            let entries: Vec<usize> = scc
                .iter()
                .copied()
                .filter(|&b| {
                    b == entry
                        || flow.pred[b]
                            .iter()
                            .any(|p| flow.reachable[*p] && !scc.contains(p))
                })
                .collect();
            match entries[..] {
                [h] => {
                    let mut inner = scc;
                    inner.remove(&h);
                    work.push(inner);
                }
                _ => return Some((scc, entries)),
            }
        }
    }
    None
}

/// The strongly connected sets of `nodes` (edges between them only) that hold a cycle.
pub(crate) fn cycles_in(flow: &Flow, nodes: &BTreeSet<usize>) -> Vec<BTreeSet<usize>> {
    let mut g = DiGraph::<usize, ()>::new();
    let ids: BTreeMap<usize, NodeIndex> = nodes.iter().map(|&b| (b, g.add_node(b))).collect();
    for (&b, &id) in &ids {
        for e in &flow.succ[b] {
            if let Some(&to) = ids.get(&e.to) {
                g.add_edge(id, to, ());
            }
        }
    }
    petgraph::algo::tarjan_scc(&g)
        .into_iter()
        .filter(|scc| scc.len() > 1 || g.contains_edge(scc[0], scc[0]))
        .map(|scc| scc.into_iter().map(|n| g[n]).collect())
        .collect()
}

/// The entry to keep as the header and the blocks to copy for the others: those of the cycle
/// each other entry reaches without passing the header. Among the entries whose copies do not
/// read their own address, one that can leave the cycle (the loop's test then sits in its
/// header, where the loop bound analysis finds its counter: the peeled `while` form), then the
/// one whose copies hold the fewest instructions.
fn cheapest_header(
    program: &Program,
    flow: &Flow,
    scc: &BTreeSet<usize>,
    entries: &[usize],
) -> Option<(usize, BTreeSet<usize>)> {
    let movable = |b: usize| {
        flow.blocks[b]
            .clone()
            .all(|i| program.instructions[i].item.opcode != Opcode::SGetpcB64)
    };
    entries
        .iter()
        .filter_map(|&h| {
            let mut copies = BTreeSet::new();
            let mut work: Vec<usize> = entries.iter().copied().filter(|&e| e != h).collect();
            while let Some(b) = work.pop() {
                if b == h || !copies.insert(b) {
                    continue;
                }
                work.extend(
                    flow.succ[b]
                        .iter()
                        .map(|e| e.to)
                        .filter(|t| scc.contains(t)),
                );
            }
            let size: usize = copies.iter().map(|&b| flow.blocks[b].len()).sum();
            let exits = flow.succ[h].iter().any(|e| !scc.contains(&e.to));
            copies
                .iter()
                .all(|&b| movable(b))
                .then_some(((!exits, size, h), copies))
        })
        .min_by_key(|(key, _)| *key)
        .map(|((_, _, h), copies)| (h, copies))
}

/// `source` with `copies` (blocks of the cycle `scc`) copied after the kernel's last
/// instruction, and every edge from outside the cycle into one of them sent to its copy.
fn with_copies(
    source: &str,
    program: &Program,
    flow: &Flow,
    scc: &BTreeSet<usize>,
    copies: &BTreeSet<usize>,
    fresh: &mut usize,
) -> Option<String> {
    let insts = &program.instructions;
    let lines: Vec<&str> = source.lines().collect();
    let mut next_label = |stem: &str| loop {
        let l = format!(".Lpws_{stem}{fresh}");
        *fresh += 1;
        if !program.labels.contains_key(&l) {
            break l;
        }
    };
    // Labels: every block a copy goes to has one, on the line of its first instruction (so
    // that every line of `source` keeps its number).
    let mut before: BTreeMap<u32, String> = BTreeMap::new();
    let mut label_of: BTreeMap<usize, String> = BTreeMap::new();
    let copy_of: BTreeMap<usize, String> =
        copies.iter().map(|&b| (b, next_label("copy"))).collect();
    let mut label = |b: usize, before: &mut BTreeMap<u32, String>| -> String {
        label_of
            .entry(b)
            .or_insert_with(|| {
                let pc = insts[flow.blocks[b].start].pc;
                program.label_at(pc).map_or_else(
                    || {
                        let l = next_label("block");
                        before.insert(insts[flow.blocks[b].start].line, format!("{l}: "));
                        l
                    },
                    str::to_string,
                )
            })
            .clone()
    };
    let fall_through = |b: usize| {
        flow.succ[b]
            .iter()
            .find(|e| e.kind == EdgeKind::FallThrough)
            .map(|e| e.to)
    };
    // The edges into the copied blocks from the rest of the cycle go to the copies, which
    // become the cycle's; the originals keep the edges from outside. When one of the former
    // falls through, the edges from outside go to the copies instead (one `s_branch` more,
    // after the predecessor that falls through, if one does).
    let into_copies = |from_cycle: bool| {
        (0..flow.blocks.len())
            .filter(move |&p| {
                flow.reachable[p] && !copies.contains(&p) && scc.contains(&p) == from_cycle
            })
            .flat_map(move |p| {
                flow.succ[p]
                    .iter()
                    .filter(|e| copies.contains(&e.to))
                    .map(move |e| (p, *e))
            })
    };
    let from_cycle = into_copies(true).all(|(_, e)| e.kind == EdgeKind::Taken);
    let mut retarget: BTreeMap<u32, String> = BTreeMap::new();
    let mut after: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    for (p, e) in into_copies(from_cycle) {
        let last = &insts[flow.blocks[p].end - 1];
        match e.kind {
            EdgeKind::Taken => {
                retarget.insert(last.line, copy_of[&e.to].clone());
            }
            EdgeKind::FallThrough => {
                after
                    .entry(last.line)
                    .or_default()
                    .push(format!("  s_branch {}", copy_of[&e.to]));
            }
        }
    }
    // The copies, block by block: the `pws:` annotations from the previous instruction on
    // (with the inline-asm lines around a C marker, which say where it belongs), the line
    // table's position in force, the instructions, branches to the copies of copied blocks.
    let kept = |n: usize| {
        let t = lines.get(n - 1).map(|l| l.trim_start());
        t.is_some_and(|t| {
            ["; pws:", ";;#ASMSTART", ";;#ASMEND", ".loc"]
                .iter()
                .any(|p| t.starts_with(p))
        })
    };
    let mut tail: Vec<String> = Vec::new();
    for &b in copies {
        let range = flow.blocks[b].clone();
        tail.push(format!("{}:", copy_of[&b]));
        let first = insts[range.start].line as usize;
        let from = range
            .start
            .checked_sub(1)
            .map_or(1, |i| insts[i].line as usize + 1);
        if let Some(loc) = lines[..(from - 1).min(lines.len())]
            .iter()
            .rev()
            .find(|l| l.trim_start().starts_with(".loc"))
        {
            tail.push(loc.to_string());
        }
        for n in (from..first).filter(|&n| kept(n)) {
            tail.push(lines[n - 1].to_string());
        }
        let mut at_line = first;
        for i in range.clone() {
            let l = &insts[i];
            for n in (at_line..l.line as usize).filter(|&n| kept(n)) {
                tail.push(lines[n - 1].to_string());
            }
            at_line = l.line as usize + 1;
            let target = match l.item.branch_target(l.pc) {
                Some(pc) => {
                    let t = flow.block_of(program.index_of(pc)?);
                    Some(
                        copy_of
                            .get(&t)
                            .cloned()
                            .unwrap_or_else(|| label(t, &mut before)),
                    )
                }
                None => None,
            };
            match target {
                Some(t) => tail.push(format!("  {} {t}", l.item.opcode.mnemonic())),
                None => {
                    let raw = lines.get(l.line as usize - 1)?.trim_start();
                    let text = raw.split(';').next().unwrap_or("").trim_end();
                    if !text.starts_with(l.item.opcode.mnemonic()) {
                        return None;
                    }
                    tail.push(format!("  {text}"));
                }
            }
        }
        // A copied successor in layout order is the next copy: it falls through there too.
        if let Some(next) = fall_through(b).filter(|n| !copies.contains(n)) {
            let t = copy_of
                .get(&next)
                .cloned()
                .unwrap_or_else(|| label(next, &mut before));
            tail.push(format!("  s_branch {t}"));
        }
    }
    let end_line = insts.last()?.line;
    let mut out = String::with_capacity(source.len() + 64 * tail.len());
    for (k, text) in lines.iter().enumerate() {
        let n = k as u32 + 1;
        if let Some(l) = before.get(&n) {
            out.push_str(l);
        }
        match retarget.get(&n) {
            Some(label) => {
                let insts_here: Vec<_> = insts.iter().filter(|l| l.line == n).collect();
                let [l] = insts_here[..] else {
                    return None;
                };
                let indent = &text[..text.len() - text.trim_start().len()];
                out.push_str(&format!("{indent}{} {label}", l.item.opcode.mnemonic()));
            }
            None => out.push_str(text),
        }
        out.push('\n');
        for l in after.get(&n).into_iter().flatten() {
            out.push_str(l);
            out.push('\n');
        }
        if n == end_line {
            for l in &tail {
                out.push_str(l);
                out.push('\n');
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// clang-14 -O3's `for (r = 0; r < n; r++) for (c = r + 1; c < n; c++)`, reduced.
    const PEELED: &str = "k:
  s_mov_b32 s4, 6
  s_mov_b32 s7, 0
  s_add_i32 s6, s7, 1
  s_cmp_ge_i32 s6, s4
  s_cbranch_scc1 .LBB10_4
.LBB10_2:
  s_mov_b32 s8, 1
.LBB10_3:
  ; pws: loop_bound 6
  v_add_u32_e32 v1, vcc, s8, v1
  s_add_i32 s8, s8, 1
  s_add_i32 s9, s7, s8
  s_cmp_ge_i32 s9, s4
  s_cbranch_scc0 .LBB10_3
.LBB10_4:
  s_cmp_lg_u32 s6, s4
  s_cbranch_scc0 .LBB10_6
  s_mov_b32 s7, s6
  s_add_i32 s6, s7, 1
  s_cmp_ge_i32 s6, s4
  s_cbranch_scc0 .LBB10_2
  s_branch .LBB10_4
.LBB10_6:
  s_endpgm
";

    #[test]
    fn a_second_entry_gets_a_copy_of_the_code_up_to_the_header() {
        let program = pws_isa::assemble(PEELED, "t.s").unwrap();
        assert!(
            Flow::new(&program, "t.s").is_err(),
            "irreducible as clang writes it"
        );
        let (text, notes) = split(PEELED, "t.s").unwrap();
        let copy = pws_isa::assemble(&text, "t.s").unwrap();
        let flow = Flow::new(&copy, "t.s").unwrap();
        assert_eq!(flow.loops.len(), 3, "{text}");
        // The header is .LBB10_4, which can leave the loop: its branch back goes to a copy of
        // .LBB10_2 and .LBB10_3, which branches to it at its end, and the prologue's
        // fall-through into .LBB10_2 runs the originals once (a peeled first iteration).
        assert_eq!(
            copy.instructions.len(),
            program.instructions.len() + 7,
            "{text}"
        );
        assert!(
            text.contains("  s_cbranch_scc0 .Lpws_copy0\n  s_branch .LBB10_4\n"),
            "{text}"
        );
        assert!(
            text.ends_with("  s_cbranch_scc0 .Lpws_copy1\n  s_branch .LBB10_4\n"),
            "{text}"
        );
        // Every line of the source keeps its number.
        let changed: Vec<(&str, &str)> = PEELED
            .lines()
            .zip(text.lines())
            .filter(|(a, b)| a != b)
            .collect();
        assert_eq!(
            changed,
            [("  s_cbranch_scc0 .LBB10_2", "  s_cbranch_scc0 .Lpws_copy0")]
        );
        // The inner loop's copy keeps its annotation; a C marker's copy keeps its inline-asm
        // lines and the line table's position, which say where it belongs.
        assert_eq!(text.matches("; pws: loop_bound 6").count(), 2, "{text}");
        let from_c = PEELED.replace(
            "  ; pws: loop_bound 6\n",
            "  .loc 0 9 5\n  ;;#ASMSTART\n  ; pws: loop_bound 6 1\n  ;;#ASMEND\n",
        );
        let (text, _) = split(&from_c, "t.s").unwrap();
        for line in [
            "  .loc 0 9 5\n",
            "  ;;#ASMSTART\n  ; pws: loop_bound 6 1\n  ;;#ASMEND\n",
        ] {
            assert_eq!(text.matches(line).count(), 2, "{text}");
        }
        assert_eq!(
            notes,
            ["t.s:17: the loop at this line is also entered at line 8; pws runs a copy of the 6 instruction(s) from there to it, so that the loop has one entry"]
        );
    }

    #[test]
    fn the_entry_whose_copy_is_smallest_is_the_header() {
        // Entered at the inner loop and at its set-up: .LBB10_2's one instruction is copied.
        let entered_in_the_middle =
            PEELED.replace("s_cbranch_scc1 .LBB10_4", "s_cbranch_scc1 .LBB10_3");
        let (text, notes) = split(&entered_in_the_middle, "t.s").unwrap();
        assert!(
            text.ends_with(".Lpws_copy0:\n  s_mov_b32 s8, 1\n  s_branch .LBB10_3\n"),
            "{text}"
        );
        assert!(
            notes[0].contains("copy of the 1 instruction(s)"),
            "{notes:?}"
        );
        assert!(Flow::new(&pws_isa::assemble(&text, "t.s").unwrap(), "t.s").is_ok());
    }

    #[test]
    fn reducible_flow_and_code_that_reads_its_address_are_left_alone() {
        let reducible = PEELED.replace("  s_cbranch_scc1 .LBB10_4\n", "");
        assert_eq!(split(&reducible, "t.s"), None);
        let getpc = PEELED.replace(".LBB10_4:\n", ".LBB10_4:\n  s_getpc_b64 s[20:21]\n");
        let (text, _) = split(&getpc, "t.s").unwrap();
        assert!(text.matches("s_getpc_b64").count() == 1, "{text}");
    }
}
