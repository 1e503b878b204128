//! Uniform loops whose exit test reaches its branch as a lane mask (`s_cselect_b64 s[0:1], -1,
//! 0; s_and_b64 vcc, exec, s[0:1]; s_cbranch_vccnz`, as clang keeps a test across an inner
//! loop), after EXEC was kept, emptied, set from a kernel argument or narrowed by an `if` (with
//! or without its skip branch, restored at the join or not), and with EXEC set again inside a
//! loop's body, on the golden model. Such a loop never leaves while EXEC is empty, so the loop
//! bound inference may bound it only where EXEC is non-zero whenever an iteration starts
//! (`pws_host::extract::exit_mask::exec_nonzero`). Checked: where every loop of a program is
//! bounded, the golden model finishes it within the instructions those bounds allow.

use std::fmt::Write;

use proptest::prelude::*;
use pws_host::extract::launch_values::LaunchValues;
use pws_host::extract::trip_count::every_loop;
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
    /// `s_cbranch_scc1` on the compare.
    Scc,
    /// The compare as a mask in VCC, branched on at once.
    Mask,
    /// The compare as a mask, kept across the body (and the inner loop), branched on in the
    /// latch.
    MaskInLatch,
}

#[derive(Debug, Clone, Copy)]
struct Level {
    /// A constant limit, or `None` for the kernel argument of this level.
    limit: Option<u32>,
    exit: Exit,
    /// EXEC set from the kernel argument pair in the body.
    exec_in_body: bool,
}

/// The kernel arguments: a limit per level, then EXEC's value as a pair.
const ARGS: usize = 5;

fn level() -> impl Strategy<Value = Level> {
    (
        prop::option::of(0u32..6),
        prop_oneof![Just(Exit::Scc), Just(Exit::Mask), Just(Exit::MaskInLatch)],
        prop::bool::weighted(0.15),
    )
        .prop_map(|(limit, exit, exec_in_body)| Level {
            limit,
            exit,
            exec_in_body,
        })
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
        "k:\n  s_load_dwordx2 s[20:21], s[4:5], 0xc\n  s_load_dwordx4 s[24:27], s[4:5], 0x0\n  s_waitcnt lgkmcnt(0)\n",
    );
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
    let c = 40 + k;
    let limit = l.limit.map_or(format!("s{}", 24 + k), |v| v.to_string());
    let (mask, held) = (50 + 2 * k, 60 + 2 * k);
    let _ = writeln!(
        s,
        "  s_mov_b32 s{c}, 0\n.Lh{k}:\n  s_cmp_ge_u32 s{c}, {limit}"
    );
    match l.exit {
        Exit::Scc => {
            let _ = writeln!(s, "  s_cbranch_scc1 .Lx{k}");
        }
        Exit::Mask => {
            let _ = writeln!(
                s,
                "  s_cselect_b64 s[{mask}:{}], -1, 0\n  s_and_b64 vcc, exec, s[{mask}:{}]\n  s_cbranch_vccnz .Lx{k}",
                mask + 1,
                mask + 1
            );
        }
        Exit::MaskInLatch => {
            let _ = writeln!(
                s,
                "  s_cselect_b64 s[{mask}:{}], -1, 0\n  s_and_b64 s[{held}:{}], exec, s[{mask}:{}]",
                mask + 1,
                held + 1,
                mask + 1
            );
        }
    }
    let _ = writeln!(s, "  v_xor_b32_e32 v1, s{c}, v1");
    if l.exec_in_body {
        s.push_str("  s_mov_b64 exec, s[20:21]\n");
    }
    emit(s, levels, k + 1);
    let _ = writeln!(s, "  s_add_u32 s{c}, s{c}, 1");
    if let Exit::MaskInLatch = l.exit {
        let _ = writeln!(
            s,
            "  s_mov_b64 vcc, s[{held}:{}]\n  s_cbranch_vccnz .Lx{k}",
            held + 1
        );
    }
    let _ = writeln!(s, "  s_branch .Lh{k}\n.Lx{k}:");
}

fn launch(args: &[u32]) -> Manifest {
    let args: Vec<String> = args.iter().map(u32::to_string).collect();
    let text = format!(
        "kernel = \"k.s\"\ngrid = 64\nworkgroup = 64\nargs = [{}]\n",
        args.join(", ")
    );
    Manifest::parse(&text, "k.toml").expect("generated manifest is valid")
}

/// The bound of every loop of `src` for `manifest`'s launch, outermost first.
fn bounds(src: &str, manifest: &Manifest) -> Vec<Option<u64>> {
    let program = pws_isa::assemble(src, "k.s").unwrap();
    let flow = Flow::new(&program, "k.s").unwrap();
    every_loop(&program, &flow, &LaunchValues::of(&program, manifest))
}

fn arguments() -> impl Strategy<Value = Vec<u32>> {
    let exec = prop_oneof![Just(0u32), Just(1), Just(u32::MAX), any::<u32>()];
    (prop::collection::vec(0u32..6, 3), exec.clone(), exec).prop_map(|(mut limits, lo, hi)| {
        limits.extend([lo, hi]);
        limits
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
        let bounds = bounds(&src, &manifest);
        prop_assert_eq!(bounds.len(), levels.len());
        let Some(bounds) = bounds.into_iter().collect::<Option<Vec<u64>>>() else {
            return Ok(());
        };
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
    }
}

/// The generator reaches both sides: loops bounded with EXEC narrowed or restored, and mask
/// exits left unbounded where EXEC may be empty.
#[test]
fn masks_are_bounded_only_where_exec_is_non_zero() {
    let mask = |exec_in_body| Level {
        limit: None,
        exit: Exit::MaskInLatch,
        exec_in_body,
    };
    let scc = Level {
        limit: Some(3),
        exit: Exit::Scc,
        exec_in_body: false,
    };
    let args = [4, 2, 5, 0, 0];
    let at = |setup, levels: &[Level]| bounds(&source(setup, levels), &launch(&args));
    let joined = Setup::If {
        k: 7,
        skip: false,
        join: true,
    };
    assert_eq!(at(Setup::Keep, &[mask(false), scc]), [Some(5), Some(4)]);
    assert_eq!(at(joined, &[mask(false), scc]), [Some(5), Some(4)]);
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
}
