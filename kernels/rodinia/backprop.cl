// Rodinia backprop, bpnn_layerforward: one 16 x 16 block of the input-to-hidden weights is
// scaled by its input node and reduced down the columns in __local memory (a tree of
// barriers); the column sums are the block's partial sums of the hidden layer.
#define HEIGHT 16
#define WIDTH 16

__kernel void bpnn_layerforward(__global const float *input, __global float *weights,
                                __global float *partial_sum, int hid) {
  __local float input_node[HEIGHT];
  __local float weight_matrix[HEIGHT][WIDTH];
  int by = get_group_id(1);
  int tx = get_local_id(0);
  int ty = get_local_id(1);
  int index = (hid + 1) * HEIGHT * by + (hid + 1) * ty + tx + 1 + (hid + 1);
  int index_in = HEIGHT * by + ty + 1;

  if (tx == 0)
    input_node[ty] = input[index_in];
  barrier(CLK_LOCAL_MEM_FENCE);
  weight_matrix[ty][tx] = weights[index];
  barrier(CLK_LOCAL_MEM_FENCE);
  weight_matrix[ty][tx] = weight_matrix[ty][tx] * input_node[ty];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int i = 1; i <= 4; i++) {
    int power_two = 1 << i;
    if (ty % power_two == 0)
      weight_matrix[ty][tx] = weight_matrix[ty][tx] + weight_matrix[ty + power_two / 2][tx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  weights[index] = weight_matrix[ty][tx];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (tx == 0)
    partial_sum[by * hid + ty] = weight_matrix[tx][ty];
}
