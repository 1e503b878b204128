//! CFG extraction from GCN3 assembly ([T] §5.2's rules, digest 7.23): basic blocks start at
//! labels, branch targets and after branches; there is no fall-through after `s_branch` or
//! `s_endpgm`. Divergent if/else regions are recognised from the exec-mask idiom LLVM's
//! SILowerControlFlow emits, which is exactly a BSB CFG (anchors 2):
//!
//! ```text
//! if:    s_and_saveexec_b64 sX, C ; [s_xor_b64 sX, exec, sX] ; s_cbranch_execz ELSE (branch)
//! else:  s_or_saveexec_b64 sY, sX ; s_xor_b64 exec, exec, sY ; s_cbranch_execz END (BSB)
//! join:  s_or_b64 exec, exec, sY                                                   (Reconv)
//! ```
//!
//! An `if` without `else` jumps straight to its join; the extractor then adds the BSB and the
//! empty path 2 as zero-cost virtual nodes, so every branch has the shape Prune expects.
//! Backward conditional branches are loop latches; other conditional branches (`scc`, `vcc`)
//! are uniform and stay ordinary blocks.
//!
//! Annotations are comments, read from the source text because the assembler drops comments:
//! - `; pws: split` marks the next divergent branch after the comment as a split point;
//! - `; pws: loop_bound N` gives the bound of the loop whose header block starts at the next
//!   instruction after the comment (the header runs at most N times per entry into the loop).

use std::collections::{BTreeSet, HashMap};
use std::ops::Range;

use pws_isa::{assemble, Instruction, Opcode, Operand, Program};

use crate::cfg::{Block, BlockKind, Cfg};
use crate::error::{HostError, Result};
use crate::timing::TimingTable;

/// A divergent `if` found in the assembly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IfBranch {
    /// CFG node of the branch block.
    pub node: usize,
    /// Instruction index of its `s_cbranch_execz`.
    pub cbranch: usize,
    /// The condition mask read by `s_and_saveexec_b64` (64 bits from this register).
    pub cond: Operand,
    /// The register `s_and_saveexec_b64` saves EXEC into.
    pub save: Operand,
    /// Instruction index of the join's `s_or_b64 exec, exec, sY`: the merge goes right after it.
    pub restore: usize,
    /// A `split` immediately before the `s_cbranch_execz`.
    pub split: Option<usize>,
    /// Marked by a `; pws: split` comment.
    pub marker: bool,
}

/// An assembled kernel with its BSB CFG; `cfg.blocks[v].split` is the set P (a `split` right
/// before the branch or a `pws: split` marker).
#[derive(Debug, Clone)]
pub struct Kernel {
    pub program: Program,
    pub cfg: Cfg,
    /// Instruction range of each CFG node (empty for the virtual BSB / empty-path nodes).
    pub ranges: Vec<Range<usize>>,
    pub ifs: Vec<IfBranch>,
    /// `split` instructions that are not immediately before a divergent branch.
    pub stray_splits: Vec<usize>,
    /// Every `merge` instruction.
    pub merges: Vec<usize>,
}

enum Annotation {
    Split,
    LoopBound(u64),
}

fn syntax<T>(file: &str, line: usize, col: usize, msg: impl Into<String>) -> Result<T> {
    Err(HostError::Syntax {
        file: file.to_string(),
        line,
        col,
        msg: msg.into(),
    })
}

/// The `pws:` comments of the source, by 1-based line.
fn annotations(source: &str, file: &str) -> Result<Vec<(usize, Annotation)>> {
    let mut out = Vec::new();
    for (i, line) in source.lines().enumerate() {
        let start = match (line.find(';'), line.find("//")) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) => a,
            (None, Some(b)) => b,
            (None, None) => continue,
        };
        let marker_len = if line[start..].starts_with("//") {
            2
        } else {
            1
        };
        let body = line[start + marker_len..].trim_start();
        let Some(rest) = body.strip_prefix("pws:") else {
            continue;
        };
        let col = line.len() - body.len() + 1;
        let words: Vec<&str> = rest.split_whitespace().collect();
        let ann = match words.as_slice() {
            ["split"] => Annotation::Split,
            ["loop_bound", n] => match n.parse::<u64>() {
                Ok(b) if b >= 1 => Annotation::LoopBound(b),
                _ => {
                    return syntax(
                        file,
                        i + 1,
                        col,
                        format!("loop_bound needs an integer of at least 1, found '{n}'"),
                    )
                }
            },
            _ => {
                return syntax(
                    file,
                    i + 1,
                    col,
                    format!(
                    "unknown pws annotation '{}' (expected 'pws: split' or 'pws: loop_bound N')",
                    rest.trim()
                ),
                )
            }
        };
        out.push((i + 1, ann));
    }
    Ok(out)
}

fn is_exec(op: Option<Operand>) -> bool {
    op == Some(Operand::ExecLo)
}

/// `s_xor_b64 dst, a, b` with {a, b} = {x, y}.
fn xor_of(inst: &Instruction, dst: Operand, x: Operand, y: Operand) -> bool {
    inst.opcode == Opcode::SXorB64
        && inst.dst == Some(dst)
        && ((inst.src(0) == Some(x) && inst.src(1) == Some(y))
            || (inst.src(0) == Some(y) && inst.src(1) == Some(x)))
}

enum Idiom {
    /// `s_and_saveexec_b64 save, cond` (then `s_xor_b64 save, exec, save` if there is an else).
    If { cond: Operand, save: Operand },
    /// `s_or_saveexec_b64 dst, saved ; s_xor_b64 exec, exec, dst`.
    Else { saved: Operand, dst: Operand },
}

/// Looks for the if or else idiom among a block's instructions before its final branch.
fn idiom(insts: &[Instruction]) -> Option<Idiom> {
    for (j, a) in insts.iter().enumerate().rev() {
        let (Some(dst), Some(src)) = (a.dst, a.src(0)) else {
            continue;
        };
        let rest = &insts[j + 1..];
        match a.opcode {
            // The `s_xor_b64 sX, exec, sX` that follows when there is an else is not needed to
            // recognise the if: an if without else branches straight to its join.
            Opcode::SAndSaveexecB64 => {
                return Some(Idiom::If {
                    cond: src,
                    save: dst,
                })
            }
            Opcode::SOrSaveexecB64
                if rest
                    .iter()
                    .any(|x| xor_of(x, Operand::ExecLo, Operand::ExecLo, dst)) =>
            {
                return Some(Idiom::Else { saved: src, dst });
            }
            _ => {}
        }
    }
    None
}

/// `s_or_b64 exec, exec, reg` in `range`.
fn find_restore(
    insts: &[pws_isa::Located<Instruction>],
    range: Range<usize>,
    reg: Operand,
) -> Option<usize> {
    range.into_iter().find(|&i| {
        let x = &insts[i].item;
        x.opcode == Opcode::SOrB64
            && is_exec(x.dst)
            && ((is_exec(x.src(0)) && x.src(1) == Some(reg))
                || (is_exec(x.src(1)) && x.src(0) == Some(reg)))
    })
}

/// Assembles `source` and extracts its BSB CFG; block WCETs come from `table`.
pub fn extract(source: &str, file: &str, table: &TimingTable) -> Result<Kernel> {
    let program = assemble(source, file).map_err(|e| HostError::Input(e.to_string()))?;
    let insts = &program.instructions;
    if insts.is_empty() {
        return Err(HostError::Input(format!(
            "{file}: the kernel has no instructions"
        )));
    }
    let line_of = |i: usize| insts[i].line;
    let index_of: HashMap<u32, usize> = insts.iter().enumerate().map(|(i, l)| (l.pc, i)).collect();

    // Leaders and branch targets.
    let mut leaders = BTreeSet::from([0usize]);
    for &pc in program.labels.values() {
        if let Some(&i) = index_of.get(&pc) {
            leaders.insert(i);
        }
    }
    let mut targets = vec![None; insts.len()];
    for (i, l) in insts.iter().enumerate() {
        let inst = &l.item;
        if inst.is_branch() {
            let t = inst
                .branch_target(l.pc)
                .and_then(|pc| index_of.get(&pc).copied())
                .ok_or_else(|| {
                    HostError::Input(format!(
                        "{file}:{}: the branch does not jump to an instruction of the kernel",
                        l.line
                    ))
                })?;
            targets[i] = Some(t);
            leaders.insert(t);
        }
        if (inst.is_branch() || inst.is_terminator()) && i + 1 < insts.len() {
            leaders.insert(i + 1);
        }
    }
    let starts: Vec<usize> = leaders.into_iter().collect();
    let ranges: Vec<Range<usize>> = starts
        .iter()
        .enumerate()
        .map(|(k, &s)| s..starts.get(k + 1).copied().unwrap_or(insts.len()))
        .collect();
    let block_of_inst = |i: usize| starts.partition_point(|&s| s <= i) - 1;
    let nb = ranges.len();

    let mut blocks: Vec<Block> = ranges
        .iter()
        .map(|r| {
            let pc = insts[r.start].pc;
            Block {
                name: program
                    .label_at(pc)
                    .map_or_else(|| format!("pc_0x{pc:x}"), str::to_string),
                wcet: r.clone().map(|i| table.cycles(&insts[i].item)).sum(),
                kind: BlockKind::Block,
                split: false,
                loop_bound: None,
            }
        })
        .collect();

    // Edges, and the role of every block that ends in a divergent branch.
    let mut edges = Vec::new();
    let mut idioms: Vec<Option<Idiom>> = (0..nb).map(|_| None).collect();
    for (b, r) in ranges.iter().enumerate() {
        let last = r.end - 1;
        let inst = &insts[last].item;
        let fall = || -> Result<usize> {
            if b + 1 < nb {
                Ok(b + 1)
            } else {
                Err(HostError::Input(format!(
                    "{file}:{}: control falls off the end of the kernel (end it with s_endpgm)",
                    line_of(last)
                )))
            }
        };
        match (inst.opcode, targets[last]) {
            (Opcode::SEndpgm, _) => {}
            (Opcode::SBranch, Some(t)) => edges.push((b, block_of_inst(t))),
            (_, Some(t)) => {
                let tb = block_of_inst(t);
                edges.push((b, fall()?));
                edges.push((b, tb));
                let forward = t > last;
                match inst.opcode {
                    // Layout is not flow order (LLVM rotates loops), so a backward execz can
                    // still be an if or else; without the idiom it is a loop latch.
                    Opcode::SCbranchExecz => {
                        let body: Vec<Instruction> = insts[r.start..last].iter().map(|l| l.item).collect();
                        match idiom(&body) {
                            Some(i) => idioms[b] = Some(i),
                            None if !forward => {}
                            None => {
                                return Err(HostError::Structure(format!(
                                    "{file}:{}: s_cbranch_execz without its if/else exec-mask idiom (expected s_and_saveexec_b64 before an if, or s_or_saveexec_b64 + s_xor_b64 exec before an else)",
                                    line_of(last)
                                )))
                            }
                        }
                    }
                    Opcode::SCbranchExecnz if forward => {
                        return Err(HostError::Structure(format!(
                            "{file}:{}: forward s_cbranch_execnz is not a recognised divergent branch (only the if/else exec-mask idiom is)",
                            line_of(last)
                        )))
                    }
                    _ => {}
                }
            }
            _ => edges.push((b, fall()?)),
        }
    }

    // Pair each if with its else (BSB) or its join, and find the EXEC restore at the join.
    let mut ifs = Vec::new();
    let mut extra: Vec<Block> = Vec::new();
    let mut redirect: Vec<(usize, usize, usize)> = Vec::new();
    for b in 0..nb {
        let Some(Idiom::If { cond, save }) = idioms[b] else {
            continue;
        };
        let cbranch = ranges[b].end - 1;
        let t = block_of_inst(targets[cbranch].expect("the if ends in a branch"));
        blocks[b].kind = BlockKind::Branch;
        let restore = if let Some(Idiom::Else { saved, dst }) = idioms[t] {
            if saved != save {
                return Err(HostError::Structure(format!(
                    "{file}:{}: the else restores a different mask register than its if at line {}",
                    line_of(ranges[t].end - 1),
                    line_of(cbranch)
                )));
            }
            blocks[t].kind = BlockKind::Bsb;
            let j = block_of_inst(targets[ranges[t].end - 1].expect("the else ends in a branch"));
            find_restore(insts, ranges[j].clone(), dst).ok_or_else(|| {
                HostError::Structure(format!(
                    "{file}:{}: the join of the if at line {} has no s_or_b64 exec, exec, <else mask>",
                    line_of(ranges[j].start),
                    line_of(cbranch)
                ))
            })?
        } else {
            // No else: the target is the join; add a virtual BSB and an empty path 2 before it.
            let r = find_restore(insts, ranges[t].clone(), save).ok_or_else(|| {
                HostError::Structure(format!(
                    "{file}:{}: the if at line {} jumps to a block that is neither its else nor its join (no s_or_b64 exec, exec, <saved mask>)",
                    line_of(ranges[t].start),
                    line_of(cbranch)
                ))
            })?;
            let vb = nb + extra.len();
            extra.push(Block {
                name: format!("{}.bsb", blocks[t].name),
                wcet: 0,
                kind: BlockKind::Bsb,
                split: false,
                loop_bound: None,
            });
            extra.push(Block {
                name: format!("{}.else", blocks[t].name),
                wcet: 0,
                kind: BlockKind::Block,
                split: false,
                loop_bound: None,
            });
            redirect.push((b, t, vb));
            r
        };
        let split = (cbranch > ranges[b].start && insts[cbranch - 1].item.opcode == Opcode::Split)
            .then_some(cbranch - 1);
        ifs.push(IfBranch {
            node: b,
            cbranch,
            cond,
            save,
            restore,
            split,
            marker: false,
        });
    }
    // Path 1 of u (blocks reachable from its fall-through without passing u or the join t)
    // now flows into the virtual BSB instead of t. Inner ifs (smaller path 1) go first, so an
    // inner if sharing the join reconverges at the outer if's BSB.
    let mut succ = vec![Vec::new(); nb];
    for &(a, b) in &edges {
        succ[a].push(b);
    }
    let mut jobs: Vec<(Vec<bool>, usize, usize, usize)> = redirect
        .iter()
        .map(|&(u, t, vb)| {
            let mut path1 = vec![false; nb];
            let mut work = vec![u + 1];
            while let Some(x) = work.pop() {
                if x == u || x == t || path1[x] {
                    continue;
                }
                path1[x] = true;
                work.extend(succ[x].iter().copied());
            }
            (path1, u, t, vb)
        })
        .collect();
    jobs.sort_by_key(|j| j.0.iter().filter(|&&x| x).count());
    let owner = |x: usize| {
        redirect
            .iter()
            .find(|r| x == r.2 || x == r.2 + 1)
            .map(|r| r.0)
    };
    for (path1, u, t, vb) in &jobs {
        let inside = |x: usize| {
            if x < nb {
                x == *u || path1[x]
            } else {
                owner(x).is_some_and(|o| path1[o])
            }
        };
        for e in edges.iter_mut() {
            if e.1 == *t && inside(e.0) {
                e.1 = *vb;
            }
        }
        edges.extend([(*vb, vb + 1), (*vb, *t), (vb + 1, *t)]);
    }

    for (line, ann) in annotations(source, file)? {
        let next = insts.iter().position(|l| l.line as usize > line);
        match ann {
            Annotation::Split => {
                let Some(b) = ifs.iter_mut().filter(|b| line_of(b.cbranch) as usize > line).min_by_key(|b| b.cbranch) else {
                    return syntax(file, line, 1, "'pws: split' is not followed by a divergent branch");
                };
                b.marker = true;
            }
            Annotation::LoopBound(bound) => match next {
                Some(i) if starts.binary_search(&i).is_ok() => blocks[block_of_inst(i)].loop_bound = Some(bound),
                _ => return syntax(file, line, 1, "'pws: loop_bound' must come right before the first instruction of a loop header block"),
            },
        }
    }
    let if_branches: BTreeSet<usize> = ifs.iter().filter_map(|b| b.split).collect();
    let stray_splits = (0..insts.len())
        .filter(|&i| insts[i].item.opcode == Opcode::Split && !if_branches.contains(&i))
        .collect();
    let merges = (0..insts.len())
        .filter(|&i| insts[i].item.opcode == Opcode::Merge)
        .collect();

    for b in &ifs {
        blocks[b.node].split = b.split.is_some() || b.marker;
    }
    let mut all_ranges = ranges;
    all_ranges.extend((0..extra.len()).map(|_| 0..0));
    blocks.extend(extra);
    edges.sort_unstable();
    edges.dedup();
    Ok(Kernel {
        cfg: Cfg {
            blocks,
            edges,
            entry: 0,
        },
        program,
        ranges: all_ranges,
        ifs,
        stray_splits,
        merges,
    })
}
