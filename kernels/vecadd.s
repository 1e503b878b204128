; c[i] = a[i] + b[i] over 300 work-items in workgroups of 128: three workgroups, the last
; with 44 work-items (one partial wavefront, EXEC = lanes 0..43 at launch). Written like
; clang-14 -mcpu=fiji's output for the OpenCL kernel with a workgroup size of 128.
;
; ABI (docs/manifest.md): s[4:5] = kernarg pointer (a, b, c), s6 = workgroup id,
; v0 = work-item id within the workgroup.

vecadd:
    s_load_dwordx4 s[0:3], s[4:5], 0x0  ; s[0:1] = a, s[2:3] = b
    s_load_dwordx2 s[8:9], s[4:5], 0x10 ; s[8:9] = c
    s_lshl_b32 s10, s6, 7               ; workgroup id * 128
    v_add_u32_e32 v0, vcc, s10, v0      ; i = global id
    v_mov_b32_e32 v1, 0
    v_lshlrev_b64 v[0:1], 2, v[0:1]     ; byte offset i * 4
    s_waitcnt lgkmcnt(0)
    v_mov_b32_e32 v3, s1
    v_add_u32_e32 v2, vcc, s0, v0
    v_addc_u32_e32 v3, vcc, v3, v1, vcc
    flat_load_dword v4, v[2:3]          ; a[i]
    v_mov_b32_e32 v3, s3
    v_add_u32_e32 v2, vcc, s2, v0
    v_addc_u32_e32 v3, vcc, v3, v1, vcc
    flat_load_dword v5, v[2:3]          ; b[i]
    v_mov_b32_e32 v3, s9
    v_add_u32_e32 v2, vcc, s8, v0
    v_addc_u32_e32 v3, vcc, v3, v1, vcc
    s_waitcnt vmcnt(0)
    v_add_u32_e32 v4, vcc, v4, v5
    flat_store_dword v[2:3], v4         ; c[i]
    s_endpgm
