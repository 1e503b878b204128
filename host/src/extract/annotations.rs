//! The `pws:` annotations in assembly comments, and where each one applies.

use pws_isa::Program;

use super::c_loops::CLoop;
use super::line_table::LineTable;
use super::{IfBranch, Note};
use crate::cfg::Block;
use crate::error::{HostError, Result};
use crate::flow::Flow;

pub(super) enum Annotation {
    Split,
    /// The bound and pws.h's tag, when the marker has one.
    LoopBound(u64, Option<u64>),
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
pub(super) fn annotations(source: &str, file: &str) -> Result<Vec<(usize, Annotation)>> {
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
            // An optional last number is a tag (pws.h adds a unique one to each marker so that
            // LLVM cannot merge two markers as identical inline asm): a tag met twice in one
            // loop is a marker clang copied by unrolling.
            ["split"] => Annotation::Split,
            ["split", t] if is_tag(t) => Annotation::Split,
            ["loop_bound", n] | ["loop_bound", n, _] if words.get(2).is_none_or(|t| is_tag(t)) => {
                match bound_value(n) {
                    Some(b) if b >= 1 => {
                        Annotation::LoopBound(b, words.get(2).and_then(|t| t.parse().ok()))
                    }
                    _ => {
                        return syntax(
                            file,
                            i + 1,
                            col,
                            format!("loop_bound needs an integer of at least 1, found '{n}'"),
                        )
                    }
                }
            }
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

/// Where an annotation comment applies: the instruction it belongs with.
///
/// A comment written by hand applies to the next instruction (`; pws: loop_bound N` right before
/// a loop header's label). One that clang emitted for an inline `asm volatile` (between
/// `;;#ASMSTART` and `;;#ASMEND`) sits where the C statement was, inside a basic block: it
/// belongs with the instruction before it, unless a label (or LLVM's `; %bb.N:` comment for a
/// block entered by falling through) comes first, which means it opens its block. (A C loop body that starts with an inner loop puts the outer annotation right
/// before the inner loop's header label; the next instruction would be the wrong loop's.)
pub(super) struct Anchors {
    /// Per source line (0-based): the instruction on it, or a label.
    line_kind: Vec<LineKind>,
    /// Per source line: inside an inline-asm block.
    inline_asm: Vec<bool>,
    /// First instruction index at or after each line.
    next: Vec<Option<usize>>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum LineKind {
    Other,
    Label,
    Instruction(usize),
}

impl Anchors {
    pub(super) fn new(source: &str, program: &Program) -> Anchors {
        let lines: Vec<&str> = source.lines().collect();
        let mut line_kind = vec![LineKind::Other; lines.len() + 1];
        // A line holds one instruction, or a restored skip branch before it
        // (`super::extract_restoring`): the first is where an annotation above it lands.
        for (i, l) in program.instructions.iter().enumerate().rev() {
            if let Some(k) = line_kind.get_mut(l.line as usize) {
                *k = LineKind::Instruction(i);
            }
        }
        let mut inline_asm = vec![false; lines.len() + 1];
        let mut open = false;
        for (k, l) in lines.iter().enumerate() {
            let t = l.trim();
            if t.starts_with(";;#ASMSTART") {
                open = true;
            } else if t.starts_with(";;#ASMEND") {
                open = false;
            }
            inline_asm[k + 1] = open;
            let code = t.split(';').next().unwrap_or("").trim();
            let is_label =
                code.ends_with(':') && !code[..code.len() - 1].contains(char::is_whitespace);
            // LLVM names a basic block it gives no label (one entered by falling through a
            // conditional branch) in a comment, `; %bb.N:`, followed inside a loop by
            // `;   in Loop: Header=...`: it opens a block all the same.
            let is_unlabelled_block = is_unlabelled_block(t);
            if line_kind[k + 1] == LineKind::Other && (is_label || is_unlabelled_block) {
                line_kind[k + 1] = LineKind::Label;
            }
        }
        let mut next = vec![None; lines.len() + 2];
        for k in (1..=lines.len()).rev() {
            next[k] = match line_kind[k] {
                LineKind::Instruction(i) => Some(i),
                _ => next[k + 1],
            };
        }
        Anchors {
            line_kind,
            inline_asm,
            next,
        }
    }

    /// The annotation on (1-based) `line` came from C (`PWS_LOOP_BOUND`, `PWS_SPLIT`).
    pub(super) fn from_c(&self, line: usize) -> bool {
        self.inline_asm.get(line).copied().unwrap_or(false)
    }

    /// The instruction the annotation on (1-based) `line` belongs with.
    pub(super) fn of(&self, line: usize) -> Option<usize> {
        let after = self.next.get(line + 1).copied().flatten();
        if !self.inline_asm.get(line).copied().unwrap_or(false) {
            return after;
        }
        for k in (1..line).rev() {
            match self.line_kind[k] {
                LineKind::Instruction(i) => return Some(i),
                LineKind::Label => return after,
                LineKind::Other => {}
            }
        }
        after
    }
}

/// LLVM's comment for a block without a label: `; %bb.N:`, perhaps with more comment after it.
fn is_unlabelled_block(line: &str) -> bool {
    line.strip_prefix("; %bb.")
        .and_then(|r| r.split_whitespace().next())
        .and_then(|w| w.strip_suffix(':'))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// The tag pws.h's markers end with: a decimal number.
/// A bound written in decimal, or in hexadecimal after `0x`: clang prints an inline asm
/// operand above 64 (outside AMDGPU's inline constants) that way, so `PWS_LOOP_BOUND(111)`
/// becomes `; pws: loop_bound 0x6f 1`.
fn bound_value(word: &str) -> Option<u64> {
    match word.strip_prefix("0x").or_else(|| word.strip_prefix("0X")) {
        Some(hex) if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) => {
            u64::from_str_radix(hex, 16).ok()
        }
        Some(_) => None,
        None if word.bytes().all(|b| b.is_ascii_digit()) => word.parse().ok(),
        None => None,
    }
}

fn is_tag(word: &str) -> bool {
    !word.is_empty() && word.bytes().all(|b| b.is_ascii_digit())
}

/// True when the source carries a `; pws: split` marker (a cheap test that needs no CFG).
pub fn has_split_marker(source: &str) -> bool {
    source.lines().any(|l| {
        [l.find(';').map(|c| c + 1), l.find("//").map(|c| c + 2)]
            .into_iter()
            .flatten()
            .filter_map(|c| l[c..].trim_start().strip_prefix("pws:"))
            .any(|r| match r.split_whitespace().collect::<Vec<_>>()[..] {
                ["split"] => true,
                ["split", t] => is_tag(t),
                _ => false,
            })
    })
}

/// The header bound that `; pws: loop_bound n` in block `at` of loop `l` gives: the annotation
/// counts the executions of its own block, at most n per entry into the loop. When `at` is on
/// every iteration's path (it dominates every latch), the header runs as often, plus one when
/// the loop can leave between the header and `at` (a test at the top of the loop, which runs
/// once more than the body). Elsewhere it bounds nothing.
pub(super) fn header_bound(flow: &Flow, l: usize, at: usize, n: u64) -> Option<u64> {
    let lp = &flow.loops[l];
    if !lp.latches.iter().all(|&x| flow.dominates(at, x)) {
        return None;
    }
    let mut seen = vec![false; flow.blocks.len()];
    let mut work = vec![lp.header];
    let mut exits_first = false;
    while let Some(x) = work.pop() {
        if x == at || std::mem::replace(&mut seen[x], true) {
            continue;
        }
        exits_first |= lp.exits.iter().any(|&(from, _)| from == x);
        work.extend(flow.forward_succ(x).filter(|&t| lp.contains(t)));
    }
    Some(n + u64::from(exits_first))
}

/// Why the C marker on (1-based) assembly `line` does not bound machine loop `l`, which holds
/// it: the source loop the marker is in is not `l` but one inside it, which clang removed
/// (one trip) or unrolled whole. The evidence is a compare of `l` that the line table places
/// in a source loop around the marker's ([`around`]), outside the marker's own: its test, or
/// an `if` of its body. (A loop's compares are its own or its inner loops'; code clang moves
/// into a loop is never a compare.) None where the line table or the source's loops say
/// nothing.
fn removed_loop(
    table: &LineTable,
    program: &Program,
    flow: &Flow,
    l: usize,
    line: usize,
) -> Option<String> {
    let marker = table.at(u32::try_from(line).ok()?)?;
    let file = table.file(marker.file)?;
    let own = table.loop_at(marker.file, marker.pos)?;
    let around = around(table, marker.file, own);
    flow.loops[l]
        .body
        .iter()
        .flat_map(|&b| flow.blocks[b].clone())
        .map(|i| &program.instructions[i])
        .filter(|inst| is_compare(&inst.item))
        .filter_map(|inst| table.at(inst.line))
        .filter(|at| at.file != marker.file || own.extent.contains(at.pos) == Some(false))
        .find_map(|at| {
            let there = table.file(at.file)?;
            let (outer_file, outer, how) = match innermost(&around, at.file, at.pos) {
                Some((f, c)) => (f, c, String::new()),
                None => {
                    let (f, c, site) = called_around(table, marker.file, own, &around, at)?;
                    let f_file = table.file(f)?;
                    (f, c, format!(", called at {}", f_file.show(site)))
                }
            };
            let outer_at = table.file(outer_file)?.show(outer.at());
            Some(format!(
                "'pws: loop_bound' belongs to the loop at {}, which clang removed or unrolled \
                 whole: it sits in the loop at {outer_at} (whose compare at {}{how} is in this \
                 loop), where it bounds nothing; annotate the loop at {outer_at} itself",
                file.show(own.at()),
                there.show(at.pos),
            ))
        })
}

/// The loop of `around` (by file) that runs the compare at `at` through calls: `at` is in a
/// function that a loop of `around` calls, directly or through other functions, outside the
/// marker's loop `own` (of file `f`), and no call on the way is inside `own` (whose inlined
/// copy the compare could be). Returns the loop and its call.
fn called_around<'a>(
    table: &LineTable,
    f: u32,
    own: &CLoop,
    around: &[(u32, &'a CLoop)],
    at: super::line_table::Loc,
) -> Option<(u32, &'a CLoop, super::c_loops::Pos)> {
    let mut found = None;
    for g in table.callers_of(table.function_at(at.file, at.pos)?) {
        for (cf, call) in table.calls_to(g) {
            if cf == f && own.extent.contains(call.at) != Some(false) {
                return None;
            }
            if let Some((lf, c)) = innermost(around, cf, call.at) {
                found = found.or(Some((lf, c, call.at)));
            }
        }
    }
    found
}

/// The innermost of `loops` (by file) around position `pos` of file `f`.
fn innermost<'a>(
    loops: &[(u32, &'a CLoop)],
    f: u32,
    pos: super::c_loops::Pos,
) -> Option<(u32, &'a CLoop)> {
    (loops.iter())
        .filter(|(lf, c)| *lf == f && c.extent.contains(pos) == Some(true))
        .max_by_key(|(_, c)| c.at())
        .copied()
}

/// A VALU or SALU compare: a loop's test, an `if`'s condition.
pub(super) fn is_compare(inst: &pws_isa::Instruction) -> bool {
    let m = inst.opcode.mnemonic();
    ["v_cmp", "s_cmp", "s_bitcmp"]
        .iter()
        .any(|p| m.starts_with(p))
}

/// Where loop `l`'s statement is in the C source (`k.cl:4:3`): the source loop around the
/// compare its exit branches test ([`loop_around`]), the last compare of a block the loop
/// leaves from. None where the line table does not say.
pub(super) fn loop_statement(
    table: &LineTable,
    program: &Program,
    flow: &Flow,
    l: usize,
) -> Option<String> {
    flow.loops[l].exits.iter().find_map(|&(from, _)| {
        let test = flow.blocks[from]
            .clone()
            .rev()
            .map(|i| &program.instructions[i])
            .find(|inst| is_compare(&inst.item))?;
        let at = table.at(test.line)?;
        let (f, statement) = loop_around(table, at.file, at.pos)?;
        Some(table.file(f)?.show(statement.at()))
    })
}

/// The innermost source loop around position `pos` of file `f`; for a position in a function
/// outside its loops (`while (more(x))`), the one loop around every call of the function,
/// directly or through other functions.
fn loop_around(table: &LineTable, f: u32, pos: super::c_loops::Pos) -> Option<(u32, &CLoop)> {
    if let Some(c) = table.loop_at(f, pos) {
        return Some((f, c));
    }
    let mut found: Option<(u32, &CLoop)> = None;
    for g in table.callers_of(table.function_at(f, pos)?) {
        for (cf, call) in table.calls_to(g) {
            match (table.loop_at(cf, call.at), found) {
                (Some(c), None) => found = Some((cf, c)),
                (Some(c), Some((ff, fc))) if ff != cf || fc != c => return None,
                _ => {}
            }
        }
    }
    found
}

/// The source loops that run loop `own` of file `f`, by file: those around it in its
/// function, and those that call its function, directly or through other functions (which
/// clang inlines into them).
fn around<'a>(table: &'a LineTable, f: u32, own: &CLoop) -> Vec<(u32, &'a CLoop)> {
    let Some(file) = table.file(f) else {
        return Vec::new();
    };
    let mut out: Vec<(u32, &CLoop)> = (file.code.loops.iter())
        .filter(|c| c.extent.encloses(&own.extent) && *c != own)
        .map(|c| (f, c))
        .collect();
    let Some(home) = table.function_at(f, own.at()) else {
        return out;
    };
    for g in table.callers_of(home) {
        for (cf, call) in table.calls_to(g) {
            let Some(sf) = table.file(cf) else { continue };
            out.extend(
                (sf.code.loops.iter())
                    .filter(|c| c.extent.contains(call.at) == Some(true))
                    .filter(|c| !out.iter().any(|(of, o)| *of == cf && o == c))
                    .map(|c| (cf, c))
                    .collect::<Vec<_>>(),
            );
        }
    }
    out
}

/// What [`apply`] found out about the machine loops (by flow loop).
pub(super) struct Applied {
    /// The loops where one tagged marker appears more than once: clang unrolled the loop it
    /// came from, which may be an inner loop it unrolled whole, whose bound then is not this
    /// loop's.
    pub copied: std::collections::BTreeSet<usize>,
    /// Markers of a removed inner loop that each loop holds, as [`removed_loop`] says why
    /// they bound nothing.
    pub removed: Vec<(usize, Note)>,
}

/// Applies the annotations of `source` to the `ifs` (markers) and to the loop headers among
/// `blocks` (bounds); `node_of` maps a flow block to its first CFG node.
pub(super) fn apply(
    source: &str,
    lines: &LineTable,
    file: &str,
    program: &Program,
    flow: &Flow,
    node_of: impl Fn(usize) -> usize,
    blocks: &mut [Block],
    ifs: &mut [IfBranch],
    notes: &mut Vec<Note>,
) -> Result<Applied> {
    let mut removed = Vec::new();
    let anchors = Anchors::new(source, program);
    let mut tags: std::collections::HashMap<(usize, u64), usize> = Default::default();
    for (line, ann) in annotations(source, file)? {
        let at = anchors.of(line);
        let warn = |msg: &str| Note {
            line: line as u32,
            message: msg.to_string(),
        };
        match ann {
            Annotation::Split => {
                let hit = at.and_then(|i| {
                    let b = flow.block_of(i);
                    ifs.iter_mut()
                        .find(|x| flow.block_of(x.cbranch) == b && x.cbranch >= i)
                });
                match hit {
                    Some(x) => x.marker = true,
                    None => notes.push(warn(
                        "'pws: split' is not followed by a divergent if in its block (the compiler may have made it straight-line code); it marks nothing",
                    )),
                }
            }
            Annotation::LoopBound(bound, tag) => {
                let block = at.map(|i| flow.block_of(i));
                // `PWS_LOOP_BOUND(N)` in C bounds the source loop's iterations, N per entry,
                // whatever block clang put the comment in; the machine loop's header, which
                // holds the loop test or starts the body, then runs at most N + 1 times. (The
                // structurizer's divergent while loop skips the body block with
                // s_cbranch_execz only on the last test, so the body block does not dominate
                // the latch.)
                let c_bound = anchors.from_c(line).then(|| bound.saturating_add(1));
                let found = block.and_then(|b| flow.loop_of(b).map(|l| (b, l)));
                if let (Some((_, l)), true) = (found, anchors.from_c(line)) {
                    if let Some(msg) = removed_loop(lines, program, flow, l, line) {
                        notes.push(warn(&msg));
                        removed.push((l, warn(&msg)));
                        continue;
                    }
                }
                match found {
                    Some((b, l)) => match header_bound(flow, l, b, bound).or(c_bound) {
                        // The largest bound in a loop wins: an annotation of an inner loop
                        // clang unrolled lands in the enclosing loop's body, where it bounds
                        // nothing, and the loop's own annotation is always inside it.
                        Some(n) => {
                            let h = &mut blocks[node_of(flow.loops[l].header)].loop_bound;
                            *h = Some(h.map_or(n, |b| b.max(n)));
                            if let Some(t) = tag {
                                *tags.entry((l, t)).or_default() += 1;
                            }
                        }
                        None => notes.push(warn(
                            "'pws: loop_bound' is not on the path of every iteration of its loop (put it at the start of the loop body); it bounds nothing",
                        )),
                    },
                    None => notes.push(warn(
                        "'pws: loop_bound' is not inside a loop (the compiler may have unrolled it); it bounds nothing",
                    )),
                }
            }
        }
    }
    Ok(Applied {
        copied: tags
            .into_iter()
            .filter(|&(_, n)| n > 1)
            .map(|((l, _), _)| l)
            .collect(),
        removed,
    })
}
