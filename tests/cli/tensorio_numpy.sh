#!/bin/sh
# tensorio_numpy.sh - cross-check tdsl's .npy and .safetensors code with
# numpy: files written by tdsl (build/tests/test_tensorio write) are read
# by numpy.load and by a separate Python reading of the safetensors
# layout; files written by numpy (every dtype, both byte orders, 0-d and
# empty arrays) and a safetensors file made by Python are read by tdsl
# (test_tensorio dump) and compared as text; numpy's Fortran-order files
# must be refused with the message that says how to save them.
# Skipped (77) when /usr/bin/python3 has no numpy.

/usr/bin/python3 -c 'import numpy' 2>/dev/null || exit 77
bin=build/tests/test_tensorio
if [ ! -x "$bin" ]; then
    echo "$bin not built (run 'make check')"
    exit 1
fi
TMP=${TMP:-$(mktemp -d)}
mkdir -p "$TMP/w" "$TMP/n" || exit 1

"$bin" write "$TMP/w" || exit 1

/usr/bin/python3 - "$TMP" <<'PY' || exit 1
import json, os, struct, sys
import numpy as np

tmp = sys.argv[1]
ok = True

def fail(msg):
    global ok
    ok = False
    print("FAIL:", msg)

# --- files written by tdsl, read by numpy -------------------------------
np_of = {"bool": np.bool_, "u8": np.uint8, "i8": np.int8, "i16": np.int16,
         "i32": np.int32, "i64": np.int64, "f16": np.float16,
         "f32": np.float32, "f64": np.float64, "u16": np.uint16,
         "u32": np.uint32, "u64": np.uint64}

def sample(name, n):
    # the same numbers as sample() in tests/unit/test_tensorio.c
    i = np.arange(n, dtype=np.int64)
    if name == "bool":
        return i % 3 == 0
    if name in ("u8", "u16", "u32", "u64"):
        return i * 37 % 256
    v = i * 7 % 23 - 11
    return v * 0.5 if name in ("f16", "bf16", "f32", "f64") else v

shapes = {"s": (), "7": (7,), "2x3x4": (2, 3, 4), "2x0": (2, 0)}
for name, dt in np_of.items():
    for tag, shape in shapes.items():
        path = os.path.join(tmp, "w", "%s_%s.npy" % (name, tag))
        a = np.load(path)
        want = sample(name, int(np.prod(shape))).astype(dt).reshape(shape)
        if a.dtype != np.dtype(dt) or a.shape != shape or \
           not np.array_equal(a, want):
            fail("%s: %s %s %r" % (path, a.dtype, a.shape, a))
        with open(path, "rb") as f:
            head = f.read(10)
        hlen = struct.unpack("<H", head[8:10])[0]
        if head[6] != 1 or (10 + hlen) % 64:
            fail("%s: version %d, data at %d" % (path, head[6], 10 + hlen))

a = np.load(os.path.join(tmp, "w", "i32_T.npy"))
if not np.array_equal(a, sample("i32", 12).astype(np.int32)
                      .reshape(3, 4).T):
    fail("i32_T.npy: %r" % a)

path = os.path.join(tmp, "w", "all.safetensors")
with open(path, "rb") as f:
    data = f.read()
n = struct.unpack("<Q", data[:8])[0]
header = json.loads(data[8:8 + n])
body = data[8 + n:]
if (8 + n) % 8 or header.pop("__metadata__") != {"made_by": "tdsl"}:
    fail("all.safetensors: header at %d, %r" % (8 + n, header))
st = {"BOOL": "bool", "U8": "u8", "I8": "i8", "I16": "i16", "I32": "i32",
      "I64": "i64", "F16": "f16", "BF16": "bf16", "F32": "f32",
      "F64": "f64", "U16": "u16", "U32": "u32", "U64": "u64"}
end = 0
for key in sorted(header):
    e = header[key]
    b, e_ = e["data_offsets"]
    if b != end or st[e["dtype"]] != key or e["shape"] != [3, 4]:
        fail("all.safetensors: entry %s %r" % (key, e))
    end = e_
    raw = body[b:e_]
    if key == "bf16":
        u = np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16
        a = u.view(np.float32).reshape(3, 4)
    else:
        a = np.frombuffer(raw, dtype=np.dtype(np_of[key]).newbyteorder("<"))
        a = a.reshape(3, 4)
    if not np.array_equal(a, sample(key, 12).reshape(3, 4)):
        fail("all.safetensors: %s = %r" % (key, a))
if end != len(body) or list(header) != sorted(header):
    fail("all.safetensors: data ends at %d of %d" % (end, len(body)))

# --- files written by numpy, with the text tdsl must print --------------
rng = np.random.default_rng(7)
name_of = {np.dtype(v).str[1:]: k for k, v in np_of.items()}

def text(name, a):
    lines = [" ".join([name, name_of[a.dtype.str[1:]]] +
                      [str(d) for d in a.shape])]
    for v in a.reshape(-1, order="C"):
        if a.dtype.kind == "f":
            lines.append("%.17g" % float(v))
        else:
            lines.append("%d" % int(v))
    return "\n".join(lines) + "\n"

def values(dt, shape):
    n = int(np.prod(shape))
    if dt == np.bool_:
        return rng.integers(0, 2, n).astype(bool).reshape(shape)
    if np.dtype(dt).kind == "f":
        v = rng.normal(0, 100, n) * 10.0 ** rng.integers(-6, 4, n)
        with np.errstate(over="ignore"):    # f16 overflows to inf
            return v.astype(dt).reshape(shape)
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, n, dtype=dt,
                        endpoint=True).reshape(shape)

cases = []
for name, dt in np_of.items():
    for shape in [(), (5,), (3, 4), (2, 3, 4), (0, 3)]:
        a = values(dt, shape)
        cases.append(("%s_%d" % (name, len(cases)), a))
        if np.dtype(dt).itemsize > 1:
            cases.append(("%s_be_%d" % (name, len(cases)),
                          a.astype(np.dtype(dt).newbyteorder(">"))))
        if len(shape) >= 2:
            cases.append(("%s_f_%d" % (name, len(cases)),
                          np.asfortranarray(a)))
nfortran = 0
for stem, a in cases:
    path = os.path.join(tmp, "n", stem + ".npy")
    np.save(path, a)
    with open(path, "rb") as f:
        fortran = b"'fortran_order': True" in f.read(128)
    if fortran:
        # numpy marks an array Fortran-order only when it is not also
        # C-contiguous (not for (0, 3)); tdsl refuses those
        nfortran += 1
        stem += "_fortran"
        os.rename(path, os.path.join(tmp, "n", stem + ".npy"))
        path = os.path.join(tmp, "n", stem + ".npy")
    with open(os.path.join(tmp, "n", stem + ".want"), "w") as f:
        if fortran:
            f.write("'%s': Fortran-order arrays are not supported; save "
                    "with np.ascontiguousarray(a)\n" % path)
        else:
            f.write(text("-", a.astype(a.dtype.newbyteorder("="))))
if nfortran < 18:
    fail("only %d Fortran-order files" % nfortran)

# a safetensors file in Python's json style (spaces, unsorted keys)
ts = {"z.weight": values(np.float32, (2, 3)),
      "a.bias": values(np.int64, (3,)),
      "m\u00e9": values(np.float16, (2, 2)),
      "flag": values(np.bool_, (4,))}
bf = (values(np.float32, (3,)).view(np.uint32) >> 16).astype(np.uint16)
hdr, blobs, off = {"__metadata__": {"k": "v"}}, [], 0
sdt = {"float32": "F32", "int64": "I64", "float16": "F16", "bool": "BOOL"}
for k, a in ts.items():
    raw = a.astype(a.dtype.newbyteorder("<")).tobytes()
    hdr[k] = {"dtype": sdt[str(a.dtype)], "shape": list(a.shape),
              "data_offsets": [off, off + len(raw)]}
    blobs.append(raw)
    off += len(raw)
hdr["bf"] = {"shape": [3], "dtype": "BF16",
             "data_offsets": [off, off + 6]}
blobs.append(bf.astype("<u2").tobytes())
h = json.dumps(hdr).encode()
with open(os.path.join(tmp, "n", "py.safetensors"), "wb") as f:
    f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))
want = "meta k=v\n"
for k in sorted(list(ts) + ["bf"], key=lambda s: s.encode()):
    if k == "bf":
        f32 = (bf.astype(np.uint32) << 16).view(np.float32)
        want += "bf bf16 3\n" + "".join("%.17g\n" % float(v) for v in f32)
    else:
        want += text(k, ts[k])
with open(os.path.join(tmp, "n", "py.want"), "w") as f:
    f.write(want)

sys.exit(0 if ok else 1)
PY

status=0
count=0
for f in "$TMP"/n/*.npy "$TMP"/n/*.safetensors; do
    count=$((count + 1))
    case $f in
    *_fortran.npy)
        # refused: the message on stderr, exit status 1
        if "$bin" dump "$f" >/dev/null 2>"${f%.*}.got"; then
            echo "FAIL: $f: a Fortran-order file was read"
            status=1
            continue
        fi ;;
    *)
        "$bin" dump "$f" >"${f%.*}.got" || { status=1; continue; } ;;
    esac
    if ! cmp -s "${f%.*}.want" "${f%.*}.got"; then
        echo "FAIL: $f"
        diff "${f%.*}.want" "${f%.*}.got" | head -10
        status=1
    fi
done
echo "$count files written by numpy read back or refused"
exit $status
