/*
 * test_instantiate.c - unit tests of tl_instantiate and
 * tl_instantiate_with (lang/checkinst.c), the hook `tdsl run --kernel`
 * uses to run a generic kernel on the dtypes and ranks of its input
 * files: the instance made, that it is shared with the program's own
 * calls, that it runs, and the errors for bindings that do not fit.
 * Exit status 0 on success; each failed check prints its line.
 */
#include "interp/interp.h"
#include "parser/parser.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static void check_name(int line, const TlKernelInfo *k, const char *want)
{
    if (!k || strcmp(k->name, want)) {
        printf("%s:%d: instance '%s', want '%s'\n", __FILE__, line,
               k ? k->name : "(none)", want);
        check_failed();
    }
}

static const char *const src =
    "kernel relu<T: float>(X: T[..S]) -> (Y: T[..S]) {\n"
    "    Y[..i] = max(X[..i], T(0))\n"
    "}\n"
    "kernel cast_to<T: any, U: any>(X: T[..S]) -> (Y: U[..S]) {\n"
    "    Y[..i] = U(X[..i])\n"
    "}\n"
    "kernel plain(X: f32[4]) -> (Y: f32[4]) {\n"
    "    Y[i] = X[i]\n"
    "}\n"
    "let a = relu(rand(f32, [2, 3], seed = 1))\n";

static TlSession *S;
static TlProgram *P;
static FILE *diag;
static char *diag_text;
static size_t diag_len;

static TlKernelInfo *kernel(const char *name)
{
    for (int i = 0; i < P->items.n; i++) {
        TlKernelInfo *k = tl_kernel_info(P->items.v[i]);
        if (k && !strcmp(k->name, name))
            return k;
    }
    printf("no kernel '%s'\n", name);
    abort();
}

/* The diagnostics printed since offset from. */
static const char *since(size_t from)
{
    fflush(diag);
    return diag_text ? diag_text + from : "";
}

int main(void)
{
    TlLoc none = {-1, 0, 0, 0, 0};
    TlKernelInfo *relu, *inst, *again;
    TlDType dt[1];
    int rank[1];
    size_t from;

    S = tl_session_new();
    diag = open_memstream(&diag_text, &diag_len);
    S->diag_out = diag;
    P = tl_parse_string(S, "t.tdsl", src, strlen(src));
    CHECK(P->nerrors == 0 && tl_check(S, P) == 0);
    relu = kernel("relu");
    CHECK(relu->generic && relu->ok && relu->ntvars == 1 &&
          relu->npacks == 1);
    /* The program's own call made relu<f32, ..2>; the hook shares it. */
    CHECK(relu->ninstances == 1);
    dt[0] = DT_F32;
    rank[0] = 2;
    inst = tl_instantiate(S, relu, dt, rank, none);
    CHECK(inst && inst == relu->instances[0]);
    check_name(__LINE__, inst, "relu<f32, ..2>");
    /* A new binding: an ordinary kernel, checked, that runs. */
    dt[0] = DT_F64;
    rank[0] = 1;
    inst = tl_instantiate(S, relu, dt, rank, none);
    CHECK(inst && inst->ok && !inst->generic && inst->origin == relu);
    CHECK(inst && inst->ninputs == 1 && inst->inputs[0]->rank == 1 &&
          inst->inputs[0]->dtype == DT_F64 && inst->nsizes == 1);
    again = tl_instantiate(S, relu, dt, rank, none);
    CHECK(again == inst && relu->ninstances == 2);
    if (inst) {
        int64_t shape[1] = {3};
        double in_v[3] = {-1.5, 0.0, 2.25}, want[3] = {0.0, 0.0, 2.25};
        TlTensor *x = tl_tensor_new(DT_F64, 1, shape, NULL, 0), *y = NULL;
        TlRuntime rt;
        memset(&rt, 0, sizeof rt);
        rt.s = S;
        memcpy(x->data, in_v, sizeof in_v);
        CHECK(itp_call_kernel(&rt, inst, &x, NULL, &y, none) == 0);
        CHECK(y && y->dtype == DT_F64 && y->rank == 1 &&
              !memcmp(y->data, want, sizeof want));
        tl_tensor_unref(x);
        tl_tensor_unref(y);
    }
    /* A kind violated: NULL, with the reason. */
    dt[0] = DT_I32;
    from = diag_len;
    CHECK(tl_instantiate(S, relu, dt, rank, none) == NULL);
    CHECK(strstr(since(from), "argument 'X' of 'relu' is 'i32', but dtype "
                              "variable 'T' must be float") != NULL);
    /* A dtype variable that only an explicit dtype binds. */
    dt[0] = DT_F32;
    from = diag_len;
    CHECK(tl_instantiate(S, kernel("cast_to"), dt, rank, none) == NULL);
    CHECK(strstr(since(from), "dtype variable 'U' of 'cast_to' is not "
                              "bound by any argument") != NULL);
    {
        TlDType tv[2] = {DT_NONE, DT_F16};
        inst = tl_instantiate_with(S, kernel("cast_to"), dt, rank, tv,
                                   none);
        check_name(__LINE__, inst, "cast_to<f32, f16, ..1>");
        CHECK(inst && inst->outputs[0]->dtype == DT_F16);
    }
    /* A kernel that is not generic is its own instance. */
    CHECK(tl_instantiate(S, kernel("plain"), dt, rank, none) ==
          kernel("plain"));
    tl_session_free(S);
    fclose(diag);
    free(diag_text);
    return check_done();
}
