// Rodinia hotspot, one time step: each 8 x 8 tile of the chip's temperature is staged in
// __local memory; a cell's new temperature follows from its power, its four neighbours (from
// the tile, or from global memory at the tile's edge; the chip's edge repeats the cell) and the
// ambient temperature, through the thermal resistances Rx, Ry, Rz.
#define BS 8

__kernel void hotspot(__global const float *power, __global const float *temp_src,
                      __global float *temp_dst, int cols, int rows, float cap, float rx,
                      float ry, float rz, float step) {
  __local float temp_on[BS][BS];
  __local float power_on[BS][BS];
  int tx = get_local_id(0), ty = get_local_id(1);
  int x = get_global_id(0), y = get_global_id(1);
  int i = y * cols + x;
  float amb_temp = 80.0f;
  float step_div_cap = step / cap;
  float rx_1 = 1.0f / rx, ry_1 = 1.0f / ry, rz_1 = 1.0f / rz;

  temp_on[ty][tx] = temp_src[i];
  power_on[ty][tx] = power[i];
  barrier(CLK_LOCAL_MEM_FENCE);

  float c = temp_on[ty][tx];
  float n = ty > 0 ? temp_on[ty - 1][tx] : (y > 0 ? temp_src[i - cols] : c);
  float s = ty < BS - 1 ? temp_on[ty + 1][tx] : (y < rows - 1 ? temp_src[i + cols] : c);
  float w = tx > 0 ? temp_on[ty][tx - 1] : (x > 0 ? temp_src[i - 1] : c);
  float e = tx < BS - 1 ? temp_on[ty][tx + 1] : (x < cols - 1 ? temp_src[i + 1] : c);
  temp_dst[i] = c + step_div_cap * (power_on[ty][tx] + (s + n - 2.0f * c) * ry_1 +
                                    (e + w - 2.0f * c) * rx_1 + (amb_temp - c) * rz_1);
}
