// The PWS paper's Figure 2 kernel (Klashtorny et al., "Predictable Wavefront Splitting"),
// with the block bodies the pws project gives it. One wavefront of 4 work-items,
// A = {17, 29, 52, 80}; out = {-15, 1025, 1090, 1204}.
// clang-14 -target amdgcn-amd-amdhsa -mcpu=fiji -nogpulib -O2 -S figure2.cl
// shows the divergence idioms figure2.s uses (v_cmp, s_and_saveexec_b64, s_xor_b64,
// s_or_saveexec_b64, s_xor_b64 exec, s_or_b64 exec); figure2.s adds the s_cbranch_execz skips
// clang leaves out for blocks this small, and the split/merge marks.
__kernel void figure2(__global const int *A, __global int *out) {
    int idx = __builtin_amdgcn_workitem_id_x();
    int x = A[idx], r = idx;                           // BB1
    if (x > 25) {                                      // BB1: split
        r += x;                                        // BB2
        if (x > 75) r *= 3;                            // BB2: split; BB3
        else        r -= 7;                            // BB4
        r += 1000;                                     // BB5
    } else {
        r -= x;                                        // BB6
    }
    if (x > 50) r ^= 0x55;                             // BB7: split; BB8
    else        r += 2;                                // BB9
    out[idx] = r;                                      // BB10
}
