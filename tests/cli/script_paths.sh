# script_paths.sh - relative paths of load and save are taken from the
# folder of the script (SPEC 11.2), wherever tdsl is started; absolute
# paths as given; in the REPL, from the current folder.
fail() { echo "FAIL: $*"; exit 1; }
cd "$TMP" || exit 1
mkdir -p proj/data elsewhere || exit 1

cat >proj/make.tdsl <<'TDSL'
save(arange(f32, 4), "data/in.npy")
let w = full(f64, [2, 2], 3)
save(w, "data/w.safetensors")
TDSL
cat >proj/run.tdsl <<'TDSL'
let x: f32[4] = load("data/in.npy")
assert allclose(x, arange(f32, 4), 0, 0)
assert allclose(load("data/w.safetensors", "w"), full(f64, [2, 2], 3), 0, 0)
save(x, "out.npy")
print load("out.npy")
TDSL

(cd elsewhere && "$TDSL" ../proj/make.tdsl) 2>err ||
    fail "make.tdsl: $(cat err)"
[ -f proj/data/in.npy ] && [ -f proj/data/w.safetensors ] ||
    fail "save did not write beside the script: $(ls -R)"
[ -e elsewhere/data ] && fail "save wrote into the current folder"
(cd elsewhere && "$TDSL" ../proj/run.tdsl) >out 2>err ||
    fail "run.tdsl from another folder: $(cat err)"
[ "$(cat out)" = "f32[4]
[0. 1. 2. 3.]" ] || fail "run.tdsl printed: $(cat out)"
[ -f proj/out.npy ] || fail "out.npy is not beside the script"
[ -e elsewhere/out.npy ] && fail "out.npy written into the current folder"
# From the script's own folder, the same files.
(cd proj && "$TDSL" run.tdsl) >out 2>err || fail "run.tdsl in place: $(cat err)"

# A missing file names the path it looked at.
cat >proj/miss.tdsl <<'TDSL'
print load("nothing.npy")
TDSL
(cd elsewhere && "$TDSL" ../proj/miss.tdsl) >out 2>err
[ "$?" = 1 ] || fail "a missing file: exit $?"
grep -q '\.\./proj/nothing\.npy' err || fail "missing file: $(cat err)"

# An absolute path is used as given.
cat >proj/abs.tdsl <<TDSL
save(ones(i32, [3]), "$TMP/abs.npy")
TDSL
(cd elsewhere && "$TDSL" ../proj/abs.tdsl) 2>err || fail "abs: $(cat err)"
[ -f "$TMP/abs.npy" ] || fail "an absolute path was not used as given"

# The REPL (here reading a pipe) has no script folder: the current one.
(cd elsewhere &&
    printf 'save(ones(f32, [2]), "r.npy")\nprint load("r.npy")\n' |
    "$TDSL") >out 2>err || fail "repl: $(cat err)"
[ -f elsewhere/r.npy ] || fail "the REPL did not save into the current folder"
grep -q '\[1\. 1\.\]' out || fail "repl printed: $(cat out)"
exit 0
