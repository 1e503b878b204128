// Needleman-Wunsch, one anti-diagonal: each cell is the best of a match/mismatch from the
// north-west neighbour and a gap from the north or west one.
__kernel void nw_diagonal(__global const int *nw, __global const int *up,
                          __global const int *left, __global const int *sim,
                          __global int *out, int penalty, int n) {
  int i = get_global_id(0);
  if (i < n) {
    int a = nw[i] + sim[i];
    int b = up[i] - penalty;
    int c = left[i] - penalty;
    out[i] = max(a, max(b, c));
  }
}
