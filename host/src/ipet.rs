//! Implicit path enumeration (IPET, Li & Malik; digest 4.2, anchors 1): the worst-case path of a
//! CFG as an integer linear programme, and the exact re-verification of every answer.
//!
//! The system ([`IpetSystem`]) is built once as plain data with exact integer coefficients, so
//! that the same rows are written to an LP file, checked against the structural solution's
//! evidence and, on request, handed to an ILP solver:
//! - flow conservation: x_v = Σ in-edges (+1 at the entry) = Σ out-edges (no out row at an
//!   end of the program);
//! - loop bounds: for every header h with bound k, x_h ≤ k · Σ (forward edges into h), i.e.
//!   the back edges carry at most (k − 1) times the entries.
//!
//! The answer is [`crate::structural::solve`]'s, checked exactly ([`certify`]): its worst-case
//! flow must satisfy every row with the objective equal to the bound (the bound is reached),
//! and its dual values must satisfy every dual constraint with the same objective (nothing
//! exceeds it, not even in the LP relaxation). Nodes the entry cannot reach once Prune has
//! removed its edges carry no flow in any solution (the first of them in topological order
//! could only be fed by a back edge, and its bound row then forces 0), so the dual check skips
//! their columns. `--ipet ilp` also runs good_lp's microlp on the system and checks its answer
//! the same way; whatever goes wrong there, or if the evidence were ever rejected, the bound
//! stays safe and the report says why ([`IpetSolution::notes`]).

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use good_lp::{microlp, Expression, ProblemVariables, Solution, SolverModel, Variable};

use crate::cfg::BsbCfg;
use crate::csr::Csr;
use crate::error::{HostError, Result};
use crate::structural::Structural;

/// Comparison of one row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Le,
}

/// What a row states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowKind {
    /// x_v equals the flow into v (plus 1 at the entry).
    In(usize),
    /// x_v equals the flow out of v.
    Out(usize),
    /// The header runs at most its bound times per entry.
    Loop(usize),
}

/// `Σ coeff·var (cmp) rhs`; the terms are [`IpetSystem::terms`].
#[derive(Debug, Clone, Copy)]
pub struct Row {
    pub kind: RowKind,
    pub cmp: Cmp,
    pub rhs: i128,
}

/// What a variable counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Var {
    /// Executions of a block (x_v).
    Block(usize),
    /// Traversals of an edge (y_uv).
    Edge(usize, usize),
}

impl Var {
    fn name(self) -> String {
        match self {
            Var::Block(v) => format!("x{v}"),
            Var::Edge(u, v) => format!("y{u}_{v}"),
        }
    }
}

/// The IPET system of a CFG with some edges removed (C_out of Prune).
#[derive(Debug, Clone)]
pub struct IpetSystem {
    /// Block variables first (variable v is x_v), then one per kept edge.
    pub vars: Vec<Var>,
    /// Objective coefficients (block WCETs), by variable.
    pub objective: Vec<i128>,
    pub rows: Vec<Row>,
    /// Row r's terms (variable, coefficient) are `terms[row_start[r]..row_start[r + 1]]`.
    row_start: Vec<usize>,
    terms: Vec<(usize, i128)>,
    entry: usize,
}

/// How the reported IPET value was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum IpetMethod {
    /// The structural optimum, checked exactly against the system (flow and dual values).
    Structural,
    /// The ILP solver's optimum, checked exactly and equal to the structural one.
    Ilp,
    /// Every node at most as often as its loops allow (Σ wcet · multiplicity): a safe bound
    /// used only if the structural evidence were rejected (see the notes).
    Multiplicity,
}

/// Which solver `pws wcet --ipet` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Solver {
    /// The linear-time structural solution with its exact certificate.
    #[default]
    Structural,
    /// Also solve the ILP (microlp) and check that it agrees.
    Ilp,
}

/// A solved and verified IPET problem.
#[derive(Debug, Clone)]
pub struct IpetSolution {
    pub wcet: u128,
    /// Executions per block on the worst-case path (zeros if no verified path is known).
    pub block_counts: Vec<u128>,
    /// Traversals per kept edge on the worst-case path (edges not listed: 0).
    pub edge_counts: Vec<((usize, usize), u128)>,
    pub method: IpetMethod,
    /// What went wrong with a solver or a check, and what was used instead.
    pub notes: Vec<String>,
    pub variables: usize,
    pub constraints: usize,
    pub solve_time: Duration,
}

impl IpetSystem {
    /// Builds the system for `g` without the edges in `removed`.
    pub fn new(g: &BsbCfg, removed: &[(usize, usize)]) -> Result<IpetSystem> {
        let n = g.len();
        let mut removed = removed.to_vec();
        removed.sort_unstable();
        let mut edges = g.edges().to_vec();
        edges.retain(|e| removed.binary_search(e).is_err());
        let mut vars: Vec<Var> = (0..n).map(Var::Block).collect();
        vars.extend(edges.iter().map(|&(u, v)| Var::Edge(u, v)));
        let mut objective: Vec<i128> = (0..n).map(|v| i128::from(g.wcet(v))).collect();
        objective.resize(vars.len(), 0);
        let ids = |f: fn(usize, usize) -> usize| -> Vec<(usize, usize)> {
            edges
                .iter()
                .enumerate()
                .map(|(i, &(u, v))| (f(u, v), n + i))
                .collect()
        };
        let out_edges = Csr::new(n, &ids(|u, _| u));
        let in_edges = Csr::new(n, &ids(|_, v| v));
        let entry = g.entry();
        let mut sys = IpetSystem {
            vars,
            objective,
            rows: Vec::with_capacity(2 * n + g.loops().len()),
            row_start: vec![0],
            terms: Vec::with_capacity(3 * n + 2 * edges.len()),
            entry,
        };
        for v in 0..n {
            sys.push(
                RowKind::In(v),
                Cmp::Eq,
                i128::from(v == entry),
                in_edges[v].iter().map(|&e| (e, -1)),
            );
            if !out_edges[v].is_empty() {
                sys.push(
                    RowKind::Out(v),
                    Cmp::Eq,
                    0,
                    out_edges[v].iter().map(|&e| (e, -1)),
                );
            }
        }
        for lp in g.loops() {
            let h = lp.header;
            let k = i128::from(lp.bound);
            let entries = in_edges[h].iter().filter(|&&e| match sys.vars[e] {
                Var::Edge(u, _) => g.forward_successors(u).contains(&h),
                Var::Block(_) => false,
            });
            let entries: Vec<(usize, i128)> = entries.map(|&e| (e, -k)).collect();
            sys.push(
                RowKind::Loop(h),
                Cmp::Le,
                if h == entry { k } else { 0 },
                entries.into_iter(),
            );
        }
        Ok(sys)
    }

    /// Appends a row whose first term is the block variable of its node, then `others`.
    fn push(
        &mut self,
        kind: RowKind,
        cmp: Cmp,
        rhs: i128,
        others: impl Iterator<Item = (usize, i128)>,
    ) {
        let (RowKind::In(v) | RowKind::Out(v) | RowKind::Loop(v)) = kind;
        self.terms.push((v, 1));
        self.terms.extend(others);
        self.row_start.push(self.terms.len());
        self.rows.push(Row { kind, cmp, rhs });
    }

    /// The terms (variable, coefficient) of row `r`.
    pub fn terms(&self, r: usize) -> &[(usize, i128)] {
        &self.terms[self.row_start[r]..self.row_start[r + 1]]
    }

    /// The system in CPLEX LP format (readable by glpsol, cbc, HiGHS, lp_solve's xli), with
    /// the block names in comments.
    pub fn to_lp(&self, g: &BsbCfg) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "\\ IPET of {} blocks; x<v> = executions of block v, y<u>_<v> = traversals of edge u->v", g.len());
        for var in &self.vars {
            if let Var::Block(v) = *var {
                let _ = writeln!(s, "\\ {} = {} (wcet {})", var.name(), g.name(v), g.wcet(v));
            }
        }
        s.push_str("Maximize\n obj:");
        let mut any = false;
        for (i, &c) in self.objective.iter().enumerate() {
            if c != 0 {
                let _ = write!(s, " + {c} {}", self.vars[i].name());
                any = true;
            }
        }
        if !any {
            let _ = write!(s, " 0 {}", self.vars[0].name());
        }
        s.push_str("\nSubject To\n");
        for (r, row) in self.rows.iter().enumerate() {
            let name = match row.kind {
                RowKind::In(v) => format!("in{v}"),
                RowKind::Out(v) => format!("out{v}"),
                RowKind::Loop(h) => format!("loop{h}"),
            };
            let _ = write!(s, " {name}:");
            for &(v, c) in self.terms(r) {
                let sign = if c < 0 { '-' } else { '+' };
                let _ = write!(s, " {sign} {} {}", c.unsigned_abs(), self.vars[v].name());
            }
            let op = match row.cmp {
                Cmp::Eq => "=",
                Cmp::Le => "<=",
            };
            let _ = writeln!(s, " {op} {}", row.rhs);
        }
        s.push_str("General\n");
        for var in &self.vars {
            let _ = writeln!(s, " {}", var.name());
        }
        s.push_str("End\n");
        s
    }

    /// Variables the entry reaches: blocks reachable over the kept edges, and their out-edges.
    /// The others are 0 in every solution (module doc).
    pub fn live_columns(&self) -> Vec<bool> {
        let n = self
            .vars
            .iter()
            .filter(|v| matches!(v, Var::Block(_)))
            .count();
        let pairs: Vec<(usize, usize)> = (n..self.vars.len())
            .map(|i| match self.vars[i] {
                Var::Edge(u, _) => (u, i),
                Var::Block(_) => unreachable!("block variables come first"),
            })
            .collect();
        let out = Csr::new(n, &pairs);
        let mut live = vec![false; self.vars.len()];
        let mut stack = vec![self.entry];
        live[self.entry] = true;
        while let Some(u) = stack.pop() {
            for &e in &out[u] {
                live[e] = true;
                let Var::Edge(_, v) = self.vars[e] else {
                    unreachable!("out lists hold edges")
                };
                if !live[v] {
                    live[v] = true;
                    stack.push(v);
                }
            }
        }
        live
    }

    /// Checks a flow (one value per variable) against every row, exactly; returns its objective.
    pub fn check_primal(&self, values: &[i128]) -> std::result::Result<i128, String> {
        if values.len() != self.vars.len() {
            return Err(format!(
                "{} values for {} variables",
                values.len(),
                self.vars.len()
            ));
        }
        if let Some(i) = values.iter().position(|&v| v < 0) {
            return Err(format!("{} is negative", self.vars[i].name()));
        }
        for (r, row) in self.rows.iter().enumerate() {
            let lhs = self
                .terms(r)
                .iter()
                .try_fold(0i128, |acc, &(v, c)| acc.checked_add(times(c, values[v])?))
                .ok_or("a row overflows 128 bits")?;
            let ok = match row.cmp {
                Cmp::Eq => lhs == row.rhs,
                Cmp::Le => lhs <= row.rhs,
            };
            if !ok {
                return Err(format!(
                    "row {:?} is violated ({lhs} against {})",
                    row.kind, row.rhs
                ));
            }
        }
        self.objective
            .iter()
            .zip(values)
            .try_fold(0i128, |acc, (&c, &v)| acc.checked_add(c.checked_mul(v)?))
            .ok_or_else(|| "the objective overflows 128 bits".to_string())
    }

    /// Checks dual values (one per row) for the LP relaxation restricted to the `live` columns:
    /// ≤ rows need a value ≥ 0, and every live column j needs Σ_rows coeff·dual ≥ objective_j.
    /// Returns the dual objective Σ rhs·dual, an upper bound of the LP and hence the ILP.
    pub fn check_dual(&self, dual: &[i128], live: &[bool]) -> std::result::Result<i128, String> {
        if dual.len() != self.rows.len() {
            return Err(format!(
                "{} dual values for {} rows",
                dual.len(),
                self.rows.len()
            ));
        }
        let mut column = vec![0i128; self.vars.len()];
        let mut bound = 0i128;
        for (r, (row, &y)) in self.rows.iter().zip(dual).enumerate() {
            if row.cmp == Cmp::Le && y < 0 {
                return Err(format!("the dual value of row {:?} is negative", row.kind));
            }
            for &(v, c) in self.terms(r) {
                column[v] = times(c, y)
                    .and_then(|p| column[v].checked_add(p))
                    .ok_or("a dual column overflows 128 bits")?;
            }
            bound = row
                .rhs
                .checked_mul(y)
                .and_then(|p| bound.checked_add(p))
                .ok_or("the dual objective overflows 128 bits")?;
        }
        for (j, (&sum, &obj)) in column.iter().zip(&self.objective).enumerate() {
            if live[j] && sum < obj {
                return Err(format!(
                    "the dual constraint of {} fails ({sum} < {obj})",
                    self.vars[j].name()
                ));
            }
        }
        Ok(bound)
    }

    /// Solves the ILP with microlp (f64 inside: check the answer with [`IpetSystem::check_primal`]).
    pub fn solve_ilp(&self) -> std::result::Result<Vec<i128>, String> {
        let mut pv = ProblemVariables::new();
        let xs: Vec<Variable> = self
            .vars
            .iter()
            .map(|_| pv.add(good_lp::variable().min(0).integer()))
            .collect();
        let mut obj = Expression::from(0.0);
        for (i, &c) in self.objective.iter().enumerate() {
            if c != 0 {
                obj += c as f64 * xs[i];
            }
        }
        let mut model = pv.maximise(obj).using(microlp);
        for (r, row) in self.rows.iter().enumerate() {
            let mut lhs = Expression::from(0.0);
            for &(v, c) in self.terms(r) {
                lhs += c as f64 * xs[v];
            }
            let rhs = row.rhs as f64;
            model = model.with(match row.cmp {
                Cmp::Eq => lhs.eq(rhs),
                Cmp::Le => lhs.leq(rhs),
            });
        }
        let sol = model.solve().map_err(|e| e.to_string())?;
        xs.iter()
            .map(|&x| {
                let v = sol.value(x);
                let r = v.round();
                if (v - r).abs() > 1e-6 || !(0.0..1e30).contains(&r) {
                    Err(format!(
                        "the solver's value {v} for a count is not an integer"
                    ))
                } else {
                    Ok(r as i128)
                }
            })
            .collect()
    }
}

/// c · x, exactly (`None` beyond 128 bits); the flow rows' coefficients are ±1.
fn times(c: i128, x: i128) -> Option<i128> {
    match c {
        1 => Some(x),
        -1 => x.checked_neg(),
        _ => c.checked_mul(x),
    }
}

/// Largest system `--ipet ilp` hands to microlp, whose dense simplex grows with the square of
/// the size; beyond it the structural optimum stands alone (it is certified either way).
pub const ILP_MAX_VARIABLES: usize = 20_000;

/// The flow of a structural solution as one value per variable of `sys`.
fn primal_of(sys: &IpetSystem, s: &Structural) -> std::result::Result<Vec<i128>, String> {
    // Edge variables follow the block variables, sorted by edge.
    let n = s.block_counts.len();
    let edge_var = |e: (usize, usize)| {
        sys.vars[n..]
            .binary_search_by(|var| match *var {
                Var::Edge(u, v) => (u, v).cmp(&e),
                Var::Block(_) => std::cmp::Ordering::Less,
            })
            .ok()
            .map(|i| n + i)
    };
    let big = |c: u128| i128::try_from(c).map_err(|_| "a count exceeds 2^127".to_string());
    let mut x = vec![0i128; sys.vars.len()];
    for (v, &c) in s.block_counts.iter().enumerate() {
        x[v] = big(c)?;
    }
    for &(e, c) in &s.edge_counts {
        let i = edge_var(e)
            .ok_or_else(|| format!("the flow uses edge {e:?}, which is not in the system"))?;
        x[i] = big(c)?;
    }
    Ok(x)
}

/// The dual values of a structural solution, one per row of `sys` (0 on rows of nodes the
/// entry no longer reaches).
fn dual_of(g: &BsbCfg, sys: &IpetSystem, s: &Structural) -> Vec<i128> {
    sys.rows
        .iter()
        .map(|row| match row.kind {
            RowKind::In(v) if s.live[v] => s.dual_in(g, v),
            RowKind::Out(v) if s.live[v] => s.dual_out(v),
            RowKind::Loop(h) if s.live[h] => {
                s.iteration[g.loop_index_at(h).expect("loop rows are on headers")] as i128
            }
            _ => 0,
        })
        .collect()
}

/// Checks the structural solution `s` of `g` (with `s.removed` pruned) against the IPET
/// system and, with [`Solver::Ilp`], against microlp. Never fails on a solver's or a check's
/// trouble: the bound then falls back to a safe one and the notes say why.
pub fn certify(g: &BsbCfg, s: &Structural, solver: Solver) -> Result<IpetSolution> {
    let start = Instant::now();
    let sys = IpetSystem::new(g, &s.removed)?;
    let live = sys.live_columns();
    let mut notes = Vec::new();
    let wcet = s.wcet as i128;
    let checked = primal_of(&sys, s)
        .and_then(|x| sys.check_primal(&x))
        .and_then(|p| {
            if p == wcet {
                Ok(())
            } else {
                Err(format!("the worst-case flow is worth {p}, not {wcet}"))
            }
        })
        .and_then(|()| sys.check_dual(&dual_of(g, &sys, s), &live))
        .and_then(|d| {
            if d == wcet {
                Ok(())
            } else {
                Err(format!("the dual values bound {d}, not {wcet}"))
            }
        });
    let mut solution = IpetSolution {
        wcet: s.wcet,
        block_counts: s.block_counts.clone(),
        edge_counts: s.edge_counts.clone(),
        method: IpetMethod::Structural,
        notes: Vec::new(),
        variables: sys.vars.len(),
        constraints: sys.rows.len(),
        solve_time: Duration::ZERO,
    };
    if let Err(why) = checked {
        notes.push(format!(
            "the structural IPET solution failed its exact check ({why}); the bound counts every block as often as its loops allow"
        ));
        solution.wcet = multiplicity_bound(g, &live)?;
        solution.block_counts = vec![0; g.len()];
        solution.edge_counts.clear();
        solution.method = IpetMethod::Multiplicity;
    } else if solver == Solver::Ilp {
        match ilp_check(&sys, wcet) {
            Ok(()) => solution.method = IpetMethod::Ilp,
            Err(why) => notes.push(format!(
                "{why}; the bound is the structural optimum, which its exact certificate proves"
            )),
        }
    }
    solution.notes = notes;
    solution.solve_time = start.elapsed();
    Ok(solution)
}

/// Runs microlp on `sys` and checks its answer against the rows and the certified optimum.
fn ilp_check(sys: &IpetSystem, optimum: i128) -> std::result::Result<(), String> {
    if sys.vars.len() > ILP_MAX_VARIABLES {
        return Err(format!(
            "the ILP was not solved: {} variables exceed microlp's limit here ({ILP_MAX_VARIABLES})",
            sys.vars.len()
        ));
    }
    let values = sys
        .solve_ilp()
        .map_err(|e| format!("the ILP solver (microlp) failed: {e}"))?;
    let got = sys
        .check_primal(&values)
        .map_err(|e| format!("the ILP solver's answer is not a valid flow: {e}"))?;
    if got != optimum {
        return Err(format!(
            "the ILP solver's answer {got} is not the optimum {optimum} (microlp computes in floating point)"
        ));
    }
    Ok(())
}

/// Σ over the live blocks of wcet · multiplicity: no block runs more often than its loops'
/// bounds multiply to, in any IPET solution.
pub fn multiplicity_bound(g: &BsbCfg, live: &[bool]) -> Result<u128> {
    let over = || HostError::Overflow("the WCET exceeds 2^128 cycles".into());
    (0..g.len()).filter(|&v| live[v]).try_fold(0u128, |acc, v| {
        let m = g.multiplicity(v).ok_or_else(over)?;
        m.checked_mul(u128::from(g.wcet(v)))
            .and_then(|c| acc.checked_add(c))
            .ok_or_else(over)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::{Block, BlockKind, Cfg};
    use crate::structural::solve;

    fn diamond_loop() -> BsbCfg {
        let block = |name: &str, wcet, loop_bound| Block {
            name: name.into(),
            wcet,
            kind: BlockKind::Block,
            split: false,
            loop_bound,
            line: None,
            source: None,
        };
        let cfg = Cfg {
            blocks: vec![
                block("e", 1, None),
                block("h", 2, Some(10)),
                block("l", 3, None),
                block("x", 4, None),
            ],
            edges: vec![(0, 1), (1, 2), (2, 1), (2, 3)],
            entry: 0,
        };
        BsbCfg::new(cfg).unwrap()
    }

    #[test]
    fn loop_bound_row_and_certified_solution() {
        let g = diamond_loop();
        let s = solve(&g, &[false; 4]).unwrap();
        let sol = certify(&g, &s, Solver::Ilp).unwrap();
        assert_eq!(sol.method, IpetMethod::Ilp, "{:?}", sol.notes);
        assert_eq!(sol.wcet, 1 + 10 * (2 + 3) + 4);
        assert_eq!(sol.block_counts, [1, 10, 10, 1]);
        let sys = IpetSystem::new(&g, &[]).unwrap();
        let lp = sys.to_lp(&g);
        assert!(lp.contains(" loop1: + 1 x1 - 10 y0_1 <= 0\n"), "{lp}");
    }

    #[test]
    fn checks_reject_flows_and_duals_that_break_a_row() {
        let g = diamond_loop();
        let sys = IpetSystem::new(&g, &[]).unwrap();
        // Variables: x0..x3, then edges (0,1), (1,2), (2,1), (2,3) in sorted order.
        let good = [1, 10, 10, 1, 1, 10, 9, 1];
        assert_eq!(sys.check_primal(&good), Ok(55));
        let mut too_many_iterations = good;
        too_many_iterations[1] = 11;
        too_many_iterations[2] = 11;
        too_many_iterations[5] = 11;
        too_many_iterations[6] = 10;
        assert!(sys
            .check_primal(&too_many_iterations)
            .unwrap_err()
            .contains("Loop(1)"));
        let mut broken_flow = good;
        broken_flow[7] = 0;
        assert!(sys.check_primal(&broken_flow).is_err());
        assert!(sys.check_primal(&[-1, 0, 0, 0, 0, 0, 0, 0]).is_err());
        let s = solve(&g, &[false; 4]).unwrap();
        let live = sys.live_columns();
        let dual = dual_of(&g, &sys, &s);
        assert_eq!(sys.check_dual(&dual, &live), Ok(55));
        // A loop price below the costliest iteration lets a cycle gain: some constraint fails.
        let mut cheap = dual.clone();
        let loop_row = sys
            .rows
            .iter()
            .position(|r| r.kind == RowKind::Loop(1))
            .unwrap();
        cheap[loop_row] -= 1;
        assert!(sys.check_dual(&cheap, &live).is_err());
    }

    #[test]
    fn rejected_evidence_falls_back_to_a_safe_bound_with_a_note() {
        let g = diamond_loop();
        let mut s = solve(&g, &[false; 4]).unwrap();
        s.wcet -= 1;
        let sol = certify(&g, &s, Solver::Structural).unwrap();
        assert_eq!(sol.method, IpetMethod::Multiplicity);
        assert_eq!(sol.wcet, 1 + 10 * 2 + 10 * 3 + 4);
        assert!(
            sol.notes[0].contains("failed its exact check"),
            "{:?}",
            sol.notes
        );
    }
}
