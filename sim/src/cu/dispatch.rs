//! The workgroup dispatcher (the SPI's role): takes workgroups in order and starts one only
//! when all its wavefronts fit in free slots at once (a barrier needs every wavefront of the
//! workgroup resident), then initialises and launches them one after another through the
//! compute unit's dispatch port, one register write per cycle: s0..s3 (the private segment
//! buffer, zero: there is no scratch), s[4:5] (kernarg pointer), s6 (workgroup id), then v0
//! (work-item ids) one 16-lane pass per cycle, then the launch with the wavefront's EXEC.
//! That is `7 + passes + 1` cycles per wavefront, the dispatch cost of the timing contract.

use std::collections::VecDeque;

use pws_isa::manifest::{abi, layout, Manifest, WAVEFRONT_SIZE};

use super::memory::PORT_LANES;

/// What the dispatcher drives on the port in one cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DispatchAction {
    /// Nothing this cycle.
    Idle,
    InitSgpr {
        slot: usize,
        addr: u8,
        data: u32,
    },
    InitVgpr {
        slot: usize,
        addr: u8,
        pass: u8,
        data: [u32; PORT_LANES],
    },
    Launch {
        slot: usize,
        pc: u32,
        exec: u64,
        /// Workgroup tag the barrier counts wavefronts by (the workgroup id modulo 256;
        /// resident workgroups never share one).
        wg_tag: u8,
        workgroup: u32,
        wave: u32,
    },
}

/// A wavefront being set up: its index in the workgroup and the writes still to do.
#[derive(Debug)]
struct Pending {
    wave: u32,
    /// Remaining actions, the launch last.
    actions: VecDeque<DispatchAction>,
}

/// Why a launch cannot be dispatched at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DispatchError {
    #[error("workgroup {workgroup} has {wavefronts} wavefronts but the compute unit has only {slots} slots (a workgroup's wavefronts must be resident together)")]
    WorkgroupTooLarge {
        workgroup: u32,
        wavefronts: u32,
        slots: usize,
    },
}

/// Workgroups waiting, and the one being dispatched.
#[derive(Debug)]
pub struct Dispatcher {
    next_wg: u32,
    workgroups: u32,
    slots: usize,
    passes: usize,
    kernarg: u64,
    /// Per workgroup: its wavefronts' EXEC masks.
    exec: Vec<Vec<u64>>,
    current: VecDeque<Pending>,
}

impl Dispatcher {
    /// A dispatcher for `manifest`'s launch on a compute unit with `slots` wavefront slots and
    /// `passes` 16-lane passes per wavefront.
    pub fn new(
        manifest: &Manifest,
        slots: usize,
        passes: usize,
    ) -> Result<Dispatcher, DispatchError> {
        let exec: Vec<Vec<u64>> = (0..manifest.workgroups())
            .map(|wg| {
                (0..manifest.wavefronts_in(wg))
                    .map(|w| manifest.initial_exec(wg, w))
                    .collect()
            })
            .collect();
        if let Some((wg, e)) = exec.iter().enumerate().find(|(_, e)| e.len() > slots) {
            return Err(DispatchError::WorkgroupTooLarge {
                workgroup: wg as u32,
                wavefronts: e.len() as u32,
                slots,
            });
        }
        Ok(Dispatcher {
            next_wg: 0,
            workgroups: manifest.workgroups(),
            slots,
            passes,
            kernarg: layout::KERNARG_BASE,
            exec,
            current: VecDeque::new(),
        })
    }

    /// Every workgroup has been launched.
    pub fn done(&self) -> bool {
        self.next_wg == self.workgroups && self.current.is_empty()
    }

    /// Workgroups launched or being launched.
    pub fn started_workgroups(&self) -> u32 {
        self.next_wg
    }

    /// The action for this cycle, given which slots the compute unit reports free.
    pub fn step(&mut self, slot_free: u32) -> DispatchAction {
        if self.current.is_empty() && self.next_wg < self.workgroups {
            self.try_start(slot_free);
        }
        let Some(p) = self.current.front_mut() else {
            return DispatchAction::Idle;
        };
        let action = p.actions.pop_front().unwrap_or(DispatchAction::Idle);
        if p.actions.is_empty() {
            self.current.pop_front();
        }
        action
    }

    /// Reserves slots for the next workgroup if all its wavefronts fit now.
    fn try_start(&mut self, slot_free: u32) {
        let wg = self.next_wg;
        let exec = &self.exec[wg as usize];
        let free: Vec<usize> = (0..self.slots)
            .filter(|&j| slot_free >> j & 1 == 1)
            .collect();
        if free.len() < exec.len() {
            return;
        }
        for (wave, (&slot, &mask)) in free.iter().zip(exec).enumerate() {
            let wave = wave as u32;
            let mut actions = VecDeque::new();
            let sgprs = [
                0,
                0,
                0,
                0,
                self.kernarg as u32,
                (self.kernarg >> 32) as u32,
                wg,
            ];
            debug_assert_eq!(sgprs.len(), usize::from(abi::WORKGROUP_ID_X_SGPR) + 1);
            for (addr, &data) in sgprs.iter().enumerate() {
                actions.push_back(DispatchAction::InitSgpr {
                    slot,
                    addr: addr as u8,
                    data,
                });
            }
            for pass in 0..self.passes {
                let mut data = [0; PORT_LANES];
                for (l, d) in data.iter_mut().enumerate() {
                    *d = wave * WAVEFRONT_SIZE + (pass * PORT_LANES + l) as u32;
                }
                actions.push_back(DispatchAction::InitVgpr {
                    slot,
                    addr: abi::WORKITEM_ID_X_VGPR,
                    pass: pass as u8,
                    data,
                });
            }
            actions.push_back(DispatchAction::Launch {
                slot,
                pc: 0,
                exec: mask,
                wg_tag: wg as u8,
                workgroup: wg,
                wave,
            });
            self.current.push_back(Pending { wave, actions });
        }
        self.next_wg += 1;
    }

    /// Whether the compute unit must hold its barriers this cycle: a workgroup is half
    /// launched, and its first wavefronts must not pass a barrier before the rest exist.
    pub fn holds_barrier(&self) -> bool {
        self.current.front().is_some_and(|p| p.wave > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(grid: u32, wg: u32) -> Manifest {
        Manifest::parse(
            &format!("kernel = \"k.s\"\ngrid = {grid}\nworkgroup = {wg}\n"),
            "l.toml",
        )
        .unwrap()
    }

    fn drain(d: &mut Dispatcher, free: u32) -> Vec<DispatchAction> {
        let mut out = Vec::new();
        loop {
            match d.step(free) {
                DispatchAction::Idle => return out,
                a => out.push(a),
            }
        }
    }

    #[test]
    fn initialises_the_abi_registers_then_launches() {
        let m = manifest(100, 100);
        let mut d = Dispatcher::new(&m, 2, 4).unwrap();
        let actions = drain(&mut d, 0b11);
        assert_eq!(actions.len(), 2 * (7 + 4 + 1));
        assert_eq!(
            actions[4],
            DispatchAction::InitSgpr {
                slot: 0,
                addr: 4,
                data: layout::KERNARG_BASE as u32
            }
        );
        let DispatchAction::InitVgpr { pass, data, .. } = &actions[8] else {
            panic!("{:?}", actions[8]);
        };
        assert_eq!((*pass, data[0], data[15]), (1, 16, 31));
        let DispatchAction::Launch { slot, exec, .. } = actions[23] else {
            panic!("{:?}", actions[23]);
        };
        assert_eq!((slot, exec), (1, (1 << 36) - 1));
        let DispatchAction::InitVgpr { data, .. } = &actions[19] else {
            panic!("{:?}", actions[19]);
        };
        assert_eq!(data[0], 64, "wave 1, pass 0, lane 0");
        assert!(d.done());
    }

    #[test]
    fn holds_barriers_while_a_workgroup_is_half_launched() {
        let m = manifest(128, 128);
        let mut d = Dispatcher::new(&m, 2, 4).unwrap();
        let mut holds = Vec::new();
        loop {
            holds.push(d.holds_barrier());
            if d.step(0b11) == DispatchAction::Idle {
                break;
            }
        }
        // Wave 0's 12 cycles free; wave 1's 12 cycles (its launch included) held.
        assert_eq!(holds.iter().filter(|&&h| h).count(), 12);
        assert!(!holds[11] && holds[12] && holds[23] && !holds[24]);
    }

    #[test]
    fn waits_until_the_whole_workgroup_fits() {
        let m = manifest(256, 128);
        let mut d = Dispatcher::new(&m, 3, 4).unwrap();
        assert_eq!(d.step(0b001), DispatchAction::Idle);
        let first: Vec<DispatchAction> = (0..24).map(|_| d.step(0b101)).collect();
        assert!(matches!(first[23], DispatchAction::Launch { slot: 2, .. }));
        assert_eq!(d.started_workgroups(), 1);
        assert_eq!(d.step(0b010), DispatchAction::Idle);
        let rest = drain(&mut d, 0b110);
        assert!(matches!(rest[0], DispatchAction::InitSgpr { slot: 1, .. }));
        assert!(matches!(
            rest[23],
            DispatchAction::Launch {
                slot: 2,
                workgroup: 1,
                wave: 1,
                ..
            }
        ));
        assert!(d.done());
    }

    #[test]
    fn a_workgroup_larger_than_the_compute_unit_is_an_error() {
        let m = manifest(256, 256);
        let e = Dispatcher::new(&m, 2, 4).unwrap_err();
        assert!(e.to_string().contains("4 wavefronts"), "{e}");
    }
}
