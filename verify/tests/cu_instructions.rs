//! Every instruction the compute unit executes, on the RTL against the golden model: random
//! straight-line programs of scalar and vector ALU operations, the lane accesses
//! (`v_readlane_b32`, `v_writelane_b32`, `v_readfirstlane_b32`, of any lane, active or not),
//! scalar loads of 1 to 16 dwords (the offset an immediate or an SGPR) and FLAT and MUBUF
//! (private memory) loads and stores of bytes, halves and 1 to 4 dwords, FLAT atomics with and without `glc` (on the lane's own
//! dword or on one dword every lane shares, so lane order shows), with random registers,
//! constants, literals and lane masks (saveexec and `v_cmpx` leave lanes off for the
//! instructions after them), over random data and a possibly partial wavefront. Every register
//! the program can write is stored at the end, so the final memories compare the whole
//! architectural state. The RTL must also take exactly the timing contract's cycles for each
//! instruction (docs/timing.md).
//!
//! The program is a list of (opcode, operand choices) that proptest shrinks to the few
//! instructions that matter; a failure prints the program.

use proptest::prelude::*;
use pws_hdl::config::HwConfig;
use pws_hdl::cu::decode::{micro_op, InstClass};
use pws_hdl::cu::CuMode;
use pws_hdl::swizzle::SwizzleMode;
use pws_host::timing::{Competition, Mode as HostMode, TimingTable};
use pws_isa::manifest::Manifest;
use pws_isa::testing::proptest_cases;
use pws_isa::{
    check, DstUnused, Format, Instruction, Opcode, Operand, Sdwa, SdwaSel, Width, OPCODES,
};
use pws_sim::cu::{run, RunOptions};
use pws_verify::bound::cu_timing;
use pws_verify::golden::{self, Config, Mode};

/// VGPRs and SGPRs holding random data that the program reads and writes.
const V_DATA: std::ops::RangeInclusive<u8> = 10..=41;
const S_DATA: std::ops::RangeInclusive<u8> = 16..=47;
/// Dwords of the per-lane areas of `in`, `out` and `scratch`, and of `sdata`.
const IN_DWORDS: u32 = 32;
const OUT_DWORDS: u32 = 80;
const SCRATCH_DWORDS: u32 = 16;
const SDATA_DWORDS: u32 = 64;
/// The byte offset s56 holds for the scalar loads that take their offset from an SGPR: the
/// largest (16 dwords) stays within `sdata`.
const SMEM_OFFSET: u32 = 0x40;
/// Private memory per lane (the kernel descriptor's private segment).
const PRIVATE_BYTES: u32 = 256;

/// The opcodes the body draws from: the ALU operations and memory instructions the RTL
/// implements (program control and split/merge are not straight-line ALU work).
fn pool() -> Vec<Opcode> {
    OPCODES
        .iter()
        .map(|i| i.opcode)
        .filter(|&op| {
            micro_op(op).is_some_and(|u| {
                matches!(
                    u.class,
                    InstClass::Salu | InstClass::Valu | InstClass::Smem | InstClass::Flat
                )
            })
        })
        .collect()
}

/// A random operand choice stream: successive words of one instruction's draw.
struct Choices<'a> {
    words: &'a [u32],
    next: usize,
}

impl Choices<'_> {
    fn take(&mut self, n: u32) -> u32 {
        let w = self.words[self.next % self.words.len()];
        self.next += 1;
        // Mix the position in, so a short draw still varies across operands.
        (w ^ (self.next as u32).wrapping_mul(0x9E37_79B9)) % n
    }

    fn word(&mut self) -> u32 {
        let w = self.words[self.next % self.words.len()];
        self.next += 1;
        w.rotate_left(self.next as u32 * 7)
    }
}

fn vgpr(c: &mut Choices, w: Width) -> Operand {
    let n = w.dwords() as u32;
    Operand::Vgpr(*V_DATA.start() + c.take(V_DATA.len() as u32 - n + 1) as u8)
}

fn sgpr(c: &mut Choices, w: Width) -> Operand {
    let step = u32::from(w.dwords().min(4));
    let slots = (S_DATA.len() as u32 - u32::from(w.dwords())) / step + 1;
    Operand::Sgpr(*S_DATA.start() + (c.take(slots) * step) as u8)
}

/// A lane mask register: VCC or one of two SGPR pairs kept for masks.
fn mask(c: &mut Choices, vop3: bool) -> Operand {
    if !vop3 {
        return Operand::VccLo;
    }
    [Operand::VccLo, Operand::Sgpr(48), Operand::Sgpr(50)][c.take(3) as usize]
}

/// A source of width `w`: a register, VCC, an inline constant or a literal.
fn source(c: &mut Choices, w: Width, vector: bool) -> Operand {
    match c.take(8) {
        0..=2 if vector => vgpr(c, w),
        0..=3 => sgpr(c, w),
        4 => Operand::VccLo,
        5 | 6 => Operand::Int(c.take(81) as i8 - 16),
        _ => {
            let v = c.word();
            Operand::constant(i64::from(v), w).unwrap_or(Operand::Literal(v))
        }
    }
}

/// Makes `inst` (a VOP1/VOP2/VOPC with an SDWA form) SDWA: VGPR sources, random selects
/// and `dst_unused`, `sext` on integer sources, `neg`/`abs` on float ones, `clamp` on the f32
/// operations (the executable subset has no integer clamp).
fn sdwa(c: &mut Choices, inst: &mut Instruction) {
    let op = inst.opcode;
    let format = op.format();
    let sel = |c: &mut Choices| SdwaSel::ALL[c.take(7) as usize];
    let mut f = Sdwa {
        src0_sel: sel(c),
        ..Sdwa::default()
    };
    if format != Format::Vopc && op != Opcode::VMacF32 {
        f.dst_sel = sel(c);
    }
    if format != Format::Vopc {
        f.dst_unused = DstUnused::ALL[c.take(3) as usize];
    }
    if format != Format::Vop1 {
        f.src1_sel = sel(c);
    }
    inst.vop3 = false;
    inst.sdwa = Some(f);
    inst.mods = Default::default();
    for i in 0..op.signature().srcs.len().min(2) {
        inst.srcs[i] = Some(vgpr(c, Width::B32));
        let bit = 1 << i;
        if op.sdwa_float_src(i) {
            inst.mods.neg |= bit * (c.take(2) as u8);
            inst.mods.abs |= bit * (c.take(2) as u8);
        } else {
            inst.mods.sext |= bit * (c.take(2) as u8);
        }
    }
    inst.mods.clamp = (op.is_f32() || pws_isa::subset::sdwa_clamp_saturates(op)) && c.take(4) == 0;
    // The 16-bit ops' two SDWA forms outside the executable subset (`pws_isa::subset`): a
    // shift amount read from above bit 0, and a sign-extended byte of an unsigned op that is
    // not modulo 2^16 or saturates.
    if op.is_int16() {
        let f = inst.sdwa.as_mut().expect("just set");
        let shift = matches!(
            op,
            Opcode::VLshlrevB16 | Opcode::VLshrrevB16 | Opcode::VAshrrevI16
        );
        if shift && !matches!(f.src0_sel, SdwaSel::Byte0 | SdwaSel::Word0 | SdwaSel::Dword) {
            f.src0_sel = SdwaSel::Dword;
        }
        for (i, sel) in [f.src0_sel, f.src1_sel].into_iter().enumerate() {
            if sel.field().1 == 8 && !op.is_signed16() && !(op.is_modular16() && !inst.mods.clamp) {
                inst.mods.sext &= !(1 << i);
            }
        }
    }
    if inst.sdst.is_some() {
        inst.sdst = Some(Operand::VccLo);
    }
    if format == Format::Vop2 && inst.srcs[2].is_some() {
        inst.srcs[2] = Some(Operand::VccLo);
    }
}

/// One instruction of `op` from the draw `words`, if the draw gives a valid one.
fn instruction(op: Opcode, words: &[u32]) -> Option<Instruction> {
    let c = &mut Choices { words, next: 0 };
    let info = op.info();
    let sig = info.signature;
    let mut inst = Instruction::new(op);
    if let Some(k) = op.literal_k() {
        // v_madmk/madak_f32: K is the one literal, the other source a VGPR.
        inst.dst = Some(vgpr(c, Width::B32));
        inst.srcs[0] = Some(match source(c, Width::B32, true) {
            Operand::Literal(_) => vgpr(c, Width::B32),
            s => s,
        });
        inst.srcs[k] = Some(Operand::Literal(c.word()));
        inst.srcs[3 - k] = Some(vgpr(c, Width::B32));
        return check(&inst).ok().map(|()| inst);
    }
    if op.is_lane_access() {
        // A data VGPR or SGPR, the lane a scalar or an inline constant (past 63 too), the
        // value written a scalar or an inline constant.
        let scalar = |c: &mut Choices| match c.take(3) {
            0 => Operand::Int(c.take(81) as i8 - 16),
            _ => sgpr(c, Width::B32),
        };
        inst.vop3 = info.format == Format::Vop3;
        match op {
            Opcode::VWritelaneB32 => {
                inst.dst = Some(vgpr(c, Width::B32));
                inst.srcs[0] = Some(scalar(c));
            }
            _ => {
                inst.sdst = Some(sgpr(c, Width::B32));
                inst.srcs[0] = Some(vgpr(c, Width::B32));
            }
        }
        if op != Opcode::VReadfirstlaneB32 {
            inst.srcs[1] = Some(scalar(c));
        }
        return check(&inst).ok().map(|()| inst);
    }
    match info.format {
        Format::Vop1 | Format::Vop2 | Format::Vopc | Format::Vop3 => {
            inst.vop3 = info.format == Format::Vop3 || c.take(3) == 0;
            inst.dst = sig.dst.map(|w| vgpr(c, w));
            inst.sdst = sig.sdst.map(|_| mask(c, inst.vop3));
            for (i, &w) in sig.srcs.iter().enumerate() {
                inst.srcs[i] = Some(if info.format == Format::Vop2 && i == 2 {
                    mask(c, inst.vop3)
                } else if i > 0 && c.take(3) != 0 {
                    vgpr(c, w)
                } else {
                    source(c, w, true)
                });
            }
            if op.has_sdwa_form() && c.take(4) == 0 {
                sdwa(c, &mut inst);
            }
        }
        Format::Sop1 | Format::Sop2 | Format::Sopc => {
            inst.dst = sig.dst.map(|w| {
                if op.is_saveexec() {
                    Operand::Sgpr(52)
                } else {
                    sgpr(c, w)
                }
            });
            for (i, &w) in sig.srcs.iter().enumerate() {
                inst.srcs[i] = Some(source(c, w, false));
            }
        }
        Format::Sopk => {
            let reg = sgpr(c, Width::B32);
            if sig.dst.is_some() {
                inst.dst = Some(reg);
            } else {
                inst.srcs[0] = Some(reg);
            }
            inst.imm = c.word() & 0xffff;
        }
        Format::Smem => {
            let w = sig.dst.unwrap();
            inst.dst = Some(sgpr(c, w));
            inst.srcs[0] = Some(Operand::Sgpr(10));
            // The offset as an immediate, or in s56 (SMEM_OFFSET bytes): a read of its own.
            if c.take(3) == 0 {
                inst.srcs[1] = Some(Operand::Sgpr(56));
            } else {
                inst.imm = 4 * c.take(SDATA_DWORDS - u32::from(w.dwords()) + 1);
            }
        }
        Format::Flat if op.is_flat_atomic() => {
            // v[8:9] is the lane's `scratch` area, v[42:43] the start of `scratch` for all.
            inst.srcs[0] = Some(Operand::Vgpr(if c.take(2) == 0 { 8 } else { 42 }));
            inst.srcs[1] = Some(vgpr(c, sig.srcs[1]));
            inst.mods.glc = c.take(2) == 0;
            if inst.mods.glc {
                inst.dst = Some(vgpr(c, Width::B32));
            }
        }
        Format::Mubuf => {
            // Private memory: 256 bytes per lane through s[0:3], SOFFSET the wavefront's
            // offset s7 or 0, OFFSET up to what leaves room for v1 (4 · (lane % 16)) and the
            // access; dwords aligned, bytes and halves anywhere.
            let bytes = op.flat_bytes().unwrap();
            let w = sig.dst.or(sig.srcs.get(3).copied()).unwrap();
            let offen = c.take(2) == 0;
            let room = PRIVATE_BYTES - bytes - if offen { 60 } else { 0 };
            let align = bytes.min(4);
            inst.imm = c.take(room / align + 1) * align;
            inst.srcs[0] = offen.then_some(Operand::Vgpr(1));
            inst.srcs[1] = Some(Operand::Sgpr(0));
            inst.srcs[2] = Some(if c.take(2) == 0 {
                Operand::Int(0)
            } else {
                Operand::Sgpr(7)
            });
            inst.mods.glc = c.take(4) == 0;
            match sig.dst {
                Some(_) => inst.dst = Some(vgpr(c, w)),
                None => inst.srcs[3] = Some(vgpr(c, w)),
            }
        }
        Format::Flat => {
            let bytes = op.flat_bytes().unwrap();
            let w = sig.dst.or(sig.srcs.get(1).copied()).unwrap();
            match sig.dst {
                Some(_) => {
                    // v[2:3] is a lane's `in` area, v[4:5] one byte and v[6:7] two bytes in.
                    let addr = match (bytes, c.take(3)) {
                        (1, 1) => 4,
                        (1 | 2, 2) => 6,
                        _ => 2,
                    };
                    inst.dst = Some(vgpr(c, w));
                    inst.srcs[0] = Some(Operand::Vgpr(addr));
                }
                None => {
                    inst.srcs[0] = Some(Operand::Vgpr(8));
                    inst.srcs[1] = Some(vgpr(c, w));
                }
            }
        }
        _ => return None,
    }
    check(&inst).ok().map(|()| inst)
}

/// The kernel: the prologue loads data into the registers, the body runs (each ALU result mixed
/// into a checksum), the epilogue stores every register the body may have written and the
/// checksum to the lane's `out` area.
fn kernel(body: &[Instruction]) -> String {
    let mut s = format!(
        "k:
    s_load_dwordx8 s[8:15], s[4:5], 0x0        ; in, sdata, out, scratch
    s_waitcnt lgkmcnt(0)
    s_load_dwordx16 s[16:31], s[10:11], 0x0
    s_load_dwordx16 s[32:47], s[10:11], 0x40
    s_mov_b64 s[54:55], exec
    s_movk_i32 s56, {SMEM_OFFSET:#x}                  ; a scalar load's SGPR offset
    s_mov_b64 exec, -1                         ; every lane's registers, for saveexec to enable
    v_lshlrev_b32_e32 v1, 7, v0                ; 128 bytes of `in` per lane
    v_mov_b32_e32 v3, s9
    v_add_u32_e32 v2, vcc, s8, v1
    v_addc_u32_e32 v3, vcc, 0, v3, vcc
",
    );
    for k in 0..8 {
        let first = *V_DATA.start() + 4 * k;
        s += &format!(
            "    v_add_u32_e32 v6, vcc, {}, v2\n    v_addc_u32_e32 v7, vcc, 0, v3, vcc\n    flat_load_dwordx4 v[{first}:{}], v[6:7]\n",
            16 * k,
            first + 3
        );
    }
    s += "    v_add_u32_e32 v4, vcc, 5, v2
    v_addc_u32_e32 v5, vcc, 0, v3, vcc
    v_add_u32_e32 v6, vcc, 6, v2
    v_addc_u32_e32 v7, vcc, 0, v3, vcc
    v_lshlrev_b32_e32 v1, 6, v0                ; 64 bytes of `scratch` per lane
    v_mov_b32_e32 v9, s15
    v_add_u32_e32 v8, vcc, s14, v1
    v_addc_u32_e32 v9, vcc, 0, v9, vcc
    v_mov_b32_e32 v42, s14
    v_mov_b32_e32 v43, s15
    s_mov_b64 s[48:49], s[16:17]
    s_mov_b64 s[50:51], s[18:19]
    s_mov_b64 s[52:53], s[20:21]
    s_mov_b64 vcc, s[22:23]
    v_and_b32_e32 v1, 15, v0
    v_lshlrev_b32_e32 v1, 2, v1                ; a private-memory offset per lane
    s_mov_b64 exec, s[54:55]
    s_waitcnt vmcnt(0) lgkmcnt(0)
";
    s += "    v_mov_b32_e32 v44, 0\n    v_mov_b32_e32 v45, 0\n    v_mov_b32_e32 v46, 0\n    v_mov_b32_e32 v47, 0\n";
    for inst in body {
        s += &format!("    {inst}\n");
        s += &checksum(inst);
    }
    s += "    s_waitcnt vmcnt(0) lgkmcnt(0)
    s_cselect_b32 s58, 1, 0                    ; SCC
    s_mov_b64 s[56:57], vcc
    s_mov_b64 exec, s[54:55]
    v_mov_b32_e32 v1, 0x140                    ; 320 bytes of `out` per lane
    v_mul_u32_u24_e32 v1, v0, v1
    v_mov_b32_e32 v3, s13
    v_add_u32_e32 v2, vcc, s12, v1
    v_addc_u32_e32 v3, vcc, 0, v3, vcc
";
    let advance = "    v_add_u32_e32 v2, vcc, 16, v2\n    v_addc_u32_e32 v3, vcc, 0, v3, vcc\n";
    for k in 0..8 {
        let first = *V_DATA.start() + 4 * k;
        s += &format!(
            "    flat_store_dwordx4 v[2:3], v[{first}:{}]\n{advance}",
            first + 3
        );
    }
    for group in (*S_DATA.start()..=59).collect::<Vec<u8>>().chunks(4) {
        for (i, &r) in group.iter().enumerate() {
            s += &format!("    v_mov_b32_e32 v{}, s{r}\n", 4 + i);
        }
        s += &format!("    flat_store_dwordx4 v[2:3], v[4:7]\n{advance}");
    }
    // The legacy ABI's registers, with private memory and the wavefront's offset into it (s7).
    s + &format!(
        "    flat_store_dwordx4 v[2:3], v[44:47]\n    s_endpgm\n\
         .rodata\n.p2align 6\n.amdhsa_kernel k\n\
         .amdhsa_private_segment_fixed_size {PRIVATE_BYTES}\n\
         .amdhsa_user_sgpr_private_segment_buffer 1\n\
         .amdhsa_user_sgpr_kernarg_segment_ptr 1\n\
         .amdhsa_system_sgpr_private_segment_wavefront_offset 1\n\
         .amdhsa_next_free_vgpr 48\n.amdhsa_next_free_sgpr 64\n.end_amdhsa_kernel\n"
    )
}

/// Mixes the ALU result `inst` writes into the checksum v44 right after it, so that a wrong
/// result counts even when a later instruction overwrites its register (the epilogue stores
/// only the registers' last values).
fn checksum(inst: &Instruction) -> String {
    let alu = matches!(
        inst.opcode.format(),
        Format::Vop1 | Format::Vop2 | Format::Vopc | Format::Vop3 | Format::Sop1 | Format::Sop2
    );
    let (reg, n) = match (inst.dst, inst.opcode.signature().dst, inst.sdst) {
        (Some(Operand::Vgpr(v)), Some(w), _) if alu => ('v', (v, w.dwords())),
        (Some(Operand::Sgpr(r)), Some(w), _) if alu => ('s', (r, w.dwords())),
        // A read lane access's scalar result.
        (None, None, Some(Operand::Sgpr(r))) if inst.opcode.is_lane_access() => ('s', (r, 1)),
        _ => return String::new(),
    };
    let (first, dwords) = n;
    (first..first + dwords)
        .map(|r| {
            format!("    v_xor_b32_e32 v44, {reg}{r}, v44\n    v_alignbit_b32 v44, v44, v44, 5\n")
        })
        .collect()
}

fn manifest(lanes: u32, data: &[u32]) -> Manifest {
    let words = |n: u32, salt: u32| -> String {
        let v: Vec<String> = (0..n)
            .map(|i| {
                let x = data[(i as usize * 7 + salt as usize) % data.len()].rotate_left(i % 31)
                    ^ i.wrapping_mul(0x0101_0101);
                (x as i32).to_string()
            })
            .collect();
        v.join(", ")
    };
    let text = format!(
        "kernel = \"k.s\"\ngrid = {lanes}\nworkgroup = 64\nargs = [\"in\", \"sdata\", \"out\", \"scratch\"]\n\
         [[buffer]]\nname = \"in\"\ntype = \"i32\"\ndata = [{}]\n\
         [[buffer]]\nname = \"sdata\"\ntype = \"i32\"\ndata = [{}]\n\
         [[buffer]]\nname = \"out\"\ntype = \"i32\"\nlen = {}\n\
         [[buffer]]\nname = \"scratch\"\ntype = \"i32\"\ndata = [{}]\n",
        words(64 * IN_DWORDS, 1),
        words(SDATA_DWORDS, 2),
        64 * OUT_DWORDS,
        words(64 * SCRATCH_DWORDS, 3),
    );
    Manifest::parse(&text, "k.toml").unwrap()
}

/// The compute unit of the test: one wavefront slot, registers for the program's data.
fn hw() -> HwConfig {
    HwConfig {
        sgprs_per_context: 64,
        vgprs_per_simd: 48,
        ..HwConfig::cu().with_spsimds(0)
    }
}

fn check_program(
    body: &[Instruction],
    lanes: u32,
    data: &[u32],
    compaction: SwizzleMode,
) -> Result<(), TestCaseError> {
    let source = kernel(body);
    let program =
        pws_isa::assemble(&source, "k.s").map_err(|e| TestCaseError::fail(e.to_string()))?;
    let manifest = manifest(lanes, data);
    let config = Config {
        mode: Mode::NoSplit,
        s: 0,
        max_instructions: 1_000_000,
        ..Config::default()
    };
    let golden = golden::run(&program, &manifest, &config)
        .map_err(|e| TestCaseError::fail(format!("golden: {e}\n{source}")))?;
    let opts = RunOptions {
        compaction,
        max_cycles: 1_000_000,
        ..RunOptions::new(hw(), CuMode::NoSplit)
    };
    let rtl = run(&program, &manifest, &opts)
        .map_err(|e| TestCaseError::fail(format!("RTL: {e}\n{source}")))?;
    for (b, (name, values)) in rtl.buffers.0.iter().zip(&golden.buffers.0) {
        let (got, want) = (&b.words, values.words());
        if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
            let (lane, word) = (i as u32 / OUT_DWORDS, i as u32 % OUT_DWORDS);
            let what = if name != "out" {
                format!("{name}[{i}]")
            } else if word < IN_DWORDS {
                format!("lane {lane} v{}", u32::from(*V_DATA.start()) + word)
            } else if word >= OUT_DWORDS - 4 {
                format!("lane {lane} the checksum of every ALU result (v44)")
            } else {
                format!(
                    "lane {lane} s{}",
                    u32::from(*S_DATA.start()) + word - IN_DWORDS
                )
            };
            return Err(TestCaseError::fail(format!(
                "{compaction:?}: {what}: RTL {:#x}, golden {:#x}\n{source}",
                got[i], want[i]
            )));
        }
    }
    // One wavefront alone: every instruction takes its contract's cycles, exactly so without
    // compaction (compaction only removes passes).
    let table = TimingTable::contract(
        &cu_timing(&hw()),
        HostMode::NoSplit,
        &Competition::default(),
        program.sgprs_used(),
    );
    for stat in &rtl.instructions {
        let l = program.instruction_at(stat.pc).unwrap();
        let bound = table.cycles(&l.item);
        let exact = compaction == SwizzleMode::None;
        prop_assert!(
            stat.max_cycles <= bound && (!exact || stat.max_cycles == bound),
            "{}: {} cycles on the RTL, the contract says {bound}\n{source}",
            l.item,
            stat.max_cycles
        );
    }
    Ok(())
}

/// Draws of a body: (index into the pool, operand words).
fn body_strategy(len: std::ops::Range<usize>) -> impl Strategy<Value = Vec<(usize, Vec<u32>)>> {
    prop::collection::vec(
        (any::<usize>(), prop::collection::vec(any::<u32>(), 8)),
        len,
    )
}

fn body_of(draws: &[(usize, Vec<u32>)]) -> Vec<Instruction> {
    let pool = pool();
    draws
        .iter()
        .filter_map(|(i, words)| instruction(pool[i % pool.len()], words))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(6)))]

    #[test]
    fn random_programs_run_the_same_on_the_rtl_and_the_golden_model(
        draws in body_strategy(1..48),
        lanes in prop_oneof![3 => Just(64u32), 1 => 1u32..64],
        data in prop::collection::vec(any::<u32>(), 16),
        compaction in proptest::sample::select(&[SwizzleMode::None, SwizzleMode::Bcc, SwizzleMode::Scc][..]),
    ) {
        check_program(&body_of(&draws), lanes, &data, compaction)?;
    }
}

/// Every opcode of the pool, several random instances each, in programs of 48 instructions:
/// no instruction is left to chance.
#[test]
fn every_opcode_runs_the_same_on_the_rtl_and_the_golden_model() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let words = prop::collection::vec(any::<u32>(), 8);
    let mut body = Vec::new();
    let mut covered = std::collections::BTreeSet::new();
    for op in pool() {
        let mut found = 0;
        for _ in 0..200 {
            let w = words.new_tree(&mut runner).unwrap().current();
            if let Some(inst) = instruction(op, &w) {
                body.push(inst);
                found += 1;
                if found == 3 {
                    break;
                }
            }
        }
        assert!(found > 0, "no valid instance of {op}");
        covered.insert(op);
    }
    assert_eq!(covered.len(), pool().len());
    let data: Vec<u32> = (0..16u32)
        .map(|i| i.wrapping_mul(0x2545_F491) ^ 0xDEAD_BEEF)
        .collect();
    for (k, chunk) in body.chunks(48).enumerate() {
        let compaction = [SwizzleMode::None, SwizzleMode::Scc][k % 2];
        check_program(chunk, 64 - k as u32 % 3 * 13, &data, compaction)
            .unwrap_or_else(|e| panic!("program {k}: {e}"));
    }
}

/// SDWA on the RTL against the golden model, exhaustively for a few operations: every source
/// select with and without `sext`, and every destination select with every `dst_unused`, for
/// `v_or_b32`, `v_and_b32`, `v_lshlrev_b32` (swapped operands), `v_add_u32` (carry-out),
/// `v_mov_b32`, `v_cvt_f32_ubyte0`, `v_add_f32` (neg/abs) and the compares `v_cmp_gt_i32` and
/// `v_cmpx_lt_u32`.
#[test]
fn sdwa_selects_run_the_same_on_the_rtl_and_the_golden_model() {
    let line = |text: &str| {
        let p = pws_isa::assemble(text, "sdwa.s").unwrap_or_else(|e| panic!("{e}"));
        p.instructions[0].item
    };
    let mut body = Vec::new();
    for (i, dst) in SdwaSel::ALL.iter().enumerate() {
        for unused in DstUnused::ALL {
            let (d, u) = (dst.name(), unused.name());
            let (a, b) = (10 + i, 20 + i);
            let m = format!("dst_sel:{d} dst_unused:{u}");
            body.push(line(&format!(
                "v_or_b32_sdwa v{a}, v{b}, v30 {m} src0_sel:WORD_1"
            )));
            body.push(line(&format!(
                "v_and_b32_sdwa v{b}, v31, v{a} {m} src1_sel:BYTE_2"
            )));
            body.push(line(&format!(
                "v_lshlrev_b32_sdwa v{a}, v32, v{b} {m} src0_sel:BYTE_0"
            )));
            body.push(line(&format!(
                "v_add_u32_sdwa v{b}, vcc, v33, v{a} {m} src1_sel:BYTE_3"
            )));
            body.push(line(&format!(
                "v_mov_b32_sdwa v{a}, sext(v34) {m} src0_sel:BYTE_1"
            )));
            body.push(line(&format!(
                "v_cvt_f32_ubyte0_sdwa v{b}, v35 {m} src0_sel:BYTE_3"
            )));
            body.push(line(&format!("v_add_f32_sdwa v{a}, -v36, |v{b}| {m}")));
        }
    }
    for (i, s0) in SdwaSel::ALL.iter().enumerate() {
        for (j, s1) in SdwaSel::ALL.iter().enumerate() {
            let sext = |on: bool, v: usize| {
                if on {
                    format!("sext(v{v})")
                } else {
                    format!("v{v}")
                }
            };
            let (x, y) = (sext(i % 2 == 0, 10 + i), sext(j % 3 == 0, 20 + j));
            let sels = format!("src0_sel:{} src1_sel:{}", s0.name(), s1.name());
            body.push(line(&format!(
                "v_or_b32_sdwa v{}, {x}, {y} {sels}",
                30 + (i + j) % 10
            )));
            body.push(line(&format!("v_cmp_gt_i32_sdwa vcc, {x}, {y} {sels}")));
            body.push(line(&format!(
                "v_cndmask_b32_sdwa v{}, {x}, {y}, vcc {sels}",
                30 + j
            )));
        }
    }
    // Last: a compare that turns lanes off, then SDWA writes under the new EXEC.
    body.push(line(
        "v_cmpx_lt_u32_sdwa vcc, v12, v13 src0_sel:BYTE_1 src1_sel:BYTE_0",
    ));
    body.push(line(
        "v_or_b32_sdwa v14, v15, v16 dst_sel:BYTE_2 dst_unused:UNUSED_PRESERVE",
    ));
    let data: Vec<u32> = (0..16u32)
        .map(|i| i.wrapping_mul(0x9E37_79B9) ^ 0x80FF_7F01)
        .collect();
    for (k, chunk) in body.chunks(48).enumerate() {
        let compaction = [SwizzleMode::None, SwizzleMode::Bcc, SwizzleMode::Scc][k % 3];
        check_program(chunk, 64 - k as u32 % 4 * 7, &data, compaction)
            .unwrap_or_else(|e| panic!("program {k}: {e}"));
    }
}
