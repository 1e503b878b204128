// Escape-time Mandelbrot in 8.8 fixed point on a 2-D launch: the points near the set iterate
// longest, so the wavefront's lanes leave the loop at very different iterations.
#define MAXIT 48
__kernel void mandelbrot(__global int *out, int w) {
  int px = get_global_id(0), py = get_global_id(1);
  int cx = (px * 768 >> 4) - 512;   // [-2, 1) over 16 columns
  int cy = (py * 512 >> 3) - 256;   // [-1, 1) over 8 rows
  int x = 0, y = 0, k = 0;
  while (k < MAXIT && x * x + y * y < (4 << 16)) {
    PWS_LOOP_BOUND(MAXIT);
    int xt = ((x * x - y * y) >> 8) + cx;
    y = ((2 * x * y) >> 8) + cy;
    x = xt;
    k++;
  }
  out[py * w + px] = k;
}
