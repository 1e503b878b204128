// Rodinia srad, kernel 1: the directional derivatives of the image J and its diffusion
// coefficient c (speckle-reducing anisotropic diffusion). J is staged per 8 x 8 tile in
// __local memory; neighbours at the image's edge repeat the cell.
#define BS 8

__kernel void srad_cuda_1(__global const float *J, __global float *C, __global float *dN,
                          __global float *dS, __global float *dW, __global float *dE,
                          int cols, int rows, float q0sqr) {
  __local float tile[BS][BS];
  int tx = get_local_id(0), ty = get_local_id(1);
  int x = get_global_id(0), y = get_global_id(1);
  int k = y * cols + x;
  tile[ty][tx] = J[k];
  barrier(CLK_LOCAL_MEM_FENCE);

  float jc = tile[ty][tx];
  float jn = ty > 0 ? tile[ty - 1][tx] : J[(y > 0 ? y - 1 : 0) * cols + x];
  float js = ty < BS - 1 ? tile[ty + 1][tx] : J[(y < rows - 1 ? y + 1 : y) * cols + x];
  float jw = tx > 0 ? tile[ty][tx - 1] : J[y * cols + (x > 0 ? x - 1 : 0)];
  float je = tx < BS - 1 ? tile[ty][tx + 1] : J[y * cols + (x < cols - 1 ? x + 1 : x)];
  float n = jn - jc, s = js - jc, w = jw - jc, e = je - jc;

  float g2 = (n * n + s * s + w * w + e * e) / (jc * jc);
  float l = (n + s + w + e) / jc;
  float num = (0.5f * g2) - ((1.0f / 16.0f) * (l * l));
  float den = 1.0f + (0.25f * l);
  float qsqr = num / (den * den);
  den = (qsqr - q0sqr) / (q0sqr * (1.0f + q0sqr));
  float c = 1.0f / (1.0f + den);
  if (c < 0.0f)
    c = 0.0f;
  else if (c > 1.0f)
    c = 1.0f;
  dN[k] = n;
  dS[k] = s;
  dW[k] = w;
  dE[k] = e;
  C[k] = c;
}
