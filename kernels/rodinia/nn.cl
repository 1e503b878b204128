// Rodinia nn: the Euclidean distance of every record's (lat, lng) from the query point.
typedef struct {
  float x, y;
} latLong;

__kernel void NearestNeighbor(__global const latLong *d_locations, __global float *d_distances,
                              int numRecords, float lat, float lng) {
  int gid = get_global_id(0);
  if (gid < numRecords) {
    __global const latLong *p = &d_locations[gid];
    d_distances[gid] = sqrt((lat - p->x) * (lat - p->x) + (lng - p->y) * (lng - p->y));
  }
}
