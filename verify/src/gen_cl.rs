//! Random OpenCL C kernels for the end-to-end equivalence suite: the control-flow shapes clang
//! turns into LLVM's EXEC idioms, so that the CFG front end, the split/merge pass, the golden
//! model and the RTL are checked on what the compiler actually emits, not on assembly we wrote.
//!
//! A kernel ([`ClKernel`]) is a statement tree over three `unsigned` variables `a`, `b`, `c`
//! (initialised from the work-item's input and id): assignments, if/else and `if` without else
//! (some marked `PWS_SPLIT()`), divergent loops whose trip count is the lane's data masked to
//! at most [`MAX_TRIPS`] (with `PWS_LOOP_BOUND`), uniform loops, loads from the input at
//! another lane's index, and an optional guard `if (i < n)` around everything. Each work-item
//! writes only its own three output words, so the final memory does not depend on the mode, S
//! or the schedule. Unsigned arithmetic keeps clang from exploiting undefined behaviour.
//! [`ClKernel::render`] writes the C source and the launch manifest; compiler flags are part
//! of the case (`-O1` .. `-O3`, with or without LLVM's skip-branch threshold).

use std::fmt::Write as _;

use proptest::prelude::*;

/// Largest trip count of a generated loop.
pub const MAX_TRIPS: u32 = 7;
const VARS: [&str; 3] = ["a", "b", "c"];

/// An expression over the variables.
#[derive(Clone, Debug)]
pub enum Expr {
    Var(usize),
    Const(u32),
    /// `x op y` with op one of + - * ^ & | << >>.
    Bin(u8, Box<Expr>, Box<Expr>),
    /// `in[(i ^ k) & (grid - 1)]`: another lane's input.
    Load(u32),
}

/// A condition.
#[derive(Clone, Debug)]
pub enum Cond {
    /// `(v & (1 << bit)) != 0`.
    Bit(usize, u32),
    /// `v < k`.
    Less(usize, u32),
    /// `v > w`.
    Greater(usize, usize),
}

/// A statement.
#[derive(Clone, Debug)]
pub enum Stmt {
    Assign(usize, Expr),
    If {
        cond: Cond,
        then: Vec<Stmt>,
        els: Option<Vec<Stmt>>,
        split: bool,
    },
    /// `for (t = 0; t < (v & MAX_TRIPS); t++)`: a divergent loop.
    DivergentLoop(usize, Vec<Stmt>),
    /// `for (t = 0; t < n; t++)` with n the same for every lane.
    UniformLoop(u32, Vec<Stmt>),
}

/// One generated kernel and its launch.
#[derive(Clone, Debug)]
pub struct ClKernel {
    pub body: Vec<Stmt>,
    /// Wrap the body in `if (i < n)` with n below the grid.
    pub guard: Option<u32>,
    /// Work-items (64 or 128: one workgroup of 64 per wavefront).
    pub grid: u32,
    pub input: Vec<u32>,
    pub cflags: Vec<String>,
}

fn expr(depth: u32) -> BoxedStrategy<Expr> {
    let leaf = prop_oneof![
        (0..3usize).prop_map(Expr::Var),
        (0u32..1000).prop_map(Expr::Const),
        (1u32..64).prop_map(Expr::Load),
    ];
    leaf.prop_recursive(depth, 8, 2, |inner| {
        (0u8..8, inner.clone(), inner)
            .prop_map(|(op, x, y)| Expr::Bin(op, Box::new(x), Box::new(y)))
    })
    .boxed()
}

fn cond() -> impl Strategy<Value = Cond> {
    prop_oneof![
        (0..3usize, 0u32..8).prop_map(|(v, b)| Cond::Bit(v, b)),
        (0..3usize, 0u32..1000).prop_map(|(v, k)| Cond::Less(v, k)),
        (0..3usize, 0..3usize).prop_map(|(v, w)| Cond::Greater(v, w)),
    ]
}

fn block(depth: u32) -> BoxedStrategy<Vec<Stmt>> {
    let assign = (0..3usize, expr(2)).prop_map(|(v, e)| Stmt::Assign(v, e));
    if depth == 0 {
        return prop::collection::vec(assign, 1..4).boxed();
    }
    let inner = block(depth - 1);
    let stmt = prop_oneof![
        4 => assign,
        3 => (cond(), inner.clone(), prop::option::of(inner.clone()), any::<bool>())
            .prop_map(|(cond, then, els, split)| Stmt::If { cond, then, els, split }),
        1 => (0..3usize, inner.clone()).prop_map(|(v, b)| Stmt::DivergentLoop(v, b)),
        1 => (1u32..4, inner).prop_map(|(n, b)| Stmt::UniformLoop(n, b)),
    ];
    prop::collection::vec(stmt, 1..4).boxed()
}

/// The proptest strategy.
pub fn cl_kernel() -> impl Strategy<Value = ClKernel> {
    let flags = prop_oneof![
        Just(vec!["-O1".to_string()]),
        Just(vec!["-O2".to_string()]),
        Just(vec!["-O3".to_string()]),
        Just(vec![
            "-O2".to_string(),
            "-mllvm".to_string(),
            "-amdgpu-skip-threshold=0".to_string()
        ]),
    ];
    (
        prop_oneof![Just(64u32), Just(128u32)],
        block(3),
        any::<bool>(),
        flags,
    )
        .prop_flat_map(|(grid, body, guarded, cflags)| {
            (
                prop::collection::vec(any::<u32>(), grid as usize),
                if guarded {
                    (1..grid).prop_map(Some).boxed()
                } else {
                    Just(None).boxed()
                },
            )
                .prop_map(move |(input, guard)| ClKernel {
                    body: body.clone(),
                    guard,
                    grid,
                    input,
                    cflags: cflags.clone(),
                })
        })
}

impl ClKernel {
    fn expr(&self, out: &mut String, e: &Expr) {
        match e {
            Expr::Var(v) => out.push_str(VARS[*v]),
            Expr::Const(k) => {
                let _ = write!(out, "{k}u");
            }
            Expr::Bin(op, x, y) => {
                out.push('(');
                self.expr(out, x);
                out.push_str(match op {
                    0 => " + ",
                    1 => " - ",
                    2 => " * ",
                    3 => " ^ ",
                    4 => " & ",
                    5 => " | ",
                    6 => " << ",
                    _ => " >> ",
                });
                // Shift amounts stay below 32.
                if *op >= 6 {
                    out.push('(');
                    self.expr(out, y);
                    out.push_str(" & 31u)");
                } else {
                    self.expr(out, y);
                }
                out.push(')');
            }
            Expr::Load(k) => {
                let _ = write!(out, "in[(i ^ {k}u) & {}u]", self.grid - 1);
            }
        }
    }

    fn cond(out: &mut String, c: &Cond) {
        let _ = match c {
            Cond::Bit(v, b) => write!(out, "({} & {}u) != 0", VARS[*v], 1u32 << b),
            Cond::Less(v, k) => write!(out, "{} < {k}u", VARS[*v]),
            Cond::Greater(v, w) => write!(out, "{} > {}", VARS[*v], VARS[*w]),
        };
    }

    fn block(&self, out: &mut String, stmts: &[Stmt], indent: usize, loops: &mut usize) {
        let pad = "  ".repeat(indent);
        for s in stmts {
            match s {
                Stmt::Assign(v, e) => {
                    let _ = write!(out, "{pad}{} = ", VARS[*v]);
                    self.expr(out, e);
                    out.push_str(";\n");
                }
                Stmt::If {
                    cond,
                    then,
                    els,
                    split,
                } => {
                    if *split {
                        let _ = writeln!(out, "{pad}PWS_SPLIT();");
                    }
                    let _ = write!(out, "{pad}if (");
                    Self::cond(out, cond);
                    out.push_str(") {\n");
                    self.block(out, then, indent + 1, loops);
                    if let Some(els) = els {
                        let _ = writeln!(out, "{pad}}} else {{");
                        self.block(out, els, indent + 1, loops);
                    }
                    let _ = writeln!(out, "{pad}}}");
                }
                Stmt::DivergentLoop(v, body) => {
                    *loops += 1;
                    let t = format!("t{loops}");
                    let _ = writeln!(
                        out,
                        "{pad}for (unsigned {t} = 0; {t} < ({} & {MAX_TRIPS}u); {t}++) {{\n{pad}  PWS_LOOP_BOUND({MAX_TRIPS});",
                        VARS[*v]
                    );
                    self.block(out, body, indent + 1, loops);
                    let _ = writeln!(out, "{pad}}}");
                }
                Stmt::UniformLoop(n, body) => {
                    *loops += 1;
                    let t = format!("t{loops}");
                    let _ = writeln!(
                        out,
                        "{pad}for (unsigned {t} = 0; {t} < {n}u; {t}++) {{\n{pad}  PWS_LOOP_BOUND({n});"
                    );
                    self.block(out, body, indent + 1, loops);
                    let _ = writeln!(out, "{pad}}}");
                }
            }
        }
    }

    /// The OpenCL C source.
    pub fn source(&self) -> String {
        let mut out = String::from(
            "__kernel void gen(__global const unsigned *in, __global unsigned *out, unsigned n) {\n  unsigned i = __builtin_amdgcn_workgroup_id_x() * 64u + __builtin_amdgcn_workitem_id_x();\n  unsigned a = in[i], b = ~a, c = i;\n",
        );
        let mut loops = 0;
        match self.guard {
            Some(_) => {
                out.push_str("  if (i < n) {\n");
                self.block(&mut out, &self.body, 2, &mut loops);
                out.push_str("  }\n");
            }
            None => self.block(&mut out, &self.body, 1, &mut loops),
        }
        out.push_str("  out[3 * i] = a;\n  out[3 * i + 1] = b;\n  out[3 * i + 2] = c;\n}\n");
        out
    }

    /// The launch manifest for the kernel file `kernel` (one workgroup of 64 per wavefront).
    pub fn manifest(&self, kernel: &str) -> String {
        let mut m = format!(
            "kernel = \"{kernel}\"\ngrid = {}\nworkgroup = 64\nargs = [\"in\", \"out\", {}]\ncflags = [{}]\n\n[[buffer]]\nname = \"in\"\ntype = \"u32\"\ndata = [",
            self.grid,
            self.guard.unwrap_or(self.grid),
            self.cflags
                .iter()
                .map(|f| format!("\"{f}\""))
                .collect::<Vec<_>>()
                .join(", ")
        );
        m.push_str(
            &self
                .input
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", "),
        );
        let _ = write!(
            m,
            "]\n\n[[buffer]]\nname = \"out\"\ntype = \"u32\"\nlen = {}\n",
            3 * self.grid
        );
        m
    }
}
