#!/bin/sh
# onnx_rnn.sh - RNN, GRU and LSTM cases beyond the ONNX suite (reverse,
# bidirectional, linear_before_reset, clip, sequence_lens, initial
# states, Relu): models and expected outputs made by
# tests/onnx/rnn_cases.py, imported, run on the interpreter and on cpu,
# compared.  Skipped (77) without python3-onnx and python3-numpy.
. "$(dirname "$0")/lib.sh"
onnx_cases rnn_cases.py
exit 0
