// A hotspot-like 2-D stencil on a w x h grid (a 2-D launch): each cell moves towards the
// mean of its neighbours; cells on the border use their own temperature for the missing ones.
__kernel void hotspot(__global const int *temp, __global const int *power,
                      __global int *out, int w, int h) {
  int x = get_global_id(0), y = get_global_id(1);
  if (x >= w || y >= h)
    return;
  int i = y * w + x;
  int c = temp[i];
  int n = y > 0 ? temp[i - w] : c;
  int s = y < h - 1 ? temp[i + w] : c;
  int e = x < w - 1 ? temp[i + 1] : c;
  int wv = x > 0 ? temp[i - 1] : c;
  out[i] = c + ((n + s + e + wv - 4 * c) >> 3) + power[i];
}
