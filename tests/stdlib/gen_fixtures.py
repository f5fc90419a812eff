#!/usr/bin/python3
"""gen_fixtures.py - numpy fixtures for the std.nn and std.math tests.

Usage: gen_fixtures.py TDSL OUTDIR

Writes the inputs and the expected outputs of every case below as .npy
files into OUTDIR, then runs a copy of each tests/stdlib/numpy/*.tdsl
in OUTDIR: the script loads the files, calls the std
kernel and asserts allclose against the expected output.  The expected
values are computed here with numpy from the ONNX operator definitions,
written independently of the tdsl kernels (padded copies, sliding
windows and scatters rather than the kernels' gathers).  Exit status:
0 when every script passes, 1 otherwise, 77 when numpy is missing.
"""

import itertools
import math
import os
import shutil
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
    # conv3d_same, both ways, with strides (2, 1, 2) and groups
    for tag, lower in (("up", 0), ("lo", 1)):
        pd = same_pads(5, 2, 2, 1, lower)
        ph = same_pads(6, 3, 1, 1, lower)
        pw = same_pads(5, 2, 2, 1, lower)
        save("c3s_" + tag, conv_ref(x, w, b, [2, 1, 2],
                                    [pd[0], ph[0], pw[0]],
                                    [pd[1], ph[1], pw[1]], [1, 1, 1], 2))
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
    x, w, b = randn(1, 4, 3, 2, 3), randn(4, 1, 2, 3, 2), randn(2)
    save("ct3_x", x), save("ct3_w", w), save("ct3_b", b)
    save("ct3_y", conv_transpose_ref(x, w, b, [2, 1, 2], [1, 0, 0],
                                     [0, 1, 1], [1, 0, 1], [1, 2, 1], 2))


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


# --------------------------------------------------------------------
# std.math: products, reductions and data movement, each through
# numpy's own operation (matmul, np.transpose, np.pad, np.take, ...).
# --------------------------------------------------------------------

def gen_matmul():
    a, b = randn(4, 6), randn(6, 5)
    save("mm_a", a), save("mm_b", b), save("mm_y", a @ b)
    a, b = randn(3, 4, 6), randn(1, 6, 2)
    save("mm3_a", a), save("mm3_b", b), save("mm3_y", np.matmul(a, b))
    save("mm3_yt", np.matmul(b.transpose(0, 2, 1), a.transpose(0, 2, 1)))
    a, b = randn(2, 1, 3, 4), randn(1, 3, 4, 5)
    save("mm4_a", a), save("mm4_b", b), save("mm4_y", np.matmul(a, b))
    # gemm: every transpose, C as [M, N], [1, N], [M, 1] and [1, 1]
    a, b = randn(3, 5), randn(5, 4)
    save("g_a", a), save("g_b", b)
    save("g_at", a.T), save("g_bt", b.T)
    c = randn(3, 4)
    save("g_c", c), save("g_c1n", c[:1]), save("g_cm1", c[:, :1])
    save("g_c11", c[:1, :1])
    ab = a.astype(np.float64) @ b
    save("g_y", ab + c)
    save("g_y_ab", 0.5 * ab - 2.0 * c[:1])
    save("g_y_m1", ab + c[:, :1])
    save("g_y_11", 3.0 * ab + c[0, 0])


def gen_reduce():
    x = randn(4, 7)
    x[1] = np.abs(x[1]) + 0.1          # a positive row for ReduceLogSum
    save("r_x", x)
    xd = x.astype(np.float64)
    save("r_sum", xd.sum(axis=1)), save("r_mean", xd.mean(axis=1))
    save("r_max", x.max(axis=1)), save("r_min", x.min(axis=1))
    save("r_prod", xd.prod(axis=1))
    save("r_l1", np.abs(xd).sum(axis=1))
    save("r_l2", np.sqrt((xd ** 2).sum(axis=1)))
    save("r_ssq", (xd ** 2).sum(axis=1))
    save("r_lse", np.log(np.exp(xd).sum(axis=1)))
    save("r_log_sum", np.log(xd[1].sum()).reshape(1))
    save("r_x1", x[1:2])
    save("r_argmax", x.argmax(axis=1), np.int64)
    save("r_argmin", x.argmin(axis=1), np.int64)
    big = x * 200                       # exp overflows f32 without the max
    save("r_big", big)
    bd = big.astype(np.float64)
    m = bd.max(axis=1, keepdims=True)
    save("r_big_lse", (m + np.log(np.exp(bd - m).sum(axis=1,
                                                      keepdims=True)))[:, 0])


def gen_movement():
    x3, x4 = randn(2, 3, 4), randn(2, 3, 4, 5)
    save("t_x2", x3[0]), save("t_x3", x3), save("t_x4", x4)
    save("t_2", x3[0].T)
    for perm in itertools.permutations(range(3)):
        save("t3_" + "".join(map(str, perm)), np.transpose(x3, perm))
    for perm in [(0, 2, 3, 1), (0, 3, 1, 2), (3, 2, 1, 0), (1, 0, 3, 2)]:
        save("t4_" + "".join(map(str, perm)), np.transpose(x4, perm))
    # flatten, squeeze, unsqueeze: numpy's reshape and expand_dims
    save("fl_3", x3.reshape(2, 12)), save("fl_4", x4.reshape(2, 60))
    save("us_first", np.expand_dims(x3, 0))
    save("us_last", np.expand_dims(x3, -1))
    # concat
    a1, b1 = randn(3), randn(5)
    save("cc_a1", a1), save("cc_b1", b1)
    save("cc_1", np.concatenate([a1, b1]))
    a2, b2r, b2c = randn(2, 3), randn(4, 3), randn(2, 1)
    save("cc_a2", a2), save("cc_b2r", b2r), save("cc_b2c", b2c)
    save("cc_2r", np.concatenate([a2, b2r], 0))
    save("cc_2c", np.concatenate([a2, b2c], 1))
    save("cc_a3", x3)
    for ax, shp in ((0, (1, 3, 4)), (1, (2, 2, 4)), (2, (2, 3, 3))):
        b = randn(*shp)
        save("cc_b3_%d" % ax, b)
        save("cc_3_%d" % ax, np.concatenate([x3, b], ax))
    save("cc_a4", x4)
    for ax, shp in ((0, (3, 3, 4, 5)), (1, (2, 6, 4, 5)), (2, (2, 3, 1, 5)),
                    (3, (2, 3, 4, 2))):
        b = randn(*shp)
        save("cc_b4_%d" % ax, b)
        save("cc_4_%d" % ax, np.concatenate([x4, b], ax))
    # slice: numpy slicing, positive and negative steps
    v = randn(10)
    save("sl_v", v)
    save("sl_1a", v[1:8:3]), save("sl_1b", v[9::-2])
    save("sl_1c", v[7:2:-1])
    save("sl_1d", v[5:5])
    save("sl_2", x3[0][1::1, ::-2])
    save("sl_3", x3[::-1, 0:3:2, 1:])
    save("sl_4", x4[:, ::-1, 1:4:2, 4:0:-3])
    # split = two slices
    save("sp_a", x4[:, :1]), save("sp_b", x4[:, 1:])
    # pad: numpy's modes
    pv = randn(5)
    save("pd_v", pv)
    for mode in ("constant", "edge", "reflect", "wrap"):
        kw = {"constant_values": 1.5} if mode == "constant" else {}
        save("pd_1_" + mode, np.pad(pv, (3, 2), mode, **kw))
        save("pd_2_" + mode, np.pad(x3[0], ((1, 2), (2, 0)), mode, **kw))
        save("pd_3_" + mode, np.pad(x3, ((0, 1), (2, 1), (1, 3)), mode,
                                    **kw))
        save("pd_4_" + mode, np.pad(x4, ((0, 0), (0, 0), (2, 1), (1, 3)),
                                    mode, **kw))
    save("pd_4_wrap_big", np.pad(x4[:, :, :2], ((1, 0), (0, 0), (3, 4),
                                               (0, 1)), "wrap"))
    save("pd_x4s", x4[:, :, :2])
    # gather with negative indices
    e = randn(6, 3)
    save("ga_x", e)
    idx = np.array([2, -1, 0, 5, -6, 2], dtype=np.int64)
    save("ga_idx", idx, np.int64)
    save("ga_rows", np.take(e, idx, axis=0))
    cidx = np.array([2, -1, 0, -3], dtype=np.int64)
    save("ga_cidx", cidx, np.int64)
    save("ga_cols", np.take(e, cidx, axis=1))
    idx2 = np.array([[0, 1, -2], [5, 3, 3]], dtype=np.int64)
    save("ga_idx2", idx2, np.int64)
    save("ga_rows2", np.take(e, idx2, axis=0))
    # tile and expand
    save("ti_1", np.tile(v, 3)), save("ti_2", np.tile(x3[0], (2, 3)))
    save("ti_3", np.tile(x3, (1, 2, 2)))
    save("ti_4", np.tile(x4, (2, 1, 1, 2)))
    c1, r1, o1 = randn(3, 1), randn(1, 4), randn(1)
    save("ex_c", c1), save("ex_r", r1), save("ex_1", o1)
    save("ex_c_y", np.broadcast_to(c1, (3, 5)))
    save("ex_r_y", np.broadcast_to(r1, (2, 4)))
    save("ex_1_y", np.broadcast_to(o1, (6,)))
    e3, e4 = randn(1, 3, 1), randn(2, 1, 1, 3)
    save("ex_3", e3), save("ex_4", e4)
    save("ex_3_y", np.broadcast_to(e3, (4, 3, 2)))
    save("ex_4_y", np.broadcast_to(e4, (2, 5, 2, 3)))


# --------------------------------------------------------------------
# Element-wise activations, from their ONNX formulas (erf through
# math.erf, numpy having none), in f32, f64 and f16.
# --------------------------------------------------------------------

def gen_activations():
    x = np.concatenate([np.linspace(-6, 6, 49), [-30.0, -0.5, 0.0, 30.0]])
    x = x.reshape(1, 53)
    erf = np.vectorize(math.erf)
    y = {
        "relu": np.maximum(x, 0),
        "leaky_relu": np.where(x < 0, 0.1 * x, x),
        "elu": np.where(x < 0, 0.5 * (np.exp(x) - 1), x),
        # ONNX's default alpha and gamma, float attributes
        "selu": 1.05070102214813232421875 * np.where(
            x <= 0, 1.67326319217681884765625 * (np.exp(x) - 1), x),
        "gelu": 0.5 * x * (1 + erf(x / math.sqrt(2))),
        "gelu_tanh": 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) *
                                            (x + 0.044715 * x ** 3))),
        "sigmoid": 1 / (1 + np.exp(-x)),
        "hard_sigmoid": np.clip(0.2 * x + 0.5, 0, 1),
        "softplus": np.log1p(np.exp(x)),
        "tanh": np.tanh(x),
        "clip": np.clip(x, -1.5, 2.0),
        "clip_lo": np.maximum(x, 0.25),
    }
    for dt, tag in ((np.float32, "f32"), (np.float64, "f64"),
                    (np.float16, "f16")):
        save("act_x_" + tag, x.reshape(53), dt)
        save("act_x2_" + tag, x.reshape(53)[:48].reshape(2, 4, 6), dt)
        for k, v in y.items():
            save("act_%s_%s" % (k, tag), v.reshape(53), dt)
            save("act2_%s_%s" % (k, tag), v.reshape(53)[:48].reshape(2, 4, 6),
                 dt)


# --------------------------------------------------------------------
# The generic kernels at other dtypes and ranks than f32 matrices.
# --------------------------------------------------------------------

def gen_generic():
    # batch normalization at ranks 2, 3 and 5; layer norm and the
    # softmax family at rank 3; instance norm 1-d and 3-d
    sc, bi, mu = randn(3), randn(3), randn(3)
    var = rng.random(3).astype(np.float32) + 0.5
    save("gn_scale", sc), save("gn_b", bi), save("gn_mean", mu)
    save("gn_var", var)
    xs = {"2": randn(4, 3), "3": randn(2, 3, 5), "5": randn(1, 3, 2, 3, 2)}
    for tag, x in xs.items():
        b = [1, 3] + [1] * (x.ndim - 2)
        save("gn_x" + tag, x)
        save("gn_bn" + tag, (x - mu.reshape(b)) / np.sqrt(var.reshape(b) +
                                                          1e-5) *
             sc.reshape(b) + bi.reshape(b))
    for tag, axes in (("3", (2,)), ("5", (2, 3, 4))):
        x = xs[tag]
        xd = x.astype(np.float64)
        m = xd.mean(axis=axes, keepdims=True)
        v = xd.var(axis=axes, keepdims=True)
        b = [1, 3] + [1] * (x.ndim - 2)
        save("gn_in" + tag, (xd - m) / np.sqrt(v + 1e-5) * sc.reshape(b) +
             bi.reshape(b))
    x = randn(2, 3, 5) * 3
    g, b = randn(5), randn(5)
    save("gn_r3", x), save("gn_g5", g), save("gn_b5", b)
    xd = x.astype(np.float64)
    m = xd.mean(axis=-1, keepdims=True)
    v = xd.var(axis=-1, keepdims=True)
    save("gn_ln3", (xd - m) / np.sqrt(v + 1e-5) * g + b)
    e = np.exp(xd - xd.max(axis=-1, keepdims=True))
    save("gn_sm3", e / e.sum(axis=-1, keepdims=True))
    save("gn_lsm3", np.log(e / e.sum(axis=-1, keepdims=True)))
    save("gn_hm3", np.eye(5)[np.argmax(x, axis=-1)])
    # softmax and conv2d in f64, max and average pooling in f16
    save("gn_sm3_f64", x, np.float64)
    save("gn_sm3_f64_y", e / e.sum(axis=-1, keepdims=True), np.float64)
    cx, cw, cb = randn(1, 2, 5, 5), randn(3, 2, 3, 3), randn(3)
    save("gn_cx", cx, np.float64), save("gn_cw", cw, np.float64)
    save("gn_cb", cb, np.float64)
    save("gn_cy", conv_ref(cx, cw, cb, [1, 2], [1, 0], [1, 1], [1, 1], 1),
         np.float64)
    px = randn(1, 2, 6, 6).astype(np.float16)
    save("gn_px", px, np.float16)
    save("gn_pmax", pool_ref(px, "max", [3, 3], [2, 2], [1, 1], [1, 1],
                             [1, 1]), np.float16)
    save("gn_pavg", pool_ref(px.astype(np.float64), "avg", [3, 3], [2, 2],
                             [1, 1], [1, 1], [1, 1]), np.float16)
    # matmul batched over two equal axes, in f32 and in i32
    a, b = randn(2, 3, 4, 5), randn(2, 3, 5, 2)
    save("gn_ma", a), save("gn_mb", b), save("gn_my", np.matmul(a, b))
    ai = rng.integers(-9, 10, (2, 3, 4), dtype=np.int32)
    bi2 = rng.integers(-9, 10, (2, 4, 3), dtype=np.int32)
    save("gn_mai", ai, np.int32), save("gn_mbi", bi2, np.int32)
    save("gn_myi", np.matmul(ai, bi2), np.int32)
    # reductions at rank 3, and on i32
    r = randn(2, 3, 4)
    save("gn_r", r), save("gn_rsum", r.astype(np.float64).sum(axis=-1))
    save("gn_rmax", r.max(axis=-1))
    save("gn_rmean", r.astype(np.float64).mean(axis=-1))
    save("gn_rarg", r.argmin(axis=-1), np.int64)
    save("gn_rsumi", ai.sum(axis=-1), np.int32)
    save("gn_rmaxi", ai.max(axis=-1), np.int32)
    save("gn_rl1i", np.abs(ai).sum(axis=-1), np.int32)
    # data movement of other dtypes: i64 transpose, bool pad, u8 tile,
    # f16 concat, gather with i32 indices
    t = rng.integers(-1000, 1000, (2, 3, 4), dtype=np.int64)
    save("gn_t", t, np.int64), save("gn_tt", np.transpose(t, (1, 2, 0)),
                                    np.int64)
    bo = rng.random((3, 4)) < 0.5
    save("gn_bo", bo, np.bool_)
    save("gn_bo_pad", np.pad(bo, ((1, 0), (2, 1)), constant_values=True),
         np.bool_)
    save("gn_bo_refl", np.pad(bo, ((1, 0), (2, 1)), "reflect"), np.bool_)
    u = rng.integers(0, 256, (2, 3), dtype=np.uint8)
    save("gn_u", u, np.uint8), save("gn_u_tile", np.tile(u, (2, 2)),
                                    np.uint8)
    h1, h2 = randn(2, 3), randn(2, 2)
    save("gn_h1", h1, np.float16), save("gn_h2", h2, np.float16)
    save("gn_hcat", np.concatenate([h1, h2], 1), np.float16)
    gidx = np.array([-1, 0, 2], dtype=np.int32)
    save("gn_gidx", gidx, np.int32)
    save("gn_gy", np.take(t[0], gidx, axis=0), np.int64)
    # where and cast
    c = rng.random((2, 3, 4)) < 0.5
    wx, wy = randn(2, 3, 4), randn(2, 3, 4)
    save("gn_wc", c, np.bool_), save("gn_wx", wx), save("gn_wy", wy)
    save("gn_wz", np.where(c, wx, wy))
    cv = (randn(2, 3) * 50).astype(np.float32)
    save("gn_cv", cv), save("gn_cv_i32", np.trunc(cv), np.int32)
    save("gn_cv_f16", cv, np.float16)
    save("gn_cv_bool", cv != 0, np.bool_)
    save("gn_clip_i", np.clip(ai, -3, 5), np.int32)


# --------------------------------------------------------------------
# std.axes: reductions over axis sets (numpy's own reductions with
# keepdims), ArgMax/ArgMin along an axis, squeezes and splits.
# --------------------------------------------------------------------

AX_SHAPES = {1: [5], 2: [3, 4], 3: [2, 3, 4], 4: [2, 3, 2, 3]}
AX_SUBSETS = {1: [[0]], 2: [[0, 1], [0], [1]],
              3: [[0, 1, 2], [0], [2], [0, 2], [1]],
              4: [[0, 1, 2, 3], [1], [0, 3], [2, 3], [1, 2]]}


def reduce_ref(op, x, axes):
    a = tuple(axes)
    xd = x.astype(np.float64)
    if op == "sum":
        return xd.sum(axis=a, keepdims=True)
    if op == "mean":
        return xd.mean(axis=a, keepdims=True)
    if op == "max":
        return x.max(axis=a, keepdims=True)
    if op == "min":
        return x.min(axis=a, keepdims=True)
    if op == "prod":
        return xd.prod(axis=a, keepdims=True)
    if op == "l1":
        return np.abs(xd).sum(axis=a, keepdims=True)
    if op == "l2":
        return np.sqrt((xd * xd).sum(axis=a, keepdims=True))
    if op == "sum_square":
        return (xd * xd).sum(axis=a, keepdims=True)
    if op == "log_sum":
        return np.log(xd.sum(axis=a, keepdims=True))
    return np.log(np.exp(xd).sum(axis=a, keepdims=True))   # log_sum_exp


def gen_axes():
    for n, shape in AX_SHAPES.items():
        x = randn(*shape)
        p = np.abs(randn(*shape)) + 0.1     # positive, for ReduceLogSum
        save("ax_x%d" % n, x)
        save("ax_p%d" % n, p)
        for sub in AX_SUBSETS[n]:
            tag = "".join(map(str, sub))
            for op in ["sum", "mean", "max", "min", "prod", "l1", "l2",
                       "sum_square", "log_sum", "log_sum_exp"]:
                src = p if op == "log_sum" else x
                save("ax_%s_%dd_%s" % (op, n, tag), reduce_ref(op, src, sub))
        for d in range(n):
            save("ax_argmax_%dd_%d" % (n, d),
                 np.expand_dims(x.argmax(axis=d), d), np.int64)
            save("ax_argmin_%dd_%d" % (n, d),
                 np.expand_dims(x.argmin(axis=d), d), np.int64)
    x1 = np.load(os.path.join(out_dir, "ax_x1.npy"))
    x2 = np.load(os.path.join(out_dir, "ax_x2.npy"))
    x3 = np.load(os.path.join(out_dir, "ax_x3.npy"))
    x4 = np.load(os.path.join(out_dir, "ax_x4.npy"))
    xi = rng.integers(-3, 4, size=(3, 4)).astype(np.int32)   # with ties
    save("ax_xi", xi, np.int32)
    save("ax_xi_sum1", xi.sum(axis=1, keepdims=True), np.int32)
    save("ax_xi_max0", xi.max(axis=0, keepdims=True), np.int32)
    save("ax_xi_prod", np.prod(xi.astype(np.int64)).reshape(1, 1),
         np.int32)
    save("ax_xi_argmax1", np.expand_dims(xi.argmax(axis=1), 1), np.int64)
    save("ax_xi_argmin0", np.expand_dims(xi.argmin(axis=0), 0), np.int64)
    xd = rng.standard_normal((2, 3, 4))
    save("ax_xd", xd, np.float64)
    save("ax_xd_mean02", xd.mean(axis=(0, 2), keepdims=True), np.float64)
    xw = x3.astype(np.float64)
    save("ax_sum3_1_nokeep", xw.sum(axis=1))
    # Rank 0: np.save directly (ascontiguousarray would make it rank 1).
    np.save(os.path.join(out_dir, "ax_mean4_all_nokeep.npy"),
            np.array(x4.astype(np.float64).mean(), dtype=np.float32))
    save("ax_l2_4_013_nokeep",
         np.sqrt((x4.astype(np.float64) ** 2).sum(axis=(0, 1, 3))))
    save("ax_max4_12_t", x4.max(axis=(1, 2)).T)
    save("ax_sq4_1", x4[:, 0, :, :])
    np.save(os.path.join(out_dir, "ax_x1_2.npy"), np.array(x1[2]))
    save("ax_min3_02_nokeep", x3.min(axis=(0, 2)))
    for name, a in zip("ab", np.split(x1, [2])):
        save("ax_split1_" + name, a)
    for name, a in zip("abcd", np.split(x2, [1, 2, 3], axis=1)):
        save("ax_split2_" + name, a)
    for name, a in zip("abc", np.split(x3, [1, 3], axis=2)):
        save("ax_split3_" + name, a)
    for name, a in zip("ab", np.split(x4, [1], axis=1)):
        save("ax_split4_" + name, a)
    for name, a in zip("abc", np.split(x3, [1, 2], axis=0)):
        save("ax_split30_" + name, a)
    for name, a, shape in [("2to2", x2, [2, 6]), ("2to3", x2, [2, 3, 2]),
                           ("4to2", x4, [6, 6]), ("4to1", x4, [36]),
                           ("4to4", x4, [3, 2, 6, 1]),
                           ("1to3", x1, [1, 5, 1]), ("3to3", x3, [4, 3, 2]),
                           ("3to2", x3, [2, 12]), ("1to4", x1, [1, 1, 5, 1])]:
        save("ax_rs_" + name, np.reshape(a, shape))
    gi = np.array([1, -1, 0])
    save("ax_gi", gi, np.int64)
    for n, a in [(1, x1), (2, x2), (3, x3), (4, x4)]:
        for d in range(n):
            save("ax_g%d_%d" % (n, d), np.take(a, gi % a.shape[d], axis=d))


GENERATORS = [gen_conv, gen_pool, gen_norm, gen_softmax, gen_matmul,
              gen_reduce, gen_movement, gen_activations,
              gen_generic, gen_axes]


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
        # Run a copy beside the fixtures: a script's load paths are
        # relative to its own folder.
        path = os.path.join(out_dir, name)
        shutil.copyfile(os.path.join(here, "numpy", name), path)
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
