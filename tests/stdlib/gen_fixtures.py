#!/usr/bin/python3
"""gen_fixtures.py - numpy fixtures for the std.nn and std.math tests.

Usage: gen_fixtures.py TDSL OUTDIR

Writes the inputs and the expected outputs of every case below as .npy
files into OUTDIR, then runs each tests/stdlib/numpy/*.tdsl with OUTDIR
as its working folder: the script loads the files, calls the std
kernel and asserts allclose against the expected output.  The expected
values are computed here with numpy from the ONNX operator definitions,
written independently of the tdsl kernels (padded copies, sliding
windows and scatters rather than the kernels' gathers).  Exit status:
0 when every script passes, 1 otherwise, 77 when numpy is missing.
"""

import itertools
import math
import os
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    sys.exit(77)

rng = np.random.default_rng(20261122)
out_dir = "."


def save(name, a, dtype=np.float32):
    np.save(os.path.join(out_dir, name + ".npy"),
            np.ascontiguousarray(np.asarray(a).astype(dtype)))


def randn(*shape):
    return rng.standard_normal(shape).astype(np.float32)


# --------------------------------------------------------------------
# Convolution: a loop over kernel offsets, each a strided slice of the
# zero-padded input contracted with one weight tap per group.
# --------------------------------------------------------------------

def conv_ref(x, w, b, strides, pads_begin, pads_end, dil, group):
    x = x.astype(np.float64)
    w = w.astype(np.float64)
    nd = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + list(zip(pads_begin, pads_end)))
    n, c = x.shape[:2]
    f, cg = w.shape[:2]
    ks = w.shape[2:]
    out = [(xp.shape[2 + i] - dil[i] * (ks[i] - 1) - 1) // strides[i] + 1
           for i in range(nd)]
    y = np.zeros([n, f] + out)
    fg = f // group
    for k in np.ndindex(*ks):
        sl = tuple(slice(k[i] * dil[i],
                         k[i] * dil[i] + strides[i] * (out[i] - 1) + 1,
                         strides[i]) for i in range(nd))
        patch = xp[(slice(None), slice(None)) + sl]
        for g in range(group):
            tap = w[(slice(g * fg, (g + 1) * fg), slice(None)) + k]
            y[:, g * fg:(g + 1) * fg] += np.einsum(
                "nc...,fc->nf...", patch[:, g * cg:(g + 1) * cg], tap)
    return y + b.reshape([1, f] + [1] * nd)


def same_pads(size, k, s, d, lower):
    out = -(-size // s)
    total = max(0, (out - 1) * s + d * (k - 1) + 1 - size)
    small = total // 2
    return (total - small, small) if lower else (small, total - small)


# ConvTranspose as the scatter it is defined by: every input element
# adds x * w[k] at output position i * stride + k * dilation, then the
# pads are cropped off.
def conv_transpose_ref(x, w, b, strides, pads_begin, pads_end, out_pad,
                       dil, group):
    nd = x.ndim - 2
    n, c = x.shape[:2]
    fg = w.shape[1]
    ks = w.shape[2:]
    cg = c // group
    full = [(x.shape[2 + i] - 1) * strides[i] + (ks[i] - 1) * dil[i] + 1 +
            out_pad[i] for i in range(nd)]
    y = np.zeros([n, fg * group] + full)
    for p in np.ndindex(*x.shape[2:]):
        for k in np.ndindex(*ks):
            q = tuple(p[i] * strides[i] + k[i] * dil[i] for i in range(nd))
            for g in range(group):
                xs = x[(slice(None), slice(g * cg, (g + 1) * cg)) + p]
                ws = w[(slice(g * cg, (g + 1) * cg), slice(None)) + k]
                y[(slice(None), slice(g * fg, (g + 1) * fg)) + q] += \
                    xs.astype(np.float64) @ ws.astype(np.float64)
    crop = tuple(slice(pads_begin[i], full[i] - pads_end[i])
                 for i in range(nd))
    return y[(slice(None), slice(None)) + crop] + \
        b.reshape([1, fg * group] + [1] * nd)


def gen_conv():
    # conv1d: stride 2, asymmetric pads, dilation 2, two groups
    x, w, b = randn(2, 4, 11), randn(6, 2, 3), randn(6)
    save("c1_x", x), save("c1_w", w), save("c1_b", b)
    save("c1_y", conv_ref(x, w, b, [2], [1], [2], [2], 2))
    # conv1d_same, SAME_UPPER and SAME_LOWER with stride 2
    x, w, b = randn(1, 3, 10), randn(4, 3, 4), randn(4)
    save("c1s_x", x), save("c1s_w", w), save("c1s_b", b)
    for tag, lower in (("up", 0), ("lo", 1)):
        pb, pe = same_pads(10, 4, 3, 1, lower)
        save("c1s_" + tag, conv_ref(x, w, b, [3], [pb], [pe], [1], 1))
    # conv2d: plain, padded with stride, asymmetric with dilation and
    # groups, depthwise with a multiplier of 2
    x, w, b = randn(2, 3, 9, 8), randn(5, 3, 3, 3), randn(5)
    save("c2_x", x), save("c2_w", w), save("c2_b", b)
    save("c2_plain", conv_ref(x, w, b, [1, 1], [0, 0], [0, 0], [1, 1], 1))
    save("c2_pad", conv_ref(x, w, b, [2, 2], [1, 1], [1, 1], [1, 1], 1))
    save("c2_asym", conv_ref(x, w, b, [2, 1], [2, 0], [1, 3], [2, 3], 1))
    x, w, b = randn(1, 4, 7, 7), randn(6, 2, 2, 3), randn(6)
    save("c2g_x", x), save("c2g_w", w), save("c2g_b", b)
    save("c2g_y", conv_ref(x, w, b, [1, 2], [1, 0], [0, 1], [1, 1], 2))
    x, w, b = randn(2, 3, 6, 6), randn(6, 1, 3, 3), randn(6)
    save("dw_x", x), save("dw_w", w), save("dw_b", b)
    save("dw_y", conv_ref(x, w, b, [2, 2], [1, 1], [1, 1], [1, 1], 3))
    # conv2d_same: stride 2 on an odd and an even extent, dilation 2
    x, w, b = randn(1, 2, 7, 8), randn(3, 2, 3, 2), randn(3)
    save("c2s_x", x), save("c2s_w", w), save("c2s_b", b)
    for tag, lower in (("up", 0), ("lo", 1)):
        ph = same_pads(7, 3, 2, 2, lower)
        pw = same_pads(8, 2, 2, 1, lower)
        save("c2s_" + tag, conv_ref(x, w, b, [2, 2], [ph[0], pw[0]],
                                    [ph[1], pw[1]], [2, 1], 1))
    # conv3d with padding, stride and groups
    x, w, b = randn(1, 4, 5, 6, 5), randn(4, 2, 2, 3, 2), randn(4)
    save("c3_x", x), save("c3_w", w), save("c3_b", b)
    save("c3_y", conv_ref(x, w, b, [1, 2, 2], [1, 1, 0], [0, 1, 1],
                          [2, 1, 1], 2))
    # conv_transpose1d / 2d: stride, pads, output padding, dilation,
    # groups
    x, w, b = randn(2, 4, 5), randn(4, 3, 3), randn(6)
    save("ct1_x", x), save("ct1_w", w), save("ct1_b", b)
    save("ct1_y", conv_transpose_ref(x, w, b, [2], [1], [2], [1], [2], 2))
    x, w, b = randn(1, 2, 4, 5), randn(2, 3, 3, 2), randn(3)
    save("ct2_x", x), save("ct2_w", w), save("ct2_b", b)
    save("ct2_y", conv_transpose_ref(x, w, b, [2, 3], [1, 0], [0, 1],
                                     [1, 2], [1, 2], 1))
    save("ct2_plain", conv_transpose_ref(x, w, b, [1, 1], [0, 0], [0, 0],
                                         [0, 0], [1, 1], 1))


# --------------------------------------------------------------------
# Pooling: the output extent as the ONNX reference computes it (ceil,
# then drop a window that starts past the input and its begin pad),
# then each window listed position by position.
# --------------------------------------------------------------------

def pool_ref(x, kind, ks, strides, pb, pe, dil, ceil_mode=0, cip=0):
    nd = x.ndim - 2
    sizes = x.shape[2:]
    out = []
    for i in range(nd):
        v = (sizes[i] + pb[i] + pe[i] - dil[i] * (ks[i] - 1) - 1) / \
            strides[i] + 1
        o = math.ceil(v) if ceil_mode else math.floor(v)
        if ceil_mode and (o - 1) * strides[i] >= sizes[i] + pb[i]:
            o -= 1
        out.append(o)
    y = np.zeros(list(x.shape[:2]) + out)
    for o in np.ndindex(*out):
        axes = []
        for i in range(nd):
            pos = [o[i] * strides[i] - pb[i] + k * dil[i]
                   for k in range(ks[i])]
            inside = [p for p in pos if 0 <= p < sizes[i]]
            lo, hi = (-pb[i], sizes[i] + pe[i]) if cip else (0, sizes[i])
            counted = [p for p in pos if lo <= p < hi]
            axes.append((inside, len(counted)))
        win = x[(slice(None), slice(None)) +
                np.ix_(*[a[0] for a in axes])].astype(np.float64)
        win = win.reshape(x.shape[0], x.shape[1], -1)
        if kind == "max":
            y[(slice(None), slice(None)) + o] = win.max(axis=2)
        else:
            y[(slice(None), slice(None)) + o] = win.sum(axis=2) / \
                np.prod([a[1] for a in axes])
    return y


def gen_pool():
    x = randn(2, 3, 11)
    save("p1_x", x)
    save("p1_max", pool_ref(x, "max", [3], [2], [1], [1], [1]))
    save("p1_max_ceil", pool_ref(x, "max", [2], [3], [0], [1], [2], 1))
    save("p1_avg", pool_ref(x, "avg", [3], [2], [1], [2], [1]))
    save("p1_avg_cip", pool_ref(x, "avg", [3], [2], [1], [2], [1], 0, 1))
    save("p1_avg_ceil_cip", pool_ref(x, "avg", [4], [3], [1], [1], [1],
                                     1, 1))
    # ceil mode would add a window starting in the end padding: dropped
    save("p1_max_drop", pool_ref(x, "max", [2], [3], [0], [1], [1], 1))
    save("p1_avg_drop", pool_ref(x, "avg", [2], [3], [0], [1], [1], 1, 1))
    x = randn(2, 2, 7, 8)
    save("p2_x", x)
    save("p2_max", pool_ref(x, "max", [2, 2], [2, 2], [0, 0], [0, 0],
                            [1, 1]))
    save("p2_max_pad", pool_ref(x, "max", [3, 2], [2, 1], [1, 0], [1, 1],
                                [1, 2]))
    save("p2_max_ceil", pool_ref(x, "max", [3, 3], [2, 2], [1, 1], [0, 0],
                                 [1, 1], 1))
    save("p2_avg", pool_ref(x, "avg", [3, 3], [2, 2], [1, 1], [1, 1],
                            [1, 1]))
    save("p2_avg_cip", pool_ref(x, "avg", [3, 3], [2, 2], [1, 1], [1, 1],
                                [1, 1], 0, 1))
    save("p2_avg_ceil", pool_ref(x, "avg", [2, 3], [2, 2], [0, 1], [0, 1],
                                 [1, 1], 1, 0))
    save("p2_avg_ceil_cip", pool_ref(x, "avg", [2, 3], [2, 2], [0, 1],
                                     [0, 1], [1, 1], 1, 1))
    save("p2_avg_dil", pool_ref(x, "avg", [2, 2], [1, 2], [1, 0], [0, 1],
                                [2, 2], 0, 1))
    x = randn(1, 2, 5, 6, 4)
    save("p3_x", x)
    save("p3_max", pool_ref(x, "max", [2, 3, 2], [2, 2, 1], [0, 1, 1],
                            [1, 1, 0], [1, 1, 2], 1))
    save("p3_avg", pool_ref(x, "avg", [2, 2, 2], [1, 2, 2], [1, 0, 1],
                            [0, 1, 1], [1, 1, 1], 1, 1))
    save("gp1_max", x.max(axis=(2, 3, 4)).reshape(1, 2, 1, 1, 1))
    save("gp1_avg", x.astype(np.float64).mean(axis=(2, 3, 4))
         .reshape(1, 2, 1, 1, 1))
    y = randn(2, 3, 4, 5)
    save("gp2_x", y)
    save("gp2_max", y.max(axis=(2, 3), keepdims=True))
    save("gp2_avg", y.astype(np.float64).mean(axis=(2, 3), keepdims=True))
    z = randn(2, 3, 6)
    save("gp3_x", z)
    save("gp3_max", z.max(axis=2, keepdims=True))
    save("gp3_avg", z.astype(np.float64).mean(axis=2, keepdims=True))


# --------------------------------------------------------------------
# Normalization and the softmax family.
# --------------------------------------------------------------------

def gen_norm():
    x = randn(2, 3, 4, 5) * 3 + 1
    sc, bi, mu, var = randn(3), randn(3), randn(3), rng.random(3) + 0.5
    save("bn_x", x), save("bn_scale", sc), save("bn_b", bi)
    save("bn_mean", mu), save("bn_var", var)
    shp = (1, 3, 1, 1)
    save("bn_y", (x - mu.reshape(shp)) / np.sqrt(var.reshape(shp) + 1e-5) *
         sc.reshape(shp) + bi.reshape(shp))
    save("bn_y_eps", (x - mu.reshape(shp)) / np.sqrt(var.reshape(shp) +
                                                     0.1) *
         sc.reshape(shp) + bi.reshape(shp))
    xd = x.astype(np.float64)
    m = xd.mean(axis=(2, 3), keepdims=True)
    v = xd.var(axis=(2, 3), keepdims=True)
    save("in_y", (xd - m) / np.sqrt(v + 1e-5) * sc.reshape(shp) +
         bi.reshape(shp))
    r = randn(4, 7) * 2 - 1
    g, b = randn(7), randn(7)
    save("ln_x", r), save("ln_scale", g), save("ln_b", b)
    rd = r.astype(np.float64)
    m = rd.mean(axis=1, keepdims=True)
    v = ((rd - m) ** 2).mean(axis=1, keepdims=True)
    save("ln_y", (rd - m) / np.sqrt(v + 1e-5) * g + b)
    save("ln_y_eps", (rd - m) / np.sqrt(v + 1e-2) * g + b)


def gen_softmax():
    x = randn(5, 9) * 4
    x[2, 3] = x[2, 7] = 20.0         # a tie for hardmax: the first wins
    save("sm_x", x)
    xd = x.astype(np.float64)
    e = np.exp(xd - xd.max(axis=1, keepdims=True))
    save("sm_y", e / e.sum(axis=1, keepdims=True))
    save("lsm_y", np.log(e / e.sum(axis=1, keepdims=True)))
    save("hm_y", np.eye(9)[np.argmax(x, axis=1)])
    big = randn(3, 6) * 100           # exp would overflow without the max
    save("sm_big", big)
    eb = np.exp(big.astype(np.float64) - big.max(axis=1, keepdims=True))
    save("sm_big_y", eb / eb.sum(axis=1, keepdims=True))


GENERATORS = [gen_conv, gen_pool, gen_norm, gen_softmax]


def main():
    global out_dir
    if len(sys.argv) != 3:
        print("usage: gen_fixtures.py TDSL OUTDIR", file=sys.stderr)
        return 2
    tdsl, out_dir = os.path.abspath(sys.argv[1]), sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    for gen in GENERATORS:
        gen()
    here = os.path.dirname(os.path.abspath(__file__))
    scripts = sorted(f for f in os.listdir(os.path.join(here, "numpy"))
                     if f.endswith(".tdsl"))
    failed = 0
    for name in scripts:
        path = os.path.join(here, "numpy", name)
        r = subprocess.run([tdsl, path], cwd=out_dir, capture_output=True,
                           text=True)
        if r.returncode != 0 or r.stderr:
            failed += 1
            print("FAIL: %s (exit status %d)" % (name, r.returncode))
            sys.stdout.write(r.stdout + r.stderr)
        else:
            print("ok: %s" % name)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
