// Rodinia nw (Needleman-Wunsch), kernel 1 for block anti-diagonal `blk`: each 16 x 16 block of
// the score matrix is filled in __local memory, one cell anti-diagonal per barrier, from its
// north and west borders and the substitution scores.
#define BS 16

static int maximum(int a, int b, int c) {
  int k = a <= b ? b : a;
  return k <= c ? c : k;
}

__kernel void nw_kernel1(__global const int *reference, __global int *input_itemsets, int cols,
                         int penalty, int blk) {
  __local int temp[BS + 1][BS + 1];
  __local int ref[BS][BS];
  int bx = get_group_id(0);
  int tx = get_local_id(0);
  int b_index_x = bx;
  int b_index_y = blk - 1 - bx;
  int index = cols * BS * b_index_y + BS * b_index_x + tx + (cols + 1);
  int index_n = cols * BS * b_index_y + BS * b_index_x + tx + 1;
  int index_w = cols * BS * b_index_y + BS * b_index_x + cols;
  int index_nw = cols * BS * b_index_y + BS * b_index_x;

  if (tx == 0)
    temp[tx][0] = input_itemsets[index_nw];
  for (int ty = 0; ty < BS; ty++)
    ref[ty][tx] = reference[index + cols * ty];
  barrier(CLK_LOCAL_MEM_FENCE);
  temp[tx + 1][0] = input_itemsets[index_w + cols * tx];
  barrier(CLK_LOCAL_MEM_FENCE);
  temp[0][tx + 1] = input_itemsets[index_n];
  barrier(CLK_LOCAL_MEM_FENCE);

  for (int m = 0; m < BS; m++) {
    if (tx <= m) {
      int x = tx + 1;
      int y = m - tx + 1;
      temp[y][x] = maximum(temp[y - 1][x - 1] + ref[y - 1][x - 1], temp[y][x - 1] - penalty,
                           temp[y - 1][x] - penalty);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (int m = BS - 2; m >= 0; m--) {
    if (tx <= m) {
      int x = tx + BS - m;
      int y = BS - tx;
      temp[y][x] = maximum(temp[y - 1][x - 1] + ref[y - 1][x - 1], temp[y][x - 1] - penalty,
                           temp[y - 1][x] - penalty);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (int ty = 0; ty < BS; ty++)
    input_itemsets[index + ty * cols] = temp[ty + 1][tx + 1];
}
