use evalexpr::ContextWithMutableVariables;
use num_bigint::BigUint;
use regex::Regex;
use std::sync::LazyLock;

use crate::ast::{
    VerilogBlock, VerilogBlockOrConditional, VerilogCase, VerilogConditional, VerilogExpression,
    VerilogLink, VerilogLinkDetails, VerilogLiteral, VerilogLoop, VerilogMatch, VerilogOp,
    VerilogOpUnary,
};
use crate::code_writer::CodeWriter;
use crate::verilog_visitor::{walk_block, VerilogVisitor};

/// `[index]` in a name; compiled once (pws patch 6: upstream compiled it for every name).
static INDEX: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\[([^\]]*)\]").unwrap());

struct LoopVariable {
    variable: String,
    value: usize,
}

#[derive(Default)]
struct VerilogCodeGenerator {
    io: CodeWriter,
    loops: Vec<LoopVariable>,
    links: Vec<VerilogLink>,
    /// Resolved names written as other names (pws patch 5: segments of a signal).
    rename: std::collections::HashMap<String, String>,
}

impl VerilogCodeGenerator {
    /// Resolves every `[expr]` of a name with the loop variables in scope (`vus[i]$port[k]`
    /// -> `vus$1$port$2`); upstream resolved only the first (pws patch, PATCH.md).
    fn array_index_simplification(&self, a: &str) -> String {
        let re = &*INDEX;
        let mut context = evalexpr::HashMapContext::new();
        for lvar in &self.loops {
            let _ = context.set_value(lvar.variable.clone(), (lvar.value as i64).into());
        }
        let mut name = a.to_string();
        while let Some(index) = re.captures(&name).and_then(|x| x.get(1)) {
            // An index the loop variables cannot evaluate stays in the name, where the Verilog
            // tools report it (upstream panicked here).
            let Ok(arg) = evalexpr::eval_with_context(index.as_str(), &context) else {
                break;
            };
            name = re.replace(&name, format!("$${}", arg)).to_string();
        }
        name
    }

    /// The value of `e` when the loop variables in scope and literals alone decide it (pws
    /// patch 7, PATCH.md): `(k == kk) | (kk == 0)` inside unrolled loops over `k` and `kk`, or
    /// `x & (3 == 1)` for any `x`. `None` when a signal's value matters or the arithmetic could
    /// wrap at Verilog's widths.
    fn known(&self, e: &VerilogExpression) -> Option<u64> {
        use VerilogExpression as E;
        use VerilogOp as Op;
        match e {
            E::Literal(v) => v.as_u64(),
            E::Signal(s) => self
                .loops
                .iter()
                .rev()
                .find(|l| l.variable == *s)
                .map(|l| l.value as u64),
            E::Paren(a) => self.known(a),
            E::Binary(a, op, b) => {
                let (x, y) = (self.known(a), self.known(b));
                match op {
                    // Zero on either side decides an AND, whatever the other side's width.
                    Op::BitAnd | Op::LogicalAnd if x == Some(0) || y == Some(0) => Some(0),
                    _ => {
                        let (x, y) = (x?, y?);
                        let small = |v: u64| (v <= u64::from(u32::MAX)).then_some(v);
                        match op {
                            Op::BitAnd => Some(x & y),
                            Op::BitOr => Some(x | y),
                            Op::LogicalAnd => Some(u64::from(x != 0 && y != 0)),
                            Op::LogicalOr => Some(u64::from(x != 0 || y != 0)),
                            Op::Eq => Some(u64::from(x == y)),
                            Op::Ne => Some(u64::from(x != y)),
                            Op::Lt => Some(u64::from(x < y)),
                            Op::Le => Some(u64::from(x <= y)),
                            Op::Gt => Some(u64::from(x > y)),
                            Op::Ge => Some(u64::from(x >= y)),
                            Op::Add => small(x.checked_add(y)?),
                            Op::Mul => small(x.checked_mul(y)?),
                            Op::Sub => small(x.checked_sub(y)?),
                            Op::BitXor | Op::Shl | Op::Shr => None,
                        }
                    }
                }
            }
            _ => None,
        }
    }

    /// The `else` part of an `if` whose condition is known false, without the `else`.
    fn visit_block_or_conditional_taken(&mut self, o: &VerilogBlockOrConditional) {
        match &o {
            VerilogBlockOrConditional::Block(b) => self.visit_block(b),
            VerilogBlockOrConditional::Conditional(c) => self.visit_statement(c),
            VerilogBlockOrConditional::None => self.io.writeln("begin end"),
        }
    }

    fn link_fixup(&self, x: &VerilogLinkDetails) -> VerilogLinkDetails {
        VerilogLinkDetails {
            my_name: self.ident_fixup(&x.my_name),
            owner_name: self.ident_fixup(&x.owner_name),
            other_name: self.ident_fixup(&x.other_name),
        }
    }

    fn ident_fixup(&self, a: &str) -> String {
        let mut x = a.to_owned();
        for index in &self.loops {
            if x == index.variable {
                x = format!("{}", index.value);
            }
        }
        if x.starts_with(".") {
            x.remove(0);
        }
        x = x
            .replace(".", "$")
            .replace("::", "$")
            .trim_end_matches("$next")
            .to_owned();
        if x.contains('[') {
            x = self.array_index_simplification(&x);
        }
        x
    }
}

impl ToString for VerilogCodeGenerator {
    fn to_string(&self) -> String {
        self.io.to_string()
    }
}

pub fn verilog_link_extraction(code: &VerilogBlock) -> Vec<VerilogLink> {
    let mut gen = VerilogCodeGenerator::default();
    gen.visit_block(code);
    gen.links
}

/// Upstream's output: the whole `update` as one `always @(*)` block. Slicing needs the
/// declarations of the module's signals, which only the module knows (pws patch 5:
/// [`verilog_combinatorial_sliced`]).
pub fn verilog_combinatorial(code: &VerilogBlock) -> String {
    let mut gen = VerilogCodeGenerator::default();
    gen.visit_block(code);
    format!("always @(*) {}\n", gen.to_string())
}

/// The module's `update` as one `always @(*)` block per assigned signal (pws patch 5,
/// PATCH.md), and the signals it cut into segments (their last segment may be unread, as every
/// read of theirs may name an earlier one). `decl(signal, copy)` is the declaration of a `reg`
/// named `copy` of `signal`'s width and signedness, `None` when `signal` is not one of the
/// module's signals (then a module that needs the copy gets [`verilog_combinatorial`]'s single
/// block).
pub fn verilog_combinatorial_sliced(
    code: &VerilogBlock,
    decl: &dyn Fn(&str, &str) -> Option<String>,
) -> (String, Vec<String>) {
    match slice::combinatorial(code, decl) {
        Some(sliced) => sliced,
        None => (verilog_combinatorial(code), vec![]),
    }
}

/// Program slicing of a module's combinational code (pws patch 5, PATCH.md).
///
/// Upstream writes the whole `update` as one `always @(*)` block. Verilator's scheduler then
/// sees one process that writes every child input and reads every child output, so a parent
/// that feeds one child output into another child input looks like a combinational loop
/// (`UNOPTFLAT`) and the block is evaluated again and again until it settles. Here each assigned
/// signal (the base name of an assignment's or slice assignment's left-hand side, after loop
/// unrolling and name resolution) gets a block of its own holding only its assignments, in their
/// original order, inside the `if`/`case` structure around them (branches without one of its
/// assignments pruned).
///
/// The single block has blocking semantics, as has rust-hdl's simulation of `Local` and `Out`
/// signals (`.val()` is `next`, the value so far): a statement that reads signal `s` sees the
/// value of `s` *at that point*. In a block of its own it would see `s`'s final value instead.
/// The two agree unless another signal's statement reads `s` between two of `s`'s assignments
/// (a local reused by the iterations of an unrolled loop). Such a signal is cut into segments at
/// those reads: every segment but the last assigns a copy `s$segK` (declared as a `reg` like
/// `s`), starting from the previous segment's value unless it starts with an unconditional
/// assignment of the whole signal; the last segment assigns `s` itself, and every read names
/// the copy that holds the value it saw in the single block. A read of `s` before all of `s`'s
/// assignments sees the previous evaluation's value in the single block and rust-hdl's delta
/// passes settle it to the final value, which is what reading `s` gives.
mod slice {
    use super::*;
    use crate::ast::VerilogStatement;
    use std::collections::HashMap;

    enum Node {
        Assign { text: String },
        Comment(String),
        If {
            test: String,
            then: Seq,
            otherwise: Option<Seq>,
            /// The `else` branch is an `else if` (a sequence of one `If`).
            chained: bool,
        },
        Case {
            test: String,
            arms: Vec<(String, Seq)>,
        },
    }

    #[derive(Default)]
    struct Seq {
        nodes: Vec<Node>,
        /// Assignment ordinals (`Builder::assigns`) of every node, for the index.
        ranges: Vec<(usize, usize)>,
        /// Block -> the nodes holding one of its assignments (and comments), in order.
        index: HashMap<usize, Vec<usize>>,
    }

    /// One assignment, in text order after unrolling.
    struct Assign {
        target: usize,
        pos: usize,
        /// Unconditional (outside every `if` and `case`) and of the whole signal.
        whole: bool,
    }

    struct Read {
        pos: usize,
        name: String,
        /// The assignments (ordinals) whose blocks evaluate this read.
        assigns: (usize, usize),
    }

    /// A run of one signal's assignments that no other signal reads in between.
    struct Segment {
        target: usize,
        start: usize,
        name: String,
        /// The signal it copies first (the previous segment's, or the signal itself).
        copy_from: Option<String>,
    }

    /// The segments of every signal, from the first pass.
    #[derive(Default)]
    struct Versions {
        /// Per cut signal: its segments' (start position, name), in order.
        cuts: HashMap<String, Vec<(usize, String)>>,
    }

    impl Versions {
        /// The name holding `s`'s value for a read at `pos`.
        fn read(&self, s: &str, pos: usize) -> Option<&str> {
            let segs = self.cuts.get(s)?;
            let k = segs.partition_point(|(start, _)| *start < pos);
            // Before every assignment: the final value (the last segment, named `s`).
            Some(if k == 0 { &segs[segs.len() - 1].1 } else { &segs[k - 1].1 })
        }

        /// The name an assignment of `s` at `pos` writes.
        fn write(&self, s: &str, pos: usize) -> Option<&str> {
            let segs = self.cuts.get(s)?;
            let k = segs.partition_point(|(start, _)| *start <= pos);
            Some(&segs[k.max(1) - 1].1)
        }
    }

    struct Builder<'a> {
        gen: VerilogCodeGenerator,
        pos: usize,
        depth: usize,
        assigns: Vec<Assign>,
        targets: HashMap<String, usize>,
        names: Vec<String>,
        reads: Vec<Read>,
        /// Second pass: the segments to name.
        versions: Option<&'a Versions>,
    }

    fn base_name(e: &VerilogExpression, gen: &VerilogCodeGenerator) -> Option<String> {
        match e {
            VerilogExpression::Signal(s) => {
                let name = gen.ident_fixup(s);
                Some(match name.find('[') {
                    Some(k) => name[..k].to_string(),
                    None => name,
                })
            }
            VerilogExpression::Index(a, _)
            | VerilogExpression::Slice(a, _, _)
            | VerilogExpression::Paren(a) => base_name(a, gen),
            _ => None,
        }
    }

    impl Builder<'_> {
        /// Renders `e` with the reads at `pos` named by the segments (second pass), and the
        /// target `lhs` (if any) by the segment its assignment at `pos` belongs to.
        fn render(&mut self, e: &VerilogExpression, pos: usize, lhs: Option<&str>) -> String {
            if let Some(v) = self.versions {
                let mut reads = vec![];
                self.reads_of(e, &mut reads);
                for name in reads {
                    if let Some(to) = v.read(&name, pos) {
                        self.gen.rename.insert(name, to.to_string());
                    }
                }
                if let Some(to) = lhs.and_then(|t| v.write(t, pos)) {
                    self.gen.rename.insert(lhs.unwrap().to_string(), to.to_string());
                }
            }
            self.gen.visit_expression(e);
            self.gen.rename.clear();
            self.gen.io.take_buffer()
        }

        /// Records the signals `e` reads.
        fn reads_of(&self, e: &VerilogExpression, out: &mut Vec<String>) {
            use VerilogExpression as E;
            match e {
                E::Signal(_) => {
                    if let Some(name) = base_name(e, &self.gen) {
                        out.push(name);
                    }
                }
                E::Literal(_) => {}
                E::Cast(a, _) | E::Signed(a) | E::Unsigned(a) | E::Paren(a) | E::Unary(_, a) => {
                    self.reads_of(a, out)
                }
                E::Binary(a, _, b) | E::Index(a, b) | E::Slice(a, _, b) => {
                    self.reads_of(a, out);
                    self.reads_of(b, out);
                }
                E::IndexReplace(a, b, c) => {
                    self.reads_of(a, out);
                    self.reads_of(b, out);
                    self.reads_of(c, out);
                }
            }
        }

        /// Reads of an assignment's left-hand side (its indices and offsets, not the target).
        fn lhs_reads(&self, e: &VerilogExpression, out: &mut Vec<String>) {
            match e {
                VerilogExpression::Index(a, b) | VerilogExpression::Slice(a, _, b) => {
                    self.lhs_reads(a, out);
                    self.reads_of(b, out);
                }
                VerilogExpression::Paren(a) => self.lhs_reads(a, out),
                _ => {}
            }
        }

        fn target(&mut self, name: String) -> usize {
            let n = self.names.len();
            let id = *self.targets.entry(name.clone()).or_insert(n);
            if id == n {
                self.names.push(name);
            }
            id
        }

        fn assign(&mut self, lhs: &VerilogExpression, reads: Vec<String>, text: String) -> Node {
            self.pos += 1;
            let name = base_name(lhs, &self.gen).unwrap_or_else(|| text.clone());
            let target = self.target(name);
            let k = self.assigns.len();
            self.assigns.push(Assign {
                target,
                pos: self.pos,
                whole: self.depth == 0 && matches!(lhs, VerilogExpression::Signal(_)),
            });
            if self.versions.is_none() {
                for name in reads {
                    self.reads.push(Read {
                        pos: self.pos,
                        name,
                        assigns: (k, k + 1),
                    });
                }
            }
            Node::Assign { text }
        }

        fn block(&mut self, b: &VerilogBlock, seq: &mut Seq) {
            for s in b {
                self.statement(s, seq);
            }
        }

        fn push(&mut self, seq: &mut Seq, node: Node, from: usize) {
            seq.nodes.push(node);
            seq.ranges.push((from, self.assigns.len()));
        }

        /// A condition is read before its branches; which blocks evaluate it is known once
        /// the branches are built.
        fn condition(&mut self, test: &VerilogExpression) -> (usize, String, Vec<String>) {
            self.pos += 1;
            let pos = self.pos;
            let text = self.render(test, pos, None);
            let mut reads = vec![];
            if self.versions.is_none() {
                self.reads_of(test, &mut reads);
            }
            (pos, text, reads)
        }

        fn add_condition_reads(&mut self, pos: usize, reads: Vec<String>, from: usize) {
            let assigns = (from, self.assigns.len());
            for name in reads {
                self.reads.push(Read { pos, name, assigns });
            }
        }

        fn conditional(&mut self, c: &VerilogConditional) -> Node {
            let from = self.assigns.len();
            let (pos, test, reads) = self.condition(&c.test);
            self.depth += 1;
            let mut then = Seq::default();
            self.block(&c.then, &mut then);
            let (otherwise, chained) = match &c.otherwise {
                VerilogBlockOrConditional::Block(b) => {
                    let mut seq = Seq::default();
                    self.block(b, &mut seq);
                    (Some(seq), false)
                }
                VerilogBlockOrConditional::Conditional(s) => {
                    let mut seq = Seq::default();
                    self.statement(s, &mut seq);
                    let chained = matches!(seq.nodes.as_slice(), [Node::If { .. }]);
                    (Some(seq), chained)
                }
                VerilogBlockOrConditional::None => (None, false),
            };
            self.depth -= 1;
            self.add_condition_reads(pos, reads, from);
            Node::If {
                test,
                then,
                otherwise,
                chained,
            }
        }

        fn statement(&mut self, s: &VerilogStatement, seq: &mut Seq) {
            let from = self.assigns.len();
            match s {
                VerilogStatement::Assignment(l, r) => {
                    let pos = self.pos + 1;
                    let target = base_name(l, &self.gen);
                    let text = format!(
                        "{} = {};",
                        self.render(l, pos, target.as_deref()),
                        self.render(r, pos, None)
                    );
                    let mut reads = vec![];
                    if self.versions.is_none() {
                        self.lhs_reads(l, &mut reads);
                        self.reads_of(r, &mut reads);
                    }
                    let node = self.assign(l, reads, text);
                    self.push(seq, node, from);
                }
                VerilogStatement::SliceAssignment {
                    base,
                    width,
                    offset,
                    replacement,
                } => {
                    let pos = self.pos + 1;
                    let target = base_name(base, &self.gen);
                    let text = format!(
                        "{}[({})+:({})] = {};",
                        self.render(base, pos, target.as_deref()),
                        self.render(offset, pos, None),
                        width,
                        self.render(replacement, pos, None)
                    );
                    let mut reads = vec![];
                    if self.versions.is_none() {
                        self.lhs_reads(base, &mut reads);
                        self.reads_of(offset, &mut reads);
                        self.reads_of(replacement, &mut reads);
                    }
                    // A slice assignment never assigns the whole signal.
                    self.depth += 1;
                    let node = self.assign(base, reads, text);
                    self.depth -= 1;
                    self.push(seq, node, from);
                }
                // A condition the loop variables decide keeps only its taken branch, without
                // the `if` (pws patch 7).
                VerilogStatement::If(c) => match self.gen.known(&c.test) {
                    Some(0) => match &c.otherwise {
                        VerilogBlockOrConditional::Block(b) => self.block(b, seq),
                        VerilogBlockOrConditional::Conditional(s) => self.statement(s, seq),
                        VerilogBlockOrConditional::None => {}
                    },
                    Some(_) => self.block(&c.then, seq),
                    None => {
                        let node = self.conditional(c);
                        self.push(seq, node, from);
                    }
                },
                VerilogStatement::Match(m) => {
                    let (pos, test, reads) = self.condition(&m.test);
                    self.depth += 1;
                    let mut arms = vec![];
                    for case in &m.cases {
                        let mut arm = Seq::default();
                        self.block(&case.block, &mut arm);
                        arms.push((self.gen.ident_fixup(&case.condition), arm));
                    }
                    self.depth -= 1;
                    self.add_condition_reads(pos, reads, from);
                    self.push(seq, Node::Case { test, arms }, from);
                }
                VerilogStatement::Loop(a) => {
                    for i in a.from.as_usize()..a.to.as_usize() {
                        self.gen.loops.push(LoopVariable {
                            variable: a.index.clone(),
                            value: i,
                        });
                        self.block(&a.block, seq);
                        self.gen.loops.pop();
                    }
                }
                VerilogStatement::Comment(x) => self.push(seq, Node::Comment(x.clone()), from),
                // Links become continuous assignments (`verilog_link_extraction`).
                VerilogStatement::Link(_) => {}
                VerilogStatement::Macro(m) => self.block(m, seq),
            }
        }
    }

    /// Cuts every signal at the reads other signals' statements make between two of its
    /// assignments, and names the segments.
    fn segments(b: &Builder) -> Vec<Segment> {
        let mut positions: Vec<Vec<usize>> = vec![vec![]; b.names.len()];
        for a in &b.assigns {
            positions[a.target].push(a.pos);
        }
        let mut cut_reads: Vec<Vec<usize>> = vec![vec![]; b.names.len()];
        for read in &b.reads {
            let Some(&s) = b.targets.get(&read.name) else {
                continue;
            };
            let p = &positions[s];
            if !(p[0] < read.pos && read.pos < p[p.len() - 1]) {
                continue;
            }
            // Only another signal's statement needs the value in the middle.
            let (from, to) = read.assigns;
            if (from..to).any(|k| b.assigns[k].target != s) {
                cut_reads[s].push(read.pos);
            }
        }
        // Per signal: the assignment ordinals that start a segment.
        let mut starts: Vec<Vec<usize>> = vec![vec![]; b.names.len()];
        let mut last_pos: Vec<usize> = vec![0; b.names.len()];
        for reads in cut_reads.iter_mut() {
            reads.sort_unstable();
        }
        for (k, a) in b.assigns.iter().enumerate() {
            let t = a.target;
            let reads = &cut_reads[t];
            // A cut read between the previous assignment and this one starts a segment.
            let cut = starts[t].is_empty() || {
                let i = reads.partition_point(|&r| r <= last_pos[t]);
                i < reads.len() && reads[i] < a.pos
            };
            if cut {
                starts[t].push(k);
            }
            last_pos[t] = a.pos;
        }
        let mut segments = vec![];
        for (k, a) in b.assigns.iter().enumerate() {
            let t = a.target;
            let Some(i) = starts[t].iter().position(|&s| s == k) else {
                continue;
            };
            let n = starts[t].len();
            let base = &b.names[t];
            let name = |i: usize| {
                if i + 1 == n {
                    base.clone()
                } else {
                    format!("{base}$seg{i}")
                }
            };
            let copy_from = if n == 1 || a.whole {
                None
            } else if i == 0 {
                Some(base.clone())
            } else {
                Some(name(i - 1))
            };
            segments.push(Segment {
                target: t,
                start: a.pos,
                name: name(i),
                copy_from,
            });
        }
        segments
    }

    /// Fills every sequence's index with the blocks of its nodes' assignments; a comment goes
    /// with the first block of the next node holding an assignment (else of the previous one).
    fn index(seq: &mut Seq, block_of_assign: &[usize]) {
        let mut first_block: Vec<Option<usize>> = Vec::with_capacity(seq.nodes.len());
        for (i, node) in seq.nodes.iter_mut().enumerate() {
            let (a, b) = seq.ranges[i];
            let mut blocks: Vec<usize> = block_of_assign[a..b].to_vec();
            blocks.sort_unstable();
            blocks.dedup();
            first_block.push(block_of_assign[a..b].first().copied());
            for g in blocks {
                seq.index.entry(g).or_default().push(i);
            }
            match node {
                Node::If {
                    then, otherwise, ..
                } => {
                    index(then, block_of_assign);
                    if let Some(o) = otherwise {
                        index(o, block_of_assign);
                    }
                }
                Node::Case { arms, .. } => {
                    for (_, arm) in arms {
                        index(arm, block_of_assign);
                    }
                }
                _ => {}
            }
        }
        for i in 0..seq.nodes.len() {
            if !matches!(seq.nodes[i], Node::Comment(_)) {
                continue;
            }
            let next = (i + 1..seq.nodes.len()).find_map(|j| first_block[j]);
            let block = next.or_else(|| (0..i).rev().find_map(|j| first_block[j]));
            if let Some(g) = block {
                let list = seq.index.entry(g).or_default();
                list.push(i);
                list.sort_unstable();
            }
        }
    }

    fn emit(seq: &Seq, g: usize, io: &mut CodeWriter) {
        let Some(list) = seq.index.get(&g) else {
            return;
        };
        for &i in list {
            emit_node(&seq.nodes[i], g, io, "");
        }
    }

    /// Writes `node`'s part for block `g`; `prefix` starts its first line (`else `).
    fn emit_node(node: &Node, g: usize, io: &mut CodeWriter, prefix: &str) {
        match node {
            Node::Assign { text } => io.add_line(text),
            Node::Comment(x) => io.add(format!("// {}", x)),
            Node::If {
                test,
                then,
                otherwise,
                chained,
            } => {
                io.add_line(format!("{}if ({}) begin", prefix, test));
                io.push();
                emit(then, g, io);
                io.pop();
                io.add_line("end");
                if let Some(o) = otherwise.as_ref().filter(|o| o.index.contains_key(&g)) {
                    if *chained {
                        // `else if (...) begin`: the nested `If` writes its own first line.
                        emit_node(&o.nodes[0], g, io, "else ");
                    } else {
                        io.add_line("else begin");
                        io.push();
                        emit(o, g, io);
                        io.pop();
                        io.add_line("end");
                    }
                }
            }
            Node::Case { test, arms } => {
                io.add_line(format!("case ({})", test));
                io.push();
                // An arm that assigns nothing here is dropped, unless this block keeps a default
                // arm: the dropped arm's values would then take the default's assignments, so
                // they stay, as one empty item before it.
                let keeps_default = arms
                    .iter()
                    .any(|(c, arm)| c == "default" && arm.index.contains_key(&g));
                let empty: Vec<&str> = arms
                    .iter()
                    .filter(|(c, arm)| c != "default" && !arm.index.contains_key(&g))
                    .map(|(c, _)| c.as_str())
                    .collect();
                for (condition, arm) in arms {
                    if !arm.index.contains_key(&g) {
                        continue;
                    }
                    if condition == "default" && !empty.is_empty() {
                        io.add_line(format!("{}:", empty.join(", ")));
                        io.push();
                        io.add_line("begin");
                        io.add_line("end");
                        io.pop();
                    }
                    io.add_line(format!("{}:", condition));
                    io.push();
                    io.add_line("begin");
                    io.push();
                    emit(arm, g, io);
                    io.pop();
                    io.add_line("end");
                    io.pop();
                }
                // Arms that assign nothing here: an empty default keeps the case complete.
                if !keeps_default && arms.iter().any(|(_, arm)| !arm.index.contains_key(&g)) {
                    io.add_line("default:");
                    io.push();
                    io.add_line("begin");
                    io.add_line("end");
                    io.pop();
                }
                io.pop();
                io.add_line("endcase");
            }
        }
    }

    fn builder<'a>(versions: Option<&'a Versions>) -> Builder<'a> {
        Builder {
            gen: VerilogCodeGenerator::default(),
            pos: 0,
            depth: 0,
            assigns: vec![],
            targets: HashMap::new(),
            names: vec![],
            reads: vec![],
            versions,
        }
    }

    /// The sliced blocks, or `None` when the code assigns nothing or a segment's declaration is
    /// unknown.
    pub(super) fn combinatorial(
        code: &VerilogBlock,
        decl: &dyn Fn(&str, &str) -> Option<String>,
    ) -> Option<(String, Vec<String>)> {
        // First pass: the assignments and reads, in text order.
        let mut first = builder(None);
        let mut root = Seq::default();
        first.block(code, &mut root);
        if first.assigns.is_empty() {
            return None;
        }
        let segments = segments(&first);
        let mut versions = Versions::default();
        let mut decls = vec![];
        for seg in &segments {
            let base = &first.names[seg.target];
            if seg.name != *base {
                decls.push(decl(base, &seg.name)?);
            }
        }
        for seg in &segments {
            if let Some(list) = versions.cuts.get_mut(&first.names[seg.target]) {
                list.push((seg.start, seg.name.clone()));
            } else if seg.name != first.names[seg.target] {
                versions
                    .cuts
                    .insert(first.names[seg.target].clone(), vec![(seg.start, seg.name.clone())]);
            }
        }
        // Second pass (when a signal is cut): the text, with every read naming its segment.
        if !versions.cuts.is_empty() {
            let mut second = builder(Some(&versions));
            root = Seq::default();
            second.block(code, &mut root);
        }
        // Segments are in order of their first assignment; so are the blocks.
        let mut block_of_assign = vec![0; first.assigns.len()];
        let mut current: Vec<usize> = vec![0; first.names.len()];
        let mut next_segment = 0;
        for (k, a) in first.assigns.iter().enumerate() {
            if next_segment < segments.len() && segments[next_segment].start == a.pos {
                current[a.target] = next_segment;
                next_segment += 1;
            }
            block_of_assign[k] = current[a.target];
        }
        index(&mut root, &block_of_assign);
        // Blocks that read no signal (only literals and enum constants): `@(*)` has nothing to
        // wait for, so Icarus would never run them; Verilator and Yosys evaluate them anyway.
        let mut reads_signal = vec![false; segments.len()];
        let mut is_signal: HashMap<&str, bool> = HashMap::new();
        for read in &first.reads {
            let signal = *is_signal
                .entry(read.name.as_str())
                .or_insert_with(|| decl(&read.name, &read.name).is_some());
            if signal {
                for k in read.assigns.0..read.assigns.1 {
                    reads_signal[block_of_assign[k]] = true;
                }
            }
        }
        let mut io = CodeWriter::default();
        if !decls.is_empty() {
            io.add_line("// Segments of signals read between their assignments (pws patch 5)");
            io.add_line("/* verilator lint_off UNUSEDSIGNAL */");
            for d in decls {
                io.add_line(d);
            }
            io.add_line("/* verilator lint_on UNUSEDSIGNAL */");
        }
        for (g, seg) in segments.iter().enumerate() {
            if seg.copy_from.is_some() || reads_signal[g] {
                io.add_line("always @(*) begin");
            } else {
                // Icarus runs it once, after every other process of time 0 has started waiting.
                io.add_line("`ifdef __ICARUS__");
                io.add_line("initial #0 begin");
                io.add_line("`else");
                io.add_line("always @(*) begin");
                io.add_line("`endif");
            }
            io.push();
            if let Some(from) = &seg.copy_from {
                io.add_line(format!("{} = {};", seg.name, from));
            }
            emit(&root, g, &mut io);
            io.pop();
            io.add_line("end");
        }
        let cut = versions.cuts.keys().cloned().collect();
        Some((io.to_string(), cut))
    }
}

impl VerilogVisitor for VerilogCodeGenerator {
    fn visit_block(&mut self, b: &VerilogBlock) {
        self.io.writeln("begin");
        self.io.push();
        walk_block(self, b);
        self.io.pop();
        self.io.add_line("end");
    }

    fn visit_loop(&mut self, a: &VerilogLoop) {
        let start = a.from.as_usize();
        let end = a.to.as_usize();
        for i in start..end {
            self.loops.push(LoopVariable {
                variable: a.index.clone(),
                value: i,
            });
            walk_block(self, &a.block);
            self.loops.pop();
        }
    }

    fn visit_slice_assignment(
        &mut self,
        base: &VerilogExpression,
        width: &usize,
        offset: &VerilogExpression,
        replacement: &VerilogExpression,
    ) {
        self.visit_expression(base);
        self.io.write("[(");
        self.visit_expression(offset);
        self.io.write(format!(")+:({})] = ", width));
        self.visit_expression(replacement);
        self.io.writeln(";");
    }

    fn visit_conditional(&mut self, c: &VerilogConditional) {
        // As in the sliced blocks: a condition the loop variables decide is not written.
        match self.known(&c.test) {
            Some(0) => return self.visit_block_or_conditional_taken(&c.otherwise),
            Some(_) => return self.visit_block(&c.then),
            None => {}
        }
        self.io.write("if (");
        self.visit_expression(&c.test);
        self.io.write(") ");
        self.visit_block(&c.then);
        self.visit_block_or_conditional(&c.otherwise);
    }

    fn visit_block_or_conditional(&mut self, o: &VerilogBlockOrConditional) {
        match &o {
            VerilogBlockOrConditional::Block(b) => {
                self.io.write("else ");
                self.visit_block(&b);
            }
            VerilogBlockOrConditional::Conditional(c) => {
                self.io.write("else ");
                self.visit_statement(c);
            }
            VerilogBlockOrConditional::None => {}
        }
    }

    fn visit_match(&mut self, m: &VerilogMatch) {
        self.io.write("case (");
        self.visit_expression(&m.test);
        self.io.writeln(")");
        self.io.push();
        m.cases.iter().for_each(|x| self.visit_case(x));
        self.io.pop();
        self.io.writeln("endcase")
    }

    fn visit_comment(&mut self, x: &str) {
        self.io.add(format!("// {}", x));
    }

    fn visit_signal(&mut self, sig: &str) {
        let name = self.ident_fixup(sig);
        match self.rename.get(&name) {
            Some(to) => self.io.write(to),
            None => self.io.write(name),
        }
    }

    fn visit_literal(&mut self, v: &VerilogLiteral) {
        self.io.write(v.to_string());
    }

    fn visit_link(&mut self, l: &[VerilogLink]) {
        for link in l {
            self.links.push(match link {
                VerilogLink::Forward(x) => VerilogLink::Forward(self.link_fixup(x)),
                VerilogLink::Backward(x) => VerilogLink::Backward(self.link_fixup(x)),
                VerilogLink::Bidirectional(x) => VerilogLink::Bidirectional(self.link_fixup(x)),
            })
        }
    }

    fn visit_case(&mut self, c: &VerilogCase) {
        self.io.write(self.ident_fixup(&c.condition));
        self.io.writeln(":");
        self.io.push();
        self.visit_block(&c.block);
        self.io.pop();
    }

    fn visit_binop(&mut self, l: &VerilogExpression, o: &VerilogOp, r: &VerilogExpression) {
        self.visit_expression(l);
        self.io.write(" ");
        self.io.write(match o {
            VerilogOp::Add => "+",
            VerilogOp::Sub => "-",
            VerilogOp::Mul => "*",
            VerilogOp::LogicalAnd => "&&",
            VerilogOp::LogicalOr => "||",
            VerilogOp::BitXor => "^",
            VerilogOp::BitAnd => "&",
            VerilogOp::BitOr => "|",
            VerilogOp::Shl => "<<",
            VerilogOp::Shr => ">>",
            VerilogOp::Eq => "==",
            VerilogOp::Lt => "<",
            VerilogOp::Le => "<=",
            VerilogOp::Ne => "!=",
            VerilogOp::Ge => ">=",
            VerilogOp::Gt => ">",
        });
        self.io.write(" ");
        self.visit_expression(r);
    }

    fn visit_unop(&mut self, o: &VerilogOpUnary, r: &VerilogExpression) {
        self.io.write(match o {
            VerilogOpUnary::Not => "~",
            VerilogOpUnary::Neg => "-",
            VerilogOpUnary::All => "&",
            VerilogOpUnary::Any => "|",
            VerilogOpUnary::Xor => "^",
        });
        self.visit_expression(r);
    }

    fn visit_assignment(&mut self, l: &VerilogExpression, r: &VerilogExpression) {
        self.visit_expression(l);
        self.io.write(" = ");
        self.visit_expression(r);
        self.io.writeln(";");
    }

    fn visit_paren(&mut self, e: &VerilogExpression) {
        self.io.write("(");
        self.visit_expression(e);
        self.io.write(")");
    }

    fn visit_cast(&mut self, e: &VerilogExpression, bits: &usize) {
        self.io.write("((");
        self.visit_expression(e);
        let mask = (BigUint::from(1_u32) << bits) - 1_u32;
        self.io.write(format!(") & {}'h{:x})", bits, mask))
    }

    fn visit_signed(&mut self, a: &VerilogExpression) {
        self.io.write("$signed(");
        self.visit_expression(a);
        self.io.write(")");
    }

    fn visit_unsigned(&mut self, a: &VerilogExpression) {
        self.io.write("$unsigned(");
        self.visit_expression(a);
        self.io.write(")");
    }

    fn visit_index(&mut self, a: &VerilogExpression, b: &VerilogExpression) {
        self.visit_expression(a);
        self.io.write("[");
        self.visit_expression(b);
        self.io.write("]");
    }

    fn visit_slice(&mut self, sig: &VerilogExpression, width: &usize, offset: &VerilogExpression) {
        self.visit_expression(sig);
        self.io.write("[(");
        self.visit_expression(offset);
        self.io.write(format!(")+:({})]", width));
    }

    fn visit_index_replace(
        &mut self,
        sig: &VerilogExpression,
        ndx: &VerilogExpression,
        val: &VerilogExpression,
    ) {
        self.io.write("(");
        self.visit_expression(sig);
        self.io.write(" & ~(1 << (");
        self.visit_expression(ndx);
        self.io.write(")) | ((");
        self.visit_expression(val);
        self.io.write(") << (");
        self.visit_expression(ndx);
        self.io.write(")))");
    }
}

#[test]
fn test_array_replacement() {
    let re = Regex::new(r"\[([^\]]*)\]").unwrap();
    let test = "a[((i+1))]";
    let captures = re.captures(test);
    let mut context = evalexpr::HashMapContext::new();
    context.set_value("i".to_string(), 5.into()).unwrap();
    if let Some(x) = re.captures(test) {
        println!("Match {:?}", x);
        if x.len() == 2 {
            if let Some(txt) = x.get(1) {
                let arg = evalexpr::eval_with_context(txt.as_str(), &context).unwrap();
                println!("Replace {} -> {}", txt.as_str(), arg);
                println!("Update {}", re.replace(test, format!("$${}", arg)))
            }
        }
    }
    assert!(captures.is_some());
}

pub fn filter_blackbox_directives(t: &str) -> String {
    let mut in_black_box = false;
    let mut ret = vec![];
    for line in t.split("\n") {
        in_black_box = in_black_box || line.starts_with("(* blackbox *)");
        if !in_black_box {
            ret.push(line);
        }
        if line.starts_with("endmodule") {
            in_black_box = false;
        }
    }
    ret.join("\n")
}

#[test]
fn test_filter_bb_directives() {
    let p = r#"
blah
more code
goes here

(* blackbox *)
module my_famous_module(
    super_secret_arg1,
    super_secret_arg2,
    super_secret_arg3);
/* Comment */
endmodule

stuff
"#;
    let q = filter_blackbox_directives(p);
    println!("{}", q);
    assert!(!q.contains("blackbox"));
    assert!(!q.contains("module"));
    assert!(!q.contains("endmodule"));
    assert!(q.contains("more code"));
    assert!(q.contains("stuff"));
}
