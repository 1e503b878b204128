//! The limits of an RTL run sized for its workload. The compute unit simulates a few hundred
//! cycles per second, so a fixed cap is either hours for a runaway or too short for a large
//! launch; the golden model runs the same program on the same launch thousands of times
//! faster and says how much work it is. From its count the run gets
//!
//! - a per-wavefront instruction limit of twice the busiest wavefront's count plus 1000 (the
//!   RTL retires the same instructions; the margin covers split fallbacks that serialise
//!   differently), and
//! - a cycle cap of the dispatch cost plus every instruction taking the deadlock watchdog's
//!   whole window one after another, which no completing run can reach,
//!
//! and the heuristic no-progress window is left off: the launch is known to end.
//!
//! When the golden model stops the launch as a runaway, the RTL would need hours to confirm
//! it, so its checks are tightened: a 10,000-cycle no-progress window and 100,000 instructions
//! per wavefront. When the golden model cannot run the launch for another reason (a fault, a
//! deadlock), the caps fall back to the golden model's own defaults and a 100,000-cycle window,
//! and the RTL's checks report what it does.

use pws_hdl::config::HwConfig;
use pws_hdl::cu::CuMode;
use pws_isa::manifest::Manifest;
use pws_isa::Program;
use pws_sim::cu::default_watchdog;

use crate::golden::{self, GoldenError, Stats};

/// The cycle cap and instruction limit when the golden model cannot size the run.
pub const UNSIZED_LIMIT: u64 = 10_000_000;
/// The no-progress window when the golden model cannot size the run, in cycles.
pub const UNSIZED_NO_PROGRESS: u64 = 100_000;
/// The no-progress window and the instruction limit when the golden model finds a runaway.
pub const RUNAWAY_NO_PROGRESS: u64 = 10_000;
pub const RUNAWAY_INSTRUCTIONS: u64 = 100_000;
/// Dispatch cycles per wavefront (docs/sim.md: 7 SGPR writes, 4 VGPR passes, the launch).
const DISPATCH_CYCLES: u64 = 12;

/// Limits for one RTL run.
#[derive(Debug)]
pub struct RunLimits {
    pub max_cycles: u64,
    /// Per wavefront.
    pub max_instructions: u64,
    pub no_progress: Option<u64>,
    /// Why the run could not be sized (the golden model's error), if it could not.
    pub unsized_because: Option<GoldenError>,
}

/// Limits from a completed golden run's statistics.
pub fn from_stats(stats: &Stats, hw: &HwConfig) -> RunLimits {
    let waves = u64::from(stats.wavefronts);
    let per_instruction = default_watchdog(hw);
    RunLimits {
        max_cycles: (stats.instructions + waves)
            .saturating_mul(per_instruction)
            .saturating_add(DISPATCH_CYCLES * waves),
        max_instructions: stats
            .peak_wavefront_instructions
            .saturating_mul(2)
            .saturating_add(1000),
        no_progress: None,
        unsized_because: None,
    }
}

/// Limits for running `program` on `manifest` on the compute unit `hw` in `mode`, from a
/// golden-model run of the same program (split and merge as the mode treats them).
pub fn size(program: &Program, manifest: &Manifest, hw: &HwConfig, mode: CuMode) -> RunLimits {
    let config = golden::Config {
        mode: match mode {
            CuMode::NoSplit => golden::Mode::NoSplit,
            CuMode::Dws | CuMode::Pws => golden::Mode::Pws,
        },
        s: hw.spsimds_per_simd,
        final_registers: false,
        ..golden::Config::default()
    };
    match golden::run(program, manifest, &config) {
        Ok(report) => from_stats(&report.stats, hw),
        Err(e @ GoldenError::InstructionLimit { .. }) => RunLimits {
            max_cycles: UNSIZED_LIMIT,
            max_instructions: RUNAWAY_INSTRUCTIONS,
            no_progress: Some(RUNAWAY_NO_PROGRESS),
            unsized_because: Some(e),
        },
        Err(e) => RunLimits {
            max_cycles: UNSIZED_LIMIT,
            max_instructions: UNSIZED_LIMIT,
            no_progress: Some(UNSIZED_NO_PROGRESS),
            unsized_because: Some(e),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch(src: &str) -> (Program, Manifest) {
        let program = pws_isa::assemble(src, "k.s").unwrap();
        let manifest =
            Manifest::parse("kernel = \"k.s\"\ngrid = 128\nworkgroup = 64\n", "l.toml").unwrap();
        (program, manifest)
    }

    #[test]
    fn a_completing_launch_is_sized_from_its_instruction_count() {
        let (p, m) =
            launch("s_mov_b32 s8, 3\nL:\n s_sub_u32 s8, s8, 1\n s_cbranch_scc0 L\n s_endpgm\n");
        let hw = HwConfig::cu();
        let limits = size(&p, &m, &hw, CuMode::Pws);
        assert!(limits.unsized_because.is_none());
        // Each of the 2 wavefronts: s_mov, 4 x (s_sub, s_cbranch), s_endpgm.
        assert_eq!(limits.max_instructions, 2 * 10 + 1000);
        assert_eq!(limits.max_cycles, (20 + 2) * default_watchdog(&hw) + 24);
        assert_eq!(limits.no_progress, None);
    }

    #[test]
    fn a_runaway_leaves_the_rtl_checks_on() {
        let (p, m) = launch("L:\n s_add_u32 s0, s0, 1\n s_branch L\n");
        let limits = size(&p, &m, &HwConfig::cu(), CuMode::NoSplit);
        assert!(matches!(
            limits.unsized_because,
            Some(GoldenError::InstructionLimit { .. })
        ));
        assert_eq!(limits.no_progress, Some(RUNAWAY_NO_PROGRESS));
        assert_eq!(limits.max_instructions, RUNAWAY_INSTRUCTIONS);
        assert_eq!(limits.max_cycles, UNSIZED_LIMIT);
    }
}
