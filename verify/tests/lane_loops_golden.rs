//! Loops whose counter is a VGPR, as clang writes grid-stride loops and a workgroup's copy of a
//! tile, on the golden model, against the bounds the loop bound inference gives them
//! (`pws_host::extract::lane_count`):
//! - the counter starts at the global id, the local id, `n - 1 - id` (clang's `n + ~id`),
//!   the id plus a constant, the id with some lanes' start overwritten under a narrowed EXEC,
//!   or a value no analysis follows behind an `if` that compares it with a constant (and
//!   capped by a `min`), in 32 bits or as the low half of a 64-bit `size_t` (stepped with
//!   `v_add_u32` and `v_addc_u32`, compared with `v_cmp_*_u64`);
//! - it steps by the grid's size, the workgroup's size (both read from the dispatch packet, the
//!   workgroup's also as pws.h's `get_local_size(0)` computes it for the wavefront's own),
//!   the number of workgroups (divided out of them in VGPRs, as clang computes
//!   `get_num_groups(0)`) or a constant, up or down, or is shifted right by 1 or 2 bits (the
//!   tree reduction's halving);
//! - the compare reads the counter itself, or the counter plus the workgroup id times a
//!   constant (NVIDIA's reduce6 counts from the local id and adds the workgroup's offset);
//! - any ordered compare, signed or unsigned, or an equality, either way round, with the kernel argument, zero
//!   or a constant, before or after the step, whose lanes leave through the mask of lanes
//!   done (`s_or_b64 s[14:15], vcc, s[14:15]; s_andn2_b64 exec, exec, s[14:15]`) or stay
//!   through the mask of lanes that go on (`s_and_b64 exec, exec, vcc`), behind clang's guard
//!   or not;
//! - or the counter is an SGPR that starts at that value, and each lane compares it with its
//!   own start value instead;
//! - the step and compare after a `break` (in an `if` only some lanes enter, the lanes that
//!   leave kept in a mask across the join, as clang -O2 writes `if (a[i] < 0) break;`);
//! - the step and compare after an `if`/`else` in the body, once its join has restored EXEC
//!   (clang -O2's grid-stride loop around an `if`/`else`), or after an inner loop of its own
//!   lanes (a 2-D grid-stride loop's rows around its columns);
//! - and flawed loops that must not be bounded: a step only some lanes take, EXEC narrowed by
//!   the wrong mask, EXEC set to every lane before the loop (lanes the dispatcher disabled
//!   join it), an inner loop that widens EXEC, a step that differs from lane to lane.
//!
//! Every wavefront counts its header runs in an SGPR: where the loop is bounded, the golden
//! model finishes every wavefront of a launch of several workgroups (a partial one among them)
//! within the instructions the bound allows, and no header ran more often than the bound.

use std::fmt::Write;

use proptest::prelude::*;
use pws_host::extract::launch_values::LaunchValues;
use pws_host::extract::trip_count::every_loop;
use pws_host::flow::Flow;
use pws_isa::manifest::Manifest;
use pws_isa::testing::{clang_descriptor, num_groups_asm, proptest_cases};
use pws_verify::golden::{self, Config, Mode};

#[derive(Debug, Clone, Copy)]
enum Start {
    GlobalId,
    LocalId,
    /// `n - 1 - get_global_id(0)`, as `n + ~id`.
    Reverse,
    GlobalIdPlus(u32),
    /// `get_local_id(0) - k`, which wraps around for the first k lanes: clang's start of
    /// `for (j = get_local_id(0); j < n; j += k)`, stepped before its test.
    LocalIdMinus(u32),
    /// The global id, then `value` for the lanes whose local id is below `below` (a masked
    /// write: the other lanes keep the id).
    Masked {
        below: u32,
        value: u32,
    },
    /// A value no analysis follows (the global id scrambled by a product, shifted right by
    /// `shift`), behind clang's `if` on it: the lanes where the compare of it with `k` gives
    /// `holds` go on, then it is capped by `v_min_u32` or `v_min_i32` (clang's `min(x, cap)`).
    Guarded(Guard),
}

#[derive(Debug, Clone, Copy)]
struct Guard {
    shift: u32,
    /// The compare reads the value plus this (clang's `(uint)d < 12u` as `d - 1 < 11`).
    plus: u32,
    order: &'static str,
    signed: bool,
    k: u32,
    holds: bool,
    cap: Option<u32>,
}

#[derive(Debug, Clone, Copy)]
enum Step {
    Grid,
    Workgroup,
    Constant(i32),
    /// The number of workgroups in a VGPR, divided out of the grid's size and the workgroup's
    /// as clang computes `get_num_groups(0)` ([`num_groups_asm`]): one value in every lane.
    Groups,
    /// The wavefront's own workgroup's size as pws.h's `get_local_size(0)` computes it,
    /// `min(grid - id * size, size)`: one value only where the grid is whole workgroups.
    OwnWorkgroup,
    /// Shifted right by this many bits: the tree reduction's `s >>= 1`.
    Halve(u32),
}

#[derive(Debug, Clone, Copy)]
enum Bound {
    Argument,
    Zero,
    Constant(u32),
}

/// How the loop is broken, if it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flaw {
    None,
    /// The step runs for the lanes with a local id below 5 only.
    MaskedStep,
    /// EXEC is narrowed by a mask that stays zero (or, where the compare says which lanes go
    /// on, widened by it).
    WrongMask,
    /// `s_mov_b64 exec, -1` before the loop.
    AllLanes,
    /// The inner loop ORs the dispatcher's lanes back into EXEC.
    InnerWidens,
    /// The step by the group count plus the local id: a VGPR that differs from lane to lane.
    LaneStep,
}

#[derive(Debug, Clone, Copy)]
struct Shape {
    start: Start,
    step: Step,
    /// The compare's order: `lt`, `le`, `gt` or `ge`.
    order: &'static str,
    signed: bool,
    /// The counter is the compare's first source.
    counter_first: bool,
    bound: Bound,
    after_step: bool,
    /// The compare says which lanes go on (`s_and_b64 exec, exec, vcc`), not which leave.
    keep: bool,
    /// clang's guard: the loop is skipped where no lane would run it.
    guard: bool,
    wide: bool,
    /// The counter is an SGPR, the same in every lane, starting at the bound's value and
    /// compared with each lane's v4 instead (clang's `for (k = 0; k < c; k++)` where k is
    /// used only uniformly).
    scalar: bool,
    /// An `if` before the counter's start is computed (so it is not computed while EXEC is
    /// the dispatcher's).
    late: bool,
    /// A `break` before the step: the lanes whose local id is not below this leave at once,
    /// and the others step and compare in the `if` (clang's `for (...) { if (a[i] < 0)
    /// break; }`, the step after the test).
    brk: Option<u32>,
    /// An `if`/`else` on the lanes whose local id is below this before the step (without a
    /// `break`): the step follows its join.
    join: Option<u32>,
    /// An inner loop before the step, each lane counting from its local id by 64 up to this.
    inner: Option<u32>,
    /// The compare reads the counter plus the workgroup id times this (NVIDIA's reduce6
    /// counts from tid and adds `get_group_id(0) * 2 * size`): one value per workgroup.
    group_offset: Option<u32>,
    flaw: Flaw,
}

fn shape() -> impl Strategy<Value = Shape> {
    let start = prop_oneof![
        3 => Just(Start::GlobalId),
        2 => Just(Start::LocalId),
        2 => Just(Start::Reverse),
        1 => (0u32..100).prop_map(Start::GlobalIdPlus),
        1 => (1u32..80).prop_map(Start::LocalIdMinus),
        1 => (0u32..64, 0u32..3000).prop_map(|(below, value)| Start::Masked { below, value }),
        2 => (
            prop::sample::select(vec![0u32, 20, 25]),
            prop::sample::select(vec!["lt", "le", "gt", "ge", "eq", "ne"]),
            any::<bool>(),
            prop_oneof![
                prop::sample::select(vec![0u32, 1, u32::MAX, 0x7fff_ffff, 0x8000_0000]),
                0u32..200,
            ],
            any::<bool>(),
            prop::option::of(prop_oneof![1u32..40, Just(0), Just(300)]),
            prop_oneof![3 => Just(0u32), 1 => Just(u32::MAX), 1 => 1u32..50],
        )
            .prop_map(|(shift, order, signed, k, holds, cap, plus)| {
                Start::Guarded(Guard { shift, plus, order, signed, k, holds, cap })
            }),
    ];
    let step = prop_oneof![
        3 => Just(Step::Grid),
        2 => Just(Step::Workgroup),
        2 => prop_oneof![-300i32..-1, 1i32..300, Just(i32::MIN), Just(0x4000_0000)]
            .prop_map(Step::Constant),
        1 => prop_oneof![Just(1), Just(-1)].prop_map(Step::Constant),
        1 => Just(Step::Groups),
        1 => Just(Step::OwnWorkgroup),
        1 => (1u32..3).prop_map(Step::Halve),
    ];
    let bound = prop_oneof![
        3 => Just(Bound::Argument),
        1 => Just(Bound::Zero),
        1 => prop_oneof![0u32..2000, Just(u32::MAX), Just(0x7fff_ff00)].prop_map(Bound::Constant),
    ];
    let flaw = prop_oneof![
        6 => Just(Flaw::None),
        1 => Just(Flaw::MaskedStep),
        1 => Just(Flaw::WrongMask),
        1 => Just(Flaw::AllLanes),
        1 => Just(Flaw::InnerWidens),
        1 => Just(Flaw::LaneStep),
    ];
    (
        (
            start,
            step,
            prop::sample::select(vec![
                "lt", "le", "gt", "ge", "lt", "le", "gt", "ge", "eq", "ne",
            ]),
        ),
        (any::<bool>(), any::<bool>(), bound, any::<bool>()),
        (
            any::<bool>(),
            any::<bool>(),
            prop::bool::weighted(0.25),
            flaw,
            prop::bool::weighted(0.3),
        ),
        (
            prop::bool::weighted(0.7),
            any::<bool>(),
            prop::option::weighted(0.25, 0u32..70),
            prop::option::weighted(0.3, 0u32..70),
            prop::option::weighted(0.25, 1u32..300),
        ),
        prop::option::weighted(
            0.2,
            prop_oneof![Just(64u32), Just(100), Just(256), Just(0x4000_0000)],
        ),
    )
        .prop_map(
            |(
                (start, step, order),
                (signed, counter_first, bound, after_step),
                (keep, guard, wide, flaw, scalar),
                (sensible, late, brk, join, inner),
                group_offset,
            )| Shape {
                start,
                step,
                order: if sensible && !matches!(order, "eq" | "ne") {
                    sensible_order(step, counter_first, keep && brk.is_none(), order)
                } else {
                    order
                },
                signed: signed && !wide,
                counter_first,
                bound,
                after_step,
                guard,
                // A 64-bit counter's high half follows an add's carry, not a shift.
                wide: wide && !matches!(step, Step::Halve(_)),
                scalar: scalar && !wide,
                late,
                // The break's form keeps the lanes that leave in a mask.
                keep: keep && brk.is_none(),
                brk,
                join: join.filter(|_| brk.is_none()),
                inner: inner.filter(|_| brk.is_none()),
                group_offset: group_offset.filter(|_| !scalar && !wide),
                // Only an inner loop can widen EXEC.
                flaw: match flaw {
                    Flaw::InnerWidens if inner.is_none() || brk.is_some() => Flaw::None,
                    Flaw::LaneStep if !matches!(step, Step::Groups) => Flaw::None,
                    // A scalar step runs whatever EXEC is, by the grid for a group count.
                    Flaw::MaskedStep | Flaw::LaneStep if scalar => Flaw::None,
                    flaw => flaw,
                },
            },
        )
}

/// An order that reads as C's loop condition: going up, a lane leaves once the counter reaches
/// the bound (`i >= n`, or the lanes that go on are those with `i < n`); going down, the
/// other way. `any` picks strict or not.
fn sensible_order(step: Step, counter_first: bool, keep: bool, any: &'static str) -> &'static str {
    let up = !matches!(step, Step::Constant(k) if k < 0) && !matches!(step, Step::Halve(_));
    let strict = matches!(any, "lt" | "gt");
    // Whether the order holds when the counter is the larger.
    let counter_above = up != keep;
    match (counter_above == counter_first, strict) {
        (true, true) => "gt",
        (true, false) => "ge",
        (false, true) => "lt",
        (false, false) => "le",
    }
}

/// The counter's VGPR (v[4:5] when 64-bit) and the registers that count header runs: this
/// entry's and the most of one entry.
const RUNS: &str = "s20";
const MOST: &str = "s21";

fn source(sh: &Shape) -> String {
    // s8: workgroup id; s10: workgroup size; s11: grid size; s12: n.
    let mut s = String::from(
        "k:
  s_load_dword s10, s[4:5], 0x4
  s_load_dword s11, s[4:5], 0xc
  s_load_dword s12, s[6:7], 0x0
  v_mov_b32_e32 v1, 0
  v_mov_b32_e32 v2, s8
  s_waitcnt lgkmcnt(0)
  s_and_b32 s10, s10, 0xffff
  v_mad_u64_u32 v[2:3], s[0:1], s10, v2, v[0:1]
  s_mov_b32 s21, 0
  v_mov_b32_e32 v5, 0
  s_mov_b64 s[48:49], exec
",
    );
    if sh.late {
        s.push_str(
            "  v_cmp_gt_u32_e32 vcc, 40, v0\n  s_and_saveexec_b64 s[30:31], vcc\n  v_mov_b32_e32 v6, 1\n  s_or_b64 exec, exec, s[30:31]\n",
        );
    }
    match sh.start {
        Start::GlobalId => s.push_str("  v_mov_b32_e32 v4, v2\n"),
        Start::LocalId => s.push_str("  v_mov_b32_e32 v4, v0\n"),
        Start::Reverse => s.push_str("  v_not_b32_e32 v4, v2\n  v_add_u32_e32 v4, vcc, s12, v4\n"),
        Start::GlobalIdPlus(k) => {
            let _ = writeln!(s, "  v_add_u32_e32 v4, vcc, {k}, v2");
        }
        Start::LocalIdMinus(k) => {
            let _ = writeln!(s, "  v_add_u32_e32 v4, vcc, {:#x}, v0", k.wrapping_neg());
        }
        Start::Masked { below, value } => {
            let _ = writeln!(
                s,
                "  v_mov_b32_e32 v4, v2\n  v_cmp_gt_u32_e32 vcc, {below}, v0\n  s_and_saveexec_b64 s[28:29], vcc\n  v_mov_b32_e32 v4, {value}\n  s_or_b64 exec, exec, s[28:29]"
            );
        }
        Start::Guarded(g) => {
            let kind = if g.signed { "i32" } else { "u32" };
            let narrow = if g.holds {
                "s_and_saveexec_b64 s[46:47], vcc"
            } else {
                "s_mov_b64 s[46:47], exec\n  s_andn2_b64 exec, exec, vcc"
            };
            let _ = writeln!(
                s,
                "  s_mov_b32 s53, 0x9e3779b9\n  v_mul_lo_u32 v4, v2, s53\n  v_lshrrev_b32_e32 v4, {}, v4\n  v_add_u32_e32 v10, vcc, {:#x}, v4\n  v_cmp_{}_{kind}_e32 vcc, {:#x}, v{}\n  {narrow}\n  s_cbranch_execz .Lx",
                g.shift,
                g.plus,
                g.order,
                g.k,
                if g.plus == 0 { 4 } else { 10 }
            );
            if let Some(cap) = g.cap {
                // clang -O1 caps a signed value with v_min_i32.
                let _ = writeln!(s, "  v_min_{kind}_e32 v4, {cap:#x}, v4");
            }
        }
    }
    if sh.flaw == Flaw::AllLanes {
        s.push_str("  s_mov_b64 exec, -1\n");
    }
    let bound = match (sh.bound, sh.wide) {
        (Bound::Zero, _) => "0".to_string(),
        (Bound::Argument, false) => "s12".to_string(),
        (Bound::Constant(k), false) => {
            let _ = writeln!(s, "  s_mov_b32 s13, {k:#x}");
            "s13".to_string()
        }
        // A 64-bit bound: its high half 0.
        (Bound::Argument, true) => {
            s.push_str(
                "  s_mov_b32 s22, s12
  s_mov_b32 s23, 0
",
            );
            "s[22:23]".to_string()
        }
        (Bound::Constant(k), true) => {
            let _ = writeln!(s, "  s_mov_b32 s22, {k:#x}\n  s_mov_b32 s23, 0");
            "s[22:23]".to_string()
        }
    };
    let (counter, bound) = if sh.scalar {
        let _ = writeln!(s, "  s_mov_b32 s54, {bound}");
        ("s54".to_string(), "v4".to_string())
    } else {
        (if sh.wide { "v[4:5]" } else { "v4" }.to_string(), bound)
    };
    let kind = match (sh.wide, sh.signed) {
        (true, _) => "u64",
        (false, true) => "i32",
        (false, false) => "u32",
    };
    let (a, b) = if sh.counter_first {
        (counter.clone(), bound.clone())
    } else {
        (bound.clone(), counter.clone())
    };
    // VOPC's first source may be a constant or an SGPR, its second must be a VGPR: the e64
    // form takes either.
    let mut compare = format!("  v_cmp_{}_{kind}_e64 vcc, {a}, {b}\n", sh.order);
    if let Some(k) = sh.group_offset {
        let _ = writeln!(s, "  s_mul_i32 s57, s8, {k:#x}");
        compare = format!(
            "  v_add_u32_e64 v12, s[58:59], s57, v4\n{}",
            compare.replace("v4", "v12")
        );
    }
    let step = match sh.step {
        Step::Grid => "s11".to_string(),
        Step::Workgroup => "s10".to_string(),
        Step::OwnWorkgroup => {
            s.push_str(
                "  s_mul_i32 s16, s8, s10\n  s_sub_i32 s16, s11, s16\n  s_min_u32 s16, s16, s10\n",
            );
            "s16".to_string()
        }
        Step::Constant(k) => {
            let _ = writeln!(s, "  s_mov_b32 s9, {:#x}", k as u32);
            "s9".to_string()
        }
        Step::Halve(_) => String::new(),
        Step::Groups => {
            s.push_str(&num_groups_asm(9, 11, 10, 50));
            if sh.flaw == Flaw::LaneStep {
                s.push_str("  v_add_u32_e32 v9, vcc, v0, v9\n");
            }
            "v9".to_string()
        }
    };
    // The carry goes to s[26:27], not VCC: the step may come between the compare and its use.
    let mut stepping = match (sh.scalar, sh.step) {
        (false, Step::Halve(k)) => format!("  v_lshrrev_b32_e64 v4, {k}, v4\n"),
        (true, Step::Halve(k)) => format!("  s_lshr_b32 s54, s54, {k}\n"),
        (false, _) => format!("  v_add_u32_e64 v4, s[26:27], {step}, v4\n"),
        (true, Step::Constant(k)) => format!("  s_add_i32 s54, s54, {k}\n"),
        (true, _) => "  s_add_u32 s54, s54, s11\n".to_string(),
    };
    if sh.wide {
        stepping.push_str("  v_addc_u32_e64 v5, s[26:27], 0, v5, s[26:27]\n");
    }
    if sh.flaw == Flaw::MaskedStep {
        stepping = format!(
            "  v_cmp_gt_u32_e32 vcc, 5, v0\n  s_and_saveexec_b64 s[16:17], vcc\n{stepping}  s_or_b64 exec, exec, s[16:17]\n"
        );
    }
    if sh.guard {
        let _ = write!(s, "{compare}");
        let narrow = if sh.keep {
            "s_and_saveexec_b64"
        } else {
            "s_andn2_saveexec_b64"
        };
        let _ = writeln!(s, "  {narrow} s[24:25], vcc\n  s_cbranch_execz .Lx");
        if !sh.keep {
            // andn2_saveexec is vcc & ~exec: narrow to exec & ~vcc instead.
            s = s.replace(
                "  s_andn2_saveexec_b64 s[24:25], vcc\n",
                "  s_mov_b64 s[24:25], exec\n  s_andn2_b64 exec, exec, vcc\n",
            );
        }
    }
    s.push_str("  s_mov_b64 s[14:15], 0\n  s_mov_b64 s[18:19], 0\n  s_mov_b32 s20, 0\n.Lh:\n  s_add_u32 s20, s20, 1\n");
    if let Some(below) = sh.brk {
        // Every lane leaves unless it reaches the step and its compare says go on; the flawed
        // form forgets the lanes the break takes out, which then never leave.
        if sh.flaw != Flaw::WrongMask {
            s.push_str("  s_or_b64 s[34:35], s[34:35], exec\n");
        }
        let _ = write!(
            s,
            "  v_cmp_gt_u32_e32 vcc, {below}, v0\n  s_and_saveexec_b64 s[36:37], vcc\n  s_cbranch_execz .Ll\n{stepping}{compare}"
        );
        let _ = writeln!(
            s,
            "  s_andn2_b64 s[34:35], s[34:35], exec\n  s_and_b64 s[38:39], vcc, exec\n  s_or_b64 s[34:35], s[34:35], s[38:39]\n.Ll:\n  s_or_b64 exec, exec, s[36:37]\n  s_and_b64 s[36:37], exec, s[34:35]\n  s_or_b64 s[14:15], s[36:37], s[14:15]\n  s_andn2_b64 exec, exec, s[14:15]\n  s_cbranch_execnz .Lh\n.Lx:\n  s_max_u32 {MOST}, {MOST}, {RUNS}\n  s_endpgm"
        );
        s.push_str(&clang_descriptor("k", 12, 56));
        return s;
    }
    if let Some(limit) = sh.inner {
        let widen = if sh.flaw == Flaw::InnerWidens {
            "  s_or_b64 exec, exec, s[48:49]\n"
        } else {
            ""
        };
        let _ = writeln!(
            s,
            "  s_mov_b64 s[42:43], exec\n  v_mov_b32_e32 v6, v0\n  s_mov_b64 s[44:45], 0\n.Li:\n{widen}  v_add_u32_e32 v6, vcc, 64, v6\n  v_cmp_le_u32_e32 vcc, {limit}, v6\n  s_or_b64 s[44:45], vcc, s[44:45]\n  s_andn2_b64 exec, exec, s[44:45]\n  s_cbranch_execnz .Li\n  s_or_b64 exec, exec, s[42:43]"
        );
    }
    if let Some(below) = sh.join {
        let _ = writeln!(
            s,
            "  v_cmp_gt_u32_e32 vcc, {below}, v0\n  s_and_saveexec_b64 s[40:41], vcc\n  s_xor_b64 s[40:41], exec, s[40:41]\n  v_add_u32_e32 v7, vcc, 1, v7\n  s_or_saveexec_b64 s[40:41], s[40:41]\n  s_xor_b64 exec, exec, s[40:41]\n  v_add_u32_e32 v7, vcc, 2, v7\n  s_or_b64 exec, exec, s[40:41]"
        );
    }
    if sh.after_step {
        let _ = write!(s, "{stepping}{compare}");
    } else {
        let _ = write!(s, "{compare}{stepping}");
    }
    if sh.keep {
        let op = if sh.flaw == Flaw::WrongMask {
            "s_or_b64"
        } else {
            "s_and_b64"
        };
        let _ = writeln!(s, "  {op} exec, exec, vcc");
    } else {
        let narrow = if sh.flaw == Flaw::WrongMask {
            "s[18:19]"
        } else {
            "s[14:15]"
        };
        let _ = writeln!(
            s,
            "  s_or_b64 s[14:15], vcc, s[14:15]\n  s_andn2_b64 exec, exec, {narrow}"
        );
    }
    let _ = writeln!(
        s,
        "  s_cbranch_execnz .Lh\n.Lx:\n  s_max_u32 {MOST}, {MOST}, {RUNS}\n  s_endpgm"
    );
    s.push_str(&clang_descriptor("k", 12, 56));
    s
}

fn launch(grid: u32, workgroup: u32, n: u32) -> Manifest {
    let text = format!("kernel = \"k.s\"\ngrid = {grid}\nworkgroup = {workgroup}\nargs = [{n}]\n");
    Manifest::parse(&text, "k.toml").expect("generated manifest is valid")
}

/// The outer loop's bound for `manifest`'s launch of `src`.
fn bound(src: &str, manifest: &Manifest) -> Option<u64> {
    let program = pws_isa::assemble(src, "k.s").unwrap();
    let flow = Flow::new(&program, "k.s").unwrap();
    let bounds = every_loop(&program, &flow, &LaunchValues::of(&program, manifest));
    let outer: Vec<usize> = (0..flow.loops.len())
        .filter(|&l| flow.loops[l].parent.is_none())
        .collect();
    assert_eq!(outer.len(), 1, "{src}");
    bounds[outer[0]].as_ref().map(|c| c.trips())
}

fn geometry() -> impl Strategy<Value = (u32, u32)> {
    (
        prop_oneof![Just(32u32), Just(64), Just(100), Just(128)],
        1u32..=3,
        prop_oneof![Just(0u32), 0u32..64],
    )
        .prop_map(|(workgroup, groups, cut)| {
            (workgroup * groups - cut.min(workgroup - 1), workgroup)
        })
}

fn argument() -> impl Strategy<Value = u32> {
    prop_oneof![
        4 => 0u32..1500,
        1 => Just(0x7fff_fff0u32),
        1 => Just(0x8000_0010u32),
        1 => Just(u32::MAX - 5),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(300)))]

    #[test]
    fn lanes_leave_within_the_bound(
        sh in shape(),
        (grid, workgroup) in geometry(),
        n in argument(),
    ) {
        let src = source(&sh);
        // Every generated launch is OpenCL C 2.0's: a hand-written kernel has no metadata.
        let manifest = launch(grid, workgroup, n);
        let Some(bound) = bound(&src, &manifest) else {
            return Ok(());
        };
        prop_assert!(sh.flaw == Flaw::None, "a flawed loop is bounded ({bound}):\n{src}");
        let lines = src.lines().count() as u64;
        let program = pws_isa::assemble(&src, "k.s").unwrap();
        let config = Config {
            mode: Mode::NoSplit,
            max_instructions: (bound + 2) * lines,
            ..Config::default()
        };
        let run = golden::run(&program, &manifest, &config);
        prop_assert!(run.is_ok(), "bound {}, grid {} / {}, n {}: {:?}\n{}", bound, grid, workgroup, n, run.err(), src);
        for (w, wave) in run.unwrap().wavefronts.iter().enumerate() {
            let most = u64::from(wave.sgprs[21]);
            prop_assert!(most <= bound, "wavefront {}: {} runs of the header, bound {}, grid {} / {}, n {}\n{}", w, most, bound, grid, workgroup, n, src);
        }
    }
}

/// The generator reaches the loops clang writes, and their bounds are the most trips of a
/// lane: ceil((n - least start) / step) for a count up.
#[test]
fn grid_stride_loops_are_bounded_by_their_slowest_lane() {
    let clang = Shape {
        start: Start::GlobalId,
        step: Step::Grid,
        order: "ge",
        signed: true,
        counter_first: true,
        bound: Bound::Argument,
        after_step: true,
        keep: false,
        guard: true,
        wide: false,
        scalar: false,
        late: true,
        brk: None,
        join: None,
        inner: None,
        group_offset: None,
        flaw: Flaw::None,
    };
    let at = |sh: Shape, n| bound(&source(&sh), &launch(256, 64, n));
    assert_eq!(at(clang, 1000), Some(4));
    assert_eq!(at(clang, 1024), Some(4));
    assert_eq!(at(clang, 1025), Some(5));
    assert_eq!(
        at(
            Shape {
                wide: true,
                signed: false,
                ..clang
            },
            1000
        ),
        Some(4)
    );
    let tile = Shape {
        start: Start::LocalId,
        step: Step::Workgroup,
        ..clang
    };
    assert_eq!(at(tile, 1000), Some(16));
    // pws.h's get_local_size(0) is 64 in every workgroup of 256, not one value of 200.
    let own = Shape {
        step: Step::OwnWorkgroup,
        ..tile
    };
    assert_eq!(at(own, 1000), Some(16));
    assert_eq!(bound(&source(&own), &launch(200, 64, 1000)), None);
    // By the 4 workgroups of the launch, or 3 where the grid is cut to 129: lane 0 is the
    // slowest.
    let groups = Shape {
        step: Step::Groups,
        ..clang
    };
    assert_eq!(at(groups, 1000), Some(250));
    assert_eq!(bound(&source(&groups), &launch(129, 64, 1000)), Some(334));
    let per_lane = Shape {
        flaw: Flaw::LaneStep,
        ..groups
    };
    assert_eq!(at(per_lane, 1000), None);
    // clang -O2's `int n = min(cnt[i], 16); for (k = 0; k < n; k++)`: behind `if (0 < n)`,
    // n counts down by 1 to 0 from 1..=16; the lanes where the compare failed would start at
    // 0 and wrap around.
    let capped = Shape {
        start: Start::Guarded(Guard {
            shift: 0,
            plus: 0,
            order: "lt",
            signed: true,
            k: 0,
            holds: true,
            cap: Some(16),
        }),
        step: Step::Constant(-1),
        order: "eq",
        signed: false,
        counter_first: false,
        bound: Bound::Zero,
        guard: false,
        ..clang
    };
    assert_eq!(at(capped, 1000), Some(16));
    // clang's `if ((uint)d < 12u)` before `for (k = 0; k < d; k++)` tests `d - 1 < 11`: the
    // lanes that pass hold 1..=11.
    let below_twelve = Shape {
        start: Start::Guarded(Guard {
            shift: 0,
            plus: u32::MAX,
            order: "gt",
            signed: false,
            k: 11,
            holds: true,
            cap: None,
        }),
        ..capped
    };
    assert_eq!(at(below_twelve, 1000), Some(11));
    let failed = Shape {
        start: Start::Guarded(Guard {
            holds: false,
            ..match capped.start {
                Start::Guarded(g) => g,
                _ => unreachable!(),
            }
        }),
        ..capped
    };
    assert_eq!(at(failed, 1000), None);
    // The same loop where clang counts k up in an SGPR and compares it with each lane's cap.
    let scalar = Shape {
        scalar: true,
        step: Step::Constant(1),
        counter_first: true,
        ..capped
    };
    assert_eq!(at(scalar, 1000), Some(16));
    assert_eq!(
        at(
            Shape {
                step: Step::Constant(2),
                ..scalar
            },
            1000
        ),
        None,
        "an equality a counter stepped by 2 may pass over"
    );
    let down = Shape {
        start: Start::Reverse,
        step: Step::Constant(-256),
        order: "lt",
        bound: Bound::Zero,
        ..clang
    };
    assert_eq!(at(down, 1000), Some(4));
    let kept = Shape {
        order: "lt",
        keep: true,
        ..clang
    };
    assert_eq!(at(kept, 1000), Some(4));
    // A break before the step: lanes from the 40th on leave at once, the others count.
    let brk = Shape {
        brk: Some(40),
        ..clang
    };
    assert_eq!(at(brk, 1000), Some(4));
    assert_eq!(
        at(
            Shape {
                flaw: Flaw::WrongMask,
                ..brk
            },
            1000
        ),
        None,
        "lanes that break never leave"
    );
    // An if/else before the step: its join restores every lane that went round.
    let join = Shape {
        join: Some(20),
        ..clang
    };
    assert_eq!(at(join, 1000), Some(4));
    assert_eq!(
        at(
            Shape {
                flaw: Flaw::MaskedStep,
                ..join
            },
            1000
        ),
        None
    );
    // An inner loop of the lanes' own before the step: it only narrows EXEC.
    let inner = Shape {
        inner: Some(200),
        ..clang
    };
    assert_eq!(at(inner, 1000), Some(4));
    assert_eq!(
        at(
            Shape {
                flaw: Flaw::InnerWidens,
                ..inner
            },
            1000
        ),
        None
    );
    // A lane that leaves when its counter meets the bound: lane 0 steps 100 times.
    let meets = Shape {
        start: Start::LocalId,
        step: Step::Constant(1),
        order: "eq",
        bound: Bound::Constant(100),
        ..clang
    };
    assert_eq!(at(meets, 1000), Some(100));
    // Going on only while equal: the start just below the bound runs longest, not an end.
    assert_eq!(
        at(
            Shape {
                keep: true,
                ..meets
            },
            1000
        ),
        None
    );
    assert_eq!(
        at(
            Shape {
                step: Step::Constant(2),
                ..meets
            },
            1000
        ),
        None,
        "steps over the bound"
    );
    // clang's `for (j = get_local_id(0); j < n; j += 16)`: from lid - 16, which wraps around
    // for lanes 0..16 (above n = 100, unsigned: the guard keeps them out), stepped before an
    // unsigned test: lane 16's header runs at 0, 16, .., 96.
    let strided = Shape {
        start: Start::LocalIdMinus(16),
        step: Step::Constant(16),
        signed: false,
        ..clang
    };
    assert_eq!(at(strided, 100), Some(7));
    // Tested before the step, the header also runs for the 112 that leaves.
    assert_eq!(
        at(
            Shape {
                after_step: false,
                ..strided
            },
            100
        ),
        Some(8)
    );
    // Near the top of the signed range a lane's counter would wrap around before it leaves.
    assert_eq!(at(clang, 0x7fff_fff0), None);
    for flaw in [Flaw::MaskedStep, Flaw::WrongMask, Flaw::AllLanes] {
        assert_eq!(at(Shape { flaw, ..clang }, 1000), None, "{flaw:?}");
    }
}
