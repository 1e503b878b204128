// Rodinia bfs, kernel 1, with atomics: every frontier node offers cost + 1 to its unvisited
// neighbours (atomic_min: the result does not depend on the order of the offers) and counts
// the offers in `changed` (atomic_inc), which the host tests to stop iterating.
__kernel void bfs_kernel(__global const int *row, __global const int *col, __global int *mask,
                         __global int *updating, __global const int *visited,
                         __global int *cost, __global int *changed, int n) {
  int tid = get_global_id(0);
  if (tid < n && mask[tid]) {
    mask[tid] = 0;
    for (int i = row[tid]; i < row[tid + 1]; i++) {
      PWS_LOOP_BOUND(8);
      int id = col[i];
      if (!visited[id]) {
        atomic_min(&cost[id], cost[tid] + 1);
        updating[id] = 1;
        atomic_inc(changed);
      }
    }
  }
}

// Rodinia bfs, kernel 2: the nodes kernel 1 reached join the next frontier and count as
// visited, and `over` tells the host to run another pass (kernels/rodinia/bfs_full.toml).
__kernel void bfs_update(__global int *mask, __global int *updating, __global int *visited,
                         __global int *over, int n) {
  int tid = get_global_id(0);
  if (tid < n && updating[tid]) {
    mask[tid] = 1;
    visited[tid] = 1;
    updating[tid] = 0;
    *over = 1;
  }
}
