; The PWS paper's Figure 5 split/merge sequence:
;   (1) ... split s0,s1  (2) ... split s0,s2  (3) ... merge  (2) ... merge  (1) ...
; on one wavefront with two SpSIMDs (S = 2). Expected split masks (WIs 0..3 left to right):
;   region (1): SWF1 1111
;   region (2): SWF1 1101, SWF2 0010
;   region (3): SWF1 1100, SWF2 0010, SWF3 0001   (SWF2's own split s0,s2 is a no-op)
;   back in (2): SWF1 1101, SWF2 0010; back in (1): SWF1 1111.
;
; Lane mapping (design.md decision 1, digest A1): the paper's WF has 4 work-items and 2-bit
; registers, s0 covering "the first two WIs". Here each paper WI is a group of 16 lanes of a
; 64-lane wavefront (WI k = lanes 16k..16k+15), so sA = lanes 0..31 = WIs 0-1 and
; sB = lanes 32..63 = WIs 2-3 exactly as the contract says. The figure's strings list WIs
; 0..3 from left to right (s0 || s1): s0 = 11 (WI0, WI1), s1 = 01 (WI3 only), s2 = 00.
;
; No branches: every lane runs every region exactly once, in whichever context owns it;
; out[i] = (((i*4 + 2)*4 + 3)*4 + 2)*4 + 1 in every mode.

fig5:
    s_mov_b32 s0, -1                    ; paper s0 = 11: WI0, WI1 = lanes 0..31
    s_mov_b32 s1, 0xffff0000            ; paper s1 = 01: WI3 = lanes 48..63
    s_mov_b32 s2, 0                     ; paper s2 = 00
    v_mov_b32_e32 v1, v0                ; region (1)
    split s0, s1
    v_mad_u32_u24 v1, v1, 4, 2          ; region (2)
    split s0, s2
    v_mad_u32_u24 v1, v1, 4, 3          ; region (3)
    merge
    v_mad_u32_u24 v1, v1, 4, 2          ; region (2)
    merge
    v_mad_u32_u24 v1, v1, 4, 1          ; region (1)
    s_load_dwordx2 s[8:9], s[4:5], 0x0  ; out
    v_lshlrev_b32_e32 v2, 2, v0
    s_waitcnt lgkmcnt(0)
    v_mov_b32_e32 v3, s9
    v_add_u32_e32 v2, vcc, s8, v2
    v_addc_u32_e32 v3, vcc, 0, v3, vcc
    flat_store_dword v[2:3], v1
    s_endpgm
