// One step (distance d) of a Hillis-Steele inclusive scan.
__kernel void scan_step(__global const int *in, __global int *out, int d, int n) {
  int i = get_global_id(0);
  if (i < n)
    out[i] = i >= d ? in[i] + in[i - d] : in[i];
}
