// One compare-exchange step (j, k) of a bitonic sort.
__kernel void bitonic_step(__global int *a, int j, int k) {
  int i = get_global_id(0);
  int ixj = i ^ j;
  if (ixj > i) {
    int x = a[i], y = a[ixj];
    if ((i & k) == 0) {
      if (x > y) { a[i] = y; a[ixj] = x; }
    } else {
      if (x < y) { a[i] = y; a[ixj] = x; }
    }
  }
}
