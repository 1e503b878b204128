// European call and put prices by Black-Scholes, one option per work-item, as in the AMD APP
// and CUDA SDK samples but with the normal CDF from erfc: log, sqrt, exp and erfc from pws.h.
float cnd(float d) { return 0.5f * erfc(-d * M_SQRT1_2_F); }

__kernel void blackscholes(__global const float *price, __global const float *strike,
                           __global const float *years, __global float *call,
                           __global float *put, float rate, float vol, int n) {
  int i = get_global_id(0);
  if (i >= n)
    return;
  float s = price[i], x = strike[i], t = years[i];
  float sqrt_t = sqrt(t);
  float d1 = (log(s / x) + (rate + 0.5f * vol * vol) * t) / (vol * sqrt_t);
  float d2 = d1 - vol * sqrt_t;
  float discounted = x * exp(-rate * t);
  call[i] = s * cnd(d1) - discounted * cnd(d2);
  put[i] = discounted * cnd(-d2) - s * cnd(-d1);
}
