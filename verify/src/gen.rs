//! Random structured GCN3 kernels for the equivalence suites: nested divergent if/else lowered
//! the way LLVM's SILowerControlFlow lowers it (a compare into an SGPR pair,
//! `s_and_saveexec_b64`, `s_xor_b64`, `s_cbranch_execz`; the BSB's `s_or_saveexec_b64` /
//! `s_xor_b64 exec`; the join's `s_or_b64 exec`), `; pws: split` marks on some branches,
//! bounded uniform loops with `; pws: loop_bound N`, flat loads and stores, scalar loads,
//! workgroup barriers with a cross-wavefront exchange, and random input data.
//!
//! A kernel is a [`KernelSpec`] (a statement tree plus launch shape and inputs) drawn by the
//! proptest strategy [`kernel_spec`]; shrinking removes statements and flattens the tree.
//! [`KernelSpec::render`] turns it into assembly text and a launch [`Manifest`].
//!
//! Every generated kernel is race free and mode independent by construction, so the golden
//! model's memory is the same in every mode, for every S and under every schedule:
//! - each work-item writes only its own slots of `out` (`out[gid * SLOTS + j]`);
//! - the `xch` buffer is written at `xch[gid]` and read at `xch[wg_base + (lid >> k)]` only
//!   between two barriers, at uniform control flow (no enclosing divergent `if`), where EXEC
//!   holds every work-item of the wavefront, so the partner exists and has written;
//! - a scalar value written inside a divergent path is read only in the statement that wrote
//!   it (a split context's scalar registers are dropped at its merge, docs/golden.md); the
//!   condition and save pairs belong to one `if` nesting depth, loop counters to one loop
//!   nesting depth, and are dead after their region.
//!
//! Register plan (fits the `cu` preset's 32 SGPRs and 32 VGPRs): s[4:5] kernarg, s6 workgroup
//! id, s[8:9] `in`, s[10:11] `out`, s[12:13] `xch`, s14 workgroup base, s15 scalar-load
//! temporary, s[16+4d:19+4d] condition and saved EXEC of if-depth d, s28/s29 loop counters;
//! v0 work-item id, v1 global id, v5 the work-item's input x, v[6:7] and v[8:9] temporaries,
//! v10..v15 accumulators.

use std::fmt::Write;
use std::path::PathBuf;

use proptest::prelude::*;
use pws_isa::manifest::{Buffer, ElemType, KernelArg, Manifest};

/// Output slots per work-item in `out`; the epilogue stores the accumulators to the first ones.
pub const SLOTS: u32 = 8;
/// Accumulator VGPRs (v10 ..).
pub const ACCS: u8 = 6;
const ACC_BASE: u8 = 10;
/// Deepest `if` nesting (each depth owns two SGPR pairs).
pub const MAX_IF_DEPTH: usize = 3;
/// Deepest loop nesting (each depth owns one counter SGPR).
pub const MAX_LOOP_DEPTH: usize = 2;
/// Largest loop trip count.
pub const MAX_TRIPS: u32 = 3;

/// Shape limits of the generated kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GenOptions {
    /// Largest workgroup, in work-items; a workgroup's wavefronts must fit the compute unit at
    /// once for its barriers (the `cu` preset has 2 slots: 128).
    pub max_workgroup: u32,
    /// Largest number of workgroups.
    pub max_workgroups: u32,
    /// Statements per block, at most.
    pub max_statements: usize,
    /// Nesting depth of `if` regions.
    pub max_if_depth: usize,
    /// Nesting depth of loops (0: no loops).
    pub max_loop_depth: usize,
    /// Whether barriers and the `xch` exchange appear.
    pub barriers: bool,
}

impl Default for GenOptions {
    fn default() -> Self {
        GenOptions {
            max_workgroup: 128,
            max_workgroups: 2,
            max_statements: 4,
            max_if_depth: MAX_IF_DEPTH,
            max_loop_depth: MAX_LOOP_DEPTH,
            barriers: true,
        }
    }
}

/// A vector operand of an e32 `src0` (which may also be a scalar or a literal).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Src {
    Acc(u8),
    /// The work-item's input value x (v5).
    X,
    /// Work-item id in the workgroup (v0).
    Lid,
    /// Global work-item id (v1).
    Gid,
    /// An inline constant (-16..=64).
    Inline(i8),
    /// A 32-bit literal.
    Literal(u32),
    /// The workgroup base (s14), a uniform scalar.
    WgBase,
    /// The innermost loop counter (only inside a loop).
    Counter,
}

/// A VOP2 operation `dst = op(src0, vsrc1)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Subrev,
    MulU24,
    MinI,
    MaxI,
    MinU,
    MaxU,
    Lshr,
    Ashr,
    Lshl,
    And,
    Or,
    Xor,
}

impl BinOp {
    const ALL: [BinOp; 14] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Subrev,
        BinOp::MulU24,
        BinOp::MinI,
        BinOp::MaxI,
        BinOp::MinU,
        BinOp::MaxU,
        BinOp::Lshr,
        BinOp::Ashr,
        BinOp::Lshl,
        BinOp::And,
        BinOp::Or,
        BinOp::Xor,
    ];

    fn text(self) -> &'static str {
        match self {
            BinOp::Add => "v_add_u32_e32 {d}, vcc, {a}, {b}",
            BinOp::Sub => "v_sub_u32_e32 {d}, vcc, {a}, {b}",
            BinOp::Subrev => "v_subrev_u32_e32 {d}, vcc, {a}, {b}",
            BinOp::MulU24 => "v_mul_u32_u24_e32 {d}, {a}, {b}",
            BinOp::MinI => "v_min_i32_e32 {d}, {a}, {b}",
            BinOp::MaxI => "v_max_i32_e32 {d}, {a}, {b}",
            BinOp::MinU => "v_min_u32_e32 {d}, {a}, {b}",
            BinOp::MaxU => "v_max_u32_e32 {d}, {a}, {b}",
            BinOp::Lshr => "v_lshrrev_b32_e32 {d}, {a}, {b}",
            BinOp::Ashr => "v_ashrrev_i32_e32 {d}, {a}, {b}",
            BinOp::Lshl => "v_lshlrev_b32_e32 {d}, {a}, {b}",
            BinOp::And => "v_and_b32_e32 {d}, {a}, {b}",
            BinOp::Or => "v_or_b32_e32 {d}, {a}, {b}",
            BinOp::Xor => "v_xor_b32_e32 {d}, {a}, {b}",
        }
    }
}

/// A VOP3 operation on accumulators and inline constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TriOp {
    MulLo,
    MulHiU,
    MulHiI,
    BfeU,
    BfeI,
    MadU24,
}

impl TriOp {
    const ALL: [TriOp; 6] = [
        TriOp::MulLo,
        TriOp::MulHiU,
        TriOp::MulHiI,
        TriOp::BfeU,
        TriOp::BfeI,
        TriOp::MadU24,
    ];
}

/// A vector compare (signed or unsigned 32-bit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    LtI,
    LeI,
    GtI,
    GeI,
    EqI,
    NeI,
    LtU,
    LeU,
    GtU,
    GeU,
}

impl Cmp {
    const ALL: [Cmp; 10] = [
        Cmp::LtI,
        Cmp::LeI,
        Cmp::GtI,
        Cmp::GeI,
        Cmp::EqI,
        Cmp::NeI,
        Cmp::LtU,
        Cmp::LeU,
        Cmp::GtU,
        Cmp::GeU,
    ];

    fn name(self) -> &'static str {
        match self {
            Cmp::LtI => "lt_i32",
            Cmp::LeI => "le_i32",
            Cmp::GtI => "gt_i32",
            Cmp::GeI => "ge_i32",
            Cmp::EqI => "eq_i32",
            Cmp::NeI => "ne_i32",
            Cmp::LtU => "lt_u32",
            Cmp::LeU => "le_u32",
            Cmp::GtU => "gt_u32",
            Cmp::GeU => "ge_u32",
        }
    }
}

/// The lane condition of a divergent `if`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cond {
    /// `c <cmp> x` with an inline constant c.
    Data { cmp: Cmp, c: i8 },
    /// `acc <cmp> other`.
    Acc { cmp: Cmp, acc: u8, other: Src },
    /// Bit `bit` of the work-item id is set (lanes on both sides of lane 32 for bit 5).
    LaneBit { bit: u8 },
}

/// One statement of the kernel tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    /// `acc[dst] = op(a, acc[b])` (VOP2).
    Bin { op: BinOp, dst: u8, a: Src, b: u8 },
    /// `acc[dst] = op(acc[a], acc[b] or inline, inline)` (VOP3).
    Tri {
        op: TriOp,
        dst: u8,
        a: u8,
        b: u8,
        c: i8,
    },
    /// `v_not_b32`.
    Not { dst: u8, a: u8 },
    /// A carry chain: `acc[lo] += a` with carry into `acc[hi] += 0 + carry` (VCC e32).
    Carry { lo: u8, hi: u8, a: Src },
    /// `acc[dst] = (a <cmp> acc[b]) ? acc[t] : acc[f]` via VCC and `v_cndmask_b32`.
    Select {
        cmp: Cmp,
        a: Src,
        b: u8,
        dst: u8,
        t: u8,
        f: u8,
    },
    /// A 64-bit shift of the pair (acc[a], acc[b]) by `amount`, low word into acc[dst].
    Shift64 {
        kind: u8,
        a: u8,
        b: u8,
        amount: u8,
        dst: u8,
    },
    /// `acc[dst] = out[gid * SLOTS + slot]` (what this work-item stored there, or 0).
    LoadOwn { dst: u8, slot: u32, x2: bool },
    /// `acc[dst] = in[acc[idx] & (len - 1)]`.
    Gather { dst: u8, idx: u8 },
    /// `out[gid * SLOTS + slot] = acc[src]` (x2: also `acc[src + 1]` to the next slot).
    Store { slot: u32, src: u8, x2: bool },
    /// `acc[dst] ^= in[word]` through a scalar load (dwordx2: both words).
    ScalarLoad { dst: u8, word: u32, x2: bool },
    /// A divergent if/else (`els` empty: no else).
    If {
        cond: Cond,
        split: bool,
        then: Vec<Stmt>,
        els: Option<Vec<Stmt>>,
    },
    /// A uniform loop running `trips` times, annotated with `bound` >= `trips`.
    Loop {
        trips: u32,
        bound: u32,
        body: Vec<Stmt>,
    },
    /// `s_barrier` (uniform code only).
    Barrier,
    /// `xch[gid] = acc[src]; barrier; acc[dst] = xch[wg_base + (lid >> shift)]; barrier`.
    Exchange { src: u8, dst: u8, shift: u8 },
}

/// A generated launch: statement tree, shape and input data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelSpec {
    pub grid: u32,
    pub workgroup: u32,
    /// `in`: a power-of-two number of words, at least `grid`.
    pub input: Vec<i32>,
    pub body: Vec<Stmt>,
}

/// A rendered kernel: assembly text and its launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Generated {
    pub source: String,
    pub manifest: Manifest,
}

impl Generated {
    /// The launch manifest as TOML (`kernel = "<name>.s"`), to replay a case with `pws run`.
    pub fn manifest_toml(&self, kernel_file: &str) -> String {
        let m = &self.manifest;
        let mut out = format!(
            "kernel = \"{kernel_file}\"\ngrid = {}\nworkgroup = {}\nargs = [\"in\", \"out\", \"xch\"]\n",
            m.grid[0], m.workgroup[0]
        );
        for b in &m.buffers {
            let ty = match b.ty {
                ElemType::I32 => "i32",
                ElemType::U32 => "u32",
                ElemType::F32 => "f32",
            };
            let _ = write!(
                out,
                "\n[[buffer]]\nname = \"{}\"\ntype = \"{ty}\"\n",
                b.name
            );
            if b.init.iter().all(|&w| w == 0) {
                let _ = writeln!(out, "len = {}", b.init.len());
            } else {
                let values: Vec<String> = b.init.iter().map(|&w| b.ty.show(w)).collect();
                let _ = writeln!(out, "data = [{}]", values.join(", "));
            }
        }
        out
    }

    /// Writes `<name>.s` and `<name>.toml` into `dir` and returns the manifest's path.
    pub fn write_to(&self, dir: &std::path::Path, name: &str) -> std::io::Result<PathBuf> {
        let kernel = format!("{name}.s");
        std::fs::write(dir.join(&kernel), &self.source)?;
        let path = dir.join(format!("{name}.toml"));
        std::fs::write(&path, self.manifest_toml(&kernel))?;
        Ok(path)
    }
}

/// Rendering state: fresh labels, and the nesting depths that own registers.
struct Render {
    out: String,
    labels: usize,
    if_depth: usize,
    loop_depth: usize,
    in_words: u32,
}

fn acc(i: u8) -> String {
    format!("v{}", ACC_BASE + i % ACCS)
}

impl Render {
    fn line(&mut self, text: impl AsRef<str>) {
        self.out.push_str("    ");
        self.out.push_str(text.as_ref());
        self.out.push('\n');
    }

    fn src(&self, s: Src) -> String {
        match s {
            Src::Acc(i) => acc(i),
            Src::X => "v5".into(),
            Src::Lid => "v0".into(),
            Src::Gid => "v1".into(),
            Src::Inline(c) => c.to_string(),
            Src::Literal(c) => format!("{c:#x}"),
            Src::WgBase => "s14".into(),
            // Outside every loop there is no counter: it reads as 0.
            Src::Counter if self.loop_depth > 0 => format!("s{}", 27 + self.loop_depth),
            Src::Counter => "0".into(),
        }
    }

    /// `v[8:9]` = the address of `out[gid * SLOTS + slot]`.
    fn own_address(&mut self, slot: u32) {
        self.line(format!("v_mad_u32_u24 v8, v1, {}, {}", 4 * SLOTS, 4 * slot));
        self.line("v_mov_b32_e32 v9, s11");
        self.line("v_add_u32_e32 v8, vcc, s10, v8");
        self.line("v_addc_u32_e32 v9, vcc, 0, v9, vcc");
    }

    /// `v[8:9]` = base pair `s[lo:lo+1]` + 4 * `v8`.
    fn indexed_address(&mut self, lo: u8) {
        self.line("v_lshlrev_b32_e32 v8, 2, v8");
        self.line(format!("v_mov_b32_e32 v9, s{}", lo + 1));
        self.line(format!("v_add_u32_e32 v8, vcc, s{lo}, v8"));
        self.line("v_addc_u32_e32 v9, vcc, 0, v9, vcc");
    }

    fn block(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Bin { op, dst, a, b } => {
                let text = op
                    .text()
                    .replace("{d}", &acc(*dst))
                    .replace("{a}", &self.src(*a))
                    .replace("{b}", &acc(*b));
                self.line(text);
            }
            Stmt::Tri { op, dst, a, b, c } => {
                let (d, a, b) = (acc(*dst), acc(*a), acc(*b));
                self.line(match op {
                    TriOp::MulLo => format!("v_mul_lo_u32 {d}, {a}, {b}"),
                    TriOp::MulHiU => format!("v_mul_hi_u32 {d}, {a}, {b}"),
                    TriOp::MulHiI => format!("v_mul_hi_i32 {d}, {a}, {c}"),
                    TriOp::BfeU => format!("v_bfe_u32 {d}, {a}, {b}, {c}"),
                    TriOp::BfeI => format!("v_bfe_i32 {d}, {a}, {}, {b}", c.rem_euclid(32)),
                    TriOp::MadU24 => format!("v_mad_u32_u24 {d}, {a}, {c}, {b}"),
                });
            }
            Stmt::Not { dst, a } => self.line(format!("v_not_b32_e32 {}, {}", acc(*dst), acc(*a))),
            Stmt::Carry { lo, hi, a } => {
                let (l, h) = (acc(*lo), acc(*hi));
                let a = self.src(*a);
                self.line(format!("v_add_u32_e32 {l}, vcc, {a}, {l}"));
                self.line(format!("v_addc_u32_e32 {h}, vcc, 0, {h}, vcc"));
            }
            Stmt::Select {
                cmp,
                a,
                b,
                dst,
                t,
                f,
            } => {
                let a = self.src(*a);
                self.line(format!("v_cmp_{}_e32 vcc, {a}, {}", cmp.name(), acc(*b)));
                self.line(format!(
                    "v_cndmask_b32_e32 {}, {}, {}, vcc",
                    acc(*dst),
                    acc(*f),
                    acc(*t)
                ));
            }
            Stmt::Shift64 {
                kind,
                a,
                b,
                amount,
                dst,
            } => {
                let op = ["v_lshlrev_b64", "v_lshrrev_b64", "v_ashrrev_i64"][*kind as usize % 3];
                self.line(format!("v_mov_b32_e32 v6, {}", acc(*a)));
                self.line(format!("v_mov_b32_e32 v7, {}", acc(*b)));
                self.line(format!("{op} v[6:7], {}, v[6:7]", amount % 64));
                self.line(format!(
                    "v_mov_b32_e32 {}, v{}",
                    acc(*dst),
                    6 + (amount & 1)
                ));
            }
            Stmt::LoadOwn { dst, slot, x2 } => {
                self.own_address(*slot % (SLOTS - 1));
                if *x2 {
                    self.line("flat_load_dwordx2 v[6:7], v[8:9]");
                    self.line("s_waitcnt vmcnt(0)");
                    self.line(format!("v_xor_b32_e32 {0}, v6, {0}", acc(*dst)));
                    self.line(format!("v_add_u32_e32 {0}, vcc, v7, {0}", acc(*dst)));
                } else {
                    self.line(format!("flat_load_dword {}, v[8:9]", acc(*dst)));
                    self.line("s_waitcnt vmcnt(0)");
                }
            }
            Stmt::Gather { dst, idx } => {
                let mask = self.in_words - 1;
                self.line(format!("v_and_b32_e32 v8, {mask:#x}, {}", acc(*idx)));
                self.indexed_address(8);
                self.line(format!("flat_load_dword {}, v[8:9]", acc(*dst)));
                self.line("s_waitcnt vmcnt(0)");
            }
            Stmt::Store { slot, src, x2 } => {
                if *x2 {
                    self.own_address(*slot % (SLOTS - 1));
                    self.line(format!("v_mov_b32_e32 v6, {}", acc(*src)));
                    self.line(format!("v_mov_b32_e32 v7, {}", acc(src + 1)));
                    self.line("flat_store_dwordx2 v[8:9], v[6:7]");
                } else {
                    self.own_address(*slot % SLOTS);
                    self.line(format!("flat_store_dword v[8:9], {}", acc(*src)));
                }
                self.line("s_waitcnt vmcnt(0)");
            }
            Stmt::ScalarLoad { dst, word, x2 } => {
                let d = acc(*dst);
                if *x2 {
                    let word = word % (self.in_words - 1);
                    self.line(format!("s_load_dwordx2 s[30:31], s[8:9], {:#x}", 4 * word));
                    self.line("s_waitcnt lgkmcnt(0)");
                    self.line(format!("v_xor_b32_e32 {d}, s30, {d}"));
                    self.line(format!("v_add_u32_e32 {d}, vcc, s31, {d}"));
                } else {
                    let word = word % self.in_words;
                    self.line(format!("s_load_dword s15, s[8:9], {:#x}", 4 * word));
                    self.line("s_waitcnt lgkmcnt(0)");
                    self.line(format!("v_xor_b32_e32 {d}, s15, {d}"));
                }
            }
            Stmt::If {
                cond,
                split,
                then,
                els,
            } => {
                // A branch to its own fall-through has one successor, which is no if/else
                // region: an empty else is no else, and an empty then path keeps one
                // instruction (LLVM would not emit the branch at all).
                let filler = [Stmt::Bin {
                    op: BinOp::Add,
                    dst: 0,
                    a: Src::Inline(0),
                    b: 0,
                }];
                let then = if then.is_empty() { &filler[..] } else { then };
                let els = els.as_deref().filter(|e| !e.is_empty());
                self.if_else(cond, *split, then, els)
            }
            Stmt::Loop { trips, bound, body } => {
                let n = self.fresh();
                let counter = format!("s{}", 28 + self.loop_depth);
                self.line(format!("s_mov_b32 {counter}, 0"));
                self.out.push_str(&format!("LOOP{n}:\n"));
                self.line(format!("; pws: loop_bound {bound}"));
                self.line(format!("s_add_u32 {counter}, {counter}, 1"));
                self.out.push_str(&format!("LOOP{n}_BODY:\n"));
                self.loop_depth += 1;
                self.block(body);
                self.loop_depth -= 1;
                self.line(format!("s_cmp_lt_u32 {counter}, {trips}"));
                self.line(format!("s_cbranch_scc1 LOOP{n}"));
            }
            Stmt::Barrier => self.line("s_barrier"),
            Stmt::Exchange { src, dst, shift } => {
                self.line("v_mov_b32_e32 v8, v1");
                self.indexed_address(12);
                self.line(format!("flat_store_dword v[8:9], {}", acc(*src)));
                self.line("s_waitcnt vmcnt(0)");
                self.line("s_barrier");
                self.line(format!("v_lshrrev_b32_e32 v8, {}, v0", shift % 8));
                self.line("v_add_u32_e32 v8, vcc, s14, v8");
                self.indexed_address(12);
                self.line(format!("flat_load_dword {}, v[8:9]", acc(*dst)));
                self.line("s_waitcnt vmcnt(0)");
                self.line("s_barrier");
            }
        }
    }

    fn fresh(&mut self) -> usize {
        self.labels += 1;
        self.labels
    }

    fn if_else(&mut self, cond: &Cond, split: bool, then: &[Stmt], els: Option<&[Stmt]>) {
        let n = self.fresh();
        let c = 16 + 4 * self.if_depth;
        let (cond_pair, save) = (
            format!("s[{c}:{}]", c + 1),
            format!("s[{}:{}]", c + 2, c + 3),
        );
        match *cond {
            Cond::Data { cmp, c } => {
                self.line(format!("v_cmp_{}_e64 {cond_pair}, {c}, v5", cmp.name()))
            }
            Cond::Acc { cmp, acc: a, other } => {
                // e64 sources: a VGPR or an inline constant; a literal goes through v8 first.
                let other = match other {
                    Src::Literal(_) | Src::WgBase | Src::Counter => {
                        let s = self.src(other);
                        self.line(format!("v_mov_b32_e32 v8, {s}"));
                        "v8".to_string()
                    }
                    o => self.src(o),
                };
                self.line(format!(
                    "v_cmp_{}_e64 {cond_pair}, {other}, {}",
                    cmp.name(),
                    acc(a)
                ));
            }
            Cond::LaneBit { bit } => {
                self.line(format!("v_and_b32_e32 v8, {}, v0", 1u32 << (bit % 6)));
                self.line(format!("v_cmp_ne_u32_e64 {cond_pair}, 0, v8"));
            }
        }
        self.line(format!("s_and_saveexec_b64 {save}, {cond_pair}"));
        if els.is_some() {
            self.line(format!("s_xor_b64 {save}, exec, {save}"));
        }
        if split {
            self.line("; pws: split");
        }
        let after_then = if els.is_some() {
            format!("ELSE{n}")
        } else {
            format!("JOIN{n}")
        };
        self.line(format!("s_cbranch_execz {after_then}"));
        self.out.push_str(&format!("THEN{n}:\n"));
        self.if_depth += 1;
        self.block(then);
        if let Some(els) = els {
            self.out.push_str(&format!("ELSE{n}:\n"));
            self.line(format!("s_or_saveexec_b64 {save}, {save}"));
            self.line(format!("s_xor_b64 exec, exec, {save}"));
            self.line(format!("s_cbranch_execz JOIN{n}"));
            self.block(els);
        }
        self.if_depth -= 1;
        self.out.push_str(&format!("JOIN{n}:\n"));
        self.line(format!("s_or_b64 exec, exec, {save}"));
    }
}

impl KernelSpec {
    /// Words of the `in` buffer.
    pub fn in_words(&self) -> u32 {
        self.input.len() as u32
    }

    /// Assembly text (named `gen_kernel`) and the launch manifest (files `gen.s`/`gen.toml`).
    pub fn render(&self) -> Generated {
        let wg_base = format!("{:#x}", self.workgroup);
        let mut r = Render {
            out: String::from(
                "; generated by pws_verify::gen\n; ABI: s[4:5] kernarg (in, out, xch), s6 workgroup id, v0 work-item id\ngen_kernel:\n",
            ),
            labels: 0,
            if_depth: 0,
            loop_depth: 0,
            in_words: self.in_words(),
        };
        r.line("s_load_dwordx4 s[8:11], s[4:5], 0x0");
        r.line("s_load_dwordx2 s[12:13], s[4:5], 0x10");
        r.line(format!("s_mul_i32 s14, s6, {wg_base}"));
        r.line("s_waitcnt lgkmcnt(0)");
        r.line("v_add_u32_e32 v1, vcc, s14, v0");
        r.line("v_mov_b32_e32 v8, v1");
        r.indexed_address(8);
        r.line("flat_load_dword v5, v[8:9]");
        r.line("s_waitcnt vmcnt(0)");
        r.line(format!("v_mov_b32_e32 {}, v5", acc(0)));
        r.line(format!("v_mov_b32_e32 {}, v1", acc(1)));
        r.line(format!("v_mov_b32_e32 {}, v0", acc(2)));
        r.line(format!("v_xor_b32_e32 {}, 0x5a5a5a5a, v5", acc(3)));
        r.line(format!("v_mul_u32_u24_e32 {}, 3, v5", acc(4)));
        r.line(format!("v_not_b32_e32 {}, v5", acc(5)));
        r.block(&self.body);
        for i in 0..ACCS {
            r.own_address(u32::from(i));
            r.line(format!("flat_store_dword v[8:9], {}", acc(i)));
        }
        r.line("s_waitcnt vmcnt(0)");
        r.line("s_endpgm");
        let manifest = Manifest {
            path: PathBuf::from("gen.toml"),
            kernel: PathBuf::from("gen.s"),
            grid: [self.grid, 1, 1],
            workgroup: [self.workgroup, 1, 1],
            dims: 1,
            buffers: vec![
                Buffer {
                    name: "in".into(),
                    ty: ElemType::I32,
                    init: self.input.iter().map(|&v| v as u32).collect(),
                    ..Buffer::default()
                },
                Buffer {
                    name: "out".into(),
                    ty: ElemType::I32,
                    init: vec![0; (self.grid * SLOTS) as usize],
                    ..Buffer::default()
                },
                Buffer {
                    name: "xch".into(),
                    ty: ElemType::U32,
                    init: vec![0; self.grid as usize],
                    ..Buffer::default()
                },
            ],
            args: ["in", "out", "xch"]
                .into_iter()
                .map(|n| KernelArg::Buffer(n.into()))
                .collect(),
            ..Manifest::default()
        };
        Generated {
            source: r.out,
            manifest,
        }
    }

    /// Statements in the tree (for reporting sizes).
    pub fn size(&self) -> usize {
        fn count(b: &[Stmt]) -> usize {
            b.iter()
                .map(|s| {
                    1 + match s {
                        Stmt::If { then, els, .. } => count(then) + els.as_deref().map_or(0, count),
                        Stmt::Loop { body, .. } => count(body),
                        _ => 0,
                    }
                })
                .sum()
        }
        count(&self.body)
    }
}

fn acc_index() -> impl Strategy<Value = u8> {
    0..ACCS
}

fn src(in_loop: bool) -> BoxedStrategy<Src> {
    let mut choices = vec![
        acc_index().prop_map(Src::Acc).boxed(),
        Just(Src::X).boxed(),
        Just(Src::Lid).boxed(),
        Just(Src::Gid).boxed(),
        (-16i8..=64).prop_map(Src::Inline).boxed(),
        any::<u32>().prop_map(Src::Literal).boxed(),
        Just(Src::WgBase).boxed(),
    ];
    if in_loop {
        choices.push(Just(Src::Counter).boxed());
    }
    proptest::strategy::Union::new(choices).boxed()
}

fn cmp() -> impl Strategy<Value = Cmp> {
    proptest::sample::select(&Cmp::ALL[..])
}

/// Straight-line statements (no control flow, no barriers).
fn simple(in_loop: bool) -> BoxedStrategy<Stmt> {
    prop_oneof![
        (
            proptest::sample::select(&BinOp::ALL[..]),
            acc_index(),
            src(in_loop),
            acc_index()
        )
            .prop_map(|(op, dst, a, b)| Stmt::Bin { op, dst, a, b }),
        (
            proptest::sample::select(&TriOp::ALL[..]),
            acc_index(),
            acc_index(),
            acc_index(),
            -16i8..=64
        )
            .prop_map(|(op, dst, a, b, c)| Stmt::Tri { op, dst, a, b, c }),
        (acc_index(), acc_index()).prop_map(|(dst, a)| Stmt::Not { dst, a }),
        (acc_index(), acc_index(), src(in_loop)).prop_map(|(lo, hi, a)| Stmt::Carry { lo, hi, a }),
        (
            cmp(),
            src(in_loop),
            acc_index(),
            acc_index(),
            acc_index(),
            acc_index()
        )
            .prop_map(|(cmp, a, b, dst, t, f)| Stmt::Select {
                cmp,
                a,
                b,
                dst,
                t,
                f
            }),
        (0u8..3, acc_index(), acc_index(), 0u8..64, acc_index()).prop_map(
            |(kind, a, b, amount, dst)| Stmt::Shift64 {
                kind,
                a,
                b,
                amount,
                dst
            }
        ),
        (acc_index(), 0..SLOTS, any::<bool>()).prop_map(|(dst, slot, x2)| Stmt::LoadOwn {
            dst,
            slot,
            x2
        }),
        (acc_index(), acc_index()).prop_map(|(dst, idx)| Stmt::Gather { dst, idx }),
        (0..SLOTS, acc_index(), any::<bool>()).prop_map(|(slot, src, x2)| Stmt::Store {
            slot,
            src,
            x2
        }),
        (acc_index(), any::<u32>(), any::<bool>()).prop_map(|(dst, word, x2)| Stmt::ScalarLoad {
            dst,
            word,
            x2
        }),
    ]
    .boxed()
}

fn cond() -> impl Strategy<Value = Cond> {
    prop_oneof![
        (cmp(), -16i8..=64).prop_map(|(cmp, c)| Cond::Data { cmp, c }),
        (cmp(), acc_index(), src(false)).prop_map(|(cmp, acc, other)| Cond::Acc {
            cmp,
            acc,
            other
        }),
        (0u8..6).prop_map(|bit| Cond::LaneBit { bit }),
    ]
}

/// Where a block sits: how deep its regions may still nest and whether its control flow is
/// uniform (outside every divergent `if`), which barriers need.
#[derive(Clone, Copy)]
struct Place {
    ifs_left: usize,
    loops_left: usize,
    in_loop: bool,
    uniform: bool,
}

fn block(opts: GenOptions, place: Place) -> BoxedStrategy<Vec<Stmt>> {
    let mut choices: Vec<(u32, BoxedStrategy<Stmt>)> = vec![(6, simple(place.in_loop))];
    if place.ifs_left > 0 {
        let inner = Place {
            ifs_left: place.ifs_left - 1,
            uniform: false,
            ..place
        };
        choices.push((
            3,
            (
                cond(),
                any::<bool>(),
                block(opts, inner),
                proptest::option::of(block(opts, inner)),
            )
                .prop_map(|(cond, split, then, els)| Stmt::If {
                    cond,
                    split,
                    then,
                    els,
                })
                .boxed(),
        ));
    }
    if place.loops_left > 0 {
        let inner = Place {
            loops_left: place.loops_left - 1,
            in_loop: true,
            ..place
        };
        choices.push((
            1,
            (1..=MAX_TRIPS, 0u32..3, block(opts, inner))
                .prop_map(|(trips, slack, body)| Stmt::Loop {
                    trips,
                    bound: trips + slack,
                    body,
                })
                .boxed(),
        ));
    }
    if opts.barriers && place.uniform {
        choices.push((
            1,
            prop_oneof![
                Just(Stmt::Barrier),
                (acc_index(), acc_index(), 0u8..8).prop_map(|(src, dst, shift)| Stmt::Exchange {
                    src,
                    dst,
                    shift
                }),
            ]
            .boxed(),
        ));
    }
    proptest::collection::vec(
        proptest::strategy::Union::new_weighted(choices),
        0..=opts.max_statements,
    )
    .boxed()
}

/// The proptest strategy of generated launches.
pub fn kernel_spec(opts: GenOptions) -> impl Strategy<Value = KernelSpec> {
    let place = Place {
        ifs_left: opts.max_if_depth.min(MAX_IF_DEPTH),
        loops_left: opts.max_loop_depth.min(MAX_LOOP_DEPTH),
        in_loop: false,
        uniform: true,
    };
    let max_wg = opts.max_workgroup.clamp(1, 1024);
    let max_groups = opts.max_workgroups.max(1);
    let shape =
        (1..=max_wg, 1..=max_groups, 0u32..64).prop_flat_map(|(workgroup, groups, short)| {
            // The last workgroup may be partial, but keeps at least one work-item.
            let grid = workgroup * groups - short.min(workgroup - 1);
            let words = grid.next_power_of_two().max(64);
            (
                Just(grid),
                Just(workgroup),
                proptest::collection::vec(prop_oneof![-100i32..100, any::<i32>()], words as usize),
            )
        });
    (shape, block(opts, place)).prop_map(|((grid, workgroup, input), body)| KernelSpec {
        grid,
        workgroup,
        input,
        body,
    })
}
