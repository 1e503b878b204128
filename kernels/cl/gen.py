#!/usr/bin/env python3
"""Inputs, expected outputs and launch manifests of the OpenCL C suite in kernels/cl.

Every expected value is computed here, in Python, from the kernel's specification: nothing
comes from pws, so `pws compare` and the tests check the golden model and the RTL against an
independent reference. Deterministic (fixed seed): `python3 kernels/cl/gen.py` rewrites the
same files.
"""
import math
import os
import random
import struct
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from genlib import Suite  # noqa: E402  (kernels/genlib.py)
rng = random.Random(20261123)


def i32(v):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v & 0x80000000 else v


SUITE = Suite(HERE, "kernels/cl/gen.py")
write_data, manifest = SUITE.write_data, SUITE.manifest


def bfs():
    n, grid = 96, 128
    deg = [rng.randrange(0, 9) for _ in range(n)]
    row = [0]
    for d in deg:
        row.append(row[-1] + d)
    col = [rng.randrange(n) for _ in range(row[-1])]
    frontier = [1 if rng.random() < 0.3 else 0 for _ in range(n)]
    visited = [1 if f or rng.random() < 0.25 else 0 for f in frontier]
    cost = [3 if f else (rng.randrange(0, 3) if v else -1) for f, v in zip(frontier, visited)]
    mask = list(frontier)
    updating = [0] * n
    e_mask, e_cost, e_upd = list(mask), list(cost), list(updating)
    for t in range(n):
        if mask[t]:
            e_mask[t] = 0
            for i in range(row[t], row[t + 1]):
                nb = col[i]
                if not visited[nb]:
                    e_cost[nb] = cost[t] + 1
                    e_upd[nb] = 1
    manifest("bfs", "bfs.cl", grid, 64,
             ["row", "col", "mask", "updating", "visited", "cost", n],
             [dict(name="row", data=row), dict(name="col", data=col),
              dict(name="mask", data=mask, expect=e_mask),
              dict(name="updating", data=updating, expect=e_upd),
              dict(name="visited", data=visited),
              dict(name="cost", data=cost, expect=e_cost)],
             comment="One BFS step on a random graph of 96 nodes (out-degree 0..8).")


def nw():
    n, grid, penalty = 100, 128, 10
    nwv = [rng.randrange(-50, 50) for _ in range(n)]
    up = [rng.randrange(-50, 50) for _ in range(n)]
    left = [rng.randrange(-50, 50) for _ in range(n)]
    sim = [rng.randrange(-10, 11) for _ in range(n)]
    out = [max(a + s, b - penalty, c - penalty) for a, b, c, s in zip(nwv, up, left, sim)]
    manifest("nw", "nw.cl", grid, 64, ["nw", "up", "left", "sim", "out", penalty, n],
             [dict(name="nw", data=nwv), dict(name="up", data=up), dict(name="left", data=left),
              dict(name="sim", data=sim), dict(name="out", len=n, expect=out)],
             comment="One anti-diagonal of Needleman-Wunsch, 100 cells.")


def pathfinder():
    cols, grid = 100, 128
    wall = [rng.randrange(0, 10) for _ in range(cols)]
    prev = [rng.randrange(0, 100) for _ in range(cols)]
    nxt = []
    for x in range(cols):
        best = prev[x]
        if x > 0:
            best = min(best, prev[x - 1])
        if x < cols - 1:
            best = min(best, prev[x + 1])
        nxt.append(best + wall[x])
    manifest("pathfinder", "pathfinder.cl", grid, 64, ["wall", "prev", "next", cols],
             [dict(name="wall", data=wall), dict(name="prev", data=prev),
              dict(name="next", len=cols, expect=nxt)],
             comment="One row of Rodinia's pathfinder, 100 columns.")


def bitonic():
    n, j, k = 64, 2, 4
    a = [rng.randrange(-1000, 1000) for _ in range(n)]
    e = list(a)
    for i in range(n):
        ixj = i ^ j
        if ixj > i:
            x, y = a[i], a[ixj]
            if (i & k) == 0:
                if x > y:
                    e[i], e[ixj] = y, x
            elif x < y:
                e[i], e[ixj] = y, x
    manifest("bitonic", "bitonic.cl", n, 64, ["a", j, k],
             [dict(name="a", data=a, expect=e)],
             comment="One compare-exchange step (j = 2, k = 4) of a bitonic sort of 64 values.")


def hotspot():
    w, h = 16, 8
    temp = [rng.randrange(300, 400) for _ in range(w * h)]
    power = [rng.randrange(0, 5) for _ in range(w * h)]
    out = []
    for y in range(h):
        for x in range(w):
            i = y * w + x
            c = temp[i]
            n = temp[i - w] if y > 0 else c
            s = temp[i + w] if y < h - 1 else c
            e = temp[i + 1] if x < w - 1 else c
            wv = temp[i - 1] if x > 0 else c
            out.append(c + ((n + s + e + wv - 4 * c) >> 3) + power[i])
    manifest("hotspot", "hotspot.cl", "[16, 8]", "[16, 4]", ["temp", "power", "out", w, h],
             [dict(name="temp", data=temp), dict(name="power", data=power),
              dict(name="out", len=w * h, expect=out)],
             comment="A hotspot-like stencil on a 16 x 8 grid (2-D launch).")


def mandelbrot():
    w, h, maxit = 16, 8, 48
    out = []
    for py in range(h):
        for px in range(w):
            cx = ((px * 768) >> 4) - 512
            cy = ((py * 512) >> 3) - 256
            x = y = k = 0
            while k < maxit and x * x + y * y < (4 << 16):
                xt = ((x * x - y * y) >> 8) + cx
                y = ((2 * x * y) >> 8) + cy
                x = xt
                k += 1
            out.append(k)
    manifest("mandelbrot", "mandelbrot.cl", "[16, 8]", "[16, 4]", ["out", w],
             [dict(name="out", len=w * h, expect=out)],
             comment="Escape-time Mandelbrot, 16 x 8 points, at most 48 iterations (2-D launch).")


def collatz():
    n, grid = 120, 128
    xs = [rng.randrange(1, 1000) for _ in range(n)]
    out = []
    for x in xs:
        s = 0
        while x > 1 and s < 64:
            x = 3 * x + 1 if x & 1 else x >> 1
            x &= 0xFFFFFFFF
            s += 1
        out.append(s)
    manifest("collatz", "collatz.cl", grid, 64, ["in", "out", n],
             [dict(name="in", type="u32", data=xs),
              dict(name="out", type="u32", len=n, expect=out)],
             comment="Collatz steps (at most 64) of 120 numbers.")


def saxpy():
    n, grid, a = 100, 128, 7
    x = [rng.randrange(-1000, 1000) for _ in range(n)]
    y = [rng.randrange(-1000, 1000) for _ in range(n)]
    manifest("saxpy", "saxpy.cl", grid, 64, ["x", "y", a, n],
             [dict(name="x", data=x),
              dict(name="y", data=y, expect=[i32(a * xi + yi) for xi, yi in zip(x, y)])],
             comment="y = 7 x + y over 100 integers.")


def kmeans():
    npoints, grid, k, dim = 100, 128, 4, 2
    pts = [rng.randrange(-100, 100) for _ in range(npoints * dim)]
    cent = [rng.randrange(-100, 100) for _ in range(k * dim)]
    member = []
    for p in range(npoints):
        best, bestd = 0, 0x7FFFFFFF
        for c in range(k):
            d = sum((pts[p * dim + j] - cent[c * dim + j]) ** 2 for j in range(dim))
            if d < bestd:
                bestd, best = d, c
        member.append(best)
    manifest("kmeans", "kmeans.cl", grid, 64,
             ["points", "centroids", "membership", npoints, k, dim],
             [dict(name="points", data=pts), dict(name="centroids", data=cent),
              dict(name="membership", len=npoints, expect=member)],
             comment="kmeans assignment of 100 points to 4 centroids in 2-D.")


def nested6():
    n = 64
    vals = list(range(n))
    rng.shuffle(vals)
    out = []
    for v in vals:
        r = v
        if v & 1:
            r = r * 3 + 1
            if v & 2:
                r ^= r << 2
                if v & 4:
                    r += 0x55
                    if v & 8:
                        r = r * 5 - 7
                        if v & 16:
                            r ^= 0x3C3C
                            r = r + 11 if v & 32 else r - 13
                        else:
                            r = r * 7
                    else:
                        r -= v << 3
                else:
                    r = ~r
            else:
                r = r * 9 + v
        else:
            r = r * 11 - v
            r = r ^ 0x77 if v & 2 else r + 0x99
        out.append(i32(r))
    manifest("nested6", "nested6.cl", n, 64, ["in", "out"],
             [dict(name="in", data=vals), dict(name="out", len=n, expect=out)],
             comment="Six nested if/else levels; the 64 work-items take 64 different paths.")


def figure2():
    a = [17, 29, 52, 80]
    out = []
    for idx, x in enumerate(a):
        r = idx
        if x > 25:
            r += x
            r = r * 3 if x > 75 else r - 7
            r += 1000
        else:
            r -= x
        r = r ^ 0x55 if x > 50 else r + 2
        out.append(r)
    assert out == [-15, 1025, 1090, 1204]
    manifest("figure2", "figure2.cl", 4, 4, ["A", "out"],
             [dict(name="A", data=a), dict(name="out", len=4, expect=out)],
             extra='# Keep every skip branch, so that the three marked if/else split (docs/opencl.md).\n'
                   'cflags = ["-mllvm", "-amdgpu-skip-threshold=0"]',
             comment="The PWS paper's Figure 2 kernel with its split marks.")


def bsearch():
    n = 64
    sorted_vals = sorted(rng.sample(range(0, 1000), n))
    keys = [rng.choice(sorted_vals) if rng.random() < 0.5 else rng.randrange(0, 1000)
            for _ in range(64)]
    found = []
    for key in keys:
        lo, hi, at = 0, n, -1
        while lo < hi:
            mid = (lo + hi) >> 1
            v = sorted_vals[mid]
            if v == key:
                at = mid
                break
            if v < key:
                lo = mid + 1
            else:
                hi = mid
        found.append(at)
    manifest("bsearch", "bsearch.cl", 64, 64, ["sorted", "keys", "found", n],
             [dict(name="sorted", data=sorted_vals), dict(name="keys", data=keys),
              dict(name="found", len=64, expect=found)],
             comment="Binary search of 64 keys (about half present) in 64 sorted values.")


def gaussian():
    n, k = 8, 2
    a = [rng.randrange(-9, 10) for _ in range(n * n)]
    out = list(a)
    for r in range(n):
        for c in range(n):
            if r > k and c >= k:
                out[r * n + c] = i32(a[r * n + c] * a[k * n + k] - a[r * n + k] * a[k * n + c])
    manifest("gaussian", "gaussian.cl", "[8, 8]", "[8, 8]", ["a", "out", n, k],
             [dict(name="a", data=a), dict(name="out", len=n * n, expect=out)],
             comment="One fraction-free elimination step (pivot row 2) of an 8 x 8 matrix (2-D launch).")


def nn():
    n, grid, tlat, tlng, r2 = 100, 128, 30, -20, 2500
    lat = [rng.randrange(-90, 90) for _ in range(n)]
    lng = [rng.randrange(-180, 180) for _ in range(n)]
    dist, quad = [], []
    for la, lo in zip(lat, lng):
        dy, dx = la - tlat, lo - tlng
        d = dx * dx + dy * dy
        dist.append(d)
        quad.append(((0 if dy >= 0 else 2) + int((dx >= 0) != (dy >= 0))) if d <= r2 else -1)
    manifest("nn", "nn.cl", grid, 64, ["lat", "lng", "dist", "quadrant", tlat, tlng, r2, n],
             [dict(name="lat", data=lat), dict(name="lng", data=lng),
              dict(name="dist", len=n, expect=dist), dict(name="quadrant", len=n, expect=quad)],
             comment="Distances of 100 records to a target, and quadrants of those within 50.")


def prefix():
    n, grid, d = 100, 128, 4
    xs = [rng.randrange(-100, 100) for _ in range(n)]
    out = [xs[i] + xs[i - d] if i >= d else xs[i] for i in range(n)]
    manifest("prefix", "prefix.cl", grid, 64, ["in", "out", d, n],
             [dict(name="in", data=xs), dict(name="out", len=n, expect=out)],
             comment="One step (d = 4) of a Hillis-Steele scan over 100 values.")


def bytepack():
    n, grid = 100, 128
    a = [0, 0xFFFFFFFF, 0x80008000, 0x7FFF7FFF] + [rng.getrandbits(32) for _ in range(n - 4)]
    b = [0xFFFFFFFF, 0, 0x00FF8000, 0x12347FFF] + [rng.getrandbits(32) for _ in range(n - 4)]

    def s16(v):
        v &= 0xFFFF
        return v - 0x10000 if v & 0x8000 else v

    def byte(v, k):
        return v >> (8 * k) & 0xFF

    packed = [byte(x, 3) | byte(y, 0) << 24 | byte(x, 1) << 8 for x, y in zip(a, b)]
    mixed = [x >> 16 | byte(y, 0) << 24 for x, y in zip(a, b)]
    sat = [min(max(s16(x >> 16) + s16(y), 0), 255) | (x & 0xFFFF) << 16 for x, y in zip(a, b)]
    prod = [byte(x, 2) * byte(y, 1) for x, y in zip(a, b)]
    manifest("bytepack", "bytepack.cl", grid, 64,
             ["a", "b", "packed", "mixed", "sat", "prod", n],
             [dict(name="a", type="u32", data=a), dict(name="b", type="u32", data=b),
              dict(name="packed", type="u32", len=n, expect=packed),
              dict(name="mixed", type="u32", len=n, expect=mixed),
              dict(name="sat", type="u32", len=n, expect=sat),
              dict(name="prod", type="u32", len=n, expect=prod)],
             comment="Bytes and halves of 100 word pairs packed, clamped and multiplied "
                     "(clang-14 emits SDWA selects).")


def intdiv():
    n, grid = 100, 128

    def tdiv(x, y):
        """C's division: the quotient truncated toward zero."""
        q = abs(x) // abs(y)
        return q if (x < 0) == (y < 0) else -q

    # Edge cases first (C leaves INT_MIN / -1 and division by zero undefined, so neither
    # appears), then random operands of every magnitude.
    edges = [(-2**31, 1), (-2**31, 2), (-2**31, 2**31 - 1), (2**31 - 1, -2**31), (-1, -2**31),
             (7, -2), (-7, 2), (-7, -2), (0, -5), (2**31 - 1, 1), (-5, 2**31 - 1), (-1, 3)]
    pairs = edges + [(rng.randrange(-2**31, 2**31),
                      rng.choice([rng.randrange(1, 20), rng.randrange(1, 2**16),
                                  rng.randrange(1, 2**31)]) * rng.choice([1, -1]))
                     for _ in range(n - len(edges))]
    a = [x for x, _ in pairs]
    b = [y for _, y in pairs]
    wide = [rng.randrange(-2**63, 2**63) if k % 2 else rng.randrange(-2**40, 2**40)
            for k in range(n)]
    u = lambda v: v & 0xFFFFFFFF  # noqa: E731

    def s64(v):
        v &= (1 << 64) - 1
        return v - (1 << 64) if v >> 63 else v

    def digit_sum(v, base):
        s = 0
        while v:
            s, v = s + v % base, v // base
        return s

    wq = [s64(tdiv(w, y) + (w - tdiv(w, y | 1) * (y | 1))) for w, y in zip(wide, b)]
    manifest("intdiv", "intdiv.cl", grid, 64,
             ["a", "b", "q", "r", "uq", "ur", "wide", "wq", "digits", n],
             [dict(name="a", data=a), dict(name="b", data=b),
              dict(name="q", len=n, expect=[i32(tdiv(x, y)) for x, y in pairs]),
              dict(name="r", len=n, expect=[i32(x - tdiv(x, y) * y) for x, y in pairs]),
              dict(name="uq", type="u32", len=n, expect=[u(x) // u(y) for x, y in pairs]),
              dict(name="ur", type="u32", len=n, expect=[u(x) % u(y) for x, y in pairs]),
              dict(name="wide", type="i64", data=wide),
              dict(name="wq", type="i64", len=n, expect=wq),
              dict(name="digits", len=n,
                   expect=[digit_sum(u(x), k % 15 + 2) for k, x in enumerate(a)])],
             comment="32-bit signed and unsigned / and % by per-item divisors, 64-bit ones "
                     "and a digit sum in a per-item base, on 100 integers.")


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def blackscholes():
    n, grid, rate, vol = 100, 128, 0.02, 0.30
    s = [f32(rng.uniform(10.0, 30.0)) for _ in range(n)]
    x = [f32(rng.uniform(8.0, 40.0)) for _ in range(n)]
    t = [f32(rng.uniform(0.25, 5.0)) for _ in range(n)]
    r, v = f32(rate), f32(vol)
    cnd = lambda d: 0.5 * math.erfc(-d / math.sqrt(2.0))  # noqa: E731
    call, put = [], []
    for si, xi, ti in zip(s, x, t):
        d1 = (math.log(si / xi) + (r + 0.5 * v * v) * ti) / (v * math.sqrt(ti))
        d2 = d1 - v * math.sqrt(ti)
        disc = xi * math.exp(-r * ti)
        call.append(f32(si * cnd(d1) - disc * cnd(d2)))
        put.append(f32(disc * cnd(-d2) - si * cnd(-d1)))
    # The kernel rounds every step to f32 (a few ulp in each of the two terms), the reference
    # none; the prices are differences of terms up to 16 times larger than them (15.6 at most on
    # these options), so a price may lie a few times 16 ulp from the exact one (44 and 49 measured).
    manifest("blackscholes", "blackscholes.cl", grid, 64,
             ["price", "strike", "years", "call", "put", rate, vol, n],
             [dict(name="price", type="f32", data=s), dict(name="strike", type="f32", data=x),
              dict(name="years", type="f32", data=t),
              dict(name="call", type="f32", len=n, expect=call, tolerance_ulp=128),
              dict(name="put", type="f32", len=n, expect=put, tolerance_ulp=128)],
             comment="Black-Scholes call and put prices of 100 options (log, sqrt, exp, erfc).")


def crc32():
    n, grid = 100, 128
    lens = [0, 1, 2, 3, 4, 5] + [rng.randrange(0, 24) for _ in range(n - 6)]
    offsets, total = [], 0
    for k in lens:
        offsets.append(total)
        total += k
    blob = bytes(rng.getrandbits(8) for _ in range(total))
    padded = blob + bytes(-len(blob) % 4)
    words = [int.from_bytes(padded[k:k + 4], "little") for k in range(0, len(padded), 4)]
    crcs = [zlib.crc32(blob[o:o + k]) for o, k in zip(offsets, lens)]
    manifest("crc32", "crc32.cl", grid, 64, ["data", "offset", "len", "crc", n],
             [dict(name="data", type="u32", data=words), dict(name="offset", data=offsets),
              dict(name="len", data=lens), dict(name="crc", type="u32", len=n, expect=crcs)],
             comment="zlib's CRC-32 of 100 byte strings of 0 to 23 bytes, from a __constant "
                     "table in .rodata; expected values from Python's zlib.")


def median5():
    w, h = 16, 8
    img = [rng.randrange(0, 256) for _ in range(w * h)]
    img = [v if rng.random() < 0.9 else rng.choice([0, 255]) for v in img]
    out = []
    for y in range(h):
        for x in range(w):
            win = sorted(img[min(max(y + dy, 0), h - 1) * w + min(max(x + dx, 0), w - 1)]
                         for dy in range(-2, 3) for dx in range(-2, 3))
            out.append(win[12])
    manifest("median5", "median5.cl", w * h, 64, ["img", "out", w, h],
             [dict(name="img", data=img), dict(name="out", len=w * h, expect=out)],
             comment="5x5 median filter of a 16x8 image with salt-and-pepper noise; the window "
                     "is sorted in a private array (scratch memory).")


def kargs():
    n, grid, wg = 100, 128, 64
    c, uc, s, us = -5, 200, -300, 60000
    l, ul = -(3 << 40) - 12345, (0x7BCDEF << 40) | 77
    f, i2, f3, u4 = 2.75, [3, -4], [1.5, 2.0, -3.25], [7, 200, 33, 101]
    p = [1000, 1.25, -9]                        # Params { int a; float b; short c; }
    table = [11, -22, 33, -44]
    out = [0] * (16 * n)
    for i in range(n):
        lid, base = i % wg, i - i % wg
        nxt = base + (lid + 1) % wg
        o = out[16 * i:16 * i + 16]
        o[0] = c * (i + 1)
        o[1] = uc + i
        o[2] = s * 2 - i
        o[3] = us + i
        o[4] = (l >> 33) + i
        o[5] = i32(l)
        o[6] = i32(ul >> 40)
        o[7] = int(f * (i + 1))
        o[8] = i2[0] * i + i2[1]
        o[9] = int(f3[0] + f3[1] * f3[2]) + i
        o[10] = i32(u4[0] + u4[1] * 256 + u4[2] * 65536 + u4[3] * 16777216)
        o[11] = p[0] + i
        o[12] = int(p[1] * 4) + i
        o[13] = p[2] - i
        o[14] = table[nxt % 4] * nxt
        o[15] = table[i % 4]
        out[16 * i:16 * i + 16] = o
    manifest("kargs", "kargs.cl", grid, wg,
             ["out", c, uc, s, us, l, ul, f, i2, f3, u4, p, {"local": 4 * wg}, "table", n],
             [dict(name="out", len=16 * n, expect=out), dict(name="table", data=table)],
             comment="Arguments of every kind but images: char to ulong, float, int2, float3 (a "
                     "float4's room), uchar4,\na struct by value (its words), a __local and a "
                     "__constant pointer, each where clang's metadata places it.")


def f16(x):
    return struct.unpack("<e", struct.pack("<e", x))[0]


def elemtypes():
    n, grid = 100, 128
    px = [rng.randrange(256) for _ in range(n)]
    big = [rng.randrange(-2**40, 2**40) for _ in range(n)]
    h = [f16(rng.choice([0.5, 1.25, -3.0, 1000.0, 0.1, 65504.0 / 4, -0.0]) * rng.choice([1, 0.5]))
         for _ in range(n)]
    manifest("elemtypes", "elemtypes.cl", grid, 64,
             ["px", "wide", "big", "sum", "h", "hf", "hout", "neg", n],
             [dict(name="px", type="u8", data=px),
              dict(name="wide", type="u16", len=n, expect=[p * 257 for p in px]),
              dict(name="big", type="i64", data=big),
              dict(name="sum", type="i64", len=n,
                   expect=[big[i] + big[n - 1 - i] * 3 for i in range(n)]),
              dict(name="h", type="f16", data=h),
              dict(name="hf", type="f32", len=n, expect=[x * 2 for x in h]),
              dict(name="hout", type="f16", len=n, expect=[f16(x + 0.5) for x in h]),
              dict(name="neg", type="i16", len=n, expect=[-p for p in px])],
             comment="Buffers of u8, u16, i16, i64 and f16 elements (vload_half/vstore_half), "
                     "packed into memory's words\nas the kernel's pointers address them.")


def inversions():
    n, length, grid = 10, 60, 64
    v = [rng.randrange(-50, 50) for _ in range(length + n)]
    counts = [sum(v[g + i] > v[g + j] for i in range(n) for j in range(i + 1, n))
              for g in range(length)]
    manifest("inversions", "inversions.cl", grid, 64, ["v", "count", n, length],
             [dict(name="v", data=v), dict(name="count", len=length, expect=counts)],
             comment="Inversions among the 10 values from each position of a sequence: a "
                     "triangular loop nest that\nthe analysis bounds from n without annotations.")


if __name__ == "__main__":
    os.makedirs(os.path.join(HERE, "data"), exist_ok=True)
    for gen in (bfs, nw, pathfinder, bitonic, hotspot, mandelbrot, collatz, saxpy, kmeans,
                nested6, figure2, bsearch, gaussian, nn, prefix, bytepack, intdiv, blackscholes,
                crc32, median5, kargs, elemtypes, inversions):
        gen()
