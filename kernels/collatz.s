; Eight Collatz steps per work-item, the benchmark kernel of `make bench`:
;
;   uint x = in[gid];
;   for (int k = 0; k < 8; k++)   // uniform loop: the counter lives in an SGPR
;       if (x & 1) x = 3 * x + 1; // divergent in every iteration (split point)
;       else       x >>= 1;
;   out[gid] = x;
;
; 1024 work-items in 4 workgroups of 256 (16 wavefronts). The `; pws: split` mark makes the
; host pass (`pws compile`) insert split/merge for PWS and DWS runs; nosplit runs it as is.
;
; ABI (docs/manifest.md): s[4:5] = kernarg pointer (in, out), s6 = workgroup id,
; v0 = work-item id within the workgroup.

collatz:
    s_load_dwordx4 s[0:3], s[4:5], 0x0  ; s[0:1] = in, s[2:3] = out
    s_lshl_b32 s8, s6, 8                ; workgroup id * 256
    v_add_u32_e32 v1, vcc, s8, v0       ; gid
    v_lshlrev_b32_e32 v4, 2, v1         ; gid * 4
    s_waitcnt lgkmcnt(0)
    v_mov_b32_e32 v6, s1
    v_add_u32_e32 v5, vcc, s0, v4
    v_addc_u32_e32 v6, vcc, 0, v6, vcc
    flat_load_dword v7, v[5:6]          ; x
    s_mov_b32 s9, 0                     ; k = 0
    s_waitcnt vmcnt(0)
; pws: loop_bound 8
LOOP:
    v_and_b32_e32 v8, 1, v7
    v_cmp_ne_u32_e64 s[10:11], 0, v8    ; lanes with x odd
    s_and_saveexec_b64 s[12:13], s[10:11]
    s_xor_b64 s[12:13], exec, s[12:13]  ; s[12:13] = even lanes
; pws: split
    s_cbranch_execz ELSE
    v_mul_lo_u32 v7, v7, 3              ; x = 3x + 1
    v_add_u32_e32 v7, vcc, 1, v7
ELSE:
    s_or_saveexec_b64 s[12:13], s[12:13]
    s_xor_b64 exec, exec, s[12:13]
    s_cbranch_execz JOIN
    v_lshrrev_b32_e32 v7, 1, v7         ; x >>= 1
JOIN:
    s_or_b64 exec, exec, s[12:13]
    s_add_u32 s9, s9, 1
    s_cmp_lt_u32 s9, 8
    s_cbranch_scc1 LOOP
    v_mov_b32_e32 v6, s3                ; out[gid] = x
    v_add_u32_e32 v5, vcc, s2, v4
    v_addc_u32_e32 v6, vcc, 0, v6, vcc
    flat_store_dword v[5:6], v7
    s_endpgm
