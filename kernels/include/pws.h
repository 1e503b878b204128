/* pws.h: what an OpenCL C kernel needs to run on pws without a device library.
 *
 * pws compiles `kernel = "k.cl"` with
 *   clang-14 -x cl -cl-std=CL1.2 -target amdgcn-amd-amdhsa -mcpu=fiji -nogpulib -include pws.h
 * so kernels written for any OpenCL device compile as they are (docs/opencl.md).
 *
 * PWS annotations. They become assembly comments (`; pws: ...`) through inline asm, which the
 * pws compiler pass and WCET analysis read:
 *   PWS_SPLIT();          right before an if/else: split it (PWS mode), if it can split safely;
 *   PWS_LOOP_BOUND(N);    anywhere in a loop body: the loop runs at most N iterations per entry.
 */
#ifndef PWS_H
#define PWS_H

#define PWS_STR_(x) #x
#define PWS_STR(x) PWS_STR_(x)
#define PWS_SPLIT() __asm__ volatile("; pws: split")
#define PWS_LOOP_BOUND(n) __asm__ volatile("; pws: loop_bound " PWS_STR(n))

#endif /* PWS_H */
