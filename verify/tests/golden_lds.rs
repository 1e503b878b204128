//! The golden model's LDS and atomics: `ds_*` reads and writes of every width, the two-address
//! forms, the LDS atomics and the FLAT atomics with and without return, in lane order; the
//! per-workgroup allocation from the kernel descriptor, M0 as the limit and the reported fault
//! (lane, address, PC) of an access beyond it; and the clang-compiled kernel of kernels/lds
//! against the outputs kernels/lds/gen.py computed in Python.

use pws_isa::manifest::Manifest;
use pws_verify::golden::{self, Config, GoldenError, MemFault, Report};

/// A hand-written kernel with an `.amdhsa_kernel` block allocating `lds` bytes of LDS: s[4:5]
/// is the kernarg pointer, v0 the work-item id.
fn kernel(body: &str, lds: u32) -> String {
    format!(
        ".text\nk:\n{body}\n s_endpgm\n\
         .rodata\n.p2align 6\n.amdhsa_kernel k\n\
         .amdhsa_group_segment_fixed_size {lds}\n\
         .amdhsa_user_sgpr_private_segment_buffer 1\n\
         .amdhsa_user_sgpr_kernarg_segment_ptr 1\n\
         .amdhsa_next_free_vgpr 32\n.amdhsa_next_free_sgpr 32\n.end_amdhsa_kernel\n"
    )
}

fn manifest(grid: u32, workgroup: u32, out_len: u32, out_init: &str) -> Manifest {
    Manifest::parse(
        &format!(
            "kernel = \"t.s\"\ngrid = {grid}\nworkgroup = {workgroup}\nargs = [\"out\"]\n\
             [[buffer]]\nname = \"out\"\ntype = \"u32\"\n{}\n",
            if out_init.is_empty() {
                format!("len = {out_len}")
            } else {
                format!("data = [{out_init}]")
            }
        ),
        "t.toml",
    )
    .unwrap()
}

fn run_on(src: &str, m: &Manifest) -> Result<Report, GoldenError> {
    let program = pws_isa::assemble(src, "t.s").unwrap_or_else(|e| panic!("{e}"));
    golden::run(&program, m, &Config::default())
}

fn out(r: &Report) -> Vec<u32> {
    r.buffers.get("out").unwrap().words()
}

/// Loads the `out` pointer into s[0:1] and sets v[2:3] = out + 4 * v0.
const PROLOGUE: &str = " s_load_dwordx2 s[0:1], s[4:5], 0x0\n s_waitcnt lgkmcnt(0)\n\
     v_lshlrev_b32 v1, 2, v0\n v_mov_b32 v3, s1\n v_add_u32 v2, vcc, s0, v1\n\
     v_addc_u32 v3, vcc, v3, 0, vcc\n s_mov_b32 m0, -1\n";

#[test]
fn reads_and_writes_of_every_width_and_the_two_address_forms() {
    // Lane l writes 4l + 1 at dword l; reads back its neighbour's by read2 (offset1 = 1
    // element), bytes and halves of it, 64-bit and 128-bit groups, and the st64 forms.
    let body = format!(
        "{PROLOGUE} v_add_u32 v4, vcc, 1, v1\n ds_write_b32 v1, v4\n s_waitcnt lgkmcnt(0)\n\
         s_barrier\n\
         ds_read2_b32 v[6:7], v1 offset1:1\n\
         ds_read_u8 v8, v1 offset:1\n ds_read_i8 v9, v1\n ds_read_u16 v10, v1\n\
         v_mov_b32 v11, 0xfffe\n ds_write_b16 v1, v11 offset:1024\n ds_read_i16 v12, v1 offset:1024\n\
         ds_write2st64_b32 v1, v4, v4 offset0:8 offset1:9\n ds_read2st64_b32 v[13:14], v1 offset0:8 offset1:9\n\
         ds_write_b64 v1, v[6:7] offset:4096\n ds_read_b64 v[15:16], v1 offset:4096\n\
         s_waitcnt lgkmcnt(0)\n\
         v_add_u32 v4, vcc, v6, v7\n v_add_u32 v4, vcc, v4, v8\n v_add_u32 v4, vcc, v4, v9\n\
         v_add_u32 v4, vcc, v4, v10\n v_add_u32 v4, vcc, v4, v12\n v_add_u32 v4, vcc, v4, v13\n\
         v_add_u32 v4, vcc, v4, v14\n v_add_u32 v4, vcc, v4, v15\n v_add_u32 v4, vcc, v4, v16\n\
         flat_store_dword v[2:3], v4"
    );
    let r = run_on(&kernel(&body, 8192), &manifest(64, 64, 64, "")).unwrap();
    let got = out(&r);
    for l in 0..63u32 {
        let mine = 4 * l + 1;
        let next = 4 * (l + 1) + 1;
        // v6 + v7 (mine, next), u8 byte 1 of mine (0 below 256), i8 byte 0 sign-extended,
        // u16 of mine, i16 0xfffe = -2, st64 pair (mine, mine), b64 pair (mine, next).
        let byte1 = (mine >> 8) & 0xff;
        let i8 = mine as u8 as i8 as i32 as u32;
        let want = mine
            .wrapping_add(next)
            .wrapping_add(byte1)
            .wrapping_add(i8)
            .wrapping_add(mine & 0xffff)
            .wrapping_sub(2)
            .wrapping_add(2 * mine)
            .wrapping_add(mine + next);
        assert_eq!(got[l as usize], want, "lane {l}");
    }
}

#[test]
fn lds_atomics_apply_in_lane_order_and_return_the_pre_op_value() {
    // Every lane adds 1 to dword 0 with return (tickets 0..63 in lane order), max and min
    // into dwords 1 and 2, a compare-and-store that only lane 5's compare value matches, and
    // an exchange whose last writer is lane 63.
    let body = format!(
        "{PROLOGUE} v_mov_b32 v20, 0\n v_mov_b32 v21, 1\n\
         ds_add_rtn_u32 v4, v20, v21\n\
         ds_max_i32 v20, v0 offset:4\n ds_min_u32 v20, v0 offset:8\n\
         v_mov_b32 v22, 5\n v_add_u32 v23, vcc, 100, v0\n\
         ds_cmpst_rtn_b32 v5, v20, v0, v22 offset:16\n\
         ds_wrxchg_rtn_b32 v6, v20, v0 offset:20\n\
         ds_inc_rtn_u32 v7, v20, v22 offset:24\n\
         s_waitcnt lgkmcnt(0)\n\
         ds_read_b32 v8, v20 offset:4\n ds_read_b32 v9, v20 offset:8\n ds_read_b32 v10, v20 offset:16\n\
         s_waitcnt lgkmcnt(0)\n\
         v_lshlrev_b32 v11, 16, v4\n v_or_b32 v11, v11, v6\n\
         flat_store_dword v[2:3], v11\n\
         v_add_u32 v2, vcc, 0x100, v2\n v_addc_u32 v3, vcc, v3, 0, vcc\n\
         flat_store_dword v[2:3], v5\n\
         v_add_u32 v2, vcc, 0x100, v2\n v_addc_u32 v3, vcc, v3, 0, vcc\n\
         flat_store_dword v[2:3], v7\n\
         v_add_u32 v2, vcc, 0x100, v2\n v_addc_u32 v3, vcc, v3, 0, vcc\n\
         v_lshlrev_b32 v12, 8, v8\n v_or_b32 v12, v12, v9\n v_lshlrev_b32 v10, 16, v10\n\
         v_or_b32 v12, v12, v10\n flat_store_dword v[2:3], v12"
    );
    // Lane 5 compares its own id (the dword is 0 until a lane stores) ... only a lane whose
    // v0 equals the current value stores: lane 0 (0 == 0) stores 5, then lane 5 (5 == 5)
    // stores 5 again.
    let r = run_on(&kernel(&body, 64), &manifest(64, 64, 256, "")).unwrap();
    let got = out(&r);
    for l in 0..64u32 {
        // Ticket l; the exchange returns the previous lane's id (0 for lane 0).
        assert_eq!(
            got[l as usize],
            l << 16 | l.saturating_sub(1),
            "ticket/xchg lane {l}"
        );
        let cmpst_old = if l == 0 { 0 } else { 5 };
        assert_eq!(got[64 + l as usize], cmpst_old, "cmpst lane {l}");
        // inc wraps at 5: 0,1,2,3,4,5,0,1,...
        assert_eq!(got[128 + l as usize], l % 6, "inc lane {l}");
        assert_eq!(
            got[192 + l as usize],
            63 << 8 | 5 << 16,
            "max 63, min 0, cmpst 5"
        );
    }
}

#[test]
fn flat_atomics_return_with_glc_and_apply_in_lane_order() {
    // out[0] += 1 by every lane with return; out[1] = max; out[2] swap (lane 63 last);
    // out[3] cmpswap(compare 7) by lanes whose id is 7 ... the first lane stores its id + 100
    // only if out[3] is 7 (set by the manifest). Tickets go to out[8 + l].
    let body = " s_load_dwordx2 s[0:1], s[4:5], 0x0\n s_waitcnt lgkmcnt(0)\n\
         v_mov_b32 v2, s0\n v_mov_b32 v3, s1\n v_mov_b32 v4, 1\n\
         flat_atomic_add v5, v[2:3], v4 glc\n\
         v_add_u32 v2, vcc, 4, v2\n v_addc_u32 v3, vcc, v3, 0, vcc\n\
         flat_atomic_umax v[2:3], v0\n\
         v_add_u32 v2, vcc, 4, v2\n v_addc_u32 v3, vcc, v3, 0, vcc\n\
         flat_atomic_swap v6, v[2:3], v0 glc\n\
         v_add_u32 v2, vcc, 4, v2\n v_addc_u32 v3, vcc, v3, 0, vcc\n\
         v_add_u32 v8, vcc, 100, v0\n v_mov_b32 v9, 7\n\
         flat_atomic_cmpswap v7, v[2:3], v[8:9] glc\n\
         s_waitcnt vmcnt(0)\n\
         v_lshlrev_b32 v10, 2, v0\n v_mov_b32 v11, s1\n v_add_u32 v10, vcc, s0, v10\n\
         v_addc_u32 v11, vcc, v11, 0, vcc\n v_add_u32 v10, vcc, 32, v10\n\
         v_addc_u32 v11, vcc, v11, 0, vcc\n\
         v_lshlrev_b32 v12, 16, v5\n v_or_b32 v12, v12, v6\n v_lshlrev_b32 v7, 8, v7\n\
         v_or_b32 v12, v12, v7\n flat_store_dword v[10:11], v12";
    let init = {
        let mut v = vec!["0"; 72];
        v[3] = "7";
        v.join(", ")
    };
    let r = run_on(&kernel(body, 0), &manifest(64, 64, 72, &init)).unwrap();
    let got = out(&r);
    assert_eq!(&got[..4], &[64, 63, 63, 100], "add, umax, swap, cmpswap");
    for l in 0..64u32 {
        let swap_old = l.saturating_sub(1);
        // Lane 0 finds 7 and stores 100; the others find 100.
        let cmp_old = if l == 0 { 7 } else { 100 };
        assert_eq!(
            got[8 + l as usize],
            l << 16 | swap_old | cmp_old << 8,
            "lane {l}"
        );
    }
}

#[test]
fn each_workgroup_has_its_own_zeroed_allocation() {
    // Workgroup lanes add their id into dword 0 of their own LDS; lane 0 stores the sum.
    let body = format!(
        "{PROLOGUE} v_mov_b32 v20, 0\n ds_read_b32 v5, v20\n s_waitcnt lgkmcnt(0)\n\
         ds_add_u32 v20, v0\n s_waitcnt lgkmcnt(0)\n s_barrier\n\
         ds_read_b32 v4, v20\n s_waitcnt lgkmcnt(0)\n v_add_u32 v4, vcc, v4, v5\n\
         flat_store_dword v[2:3], v4"
    );
    let r = run_on(&kernel(&body, 4), &manifest(256, 128, 256, "")).unwrap();
    let got = out(&r);
    // v0 is the local id, so both workgroups store to out[0..128]: each sums 0..127 plus the
    // dword's value before its adds, which is 0 in a fresh allocation (a leak from the first
    // workgroup would make the second store 3 · 8128).
    assert!(got[..128].iter().all(|&v| v == 127 * 128 / 2), "{got:?}");
    assert!(got[128..].iter().all(|&v| v == 0), "{got:?}");
}

#[test]
fn an_access_beyond_min_m0_and_the_allocation_is_a_fault_with_lane_address_and_pc() {
    // Allocation 256 bytes: lane l writes at 4l (fine), then at 4l + 4: lane 63 at 256, the
    // second ds_write_b32 at pc 0x2c (the prologue is 9 dwords, the first write 2).
    let body = format!("{PROLOGUE} ds_write_b32 v1, v0\n ds_write_b32 v1, v0 offset:4");
    let e = run_on(&kernel(&body, 256), &manifest(64, 64, 64, "")).unwrap_err();
    match &e {
        GoldenError::Memory { site, lane, fault } => {
            assert_eq!(*lane, Some(63));
            assert_eq!(site.pc, 0x2c, "{e}");
            assert_eq!(
                *fault,
                MemFault::LdsOutOfRange {
                    addr: 256,
                    limit: 256,
                    allocation: 256,
                    m0: u32::MAX
                }
            );
        }
        other => panic!("{other}"),
    }
    let text = e.to_string();
    assert!(
        text.contains("pc 0x002c") && text.contains("lane 63: LDS address 0x100 is out of range"),
        "{text}"
    );
    // M0 below the allocation limits first: M0 = 16 stops lane 4 (address 16).
    let body = format!("{PROLOGUE} s_mov_b32 m0, 16\n ds_read_b32 v4, v1");
    let e = run_on(&kernel(&body, 256), &manifest(64, 64, 64, "")).unwrap_err();
    assert!(
        matches!(
            e,
            GoldenError::Memory {
                lane: Some(4),
                fault: MemFault::LdsOutOfRange {
                    addr: 16,
                    limit: 16,
                    ..
                },
                ..
            }
        ),
        "{e}"
    );
    // No allocation (no descriptor): every access faults.
    let e = run_on(
        &format!("{PROLOGUE} ds_read_b32 v4, v1\n s_endpgm"),
        &manifest(64, 64, 64, ""),
    )
    .unwrap_err();
    assert!(e.to_string().contains("allocation of 0 bytes"), "{e}");
}

#[test]
fn a_group_segment_beyond_64_kib_is_refused() {
    let e = run_on(&kernel(" s_nop 0", 65540), &manifest(64, 64, 64, "")).unwrap_err();
    assert!(
        e.to_string()
            .contains("exceeds the compute unit's 65536 bytes"),
        "{e}"
    );
}

/// The clang-compiled reduction (barriers, ds_add, ds_read2 and st64 forms, 8/16/64-bit LDS
/// accesses, flat atomics) equals the outputs kernels/lds/gen.py computed in Python.
#[test]
fn clang_lds_kernel_equals_its_python_reference() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../kernels/lds/lds_reduce.toml"
    );
    let m = Manifest::load(path).unwrap();
    let r = golden::run_launch(path, &Config::default()).unwrap_or_else(|e| panic!("{e}"));
    let mut checked = 0;
    for b in &m.buffers {
        if let Some(expect) = &b.expect {
            assert_eq!(
                &r.buffers.get(&b.name).unwrap().words(),
                expect,
                "{}",
                b.name
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 4);
}

/// DS accesses and LDS atomics inside both paths of a split branch (the split context runs
/// interleaved with its parent; the golden model's modes are no-split and PWS, DWS being a
/// timing difference only) give the same memory without splitting and for every S: each lane writes its own dword, both paths add to one counter, and after the
/// merge and a barrier every lane reads its neighbour's dword and the counter.
#[test]
fn lds_inside_split_paths_is_mode_independent() {
    let body = format!(
        "{PROLOGUE} v_mov_b32 v20, 0\n\
         v_and_b32 v4, 1, v0\n v_cmp_ne_u32_e64 s[10:11], 0, v4\n\
         s_and_saveexec_b64 s[12:13], s[10:11]\n s_xor_b64 s[12:13], exec, s[12:13]\n\
         split s10, s11\n s_cbranch_execz ELSE\n\
         v_mul_u32_u24 v5, 3, v0\n ds_write_b32 v1, v5\n ds_add_u32 v20, v0 offset:512\n\
         ELSE:\n s_or_saveexec_b64 s[12:13], s[12:13]\n s_xor_b64 exec, exec, s[12:13]\n\
         s_cbranch_execz JOIN\n\
         v_add_u32 v5, vcc, 1000, v0\n ds_write_b32 v1, v5\n ds_add_rtn_u32 v6, v20, v21 offset:512\n\
         JOIN:\n s_or_b64 exec, exec, s[12:13]\n merge\n\
         s_waitcnt lgkmcnt(0)\n s_barrier\n\
         v_xor_b32 v6, 4, v1\n ds_read_b32 v7, v6\n ds_read_b32 v8, v20 offset:512\n\
         s_waitcnt lgkmcnt(0)\n v_add_u32 v7, vcc, v7, v8\n flat_store_dword v[2:3], v7"
    );
    let src = kernel(&body, 1024);
    let program = pws_isa::assemble(&src, "t.s").unwrap_or_else(|e| panic!("{e}"));
    let m = manifest(128, 128, 128, "");
    // v21 is 0: the else path's add with return adds nothing (its return is unused).
    let sum_odd: u32 = (0..128u32).filter(|l| l % 2 == 1).sum();
    let want: Vec<u32> = (0..128u32)
        .map(|l| {
            let n = l ^ 1;
            let neighbour = if n % 2 == 1 { 3 * n } else { n + 1000 };
            neighbour + sum_odd
        })
        .collect();
    let mut runs = 0;
    for (mode, ss) in [
        (golden::Mode::NoSplit, vec![0]),
        (golden::Mode::Pws, vec![0, 1, 2, 3]),
    ] {
        for s in ss {
            let config = Config {
                mode,
                s,
                ..Config::default()
            };
            let r = golden::run(&program, &m, &config).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(out(&r), want, "{mode:?} S = {s}");
            if mode == golden::Mode::Pws && s > 0 {
                assert!(r.stats.splits > 0, "the branch split with S = {s}");
            }
            runs += 1;
        }
    }
    assert_eq!(runs, 5);
}
