// A b+tree-like lookup: binary search of each key in a sorted array, leaving the loop early
// when the key is found (a divergent loop with two exits).
__kernel void bsearch(__global const int *sorted, __global const int *keys,
                      __global int *found, int n) {
  int i = get_global_id(0);
  int key = keys[i];
  int lo = 0, hi = n, at = -1;
  while (lo < hi) {
    PWS_LOOP_BOUND(8);
    int mid = (lo + hi) >> 1;
    int v = sorted[mid];
    if (v == key) {
      at = mid;
      break;
    }
    if (v < key) lo = mid + 1;
    else hi = mid;
  }
  found[i] = at;
}
