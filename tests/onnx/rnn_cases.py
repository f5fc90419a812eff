# rnn_cases.py OUTDIR - writes RNN/GRU/LSTM models (m<k>.onnx) with
# inputs and expected outputs (m<k>_in<j>.pb, m<k>_out<j>.pb) for what
# the ONNX suite does not cover: reverse and bidirectional runs, GRU's
# linear_before_reset, clip, sequence_lens, initial states, other
# activations.  The expected outputs come from a plain numpy reading of
# the operators' definitions (ref below).  Prints the number of cases.
# Used by tests/cli/onnx_rnn.sh.
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ACT = {
    'Sigmoid': lambda x: 1 / (1 + np.exp(-x)),
    'Tanh': np.tanh,
    'Relu': lambda x: np.maximum(x, 0),
}
GATES = {'RNN': 1, 'GRU': 3, 'LSTM': 4}
NACT = {'RNN': 1, 'GRU': 2, 'LSTM': 3}
DEFAULT_ACT = {'RNN': ['Tanh'], 'GRU': ['Sigmoid', 'Tanh'],
               'LSTM': ['Sigmoid', 'Tanh', 'Tanh']}


def ref(kind, X, W, R, B, sl, h0, c0, P, direction, lbr, clip, acts):
    T, N, _ = X.shape
    D, H = W.shape[0], R.shape[2]
    ng = GATES[kind]
    if B is None:
        B = np.zeros((D, 2 * ng * H), np.float32)

    def cl(v):
        return np.clip(v, -clip, clip) if clip else v
    Y = np.zeros((T, D, N, H), np.float32)
    Yh = np.zeros((D, N, H), np.float32)
    Yc = np.zeros((D, N, H), np.float32)
    per = NACT[kind]
    for d in range(D):
        f = [ACT[a] for a in acts[d * per:(d + 1) * per]]
        h = h0[d] if h0 is not None else np.zeros((N, H), np.float32)
        c = c0[d] if c0 is not None else np.zeros((N, H), np.float32)
        rev = direction == 'reverse' or (direction == 'bidirectional'
                                         and d == 1)
        Wb, Rb = B[d, :ng * H], B[d, ng * H:]
        for s in range(T):
            t = T - 1 - s if rev else s
            xw = X[t] @ W[d].T + Wb
            hr = h @ R[d].T
            nc = c
            if kind == 'RNN':
                nh = f[0](cl(xw + hr + Rb))
            elif kind == 'GRU':
                z = f[0](cl(xw[:, :H] + hr[:, :H] + Rb[:H]))
                r = f[0](cl(xw[:, H:2 * H] + hr[:, H:2 * H] + Rb[H:2 * H]))
                if lbr:
                    n = f[1](cl(xw[:, 2 * H:] + r * (hr[:, 2 * H:]
                                                     + Rb[2 * H:])))
                else:
                    n = f[1](cl(xw[:, 2 * H:] + (r * h) @ R[d][2 * H:].T
                                + Rb[2 * H:]))
                nh = (1 - z) * n + z * h
            else:
                g = xw + hr + Rb
                p = P[d] if P is not None else np.zeros(3 * H, np.float32)
                i = f[0](cl(g[:, :H] + p[:H] * c))
                fg = f[0](cl(g[:, 2 * H:3 * H] + p[2 * H:] * c))
                nc = fg * c + i * f[1](cl(g[:, 3 * H:]))
                o = f[0](cl(g[:, H:2 * H] + p[H:2 * H] * nc))
                nh = o * f[2](cl(nc))
            if sl is not None:
                keep = (t < sl)[:, None]
                nh = np.where(keep, nh, h)
                nc = np.where(keep, nc, c)
                Y[t, d] = np.where(keep, nh, 0)
            else:
                Y[t, d] = nh
            h, c = nh, nc
        Yh[d], Yc[d] = h, c
    return Y, Yh, Yc


# kind, attributes, with B, with sequence_lens, with P
CASES = [
    ('GRU', dict(direction='reverse', linear_before_reset=1),
     True, False, False),
    ('LSTM', dict(direction='bidirectional'), True, False, True),
    ('RNN', dict(direction='bidirectional', activations=['Relu', 'Tanh'],
                 clip=0.8), True, False, False),
    ('GRU', dict(direction='forward'), False, True, False),
    ('LSTM', dict(direction='forward', clip=1.5), True, True, True),
    ('GRU', dict(direction='bidirectional', linear_before_reset=1,
                 activations=['Sigmoid', 'Relu', 'Tanh', 'Tanh']),
     False, False, False),
]


def save(path, a):
    with open(path, 'wb') as f:
        f.write(numpy_helper.from_array(a).SerializeToString())


def main():
    os.chdir(sys.argv[1])
    rng = np.random.default_rng(1)
    T, N, I, H = 3, 2, 3, 4
    for k, (kind, attrs, use_b, use_sl, use_p) in enumerate(CASES):
        D = 2 if attrs['direction'] == 'bidirectional' else 1
        ng = GATES[kind]

        def rand(*shape, scale=1.0):
            return (rng.standard_normal(shape) * scale).astype(np.float32)
        X = rand(T, N, I)
        W = rand(D, ng * H, I, scale=0.5)
        R = rand(D, ng * H, H, scale=0.5)
        B = rand(D, 2 * ng * H) if use_b else None
        sl = np.array([3, 2], np.int32) if use_sl else None
        h0 = rand(D, N, H)
        c0 = rand(D, N, H) if kind == 'LSTM' else None
        P = rand(D, 3 * H) if use_p else None
        acts = attrs.get('activations') or DEFAULT_ACT[kind] * D
        outs = ref(kind, X, W, R, B, sl, h0, c0, P, attrs['direction'],
                   attrs.get('linear_before_reset', 0), attrs.get('clip'),
                   acts)
        ins = [('X', X), ('W', W), ('R', R), ('B', B),
               ('sequence_lens', sl), ('initial_h', h0)]
        if kind == 'LSTM':
            ins += [('initial_c', c0), ('P', P)]
        names = [n if a is not None else '' for n, a in ins]
        while names[-1] == '':
            names.pop()
        onames = ['Y', 'Y_h'] + (['Y_c'] if kind == 'LSTM' else [])
        node = helper.make_node(kind, names, onames, hidden_size=H, **attrs)
        vi = [helper.make_tensor_value_info(
            n, TensorProto.INT32 if n == 'sequence_lens'
            else TensorProto.FLOAT, a.shape) for n, a in ins if a is not None]
        ov = [helper.make_tensor_value_info(n, TensorProto.FLOAT, a.shape)
              for n, a in zip(onames, outs)]
        m = helper.make_model(helper.make_graph([node], 'g', vi, ov),
                              opset_imports=[helper.make_opsetid('', 14)])
        onnx.checker.check_model(m)
        onnx.save(m, 'm%d.onnx' % k)
        for j, a in enumerate(a for _, a in ins if a is not None):
            save('m%d_in%d.pb' % (k, j), a)
        for j, a in enumerate(outs[:len(onames)]):
            save('m%d_out%d.pb' % (k, j), a)
    print(len(CASES))


main()
