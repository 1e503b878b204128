//! Architectural state of the golden model: a context's scalar register file, the contexts
//! of a wavefront (its WfContext on the SIMD and its SwfContexts on the SpSIMDs) and the
//! vector register file they share.

use pws_isa::abi::LaunchAbi;
use pws_isa::manifest::{Manifest, WAVEFRONT_SIZE};

use super::pws::{ChildStack, ContextId};
use super::watch::Watch;

/// Lanes per wavefront.
pub const LANES: usize = WAVEFRONT_SIZE as usize;

/// Operand codes of the 64-bit special registers (low half; the high half is code + 1).
pub const VCC_CODE: u16 = 106;
pub const EXEC_CODE: u16 = 126;

/// Scalar state of one context: everything `split` copies and `merge` drops. Registers are
/// indexed by their source-operand code (s0..s101, flat_scratch, vcc, ttmp, m0, exec), so an
/// operand reads its register without a translation table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScalarFile {
    regs: [u32; 128],
    pub scc: bool,
}

impl Default for ScalarFile {
    fn default() -> Self {
        ScalarFile {
            regs: [0; 128],
            scc: false,
        }
    }
}

impl ScalarFile {
    /// The 32-bit register with operand code `code`, or `None` past the register file.
    pub fn get(&self, code: u16) -> Option<u32> {
        self.regs.get(code as usize).copied()
    }

    /// Writes the register with operand code `code`; `false` past the register file.
    pub fn set(&mut self, code: u16, value: u32) -> bool {
        match self.regs.get_mut(code as usize) {
            Some(r) => {
                *r = value;
                true
            }
            None => false,
        }
    }

    fn get64(&self, code: u16) -> u64 {
        self.regs[code as usize] as u64 | (self.regs[code as usize + 1] as u64) << 32
    }

    fn set64(&mut self, code: u16, value: u64) {
        self.regs[code as usize] = value as u32;
        self.regs[code as usize + 1] = (value >> 32) as u32;
    }

    pub fn exec(&self) -> u64 {
        self.get64(EXEC_CODE)
    }

    pub fn set_exec(&mut self, value: u64) {
        self.set64(EXEC_CODE, value)
    }

    pub fn vcc(&self) -> u64 {
        self.get64(VCC_CODE)
    }
}

/// What a context is doing between two instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Can issue its next instruction.
    Ready,
    /// Executed `merge` and waits for its partner (its top child, or its parent).
    AtMerge,
    /// Executed `s_barrier` and waits for the rest of the workgroup.
    AtBarrier,
    /// Executed `s_endpgm`.
    Ended,
}

/// One context: the WfContext of a wavefront (id 1, on the SIMD) or one of its SwfContexts
/// (ids 2..=S+1, one per SpSIMD, all with the wavefront's context number).
#[derive(Clone, Debug)]
pub struct Context {
    pub id: ContextId,
    pub scalar: ScalarFile,
    pub pc: u32,
    /// Split mask: lane i runs iff bit i of EXEC & SpM is set.
    pub spm: u64,
    pub parent: Option<ContextId>,
    pub stack: ChildStack,
    pub status: Status,
    /// PC of the `merge`/`s_barrier` the context waits at, or of its `s_endpgm`.
    pub wait_pc: u32,
    /// Split safety at run time (dropped and stale scalar values).
    pub watch: Watch,
}

impl Context {
    /// Lanes the context's vector instructions act on.
    pub fn active(&self) -> u64 {
        self.scalar.exec() & self.spm
    }
}

/// A wavefront: the shared vector registers and the contexts running parts of it.
#[derive(Clone, Debug)]
pub struct Wavefront {
    pub workgroup: u32,
    /// Index within the workgroup.
    pub index: u32,
    /// Index within the whole launch (workgroups in order, then waves).
    pub global: u32,
    pub vgprs: Vec<[u32; LANES]>,
    /// Slot i holds context id i + 1; SWF slots are `None` while free.
    pub contexts: Vec<Option<Context>>,
    /// Instructions executed so far, summed over its contexts (the runaway limit's count).
    pub executed: u64,
}

impl Wavefront {
    /// The wavefront as the dispatcher launches it (docs/manifest.md, "Register ABI"): the SGPRs
    /// and work-item id VGPRs of the kernel's launch ABI `abi`, EXEC = its work-items. `s` is
    /// the number of SpSIMDs (each holds one SwfContext of this wavefront, and every child stack
    /// is `s` deep); `vgprs` the number of vector registers the program uses.
    pub fn launch(
        manifest: &Manifest,
        abi: &LaunchAbi,
        workgroup: u32,
        index: u32,
        global: u32,
        s: usize,
        vgprs: usize,
    ) -> Wavefront {
        let mut scalar = ScalarFile::default();
        for (r, v) in abi
            .sgpr_values(manifest, workgroup, index)
            .into_iter()
            .enumerate()
        {
            scalar.set(r as u16, v);
        }
        scalar.set_exec(manifest.initial_exec(workgroup, index));
        let ids = abi.vgpr_values(manifest, workgroup, index);
        let mut vgpr_file = vec![[0; LANES]; vgprs.max(ids.len())];
        vgpr_file[..ids.len()].copy_from_slice(&ids);
        let mut contexts = vec![None; 1 + s];
        contexts[0] = Some(Context {
            id: ContextId::WF,
            scalar,
            pc: 0,
            spm: u64::MAX,
            parent: None,
            stack: ChildStack::new(s),
            status: Status::Ready,
            wait_pc: 0,
            watch: Watch::default(),
        });
        Wavefront {
            workgroup,
            index,
            global,
            vgprs: vgpr_file,
            contexts,
            executed: 0,
        }
    }

    /// Contexts that have not ended, in id order.
    pub fn live(&self) -> impl Iterator<Item = &Context> {
        self.contexts
            .iter()
            .flatten()
            .filter(|c| c.status != Status::Ended)
    }

    /// The WfContext (id 1); it exists for the wavefront's whole life.
    pub fn wf_context(&self) -> &Context {
        self.contexts[0]
            .as_ref()
            .expect("the WfContext is never freed")
    }
}
