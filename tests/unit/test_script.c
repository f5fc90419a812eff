/*
 * test_script.c - the script API of interp/interp.h (exec.c, value.c,
 * builtins.c) through C: a target runner registered for `on cpu` and
 * `target cpu`, an interpreter running several programs of one session,
 * itp_allclose's choice of the worst element, rand's generator, the
 * printing of values, and scalar arithmetic that agrees with kernels.
 * tests/script/ covers the language side.
 */
#include "interp/interp.h"
#include "parser/parser.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* Parses, checks and runs text in interpreter ip; the exit status a
 * script would have (0, or 1 for any error), with what print wrote in
 * out and the diagnostics in err (both may be NULL). */
static int run(TlInterp *ip, TlSession *s, const char *text, TlBuf *out,
               TlBuf *err)
{
    char *obuf = NULL, *ebuf = NULL;
    size_t olen = 0, elen = 0;
    FILE *of = open_memstream(&obuf, &olen);
    FILE *ef = open_memstream(&ebuf, &elen);
    TlProgram *prog;
    int r = 1;

    s->diag_out = ef;
    itp_set_output(ip, of);
    prog = tl_parse_string(s, "t.tdsl", text, strlen(text));
    if (prog && s->nerrors == 0 && tl_check(s, prog) == 0)
        r = itp_exec_program(ip, prog) < 0;
    fclose(of);
    fclose(ef);
    if (out)
        buf_puts(out, obuf);
    if (err)
        buf_puts(err, ebuf);
    free(obuf);
    free(ebuf);
    s->nerrors = 0;
    return r;
}

/* ------------------------------------------------------------------ */

static int runner_calls;

/* A "back end" that runs the interpreter and adds 1000 to every f32
 * output element, so a test can see which path ran. */
static int fake_cpu(TlRuntime *rt, TlKernelInfo *k, TlTensor *const *in,
                    const TlScalarArg *sc, TlTensor **out, TlLoc loc)
{
    runner_calls++;
    if (itp_call_kernel(rt, k, in, sc, out, loc) < 0)
        return -1;
    for (int i = 0; i < k->noutputs; i++) {
        int64_t n = tl_tensor_numel(out[i]);
        float *d = out[i]->data;
        for (int64_t j = 0; j < n && out[i]->dtype == DT_F32; j++)
            d[j] += 1000.0f;
    }
    return 0;
}

static void test_targets(void)
{
    static const char prog[] =
        "kernel twice(X: f32[N]) -> (Y: f32[N]) {\n"
        "    Y[i] = X[i] * 2.0\n"
        "}\n"
        "let x = arange(f32, 3)\n"
        "print twice(x)\n"
        "print twice(x) on cpu\n"
        "target cpu\n"
        "print twice(x)\n"
        "print twice(x) on accel\n";
    TlSession *s = tl_session_new();
    TlInterp *ip = itp_new(s);
    TlBuf out, err;

    buf_init(&out);
    buf_init(&err);
    CHECK(itp_target_runner("cpu") == NULL);
    itp_register_target("cpu", fake_cpu);
    CHECK(itp_target_runner("cpu") == fake_cpu);
    CHECK(run(ip, s, prog, &out, &err) == 1);
    CHECK(runner_calls == 2);
    CHECK_STR(out.s, "f32[3]\n[0. 2. 4.]\n"
                     "f32[3]\n[1000. 1002. 1004.]\n"
                     "f32[3]\n[1000. 1002. 1004.]\n");
    CHECK(strstr(err.s, "t.tdsl:9:7: error: target 'accel' is not "
                        "available yet: the accelerator simulator is not "
                        "built (issue 6)") != NULL);
    itp_register_target("cpu", NULL);
    CHECK(itp_target_runner("cpu") == NULL);
    buf_free(&out);
    buf_free(&err);
    itp_free(ip);
    tl_session_free(s);
}

/* One interpreter, two programs of one session: values stay bound
 * (the REPL runs its inputs so), and the second program's run-time
 * error leaves them alone. */
static void test_programs(void)
{
    TlSession *s = tl_session_new();
    TlInterp *ip = itp_new(s);
    const TlValue *v;
    TlBuf out;

    buf_init(&out);
    CHECK(run(ip, s, "let a = arange(i32, 4)\nlet b = 2.5\n", NULL,
              NULL) == 0);
    CHECK(run(ip, s, "let c = zeros(f32, [2])\nlet i = 7\nprint c[i]\n",
              &out, NULL) == 1);
    CHECK(out.len == 0);
    v = itp_lookup(ip, "a");
    CHECK(v && v->kind == VAL_TENSOR && v->t->shape[0] == 4);
    v = itp_lookup(ip, "b");
    CHECK(v && v->kind == VAL_NUM && v->dtype == DT_F32 && v->f == 2.5);
    v = itp_lookup(ip, "c");
    CHECK(v && v->kind == VAL_TENSOR);
    CHECK(itp_lookup(ip, "d") == NULL);
    buf_free(&out);
    itp_free(ip);
    tl_session_free(s);
}

/* Parses and checks text after the programs prior[0..n) (as the REPL
 * does), runs it in ip, and adds it to prior. */
static int run_after(TlInterp *ip, TlSession *s, TlProgram **prior, int *n,
                     const char *text, TlBuf *out)
{
    char *obuf = NULL;
    size_t olen = 0;
    FILE *of = open_memstream(&obuf, &olen);
    TlCheckOpts o = {1, prior, *n};
    TlProgram *prog = tl_parse_string(s, "in.tdsl", text, strlen(text));
    int r = 1;

    itp_set_output(ip, of);
    if (prog && s->nerrors == 0 && tl_check_opts(s, prog, &o) == 0) {
        r = itp_exec_program(ip, prog) < 0;
        if (r == 0)
            prior[(*n)++] = prog;
    }
    fclose(of);
    buf_puts(out, obuf);
    free(obuf);
    s->nerrors = 0;
    return r;
}

/* REPL-style inputs: names and kernels of earlier inputs, a name
 * defined again (its earlier value still read by an earlier kernel). */
static void test_inputs(void)
{
    TlSession *s = tl_session_new();
    TlInterp *ip = itp_new(s);
    TlProgram *prior[8];
    int n = 0;
    TlBuf out;

    buf_init(&out);
    CHECK(run_after(ip, s, prior, &n, "let a = 2\n", &out) == 0);
    CHECK(run_after(ip, s, prior, &n, "let a = a + 1\nprint a\n",
                    &out) == 0);
    CHECK(run_after(ip, s, prior, &n,
                    "let W = arange(f32, 2)\n"
                    "kernel f(X: f32[2]) -> (Y: f32[2]) {\n"
                    "    Y[i] = X[i] + W[i]\n"
                    "}\n", &out) == 0);
    CHECK(run_after(ip, s, prior, &n, "let W = ones(f32, [3])\n"
                    "print f(ones(f32, [2]))\nprint W\n", &out) == 0);
    CHECK_STR(out.s, "3\nf32[2]\n[1. 2.]\nf32[3]\n[1. 1. 1.]\n");
    buf_free(&out);
    itp_free(ip);
    tl_session_free(s);
}

static TlTensor *vec(TlDType dt, int n, const double *v)
{
    int64_t shape[1] = {n};
    TlTensor *t = tl_tensor_new(dt, 1, shape, NULL, 0);
    for (int64_t i = 0; i < n; i++)
        tl_tensor_set_f64(t, &i, v[i]);
    return t;
}

static void test_allclose(void)
{
    static const double a[] = {1, 2, 3, 4, 5};
    static const double b[] = {1, 2.1, 3, 4.5, 5};
    static const double c[] = {1, NAN, 3, NAN, 5};
    static const double d[] = {INFINITY, -INFINITY, 0, 0, 0};
    TlTensor *ta = vec(DT_F32, 5, a), *tb = vec(DT_F64, 5, b);
    TlTensor *tc = vec(DT_F32, 5, c), *td = vec(DT_F32, 5, d);
    TlTensor *t4 = vec(DT_F32, 4, a);
    TlCloseReport r;

    CHECK(itp_allclose(ta, ta, 0, 0, &r) == 1);
    CHECK(itp_allclose(ta, tb, 1e-5, 1e-8, &r) == 0);
    CHECK(r.worst == 3 && r.index[0] == 3 && r.a == 4 && r.b == 4.5);
    CHECK(fabs(r.diff - 0.5) < 1e-12);
    /* 0.1 fails by 0.1 - 0.05, 0.5 by 0.5 - 0.05: the larger excess. */
    CHECK(itp_allclose(ta, tb, 0, 0.05, &r) == 0 && r.worst == 3);
    CHECK(itp_allclose(ta, tb, 0, 0.5, &r) == 1);
    CHECK(r.worst == 3);    /* the largest difference, for a report */
    CHECK(itp_allclose(ta, tc, 1, 1, &r) == 0 && r.worst == 1);
    CHECK(isnan(r.b));
    CHECK(itp_allclose(tc, tc, 1, 1, &r) == 0 && r.worst == 1);
    CHECK(itp_allclose(td, td, 0, 0, &r) == 1);
    CHECK(itp_allclose(ta, t4, 1, 1, &r) == 0 && r.shape_differs);
    tl_tensor_unref(ta);
    tl_tensor_unref(tb);
    tl_tensor_unref(tc);
    tl_tensor_unref(td);
    tl_tensor_unref(t4);
}

/* rand's definition, element by element (interp.h). */
static void test_rand(void)
{
    int64_t shape[1] = {3};
    TlTensor *f = tl_tensor_new(DT_F32, 1, shape, NULL, 0);
    TlTensor *i = tl_tensor_new(DT_I64, 1, shape, NULL, 0);
    TlTensor *h = tl_tensor_new(DT_F16, 1, shape, NULL, 0);
    uint64_t st = 42, z[3];
    int64_t k;

    for (int j = 0; j < 3; j++) {
        uint64_t x = (st += 0x9e3779b97f4a7c15u);
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
        z[j] = x ^ (x >> 31);
    }
    itp_rand_fill(f, 42);
    itp_rand_fill(i, 42);
    itp_rand_fill(h, 42);
    for (k = 0; k < 3; k++) {
        CHECK(tl_tensor_get_f64(f, &k) ==
              ldexp((double)(z[k] >> 40), -24));
        CHECK(tl_tensor_get_i64(i, &k) == (int64_t)(z[k] % 100));
        CHECK(tl_tensor_get_f64(h, &k) ==
              ldexp((double)(z[k] >> 53), -11));
    }
    tl_tensor_unref(f);
    tl_tensor_unref(i);
    tl_tensor_unref(h);
}

static void test_values(void)
{
    TlValue v = itp_num_f64(DT_F16, 0.1), w;
    TlBuf b;

    buf_init(&b);
    itp_value_print(&b, &v);
    itp_value_type(&b, &v);
    CHECK_STR(b.s, "0.1f16");
    CHECK(v.f == tl_f16_to_f32(tl_f64_to_f16(0.1)));
    v = itp_num_i64(DT_I8, 200);
    CHECK(v.i == -56);
    v = itp_num_f64(DT_U8, -3.7);
    CHECK(v.i == 0);
    w = itp_value_of_tensor(itp_value_tensor(&v));
    CHECK(w.kind == VAL_NUM && w.dtype == DT_U8 && w.i == 0);
    memset(&v, 0, sizeof v);
    v.kind = VAL_LIST;
    v.n = 2;
    v.items = calloc(2, sizeof *v.items);
    v.items[0] = itp_num_i64(DT_I32, 3);
    v.items[1].kind = VAL_STR;
    v.items[1].s = tl_xstrdup("a\"b");
    w = itp_value_copy(&v);
    b.len = 0;
    itp_value_print(&b, &w);
    CHECK_STR(b.s, "[3, \"a\\\"b\"]");
    itp_value_free(&v);
    itp_value_free(&w);
    CHECK(w.kind == VAL_NONE && w.items == NULL);
    buf_free(&b);
}

/* A scalar computes the same at the top level as in a kernel (value.c
 * does its arithmetic with eval_scalar.c's operations).  Float % once
 * differed: the top level computed a - b * floor(a / b), which gave
 * 0.0 for 0.0 % -2.0, NaN for a finite % inf, and values far from
 * Python's when a / b is inexact. */
static void test_kernel_scalars(void)
{
    TlSession *s = tl_session_new();
    TlInterp *ip = itp_new(s);
    TlBuf out;

    buf_init(&out);
    CHECK(run(ip, s,
              "kernel mod_f64(; a: f64, b: f64) -> (r: f64[]) {\n"
              "    r[] = a % b\n"
              "}\n"
              "kernel mod_f32(; a: f32, b: f32) -> (r: f32[]) {\n"
              "    r[] = a % b\n"
              "}\n"
              "let a0 = f64(0.0)\n"
              "let b0 = f64(-2.0)\n"
              "print a0 % b0\n"
              "print mod_f64(a0, b0)\n"
              "let a1 = f64(5.0)\n"
              "let b1 = f64(1.0 / 0.0)\n"
              "print a1 % b1\n"
              "print mod_f64(a1, b1)\n"
              "let a2 = f64(-5.0)\n"
              "print a2 % b1\n"
              "print mod_f64(a2, b1)\n"
              "let a3 = f64(1e300)\n"
              "let b3 = f64(1e17)\n"
              "print a3 % b3\n"
              "print mod_f64(a3, b3)\n"
              "let a4 = f32(1e10)\n"
              "let b4 = f32(0.1)\n"
              "print a4 % b4\n"
              "print mod_f32(a4, b4)\n",
              &out, NULL) == 0);
    CHECK_STR(out.s ? out.s : "", "-0.0\n-0.0\n"
                                  "5.0\n5.0\n"
                                  "inf\ninf\n"
                                  "8.68654594e+16\n8.68654594e+16\n"
                                  "0.08839028\n0.08839028\n");
    buf_free(&out);
    itp_free(ip);
    tl_session_free(s);
}

int main(void)
{
    test_targets();
    test_programs();
    test_inputs();
    test_allclose();
    test_rand();
    test_values();
    test_kernel_scalars();
    return check_done();
}
