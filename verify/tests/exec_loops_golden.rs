//! Uniform loop nests as clang writes them, on the golden model, against the bounds the loop
//! bound inference gives them (`pws_host::extract::trip_count`):
//! - exit tests branched on at once through SCC, at the bottom of the loop, or as a lane mask
//!   (`s_cselect_b64 s[0:1], -1, 0; s_and_b64 vcc, exec, s[0:1]; s_cbranch_vccnz`), also kept
//!   across the body and an inner loop to the latch, as clang keeps a middle loop's test;
//! - counters from zero or from the enclosing loop's counter, to a constant, a kernel argument,
//!   a second induction variable of the enclosing loop (its counter + 1, stepped beside it) or
//!   a second counter of its own that counts down from a kernel argument to meet it,
//!   by 1 or by a kernel argument (0 too: such a loop may never leave);
//! - EXEC kept, emptied, set from a kernel argument or narrowed by an `if` (with or without its
//!   skip branch, restored at the join or not) before the nest, and set again inside a body.
//!
//! A mask test never leaves while EXEC is empty, so such a loop may be bounded only where EXEC
//! is non-zero whenever an iteration starts (`pws_host::extract::exit_mask::exec_nonzero`).
//! Every header counts its runs in an SGPR and every exit keeps the most runs of one entry:
//! where every loop of a program is bounded, the golden model finishes it, and no loop's
//! header ran more times in one entry than its bound.

use std::fmt::Write;

use proptest::prelude::*;
use pws_host::extract::launch_values::LaunchValues;
use pws_host::extract::trip_count::{every_loop, LoopCount};
use pws_host::flow::Flow;
use pws_isa::manifest::Manifest;
use pws_isa::testing::proptest_cases;
use pws_verify::golden::{self, Config, Mode};

/// How EXEC is set before the loops.
#[derive(Debug, Clone, Copy)]
enum Setup {
    Keep,
    Empty,
    /// `s_mov_b64 exec` from the kernel argument pair (which may be zero).
    FromArgument,
    /// `if (v0 < k)` by `s_and_saveexec_b64`, with or without the skip branch, the loops after
    /// its join or inside it.
    If {
        k: u32,
        skip: bool,
        join: bool,
    },
}

/// How a loop's exit test reaches its branch.
#[derive(Debug, Clone, Copy)]
enum Exit {
    /// `s_cbranch_scc1` on the header's compare.
    Scc,
    /// The header's compare as a mask in VCC, branched on at once.
    Mask,
    /// The header's compare as a mask, kept across the body (and the inner loop), branched on
    /// in the latch.
    MaskInLatch,
    /// A do-while: the compare and `s_cbranch_scc1` back in the latch.
    Bottom,
    /// A do-while whose counter steps in the header and whose latch tests a copy taken before
    /// the step (clang -O3's `s_mov_b32 s7, s6; s_ashr_i32 s6, s6, 1` ... `s_cmp_lt_i32 s7, 4`).
    BottomOnCopy,
    /// The counter + 1 into another register and tested there in the header, the counter's
    /// register lent to another value in the body, and the copy back in the latch (clang -O1's
    /// `s_add_i32 s11, s4, 1` ... `s_load_dword s4` ... `s_mov_b32 s4, s11`).
    Lent,
    /// The same with the register lent (zeroed) before the counter + 1 is taken: the loop
    /// never leaves once its limit is above 1, and must not be bounded.
    LentTooEarly,
}

/// What the counter counts to.
#[derive(Debug, Clone, Copy)]
enum Limit {
    Constant(u32),
    /// The kernel argument of this level.
    Argument,
    /// The enclosing loop's counter + 1, kept in a register of its own (the argument for the
    /// outermost loop).
    OuterPlusOne,
    /// A second counter from the kernel argument of this level down by 1 per iteration:
    /// `for (i = 0, j = n; i < j; i++, j--)`.
    Meeting,
}

impl Level {
    /// A loop from zero to `limit`, by 1, always entered, with nothing else in its body.
    fn new(limit: Limit, exit: Exit) -> Level {
        Level {
            from_outer: false,
            guard: Guard::Always,
            break_on: None,
            limit,
            exit,
            exec_in_body: false,
            step_argument: false,
        }
    }
}

/// How the loop's entry is guarded in the enclosing loop's body.
#[derive(Debug, Clone, Copy)]
enum Guard {
    Always,
    /// Skipped while the enclosing counter equals this (clang's `if (i != 0)` around
    /// `for (j = 0; j < i; j++)`), or is above it: a compare the analysis can decide.
    OuterEq(u32),
    OuterAbove(u32),
    /// The same equality as a mask in VCC, as clang writes a uniform condition
    /// (`s_cselect_b64 s[..], -1, 0; s_and_b64 vcc, exec, s[..]; s_cbranch_vccnz`): decided only
    /// where EXEC is non-zero, since an empty EXEC makes VCC zero and the branch falls through.
    OuterEqMask(u32),
    /// Skipped while a bit of the enclosing counter is clear: `s_bitcmp0_b32` into a mask that
    /// is set when SCC is clear, and `s_cbranch_vccz`.
    OuterBitMask(u32),
    /// Skipped when bits of v1 (a value of the lanes' data) are zero: it cannot.
    Data(u32),
}

#[derive(Debug, Clone, Copy)]
struct Level {
    /// From the enclosing loop's counter, else from zero.
    from_outer: bool,
    guard: Guard,
    /// A `break` on the lanes' data (bits of v1 zero) before the loop inside.
    break_on: Option<u32>,
    limit: Limit,
    exit: Exit,
    /// EXEC set from the kernel argument pair in the body.
    exec_in_body: bool,
    /// Stepped by the kernel's step argument, else by 1.
    step_argument: bool,
}

/// The kernel arguments: a limit per level, EXEC's value as a pair, then the step.
const ARGS: usize = 6;

/// The registers of level k: counter, the counter + 1, header runs in this entry, the most
/// runs of one entry, the exit mask and the mask kept for the latch (whose low half holds the
/// copy of the counter for [`Exit::BottomOnCopy`]).
fn regs(k: usize) -> (usize, usize, usize, usize, usize, usize) {
    (40 + k, 44 + k, 48 + k, 52 + k, 56 + 2 * k, 64 + 2 * k)
}

/// The registers of level k that count its header runs and its entries over the whole run.
fn totals(k: usize) -> (usize, usize) {
    (74 + k, 78 + k)
}

/// A scratch SGPR for the guards and breaks.
const SCRATCH: usize = 92;

fn guard() -> impl Strategy<Value = Guard> {
    prop_oneof![
        3 => Just(Guard::Always),
        2 => (0u32..4).prop_map(Guard::OuterEq),
        1 => (0u32..5).prop_map(Guard::OuterAbove),
        1 => (0u32..4).prop_map(Guard::OuterEqMask),
        1 => (0u32..3).prop_map(Guard::OuterBitMask),
        1 => (1u32..4).prop_map(Guard::Data),
    ]
}

fn level() -> impl Strategy<Value = Level> {
    (
        prop::bool::weighted(0.3),
        guard(),
        prop::option::weighted(0.15, 1u32..4),
        prop_oneof![
            (0u32..6).prop_map(Limit::Constant),
            Just(Limit::Argument),
            Just(Limit::OuterPlusOne),
            Just(Limit::Meeting),
        ],
        prop_oneof![
            Just(Exit::Scc),
            Just(Exit::Mask),
            Just(Exit::MaskInLatch),
            Just(Exit::Bottom),
            Just(Exit::BottomOnCopy),
            Just(Exit::Lent),
            Just(Exit::LentTooEarly),
        ],
        prop::bool::weighted(0.15),
        prop::bool::weighted(0.3),
    )
        .prop_map(
            |(from_outer, guard, break_on, limit, exit, exec_in_body, step_argument)| Level {
                from_outer,
                guard,
                break_on,
                limit,
                exit,
                exec_in_body,
                step_argument,
            },
        )
}

fn setup() -> impl Strategy<Value = Setup> {
    prop_oneof![
        3 => Just(Setup::Keep),
        1 => Just(Setup::Empty),
        1 => Just(Setup::FromArgument),
        3 => (0u32..=64, any::<bool>(), any::<bool>())
            .prop_map(|(k, skip, join)| Setup::If { k, skip, join }),
    ]
}

fn source(setup: Setup, levels: &[Level]) -> String {
    let mut s = String::from(
        "k:\n  s_load_dwordx2 s[20:21], s[4:5], 0xc\n  s_load_dwordx4 s[24:27], s[4:5], 0x0\n  s_load_dword s22, s[4:5], 0x14\n  s_waitcnt lgkmcnt(0)\n",
    );
    for k in 0..levels.len() {
        let (total, entries) = totals(k);
        let _ = writeln!(
            s,
            "  s_mov_b32 s{}, 0\n  s_mov_b32 s{total}, 0\n  s_mov_b32 s{entries}, 0",
            regs(k).3
        );
    }
    match setup {
        Setup::Keep => {}
        Setup::Empty => s.push_str("  s_mov_b64 exec, 0\n"),
        Setup::FromArgument => s.push_str("  s_mov_b64 exec, s[20:21]\n"),
        Setup::If { k, skip, join } => {
            let _ = writeln!(
                s,
                "  v_cmp_gt_u32_e32 vcc, {k}, v0\n  s_and_saveexec_b64 s[30:31], vcc"
            );
            if skip {
                let to = if join { ".Ljoin" } else { ".Lend" };
                let _ = writeln!(s, "  s_cbranch_execz {to}");
            }
            s.push_str("  v_mov_b32_e32 v2, 1\n");
            if join {
                s.push_str(".Ljoin:\n  s_or_b64 exec, exec, s[30:31]\n");
            }
        }
    }
    emit(&mut s, levels, 0);
    s.push_str(".Lend:\n  s_endpgm\n");
    s
}

/// Loop `k` of the nest and the ones inside it.
fn emit(s: &mut String, levels: &[Level], k: usize) {
    let Some(l) = levels.get(k) else { return };
    let (c, next, runs, most, mask, held) = regs(k);
    let step = if l.step_argument { "s22" } else { "1" };
    let down = 70 + k;
    let limit = match (l.limit, k) {
        (Limit::Constant(v), _) => v.to_string(),
        (Limit::OuterPlusOne, 1..) => format!("s{}", regs(k - 1).1),
        (Limit::Meeting, _) => format!("s{down}"),
        (Limit::Argument | Limit::OuterPlusOne, _) => format!("s{}", 24 + k),
    };
    if let Limit::Meeting = l.limit {
        let _ = writeln!(s, "  s_mov_b32 s{down}, s{}", 24 + k);
    }
    let start = match (l.from_outer, k) {
        (true, 1..) => format!("s{}", regs(k - 1).0),
        _ => "0".into(),
    };
    let outer = regs(k.saturating_sub(1)).0;
    let skip = match l.guard {
        Guard::Always => None,
        Guard::OuterEq(v) => Some(format!("  s_cmp_eq_u32 s{outer}, {v}")),
        Guard::OuterAbove(v) => Some(format!("  s_cmp_gt_u32 s{outer}, {v}")),
        Guard::OuterEqMask(v) => Some(format!(
            "  s_cmp_eq_u32 s{outer}, {v}\n  s_cselect_b64 s[{SCRATCH}:{}], -1, 0\n  s_and_b64 vcc, exec, s[{SCRATCH}:{}]",
            SCRATCH + 1,
            SCRATCH + 1
        )),
        Guard::OuterBitMask(bit) => Some(format!(
            "  s_bitcmp0_b32 s{outer}, {bit}\n  s_cselect_b64 s[{SCRATCH}:{}], 0, -1\n  s_and_b64 vcc, exec, s[{SCRATCH}:{}]",
            SCRATCH + 1,
            SCRATCH + 1
        )),
        Guard::Data(bits) => Some(format!(
            "  v_readfirstlane_b32 s{SCRATCH}, v1\n  s_and_b32 s{SCRATCH}, s{SCRATCH}, {bits}\n  s_cmp_eq_u32 s{SCRATCH}, 0"
        )),
    };
    if let Some(test) = &skip {
        let branch = match l.guard {
            Guard::OuterEqMask(_) => "s_cbranch_vccnz",
            Guard::OuterBitMask(_) => "s_cbranch_vccz",
            _ => "s_cbranch_scc1",
        };
        let _ = writeln!(s, "{test}\n  {branch} .Ls{k}");
    }
    let (total, entries) = totals(k);
    // SCC is dead where the header starts: its first instruction may count the run.
    let _ = writeln!(
        s,
        "  s_add_u32 s{entries}, s{entries}, 1\n  s_mov_b32 s{c}, {start}\n  s_add_u32 s{next}, s{c}, 1\n  s_mov_b32 s{runs}, 0\n.Lh{k}:\n  s_add_u32 s{runs}, s{runs}, 1\n  s_add_u32 s{total}, s{total}, 1"
    );
    let test = format!("  s_cmp_ge_u32 s{c}, {limit}");
    let as_mask = format!(
        "  s_cselect_b64 s[{mask}:{}], -1, 0\n  s_and_b64 {{}}, exec, s[{mask}:{}]",
        mask + 1,
        mask + 1
    );
    match l.exit {
        Exit::Scc => {
            let _ = writeln!(s, "{test}\n  s_cbranch_scc1 .Lx{k}");
        }
        Exit::Mask => {
            let _ = writeln!(
                s,
                "{test}\n{}\n  s_cbranch_vccnz .Lx{k}",
                as_mask.replace("{}", "vcc")
            );
        }
        Exit::MaskInLatch => {
            let _ = writeln!(
                s,
                "{test}\n{}",
                as_mask.replace("{}", &format!("s[{held}:{}]", held + 1))
            );
        }
        Exit::Bottom => {}
        Exit::BottomOnCopy => {
            let _ = writeln!(
                s,
                "  s_mov_b32 s{held}, s{c}\n  s_add_u32 s{c}, s{c}, {step}"
            );
        }
        Exit::Lent | Exit::LentTooEarly => {
            if let Exit::LentTooEarly = l.exit {
                let _ = writeln!(s, "  s_mov_b32 s{c}, 0");
            }
            let _ = writeln!(
                s,
                "  s_add_u32 s{held}, s{c}, {step}\n  s_cmp_gt_u32 s{held}, {limit}\n  s_cbranch_scc1 .Lx{k}"
            );
        }
    }
    let _ = writeln!(s, "  v_xor_b32_e32 v1, s{c}, v1");
    if let Exit::Lent | Exit::LentTooEarly = l.exit {
        let _ = writeln!(s, "  s_mov_b32 s{c}, 77\n  v_xor_b32_e32 v1, s{c}, v1");
    }
    if l.exec_in_body {
        s.push_str("  s_mov_b64 exec, s[20:21]\n");
    }
    if let Some(bits) = l.break_on {
        let _ = writeln!(
            s,
            "  v_readfirstlane_b32 s{SCRATCH}, v1\n  s_and_b32 s{SCRATCH}, s{SCRATCH}, {bits}\n  s_cmp_eq_u32 s{SCRATCH}, 0\n  s_cbranch_scc1 .Lx{k}"
        );
    }
    emit(s, levels, k + 1);
    match l.exit {
        Exit::BottomOnCopy => {}
        Exit::Lent | Exit::LentTooEarly => {
            let _ = writeln!(s, "  s_mov_b32 s{c}, s{held}");
        }
        _ => {
            let _ = writeln!(s, "  s_add_u32 s{c}, s{c}, {step}");
        }
    }
    let _ = writeln!(s, "  s_add_u32 s{next}, s{next}, {step}");
    if let Limit::Meeting = l.limit {
        let _ = writeln!(s, "  s_sub_u32 s{down}, s{down}, 1");
    }
    match l.exit {
        Exit::MaskInLatch => {
            let _ = writeln!(
                s,
                "  s_mov_b64 vcc, s[{held}:{}]\n  s_cbranch_vccnz .Lx{k}\n  s_branch .Lh{k}",
                held + 1
            );
        }
        Exit::Bottom => {
            let _ = writeln!(s, "  s_cmp_lt_u32 s{c}, {limit}\n  s_cbranch_scc1 .Lh{k}");
        }
        Exit::BottomOnCopy => {
            let _ = writeln!(
                s,
                "  s_cmp_lt_u32 s{held}, {limit}\n  s_cbranch_scc1 .Lh{k}"
            );
        }
        Exit::Scc | Exit::Mask | Exit::Lent | Exit::LentTooEarly => {
            let _ = writeln!(s, "  s_branch .Lh{k}");
        }
    }
    let _ = writeln!(s, ".Lx{k}:\n  s_max_u32 s{most}, s{most}, s{runs}");
    if skip.is_some() {
        let _ = writeln!(s, ".Ls{k}:");
    }
}

fn launch(args: &[u32]) -> Manifest {
    let args: Vec<String> = args.iter().map(u32::to_string).collect();
    let text = format!(
        "kernel = \"k.s\"\ngrid = 64\nworkgroup = 64\nargs = [{}]\n",
        args.join(", ")
    );
    Manifest::parse(&text, "k.toml").expect("generated manifest is valid")
}

/// The most trips per entry of every loop of `src` for `manifest`'s launch, outermost first.
fn bounds(src: &str, manifest: &Manifest) -> Vec<Option<u64>> {
    counts(src, manifest)
        .iter()
        .map(|c| c.as_ref().map(LoopCount::trips))
        .collect()
}

/// The trips of every loop of `src` for `manifest`'s launch, outermost first.
fn counts(src: &str, manifest: &Manifest) -> Vec<Option<LoopCount>> {
    let program = pws_isa::assemble(src, "k.s").unwrap();
    let flow = Flow::new(&program, "k.s").unwrap();
    every_loop(&program, &flow, &LaunchValues::of(&program, manifest))
}

fn arguments() -> impl Strategy<Value = Vec<u32>> {
    let exec = prop_oneof![Just(0u32), Just(1), Just(u32::MAX), any::<u32>()];
    (
        prop::collection::vec(0u32..6, 3),
        exec.clone(),
        exec,
        0u32..4,
    )
        .prop_map(|(mut args, lo, hi, step)| {
            args.extend([lo, hi, step]);
            args
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(400)))]

    #[test]
    fn bounded_loops_leave_within_their_bounds(
        setup in setup(),
        levels in prop::collection::vec(level(), 1..=3),
        args in arguments(),
    ) {
        prop_assert_eq!(args.len(), ARGS);
        let src = source(setup, &levels);
        let manifest = launch(&args);
        let counts = counts(&src, &manifest);
        prop_assert_eq!(counts.len(), levels.len());
        let Some(counts) = counts.into_iter().collect::<Option<Vec<LoopCount>>>() else {
            return Ok(());
        };
        let bounds: Vec<u64> = counts.iter().map(LoopCount::trips).collect();
        // Every iteration of every loop, one more run of each header, and the instructions
        // around them: more than the bounds allow only if a bound is wrong.
        let lines = src.lines().count() as u64;
        let allowed = bounds.iter().fold(lines, |inner, b| (b + 2) * (lines + inner));
        let program = pws_isa::assemble(&src, "k.s").unwrap();
        let config = Config {
            mode: Mode::NoSplit,
            max_instructions: allowed,
            ..Config::default()
        };
        let run = golden::run(&program, &manifest, &config);
        prop_assert!(run.is_ok(), "bounds {:?}, args {:?}: {:?}\n{}", bounds, args, run.err(), src);
        let sgprs = &run.unwrap().wavefronts[0].sgprs;
        for (k, &bound) in bounds.iter().enumerate() {
            let most = u64::from(sgprs[regs(k).3]);
            prop_assert!(most <= bound, "loop {}: {} runs of its header, bound {}, args {:?}\n{}", k, most, bound, args, src);
            // The IPET's row: all runs of the header against all entries.
            let (total, entries) = totals(k);
            let (total, entries) = (u64::from(sgprs[total]), u64::from(sgprs[entries]));
            let average = counts[k].bound();
            prop_assert!(average <= bound);
            prop_assert!(
                total <= average * entries,
                "loop {}: {} runs of its header in {} entries, above the average bound {}, args {:?}\n{}",
                k, total, entries, average, args, src
            );
        }
    }
}

/// The generator reaches both sides: loops bounded with EXEC narrowed or restored and with a
/// limit kept beside the enclosing counter, and mask exits left unbounded where EXEC may be
/// empty.
#[test]
fn masks_are_bounded_only_where_exec_is_non_zero() {
    let mask = |exec_in_body| Level {
        exec_in_body,
        ..Level::new(Limit::Argument, Exit::MaskInLatch)
    };
    let scc = Level::new(Limit::Constant(3), Exit::Scc);
    let triangle = Level::new(Limit::OuterPlusOne, Exit::Bottom);
    let args = [4, 2, 5, 0, 0, 2];
    let at = |setup, levels: &[Level]| bounds(&source(setup, levels), &launch(&args));
    let joined = Setup::If {
        k: 7,
        skip: false,
        join: true,
    };
    assert_eq!(at(Setup::Keep, &[mask(false), scc]), [Some(5), Some(4)]);
    assert_eq!(at(joined, &[mask(false), scc]), [Some(5), Some(4)]);
    assert_eq!(
        at(Setup::Keep, &[mask(false), triangle]),
        [Some(5), Some(5)]
    );
    let on_copy = Level {
        exit: Exit::BottomOnCopy,
        ..scc
    };
    assert_eq!(at(Setup::Keep, &[on_copy]), [Some(4)]);
    let lent = Level {
        exit: Exit::Lent,
        ..scc
    };
    assert_eq!(at(Setup::Keep, &[lent, triangle]), [Some(4), Some(4)]);
    let skipped = Setup::If {
        k: 7,
        skip: true,
        join: false,
    };
    assert_eq!(at(skipped, &[mask(false)]), [Some(5)]);
    let unskipped = Setup::If {
        k: 7,
        skip: false,
        join: false,
    };
    assert_eq!(at(unskipped, &[mask(false)]), [None]);
    assert_eq!(at(Setup::Empty, &[scc, mask(false)]), [Some(4), None]);
    assert_eq!(at(Setup::Keep, &[mask(true)]), [None]);
    // Stepped by the argument 2 to 3: the header runs for 0, 2 and 4. A triangle inside
    // counts by 2 too, to the outer counter + 1, which is 1, 3 and 5 at the outer header's
    // runs: at most 3 (the last outer run leaves before the inner loop, so it runs 2).
    let stepped = Level {
        step_argument: true,
        ..scc
    };
    let stepped_triangle = Level {
        step_argument: true,
        ..triangle
    };
    assert_eq!(
        at(Setup::Keep, &[stepped, stepped_triangle]),
        [Some(3), Some(3)]
    );
    // The test of counter + 2 > 3 leaves at the header's second run.
    let lent_stepped = Level {
        exit: Exit::Lent,
        ..stepped
    };
    assert_eq!(at(Setup::Keep, &[lent_stepped]), [Some(2)]);
}

/// A triangle's trips averaged over the enclosing loop's iterations: with the enclosing
/// counter at 0..=3 (a bottom test against 4) the inner loop counts to it + 1 and runs
/// 1, 2, 3, 4 times. A guard the analysis decides drops the iterations it skips; one on the
/// lanes' data, or a break before the inner loop on them, keeps what they may do.
#[test]
fn a_triangle_is_bounded_by_its_average_trips() {
    let outer = |break_on| Level {
        break_on,
        ..Level::new(Limit::Constant(4), Exit::Bottom)
    };
    let triangle = |guard| Level {
        guard,
        ..Level::new(Limit::OuterPlusOne, Exit::Bottom)
    };
    let args = [4, 2, 5, 0, 0, 2];
    let under = |setup, levels: &[Level]| -> Vec<(u64, u64)> {
        counts(&source(setup, levels), &launch(&args))
            .iter()
            .map(|c| c.as_ref().map(|c| (c.trips(), c.bound())).unwrap())
            .collect()
    };
    let at = |levels: &[Level]| under(Setup::Keep, levels);
    // With EXEC empty, a mask guard's VCC is zero whatever its compare says: it never skips.
    let masked = [outer(None), triangle(Guard::OuterEqMask(3))];
    assert_eq!(under(Setup::Keep, &masked), [(4, 4), (4, 2)]);
    assert_eq!(under(Setup::Empty, &masked), [(4, 4), (4, 4)]);
    // The inner loop's most trips per entry stay 4; its average over the iterations that
    // enter it depends on the guard.
    for (guard, average, why) in [
        (Guard::Always, 3, "10 trips in 4 entries"),
        (Guard::OuterEq(0), 3, "i = 0 skipped: 9 in 3"),
        (Guard::OuterEq(3), 2, "i = 3 skipped: 6 in 3"),
        (Guard::OuterAbove(2), 2, "i = 3 skipped by i > 2: 6 in 3"),
        (Guard::OuterAbove(0), 1, "only i = 0 enters: 1 in 1"),
        (
            Guard::OuterEqMask(0),
            3,
            "i = 0 skipped through a mask: 9 in 3",
        ),
        (
            Guard::OuterBitMask(0),
            3,
            "the even i skipped through a mask: 2 + 4 in 2",
        ),
        (
            Guard::Data(1),
            4,
            "any iteration may skip on the lanes' data: 4 in 1",
        ),
    ] {
        assert_eq!(
            at(&[outer(None), triangle(guard)]),
            [(4, 4), (4, average)],
            "{why}"
        );
    }
    // A break on the data before the inner loop ends a run at any iteration, but the trips
    // grow, so no shorter run averages more.
    assert_eq!(
        at(&[outer(Some(1)), triangle(Guard::Always)]),
        [(4, 4), (4, 3)]
    );
    // Trips that fall: from the enclosing counter (0, then 2: stepped by the argument 2) to
    // 4 run 4, then 2 times. A run that breaks in its second iteration before the inner loop
    // entered it once, for 4 trips.
    let stepped = |break_on| Level {
        step_argument: true,
        ..outer(break_on)
    };
    let falling = Level {
        from_outer: true,
        limit: Limit::Constant(4),
        ..triangle(Guard::Always)
    };
    assert_eq!(at(&[stepped(None), falling]), [(2, 2), (4, 3)]);
    assert_eq!(at(&[stepped(Some(1)), falling]), [(2, 2), (4, 4)]);
}
