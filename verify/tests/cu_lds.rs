//! The compute unit's LDS (`pws_hdl::cu::lds`) on whole kernels, against the golden model: bank
//! conflicts cost exactly the timing contract's cycles for the conflict degree the addresses
//! make (distinct dwords per bank, a broadcast costing nothing, atomics serialising the lanes
//! of one bank), every DS form leaves the same registers and memory as the golden model, and an
//! access past M0 or misaligned is the same reported fault (lane, address, PC) on both.

use pws_hdl::config::HwConfig;
use pws_hdl::cu::timing::ds_cycles;
use pws_hdl::cu::CuMode;
use pws_isa::manifest::Manifest;
use pws_sim::cu::memory::MemFault;
use pws_sim::cu::{run, RunError, RunOptions};
use pws_verify::golden::{self, Config, GoldenError, Mode};

/// A one-wavefront kernel with 8 KiB of LDS: s[0:1] = kernarg (`out`), v0 = lane.
fn kernel(body: &str) -> String {
    format!(
        "k:\n    s_load_dwordx2 s[4:5], s[0:1], 0x0\n    s_mov_b32 m0, -1\n    s_waitcnt lgkmcnt(0)\n\
         {body}    s_endpgm\n.amdhsa_kernel k\n.amdhsa_next_free_vgpr 24\n\
         .amdhsa_next_free_sgpr 16\n.amdhsa_group_segment_fixed_size 8192\n\
         .amdhsa_user_sgpr_kernarg_segment_ptr 1\n.end_amdhsa_kernel\n"
    )
}

fn manifest() -> Manifest {
    Manifest::parse(
        "kernel = \"k.s\"\ngrid = 64\nworkgroup = 64\nargs = [\"out\"]\n\
         [[buffer]]\nname = \"out\"\ntype = \"u32\"\nlen = 1024\n",
        "k.toml",
    )
    .unwrap()
}

fn hw() -> HwConfig {
    HwConfig::cu().with_spsimds(0)
}

/// Stores v[10..10+n] of every lane to `out` (lane-major, 16 dwords per lane).
fn store_results(n: usize) -> String {
    let mut s = String::from(
        "    v_lshlrev_b32_e32 v20, 6, v0\n    v_mov_b32_e32 v21, s5\n    v_add_u32_e32 v20, vcc, s4, v20\n    v_addc_u32_e32 v21, vcc, 0, v21, vcc\n",
    );
    for r in 0..n {
        s += &format!(
            "    flat_store_dword v[20:21], v{}\n    v_add_u32_e32 v20, vcc, 4, v20\n    v_addc_u32_e32 v21, vcc, 0, v21, vcc\n",
            10 + r
        );
    }
    s
}

fn run_both(
    body: &str,
) -> (
    Result<pws_sim::cu::RunReport, RunError>,
    Result<golden::Report, GoldenError>,
    pws_isa::Program,
) {
    let source = kernel(body);
    let program = pws_isa::assemble(&source, "k.s").unwrap_or_else(|e| panic!("{e}\n{source}"));
    let m = manifest();
    let config = Config {
        mode: Mode::NoSplit,
        s: 0,
        ..Config::default()
    };
    let g = golden::run(&program, &m, &config);
    let r = run(&program, &m, &RunOptions::new(hw(), CuMode::NoSplit));
    (r, g, program)
}

/// Cycles the RTL measured for the instruction printed as `text`.
fn cycles_of(report: &pws_sim::cu::RunReport, program: &pws_isa::Program, text: &str) -> u64 {
    let l = program
        .instructions
        .iter()
        .find(|l| l.item.to_string() == text)
        .unwrap_or_else(|| panic!("no `{text}` in the program"));
    report
        .instructions
        .iter()
        .find(|s| s.pc == l.pc)
        .unwrap_or_else(|| panic!("`{text}` did not run"))
        .max_cycles
}

#[test]
fn bank_conflicts_cost_the_distinct_dwords_of_the_busiest_bank() {
    // v1 = lane * 4 (one bank per lane), v2 = lane * 128 (every lane of a pass in bank 0),
    // v3 = lane * 64 (two banks, 8 lanes each), v4 = 0 (one dword for all: a broadcast),
    // v5 = (lane & 1) * 128 (two dwords of bank 0).
    let body = "    v_lshlrev_b32_e32 v1, 2, v0\n    v_lshlrev_b32_e32 v2, 7, v0\n\
        v_lshlrev_b32_e32 v3, 6, v0\n    v_mov_b32_e32 v4, 0\n\
        v_and_b32_e32 v5, 1, v0\n    v_lshlrev_b32_e32 v5, 7, v5\n\
        v_add_u32_e32 v6, vcc, 100, v0\n\
        ds_write_b32 v1, v6\n    ds_write_b32 v2, v6\n    ds_write_b32 v3, v6\n\
        ds_write_b32 v4, v6\n    ds_write_b32 v5, v6\n\
        ds_read_b32 v10, v1\n    ds_read_b32 v11, v2\n    ds_read_b32 v12, v3\n\
        ds_read_b32 v13, v4\n    ds_read_b32 v14, v5\n\
        ds_add_rtn_u32 v15, v4, v6\n    ds_add_u32 v1, v6\n    ds_add_rtn_u32 v16, v5, v6\n\
        ds_read2_b32 v[17:18], v1 offset1:32\n    ds_write_b64 v1, v[10:11] offset:4\n\
        ds_read_b64 v[18:19], v1 offset:4\n";
    let body = format!("{body}{}", store_results(10));
    let (r, g, program) = run_both(&body);
    let r = r.unwrap_or_else(|e| panic!("RTL: {e}"));
    let g = g.unwrap_or_else(|e| panic!("golden: {e}"));
    assert_eq!(
        r.buffers.get("out").unwrap(),
        g.buffers.get("out").unwrap().words().as_slice(),
        "RTL and golden model disagree"
    );
    let cfg = hw();
    let cases: [(&str, u64, u64, u64); 15] = [
        ("ds_write_b32 v1, v6", 1, 1, 1),
        ("ds_write_b32 v2, v6", 1, 1, 16),
        ("ds_write_b32 v3, v6", 1, 1, 8),
        ("ds_write_b32 v4, v6", 1, 1, 1),
        ("ds_write_b32 v5, v6", 1, 1, 2),
        ("ds_read_b32 v10, v1", 1, 0, 1),
        ("ds_read_b32 v11, v2", 1, 0, 16),
        ("ds_read_b32 v12, v3", 1, 0, 8),
        ("ds_read_b32 v13, v4", 1, 0, 1),
        ("ds_read_b32 v14, v5", 1, 0, 2),
        // Atomics serialise the lanes of a bank, on one dword too.
        ("ds_add_rtn_u32 v15, v4, v6", 1, 1, 16),
        ("ds_add_u32 v1, v6", 1, 1, 1),
        ("ds_add_rtn_u32 v16, v5, v6", 1, 1, 16),
        // Two elements 32 dwords apart: each a conflict-free access.
        ("ds_read2_b32 v[17:18], v1 offset1:32", 2, 0, 1),
        ("ds_write_b64 v1, v[10:11] offset:4", 2, 1, 1),
    ];
    for (text, accesses, reads, conflict) in cases {
        assert_eq!(
            cycles_of(&r, &program, text),
            ds_cycles(&cfg, accesses, reads, conflict),
            "{text}: {conflict}-way"
        );
    }
    // The contract's worst case bounds them all.
    assert!(cases
        .iter()
        .all(|&(t, a, rd, _)| cycles_of(&r, &program, t) <= ds_cycles(&cfg, a, rd, 16)));
}

#[test]
fn every_ds_form_matches_the_golden_model() {
    // Sub-dword writes to one dword merge in lane order; reads sign- and zero-extend; the
    // st64 forms, b96/b128, cmpst, mskor, wrxchg, inc/dec and min/max on shared dwords.
    let body = "    v_lshlrev_b32_e32 v1, 2, v0\n    v_and_b32_e32 v2, 7, v0\n\
        v_mul_u32_u24_e32 v6, 0x1234567, v0\n    v_xor_b32_e32 v7, 0x80808080, v6\n\
        v_lshlrev_b32_e32 v3, 4, v0\n    v_and_b32_e32 v4, 3, v0\n    v_lshlrev_b32_e32 v4, 2, v4\n\
        ds_write_b8 v0, v6\n    ds_write_b16 v1, v7 offset:1024\n\
        ds_read_u8 v10, v2\n    ds_read_i8 v11, v2 offset:1\n\
        ds_read_u16 v12, v1 offset:1026\n    ds_read_i16 v13, v1 offset:1024\n\
        ds_write_b128 v3, v[6:9] offset:2048\n    ds_read_b96 v[14:16], v3 offset:2052\n\
        ds_write2st64_b32 v1, v6, v7 offset0:1 offset1:2\n\
        ds_read2st64_b32 v[17:18], v1 offset0:2 offset1:1\n\
        ds_max_rtn_i32 v19, v4, v7 offset:4096\n    ds_min_u32 v4, v6 offset:4096\n\
        ds_cmpst_rtn_b32 v8, v4, v19, v6 offset:4096\n\
        ds_mskor_rtn_b32 v9, v4, v6, v7 offset:4096\n\
        ds_inc_rtn_u32 v5, v4, v2 offset:4160\n    ds_dec_rtn_u32 v2, v4, v0 offset:4224\n\
        ds_wrxchg_rtn_b32 v3, v4, v0 offset:4160\n\
        v_xor_b32_e32 v10, v10, v8\n    v_xor_b32_e32 v11, v11, v9\n\
        v_xor_b32_e32 v12, v12, v5\n    v_xor_b32_e32 v13, v13, v2\n\
        v_xor_b32_e32 v14, v14, v3\n";
    let body = format!("{body}{}", store_results(10));
    let (r, g, _) = run_both(&body);
    let r = r.unwrap_or_else(|e| panic!("RTL: {e}"));
    let g = g.unwrap_or_else(|e| panic!("golden: {e}"));
    let (rtl, gold) = (
        r.buffers.get("out").unwrap(),
        g.buffers.get("out").unwrap().words(),
    );
    if let Some(i) = (0..rtl.len()).find(|&i| rtl[i] != gold[i]) {
        panic!(
            "lane {} v{}: RTL {:#x}, golden {:#x}",
            i / 16,
            10 + i % 16,
            rtl[i],
            gold[i]
        );
    }
}

#[test]
fn an_access_past_m0_or_misaligned_is_the_same_fault_on_both() {
    for (body, lane, addr, misaligned) in [
        // M0 = 64: lanes 16.. of `ds_read_b32` at lane * 4 are out of range.
        (
            "    s_mov_b32 m0, 64\n    v_lshlrev_b32_e32 v1, 2, v0\n    ds_read_b32 v2, v1\n",
            16,
            64,
            false,
        ),
        // A dword read at lane * 4 + 2.
        (
            "    v_lshlrev_b32_e32 v1, 2, v0\n    ds_read_b32 v2, v1 offset:2\n",
            0,
            2,
            true,
        ),
        // Past the 8 KiB allocation with M0 = -1: lane 63's second dword (8188 + 4).
        (
            "    v_lshlrev_b32_e32 v1, 7, v0\n    ds_write_b64 v1, v[2:3] offset:124\n",
            63,
            8192,
            false,
        ),
    ] {
        let (r, g, program) = run_both(&format!("{body}{}", store_results(0)));
        let Err(RunError::Lds {
            fault,
            lane: rl,
            pc,
            ..
        }) = r
        else {
            panic!("RTL: no LDS fault: {r:?}");
        };
        let Err(GoldenError::Memory {
            lane: gl,
            site,
            fault: gfault,
        }) = &g
        else {
            panic!("golden: no fault: {g:?}");
        };
        let gpc = &site.pc;
        let ds = program
            .instructions
            .iter()
            .find(|l| l.item.opcode.format() == pws_isa::Format::Ds)
            .unwrap()
            .pc;
        assert_eq!((pc, *gpc), (ds, ds));
        assert_eq!(rl, lane, "{fault}");
        assert_eq!(*gl, Some(lane));
        match fault {
            MemFault::LdsMisaligned { addr: a, .. } => {
                assert!(misaligned);
                assert_eq!(a, addr);
            }
            MemFault::LdsOutOfRange { addr: a, limit, .. } => {
                assert!(!misaligned);
                assert_eq!(a, addr);
                assert!(limit <= 8192);
            }
            f => panic!("{f}"),
        }
        assert!(
            gfault.to_string().contains(&format!("{addr:#x}")),
            "{gfault}"
        );
    }
}
