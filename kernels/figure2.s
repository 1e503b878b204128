; The PWS paper's Figure 2 kernel (see figure2.cl for the C and the expected output).
;
; Divergence is lowered the way LLVM's AMDGPU backend does it: a compare into an SGPR pair,
; s_and_saveexec_b64 (EXEC <- then-lanes, save the old EXEC), s_xor_b64 (saved <- else-lanes),
; s_cbranch_execz over the then-path; the block the paper calls a BSB (branch serialization
; block) flips EXEC to the else-lanes with s_or_saveexec_b64 / s_xor_b64 exec and skips the
; else-path when it is empty; the join restores EXEC with s_or_b64 exec.
;
; PWS marks: `split sA, sB` right before each divergent branch, with M = the compare's lane
; mask (the creator keeps the then-lanes, the new split context takes the else-lanes);
; `merge` at the branch's immediate post-dominator, right after the EXEC restore, so both
; halves carry the same restored EXEC into the merge (docs/golden.md, "merge placement").
; Splits at BB1, BB2 and BB7 (the set that gives the paper's 13-unit timeline, digest §6):
; BB1 and BB2 are nested (2 live split contexts), BB7 reuses a freed one.
;
; ABI (docs/manifest.md): s[4:5] = kernarg pointer (A, out), v0 = work-item id.

figure2:
BB1:                                    ; int x = A[idx], r = idx; if (x > 25)
    s_load_dwordx4 s[0:3], s[4:5], 0x0  ; s[0:1] = A, s[2:3] = out
    v_lshlrev_b32_e32 v1, 2, v0         ; idx * 4
    s_waitcnt lgkmcnt(0)
    v_mov_b32_e32 v2, s1
    v_add_u32_e32 v1, vcc, s0, v1
    v_addc_u32_e32 v2, vcc, 0, v2, vcc
    flat_load_dword v2, v[1:2]          ; x = A[idx]
    v_mov_b32_e32 v3, v0                ; r = idx
    s_waitcnt vmcnt(0)
    v_cmp_lt_i32_e64 s[8:9], 25, v2     ; lanes with x > 25
    s_and_saveexec_b64 s[10:11], s[8:9]
    s_xor_b64 s[10:11], exec, s[10:11]  ; s[10:11] = else-lanes
    split s8, s9
    s_cbranch_execz BSB1
BB2:                                    ; r += x; if (x > 75)
    v_add_u32_e32 v3, vcc, v3, v2
    s_movk_i32 s12, 0x4b
    v_cmp_lt_i32_e64 s[14:15], s12, v2  ; lanes with x > 75
    s_and_saveexec_b64 s[16:17], s[14:15]
    s_xor_b64 s[16:17], exec, s[16:17]
    split s14, s15
    s_cbranch_execz BSB2
BB3:                                    ; r *= 3
    v_mul_lo_u32 v3, v3, 3
BSB2:
    s_or_saveexec_b64 s[16:17], s[16:17]
    s_xor_b64 exec, exec, s[16:17]
    s_cbranch_execz BB5
BB4:                                    ; r -= 7
    v_subrev_u32_e32 v3, vcc, 7, v3
BB5:                                    ; r += 1000
    s_or_b64 exec, exec, s[16:17]
    merge
    v_add_u32_e32 v3, vcc, 0x3e8, v3
BSB1:
    s_or_saveexec_b64 s[10:11], s[10:11]
    s_xor_b64 exec, exec, s[10:11]
    s_cbranch_execz BB7
BB6:                                    ; r -= x
    v_sub_u32_e32 v3, vcc, v3, v2
BB7:                                    ; if (x > 50)
    s_or_b64 exec, exec, s[10:11]
    merge
    v_cmp_lt_i32_e64 s[8:9], 50, v2     ; lanes with x > 50
    s_and_saveexec_b64 s[10:11], s[8:9]
    s_xor_b64 s[10:11], exec, s[10:11]
    split s8, s9
    s_cbranch_execz BSB7
BB8:                                    ; r ^= 0x55
    v_xor_b32_e32 v3, 0x55, v3
BSB7:
    s_or_saveexec_b64 s[10:11], s[10:11]
    s_xor_b64 exec, exec, s[10:11]
    s_cbranch_execz BB10
BB9:                                    ; r += 2
    v_add_u32_e32 v3, vcc, 2, v3
BB10:                                   ; out[idx] = r
    s_or_b64 exec, exec, s[10:11]
    merge
    v_lshlrev_b32_e32 v1, 2, v0
    v_mov_b32_e32 v2, s3
    v_add_u32_e32 v1, vcc, s2, v1
    v_addc_u32_e32 v2, vcc, 0, v2, vcc
    flat_store_dword v[1:2], v3
    s_endpgm
