//! Golden model of the BCC/SCC swizzle unit, written from S1 (Vaidya et al., ISCA'13) as
//! restated in the digest (§1.4–1.5), independently of the RTL in `pws_hdl::swizzle`.
//!
//! The SCC schedule runs S1 Fig. 6's control algorithm literally: one queue of lane groups per
//! ALU position, a surplus count per lane, and a position-by-position fill of every pass in
//! which an empty position borrows from the lowest lane that still has surplus (the digest's
//! tie-breaks: positions ascending, donor = lowest lane with surplus, dequeue from the head).
//! The RTL computes the same schedule from a closed form, so agreement between the two is a
//! real check. [`rtl`] drives the RTL unit through the cycle driver and reads its passes back.

use std::collections::VecDeque;

/// Which compaction applies.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    None,
    Bcc,
    Scc,
}

/// One pass: for each ALU position, the wavefront lane executed there (`None` = idle).
pub type Pass = Vec<Option<usize>>;

/// A wavefront of `width` lanes on an ALU of `lanes` positions.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub width: usize,
    pub lanes: usize,
}

impl Geometry {
    /// Lane groups (S1's quads): `width / lanes`.
    pub fn groups(&self) -> usize {
        self.width / self.lanes
    }

    fn active(&self, mask: u64, group: usize, lane: usize) -> bool {
        let i = group * self.lanes + lane;
        i < 64 && mask >> i & 1 == 1
    }

    fn group_active(&self, mask: u64, group: usize) -> bool {
        (0..self.lanes).any(|l| self.active(mask, group, l))
    }

    /// The mask restricted to the wavefront's lanes.
    pub fn clip(&self, mask: u64) -> u64 {
        if self.width >= 64 {
            mask
        } else {
            mask & ((1u64 << self.width) - 1)
        }
    }
}

/// Passes without compaction: `width / lanes`.
pub fn base_cycles(g: Geometry) -> usize {
    g.groups()
}

/// Passes under BCC: the lane groups with an active lane (S1 §1.4).
pub fn bcc_cycles(mask: u64, g: Geometry) -> usize {
    (0..g.groups()).filter(|&q| g.group_active(mask, q)).count()
}

/// Passes under SCC: `ceil(popcount / lanes)` (S1 §1.5).
pub fn scc_cycles(mask: u64, g: Geometry) -> usize {
    g.clip(mask).count_ones().div_ceil(g.lanes as u32) as usize
}

/// The pass schedule of one instruction with execution mask `mask`.
pub fn schedule(mask: u64, g: Geometry, mode: Mode) -> Vec<Pass> {
    let mask = g.clip(mask);
    let in_place = |q: usize| -> Pass {
        (0..g.lanes)
            .map(|l| g.active(mask, q, l).then_some(q * g.lanes + l))
            .collect()
    };
    match mode {
        Mode::None => (0..g.groups()).map(in_place).collect(),
        Mode::Bcc => (0..g.groups())
            .filter(|&q| g.group_active(mask, q))
            .map(in_place)
            .collect(),
        Mode::Scc => {
            let passes = scc_cycles(mask, g);
            if passes == bcc_cycles(mask, g) {
                // S1 Fig. 6: when the non-empty groups already fill o_cyc passes, issue them
                // unswizzled.
                schedule(mask, g, Mode::Bcc)
            } else {
                scc_queue_schedule(mask, g, passes)
            }
        }
    }
}

/// S1 Fig. 6 with the digest's tie-breaks.
fn scc_queue_schedule(mask: u64, g: Geometry, passes: usize) -> Vec<Pass> {
    let mut queue: Vec<VecDeque<usize>> = (0..g.lanes)
        .map(|l| (0..g.groups()).filter(|&q| g.active(mask, q, l)).collect())
        .collect();
    let mut surplus: Vec<usize> = queue
        .iter()
        .map(|q| q.len().saturating_sub(passes))
        .collect();
    let mut total_surplus: usize = surplus.iter().sum();
    let mut out = Vec::with_capacity(passes);
    for _ in 0..passes {
        let mut pass = vec![None; g.lanes];
        for n in 0..g.lanes {
            if let Some(q) = queue[n].pop_front() {
                pass[n] = Some(q * g.lanes + n);
            } else if total_surplus > 0 {
                let m = (0..g.lanes)
                    .find(|&m| surplus[m] > 0)
                    .expect("a positive total surplus has a donor");
                let q = queue[m]
                    .pop_front()
                    .expect("a donor's queue holds its surplus");
                pass[n] = Some(q * g.lanes + m);
                surplus[m] -= 1;
                total_surplus -= 1;
            }
        }
        out.push(pass);
    }
    out
}

/// The un-swizzle of one pass: for each wavefront lane, the ALU position whose result it
/// receives.
pub fn write_back(pass: &Pass, g: Geometry) -> Vec<Option<usize>> {
    let mut wb = vec![None; g.width];
    for (p, src) in pass.iter().enumerate() {
        if let Some(lane) = src {
            wb[*lane] = Some(p);
        }
    }
    wb
}

/// The pass schedule as computed by the RTL unit, stepped through the cycle driver.
pub mod rtl {
    use std::io::Write;

    use pws_hdl::swizzle::{SwizzleMode, SwizzleUnit};
    use pws_sim::{Driver, DriverError};

    use super::{Mode, Pass};

    /// What one instruction's run of the unit produced.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct Run {
        /// The passes the unit emitted (`pass_valid_o`), one per cycle.
        pub passes: Vec<Pass>,
        /// The un-swizzle outputs of each pass (lane -> ALU position).
        pub write_back: Vec<Vec<Option<usize>>>,
        /// Cycles from the one after `start_i` up to and including `done_o`.
        pub busy_cycles: u64,
    }

    /// Why the unit could not be run.
    #[derive(Debug, thiserror::Error)]
    pub enum RunError {
        #[error(transparent)]
        Driver(#[from] DriverError),
        #[error("the swizzle unit did not accept start_i")]
        NotReady,
        #[error("the swizzle unit did not finish within {0} cycles")]
        NoDone(u64),
    }

    /// The hardware encoding of a mode.
    pub fn hw_mode(mode: Mode) -> SwizzleMode {
        match mode {
            Mode::None => SwizzleMode::None,
            Mode::Bcc => SwizzleMode::Bcc,
            Mode::Scc => SwizzleMode::Scc,
        }
    }

    /// Runs one instruction on an idle unit held by `driver`.
    pub fn issue(driver: &mut Driver<SwizzleUnit>, mask: u64, mode: Mode) -> Result<Run, RunError> {
        driver.settle()?;
        if !driver.uut().ready_o.val() {
            return Err(RunError::NotReady);
        }
        let uut = driver.uut_mut();
        uut.set_mask(mask);
        uut.mode_i.next = hw_mode(mode);
        uut.start_i.next = true;
        driver.tick()?;
        driver.uut_mut().start_i.next = false;
        // Every mode finishes within one pass per lane group, plus the decision cycle.
        let limit = pws_hdl::swizzle::MAX_GROUPS as u64 + 1;
        let mut run = Run {
            passes: Vec::new(),
            write_back: Vec::new(),
            busy_cycles: 0,
        };
        while run.busy_cycles < limit {
            driver.settle()?;
            run.busy_cycles += 1;
            let uut = driver.uut();
            if uut.pass_valid_o.val() {
                run.passes.push(uut.current_pass());
                run.write_back.push(uut.current_write_back());
            }
            let done = uut.done_o.val();
            driver.tick()?;
            if done {
                return Ok(run);
            }
        }
        Err(RunError::NoDone(limit))
    }

    /// Builds a unit for `width` x `lanes`, optionally tracing it to `vcd`, and runs one
    /// instruction on it.
    pub fn run(
        width: usize,
        lanes: usize,
        mask: u64,
        mode: Mode,
        vcd: Option<Box<dyn Write>>,
    ) -> Result<Run, Box<dyn std::error::Error>> {
        let unit = SwizzleUnit::new(width, lanes)?;
        let mut driver = match vcd {
            Some(out) => Driver::with_vcd(unit, out)?,
            None => Driver::new(unit)?,
        };
        Ok(issue(&mut driver, mask, mode)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIMD16: Geometry = Geometry {
        width: 16,
        lanes: 4,
    };

    #[test]
    fn scc_packs_every_active_lane_once_for_every_simd16_mask() {
        for mask in 0..=0xFFFFu64 {
            let s = schedule(mask, SIMD16, Mode::Scc);
            assert_eq!(s.len(), scc_cycles(mask, SIMD16), "{mask:#x}");
            let mut seen: Vec<usize> = s.iter().flatten().flatten().copied().collect();
            seen.sort_unstable();
            let expected: Vec<usize> = (0..16).filter(|i| mask >> i & 1 == 1).collect();
            assert_eq!(seen, expected, "{mask:#x}");
            assert!(s.len() <= bcc_cycles(mask, SIMD16));
        }
    }

    #[test]
    fn write_back_inverts_the_pass() {
        let s = schedule(0xAAAA, SIMD16, Mode::Scc);
        for pass in &s {
            let wb = write_back(pass, SIMD16);
            for (lane, p) in wb.iter().enumerate() {
                if let Some(p) = p {
                    assert_eq!(pass[*p], Some(lane));
                }
            }
        }
    }
}
