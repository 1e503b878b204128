// One step of Rodinia's BFS (kernel 1): every frontier node visits its neighbours.
__kernel void bfs_step(__global const int *row, __global const int *col, __global int *mask,
                       __global int *updating, __global const int *visited,
                       __global int *cost, int n) {
  int tid = get_global_id(0);
  if (tid < n && mask[tid]) {
    mask[tid] = 0;
    for (int i = row[tid]; i < row[tid + 1]; i++) {
      PWS_LOOP_BOUND(8);
      int id = col[i];
      if (!visited[id]) {
        cost[id] = cost[tid] + 1;
        updating[id] = 1;
      }
    }
  }
}
