/*
 * target_assert.c - a kernel's asserts (SPEC 6.8) on the accel target.
 *
 * A call `on accel` checks them on the host before the simulated run,
 * with the interpreter (itp_check_asserts), so a failing one gives the
 * interpreter's own RT_KERNEL_ASSERT and nothing runs; the routes then
 * compile the kernel without them (acc_tg_without_asserts).  That is
 * the check the cpu kernel makes before its stages, moved off the
 * device: the simulated machine has no way to stop a stream, and an
 * assert of the inputs costs one pass over them on the host either
 * way (the hash is the runner's on cpu too).
 *
 * An assert that reads what the kernel computes needs the device to
 * compute it first and the host to look before the rest runs (TAM has
 * no branch): a call runs such a kernel as two parts (target.c,
 * run_checked), each a kernel of the stages it needs (cg_seg.c's
 * acc_seg_sub_kernel) run as any call runs: first the stages the
 * asserts read (acc_tg_assert_computed), then the interpreter checks
 * every assert in order, given those values (itp_check_asserts_given:
 * its own RT_KERNEL_ASSERT when one fails, and nothing more runs),
 * then the rest, reading the computed stages as inputs.  `time` counts
 * both parts' simulated cycles.  The parts leave out the kernel's
 * schedule, as segments do.
 *
 * A stand-alone program (`tdsl compile --target accel`) carries the
 * asserts `hash(x) == N` (what `tdsl import --bind` writes) as
 * `.assert` directives, which `tdsl sim` checks when it loads x
 * (acc_sim_set_input); other asserts have no form a program can
 * carry and are refused there.
 */
#include "codegen/acc/target_int.h"
#include "interp/interp.h"

#include <stdlib.h>
#include <string.h>

const char *acc_tg_assert_refusal(TlSession *s, const TlKernelInfo *k,
                                  TlLoc *at)
{
    for (int i = 0; i < k->nfuncs; i++) {
        const TlFunc *f = k->funcs[i], *r;
        if (!tl_func_is_assert(f) || !(r = itp_assert_reads(f)))
            continue;
        *at = f->stmt->loc;
        return arena_printf(&s->arena, "an 'assert' of '%s', which the kernel "
                            "computes, in a program by itself (a call `on "
                            "accel` checks it between the stages; a program "
                            "carries only 'hash(x) == N'),", r->name);
    }
    return NULL;
}

/* While a call runs in parts around its asserts (acc_tg_run_checked): every
 * simulation's counts, summed. */
static struct {
    int on;
    AccStats sum;
} parts;

void acc_tg_count_run(const AccStats *st)
{
    if (parts.on)
        acc_stats_add(&parts.sum, st);
}

/* Part `name` of a call of k run in parts: the kernel of the stages it
 * needs, reading k's inputs (packed) and the nt stages computed so far
 * (named names[], values vals[]); its value in *out. */
static int run_part(TlRuntime *rt, TlKernelInfo *k, TlKernelInfo *bare,
                    TlTensor *const *packed, const int64_t *sizes,
                    const char *name,
                    const char *const *names, TlTensor *const *vals, int nt,
                    TlTensor **out, TlLoc loc)
{
    TlSession *s = rt->s;
    TlKernelInfo *pk = acc_seg_sub_kernel(s, bare, sizes, packed, name,
                                          names, nt);
    TlTensor **sin;
    int rc;

    if (!pk || pk->nscalars) {
        diag_error(s, loc, DIAG_ACC_CG_UNSUPPORTED,
                   arena_printf(&s->arena, "'%s' with an 'assert' of "
                                "'%s', which it computes: its stages up to "
                                "there are not a kernel of their own (only "
                                "plain definitions of tensors, without "
                                "scalar parameters, split),", k->name,
                                name));
        return -1;
    }
    sin = tl_xcalloc((size_t)pk->ninputs + 1, sizeof *sin);
    for (int j = 0; j < pk->ninputs; j++) {
        const char *nm = pk->inputs[j]->name;
        for (int x = 0; x < k->ninputs && !sin[j]; x++)
            if (!strcmp(k->inputs[x]->name, nm))
                sin[j] = packed[x];
        for (int q = 0; q < nt && !sin[j]; q++)
            if (!strcmp(names[q], nm))
                sin[j] = vals[q];
        TL_ASSERT(sin[j]);
    }
    rc = acc_tg_run(rt, pk, sin, NULL, out, loc);
    free(sin);
    return rc;
}

int acc_tg_run_checked(TlRuntime *rt, TlKernelInfo *k, const AccMachine *m,
                       TlTensor *const *packed, TlTensor *const *in,
                       const TlScalarArg *sc, const int64_t *sizes,
                       TlTensor **out, TlLoc loc)
{
    enum { MAXR = 16 };
    TlSession *s = rt->s;
    TlKernelInfo *bare = acc_tg_without_asserts(s, k);
    const TlFunc *rd[MAXR];
    const char *names[MAXR];
    TlTensor *vals[MAXR];
    TlTensor **given = tl_xcalloc((size_t)k->nfuncs + 1, sizeof *given);
    int nr = acc_tg_assert_computed(k, rd, MAXR), nt = 0, rc = 0, rest = 0;
    const char *outname = k->outputs[0]->name;
    TlBuf lines;

    buf_init(&lines);
    memset(&parts.sum, 0, sizeof parts.sum);
    parts.on = 1;
    for (int q = 0; q < nr && rc == 0; q++) {
        int64_t c0 = parts.sum.cycles;
        names[nt] = rd[q]->name;
        rc = run_part(rt, k, bare, packed, sizes, rd[q]->name, names, vals, nt,
                      &vals[nt], loc);
        if (rc == 0) {
            given[tl_func_index(k->funcs, k->nfuncs, rd[q])] = vals[nt++];
            buf_printf(&lines, "part       %s: %lld cycles, then the "
                       "asserts that read it checked on the host\n",
                       rd[q]->name, (long long)(parts.sum.cycles - c0));
        }
    }
    if (rc == 0)
        rc = itp_check_asserts_given(rt, k, in, sc, given, loc);
    for (int q = 0; q < nt && rc == 0 && !out[0]; q++)
        if (!strcmp(names[q], outname))
            out[0] = tl_tensor_ref(vals[q]);
    if (rc == 0 && !out[0]) {
        int64_t c0 = parts.sum.cycles;
        rest = 1;
        rc = run_part(rt, k, bare, packed, sizes, outname, names, vals, nt, out,
                      loc);
        buf_printf(&lines, "part       %s: %lld cycles, the rest\n",
                   outname, (long long)(parts.sum.cycles - c0));
    }
    parts.on = 0;
    if (rc == 0) {
        TlBuf st;
        buf_init(&st);
        buf_printf(&st, "parts      %d, the stages the asserts read "
                   "first, the asserts checked on the host between\n",
                   nt + rest);
        acc_stats_print(&st, m, &parts.sum);
        buf_puts(&st, lines.s);
        acc_tg_set_stats(&st);
    }
    for (int q = 0; q < nt; q++)
        tl_tensor_unref(vals[q]);
    free(given);
    buf_free(&lines);
    return rc;
}

/* Adds to r the computed tensors e reads, once each. */
static void computed_reads(const TlExpr *e, const TlFunc **r, int *n, int max)
{
    const TlFunc *f = NULL;

    if (!e)
        return;
    if (tl_ref_kind(e->sym) == REF_READ)
        f = ((const TlRead *)e->sym)->func;
    else if (tl_ref_kind(e->sym) == REF_FUNC)
        f = e->sym;
    if (f && f->kind != FN_INPUT && f->kind != FN_CONST) {
        int dup = 0;
        for (int i = 0; i < *n; i++)
            dup |= r[i] == f;
        if (!dup && *n < max)
            r[(*n)++] = f;
    }
    computed_reads(e->a, r, n, max);
    computed_reads(e->b, r, n, max);
    computed_reads(e->c, r, n, max);
    for (int i = 0; i < e->args.n; i++)
        computed_reads(e->args.v[i], r, n, max);
}

int acc_tg_assert_computed(const TlKernelInfo *k, const TlFunc **r, int max)
{
    int n = 0;

    for (int i = 0; i < k->nfuncs; i++)
        if (tl_func_is_assert(k->funcs[i]))
            computed_reads(k->funcs[i]->value, r, &n, max);
    return n;
}

int acc_tg_has_asserts(const TlKernelInfo *k)
{
    for (int i = 0; i < k->nfuncs; i++)
        if (tl_func_is_assert(k->funcs[i]))
            return 1;
    return 0;
}

TlKernelInfo *acc_tg_without_asserts(TlSession *s, TlKernelInfo *k)
{
    TlKernelInfo *c;
    int n = 0;

    if (!acc_tg_has_asserts(k))
        return k;
    /* A shallow copy: its stages keep k as their kernel, which no route
     * compares (only hash(x) in lower.c does, and hash is in asserts
     * only). */
    c = arena_alloc(&s->arena, sizeof *c);
    *c = *k;
    c->funcs = arena_alloc(&s->arena, (size_t)(k->nfuncs + 1) *
                                          sizeof *c->funcs);
    for (int i = 0; i < k->nfuncs; i++)
        if (!tl_func_is_assert(k->funcs[i]))
            c->funcs[n++] = k->funcs[i];
    c->nfuncs = n;
    return c;
}

/* The value of an integer literal, its negation or a sum or difference
 * of them (the importer writes INT64_MIN as `-9223372036854775807 - 1`),
 * with i64 wrap-around. */
static int int_const(const TlExpr *e, uint64_t *v)
{
    uint64_t a, b;

    if (!e)
        return -1;
    if (e->kind == EX_INT) {
        *v = (uint64_t)e->ival;
        return 0;
    }
    if (e->kind == EX_UNARY && e->op == OP_NEG && !int_const(e->a, &a)) {
        *v = 0 - a;
        return 0;
    }
    if (e->kind == EX_BINARY && (e->op == OP_ADD || e->op == OP_SUB) &&
        !int_const(e->a, &a) && !int_const(e->b, &b)) {
        *v = e->op == OP_ADD ? a + b : a - b;
        return 0;
    }
    return -1;
}

/* The input x of `hash(x)`, else NULL. */
static const TlFunc *hash_of(const TlExpr *e)
{
    const TlFunc *f;

    if (!e || e->kind != EX_CALL || !e->a || e->a->kind != EX_NAME ||
        strcmp(e->a->str, "hash") != 0 || e->args.n != 1 ||
        tl_ref_kind(e->args.v[0]->sym) != REF_FUNC)
        return NULL;
    f = e->args.v[0]->sym;
    return f->kind == FN_INPUT ? f : NULL;
}

const char *acc_tg_assert_directives(TlSession *s, const TlKernelInfo *k,
                                     TlLoc *at)
{
    TlBuf b;
    TlBuf *out = &b;
    const char *r;

    buf_init(&b);
    for (int i = 0; i < k->nfuncs; i++) {
        const TlFunc *f = k->funcs[i], *x;
        const TlExpr *e = f->value;
        uint64_t h;
        if (!tl_func_is_assert(f))
            continue;
        if (!e || e->kind != EX_BINARY || e->op != OP_EQ ||
            !(((x = hash_of(e->a)) && !int_const(e->b, &h)) ||
              ((x = hash_of(e->b)) && !int_const(e->a, &h)))) {
            TlBuf c;
            buf_init(&c);
            ast_print_expr(&c, e);
            *at = f->stmt->loc;
            diag_error(s, *at, DIAG_ACC_CG_UNSUPPORTED,
                       arena_printf(&s->arena, "a stand-alone program of "
                                    "'%s' with the assert '%s' (a program "
                                    "carries only 'hash(x) == N', which "
                                    "'tdsl sim' checks; a call with `on "
                                    "accel` checks any assert of the "
                                    "parameters),", k->name, c.s));
            buf_free(&c);
            buf_free(&b);
            return NULL;
        }
        buf_printf(out, ".assert hash(%s) == %lld", x->name,
                   (long long)(int64_t)h);
        if (f->stmt->msg) {
            buf_puts(out, ", ");
            acc_asm_quote(out, f->stmt->msg->str);
        }
        buf_putc(out, '\n');
    }
    r = arena_strdup(&s->arena, b.s ? b.s : "");
    buf_free(&b);
    return r;
}

/* The program text with the `.assert` lines after its .input and
 * .output lines, where the assembler wants them. */
void acc_tg_put_with_asserts(TlBuf *out, const TlBuf *text,
                             const char *asrt)
{
    const char *p = text->s, *after = text->s;

    while (*p) {
        const char *nl = strchr(p, '\n');
        const char *next = nl ? nl + 1 : p + strlen(p);
        while (*p == ' ' || *p == '\t')
            p++;
        if (!strncmp(p, ".input ", 7) || !strncmp(p, ".output ", 8))
            after = next;
        p = next;
    }
    buf_putn(out, text->s, (size_t)(after - text->s));
    buf_puts(out, asrt);
    buf_puts(out, after);
}
