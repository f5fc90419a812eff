#!/bin/sh
# run.sh - the driver of `make bench`: builds the peer benchmarks that
# this machine can build (the peak FMA microbenchmark always; Halide 14
# and OpenBLAS when their Debian packages are installed, else it prints
# the apt-get line and skips them), runs everything on 1 and 2 threads
# with HL_NUM_THREADS, OMP_NUM_THREADS and OPENBLAS_NUM_THREADS set
# together, and prints one table: tdsl time beside each peer's, their
# ratio, GFLOP/s or GB/s, the fraction of the measured FMA peak, and
# each process's peak resident memory.  Every figure is a median over
# BENCH_RUNS (default 7, at least 5) runs after a warm-up.
#
# Environment: BENCH_THREADS (default "1 2"), BENCH_RUNS, CC, CXX,
# BENCH_OPENBLAS_CORETYPE (default SkylakeX on AVX-512 machines),
# BENCH_KERNELS (default "matmul blur3 conv2d softmax": which kernels
# run, for every peer), BENCH_TDSL_FMA=1 (tdsl's kernels built with TDSL_FMA=1, SPEC 10.8:
# a*b+c fused into FMAs like the peers do; faster, checked against the
# interpreter within a tolerance instead of bit for bit; default: off,
# bit-exact), BENCH_TDSL_CFLAGS (extra cc flags for tdsl's kernels).
# The raw result lines are kept in build/bench/results.txt.
# $CC and $CWARN are lists of words, split on purpose:
# shellcheck disable=SC2086
set -u

cd "$(dirname "$0")/.." || exit 1
OUT=build/bench
mkdir -p "$OUT"
CC=${CC:-cc}
CXX=${CXX:-g++}
THREADS=${BENCH_THREADS:-1 2}
KERNELS=${BENCH_KERNELS:-matmul blur3 conv2d softmax}
# want K: whether kernel K (tdsl's name) is in BENCH_KERNELS.
want() { case " $KERNELS " in *" $1 "*) return 0 ;; esac; return 1; }
CWARN="-std=c11 -O2 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L"
HALIDE_INC=/usr/include/halide14
RES=$OUT/results.txt
: >"$RES"

say() { echo "bench: $*" >&2; }

# --- build -----------------------------------------------------------
$CC $CWARN -fopenmp bench/peak.c -o $OUT/peak || exit 1

halide=0
if [ -f $HALIDE_INC/Halide.h ] && command -v "$CXX" >/dev/null &&
   { [ -e /usr/lib/x86_64-linux-gnu/libHalide14.so ] ||
     ls /usr/lib/*/libHalide14.so >/dev/null 2>&1; }; then
    halide=1
    for k in matmul blur conv softmax; do
        # Rebuilt only when the source is newer (g++ on Halide.h is slow).
        if [ ! -x $OUT/halide_$k ] ||
           [ -n "$(find bench/halide/$k.cpp bench/halide/*.h \
                   bench/bench_util.h -newer $OUT/halide_$k)" ]; then
            say "building halide_$k"
            $CXX -std=c++17 -O2 -Wall -Wextra -Werror -isystem $HALIDE_INC \
                bench/halide/$k.cpp -o $OUT/halide_$k \
                -lHalide14 -lpthread -ldl || exit 1
        fi
    done
else
    say "Halide peers skipped: libhalide14-0-dev or $CXX is missing"
fi

openblas=0
if echo '#include <cblas.h>' |
   $CC -E -I/usr/include/x86_64-linux-gnu - >/dev/null 2>&1 &&
   $CC $CWARN -I/usr/include/x86_64-linux-gnu bench/openblas_sgemm.c \
       -o $OUT/openblas_sgemm -lopenblas -lm 2>/dev/null; then
    openblas=1
else
    say "OpenBLAS peer skipped: libopenblas-dev is missing"
fi

if [ $halide = 0 ] || [ $openblas = 0 ]; then
    sh scripts/bench-deps.sh --print >&2
fi

# The tdsl side: build/bench/tdsl_bench, built by the Makefile.  Its
# kernels are compiled into a cache of their own, emptied here, so the
# first thread count's cc_s is generate + cc and the next ones' a hit
# in the disk cache.
# Built here too, so that `sh bench/run.sh` alone does not leave the
# tdsl column empty (n/a) with a missing or stale binary.
make -s $OUT/tdsl_bench >&2 || say "cannot build $OUT/tdsl_bench"
tdsl=0
[ -x $OUT/tdsl_bench ] && tdsl=1
rm -rf "$OUT/cache"

coretype=${BENCH_OPENBLAS_CORETYPE:-}
if [ -z "$coretype" ] && grep -qw avx512f /proc/cpuinfo 2>/dev/null; then
    coretype=SkylakeX
fi

# --- run ---------------------------------------------------------------
# Other processes skew every figure; say how busy the machine was.
say "$(nproc) CPUs; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for t in $THREADS; do
    export HL_NUM_THREADS="$t" OMP_NUM_THREADS="$t" OPENBLAS_NUM_THREADS="$t"
    say "running on $t thread(s)"
    $OUT/peak >>"$RES"
    if [ $halide = 1 ]; then
        for k in matmul blur conv softmax; do
            case $k in blur) kk=blur3 ;; conv) kk=conv2d ;; *) kk=$k ;; esac
            want $kk || continue
            $OUT/halide_$k >>"$RES" || say "halide_$k failed"
        done
    fi
    if [ $openblas = 1 ] && want matmul; then
        if [ -n "$coretype" ]; then
            OPENBLAS_CORETYPE=$coretype $OUT/openblas_sgemm >>"$RES"
        else
            $OUT/openblas_sgemm >>"$RES"
        fi || say "openblas_sgemm failed"
    fi
    if [ $tdsl = 1 ]; then
        # One process per kernel: maxrss is each kernel's own.
        for k in matmul blur3 conv2d softmax softmax_exact; do
            want ${k%_exact} || continue
            XDG_CACHE_HOME=$OUT/cache \
                TDSL_CFLAGS_EXTRA=${BENCH_TDSL_CFLAGS:-} \
                TDSL_FMA=${BENCH_TDSL_FMA:-} \
                $OUT/tdsl_bench $k >>"$RES" ||
                say "tdsl_bench $k failed"
        done
    fi
done

say "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

# --- table -------------------------------------------------------------
awk '
function kv(line, key,    i, n, f, p) {
    n = split(line, f, " ")
    for (i = 1; i <= n; i++) {
        p = index(f[i], "=")
        if (substr(f[i], 1, p - 1) == key)
            return substr(f[i], p + 1)
    }
    return ""
}
function mb(kb) { return kb == "" ? "-" : sprintf("%.0f", kb / 1024) }
function pct(g, t) {
    return (t in peak) && g + 0 > 0 ? sprintf("%.0f%%", 100 * g / peak[t]) \
                                    : "-"
}
{
    peer = kv($0, "peer"); k = kv($0, "kernel"); n = kv($0, "n")
    t = kv($0, "threads")
    if (peer == "peak") {
        # The peak is the fastest run: load from elsewhere only slows.
        if (k == "fma_avx512" || (k == "fma_avx2" && !(t in peak)))
            peak[t] = kv($0, "best_gflops")
        peakline[t] = peakline[t] sprintf(" %s %s (median %s)", k,
            kv($0, "best_gflops"), kv($0, "gflops"))
        next
    }
    key = k SUBSEP n SUBSEP t
    if (peer == "tdsl") {
        ts[key] = kv($0, "median_s"); trss[key] = kv($0, "maxrss_kb")
        tg[key] = kv($0, "gflops"); tb[key] = kv($0, "gbs")
        tc[key] = kv($0, "compile_s"); tok[key] = kv($0, "ok")
        tcall[key] = kv($0, "call_s"); tbest[key] = kv($0, "best_s")
        nts++
        next
    }
    rows[++nr] = $0
    # The bit-exact softmax beside the same Halide figure.
    if (peer == "halide" && k == "softmax") {
        l = $0
        sub(/kernel=softmax/, "kernel=sm_exact", l)
        rows[++nr] = l
    }
}
END {
    for (t = 1; t <= 64; t++)
        if (t in peakline)
            printf("peak f32 FMA, %d thread(s), best GFLOP/s:%s\n", t,
                peakline[t])
    printf("\n%-8s %-10s %3s %10s %-8s %10s %6s %6s %16s %9s %9s %10s %s\n",
        "kernel", "size", "thr", "tdsl_s", "peer", "peer_s", "ratio",
        "best", "rate", "%peak", "rss_MB", "cc_s", "notes")
    for (i = 1; i <= nr; i++) {
        line = rows[i]
        peer = kv(line, "peer"); k = kv(line, "kernel"); n = kv(line, "n")
        t = kv(line, "threads"); s = kv(line, "median_s")
        g = kv(line, "gflops"); b = kv(line, "gbs")
        key = k SUBSEP n SUBSEP t
        if (key in ts) {
            tt = sprintf("%.6f", ts[key])
            ratio = sprintf("%.2f", ts[key] / s)
            pb = kv(line, "best_s")
            bratio = "-"
            if (pb + 0 > 0 && tbest[key] + 0 > 0)
                bratio = sprintf("%.2f", tbest[key] / pb)
            rss = mb(trss[key]) "/" mb(kv(line, "maxrss_kb"))
        } else {
            tt = "n/a*"; ratio = "n/a"; bratio = "-"
            rss = "-/" mb(kv(line, "maxrss_kb"))
        }
        if (g != "-" && g != "" && b == "-") {
            rate = g " GF/s"
            pk = pct(g, t)
            if (key in ts) {
                rate = tg[key] "/" rate; pk = pct(tg[key], t) "/" pk
            }
        } else {
            rate = b " GB/s"; pk = "-"
            if (key in ts) rate = tb[key] "/" rate
        }
        note = ""
        if (kv(line, "coretype") != "") note = "core=" kv(line, "coretype")
        if (kv(line, "ok") == "0") note = note " WRONG-RESULT"
        if ((key in ts) && tok[key] == "0") note = note " TDSL-WRONG-RESULT"
        if ((key in ts) && peer == "halide")
            note = note sprintf(" call=%.1fms", 1000 * tcall[key])
        jit = kv(line, "jit_s"); if (jit == "") jit = "-"
        if (key in ts) jit = sprintf("%.2f", tc[key]) "/" jit
        printf("%-8s %-10s %3s %10s %-8s %10s %6s %6s %16s %9s %9s %10s %s\n",
            k == "conv2d_nchw" ? "conv2d" : k, n, t, tt, peer, s, ratio,
            bratio, rate, pk, rss, jit, note)
    }
    if (nts == 0)
        print "\n* tdsl: n/a (build/bench/tdsl_bench missing or failed)"
    print "ratio = tdsl_s / peer_s, medians (below 1: tdsl is faster); " \
          "best: the same for the fastest runs"
    print "rate, " \
          "%peak, rss_MB (peak resident memory) and cc_s (compile time;"
    print "for Halide the JIT compile of the first call): tdsl/peer"
}' "$RES"
