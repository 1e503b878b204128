// The PWS paper's Figure 2 kernel with its three split points; out = {-15, 1025, 1090, 1204}
// for A = {17, 29, 52, 80} (kernels/figure2.s is its hand-scheduled assembly).
__kernel void figure2(__global const int *A, __global int *out) {
  int idx = get_global_id(0);
  int x = A[idx], r = idx;                           // BB1
  PWS_SPLIT();
  if (x > 25) {
    r += x;                                          // BB2
    PWS_SPLIT();
    if (x > 75) r *= 3;                              // BB3
    else        r -= 7;                              // BB4
    r += 1000;                                       // BB5
  } else {
    r -= x;                                          // BB6
  }
  PWS_SPLIT();
  if (x > 50) r ^= 0x55;                             // BB8
  else        r += 2;                                // BB9
  out[idx] = r;                                      // BB10
}
