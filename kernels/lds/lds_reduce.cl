/* Workgroup reduction through __local memory with barriers, local and global atomics: the
 * LDS kernel of issue 11 (golden model; the RTL does not run the LDS yet). Per workgroup of
 * 128 work-items: the sum of its inputs by a tree reduction in LDS, a 16-bin histogram of
 * (v & 15) by ds_add, and 16-bit / 8-bit / 64-bit LDS traffic; over the grid: the total, the
 * maximum and the minimum by flat atomics, and the sum of the tickets ds_add_rtn hands out. */
#define LOCAL 128

__kernel void lds_reduce(__global const int *in, __global int *sums, __global int *hist,
                         __global int *mix, __global int *global_stats)
{
    __local int tile[LOCAL];
    __local int lhist[16];
    __local int ticket;
    __local short halves[LOCAL];
    __local uchar bytes[LOCAL];
    __local long wide[LOCAL];
    int l = get_local_id(0);
    int g = get_global_id(0);
    int wg = get_group_id(0);
    int v = in[g];
    tile[l] = v;
    halves[l] = (short)(v ^ 0x5a5a);
    bytes[l] = (uchar)v;
    wide[l] = (long)v * 100000;
    if (l < 16)
        lhist[l] = 0;
    if (l == 0)
        ticket = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    __atomic_fetch_add(&lhist[v & 15], 1, __ATOMIC_RELAXED);
    int t = __atomic_fetch_add(&ticket, 1, __ATOMIC_RELAXED);
    mix[g] = halves[LOCAL - 1 - l] + bytes[l ^ 1] + (int)(wide[l ^ 2] >> 5) + tile[(l + 1) % LOCAL];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = LOCAL / 2; s > 0; s >>= 1) {
        PWS_LOOP_BOUND(7);
        if (l < s)
            tile[l] += tile[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        sums[wg] = tile[0];
    if (l < 16)
        hist[wg * 16 + l] = lhist[l];
    __atomic_fetch_add(&global_stats[0], v, __ATOMIC_RELAXED);
    __atomic_fetch_max(&global_stats[1], v, __ATOMIC_RELAXED);
    __atomic_fetch_min(&global_stats[2], v, __ATOMIC_RELAXED);
    __atomic_fetch_add(&global_stats[3], t, __ATOMIC_RELAXED);
}
