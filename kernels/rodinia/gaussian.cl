// Rodinia gaussian elimination, step t: Fan1 computes the multipliers of column t, Fan2
// subtracts the multiple of row t from every row below it (2-D) and from the right-hand side.
__kernel void Fan1(__global float *m, __global const float *a, __global const float *b,
                   int size, int t) {
  int gid = get_global_id(0);
  if (gid < size - 1 - t)
    m[size * (gid + t + 1) + t] = a[size * (gid + t + 1) + t] / a[size * t + t];
}

__kernel void Fan2(__global const float *m, __global float *a, __global float *b, int size,
                   int t) {
  int gx = get_global_id(0);
  int gy = get_global_id(1);
  if (gx >= size - 1 - t || gy >= size - t)
    return;
  a[size * (gx + 1 + t) + (gy + t)] -= m[size * (gx + 1 + t) + t] * a[size * t + (gy + t)];
  if (gy == 0)
    b[gx + 1 + t] -= m[size * (gx + 1 + t) + (gy + t)] * b[t];
}
