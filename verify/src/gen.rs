//! Random structured GCN3 kernels for the equivalence suites: nested divergent if/else lowered
//! the way LLVM's SILowerControlFlow lowers it (a compare into an SGPR pair,
//! `s_and_saveexec_b64`, `s_xor_b64`, `s_cbranch_execz`; the BSB's `s_or_saveexec_b64` /
//! `s_xor_b64 exec`; the join's `s_or_b64 exec`), `; pws: split` marks on some branches,
//! bounded uniform loops with `; pws: loop_bound N`, flat loads and stores, scalar loads,
//! workgroup barriers with a cross-wavefront exchange, and random input data; and, each behind
//! a knob of [`Families`], f32 arithmetic on float-valued registers and f32 data with special
//! values, the LDS (every DS width, the two-address forms, LDS atomics) and FLAT atomics.
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
//!   nesting depth, and are dead after their region;
//! - each work-item owns two 16-byte LDS slots (pages) of its workgroup's allocation and is the
//!   only one to access them, except in an LDS exchange between two barriers; the shared LDS
//!   words and the `atom` buffer's words each take one commutative read-modify-write (add,
//!   sub, min, max, and, or, xor, or inc/dec with one fixed operand), whose returned values are
//!   never used, so their final values do not depend on the order of the lanes, wavefronts or
//!   workgroups; shared LDS words are read only between two barriers (and after the last);
//! - the prologue writes every LDS byte a kernel reads before its first barrier, so nothing
//!   depends on the LDS's contents at launch (zero in the golden model, undefined on hardware);
//! - FLAT atomics with any operation, returned values included, address only the work-item's
//!   own `out` slots.
//!
//! Register plan (fits the `cu` preset's 32 SGPRs and 32 VGPRs): s[0:1] `fin`, s[2:3] `fout`
//! (the private segment buffer's registers, which the kernels do not use), s[4:5] kernarg, s6
//! workgroup id, s[8:9] `in`, s[10:11] `out`, s[12:13] `xch`, s14 workgroup base, s15
//! scalar-load temporary, s[16+4d:19+4d] condition and saved EXEC of if-depth d, s28/s29 loop
//! counters, s[30:31] temporaries; v0 work-item id, v1 global id, v2 the work-item's float
//! input, v3 the LDS address, v4 and v[6:9] temporaries, v5 the work-item's input x, v10..v15
//! accumulators, v16..v21 float accumulators, v[22:23] the `atom` buffer's address.

use std::fmt::Write;
use std::path::PathBuf;

use proptest::prelude::*;
use pws_isa::manifest::{Buffer, ElemType, KernelArg, Manifest};
use pws_isa::{DstUnused, Format, Opcode, SdwaSel, MOD_CLAMP, MOD_INPUT, MOD_OMOD};

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
/// Float accumulator VGPRs (v16 ..), stored to `fout` by the epilogue.
pub const FACCS: u8 = 6;
const FACC_BASE: u8 = 16;
/// Shared LDS words per workgroup, after the work-items' pages.
pub const LDS_SHARED: u32 = 16;
/// Words of the `atom` buffer all work-items of all workgroups share.
pub const ATOM_WORDS: u32 = 16;

/// Instruction families beyond the integer core, each a knob, so that a suite enables what
/// its executor runs (the compute-unit RTL does not run everything the golden model runs yet:
/// `pws_isa::subset::golden_only`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Families {
    /// f32 VOP1/VOP2/VOP3/VOPC arithmetic with abs/neg/clamp/omod on float accumulators, f32
    /// compares as branch and select conditions, conversions both ways, the division sequence,
    /// inline float constants and literals, and the `fin`/`fout` buffers with special values.
    pub floats: bool,
    /// `v_exp/log/sin/cos_f32` (with `floats` only).
    pub transcendentals: bool,
    /// `v_madmk/madak_f32` (with `floats` only).
    pub literal_mads: bool,
    /// A group segment, M0 as its limit, `ds_*` reads and writes of every width, the
    /// two-address forms, LDS atomics with and without return, and LDS exchanges.
    pub lds: bool,
    /// FLAT atomics with and without `glc` on the work-item's own slots and on the shared
    /// `atom` buffer.
    pub atomics: bool,
    /// SDWA forms of integer VOP1/VOP2 operations and of `v_cvt_f32_ubyte0` (every source
    /// and destination select, `sext`, every `dst_unused`), and the 16-bit integer operations
    /// in their VOP2, VOP3 and SDWA encodings, as clang emits for byte and short code.
    pub sdwa: bool,
}

/// One knob of [`Families`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Floats,
    Transcendentals,
    LiteralMads,
    Lds,
    Atomics,
    Sdwa,
}

impl Family {
    pub const ALL: [Family; 6] = [
        Family::Floats,
        Family::Transcendentals,
        Family::LiteralMads,
        Family::Lds,
        Family::Atomics,
        Family::Sdwa,
    ];

    /// Every opcode the generator emits for this family and not for the integer core.
    pub fn opcodes(self) -> Vec<Opcode> {
        let names: Vec<String> = match self {
            Family::Floats => F_BIN
                .iter()
                .chain(&F_UN)
                .chain(&F_TRI)
                .chain(&TO_FLOAT)
                .chain(&TO_INT)
                .map(|s| s.to_string())
                .chain(F_CMP.iter().map(|c| format!("v_cmp_{c}_f32")))
                .chain(
                    [
                        "v_ldexp_f32",
                        "v_cmp_class_f32",
                        "v_div_scale_f32",
                        "v_div_fmas_f32",
                    ]
                    .map(String::from),
                )
                .collect(),
            Family::Transcendentals => F_TRANS.map(String::from).to_vec(),
            Family::LiteralMads => vec!["v_madmk_f32".into(), "v_madak_f32".into()],
            Family::Lds => LDS_WRITES
                .iter()
                .chain(&LDS_READS)
                .chain(&LDS_PAIRS)
                .map(|s| s.to_string())
                .chain(
                    DS_OWN
                        .iter()
                        .flat_map(|o| [o.plain, o.rtn].map(String::from)),
                )
                .chain(
                    SHARED_OPS
                        .iter()
                        .flat_map(|o| [o.ds, o.ds_rtn].map(String::from)),
                )
                .collect(),
            Family::Atomics => FLAT_OWN
                .iter()
                .map(|s| s.to_string())
                .chain(SHARED_OPS.iter().map(|o| o.flat.to_string()))
                .collect(),
            Family::Sdwa => SDWA_OPS
                .iter()
                .map(|s| s.to_string())
                .chain(HALF_OPS.iter().flat_map(|t| {
                    t.lines()
                        .map(|l| l.split(' ').next().unwrap().trim_end_matches("_e32"))
                        .map(|m| m.trim_end_matches("_e64").to_string())
                        .collect::<Vec<_>>()
                }))
                .collect(),
        };
        let mut ops: Vec<Opcode> = names
            .iter()
            .map(|n| Opcode::from_mnemonic(n).unwrap_or_else(|| panic!("{n} is no opcode")))
            .collect();
        ops.sort_by_key(|o| o.mnemonic());
        ops.dedup();
        ops
    }
}

impl Families {
    /// Every family.
    pub const ALL: Families = Families {
        floats: true,
        transcendentals: true,
        literal_mads: true,
        lds: true,
        atomics: true,
        sdwa: true,
    };

    /// The families all of whose opcodes satisfy `runs` (the transcendentals and the literal
    /// multiply-adds only with the floats).
    pub fn where_all(runs: impl Fn(Opcode) -> bool) -> Families {
        let on = |f: Family| f.opcodes().into_iter().all(&runs);
        let floats = on(Family::Floats);
        Families {
            floats,
            transcendentals: floats && on(Family::Transcendentals),
            literal_mads: floats && on(Family::LiteralMads),
            lds: on(Family::Lds),
            atomics: on(Family::Atomics),
            sdwa: on(Family::Sdwa),
        }
    }

    pub fn has(self, f: Family) -> bool {
        match f {
            Family::Floats => self.floats,
            Family::Transcendentals => self.floats && self.transcendentals,
            Family::LiteralMads => self.floats && self.literal_mads,
            Family::Lds => self.lds,
            Family::Atomics => self.atomics,
            Family::Sdwa => self.sdwa,
        }
    }
}

/// The operations of [`Stmt::Sdwa`] (VOP1 first: one source).
const SDWA_OPS: [&str; 20] = [
    "v_mov_b32",
    "v_not_b32",
    "v_cvt_f32_ubyte0",
    "v_or_b32",
    "v_and_b32",
    "v_xor_b32",
    "v_lshlrev_b32",
    "v_lshrrev_b32",
    "v_ashrrev_i32",
    "v_add_u32",
    "v_sub_u32",
    "v_max_i32",
    "v_mul_u32_u24",
    "v_add_u16",
    "v_sub_u16",
    "v_mul_lo_u16",
    "v_max_u16",
    "v_min_i16",
    "v_lshrrev_b16",
    "v_ashrrev_i16",
];

/// The 16-bit integer statements ([`Stmt::Half`]) in their VOP2 and VOP3 encodings: `{d}`
/// the destination, `{a}` `{b}` `{c}` accumulators (`{a}` may be an inline constant); a
/// compare selects between its operands.
const HALF_OPS: [&str; 18] = [
    "v_add_u16_e32 {d}, {a}, {b}",
    "v_add_u16_e64 {d}, {a}, {b} clamp",
    "v_sub_u16_e64 {d}, {a}, {b} clamp",
    "v_sub_u16_e32 {d}, {a}, {b}",
    "v_subrev_u16_e64 {d}, {a}, {b}",
    "v_mul_lo_u16_e32 {d}, {a}, {b}",
    "v_lshlrev_b16_e32 {d}, {a}, {b}",
    "v_lshrrev_b16_e32 {d}, {a}, {b}",
    "v_ashrrev_i16_e64 {d}, {a}, {b}",
    "v_max_u16_e32 {d}, {a}, {b}",
    "v_max_i16_e32 {d}, {a}, {b}",
    "v_min_u16_e64 {d}, {a}, {b}",
    "v_min_i16_e32 {d}, {a}, {b}",
    "v_mad_u16 {d}, {a}, {b}, {c}",
    "v_mad_i16 {d}, {a}, {b}, {c}",
    "v_cmp_lt_i16_e32 vcc, {a}, {b}\nv_cndmask_b32_e32 {d}, {c}, {b}, vcc",
    "v_cmp_ge_u16_e64 vcc, {a}, {b}\nv_cndmask_b32_e32 {d}, {b}, {c}, vcc",
    "v_cmp_ne_i16_e32 vcc, {a}, {b}\nv_cndmask_b32_e32 {d}, {c}, {b}, vcc",
];

const F_BIN: [&str; 7] = [
    "v_add_f32",
    "v_sub_f32",
    "v_subrev_f32",
    "v_mul_f32",
    "v_min_f32",
    "v_max_f32",
    "v_mac_f32",
];
const F_UN: [&str; 10] = [
    "v_floor_f32",
    "v_ceil_f32",
    "v_trunc_f32",
    "v_rndne_f32",
    "v_fract_f32",
    "v_rcp_f32",
    "v_rcp_iflag_f32",
    "v_sqrt_f32",
    "v_rsq_f32",
    "v_frexp_mant_f32",
];
const F_TRANS: [&str; 4] = ["v_exp_f32", "v_log_f32", "v_sin_f32", "v_cos_f32"];
const F_TRI: [&str; 6] = [
    "v_mad_f32",
    "v_fma_f32",
    "v_min3_f32",
    "v_max3_f32",
    "v_med3_f32",
    "v_div_fixup_f32",
];
const TO_FLOAT: [&str; 6] = [
    "v_cvt_f32_i32",
    "v_cvt_f32_u32",
    "v_cvt_f32_ubyte0",
    "v_cvt_f32_ubyte1",
    "v_cvt_f32_ubyte2",
    "v_cvt_f32_ubyte3",
];
const TO_INT: [&str; 5] = [
    "v_cvt_i32_f32",
    "v_cvt_u32_f32",
    "v_cvt_rpi_i32_f32",
    "v_cvt_flr_i32_f32",
    "v_frexp_exp_i32_f32",
];
const F_CMP: [&str; 16] = [
    "f", "lt", "eq", "le", "gt", "lg", "ge", "o", "u", "nge", "nlg", "ngt", "nle", "neq", "nlt",
    "tru",
];
/// The inline constants an f32 source may name: the float ones and some integers, which read
/// as denormals (1, 64) or a NaN (-1).
const F_INLINE: [&str; 13] = [
    "0",
    "0.5",
    "-0.5",
    "1.0",
    "-1.0",
    "2.0",
    "-2.0",
    "4.0",
    "-4.0",
    "0.15915494",
    "1",
    "64",
    "-1",
];
/// f32 bit patterns the data and literals draw from: signed zeros, denormals, the normal
/// extremes, infinities, quiet and signalling NaNs with and without payload, and values
/// around the rounding and conversion edges.
const SPECIAL_F32: [u32; 24] = [
    0x0000_0000,
    0x8000_0000,
    0x0000_0001,
    0x807f_ffff,
    0x0040_0000,
    0x0080_0000,
    0x8080_0000,
    0x7f7f_ffff,
    0xff7f_ffff,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0xffc0_0000,
    0x7f80_0001,
    0x7fa0_0000,
    0xffc0_1234,
    0x3f80_0000,
    0xbf80_0000,
    0x3f00_0000,
    0x3fc0_0000,
    0xbfc0_0000,
    0x4f00_0000,
    0xcf00_0000,
    0x4f80_0000,
];
/// The widths of [`Stmt::LdsWrite`] and [`Stmt::LdsRead`].
const LDS_WRITES: [&str; 6] = [
    "ds_write_b8",
    "ds_write_b16",
    "ds_write_b32",
    "ds_write_b64",
    "ds_write_b96",
    "ds_write_b128",
];
const LDS_READS: [&str; 8] = [
    "ds_read_u8",
    "ds_read_i8",
    "ds_read_u16",
    "ds_read_i16",
    "ds_read_b32",
    "ds_read_b64",
    "ds_read_b96",
    "ds_read_b128",
];
/// The two-address forms of [`Stmt::LdsPair`].
const LDS_PAIRS: [&str; 8] = [
    "ds_read2_b32",
    "ds_read2_b64",
    "ds_read2st64_b32",
    "ds_read2st64_b64",
    "ds_write2_b32",
    "ds_write2_b64",
    "ds_write2st64_b32",
    "ds_write2st64_b64",
];

/// An LDS atomic on the work-item's own slot: any operation, its two forms.
struct DsOwn {
    plain: &'static str,
    rtn: &'static str,
    /// Takes a second data operand (mskor: the bits to set; cmpst: the new value).
    two: bool,
}

const fn own(plain: &'static str, rtn: &'static str, two: bool) -> DsOwn {
    DsOwn { plain, rtn, two }
}

/// `ds_wrxchg` has no form without return: its "plain" form returns into a dead temporary.
const DS_OWN: [DsOwn; 15] = [
    own("ds_add_u32", "ds_add_rtn_u32", false),
    own("ds_sub_u32", "ds_sub_rtn_u32", false),
    own("ds_rsub_u32", "ds_rsub_rtn_u32", false),
    own("ds_inc_u32", "ds_inc_rtn_u32", false),
    own("ds_dec_u32", "ds_dec_rtn_u32", false),
    own("ds_min_i32", "ds_min_rtn_i32", false),
    own("ds_max_i32", "ds_max_rtn_i32", false),
    own("ds_min_u32", "ds_min_rtn_u32", false),
    own("ds_max_u32", "ds_max_rtn_u32", false),
    own("ds_and_b32", "ds_and_rtn_b32", false),
    own("ds_or_b32", "ds_or_rtn_b32", false),
    own("ds_xor_b32", "ds_xor_rtn_b32", false),
    own("ds_mskor_b32", "ds_mskor_rtn_b32", true),
    own("ds_cmpst_b32", "ds_cmpst_rtn_b32", true),
    own("ds_wrxchg_rtn_b32", "ds_wrxchg_rtn_b32", false),
];

/// FLAT atomics on the work-item's own `out` slots (cmpswap takes a data pair).
const FLAT_OWN: [&str; 13] = [
    "flat_atomic_swap",
    "flat_atomic_cmpswap",
    "flat_atomic_add",
    "flat_atomic_sub",
    "flat_atomic_smin",
    "flat_atomic_umin",
    "flat_atomic_smax",
    "flat_atomic_umax",
    "flat_atomic_and",
    "flat_atomic_or",
    "flat_atomic_xor",
    "flat_atomic_inc",
    "flat_atomic_dec",
];

/// The operation of a shared word (LDS word k or `atom[k]` takes `SHARED_OPS[k % len]`):
/// commutative, so that the word's final value does not depend on the order of its updates;
/// inc and dec commute with themselves only for one operand, `fixed`.
struct SharedOp {
    ds: &'static str,
    ds_rtn: &'static str,
    flat: &'static str,
    fixed: Option<u32>,
}

const fn shared(ds: &'static str, ds_rtn: &'static str, flat: &'static str) -> SharedOp {
    SharedOp {
        ds,
        ds_rtn,
        flat,
        fixed: None,
    }
}

const SHARED_OPS: [SharedOp; 11] = [
    shared("ds_add_u32", "ds_add_rtn_u32", "flat_atomic_add"),
    shared("ds_sub_u32", "ds_sub_rtn_u32", "flat_atomic_sub"),
    shared("ds_min_i32", "ds_min_rtn_i32", "flat_atomic_smin"),
    shared("ds_max_i32", "ds_max_rtn_i32", "flat_atomic_smax"),
    shared("ds_min_u32", "ds_min_rtn_u32", "flat_atomic_umin"),
    shared("ds_max_u32", "ds_max_rtn_u32", "flat_atomic_umax"),
    shared("ds_and_b32", "ds_and_rtn_b32", "flat_atomic_and"),
    shared("ds_or_b32", "ds_or_rtn_b32", "flat_atomic_or"),
    shared("ds_xor_b32", "ds_xor_rtn_b32", "flat_atomic_xor"),
    SharedOp {
        ds: "ds_inc_u32",
        ds_rtn: "ds_inc_rtn_u32",
        flat: "flat_atomic_inc",
        fixed: Some(9),
    },
    SharedOp {
        ds: "ds_dec_u32",
        ds_rtn: "ds_dec_rtn_u32",
        flat: "flat_atomic_dec",
        fixed: Some(13),
    },
];

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
    /// Whether barriers and the `xch` exchange appear (and the LDS exchanges and the reads of
    /// shared LDS words; an LDS kernel always passes the barrier after its prologue).
    pub barriers: bool,
    /// The instruction families beyond the integer core.
    pub families: Families,
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
            families: Families::default(),
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

/// A VOP2 operation `dst = op(src0, vsrc1)` (the saturating ones in their VOP3 form, with
/// `clamp`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Subrev,
    AddSat,
    SubSat,
    SubrevSat,
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
    const ALL: [BinOp; 17] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Subrev,
        BinOp::AddSat,
        BinOp::SubSat,
        BinOp::SubrevSat,
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
            BinOp::AddSat => "v_add_u32_e64 {d}, vcc, {a}, {b} clamp",
            BinOp::SubSat => "v_sub_u32_e64 {d}, vcc, {a}, {b} clamp",
            BinOp::SubrevSat => "v_subrev_u32_e64 {d}, vcc, {a}, {b} clamp",
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
    /// `v_perm_b32` with selector bytes 0..15 (every kind) taken from an accumulator.
    Perm,
}

impl TriOp {
    const ALL: [TriOp; 7] = [
        TriOp::MulLo,
        TriOp::MulHiU,
        TriOp::MulHiI,
        TriOp::BfeU,
        TriOp::BfeI,
        TriOp::MadU24,
        TriOp::Perm,
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

/// An f32 source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FSrc {
    /// A float accumulator.
    F(u8),
    /// The work-item's float input (v2).
    X,
    /// An integer accumulator's bits.
    Bits(u8),
    /// `F_INLINE[i]`.
    Inline(u8),
    /// A 32-bit literal (through a temporary VGPR in VOP3, which takes none).
    Literal(u32),
}

/// VOP3 modifiers of an f32 instruction, applied where the opcode takes them: `neg`/`abs`
/// (bit i: source i) on VGPR sources only, so that an inline constant stays one constant
/// (`-1.0` is not `-(1.0)`); `omod` 1..=3 is `mul:2`, `mul:4`, `div:2`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FMods {
    pub neg: u8,
    pub abs: u8,
    pub clamp: bool,
    pub omod: u8,
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
    /// `v_cmp_<F_CMP[cmp]>_f32_e64 a, facc[b]` with modifiers.
    Float {
        cmp: u8,
        a: FSrc,
        b: u8,
        mods: FMods,
    },
    /// `v_cmp_class_f32 facc[a], mask` (mask bits: docs/float.md).
    Class { a: u8, mask: u16 },
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
    /// `acc[dst] = HALF_OPS[op](a, acc[b], acc[c])`, `a` an accumulator or (`a >= ACCS`) the
    /// inline constant `a - ACCS - 16`.
    Half {
        op: u8,
        dst: u8,
        a: u8,
        b: u8,
        c: u8,
    },
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
    /// `facc[dst] = op(a)`, VOP1 (`mods`: VOP3).
    FUn {
        op: &'static str,
        dst: u8,
        a: FSrc,
        mods: Option<FMods>,
    },
    /// `facc[dst] = op(a, facc[b])`, VOP2 (`mods`: VOP3).
    FBin {
        op: &'static str,
        dst: u8,
        a: FSrc,
        b: u8,
        mods: Option<FMods>,
    },
    /// `facc[dst] = op(a, b, c)`, VOP3.
    FTri {
        op: &'static str,
        dst: u8,
        a: FSrc,
        b: FSrc,
        c: FSrc,
        mods: FMods,
    },
    /// `facc[dst] = a * 2^acc[exp]` (`v_ldexp_f32`).
    Ldexp {
        dst: u8,
        a: FSrc,
        exp: u8,
        mods: FMods,
    },
    /// `facc[dst] = op(acc[a])` (integer to float).
    ToFloat {
        op: &'static str,
        dst: u8,
        a: u8,
        mods: Option<FMods>,
    },
    /// `acc[dst] = op(facc[a])` (float to integer).
    ToInt {
        op: &'static str,
        dst: u8,
        a: u8,
        mods: Option<FMods>,
    },
    /// `facc[dst] = (a <F_CMP[cmp]> facc[b]) ? facc[t] : facc[f]` via VCC; `sign` != 0 selects
    /// with the VOP3 sign modifiers clang folds `fabs` and negation into (bits 0/1: abs of f/t,
    /// bits 2/3: neg of f/t).
    FSelect {
        cmp: u8,
        a: FSrc,
        b: u8,
        dst: u8,
        t: u8,
        f: u8,
        sign: u8,
    },
    /// `facc[dst] = facc[n] / facc[d]`: clang's correctly rounded division sequence.
    FDiv { dst: u8, n: u8, d: u8 },
    /// `facc[dst] = fin[acc[idx] & (len - 1)]`.
    FGather { dst: u8, idx: u8 },
    /// `v_madak_f32` (`ak`: a * facc[b] + k) or `v_madmk_f32` (a * k + facc[b]).
    MadK {
        ak: bool,
        dst: u8,
        a: FSrc,
        b: u8,
        k: u32,
    },
    /// `ds_write_*` (`LDS_WRITES[width]`) of acc[src].. at byte `at` (aligned down to the
    /// width) of the work-item's LDS page `page`.
    LdsWrite {
        width: u8,
        page: u8,
        at: u8,
        src: u8,
    },
    /// `ds_read_*` (`LDS_READS[width]`) from the work-item's page into acc[dst].
    LdsRead {
        width: u8,
        page: u8,
        at: u8,
        dst: u8,
    },
    /// `ds_read2*`/`ds_write2*` on the work-item's pages: b32 or b64 elements, offsets `o0`,
    /// `o1` within a page, or (`st64`) the same element of the pages `o0 % 2` and `o1 % 2`.
    LdsPair {
        write: bool,
        b64: bool,
        st64: bool,
        page: u8,
        at: u8,
        o0: u8,
        o1: u8,
        acc: u8,
    },
    /// `DS_OWN[op]` on the dword `at / 4` of the work-item's page (returning into acc[dst]).
    LdsAtomic {
        op: u8,
        rtn: bool,
        page: u8,
        at: u8,
        src: u8,
        dst: u8,
    },
    /// The shared LDS word's operation with acc[src] (a return goes to a dead temporary).
    LdsShared { word: u8, rtn: bool, src: u8 },
    /// LDS page 0 dword 0 = acc[src]; barrier; acc[dst] ^= that dword of work-item
    /// `lid >> shift`; barrier.
    LdsExchange { src: u8, dst: u8, shift: u8 },
    /// Barrier; acc[dst] ^= the shared LDS word; barrier.
    LdsSharedRead { word: u8, dst: u8 },
    /// `FLAT_OWN[op]` on `out[gid * SLOTS + slot]` with acc[src] (`glc`: old value to acc[dst]).
    FlatAtomic {
        op: u8,
        glc: bool,
        slot: u32,
        src: u8,
        dst: u8,
    },
    /// The shared `atom` word's operation with acc[src] (a return goes to a dead temporary).
    FlatShared { word: u8, glc: bool, src: u8 },
    /// `acc[dst] = SDWA_OPS[op](acc[a], acc[b])` in the SDWA encoding: the selects are
    /// `SdwaSel::ALL` indices, `unused` a `DstUnused::ALL` index, bit i of `sext` sign-extends
    /// source i.
    Sdwa {
        op: u8,
        dst: u8,
        a: u8,
        b: u8,
        src0_sel: u8,
        src1_sel: u8,
        dst_sel: u8,
        unused: u8,
        sext: u8,
    },
}

/// A generated launch: statement tree, shape and input data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelSpec {
    pub grid: u32,
    pub workgroup: u32,
    /// `in`: a power-of-two number of words, at least `grid`.
    pub input: Vec<i32>,
    pub body: Vec<Stmt>,
    /// The families the body may use, which decide the prologue, epilogue and buffers.
    pub families: Families,
    /// `fin` (with floats): f32 words, as many as `in`.
    pub finput: Vec<u32>,
    /// The shared LDS words' values after the prologue (with the LDS).
    pub lds_init: Vec<u32>,
    /// M0 = the allocation's size instead of -1 (with the LDS).
    pub m0_exact: bool,
    /// `atom` (with atomics).
    pub atom_init: Vec<u32>,
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
        let args: Vec<String> = m
            .args
            .iter()
            .map(|a| match a {
                KernelArg::Buffer(n) => format!("\"{n}\""),
                KernelArg::Value(v) => u32::from_le_bytes(
                    v.as_slice()
                        .try_into()
                        .expect("generated values are 32-bit words"),
                )
                .to_string(),
                KernelArg::Local(bytes) => format!("{{ local = {bytes} }}"),
            })
            .collect();
        let mut out = format!(
            "kernel = \"{kernel_file}\"\ngrid = {}\nworkgroup = {}\nargs = [{}]\n",
            m.grid[0],
            m.workgroup[0],
            args.join(", ")
        );
        for b in &m.buffers {
            let _ = write!(
                out,
                "\n[[buffer]]\nname = \"{}\"\ntype = \"{}\"\n",
                b.name, b.ty
            );
            if b.init.iter().all(|&w| w == 0) {
                let _ = writeln!(out, "len = {}", b.len);
            } else {
                let values: Vec<String> = b.values(&b.init).iter().map(|v| v.to_string()).collect();
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
    /// Bytes of one LDS page: 16 per work-item of the workgroup rounded up to whole
    /// wavefronts, so that the st64 forms' 256- and 512-byte units step whole pages.
    page: u32,
    /// Where splits go: `; pws: split` marks (None), or `split`/`merge` instructions at the
    /// marked if/else regions (`Some(false)`) or at every one (`Some(true)`).
    split_instructions: Option<bool>,
}

fn acc(i: u8) -> String {
    format!("v{}", ACC_BASE + i % ACCS)
}

fn facc(i: u8) -> String {
    format!("v{}", FACC_BASE + i % FACCS)
}

fn shared_op(word: u8) -> &'static SharedOp {
    &SHARED_OPS[word as usize % SHARED_OPS.len()]
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

    /// An f32 source as an e32 `src0` (which takes literals).
    fn fsrc(&self, s: FSrc) -> String {
        match s {
            FSrc::F(i) => facc(i),
            FSrc::X => "v2".into(),
            FSrc::Bits(i) => acc(i),
            FSrc::Inline(i) => F_INLINE[i as usize % F_INLINE.len()].into(),
            FSrc::Literal(bits) => format!("{bits:#x}"),
        }
    }

    /// A VOP3 instruction `op dst, srcs` with the modifiers `op` takes; literal sources go
    /// through v6, v7, v4 (VOP3 has no literal).
    fn vop3(&mut self, op: &str, dst: &str, srcs: &[FSrc], mods: FMods) {
        let opcode = Opcode::from_mnemonic(op).unwrap_or_else(|| panic!("{op} is no opcode"));
        let info = opcode.info().mods;
        // The second source of these is an integer, which takes no input modifier.
        let modified = if matches!(op, "v_ldexp_f32" | "v_cmp_class_f32") {
            1
        } else {
            srcs.len()
        };
        let mut text = Vec::new();
        for (i, &src) in srcs.iter().enumerate() {
            let mut t = match src {
                FSrc::Literal(bits) => {
                    let tmp = ["v6", "v7", "v4"][i];
                    self.line(format!("v_mov_b32_e32 {tmp}, {bits:#x}"));
                    tmp.to_string()
                }
                s => self.fsrc(s),
            };
            if info & MOD_INPUT != 0 && i < modified && t.starts_with('v') {
                if mods.abs >> i & 1 != 0 {
                    t = format!("|{t}|");
                }
                if mods.neg >> i & 1 != 0 {
                    t = format!("-{t}");
                }
            }
            text.push(t);
        }
        let suffix = if opcode.format() == Format::Vop3 {
            ""
        } else {
            "_e64"
        };
        let mut line = format!("{op}{suffix} {dst}, {}", text.join(", "));
        if info & MOD_CLAMP != 0 && mods.clamp {
            line.push_str(" clamp");
        }
        if info & MOD_OMOD != 0 {
            line.push_str(["", " mul:2", " mul:4", " div:2"][mods.omod as usize % 4]);
        }
        self.line(line);
    }

    /// `v3` = the byte address of the work-item's LDS slot (`16 * lid`) plus `plus`.
    fn lds_address(&mut self, plus: u32) {
        self.line("v_lshlrev_b32_e32 v3, 4, v0");
        if plus != 0 {
            self.line(format!("v_add_u32_e32 v3, vcc, {plus:#x}, v3"));
        }
    }

    fn lds_wait(&mut self) {
        self.line("s_waitcnt lgkmcnt(0)");
    }

    /// Folds `regs` into `acc[dst]` by xor and add in turn, so that every word read counts.
    fn fold(&mut self, dst: u8, regs: &[&str]) {
        let d = acc(dst);
        for (i, r) in regs.iter().enumerate() {
            if i % 2 == 0 {
                self.line(format!("v_xor_b32_e32 {d}, {r}, {d}"));
            } else {
                self.line(format!("v_add_u32_e32 {d}, vcc, {r}, {d}"));
            }
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
                    TriOp::Perm => format!(
                        "v_and_b32_e32 {d}, 0xf0f0f0f, {a}\n    v_perm_b32 {d}, {b}, {a}, {d}"
                    ),
                });
            }
            Stmt::Not { dst, a } => self.line(format!("v_not_b32_e32 {}, {}", acc(*dst), acc(*a))),
            Stmt::Half { op, dst, a, b, c } => {
                let a = if *a < ACCS {
                    acc(*a)
                } else {
                    (i32::from(*a) - i32::from(ACCS) - 16).to_string()
                };
                let text = HALF_OPS[*op as usize % HALF_OPS.len()]
                    .replace("{d}", &acc(*dst))
                    .replace("{a}", &a)
                    .replace("{b}", &acc(*b))
                    .replace("{c}", &acc(*c));
                for line in text.lines() {
                    self.line(line.to_string());
                }
            }
            Stmt::Sdwa {
                op,
                dst,
                a,
                b,
                src0_sel,
                src1_sel,
                dst_sel,
                unused,
                sext,
            } => {
                let name = SDWA_OPS[*op as usize % SDWA_OPS.len()];
                let opcode = Opcode::from_mnemonic(name).expect("an SDWA_OPS opcode");
                // The 16-bit ops' two SDWA forms outside the executable subset
                // (`pws_isa::subset`): a shift amount above bit 0 is read from bit 0, and an
                // unsigned op's bytes are zero-extended.
                let shift = name.contains("shr") || name.contains("shl");
                let src0_sel =
                    &if opcode.is_int16() && shift && ![0, 4, 6].contains(&(src0_sel % 7)) {
                        6
                    } else {
                        *src0_sel
                    };
                let sext = &if opcode.is_int16() && !opcode.is_signed16() {
                    let byte = |sel: u8| sel % 7 < 4;
                    let mut x = *sext;
                    if byte(*src0_sel) {
                        x &= !1;
                    }
                    if byte(*src1_sel) {
                        x &= !2;
                    }
                    x
                } else {
                    *sext
                };
                let sel = |i: u8| SdwaSel::ALL[i as usize % SdwaSel::ALL.len()].name();
                let src = |i: usize, r: u8| {
                    if sext >> i & 1 == 1 && !opcode.sdwa_float_src(i) {
                        format!("sext({})", acc(r))
                    } else {
                        acc(r)
                    }
                };
                let carry = if opcode.signature().sdst.is_some() {
                    ", vcc"
                } else {
                    ""
                };
                let unused = DstUnused::ALL[*unused as usize % DstUnused::ALL.len()].name();
                let mut text = format!("{name}_sdwa {}{carry}, {}", acc(*dst), src(0, *a));
                if opcode.format() == Format::Vop2 {
                    text += &format!(", {}", src(1, *b));
                }
                text += &format!(
                    " dst_sel:{} dst_unused:{unused} src0_sel:{}",
                    sel(*dst_sel),
                    sel(*src0_sel)
                );
                if opcode.format() == Format::Vop2 {
                    text += &format!(" src1_sel:{}", sel(*src1_sel));
                }
                self.line(text);
            }
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
            Stmt::FUn { op, dst, a, mods } => match mods {
                Some(m) => self.vop3(op, &facc(*dst), &[*a], *m),
                None => self.line(format!("{op}_e32 {}, {}", facc(*dst), self.fsrc(*a))),
            },
            Stmt::FBin {
                op,
                dst,
                a,
                b,
                mods,
            } => match mods {
                Some(m) => self.vop3(op, &facc(*dst), &[*a, FSrc::F(*b)], *m),
                None => self.line(format!(
                    "{op}_e32 {}, {}, {}",
                    facc(*dst),
                    self.fsrc(*a),
                    facc(*b)
                )),
            },
            Stmt::FTri {
                op,
                dst,
                a,
                b,
                c,
                mods,
            } => self.vop3(op, &facc(*dst), &[*a, *b, *c], *mods),
            Stmt::Ldexp { dst, a, exp, mods } => {
                self.vop3("v_ldexp_f32", &facc(*dst), &[*a, FSrc::Bits(*exp)], *mods)
            }
            Stmt::ToFloat { op, dst, a, mods } => match mods {
                Some(m) => self.vop3(op, &facc(*dst), &[FSrc::Bits(*a)], *m),
                None => self.line(format!("{op}_e32 {}, {}", facc(*dst), acc(*a))),
            },
            Stmt::ToInt { op, dst, a, mods } => match mods {
                Some(m) => self.vop3(op, &acc(*dst), &[FSrc::F(*a)], *m),
                None => self.line(format!("{op}_e32 {}, {}", acc(*dst), facc(*a))),
            },
            Stmt::FSelect {
                cmp,
                a,
                b,
                dst,
                t,
                f,
                sign,
            } => {
                let c = F_CMP[*cmp as usize % F_CMP.len()];
                let a = self.fsrc(*a);
                self.line(format!("v_cmp_{c}_f32_e32 vcc, {a}, {}", facc(*b)));
                if *sign == 0 {
                    self.line(format!(
                        "v_cndmask_b32_e32 {}, {}, {}, vcc",
                        facc(*dst),
                        facc(*f),
                        facc(*t)
                    ));
                } else {
                    let signed = |i: u8, v: String| {
                        let v = if sign >> i & 1 != 0 {
                            format!("|{v}|")
                        } else {
                            v
                        };
                        if sign >> (i + 2) & 1 != 0 {
                            format!("-{v}")
                        } else {
                            v
                        }
                    };
                    self.line(format!(
                        "v_cndmask_b32_e64 {}, {}, {}, vcc",
                        facc(*dst),
                        signed(0, facc(*f)),
                        signed(1, facc(*t))
                    ));
                }
            }
            Stmt::FDiv { dst, n, d } => {
                // clang-14's sequence for a correctly rounded `n / d` (docs/float.md) without
                // its two MODE writes, which pws executes as no-ops and does not assemble yet.
                let (n, d) = (facc(*n), facc(*d));
                self.line(format!("v_div_scale_f32 v6, s[30:31], {d}, {d}, {n}"));
                self.line(format!("v_div_scale_f32 v7, vcc, {n}, {d}, {n}"));
                self.line("v_rcp_f32_e32 v8, v6");
                self.line("v_fma_f32 v9, -v6, v8, 1.0");
                self.line("v_fma_f32 v8, v9, v8, v8");
                self.line("v_mul_f32_e32 v9, v7, v8");
                self.line("v_fma_f32 v4, -v6, v9, v7");
                self.line("v_fma_f32 v9, v4, v8, v9");
                self.line("v_fma_f32 v6, -v6, v9, v7");
                self.line("v_div_fmas_f32 v6, v6, v8, v9");
                self.line(format!("v_div_fixup_f32 {}, v6, {d}, {n}", facc(*dst)));
            }
            Stmt::FGather { dst, idx } => {
                let mask = self.in_words - 1;
                self.line(format!("v_and_b32_e32 v8, {mask:#x}, {}", acc(*idx)));
                self.indexed_address(0);
                self.line(format!("flat_load_dword {}, v[8:9]", facc(*dst)));
                self.line("s_waitcnt vmcnt(0)");
            }
            Stmt::MadK { ak, dst, a, b, k } => {
                let op = if *ak { "v_madak_f32" } else { "v_madmk_f32" };
                let (d, a, b) = (facc(*dst), self.fsrc(*a), facc(*b));
                // src0 of the two-literal forms is no literal: one literal per instruction.
                let a = if a.starts_with("0x") {
                    self.line(format!("v_mov_b32_e32 v6, {a}"));
                    "v6".to_string()
                } else {
                    a
                };
                if *ak {
                    self.line(format!("{op} {d}, {a}, {b}, {k:#x}"));
                } else {
                    self.line(format!("{op} {d}, {a}, {k:#x}, {b}"));
                }
            }
            Stmt::LdsWrite {
                width,
                page,
                at,
                src,
            } => {
                let w = *width as usize % LDS_WRITES.len();
                let (byte, data) = match w {
                    0 => (u32::from(*at % 16), acc(*src)),
                    1 => (u32::from(*at % 16 & !1), acc(*src)),
                    2 => (u32::from(*at % 16 & !3), acc(*src)),
                    _ => {
                        let n = w - 1;
                        for i in 0..n {
                            self.line(format!("v_mov_b32_e32 v{}, {}", 6 + i, acc(src + i as u8)));
                        }
                        let byte = if n == 2 { u32::from(*at % 16 & 8) } else { 0 };
                        (byte, format!("v[6:{}]", 5 + n))
                    }
                };
                let offset = u32::from(*page % 2) * self.page + byte;
                self.lds_address(0);
                self.line(format!("{} v3, {data} offset:{offset}", LDS_WRITES[w]));
                self.lds_wait();
            }
            Stmt::LdsRead {
                width,
                page,
                at,
                dst,
            } => {
                let w = *width as usize % LDS_READS.len();
                let byte = match w {
                    0 | 1 => u32::from(*at % 16),
                    2 | 3 => u32::from(*at % 16 & !1),
                    4 => u32::from(*at % 16 & !3),
                    5 => u32::from(*at % 16 & 8),
                    _ => 0,
                };
                let offset = u32::from(*page % 2) * self.page + byte;
                self.lds_address(0);
                if w <= 4 {
                    self.line(format!(
                        "{} {}, v3 offset:{offset}",
                        LDS_READS[w],
                        acc(*dst)
                    ));
                    self.lds_wait();
                } else {
                    let n = w - 3;
                    self.line(format!(
                        "{} v[6:{}], v3 offset:{offset}",
                        LDS_READS[w],
                        5 + n
                    ));
                    self.lds_wait();
                    self.fold(*dst, &["v6", "v7", "v8", "v9"][..n]);
                }
            }
            Stmt::LdsPair {
                write,
                b64,
                st64,
                page,
                at,
                o0,
                o1,
                acc: a,
            } => {
                // Elements per page (st64: pages) the two offsets choose from.
                let (elements, unit) = match (st64, b64) {
                    (false, false) => (4, 1),
                    (false, true) => (2, 1),
                    (true, false) => (2, self.page / 256),
                    (true, true) => (2, self.page / 512),
                };
                let first = u32::from(*o0) % elements;
                // Two writes to one address would leave the order of the two to the hardware.
                let second = if *write {
                    (first + 1 + u32::from(*o1) % (elements - 1)) % elements
                } else {
                    u32::from(*o1) % elements
                };
                let base = match (st64, b64) {
                    (false, _) => u32::from(*page % 2) * self.page,
                    (true, false) => u32::from(*at % 16 & !3),
                    (true, true) => u32::from(*at % 16 & 8),
                };
                let suffix = if *b64 { "b64" } else { "b32" };
                let form = if *st64 { "2st64" } else { "2" };
                let offsets = format!("offset0:{} offset1:{}", first * unit, second * unit);
                if *write {
                    let data = if *b64 {
                        for i in 0..4u8 {
                            self.line(format!("v_mov_b32_e32 v{}, {}", 6 + i, acc(a + i)));
                        }
                        "v[6:7], v[8:9]".to_string()
                    } else {
                        format!("{}, {}", acc(*a), acc(a + 1))
                    };
                    self.lds_address(base);
                    self.line(format!("ds_write{form}_{suffix} v3, {data} {offsets}"));
                    self.lds_wait();
                } else {
                    self.lds_address(base);
                    let n = if *b64 { 4 } else { 2 };
                    self.line(format!(
                        "ds_read{form}_{suffix} v[6:{}], v3 {offsets}",
                        5 + n
                    ));
                    self.lds_wait();
                    self.fold(*a, &["v6", "v7", "v8", "v9"][..n]);
                }
            }
            Stmt::LdsAtomic {
                op,
                rtn,
                page,
                at,
                src,
                dst,
            } => {
                let o = &DS_OWN[*op as usize % DS_OWN.len()];
                let offset = u32::from(*page % 2) * self.page + u32::from(*at % 16 & !3);
                let data = if o.two {
                    format!("{}, {}", acc(*src), acc(src + 1))
                } else {
                    acc(*src)
                };
                self.lds_address(0);
                if *rtn {
                    self.line(format!(
                        "{} {}, v3, {data} offset:{offset}",
                        o.rtn,
                        acc(*dst)
                    ));
                } else if o.plain == o.rtn {
                    self.line(format!("{} v6, v3, {data} offset:{offset}", o.rtn));
                } else {
                    self.line(format!("{} v3, {data} offset:{offset}", o.plain));
                }
                self.lds_wait();
            }
            Stmt::LdsShared { word, rtn, src } => {
                let o = shared_op(*word);
                let offset = 2 * self.page + 4 * (u32::from(*word) % LDS_SHARED);
                let data = match o.fixed {
                    Some(k) => {
                        self.line(format!("v_mov_b32_e32 v7, {k}"));
                        "v7".to_string()
                    }
                    None => acc(*src),
                };
                self.line("v_mov_b32_e32 v3, 0");
                if *rtn {
                    self.line(format!("{} v6, v3, {data} offset:{offset}", o.ds_rtn));
                } else {
                    self.line(format!("{} v3, {data} offset:{offset}", o.ds));
                }
                self.lds_wait();
            }
            Stmt::LdsExchange { src, dst, shift } => {
                self.lds_address(0);
                self.line(format!("ds_write_b32 v3, {}", acc(*src)));
                self.lds_wait();
                self.line("s_barrier");
                self.line(format!("v_lshrrev_b32_e32 v3, {}, v0", shift % 8));
                self.line("v_lshlrev_b32_e32 v3, 4, v3");
                self.line("ds_read_b32 v6, v3");
                self.lds_wait();
                self.fold(*dst, &["v6"]);
                self.line("s_barrier");
            }
            Stmt::LdsSharedRead { word, dst } => {
                let offset = 2 * self.page + 4 * (u32::from(*word) % LDS_SHARED);
                self.line("s_barrier");
                self.line("v_mov_b32_e32 v3, 0");
                self.line(format!("ds_read_b32 v6, v3 offset:{offset}"));
                self.lds_wait();
                self.fold(*dst, &["v6"]);
                self.line("s_barrier");
            }
            Stmt::FlatAtomic {
                op,
                glc,
                slot,
                src,
                dst,
            } => {
                let name = FLAT_OWN[*op as usize % FLAT_OWN.len()];
                self.own_address(*slot % SLOTS);
                // cmpswap's data pair is (new value, compare value).
                let data = if name == "flat_atomic_cmpswap" {
                    self.line(format!("v_mov_b32_e32 v6, {}", acc(*src)));
                    self.line(format!("v_mov_b32_e32 v7, {}", acc(src + 1)));
                    "v[6:7]".to_string()
                } else {
                    acc(*src)
                };
                if *glc {
                    self.line(format!("{name} {}, v[8:9], {data} glc", acc(*dst)));
                } else {
                    self.line(format!("{name} v[8:9], {data}"));
                }
                self.line("s_waitcnt vmcnt(0)");
            }
            Stmt::FlatShared { word, glc, src } => {
                let o = shared_op(*word);
                let data = match o.fixed {
                    Some(k) => {
                        self.line(format!("v_mov_b32_e32 v7, {k}"));
                        "v7".to_string()
                    }
                    None => acc(*src),
                };
                let offset = 4 * (u32::from(*word) % ATOM_WORDS);
                self.line(format!("v_add_u32_e32 v8, vcc, {offset}, v22"));
                self.line("v_addc_u32_e32 v9, vcc, 0, v23, vcc");
                if *glc {
                    self.line(format!("{} v6, v[8:9], {data} glc", o.flat));
                } else {
                    self.line(format!("{} v[8:9], {data}", o.flat));
                }
                self.line("s_waitcnt vmcnt(0)");
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
            Cond::Float { cmp, a, b, mods } => {
                let op = format!("v_cmp_{}_f32", F_CMP[cmp as usize % F_CMP.len()]);
                self.vop3(&op, &cond_pair, &[a, FSrc::F(b)], mods);
            }
            Cond::Class { a, mask } => {
                self.line(format!("v_mov_b32_e32 v8, {:#x}", mask & 0x3ff));
                self.line(format!("v_cmp_class_f32_e64 {cond_pair}, {}, v8", facc(a)));
            }
        }
        self.line(format!("s_and_saveexec_b64 {save}, {cond_pair}"));
        if els.is_some() {
            self.line(format!("s_xor_b64 {save}, exec, {save}"));
        }
        match self.split_instructions {
            None if split => self.line("; pws: split"),
            Some(all) if els.is_some() && (split || all) => {
                self.line(format!("split s{c}, s{}", c + 1));
            }
            _ => {}
        }
        let after_then = if els.is_some() {
            format!("ELSE{n}")
        } else {
            format!("JOIN{n}")
        };
        // LLVM drops the skip branch over a short side of vector code
        // (SIPreEmitPeephole::removeExeczBranch). Every other `if` without split instructions
        // is written that way, so that the split pass's restoration of the branch
        // (pws_host::extract::skips) is checked against the golden model.
        let plain = self.split_instructions.is_none();
        let branchless = |side: &[Stmt]| {
            plain && n % 2 == 1 && side.len() <= 12 && side.iter().all(Stmt::vector_only)
        };
        if !branchless(then) {
            self.line(format!("s_cbranch_execz {after_then}"));
        }
        self.out.push_str(&format!("THEN{n}:\n"));
        self.if_depth += 1;
        self.block(then);
        if let Some(els) = els {
            self.out.push_str(&format!("ELSE{n}:\n"));
            self.line(format!("s_or_saveexec_b64 {save}, {save}"));
            self.line(format!("s_xor_b64 exec, exec, {save}"));
            if !branchless(els) {
                self.line(format!("s_cbranch_execz JOIN{n}"));
            }
            self.block(els);
        }
        self.if_depth -= 1;
        self.out.push_str(&format!("JOIN{n}:\n"));
        self.line(format!("s_or_b64 exec, exec, {save}"));
        if matches!(self.split_instructions, Some(all) if els.is_some() && (split || all)) {
            self.line("merge");
        }
    }
}

impl Stmt {
    /// Vector code that writes no scalar register but VCC, which it reads only after writing
    /// it: with an empty EXEC it changes nothing, so LLVM may drop the branch around it.
    fn vector_only(&self) -> bool {
        matches!(
            self,
            Stmt::Bin { .. }
                | Stmt::Tri { .. }
                | Stmt::Not { .. }
                | Stmt::Half { .. }
                | Stmt::Carry { .. }
                | Stmt::Select { .. }
                | Stmt::Shift64 { .. }
                | Stmt::LoadOwn { .. }
                | Stmt::Gather { .. }
                | Stmt::Store { .. }
        )
    }
}

impl KernelSpec {
    /// Words of the `in` buffer.
    pub fn in_words(&self) -> u32 {
        self.input.len() as u32
    }

    /// Bytes of one LDS page (see [`Render::page`]).
    fn lds_page(&self) -> u32 {
        16 * 64 * self.workgroup.div_ceil(64)
    }

    /// The group segment: two pages and the shared words.
    pub fn lds_bytes(&self) -> u32 {
        2 * self.lds_page() + 4 * LDS_SHARED
    }

    /// Assembly text (named `gen_kernel`) and the launch manifest (files `gen.s`/`gen.toml`).
    pub fn render(&self) -> Generated {
        self.render_with(None)
    }

    /// The kernel with `split`/`merge` instructions where the host's split/merge pass puts
    /// them (`split` on the condition pair before the then-path's branch, `merge` after the
    /// join's EXEC restore; no split for an `if` without else): at the marked if/else regions,
    /// or with `all` at every one. The host pass refuses the golden-only instructions (it has
    /// no timing class for them), and the generator's invariants make every such split safe.
    pub fn render_split(&self, all: bool) -> Generated {
        self.render_with(Some(all))
    }

    fn render_with(&self, split_instructions: Option<bool>) -> Generated {
        let wg_base = format!("{:#x}", self.workgroup);
        let f = self.families;
        let mut names = vec!["in", "out", "xch"];
        if f.floats {
            names.extend(["fin", "fout"]);
        }
        if f.atomics {
            names.push("atom");
        }
        let mut r = Render {
            out: format!(
                "; generated by pws_verify::gen\n; ABI: s[4:5] kernarg ({}), s6 workgroup id, v0 work-item id\n{}gen_kernel:\n",
                names.join(", "),
                if f.lds { ".text\n" } else { "" }
            ),
            labels: 0,
            if_depth: 0,
            loop_depth: 0,
            in_words: self.in_words(),
            page: self.lds_page(),
            split_instructions,
        };
        r.line("s_load_dwordx4 s[8:11], s[4:5], 0x0");
        r.line("s_load_dwordx2 s[12:13], s[4:5], 0x10");
        if f.floats {
            r.line("s_load_dwordx4 s[0:3], s[4:5], 0x18");
        }
        if f.atomics {
            let at = 8 * (names.len() - 1);
            r.line(format!("s_load_dwordx2 s[30:31], s[4:5], {at:#x}"));
        }
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
        if f.floats {
            r.line("v_mov_b32_e32 v8, v1");
            r.indexed_address(0);
            r.line("flat_load_dword v2, v[8:9]");
            r.line("s_waitcnt vmcnt(0)");
            r.line(format!("v_mov_b32_e32 {}, v2", facc(0)));
            r.line(format!("v_cvt_f32_i32_e32 {}, v1", facc(1)));
            r.line(format!("v_mul_f32_e32 {}, 0.5, v2", facc(2)));
            r.line(format!("v_cvt_f32_i32_e32 {}, v5", facc(3)));
            r.line(format!("v_sub_f32_e32 {}, 1.0, v2", facc(4)));
            r.line(format!("v_mov_b32_e32 {}, v5", facc(5)));
        }
        if f.atomics {
            r.line("v_mov_b32_e32 v22, s30");
            r.line("v_mov_b32_e32 v23, s31");
        }
        if f.lds {
            let m0 = if self.m0_exact {
                format!("{:#x}", self.lds_bytes())
            } else {
                "-1".into()
            };
            r.line(format!("s_mov_b32 m0, {m0}"));
            r.lds_address(0);
            r.line(format!(
                "ds_write_b128 v3, v[{}:{}]",
                ACC_BASE,
                ACC_BASE + 3
            ));
            r.line(format!(
                "ds_write_b128 v3, v[{}:{}] offset:{}",
                ACC_BASE + 2,
                ACC_BASE + 5,
                r.page
            ));
            // Every work-item writes the same values to the shared words: the order of the
            // writes does not matter, and the barrier orders them before every update.
            r.line("v_mov_b32_e32 v3, 0");
            for (c, words) in self.lds_init.chunks(4).enumerate() {
                for (i, w) in words.iter().enumerate() {
                    r.line(format!("v_mov_b32_e32 v{}, {w:#x}", 6 + i));
                }
                r.line(format!(
                    "ds_write_b128 v3, v[6:9] offset:{}",
                    2 * r.page + 16 * c as u32
                ));
            }
            r.lds_wait();
            r.line("s_barrier");
        }
        r.block(&self.body);
        if f.lds {
            // After the last barrier no work-item updates the shared words any more.
            r.lds_wait();
            r.line("s_barrier");
            r.line("v_and_b32_e32 v3, 15, v0");
            r.line("v_lshlrev_b32_e32 v3, 2, v3");
            r.line(format!("ds_read_b32 v6, v3 offset:{}", 2 * r.page));
            r.lds_wait();
            r.fold(2, &["v6"]);
            r.lds_address(0);
            r.line("ds_read_b128 v[6:9], v3");
            r.lds_wait();
            r.fold(0, &["v6", "v7", "v8", "v9"]);
            r.line(format!("ds_read_b128 v[6:9], v3 offset:{}", r.page));
            r.lds_wait();
            r.fold(1, &["v6", "v7", "v8", "v9"]);
        }
        for i in 0..ACCS {
            r.own_address(u32::from(i));
            r.line(format!("flat_store_dword v[8:9], {}", acc(i)));
        }
        if f.floats {
            for i in 0..FACCS {
                r.line(format!(
                    "v_mad_u32_u24 v8, v1, {}, {}",
                    4 * u32::from(FACCS),
                    4 * u32::from(i)
                ));
                r.line("v_mov_b32_e32 v9, s3");
                r.line("v_add_u32_e32 v8, vcc, s2, v8");
                r.line("v_addc_u32_e32 v9, vcc, 0, v9, vcc");
                r.line(format!("flat_store_dword v[8:9], {}", facc(i)));
            }
        }
        r.line("s_waitcnt vmcnt(0)");
        r.line("s_endpgm");
        if f.lds {
            // The kernel descriptor carries the group segment; the rest is the legacy ABI's.
            let _ = write!(
                r.out,
                ".rodata\n.p2align 6\n.amdhsa_kernel gen_kernel\n\
                 .amdhsa_group_segment_fixed_size {}\n\
                 .amdhsa_user_sgpr_private_segment_buffer 1\n\
                 .amdhsa_user_sgpr_kernarg_segment_ptr 1\n\
                 .amdhsa_next_free_vgpr 32\n.amdhsa_next_free_sgpr 32\n.end_amdhsa_kernel\n",
                self.lds_bytes()
            );
        }
        let mut buffers = vec![
            Buffer::of_words(
                "in",
                ElemType::I32,
                self.input.iter().map(|&v| v as u32).collect(),
            ),
            Buffer::of_words("out", ElemType::I32, vec![0; (self.grid * SLOTS) as usize]),
            Buffer::of_words("xch", ElemType::U32, vec![0; self.grid as usize]),
        ];
        if f.floats {
            buffers.push(Buffer::of_words("fin", ElemType::F32, self.finput.clone()));
            buffers.push(Buffer::of_words(
                "fout",
                ElemType::F32,
                vec![0; (self.grid * u32::from(FACCS)) as usize],
            ));
        }
        if f.atomics {
            buffers.push(Buffer::of_words(
                "atom",
                ElemType::U32,
                self.atom_init.clone(),
            ));
        }
        let manifest = Manifest {
            path: PathBuf::from("gen.toml"),
            kernel: PathBuf::from("gen.s"),
            grid: [self.grid, 1, 1],
            workgroup: [self.workgroup, 1, 1],
            dims: 1,
            buffers,
            args: names
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
            .prop_map(|(op, dst, a, b)| {
                // The VOP3 (saturating) forms take no literal on gfx8.
                let a = match (op, a) {
                    (BinOp::AddSat | BinOp::SubSat | BinOp::SubrevSat, Src::Literal(_)) => Src::X,
                    (_, a) => a,
                };
                Stmt::Bin { op, dst, a, b }
            }),
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

fn cond(f: Families) -> BoxedStrategy<Cond> {
    let mut choices = vec![
        (cmp(), -16i8..=64)
            .prop_map(|(cmp, c)| Cond::Data { cmp, c })
            .boxed(),
        (cmp(), acc_index(), src(false))
            .prop_map(|(cmp, acc, other)| Cond::Acc { cmp, acc, other })
            .boxed(),
        (0u8..6).prop_map(|bit| Cond::LaneBit { bit }).boxed(),
    ];
    if f.floats {
        choices.push(
            (0..F_CMP.len() as u8, fsrc(), facc_index(), fmods())
                .prop_map(|(cmp, a, b, mods)| Cond::Float { cmp, a, b, mods })
                .boxed(),
        );
        choices.push(
            (facc_index(), any::<u16>())
                .prop_map(|(a, mask)| Cond::Class { a, mask })
                .boxed(),
        );
    }
    proptest::strategy::Union::new(choices).boxed()
}

fn facc_index() -> impl Strategy<Value = u8> {
    0..FACCS
}

/// An f32 word: special values, ordinary values, integers and any bits.
fn f32_word() -> impl Strategy<Value = u32> {
    prop_oneof![
        3 => proptest::sample::select(&SPECIAL_F32[..]),
        3 => (-1000.0f32..1000.0).prop_map(f32::to_bits),
        1 => (-100i32..100).prop_map(|i| (i as f32).to_bits()),
        1 => any::<u32>(),
    ]
}

fn fsrc() -> impl Strategy<Value = FSrc> {
    prop_oneof![
        4 => facc_index().prop_map(FSrc::F),
        1 => Just(FSrc::X),
        1 => acc_index().prop_map(FSrc::Bits),
        2 => (0..F_INLINE.len() as u8).prop_map(FSrc::Inline),
        2 => f32_word().prop_map(FSrc::Literal),
    ]
}

fn fmods() -> impl Strategy<Value = FMods> {
    (0u8..8, 0u8..8, any::<bool>(), 0u8..4).prop_map(|(neg, abs, clamp, omod)| FMods {
        neg,
        abs,
        clamp,
        omod,
    })
}

/// VOP3 modifiers half of the time, else the e32 encoding.
fn maybe_fmods() -> impl Strategy<Value = Option<FMods>> {
    proptest::option::of(fmods())
}

fn pick(names: &'static [&'static str]) -> impl Strategy<Value = &'static str> {
    proptest::sample::select(names)
}

/// Straight-line f32 statements.
fn float_simple(f: Families) -> Vec<(u32, BoxedStrategy<Stmt>)> {
    let mut unary: Vec<&'static str> = F_UN.to_vec();
    if f.has(Family::Transcendentals) {
        unary.extend(F_TRANS);
    }
    let mut choices = vec![
        (
            3,
            (
                pick(&F_BIN),
                facc_index(),
                fsrc(),
                facc_index(),
                maybe_fmods(),
            )
                .prop_map(|(op, dst, a, b, mods)| Stmt::FBin {
                    op,
                    dst,
                    a,
                    b,
                    mods,
                })
                .boxed(),
        ),
        (
            2,
            (
                proptest::sample::select(unary),
                facc_index(),
                fsrc(),
                maybe_fmods(),
            )
                .prop_map(|(op, dst, a, mods)| Stmt::FUn { op, dst, a, mods })
                .boxed(),
        ),
        (
            2,
            (pick(&F_TRI), facc_index(), fsrc(), fsrc(), fsrc(), fmods())
                .prop_map(|(op, dst, a, b, c, mods)| Stmt::FTri {
                    op,
                    dst,
                    a,
                    b,
                    c,
                    mods,
                })
                .boxed(),
        ),
        (
            1,
            (facc_index(), fsrc(), acc_index(), fmods())
                .prop_map(|(dst, a, exp, mods)| Stmt::Ldexp { dst, a, exp, mods })
                .boxed(),
        ),
        (
            1,
            (pick(&TO_FLOAT), facc_index(), acc_index(), maybe_fmods())
                .prop_map(|(op, dst, a, mods)| Stmt::ToFloat { op, dst, a, mods })
                .boxed(),
        ),
        (
            1,
            (pick(&TO_INT), acc_index(), facc_index(), maybe_fmods())
                .prop_map(|(op, dst, a, mods)| Stmt::ToInt { op, dst, a, mods })
                .boxed(),
        ),
        (
            1,
            (
                0..F_CMP.len() as u8,
                fsrc(),
                facc_index(),
                facc_index(),
                facc_index(),
                facc_index(),
                prop_oneof![Just(0u8), 1u8..16],
            )
                .prop_map(|(cmp, a, b, dst, t, f, sign)| Stmt::FSelect {
                    cmp,
                    a,
                    b,
                    dst,
                    t,
                    f,
                    sign,
                })
                .boxed(),
        ),
        (
            1,
            (facc_index(), facc_index(), facc_index())
                .prop_map(|(dst, n, d)| Stmt::FDiv { dst, n, d })
                .boxed(),
        ),
        (
            1,
            (facc_index(), acc_index())
                .prop_map(|(dst, idx)| Stmt::FGather { dst, idx })
                .boxed(),
        ),
    ];
    if f.has(Family::LiteralMads) {
        choices.push((
            1,
            (
                any::<bool>(),
                facc_index(),
                fsrc(),
                facc_index(),
                f32_word(),
            )
                .prop_map(|(ak, dst, a, b, k)| Stmt::MadK { ak, dst, a, b, k })
                .boxed(),
        ));
    }
    choices
}

/// Straight-line LDS statements on the work-item's own slots and the shared words.
/// The SDWA statements (family `sdwa`).
fn sdwa_simple() -> Vec<(u32, BoxedStrategy<Stmt>)> {
    let index = |n: usize| 0..n as u8;
    vec![
        (
            3,
            (
                index(HALF_OPS.len()),
                acc_index(),
                0..ACCS + 81,
                acc_index(),
                acc_index(),
            )
                .prop_map(|(op, dst, a, b, c)| Stmt::Half { op, dst, a, b, c })
                .boxed(),
        ),
        (
            3,
            (
                (index(SDWA_OPS.len()), acc_index(), acc_index(), acc_index()),
                (index(7), index(7), index(7), index(3), 0u8..4),
            )
                .prop_map(
                    |((op, dst, a, b), (src0_sel, src1_sel, dst_sel, unused, sext))| Stmt::Sdwa {
                        op,
                        dst,
                        a,
                        b,
                        src0_sel,
                        src1_sel,
                        dst_sel,
                        unused,
                        sext,
                    },
                )
                .boxed(),
        ),
    ]
}

fn lds_simple() -> Vec<(u32, BoxedStrategy<Stmt>)> {
    vec![
        (
            2,
            (0..LDS_WRITES.len() as u8, 0u8..2, 0u8..16, acc_index())
                .prop_map(|(width, page, at, src)| Stmt::LdsWrite {
                    width,
                    page,
                    at,
                    src,
                })
                .boxed(),
        ),
        (
            2,
            (0..LDS_READS.len() as u8, 0u8..2, 0u8..16, acc_index())
                .prop_map(|(width, page, at, dst)| Stmt::LdsRead {
                    width,
                    page,
                    at,
                    dst,
                })
                .boxed(),
        ),
        (
            2,
            (
                (any::<bool>(), any::<bool>(), any::<bool>()),
                0u8..2,
                0u8..16,
                0u8..4,
                0u8..4,
                acc_index(),
            )
                .prop_map(
                    |((write, b64, st64), page, at, o0, o1, acc)| Stmt::LdsPair {
                        write,
                        b64,
                        st64,
                        page,
                        at,
                        o0,
                        o1,
                        acc,
                    },
                )
                .boxed(),
        ),
        (
            2,
            (
                0..DS_OWN.len() as u8,
                any::<bool>(),
                0u8..2,
                0u8..16,
                acc_index(),
                acc_index(),
            )
                .prop_map(|(op, rtn, page, at, src, dst)| Stmt::LdsAtomic {
                    op,
                    rtn,
                    page,
                    at,
                    src,
                    dst,
                })
                .boxed(),
        ),
        (
            2,
            (0..LDS_SHARED as u8, any::<bool>(), acc_index())
                .prop_map(|(word, rtn, src)| Stmt::LdsShared { word, rtn, src })
                .boxed(),
        ),
    ]
}

/// Straight-line FLAT atomics.
fn atomic_simple() -> Vec<(u32, BoxedStrategy<Stmt>)> {
    vec![
        (
            2,
            (
                0..FLAT_OWN.len() as u8,
                any::<bool>(),
                0..SLOTS,
                acc_index(),
                acc_index(),
            )
                .prop_map(|(op, glc, slot, src, dst)| Stmt::FlatAtomic {
                    op,
                    glc,
                    slot,
                    src,
                    dst,
                })
                .boxed(),
        ),
        (
            2,
            (0..ATOM_WORDS as u8, any::<bool>(), acc_index())
                .prop_map(|(word, glc, src)| Stmt::FlatShared { word, glc, src })
                .boxed(),
        ),
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
    let f = opts.families;
    // The families share the straight-line weight, which keeps the control flow's share.
    let mut straight: Vec<(u32, BoxedStrategy<Stmt>)> = vec![(12, simple(place.in_loop))];
    if f.floats {
        straight.extend(float_simple(f));
    }
    if f.lds {
        straight.extend(lds_simple());
    }
    if f.atomics {
        straight.extend(atomic_simple());
    }
    if f.sdwa {
        straight.extend(sdwa_simple());
    }
    let mut choices: Vec<(u32, BoxedStrategy<Stmt>)> =
        vec![(6, proptest::strategy::Union::new_weighted(straight).boxed())];
    if place.ifs_left > 0 {
        let inner = Place {
            ifs_left: place.ifs_left - 1,
            uniform: false,
            ..place
        };
        choices.push((
            3,
            (
                cond(opts.families),
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
        if f.lds {
            choices.push((
                1,
                prop_oneof![
                    (acc_index(), acc_index(), 0u8..8)
                        .prop_map(|(src, dst, shift)| Stmt::LdsExchange { src, dst, shift }),
                    (0..LDS_SHARED as u8, acc_index())
                        .prop_map(|(word, dst)| Stmt::LdsSharedRead { word, dst }),
                ]
                .boxed(),
            ));
        }
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
    let f = opts.families;
    let words_if = |on: bool, n: usize| if on { n } else { 0 };
    let shape =
        (1..=max_wg, 1..=max_groups, 0u32..64).prop_flat_map(move |(workgroup, groups, short)| {
            // The last workgroup may be partial, but keeps at least one work-item.
            let grid = workgroup * groups - short.min(workgroup - 1);
            let words = grid.next_power_of_two().max(64) as usize;
            (
                Just(grid),
                Just(workgroup),
                proptest::collection::vec(prop_oneof![-100i32..100, any::<i32>()], words),
                proptest::collection::vec(f32_word(), words_if(f.floats, words)),
            )
        });
    let shared = (
        proptest::collection::vec(any::<u32>(), words_if(f.lds, LDS_SHARED as usize)),
        any::<bool>(),
        proptest::collection::vec(any::<u32>(), words_if(f.atomics, ATOM_WORDS as usize)),
    );
    (shape, shared, block(opts, place)).prop_map(
        move |((grid, workgroup, input, finput), (lds_init, m0_exact, atom_init), body)| {
            KernelSpec {
                grid,
                workgroup,
                input,
                body,
                families: f,
                finput,
                lds_init,
                m0_exact: m0_exact && f.lds,
                atom_init,
            }
        },
    )
}
