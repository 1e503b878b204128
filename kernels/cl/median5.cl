// 5x5 median filter (image denoising): each work-item insertion-sorts its 25-pixel window in a
// private array indexed at run time, which clang keeps in private memory (buffer_load and
// buffer_store through the dispatcher's scratch resource). Edge pixels clamp to the image.
__kernel void median(__global const int *in, __global int *out, int w, int h) {
  int gid = get_global_id(0);
  if (gid >= w * h) return;
  int x = gid % w, y = gid / w;
  int win[25];
  int n = 0;
  for (int dy = -2; dy <= 2; dy++) {
    for (int dx = -2; dx <= 2; dx++) {
      int xx = clamp(x + dx, 0, w - 1), yy = clamp(y + dy, 0, h - 1);
      int v = in[yy * w + xx];
      // Insertion: shift the larger values up.
      int j = n;
      while (j > 0 && win[j - 1] > v) {
        win[j] = win[j - 1];
        j--;
      }
      win[j] = v;
      n++;
    }
  }
  out[gid] = win[12];
}
