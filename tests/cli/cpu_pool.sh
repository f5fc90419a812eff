# cpu_pool.sh - the kernels' thread pool (codegen/c/emit_pool.c):
# pool/pool.tdsl's parallel loops (one inside another, chunks given by
# the schedule, a stage reading the loop before it, a reduction split
# by rfactor with its rows in parallel) agree with the interpreter on
# 1, 2 and 3 threads, and the ahead-of-time kernel, called 1000 times
# from each of two threads at once with its own sizes (pool/main.c),
# gives the plain C loops' results on 1, 2 and 3 threads
# (OMP_NUM_THREADS, and TDSL_NUM_THREADS over it).  Built with
# ThreadSanitizer where cc has it, the same program must show no race
# (a call that returned before a worker's chunk was done shows one in
# a few calls).  Without the pool (-DTL_NO_POOL, or C99, which has no
# atomics) the loops run on the calling thread, with the same results.
. "$(dirname "$0")/lib.sh"
src=$OLDPWD
d=$src/tests/cli/pool
command -v cc >/dev/null 2>&1 || exit 77

for t in 1 2 3; do
    OMP_NUM_THREADS=$t "$TDSL" --no-cache "$d/pool.tdsl" >out 2>err ||
        fail "$t threads: $(cat out err)"
done
"$TDSL" compile "$d/pool.tdsl" --kernel pool -o k.so -o k.h -o k.c 2>err ||
    fail "compile: $(cat err)"
cc -std=c11 -Wall -Wextra -Werror -I. "$d/main.c" -L. -l:k.so \
    -Wl,-rpath,"$TMP" -lpthread -o main 2>err || fail "main.c: $(cat err)"
for t in 1 2 3; do
    OMP_NUM_THREADS=$t ./main >out 2>&1 || fail "$t threads: $(cat out)"
done
TDSL_NUM_THREADS=2 OMP_NUM_THREADS=1 ./main >out 2>&1 ||
    fail "TDSL_NUM_THREADS=2: $(cat out)"
for f in "-std=c11 -DTL_NO_POOL" "-std=c99"; do
    # shellcheck disable=SC2086
    cc $f -O1 -march=native -ffp-contract=off -Wall -Werror -I. \
        "$d/main.c" k.c -o serial -lm -lpthread 2>err ||
        fail "$f: $(cat err)"
    OMP_NUM_THREADS=2 ./serial 100 >out 2>&1 || fail "$f: $(cat out)"
done
if cc -fsanitize=thread -x c - -o probe 2>/dev/null <<'EOT' && ./probe
int main(void) { return 0; }
EOT
then
    cc -std=c11 -O1 -g -fsanitize=thread -march=native -ffp-contract=off \
        -Wall -Werror -I. "$d/main.c" k.c -o main_tsan -lm 2>err ||
        fail "tsan build: $(cat err)"
    OMP_NUM_THREADS=3 ./main_tsan 60 >out 2>&1 ||
        fail "ThreadSanitizer: $(head -40 out)"
fi
exit 0
