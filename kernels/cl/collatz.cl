// Collatz steps until 1, at most 64: a loop whose trip count depends on the lane's data.
__kernel void collatz(__global const unsigned *in, __global unsigned *out, unsigned n) {
  unsigned i = get_global_id(0);
  if (i < n) {
    unsigned x = in[i], s = 0;
    while (x > 1 && s < 64) {
      PWS_LOOP_BOUND(64);
      x = (x & 1) ? 3 * x + 1 : x >> 1;
      s++;
    }
    out[i] = s;
  }
}
