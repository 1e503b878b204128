//! The "insert merge" pass of [P] Fig 6 (digest 3.2): for every split point (a `split` already
//! right before the divergent branch, a `; pws: split` marker, or every divergent branch with
//! `split_all`) it puts `split <cond_lo>, <cond_hi>` immediately before the branch's
//! `s_cbranch_execz`, and `merge` right after the join's EXEC restore (`s_or_b64 exec, exec,
//! sY`), where both halves have their full EXEC back (digest 7.6). `split` anywhere else and
//! `merge` anywhere else are redundant and removed. The result is checked by re-assembling it.
//!
//! A branch whose divergent region (from its `s_cbranch_execz` to the join's EXEC restore)
//! holds an `s_barrier` cannot split: the context that reaches the barrier waits for the
//! workgroup, its partner waits at the merge for it, and neither moves again. A `split` the
//! source already has there is an error, and so is a marker (without `split_all`); with
//! `split_all` (DWS) such a branch is left serialized and listed in
//! [`Compiled::barrier_regions`].
//!
//! The mask is the branch condition: the lanes that take path 1 stay in the creating context,
//! the others go to the new split wavefront (design.md decision 3). If the condition register
//! is overwritten by the `s_and_saveexec_b64` itself, EXEC (= condition & old EXEC) is used.

use std::collections::{BTreeMap, BTreeSet};

use pws_isa::Operand;

use crate::cfg::BsbCfg;
use crate::error::{HostError, Result};
use crate::extract::{extract, IfBranch};
use crate::timing::TimingTable;

/// The transformed source and what changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compiled {
    pub text: String,
    /// Names (labels) of the branch blocks that split.
    pub split_points: Vec<String>,
    pub inserted_splits: usize,
    pub inserted_merges: usize,
    pub removed_splits: usize,
    pub removed_merges: usize,
    /// Divergent branches left unsplit under `split_all` because their region holds an
    /// `s_barrier`.
    pub barrier_regions: Vec<String>,
}

/// `split` operands for a 64-bit mask register, or `None` when it has no 32-bit halves.
fn halves(op: Operand) -> Option<String> {
    Some(match op {
        Operand::VccLo => "vcc_lo, vcc_hi".to_string(),
        Operand::ExecLo => "exec_lo, exec_hi".to_string(),
        Operand::Sgpr(n) if u16::from(n) + 1 < pws_isa::NUM_SGPRS => format!("s{}, s{}", n, n + 1),
        Operand::Ttmp(n) if u16::from(n) + 1 < pws_isa::NUM_TTMPS => {
            format!("ttmp{}, ttmp{}", n, n + 1)
        }
        _ => return None,
    })
}

fn mask_operands(b: &IfBranch) -> String {
    let overlaps = match (b.cond, b.save) {
        (Operand::Sgpr(c), Operand::Sgpr(s)) => c.abs_diff(s) < 2,
        (c, s) => c == s,
    };
    if overlaps {
        "exec_lo, exec_hi".to_string()
    } else {
        halves(b.cond).unwrap_or_else(|| "exec_lo, exec_hi".to_string())
    }
}

fn indent_of(line: &str) -> &str {
    let n = line.len() - line.trim_start().len();
    &line[..n]
}

/// Removes the `split`/`merge` instruction from a source line, keeping a label before it.
fn without_instruction(line: &str, mnemonic: &str) -> Option<String> {
    // The mnemonic as a word: at the start or after a blank or a label's ':'.
    let pos = line
        .match_indices(mnemonic)
        .map(|(i, _)| i)
        .find(|&i| i == 0 || line[..i].ends_with(|c: char| c.is_whitespace() || c == ':'))?;
    let head = line[..pos].trim_end();
    (!head.trim().is_empty()).then(|| head.to_string())
}

/// Runs the pass on `source` (`file` names it in errors).
pub fn compile(source: &str, file: &str, split_all: bool) -> Result<Compiled> {
    let kernel = extract(source, file, &TimingTable::GCN3)?;
    // Structure only: irreducible flow and broken if/else regions are errors, loop bounds are not needed here.
    BsbCfg::structure(kernel.cfg.clone())?;
    let insts = &kernel.program.instructions;
    let line = |i: usize| insts[i].line as usize;

    let mut before: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    let mut after: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    let mut remove: BTreeMap<usize, &str> = BTreeMap::new();
    let mut kept_merges = BTreeSet::new();
    let mut out = Compiled {
        text: String::new(),
        split_points: Vec::new(),
        inserted_splits: 0,
        inserted_merges: 0,
        removed_splits: 0,
        removed_merges: 0,
        barrier_regions: Vec::new(),
    };
    let lines: Vec<&str> = source.lines().collect();
    for b in &kernel.ifs {
        // Under `split_all` a marker asks for nothing more than every branch gets.
        let requested = b.split.is_some() || (b.marker && !split_all);
        if !(split_all || requested) {
            continue;
        }
        let name = &kernel.cfg.blocks[b.node].name;
        let barrier =
            (b.cbranch + 1..b.restore).find(|&i| insts[i].item.opcode == pws_isa::Opcode::SBarrier);
        match barrier {
            Some(i) if requested => {
                return Err(HostError::Structure(format!(
                    "{file}:{}: the split at {name} has `s_barrier` (line {}) in its divergent \
                     region: the split contexts would wait for each other at the barrier and \
                     the merge forever; move the barrier out of the if/else or do not split it",
                    line(b.cbranch),
                    line(i)
                )));
            }
            Some(_) => {
                out.barrier_regions.push(name.clone());
                continue;
            }
            None => {}
        }
        out.split_points.push(name.clone());
        if b.split.is_none() {
            let l = line(b.cbranch);
            let indent = indent_of(lines[l - 1]);
            before
                .entry(l)
                .or_default()
                .push(format!("{indent}split {}", mask_operands(b)));
            out.inserted_splits += 1;
        }
        let next = b.restore + 1;
        if next < insts.len()
            && insts[next].item.opcode == pws_isa::Opcode::Merge
            && !kept_merges.contains(&next)
        {
            kept_merges.insert(next);
        } else {
            let l = line(b.restore);
            let indent = indent_of(lines[l - 1]);
            after.entry(l).or_default().push(format!("{indent}merge"));
            out.inserted_merges += 1;
        }
    }
    for &i in &kernel.stray_splits {
        remove.insert(line(i), "split");
        out.removed_splits += 1;
    }
    for &i in kernel.merges.iter().filter(|i| !kept_merges.contains(i)) {
        remove.insert(line(i), "merge");
        out.removed_merges += 1;
    }

    let mut text = String::with_capacity(source.len() + 64);
    for (k, &src) in lines.iter().enumerate() {
        let l = k + 1;
        for s in before.get(&l).into_iter().flatten() {
            text.push_str(s);
            text.push('\n');
        }
        match remove.get(&l) {
            Some(m) => {
                if let Some(rest) = without_instruction(src, m) {
                    text.push_str(&rest);
                    text.push('\n');
                }
            }
            None => {
                text.push_str(src);
                text.push('\n');
            }
        }
        for s in after.get(&l).into_iter().flatten() {
            text.push_str(s);
            text.push('\n');
        }
    }
    pws_isa::assemble(&text, file)
        .map_err(|e| HostError::Input(format!("the transformed kernel does not assemble: {e}")))?;
    out.text = text;
    Ok(out)
}
