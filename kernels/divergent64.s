; Nested divergence whose split masks cover lanes on both sides of lane 32:
;
;   int x = in[gid], lane = gid % 64, r;
;   if (x & 1) {                  // split A: odd x, anywhere in the wavefront
;       r = x * 5;
;       if (lane >= 40) r += 100; // split B (nested in the creator's path)
;       else            r -= 3;
;   } else {
;       r = x ^ 0xff;
;       if (x & 4) r *= 2;        // split C (nested in the split context's path; no else)
;   }
;   out[gid] = r;
;
; 176 work-items in workgroups of 128 (the second workgroup is one partial wavefront of 48).
; With S = 2, split C finds both SwfContexts taken and falls back to serialising; with S = 3
; it splits. Memory is the same in every mode and for every S.
;
; ABI (docs/manifest.md): s[4:5] = kernarg pointer (in, out), s6 = workgroup id,
; v0 = work-item id within the workgroup.

divergent64:
    s_load_dwordx4 s[0:3], s[4:5], 0x0  ; s[0:1] = in, s[2:3] = out
    s_lshl_b32 s8, s6, 7                ; workgroup id * 128
    v_add_u32_e32 v1, vcc, s8, v0       ; gid
    v_and_b32_e32 v2, 63, v0            ; lane
    v_lshlrev_b32_e32 v4, 2, v1         ; gid * 4
    s_waitcnt lgkmcnt(0)
    v_mov_b32_e32 v6, s1
    v_add_u32_e32 v5, vcc, s0, v4
    v_addc_u32_e32 v6, vcc, 0, v6, vcc
    flat_load_dword v7, v[5:6]          ; x
    s_waitcnt vmcnt(0)
    v_and_b32_e32 v8, 1, v7
    v_cmp_ne_u32_e64 s[10:11], 0, v8    ; lanes with x odd
    s_and_saveexec_b64 s[12:13], s[10:11]
    s_xor_b64 s[12:13], exec, s[12:13]
    split s10, s11
    s_cbranch_execz ELSE_A
THEN_A:                                 ; r = x * 5; if (lane >= 40)
    v_mul_lo_u32 v9, v7, 5
    v_cmp_le_u32_e64 s[14:15], 40, v2
    s_and_saveexec_b64 s[16:17], s[14:15]
    s_xor_b64 s[16:17], exec, s[16:17]
    split s14, s15
    s_cbranch_execz ELSE_B
    v_add_u32_e32 v9, vcc, 0x64, v9     ; r += 100
ELSE_B:
    s_or_saveexec_b64 s[16:17], s[16:17]
    s_xor_b64 exec, exec, s[16:17]
    s_cbranch_execz JOIN_B
    v_subrev_u32_e32 v9, vcc, 3, v9     ; r -= 3
JOIN_B:
    s_or_b64 exec, exec, s[16:17]
    merge
ELSE_A:                                 ; r = x ^ 0xff; if (x & 4)
    s_or_saveexec_b64 s[12:13], s[12:13]
    s_xor_b64 exec, exec, s[12:13]
    s_cbranch_execz JOIN_A
    v_xor_b32_e32 v9, 0xff, v7
    v_and_b32_e32 v8, 4, v7
    v_cmp_ne_u32_e64 s[14:15], 0, v8
    s_and_saveexec_b64 s[16:17], s[14:15] ; if without else: s[16:17] keeps the old EXEC
    split s14, s15
    s_cbranch_execz JOIN_C
    v_lshlrev_b32_e32 v9, 1, v9         ; r *= 2
JOIN_C:
    s_or_b64 exec, exec, s[16:17]
    merge
JOIN_A:
    s_or_b64 exec, exec, s[12:13]
    merge
    v_mov_b32_e32 v6, s3                ; out[gid] = r
    v_add_u32_e32 v5, vcc, s2, v4
    v_addc_u32_e32 v6, vcc, 0, v6, vcc
    flat_store_dword v[5:6], v9
    s_endpgm
