// Integer division and remainder as users write them: 32-bit signed and unsigned `/` and `%`
// by divisors that vary per work-item, 64-bit signed ones, and a digit sum in a per-item base
// (a loop of `%` and `/` whose trip count the data decide). clang-14 has no divide
// instruction to call on GCN3: it expands each 32-bit division into a float reciprocal
// (`v_rcp_iflag_f32`), `v_mul_hi_u32` and correction steps, and a 64-bit one into a longer
// sequence of the same kind.
__kernel void intdiv(__global const int *a, __global const int *b, __global int *q,
                     __global int *r, __global uint *uq, __global uint *ur,
                     __global const long *wide, __global long *wq, __global int *digits,
                     int n) {
  int i = get_global_id(0);
  if (i < n) {
    int x = a[i], y = b[i];
    q[i] = x / y;
    r[i] = x % y;
    uq[i] = (uint)x / (uint)y;
    ur[i] = (uint)x % (uint)y;
    long w = wide[i];
    wq[i] = w / y + w % (y | 1);
    uint base = (uint)(i % 15) + 2, v = (uint)x;
    int s = 0;
    while (v != 0) {
      PWS_LOOP_BOUND(32);
      s += v % base;
      v /= base;
    }
    digits[i] = s;
  }
}
