//! A test bench for the compute unit: a word-addressed memory model behind the data port
//! (answering exactly `mem_latency` cycles after a request), program loading, dispatch of a
//! wavefront through the SPI-like ports, and the cycles each instruction took.

use std::collections::{HashMap, VecDeque};

use pws_hdl::config::HwConfig;
use pws_hdl::cu::{ComputeUnit, CuMode};
use pws_hdl::swizzle::SwizzleMode;
use rust_hdl::core::prelude::*;
use rust_hdl::core::simulate::simulate;

/// The compute unit with a word-addressed memory behind its data port.
pub struct Bench {
    pub cu: ComputeUnit,
    pub mem: HashMap<u32, u32>,
    latency: u64,
    /// Slot j's wavefront gets VGPRs from (j mod N_WFC) · `vgpr_share` on: the SIMD's VRF
    /// split evenly among its slots.
    slots_per_simd: usize,
    vgpr_share: usize,
    responses: VecDeque<(u64, Vec<u32>)>,
    pub cycle: u64,
    /// Cycle in which each context's instruction in flight was issued.
    pub issued: Vec<u64>,
    /// (pc, cycles from issue to retire, both counted) of every retired instruction.
    pub takes: Vec<(u32, u64)>,
    /// (context, issue cycle) of every issue.
    pub issues: Vec<(usize, u64)>,
    /// (context, retire cycle) of every retirement.
    pub retires: Vec<(usize, u64)>,
}

#[allow(dead_code)]
impl Bench {
    pub fn new(cfg: &HwConfig, mode: CuMode, compaction: SwizzleMode) -> Bench {
        let mut cu = ComputeUnit::new(cfg).expect("cu config");
        cu.connect_all();
        cu.mode_i.next = mode;
        cu.compaction_i.next = compaction;
        cu.sgpr_count_i.next = 0.into();
        let mut b = Bench {
            cu,
            mem: HashMap::new(),
            latency: cfg.mem_latency as u64,
            slots_per_simd: cfg.wf_contexts_per_simd,
            vgpr_share: cfg.vgprs_per_simd / cfg.wf_contexts_per_simd,
            responses: VecDeque::new(),
            cycle: 0,
            issued: Vec::new(),
            takes: Vec::new(),
            issues: Vec::new(),
            retires: Vec::new(),
        };
        b.issued = vec![0; b.cu.contexts()];
        b.settle();
        b
    }

    pub fn settle(&mut self) {
        assert!(simulate(&mut self.cu, 10_000), "did not settle");
    }

    /// One cycle: the memory answers and accepts, then the rising and falling edges.
    pub fn tick(&mut self) {
        let due = matches!(self.responses.front(), Some((c, _)) if *c == self.cycle);
        self.cu.mem_rvalid_i.next = due;
        if due {
            let (_, data) = self.responses.pop_front().unwrap();
            for (l, d) in data.into_iter().enumerate() {
                self.cu.mem_rdata_i[l].next = u64::from(d).into();
            }
        }
        self.settle();
        if self.cu.mem_req_o.val() {
            let lanes = self.cu.mem_lanes_o.val().to_u64();
            let mut data = vec![0u32; 16];
            for (l, d) in data.iter_mut().enumerate() {
                if lanes >> l & 1 == 1 {
                    let addr = self.cu.mem_addr_o[l].val().to_u64() as u32;
                    if self.cu.mem_we_o.val() {
                        self.mem
                            .insert(addr, self.cu.mem_wdata_o[l].val().to_u64() as u32);
                    } else {
                        *d = self.mem.get(&addr).copied().unwrap_or(0);
                    }
                }
            }
            self.responses.push_back((self.cycle + self.latency, data));
        }
        for c in 0..self.cu.contexts() {
            if self.cu.ctx_issue_o[c].val() {
                self.issued[c] = self.cycle;
                self.issues.push((c, self.cycle));
            }
            if self.cu.ctx_retire_o[c].val() {
                let pc = self.cu.ctx_inst_pc_o[c].val().to_u64() as u32;
                self.takes.push((pc, self.cycle - self.issued[c] + 1));
                self.retires.push((c, self.cycle));
            }
        }
        self.cu.clock.next = Clock::from(true);
        self.settle();
        self.cu.clock.next = Clock::from(false);
        self.settle();
        self.cycle += 1;
        self.cu.imem_we_i.next = false;
        self.cu.init_sgpr_we_i.next = false;
        self.cu.init_vgpr_we_i.next = false;
        self.cu.launch_i.next = false;
    }

    pub fn load_program(&mut self, words: &[u32]) {
        for (i, w) in words.iter().enumerate() {
            self.cu.imem_we_i.next = true;
            self.cu.imem_addr_i.next = (i as u64).into();
            self.cu.imem_data_i.next = u64::from(*w).into();
            self.tick();
        }
        self.cu.prog_words_i.next = (words.len() as u64).into();
    }

    pub fn launch(
        &mut self,
        slot: usize,
        wg: u64,
        sgprs: &[(u64, u32)],
        v0: impl Fn(usize) -> u32,
        exec: u64,
    ) {
        self.cu.launch_vgpr_base_i.next =
            (((slot % self.slots_per_simd) * self.vgpr_share) as u64).into();
        for &(r, v) in sgprs {
            self.cu.init_slot_i.next = (slot as u64).into();
            self.cu.init_sgpr_we_i.next = true;
            self.cu.init_sgpr_addr_i.next = r.into();
            self.cu.init_sgpr_data_i.next = u64::from(v).into();
            self.tick();
        }
        for pass in 0..4 {
            self.cu.init_slot_i.next = (slot as u64).into();
            self.cu.init_vgpr_we_i.next = true;
            self.cu.init_vgpr_addr_i.next = 0.into();
            self.cu.init_vgpr_pass_i.next = (pass as u64).into();
            for l in 0..16 {
                self.cu.init_vgpr_data_i[l].next = u64::from(v0(pass * 16 + l)).into();
            }
            self.tick();
        }
        self.cu.init_slot_i.next = (slot as u64).into();
        self.cu.launch_i.next = true;
        self.cu.launch_pc_i.next = 0.into();
        self.cu.launch_exec_lo_i.next = (exec & 0xFFFF_FFFF).into();
        self.cu.launch_exec_hi_i.next = (exec >> 32).into();
        self.cu.launch_wg_i.next = wg.into();
        self.tick();
    }

    /// Runs until the CU stops with an error (or is idle, or `cap` cycles pass).
    pub fn run_to_error(&mut self, cap: u64) {
        for _ in 0..cap {
            self.tick();
            if self.cu.error_o.val() || self.cu.idle_o.val() {
                return;
            }
        }
    }

    /// Runs until the CU is idle; the cycles it took.
    pub fn run(&mut self, cap: u64) -> u64 {
        let start = self.cycle;
        loop {
            self.tick();
            if std::env::var_os("CU_TRACE").is_some() {
                for u in 0..self.cu.issue_units() {
                    if self.cu.issue_valid_o[u].val() {
                        eprintln!(
                            "{:5} iu{u} issue ctx {} pc {:#x}",
                            self.cycle,
                            self.cu.issue_ctx_o[u].val().to_u64(),
                            self.cu.issue_pc_o[u].val().to_u64()
                        );
                    }
                }
                for c in 0..self.cu.contexts() {
                    if self.cu.ctx_retire_o[c].val() {
                        eprintln!(
                            "{:5} ctx {c} retire pc {:#x}",
                            self.cycle,
                            self.cu.ctx_inst_pc_o[c].val().to_u64()
                        );
                    }
                }
            }
            assert!(
                !self.cu.error_o.val(),
                "cu error {:?} at pc {:#x}",
                self.cu.error_code_o.val(),
                self.cu.error_pc_o.val().to_u64()
            );
            if self.cu.idle_o.val() {
                return self.cycle - start;
            }
            assert!(self.cycle - start < cap, "no end after {cap} cycles");
        }
    }
}
