// A 16-bin histogram of bytes (as in Rodinia's hybridsort bucketing and the AMD SDK): each
// workgroup counts its items with __local atomics, then adds its bins to the global ones with
// global atomics.
#define BINS 16

__kernel void histogram(__global const uint *data, __global uint *bins, int n) {
  __local uint local_bins[BINS];
  int lid = get_local_id(0);
  int gid = get_global_id(0);
  if (lid < BINS)
    local_bins[lid] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (gid < n)
    atomic_inc(&local_bins[data[gid] % BINS]);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid < BINS)
    atomic_add(&bins[lid], local_bins[lid]);
}
