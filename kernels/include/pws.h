/* pws.h: what an OpenCL C kernel needs to run on pws without a device library: the work-item
 * functions, barrier and integer built-ins, defined on clang's AMDGPU builtins, and the PWS
 * annotations. pws compiles `kernel = "k.cl"` with
 *
 *     clang-14 -x cl -cl-std=CL1.2 -target amdgcn-amd-amdhsa -mcpu=fiji -nogpulib -O2 -S \
 *         -include pws.h k.cl
 *
 * so kernels written for any OpenCL device compile as they are (docs/opencl.md). Without a
 * device library clang lowers get_global_id, max, barrier, ... to calls (s_getpc_b64 /
 * s_swappc_b64) into a library that does not exist.
 *
 * Work-item functions follow the HSA dispatch the simulators perform (docs/manifest.md, "Kernel
 * descriptor ABI"): work-item ids in v0..v2, workgroup ids in system SGPRs, and the workgroup and
 * grid sizes in the HSA kernel dispatch packet (__builtin_amdgcn_dispatch_ptr). Clang enables
 * exactly the registers a kernel uses in its kernel descriptor, which the simulators read.
 * get_local_size is the size of the calling work-item's own workgroup, smaller than the
 * manifest's `workgroup` in the last workgroup of a dimension the grid does not divide (OpenCL
 * 2.0 non-uniform workgroups, as ROCm's device library computes it).
 *
 * Integer built-ins are given for int, uint, long and ulong (shorter types promote to int).
 */
#ifndef PWS_H
#define PWS_H

#define PWS_OVERLOAD static inline __attribute__((overloadable, always_inline))
#define PWS_PURE static inline __attribute__((overloadable, always_inline, const))

/* ---- Work-item functions ------------------------------------------------------------------ */

/* The HSA kernel dispatch packet (hsa_kernel_dispatch_packet_t) the dispatcher provides. */
typedef struct {
    ushort header;
    ushort setup; /* bits 1:0: the number of dimensions */
    ushort workgroup_size_x, workgroup_size_y, workgroup_size_z;
    ushort reserved0;
    uint grid_size_x, grid_size_y, grid_size_z;
    uint private_segment_size, group_segment_size;
    ulong kernel_object, kernarg_address, reserved2, completion_signal;
} pws_dispatch_packet;

static inline __attribute__((always_inline, const)) __constant pws_dispatch_packet *
pws_dispatch_packet_ptr(void)
{
    return (__constant pws_dispatch_packet *)__builtin_amdgcn_dispatch_ptr();
}

PWS_PURE uint get_work_dim(void)
{
    return pws_dispatch_packet_ptr()->setup & 3u;
}

PWS_PURE size_t get_local_id(uint dim)
{
    switch (dim) {
    case 0: return __builtin_amdgcn_workitem_id_x();
    case 1: return __builtin_amdgcn_workitem_id_y();
    case 2: return __builtin_amdgcn_workitem_id_z();
    default: return 0;
    }
}

PWS_PURE size_t get_group_id(uint dim)
{
    switch (dim) {
    case 0: return __builtin_amdgcn_workgroup_id_x();
    case 1: return __builtin_amdgcn_workgroup_id_y();
    case 2: return __builtin_amdgcn_workgroup_id_z();
    default: return 0;
    }
}

/* The manifest's workgroup size in `dim` (get_enqueued_local_size). */
PWS_PURE size_t get_enqueued_local_size(uint dim)
{
    switch (dim) {
    case 0: return __builtin_amdgcn_workgroup_size_x();
    case 1: return __builtin_amdgcn_workgroup_size_y();
    case 2: return __builtin_amdgcn_workgroup_size_z();
    default: return 1;
    }
}

PWS_PURE size_t get_global_size(uint dim)
{
    switch (dim) {
    case 0: return __builtin_amdgcn_grid_size_x();
    case 1: return __builtin_amdgcn_grid_size_y();
    case 2: return __builtin_amdgcn_grid_size_z();
    default: return 1;
    }
}

/* Every launch starts at global id 0. */
PWS_PURE size_t get_global_offset(uint dim)
{
    (void)dim;
    return 0;
}

PWS_PURE size_t get_local_size(uint dim)
{
    uint group = (uint)get_group_id(dim);
    uint size = (uint)get_enqueued_local_size(dim);
    uint left = (uint)get_global_size(dim) - group * size;
    return left < size ? left : size;
}

PWS_PURE size_t get_num_groups(uint dim)
{
    uint grid = (uint)get_global_size(dim);
    uint size = (uint)get_enqueued_local_size(dim);
    uint groups = grid / size;
    return groups + (groups * size != grid);
}

PWS_PURE size_t get_global_id(uint dim)
{
    return (uint)get_group_id(dim) * (uint)get_enqueued_local_size(dim) +
           (uint)get_local_id(dim);
}

PWS_PURE size_t get_local_linear_id(void)
{
    return ((uint)get_local_id(2) * (uint)get_local_size(1) + (uint)get_local_id(1)) *
               (uint)get_local_size(0) +
           (uint)get_local_id(0);
}

PWS_PURE size_t get_global_linear_id(void)
{
    return ((uint)get_global_id(2) * (uint)get_global_size(1) + (uint)get_global_id(1)) *
               (uint)get_global_size(0) +
           (uint)get_global_id(0);
}

/* ---- Synchronisation ---------------------------------------------------------------------- */

/* s_barrier between a release and an acquire fence at workgroup scope (what ROCm's device
 * library emits; on gfx8 the fences become s_waitcnt). Without flags only the barrier. */
PWS_OVERLOAD void barrier(cl_mem_fence_flags flags)
{
    if (flags) {
        __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
        __builtin_amdgcn_s_barrier();
        __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
    } else {
        __builtin_amdgcn_s_barrier();
    }
}

PWS_OVERLOAD void work_group_barrier(cl_mem_fence_flags flags)
{
    barrier(flags);
}

PWS_OVERLOAD void mem_fence(cl_mem_fence_flags flags)
{
    if (flags)
        __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "workgroup");
}

/* ---- Integer built-ins -------------------------------------------------------------------- */

#define PWS_MINMAX(T)                                                                          \
    PWS_PURE T min(T a, T b) { return b < a ? b : a; }                                         \
    PWS_PURE T max(T a, T b) { return a < b ? b : a; }                                         \
    PWS_PURE T clamp(T x, T lo, T hi) { return min(max(x, lo), hi); }
PWS_MINMAX(int)
PWS_MINMAX(uint)
PWS_MINMAX(long)
PWS_MINMAX(ulong)
#undef PWS_MINMAX

PWS_PURE uint abs(int x) { return x < 0 ? 0u - (uint)x : (uint)x; }
PWS_PURE uint abs(uint x) { return x; }
PWS_PURE ulong abs(long x) { return x < 0 ? 0ul - (ulong)x : (ulong)x; }
PWS_PURE ulong abs(ulong x) { return x; }

PWS_PURE uint abs_diff(int a, int b) { return a < b ? (uint)b - (uint)a : (uint)a - (uint)b; }
PWS_PURE uint abs_diff(uint a, uint b) { return a < b ? b - a : a - b; }

/* 24-bit multiplies: the operands' low 24 bits (v_mul_i32_i24, v_mad_u32_u24, ...). */
PWS_PURE int mul24(int a, int b) { return ((a << 8) >> 8) * ((b << 8) >> 8); }
PWS_PURE uint mul24(uint a, uint b) { return (a & 0xffffffu) * (b & 0xffffffu); }
PWS_PURE int mad24(int a, int b, int c) { return mul24(a, b) + c; }
PWS_PURE uint mad24(uint a, uint b, uint c) { return mul24(a, b) + c; }

PWS_PURE int mul_hi(int a, int b) { return (int)(((long)a * (long)b) >> 32); }
PWS_PURE uint mul_hi(uint a, uint b) { return (uint)(((ulong)a * (ulong)b) >> 32); }

PWS_PURE int popcount(int x) { return __builtin_popcount((uint)x); }
PWS_PURE uint popcount(uint x) { return __builtin_popcount(x); }
PWS_PURE int clz(int x) { return x ? __builtin_clz((uint)x) : 32; }
PWS_PURE uint clz(uint x) { return x ? __builtin_clz(x) : 32u; }
PWS_PURE int ctz(int x) { return x ? __builtin_ctz((uint)x) : 32; }
PWS_PURE uint ctz(uint x) { return x ? __builtin_ctz(x) : 32u; }
PWS_PURE int rotate(int x, int n) { return (int)rotate((uint)x, (uint)n); }
PWS_PURE uint rotate(uint x, uint n) { return (x << (n & 31u)) | (x >> ((32u - n) & 31u)); }

/* ---- PWS annotations ---------------------------------------------------------------------- */
/* They become assembly comments (`; pws: ...`) through inline asm, which the pws compiler pass
 * and WCET analysis read:
 *   PWS_SPLIT();          right before an if/else: split it (PWS mode), if it can split safely;
 *   PWS_LOOP_BOUND(N);    anywhere in a loop body: the loop runs at most N iterations per entry.
 * The comments read `; pws: split TAG` and `; pws: loop_bound N TAG`.
 */
#define PWS_STR_(x) #x
#define PWS_STR(x) PWS_STR_(x)
/* Each marker carries a tag unique in the translation unit (__COUNTER__): LLVM hoists and
 * merges identical inline asm out of the two arms of an if (SimplifyCFG), which would move the
 * markers of nested ifs up to the outer one; distinct text keeps each marker where it was. */
#define PWS_SPLIT() __asm__ volatile("; pws: split " PWS_STR(__COUNTER__))
#define PWS_LOOP_BOUND(n) __asm__ volatile("; pws: loop_bound " PWS_STR(n) " " PWS_STR(__COUNTER__))

#undef PWS_OVERLOAD
#undef PWS_PURE
#endif /* PWS_H */
