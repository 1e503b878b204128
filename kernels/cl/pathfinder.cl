// Rodinia pathfinder, one row: the cheapest of the three cells above plus this cell's wall.
__kernel void pathfinder(__global const int *wall, __global const int *prev,
                         __global int *next, int cols) {
  int x = get_global_id(0);
  if (x >= cols)
    return;
  int best = prev[x];
  if (x > 0 && prev[x - 1] < best)
    best = prev[x - 1];
  if (x < cols - 1 && prev[x + 1] < best)
    best = prev[x + 1];
  next[x] = best + wall[x];
}
