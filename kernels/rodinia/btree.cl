// Rodinia b+tree, findK: one workgroup per query walks a B+ tree of order ORDER from the root,
// one level per iteration: the work-item whose key range holds the query moves the query's
// offset to its child, and work-item 0 makes that child the current node; at the leaf, the
// work-item whose key equals the query fetches its record. Rodinia's `knode` structs are
// flattened: node n's keys and indices are keys[n * (ORDER + 1) + j], indices[...], with
// unused keys INT_MAX.
#define ORDER 64

__kernel void findK(int height, __global const int *keys, __global const int *indices,
                    int knodes_elem, __global const int *records, __global int *currKnode,
                    __global int *offset, __global const int *query, __global int *ans) {
  int thid = get_local_id(0);
  int bid = get_group_id(0);
  for (int i = 0; i < height; i++) {
    PWS_LOOP_BOUND(3);
    int node = currKnode[bid] * (ORDER + 1);
    if (keys[node + thid] <= query[bid] && keys[node + thid + 1] > query[bid]) {
      int child = indices[offset[bid] * (ORDER + 1) + thid];
      if (child < knodes_elem)
        offset[bid] = child;
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    if (thid == 0)
      currKnode[bid] = offset[bid];
    barrier(CLK_GLOBAL_MEM_FENCE);
  }
  int leaf = currKnode[bid] * (ORDER + 1);
  if (keys[leaf + thid] == query[bid])
    ans[bid] = records[indices[leaf + thid]];
}
