// y = a * x + y over n elements (integer saxpy).
__kernel void saxpy(__global const int *x, __global int *y, int a, int n) {
  int i = get_global_id(0);
  if (i < n)
    y[i] = a * x[i] + y[i];
}
