# nms_cases.py OUTDIR - writes NonMaxSuppression models for
# tests/cli/onnx_nms.sh: m<k>.onnx with inputs m<k>_in<j>.pb (bound at
# import: the output's size depends on them) and the expected outputs
# m<k>_out0.pb from the greedy choice below (ONNX's: highest score
# first, the lower index first among equal scores); models the importer
# refuses (r_<name>.onnx with their inputs r_<name>_in<j>.pb).
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as TP, helper as H

from caselib import vi, write

F, I64 = TP.FLOAT, TP.INT64
N = H.make_node


def extents(bx, center):
    """Each box's low and high ends on its two axes (float32)."""
    bx = bx.astype(np.float32)
    if center:
        half = bx[:, 2:] / np.float32(2)
        return bx[:, :2] - half, bx[:, :2] + half
    return np.minimum(bx[:, :2], bx[:, 2:]), np.maximum(bx[:, :2], bx[:, 2:])


def overlaps(lo, hi, i, j, thr):
    """Boxes i and j overlap with an IoU above thr (float32)."""
    ext = np.minimum(hi[i], hi[j]) - np.maximum(lo[i], lo[j])
    if not (ext[0] > 0 and ext[1] > 0):
        return False
    inter = ext[0] * ext[1]
    ai = (hi[i][0] - lo[i][0]) * (hi[i][1] - lo[i][1])
    aj = (hi[j][0] - lo[j][0]) * (hi[j][1] - lo[j][1])
    union = ai + aj - inter
    if not (inter > 0 and ai > 0 and aj > 0 and union > 0):
        return False
    return inter / union > thr


def nms(boxes, scores, max_out, iou, sthr, center):
    rows = []
    for b in range(boxes.shape[0]):
        lo, hi = extents(boxes[b], center)
        for c in range(scores.shape[1]):
            s = scores[b, c]
            kept = []
            for i in sorted(range(len(s)), key=lambda i: (-s[i], i)):
                if len(kept) >= max_out:
                    break
                if sthr is not None and not s[i] > sthr:
                    continue
                if any(overlaps(lo, hi, i, j, np.float32(iou))
                       for j in kept):
                    continue
                kept.append(i)
                rows.append((b, c, i))
    return np.array(rows, np.int64).reshape(-1, 3)


def model(node, ins, opset=11):
    g = H.make_graph([node], 'g', ins, [vi('sel', I64, ['n', 3])])
    return H.make_model(g, opset_imports=[H.make_opsetid('', opset)])


NAMES = ['boxes', 'scores', 'max_out', 'iou', 'sthr']


def nms_model(nin, center=None, shapes=None):
    attrs = {} if center is None else {'center_point_box': center}
    ins = [vi(n, I64 if n == 'max_out' else F, s)
           for n, s in zip(NAMES[:nin], shapes)]
    return model(N('NonMaxSuppression', NAMES[:nin], ['sel'], **attrs), ins)


def data(prefix, vals):
    for j, v in enumerate(vals):
        write(v, '%s_in%d.pb' % (prefix, j))


def main():
    os.chdir(sys.argv[1])
    rng = np.random.default_rng(11)
    ms = []

    # 0: corners (some given flipped), 2 batches x 2 classes x 7 boxes:
    # batch 0 is a chain of boxes each overlapping its neighbours (the
    # greedy choice keeps every other one, which takes rounds), class 1
    # with equal scores (the lower index wins) and two identical boxes;
    # batch 1 random, with a score threshold and a limit of 3.
    chain = np.array([[0, 0.6 * k, 1, 0.6 * k + 1] for k in range(7)],
                     np.float32)
    chain[2] = chain[2][[2, 3, 0, 1]]           # flipped corners
    rand = rng.random((7, 4)).astype(np.float32) * 4
    rand[5] = rand[3]
    boxes = np.stack([chain, rand])
    scores = np.stack([
        [np.linspace(0.9, 0.3, 7), [0.6, 0.6, 0.3, 0.5, 0.5, 0.3, 0.3]],
        rng.random((2, 7))]).astype(np.float32)
    scores[1, 0, 5] = scores[1, 0, 3]
    vals = [boxes, scores, np.array([3], np.int64),
            np.array([0.2], np.float32), np.array([0.25], np.float32)]
    ms.append((nms_model(5, 0, [v.shape for v in vals]), vals,
               nms(boxes, scores, 3, 0.2, 0.25, 0)))

    # 1: centres, no score threshold (four inputs), 1 batch x 3 classes x
    # 6 boxes, a limit above the number of boxes, scalar inputs.
    cb = np.concatenate([rng.random((6, 2)) * 1.5, rng.random((6, 2)) + 0.8],
                        axis=1).astype(np.float32)
    cs = rng.random((1, 3, 6)).astype(np.float32)
    vals = [cb[None], cs, np.int64(10), np.float32(0.3)]
    ms.append((nms_model(4, 1, [v.shape for v in vals]), vals,
               nms(cb[None], cs, 10, 0.3, None, 1)))

    for k, (m, vals, out) in enumerate(ms):
        onnx.checker.check_model(m)
        onnx.save(m, 'm%d.onnx' % k)
        data('m%d' % k, vals)
        write(out, 'm%d_out0.pb' % k)

    # Refused.
    def refuse(name, m, vals):
        onnx.save(m, 'r_%s.onnx' % name)
        data('r_' + name, vals)
    one = np.ones((1, 1, 4), np.float32)
    one[0, 0, :2] = 0
    sc = np.ones((1, 1, 1), np.float32)
    shp = [[1, 1, 4], [1, 1, 1], [1]]
    refuse('center', nms_model(3, 2, shp), [one, sc, np.array([1])])
    refuse('shape', nms_model(3, None, [[1, 1, 4], [1, 1, 2], [1]]),
           [one, np.ones((1, 1, 2), np.float32), np.array([1])])
    big = rng.random((1, 300, 4)).astype(np.float32)
    refuse('big', nms_model(3, None, [[1, 300, 4], [1, 1, 300], [1]]),
           [big, np.ones((1, 1, 300), np.float32), np.array([1])])
    refuse('thr', nms_model(4, None, shp + [[2]]),
           [one, sc, np.array([1]), np.zeros(2, np.float32)])
    print(len(ms))


main()
