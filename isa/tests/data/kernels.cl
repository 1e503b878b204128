__kernel void vadd(__global int *a, __global const int *b, int n) {
  int i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
  if (i < n) a[i] = a[i] + b[i] * 3;
  else a[i] = a[i] - (b[i] >> 2);
}
__kernel void loop(__global unsigned *a, unsigned n) {
  unsigned i = __builtin_amdgcn_workitem_id_x();
  unsigned s = 0;
  for (unsigned k = 0; k < (i & 7); k++) s += a[k] ^ k;
  a[i] = s;
}
__kernel void fl(__global float *a) {
  unsigned i = __builtin_amdgcn_workitem_id_x();
  a[i] = a[i] * 2.5f + 1.0f;
}
