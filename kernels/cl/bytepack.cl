// Byte and 16-bit half packing of the kind clang-14 compiles to SDWA selects on fiji: bytes
// and halves moved by shifts and masks, the bytes of a uchar4 (as_uchar4), sign-extended
// halves with a saturating narrowing to a byte, and a product of two bytes.
__kernel void bytepack(__global const uint *a, __global const uint *b,
                       __global uint *packed, __global uint *mixed, __global uint *sat,
                       __global uint *prod, int n) {
  int i = get_global_id(0);
  if (i < n) {
    uint x = a[i], y = b[i];
    uchar4 u = as_uchar4(x);
    packed[i] = (uint)u.w | (y & 0xffu) << 24 | (uint)u.y << 8;
    mixed[i] = (x >> 16) | (y & 0xffu) << 24;
    int hi = (int)x >> 16, lo = (short)y;
    sat[i] = (uint)clamp(hi + lo, 0, 255) | (x & 0xffffu) << 16;
    prod[i] = (uint)u.z * ((y >> 8) & 0xffu);
  }
}
