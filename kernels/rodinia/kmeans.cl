// Rodinia kmeans, kernel c: every point joins the nearest cluster (squared Euclidean distance
// over the features, stored feature-major as Rodinia swaps them; the first of equal ones wins).
__kernel void kmeans_kernel_c(__global const float *feature, __global const float *clusters,
                              __global int *membership, int npoints, int nclusters,
                              int nfeatures) {
  unsigned int point_id = get_global_id(0);
  if (point_id >= npoints)
    return;
  int index = 0;
  float min_dist = 3.402823466e+38f;
  for (int i = 0; i < nclusters; i++) {
    PWS_LOOP_BOUND(5);
    float dist = 0.0f;
    for (int l = 0; l < nfeatures; l++) {
      PWS_LOOP_BOUND(4);
      float d = feature[l * npoints + point_id] - clusters[i * nfeatures + l];
      dist += d * d;
    }
    if (dist < min_dist) {
      min_dist = dist;
      index = i;
    }
  }
  membership[point_id] = index;
}
