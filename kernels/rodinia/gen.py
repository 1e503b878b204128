#!/usr/bin/env python3
"""Inputs, expected outputs and launch manifests of the Rodinia-style suite in kernels/rodinia.

The kernels are Rodinia's OpenCL kernels (backprop, bfs, b+tree, gaussian, hotspot, kmeans,
nn, nw, pathfinder, srad) as small launches, plus a histogram with __local and global atomics;
bfs also as the whole program (its two kernels until no node changes, a launch sequence); and
the same at medium sizes in medium/ (`make eval-full`). Every
expected value is computed here, in Python, from the kernel's specification: nothing comes from
pws.

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


if __name__ == "__main__":
    os.makedirs(os.path.join(HERE, "data"), exist_ok=True)
    for gen in (backprop, hotspot, srad, kmeans, nn, gaussian, pathfinder, nw, bfs, histogram,
                bfs4096, bfs_small, btree, medium):
        gen()
