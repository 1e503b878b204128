// Rodinia nn: squared distance of every record to the target; records inside the radius
// also get their bearing quadrant.
__kernel void nn(__global const int *lat, __global const int *lng, __global int *dist,
                 __global int *quadrant, int tlat, int tlng, int radius2, int n) {
  int i = get_global_id(0);
  if (i >= n)
    return;
  int dy = lat[i] - tlat, dx = lng[i] - tlng;
  int d = dx * dx + dy * dy;
  dist[i] = d;
  if (d <= radius2)
    quadrant[i] = (dy >= 0 ? 0 : 2) + ((dx >= 0) != (dy >= 0));
  else
    quadrant[i] = -1;
}
