//! The "insert merge" pass of [P] Fig 6 (digest 3.2): for every split point (a `split` already
//! right before a divergent branch, a `; pws: split` marker, or the branches a
//! [`SplitPolicy`] adds) it puts `split M` immediately before the branch's `s_cbranch_exec*`
//! (M is the branch condition, or EXEC: [`IfBranch::mask`]) and `merge` where
//! [`crate::extract`] places the region's end: right after the join's EXEC restore, where both
//! halves have their full EXEC back (digest 7.6), or at the start of the join when nothing
//! restores EXEC. `split` anywhere else and `merge` anywhere else are redundant and removed.
//! The result is checked by re-assembling it.
//!
//! A split must not change what the kernel computes ([`IfBranch::unsplittable`]): a branch
//! inside a divergent loop, one whose region holds an `s_barrier` or a lane access
//! (`v_readlane_b32`, `v_writelane_b32`), and one where the split
//! would lose a scalar value (liveness, [`crate::liveness`]) cannot split. A split the source
//! already has there, or a marker, is an error naming the reason and the lines; a branch the
//! policy adds (DWS's every branch, or the cost model's) stays serialized instead and is listed
//! in [`Compiled::skipped`], and so is an `if` without `else` that nobody marked (it has
//! nothing to run in parallel) and, under [`SplitPolicy::Auto`], a branch whose split costs
//! more than it overlaps ([`crate::profit`]).

use std::collections::BTreeMap;

use serde::Serialize;

use pws_isa::Operand;

use crate::cfg::BsbCfg;
use crate::error::{HostError, Result};
use crate::extract::skips::Side;
use crate::extract::{
    extract, extract_restoring, IfBranch, Kernel, MergeAt, Note, Restored, Unsplittable,
};
use crate::timing::TimingTable;

/// Which divergent branches become split points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SplitPolicy {
    /// The marked ones (`; pws: split`, `PWS_SPLIT()`) and the `split`s the source has.
    #[default]
    Marked,
    /// Every divergent branch that can split (DWS's rule, `--split-all`).
    All,
    /// The marked ones, and every other two-sided branch whose split pays for itself by the
    /// cost model of [`crate::profit`] (`--split-auto`).
    Auto,
}

impl SplitPolicy {
    pub const ALL: [SplitPolicy; 3] = [SplitPolicy::Marked, SplitPolicy::All, SplitPolicy::Auto];

    /// The name in sweep files and reports.
    pub fn name(self) -> &'static str {
        match self {
            SplitPolicy::Marked => "marked",
            SplitPolicy::All => "all",
            SplitPolicy::Auto => "auto",
        }
    }

    /// The policy adds split points beyond the ones the source asks for.
    pub fn adds_splits(self) -> bool {
        self != SplitPolicy::Marked
    }
}

impl std::str::FromStr for SplitPolicy {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<SplitPolicy, String> {
        SplitPolicy::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| format!("unknown split policy '{s}' (expected marked, all or auto)"))
    }
}

/// Why the pass left a divergent branch serialized.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SkipReason {
    /// An `if` without `else`: the split wavefront would only wait at the merge.
    OneSided,
    DivergentLoop,
    Barrier,
    /// A `v_readlane_b32`/`v_writelane_b32` in the region addresses lanes of either half.
    LaneAccess,
    /// Splitting would lose or stale a scalar value.
    LiveScalar,
    /// [`SplitPolicy::Auto`]: the shorter path is over before the split and merge pay off.
    NotProfitable,
}

/// A divergent branch the policy would have split but did not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// The branch block's name (label).
    pub branch: String,
    /// Source line of its `s_cbranch_exec*`.
    pub line: u32,
    pub reason: SkipReason,
    pub detail: String,
    /// The kernel asked for this split (a `; pws: split` marker).
    pub marked: bool,
}

/// The transformed source and what changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compiled {
    pub text: String,
    /// Names (labels) of the branch blocks that split.
    pub split_points: Vec<String>,
    pub inserted_splits: usize,
    pub inserted_merges: usize,
    /// Skip branches LLVM had removed from the sides of a region that splits, put back
    /// ([`crate::extract::skips`]).
    pub restored_branches: usize,
    pub removed_splits: usize,
    pub removed_merges: usize,
    /// Divergent branches the policy left serialized, and why.
    pub skipped: Vec<Skipped>,
    /// What the front end noticed (unrecognised shapes, annotations that mark nothing).
    pub notes: Vec<Note>,
}

/// `split` operands for a 64-bit mask register.
fn mask_operands(op: Operand) -> String {
    match op {
        Operand::VccLo => "vcc_lo, vcc_hi".to_string(),
        Operand::Sgpr(n) => format!("s{}, s{}", n, n + 1),
        _ => "exec_lo, exec_hi".to_string(),
    }
}

fn indent_of(line: &str) -> &str {
    let n = line.len() - line.trim_start().len();
    &line[..n]
}

/// Splits `label: instruction` into the label part and the instruction part, so that code
/// can go between them (a branch to the label must run it).
fn label_and_rest(line: &str) -> (Option<&str>, &str) {
    let code = line.split(';').next().unwrap_or("");
    match code.find(':') {
        Some(c)
            if !code[..c].trim().is_empty()
                && !code[..c].trim().contains(char::is_whitespace)
                && !code[c + 1..].trim().is_empty() =>
        {
            (Some(&line[..=c]), &line[c + 1..])
        }
        _ => (None, line),
    }
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

/// What a branch the source or the policy asks to split may do.
enum Decision {
    Split,
    Skip(SkipReason, String),
}

/// The skip branches LLVM removed from `b`'s region that a split of it puts back: the then-
/// side's (its divergent branch itself), the else-side's and the then-side's branch to the
/// flip LLVM copied into it, as indices into `restored`.
fn restored_of(b: &IfBranch, kernel: &Kernel, restored: &[Restored]) -> Vec<usize> {
    restored
        .iter()
        .enumerate()
        .filter(|(_, r)| match r.side {
            Side::Then => r.branch == b.cbranch,
            Side::Else => b.flip.is_some() && b.restore == Some(r.target),
            Side::FlipCopy => {
                b.flip.is_some() && b.paths[0].contains(&kernel.flow.block_of(r.branch))
            }
        })
        .map(|(k, _)| k)
        .collect()
}

/// `restored` counts the skip branches a split of `b` puts back ([`restored_of`]).
fn decide(
    b: &IfBranch,
    name: &str,
    kernel: &Kernel,
    restored: usize,
    file: &str,
    opts: &Options,
) -> Result<Option<Decision>> {
    let adds = opts.policy.adds_splits();
    let insts = &kernel.program.instructions;
    let line = insts[b.cbranch].line;
    // When the policy adds splits, a marker asks for nothing more than every branch gets.
    let explicit = b.split.is_some();
    let requested = explicit || b.marker;
    if !(adds || requested) {
        return Ok(None);
    }
    if let Some(why) = &b.unsplittable {
        if explicit || (!adds && opts.strict_markers) {
            let what = if explicit {
                "the split"
            } else {
                "the marked split"
            };
            return Err(HostError::Structure(format!(
                "{file}:{line}: {what} at {name} changes what the kernel computes: {why}; remove it, or change the kernel so that {}",
                match why {
                    Unsplittable::DivergentLoop { .. } => "the branch is outside the divergent loop",
                    Unsplittable::Barrier { .. } => "the barrier is outside the if/else",
                    Unsplittable::LaneAccess { .. } =>
                        "no lane access is between the branch and the join (at -O0 clang keeps scalars in vector lanes: compile with -O1 or higher)",
                    Unsplittable::Hazards(_) => "the value is recomputed after the join",
                }
            )));
        }
        let reason = match why {
            Unsplittable::DivergentLoop { .. } => SkipReason::DivergentLoop,
            Unsplittable::Barrier { .. } => SkipReason::Barrier,
            Unsplittable::LaneAccess { .. } => SkipReason::LaneAccess,
            Unsplittable::Hazards(_) => SkipReason::LiveScalar,
        };
        return Ok(Some(Decision::Skip(reason, why.to_string())));
    }
    if b.one_sided() && !requested {
        return Ok(Some(Decision::Skip(
            SkipReason::OneSided,
            "an if without else: the split wavefront would only wait at the merge".into(),
        )));
    }
    if opts.policy == SplitPolicy::Auto && !requested {
        let estimate = crate::profit::estimate(
            &kernel.program,
            &kernel.flow,
            b,
            crate::input::program_sgprs(&kernel.program),
            restored as u64,
        );
        if !estimate.pays() {
            return Ok(Some(Decision::Skip(
                SkipReason::NotProfitable,
                estimate.to_string(),
            )));
        }
    }
    Ok(Some(Decision::Split))
}

/// How the pass treats the branches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Which branches split besides the ones the source asks for.
    pub policy: SplitPolicy,
    /// A marked branch that cannot split is an error (`pws compile`); otherwise it stays
    /// serialized and is listed in [`Compiled::skipped`] (`pws run`, which must not be
    /// blocked by the analysis). A `split` the source has there is an error either way.
    pub strict_markers: bool,
    /// Put back the skip branches LLVM removed in the regions that split
    /// ([`crate::extract::skips`]): PWS's compiler may; DWS splits at the branches the
    /// hardware sees, so its pass runs on the code as it is.
    pub restore_skips: bool,
}

/// Runs the pass on `source` (`file` names it in errors) under `policy`; marked branches that
/// cannot split are errors.
pub fn compile(source: &str, file: &str, policy: SplitPolicy) -> Result<Compiled> {
    compile_with(
        source,
        file,
        &Options {
            policy,
            strict_markers: true,
            restore_skips: true,
        },
    )
}

/// Runs the pass with `opts`.
///
/// Removing a stray `split` or `merge` can leave its block empty, and an empty block changes
/// which branches are divergent ifs (a `split` alone in a then-block made it non-empty). So
/// while a pass removes something, the pass runs again on the source without those
/// instructions, with its lines kept (blank) so that messages still name the user's lines:
/// the output is then its own fixed point.
pub fn compile_with(source: &str, file: &str, opts: &Options) -> Result<Compiled> {
    let mut text = std::borrow::Cow::Borrowed(source);
    let (mut splits, mut merges) = (0, 0);
    loop {
        let (mut out, stripped) = pass(&text, file, opts)?;
        match stripped {
            Some(next) if next != *text => {
                splits += out.removed_splits;
                merges += out.removed_merges;
                text = std::borrow::Cow::Owned(next);
            }
            _ => {
                out.removed_splits += splits;
                out.removed_merges += merges;
                return Ok(out);
            }
        }
    }
}

/// `source` without its `split` and `merge` instructions: the kernel as a GPU without PWS runs
/// it, the no-split baseline. A line that held one stays, blank or with its label, so that
/// messages still name the user's lines.
pub fn without_split_merge(source: &str, file: &str) -> Result<String> {
    let program = pws_isa::assemble(source, file).map_err(|e| HostError::Input(e.to_string()))?;
    let mut remove: BTreeMap<usize, &str> = BTreeMap::new();
    for l in &program.instructions {
        match l.item.opcode {
            pws_isa::Opcode::Split => remove.insert(l.line as usize, "split"),
            pws_isa::Opcode::Merge => remove.insert(l.line as usize, "merge"),
            _ => None,
        };
    }
    if remove.is_empty() {
        return Ok(source.to_string());
    }
    Ok(with_instructions_removed(source, &remove))
}

/// `source` with the instruction named in `remove` (by 1-based line) taken out of each of those
/// lines; a line keeps its label, else stays blank.
pub(crate) fn with_instructions_removed(source: &str, remove: &BTreeMap<usize, &str>) -> String {
    let mut text = String::with_capacity(source.len());
    for (k, line) in source.lines().enumerate() {
        match remove.get(&(k + 1)) {
            Some(m) => text.push_str(&without_instruction(line, m).unwrap_or_default()),
            None => text.push_str(line),
        }
        text.push('\n');
    }
    text
}

/// One pass over `source`: the result, and when it removed anything, `source` with only those
/// removals made (a line left empty stays, blank).
fn pass(source: &str, file: &str, opts: &Options) -> Result<(Compiled, Option<String>)> {
    let (kernel, restored) = if opts.restore_skips {
        extract_restoring(source, file, &TimingTable::GCN3)?
    } else {
        (extract(source, file, &TimingTable::GCN3)?, Vec::new())
    };
    // Structure only: broken if/else regions are errors, loop bounds are not needed here.
    BsbCfg::structure(kernel.cfg.clone())?;
    let insts = &kernel.program.instructions;
    let line = |i: usize| insts[i].line as usize;

    // Text to put before / after a source line.
    let mut before: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    let mut after: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    let mut out = Compiled {
        text: String::new(),
        split_points: Vec::new(),
        inserted_splits: 0,
        inserted_merges: 0,
        restored_branches: 0,
        removed_splits: 0,
        removed_merges: 0,
        skipped: Vec::new(),
        notes: kernel.notes.clone(),
    };
    let lines: Vec<&str> = source.lines().collect();
    let mut kept_merges = Vec::new();
    let mut kept_splits = Vec::new();
    let mut restore = vec![false; restored.len()];
    for b in &kernel.ifs {
        let name = &kernel.cfg.blocks[b.node].name;
        let mine = restored_of(b, &kernel, &restored);
        match decide(b, name, &kernel, mine.len(), file, opts)? {
            None => continue,
            Some(Decision::Skip(reason, detail)) => {
                out.skipped.push(Skipped {
                    branch: name.clone(),
                    line: insts[b.cbranch].line,
                    reason,
                    detail,
                    marked: b.marker,
                });
                continue;
            }
            Some(Decision::Split) => {}
        }
        out.split_points.push(name.clone());
        for &k in &mine {
            restore[k] = true;
        }
        match b.split {
            Some(s) => kept_splits.push(s),
            None => {
                let l = line(b.cbranch);
                let indent = indent_of(lines[l - 1]);
                before
                    .entry(l)
                    .or_default()
                    .push(format!("{indent}split {}", mask_operands(b.mask)));
                out.inserted_splits += 1;
            }
        }
        match b.merge {
            Some(m) => kept_merges.push(m),
            None => {
                let text = |i: usize| format!("{}merge", indent_of(lines[line(i) - 1]));
                match b.merge_at {
                    MergeAt::After(i) => after.entry(line(i)).or_default().push(text(i)),
                    MergeAt::Before(i) => before.entry(line(i)).or_default().push(text(i)),
                }
                out.inserted_merges += 1;
            }
        }
    }
    // The restored branches of the regions that split, and their labels; the others stay out,
    // as LLVM left them.
    let mut labels: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    for r in restored
        .iter()
        .zip(&restore)
        .filter(|(_, &k)| k)
        .map(|(r, _)| r)
    {
        // Before the first instruction it skips, behind a split of its region.
        let (at, to) = (r.at_line as usize, r.target_line as usize);
        let indent = indent_of(lines[at - 1]).to_string();
        before
            .entry(at)
            .or_default()
            .push(format!("{indent}{}", r.branch_text()));
        labels.entry(to).or_default().push(format!("{}:", r.label));
        out.restored_branches += 1;
    }
    let mut remove: BTreeMap<usize, &str> = BTreeMap::new();
    for &i in kernel.stray_splits.iter().chain(
        kernel
            .ifs
            .iter()
            .filter_map(|b| b.split)
            .filter(|s| !kept_splits.contains(s))
            .collect::<Vec<_>>()
            .iter(),
    ) {
        remove.insert(line(i), "split");
        out.removed_splits += 1;
    }
    for &i in kernel.merges.iter().filter(|i| !kept_merges.contains(i)) {
        remove.insert(line(i), "merge");
        out.removed_merges += 1;
    }

    let stripped = (!remove.is_empty()).then(|| with_instructions_removed(source, &remove));

    let mut text = String::with_capacity(source.len() + 64);
    for (k, &src) in lines.iter().enumerate() {
        let l = k + 1;
        let mut src = src.to_string();
        for label in labels.get(&l).into_iter().flatten() {
            text.push_str(label);
            text.push('\n');
        }
        if let Some(ins) = before.get(&l) {
            // Code inserted before an instruction goes after a label on its line.
            if let (Some(label), rest) = label_and_rest(&src) {
                text.push_str(label);
                text.push('\n');
                src = format!("{}{}", indent_of(ins[0].as_str()), rest.trim_start());
            }
            for s in ins {
                text.push_str(s);
                text.push('\n');
            }
        }
        match remove.get(&l) {
            Some(m) => {
                if let Some(rest) = without_instruction(&src, m) {
                    text.push_str(&rest);
                    text.push('\n');
                }
            }
            None => {
                text.push_str(&src);
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
    Ok((out, stripped))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two if/else as clang-14 leaves short ones, without skip branches: sides of `n` and `m`
    /// VALU instructions, on masks s[0:1] and s[2:3].
    fn straight_line(n: usize, m: usize) -> String {
        let side = |k: usize| "  v_add_u32_e32 v1, vcc, 1, v1\n".repeat(k);
        let region = |s: &str, k: usize| {
            format!(
                "  v_cmp_gt_u32_e32 vcc, 32, v0\n  s_and_saveexec_b64 {s}, vcc\n  s_xor_b64 {s}, exec, {s}\n{}  s_or_saveexec_b64 {s}, {s}\n  s_xor_b64 exec, exec, {s}\n{}  s_or_b64 exec, exec, {s}\n",
                side(k),
                side(k)
            )
        };
        format!(
            "k:\n{}{}  s_endpgm\n",
            region("s[0:1]", n),
            region("s[2:3]", m)
        )
    }

    #[test]
    fn skip_branches_come_back_only_where_the_pass_splits() {
        let c = compile(&straight_line(3, 1), "t.s", SplitPolicy::Auto).unwrap();
        assert_eq!(c.split_points.len(), 1, "{:?}", c.skipped);
        assert_eq!(c.restored_branches, 2);
        assert_eq!(c.skipped.len(), 1);
        assert_eq!(c.skipped[0].reason, SkipReason::NotProfitable);
        let t = &c.text;
        let at = |needle: &str| t.find(needle).unwrap_or_else(|| panic!("{needle} in\n{t}"));
        // The split sits between the mask's save and the restored branch over the then-side;
        // the else's branch skips to the join's restore, and the merge follows the restore.
        assert!(at("s_xor_b64 s[0:1], exec, s[0:1]") < at("split vcc_lo, vcc_hi"));
        assert!(at("split vcc_lo, vcc_hi") < at("s_cbranch_execz .Lpws_skip0"));
        assert!(at(".Lpws_skip0:\n  s_or_saveexec_b64 s[0:1]") > 0);
        assert!(at(".Lpws_skip1:\n  s_or_b64 exec, exec, s[0:1]\n  merge") > 0);
        assert_eq!(t.matches("s_cbranch_execz").count(), 2, "{t}");
        // Every message still names the user's lines: the second region's restored branch
        // carries line 17, of the first instruction it skips.
        assert_eq!(c.skipped[0].line, 17);
        // The result is its own fixed point.
        let again = compile(t, "t.s", SplitPolicy::Auto).unwrap();
        assert_eq!(again.text, *t);
        assert_eq!(again.restored_branches, 0);
    }

    #[test]
    fn a_marked_straight_line_if_else_splits_around_both_sides() {
        let src = straight_line(1, 1).replacen("  v_cmp_gt", "  ; pws: split\n  v_cmp_gt", 1);
        let c = compile(&src, "t.s", SplitPolicy::Marked).unwrap();
        assert_eq!(c.split_points.len(), 1);
        assert_eq!(c.restored_branches, 2);
        let merge = c.text.find("merge").unwrap();
        assert!(
            c.text[..merge].contains("s_or_b64 exec, exec, s[0:1]"),
            "{}",
            c.text
        );
    }

    #[test]
    fn a_flip_copied_into_the_then_side_is_rejoined_where_the_pass_splits() {
        // clang-14 -O3: the else's flip block copied to the end of the then-side.
        let src = &crate::extract::skips::FLIP_COPIED.replacen(
            "  s_and_saveexec_b64",
            "  ; pws: split\n  s_and_saveexec_b64",
            1,
        );
        let c = compile(src, "t.s", SplitPolicy::Marked).unwrap();
        assert_eq!(c.split_points.len(), 1, "{:?} {:?}", c.skipped, c.notes);
        assert_eq!(c.restored_branches, 1);
        let t = &c.text;
        let at = |needle: &str| t.find(needle).unwrap_or_else(|| panic!("{needle} in\n{t}"));
        // The then-side branches to the flip; the merge follows the join's restore.
        assert!(at(".Lpws_skip0:\n  s_or_saveexec_b64") < at(".LThen:"));
        assert!(at("v_mul_lo_u32 v0, v0, 15\n  s_branch .Lpws_skip0") > at(".LThen:"));
        assert!(at("s_or_b64 exec, exec, s[0:1]\n  merge") > at(".LJoin:"));
        let again = compile(t, "t.s", SplitPolicy::Marked).unwrap();
        assert_eq!(again.text, *t);
        // Without the mark nothing changes: the copy stays as LLVM left it.
        let plain = compile(
            &src.replace("  ; pws: split\n", ""),
            "t.s",
            SplitPolicy::Marked,
        )
        .unwrap();
        assert_eq!(plain.restored_branches, 0);
    }

    #[test]
    fn labels_on_an_instruction_line_are_kept_in_front() {
        assert_eq!(
            label_and_rest("L1: s_nop 0 ; c"),
            (Some("L1:"), " s_nop 0 ; c")
        );
        assert_eq!(
            label_and_rest("    s_nop 0 ; a: b"),
            (None, "    s_nop 0 ; a: b")
        );
        assert_eq!(label_and_rest("L1:"), (None, "L1:"));
    }
}
