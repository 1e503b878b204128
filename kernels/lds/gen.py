#!/usr/bin/env python3
"""Inputs, expected outputs and the launch manifest of the LDS kernels in kernels/lds.

Every expected value is computed here, in Python, from the kernel's specification: nothing comes
from pws, so the golden model is checked against an independent reference. Deterministic (fixed
seed): `python3 kernels/lds/gen.py` rewrites the same files.
"""
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from genlib import Suite  # noqa: E402  (kernels/genlib.py)
rng = random.Random(20261124)


def wrap(v, bits=32):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


SUITE = Suite(HERE, "kernels/lds/gen.py")


def lds_reduce():
    local, groups = 128, 4
    n = local * groups
    data = [rng.randrange(-1_000_000, 1_000_000) for _ in range(n)]
    sums, hist, mix = [], [], []
    for wg in range(groups):
        v = data[wg * local:(wg + 1) * local]
        sums.append(wrap(sum(v)))
        hist += [sum(1 for x in v if x & 15 == b) for b in range(16)]
        for l in range(local):
            half = wrap(v[local - 1 - l] ^ 0x5A5A, 16)
            byte = v[l ^ 1] & 0xFF
            wide = wrap(wrap(v[l ^ 2] * 100000, 64) >> 5)
            mix.append(wrap(half + byte + wide + v[(l + 1) % local]))
    stats_init = [0, -(1 << 31), (1 << 31) - 1, 0]
    stats = [wrap(sum(data)), max(data), min(data), groups * sum(range(local))]
    SUITE.manifest(
        "lds_reduce", "lds_reduce.cl", n, local, ["in", "sums", "hist", "mix", "stats"],
        [dict(name="in", data=data),
         dict(name="sums", len=groups, expect=sums),
         dict(name="hist", len=16 * groups, expect=hist),
         dict(name="mix", len=n, expect=mix),
         dict(name="stats", data=stats_init, expect=stats)],
        comment="A workgroup reduction in LDS with barriers, ds_add, 8/16/64-bit LDS traffic and\n"
                "flat atomics over the grid (kernels/lds/lds_reduce.cl).")

if __name__ == "__main__":
    lds_reduce()
