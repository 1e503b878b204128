//! The workgroup dispatcher (the SPI's role): takes workgroups in order (x fastest, then y,
//! then z) and starts one only when all its wavefronts fit in free slots at once (a barrier
//! needs every wavefront of the workgroup resident), then initialises and launches them one
//! after another through the compute unit's dispatch port, one register write per cycle: the
//! SGPRs of the kernel's launch ABI (`pws_isa::abi`: the user SGPRs its descriptor enables,
//! then the system SGPRs, s0..s6 for a kernel without one), then the work-item id VGPRs (v0 = x,
//! v1 = y, v2 = z, as many as the descriptor asks for) one 16-lane pass per cycle, then the
//! launch with the wavefront's EXEC. That is `sgprs + vgprs · passes + 1` cycles per
//! wavefront, the dispatch cost of the timing contract.
//!
//! A kernel with a group segment (`.amdhsa_group_segment_fixed_size`) also needs LDS: the
//! workgroup gets a region of that size rounded up to whole 128-byte rows (so that a lane's LDS
//! bank depends only on its address within the region), first fit in the compute unit's LDS,
//! and starts only when both its slots and its region are free, so the LDS limits occupancy as
//! on GCN. Before its first wavefront's registers the dispatcher zeroes the region one row per
//! cycle (the golden model's workgroups start with a zeroed LDS): `ceil(size / 128)` more
//! cycles per workgroup. The region is freed when the last of its wavefronts has ended.
//!
//! VGPRs limit occupancy as on GCN: each SIMD's slots share its register file, and a wavefront
//! gets the kernel's VGPRs in whole granules ([`SlotMap`]), so only the first
//! `HwConfig::wavefronts_per_simd` slots of each SIMD take wavefronts of a kernel, slot i of a
//! SIMD with its registers from i times the allocation on. The dispatcher drives that base with
//! the wavefront's VGPR writes and its launch.

use std::collections::VecDeque;

use pws_hdl::config::{vgpr_allocation, HwConfig};
use pws_isa::abi::LaunchAbi;
use pws_isa::manifest::Manifest;

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
        /// The wavefront's first register in its SIMD's VRF.
        vgpr_base: u8,
        addr: u8,
        pass: u8,
        data: [u32; PORT_LANES],
    },
    /// Zero LDS row `row` (128 bytes).
    ClearLds {
        row: u32,
    },
    Launch {
        slot: usize,
        vgpr_base: u8,
        pc: u32,
        exec: u64,
        /// The workgroup's LDS region: first byte and size.
        lds_base: u32,
        lds_size: u32,
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
    #[error("workgroup {workgroup} has {wavefronts} wavefronts but the compute unit holds only {slots} of this kernel's at once (a workgroup's wavefronts must be resident together): {why}")]
    WorkgroupTooLarge {
        workgroup: u32,
        wavefronts: u32,
        slots: usize,
        /// What limits the slots: the kernel's VGPRs or the compute unit's geometry.
        why: String,
    },
    #[error("the kernel's group segment of {bytes} bytes is larger than the compute unit's LDS of {lds} bytes (lds_bytes)")]
    LdsTooSmall { bytes: u32, lds: u32 },
}

/// Which slots of the compute unit take a kernel's wavefronts and where their VGPRs go: slot j
/// is slot j mod N_WFC of SIMD j / N_WFC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlotMap {
    pub simds: usize,
    pub slots_per_simd: usize,
    /// The first this many slots of each SIMD hold a wavefront of the kernel.
    pub wavefronts_per_simd: usize,
    /// VGPRs each wavefront gets.
    pub vgpr_allocation: usize,
}

impl SlotMap {
    /// The slots of `hw` for a kernel using `vgprs` VGPRs.
    pub fn new(hw: &HwConfig, vgprs: usize) -> SlotMap {
        SlotMap {
            simds: hw.simds_per_cu,
            slots_per_simd: hw.wf_contexts_per_simd,
            wavefronts_per_simd: hw.wavefronts_per_simd(vgprs),
            vgpr_allocation: vgpr_allocation(vgprs),
        }
    }

    /// One SIMD whose `slots` slots all take a wavefront of 4 VGPRs.
    pub fn one_simd(slots: usize) -> SlotMap {
        SlotMap {
            simds: 1,
            slots_per_simd: slots,
            wavefronts_per_simd: slots,
            vgpr_allocation: vgpr_allocation(1),
        }
    }

    /// Slots of the compute unit.
    pub fn slots(&self) -> usize {
        self.simds * self.slots_per_simd
    }

    /// Wavefronts of the kernel the compute unit holds at once.
    pub fn capacity(&self) -> usize {
        self.simds * self.wavefronts_per_simd
    }

    /// Why the compute unit holds no more of the kernel's wavefronts than it does.
    pub fn limit(&self) -> String {
        let geometry = format!(
            "{} SIMD(s) of {} wavefront slots",
            self.simds, self.slots_per_simd
        );
        if self.wavefronts_per_simd < self.slots_per_simd {
            format!(
                "the kernel's {} VGPRs per wavefront leave room for {} wavefront(s) in each \
                 SIMD's register file, of its {} slots ({geometry})",
                self.vgpr_allocation, self.wavefronts_per_simd, self.slots_per_simd
            )
        } else {
            format!(
                "it has {geometry} (simds_per_cu x wf_contexts_per_simd); run the launch on a \
                 configuration with more, such as `--config gcn3` (4 SIMDs of 10)"
            )
        }
    }

    /// Slot j can take a wavefront of the kernel.
    pub fn usable(&self, j: usize) -> bool {
        j % self.slots_per_simd < self.wavefronts_per_simd
    }

    /// The first VGPR of slot j's wavefront in its SIMD's VRF.
    pub fn vgpr_base(&self, j: usize) -> u8 {
        ((j % self.slots_per_simd) * self.vgpr_allocation) as u8
    }
}

/// Bytes in one LDS row (one dword in each of its 32 banks).
const LDS_ROW: u32 = 128;

/// A resident workgroup's LDS region and the slots of its wavefronts, not yet launched and
/// running.
#[derive(Debug)]
struct Region {
    base: u32,
    size: u32,
    waiting: Vec<usize>,
    running: Vec<usize>,
}

/// Workgroups waiting, and the one being dispatched.
#[derive(Debug)]
pub struct Dispatcher<'m> {
    manifest: &'m Manifest,
    abi: LaunchAbi,
    next_wg: u32,
    workgroups: u32,
    slots: SlotMap,
    passes: usize,
    current: VecDeque<Pending>,
    /// Bytes of the compute unit's LDS, and the regions of the workgroups holding some.
    lds_bytes: u32,
    regions: Vec<Region>,
    /// Slots whose launch was driven in the last call (they read free in that cycle).
    just_launched: Vec<usize>,
}

impl<'m> Dispatcher<'m> {
    /// A dispatcher for `manifest`'s launch of a kernel with launch ABI `abi` on the slots of
    /// `slots`, with `passes` 16-lane passes per wavefront.
    pub fn new(
        manifest: &'m Manifest,
        abi: LaunchAbi,
        slots: SlotMap,
        passes: usize,
    ) -> Result<Dispatcher<'m>, DispatchError> {
        let workgroups = manifest.workgroups();
        // Every workgroup but the last of a dimension is full-sized, so the first is largest.
        if let Some(wg) =
            (0..workgroups).find(|&wg| manifest.wavefronts_in(wg) as usize > slots.capacity())
        {
            return Err(DispatchError::WorkgroupTooLarge {
                workgroup: wg,
                wavefronts: manifest.wavefronts_in(wg),
                slots: slots.capacity(),
                why: slots.limit(),
            });
        }
        Ok(Dispatcher {
            manifest,
            abi,
            next_wg: 0,
            workgroups,
            slots,
            passes,
            current: VecDeque::new(),
            lds_bytes: 64 * 1024,
            regions: Vec::new(),
            just_launched: Vec::new(),
        })
    }

    /// The same dispatcher for a compute unit with an LDS of `lds_bytes` bytes (GCN3's 64 KiB
    /// without this); the kernel's group segment must fit in it.
    pub fn with_lds(mut self, lds_bytes: u32) -> Result<Self, DispatchError> {
        let bytes = self.region_bytes();
        if bytes > lds_bytes {
            return Err(DispatchError::LdsTooSmall {
                bytes: self.abi.group_segment_size,
                lds: lds_bytes,
            });
        }
        self.lds_bytes = lds_bytes;
        Ok(self)
    }

    /// The LDS a workgroup takes: its group segment in whole rows.
    fn region_bytes(&self) -> u32 {
        self.abi.group_segment_size.div_ceil(LDS_ROW) * LDS_ROW
    }

    /// The first free range of `size` bytes, first fit.
    fn find_region(&self, size: u32) -> Option<u32> {
        let mut taken: Vec<(u32, u32)> = self.regions.iter().map(|r| (r.base, r.size)).collect();
        taken.sort_unstable();
        let mut base = 0;
        for (b, s) in taken {
            if b - base >= size {
                return Some(base);
            }
            base = b + s;
        }
        (self.lds_bytes - base >= size).then_some(base)
    }

    /// Frees the regions whose wavefronts have all ended (their slots read free again).
    fn release(&mut self, slot_free: u64) {
        let just = std::mem::take(&mut self.just_launched);
        for r in &mut self.regions {
            r.running
                .retain(|&s| slot_free >> s & 1 == 0 || just.contains(&s));
        }
        self.regions
            .retain(|r| !r.waiting.is_empty() || !r.running.is_empty());
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
    pub fn step(&mut self, slot_free: u64) -> DispatchAction {
        self.release(slot_free);
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
        if let DispatchAction::Launch { slot, .. } = action {
            self.just_launched.push(slot);
            for r in &mut self.regions {
                if let Some(i) = r.waiting.iter().position(|&s| s == slot) {
                    r.waiting.remove(i);
                    r.running.push(slot);
                }
            }
        }
        action
    }

    /// Reserves slots for the next workgroup if all its wavefronts fit now.
    fn try_start(&mut self, slot_free: u64) {
        let (wg, m) = (self.next_wg, self.manifest);
        let waves = m.wavefronts_in(wg) as usize;
        let free: Vec<usize> = (0..self.slots.slots())
            .filter(|&j| slot_free >> j & 1 == 1 && self.slots.usable(j))
            .collect();
        if free.len() < waves {
            return;
        }
        let size = self.region_bytes();
        let base = if size == 0 {
            0
        } else {
            let Some(base) = self.find_region(size) else {
                return;
            };
            self.regions.push(Region {
                base,
                size,
                waiting: free.iter().take(waves).copied().collect(),
                running: Vec::new(),
            });
            base
        };
        for (wave, &slot) in free.iter().take(waves).enumerate() {
            let wave = wave as u32;
            let vgpr_base = self.slots.vgpr_base(slot);
            let mut actions = VecDeque::new();
            if wave == 0 {
                for row in 0..size / LDS_ROW {
                    actions.push_back(DispatchAction::ClearLds {
                        row: base / LDS_ROW + row,
                    });
                }
            }
            for (addr, data) in self.abi.sgpr_values(m, wg, wave).into_iter().enumerate() {
                actions.push_back(DispatchAction::InitSgpr {
                    slot,
                    addr: addr as u8,
                    data,
                });
            }
            for (addr, ids) in self.abi.vgpr_values(m, wg, wave).iter().enumerate() {
                for pass in 0..self.passes {
                    let mut data = [0; PORT_LANES];
                    data.copy_from_slice(&ids[pass * PORT_LANES..(pass + 1) * PORT_LANES]);
                    actions.push_back(DispatchAction::InitVgpr {
                        slot,
                        vgpr_base,
                        addr: addr as u8,
                        pass: pass as u8,
                        data,
                    });
                }
            }
            actions.push_back(DispatchAction::Launch {
                slot,
                vgpr_base,
                pc: 0,
                exec: m.initial_exec(wg, wave),
                lds_base: base,
                lds_size: size,
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

    use pws_isa::manifest::layout;

    fn manifest(grid: u32, wg: u32) -> Manifest {
        Manifest::parse(
            &format!("kernel = \"k.s\"\ngrid = {grid}\nworkgroup = {wg}\n"),
            "l.toml",
        )
        .unwrap()
    }

    fn drain(d: &mut Dispatcher, free: u64) -> Vec<DispatchAction> {
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
        let mut d = Dispatcher::new(&m, LaunchAbi::legacy(), SlotMap::one_simd(2), 4).unwrap();
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
        let mut d = Dispatcher::new(&m, LaunchAbi::legacy(), SlotMap::one_simd(2), 4).unwrap();
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
        let mut d = Dispatcher::new(&m, LaunchAbi::legacy(), SlotMap::one_simd(3), 4).unwrap();
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

    /// A 2-D launch of a kernel whose descriptor asks for workgroup ids x and y and the x and
    /// y work-item ids: 4 x 4 workgroups of a 6 x 5 grid, the last column 2 wide.
    #[test]
    fn two_dimensional_ids_follow_the_descriptor() {
        let m = Manifest::parse(
            "kernel = \"k.s\"\ngrid = [6, 5]\nworkgroup = [4, 4]\n",
            "l.toml",
        )
        .unwrap();
        let src = "k:\ns_endpgm\n.amdhsa_kernel k\n.amdhsa_next_free_vgpr 2\n\
                   .amdhsa_next_free_sgpr 4\n.amdhsa_user_sgpr_kernarg_segment_ptr 1\n\
                   .amdhsa_system_sgpr_workgroup_id_y 1\n.amdhsa_system_vgpr_workitem_id 1\n\
                   .end_amdhsa_kernel\n";
        let abi = LaunchAbi::of_program(&pws_isa::assemble(src, "k.s").unwrap());
        let mut d = Dispatcher::new(&m, abi, SlotMap::one_simd(4), 4).unwrap();
        let actions = drain(&mut d, 0b1111);
        // Per wavefront: s[0:1] kernarg, s2 group x, s3 group y, v0 and v1 in 4 passes, launch.
        assert_eq!(actions.len(), 4 * (4 + 2 * 4 + 1));
        let sgprs = |w: usize| -> Vec<u32> {
            actions[w * 13..w * 13 + 4]
                .iter()
                .map(|a| match a {
                    DispatchAction::InitSgpr { data, .. } => *data,
                    a => panic!("{a:?}"),
                })
                .collect()
        };
        assert_eq!(sgprs(0), [layout::KERNARG_BASE as u32, 0, 0, 0]);
        assert_eq!(sgprs(1)[2..], [1, 0]);
        assert_eq!(sgprs(3)[2..], [1, 1]);
        // Workgroup 1 is 2 x 4: lane 5 is (1, 2).
        let DispatchAction::InitVgpr {
            addr: 0, data: x, ..
        } = &actions[13 + 4]
        else {
            panic!();
        };
        let DispatchAction::InitVgpr {
            addr: 1, data: y, ..
        } = &actions[13 + 8]
        else {
            panic!();
        };
        assert_eq!((x[5], y[5]), (1, 2));
        let DispatchAction::Launch { exec, .. } = actions[25] else {
            panic!();
        };
        assert_eq!(exec, 0xFF);
    }

    #[test]
    fn the_lds_limits_occupancy_and_each_workgroup_starts_with_its_region_zeroed() {
        let m = manifest(256, 64);
        let src = "k:\ns_endpgm\n.amdhsa_kernel k\n.amdhsa_next_free_vgpr 1\n\
                   .amdhsa_next_free_sgpr 8\n.amdhsa_group_segment_fixed_size 200\n\
                   .end_amdhsa_kernel\n";
        let abi = LaunchAbi::of_program(&pws_isa::assemble(src, "k.s").unwrap());
        assert!(Dispatcher::new(&m, abi.clone(), SlotMap::one_simd(4), 4)
            .unwrap()
            .with_lds(128)
            .unwrap_err()
            .to_string()
            .contains("200 bytes"));
        // 200 bytes take two rows: an LDS of 512 bytes holds two workgroups at a time.
        let mut d = Dispatcher::new(&m, abi, SlotMap::one_simd(4), 4)
            .unwrap()
            .with_lds(512)
            .unwrap();
        let mut launches = Vec::new();
        let mut busy = 0u64;
        for cycle in 0..200 {
            match d.step(!busy & 0b1111) {
                DispatchAction::ClearLds { row } => launches.push((cycle, "clear", row)),
                DispatchAction::Launch {
                    slot,
                    lds_base,
                    lds_size,
                    ..
                } => {
                    assert_eq!(lds_size, 256);
                    busy |= 1 << slot;
                    launches.push((cycle, "launch", lds_base));
                }
                _ => {}
            }
            // The wavefront in slot 0 ends at cycle 100.
            if cycle == 100 {
                busy &= !1;
            }
        }
        let kinds: Vec<(&str, u32)> = launches.iter().map(|&(_, k, v)| (k, v)).collect();
        assert_eq!(
            kinds,
            [
                ("clear", 0),
                ("clear", 1),
                ("launch", 0),
                ("clear", 2),
                ("clear", 3),
                ("launch", 256),
                ("clear", 0),
                ("clear", 1),
                ("launch", 0)
            ]
        );
        assert!(
            launches[6].0 > 100,
            "the third waits for a region: {launches:?}"
        );
    }

    #[test]
    fn vgpr_use_limits_the_slots_and_sets_each_wavefronts_base() {
        // GCN3 (4 SIMDs x 10 slots, 256 VGPRs per SIMD) and a 100-VGPR kernel: two wavefronts
        // per SIMD, at registers 0 and 100, in slots 0, 1, 10, 11, ...
        let map = SlotMap::new(&HwConfig::gcn3(), 100);
        assert_eq!((map.capacity(), map.vgpr_allocation), (8, 100));
        let usable: Vec<usize> = (0..map.slots()).filter(|&j| map.usable(j)).collect();
        assert_eq!(usable, [0, 1, 10, 11, 20, 21, 30, 31]);
        assert_eq!((map.vgpr_base(11), map.vgpr_base(30)), (100, 0));
        // Eight single-wavefront workgroups fill exactly those slots.
        let m = manifest(64 * 8, 64);
        let mut d = Dispatcher::new(&m, LaunchAbi::legacy(), map, 4).unwrap();
        let mut busy = 0u64;
        let mut launched = Vec::new();
        for _ in 0..2000 {
            if let DispatchAction::Launch {
                slot, vgpr_base, ..
            } = d.step(!busy & ((1 << 40) - 1))
            {
                busy |= 1 << slot;
                launched.push((slot, vgpr_base));
            }
        }
        assert_eq!(
            launched,
            [
                (0, 0),
                (1, 100),
                (10, 0),
                (11, 100),
                (20, 0),
                (21, 100),
                (30, 0),
                (31, 100)
            ]
        );
        // A workgroup of two wavefronts of a 129-VGPR kernel on one SIMD: only one fits.
        let e = Dispatcher::new(
            &manifest(128, 128),
            LaunchAbi::legacy(),
            SlotMap::new(
                &HwConfig {
                    simds_per_cu: 1,
                    ..HwConfig::gcn3()
                },
                129,
            ),
            4,
        )
        .unwrap_err();
        assert!(e.to_string().contains("holds only 1"), "{e}");
        assert!(
            e.to_string()
                .contains("VGPRs per wavefront leave room for 1 wavefront(s) in each SIMD"),
            "{e}"
        );
    }

    #[test]
    fn a_workgroup_larger_than_the_compute_unit_is_an_error() {
        let m = manifest(256, 256);
        let e = Dispatcher::new(&m, LaunchAbi::legacy(), SlotMap::one_simd(2), 4).unwrap_err();
        assert!(e.to_string().contains("4 wavefronts"), "{e}");
        assert!(
            e.to_string().contains(
                "it has 1 SIMD(s) of 2 wavefront slots (simds_per_cu x wf_contexts_per_simd)"
            ),
            "{e}"
        );
    }
}
