//! Scalar values a launch fixes before the kernel's first instruction and that no wavefront
//! can change, and the SGPR values that follow from them and from constants.
//!
//! The dispatcher writes some SGPRs alike in every wavefront: the addresses of the dispatch
//! packet and the kernarg segment, the private segment's resource. What they point at is
//! read-only: the dispatch packet (workgroup and grid sizes), the kernarg segment (the
//! arguments) and `.rodata`; a store there faults in both executors. So a loop bounded by a
//! kernel argument (`for (i = 0; i < n; i++)`) or by the workgroup's size (`for (s =
//! get_local_size(0) / 2; s > 0; s >>= 1)`) has one trip count in a given launch, which
//! [`super::trip_count`] finds as it finds a constant one. Without a launch
//! ([`LaunchValues::none`]) only constants fold.
//!
//! [`ScalarValues`] answers "which value does SGPR s hold before this instruction on every path
//! that reaches it": it walks back to every definition that reaches the point (and to the
//! kernel's entry, where the dispatcher's values hold), evaluates each (scalar moves and ALU
//! operations of known operands, and scalar loads from read-only memory at a known address)
//! and answers only when all give the same value. Anything else (a vector instruction writing
//! an SGPR, SCC, a value that differs between wavefronts such as the workgroup id, a
//! definition that depends on itself around a loop) is unknown.

use std::collections::{HashMap, HashSet};

use pws_isa::abi::{LaunchAbi, SgprInit};
use pws_isa::manifest::Manifest;
use pws_isa::{Instruction, Opcode, Operand, Program};

use crate::flow::Flow;
use crate::scalar::effects;

/// Definitions followed from one question: deep enough for clang's address arithmetic, small
/// enough that a hostile chain of moves costs nothing and never overflows the stack.
const MAX_DEPTH: u32 = 32;

/// What the dispatcher gives every wavefront of one launch alike.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LaunchValues {
    /// s0, s1, ... at the kernel's first instruction, where every wavefront gets the same.
    entry: Vec<Option<u32>>,
    /// The least and the most value of each entry SGPR over the launch's wavefronts (the
    /// workgroup ids), where [`LaunchValues::entry`] has none.
    entry_ranges: Vec<Option<(u32, u32)>>,
    /// v0, v1, v2 at the first instruction, the work-item ids: their least and most value over
    /// every lane of every wavefront, the lanes EXEC disables included.
    workitem_ranges: Vec<(u32, u32)>,
    /// Each distinct extent of the launch's workgroups (a workgroup cut at the grid's edge has
    /// its own), and how many of v0, v1, v2 the dispatcher writes: how a lane's work-item ids
    /// follow from its place in its wavefront ([`super::lds_banks`]).
    extents: Vec<[u32; 3]>,
    workitem_vgprs: u8,
    /// Read-only segments: base address and little-endian words.
    read_only: Vec<(u64, Vec<u32>)>,
    /// How a note names the launch a bound holds for ("" without one).
    pub phrase: String,
}

impl LaunchValues {
    /// No launch: only constants are known.
    pub fn none() -> LaunchValues {
        LaunchValues::default()
    }

    /// The values `manifest`'s launch of `program` fixes.
    pub fn of(program: &Program, manifest: &Manifest) -> LaunchValues {
        LaunchValues {
            phrase: " for this launch".into(),
            ..LaunchValues::from_image(program, manifest, true)
        }
    }

    /// What any launch of `groups` one-dimensional workgroups of `workgroup` work-items fixes,
    /// whatever its arguments: the dispatch packet (the workgroup and grid sizes) and
    /// `.rodata`, but not the kernarg segment. `pws wcet k.s --groups G --wg-size N` bounds
    /// such a launch, so a loop over the workgroup's size is bounded there without a manifest.
    pub fn geometry(program: &Program, groups: u32, workgroup: u32) -> LaunchValues {
        let Some(grid) = groups.checked_mul(workgroup).filter(|&g| g > 0) else {
            return LaunchValues::none();
        };
        let manifest = Manifest {
            path: Default::default(),
            kernel: Default::default(),
            opencl: None,
            cflags: Vec::new(),
            entry: None,
            loop_bounds: Default::default(),
            grid: [grid, 1, 1],
            workgroup: [workgroup, 1, 1],
            dims: 1,
            buffers: Vec::new(),
            args: Vec::new(),
            arg_offsets: None,
        };
        LaunchValues {
            phrase: format!(
                " for {groups} workgroup{} of {workgroup} work-items (--groups, --wg-size)",
                if groups == 1 { "" } else { "s" }
            ),
            ..LaunchValues::from_image(program, &manifest, false)
        }
    }

    /// The entry SGPRs and read-only segments of `manifest`'s launch of `program`; the
    /// kernarg segment's words only `with_arguments`.
    fn from_image(program: &Program, manifest: &Manifest, with_arguments: bool) -> LaunchValues {
        let abi = LaunchAbi::for_launch(program, manifest);
        let image = manifest.memory_image(&abi);
        let scratch = image.scratch.as_ref().map_or(0, |r| r.base);
        let entry = abi
            .sgprs
            .iter()
            .map(|&init| {
                let uniform = !matches!(
                    init,
                    SgprInit::WorkgroupId(_)
                        | SgprInit::WorkgroupInfo
                        | SgprInit::PrivateSegmentWavefrontOffset
                );
                uniform.then(|| init.value(manifest, (scratch, abi.private_segment_size), 0, 0))
            })
            .collect();
        let counts = manifest.workgroup_counts();
        let entry_ranges = abi
            .sgprs
            .iter()
            .map(|&init| match init {
                SgprInit::WorkgroupId(d) => Some((0, counts.get(usize::from(d))?.checked_sub(1)?)),
                _ => None,
            })
            .collect();
        let workitem_ranges = workitem_ranges(manifest)
            .into_iter()
            .take(usize::from(abi.workitem_vgprs))
            .collect();
        let extents = extents(manifest);
        let mut read_only = vec![(image.dispatch_packet.base, image.dispatch_packet_words)];
        if with_arguments {
            read_only.push((image.kernarg.base, image.kernarg_words));
        }
        read_only.extend(image.rodata.map(|(region, words)| (region.base, words)));
        LaunchValues {
            entry,
            entry_ranges,
            workitem_ranges,
            extents,
            workitem_vgprs: abi.workitem_vgprs,
            read_only,
            phrase: String::new(),
        }
    }

    /// The least and the most value SGPR `s` holds at the kernel's first instruction over the
    /// launch's wavefronts.
    pub fn entry_sgpr_range(&self, s: u8) -> Option<(u32, u32)> {
        let s = usize::from(s);
        match self.entry.get(s).copied().flatten() {
            Some(v) => Some((v, v)),
            None => self.entry_ranges.get(s).copied().flatten(),
        }
    }

    /// The least and the most value VGPR `v` holds at the kernel's first instruction over the
    /// lanes of the launch's wavefronts (a work-item id), if the dispatcher writes it.
    pub fn entry_vgpr_range(&self, v: u8) -> Option<(u32, u32)> {
        self.workitem_ranges.get(usize::from(v)).copied()
    }

    /// Each distinct extent of the launch's workgroups, and how many work-item id VGPRs the
    /// dispatcher writes (none without a launch).
    pub fn workgroup_extents(&self) -> (&[[u32; 3]], u8) {
        (&self.extents, self.workitem_vgprs)
    }

    /// The dword at `addr` of read-only memory.
    fn read(&self, addr: u64) -> Option<u32> {
        self.read_only.iter().find_map(|(base, words)| {
            let i = addr.checked_sub(*base)? / 4;
            words.get(usize::try_from(i).ok()?).copied()
        })
    }
}

/// The extents a workgroup of `manifest`'s launch can have: the workgroup's size, and in each
/// dimension the grid's remainder where the grid is not a multiple of it.
fn extents(manifest: &Manifest) -> Vec<[u32; 3]> {
    let sizes = |d: usize| {
        let (grid, size) = (manifest.grid[d], manifest.workgroup[d].max(1));
        let cut = grid % size;
        [Some(size), (cut != 0).then_some(cut)]
    };
    let mut all = Vec::new();
    for sx in sizes(0).into_iter().flatten() {
        for sy in sizes(1).into_iter().flatten() {
            for sz in sizes(2).into_iter().flatten() {
                all.push([sx, sy, sz]);
            }
        }
    }
    all
}

/// The work-item ids x, y, z over every lane of every wavefront of `manifest`'s launch: a
/// wavefront's lanes past its workgroup's work-items get the ids their flat index would have
/// ([`pws_isa::abi::LaunchAbi::vgpr_values`]), and a workgroup cut at the grid's edge numbers
/// its work-items by its own extents, so each distinct extent is counted.
fn workitem_ranges(manifest: &Manifest) -> [(u32, u32); 3] {
    let mut most = [0u32; 3];
    for [sx, sy, sz] in extents(manifest) {
        let items = u64::from(sx) * u64::from(sy) * u64::from(sz);
        let wave = u64::from(pws_isa::manifest::WAVEFRONT_SIZE);
        let last = (items.div_ceil(wave) * wave).saturating_sub(1);
        let (sx, sy) = (u64::from(sx), u64::from(sy));
        let ids = [last.min(sx - 1), (last / sx).min(sy - 1), last / (sx * sy)];
        for (m, id) in most.iter_mut().zip(ids) {
            *m = (*m).max(u32::try_from(id).unwrap_or(u32::MAX));
        }
    }
    most.map(|m| (0, m))
}

/// SGPR values at points of one program, as far as constants and a launch decide them.
pub struct ScalarValues<'a> {
    program: &'a Program,
    flow: &'a Flow,
    launch: &'a LaunchValues,
    /// The value each (definition, SGPR) writes, once evaluated.
    written: HashMap<(usize, u8), Option<u32>>,
    /// Definitions being evaluated: one met again depends on itself.
    open: HashSet<(usize, u8)>,
    /// The value of an SGPR at the end of a block, where a search found one.
    at_block_end: HashMap<(usize, u8), u32>,
    /// SGPR values at the start of loop headers, assumed (one value of each enclosing loop's
    /// counter): the header block, the SGPR, the value.
    assumed: Vec<(usize, u8, u32)>,
}

impl<'a> ScalarValues<'a> {
    pub fn new(program: &'a Program, flow: &'a Flow, launch: &'a LaunchValues) -> Self {
        ScalarValues {
            program,
            flow,
            launch,
            written: HashMap::new(),
            open: HashSet::new(),
            at_block_end: HashMap::new(),
            assumed: Vec::new(),
        }
    }

    /// Values where each SGPR `s` of `assumed` holds `value` at the start of block `header`
    /// (a loop's header, in the iteration in which its counter `s` holds `value`), whatever
    /// the paths into it.
    pub fn assuming(
        program: &'a Program,
        flow: &'a Flow,
        launch: &'a LaunchValues,
        assumed: &[(usize, u8, u32)],
    ) -> Self {
        ScalarValues {
            assumed: assumed.to_vec(),
            ..ScalarValues::new(program, flow, launch)
        }
    }

    /// The launch whose values these are.
    pub fn launch(&self) -> &'a LaunchValues {
        self.launch
    }

    /// The program whose values these are.
    pub fn program(&self) -> &'a Program {
        self.program
    }

    /// Its flow.
    pub fn flow(&self) -> &'a Flow {
        self.flow
    }

    /// The value SGPR `s` holds before instruction `at` on every path that reaches it.
    pub fn before(&mut self, at: usize, s: u8, budget: &mut u64) -> Option<u32> {
        self.sgpr_before(at, s, budget, 0)
    }

    /// The value SGPR `s` holds at the end of block `b`.
    pub fn at_end(&mut self, b: usize, s: u8, budget: &mut u64) -> Option<u32> {
        self.reaching(b, self.flow.blocks[b].end, s, budget, 0)
    }

    /// The one value of `s` that every definition reaching instruction `end` of block `b`
    /// writes (the dispatcher's, for paths from the entry without one).
    fn reaching(
        &mut self,
        b: usize,
        end: usize,
        s: u8,
        budget: &mut u64,
        depth: u32,
    ) -> Option<u32> {
        if depth > MAX_DEPTH {
            return None;
        }
        let (flow, program) = (self.flow, self.program);
        let insts = &program.instructions;
        let entry = flow.block_of(0);
        let mut value: Option<u32> = None;
        let mut agree = |v: Option<u32>| match (v, value) {
            (Some(v), Some(w)) if v != w => None,
            (Some(v), _) => {
                value = Some(v);
                Some(())
            }
            (None, _) => None,
        };
        // A set, not a vector per block: a kernel of 10^5 blocks asks this many times.
        let mut seen: HashSet<usize> = HashSet::new();
        let mut whole: Vec<usize> = Vec::new();
        let mut work = vec![(b, end)];
        while let Some((b, end)) = work.pop() {
            *budget = budget.checked_sub((end - flow.blocks[b].start) as u64 + 1)?;
            if end == flow.blocks[b].end {
                if let Some(&v) = self.at_block_end.get(&(b, s)) {
                    agree(Some(v))?;
                    continue;
                }
                whole.push(b);
            }
            let def = (flow.blocks[b].start..end)
                .rev()
                .find(|&i| effects(&insts[i].item).defs.contains(s));
            if let Some(d) = def {
                agree(self.written(d, s, budget, depth + 1))?;
                continue;
            }
            if let Some(&(_, _, v)) = self.assumed.iter().find(|(h, r, _)| *h == b && *r == s) {
                agree(Some(v))?;
                continue;
            }
            if b == entry {
                agree(self.launch.entry.get(usize::from(s)).copied().flatten())?;
            }
            for &p in &flow.pred[b] {
                if flow.reachable[p] && seen.insert(p) {
                    work.push((p, flow.blocks[p].end));
                }
            }
        }
        // Every definition that reaches the end of a block searched whole was found and gave
        // this value: so does the block's end (a loop of many counters asks about the same
        // blocks again).
        if let Some(v) = value {
            for b in whole {
                self.at_block_end.insert((b, s), v);
            }
        }
        value
    }

    /// The value definition `d` writes into SGPR `s`.
    fn written(&mut self, d: usize, s: u8, budget: &mut u64, depth: u32) -> Option<u32> {
        if let Some(&v) = self.written.get(&(d, s)) {
            return v;
        }
        if !self.open.insert((d, s)) {
            return None;
        }
        let v = self.evaluate(d, s, budget, depth);
        self.open.remove(&(d, s));
        self.written.insert((d, s), v);
        v
    }

    /// [`ScalarValues::before`] within an evaluation `depth` deep.
    fn sgpr_before(&mut self, at: usize, s: u8, budget: &mut u64, depth: u32) -> Option<u32> {
        self.reaching(self.flow.block_of(at), at, s, budget, depth)
    }

    /// SCC before instruction `at`, where the last write of it in `at`'s block is a compare of
    /// known values (clang's `s_cmp_lg_u32 s5, 0` ahead of `s_cselect_b64 s[2:3], -1, 0`).
    fn scc_before(&mut self, at: usize, budget: &mut u64, depth: u32) -> Option<bool> {
        let start = self.flow.blocks[self.flow.block_of(at)].start;
        let program = self.program;
        let c = (start..at).rev().find(|&i| {
            effects(&program.instructions[i].item)
                .defs
                .contains(crate::scalar::SCC)
        })?;
        let inst = &program.instructions[c].item;
        let mut known = |op: Operand| match op {
            Operand::Sgpr(r) => self.sgpr_before(c, r, budget, depth + 1),
            _ => op.constant_value32(),
        };
        let compares = super::trip_count::Compare::of(inst, &mut known);
        let (s, compare) = compares.into_iter().next()?;
        Some(compare.holds(self.sgpr_before(c, s, budget, depth + 1)?))
    }

    /// A source operand of instruction `at`: a constant, or a known SGPR.
    fn operand(&mut self, at: usize, op: Operand, budget: &mut u64, depth: u32) -> Option<u32> {
        match op {
            Operand::Sgpr(r) => self.sgpr_before(at, r, budget, depth),
            _ => op.constant_value32(),
        }
    }

    fn evaluate(&mut self, d: usize, s: u8, budget: &mut u64, depth: u32) -> Option<u32> {
        use Opcode::*;
        let program = self.program;
        let inst = &program.instructions[d].item;
        let Some(Operand::Sgpr(dst)) = inst.dst else {
            return None;
        };
        let half = s.checked_sub(dst)?;
        if inst.opcode.format() == pws_isa::Format::Smem {
            return self.loaded(d, inst, half, budget, depth);
        }
        macro_rules! src {
            ($k:expr) => {
                self.operand(d, inst.src($k)?, budget, depth)?
            };
        }
        if matches!(inst.opcode, SCselectB32 | SCselectB64) {
            let wide = inst.opcode == SCselectB64;
            if half != 0 && !wide {
                return None;
            }
            let pick = match self.scc_before(d, budget, depth)? {
                true => inst.src(0)?,
                false => inst.src(1)?,
            };
            return match pick {
                Operand::Sgpr(r) => self.sgpr_before(d, r.checked_add(half)?, budget, depth),
                k if wide => {
                    let v = k.constant_value64(SCselectB64.sign_extends_literal64())?;
                    Some((v >> (32 * u32::from(half))) as u32)
                }
                k => k.constant_value32(),
            };
        }
        if inst.opcode == SMovB64 {
            return match inst.src(0)? {
                Operand::Sgpr(r) => self.sgpr_before(d, r.checked_add(half)?, budget, depth),
                k => {
                    let v = k.constant_value64(SMovB64.sign_extends_literal64())?;
                    Some((v >> (32 * u32::from(half))) as u32)
                }
            };
        }
        if half != 0 {
            return None;
        }
        let simm = inst.simm16() as i32 as u32;
        Some(match inst.opcode {
            SMovB32 => src!(0),
            SMovkI32 => simm,
            SNotB32 => !src!(0),
            SSextI32I8 => src!(0) as i8 as i32 as u32,
            SSextI32I16 => src!(0) as i16 as i32 as u32,
            SAddkI32 => self.sgpr_before(d, dst, budget, depth)?.wrapping_add(simm),
            SMulkI32 => self.sgpr_before(d, dst, budget, depth)?.wrapping_mul(simm),
            op => {
                let (a, b) = (src!(0), src!(1));
                match op {
                    SAddU32 | SAddI32 => a.wrapping_add(b),
                    SSubU32 | SSubI32 => a.wrapping_sub(b),
                    SMulI32 => a.wrapping_mul(b),
                    SAndB32 => a & b,
                    SOrB32 => a | b,
                    SXorB32 => a ^ b,
                    SAndn2B32 => a & !b,
                    SOrn2B32 => a | !b,
                    SLshlB32 => a << (b & 31),
                    SLshrB32 => a >> (b & 31),
                    SAshrI32 => ((a as i32) >> (b & 31)) as u32,
                    SMinI32 => (a as i32).min(b as i32) as u32,
                    SMaxI32 => (a as i32).max(b as i32) as u32,
                    SMinU32 => a.min(b),
                    SMaxU32 => a.max(b),
                    SBfeU32 | SBfeI32 => {
                        let (offset, width) = (b & 31, (b >> 16) & 0x7f);
                        if width == 0 {
                            0
                        } else if width >= 32 {
                            a >> offset
                        } else {
                            let field = (a >> offset) & ((1 << width) - 1);
                            if op == SBfeI32 {
                                ((field << (32 - width)) as i32 >> (32 - width)) as u32
                            } else {
                                field
                            }
                        }
                    }
                    _ => return None,
                }
            }
        })
    }

    /// Dword `half` of the scalar load at `d`, if it reads read-only memory at a known address.
    fn loaded(
        &mut self,
        d: usize,
        inst: &Instruction,
        half: u8,
        budget: &mut u64,
        depth: u32,
    ) -> Option<u32> {
        use Opcode::*;
        if !matches!(
            inst.opcode,
            SLoadDword | SLoadDwordx2 | SLoadDwordx4 | SLoadDwordx8 | SLoadDwordx16
        ) || half >= inst.opcode.signature().dst?.dwords()
        {
            return None;
        }
        let Some(Operand::Sgpr(base)) = inst.src(0) else {
            return None;
        };
        let lo = self.sgpr_before(d, base, budget, depth)?;
        let hi = self.sgpr_before(d, base.checked_add(1)?, budget, depth)?;
        let offset = match inst.src(1) {
            Some(op) => u64::from(self.operand(d, op, budget, depth)?),
            None => u64::from(inst.imm),
        };
        // SMEM ignores the two low address bits.
        let addr = (u64::from(hi) << 32 | u64::from(lo)).wrapping_add(offset) & !3;
        self.launch.read(addr.wrapping_add(4 * u64::from(half)))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn value_before_end(src: &str, s: u8, launch: &LaunchValues) -> Option<u32> {
        let program = pws_isa::assemble(src, "t.s").unwrap();
        let flow = Flow::new(&program, "t.s").unwrap();
        let end = program
            .instructions
            .iter()
            .position(|l| l.item.opcode == Opcode::SEndpgm)
            .unwrap();
        ScalarValues::new(&program, &flow, launch).before(end, s, &mut 1_000_000)
    }

    /// Kernarg pointer in s[6:7], dispatch pointer in s[4:5], as clang's kernels have them; a
    /// workgroup of 64 (the packet's second word), kernel arguments 7, 5, 3 at offset 8.
    pub(crate) fn launch() -> LaunchValues {
        let mut entry = vec![Some(0); 9];
        entry[8] = None;
        entry[4] = Some(0x800);
        entry[5] = Some(0);
        entry[6] = Some(0x1000);
        entry[7] = Some(0);
        LaunchValues {
            entry,
            read_only: vec![
                (0x800, vec![0x0102, 64 | 1 << 16, 1, 256]),
                (0x1000, vec![0x1_0000, 0, 7, 5, 3, 0]),
            ],
            phrase: " for this launch".into(),
            ..LaunchValues::default()
        }
    }

    #[test]
    fn constants_fold_without_a_launch() {
        let src = "s_mov_b32 s2, 48\ns_lshr_b32 s3, s2, 1\ns_addk_i32 s3, 0x10\ns_endpgm\n";
        assert_eq!(value_before_end(src, 3, &LaunchValues::none()), Some(40));
        let src = "s_load_dword s2, s[6:7], 0x8\ns_endpgm\n";
        assert_eq!(value_before_end(src, 2, &LaunchValues::none()), None);
    }

    #[test]
    fn kernel_arguments_and_the_workgroup_size_are_read() {
        let src = "\
s_load_dword s11, s[4:5], 0x4
s_load_dwordx4 s[0:3], s[6:7], 0x8
v_mad_u64_u32 v[2:3], s[6:7], s0, v2, v[0:1]
s_waitcnt lgkmcnt(0)
s_and_b32 s10, s11, 0xffff
s_lshr_b32 s5, s10, 1
s_bfe_u32 s12, s11, 0x100010
s_endpgm
";
        let l = launch();
        assert_eq!(value_before_end(src, 5, &l), Some(32));
        assert_eq!(value_before_end(src, 12, &l), Some(1));
        assert_eq!(value_before_end(src, 1, &l), Some(5));
        assert_eq!(value_before_end(src, 3, &l), Some(0));
        // v_mad_u64_u32 wrote s[6:7]: not the kernarg pointer any more.
        assert_eq!(value_before_end(src, 6, &l), None);
    }

    #[test]
    fn a_launchs_geometry_gives_the_sizes_but_not_the_arguments() {
        let src = "\
k:
s_load_dword s11, s[4:5], 0x4
s_load_dword s14, s[4:5], 0xc
s_load_dword s12, s[6:7], 0x0
s_waitcnt lgkmcnt(0)
s_and_b32 s10, s11, 0xffff
s_lshr_b32 s13, s10, 1
s_endpgm
.amdhsa_kernel k
.amdhsa_user_sgpr_count 8
.amdhsa_user_sgpr_private_segment_buffer 1
.amdhsa_user_sgpr_dispatch_ptr 1
.amdhsa_user_sgpr_kernarg_segment_ptr 1
.amdhsa_next_free_vgpr 1
.amdhsa_next_free_sgpr 16
.end_amdhsa_kernel
";
        let program = pws_isa::assemble(src, "t.s").unwrap();
        let l = LaunchValues::geometry(&program, 4, 128);
        assert_eq!(value_before_end(src, 10, &l), Some(128));
        assert_eq!(value_before_end(src, 13, &l), Some(64));
        assert_eq!(
            value_before_end(src, 14, &l),
            Some(512),
            "the grid's size in x"
        );
        assert_eq!(value_before_end(src, 12, &l), None, "an argument");
        assert!(l.phrase.contains("4 workgroups of 128 work-items"));
        assert_eq!(
            LaunchValues::geometry(&program, 1 << 20, 1 << 12),
            LaunchValues::none()
        );
    }

    #[test]
    fn paths_that_disagree_and_values_that_depend_on_themselves_are_unknown() {
        let src = "\
s_cmp_eq_u32 s0, 0
s_cbranch_scc1 .Lb
s_mov_b32 s2, 1
s_branch .Lj
.Lb:
s_mov_b32 s2, 2
.Lj:
s_mov_b32 s3, 4
.Ll:
s_add_u32 s3, s3, 1
s_cmp_lt_u32 s3, 9
s_cbranch_scc1 .Ll
s_endpgm
";
        assert_eq!(value_before_end(src, 2, &LaunchValues::none()), None);
        assert_eq!(value_before_end(src, 3, &LaunchValues::none()), None);
        let same = src.replace("s_mov_b32 s2, 2", "s_mov_b32 s2, 1");
        assert_eq!(value_before_end(&same, 2, &LaunchValues::none()), Some(1));
    }

    #[test]
    fn writable_and_unmapped_memory_is_unknown() {
        let src = "s_mov_b64 s[8:9], 0x10000\ns_load_dword s2, s[8:9], 0x0\ns_endpgm\n";
        assert_eq!(value_before_end(src, 2, &launch()), None);
        let src = "s_mov_b64 s[8:9], 0x1000\ns_load_dword s2, s[8:9], 0xc\ns_endpgm\n";
        assert_eq!(value_before_end(src, 2, &launch()), Some(5));
    }

    #[test]
    fn a_long_chain_of_copies_stops_at_the_depth_limit() {
        let mut src = String::from("s_mov_b32 s0, 5\n");
        for k in 0..200 {
            src.push_str(&format!("s_mov_b32 s{}, s{}\n", (k + 1) % 2, k % 2));
        }
        src.push_str("s_endpgm\n");
        assert_eq!(value_before_end(&src, 0, &LaunchValues::none()), None);
        let short: String = src
            .lines()
            .take(10)
            .chain(["s_endpgm"])
            .collect::<Vec<_>>()
            .join("\n");
        assert_eq!(value_before_end(&short, 1, &LaunchValues::none()), Some(5));
    }
}
