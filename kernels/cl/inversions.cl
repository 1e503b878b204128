// Inversions in a sliding window: work-item g counts the pairs i < j of the n values from
// v[g] on that are out of order. The pair loops form a triangle (`for (j = i + 1; j < n;
// j++)` runs n - 1 - i times), which clang-14 guards with `if (i + 1 < n)`: no
// PWS_LOOP_BOUND, the analysis bounds both loops from n and charges the inner one its
// trips averaged over the outer iterations that enter it (docs/wcet.md, "Loop bounds").
__kernel void inversions(__global const int *v, __global int *count, int n, int len) {
  int g = get_global_id(0);
  if (g >= len)
    return;
  int c = 0;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      c += v[g + i] > v[g + j];
  count[g] = c;
}
