// kmeans assignment: every point takes the nearest of k centroids (squared distance, ties to
// the lower index), as Rodinia's kmeans kernel does in float.
__kernel void kmeans_assign(__global const int *points, __global const int *centroids,
                            __global int *membership, int npoints, int k, int dim) {
  int p = get_global_id(0);
  if (p >= npoints)
    return;
  int best = 0, bestd = 0x7fffffff;
  for (int c = 0; c < k; c++) {
    PWS_LOOP_BOUND(8);
    int d = 0;
    for (int j = 0; j < dim; j++) {
      PWS_LOOP_BOUND(4);
      int t = points[p * dim + j] - centroids[c * dim + j];
      d += t * t;
    }
    if (d < bestd) {
      bestd = d;
      best = c;
    }
  }
  membership[p] = best;
}
