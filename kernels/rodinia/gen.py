#!/usr/bin/env python3
"""Inputs, expected outputs and launch manifests of the Rodinia-style suite in kernels/rodinia.

The kernels are Rodinia's OpenCL kernels (backprop, bfs, b+tree, gaussian, hotspot, kmeans,
nn, nw, pathfinder, srad) as small launches, plus a histogram with __local and global atomics;
bfs also as the whole program (its two kernels until no node changes, a launch sequence);
hybridsort as the whole program (bucketcount with its pivot search and __local atomics,
bucketprefixoffset, bucketsort, then mergeSortFirst, the mergeSortPass passes and mergepack: a
launch sequence); particlefilter's resampling (sum_kernel, normalize_weights_kernel and
find_index_kernel's search of the CDF: a launch sequence); and the same at medium sizes in
medium/ (`make eval-full`). Every expected value is computed here, in Python, from the
kernel's specification: nothing comes from pws.

Floats: binary32 arithmetic is modelled by rounding each exact double result to binary32
(`f32`), which is correctly rounded for +, -, *, / and sqrt (53 >= 2 * 24 + 2, so the double
rounding is innocuous). clang-14 contracts a * b + c to `v_mad_f32` / `v_mac_f32`, which gfx803
rounds twice (not fused), so the reference rounds twice as well. OpenCL lets `/` be 2.5 ulp;
clang lowers it to `v_rcp_f32` and a multiply. The reference divides exactly, so the buffers a
division reaches carry `tolerance_ulp`: the largest ulp distance between the exact quotient path
and the reciprocal one over this data, measured here (`rcp_path`), plus one.

Deterministic (fixed seed): `python3 kernels/rodinia/gen.py` rewrites the same files.
"""
import math
import os
import random
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from genlib import Suite  # noqa: E402  (kernels/genlib.py)
rng = random.Random(20261124)


def f32(x):
    """x rounded to the nearest binary32 (ties to even), as a Python float."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def ulp_distance(a, b):
    """Distance in units in the last place between two finite binary32 values."""
    def key(v):
        u = bits(v)
        return (u & 0x7FFFFFFF) if u < 0x80000000 else -(u & 0x7FFFFFFF)
    return abs(key(a) - key(b))


def div_exact(a, b):
    return f32(a / b)


def div_rcp(a, b):
    """clang's 2.5-ulp division on gfx803: a * rcp(b), rcp correctly rounded."""
    return f32(a * f32(1.0 / b))


SUITE = Suite(HERE, "kernels/rodinia/gen.py", per_line=8)
manifest = SUITE.manifest


def rand_f32(lo, hi):
    return f32(rng.uniform(lo, hi))


def backprop(blocks=2, kdir=""):
    hid, height = 16, 16
    n_in = height * blocks
    inp = [rand_f32(0.0, 1.0) for _ in range(n_in + 1)]
    w = [rand_f32(-0.5, 0.5) for _ in range((n_in + 1) * (hid + 1))]
    out_w = list(w)
    partial = [0.0] * (blocks * hid)
    for by in range(blocks):
        m = [[0.0] * 16 for _ in range(16)]
        for ty in range(16):
            for tx in range(16):
                index = (hid + 1) * height * by + (hid + 1) * ty + tx + 1 + (hid + 1)
                m[ty][tx] = f32(w[index] * inp[height * by + ty + 1])
        for i in range(1, 5):
            p = 1 << i
            for ty in range(0, 16, p):
                for tx in range(16):
                    m[ty][tx] = f32(m[ty][tx] + m[ty + p // 2][tx])
        for ty in range(16):
            for tx in range(16):
                index = (hid + 1) * height * by + (hid + 1) * ty + tx + 1 + (hid + 1)
                out_w[index] = m[ty][tx]
        for ty in range(16):
            partial[by * hid + ty] = m[0][ty]
    manifest("backprop", kdir + "backprop.cl", f"[16, {16 * blocks}]", "[16, 16]",
             ["input", "weights", "partial_sum", hid],
             [dict(name="input", type="f32", data=inp),
              dict(name="weights", type="f32", data=w, expect=out_w),
              dict(name="partial_sum", type="f32", len=blocks * hid, expect=partial)],
             f"Rodinia backprop layer forward: {blocks} weight blocks of 16 x 16, __local tree reduction.")


def hotspot(cols=16, rows=16, kdir=""):
    cap, rx, ry, rz, step = 0.5, 1.5, 1.5, 25.0, 0.25
    temp = [rand_f32(320.0, 340.0) for _ in range(cols * rows)]
    power = [rand_f32(0.0, 4.0) for _ in range(cols * rows)]
    out, out_rcp = [], []
    for div in (div_exact, div_rcp):
        sdc = div(f32(step), f32(cap))
        rx1, ry1, rz1 = div(1.0, f32(rx)), div(1.0, f32(ry)), div(1.0, f32(rz))
        res = []
        for y in range(rows):
            for x in range(cols):
                i = y * cols + x
                c = temp[i]
                n = temp[i - cols] if y > 0 else c
                s = temp[i + cols] if y < rows - 1 else c
                w = temp[i - 1] if x > 0 else c
                e = temp[i + 1] if x < cols - 1 else c
                c2 = f32(2.0 * c)
                t = f32(power[i] + f32(f32(f32(s + n) - c2) * ry1))
                t = f32(t + f32(f32(f32(e + w) - c2) * rx1))
                t = f32(t + f32(f32(80.0 - c) * rz1))
                res.append(f32(c + f32(sdc * t)))
        (out if div is div_exact else out_rcp).extend(res)
    tol = max(ulp_distance(a, b) for a, b in zip(out, out_rcp)) + 1
    manifest("hotspot", kdir + "hotspot.cl", f"[{cols}, {rows}]", "[8, 8]",
             ["power", "temp_src", "temp_dst", cols, rows, cap, rx, ry, rz, step],
             [dict(name="power", type="f32", data=power),
              dict(name="temp_src", type="f32", data=temp),
              dict(name="temp_dst", type="f32", len=cols * rows, expect=out, tolerance_ulp=tol)],
             f"Rodinia hotspot, one step on a {cols} x {rows} chip in 8 x 8 __local tiles.")


def srad(cols=16, rows=16, kdir=""):
    img = [rng.uniform(0.0, 255.0) for _ in range(cols * rows)]
    J = [f32(math.exp(v / 255.0)) for v in img]
    mean = sum(J) / len(J)
    var = sum((j - mean) ** 2 for j in J) / len(J)
    q0sqr = f32(var / (mean * mean))
    outs = {}
    for div in (div_exact, div_rcp):
        C, dN, dS, dW, dE = [], [], [], [], []
        for y in range(rows):
            for x in range(cols):
                k = y * cols + x
                jc = J[k]
                n = f32(J[(y - 1 if y > 0 else 0) * cols + x] - jc)
                s = f32(J[(y + 1 if y < rows - 1 else y) * cols + x] - jc)
                w = f32(J[y * cols + (x - 1 if x > 0 else 0)] - jc)
                e = f32(J[y * cols + (x + 1 if x < cols - 1 else x)] - jc)
                g2 = div(f32(f32(f32(f32(n * n) + f32(s * s)) + f32(w * w)) + f32(e * e)),
                         f32(jc * jc))
                l = div(f32(f32(f32(n + s) + w) + e), jc)
                num = f32(f32(0.5 * g2) - f32(0.0625 * f32(l * l)))
                den = f32(1.0 + f32(0.25 * l))
                qsqr = div(num, f32(den * den))
                den = div(f32(qsqr - q0sqr), f32(q0sqr * f32(1.0 + q0sqr)))
                c = div(1.0, f32(1.0 + den))
                c = 0.0 if c < 0.0 else (1.0 if c > 1.0 else c)
                C.append(c)
                dN.append(n)
                dS.append(s)
                dW.append(w)
                dE.append(e)
        outs[div] = (C, dN, dS, dW, dE)
    C, dN, dS, dW, dE = outs[div_exact]
    tol = max(ulp_distance(a, b) for a, b in zip(C, outs[div_rcp][0])) + 1
    manifest("srad", kdir + "srad.cl", f"[{cols}, {rows}]", "[8, 8]",
             ["J", "C", "dN", "dS", "dW", "dE", cols, rows, q0sqr],
             [dict(name="J", type="f32", data=J),
              dict(name="C", type="f32", len=cols * rows, expect=C, tolerance_ulp=tol),
              dict(name="dN", type="f32", len=cols * rows, expect=dN),
              dict(name="dS", type="f32", len=cols * rows, expect=dS),
              dict(name="dW", type="f32", len=cols * rows, expect=dW),
              dict(name="dE", type="f32", len=cols * rows, expect=dE)],
             f"Rodinia srad kernel 1 on a {cols} x {rows} image in 8 x 8 __local tiles.")


def kmeans(npoints=100, kdir=""):
    nclusters, nfeatures = 5, 4
    feature = [rand_f32(0.0, 10.0) for _ in range(npoints * nfeatures)]
    clusters = [rand_f32(0.0, 10.0) for _ in range(nclusters * nfeatures)]
    member = []
    for p in range(npoints):
        best, index = f32(3.402823466e+38), 0
        for i in range(nclusters):
            dist = 0.0
            for l in range(nfeatures):
                d = f32(feature[l * npoints + p] - clusters[i * nfeatures + l])
                dist = f32(dist + f32(d * d))
            if dist < best:
                best, index = dist, i
        member.append(index)
    manifest("kmeans", kdir + "kmeans.cl", -(-npoints // 64) * 64, 64,
             ["feature", "clusters", "membership", npoints, nclusters, nfeatures],
             [dict(name="feature", type="f32", data=feature),
              dict(name="clusters", type="f32", data=clusters),
              dict(name="membership", len=npoints, expect=member)],
             f"Rodinia kmeans kernel c: {npoints} points, 5 clusters, 4 float features.")


def nn(n=100, kdir=""):
    lat, lng = 30.5, 90.25
    loc = []
    for _ in range(n):
        loc += [rand_f32(0.0, 90.0), rand_f32(0.0, 180.0)]
    dist = []
    for r in range(n):
        dx, dy = f32(lat - loc[2 * r]), f32(lng - loc[2 * r + 1])
        dist.append(f32(math.sqrt(f32(f32(dx * dx) + f32(dy * dy)))))
    manifest("nn", kdir + "nn.cl", -(-n // 64) * 64, 64, ["locations", "distances", n, lat, lng],
             [dict(name="locations", type="f32", data=loc),
              dict(name="distances", type="f32", len=n, expect=dist)],
             f"Rodinia nn: distances of {n} (lat, lng) records from a query point (sqrt).")


def gaussian(size=8, kdir=""):
    t = 1
    a = [rand_f32(-4.0, 4.0) for _ in range(size * size)]
    for i in range(size):
        a[i * size + i] = f32(a[i * size + i] + 16.0)
    b = [rand_f32(-4.0, 4.0) for _ in range(size)]
    # Fan1: the multipliers of column t.
    m = [0.0] * (size * size)
    m_rcp = list(m)
    for g in range(size - 1 - t):
        r = g + t + 1
        m[size * r + t] = div_exact(a[size * r + t], a[size * t + t])
        m_rcp[size * r + t] = div_rcp(a[size * r + t], a[size * t + t])
    tol = max(ulp_distance(x, y) for x, y in zip(m, m_rcp)) + 1
    manifest("gaussian_fan1", kdir + "gaussian.cl", -(-size // 64) * 64, 64, ["m", "a", "b", size, t],
             [dict(name="m", type="f32", len=size * size, expect=m, tolerance_ulp=tol),
              dict(name="a", type="f32", data=a), dict(name="b", type="f32", data=b)],
             f"Rodinia gaussian Fan1, step t = 1 of a system of {size} unknowns.", entry="Fan1")
    # Fan2, from the exact multipliers.
    ea, eb = list(a), list(b)
    for gx in range(size - 1 - t):
        for gy in range(size - t):
            r = gx + 1 + t
            ea[size * r + gy + t] = f32(a[size * r + gy + t] - f32(m[size * r + t] * a[size * t + gy + t]))
            if gy == 0:
                eb[r] = f32(b[r] - f32(m[size * r + gy + t] * b[t]))
    manifest("gaussian_fan2", kdir + "gaussian.cl", f"[{size}, {size}]", "[8, 8]", ["m", "a", "b", size, t],
             [dict(name="m", type="f32", data=m),
              dict(name="a", type="f32", data=a, expect=ea),
              dict(name="b", type="f32", data=b, expect=eb)],
             f"Rodinia gaussian Fan2, step t = 1 of a system of {size} unknowns (2-D launch).", entry="Fan2")


def pathfinder(cols=100, kdir=""):
    rows, iteration, block = 5, 4, 64
    wall = [rng.randrange(0, 10) for _ in range(cols * rows)]
    src = [rng.randrange(0, 10) for _ in range(cols)]
    border = iteration
    small = block - iteration * 2
    groups = (cols + small - 1) // small
    res = [0] * cols
    for bx in range(groups):
        blk_x = small * bx - border
        blk_xmax = blk_x + block - 1
        vmin = -blk_x if blk_x < 0 else 0
        vmax = block - 1 - (blk_xmax - cols + 1) if blk_xmax > cols - 1 else block - 1
        prev = [0] * block
        result = [0] * block
        for tx in range(block):
            if 0 <= blk_x + tx <= cols - 1:
                prev[tx] = src[blk_x + tx]
        computed = [False] * block
        for i in range(iteration):
            computed = [False] * block
            new = list(result)
            for tx in range(block):
                if i + 1 <= tx <= block - i - 2 and vmin <= tx <= vmax:
                    computed[tx] = True
                    w, e = max(tx - 1, vmin), min(tx + 1, vmax)
                    new[tx] = min(prev[w], prev[tx], prev[e]) + wall[cols * i + blk_x + tx]
            result = new
            if i == iteration - 1:
                break
            for tx in range(block):
                if computed[tx]:
                    prev[tx] = result[tx]
        for tx in range(block):
            if computed[tx]:
                res[blk_x + tx] = result[tx]
    manifest("pathfinder", kdir + "pathfinder.cl", groups * block, block,
             [iteration, "wall", "src", "results", cols, rows, 0, border],
             [dict(name="wall", data=wall), dict(name="src", data=src),
              dict(name="results", len=cols, expect=res)],
             f"Rodinia pathfinder: {iteration} rows of a {cols}-column grid per launch, __local pyramid.")


def nw(blocks=2, kdir=""):
    bs, penalty = 16, 10
    cols = bs * blocks + 1
    ref = [0] * (cols * cols)
    for i in range(1, cols):
        for j in range(1, cols):
            ref[i * cols + j] = rng.randrange(-10, 11)
    mat = [0] * (cols * cols)
    for i in range(cols):
        mat[i * cols] = -penalty * i
        mat[i] = -penalty * i

    def fill(bx, by, m):
        for y in range(by * bs + 1, by * bs + bs + 1):
            for x in range(bx * bs + 1, bx * bs + bs + 1):
                m[y * cols + x] = max(m[(y - 1) * cols + x - 1] + ref[y * cols + x],
                                      m[y * cols + x - 1] - penalty,
                                      m[(y - 1) * cols + x] - penalty)
    # The launches for the anti-diagonals before `blocks` have run; this one fills the blocks
    # of anti-diagonal `blocks` (bx + by = blocks - 1).
    for d in range(blocks - 1):
        for bx in range(d + 1):
            fill(bx, d - bx, mat)
    out = list(mat)
    for bx in range(blocks):
        fill(bx, blocks - 1 - bx, out)
    manifest("nw", kdir + "nw.cl", bs * blocks, bs, ["reference", "itemsets", cols, penalty, blocks],
             [dict(name="reference", data=ref),
              dict(name="itemsets", data=mat, expect=out)],
             f"Rodinia nw kernel 1, block anti-diagonal {blocks} of a {cols} x {cols} score matrix, __local tiles.")


def bfs_graph(r, n):
    """A random graph of `n` nodes in CSR form, each node with 0 to 8 neighbours (the loop
    bound bfs.cl declares)."""
    deg = [r.randrange(0, 9) for _ in range(n)]
    row = [0]
    for d in deg:
        row.append(row[-1] + d)
    return row, [r.randrange(n) for _ in range(row[-1])]


def bfs_visit(row, col, mask, visited, cost, upd):
    """bfs.cl's kernel 1 on the lists, in place: every frontier node leaves the frontier and
    offers cost + 1 to its unvisited neighbours, which it marks for update. Returns the number
    of offers (what the kernel's atomic_inc counts)."""
    offers = 0
    for t in range(len(mask)):
        if mask[t]:
            mask[t] = 0
            for i in range(row[t], row[t + 1]):
                nb = col[i]
                if not visited[nb]:
                    cost[nb] = min(cost[nb], cost[t] + 1)
                    upd[nb] = 1
                    offers += 1
    return offers


def bfs_step(r, n):
    """A random graph of `n` nodes with a frontier, and one BFS step on it: the buffers of
    bfs.cl with their expected values."""
    big = 0x7FFFFFFF
    row, col = bfs_graph(r, n)
    frontier = [1 if r.random() < 0.3 else 0 for _ in range(n)]
    visited = [1 if f or r.random() < 0.25 else 0 for f in frontier]
    cost = [r.randrange(1, 4) if v else big for v in visited]
    e_mask, e_cost, e_upd = list(frontier), list(cost), [0] * n
    changed = bfs_visit(row, col, e_mask, visited, e_cost, e_upd)
    return ([dict(name="row", data=row), dict(name="col", data=col),
             dict(name="mask", data=frontier, expect=e_mask),
             dict(name="updating", len=n, expect=e_upd),
             dict(name="visited", data=visited),
             dict(name="cost", data=cost, expect=e_cost),
             dict(name="changed", len=1, expect=[changed])])


BFS_ARGS = ["row", "col", "mask", "updating", "visited", "cost", "changed"]


def bfs():
    n, grid = 96, 128
    manifest("bfs", "bfs.cl", grid, 64, BFS_ARGS + [n], bfs_step(rng, n),
             "One step of Rodinia's BFS with atomic_min / atomic_inc, 96 nodes.",
             entry="bfs_kernel")


def bfs4096():
    """The BFS step of `pws bench` (kernels/bench/bfs4096.toml): 4,096 nodes, its own seed so
    the suite's files above stay as they are."""
    n = 4096
    bench = os.path.join(os.path.dirname(HERE), "bench")
    os.makedirs(os.path.join(bench, "data"), exist_ok=True)
    Suite(bench, "kernels/rodinia/gen.py", per_line=16).manifest(
        "bfs4096", "../rodinia/bfs.cl", n, 64, BFS_ARGS + [n], bfs_step(random.Random(4096), n),
        "One step of Rodinia's BFS on 4,096 nodes: the long kernel of `pws bench --only cu`.",
        entry="bfs_kernel")


def bfs_full(name, n, grid, seed, max_passes, comment, kdir=""):
    """Rodinia's whole BFS from node 0 as a launch sequence: kernel 1 (bfs_kernel) then
    kernel 2 (bfs_update) per pass, until a pass leaves `over` zero, exactly as Rodinia's host
    loop runs them. The expected costs come from running the same passes here."""
    r = random.Random(seed)
    row, col = bfs_graph(r, n)
    big = 0x7FFFFFFF
    mask, visited, cost, upd = [0] * n, [0] * n, [big] * n, [0] * n
    mask[0], visited[0], cost[0] = 1, 1, 0
    init_mask, init_visited, init_cost = list(mask), list(visited), list(cost)
    changed, passes = 0, 0
    while True:
        over = 0
        passes += 1
        changed += bfs_visit(row, col, mask, visited, cost, upd)
        for t in range(n):
            if upd[t]:
                mask[t], visited[t], upd[t], over = 1, 1, 0, 1
        if not over:
            break
    assert passes <= max_passes, (name, passes)
    tables = f"""
# Rodinia's host loop: kernel 1, then kernel 2, while kernel 2 sets `over` ({passes} passes
# on this graph; {max_passes} is the most the WCET bound allows).
[[launch]]
entry = "bfs_kernel"
args = ["row", "col", "mask", "updating", "visited", "cost", "changed", {n}]

[[launch]]
entry = "bfs_update"
args = ["mask", "updating", "visited", "over", {n}]

[repeat]
until_zero = "over"
reset = ["over"]
max = {max_passes}"""
    manifest(name, kdir + "bfs.cl", grid, 64, [],
             [dict(name="row", data=row), dict(name="col", data=col),
              dict(name="mask", data=init_mask, expect=mask),
              dict(name="updating", len=n, expect=upd),
              dict(name="visited", data=init_visited, expect=visited),
              dict(name="cost", data=init_cost, expect=cost),
              dict(name="changed", len=1, expect=[changed]),
              dict(name="over", len=1, expect=[0])],
             comment, args_line=False, tables=tables)


def bfs_small():
    bfs_full("bfs_full", 96, 128, 96, 8,
             "Rodinia's whole BFS on 96 nodes: two kernels per pass until no node changes.")


def btree(nrecords=3000, nqueries=8, kdir=""):
    """A B+ tree of order 64 over `nrecords` distinct keys (leaves 20 to 48 full, inner nodes
    up to 64 children, root first, then level by level), and `nqueries` lookups, a quarter of
    them of absent keys: the buffers of btree.cl's findK with their expected values."""
    order, big = 64, 0x7FFFFFFF
    keys_sorted = sorted(rng.sample(range(1, 50 * nrecords), nrecords))
    records = [rng.randrange(0, 1 << 20) for _ in range(nrecords)]
    # Leaves: runs of the sorted keys; a level's nodes are (smallest key, keys, indices).
    level, i = [], 0
    while i < nrecords:
        n = min(rng.randrange(20, 49), nrecords - i)
        level.append((keys_sorted[i], keys_sorted[i:i + n], list(range(i, i + n))))
        i += n
    levels = [level]
    while len(levels[-1]) > 1:
        below, up = levels[-1], []
        for k in range(0, len(below), order):
            up.append((below[k][0], [c[0] for c in below[k:k + order]], list(range(k, min(k + order, len(below))))))
        levels.append(up)
    levels.reverse()  # root first
    first = [0]
    for lv in levels:
        first.append(first[-1] + len(lv))
    nodes = first[-1]
    flat_keys, flat_idx = [], []
    for d, lv in enumerate(levels):
        for _, ks, ix in lv:
            if d + 1 < len(levels):
                ix = [first[d + 1] + c for c in ix]  # children's node numbers
            flat_keys += ks + [big] * (order + 1 - len(ks))
            flat_idx += ix + [0] * (order + 1 - len(ix))
    height = len(levels) - 1
    present = rng.sample(keys_sorted, nqueries - nqueries // 4)
    absent = []
    while len(absent) < nqueries // 4:
        k = rng.randrange(keys_sorted[0], keys_sorted[-1])
        if k not in keys_sorted and k not in absent:
            absent.append(k)
    query = present + absent
    rng.shuffle(query)
    ans, leaf_of = [], []
    for q in query:
        node = 0
        for d in range(height):
            ks = flat_keys[node * (order + 1):(node + 1) * (order + 1)]
            j = max(t for t in range(order) if ks[t] <= q)
            node = flat_idx[node * (order + 1) + j]
        leaf_of.append(node)
        ks = flat_keys[node * (order + 1):(node + 1) * (order + 1)]
        ans.append(records[flat_idx[node * (order + 1) + ks.index(q)]] if q in ks else -1)
    manifest("btree", kdir + "btree.cl", 64 * nqueries, 64,
             [height, "keys", "indices", nodes, "records", "currKnode", "offset", "query", "ans"],
             [dict(name="keys", data=flat_keys), dict(name="indices", data=flat_idx),
              dict(name="records", data=records),
              dict(name="currKnode", len=nqueries, expect=leaf_of),
              dict(name="offset", len=nqueries, expect=leaf_of),
              dict(name="query", data=query),
              dict(name="ans", data=[-1] * nqueries, expect=ans)],
             f"Rodinia b+tree findK: {nqueries} lookups in a B+ tree of order 64 over {nrecords} "
             f"keys ({height} inner levels), one workgroup per lookup.")


def histogram(n=200, kdir=""):
    grid = -(-n // 64) * 64 if n > 200 else 256
    data = [rng.randrange(0, 256) for _ in range(n)]
    bins = [0] * 16
    for v in data:
        bins[v % 16] += 1
    manifest("histogram", kdir + "histogram.cl", grid, 64, ["data", "bins", n],
             [dict(name="data", type="u32", data=data),
              dict(name="bins", type="u32", len=16, expect=bins)],
             f"A 16-bin histogram of {n} bytes: __local atomics per workgroup, then global ones.")


def hybridsort(n=256, divisions=32, blocks=4, histosize=64, kdir=""):
    """Rodinia's hybridsort on `n` floats as one launch sequence: the bucket sort into
    `divisions` buckets on `blocks` workgroups of 32, then the merge sort of each float4-aligned
    bucket, in the order Rodinia's host runs the kernels. What the host computes between them
    (the pivots from a `histosize`-bin histogram, each bucket's float4-aligned start, the
    divisions' start addresses and padding) is computed here and given as buffers: a manifest
    runs kernels only. The buckets' counts the kernels leave (`offsets`) are checked against
    the sizes those buffers assume."""
    wg = 32
    threads = blocks * wg
    band = -(-n // threads)
    # Above zero: the padding of each bucket (zeros) must sort below its elements.
    data = [rand_f32(0.001, 1.0) for _ in range(n)]
    lo, hi = min(data), max(data)
    # Rodinia's calcPivotPoints: walk the histogram, cutting a pivot wherever n / divisions
    # elements have been taken, interpolating within a bin.
    width = (hi - lo) / histosize
    hist = [0.0] * histosize
    for v in data:
        hist[min(int((v - lo) / width), histosize - 1)] += 1.0
    per, need, starts, piv = n / divisions, n / divisions, lo, []
    for i in range(histosize - 1):
        h = hist[i]
        while h > need:
            starts += need / h * width
            piv.append(f32(starts))
            h -= need
            need = per
        need -= h
        starts = lo + (i + 1) * width
    assert len(piv) <= divisions, piv
    piv += [piv[-1]] * (divisions - len(piv))

    def bucket(elem):
        """bucketcount's search, step for step."""
        idx, jump = divisions // 2 - 1, divisions // 4
        p = piv[idx]
        while jump >= 1:
            idx = idx - jump if elem < p else idx + jump
            p = piv[idx]
            jump //= 2
        return idx if elem < p else idx + 1

    # bucketcount: the grid-stride loop, each step's lanes taking their tickets in lane order.
    log = divisions.bit_length() - 1
    indice = [0] * n
    counts = [[0] * divisions for _ in range(blocks)]
    for g in range(blocks):
        for k in range(band):
            for lane in range(wg):
                tid = g * wg + lane + k * threads
                if tid < n:
                    b = bucket(data[tid])
                    indice[tid] = (counts[g][b] << log) + b
                    counts[g][b] += 1
    # bucketprefixoffset: per bucket, the exclusive prefix over the workgroups.
    prefix = [0] * (blocks * divisions)
    offsets = [0] * divisions
    for b in range(divisions):
        s = 0
        for g in range(blocks):
            prefix[g * divisions + b] = s
            s += counts[g][b]
        offsets[b] = s
    # The host: buckets padded to whole float4s, their starts, the divisions in float4s.
    null = [-c % 4 for c in offsets]
    sizes = [(c + z) // 4 for c, z in zip(offsets, null)]
    l_offsets, start, final = [0] * divisions, [0], [0]
    for b in range(divisions):
        if b:
            l_offsets[b] = l_offsets[b - 1] + 4 * sizes[b - 1]
        start.append(start[-1] + sizes[b])
        final.append(final[-1] + offsets[b])
    newlist = 4 * start[-1]
    largest = 4 * max(sizes)
    # bucketsort, into a buffer of Rodinia's size whose padding stays zero.
    length = n + 4 * divisions
    bucketed = [0.0] * length
    for g in range(blocks):
        for k in range(band):
            for lane in range(wg):
                tid = g * wg + lane + k * threads
                if tid < n:
                    b = indice[tid] & (divisions - 1)
                    at = l_offsets[b] + prefix[g * divisions + b] + (indice[tid] >> log)
                    bucketed[at] = data[tid]
    bufs = {"bucketed": list(bucketed), "merged": [0.0] * length}
    # mergeSortFirst: every float4 of the list sorted.
    for i in range(newlist // 4):
        bufs["merged"][4 * i:4 * i + 4] = sorted(bufs["bucketed"][4 * i:4 * i + 4])
    launches = [
        ("bucketcount", blocks * wg, wg,
         ["input", "indice", "prefixoffsets", n, "pivots"], band),
        ("bucketprefixoffset", divisions, divisions, ["prefixoffsets", "offsets", blocks], blocks),
        ("bucketsort", blocks * wg, wg,
         ["input", "indice", "bucketed", n, "prefixoffsets", "l_offsets"], band),
        ("mergeSortFirst", -(-newlist // 256) * 64, 64, ["bucketed", "merged", newlist], None)]
    # mergeSortPass: runs of nrElems / 2 float4s merged pairwise (the kernel's float4 merge
    # leaves the two runs' floats in order), the host swapping the two lists after each pass,
    # until one work-item covers the largest division.
    src, dst, nr = "merged", "bucketed", 2
    while True:
        tpd = -(-largest // (4 * nr))
        inp, out = bufs[src], bufs[dst]
        for d in range(divisions):
            end = start[d + 1]
            for t in range(tpd):
                a = start[d] + t * nr
                bstart = a + nr // 2
                if a >= end:
                    continue
                stop = min(bstart + nr // 2, end)
                out[4 * a:4 * stop] = sorted(inp[4 * a:4 * stop])
        launches.append(("mergeSortPass", f"[{tpd}, {divisions}]",
                         f"[{tpd}, {min(divisions, 64 // tpd)}]", [src, dst, nr, "startaddr"], nr))
        src, dst, nr = dst, src, 2 * nr
        if tpd == 1:
            break
    # mergepack: each division's elements, past its padding, to the unpadded list in `dst`.
    for d in range(divisions):
        for idx in range(final[d + 1] - final[d]):
            bufs[dst][final[d] + idx] = bufs[src][start[d] * 4 + null[d] + idx]
    assert bufs[dst][:n] == sorted(data)
    launches.append(("mergepack", f"[{largest}, {divisions}]",
                     f"[{largest}, {min(divisions, max(1, 64 // largest))}]",
                     [src, dst, "startaddr", "nullelems", "finalstart"], None))
    tables = [f"""
# Rodinia's host: the bucket sort's three kernels, mergeSortFirst, {len(launches) - 5} merge passes
# (the lists swapped after each) and mergepack; the sorted list ends in `{dst}`."""]
    for entry, grid, wgs, args, bound in launches:
        tables.append("\n[[launch]]")
        tables.append(f'entry = "{entry}"')
        tables.append(f"grid = {grid}")
        tables.append(f"workgroup = {wgs}")
        tables.append("args = [" + ", ".join(f'"{a}"' if isinstance(a, str) else str(a)
                                             for a in args) + "]")
        if bound:
            tables.append("[launch.loop_bounds]")
            tables.append(f"default = {bound}")
    manifest("hybridsort", kdir + "hybridsort.cl", blocks * wg, wg, [],
             [dict(name="input", type="f32", data=data),
              dict(name="pivots", type="f32", data=piv),
              dict(name="indice", len=n, expect=indice),
              dict(name="prefixoffsets", type="u32", len=blocks * divisions, expect=prefix),
              dict(name="offsets", type="u32", len=divisions, expect=offsets),
              dict(name="l_offsets", type="u32", data=l_offsets),
              dict(name="bucketed", type="f32", len=length, expect=bufs["bucketed"]),
              dict(name="merged", type="f32", len=length, expect=bufs["merged"]),
              dict(name="startaddr", data=start),
              dict(name="nullelems", data=null),
              dict(name="finalstart", data=final)],
             f"Rodinia hybridsort on {n} floats: a bucket sort into {divisions} buckets, then a\n"
             f"merge sort of each float4-aligned bucket, {len(launches)} launches.",
             # OpenCL C 2.0: mergepack's last workgroup is partial (`divisions` in workgroups
             # of up to 64 // largest), which OpenCL C 1.2 does not allow; clang's code for
             # these kernels is the same in both.
             extra=f'cflags = ["-cl-std=CL2.0", "-DDIVISIONS={divisions}"]', args_line=False,
             tables="\n".join(tables))


def particlefilter(n=32, kdir=""):
    """Rodinia particlefilter's resampling on `n` particles (a power of two: then the
    divisions by n are exact on every division path), from the weights likelihood_kernel
    leaves and its partial sums per workgroup of up to 64 (its __local tree reduction):
    sum_kernel, normalize_weights_kernel (one workgroup of n) and find_index_kernel, as the
    host runs them. The indices the particles pick must not depend on how the division by the
    weights' sum rounds: the CDF under the exact quotients and under clang's reciprocal ones
    must send every u to the same entry, each comparison with a margin of about 7 ulp."""
    assert n & (n - 1) == 0
    block = min(n, 64)
    blocks = n // block
    weights = [f32(f32(1.0 / n) * math.exp(rng.uniform(-5.0, 0.0))) for _ in range(n)]
    partial = []
    for b in range(blocks):
        buf = weights[b * block:(b + 1) * block]
        s = block // 2
        while s:
            for t in range(s):
                buf[t] = f32(buf[t] + buf[t + s])
            s //= 2
        partial.append(buf[0])
    total = 0.0
    for p in partial:
        total = f32(total + p)
    e_partial = [total] + partial[1:]
    seed = [rng.randrange(0, 1 << 31) for _ in range(n)]
    array_x = [rand_f32(60.0, 68.0) for _ in range(n)]
    array_y = [rand_f32(60.0, 68.0) for _ in range(n)]
    # d_randu on seed 0: int arithmetic wrapping at 32 bits, C's truncating %.
    num = (1103515245 * seed[0] + 12345 + (1 << 31)) % (1 << 32) - (1 << 31)
    r = abs(num) % 0x7FFFFFFF * (1 if num >= 0 else -1)
    e_seed = [r] + seed[1:]
    u1 = f32(abs(f32(float(r)) / 2.0 ** 31) / n)
    u = [f32(u1 + i / n) for i in range(n)]
    runs = {}
    for div in (div_exact, div_rcp):
        w = [div(x, total) for x in weights]
        cdf = [w[0]]
        for x in w[1:]:
            cdf.append(f32(x + cdf[-1]))
        index = [next((x for x in range(n) if cdf[x] >= ui), n - 1) for ui in u]
        runs[div] = (w, cdf, index)
    w, cdf, index = runs[div_exact]
    assert index == runs[div_rcp][2]
    for ui, x in zip(u, index):
        assert (cdf[x] - ui >= 4e-7 or x == n - 1) and (x == 0 or ui - cdf[x - 1] >= 4e-7), (ui, x)
    w_tol = max(ulp_distance(a, b) for a, b in zip(w, runs[div_rcp][0])) + 1
    cdf_tol = max(ulp_distance(a, b) for a, b in zip(cdf, runs[div_rcp][1])) + 1
    tables = f"""
# Rodinia's host, after likelihood_kernel: the three kernels of the resampling.
[[launch]]
entry = "sum_kernel"
grid = {n}
workgroup = {block}
args = ["partial_sums", {n}]
[launch.loop_bounds]
default = {blocks}

[[launch]]
entry = "normalize_weights_kernel"
grid = {n}
workgroup = {n}
args = ["weights", {n}, "partial_sums", "CDF", "u", "seed"]
[launch.loop_bounds]
default = {n}

[[launch]]
entry = "find_index_kernel"
grid = {n}
workgroup = {block}
args = ["arrayX", "arrayY", "CDF", "u", "xj", "yj", {n}]
[launch.loop_bounds]
default = {n}"""
    manifest("particlefilter", kdir + "particlefilter.cl", n, block, [],
             [dict(name="weights", type="f32", data=weights, expect=w, tolerance_ulp=w_tol),
              dict(name="partial_sums", type="f32", data=partial, expect=e_partial),
              dict(name="CDF", type="f32", len=n, expect=cdf, tolerance_ulp=cdf_tol),
              dict(name="u", type="f32", len=n, expect=u),
              dict(name="seed", data=seed, expect=e_seed),
              dict(name="arrayX", type="f32", data=array_x),
              dict(name="arrayY", type="f32", data=array_y),
              dict(name="xj", type="f32", len=n, expect=[array_x[x] for x in index]),
              dict(name="yj", type="f32", len=n, expect=[array_y[x] for x in index])],
             f"Rodinia particlefilter's resampling on {n} particles: sum_kernel,\n"
             f"normalize_weights_kernel (one workgroup) and find_index_kernel.",
             args_line=False, tables=tables)


def medium():
    """The suite at medium sizes, in kernels/rodinia/medium (`make eval-full`): about four
    times the work of the small launches above, drawn from a seed of their own."""
    global rng, manifest
    rng = random.Random(20261128)
    here = os.path.join(HERE, "medium")
    os.makedirs(os.path.join(here, "data"), exist_ok=True)
    manifest = Suite(here, "kernels/rodinia/gen.py", per_line=16).manifest
    k = "../"
    backprop(blocks=8, kdir=k)
    hotspot(32, 32, kdir=k)
    srad(32, 32, kdir=k)
    kmeans(400, kdir=k)
    nn(400, kdir=k)
    gaussian(16, kdir=k)
    pathfinder(400, kdir=k)
    nw(4, kdir=k)
    histogram(800, kdir=k)
    btree(12000, 64, kdir=k)
    bfs_full("bfs_full", 384, 384, 384, 12,
             "Rodinia's whole BFS on 384 nodes: two kernels per pass until no node changes.",
             kdir=k)
    hybridsort(1024, 32, 8, 256, kdir=k)
    particlefilter(128, kdir=k)


if __name__ == "__main__":
    os.makedirs(os.path.join(HERE, "data"), exist_ok=True)
    for gen in (backprop, hotspot, srad, kmeans, nn, gaussian, pathfinder, nw, bfs, histogram,
                bfs4096, bfs_small, btree, hybridsort, particlefilter,
                medium):
        gen()
