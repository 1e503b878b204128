// The synthetic benchmark's shape: if/else nested six deep, each level decided by one bit of
// the input, so 64 work-items take 64 different paths.
__kernel void nested6(__global const int *in, __global int *out) {
  int i = get_global_id(0);
  int v = in[i], r = v;
  PWS_SPLIT();
  if (v & 1) {
    r = r * 3 + 1;
    if (v & 2) {
      r ^= r << 2;
      if (v & 4) {
        r += 0x55;
        if (v & 8) {
          r = r * 5 - 7;
          if (v & 16) {
            r ^= 0x3c3c;
            if (v & 32) r += 11; else r -= 13;
          } else r = r * 7;
        } else r -= v << 3;
      } else r = ~r;
    } else r = r * 9 + v;
  } else {
    r = r * 11 - v;
    if (v & 2) r ^= 0x77; else r += 0x99;
  }
  out[i] = r;
}
