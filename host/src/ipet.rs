//! Implicit path enumeration (IPET, Li & Malik; digest 4.2, anchors 1): the worst-case path of a
//! CFG as an integer linear programme, solved with good_lp's pure-Rust microlp backend.
//!
//! The system is built once as plain data ([`IpetSystem`]) so that the same rows are written to
//! an LP file, handed to the solver and used to verify the solver's answer: microlp has given
//! wrong MILP answers in the past (anchors 3), so every returned vector is checked for
//! integrality and against every row. If the check fails we fall back to the LP relaxation,
//! whose optimum is an upper bound of the ILP optimum and hence still a safe WCET bound.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use good_lp::{microlp, Expression, ProblemVariables, Solution, SolverModel, Variable};

use crate::cfg::BsbCfg;
use crate::error::{HostError, Result};

/// Comparison of one row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Le,
}

/// `Σ coeff·var (cmp) rhs`.
#[derive(Debug, Clone)]
pub struct Row {
    pub name: String,
    pub terms: Vec<(usize, i64)>,
    pub cmp: Cmp,
    pub rhs: i64,
}

/// What a variable counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Var {
    /// Executions of a block (x_v).
    Block(usize),
    /// Traversals of an edge (y_uv).
    Edge(usize, usize),
}

/// The IPET system of a CFG with some edges removed (C_out of Prune).
#[derive(Debug, Clone)]
pub struct IpetSystem {
    pub vars: Vec<Var>,
    pub names: Vec<String>,
    /// Objective coefficients (block WCETs), by variable.
    pub objective: Vec<i64>,
    pub rows: Vec<Row>,
}

/// How the reported bound was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum IpetMethod {
    /// Verified integer optimum.
    Ilp,
    /// The integer answer failed verification or was not optimal (microlp keeps integers
    /// within i32); the LP relaxation's (rounded-up) optimum is used.
    LpRelaxation,
}

/// A solved IPET problem.
#[derive(Debug, Clone)]
pub struct IpetSolution {
    pub wcet: u64,
    /// Executions per block on the worst-case path (zeros when the LP relaxation was used).
    pub block_counts: Vec<u64>,
    /// Traversals per kept edge on the worst-case path.
    pub edge_counts: Vec<((usize, usize), u64)>,
    pub method: IpetMethod,
    pub solve_time: Duration,
}

fn clamp_i64(v: u64, what: &str) -> Result<i64> {
    i64::try_from(v).map_err(|_| {
        HostError::Solver(format!(
            "{what} {v} does not fit the ILP's 64-bit coefficients"
        ))
    })
}

impl IpetSystem {
    /// Builds the system for `g` without the edges in `removed`: flow conservation on every block,
    /// entry count 1, and `x_h <= bound · (entries into h)` for every loop header h.
    pub fn new(g: &BsbCfg, removed: &[(usize, usize)]) -> Result<IpetSystem> {
        let n = g.len();
        let mut vars: Vec<Var> = (0..n).map(Var::Block).collect();
        let mut names: Vec<String> = (0..n).map(|v| format!("x{v}")).collect();
        let mut objective = Vec::with_capacity(n);
        for v in 0..n {
            objective.push(clamp_i64(g.wcet(v), "block WCET")?);
        }
        let mut is_removed = std::collections::HashSet::new();
        is_removed.extend(removed.iter().copied());
        let mut in_edges = vec![Vec::new(); n];
        let mut out_edges = vec![Vec::new(); n];
        let mut fwd_in = vec![Vec::new(); n];
        let back: std::collections::HashSet<(usize, usize)> =
            g.back_edges().iter().copied().collect();
        let mut edges: Vec<(usize, usize)> = g.cfg().edges.clone();
        edges.sort_unstable();
        edges.dedup();
        for (u, v) in edges {
            if is_removed.contains(&(u, v)) {
                continue;
            }
            let id = vars.len();
            vars.push(Var::Edge(u, v));
            names.push(format!("y{u}_{v}"));
            objective.push(0);
            out_edges[u].push(id);
            in_edges[v].push(id);
            if !back.contains(&(u, v)) {
                fwd_in[v].push(id);
            }
        }
        let entry = g.entry();
        let mut rows = Vec::new();
        for v in 0..n {
            let mut terms = vec![(v, 1)];
            terms.extend(in_edges[v].iter().map(|&e| (e, -1)));
            rows.push(Row {
                name: format!("in{v}"),
                terms,
                cmp: Cmp::Eq,
                rhs: i64::from(v == entry),
            });
            if !out_edges[v].is_empty() {
                let mut terms = vec![(v, 1)];
                terms.extend(out_edges[v].iter().map(|&e| (e, -1)));
                rows.push(Row {
                    name: format!("out{v}"),
                    terms,
                    cmp: Cmp::Eq,
                    rhs: 0,
                });
            }
        }
        for lp in g.loops() {
            let h = lp.header;
            let k = clamp_i64(lp.bound, "loop bound")?;
            let mut terms = vec![(h, 1)];
            terms.extend(fwd_in[h].iter().map(|&e| (e, -k)));
            rows.push(Row {
                name: format!("loop{h}"),
                terms,
                cmp: Cmp::Le,
                rhs: if h == entry { k } else { 0 },
            });
        }
        Ok(IpetSystem {
            vars,
            names,
            objective,
            rows,
        })
    }

    /// The system in CPLEX LP format (readable by glpsol, cbc, HiGHS, lp_solve's xli), with
    /// the block names in comments.
    pub fn to_lp(&self, g: &BsbCfg) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "\\ IPET of {} blocks; x<v> = executions of block v, y<u>_<v> = traversals of edge u->v", g.len());
        for (i, var) in self.vars.iter().enumerate() {
            if let Var::Block(v) = var {
                let _ = writeln!(
                    s,
                    "\\ {} = {} (wcet {})",
                    self.names[i],
                    g.name(*v),
                    g.wcet(*v)
                );
            }
        }
        s.push_str("Maximize\n obj:");
        let mut any = false;
        for (i, &c) in self.objective.iter().enumerate() {
            if c != 0 {
                let _ = write!(s, " + {c} {}", self.names[i]);
                any = true;
            }
        }
        if !any {
            let _ = write!(s, " 0 {}", self.names[0]);
        }
        s.push_str("\nSubject To\n");
        for row in &self.rows {
            let _ = write!(s, " {}:", row.name);
            for &(v, c) in &row.terms {
                let sign = if c < 0 { '-' } else { '+' };
                let _ = write!(s, " {sign} {} {}", c.abs(), self.names[v]);
            }
            let op = match row.cmp {
                Cmp::Eq => "=",
                Cmp::Le => "<=",
            };
            let _ = writeln!(s, " {op} {}", row.rhs);
        }
        s.push_str("General\n");
        for name in &self.names {
            let _ = writeln!(s, " {name}");
        }
        s.push_str("End\n");
        s
    }

    fn solve_with(&self, integer: bool) -> Result<Vec<f64>> {
        let mut pv = ProblemVariables::new();
        let xs: Vec<Variable> = self
            .vars
            .iter()
            .map(|_| {
                let def = good_lp::variable().min(0);
                pv.add(if integer { def.integer() } else { def })
            })
            .collect();
        let mut obj = Expression::from(0.0);
        for (i, &c) in self.objective.iter().enumerate() {
            if c != 0 {
                obj += c as f64 * xs[i];
            }
        }
        let mut model = pv.maximise(obj).using(microlp);
        for row in &self.rows {
            let mut lhs = Expression::from(0.0);
            for &(v, c) in &row.terms {
                lhs += c as f64 * xs[v];
            }
            let rhs = row.rhs as f64;
            model = model.with(match row.cmp {
                Cmp::Eq => lhs.eq(rhs),
                Cmp::Le => lhs.leq(rhs),
            });
        }
        let sol = model
            .solve()
            .map_err(|e| HostError::Solver(format!("the solver failed: {e}")))?;
        Ok(xs.iter().map(|&x| sol.value(x)).collect())
    }

    /// Checks an integer vector against every row; returns the objective value.
    fn verify(&self, values: &[i64]) -> Option<i64> {
        if values.iter().any(|&v| v < 0) {
            return None;
        }
        for row in &self.rows {
            let lhs: i128 = row
                .terms
                .iter()
                .map(|&(v, c)| i128::from(c) * i128::from(values[v]))
                .sum();
            let ok = match row.cmp {
                Cmp::Eq => lhs == i128::from(row.rhs),
                Cmp::Le => lhs <= i128::from(row.rhs),
            };
            if !ok {
                return None;
            }
        }
        let obj: i128 = self
            .objective
            .iter()
            .zip(values)
            .map(|(&c, &v)| i128::from(c) * i128::from(v))
            .sum();
        i64::try_from(obj).ok()
    }

    /// Solves the ILP and verifies the answer, falling back to the LP relaxation (see module doc).
    pub fn solve(&self) -> Result<IpetSolution> {
        let start = Instant::now();
        let raw = self.solve_with(true)?;
        let integral = raw.iter().all(|v| (v - v.round()).abs() <= 1e-6);
        let rounded: Vec<i64> = raw.iter().map(|v| v.round() as i64).collect();
        if let (true, Some(obj)) = (integral, self.verify(&rounded)) {
            let count = |v: i64| v.max(0) as u64;
            let mut block_counts = Vec::new();
            let mut edge_counts = Vec::new();
            for (i, var) in self.vars.iter().enumerate() {
                match *var {
                    Var::Block(_) => block_counts.push(count(rounded[i])),
                    Var::Edge(u, v) => edge_counts.push(((u, v), count(rounded[i]))),
                }
            }
            return Ok(IpetSolution {
                wcet: obj as u64,
                block_counts,
                edge_counts,
                method: IpetMethod::Ilp,
                solve_time: start.elapsed(),
            });
        }
        let mut sol = self.solve_relaxation()?;
        sol.solve_time = start.elapsed();
        Ok(sol)
    }

    /// The LP relaxation's optimum rounded up: an upper bound of the ILP optimum (no counts).
    pub fn solve_relaxation(&self) -> Result<IpetSolution> {
        let start = Instant::now();
        let relaxed = self.solve_with(false)?;
        let obj: f64 = self
            .objective
            .iter()
            .zip(&relaxed)
            .map(|(&c, &v)| c as f64 * v)
            .sum();
        Ok(IpetSolution {
            wcet: (obj - 1e-6).ceil().max(0.0) as u64,
            block_counts: vec![
                0;
                self.vars
                    .iter()
                    .filter(|v| matches!(v, Var::Block(_)))
                    .count()
            ],
            edge_counts: Vec::new(),
            method: IpetMethod::LpRelaxation,
            solve_time: start.elapsed(),
        })
    }
}

/// Longest path from the entry on `g` without `removed`, by dynamic programming over the
/// topological order; a loop header multiplies its body by the bound. Equal to the IPET optimum
/// (the ILP's structural rows are a network matrix; loops are single-exit).
pub fn longest_path(g: &BsbCfg, removed: &[(usize, usize)]) -> u128 {
    let removed: std::collections::HashSet<(usize, usize)> = removed.iter().copied().collect();
    let mut f = vec![0u128; g.len()];
    for &u in g.order().iter().rev() {
        let next = g
            .forward_successors(u)
            .iter()
            .filter(|&&v| !removed.contains(&(u, v)))
            .map(|&v| f[v])
            .max()
            .unwrap_or(0);
        f[u] = next + u128::from(g.wcet(u));
        if let Some(lp) = g.loop_at(u) {
            let rest = f[lp.exit];
            f[u] = (f[u] - rest) * u128::from(lp.bound) + rest;
        }
    }
    f[g.entry()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::{Block, BlockKind, Cfg};

    fn diamond_loop() -> BsbCfg {
        let block = |name: &str, wcet, loop_bound| Block {
            name: name.into(),
            wcet,
            kind: BlockKind::Block,
            split: false,
            loop_bound,
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
    fn loop_bound_row_and_solution() {
        let g = diamond_loop();
        let sys = IpetSystem::new(&g, &[]).unwrap();
        let sol = sys.solve().unwrap();
        assert_eq!(sol.method, IpetMethod::Ilp);
        assert_eq!(sol.wcet, 1 + 10 * (2 + 3) + 4);
        assert_eq!(sol.block_counts, [1, 10, 10, 1]);
        assert_eq!(u128::from(sol.wcet), longest_path(&g, &[]));
        let lp = sys.to_lp(&g);
        assert!(lp.contains(" loop1: + 1 x1 - 10 y0_1 <= 0\n"), "{lp}");
    }

    #[test]
    fn verification_rejects_vectors_that_break_a_row() {
        let g = diamond_loop();
        let sys = IpetSystem::new(&g, &[]).unwrap();
        // Variables: x0..x3, then edges (0,1), (1,2), (2,1), (2,3) in sorted order.
        let good = [1, 10, 10, 1, 1, 10, 9, 1];
        assert_eq!(sys.verify(&good), Some(55));
        let mut too_many_iterations = good;
        too_many_iterations[1] = 11;
        too_many_iterations[2] = 11;
        too_many_iterations[5] = 11;
        too_many_iterations[6] = 10;
        assert_eq!(sys.verify(&too_many_iterations), None);
        let mut broken_flow = good;
        broken_flow[7] = 0;
        assert_eq!(sys.verify(&broken_flow), None);
        assert_eq!(sys.verify(&[-1, 0, 0, 0, 0, 0, 0, 0]), None);
    }
}
