//! Random OpenCL C kernels for the end-to-end equivalence suite: the control-flow shapes clang
//! turns into LLVM's EXEC idioms, so that the CFG front end, the split/merge pass, the golden
//! model and the RTL are checked on what the compiler actually emits, not on assembly we wrote.
//!
//! A kernel ([`ClKernel`]) is a statement tree over three `unsigned` variables `a`, `b`, `c`
//! (initialised from the work-item's input and id): assignments (arithmetic, bit operations,
//! `/` and `%`, which clang expands around `v_rcp_iflag_f32`, and `add_sat`/`sub_sat`, which
//! it selects as `v_add_u32`/`v_sub_u32` with `clamp`), if/else and `if` without else
//! (some marked `PWS_SPLIT()`), divergent loops whose trip count is the lane's data masked to
//! at most [`MAX_TRIPS`] (with `PWS_LOOP_BOUND`), counted loops that a lane leaves early by
//! `break` (without: the analysis infers their bound from the counter, or takes the manifest's
//! default where it cannot), uniform loops, loads from the input at
//! another lane's index, and an optional guard `if (i < n)` around everything. Each work-item
//! writes only its own three output words, so the final memory does not depend on the mode, S
//! or the schedule. Unsigned arithmetic keeps clang from exploiting undefined behaviour.
//! [`ClKernel::render`] writes the C source and the launch manifest; compiler flags are part
//! of the case (`-O0` .. `-O3`, with or without LLVM's skip-branch threshold; an `-O0` case
//! marks no split, since clang's `-O0` code keeps scalars in vector lanes in every divergent
//! region).
//!
//! Behind the knobs of [`ClFamilies`]: two `float` variables `f`, `g` (arithmetic, division,
//! fmin/fmax/floor/ceil/trunc/sqrt/fabs, conversions, float compares as conditions, the transcendentals
//! separately; stored as bits), a `__local` array with exchanges between two
//! `barrier(CLK_LOCAL_MEM_FENCE)` at uniform places and local atomics, global atomics, and
//! private `unsigned` and `uchar` arrays indexed at run time (private memory).
//! Atomics on words several work-items share take one commutative operation per word and
//! their returned values are not used; an atomic whose old value is used addresses the
//! work-item's own output word; so the memory stays independent of the schedule. Float
//! constants are the inline ones (0.5, 1, 2, 4 and negatives): a literal multiplicand would
//! let clang pick `v_madmk/madak_f32`, which belong to another family.

use std::fmt::Write as _;

use proptest::prelude::*;

/// Largest trip count of a generated loop.
pub const MAX_TRIPS: u32 = 7;
/// Largest trip count of a counted loop with a `break`.
pub const BREAK_TRIPS: u32 = 24;

/// Trip counts computed from the kernel's argument n (the guard, 1..=128): scalar arithmetic
/// clang keeps in SGPRs, up to 3 iterations (as many as `UniformLoop`'s, which nest as deep).
/// Each is parenthesised: the loop's `t < limit` binds tighter than `&`.
const ARG_TRIPS: [&str; 3] = ["((n & 1u) + 2u)", "(n >> 6)", "((n ^ 0x35u) & 3u)"];
const VARS: [&str; 3] = ["a", "b", "c"];
const FVARS: [&str; 2] = ["f", "g"];
const FCONSTS: [&str; 6] = ["0.5f", "-0.5f", "1.0f", "-2.0f", "2.0f", "4.0f"];
/// Elements of the private arrays `pa` (unsigned) and `pb` (uchar): more than clang promotes to
/// registers when they are indexed at run time.
const PRIVATE_WORDS: u32 = 32;
/// Shared words of the local array `lsum` and of the global `atom`, each with its operation.
const SHARED_WORDS: u32 = 8;
const SHARED_OPS: [&str; 8] = [
    "atomic_add",
    "atomic_sub",
    "atomic_min",
    "atomic_max",
    "atomic_and",
    "atomic_or",
    "atomic_xor",
    "atomic_inc",
];
/// Atomics on the work-item's own word, whose old value is used.
const OWN_OPS: [&str; 10] = [
    "atomic_add",
    "atomic_sub",
    "atomic_min",
    "atomic_max",
    "atomic_and",
    "atomic_or",
    "atomic_xor",
    "atomic_xchg",
    "atomic_inc",
    "atomic_dec",
];

/// Instruction families beyond unsigned integer arithmetic.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClFamilies {
    pub floats: bool,
    /// `exp2`, `log2`, `sin`, `cos` (with floats).
    pub transcendentals: bool,
    /// The `__local` array, its barriers and local atomics.
    pub local: bool,
    /// Global atomics.
    pub atomics: bool,
    /// Private arrays indexed at run time (`unsigned pa[]`, `uchar pb[]`), which clang keeps
    /// in private memory: MUBUF loads and stores of dwords and bytes.
    pub private: bool,
}

impl ClFamilies {
    pub const ALL: ClFamilies = ClFamilies {
        floats: true,
        transcendentals: true,
        local: true,
        atomics: true,
        private: true,
    };
}

/// A float expression over `f`, `g` and the integer variables.
#[derive(Clone, Debug)]
pub enum FExpr {
    Var(usize),
    Const(usize),
    /// `(float)v` (unsigned) or `(float)(int)v`.
    FromInt(usize, bool),
    /// `x op y` with op one of + - * / fmin fmax.
    Bin(u8, Box<FExpr>, Box<FExpr>),
    /// floor ceil trunc sqrt fabs, then exp2 log2 sin cos (clang folds `fabs` into a select as
    /// `v_cndmask_b32_e64 ... |x|`).
    Un(u8, Box<FExpr>),
}

/// An expression over the variables.
#[derive(Clone, Debug)]
pub enum Expr {
    Var(usize),
    Const(u32),
    /// `x op y` with op one of + - * ^ & | << >> / % (a divisor `y | 1`: never zero), or
    /// `add_sat(x, y)`, `sub_sat(x, y)`.
    Bin(u8, Box<Expr>, Box<Expr>),
    /// `in[(i ^ k) & (grid - 1)]`: another lane's input.
    Load(u32),
    /// `as_uint(f)`: a float variable's bits.
    FBits(usize),
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
    /// `f < g` (false on NaN).
    FLess(usize, usize),
    /// `f == f` (false for NaN).
    FOrdered(usize),
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
    /// `for (t = 0; t < ARG_TRIPS[k]; t++)` without `PWS_LOOP_BOUND`: a trip count the
    /// kernel computes from its argument n, which the analysis of a launch follows.
    ArgLoop(usize, Vec<Stmt>),
    /// `for (t = 0; t < n; t++) { if (cond) break; ... }` without `PWS_LOOP_BOUND`: the
    /// analysis infers n from the counter, or takes the manifest's default bound.
    CountedBreak(u32, Cond, Vec<Stmt>),
    /// `fv = e`.
    FAssign(usize, FExpr),
    /// `lds[lid] = v; barrier; v ^= lds[(lid ^ k) & 63]; barrier` (uniform places only).
    LocalExchange(usize, u32),
    /// `SHARED_OPS[word](&lsum[word], v)` (`atomic_inc` without v).
    LocalAtomic(usize, usize),
    /// `SHARED_OPS[word](&atom[word], v)`.
    GlobalAtomic(usize, usize),
    /// `v ^= OWN_OPS[op](&out[own], w)`.
    OwnAtomic(usize, usize, usize),
    /// `pa[v & 31] = w` (`pb[..] = (uchar)w` with `bytes`): a private store at a run-time index.
    PrivateStore {
        bytes: bool,
        index: usize,
        value: usize,
    },
    /// `v += pa[w & 31]` (`v ^= pb[..]` with `bytes`): a private load at a run-time index.
    PrivateLoad {
        bytes: bool,
        dst: usize,
        index: usize,
    },
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
    pub families: ClFamilies,
    /// The `atom` buffer (with atomics).
    pub atom: Vec<u32>,
}

fn expr(depth: u32, fam: ClFamilies) -> BoxedStrategy<Expr> {
    let mut leaves = vec![
        (0..3usize).prop_map(Expr::Var).boxed(),
        (0u32..1000).prop_map(Expr::Const).boxed(),
        (1u32..64).prop_map(Expr::Load).boxed(),
    ];
    if fam.floats {
        leaves.push((0..2usize).prop_map(Expr::FBits).boxed());
    }
    let leaf = proptest::strategy::Union::new(leaves);
    leaf.prop_recursive(depth, 8, 2, |inner| {
        (0u8..12, inner.clone(), inner)
            .prop_map(|(op, x, y)| Expr::Bin(op, Box::new(x), Box::new(y)))
    })
    .boxed()
}

fn fexpr(depth: u32, fam: ClFamilies) -> BoxedStrategy<FExpr> {
    let leaf = prop_oneof![
        (0..2usize).prop_map(FExpr::Var),
        (0..FCONSTS.len()).prop_map(FExpr::Const),
        (0..3usize, any::<bool>()).prop_map(|(v, signed)| FExpr::FromInt(v, signed)),
    ];
    let unary = if fam.transcendentals { 9u8 } else { 5 };
    leaf.prop_recursive(depth, 8, 2, move |inner| {
        prop_oneof![
            (0u8..6, inner.clone(), inner.clone()).prop_map(|(op, x, y)| FExpr::Bin(
                op,
                Box::new(x),
                Box::new(y)
            )),
            (0..unary, inner).prop_map(|(op, x)| FExpr::Un(op, Box::new(x))),
        ]
    })
    .boxed()
}

fn cond(fam: ClFamilies) -> BoxedStrategy<Cond> {
    let mut choices = vec![
        (0..3usize, 0u32..8)
            .prop_map(|(v, b)| Cond::Bit(v, b))
            .boxed(),
        (0..3usize, 0u32..1000)
            .prop_map(|(v, k)| Cond::Less(v, k))
            .boxed(),
        (0..3usize, 0..3usize)
            .prop_map(|(v, w)| Cond::Greater(v, w))
            .boxed(),
    ];
    if fam.floats {
        choices.push(
            (0..2usize, 0..2usize)
                .prop_map(|(v, w)| Cond::FLess(v, w))
                .boxed(),
        );
        choices.push((0..2usize).prop_map(Cond::FOrdered).boxed());
    }
    proptest::strategy::Union::new(choices).boxed()
}

/// A block at `depth` levels above the innermost; `uniform` when no `if`, divergent loop or
/// guard encloses it (where the local exchange's barriers may go).
fn block(depth: u32, fam: ClFamilies, uniform: bool) -> BoxedStrategy<Vec<Stmt>> {
    let mut simple: Vec<(u32, BoxedStrategy<Stmt>)> = vec![(
        4,
        (0..3usize, expr(2, fam))
            .prop_map(|(v, e)| Stmt::Assign(v, e))
            .boxed(),
    )];
    if fam.floats {
        simple.push((
            3,
            (0..2usize, fexpr(2, fam))
                .prop_map(|(v, e)| Stmt::FAssign(v, e))
                .boxed(),
        ));
    }
    if fam.local {
        simple.push((
            1,
            (0..SHARED_WORDS as usize, 0..3usize)
                .prop_map(|(w, v)| Stmt::LocalAtomic(w, v))
                .boxed(),
        ));
        if uniform {
            simple.push((
                1,
                (0..3usize, 1u32..64)
                    .prop_map(|(v, k)| Stmt::LocalExchange(v, k))
                    .boxed(),
            ));
        }
    }
    if fam.private {
        simple.push((
            2,
            (any::<bool>(), 0..3usize, 0..3usize)
                .prop_map(|(bytes, index, value)| Stmt::PrivateStore {
                    bytes,
                    index,
                    value,
                })
                .boxed(),
        ));
        simple.push((
            2,
            (any::<bool>(), 0..3usize, 0..3usize)
                .prop_map(|(bytes, dst, index)| Stmt::PrivateLoad { bytes, dst, index })
                .boxed(),
        ));
    }
    if fam.atomics {
        simple.push((
            1,
            (0..SHARED_WORDS as usize, 0..3usize)
                .prop_map(|(w, v)| Stmt::GlobalAtomic(w, v))
                .boxed(),
        ));
        simple.push((
            1,
            (0..OWN_OPS.len(), 0..3usize, 0..3usize)
                .prop_map(|(op, v, w)| Stmt::OwnAtomic(op, v, w))
                .boxed(),
        ));
    }
    if depth == 0 {
        return prop::collection::vec(proptest::strategy::Union::new_weighted(simple), 1..4)
            .boxed();
    }
    let inner = block(depth - 1, fam, false);
    let mut choices = simple;
    choices.push((
        3,
        (
            cond(fam),
            inner.clone(),
            prop::option::of(inner.clone()),
            any::<bool>(),
        )
            .prop_map(|(cond, then, els, split)| Stmt::If {
                cond,
                then,
                els,
                split,
            })
            .boxed(),
    ));
    choices.push((
        1,
        (0..3usize, inner)
            .prop_map(|(v, b)| Stmt::DivergentLoop(v, b))
            .boxed(),
    ));
    choices.push((
        1,
        (1u32..4, block(depth - 1, fam, uniform))
            .prop_map(|(n, b)| Stmt::UniformLoop(n, b))
            .boxed(),
    ));
    choices.push((
        1,
        (0..ARG_TRIPS.len(), block(depth - 1, fam, uniform))
            .prop_map(|(k, b)| Stmt::ArgLoop(k, b))
            .boxed(),
    ));
    // Trip counts clang unrolls fully, and ones it keeps as loops.
    choices.push((
        1,
        (
            prop::sample::select(vec![3u32, 6, 13, BREAK_TRIPS]),
            cond(fam),
            block(depth - 1, fam, false),
        )
            .prop_map(|(n, c, b)| Stmt::CountedBreak(n, c, b))
            .boxed(),
    ));
    prop::collection::vec(proptest::strategy::Union::new_weighted(choices), 1..4).boxed()
}

/// The proptest strategy of integer kernels.
pub fn cl_kernel() -> impl Strategy<Value = ClKernel> {
    cl_kernel_with(ClFamilies::default())
}

/// The proptest strategy of kernels with the families `fam`.
pub fn cl_kernel_with(fam: ClFamilies) -> impl Strategy<Value = ClKernel> {
    // -O0 code is about ten times longer: one case in nine, to keep the RTL's share of the
    // suite's time.
    let flags = prop_oneof![
        1 => Just(vec!["-O0".to_string()]),
        2 => Just(vec!["-O1".to_string()]),
        2 => Just(vec!["-O2".to_string()]),
        2 => Just(vec!["-O3".to_string()]),
        2 => Just(vec![
            "-O2".to_string(),
            "-mllvm".to_string(),
            "-amdgpu-skip-threshold=0".to_string()
        ]),
    ];
    let atom_words = if fam.atomics {
        SHARED_WORDS as usize
    } else {
        0
    };
    (
        prop_oneof![Just(64u32), Just(128u32)],
        any::<bool>(),
        flags,
        prop::collection::vec(any::<u32>(), atom_words),
    )
        .prop_flat_map(move |(grid, guarded, cflags, atom)| {
            (
                prop::collection::vec(any::<u32>(), grid as usize),
                if guarded {
                    (1..grid).prop_map(Some).boxed()
                } else {
                    Just(None).boxed()
                },
                // Under the guard no place is uniform.
                block(3, fam, !guarded),
            )
                .prop_map(move |(input, guard, body)| ClKernel {
                    body,
                    guard,
                    grid,
                    input,
                    cflags: cflags.clone(),
                    families: fam,
                    atom: atom.clone(),
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
            Expr::Bin(op @ (10 | 11), x, y) => {
                out.push_str(if *op == 10 { "add_sat(" } else { "sub_sat(" });
                self.expr(out, x);
                out.push_str(", ");
                self.expr(out, y);
                out.push(')');
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
                    7 => " >> ",
                    8 => " / ",
                    _ => " % ",
                });
                // Shift amounts stay below 32; divisors are odd, so never zero.
                match op {
                    6 | 7 => {
                        out.push('(');
                        self.expr(out, y);
                        out.push_str(" & 31u)");
                    }
                    8 | 9 => {
                        out.push('(');
                        self.expr(out, y);
                        out.push_str(" | 1u)");
                    }
                    _ => self.expr(out, y),
                }
                out.push(')');
            }
            Expr::Load(k) => {
                let _ = write!(out, "in[(i ^ {k}u) & {}u]", self.grid - 1);
            }
            Expr::FBits(v) => {
                let _ = write!(out, "as_uint({})", FVARS[*v]);
            }
        }
    }

    fn fexpr(out: &mut String, e: &FExpr) {
        match e {
            FExpr::Var(v) => out.push_str(FVARS[*v]),
            FExpr::Const(k) => out.push_str(FCONSTS[*k]),
            FExpr::FromInt(v, false) => {
                let _ = write!(out, "(float){}", VARS[*v]);
            }
            FExpr::FromInt(v, true) => {
                let _ = write!(out, "(float)(int){}", VARS[*v]);
            }
            FExpr::Bin(op, x, y) if *op >= 4 => {
                out.push_str(if *op == 4 { "fmin(" } else { "fmax(" });
                Self::fexpr(out, x);
                out.push_str(", ");
                Self::fexpr(out, y);
                out.push(')');
            }
            FExpr::Bin(op, x, y) => {
                out.push('(');
                Self::fexpr(out, x);
                out.push_str([" + ", " - ", " * ", " / "][*op as usize]);
                Self::fexpr(out, y);
                out.push(')');
            }
            FExpr::Un(op, x) => {
                out.push_str(
                    [
                        "floor(", "ceil(", "trunc(", "sqrt(", "fabs(", "exp2(", "log2(", "sin(",
                        "cos(",
                    ][*op as usize],
                );
                Self::fexpr(out, x);
                out.push(')');
            }
        }
    }

    /// Words of `out` per work-item: a, b, c, then f and g with floats, then the own atomic
    /// word with atomics.
    fn outs(&self) -> u32 {
        3 + 2 * u32::from(self.families.floats) + u32::from(self.families.atomics)
    }

    fn cond(out: &mut String, c: &Cond) {
        let _ = match c {
            Cond::Bit(v, b) => write!(out, "({} & {}u) != 0", VARS[*v], 1u32 << b),
            Cond::Less(v, k) => write!(out, "{} < {k}u", VARS[*v]),
            Cond::Greater(v, w) => write!(out, "{} > {}", VARS[*v], VARS[*w]),
            Cond::FLess(v, w) => write!(out, "{} < {}", FVARS[*v], FVARS[*w]),
            Cond::FOrdered(v) => write!(out, "{0} == {0}", FVARS[*v]),
        };
    }

    /// `-O0` code keeps scalars in vector lanes (`v_writelane_b32`) inside every divergent
    /// region, which no split may hold, so an `-O0` case marks no split.
    fn marks_splits(&self) -> bool {
        !self.cflags.iter().any(|f| f == "-O0")
    }

    /// The C of `stmts`. An `if` carries its `PWS_SPLIT()` only where `marks`: not in a loop
    /// with a `break`, whose exit LLVM routes through the regions of the branches inside it
    /// (pws refuses such a split: its wavefronts would leave the loop separately).
    fn block(
        &self,
        out: &mut String,
        stmts: &[Stmt],
        indent: usize,
        loops: &mut usize,
        marks: bool,
    ) {
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
                    if *split && marks && self.marks_splits() {
                        let _ = writeln!(out, "{pad}PWS_SPLIT();");
                    }
                    let _ = write!(out, "{pad}if (");
                    Self::cond(out, cond);
                    out.push_str(") {\n");
                    self.block(out, then, indent + 1, loops, marks);
                    if let Some(els) = els {
                        let _ = writeln!(out, "{pad}}} else {{");
                        self.block(out, els, indent + 1, loops, marks);
                    }
                    let _ = writeln!(out, "{pad}}}");
                }
                Stmt::DivergentLoop(v, body) => {
                    let limit = format!("({} & {MAX_TRIPS}u)", VARS[*v]);
                    let head = format!("PWS_LOOP_BOUND({MAX_TRIPS});");
                    self.counted_for(out, &limit, &head, body, indent, loops, marks);
                }
                Stmt::FAssign(v, e) => {
                    let _ = write!(out, "{pad}{} = ", FVARS[*v]);
                    Self::fexpr(out, e);
                    out.push_str(";\n");
                }
                Stmt::LocalExchange(v, k) => {
                    let v = VARS[*v];
                    let _ = writeln!(
                        out,
                        "{pad}lds[lid] = {v};\n{pad}barrier(CLK_LOCAL_MEM_FENCE);\n{pad}{v} ^= lds[(lid ^ {k}u) & 63u];\n{pad}barrier(CLK_LOCAL_MEM_FENCE);"
                    );
                }
                Stmt::LocalAtomic(w, v) => {
                    let _ = writeln!(out, "{pad}{};", Self::shared_atomic("lsum", *w, *v));
                }
                Stmt::GlobalAtomic(w, v) => {
                    let _ = writeln!(out, "{pad}{};", Self::shared_atomic("atom", *w, *v));
                }
                Stmt::OwnAtomic(op, v, w) => {
                    let op = OWN_OPS[*op];
                    let own = format!("&out[{} * i + {}u]", self.outs(), self.outs() - 1);
                    let call = if matches!(op, "atomic_inc" | "atomic_dec") {
                        format!("{op}({own})")
                    } else {
                        format!("{op}({own}, {})", VARS[*w])
                    };
                    let _ = writeln!(out, "{pad}{} ^= {call};", VARS[*v]);
                }
                Stmt::PrivateStore {
                    bytes,
                    index,
                    value,
                } => {
                    let (array, cast) = if *bytes {
                        ("pb", "(uchar)")
                    } else {
                        ("pa", "")
                    };
                    let _ = writeln!(
                        out,
                        "{pad}{array}[{} & {}u] = {cast}{};",
                        VARS[*index],
                        PRIVATE_WORDS - 1,
                        VARS[*value]
                    );
                }
                Stmt::PrivateLoad { bytes, dst, index } => {
                    let (array, op) = if *bytes { ("pb", "^=") } else { ("pa", "+=") };
                    let _ = writeln!(
                        out,
                        "{pad}{} {op} {array}[{} & {}u];",
                        VARS[*dst],
                        VARS[*index],
                        PRIVATE_WORDS - 1
                    );
                }
                Stmt::CountedBreak(n, cond, body) => {
                    let mut head = String::from("if (");
                    Self::cond(&mut head, cond);
                    head.push_str(") break;");
                    self.counted_for(out, &format!("{n}u"), &head, body, indent, loops, false);
                }
                Stmt::ArgLoop(k, body) => {
                    self.counted_for(out, ARG_TRIPS[*k], "", body, indent, loops, marks);
                }
                Stmt::UniformLoop(n, body) => {
                    let head = format!("PWS_LOOP_BOUND({n});");
                    self.counted_for(out, &format!("{n}u"), &head, body, indent, loops, marks);
                }
            }
        }
    }

    /// `for (unsigned tN = 0; tN < limit; tN++) { head body }` with the next counter tN.
    #[allow(clippy::too_many_arguments)]
    fn counted_for(
        &self,
        out: &mut String,
        limit: &str,
        head: &str,
        body: &[Stmt],
        indent: usize,
        loops: &mut usize,
        marks: bool,
    ) {
        let pad = "  ".repeat(indent);
        *loops += 1;
        let t = format!("t{loops}");
        let _ = writeln!(out, "{pad}for (unsigned {t} = 0; {t} < {limit}; {t}++) {{");
        if !head.is_empty() {
            let _ = writeln!(out, "{pad}  {head}");
        }
        self.block(out, body, indent + 1, loops, marks);
        let _ = writeln!(out, "{pad}}}");
    }

    /// `SHARED_OPS[word](&array[word], v)`: one operation per word.
    fn shared_atomic(array: &str, word: usize, v: usize) -> String {
        match SHARED_OPS[word] {
            "atomic_inc" => format!("atomic_inc(&{array}[{word}])"),
            op => format!("{op}(&{array}[{word}], {})", VARS[v]),
        }
    }

    /// The OpenCL C source.
    pub fn source(&self) -> String {
        let fam = self.families;
        let mut out = format!(
            "__kernel void gen(__global const unsigned *in, __global unsigned *out, unsigned n{}) {{\n  unsigned lid = __builtin_amdgcn_workitem_id_x();\n  unsigned i = __builtin_amdgcn_workgroup_id_x() * 64u + lid;\n  unsigned a = in[i], b = ~a, c = i;\n",
            if fam.atomics {
                ", __global unsigned *atom"
            } else {
                ""
            }
        );
        if fam.floats {
            out.push_str("  float f = as_float(a), g = (float)c * 0.5f;\n");
        }
        if fam.local {
            // Every work-item writes the same zeros, before the barrier orders them before
            // every update.
            let _ = writeln!(
                out,
                "  __local unsigned lds[64], lsum[{SHARED_WORDS}];\n  lsum[lid & {}u] = 0u;\n  barrier(CLK_LOCAL_MEM_FENCE);",
                SHARED_WORDS - 1
            );
        }
        if fam.private {
            let _ = writeln!(
                out,
                "  unsigned pa[{PRIVATE_WORDS}];\n  uchar pb[{PRIVATE_WORDS}];\n  for (unsigned k = 0; k < {PRIVATE_WORDS}u; k++) {{\n    PWS_LOOP_BOUND({PRIVATE_WORDS});\n    pa[k] = a + k;\n    pb[k] = (uchar)(b >> (k & 7u));\n  }}"
            );
        }
        let mut loops = 0;
        match self.guard {
            Some(_) => {
                out.push_str("  if (i < n) {\n");
                self.block(&mut out, &self.body, 2, &mut loops, true);
                out.push_str("  }\n");
            }
            None => self.block(&mut out, &self.body, 1, &mut loops, true),
        }
        if fam.local {
            let _ = writeln!(
                out,
                "  barrier(CLK_LOCAL_MEM_FENCE);\n  a ^= lsum[lid & {}u];",
                SHARED_WORDS - 1
            );
        }
        if fam.private {
            let _ = writeln!(
                out,
                "  b ^= pa[c & {0}u] + pb[a & {0}u];",
                PRIVATE_WORDS - 1
            );
        }
        let k = self.outs();
        let _ = writeln!(
            out,
            "  out[{k} * i] = a;\n  out[{k} * i + 1] = b;\n  out[{k} * i + 2] = c;"
        );
        if fam.floats {
            let _ = writeln!(
                out,
                "  out[{k} * i + 3] = as_uint(f);\n  out[{k} * i + 4] = as_uint(g);"
            );
        }
        out.push_str("}\n");
        out
    }

    /// The launch manifest for the kernel file `kernel` (one workgroup of 64 per wavefront).
    pub fn manifest(&self, kernel: &str) -> String {
        let mut m = format!(
            "kernel = \"{kernel}\"\ngrid = {}\nworkgroup = 64\nargs = [\"in\", \"out\", {}{}]\ncflags = [{}]\n\n[[buffer]]\nname = \"in\"\ntype = \"u32\"\ndata = [",
            self.grid,
            self.guard.unwrap_or(self.grid),
            if self.families.atomics {
                ", \"atom\""
            } else {
                ""
            },
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
            self.outs() * self.grid
        );
        if self.families.atomics {
            let words: Vec<String> = self.atom.iter().map(u32::to_string).collect();
            let _ = write!(
                m,
                "\n[[buffer]]\nname = \"atom\"\ntype = \"u32\"\ndata = [{}]\n",
                words.join(", ")
            );
        }
        if Self::has_unannotated_loop(&self.body) {
            // For the loops without an annotation whose counter the analysis does not follow
            // (-O0 keeps it in scratch): a top-tested loop runs its header once more than its
            // body.
            let _ = write!(m, "\n[loop_bounds]\ndefault = {}\n", BREAK_TRIPS + 1);
        }
        m
    }

    fn has_unannotated_loop(block: &[Stmt]) -> bool {
        block.iter().any(|st| match st {
            Stmt::CountedBreak(..) | Stmt::ArgLoop(..) => true,
            Stmt::If { then, els, .. } => {
                Self::has_unannotated_loop(then)
                    || els.as_deref().is_some_and(Self::has_unannotated_loop)
            }
            Stmt::DivergentLoop(_, b) | Stmt::UniformLoop(_, b) => Self::has_unannotated_loop(b),
            _ => false,
        })
    }
}
