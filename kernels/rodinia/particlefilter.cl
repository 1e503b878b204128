// Rodinia particlefilter (particle_single.cl), the resampling half of a frame, from the
// weights and per-workgroup partial sums likelihood_kernel leaves: sum_kernel adds the partial
// sums, normalize_weights_kernel normalises the weights, builds their CDF (one work-item, a
// serial loop) and spreads the systematic-resampling points u from one random draw, and
// find_index_kernel has every particle search the CDF for the first entry >= its u (a loop
// whose trip count the data decide) and take that particle's position.
// kernels/rodinia/particlefilter.toml runs the three in the host's order.

__kernel void sum_kernel(__global float *partial_sums, int Nparticles) {
  int i = get_global_id(0);
  size_t THREADS_PER_BLOCK = get_local_size(0);
  if (i == 0) {
    float sum = 0;
    int num_blocks = ceil((float)Nparticles / (float)THREADS_PER_BLOCK);
    for (int x = 0; x < num_blocks; x++)
      sum += partial_sums[x];
    partial_sums[0] = sum;
  }
}

void cdfCalc(__global float *CDF, __global float *weights, int Nparticles) {
  CDF[0] = weights[0];
  for (int x = 1; x < Nparticles; x++)
    CDF[x] = weights[x] + CDF[x - 1];
}

// A uniform draw in [0, 1) from the particle's linear congruential generator (wrapping int
// arithmetic, as the GPU does).
float d_randu(__global int *seed, int index) {
  int M = INT_MAX;
  int A = 1103515245;
  int C = 12345;
  int num = A * seed[index] + C;
  seed[index] = num % M;
  return fabs(seed[index] / ((float)M));
}

// Launched as one workgroup of all the particles: its barriers then order work-item 0's CDF
// after every weight's normalisation and every u after u[0]. (Rodinia launches several
// workgroups, whose barriers do not order them against each other.)
__kernel void normalize_weights_kernel(__global float *weights, int Nparticles,
                                       __global float *partial_sums, __global float *CDF,
                                       __global float *u, __global int *seed) {
  int i = get_global_id(0);
  int local_id = get_local_id(0);
  __local float u1;
  __local float sumWeights;

  if (0 == local_id)
    sumWeights = partial_sums[0];
  barrier(CLK_LOCAL_MEM_FENCE);

  if (i < Nparticles)
    weights[i] = weights[i] / sumWeights;
  barrier(CLK_GLOBAL_MEM_FENCE);

  // Rodinia multiplies the draw by 1 / (float)Nparticles, which clang lowers to
  // v_rcp_iflag_f32 (pws does not run it); the quotient goes through v_rcp_f32 and is the
  // same number when Nparticles is a power of two, as the manifests' are.
  if (i == 0) {
    cdfCalc(CDF, weights, Nparticles);
    u[0] = d_randu(seed, i) / ((float)(Nparticles));
  }
  barrier(CLK_GLOBAL_MEM_FENCE);

  if (0 == local_id)
    u1 = u[0];
  barrier(CLK_LOCAL_MEM_FENCE);

  if (i < Nparticles)
    u[i] = u1 + i / ((float)(Nparticles));
}

__kernel void find_index_kernel(__global const float *arrayX, __global const float *arrayY,
                                __global const float *CDF, __global const float *u,
                                __global float *xj, __global float *yj, int Nparticles) {
  int i = get_global_id(0);
  if (i < Nparticles) {
    int index = -1;
    for (int x = 0; x < Nparticles; x++) {
      if (CDF[x] >= u[i]) {
        index = x;
        break;
      }
    }
    if (index == -1)
      index = Nparticles - 1;
    xj[i] = arrayX[index];
    yj[i] = arrayY[index];
  }
}
