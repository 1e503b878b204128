/* pws.h: what an OpenCL C kernel needs to run on pws without a device library: the work-item
 * functions, barrier, atomics, the integer, conversion, relational, geometric and math
 * built-ins (scalar and vector), vector loads and stores, defined on
 * clang's AMDGPU builtins, and the PWS annotations. pws compiles `kernel = "k.cl"` with
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
 * Every overload of the OpenCL 1.2 built-ins that clang-14's opencl-c.h declares is defined,
 * but for half, double, images and OpenCL 2.0's (isa/tests/pws_h_overloads.rs checks that each
 * call reaches its own definition): the integer ones on char .. ulong in their own width, the
 * float ones on float .. float16.
 */
#ifndef PWS_H
#define PWS_H

#define PWS_OVERLOAD static inline __attribute__((overloadable, always_inline))
#define PWS_PURE static inline __attribute__((overloadable, always_inline, const))

/* ---- PWS annotations ---------------------------------------------------------------------- */
/* They become assembly comments (`; pws: ...`) through inline asm, which the pws compiler pass
 * and WCET analysis read:
 *   PWS_SPLIT();          right before an if/else: split it (PWS mode), if it can split safely;
 *   PWS_LOOP_BOUND(N);    anywhere in a loop body: the loop runs at most N iterations per entry
 *                         (N an integer constant expression).
 * The comments read `; pws: split TAG` and `; pws: loop_bound N TAG`.
 */
#define PWS_STR_(x) #x
#define PWS_STR(x) PWS_STR_(x)
/* Each marker carries a tag unique in the translation unit (__COUNTER__): LLVM hoists and
 * merges identical inline asm out of the two arms of an if (SimplifyCFG), which would move the
 * markers of nested ifs up to the outer one; distinct text keeps each marker where it was. */
#define PWS_SPLIT() __asm__ volatile("; pws: split " PWS_STR(__COUNTER__))
/* The bound is an operand, so any integer constant expression works (`PWS_LOOP_BOUND(MAXC +
 * 1)`: clang prints its value), and anything else is clang's error at the macro's line. */
#define PWS_LOOP_BOUND(n) __asm__ volatile("; pws: loop_bound %0 " PWS_STR(__COUNTER__) :: "i"(n))

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

/* The read and write fences: acquire and release at workgroup scope. */
PWS_OVERLOAD void read_mem_fence(cl_mem_fence_flags flags)
{
    if (flags)
        __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

PWS_OVERLOAD void write_mem_fence(cl_mem_fence_flags flags)
{
    if (flags)
        __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
}

/* ---- Async copies between global and local memory (OpenCL 1.2 6.12.10) ------------------- */
/* The work-items of the workgroup copy the elements between them, each every local-size-th one,
 * when they reach the call (all of them must, with the same arguments, as the specification
 * requires); wait_group_events is the barrier after which the copies are visible to the whole
 * workgroup. The event is returned as given: there is nothing to wait for beyond the barrier. */
/* The body of a copy: element i of n goes from src[SI] to dst[DI]. The loop counts in 32 bits
 * (a workgroup's size and a copy's length both fit), so clang keeps its step, the workgroup's
 * size, in a scalar register and the WCET analysis bounds it as the workgroup's tile copy it
 * is (docs/wcet.md); with size_t clang multiplies the sizes in 64-bit vector registers. */
#define PWS_ASYNC_LOOP(DI, SI)                                                                 \
    {                                                                                          \
        uint pws_step = (uint)(get_local_size(0) * get_local_size(1) * get_local_size(2));      \
        for (uint i = (uint)get_local_linear_id(); i < (uint)n; i += pws_step)                 \
            dst[DI] = src[SI];                                                                 \
        return e;                                                                              \
    }
#define PWS_ASYNC_COPY(T)                                                                      \
    PWS_OVERLOAD event_t async_work_group_copy(__local T *dst, const __global T *src, size_t n, event_t e) \
    PWS_ASYNC_LOOP(i, i)                                                                       \
    PWS_OVERLOAD event_t async_work_group_copy(__global T *dst, const __local T *src, size_t n, event_t e) \
    PWS_ASYNC_LOOP(i, i)                                                                       \
    PWS_OVERLOAD event_t async_work_group_strided_copy(__local T *dst, const __global T *src, size_t n, \
                                                       size_t stride, event_t e)               \
    PWS_ASYNC_LOOP(i, i * stride)                                                              \
    PWS_OVERLOAD event_t async_work_group_strided_copy(__global T *dst, const __local T *src, size_t n, \
                                                       size_t stride, event_t e)               \
    PWS_ASYNC_LOOP(i * stride, i)                                                              \
    PWS_OVERLOAD void prefetch(const __global T *p, size_t n) {}
#define PWS_ASYNC_COPY_VS(T)                                                                   \
    PWS_ASYNC_COPY(T) PWS_ASYNC_COPY(T##2) PWS_ASYNC_COPY(T##3) PWS_ASYNC_COPY(T##4)           \
    PWS_ASYNC_COPY(T##8) PWS_ASYNC_COPY(T##16)
PWS_ASYNC_COPY_VS(char) PWS_ASYNC_COPY_VS(uchar) PWS_ASYNC_COPY_VS(short) PWS_ASYNC_COPY_VS(ushort)
PWS_ASYNC_COPY_VS(int) PWS_ASYNC_COPY_VS(uint) PWS_ASYNC_COPY_VS(long) PWS_ASYNC_COPY_VS(ulong)
PWS_ASYNC_COPY_VS(float)
#undef PWS_ASYNC_COPY_VS
#undef PWS_ASYNC_COPY
#undef PWS_ASYNC_LOOP

PWS_OVERLOAD void wait_group_events(int num_events, event_t *events)
{
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
}

/* ---- Integer built-ins -------------------------------------------------------------------- */

#define PWS_MINMAX(T)                                                                          \
    PWS_PURE T min(T a, T b) { return b < a ? b : a; }                                         \
    PWS_PURE T max(T a, T b) { return a < b ? b : a; }                                         \
    PWS_PURE T clamp(T x, T lo, T hi) { return min(max(x, lo), hi); }
PWS_MINMAX(char)
PWS_MINMAX(uchar)
PWS_MINMAX(short)
PWS_MINMAX(ushort)
PWS_MINMAX(int)
PWS_MINMAX(uint)
PWS_MINMAX(long)
PWS_MINMAX(ulong)
#undef PWS_MINMAX

/* The vector forms, component-wise; min, max and clamp also with a scalar bound. A vector
 * comparison gives -1 or 0 per component, and `?:` on a vector condition selects by it. */
#define PWS_MINMAX_V(T, N)                                                                     \
    PWS_PURE T##N min(T##N a, T##N b) { return b < a ? b : a; }                                \
    PWS_PURE T##N max(T##N a, T##N b) { return a < b ? b : a; }                                \
    PWS_PURE T##N min(T##N a, T b) { return min(a, (T##N)(b)); }                               \
    PWS_PURE T##N max(T##N a, T b) { return max(a, (T##N)(b)); }                               \
    PWS_PURE T##N clamp(T##N x, T##N lo, T##N hi) { return min(max(x, lo), hi); }              \
    PWS_PURE T##N clamp(T##N x, T lo, T hi) { return min(max(x, lo), hi); }
#define PWS_MINMAX_VS(T)                                                                       \
    PWS_MINMAX_V(T, 2) PWS_MINMAX_V(T, 3) PWS_MINMAX_V(T, 4) PWS_MINMAX_V(T, 8) PWS_MINMAX_V(T, 16)
PWS_MINMAX_VS(char)
PWS_MINMAX_VS(uchar)
PWS_MINMAX_VS(short)
PWS_MINMAX_VS(ushort)
PWS_MINMAX_VS(int)
PWS_MINMAX_VS(uint)
PWS_MINMAX_VS(long)
PWS_MINMAX_VS(ulong)
#undef PWS_MINMAX_VS
#undef PWS_MINMAX_V

/* any/all: whether the top (sign) bit of any/every component is set. The components are
 * or-ed/and-ed as words: a reduction of the comparison's i1s would make LLVM pack them with
 * 16-bit shifts, which pws does not run. */
PWS_PURE int any(int x) { return x < 0; }
PWS_PURE int all(int x) { return x < 0; }
PWS_PURE int any(int2 x) { return (x.s0 | x.s1) < 0; }
PWS_PURE int all(int2 x) { return (x.s0 & x.s1) < 0; }
PWS_PURE int any(int3 x) { return (x.s0 | x.s1 | x.s2) < 0; }
PWS_PURE int all(int3 x) { return (x.s0 & x.s1 & x.s2) < 0; }
PWS_PURE int any(int4 x) { return any(x.lo | x.hi); }
PWS_PURE int all(int4 x) { return all(x.lo & x.hi); }
PWS_PURE int any(int8 x) { return any(x.lo | x.hi); }
PWS_PURE int all(int8 x) { return all(x.lo & x.hi); }
PWS_PURE int any(int16 x) { return any(x.lo | x.hi); }
PWS_PURE int all(int16 x) { return all(x.lo & x.hi); }
/* char and short components sign-extend to ints; a long's top bit is its high word's. */
#define PWS_ANY_ALL(T, N, WORDS)                                                               \
    PWS_PURE int any(T##N x) { return any(__builtin_convertvector(WORDS, int##N)); }           \
    PWS_PURE int all(T##N x) { return all(__builtin_convertvector(WORDS, int##N)); }
#define PWS_ANY_ALL_VS(T, WORDS)                                                               \
    PWS_PURE int any(T x) { return x < 0; }                                                    \
    PWS_PURE int all(T x) { return x < 0; }                                                    \
    PWS_ANY_ALL(T, 2, WORDS) PWS_ANY_ALL(T, 3, WORDS) PWS_ANY_ALL(T, 4, WORDS)                 \
    PWS_ANY_ALL(T, 8, WORDS) PWS_ANY_ALL(T, 16, WORDS)
PWS_ANY_ALL_VS(char, x) PWS_ANY_ALL_VS(short, x) PWS_ANY_ALL_VS(long, x >> 32)
#undef PWS_ANY_ALL_VS
#undef PWS_ANY_ALL

/* bitselect(a, b, c): each bit from b where c has a one, else from a; a float's bits as a uint's. */
#define PWS_BITSELECT(T)                                                                       \
    PWS_PURE T bitselect(T a, T b, T c) { return (a & ~c) | (b & c); }
#define PWS_BITSELECT_F(N)                                                                     \
    PWS_PURE float##N bitselect(float##N a, float##N b, float##N c)                            \
    {                                                                                          \
        return __builtin_bit_cast(float##N, bitselect(__builtin_bit_cast(uint##N, a),          \
                                                      __builtin_bit_cast(uint##N, b),          \
                                                      __builtin_bit_cast(uint##N, c)));        \
    }
#define PWS_BITSELECT_VS(T)                                                                    \
    PWS_BITSELECT(T) PWS_BITSELECT(T##2) PWS_BITSELECT(T##3) PWS_BITSELECT(T##4)               \
    PWS_BITSELECT(T##8) PWS_BITSELECT(T##16)
PWS_BITSELECT_VS(char) PWS_BITSELECT_VS(uchar) PWS_BITSELECT_VS(short) PWS_BITSELECT_VS(ushort)
PWS_BITSELECT_VS(int) PWS_BITSELECT_VS(uint) PWS_BITSELECT_VS(long) PWS_BITSELECT_VS(ulong)
PWS_BITSELECT_F() PWS_BITSELECT_F(2) PWS_BITSELECT_F(3) PWS_BITSELECT_F(4) PWS_BITSELECT_F(8)
PWS_BITSELECT_F(16)
#undef PWS_BITSELECT_VS
#undef PWS_BITSELECT_F
#undef PWS_BITSELECT

PWS_PURE uint abs(int x) { return x < 0 ? 0u - (uint)x : (uint)x; }
PWS_PURE uint abs(uint x) { return x; }
PWS_PURE ulong abs(long x) { return x < 0 ? 0ul - (ulong)x : (ulong)x; }
PWS_PURE ulong abs(ulong x) { return x; }
PWS_PURE uchar abs(char x) { return x < 0 ? (uchar)-x : (uchar)x; }
PWS_PURE uchar abs(uchar x) { return x; }
PWS_PURE ushort abs(short x) { return x < 0 ? (ushort)-x : (ushort)x; }
PWS_PURE ushort abs(ushort x) { return x; }
#define PWS_ABS_V(S, U, N)                                                                     \
    PWS_PURE U##N abs(S##N x) { return as_##U##N(x < (S##N)0 ? -x : x); }                     \
    PWS_PURE U##N abs(U##N x) { return x; }
#define PWS_ABS_VS(S, U)                                                                       \
    PWS_ABS_V(S, U, 2) PWS_ABS_V(S, U, 3) PWS_ABS_V(S, U, 4) PWS_ABS_V(S, U, 8) PWS_ABS_V(S, U, 16)
PWS_ABS_VS(char, uchar)
PWS_ABS_VS(short, ushort)
PWS_ABS_VS(int, uint)
PWS_ABS_VS(long, ulong)
#undef PWS_ABS_VS
#undef PWS_ABS_V

/* abs_diff(a, b) = |a - b| in the unsigned type of a's width, without the difference's overflow. */
#define PWS_ABS_DIFF(T, U)                                                                     \
    PWS_PURE U abs_diff(T a, T b) { return a < b ? (U)((U)b - (U)a) : (U)((U)a - (U)b); }
#define PWS_ABS_DIFF_V(T, U, N)                                                                \
    PWS_PURE U##N abs_diff(T##N a, T##N b)                                                     \
    {                                                                                          \
        return a < b ? __builtin_bit_cast(U##N, b) - __builtin_bit_cast(U##N, a)               \
                     : __builtin_bit_cast(U##N, a) - __builtin_bit_cast(U##N, b);              \
    }
#define PWS_ABS_DIFF_VS(T, U)                                                                  \
    PWS_ABS_DIFF(T, U) PWS_ABS_DIFF_V(T, U, 2) PWS_ABS_DIFF_V(T, U, 3) PWS_ABS_DIFF_V(T, U, 4) \
    PWS_ABS_DIFF_V(T, U, 8) PWS_ABS_DIFF_V(T, U, 16)
PWS_ABS_DIFF_VS(char, uchar) PWS_ABS_DIFF_VS(uchar, uchar) PWS_ABS_DIFF_VS(short, ushort)
PWS_ABS_DIFF_VS(ushort, ushort) PWS_ABS_DIFF_VS(int, uint) PWS_ABS_DIFF_VS(uint, uint)
PWS_ABS_DIFF_VS(long, ulong) PWS_ABS_DIFF_VS(ulong, ulong)
#undef PWS_ABS_DIFF_VS
#undef PWS_ABS_DIFF_V
#undef PWS_ABS_DIFF

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
PWS_PURE uint rotate(uint x, uint n) { return (x << (n & 31u)) | (x >> ((32u - n) & 31u)); }
PWS_PURE int rotate(int x, int n) { return (int)rotate((uint)x, (uint)n); }

/* The vector forms of popcount, clz, ctz, rotate and mul_hi on int and uint vectors, and
 * select(a, b, c) on int, uint and float vectors: b where c's component has its top bit set. */
#define PWS_MAP_V(T, f)                                                                        \
    PWS_PURE T##2 f(T##2 x) { return (T##2)(f(x.s0), f(x.s1)); }                               \
    PWS_PURE T##3 f(T##3 x) { return (T##3)(f(x.s0), f(x.s1), f(x.s2)); }                      \
    PWS_PURE T##4 f(T##4 x) { return (T##4)(f(x.lo), f(x.hi)); }                               \
    PWS_PURE T##8 f(T##8 x) { return (T##8)(f(x.lo), f(x.hi)); }                               \
    PWS_PURE T##16 f(T##16 x) { return (T##16)(f(x.lo), f(x.hi)); }
#define PWS_MAP2_V(T, f)                                                                       \
    PWS_PURE T##2 f(T##2 x, T##2 y) { return (T##2)(f(x.s0, y.s0), f(x.s1, y.s1)); }           \
    PWS_PURE T##3 f(T##3 x, T##3 y)                                                            \
    {                                                                                          \
        return (T##3)(f(x.s0, y.s0), f(x.s1, y.s1), f(x.s2, y.s2));                            \
    }                                                                                          \
    PWS_PURE T##4 f(T##4 x, T##4 y) { return (T##4)(f(x.lo, y.lo), f(x.hi, y.hi)); }           \
    PWS_PURE T##8 f(T##8 x, T##8 y) { return (T##8)(f(x.lo, y.lo), f(x.hi, y.hi)); }           \
    PWS_PURE T##16 f(T##16 x, T##16 y) { return (T##16)(f(x.lo, y.lo), f(x.hi, y.hi)); }
#define PWS_MAP3_V(T, f)                                                                       \
    PWS_PURE T##2 f(T##2 x, T##2 y, T##2 z) { return (T##2)(f(x.s0, y.s0, z.s0), f(x.s1, y.s1, z.s1)); } \
    PWS_PURE T##3 f(T##3 x, T##3 y, T##3 z)                                                    \
    {                                                                                          \
        return (T##3)(f(x.s0, y.s0, z.s0), f(x.s1, y.s1, z.s1), f(x.s2, y.s2, z.s2));          \
    }                                                                                          \
    PWS_PURE T##4 f(T##4 x, T##4 y, T##4 z) { return (T##4)(f(x.lo, y.lo, z.lo), f(x.hi, y.hi, z.hi)); } \
    PWS_PURE T##8 f(T##8 x, T##8 y, T##8 z) { return (T##8)(f(x.lo, y.lo, z.lo), f(x.hi, y.hi, z.hi)); } \
    PWS_PURE T##16 f(T##16 x, T##16 y, T##16 z)                                                \
    {                                                                                          \
        return (T##16)(f(x.lo, y.lo, z.lo), f(x.hi, y.hi, z.hi));                              \
    }
/* ... and of mul24, mad24, hadd, rhadd, add_sat, sub_sat, mad_sat and mad_hi on int and uint
 * vectors. */
#define PWS_INT_V(T)                                                                           \
    PWS_MAP_V(T, popcount) PWS_MAP_V(T, clz) PWS_MAP_V(T, ctz)                                 \
    PWS_MAP2_V(T, rotate) PWS_MAP2_V(T, mul_hi) PWS_MAP2_V(T, mul24) PWS_MAP2_V(T, hadd)       \
    PWS_MAP2_V(T, rhadd) PWS_MAP2_V(T, add_sat) PWS_MAP2_V(T, sub_sat) PWS_MAP3_V(T, mad24)    \
    PWS_MAP3_V(T, mad_sat) PWS_MAP3_V(T, mad_hi)
#define PWS_SELECT_V(T, C, S, N)                                                               \
    PWS_PURE T##N select(T##N a, T##N b, C##N c)                                               \
    {                                                                                          \
        return __builtin_bit_cast(S##N, c) < (S##N)0 ? b : a;                                  \
    }
/* T's vectors, selected by the vectors of the signed (S) and unsigned (U) type of its width. */
#define PWS_SELECT_VS(T, S, U)                                                                 \
    PWS_SELECT_V(T, S, S, 2) PWS_SELECT_V(T, S, S, 3) PWS_SELECT_V(T, S, S, 4)                 \
    PWS_SELECT_V(T, S, S, 8) PWS_SELECT_V(T, S, S, 16) PWS_SELECT_V(T, U, S, 2)                \
    PWS_SELECT_V(T, U, S, 3) PWS_SELECT_V(T, U, S, 4) PWS_SELECT_V(T, U, S, 8)                 \
    PWS_SELECT_V(T, U, S, 16)

/* (x + y) >> 1 and (x + y + 1) >> 1 without the sum's overflow. */
#define PWS_HADD(T)                                                                            \
    PWS_PURE T hadd(T x, T y) { return (x >> 1) + (y >> 1) + (x & y & 1); }                    \
    PWS_PURE T rhadd(T x, T y) { return (x >> 1) + (y >> 1) + ((x | y) & 1); }
PWS_HADD(int)
PWS_HADD(uint)
#undef PWS_HADD

PWS_PURE int add_sat(int a, int b) { long s = (long)a + b; return s > INT_MAX ? INT_MAX : s < INT_MIN ? INT_MIN : (int)s; }
/* LLVM selects v_add_u32 / v_sub_u32 with the VOP3 clamp bit for the unsigned ones. */
PWS_PURE uint add_sat(uint a, uint b) { return a + b < a ? UINT_MAX : a + b; }
PWS_PURE int mad_sat(int a, int b, int c) { long s = (long)a * b + c; return s > INT_MAX ? INT_MAX : s < INT_MIN ? INT_MIN : (int)s; }
PWS_PURE uint mad_sat(uint a, uint b, uint c) { ulong p = (ulong)a * b; ulong s = p + c; return s < p || s > UINT_MAX ? UINT_MAX : (uint)s; }
PWS_PURE int sub_sat(int a, int b) { long s = (long)a - b; return s > INT_MAX ? INT_MAX : s < INT_MIN ? INT_MIN : (int)s; }
PWS_PURE uint sub_sat(uint a, uint b) { return a < b ? 0u : a - b; }
PWS_PURE int mad_hi(int a, int b, int c) { return mul_hi(a, b) + c; }
PWS_PURE uint mad_hi(uint a, uint b, uint c) { return mul_hi(a, b) + c; }
PWS_PURE long upsample(int hi, uint lo) { return (long)((ulong)(uint)hi << 32 | lo); }
PWS_PURE ulong upsample(uint hi, uint lo) { return (ulong)hi << 32 | lo; }
PWS_PURE short upsample(char hi, uchar lo) { return (short)((ushort)(uchar)hi << 8 | lo); }
PWS_PURE ushort upsample(uchar hi, uchar lo) { return (ushort)((ushort)hi << 8 | lo); }
PWS_PURE int upsample(short hi, ushort lo) { return (int)((uint)(ushort)hi << 16 | lo); }
PWS_PURE uint upsample(ushort hi, ushort lo) { return (uint)hi << 16 | lo; }
/* Their vector forms: hi's bits (H, unsigned form HU) above lo's (L) in D (unsigned form DU). */
#define PWS_UPSAMPLE_V(D, DU, H, HU, L, B, N)                                                  \
    PWS_PURE D##N upsample(H##N hi, L##N lo)                                                   \
    {                                                                                          \
        return __builtin_bit_cast(D##N, __builtin_convertvector(__builtin_bit_cast(HU##N, hi), DU##N) << B \
                                            | __builtin_convertvector(lo, DU##N));             \
    }
#define PWS_UPSAMPLE_VS(D, DU, H, HU, L, B)                                                    \
    PWS_UPSAMPLE_V(D, DU, H, HU, L, B, 2) PWS_UPSAMPLE_V(D, DU, H, HU, L, B, 3)                \
    PWS_UPSAMPLE_V(D, DU, H, HU, L, B, 4) PWS_UPSAMPLE_V(D, DU, H, HU, L, B, 8)                \
    PWS_UPSAMPLE_V(D, DU, H, HU, L, B, 16)
PWS_UPSAMPLE_VS(short, ushort, char, uchar, uchar, 8)
PWS_UPSAMPLE_VS(ushort, ushort, uchar, uchar, uchar, 8)
PWS_UPSAMPLE_VS(int, uint, short, ushort, ushort, 16)
PWS_UPSAMPLE_VS(uint, uint, ushort, ushort, ushort, 16)
PWS_UPSAMPLE_VS(long, ulong, int, uint, uint, 32)
PWS_UPSAMPLE_VS(ulong, ulong, uint, uint, uint, 32)
#undef PWS_UPSAMPLE_VS
#undef PWS_UPSAMPLE_V

/* The built-ins on char, short and their unsigned forms, in their own width: through the int
 * versions they would count, rotate, take the high half of and saturate 32 bits (clz((uchar)1)
 * is 7, add_sat((uchar)200, (uchar)100) is 255). U is T's unsigned form, B its width. */
#define PWS_INT_NARROW(T, U, B, MIN, MAX)                                                      \
    PWS_PURE T clz(T x) { return (T)(clz((uint)(U)x) - (32 - B)); }                           \
    PWS_PURE T ctz(T x) { return x ? (T)ctz((uint)(U)x) : (T)B; }                              \
    PWS_PURE T popcount(T x) { return (T)popcount((uint)(U)x); }                               \
    PWS_PURE T rotate(T x, T n)                                                                \
    {                                                                                          \
        uint u = (U)x, k = (uint)(U)n & (B - 1);                                               \
        return (T)(U)(u << k | u >> ((B - k) & (B - 1)));                                      \
    }                                                                                          \
    PWS_PURE T mul_hi(T a, T b) { return (T)(((long)a * (long)b) >> B); }                      \
    PWS_PURE T mad_hi(T a, T b, T c) { return (T)(mul_hi(a, b) + c); }                         \
    PWS_PURE T add_sat(T a, T b) { int s = (int)a + (int)b; return (T)(s > MAX ? MAX : s < MIN ? MIN : s); } \
    PWS_PURE T sub_sat(T a, T b) { int s = (int)a - (int)b; return (T)(s > MAX ? MAX : s < MIN ? MIN : s); } \
    PWS_PURE T mad_sat(T a, T b, T c)                                                          \
    {                                                                                          \
        long s = (long)a * (long)b + (long)c;                                                  \
        return (T)(s > MAX ? MAX : s < MIN ? MIN : s);                                         \
    }                                                                                          \
    PWS_PURE T hadd(T x, T y) { return (T)(((int)x + (int)y) >> 1); }                          \
    PWS_PURE T rhadd(T x, T y) { return (T)(((int)x + (int)y + 1) >> 1); }
PWS_INT_NARROW(char, uchar, 8, CHAR_MIN, CHAR_MAX)
PWS_INT_NARROW(uchar, uchar, 8, 0, UCHAR_MAX)
PWS_INT_NARROW(short, ushort, 16, SHRT_MIN, SHRT_MAX)
PWS_INT_NARROW(ushort, ushort, 16, 0, USHRT_MAX)
#undef PWS_INT_NARROW

/* The same on long and ulong. The high half of a 64 x 64-bit product from four 32 x 32-bit
 * ones; the signed one from the unsigned one less b for a negative a and a for a negative b. */
PWS_PURE ulong mul_hi(ulong a, ulong b)
{
    ulong a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
    ulong p01 = a0 * b1, p10 = a1 * b0;
    ulong mid = (a0 * b0 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
    return a1 * b1 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}
PWS_PURE long mul_hi(long a, long b)
{
    return (long)(mul_hi((ulong)a, (ulong)b) - (a < 0 ? (ulong)b : 0) - (b < 0 ? (ulong)a : 0));
}
PWS_PURE long mad_hi(long a, long b, long c) { return (long)((ulong)mul_hi(a, b) + (ulong)c); }
PWS_PURE ulong mad_hi(ulong a, ulong b, ulong c) { return mul_hi(a, b) + c; }
PWS_PURE long clz(long x) { return x ? __builtin_clzl((ulong)x) : 64; }
PWS_PURE ulong clz(ulong x) { return x ? __builtin_clzl(x) : 64; }
PWS_PURE long ctz(long x) { return x ? __builtin_ctzl((ulong)x) : 64; }
PWS_PURE ulong ctz(ulong x) { return x ? __builtin_ctzl(x) : 64; }
PWS_PURE long popcount(long x) { return __builtin_popcountl((ulong)x); }
PWS_PURE ulong popcount(ulong x) { return __builtin_popcountl(x); }
PWS_PURE ulong rotate(ulong x, ulong n) { return x << (n & 63) | x >> ((64 - n) & 63); }
PWS_PURE long rotate(long x, long n) { return (long)rotate((ulong)x, (ulong)n); }
PWS_PURE long hadd(long x, long y) { return (x >> 1) + (y >> 1) + (x & y & 1); }
PWS_PURE ulong hadd(ulong x, ulong y) { return (x >> 1) + (y >> 1) + (x & y & 1); }
PWS_PURE long rhadd(long x, long y) { return (x >> 1) + (y >> 1) + ((x | y) & 1); }
PWS_PURE ulong rhadd(ulong x, ulong y) { return (x >> 1) + (y >> 1) + ((x | y) & 1); }
/* A signed sum overflows when both operands have the sign the result does not. */
PWS_PURE long add_sat(long a, long b)
{
    long s = (long)((ulong)a + (ulong)b);
    return (a < 0) == (b < 0) && (s < 0) != (a < 0) ? (a < 0 ? LONG_MIN : LONG_MAX) : s;
}
PWS_PURE long sub_sat(long a, long b)
{
    long s = (long)((ulong)a - (ulong)b);
    return (a < 0) != (b < 0) && (s < 0) != (a < 0) ? (a < 0 ? LONG_MIN : LONG_MAX) : s;
}
PWS_PURE ulong add_sat(ulong a, ulong b) { return a + b < a ? ULONG_MAX : a + b; }
PWS_PURE ulong sub_sat(ulong a, ulong b) { return a < b ? 0 : a - b; }
/* a b + c in 128 bits (hi, lo), saturated when hi is not lo's sign extension (unsigned: not 0). */
PWS_PURE ulong mad_sat(ulong a, ulong b, ulong c)
{
    ulong lo = a * b, s = lo + c;
    return mul_hi(a, b) != 0 || s < lo ? ULONG_MAX : s;
}
PWS_PURE long mad_sat(long a, long b, long c)
{
    ulong lo = (ulong)a * (ulong)b, s = lo + (ulong)c;
    long hi = mul_hi(a, b) + (c < 0 ? -1 : 0) + (s < lo ? 1 : 0);
    return hi == ((long)s >> 63) ? (long)s : hi < 0 ? LONG_MIN : LONG_MAX;
}

/* select(a, b, c) of scalars: c ? b : a. */
#define PWS_SELECT(T, S, U)                                                                    \
    PWS_PURE T select(T a, T b, S c) { return c ? b : a; }                                     \
    PWS_PURE T select(T a, T b, U c) { return c ? b : a; }
PWS_SELECT(char, char, uchar)
PWS_SELECT(uchar, char, uchar)
PWS_SELECT(short, short, ushort)
PWS_SELECT(ushort, short, ushort)
PWS_SELECT(int, int, uint)
PWS_SELECT(uint, int, uint)
PWS_SELECT(long, long, ulong)
PWS_SELECT(ulong, long, ulong)
PWS_SELECT(float, int, uint)
PWS_INT_V(int)
PWS_INT_V(uint)
/* The vector forms of the built-ins on char .. ushort, long and ulong. */
#define PWS_INT_WIDTH_V(T)                                                                     \
    PWS_MAP_V(T, popcount) PWS_MAP_V(T, clz) PWS_MAP_V(T, ctz) PWS_MAP2_V(T, rotate)            \
    PWS_MAP2_V(T, mul_hi) PWS_MAP2_V(T, hadd) PWS_MAP2_V(T, rhadd) PWS_MAP2_V(T, add_sat)      \
    PWS_MAP2_V(T, sub_sat) PWS_MAP3_V(T, mad_sat) PWS_MAP3_V(T, mad_hi)
PWS_INT_WIDTH_V(char) PWS_INT_WIDTH_V(uchar) PWS_INT_WIDTH_V(short) PWS_INT_WIDTH_V(ushort)
PWS_INT_WIDTH_V(long) PWS_INT_WIDTH_V(ulong)
#undef PWS_INT_WIDTH_V
PWS_SELECT_VS(char, char, uchar) PWS_SELECT_VS(uchar, char, uchar) PWS_SELECT_VS(short, short, ushort)
PWS_SELECT_VS(ushort, short, ushort) PWS_SELECT_VS(int, int, uint) PWS_SELECT_VS(uint, int, uint)
PWS_SELECT_VS(long, long, ulong) PWS_SELECT_VS(ulong, long, ulong) PWS_SELECT_VS(float, int, uint)
#undef PWS_SELECT_VS
#undef PWS_SELECT_V
#undef PWS_INT_V
#undef PWS_MAP3_V
#undef PWS_MAP2_V
#undef PWS_MAP_V
#undef PWS_SELECT

/* ---- Math built-ins (float) --------------------------------------------------------------- */
/* Each lowers to native GCN3 instructions whose results the f32 contract (docs/float.md) fixes
 * bit for bit; docs/opencl.md lists the precision of each. Radian sin/cos scale by 1/(2 pi)
 * into the hardware's revolutions; log scales log2. The functions no instruction computes
 * (pow, exp, atan2, fmod, erf, ...) follow in their own section. */
#define PWS_F static inline __attribute__((overloadable, always_inline, const)) float

PWS_F sqrt(float x) { return __builtin_sqrtf(x); }
PWS_F rsqrt(float x) { return __builtin_amdgcn_rsqf(x); }
PWS_F exp2(float x) { return __builtin_exp2f(x); }
PWS_F log2(float x) { return __builtin_log2f(x); }
PWS_F log(float x) { return log2(x) * 0.693147180559945309f; }
PWS_F log10(float x) { return log2(x) * 0.301029995663981195f; }
PWS_F sin(float x) { return __builtin_amdgcn_sinf(x * 0.159154943091895336f); }
PWS_F cos(float x) { return __builtin_amdgcn_cosf(x * 0.159154943091895336f); }
PWS_F tan(float x) { return sin(x) / cos(x); }
PWS_F fabs(float x) { return __builtin_fabsf(x); }
PWS_F fmin(float a, float b) { return __builtin_fminf(a, b); }
PWS_F fmax(float a, float b) { return __builtin_fmaxf(a, b); }
PWS_F min(float a, float b) { return __builtin_fminf(a, b); }
PWS_F max(float a, float b) { return __builtin_fmaxf(a, b); }
PWS_F clamp(float x, float lo, float hi) { return fmin(fmax(x, lo), hi); }
PWS_F floor(float x) { return __builtin_floorf(x); }
PWS_F ceil(float x) { return __builtin_ceilf(x); }
PWS_F trunc(float x) { return __builtin_truncf(x); }
PWS_F rint(float x) { return __builtin_rintf(x); }
/* clang-14 lowers roundf to trunc(x) + (0 or ±1), whose sum loses the sign of a -0 result
 * (round(-0.3f) gave +0); round keeps the operand's sign (C99 F.9.6.6). */
PWS_F round(float x) { return __builtin_copysignf(__builtin_roundf(x), x); }
PWS_F fma(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
PWS_F mad(float a, float b, float c) { return a * b + c; }
PWS_F copysign(float a, float b) { return __builtin_copysignf(a, b); }
PWS_F ldexp(float x, int n) { return __builtin_amdgcn_ldexpf(x, n); }
/* C99 7.12.12.1: a NaN operand gives a NaN. */
PWS_F fdim(float a, float b)
{
    return __builtin_isnan(a) || __builtin_isnan(b) ? a + b : a > b ? a - b : 0.0f;
}
/* Without undue overflow or underflow (OpenCL 1.2 6.12.2): both operands scaled by the larger
 * one's power of two, so that the squares neither overflow (hypot(1e30f, 1e30f)) nor vanish
 * (hypot(1e-30f, 1e-30f)); an infinite operand gives +inf even beside a NaN (C99 F.9.4.3). */
PWS_F hypot(float a, float b)
{
    float x = __builtin_fabsf(a), y = __builtin_fabsf(b);
    if (__builtin_isinf(x) || __builtin_isinf(y))
        return __builtin_inff();
    int e = __builtin_amdgcn_frexp_expf(__builtin_fmaxf(x, y));
    x = __builtin_amdgcn_ldexpf(x, -e);
    y = __builtin_amdgcn_ldexpf(y, -e);
    return __builtin_amdgcn_ldexpf(sqrt(x * x + y * y), e);
}
PWS_F step(float edge, float x) { return x < edge ? 0.0f : 1.0f; }
/* OpenCL 1.2 6.12.4: ±0 for ±0 (a denormal, flushed, counts as zero), 0 for a NaN. */
PWS_F sign(float x)
{
    return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : __builtin_isnan(x) ? 0.0f : __builtin_copysignf(0.0f, x);
}
PWS_F mix(float a, float b, float t) { return a + (b - a) * t; }
/* OpenCL 1.2 6.12.4: t = clamp((x - e0) / (e1 - e0), 0, 1), then t * t * (3 - 2 t). */
PWS_F smoothstep(float e0, float e1, float x)
{
    float t = clamp((x - e0) / (e1 - e0), 0.0f, 1.0f);
    return t * t * (3.0f - 2.0f * t);
}
PWS_F degrees(float r) { return r * 57.295779513082320876798154814105f; }
PWS_F radians(float d) { return d * 0.017453292519943295769236907684886f; }

/* Relational functions of scalars: 1 or 0. */
PWS_PURE int isnan(float x) { return __builtin_isnan(x); }
PWS_PURE int isinf(float x) { return __builtin_isinf(x); }
PWS_PURE int isfinite(float x) { return __builtin_isfinite(x); }
PWS_PURE int isnormal(float x) { return __builtin_isnormal(x); }
PWS_PURE int signbit(float x) { return __builtin_signbit(x) != 0; }
PWS_PURE int isequal(float a, float b) { return a == b; }
PWS_PURE int isnotequal(float a, float b) { return a != b; }
PWS_PURE int isgreater(float a, float b) { return a > b; }
PWS_PURE int isgreaterequal(float a, float b) { return a >= b; }
PWS_PURE int isless(float a, float b) { return a < b; }
PWS_PURE int islessequal(float a, float b) { return a <= b; }
PWS_PURE int islessgreater(float a, float b) { return a < b || a > b; }
PWS_PURE int isordered(float a, float b) { return a == a && b == b; }
PWS_PURE int isunordered(float a, float b) { return a != a || b != b; }

/* ---- Math library functions (float) ------------------------------------------------------- */
/* What no GCN3 instruction computes, written for f32 alone (pws runs no doubles). Where one
 * float would lose bits the result needs, a value is carried as the unevaluated sum hi + lo of
 * two floats (x and y of a float2): v_fma_f32 is fused, so a product's rounding error is
 * exact, fma(a, b, -a * b), and a sum's comes from Knuth's two-sum. Polynomial coefficients
 * are Chebyshev fits (mpmath, 40 digits, rounded to float) of the named function on the named
 * interval; series are Taylor's. Denormal inputs and results are flushed, as by every f32
 * operation of the contract. docs/opencl.md gives each function's error, measured against
 * correctly rounded results by tests/cli_libm.rs. */

#define PWS_INF __builtin_inff()
#define PWS_NAN __builtin_nanf("")

PWS_PURE float2 pws_two_sum(float a, float b)
{
    float s = a + b, bb = s - a;
    return (float2)(s, (a - (s - bb)) + (b - bb));
}
/* Two-sum for |a| >= |b| (or a = 0). */
PWS_PURE float2 pws_fast_two_sum(float a, float b)
{
    float s = a + b;
    return (float2)(s, b - (s - a));
}
PWS_PURE float2 pws_two_prod(float a, float b)
{
    float p = a * b;
    return (float2)(p, __builtin_fmaf(a, b, -p));
}
/* a / b within a hair of correct rounding (the reciprocal's quotient corrected by its
 * remainder), for b and a / b normal. Written out because clang lowers `/` to a reciprocal
 * only while the division keeps its OpenCL precision metadata, which LLVM drops from a
 * division it rewrites; without it `/` becomes the correctly rounded sequence, a dozen
 * instructions longer with two mode writes. */
PWS_PURE float pws_div(float a, float b)
{
    float r = __builtin_amdgcn_rcpf(b), q = a * r;
    return __builtin_fmaf(__builtin_fmaf(-q, b, a), r, q);
}

/* ln m for m in [sqrt(1/2), sqrt(2)) as hi + lo: 2 atanh(s) with s = (m - 1) / (m + 1), s's
 * rounding recovered from the division's remainder, and the series' tail past s^13 below
 * 2^-39 of the result. */
PWS_PURE float2 pws_ln_mant(float m)
{
    float f = m - 1.0f;                      /* exact: m is within a factor of 2 of 1 */
    float d = 2.0f + f, dl = f - (d - 2.0f); /* m + 1 = d + dl exactly */
    float s = pws_div(f, d);
    float sl = pws_div(__builtin_fmaf(-s, dl, __builtin_fmaf(-s, d, f)), d);
    float s2 = s * s;
    float t = 0.153846154f;
    t = __builtin_fmaf(t, s2, 0.181818182f);
    t = __builtin_fmaf(t, s2, 0.222222222f);
    t = __builtin_fmaf(t, s2, 0.285714286f);
    t = __builtin_fmaf(t, s2, 0.4f);
    t = __builtin_fmaf(t, s2, 0.666666667f);
    t *= s2 * s;
    return pws_fast_two_sum(2.0f * s, __builtin_fmaf(2.0f, sl, t));
}

/* x = m 2^e with m in [sqrt(1/2), sqrt(2)), for finite normal x > 0: (m, e). */
PWS_PURE float2 pws_frexp_centred(float x)
{
    int e = __builtin_amdgcn_frexp_expf(x);
    float m = __builtin_amdgcn_frexp_mantf(x);
    int low = m < 0.707106781f;
    return (float2)(low ? 2.0f * m : m, (float)(e - low));
}

/* ln x as hi + lo for finite normal x > 0. ln 2 = 0.693145752 (16 bits, so e times it is
 * exact) + 1.42860677e-06. */
PWS_PURE float2 pws_ln_ff(float x)
{
    float2 me = pws_frexp_centred(x);
    float2 l = pws_ln_mant(me.x);
    float2 r = pws_two_sum(me.y * 0.693145752f, l.x);
    return pws_fast_two_sum(r.x, r.y + (l.y + me.y * 1.42860677e-06f));
}

/* log2 x as hi + lo for finite normal x > 0: e + ln m times log2(e) = 1.44269502 +
 * 1.92596299e-08. */
PWS_PURE float2 pws_log2_ff(float x)
{
    float2 me = pws_frexp_centred(x);
    float2 l = pws_ln_mant(me.x);
    float2 p = pws_two_prod(l.x, 1.44269502f);
    p.y += l.x * 1.92596299e-08f + l.y * 1.44269502f;
    float2 r = pws_two_sum(me.y, p.x);
    return pws_fast_two_sum(r.x, r.y + p.y);
}

/* e^(h + l) = 2^n (1 + r + c) for |h| <= 111 and l small: n = rint(h / ln 2), r + rl = h + l -
 * n ln 2 (|r| <= 0.35; h - n ln2_hi is exact), and c = e^r - 1 - r by Taylor's series to r^7
 * (remainder below 2^-27 of e^r) with rl folded in. Returns (r, c, n). */
PWS_PURE float3 pws_exp_parts(float h, float l)
{
    float n = __builtin_rintf(h * 1.44269502f);
    float2 r = pws_two_sum(h - n * 0.693145752f, l - n * 1.42860677e-06f);
    float x = r.x;
    float c = 0.000198412698f;
    c = __builtin_fmaf(c, x, 0.00138888889f);
    c = __builtin_fmaf(c, x, 0.00833333333f);
    c = __builtin_fmaf(c, x, 0.0416666667f);
    c = __builtin_fmaf(c, x, 0.166666667f);
    c = __builtin_fmaf(c, x, 0.5f);
    c *= x * x;
    return (float3)(x, __builtin_fmaf(r.y, 1.0f + x, c), n);
}

/* 2^n (1 + r + c), rounded once (the sum kept exact until its last addition). */
PWS_PURE float pws_exp_join(float3 p)
{
    float2 s = pws_fast_two_sum(1.0f, p.x);
    return __builtin_amdgcn_ldexpf(s.x + (s.y + p.y), (int)p.z);
}

PWS_F exp(float x)
{
    float h = __builtin_fminf(__builtin_fmaxf(x, -104.0f), 89.0f);
    float r = pws_exp_join(pws_exp_parts(h, 0.0f));
    return x != x ? x : r;
}
/* x ln 10 as hi + lo: ln 10 = 2.30258512 - 3.19754317e-08. */
PWS_F exp10(float x)
{
    float c = __builtin_fminf(__builtin_fmaxf(x, -46.0f), 39.0f);
    float2 t = pws_two_prod(c, 2.30258512f);
    float r = pws_exp_join(pws_exp_parts(t.x, __builtin_fmaf(c, -3.19754317e-08f, t.y)));
    return x != x ? x : r;
}
/* e^x - 1 = (2^n - 1) + 2^n (r + c): both terms exact for |n| <= 24, one rounding. */
PWS_F expm1(float x)
{
    float3 p = pws_exp_parts(__builtin_fminf(__builtin_fmaxf(x, -30.0f), 89.0f), 0.0f);
    int n = (int)p.z;
    float two_n = __builtin_amdgcn_ldexpf(1.0f, n);
    float2 s = pws_two_sum(two_n - 1.0f, two_n * p.x);
    float mid = s.x + (s.y + two_n * p.y);
    float tiny = __builtin_amdgcn_ldexpf(1.0f, -n);
    float big = __builtin_amdgcn_ldexpf(1.0f + ((p.x - tiny) + p.y), n);
    float r = n > 24 ? big : n < -24 ? -1.0f : mid;
    return x != x || x == 0.0f ? x : r;
}
/* ln(1 + x) = ln(u) + ul / u with 1 + x = u + ul exactly. */
PWS_F log1p(float x)
{
    float2 u = pws_two_sum(1.0f, x);
    float2 l = pws_ln_ff(u.x);
    float r = l.x + (l.y + pws_div(u.y, u.x));
    r = x == 0.0f || x == PWS_INF ? x : r;
    r = x == -1.0f ? -PWS_INF : r;
    return x < -1.0f || x != x ? PWS_NAN : r;
}

/* |x|^y for x != 0 and y (as yh + yl) finite: 2^(y log2|x|) with the product as hi + lo,
 * reduced by its nearest integer n, whose remainder times ln 2 (hi + lo) feeds exp. */
PWS_PURE float pws_pow_abs(float ax, float yh, float yl)
{
    float2 l = pws_log2_ff(ax);
    float2 p = pws_two_prod(yh, l.x);
    p.y += yh * l.y + yl * l.x;
    float2 z = pws_fast_two_sum(p.x, p.y);
    float zh = __builtin_fminf(__builtin_fmaxf(z.x, -160.0f), 130.0f);
    float n = __builtin_rintf(zh);
    float2 r = pws_two_sum(zh - n, z.y);
    float2 t = pws_two_prod(r.x, 0.693147182f);
    t.y += r.x * -1.90465421e-09f + r.y * 0.693147182f;
    float3 e = pws_exp_parts(t.x, t.y);
    e.z += n;
    return pws_exp_join(e);
}
/* C99's (and OpenCL's) special cases of pow around |x|^y, for y = yh + yl: yint and yodd say
 * whether y is an integer and an odd one. */
PWS_PURE float pws_pow_cases(float x, float yh, float yl, int yint, int yodd)
{
    float ax = fabs(x), ay = fabs(yh);
    float r = pws_pow_abs(ax, yh, yl);
    r = ax == 0.0f ? (yh < 0.0f ? PWS_INF : 0.0f) : r;
    r = ax == PWS_INF ? (yh < 0.0f ? 0.0f : PWS_INF) : r;
    r = ay == PWS_INF ? (ax == 1.0f ? 1.0f : (ax < 1.0f) == (yh < 0.0f) ? PWS_INF : 0.0f) : r;
    r = __builtin_signbit(x) && yodd ? -r : r;
    r = x < 0.0f && ax < PWS_INF && ay < PWS_INF && !yint ? PWS_NAN : r;
    r = x != x || yh != yh ? x + yh : r;
    return yh == 0.0f || x == 1.0f ? 1.0f : r;
}
PWS_F pow(float x, float y)
{
    float ay = fabs(y);
    int yint = ay < PWS_INF && __builtin_truncf(y) == y;
    return pws_pow_cases(x, y, 0.0f, yint, yint && ay < 0x1p24f && ((int)ay & 1));
}
/* n as hi + lo: exact for every int. */
PWS_F pown(float x, int n)
{
    float yh = (float)n;
    return pws_pow_cases(x, yh, (float)((long)n - (long)yh), 1, n & 1);
}
PWS_F powr(float x, float y)
{
    float ax = fabs(x), ay = fabs(y);
    float r = pws_pow_abs(ax, y, 0.0f);
    r = ax == 0.0f ? (y < 0.0f ? PWS_INF : 0.0f) : r;
    r = ax == PWS_INF ? (y < 0.0f ? 0.0f : PWS_INF) : r;
    r = ay == PWS_INF ? ((ax < 1.0f) == (y < 0.0f) ? PWS_INF : 0.0f) : r;
    r = y == 0.0f || ax == 1.0f ? 1.0f : r;
    int nan = x < 0.0f || x != x || y != y || (y == 0.0f && (ax == 0.0f || ax == PWS_INF))
              || (ax == 1.0f && ay == PWS_INF);
    return nan ? PWS_NAN : r;
}
/* x^(1/n), 1/n as hi + lo. */
PWS_F rootn(float x, int n)
{
    float fn = (float)n, yh = pws_div(1.0f, fn);
    float yl = pws_div(__builtin_fmaf(-yh, fn, 1.0f), fn);
    float ax = fabs(x);
    float r = pws_pow_abs(ax, yh, yl);
    r = ax == 0.0f ? (n < 0 ? PWS_INF : 0.0f) : r;
    r = ax == PWS_INF ? (n < 0 ? 0.0f : PWS_INF) : r;
    r = n & 1 ? __builtin_copysignf(r, x) : r;
    return (x < 0.0f && !(n & 1)) || n == 0 || x != x ? PWS_NAN : r;
}
/* One Newton step on y^3 = a from exp2(log2(a) / 3), its residual formed with fma; |x| is
 * scaled by 2^-126 or 2^126 (cubes) where y^3 or its residual would leave the normal range. */
PWS_F cbrt(float x)
{
    float ax = fabs(x);
    int big = ax > 0x1p100f, tiny = ax < 0x1p-100f;
    float a = big ? ax * 0x1p-126f : tiny ? ax * 0x1p126f : ax;
    float y = exp2(log2(a) * 0.333333333f);
    float2 y2 = pws_two_prod(y, y);
    float res = __builtin_fmaf(y2.x, y, -a) + y2.y * y;
    y -= res * (0.333333333f * __builtin_amdgcn_rcpf(y2.x));
    y = big ? y * 0x1p42f : tiny ? y * 0x1p-42f : y;
    return ax == 0.0f || ax == PWS_INF || x != x ? x : __builtin_copysignf(y, x);
}

/* Hyperbolic functions from exp and expm1 (no cancellation near 0: expm1 is accurate there);
 * past |x| = 9, e^|x| / 2 as (e^(|x|/2) / 2) e^(|x|/2), which overflows only where the result
 * does. */
PWS_F cosh(float x)
{
    float ax = fabs(x), e = exp(ax), h = exp(0.5f * ax);
    return ax < 9.0f ? 0.5f * e + pws_div(0.5f, e) : (0.5f * h) * h;
}
PWS_F sinh(float x)
{
    float ax = fabs(x), e = expm1(ax), h = exp(0.5f * ax);
    return __builtin_copysignf(ax < 9.0f ? 0.5f * (e + pws_div(e, e + 1.0f)) : (0.5f * h) * h, x);
}
/* 1 - tanh|x| is below half an ulp of 1 from |x| = 9.1 on. */
PWS_F tanh(float x)
{
    float ax = fabs(x), e = expm1(2.0f * ax);
    return x != x ? x : __builtin_copysignf(ax < 9.1f ? pws_div(e, e + 2.0f) : 1.0f, x);
}
/* ln 2 = 0.693147182 - 1.90465421e-09, added to ln|x| for |x| > 2^12, where x^2 + 1 = x^2. */
PWS_PURE float pws_ln_twice(float ax)
{
    float2 l = pws_ln_ff(ax);
    float2 s = pws_two_sum(l.x, 0.693147182f);
    return s.x + (s.y + (l.y - 1.90465421e-09f));
}
PWS_F asinh(float x)
{
    float ax = fabs(x);
    float t = ax + pws_div(ax * ax, 1.0f + sqrt(1.0f + ax * ax));
    float r = ax > 0x1p12f ? pws_ln_twice(ax) : log1p(t);
    return ax == PWS_INF || x != x || x == 0.0f ? x : __builtin_copysignf(r, x);
}
PWS_F acosh(float x)
{
    float t = x - 1.0f; /* exact below 2^24 */
    float r = x > 0x1p12f ? pws_ln_twice(x) : log1p(t + sqrt(2.0f * t + t * t));
    return x == PWS_INF ? x : x < 1.0f || x != x ? PWS_NAN : r;
}
PWS_F atanh(float x)
{
    float ax = fabs(x);
    float r = 0.5f * log1p(pws_div(2.0f * ax, 1.0f - ax));
    r = ax == 1.0f ? PWS_INF : r;
    return ax > 1.0f || x != x ? PWS_NAN : x == 0.0f ? x : __builtin_copysignf(r, x);
}

/* Inverse trigonometric functions. pi = 3.14159274 - 8.74227766e-08 and pi / 2 = 1.57079637
 * - 4.37113883e-08 (hi + lo). */
/* atan t for t in [0, 1]: t + t^3 g(t^2), g fitted to (atan(t) - t) / t^3 on [0, 1]. */
PWS_PURE float pws_atan01(float t)
{
    float u = t * t;
    float g = 0.00148869189f;
    g = __builtin_fmaf(g, u, -0.00914462935f);
    g = __builtin_fmaf(g, u, 0.0263050012f);
    g = __builtin_fmaf(g, u, -0.0489605144f);
    g = __builtin_fmaf(g, u, 0.0703191459f);
    g = __builtin_fmaf(g, u, -0.089318268f);
    g = __builtin_fmaf(g, u, 0.110882618f);
    g = __builtin_fmaf(g, u, -0.142840043f);
    g = __builtin_fmaf(g, u, 0.199999496f);
    g = __builtin_fmaf(g, u, -0.333333343f);
    return __builtin_fmaf(t * u, g, t);
}
PWS_F atan(float x)
{
    float ax = fabs(x);
    int big = ax > 1.0f;
    float r = pws_atan01(big ? __builtin_amdgcn_rcpf(ax) : ax);
    r = big ? (1.57079637f - r) - 4.37113883e-08f : ax == 1.0f ? 0.785398185f : r;
    return __builtin_copysignf(r, x);
}
/* atan(lo / hi) is r0 (pi / 4 rounded, 0.785398185 - 2.18556941e-08, when |x| = |y|); the
 * quadrant adds it to or takes it from pi / 2 or pi, each constant as hi + lo so that the
 * result is rounded once. */
PWS_F atan2(float y, float x)
{
    float ay = fabs(y), ax = fabs(x);
    float lo = __builtin_fminf(ax, ay), hi = __builtin_fmaxf(ax, ay);
    int diagonal = lo == hi && hi != 0.0f;
    /* past 2^64 both are scaled by 2^-64 so that 1 / hi stays normal (a lo that underflows
     * then gives a quotient below the normal floats anyway) */
    int huge = hi > 0x1p64f;
    float q = pws_div(huge ? lo * 0x1p-64f : lo, huge ? hi * 0x1p-64f : hi);
    float r0 = diagonal ? 0.785398185f : pws_atan01(hi == 0.0f || hi == PWS_INF ? 0.0f : q);
    float r0l = diagonal ? -2.18556941e-08f : 0.0f;
    int steep = ay > ax, left = __builtin_signbit(x);
    float ch = steep ? 1.57079637f : left ? 3.14159274f : 0.0f;
    float cl = steep ? -4.37113883e-08f : left ? -8.74227766e-08f : 0.0f;
    float s = steep == left ? 1.0f : -1.0f;
    float r = (ch + s * r0) + (cl + s * r0l);
    return x != x || y != y ? x + y : __builtin_copysignf(r, y);
}
/* asin s = s + s^3 g(s^2) for s in [0, 1/2], g fitted to (asin(s) - s) / s^3 on s^2 in [0, 1/4];
 * above 1/2, asin |x| = pi / 2 - 2 asin(s) with s = sqrt((1 - |x|) / 2) and s's rounding sl. */
PWS_PURE float pws_asin_g(float z)
{
    float g = 0.0309745409f;
    g = __builtin_fmaf(g, z, 0.0105744153f);
    g = __builtin_fmaf(g, z, 0.0236118175f);
    g = __builtin_fmaf(g, z, 0.0302691385f);
    g = __builtin_fmaf(g, z, 0.0446476638f);
    g = __builtin_fmaf(g, z, 0.074999921f);
    g = __builtin_fmaf(g, z, 0.166666672f);
    return g;
}
/* For |x| > 1/2: (2s, 2 (sl + s^3 g)), the two parts of 2 asin(s). */
PWS_PURE float2 pws_asin_half(float ax)
{
    float z = 0.5f * (1.0f - ax); /* exact */
    float s = sqrt(z);
    float sl = s == 0.0f ? 0.0f : pws_div(__builtin_fmaf(-s, s, z), s + s);
    return (float2)(2.0f * s, 2.0f * __builtin_fmaf(s * z, pws_asin_g(z), sl));
}
PWS_F asin(float x)
{
    float ax = fabs(x);
    float2 h = pws_asin_half(ax);
    float r = ax <= 0.5f ? __builtin_fmaf(ax * ax * ax, pws_asin_g(ax * ax), ax)
                         : (1.57079637f - h.x) - (h.y + 4.37113883e-08f);
    return __builtin_copysignf(r, x);
}
PWS_F acos(float x)
{
    float ax = fabs(x);
    float2 h = pws_asin_half(ax);
    float small = (1.57079637f - x) - ((x * x * x) * pws_asin_g(x * x) + 4.37113883e-08f);
    float left = (3.14159274f - h.x) - (h.y + 8.74227766e-08f);
    return ax <= 0.5f ? small : x > 0.0f ? h.x + h.y : left;
}
/* 1/pi = 0.318309873 + 1.28412765e-08. */
PWS_F asinpi(float x) { return asin(x) * 0.318309873f; }
PWS_F acospi(float x) { return acos(x) * 0.318309873f; }
PWS_F atanpi(float x) { return atan(x) * 0.318309873f; }
PWS_F atan2pi(float y, float x) { return atan2(y, x) * 0.318309873f; }

/* erf x = x (c0 + x^2 p(x^2)) below 1, p fitted to (erf(x) / x - c0) / x^2 on x^2 in [0, 1].
 * From 1 on, erfc x = e^(-x^2) G(x) with x^2 as hi + lo: G fitted to erfc(x) e^(x^2) in
 * x - 1.75 on [1, 2.5], and x G(x) in 1/x^2 on [2.5, 10]; erfc x is below the normal floats
 * past 9.2. */
/* x h(x^2) - c0 x, with c0 = 2 / sqrt(pi) = 1.12837923 - 5.86353828e-08 and the fit's rounding
 * confined to the terms past x. */
PWS_PURE float pws_erf_tail(float x)
{
    float u = x * x;
    float p = -1.02167478e-05f;
    p = __builtin_fmaf(p, u, 0.000114517366f);
    p = __builtin_fmaf(p, u, -0.0008508545f);
    p = __builtin_fmaf(p, u, 0.00522261113f);
    p = __builtin_fmaf(p, u, -0.0268659461f);
    p = __builtin_fmaf(p, u, 0.112837903f);
    p = __builtin_fmaf(p, u, -0.376126379f);
    return x * __builtin_fmaf(u, p, -5.86353828e-08f);
}
PWS_PURE float pws_erfc_from1(float x)
{
    float t = x - 1.75f, v = __builtin_amdgcn_rcpf(x);
    float near = -3.81819082e-05f;
    near = __builtin_fmaf(near, t, 0.000124815328f);
    near = __builtin_fmaf(near, t, -0.000341304927f);
    near = __builtin_fmaf(near, t, 0.00103148783f);
    near = __builtin_fmaf(near, t, -0.00302142696f);
    near = __builtin_fmaf(near, t, 0.00840588566f);
    near = __builtin_fmaf(near, t, -0.0222599637f);
    near = __builtin_fmaf(near, t, 0.0557635203f);
    near = __builtin_fmaf(near, t, -0.130976349f);
    near = __builtin_fmaf(near, t, 0.28497225f);
    float w = v * v;
    float far = -25.0153637f;
    far = __builtin_fmaf(far, w, 22.535635f);
    far = __builtin_fmaf(far, w, -10.0022192f);
    far = __builtin_fmaf(far, w, 3.25294042f);
    far = __builtin_fmaf(far, w, -1.03840101f);
    far = __builtin_fmaf(far, w, 0.422649324f);
    far = __builtin_fmaf(far, w, -0.282088429f);
    far = __builtin_fmaf(far, w, 0.564189553f);
    far *= v;
    float2 s = pws_two_prod(x, x);
    float3 e = pws_exp_parts(-s.x, -s.y);
    float2 o = pws_fast_two_sum(1.0f, e.x);
    return __builtin_amdgcn_ldexpf((o.x + (o.y + e.y)) * (x < 2.5f ? near : far), (int)e.z);
}
PWS_F erf(float x)
{
    float ax = fabs(x);
    float big = __builtin_copysignf(1.0f - pws_erfc_from1(__builtin_fminf(ax, 10.0f)), x);
    float r = ax < 1.0f ? __builtin_fmaf(x, 1.12837923f, pws_erf_tail(x)) : big;
    return x != x || x == 0.0f ? x : r;
}
PWS_F erfc(float x)
{
    float ax = fabs(x), big = pws_erfc_from1(__builtin_fminf(ax, 10.0f));
    float small = __builtin_fmaf(-x, 1.12837923f, 1.0f) - pws_erf_tail(x);
    float r = ax < 1.0f ? small : x > 0.0f ? big : 2.0f - big;
    return x != x ? x : r;
}

/* |x| = mx 2^ex and |y| = my 2^ey with integer mantissas (hidden bit set): |x| mod |y| is
 * (mx 2^(ex - ey) mod my) 2^ey, formed 8 bits of ex - ey at a time (r < my < 2^24, so r << 8
 * fits), with the quotient's low bits for remquo. Exact. For |x| >= |y|; any bits end the loop
 * within 32 iterations (ex - ey <= 255). */
PWS_OVERLOAD float pws_fmod_abs(float ax, float ay, uint *quo)
{
    uint ix = __builtin_astype(ax, uint), iy = __builtin_astype(ay, uint);
    uint my = (iy & 0x7fffffu) | 0x800000u, r = (ix & 0x7fffffu) | 0x800000u;
    uint q = r >= my;
    int d = (int)(ix >> 23) - (int)(iy >> 23);
    r -= q ? my : 0u;
    while (d > 0) {
        PWS_LOOP_BOUND(32);
        int c = d < 8 ? d : 8;
        r <<= c;
        q = (q << c) + r / my;
        r %= my;
        d -= c;
    }
    *quo = q;
    return __builtin_amdgcn_ldexpf((float)r, (int)(iy >> 23) - 150);
}
PWS_F fmod(float x, float y)
{
    float ax = fabs(x), ay = fabs(y);
    uint q;
    float r = __builtin_copysignf(ax >= ay ? pws_fmod_abs(ax, ay, &q) : ax, x);
    return ay == 0.0f || ax == PWS_INF || x != x || y != y ? PWS_NAN : r;
}
/* The remainder to the nearest multiple of y, ties to the even quotient; 2 r is exact and
 * r - |y| too (r lies within a factor of 2 of |y|). */
PWS_OVERLOAD float pws_remquo(float x, float y, int *quo)
{
    float ax = fabs(x), ay = fabs(y);
    uint q = 0u;
    float r = ax >= ay ? pws_fmod_abs(ax, ay, &q) : ax;
    int up = 2.0f * r > ay || (2.0f * r == ay && (q & 1u));
    r = up ? r - ay : r;
    q += up;
    int bad = ay == 0.0f || ax == PWS_INF || x != x || y != y;
    int k = (int)(q & 0x7fu);
    *quo = bad ? 0 : __builtin_signbit(x) != __builtin_signbit(y) ? -k : k;
    return bad ? PWS_NAN : __builtin_signbit(x) ? -r : r;
}
PWS_F remainder(float x, float y)
{
    int q;
    return pws_remquo(x, y, &q);
}

PWS_F maxmag(float x, float y)
{
    float ax = fabs(x), ay = fabs(y);
    return ax > ay ? x : ay > ax ? y : __builtin_fmaxf(x, y);
}
PWS_F minmag(float x, float y)
{
    float ax = fabs(x), ay = fabs(y);
    return ax < ay ? x : ay < ax ? y : __builtin_fminf(x, y);
}
/* The next float after x towards y, by its bits. */
PWS_F nextafter(float x, float y)
{
    int ix = __builtin_astype(x, int), iy = __builtin_astype(y, int);
    int ax = ix & 0x7fffffff;
    int step = (ix < 0) == (x < y) ? -1 : 1;
    int r = ax == 0 ? (iy & (int)0x80000000) | 1 : ix + step;
    return x != x || y != y ? x + y : x == y ? y : __builtin_astype(r, float);
}
PWS_PURE int ilogb(float x)
{
    float ax = fabs(x);
    int e = __builtin_amdgcn_frexp_expf(ax) - 1;
    return ax == 0.0f ? FP_ILOGB0 : x != x ? FP_ILOGBNAN : ax == PWS_INF ? INT_MAX : e;
}
PWS_F logb(float x)
{
    float ax = fabs(x);
    return ax == 0.0f ? -PWS_INF : ax == PWS_INF ? ax : x != x ? x : (float)ilogb(x);
}
PWS_F nan(uint code) { return __builtin_astype(0x7fc00000u | code, float); }

/* Functions with a pointer result, for each address space. */
#define PWS_MATH_PTR(AS)                                                                       \
    PWS_OVERLOAD float sincos(float x, AS float *c)                                            \
    {                                                                                          \
        *c = cos(x);                                                                           \
        return sin(x);                                                                         \
    }                                                                                          \
    PWS_OVERLOAD float modf(float x, AS float *i)                                              \
    {                                                                                          \
        float t = trunc(x);                                                                    \
        *i = t;                                                                                \
        return __builtin_copysignf(__builtin_isinf(x) ? 0.0f : x - t, x);                      \
    }                                                                                          \
    PWS_OVERLOAD float remquo(float x, float y, AS int *quo)                                   \
    {                                                                                          \
        int q;                                                                                 \
        float r = pws_remquo(x, y, &q);                                                        \
        *quo = q;                                                                              \
        return r;                                                                              \
    }
PWS_MATH_PTR(__global)
PWS_MATH_PTR(__local)
PWS_MATH_PTR(__private)
#undef PWS_MATH_PTR

/* sin(pi x) and cos(pi x) without the instruction's absolute error: x = k / 2 + r exactly,
 * |r| <= 1/4, and Taylor's series of sin(pi r) (pi as hi + lo) and cos(pi r) past r^13 and
 * r^14 (remainder below 2^-40); k mod 4 picks the quadrant (k past 2^26 is a multiple of 4).
 * Returns (sin, cos) before the sign rules of zero results. */
PWS_PURE float2 pws_sincospi(float x)
{
    float k = __builtin_rintf(2.0f * x);
    float r = __builtin_fmaf(k, -0.5f, x);
    float t = r * r;
    float p = 4.663027939e-04f;
    p = __builtin_fmaf(p, t, -7.370430976e-03f);
    p = __builtin_fmaf(p, t, 8.214588463e-02f);
    p = __builtin_fmaf(p, t, -5.992645025e-01f);
    p = __builtin_fmaf(p, t, 2.550163984e+00f);
    p = __builtin_fmaf(p, t, -5.167712688e+00f);
    float s = __builtin_fmaf(r, 3.141592741f, r * __builtin_fmaf(t, p, -8.742277657e-08f));
    float q = -1.046381076e-04f;
    q = __builtin_fmaf(q, t, 1.929574297e-03f);
    q = __builtin_fmaf(q, t, -2.580689080e-02f);
    q = __builtin_fmaf(q, t, 2.353306264e-01f);
    q = __builtin_fmaf(q, t, -1.335262775e+00f);
    q = __builtin_fmaf(q, t, 4.058712006e+00f);
    q = __builtin_fmaf(q, t, -4.934802055e+00f);
    float c = __builtin_fmaf(t, q, 1.0f);
    int quadrant = (int)(k - 4.0f * __builtin_floorf(0.25f * k));
    float2 sc = quadrant == 0 ? (float2)(s, c)
                : quadrant == 1 ? (float2)(c, -s)
                : quadrant == 2 ? (float2)(-s, -c)
                                : (float2)(-c, s);
    return sc;
}
/* Zero results: sinpi(n) is +0 for n > 0 and -0 for n < 0 (x * 0 has that sign), cospi(n +
 * 1/2) is +0, tanpi(n) is copysign(0, x) for even n and copysign(0, -x) for odd n. */
PWS_F sinpi(float x)
{
    float s = pws_sincospi(x).x;
    return s == 0.0f ? x * 0.0f : s;
}
PWS_F cospi(float x)
{
    float c = pws_sincospi(x).y;
    return c == 0.0f ? 0.0f : c;
}
PWS_F tanpi(float x)
{
    float2 sc = pws_sincospi(x);
    float c = sc.y == 0.0f ? 0.0f : sc.y;
    float t = c == 0.0f ? sc.x * PWS_INF : pws_div(sc.x, c);
    /* at an integer n, cos(pi n) = (-1)^n carries the parity */
    return sc.x == 0.0f ? __builtin_copysignf(0.0f, x * c) : t;
}
/* ln Γ(2 + t) for |t| <= 1/2: Taylor's series about 2, (1 - γ) t + Σ_k≥2 (-1)^k (ζ(k) - 1)
 * t^k / k, to t^14 (the tail below 2^-30 of the result), 1 - γ as hi + lo. */
PWS_PURE float pws_lgamma2(float t)
{
    float p = 4.374866876e-06f;
    p = __builtin_fmaf(p, t, -9.439488167e-06f);
    p = __builtin_fmaf(p, t, 2.050721196e-05f);
    p = __builtin_fmaf(p, t, -4.492623702e-05f);
    p = __builtin_fmaf(p, t, 9.945750935e-05f);
    p = __builtin_fmaf(p, t, -2.231547551e-04f);
    p = __builtin_fmaf(p, t, 5.096695386e-04f);
    p = __builtin_fmaf(p, t, -1.192753902e-03f);
    p = __builtin_fmaf(p, t, 2.890510252e-03f);
    p = __builtin_fmaf(p, t, -7.385550998e-03f);
    p = __builtin_fmaf(p, t, 2.058080770e-02f);
    p = __builtin_fmaf(p, t, -6.735230237e-02f);
    p = __builtin_fmaf(p, t, 3.224670291e-01f);
    return __builtin_fmaf(t, 4.227843285e-01f, t * __builtin_fmaf(t, p, 6.637773886e-09f));
}
/* ln Γ(x) as hi + lo for finite x > 0. From 8 up, Stirling's series to 1/x^7 (remainder
 * below 2^-36), with (x - 1/2) ln x - x exact to a few units of 2^-40 and ln √(2π) as hi + lo;
 * below, Γ's recurrence onto [3/2, 5/2), where pws_lgamma2 holds: the factors (x - 1) ... (x -
 * k) (each exact) multiplied as hi + lo for x >= 5/2, ln x subtracted for x < 3/2, and ln x
 * and ln(1 + x) for x < 1/2. Every term is carried to the end as hi + lo, so that tgamma's
 * exp(ln Γ) keeps the accuracy: what remains is pws_lgamma2's rounding, below 2^-24 of 0.3. */
PWS_PURE float2 pws_lgamma_pos(float x)
{
    float2 l = pws_ln_ff(x);
    if (x >= 8.0f) {
        if (x > 0x1p100f)
            return (float2)(x * (l.x - 1.0f), 0.0f);
        float xm = x - 0.5f;
        float2 p = pws_two_prod(xm, l.x);
        p.y = __builtin_fmaf(xm, l.y, p.y);
        float2 s = pws_two_sum(p.x, -x);
        float r = pws_div(1.0f, x), r2 = r * r;
        float c = __builtin_fmaf(r2, -5.95238095e-04f, 7.93650794e-04f);
        c = __builtin_fmaf(r2, c, -2.77777778e-03f);
        c = __builtin_fmaf(r2, c, 8.33333333e-02f);
        float2 h = pws_two_sum(s.x, 9.189385176e-01f);
        return pws_fast_two_sum(h.x, h.y + (s.y + p.y + __builtin_fmaf(c, r, 1.563417662e-08f)));
    }
    if (x >= 2.5f) {
        float k = __builtin_floorf(x - 1.5f);
        float2 f = (float2)(1.0f, 0.0f);
#pragma unroll
        for (int j = 1; j <= 6; ++j) {
            float m = (float)j <= k ? x - (float)j : 1.0f;
            float2 q = pws_two_prod(f.x, m);
            f = (float2)(q.x, __builtin_fmaf(f.y, m, q.y));
        }
        float2 lf = pws_ln_ff(f.x);
        float lo = lf.y + pws_div(f.y, f.x);
        return pws_fast_two_sum(lf.x, lo + pws_lgamma2(x - k - 2.0f));
    }
    if (x >= 1.5f)
        return (float2)(pws_lgamma2(x - 2.0f), 0.0f);
    if (x >= 0.5f) {
        float2 r = pws_two_sum(pws_lgamma2(x - 1.0f), -l.x);
        return pws_fast_two_sum(r.x, r.y - l.y);
    }
    float2 r = pws_two_sum(-l.x, pws_lgamma2(x) - log1p(x));
    return pws_fast_two_sum(r.x, r.y - l.y);
}
/* ln |Γ(x)| as hi + lo for finite non-integer x < 0 with s = sinpi(x), by the reflection
 * Γ(x) Γ(1 - x) = π / sin(π x) and Γ(1 - x) = -x Γ(-x) (1 - x would round, -x does not):
 * ln π - ln |s| - ln(-x) - ln Γ(-x), ln π as hi + lo. */
PWS_PURE float2 pws_lgamma_neg(float x, float s)
{
    float2 g = pws_lgamma_pos(-x);
    float2 la = pws_ln_ff(-x);
    float2 ls = pws_ln_ff(fabs(s));
    float2 a = pws_two_sum(1.144729853e+00f, -ls.x);
    float2 b = pws_two_sum(a.x, -la.x);
    float2 c = pws_two_sum(b.x, -g.x);
    return pws_fast_two_sum(c.x, c.y + (b.y + (a.y + (3.317300923e-08f - ls.y - la.y - g.y))));
}
/* ln |Γ(x)| and Γ's sign (sinpi's below zero). OpenCL sets no bound on lgamma's error; this
 * one's is measured by tests/cli_libm.rs (absolute near the zeros of ln |Γ| below -2, where
 * the reflection cancels). Poles and infinities give +inf, with sign +1 (glibc's choice) but
 * -1 at -0. */
PWS_OVERLOAD float pws_lgamma_sign(float x, int *sign)
{
    float ax = fabs(x), s = sinpi(x);
    int pole = x == 0.0f || (x < 0.0f && s == 0.0f) || ax == PWS_INF;
    float2 g = x > 0.0f ? pws_lgamma_pos(pole ? 1.0f : x) : pws_lgamma_neg(pole ? -0.5f : x, pole ? 1.0f : s);
    *sign = x < 0.0f && s < 0.0f ? -1 : __builtin_signbit(x) && x == 0.0f ? -1 : 1;
    return x != x ? x : pole ? PWS_INF : g.x + g.y;
}
PWS_F lgamma(float x)
{
    int sign;
    return pws_lgamma_sign(x, &sign);
}
/* Γ(x) = ±e^(ln |Γ(x)|), the exponent as hi + lo: overflow past 35.0401, zero (flushed)
 * below the normal floats; ±inf at ±0, NaN at the negative integers and -inf. */
PWS_F tgamma(float x)
{
    float s = sinpi(x);
    int bad = (x < 0.0f && s == 0.0f) || x == -PWS_INF;
    float y = x > 0.0f ? __builtin_fminf(x, 36.0f) : bad || x == 0.0f ? -0.5f : x;
    float2 g = y > 0.0f ? pws_lgamma_pos(y) : pws_lgamma_neg(y, bad || x == 0.0f ? 1.0f : s);
    float h = __builtin_fminf(__builtin_fmaxf(g.x, -104.0f), 89.0f);
    float e = pws_exp_join(pws_exp_parts(h, g.x == h ? g.y : 0.0f));
    float r = x < 0.0f && s < 0.0f ? -e : e;
    r = x > 35.0401001f ? PWS_INF : r;
    r = x == 0.0f ? __builtin_copysignf(PWS_INF, x) : r;
    return x != x ? x : bad ? PWS_NAN : r;
}
/* lgamma_r: ln |Γ(x)| with Γ's sign in *signp, for each address space. */
#define PWS_GAMMA_PTR(AS)                                                                      \
    PWS_OVERLOAD float lgamma_r(float x, AS int *signp)                                        \
    {                                                                                          \
        int s;                                                                                 \
        float r = pws_lgamma_sign(x, &s);                                                      \
        *signp = s;                                                                            \
        return r;                                                                              \
    }
PWS_GAMMA_PTR(__global)
PWS_GAMMA_PTR(__local)
PWS_GAMMA_PTR(__private)
#undef PWS_GAMMA_PTR
#undef PWS_INF
#undef PWS_NAN

/* Component-wise math on float2 .. float16: the scalar function per component (an 8- or
 * 16-vector as its two halves). */
#define PWS_V1(f)                                                                              \
    PWS_PURE float2 f(float2 x) { return (float2)(f(x.x), f(x.y)); }                           \
    PWS_PURE float3 f(float3 x) { return (float3)(f(x.x), f(x.y), f(x.z)); }                   \
    PWS_PURE float4 f(float4 x) { return (float4)(f(x.x), f(x.y), f(x.z), f(x.w)); }           \
    PWS_PURE float8 f(float8 x) { return (float8)(f(x.lo), f(x.hi)); }                         \
    PWS_PURE float16 f(float16 x) { return (float16)(f(x.lo), f(x.hi)); }
#define PWS_V2(f)                                                                              \
    PWS_PURE float2 f(float2 x, float2 y) { return (float2)(f(x.x, y.x), f(x.y, y.y)); }       \
    PWS_PURE float3 f(float3 x, float3 y) { return (float3)(f(x.x, y.x), f(x.y, y.y), f(x.z, y.z)); } \
    PWS_PURE float4 f(float4 x, float4 y)                                                      \
    {                                                                                          \
        return (float4)(f(x.x, y.x), f(x.y, y.y), f(x.z, y.z), f(x.w, y.w));                   \
    }                                                                                          \
    PWS_PURE float8 f(float8 x, float8 y) { return (float8)(f(x.lo, y.lo), f(x.hi, y.hi)); }   \
    PWS_PURE float16 f(float16 x, float16 y) { return (float16)(f(x.lo, y.lo), f(x.hi, y.hi)); }
#define PWS_V3(f)                                                                              \
    PWS_PURE float2 f(float2 x, float2 y, float2 z) { return (float2)(f(x.x, y.x, z.x), f(x.y, y.y, z.y)); } \
    PWS_PURE float3 f(float3 x, float3 y, float3 z)                                            \
    {                                                                                          \
        return (float3)(f(x.x, y.x, z.x), f(x.y, y.y, z.y), f(x.z, y.z, z.z));                 \
    }                                                                                          \
    PWS_PURE float4 f(float4 x, float4 y, float4 z)                                            \
    {                                                                                          \
        return (float4)(f(x.x, y.x, z.x), f(x.y, y.y, z.y), f(x.z, y.z, z.z), f(x.w, y.w, z.w)); \
    }                                                                                          \
    PWS_PURE float8 f(float8 x, float8 y, float8 z)                                            \
    {                                                                                          \
        return (float8)(f(x.lo, y.lo, z.lo), f(x.hi, y.hi, z.hi));                             \
    }                                                                                          \
    PWS_PURE float16 f(float16 x, float16 y, float16 z)                                        \
    {                                                                                          \
        return (float16)(f(x.lo, y.lo, z.lo), f(x.hi, y.hi, z.hi));                            \
    }
/* The forms with a scalar second (and third) operand: min(v, 0.0f), clamp(v, 0.0f, 1.0f). */
#define PWS_VS(N)                                                                              \
    PWS_PURE float##N fmin(float##N x, float y) { return fmin(x, (float##N)(y)); }             \
    PWS_PURE float##N fmax(float##N x, float y) { return fmax(x, (float##N)(y)); }             \
    PWS_PURE float##N min(float##N x, float y) { return fmin(x, (float##N)(y)); }              \
    PWS_PURE float##N max(float##N x, float y) { return fmax(x, (float##N)(y)); }              \
    PWS_PURE float##N clamp(float##N x, float lo, float hi)                                    \
    {                                                                                          \
        return clamp(x, (float##N)(lo), (float##N)(hi));                                       \
    }                                                                                          \
    PWS_PURE float##N mix(float##N a, float##N b, float t) { return mix(a, b, (float##N)(t)); }
PWS_V1(sqrt) PWS_V1(rsqrt) PWS_V1(exp2) PWS_V1(log2) PWS_V1(exp) PWS_V1(log) PWS_V1(sin)
PWS_V1(cos) PWS_V1(fabs) PWS_V1(floor) PWS_V1(ceil) PWS_V1(trunc) PWS_V1(rint) PWS_V1(round)
PWS_V1(sign) PWS_V1(exp10) PWS_V1(log10) PWS_V1(expm1) PWS_V1(log1p) PWS_V1(cbrt) PWS_V1(tan)
PWS_V1(sinpi) PWS_V1(cospi) PWS_V1(tanpi) PWS_V1(sinh) PWS_V1(cosh) PWS_V1(tanh) PWS_V1(asinh)
PWS_V1(acosh) PWS_V1(atanh) PWS_V1(asin) PWS_V1(acos) PWS_V1(atan) PWS_V1(asinpi) PWS_V1(acospi)
PWS_V1(atanpi) PWS_V1(erf) PWS_V1(erfc) PWS_V1(logb) PWS_V1(lgamma) PWS_V1(tgamma)
PWS_V2(fmin) PWS_V2(fmax) PWS_V2(min) PWS_V2(max) PWS_V2(copysign) PWS_V2(fdim) PWS_V2(step)
PWS_V2(hypot) PWS_V2(powr) PWS_V2(pow) PWS_V2(fmod) PWS_V2(remainder) PWS_V2(atan2)
PWS_V2(atan2pi) PWS_V2(maxmag) PWS_V2(minmag) PWS_V2(nextafter)
PWS_V3(fma) PWS_V3(mad) PWS_V3(clamp) PWS_V3(mix)
PWS_VS(2) PWS_VS(3) PWS_VS(4) PWS_VS(8) PWS_VS(16)
/* pown and rootn take an int vector. */
#define PWS_VN(f)                                                                              \
    PWS_PURE float2 f(float2 x, int2 n) { return (float2)(f(x.x, n.x), f(x.y, n.y)); }         \
    PWS_PURE float3 f(float3 x, int3 n) { return (float3)(f(x.x, n.x), f(x.y, n.y), f(x.z, n.z)); } \
    PWS_PURE float4 f(float4 x, int4 n)                                                        \
    {                                                                                          \
        return (float4)(f(x.x, n.x), f(x.y, n.y), f(x.z, n.z), f(x.w, n.w));                   \
    }                                                                                          \
    PWS_PURE float8 f(float8 x, int8 n) { return (float8)(f(x.lo, n.lo), f(x.hi, n.hi)); }     \
    PWS_PURE float16 f(float16 x, int16 n) { return (float16)(f(x.lo, n.lo), f(x.hi, n.hi)); }
PWS_VN(pown) PWS_VN(rootn) PWS_VN(ldexp)
PWS_V1(degrees) PWS_V1(radians) PWS_V3(smoothstep)
/* ldexp with one exponent, step and smoothstep with scalar edges. */
#define PWS_VSE(N)                                                                             \
    PWS_PURE float##N ldexp(float##N x, int n) { return ldexp(x, (int##N)(n)); }               \
    PWS_PURE float##N step(float e, float##N x) { return step((float##N)(e), x); }             \
    PWS_PURE float##N smoothstep(float e0, float e1, float##N x)                               \
    {                                                                                          \
        return smoothstep((float##N)(e0), (float##N)(e1), x);                                  \
    }
PWS_VSE(2) PWS_VSE(3) PWS_VSE(4) PWS_VSE(8) PWS_VSE(16)
#undef PWS_VSE
/* Functions of a float vector giving an int vector, and nan of a uint vector. */
#define PWS_VI(f)                                                                              \
    PWS_PURE int2 f(float2 x) { return (int2)(f(x.x), f(x.y)); }                               \
    PWS_PURE int3 f(float3 x) { return (int3)(f(x.x), f(x.y), f(x.z)); }                       \
    PWS_PURE int4 f(float4 x) { return (int4)(f(x.x), f(x.y), f(x.z), f(x.w)); }           \
    PWS_PURE int8 f(float8 x) { return (int8)(f(x.lo), f(x.hi)); }                             \
    PWS_PURE int16 f(float16 x) { return (int16)(f(x.lo), f(x.hi)); }
PWS_VI(ilogb)
#undef PWS_VI
PWS_PURE float2 nan(uint2 c) { return (float2)(nan(c.x), nan(c.y)); }
PWS_PURE float3 nan(uint3 c) { return (float3)(nan(c.x), nan(c.y), nan(c.z)); }
PWS_PURE float4 nan(uint4 c) { return (float4)(nan(c.x), nan(c.y), nan(c.z), nan(c.w)); }
PWS_PURE float8 nan(uint8 c) { return (float8)(nan(c.lo), nan(c.hi)); }
PWS_PURE float16 nan(uint16 c) { return (float16)(nan(c.lo), nan(c.hi)); }
/* Relational functions of vectors: -1 (every bit set) where true, 0 where false (OpenCL 1.2
 * 6.12.6), as the vector comparisons give. */
#define PWS_REL1(f)                                                                            \
    PWS_PURE int2 f(float2 x) { return (int2)(-f(x.x), -f(x.y)); }                             \
    PWS_PURE int3 f(float3 x) { return (int3)(-f(x.x), -f(x.y), -f(x.z)); }                    \
    PWS_PURE int4 f(float4 x) { return (int4)(-f(x.x), -f(x.y), -f(x.z), -f(x.w)); }        \
    PWS_PURE int8 f(float8 x) { return (int8)(f(x.lo), f(x.hi)); }                             \
    PWS_PURE int16 f(float16 x) { return (int16)(f(x.lo), f(x.hi)); }
#define PWS_REL2(f)                                                                            \
    PWS_PURE int2 f(float2 a, float2 b) { return (int2)(-f(a.x, b.x), -f(a.y, b.y)); }         \
    PWS_PURE int3 f(float3 a, float3 b) { return (int3)(-f(a.x, b.x), -f(a.y, b.y), -f(a.z, b.z)); } \
    PWS_PURE int4 f(float4 a, float4 b)                                                        \
    {                                                                                          \
        return (int4)(-f(a.x, b.x), -f(a.y, b.y), -f(a.z, b.z), -f(a.w, b.w));                 \
    }                                                                                          \
    PWS_PURE int8 f(float8 a, float8 b) { return (int8)(f(a.lo, b.lo), f(a.hi, b.hi)); }       \
    PWS_PURE int16 f(float16 a, float16 b) { return (int16)(f(a.lo, b.lo), f(a.hi, b.hi)); }
PWS_REL1(isnan) PWS_REL1(isinf) PWS_REL1(isfinite) PWS_REL1(isnormal) PWS_REL1(signbit)
PWS_REL2(isequal) PWS_REL2(isnotequal) PWS_REL2(isgreater) PWS_REL2(isgreaterequal)
PWS_REL2(isless) PWS_REL2(islessequal) PWS_REL2(islessgreater) PWS_REL2(isordered)
PWS_REL2(isunordered)
#undef PWS_REL1
#undef PWS_REL2
#undef PWS_V3
#undef PWS_VS
#undef PWS_VN

/* Geometric functions. dot multiplies and adds in component order, each rounded; length is
 * sqrt(dot(v, v)) without the overflow scaling of a full library (|v| above 1.8e19 gives
 * inf); normalize leaves a zero vector as it is. */
PWS_F dot(float a, float b) { return a * b; }
PWS_F dot(float2 a, float2 b) { return a.x * b.x + a.y * b.y; }
PWS_F dot(float3 a, float3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
PWS_F dot(float4 a, float4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
#define PWS_GEOMETRY(T)                                                                        \
    PWS_F length(T v) { return sqrt(dot(v, v)); }                                              \
    PWS_F distance(T a, T b) { return length(a - b); }                                         \
    PWS_F fast_length(T v) { return length(v); }                                               \
    PWS_F fast_distance(T a, T b) { return length(a - b); }                                    \
    PWS_PURE T normalize(T v) { float d = dot(v, v); return d == 0.0f ? v : v * rsqrt(d); }    \
    PWS_PURE T fast_normalize(T v) { return normalize(v); }
PWS_GEOMETRY(float)
PWS_GEOMETRY(float2)
PWS_GEOMETRY(float3)
PWS_GEOMETRY(float4)
#undef PWS_GEOMETRY
PWS_PURE float3 cross(float3 a, float3 b)
{
    return (float3)(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
PWS_PURE float4 cross(float4 a, float4 b)
{
    return (float4)(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x, 0.0f);
}

#define PWS_FRACT(AS)                                                                          \
    static inline __attribute__((overloadable, always_inline)) float fract(float x, AS float *ip) \
    {                                                                                          \
        float f = floor(x);                                                                    \
        *ip = f;                                                                               \
        /* OpenCL 1.2 7.5.1: ±0 for ±0 and ±inf, the NaN for a NaN. */                       \
        if (__builtin_isnan(x))                                                                \
            return x;                                                                          \
        if (x == 0.0f || __builtin_isinf(x))                                                   \
            return __builtin_copysignf(0.0f, x);                                               \
        return fmin(x - f, 0x1.fffffep-1f);                                                    \
    }                                                                                          \
    static inline __attribute__((overloadable, always_inline)) float frexp(float x, AS int *e) \
    {                                                                                          \
        *e = __builtin_amdgcn_frexp_expf(x);                                                   \
        return __builtin_amdgcn_frexp_mantf(x);                                                \
    }
PWS_FRACT(__global)
PWS_FRACT(__local)
PWS_FRACT(__private)

/* native_* and half_*: the instructions alone (their precision is the contract's, docs/float.md),
 * exp and exp10 as exp2 of the scaled argument, powr as exp2(y log2 x). */
#define PWS_NATIVE1(name, f) PWS_F native_##name(float x) { return f(x); } PWS_F half_##name(float x) { return f(x); }
PWS_NATIVE1(sqrt, sqrt)
PWS_NATIVE1(rsqrt, rsqrt)
PWS_F pws_exp_fast(float x) { return exp2(x * 1.44269504088896341f); }
PWS_F pws_exp10_fast(float x) { return exp2(x * 3.32192809488736235f); }
PWS_NATIVE1(exp, pws_exp_fast)
PWS_NATIVE1(exp2, exp2)
PWS_NATIVE1(exp10, pws_exp10_fast)
PWS_NATIVE1(log, log)
PWS_NATIVE1(log2, log2)
PWS_NATIVE1(log10, log10)
PWS_NATIVE1(sin, sin)
PWS_NATIVE1(cos, cos)
PWS_NATIVE1(tan, tan)
PWS_F native_recip(float x) { return __builtin_amdgcn_rcpf(x); }
PWS_F half_recip(float x) { return __builtin_amdgcn_rcpf(x); }
PWS_F native_divide(float a, float b) { return a * __builtin_amdgcn_rcpf(b); }
PWS_F half_divide(float a, float b) { return a * __builtin_amdgcn_rcpf(b); }
PWS_F native_powr(float x, float y) { return exp2(y * log2(x)); }
PWS_F half_powr(float x, float y) { return exp2(y * log2(x)); }
/* Their vector forms, component-wise (PWS_V1 and PWS_V2 of the math library above). */
#define PWS_NATIVE_V(name) PWS_V1(native_##name) PWS_V1(half_##name)
PWS_NATIVE_V(sqrt) PWS_NATIVE_V(rsqrt) PWS_NATIVE_V(exp) PWS_NATIVE_V(exp2) PWS_NATIVE_V(exp10)
PWS_NATIVE_V(log) PWS_NATIVE_V(log2) PWS_NATIVE_V(log10) PWS_NATIVE_V(sin) PWS_NATIVE_V(cos)
PWS_NATIVE_V(tan) PWS_NATIVE_V(recip)
PWS_V2(native_divide) PWS_V2(half_divide) PWS_V2(native_powr) PWS_V2(half_powr)
#undef PWS_NATIVE_V
#undef PWS_V2
#undef PWS_V1
/* The forms that return a second result through a pointer, on float2 .. float16, per address space:
 * fract, modf and sincos (a float vector), frexp and lgamma_r (an int vector), and remquo. */
#define PWS_PTR1(AS, N, f, P)                                                                  \
    PWS_OVERLOAD float##N f(float##N x, AS P##N *out)                                          \
    {                                                                                          \
        float##N r;                                                                            \
        P##N o;                                                                                \
        for (int k = 0; k < N; k++) {                                                          \
            P c;                                                                               \
            r[k] = f(x[k], &c);                                                                \
            o[k] = c;                                                                          \
        }                                                                                      \
        *out = o;                                                                              \
        return r;                                                                              \
    }
#define PWS_PTR_V(AS, N)                                                                       \
    PWS_PTR1(AS, N, fract, float) PWS_PTR1(AS, N, modf, float) PWS_PTR1(AS, N, sincos, float)  \
    PWS_PTR1(AS, N, frexp, int) PWS_PTR1(AS, N, lgamma_r, int)                                 \
    PWS_OVERLOAD float##N remquo(float##N x, float##N y, AS int##N *qp)                        \
    {                                                                                          \
        float##N r;                                                                            \
        int##N q;                                                                              \
        for (int k = 0; k < N; k++) {                                                          \
            int c;                                                                             \
            r[k] = remquo(x[k], y[k], &c);                                                     \
            q[k] = c;                                                                          \
        }                                                                                      \
        *qp = q;                                                                               \
        return r;                                                                              \
    }
/* An 8- or 16-vector as its two halves (H components each), through the private forms: a loop
 * over 16 components of lgamma_r or remquo is not unrolled, and its indexed accesses would be
 * v_movrels_b32 / v_movreld_b32, which pws does not run. */
#define PWS_PTR1_HALVES(AS, N, H, f, P)                                                        \
    PWS_OVERLOAD float##N f(float##N x, AS P##N *out)                                          \
    {                                                                                          \
        P##H lo, hi;                                                                           \
        float##N r = (float##N)(f(x.lo, &lo), f(x.hi, &hi));                                   \
        *out = (P##N)(lo, hi);                                                                 \
        return r;                                                                              \
    }
#define PWS_PTR_HALVES(AS, N, H)                                                               \
    PWS_PTR1_HALVES(AS, N, H, fract, float) PWS_PTR1_HALVES(AS, N, H, modf, float)             \
    PWS_PTR1_HALVES(AS, N, H, sincos, float) PWS_PTR1_HALVES(AS, N, H, frexp, int)             \
    PWS_PTR1_HALVES(AS, N, H, lgamma_r, int)                                                   \
    PWS_OVERLOAD float##N remquo(float##N x, float##N y, AS int##N *qp)                        \
    {                                                                                          \
        int##H lo, hi;                                                                         \
        float##N r = (float##N)(remquo(x.lo, y.lo, &lo), remquo(x.hi, y.hi, &hi));             \
        *qp = (int##N)(lo, hi);                                                                \
        return r;                                                                              \
    }
#define PWS_PTR_VS(AS)                                                                         \
    PWS_PTR_V(AS, 2) PWS_PTR_V(AS, 3) PWS_PTR_V(AS, 4) PWS_PTR_HALVES(AS, 8, 4)                \
    PWS_PTR_HALVES(AS, 16, 8)
PWS_PTR_VS(__private) PWS_PTR_VS(__global) PWS_PTR_VS(__local)
#undef PWS_PTR_VS
#undef PWS_PTR_HALVES
#undef PWS_PTR1_HALVES
#undef PWS_PTR_V
#undef PWS_PTR1
#undef PWS_NATIVE1
#undef PWS_FRACT
#undef PWS_F

/* ---- Conversions and vector loads and stores ---------------------------------------------- */
/* convert_D[n][_sat][_rte|_rtz|_rtp|_rtn](S[n]) for every D and S among char .. ulong and
 * float and n = 1, 2, 3, 4, 8, 16 (OpenCL 1.2 6.2.3): x's value in D where D holds it.
 * Otherwise an integer D wraps (undefined in OpenCL), and with _sat clamps to D's range (NaN
 * gives 0); a float is rounded to an integer in the named mode (by default toward zero) and
 * an integer to a float in it (by default to nearest even). Between integers the modes
 * change nothing. Every form is declared, so that no call reaches another overload through an
 * implicit conversion: convert_int_rte(int) through the float one would make 16777217 16777216. */

/* C's conversion, which is the default rounding. */
#define PWS_CONV(D, S)                                                                         \
    PWS_PURE D convert_##D(S x) { return (D)x; }                                               \
    PWS_PURE D##2 convert_##D##2(S##2 x) { return __builtin_convertvector(x, D##2); }          \
    PWS_PURE D##3 convert_##D##3(S##3 x) { return __builtin_convertvector(x, D##3); }          \
    PWS_PURE D##4 convert_##D##4(S##4 x) { return __builtin_convertvector(x, D##4); }          \
    PWS_PURE D##8 convert_##D##8(S##8 x) { return __builtin_convertvector(x, D##8); }          \
    PWS_PURE D##16 convert_##D##16(S##16 x) { return __builtin_convertvector(x, D##16); }
#define PWS_CONV_TO(D)                                                                         \
    PWS_CONV(D, char) PWS_CONV(D, uchar) PWS_CONV(D, short) PWS_CONV(D, ushort)                \
    PWS_CONV(D, int) PWS_CONV(D, uint) PWS_CONV(D, long) PWS_CONV(D, ulong) PWS_CONV(D, float)
PWS_CONV_TO(char) PWS_CONV_TO(uchar) PWS_CONV_TO(short) PWS_CONV_TO(ushort) PWS_CONV_TO(int)
PWS_CONV_TO(uint) PWS_CONV_TO(long) PWS_CONV_TO(ulong) PWS_CONV_TO(float)
#undef PWS_CONV_TO
#undef PWS_CONV

/* An integer clamped to integer type D ([LO, HI]): pws_sat_D((long)x) for a signed x,
 * pws_sat_D((ulong)x) for an unsigned one. */
#define PWS_SAT_INT(D, LO, HI)                                                                 \
    PWS_PURE D pws_sat_##D(long x)                                                             \
    {                                                                                          \
        return x < 0 ? (LO == 0 ? (D)0 : x < (long)LO ? (D)LO : (D)x)                           \
                     : (ulong)x > (ulong)HI ? (D)HI : (D)x;                                     \
    }                                                                                          \
    PWS_PURE D pws_sat_##D(ulong x) { return x > (ulong)HI ? (D)HI : (D)x; }                   \
    PWS_PURE D pws_sat_##D(float x)                                                            \
    {                                                                                          \
        return x != x ? (D)0 : x <= (float)LO ? (D)LO : x >= (float)HI ? (D)HI : (D)x;          \
    }
PWS_SAT_INT(char, CHAR_MIN, CHAR_MAX) PWS_SAT_INT(uchar, 0, UCHAR_MAX)
PWS_SAT_INT(short, SHRT_MIN, SHRT_MAX) PWS_SAT_INT(ushort, 0, USHRT_MAX)
PWS_SAT_INT(int, INT_MIN, INT_MAX) PWS_SAT_INT(uint, 0, UINT_MAX)
PWS_SAT_INT(long, LONG_MIN, LONG_MAX) PWS_SAT_INT(ulong, 0, ULONG_MAX)
#undef PWS_SAT_INT

/* Integer to integer D, through W (long for a signed S, ulong for an unsigned one). */
#define PWS_CVT_II(D, S, W)                                                                    \
    PWS_PURE D convert_##D##_rte(S x) { return (D)x; }                                         \
    PWS_PURE D convert_##D##_rtz(S x) { return (D)x; }                                         \
    PWS_PURE D convert_##D##_rtp(S x) { return (D)x; }                                         \
    PWS_PURE D convert_##D##_rtn(S x) { return (D)x; }                                         \
    PWS_PURE D convert_##D##_sat(S x) { return pws_sat_##D((W)x); }                            \
    PWS_PURE D convert_##D##_sat_rte(S x) { return pws_sat_##D((W)x); }                        \
    PWS_PURE D convert_##D##_sat_rtz(S x) { return pws_sat_##D((W)x); }                        \
    PWS_PURE D convert_##D##_sat_rtp(S x) { return pws_sat_##D((W)x); }                        \
    PWS_PURE D convert_##D##_sat_rtn(S x) { return pws_sat_##D((W)x); }
/* Float to integer D: rounded to an integer in the mode, then converted through V (int for
 * the narrow types, so that they wrap, D for the others) or clamped. */
#define PWS_CVT_FI(D, V)                                                                       \
    PWS_PURE D convert_##D##_rte(float x) { return (D)(V)rint(x); }                            \
    PWS_PURE D convert_##D##_rtz(float x) { return (D)(V)x; }                                  \
    PWS_PURE D convert_##D##_rtp(float x) { return (D)(V)ceil(x); }                            \
    PWS_PURE D convert_##D##_rtn(float x) { return (D)(V)floor(x); }                           \
    PWS_PURE D convert_##D##_sat(float x) { return pws_sat_##D(x); }                           \
    PWS_PURE D convert_##D##_sat_rte(float x) { return pws_sat_##D(rint(x)); }                 \
    PWS_PURE D convert_##D##_sat_rtz(float x) { return pws_sat_##D(x); }                       \
    PWS_PURE D convert_##D##_sat_rtp(float x) { return pws_sat_##D(ceil(x)); }                 \
    PWS_PURE D convert_##D##_sat_rtn(float x) { return pws_sat_##D(floor(x)); }
#define PWS_CVT_TO_INT(D, V)                                                                   \
    PWS_CVT_II(D, char, long) PWS_CVT_II(D, uchar, ulong) PWS_CVT_II(D, short, long)           \
    PWS_CVT_II(D, ushort, ulong) PWS_CVT_II(D, int, long) PWS_CVT_II(D, uint, ulong)           \
    PWS_CVT_II(D, long, long) PWS_CVT_II(D, ulong, ulong) PWS_CVT_FI(D, V)
PWS_CVT_TO_INT(char, int) PWS_CVT_TO_INT(uchar, int) PWS_CVT_TO_INT(short, int)
PWS_CVT_TO_INT(ushort, int) PWS_CVT_TO_INT(int, int) PWS_CVT_TO_INT(uint, uint)
PWS_CVT_TO_INT(long, long) PWS_CVT_TO_INT(ulong, ulong)
#undef PWS_CVT_TO_INT
#undef PWS_CVT_FI
#undef PWS_CVT_II

/* Integer to float: C's conversion rounds to nearest even; the other modes step its result
 * one float towards the named direction when it went past x. f = (float)x is an integer (exact
 * below 2^24, and every float from 2^23 up is one), so it compares with x exactly as a long
 * or ulong below 2^63 or 2^64; a result that went past is never zero, so the step is one unit
 * of its bits, down in magnitude towards zero and up away from it. */
PWS_PURE int pws_above(float f, long x) { return f >= 0x1p63f || (long)f > x; }
PWS_PURE int pws_below(float f, long x) { return f < 0x1p63f && (long)f < x; }
PWS_PURE int pws_above(float f, ulong x) { return f >= 0x1p64f || (ulong)f > x; }
PWS_PURE int pws_below(float f, ulong x) { return f < 0x1p64f && (ulong)f < x; }
PWS_PURE float pws_step(float f, int up)
{
    uint b = __builtin_bit_cast(uint, f);
    return __builtin_bit_cast(float, (f > 0.0f) == (up != 0) ? b + 1u : b - 1u);
}
#define PWS_CVT_IF(S, W)                                                                       \
    PWS_PURE float convert_float_rte(S x) { return (float)x; }                                 \
    PWS_PURE float convert_float_rtz(S x)                                                      \
    {                                                                                          \
        float f = (float)x;                                                                    \
        return (f > 0.0f ? pws_above(f, (W)x) : pws_below(f, (W)x)) ? pws_step(f, f < 0.0f) : f; \
    }                                                                                          \
    PWS_PURE float convert_float_rtp(S x)                                                      \
    {                                                                                          \
        float f = (float)x;                                                                    \
        return pws_below(f, (W)x) ? pws_step(f, 1) : f;                                        \
    }                                                                                          \
    PWS_PURE float convert_float_rtn(S x)                                                      \
    {                                                                                          \
        float f = (float)x;                                                                    \
        return pws_above(f, (W)x) ? pws_step(f, 0) : f;                                        \
    }
PWS_CVT_IF(char, long) PWS_CVT_IF(uchar, ulong) PWS_CVT_IF(short, long) PWS_CVT_IF(ushort, ulong)
PWS_CVT_IF(int, long) PWS_CVT_IF(uint, ulong) PWS_CVT_IF(long, long) PWS_CVT_IF(ulong, ulong)
#undef PWS_CVT_IF
PWS_PURE float convert_float_rte(float x) { return x; }
PWS_PURE float convert_float_rtz(float x) { return x; }
PWS_PURE float convert_float_rtp(float x) { return x; }
PWS_PURE float convert_float_rtn(float x) { return x; }

/* The vector forms of the rounding and saturating conversions, component by component. */
#define PWS_CONV_RV(D, S, suffix)                                                              \
    PWS_PURE D##2 convert_##D##2##suffix(S##2 x)                                               \
    {                                                                                          \
        return (D##2)(convert_##D##suffix(x.s0), convert_##D##suffix(x.s1));                   \
    }                                                                                          \
    PWS_PURE D##3 convert_##D##3##suffix(S##3 x)                                               \
    {                                                                                          \
        return (D##3)(convert_##D##suffix(x.s0), convert_##D##suffix(x.s1), convert_##D##suffix(x.s2)); \
    }                                                                                          \
    PWS_PURE D##4 convert_##D##4##suffix(S##4 x)                                               \
    {                                                                                          \
        return (D##4)(convert_##D##2##suffix(x.lo), convert_##D##2##suffix(x.hi));             \
    }                                                                                          \
    PWS_PURE D##8 convert_##D##8##suffix(S##8 x)                                               \
    {                                                                                          \
        return (D##8)(convert_##D##4##suffix(x.lo), convert_##D##4##suffix(x.hi));             \
    }                                                                                          \
    PWS_PURE D##16 convert_##D##16##suffix(S##16 x)                                            \
    {                                                                                          \
        return (D##16)(convert_##D##8##suffix(x.lo), convert_##D##8##suffix(x.hi));            \
    }
#define PWS_CONV_RV_MODES(D, S)                                                                \
    PWS_CONV_RV(D, S, _rte) PWS_CONV_RV(D, S, _rtz) PWS_CONV_RV(D, S, _rtp) PWS_CONV_RV(D, S, _rtn)
#define PWS_CONV_RV_SAT(D, S)                                                                  \
    PWS_CONV_RV_MODES(D, S) PWS_CONV_RV(D, S, _sat) PWS_CONV_RV(D, S, _sat_rte)                \
    PWS_CONV_RV(D, S, _sat_rtz) PWS_CONV_RV(D, S, _sat_rtp) PWS_CONV_RV(D, S, _sat_rtn)
#define PWS_CONV_RV_FROM(M, D)                                                                 \
    M(D, char) M(D, uchar) M(D, short) M(D, ushort) M(D, int) M(D, uint) M(D, long)            \
    M(D, ulong) M(D, float)
PWS_CONV_RV_FROM(PWS_CONV_RV_SAT, char) PWS_CONV_RV_FROM(PWS_CONV_RV_SAT, uchar)
PWS_CONV_RV_FROM(PWS_CONV_RV_SAT, short) PWS_CONV_RV_FROM(PWS_CONV_RV_SAT, ushort)
PWS_CONV_RV_FROM(PWS_CONV_RV_SAT, int) PWS_CONV_RV_FROM(PWS_CONV_RV_SAT, uint)
PWS_CONV_RV_FROM(PWS_CONV_RV_SAT, long) PWS_CONV_RV_FROM(PWS_CONV_RV_SAT, ulong)
PWS_CONV_RV_FROM(PWS_CONV_RV_MODES, float)
#undef PWS_CONV_RV_FROM
#undef PWS_CONV_RV_SAT
#undef PWS_CONV_RV_MODES
#undef PWS_CONV_RV

/* vloadn(i, p) reads p[n*i .. n*i + n - 1]; vstoren(v, i, p) writes them. */
#define PWS_VLOAD(T, AS)                                                                       \
    PWS_OVERLOAD T##2 vload2(size_t i, const AS T *p) { return (T##2)(p[2 * i], p[2 * i + 1]); } \
    PWS_OVERLOAD T##3 vload3(size_t i, const AS T *p)                                          \
    {                                                                                          \
        return (T##3)(p[3 * i], p[3 * i + 1], p[3 * i + 2]);                                   \
    }                                                                                          \
    PWS_OVERLOAD T##4 vload4(size_t i, const AS T *p)                                          \
    {                                                                                          \
        return (T##4)(p[4 * i], p[4 * i + 1], p[4 * i + 2], p[4 * i + 3]);                     \
    }                                                                                          \
    PWS_OVERLOAD T##8 vload8(size_t i, const AS T *p) { return (T##8)(vload4(2 * i, p), vload4(2 * i + 1, p)); } \
    PWS_OVERLOAD T##16 vload16(size_t i, const AS T *p)                                        \
    {                                                                                          \
        return (T##16)(vload8(2 * i, p), vload8(2 * i + 1, p));                                \
    }
#define PWS_VSTORE(T, AS)                                                                      \
    PWS_OVERLOAD void vstore2(T##2 v, size_t i, AS T *p) { p[2 * i] = v.s0; p[2 * i + 1] = v.s1; } \
    PWS_OVERLOAD void vstore3(T##3 v, size_t i, AS T *p)                                       \
    {                                                                                          \
        p[3 * i] = v.s0;                                                                       \
        p[3 * i + 1] = v.s1;                                                                   \
        p[3 * i + 2] = v.s2;                                                                   \
    }                                                                                          \
    PWS_OVERLOAD void vstore4(T##4 v, size_t i, AS T *p)                                       \
    {                                                                                          \
        vstore2(v.lo, 2 * i, p);                                                               \
        vstore2(v.hi, 2 * i + 1, p);                                                           \
    }                                                                                          \
    PWS_OVERLOAD void vstore8(T##8 v, size_t i, AS T *p)                                       \
    {                                                                                          \
        vstore4(v.lo, 2 * i, p);                                                               \
        vstore4(v.hi, 2 * i + 1, p);                                                           \
    }                                                                                          \
    PWS_OVERLOAD void vstore16(T##16 v, size_t i, AS T *p)                                     \
    {                                                                                          \
        vstore8(v.lo, 2 * i, p);                                                               \
        vstore8(v.hi, 2 * i + 1, p);                                                           \
    }
#define PWS_VLOADSTORE(T)                                                                      \
    PWS_VLOAD(T, __global) PWS_VLOAD(T, __local) PWS_VLOAD(T, __constant) PWS_VLOAD(T, __private) \
    PWS_VSTORE(T, __global) PWS_VSTORE(T, __local) PWS_VSTORE(T, __private)
PWS_VLOADSTORE(char) PWS_VLOADSTORE(uchar) PWS_VLOADSTORE(short) PWS_VLOADSTORE(ushort)
PWS_VLOADSTORE(int) PWS_VLOADSTORE(uint) PWS_VLOADSTORE(long) PWS_VLOADSTORE(ulong)
PWS_VLOADSTORE(float)
#undef PWS_VLOADSTORE
#undef PWS_VSTORE
#undef PWS_VLOAD

/* ---- Half-precision loads and stores ----------------------------------------------------- */
/* vload_half(n), vloada_half(n), vstore_half(n)[_rte|_rtz|_rtp|_rtn] and vstorea_half(n)[...]:
 * `half` as a storage format (OpenCL 1.2 6.1.1.1, 6.12.7). pws runs f32 arithmetic only, so the
 * conversions are integer code on the bits: half -> float is exact (a half denormal is a float
 * normal; infinities stay, a NaN keeps its sign and payload); float -> half rounds in the mode
 * the name says (round to nearest even by default), overflowing to infinity or to the largest
 * half as that mode rounds, and producing half denormals. An f32 denormal input is zero, as f32
 * denormals are flushed everywhere on pws (docs/float.md). */
#define PWS_RTE 0
#define PWS_RTZ 1
#define PWS_RTP 2
#define PWS_RTN 3
static inline __attribute__((always_inline, const)) float pws_half_to_float(ushort h)
{
    uint s = (uint)(h & 0x8000u) << 16;
    uint e = (h >> 10) & 0x1fu;
    uint m = h & 0x3ffu;
    if (e == 0x1fu)
        return __builtin_bit_cast(float, s | 0x7f800000u | (m << 13));
    if (e != 0u)
        return __builtin_bit_cast(float, s | ((e + 112u) << 23) | (m << 13));
    /* m * 2^-24: exact, and a normal float. */
    return __builtin_bit_cast(float, s | __builtin_bit_cast(uint, (float)m * 0x1p-24f));
}
static inline __attribute__((always_inline, const)) ushort pws_float_to_half(float f, int mode)
{
    uint x = __builtin_bit_cast(uint, f);
    uint s = (x >> 16) & 0x8000u;
    uint a = x & 0x7fffffffu;
    uint e = a >> 23;
    /* Rounding away from zero: always at a tie or above for RTE (ties to even below), for any
     * remainder towards the sign's infinity for RTP/RTN, never for RTZ. */
    bool up_dir = mode == PWS_RTP ? s == 0u : mode == PWS_RTN ? s != 0u : false;
    if (a > 0x7f800000u)
        return (ushort)(s | 0x7e00u | ((a >> 13) & 0x3ffu));
    if (a == 0x7f800000u)
        return (ushort)(s | 0x7c00u);
    if (e >= 143u)
        return (ushort)(s | ((mode == PWS_RTE || up_dir) ? 0x7c00u : 0x7bffu));
    if (e == 0u)
        return (ushort)s;
    uint h, rest, tie;
    if (e >= 113u) {
        h = ((e - 112u) << 10) | ((a >> 13) & 0x3ffu);
        rest = a & 0x1fffu;
        tie = 0x1000u;
    } else {
        /* 1.m * 2^(e - 127) in units of the half denormal 2^-24: M >> (126 - e). */
        uint mant = (a & 0x7fffffu) | 0x800000u;
        uint shift = 126u - e;
        if (shift > 25u) {
            h = 0u;
            rest = 1u;
            tie = 2u;
        } else {
            h = mant >> shift;
            rest = mant & ((1u << shift) - 1u);
            tie = 1u << (shift - 1u);
        }
    }
    bool up = mode == PWS_RTE ? (rest > tie || (rest == tie && (h & 1u)))
                              : (rest != 0u && up_dir);
    return (ushort)(s | (h + (up ? 1u : 0u)));
}
/* An N-vector of halves is its two halves (H components each), one after the other. */
#define PWS_VLOAD_HALF_HALVES(AS, N, H)                                                        \
    PWS_PURE float##N vload_half##N(size_t i, const AS half *p)                                \
    {                                                                                          \
        return (float##N)(vload_half##H(2 * i, p), vload_half##H(2 * i + 1, p));               \
    }
#define PWS_VLOAD_HALF(AS)                                                                     \
    PWS_PURE float vload_half(size_t i, const AS half *p)                                      \
    {                                                                                          \
        return pws_half_to_float(((const AS ushort *)p)[i]);                                   \
    }                                                                                          \
    PWS_VLOAD_HALF_HALVES(AS, 2, )                                                             \
    PWS_PURE float3 vload_half3(size_t i, const AS half *p)                                    \
    {                                                                                          \
        return (float3)(vload_half(3 * i, p), vload_half(3 * i + 1, p), vload_half(3 * i + 2, p)); \
    }                                                                                          \
    PWS_VLOAD_HALF_HALVES(AS, 4, 2)                                                            \
    PWS_VLOAD_HALF_HALVES(AS, 8, 4)                                                            \
    PWS_VLOAD_HALF_HALVES(AS, 16, 8)                                                           \
    PWS_PURE float vloada_half(size_t i, const AS half *p) { return vload_half(i, p); }        \
    PWS_PURE float2 vloada_half2(size_t i, const AS half *p) { return vload_half2(i, p); }     \
    PWS_PURE float3 vloada_half3(size_t i, const AS half *p)                                   \
    {                                                                                          \
        return (float3)(vload_half(4 * i, p), vload_half(4 * i + 1, p), vload_half(4 * i + 2, p)); \
    }                                                                                          \
    PWS_PURE float4 vloada_half4(size_t i, const AS half *p) { return vload_half4(i, p); }     \
    PWS_PURE float8 vloada_half8(size_t i, const AS half *p) { return vload_half8(i, p); }     \
    PWS_PURE float16 vloada_half16(size_t i, const AS half *p) { return vload_half16(i, p); }
/* Stores of mode M (suffix R) through `AS half *`: vstore_half{,2,3,4,8,16}R and the aligned
 * vstorea_half{,2,3,4,8,16}R (vstorea_half3 strides by 4 halves). An N-vector is its two
 * halves (H components each) stored one after the other. */
#define PWS_VSTORE_HALF_HALVES(AS, R, N, H)                                                    \
    PWS_OVERLOAD void vstore_half##N##R(float##N v, size_t i, AS half *p)                      \
    {                                                                                          \
        vstore_half##H##R(v.lo, 2 * i, p);                                                     \
        vstore_half##H##R(v.hi, 2 * i + 1, p);                                                 \
    }
#define PWS_VSTORE_HALF(AS, R, M)                                                              \
    PWS_OVERLOAD void vstore_half##R(float v, size_t i, AS half *p)                            \
    {                                                                                          \
        ((AS ushort *)p)[i] = pws_float_to_half(v, M);                                         \
    }                                                                                          \
    PWS_VSTORE_HALF_HALVES(AS, R, 2, )                                                         \
    PWS_OVERLOAD void vstore_half3##R(float3 v, size_t i, AS half *p)                          \
    {                                                                                          \
        vstore_half##R(v.s0, 3 * i, p);                                                        \
        vstore_half##R(v.s1, 3 * i + 1, p);                                                    \
        vstore_half##R(v.s2, 3 * i + 2, p);                                                    \
    }                                                                                          \
    PWS_VSTORE_HALF_HALVES(AS, R, 4, 2)                                                        \
    PWS_VSTORE_HALF_HALVES(AS, R, 8, 4)                                                        \
    PWS_VSTORE_HALF_HALVES(AS, R, 16, 8)                                                       \
    PWS_OVERLOAD void vstorea_half##R(float v, size_t i, AS half *p) { vstore_half##R(v, i, p); } \
    PWS_OVERLOAD void vstorea_half2##R(float2 v, size_t i, AS half *p) { vstore_half2##R(v, i, p); } \
    PWS_OVERLOAD void vstorea_half3##R(float3 v, size_t i, AS half *p)                         \
    {                                                                                          \
        vstore_half##R(v.s0, 4 * i, p);                                                        \
        vstore_half##R(v.s1, 4 * i + 1, p);                                                    \
        vstore_half##R(v.s2, 4 * i + 2, p);                                                    \
    }                                                                                          \
    PWS_OVERLOAD void vstorea_half4##R(float4 v, size_t i, AS half *p) { vstore_half4##R(v, i, p); } \
    PWS_OVERLOAD void vstorea_half8##R(float8 v, size_t i, AS half *p) { vstore_half8##R(v, i, p); } \
    PWS_OVERLOAD void vstorea_half16##R(float16 v, size_t i, AS half *p) { vstore_half16##R(v, i, p); }
#define PWS_VSTORE_HALF_MODES(AS)                                                              \
    PWS_VSTORE_HALF(AS, , PWS_RTE) PWS_VSTORE_HALF(AS, _rte, PWS_RTE)                          \
    PWS_VSTORE_HALF(AS, _rtz, PWS_RTZ) PWS_VSTORE_HALF(AS, _rtp, PWS_RTP)                      \
    PWS_VSTORE_HALF(AS, _rtn, PWS_RTN)
PWS_VLOAD_HALF(__global) PWS_VLOAD_HALF(__local) PWS_VLOAD_HALF(__constant) PWS_VLOAD_HALF(__private)
PWS_VSTORE_HALF_MODES(__global) PWS_VSTORE_HALF_MODES(__local) PWS_VSTORE_HALF_MODES(__private)
#undef PWS_VSTORE_HALF_MODES
#undef PWS_VSTORE_HALF
#undef PWS_VSTORE_HALF_HALVES
#undef PWS_VLOAD_HALF
#undef PWS_VLOAD_HALF_HALVES

/* ---- shuffle and shuffle2 (OpenCL 1.2 6.12.12) ------------------------------------------- */
/* Component j of the result is component mask[j] mod N of x (of x then y, mod 2N, for
 * shuffle2), for N, M = 2, 4, 8, 16. The pick selects the half that holds component i, then
 * the half of that, by i's bits: no private array (scratch memory), and no chain of selects
 * on i, which LLVM turns into an indexed read (v_movrels_b32, which pws does not run). */
#define PWS_PICK(T)                                                                            \
    PWS_PURE T pws_pick(T##2 x, uint i) { return i & 1 ? x.s1 : x.s0; }                        \
    PWS_PURE T pws_pick(T##4 x, uint i) { return pws_pick(i & 2 ? x.hi : x.lo, i); }           \
    PWS_PURE T pws_pick(T##8 x, uint i) { return pws_pick(i & 4 ? x.hi : x.lo, i); }           \
    PWS_PURE T pws_pick(T##16 x, uint i) { return pws_pick(i & 8 ? x.hi : x.lo, i); }
#define PWS_SHUFFLE(T, U, N, M)                                                                \
    PWS_PURE T##M shuffle(T##N x, U##M mask)                                                   \
    {                                                                                          \
        T##M r;                                                                                \
        for (int j = 0; j < M; j++)                                                            \
            r[j] = pws_pick(x, (uint)mask[j] % N);                                             \
        return r;                                                                              \
    }                                                                                          \
    PWS_PURE T##M shuffle2(T##N x, T##N y, U##M mask)                                          \
    {                                                                                          \
        T##M r;                                                                                \
        for (int j = 0; j < M; j++) {                                                          \
            uint i = (uint)mask[j] % (2 * N);                                                  \
            r[j] = i < N ? pws_pick(x, i) : pws_pick(y, i - N);                                \
        }                                                                                      \
        return r;                                                                              \
    }
#define PWS_SHUFFLE_N(T, U, N)                                                                 \
    PWS_SHUFFLE(T, U, N, 2) PWS_SHUFFLE(T, U, N, 4) PWS_SHUFFLE(T, U, N, 8)                    \
    PWS_SHUFFLE(T, U, N, 16)
#define PWS_SHUFFLE_T(T, U)                                                                    \
    PWS_PICK(T) PWS_SHUFFLE_N(T, U, 2) PWS_SHUFFLE_N(T, U, 4) PWS_SHUFFLE_N(T, U, 8) PWS_SHUFFLE_N(T, U, 16)
PWS_SHUFFLE_T(char, uchar) PWS_SHUFFLE_T(uchar, uchar) PWS_SHUFFLE_T(short, ushort)
PWS_SHUFFLE_T(ushort, ushort) PWS_SHUFFLE_T(int, uint) PWS_SHUFFLE_T(uint, uint)
PWS_SHUFFLE_T(long, ulong) PWS_SHUFFLE_T(ulong, ulong) PWS_SHUFFLE_T(float, uint)
#undef PWS_SHUFFLE_T
#undef PWS_SHUFFLE_N
#undef PWS_SHUFFLE
#undef PWS_PICK

/* ---- Atomic functions (OpenCL 1.2 atomic_* and the 1.0 atom_* names) ---------------------- */
/* Relaxed read-modify-writes on 32-bit words of global and local memory: clang lowers them to
 * flat_atomic_* (global) and ds_* (local) instructions. Each returns the old value. */
#define PWS_ATOMIC_RMW(AS, T)                                                                  \
    PWS_OVERLOAD T atomic_add(volatile AS T *p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); } \
    PWS_OVERLOAD T atomic_sub(volatile AS T *p, T v) { return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED); } \
    PWS_OVERLOAD T atomic_inc(volatile AS T *p) { return __atomic_fetch_add(p, (T)1, __ATOMIC_RELAXED); } \
    PWS_OVERLOAD T atomic_dec(volatile AS T *p) { return __atomic_fetch_sub(p, (T)1, __ATOMIC_RELAXED); } \
    PWS_OVERLOAD T atomic_min(volatile AS T *p, T v) { return __atomic_fetch_min(p, v, __ATOMIC_RELAXED); } \
    PWS_OVERLOAD T atomic_max(volatile AS T *p, T v) { return __atomic_fetch_max(p, v, __ATOMIC_RELAXED); } \
    PWS_OVERLOAD T atomic_and(volatile AS T *p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_RELAXED); } \
    PWS_OVERLOAD T atomic_or(volatile AS T *p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_RELAXED); } \
    PWS_OVERLOAD T atomic_xor(volatile AS T *p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_RELAXED); } \
    PWS_OVERLOAD T atomic_xchg(volatile AS T *p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_RELAXED); } \
    PWS_OVERLOAD T atomic_cmpxchg(volatile AS T *p, T cmp, T v)                                \
    {                                                                                          \
        __atomic_compare_exchange_n(p, &cmp, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);        \
        return cmp;                                                                            \
    }                                                                                          \
    PWS_OVERLOAD T atom_add(volatile AS T *p, T v) { return atomic_add(p, v); }                \
    PWS_OVERLOAD T atom_sub(volatile AS T *p, T v) { return atomic_sub(p, v); }                \
    PWS_OVERLOAD T atom_inc(volatile AS T *p) { return atomic_inc(p); }                        \
    PWS_OVERLOAD T atom_dec(volatile AS T *p) { return atomic_dec(p); }                        \
    PWS_OVERLOAD T atom_min(volatile AS T *p, T v) { return atomic_min(p, v); }                \
    PWS_OVERLOAD T atom_max(volatile AS T *p, T v) { return atomic_max(p, v); }                \
    PWS_OVERLOAD T atom_and(volatile AS T *p, T v) { return atomic_and(p, v); }                \
    PWS_OVERLOAD T atom_or(volatile AS T *p, T v) { return atomic_or(p, v); }                  \
    PWS_OVERLOAD T atom_xor(volatile AS T *p, T v) { return atomic_xor(p, v); }                \
    PWS_OVERLOAD T atom_xchg(volatile AS T *p, T v) { return atomic_xchg(p, v); }              \
    PWS_OVERLOAD T atom_cmpxchg(volatile AS T *p, T cmp, T v) { return atomic_cmpxchg(p, cmp, v); }
PWS_ATOMIC_RMW(__global, int)
PWS_ATOMIC_RMW(__global, uint)
PWS_ATOMIC_RMW(__local, int)
PWS_ATOMIC_RMW(__local, uint)
PWS_OVERLOAD float atomic_xchg(volatile __global float *p, float v)
{
    return __builtin_bit_cast(float, atomic_xchg((volatile __global uint *)p, __builtin_bit_cast(uint, v)));
}
PWS_OVERLOAD float atomic_xchg(volatile __local float *p, float v)
{
    return __builtin_bit_cast(float, atomic_xchg((volatile __local uint *)p, __builtin_bit_cast(uint, v)));
}
#undef PWS_ATOMIC_RMW
/* 64-bit atomics (cl_khr_int64_base_atomics, cl_khr_int64_extended_atomics): the LSU and the
 * LDS run 32-bit read-modify-writes only. Declared unavailable so that a call says so, rather
 * than clang reporting an ambiguous call among the 32-bit overloads. */
#define PWS_NO_ATOMIC64 \
    __attribute__((overloadable, unavailable("pws runs 32-bit atomics only (int, uint; atomic_xchg on float); keep the counter in an int or uint, or combine partial results without atomics")))
#define PWS_ATOMIC64_AS(AS, T, NAME)                                                           \
    T PWS_NO_ATOMIC64 NAME##add(volatile AS T *p, T v);                                        \
    T PWS_NO_ATOMIC64 NAME##sub(volatile AS T *p, T v);                                        \
    T PWS_NO_ATOMIC64 NAME##inc(volatile AS T *p);                                             \
    T PWS_NO_ATOMIC64 NAME##dec(volatile AS T *p);                                             \
    T PWS_NO_ATOMIC64 NAME##min(volatile AS T *p, T v);                                        \
    T PWS_NO_ATOMIC64 NAME##max(volatile AS T *p, T v);                                        \
    T PWS_NO_ATOMIC64 NAME##and(volatile AS T *p, T v);                                        \
    T PWS_NO_ATOMIC64 NAME##or(volatile AS T *p, T v);                                         \
    T PWS_NO_ATOMIC64 NAME##xor(volatile AS T *p, T v);                                        \
    T PWS_NO_ATOMIC64 NAME##xchg(volatile AS T *p, T v);                                       \
    T PWS_NO_ATOMIC64 NAME##cmpxchg(volatile AS T *p, T cmp, T v);
#define PWS_ATOMIC64(AS, T) PWS_ATOMIC64_AS(AS, T, atomic_) PWS_ATOMIC64_AS(AS, T, atom_)
PWS_ATOMIC64(__global, long)
PWS_ATOMIC64(__global, ulong)
PWS_ATOMIC64(__local, long)
PWS_ATOMIC64(__local, ulong)
#undef PWS_ATOMIC64
#undef PWS_ATOMIC64_AS
#undef PWS_NO_ATOMIC64

#undef PWS_OVERLOAD
#undef PWS_PURE
#endif /* PWS_H */
