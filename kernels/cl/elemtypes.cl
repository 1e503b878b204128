// Buffers of bytes, shorts, longs and halves, as image, audio and counter kernels take them:
// each buffer's `type` in the manifest packs its elements into memory's 32-bit words the way
// the kernel's pointer addresses them.

__kernel void elemtypes(__global const uchar *px, __global ushort *wide, __global const long *big,
                 __global long *sum, __global const half *h, __global float *hf,
                 __global half *hout, __global short *neg, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  wide[i] = px[i] * 257;
  sum[i] = big[i] + big[n - 1 - i] * 3;
  float f = vload_half(i, h);
  hf[i] = f * 2.0f;
  vstore_half(f + 0.5f, i, hout);
  neg[i] = -(short)px[i];
}
