//! The launch ABI: what a kernel finds in its registers and in read-only memory when its first
//! instruction runs, as the HSA dispatch of a GCN3 compute unit sets it up (LLVM AMDGPUUsage,
//! "Initial Kernel Execution State"). Every executor (golden model, RTL test bench) and the WCET
//! analysis's dispatch cost take it from here.
//!
//! A kernel compiled by clang carries a kernel descriptor (the `.amdhsa_kernel` block,
//! [`KernelDescriptor`]) saying which inputs it needs: user SGPRs in a fixed order (private
//! segment buffer, dispatch pointer, queue pointer, kernarg pointer, dispatch id, flat scratch
//! init, private segment size), then system SGPRs (workgroup ids x, y, z, workgroup info,
//! private segment wavefront offset), and work-item ids in v0 (x), v1 (y), v2 (z). A kernel
//! without a descriptor (the hand-written `.s` files) gets [`LaunchAbi::legacy`]: s[0:3] private
//! segment buffer, s[4:5] kernarg pointer, s6 workgroup id x, v0 work-item id x, which is the
//! descriptor clang emits for a kernel that uses only those. docs/manifest.md has the tables.

use crate::manifest::{layout, Manifest, WAVEFRONT_SIZE};
use crate::{Operand, Program};

/// The `.amdhsa_kernel` block of a kernel: the fields that decide its launch state, with
/// LLVM's defaults for directives the block leaves out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelDescriptor {
    /// The kernel's symbol (`.amdhsa_kernel NAME`).
    pub name: String,
    /// 1-based line of `.amdhsa_kernel` in the source.
    pub line: u32,
    /// Bytes of LDS the kernel allocates statically.
    pub group_segment_fixed_size: u32,
    /// Bytes of private (scratch) memory per work-item.
    pub private_segment_fixed_size: u32,
    /// Bytes of kernarg segment the kernel reads (explicit and hidden arguments).
    pub kernarg_size: u32,
    /// `.amdhsa_user_sgpr_count` when given: the system SGPRs start there.
    pub user_sgpr_count: Option<u32>,
    pub private_segment_buffer: bool,
    pub dispatch_ptr: bool,
    pub queue_ptr: bool,
    pub kernarg_segment_ptr: bool,
    pub dispatch_id: bool,
    pub flat_scratch_init: bool,
    pub private_segment_size: bool,
    /// Workgroup id x, y, z (x is enabled unless the block says otherwise).
    pub workgroup_id: [bool; 3],
    pub workgroup_info: bool,
    pub private_segment_wavefront_offset: bool,
    /// `.amdhsa_system_vgpr_workitem_id`: 0 (v0 = x), 1 (and v1 = y) or 2 (and v2 = z).
    pub workitem_id: u8,
    pub next_free_vgpr: u32,
    pub next_free_sgpr: u32,
    /// `.amdhsa_float_denorm_mode_32` (0: flush f32 denormals on input and output, LLVM's
    /// default and what clang-14 writes for gfx803; 3: keep them).
    pub float_denorm_mode_32: u8,
    /// `.amdhsa_ieee_mode` (default 1).
    pub ieee_mode: bool,
    /// `.amdhsa_dx10_clamp` (default 1).
    pub dx10_clamp: bool,
}

/// The `.amdhsa_kernel` directives llvm-mc 14 accepts for gfx8 that do not change the launch
/// state (floating-point modes, exceptions, register reservations); they are checked to be
/// integers and otherwise ignored.
const DESCRIPTOR_IGNORED: &[&str] = &[
    ".amdhsa_reserve_vcc",
    ".amdhsa_reserve_flat_scratch",
    ".amdhsa_reserve_xnack_mask",
    ".amdhsa_float_round_mode_32",
    ".amdhsa_float_round_mode_16_64",
    ".amdhsa_float_denorm_mode_16_64",
    ".amdhsa_exception_fp_ieee_invalid_op",
    ".amdhsa_exception_fp_denorm_src",
    ".amdhsa_exception_fp_ieee_div_zero",
    ".amdhsa_exception_fp_ieee_overflow",
    ".amdhsa_exception_fp_ieee_underflow",
    ".amdhsa_exception_fp_ieee_inexact",
    ".amdhsa_exception_int_div_zero",
];

/// Largest user SGPR count the COMPUTE_PGM_RSRC2.USER_SGPR field holds.
const MAX_USER_SGPRS: u32 = 31;

/// A `.amdhsa_kernel` block being read by the assembler, directive by directive.
#[derive(Clone, Debug)]
pub struct DescriptorBuilder {
    descriptor: KernelDescriptor,
    seen: Vec<String>,
    next_free_vgpr: Option<u32>,
    next_free_sgpr: Option<u32>,
}

impl DescriptorBuilder {
    /// The block `.amdhsa_kernel name` opened at `line`.
    pub fn new(name: &str, line: u32) -> DescriptorBuilder {
        DescriptorBuilder {
            descriptor: KernelDescriptor {
                name: name.to_string(),
                line,
                group_segment_fixed_size: 0,
                private_segment_fixed_size: 0,
                kernarg_size: 0,
                user_sgpr_count: None,
                private_segment_buffer: false,
                dispatch_ptr: false,
                queue_ptr: false,
                kernarg_segment_ptr: false,
                dispatch_id: false,
                flat_scratch_init: false,
                private_segment_size: false,
                workgroup_id: [true, false, false],
                workgroup_info: false,
                private_segment_wavefront_offset: false,
                workitem_id: 0,
                next_free_vgpr: 0,
                next_free_sgpr: 0,
                float_denorm_mode_32: 0,
                ieee_mode: true,
                dx10_clamp: true,
            },
            seen: Vec::new(),
            next_free_vgpr: None,
            next_free_sgpr: None,
        }
    }

    /// True for the directives that may appear inside a block (and only there).
    pub fn is_block_directive(name: &str) -> bool {
        Self::field_range(name).is_some() || DESCRIPTOR_IGNORED.contains(&name)
    }

    /// The largest value a launch-state directive takes (None: not one).
    fn field_range(name: &str) -> Option<u64> {
        Some(match name {
            ".amdhsa_group_segment_fixed_size"
            | ".amdhsa_private_segment_fixed_size"
            | ".amdhsa_kernarg_size" => u64::from(u32::MAX),
            ".amdhsa_user_sgpr_count" => u64::from(MAX_USER_SGPRS),
            ".amdhsa_system_vgpr_workitem_id" => 2,
            ".amdhsa_float_denorm_mode_32" => 3,
            ".amdhsa_ieee_mode" | ".amdhsa_dx10_clamp" => 1,
            ".amdhsa_next_free_vgpr" => 256,
            ".amdhsa_next_free_sgpr" => 102,
            ".amdhsa_user_sgpr_private_segment_buffer"
            | ".amdhsa_user_sgpr_dispatch_ptr"
            | ".amdhsa_user_sgpr_queue_ptr"
            | ".amdhsa_user_sgpr_kernarg_segment_ptr"
            | ".amdhsa_user_sgpr_dispatch_id"
            | ".amdhsa_user_sgpr_flat_scratch_init"
            | ".amdhsa_user_sgpr_private_segment_size"
            | ".amdhsa_system_sgpr_private_segment_wavefront_offset"
            | ".amdhsa_system_sgpr_workgroup_id_x"
            | ".amdhsa_system_sgpr_workgroup_id_y"
            | ".amdhsa_system_sgpr_workgroup_id_z"
            | ".amdhsa_system_sgpr_workgroup_info" => 1,
            _ => return None,
        })
    }

    /// Applies directive `name` with its integer `value`; the error is the message to report.
    pub fn apply(&mut self, name: &str, value: u64) -> Result<(), String> {
        if self.seen.iter().any(|s| s == name) {
            return Err(format!(
                "`{name}` is given twice in this .amdhsa_kernel block"
            ));
        }
        self.seen.push(name.to_string());
        let max = match Self::field_range(name) {
            Some(max) => max,
            None if DESCRIPTOR_IGNORED.contains(&name) => u64::from(u32::MAX),
            None => return Err(format!("unknown .amdhsa_kernel directive `{name}`")),
        };
        if value > max {
            return Err(format!("`{name}` is {value}; it must be at most {max}"));
        }
        let d = &mut self.descriptor;
        let v32 = value as u32;
        let on = value == 1;
        match name {
            ".amdhsa_group_segment_fixed_size" => d.group_segment_fixed_size = v32,
            ".amdhsa_private_segment_fixed_size" => d.private_segment_fixed_size = v32,
            ".amdhsa_kernarg_size" => d.kernarg_size = v32,
            ".amdhsa_user_sgpr_count" => d.user_sgpr_count = Some(v32),
            ".amdhsa_user_sgpr_private_segment_buffer" => d.private_segment_buffer = on,
            ".amdhsa_user_sgpr_dispatch_ptr" => d.dispatch_ptr = on,
            ".amdhsa_user_sgpr_queue_ptr" => d.queue_ptr = on,
            ".amdhsa_user_sgpr_kernarg_segment_ptr" => d.kernarg_segment_ptr = on,
            ".amdhsa_user_sgpr_dispatch_id" => d.dispatch_id = on,
            ".amdhsa_user_sgpr_flat_scratch_init" => d.flat_scratch_init = on,
            ".amdhsa_user_sgpr_private_segment_size" => d.private_segment_size = on,
            ".amdhsa_system_sgpr_private_segment_wavefront_offset" => {
                d.private_segment_wavefront_offset = on
            }
            ".amdhsa_system_sgpr_workgroup_id_x" => d.workgroup_id[0] = on,
            ".amdhsa_system_sgpr_workgroup_id_y" => d.workgroup_id[1] = on,
            ".amdhsa_system_sgpr_workgroup_id_z" => d.workgroup_id[2] = on,
            ".amdhsa_system_sgpr_workgroup_info" => d.workgroup_info = on,
            ".amdhsa_system_vgpr_workitem_id" => d.workitem_id = value as u8,
            ".amdhsa_float_denorm_mode_32" => d.float_denorm_mode_32 = value as u8,
            ".amdhsa_ieee_mode" => d.ieee_mode = on,
            ".amdhsa_dx10_clamp" => d.dx10_clamp = on,
            ".amdhsa_next_free_vgpr" => self.next_free_vgpr = Some(v32),
            ".amdhsa_next_free_sgpr" => self.next_free_sgpr = Some(v32),
            _ => {}
        }
        Ok(())
    }

    /// The descriptor at `.end_amdhsa_kernel`, with the checks llvm-mc makes there.
    pub fn finish(self) -> Result<KernelDescriptor, String> {
        let mut d = self.descriptor;
        d.next_free_vgpr = self
            .next_free_vgpr
            .ok_or(".amdhsa_next_free_vgpr directive is required")?;
        d.next_free_sgpr = self
            .next_free_sgpr
            .ok_or(".amdhsa_next_free_sgpr directive is required")?;
        let implied = d.user_sgprs().len() as u32;
        if let Some(count) = d.user_sgpr_count {
            if count < implied {
                return Err(format!(
                    ".amdhsa_user_sgpr_count is {count}, smaller than the {implied} user SGPRs the block enables"
                ));
            }
        }
        Ok(d)
    }
}

impl KernelDescriptor {
    /// Why the descriptor's floating-point mode is not the one pws executes (docs/float.md:
    /// f32 denormals flushed, IEEE mode, DX10 clamp: clang-14's gfx803 default), or `Ok`.
    pub fn check_float_mode(&self) -> Result<(), String> {
        let mut wrong = Vec::new();
        if self.float_denorm_mode_32 != 0 {
            wrong.push(format!(
                ".amdhsa_float_denorm_mode_32 {} (pws flushes f32 denormals: mode 0)",
                self.float_denorm_mode_32
            ));
        }
        if !self.ieee_mode {
            wrong.push(".amdhsa_ieee_mode 0 (pws implements IEEE mode: 1)".to_string());
        }
        if !self.dx10_clamp {
            wrong.push(".amdhsa_dx10_clamp 0 (pws implements the DX10 clamp: 1)".to_string());
        }
        if wrong.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "kernel `{}` asks for a floating-point mode pws does not execute: {}",
                self.name,
                wrong.join(", ")
            ))
        }
    }

    /// The user SGPRs the descriptor enables, in the order the dispatcher writes them.
    fn user_sgprs(&self) -> Vec<SgprInit> {
        let mut s = Vec::new();
        if self.private_segment_buffer {
            s.extend((0..4).map(SgprInit::PrivateSegmentBuffer));
        }
        let pairs = [
            (
                self.dispatch_ptr,
                SgprInit::DispatchPtr as fn(u8) -> SgprInit,
            ),
            (self.queue_ptr, SgprInit::QueuePtr),
            (self.kernarg_segment_ptr, SgprInit::KernargSegmentPtr),
            (self.dispatch_id, SgprInit::DispatchId),
            (self.flat_scratch_init, SgprInit::FlatScratchInit),
        ];
        for (on, init) in pairs {
            if on {
                s.extend((0..2).map(init));
            }
        }
        if self.private_segment_size {
            s.push(SgprInit::PrivateSegmentSize);
        }
        s
    }
}

/// What the dispatcher writes into one SGPR. The `u8` of a multi-dword input is the dword.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SgprInit {
    /// The private segment's buffer resource (4 dwords, [`scratch_resource`]).
    PrivateSegmentBuffer(u8),
    /// Address of the HSA kernel dispatch packet ([`layout::DISPATCH_PACKET_BASE`]).
    DispatchPtr(u8),
    /// Address of the HSA queue: 0, there is no queue object.
    QueuePtr(u8),
    /// Address of the kernarg segment ([`layout::KERNARG_BASE`]).
    KernargSegmentPtr(u8),
    /// 64-bit dispatch id: 0 (one dispatch per run).
    DispatchId(u8),
    /// Flat scratch base offset and size: 0 (pws addresses private memory through the
    /// buffer resource only; `flat_scratch` is outside the executable subset).
    FlatScratchInit(u8),
    /// Bytes of private memory per work-item (the descriptor's fixed size).
    PrivateSegmentSize,
    /// Workgroup id in dimension 0 (x), 1 (y) or 2 (z).
    WorkgroupId(u8),
    /// `{first_wave[31], 0, ordered_append_term[16:6] = 0, wavefronts_in_workgroup[5:0]}`.
    WorkgroupInfo,
    /// The wavefront's byte offset into the private segment: its place in the launch
    /// ([`Manifest::scratch_wave_index`]) times 64 lanes times the per-work-item size.
    PrivateSegmentWavefrontOffset,
    /// Between the enabled user SGPRs and a larger `.amdhsa_user_sgpr_count`: 0.
    Unused,
}

impl SgprInit {
    /// The register's value in wavefront `wave` of workgroup `wg` of `manifest`'s launch,
    /// whose private segment starts at `scratch_base` and gives each work-item
    /// `private_size` bytes.
    pub fn value(
        self,
        manifest: &Manifest,
        (scratch_base, private_size): (u64, u32),
        wg: u32,
        wave: u32,
    ) -> u32 {
        let dword = |addr: u64, i: u8| (addr >> (32 * u32::from(i))) as u32;
        match self {
            SgprInit::PrivateSegmentBuffer(i) => scratch_resource(scratch_base)[usize::from(i)],
            SgprInit::PrivateSegmentSize => private_size,
            SgprInit::PrivateSegmentWavefrontOffset => {
                manifest.scratch_wave_index(wg, wave) * WAVEFRONT_SIZE * private_size
            }
            SgprInit::DispatchPtr(i) => dword(layout::DISPATCH_PACKET_BASE, i),
            SgprInit::KernargSegmentPtr(i) => dword(layout::KERNARG_BASE, i),
            SgprInit::WorkgroupId(d) => manifest.workgroup_id(wg)[usize::from(d)],
            SgprInit::WorkgroupInfo => {
                (u32::from(wave == 0) << 31) | (manifest.wavefronts_in(wg) & 0x3f)
            }
            SgprInit::QueuePtr(_)
            | SgprInit::DispatchId(_)
            | SgprInit::FlatScratchInit(_)
            | SgprInit::Unused => 0,
        }
    }
}

/// The launch state of one kernel: which SGPRs and VGPRs the dispatcher initialises and what
/// the kernel's read-only segments hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchAbi {
    /// What s0, s1, ... receive, in order (every SGPR after these starts at 0).
    pub sgprs: Vec<SgprInit>,
    /// v0 = work-item id x, v1 = y, v2 = z: the first `workitem_vgprs` of them (1..=3).
    pub workitem_vgprs: u8,
    /// Bytes of kernarg segment the kernel may read beyond its arguments (hidden arguments,
    /// zero-filled).
    pub kernarg_size: u32,
    /// The dispatch packet's private and group segment sizes (bytes). The group segment is
    /// the kernel's own LDS variables ([`LaunchAbi::group_segment_fixed_size`]) followed by the
    /// launch's `__local` pointer arguments ([`LaunchAbi::for_launch`]).
    pub private_segment_size: u32,
    pub group_segment_size: u32,
    /// The descriptor's `.amdhsa_group_segment_fixed_size`: the kernel's `__local` variables.
    pub group_segment_fixed_size: u32,
    /// The kernel carries a descriptor (false: [`LaunchAbi::legacy`]).
    pub from_descriptor: bool,
    /// The program's read-only data (`.rodata`) as the loader places it: its base address
    /// (`layout::CODE_BASE` + [`crate::Rodata::offset`]) and little-endian words.
    pub rodata: Option<(u64, Vec<u32>)>,
}

impl LaunchAbi {
    /// The ABI of a kernel without a descriptor (docs/manifest.md): s[0:3] private segment
    /// buffer, s[4:5] kernarg pointer, s6 workgroup id x, v0 work-item id x.
    pub fn legacy() -> LaunchAbi {
        let mut sgprs: Vec<SgprInit> = (0..4).map(SgprInit::PrivateSegmentBuffer).collect();
        sgprs.extend((0..2).map(SgprInit::KernargSegmentPtr));
        sgprs.push(SgprInit::WorkgroupId(0));
        LaunchAbi {
            sgprs,
            workitem_vgprs: 1,
            kernarg_size: 0,
            private_segment_size: 0,
            group_segment_size: 0,
            group_segment_fixed_size: 0,
            from_descriptor: false,
            rodata: None,
        }
    }

    /// The ABI `descriptor` asks for; [`LaunchAbi::legacy`] without one.
    pub fn of(descriptor: Option<&KernelDescriptor>) -> LaunchAbi {
        let Some(d) = descriptor else {
            return LaunchAbi::legacy();
        };
        let mut sgprs = d.user_sgprs();
        let user = d.user_sgpr_count.unwrap_or(sgprs.len() as u32) as usize;
        sgprs.resize(user.max(sgprs.len()), SgprInit::Unused);
        for dim in 0..3 {
            if d.workgroup_id[dim] {
                sgprs.push(SgprInit::WorkgroupId(dim as u8));
            }
        }
        if d.workgroup_info {
            sgprs.push(SgprInit::WorkgroupInfo);
        }
        if d.private_segment_wavefront_offset {
            sgprs.push(SgprInit::PrivateSegmentWavefrontOffset);
        }
        LaunchAbi {
            sgprs,
            workitem_vgprs: d.workitem_id + 1,
            kernarg_size: d.kernarg_size,
            private_segment_size: d.private_segment_fixed_size,
            group_segment_size: d.group_segment_fixed_size,
            group_segment_fixed_size: d.group_segment_fixed_size,
            from_descriptor: true,
            rodata: None,
        }
    }

    /// The ABI of `program` launched by `manifest`: its group segment grows by the LDS the
    /// manifest's `__local` pointer arguments ask for, as a runtime's `clSetKernelArg(k, i,
    /// bytes, NULL)` makes it.
    pub fn for_launch(program: &crate::Program, manifest: &Manifest) -> LaunchAbi {
        let mut abi = LaunchAbi::of_program(program);
        abi.group_segment_size = manifest.group_segment_size(abi.group_segment_fixed_size);
        abi
    }

    /// The ABI of an assembled program (its descriptor's, or the legacy one).
    pub fn of_program(program: &crate::Program) -> LaunchAbi {
        let mut abi = LaunchAbi::of(program.descriptor.as_ref());
        let r = &program.rodata;
        if !r.bytes.is_empty() {
            abi.rodata = Some((
                crate::manifest::layout::CODE_BASE + u64::from(r.offset),
                r.words(),
            ));
        }
        abi
    }

    /// SGPRs the dispatcher writes (s0 .. s(n-1)).
    pub fn sgpr_count(&self) -> u32 {
        self.sgprs.len() as u32
    }

    /// The SGPR that receives `init`, if the kernel asked for it.
    pub fn sgpr_of(&self, init: SgprInit) -> Option<u8> {
        self.sgprs.iter().position(|&s| s == init).map(|i| i as u8)
    }

    /// Initial values of s0 .. s(n-1) for wavefront `wave` of workgroup `wg`.
    pub fn sgpr_values(&self, manifest: &Manifest, wg: u32, wave: u32) -> Vec<u32> {
        let scratch = manifest
            .scratch_region(self)
            .map_or(0, |region| region.base);
        self.sgprs
            .iter()
            .map(|s| s.value(manifest, (scratch, self.private_segment_size), wg, wave))
            .collect()
    }

    /// Initial values of v0 .. v(workitem_vgprs - 1), lane by lane: the work-item ids of
    /// wavefront `wave` of workgroup `wg` in x, y, z (lanes past the workgroup's work-items get
    /// the ids their flat index would have; EXEC disables them).
    pub fn vgpr_values(&self, manifest: &Manifest, wg: u32, wave: u32) -> Vec<[u32; 64]> {
        let mut out = vec![[0; 64]; usize::from(self.workitem_vgprs)];
        for lane in 0..WAVEFRONT_SIZE {
            let id = manifest.workitem_id(wg, wave * WAVEFRONT_SIZE + lane);
            for (d, v) in out.iter_mut().enumerate() {
                v[lane as usize] = id[d];
            }
        }
        out
    }

    /// The HSA kernel dispatch packet (`hsa_kernel_dispatch_packet_t`, 64 bytes) of
    /// `manifest`'s launch, as 16 little-endian words at [`layout::DISPATCH_PACKET_BASE`].
    pub fn dispatch_packet(&self, manifest: &Manifest) -> [u32; 16] {
        // Kernel dispatch packet type, barrier bit, system-scope acquire and release fences.
        const HEADER: u32 = 2 | 1 << 8 | 2 << 9 | 2 << 11;
        let [wx, wy, wz] = manifest.workgroup;
        let [gx, gy, gz] = manifest.grid;
        let mut p = [0; 16];
        p[0] = HEADER | (manifest.dims << 16);
        p[1] = wx | wy << 16;
        p[2] = wz;
        p[3] = gx;
        p[4] = gy;
        p[5] = gz;
        p[6] = self.private_segment_size;
        p[7] = self.group_segment_size;
        p[10] = layout::KERNARG_BASE as u32;
        p[11] = (layout::KERNARG_BASE >> 32) as u32;
        p
    }
}

/// The buffer resource (V#) of the private segment at `base`, as the HSA runtime builds it for
/// gfx8 and LLVM's `getScratchRsrcWords23` describes it: swizzled (word 1 bit 31), 4-byte
/// elements, index stride 64, ADD_TID (word 3), no range check (`num_records` all ones). A
/// lane's byte `o` of its private memory is at `base + SOFFSET + (o / 4) * 256 + lane * 4 +
/// o % 4`: the lanes' dwords interleave, so a wavefront's access to one private variable is
/// 64 consecutive dwords.
pub fn scratch_resource(base: u64) -> [u32; 4] {
    [
        base as u32,
        (base >> 32) as u32 & 0xffff | SCRATCH_SWIZZLE,
        u32::MAX,
        SCRATCH_WORD3,
    ]
}

/// Word 1 of the private segment's V#: SWIZZLE_ENABLE.
pub const SCRATCH_SWIZZLE: u32 = 1 << 31;
/// Word 3 of the private segment's V#: DATA_FORMAT 32 (bits 15:12 all set, as LLVM's
/// `RSRC_DATA_FORMAT`), ELEMENT_SIZE 4 bytes (20:19 = 1), INDEX_STRIDE 64 (22:21 = 3),
/// ADD_TID_ENABLE (23).
pub const SCRATCH_WORD3: u32 = 0xf << 12 | 1 << 19 | 3 << 21 | 1 << 23;

/// VGPRs are given to wavefronts in blocks of this many registers (GCN3's VGPR granule, the
/// unit of the descriptor's `GRANULATED_WORKITEM_VGPR_COUNT`).
pub const VGPR_GRANULE: u32 = 4;

/// VGPRs a wavefront of a kernel using `vgprs` of them is given: whole granules, at least one.
pub fn vgpr_allocation(vgprs: u32) -> u32 {
    vgprs.max(1).next_multiple_of(VGPR_GRANULE)
}

/// Registers a program holds: one past the highest SGPR and VGPR it names, and at least those
/// its launch ABI initialises. The VGPR count is what the dispatcher allocates for each of its
/// wavefronts in its SIMD's register file.
pub fn registers_used(program: &Program) -> (u32, u32) {
    let abi = LaunchAbi::of_program(program);
    let mut vgprs = u32::from(abi.workitem_vgprs);
    for (op, width) in program.instructions.iter().flat_map(|l| l.item.operands()) {
        if let Operand::Vgpr(n) = op {
            vgprs = vgprs.max(u32::from(n) + u32::from(width.dwords()));
        }
    }
    let sgprs = program.sgprs_used().max(abi.sgpr_count());
    (sgprs, vgprs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clang_o0() -> KernelDescriptor {
        let mut b = DescriptorBuilder::new("k", 1);
        for (n, v) in [
            (".amdhsa_user_sgpr_count", 14),
            (".amdhsa_user_sgpr_private_segment_buffer", 1),
            (".amdhsa_user_sgpr_dispatch_ptr", 1),
            (".amdhsa_user_sgpr_queue_ptr", 1),
            (".amdhsa_user_sgpr_kernarg_segment_ptr", 1),
            (".amdhsa_user_sgpr_dispatch_id", 1),
            (".amdhsa_user_sgpr_flat_scratch_init", 1),
            (".amdhsa_system_sgpr_private_segment_wavefront_offset", 1),
            (".amdhsa_system_sgpr_workgroup_id_y", 1),
            (".amdhsa_system_sgpr_workgroup_id_z", 1),
            (".amdhsa_system_vgpr_workitem_id", 2),
            (".amdhsa_next_free_vgpr", 10),
            (".amdhsa_next_free_sgpr", 34),
            (".amdhsa_ieee_mode", 1),
        ] {
            b.apply(n, v).unwrap();
        }
        b.finish().unwrap()
    }

    /// The register layout of clang-14's -O0 output (every input enabled): the kernel reads
    /// the kernarg pointer from s[8:9], workgroup id x from s14 and the wavefront offset from
    /// s17 (as its prologue `s_add_u32 s0, s0, s17` shows).
    #[test]
    fn user_then_system_sgprs_in_hsa_order() {
        let abi = LaunchAbi::of(Some(&clang_o0()));
        assert_eq!(abi.sgpr_count(), 18);
        assert_eq!(abi.sgpr_of(SgprInit::DispatchPtr(0)), Some(4));
        assert_eq!(abi.sgpr_of(SgprInit::QueuePtr(0)), Some(6));
        assert_eq!(abi.sgpr_of(SgprInit::KernargSegmentPtr(0)), Some(8));
        assert_eq!(abi.sgpr_of(SgprInit::FlatScratchInit(1)), Some(13));
        assert_eq!(abi.sgpr_of(SgprInit::WorkgroupId(0)), Some(14));
        assert_eq!(abi.sgpr_of(SgprInit::WorkgroupId(2)), Some(16));
        assert_eq!(
            abi.sgpr_of(SgprInit::PrivateSegmentWavefrontOffset),
            Some(17)
        );
        assert_eq!(abi.workitem_vgprs, 3);
    }

    #[test]
    fn legacy_is_the_descriptor_of_a_kernel_using_kernargs_and_group_x() {
        let mut b = DescriptorBuilder::new("k", 1);
        for (n, v) in [
            (".amdhsa_user_sgpr_private_segment_buffer", 1),
            (".amdhsa_user_sgpr_kernarg_segment_ptr", 1),
            (".amdhsa_next_free_vgpr", 1),
            (".amdhsa_next_free_sgpr", 7),
        ] {
            b.apply(n, v).unwrap();
        }
        let abi = LaunchAbi::of(Some(&b.finish().unwrap()));
        assert_eq!(abi.sgprs, LaunchAbi::legacy().sgprs);
        assert_eq!(abi.workitem_vgprs, 1);
    }

    #[test]
    fn a_larger_user_sgpr_count_moves_the_system_sgprs() {
        let mut b = DescriptorBuilder::new("k", 1);
        for (n, v) in [
            (".amdhsa_user_sgpr_count", 6),
            (".amdhsa_user_sgpr_kernarg_segment_ptr", 1),
            (".amdhsa_next_free_vgpr", 1),
            (".amdhsa_next_free_sgpr", 7),
        ] {
            b.apply(n, v).unwrap();
        }
        let abi = LaunchAbi::of(Some(&b.finish().unwrap()));
        assert_eq!(abi.sgpr_of(SgprInit::KernargSegmentPtr(0)), Some(0));
        assert_eq!(abi.sgprs[2..6], [SgprInit::Unused; 4]);
        assert_eq!(abi.sgpr_of(SgprInit::WorkgroupId(0)), Some(6));
    }

    /// A kernel with private memory: the resource points at the segment after the buffers,
    /// and each wavefront's offset is its slot (a whole workgroup's wavefronts per workgroup)
    /// times 64 lanes' bytes.
    #[test]
    fn private_memory_is_a_swizzled_segment_after_the_buffers() {
        let mut d = clang_o0();
        d.private_segment_fixed_size = 48;
        let abi = LaunchAbi::of(Some(&d));
        let m = Manifest::parse(
            "kernel = \"k.s\"\ngrid = 300\nworkgroup = 100\n\
             [[buffer]]\nname = \"a\"\ntype = \"i32\"\nlen = 10\n",
            "k.toml",
        )
        .unwrap();
        let image = m.memory_image(&abi);
        let scratch = image.scratch.clone().unwrap();
        assert!(scratch.base >= image.end() + layout::GUARD_BYTES);
        assert_eq!(scratch.base % layout::REGION_ALIGN, 0);
        // 3 workgroups of 2 wavefront slots, 64 lanes of 48 bytes each.
        assert_eq!(scratch.bytes, 3 * 2 * 64 * 48);
        assert_eq!(m.check_scratch(&abi), Ok(()));
        let s = abi.sgpr_values(&m, 2, 1);
        assert_eq!(
            s[..4],
            [scratch.base as u32, SCRATCH_SWIZZLE, u32::MAX, 0x00E8_F000]
        );
        assert_eq!(s[17], (2 * 2 + 1) * 64 * 48);
        // The last wavefront's private bytes end where the segment does.
        assert_eq!(u64::from(s[17]) + 64 * 48, scratch.bytes);
    }

    #[test]
    fn private_memory_past_the_code_object_is_an_error() {
        let mut d = clang_o0();
        d.private_segment_fixed_size = 1 << 20;
        let abi = LaunchAbi::of(Some(&d));
        let m =
            Manifest::parse("kernel = \"k.s\"\ngrid = 65536\nworkgroup = 64\n", "k.toml").unwrap();
        let e = m.check_scratch(&abi).unwrap_err();
        assert!(e.contains("1048576 bytes per work-item"), "{e}");
        assert!(e.contains("past the code object"), "{e}");
    }

    #[test]
    fn block_errors_are_the_ones_llvm_mc_reports() {
        let mut b = DescriptorBuilder::new("k", 1);
        assert!(b.apply(".amdhsa_bogus", 1).unwrap_err().contains("unknown"));
        b.apply(".amdhsa_next_free_vgpr", 3).unwrap();
        assert!(b
            .apply(".amdhsa_next_free_vgpr", 3)
            .unwrap_err()
            .contains("twice"));
        assert!(b
            .apply(".amdhsa_system_vgpr_workitem_id", 3)
            .unwrap_err()
            .contains("at most 2"));
        assert!(b.clone().finish().unwrap_err().contains("next_free_sgpr"));
        b.apply(".amdhsa_next_free_sgpr", 3).unwrap();
        b.apply(".amdhsa_user_sgpr_count", 1).unwrap();
        b.apply(".amdhsa_user_sgpr_dispatch_ptr", 1).unwrap();
        assert!(b
            .finish()
            .unwrap_err()
            .contains("smaller than the 2 user SGPRs"));
    }
}
