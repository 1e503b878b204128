; Test fixture: clang-14 -x cl -cl-std=CL1.2 -target amdgcn-amd-amdhsa -mcpu=fiji -nogpulib -O0 -include kernels/include/pws.h -S
; of: for (k = 0; k < 32u; k++) { PWS_LOOP_BOUND(32); acc += k ^ lid; } (the test at the top, the body a block LLVM leaves unlabelled). The kernel descriptor is left out.
	.text
	.amdgcn_target "amdgcn-amd-amdhsa--gfx803"
	.protected	loop_o0                 ; -- Begin function loop_o0
	.globl	loop_o0
	.p2align	8
	.type	loop_o0,@function
loop_o0:                                ; @loop_o0
; %bb.0:
	s_mov_b32 s33, 0
	s_mov_b32 flat_scratch_lo, s13
	s_add_i32 s12, s12, s17
	s_lshr_b32 flat_scratch_hi, s12, 8
	s_add_u32 s0, s0, s17
	s_addc_u32 s1, s1, 0
	s_load_dwordx2 s[6:7], s[8:9], 0x0
	s_load_dword s4, s[8:9], 0x8
	s_waitcnt lgkmcnt(0)
	s_mov_b32 s5, s7
	v_mov_b32_e32 v1, s5
	buffer_store_dword v1, off, s[0:3], s33 offset:12
	s_mov_b32 s5, s6
	v_mov_b32_e32 v1, s5
	buffer_store_dword v1, off, s[0:3], s33 offset:8
	v_mov_b32_e32 v1, s4
	buffer_store_dword v1, off, s[0:3], s33 offset:16
	buffer_store_dword v0, off, s[0:3], s33 offset:20
	v_mov_b32_e32 v0, 0
	buffer_store_dword v0, off, s[0:3], s33 offset:24
	buffer_store_dword v0, off, s[0:3], s33 offset:28
	s_mov_b64 s[4:5], 0
                                        ; implicit-def: $sgpr6_sgpr7
	v_writelane_b32 v9, s4, 0
	v_writelane_b32 v9, s5, 1
.LBB0_1:                                ; =>This Inner Loop Header: Depth=1
	v_readlane_b32 s4, v9, 2
	v_readlane_b32 s5, v9, 3
	v_readlane_b32 s6, v9, 0
	v_readlane_b32 s7, v9, 1
	v_writelane_b32 v9, s6, 4
	v_writelane_b32 v9, s7, 5
	buffer_load_dword v0, off, s[0:3], s33 offset:28
	s_mov_b32 s6, 32
	s_waitcnt vmcnt(0)
	v_cmp_lt_u32_e64 s[6:7], v0, s6
	s_mov_b64 s[8:9], -1
	s_or_b64 s[4:5], s[4:5], exec
	v_writelane_b32 v9, s4, 6
	v_writelane_b32 v9, s5, 7
	v_writelane_b32 v9, s4, 8
	v_writelane_b32 v9, s5, 9
	s_mov_b64 s[4:5], exec
	v_writelane_b32 v9, s4, 10
	v_writelane_b32 v9, s5, 11
	s_and_b64 s[4:5], s[4:5], s[6:7]
	s_mov_b64 exec, s[4:5]
	s_cbranch_execz .LBB0_3
; %bb.2:                                ;   in Loop: Header=BB0_1 Depth=1
	;;#ASMSTART
	; pws: loop_bound 32 1
	;;#ASMEND
	buffer_load_dword v0, off, s[0:3], s33 offset:28
	buffer_load_dword v1, off, s[0:3], s33 offset:20
	s_waitcnt vmcnt(0)
	v_xor_b32_e64 v1, v0, v1
	buffer_load_dword v0, off, s[0:3], s33 offset:24
	s_waitcnt vmcnt(0)
	v_add_u32_e64 v0, s[4:5], v0, v1
	buffer_store_dword v0, off, s[0:3], s33 offset:24
	s_branch .LBB0_4
.LBB0_3:                                ;   in Loop: Header=BB0_1 Depth=1
	v_readlane_b32 s4, v9, 10
	v_readlane_b32 s5, v9, 11
	s_or_b64 exec, exec, s[4:5]
	v_readlane_b32 s8, v9, 4
	v_readlane_b32 s9, v9, 5
	v_readlane_b32 s6, v9, 8
	v_readlane_b32 s7, v9, 9
	s_mov_b64 s[4:5], s[6:7]
	s_and_b64 s[4:5], exec, s[4:5]
	s_or_b64 s[4:5], s[4:5], s[8:9]
	v_writelane_b32 v9, s6, 2
	v_writelane_b32 v9, s7, 3
	s_mov_b64 s[6:7], s[4:5]
	v_writelane_b32 v9, s6, 0
	v_writelane_b32 v9, s7, 1
	s_mov_b64 s[6:7], s[4:5]
	v_writelane_b32 v9, s6, 12
	v_writelane_b32 v9, s7, 13
	s_andn2_b64 exec, exec, s[4:5]
	s_cbranch_execnz .LBB0_1
	s_branch .LBB0_5
.LBB0_4:                                ;   in Loop: Header=BB0_1 Depth=1
	v_readlane_b32 s4, v9, 6
	v_readlane_b32 s5, v9, 7
	buffer_load_dword v0, off, s[0:3], s33 offset:28
	s_mov_b32 s6, 1
	s_waitcnt vmcnt(0)
	v_add_u32_e64 v0, s[6:7], v0, s6
	buffer_store_dword v0, off, s[0:3], s33 offset:28
	s_mov_b64 s[6:7], 0
	s_andn2_b64 s[4:5], s[4:5], exec
	v_writelane_b32 v9, s4, 8
	v_writelane_b32 v9, s5, 9
	s_branch .LBB0_3
.LBB0_5:
	v_readlane_b32 s4, v9, 12
	v_readlane_b32 s5, v9, 13
	s_or_b64 exec, exec, s[4:5]
; %bb.6:
	buffer_load_dword v2, off, s[0:3], s33 offset:24
	buffer_load_dword v7, off, s[0:3], s33 offset:8
	buffer_load_dword v0, off, s[0:3], s33 offset:12
                                        ; kill: def $vgpr7 killed $vgpr7 def $vgpr7_vgpr8 killed $exec
	s_waitcnt vmcnt(0)
	v_mov_b32_e32 v8, v0
	s_mov_b32 s4, 0
	buffer_load_dword v0, off, s[0:3], s33 offset:20
	v_mov_b32_e32 v3, 0
                                        ; kill: def $vgpr0 killed $vgpr0 def $vgpr0_vgpr1 killed $exec
	v_mov_b32_e32 v1, v3
	s_mov_b32 s4, 2
	s_waitcnt vmcnt(0)
	v_lshlrev_b64 v[5:6], s4, v[0:1]
	v_mov_b32_e32 v0, v7
	v_mov_b32_e32 v4, v5
	v_mov_b32_e32 v1, v8
	v_mov_b32_e32 v3, v6
	v_add_u32_e64 v0, s[4:5], v0, v4
	v_addc_u32_e64 v3, s[4:5], v1, v3, s[4:5]
                                        ; kill: def $vgpr0 killed $vgpr0 def $vgpr0_vgpr1 killed $exec
	v_mov_b32_e32 v1, v3
	flat_store_dword v[0:1], v2
	s_endpgm
	.text
.Lfunc_end0:
	.size	loop_o0, .Lfunc_end0-loop_o0
                                        ; -- End function
	.section	.AMDGPU.csdata
; Kernel info:
; codeLenInByte = 700
; NumSgprs: 40
; NumVgprs: 10
; ScratchSize: 32
; MemoryBound: 0
; FloatMode: 192
; IeeeMode: 1
; LDSByteSize: 0 bytes/workgroup (compile time only)
; SGPRBlocks: 4
; VGPRBlocks: 2
; NumSGPRsForWavesPerEU: 40
; NumVGPRsForWavesPerEU: 10
; Occupancy: 10
; WaveLimiterHint : 0
; COMPUTE_PGM_RSRC2:SCRATCH_EN: 1
; COMPUTE_PGM_RSRC2:USER_SGPR: 14
; COMPUTE_PGM_RSRC2:TRAP_HANDLER: 0
; COMPUTE_PGM_RSRC2:TGID_X_EN: 1
; COMPUTE_PGM_RSRC2:TGID_Y_EN: 1
; COMPUTE_PGM_RSRC2:TGID_Z_EN: 1
; COMPUTE_PGM_RSRC2:TIDIG_COMP_CNT: 2
	.ident	"Debian clang version 14.0.6"
	.section	".note.GNU-stack"
	.addrsig
