// Rodinia pathfinder (dynproc): each workgroup advances a 64-column block `iteration` rows at a
// time in __local memory (a pyramid: the block loses one valid column on each side per row), so
// a launch moves the whole frontier `iteration` rows down.
#define BLOCK 64
#define HALO 1
#define IN_RANGE(x, min, max) ((x) >= (min) && (x) <= (max))

__kernel void dynproc_kernel(int iteration, __global const int *gpuWall,
                             __global const int *gpuSrc, __global int *gpuResults, int cols,
                             int rows, int startStep, int border) {
  __local int prev[BLOCK];
  __local int result[BLOCK];
  int bx = get_group_id(0);
  int tx = get_local_id(0);
  int small_block_cols = BLOCK - (iteration * HALO * 2);
  int blkX = (small_block_cols * bx) - border;
  int blkXmax = blkX + BLOCK - 1;
  int xidx = blkX + tx;
  int validXmin = (blkX < 0) ? -blkX : 0;
  int validXmax = (blkXmax > cols - 1) ? BLOCK - 1 - (blkXmax - cols + 1) : BLOCK - 1;
  int W = tx - 1;
  int E = tx + 1;
  W = (W < validXmin) ? validXmin : W;
  E = (E > validXmax) ? validXmax : E;
  bool isValid = IN_RANGE(tx, validXmin, validXmax);

  if (IN_RANGE(xidx, 0, cols - 1))
    prev[tx] = gpuSrc[xidx];
  barrier(CLK_LOCAL_MEM_FENCE);

  bool computed = false;
  for (int i = 0; i < iteration; i++) {
    PWS_LOOP_BOUND(4);
    computed = false;
    if (IN_RANGE(tx, i + 1, BLOCK - i - 2) && isValid) {
      computed = true;
      int left = prev[W];
      int up = prev[tx];
      int right = prev[E];
      int shortest = min(left, up);
      shortest = min(shortest, right);
      int index = cols * (startStep + i) + xidx;
      result[tx] = shortest + gpuWall[index];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i == iteration - 1)
      break;
    if (computed)
      prev[tx] = result[tx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (computed)
    gpuResults[xidx] = result[tx];
}
