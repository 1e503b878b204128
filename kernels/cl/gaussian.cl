// One fraction-free elimination step (pivot row k) of Gaussian elimination on an n x n
// integer matrix, a 2-D launch over rows and columns: rows below the pivot lose their
// column-k entry.
__kernel void gaussian_step(__global const int *a, __global int *out, int n, int k) {
  int c = get_global_id(0), r = get_global_id(1);
  if (r >= n || c >= n)
    return;
  int v = a[r * n + c];
  if (r > k && c >= k)
    v = v * a[k * n + k] - a[r * n + k] * a[k * n + c];
  out[r * n + c] = v;
}
