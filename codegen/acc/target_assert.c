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
 * An assert that reads what the kernel computes would need the device
 * to compute it first and the host to look before the rest runs (two
 * programs, or a branch TAM does not have): refused, naming the
 * tensor.  TODO(issue 6): run such a kernel as two segments (cg_seg.c)
 * with the check between them.
 *
 * A stand-alone program (`tdsl compile --target accel`) carries the
 * asserts `hash(x) == N` (what `tdsl import --bind` writes) as
 * `.assert` directives, which `tdsl sim` checks when it loads x
 * (acc_sim_set_input); other asserts have no form a program can
 * carry and are refused there.
 */
#include "codegen/acc/target_int.h"
#include "interp/interp.h"

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
                            "computes (accel checks the asserts of its "
                            "parameters, on the host before the run),",
                            r->name);
    }
    return NULL;
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
