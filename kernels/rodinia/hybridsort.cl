// Rodinia hybridsort: a bucket sort into DIVISIONS buckets (bucketcount, bucketprefixoffset,
// bucketsort) whose float4-aligned buckets are then merge-sorted each on its own
// (mergeSortFirst, mergeSortPass with doubling run lengths, mergepack), all on one list of
// floats (kernels/rodinia/hybridsort.toml runs them in the host's order). DIVISIONS comes from
// the manifest's cflags (Rodinia: 1024) and is at most the 32 work-items of a bucket workgroup,
// so one work-item per bucket clears, fills and writes the workgroup's __local counts.
#define LOG_DIVISIONS __builtin_ctz(DIVISIONS)
#define BUCKET_THREAD_N 32
#if DIVISIONS > BUCKET_THREAD_N || (DIVISIONS & (DIVISIONS - 1))
#error "DIVISIONS must be a power of two of at most BUCKET_THREAD_N"
#endif

// Rodinia numbers an element within its bucket with addOffset, a retry loop that tags the
// __local count with the writer's lane and relies on 32-wide warps running in lockstep (lanes
// 0 and 32 of a 64-wide wavefront carry the same tag); this is the local atomic it emulates,
// as Rodinia's CUDA version has it. Lanes of one wavefront take their tickets in lane order,
// and a workgroup is one wavefront, so the numbering is the same on every run.
__kernel __attribute__((reqd_work_group_size(BUCKET_THREAD_N, 1, 1))) void
bucketcount(__global const float *input, __global int *indice, __global uint *d_prefixoffsets,
            int size, __global const float *l_pivotpoints) {
  __local uint s_offset[DIVISIONS];
  int lid = get_local_id(0);
  int numThreads = get_global_size(0);
  if (lid < DIVISIONS)
    s_offset[lid] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);

  for (int tid = get_global_id(0); tid < size; tid += numThreads) {
    float elem = input[tid];
    // Binary search of the pivots, a fixed number of halvings: the bucket is how many of
    // pivots 0 .. DIVISIONS - 2 are <= elem.
    int idx = DIVISIONS / 2 - 1;
    int jump = DIVISIONS / 4;
    float piv = l_pivotpoints[idx];
    while (jump >= 1) {
      idx = (elem < piv) ? (idx - jump) : (idx + jump);
      piv = l_pivotpoints[idx];
      jump /= 2;
    }
    idx = (elem < piv) ? idx : (idx + 1);
    indice[tid] = (atomic_inc(&s_offset[idx]) << LOG_DIVISIONS) + idx;
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  if (lid < DIVISIONS)
    d_prefixoffsets[get_group_id(0) * DIVISIONS + lid] = s_offset[lid];
}

// Per bucket (one work-item each): the exclusive prefix of its counts over the workgroups of
// bucketcount, in place, and the bucket's size in d_offsets.
__kernel void bucketprefixoffset(__global uint *d_prefixoffsets, __global uint *d_offsets,
                                 int blocks) {
  int tid = get_global_id(0);
  int size = blocks * DIVISIONS;
  int sum = 0;
  for (int i = tid; i < size; i += DIVISIONS) {
    int x = d_prefixoffsets[i];
    d_prefixoffsets[i] = sum;
    sum += x;
  }
  d_offsets[tid] = sum;
}

// Every element to its place: its bucket's float4-aligned start (l_offsets, from the host),
// its workgroup's prefix within the bucket, and its number from bucketcount.
__kernel __attribute__((reqd_work_group_size(BUCKET_THREAD_N, 1, 1))) void
bucketsort(__global const float *input, __global const int *indice, __global float *output,
           int size, __global const uint *d_prefixoffsets, __global const uint *l_offsets) {
  __local uint s_offset[DIVISIONS];
  int lid = get_local_id(0);
  int numThreads = get_global_size(0);
  if (lid < DIVISIONS)
    s_offset[lid] = l_offsets[lid] + d_prefixoffsets[get_group_id(0) * DIVISIONS + lid];
  barrier(CLK_LOCAL_MEM_FENCE);

  for (int tid = get_global_id(0); tid < size; tid += numThreads) {
    float elem = input[tid];
    int id = indice[tid];
    output[s_offset[id & (DIVISIONS - 1)] + (id >> LOG_DIVISIONS)] = elem;
  }
}

// A sorting network on the four lanes of a float4.
float4 sortElem(float4 r) {
  float4 nr;
  nr.x = (r.x > r.y) ? r.y : r.x;
  nr.y = (r.y > r.x) ? r.y : r.x;
  nr.z = (r.z > r.w) ? r.w : r.z;
  nr.w = (r.w > r.z) ? r.w : r.z;

  r.x = (nr.x > nr.z) ? nr.z : nr.x;
  r.y = (nr.y > nr.w) ? nr.w : nr.y;
  r.z = (nr.z > nr.x) ? nr.z : nr.x;
  r.w = (nr.w > nr.y) ? nr.w : nr.y;

  nr.x = r.x;
  nr.y = (r.y > r.z) ? r.z : r.y;
  nr.z = (r.z > r.y) ? r.z : r.y;
  nr.w = r.w;
  return nr;
}

// The four lowest and the four highest of two sorted float4s (a bitonic half-cleaner).
float4 getLowest(float4 a, float4 b) {
  a.x = (a.x < b.w) ? a.x : b.w;
  a.y = (a.y < b.z) ? a.y : b.z;
  a.z = (a.z < b.y) ? a.z : b.y;
  a.w = (a.w < b.x) ? a.w : b.x;
  return a;
}

float4 getHighest(float4 a, float4 b) {
  b.x = (a.w >= b.x) ? a.w : b.x;
  b.y = (a.z >= b.y) ? a.z : b.y;
  b.z = (a.y >= b.z) ? a.y : b.z;
  b.w = (a.x >= b.w) ? a.x : b.w;
  return b;
}

__kernel void mergeSortFirst(__global const float4 *input, __global float4 *result,
                             int listsize) {
  int i = get_global_id(0);
  if (i < listsize / 4)
    result[i] = sortElem(input[i]);
}

// One merge pass: the work-items of a division each merge two sorted runs of nrElems / 2
// float4s (the second cut at the division's end, or missing: then the first is copied), four
// floats per step, taking the next float4 from the run whose head is lower. Rodinia launches
// threadsPerDiv * DIVISIONS work-items in one dimension and divides the global id by
// threadsPerDiv; that quotient lowers to v_rcp_iflag_f32, which pws does not run, so the
// launch is [threadsPerDiv, DIVISIONS] and the division is the second dimension's id.
__kernel void mergeSortPass(__global const float4 *input, __global float4 *result,
                            int nrElems, __global const int *constStartAddr) {
  int int_gid = get_global_id(0);
  int division = get_global_id(1);
  int Astart = constStartAddr[division] + int_gid * nrElems;
  int Bstart = Astart + nrElems / 2;
  __global float4 *resStart = &result[Astart];

  if (Astart >= constStartAddr[division + 1])
    return;
  if (Bstart >= constStartAddr[division + 1]) {
    for (int i = 0; i < constStartAddr[division + 1] - Astart; i++)
      resStart[i] = input[Astart + i];
    return;
  }

  int aidx = 0;
  int bidx = 0;
  int outidx = 0;
  float4 a = input[Astart + aidx];
  float4 b = input[Bstart + bidx];

  while (true) {
    float4 nextA = input[Astart + aidx + 1];
    float4 nextB = input[Bstart + bidx + 1];

    float4 na = getLowest(a, b);
    float4 nb = getHighest(a, b);
    a = sortElem(na);
    b = sortElem(nb);
    resStart[outidx++] = a;

    bool elemsLeftInA = aidx + 1 < nrElems / 2;
    bool elemsLeftInB = (bidx + 1 < nrElems / 2) &&
                        (Bstart + bidx + 1 < constStartAddr[division + 1]);

    if (elemsLeftInA) {
      if (elemsLeftInB) {
        if (nextA.x < nextB.x) {
          aidx += 1;
          a = nextA;
        } else {
          bidx += 1;
          a = nextB;
        }
      } else {
        aidx += 1;
        a = nextA;
      }
    } else {
      if (elemsLeftInB) {
        bidx += 1;
        a = nextB;
      } else {
        break;
      }
    }
  }
  resStart[outidx++] = b;
}

// Each division's sorted floats without the padding at its front (the host's zeros, which
// sort below every element) to the division's place in the unpadded list. The division is
// the second dimension's global id (Rodinia: its group id, in workgroups one division high),
// so that the divisions share wavefronts.
__kernel void mergepack(__global const float *orig, __global float *result,
                        __constant int *constStartAddr, __constant int *nullElems,
                        __constant int *finalStartAddr) {
  int idx = get_global_id(0);
  int division = get_global_id(1);
  if ((finalStartAddr[division] + idx) >= finalStartAddr[division + 1])
    return;
  result[finalStartAddr[division] + idx] =
      orig[constStartAddr[division] * 4 + nullElems[division] + idx];
}
