// Every kind of kernel argument OpenCL C has besides images: scalars of 1, 2, 4 and 8 bytes,
// vectors (a float3 takes a float4's room), a struct by value, a __local and a __constant
// pointer. clang places each at its own alignment in the kernarg segment; pws reads where
// from the kernel's metadata, as a runtime does.

typedef struct {
  int a;
  float b;
  short c;
} Params;

__kernel void kargs(__global int *out, char c, uchar uc, short s, ushort us, long l, ulong ul,
                    float f, int2 i2, float3 f3, uchar4 u4, Params p, __local int *scratch,
                    __constant int *table, int n) {
  int i = get_global_id(0);
  int lid = get_local_id(0);
  scratch[lid] = table[i % 4] * i;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (i >= n)
    return;
  __global int *o = out + 16 * i;
  o[0] = c * (i + 1);
  o[1] = uc + i;
  o[2] = s * 2 - i;
  o[3] = us + i;
  o[4] = (int)(l >> 33) + i;
  o[5] = (int)l;
  o[6] = (int)(ul >> 40);
  o[7] = (int)(f * (float)(i + 1));
  o[8] = i2.x * i + i2.y;
  o[9] = (int)(f3.x + f3.y * f3.z) + i;
  o[10] = u4.x + u4.y * 256 + u4.z * 65536 + u4.w * 16777216;
  o[11] = p.a + i;
  o[12] = (int)(p.b * 4.0f) + i;
  o[13] = p.c - i;
  o[14] = scratch[(lid + 1) % get_local_size(0)];
  o[15] = table[i % 4];
}
