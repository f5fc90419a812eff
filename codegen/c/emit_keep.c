/*
 * emit_keep.c - the prelude's tl_take and tl_give: the buffers of the
 * stages a kernel computes at its top level (compute_root), kept by
 * the kernel between calls instead of going back to malloc and free.
 *
 * Why: glibc gives a large block back to the system when it is freed
 * (munmap, or a trim of the heap's top), depending on the sizes the
 * process freed before; the next call then faults in every page of
 * its buffers again.  conv2d's three (Xp, Wp, S: 1.8 MB) cost 411 page
 * faults a call on 2 threads in a program that called the AOT kernel
 * in a loop, and 0 in tdsl_bench, where the interpreter's earlier
 * frees had raised glibc's thresholds: one thread's time 3.5 against
 * 2.7 ms a call (bench/README.md 2026-11-29, issue 4).  Kept blocks
 * also start on a cache line, as Halide's halide_malloc's do (64
 * bytes, one AVX-512 vector), where malloc's start at 16.
 *
 * The kept blocks are a small table guarded by a spin lock (a kernel
 * may be called from several threads at once): tl_take hands out the
 * smallest one that is large enough and not more than twice the size
 * asked, else a new block; tl_give puts one back, in place of the
 * smallest kept one when the table is full.  A block given back within
 * a call serves the stages that come after it, as malloc's free list
 * would, so a call's peak is unchanged; between calls the kernel holds
 * the blocks of its last call (at most TL_KEEP_N, TL_KEEP_MAX bytes in
 * all: a larger buffer's page faults are a smaller part of the work
 * done on it, and a script's kernels each hold theirs), freed when the
 * library is unloaded.  Under ASan
 * the blocks are malloc's, sized exactly, so that it still sees a
 * read past a stage's buffer.
 *
 * Both are functions of their own (TL_KEEP_FN: noinline), and tl_take
 * is `malloc`-like to the compiler (its block aliases nothing else,
 * and holds no pointer: the head with malloc's pointer lies before
 * the start it returns).  Inlined at each stage's buffer, their loops
 * and lock were gcc -O3 time for nothing (conv2d's three buffers:
 * 0.39 -> 0.46 s of cc CPU time), and a pointer not known to be
 * malloc's made gcc version the stages' loops for aliasing; a call
 * per buffer and call costs nothing beside a stage
 * (bench/README.md 2026-11-29 12:20).
 */
#include "codegen/c/cgc.h"

static const char keep[] =
    "/* Stage buffers computed at the top level are kept between calls\n"
    " * (codegen/c/emit_keep.c): no page faults to get them again, and\n"
    " * each starts on a cache line. */\n"
    "#if defined(__has_feature)\n"
    "#if __has_feature(address_sanitizer)\n"
    "#define TL_KEEP_OFF 1\n"
    "#endif\n"
    "#endif\n"
    "#if defined(__SANITIZE_ADDRESS__) && !defined(TL_KEEP_OFF)\n"
    "#define TL_KEEP_OFF 1\n"
    "#endif\n"
    "#ifdef TL_KEEP_OFF\n"
    "TL_HELPER void *tl_take(size_t n) { return malloc(n); }\n"
    "TL_HELPER void tl_give(void *p) { free(p); }\n"
    "#else\n"
    "#if defined(__GNUC__)\n"
    "#define TL_KEEP_FN static __attribute__((unused, noinline))\n"
    "#define TL_KEEP_MALLOC __attribute__((malloc))\n"
    "#else\n"
    "#define TL_KEEP_FN static\n"
    "#define TL_KEEP_MALLOC\n"
    "#endif\n"
    "#define TL_KEEP_N 8\n"
    "#define TL_KEEP_MAX ((size_t)1 << 25)\n"
    "/* A block: malloc's pointer and the capacity, in the 64 bytes\n"
    " * before the aligned start handed out. */\n"
    "typedef struct { void *raw; size_t cap; } TlKeepHead;\n"
    "static void *tl_keep_p[TL_KEEP_N];\n"
    "static size_t tl_keep_bytes;   /* kept now, at most TL_KEEP_MAX */\n"
    "static int tl_keep_lock;\n"
    "TL_HELPER void tl_keep_acquire(void)\n"
    "{\n"
    "    while (__atomic_exchange_n(&tl_keep_lock, 1, __ATOMIC_ACQUIRE))\n"
    "        while (__atomic_load_n(&tl_keep_lock, __ATOMIC_RELAXED))\n"
    "            ;\n"
    "}\n"
    "TL_HELPER void tl_keep_release(void)\n"
    "{\n"
    "    __atomic_store_n(&tl_keep_lock, 0, __ATOMIC_RELEASE);\n"
    "}\n"
    "TL_HELPER TlKeepHead *tl_keep_head(void *p)\n"
    "{\n"
    "    return (TlKeepHead *)((char *)p - sizeof(TlKeepHead));\n"
    "}\n"
    "TL_KEEP_FN TL_KEEP_MALLOC void *tl_take(size_t n)\n"
    "{\n"
    "    void *p = NULL, *raw;\n"
    "    int best = -1;\n"
    "    if (n > SIZE_MAX - 128) return NULL;\n"
    "    n = (n + 63) & ~(size_t)63;\n"
    "    tl_keep_acquire();\n"
    "    for (int i = 0; i < TL_KEEP_N; i++) {\n"
    "        size_t c;\n"
    "        if (!tl_keep_p[i]) continue;\n"
    "        c = tl_keep_head(tl_keep_p[i])->cap;\n"
    "        if (c >= n && c / 2 <= n &&\n"
    "            (best < 0 || c < tl_keep_head(tl_keep_p[best])->cap))\n"
    "            best = i;\n"
    "    }\n"
    "    if (best >= 0) {\n"
    "        p = tl_keep_p[best];\n"
    "        tl_keep_p[best] = NULL;\n"
    "        tl_keep_bytes -= tl_keep_head(p)->cap;\n"
    "    }\n"
    "    tl_keep_release();\n"
    "    if (p) return p;\n"
    "    raw = malloc(n + 128);\n"
    "    if (!raw) return NULL;\n"
    "    p = (void *)(((uintptr_t)raw + 64 + 63) & ~(uintptr_t)63);\n"
    "    tl_keep_head(p)->raw = raw;\n"
    "    tl_keep_head(p)->cap = n;\n"
    "    return p;\n"
    "}\n"
    "TL_KEEP_FN void tl_give(void *p)\n"
    "{\n"
    "    int slot = -1;\n"
    "    size_t c;\n"
    "    if (!p) return;\n"
    "    c = tl_keep_head(p)->cap;\n"
    "    if (c <= TL_KEEP_MAX) {\n"
    "        tl_keep_acquire();\n"
    "        for (int i = 0; i < TL_KEEP_N; i++)\n"
    "            if (!tl_keep_p[i] || slot < 0 ||\n"
    "                (tl_keep_p[slot] && tl_keep_head(tl_keep_p[i])->cap <\n"
    "                                    tl_keep_head(tl_keep_p[slot])->cap))\n"
    "                slot = i;\n"
    "        void *old = tl_keep_p[slot];\n"
    "        size_t oc = old ? tl_keep_head(old)->cap : 0;\n"
    "        /* Full of larger ones, or too much kept: p goes. */\n"
    "        if (oc <= c && tl_keep_bytes - oc + c <= TL_KEEP_MAX) {\n"
    "            tl_keep_p[slot] = p;\n"
    "            tl_keep_bytes = tl_keep_bytes - oc + c;\n"
    "            p = old;\n"
    "        }\n"
    "        tl_keep_release();\n"
    "    }\n"
    "    if (p) free(tl_keep_head(p)->raw);\n"
    "}\n"
    "__attribute__((destructor)) static void tl_keep_drop(void)\n"
    "{\n"
    "    for (int i = 0; i < TL_KEEP_N; i++)\n"
    "        if (tl_keep_p[i]) {\n"
    "            free(tl_keep_head(tl_keep_p[i])->raw);\n"
    "            tl_keep_p[i] = NULL;\n"
    "        }\n"
    "    tl_keep_bytes = 0;\n"
    "}\n"
    "#endif\n";

void cgc_keep_prelude(TlBuf *b)
{
    buf_puts(b, keep);
}
