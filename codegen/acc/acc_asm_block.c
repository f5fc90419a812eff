/*
 * acc_asm_block.c - the assembler's line level: comments, directives
 * (.machine, .input, .output, .rep/.endrep, .macro/.endm), macro calls,
 * folding repeated bundles into AccRep records, building the program,
 * and expanding a compressed program.
 */
#include "codegen/acc/acc_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* The length of a line without its comment: '#' starts one at the
 * line's start or after a blank, when followed by a blank, '#' or the
 * end; "#3" is an immediate. */
static int code_len(const char *t, int len)
{
    for (int i = 0; i < len; i++) {
        if (t[i] != '#')
            continue;
        int after = i + 1 >= len || t[i + 1] == ' ' || t[i + 1] == '\t' ||
                    t[i + 1] == '#';
        int before = i == 0 || t[i - 1] == ' ' || t[i - 1] == '\t';
        if (after || (before && i == 0))
            return i;
    }
    return len;
}

static int first_word(const Line *l, char *buf, size_t n)
{
    int i = 0;
    while (i < l->len && (l->text[i] == ' ' || l->text[i] == '\t'))
        i++;
    size_t k = 0;
    while (i < l->len && (isalnum((unsigned char)l->text[i]) ||
                          l->text[i] == '.' || l->text[i] == '_')) {
        if (k + 1 < n)
            buf[k++] = l->text[i];
        i++;
    }
    buf[k] = 0;
    return i;
}

static Macro *find_macro(Asm *A, const char *name)
{
    for (int i = 0; i < A->nmacros; i++)
        if (!strcmp(A->macros[i].name, name))
            return &A->macros[i];
    return NULL;
}

/* Index of the line closing the block opened at lines[i] (".rep" with
 * ".endrep", ".macro" with ".endm"), or -1. */
static int block_end(const Line *lines, int i, int n, const char *open,
                     const char *close)
{
    int depth = 0;
    char w[32];
    for (int j = i; j < n; j++) {
        first_word(&lines[j], w, sizeof w);
        if (!strcmp(w, open))
            depth++;
        else if (!strcmp(w, close) && --depth == 0)
            return j;
    }
    return -1;
}

static int run_lines(Asm *A, const Line *lines, int n);

static int io_directive(Asm *A, int out)
{
    AccIO io;
    memset(&io, 0, sizeof io);
    io.is_output = out;
    io.loc = A->ln->loc;
    char name[64], ty[16];
    const AccIO *before = NULL;
    if (!acc_asm_ident(A, name, sizeof name))
        return acc_asm_expected(A, "the tensor's name");
    const char *nat = A->p - strlen(name);
    for (int i = 0; i < A->nio && !before; i++)
        if (!strcmp(A->io[i].name, name))
            before = &A->io[i];
    /* An input again: another copy the host lays out, in an image of
     * its own (a second route's order, target_seg.c). */
    if (before && (out || before->is_output))
        return acc_asm_err(A, nat, (int)strlen(name), DIAG_ACC_DIRECTIVE,
                           "'%s' is declared twice", name);
    const char *tat = A->p;
    if (!acc_asm_ident(A, ty, sizeof ty))
        return acc_asm_expected(A, "an element type such as f32");
    io.dt = dt_from_name(ty, strlen(ty));
    if (io.dt == DT_NONE || io.dt == DT_BOOL)
        return acc_asm_err(A, tat, (int)(A->p - tat), DIAG_ACC_DIRECTIVE,
                           "unknown element type '%s'", ty);
    if (!acc_asm_accept(A, '['))
        return acc_asm_expected(A, "'[' and the shape");
    int64_t elems = 1;
    if (!acc_asm_accept(A, ']')) {
        do {
            int64_t d;
            if (io.rank == TL_MAX_RANK)
                return acc_asm_err(A, A->p, 1, DIAG_ACC_DIRECTIVE,
                                   "too many axes (at most %d)",
                                   TL_MAX_RANK);
            if (acc_asm_expr(A, &d))
                return -1;
            if (d < 0 || (d && elems > (1LL << 40) / d))
                return acc_asm_err(A, A->p, 0, DIAG_ACC_DIRECTIVE,
                                   "bad size %lld", (long long)d);
            io.shape[io.rank++] = d;
            elems *= d;
        } while (acc_asm_accept(A, ','));
        if (!acc_asm_accept(A, ']'))
            return acc_asm_expected(A, "']'");
    }
    char d[8];
    const char *dat = A->p;
    if (!acc_asm_ident(A, d, sizeof d) || strcmp(d, "d") ||
        !acc_asm_accept(A, '[')) {
        A->p = dat;
        return acc_asm_expected(A, "where it lives in DRAM, d[ADDR]");
    }
    int64_t a;
    if (acc_asm_expr(A, &a))
        return -1;
    if (!acc_asm_accept(A, ']'))
        return acc_asm_expected(A, "']'");
    /* An image: the positions in DRAM, the runs (.image) after. */
    const char *iat = A->p;
    if (!acc_asm_at_end(A)) {
        char w[8];
        if (!acc_asm_ident(A, w, sizeof w) || strcmp(w, "image")) {
            A->p = iat;
            return acc_asm_expected(A, "the end of the line or 'image N'");
        }
        if (acc_asm_expr(A, &io.nimg))
            return -1;
        if (io.nimg < 1 || io.nimg > (1LL << 40))
            return acc_asm_err(A, iat, (int)(A->p - iat), DIAG_ACC_DIRECTIVE,
                               "bad image size %lld", (long long)io.nimg);
        elems = io.nimg;
    }
    int64_t lw = (elems * (int64_t)dt_size(io.dt) + 7) / 8;
    if (a < 0 || a + lw > A->m->dram_words)
        return acc_asm_err(A, dat, (int)(A->p - dat), DIAG_ACC_DIRECTIVE,
                           "'%s' needs DRAM long words %lld..%lld, out of "
                           "the machine's %lld", name, (long long)a,
                           (long long)(a + lw), (long long)A->m->dram_words);
    if (!acc_asm_at_end(A))
        return acc_asm_expected(A, "the end of the line");
    if (before) {
        int same = before->dt == io.dt && before->rank == io.rank;
        for (int d = 0; same && d < io.rank; d++)
            same = before->shape[d] == io.shape[d];
        if (!io.nimg)
            return acc_asm_err(A, nat, (int)strlen(name), DIAG_ACC_DIRECTIVE,
                               "'%s' is declared twice (a copy of an "
                               "input needs an image of its own: "
                               "'image N')", name);
        if (!same)
            return acc_asm_err(A, nat, (int)strlen(name), DIAG_ACC_DIRECTIVE,
                               "'%s' is declared before with another type "
                               "(a copy of an input has its type)", name);
    }
    io.addr = a;
    io.name = arena_strdup(&A->s->arena, name);
    GROW(A->io, A->nio, A->capio);
    A->io[A->nio++] = io;
    return 0;
}

/* `.assert hash(NAME) == N [, "message"]` (SPEC 6.8, docs/accel-asm.md):
 * the program is for the data of input NAME whose hash is N; `tdsl
 * sim` refuses other data when it loads the input (acc_sim_set_input).
 * N is read by hand: it may be INT64_MIN, which no address expression
 * reaches. */
static int assert_directive(Asm *A)
{
    char w[8], name[64];
    const char *at = A->p;
    AccIO *io = NULL;
    uint64_t v = 0;
    int neg, nd = 0;

    if (!acc_asm_ident(A, w, sizeof w) || strcmp(w, "hash") ||
        !acc_asm_accept(A, '(')) {
        A->p = at;
        return acc_asm_expected(A, "'hash(' (a program checks only "
                                "hash(x) == N)");
    }
    at = A->p;
    if (!acc_asm_ident(A, name, sizeof name))
        return acc_asm_expected(A, "the input's name");
    for (int i = 0; i < A->nio && !io; i++)
        if (!strcmp(A->io[i].name, name))
            io = &A->io[i];
    acc_asm_skip_ws(A);
    if (!io || io->is_output)
        return acc_asm_err(A, at + strspn(at, " \t"), (int)strlen(name),
                           DIAG_ACC_DIRECTIVE, "'%s' is not an .input "
                           "declared above", name);
    if (io->has_hash)
        return acc_asm_err(A, at + strspn(at, " \t"), (int)strlen(name),
                           DIAG_ACC_DIRECTIVE, "'%s' has an .assert "
                           "already", name);
    if (!acc_asm_accept(A, ')') || !acc_asm_accept(A, '=') ||
        !acc_asm_accept(A, '='))
        return acc_asm_expected(A, "') =='");
    acc_asm_skip_ws(A);
    at = A->p;
    neg = acc_asm_accept(A, '-');
    while (A->p < A->ln->text + A->ln->len && *A->p >= '0' && *A->p <= '9') {
        unsigned d = (unsigned)(*A->p++ - '0');
        if (v > (UINT64_MAX - d) / 10)
            v = UINT64_MAX;
        else
            v = v * 10 + d;
        nd++;
    }
    if (!nd)
        return acc_asm_expected(A, "the hash, an i64");
    if (v > (uint64_t)INT64_MAX + (uint64_t)neg)
        return acc_asm_err(A, at, (int)(A->p - at), DIAG_ACC_DIRECTIVE,
                           "the hash is out of the range of i64");
    if (acc_asm_accept(A, ',')) {
        TlBuf m;
        acc_asm_skip_ws(A);
        buf_init(&m);
        at = A->p;
        if (acc_asm_unquote(&A->p, A->ln->text + A->ln->len, &m)) {
            buf_free(&m);
            A->p = at;
            return acc_asm_expected(A, "the message, a \"string\"");
        }
        io->msg = arena_strdup(&A->s->arena, m.s);
        buf_free(&m);
    }
    if (!acc_asm_at_end(A))
        return acc_asm_expected(A, "the end of the line");
    io->has_hash = 1;
    io->hash = (int64_t)(neg ? 0 - v : v);
    return 0;
}

/* --- folding repetitions --------------------------------------------- */

static int same_op(const AccOp *a, const AccOp *b)
{
    return a->opc == b->opc && a->slot == b->slot && a->dt == b->dt &&
           a->dt2 == b->dt2 && a->level == b->level && a->nsrc == b->nsrc &&
           a->ndst == b->ndst && a->tag == b->tag && a->child == b->child &&
           a->set == b->set &&
           a->nsteps == b->nsteps;
}

/* Operand y of iteration j against x of iteration 0: same but for
 * the address; constants compared by value. */
static int opnd_step(const Asm *A, const AccOpnd *x, const AccOpnd *y,
                     int64_t *d)
{
    if (x->space != y->space || x->width != y->width || x->mode != y->mode ||
        x->mask != y->mask || x->k != y->k || x->stride != y->stride)
        return 0;
    *d = (int64_t)y->addr - x->addr;
    if (x->space == ACC_SP_IMM || x->mode == ACC_MODE_FLAT) {
        int n = x->space == ACC_SP_IMM ? 1 : 4;
        for (int c = 0; c < n; c++) {
            const AccConst *p = &A->consts[x->addr + c];
            const AccConst *q = &A->consts[y->addr + c];
            if (memcmp(p, q, sizeof *p))
                return 0;
        }
        *d = 0;
    }
    return 1;
}

enum { NOPND = ACC_MAX_SRC + ACC_MAX_DST };

static const AccOpnd *nth(const AccOp *op, int i)
{
    return i < ACC_MAX_SRC ? &op->src[i] : &op->dst[i - ACC_MAX_SRC];
}

/* Bundles [b0, A->nb) are count iterations of n bundles. */
static void fold(Asm *A, int b0, int n, int64_t count)
{
    if (n == 0 || count < 2 || (A->nb - b0) != n * count)
        return;
    int nops0 = 0;
    for (int t = 0; t < n; t++)
        nops0 += A->b[b0 + t].nops;
    int32_t *inc = arena_alloc(&A->s->arena,
                               (size_t)nops0 * NOPND * sizeof *inc);
    for (int64_t j = 1; j < count; j++) {
        int k = 0;
        for (int t = 0; t < n; t++) {
            const AccBundle *x = &A->b[b0 + t];
            const AccBundle *y = &A->b[b0 + j * n + t];
            if (x->nops != y->nops)
                return;
            for (int o = 0; o < x->nops; o++, k++) {
                const AccOp *ox = &A->ops[x->first + o];
                const AccOp *oy = &A->ops[y->first + o];
                if (!same_op(ox, oy))
                    return;
                for (int i = 0; i < NOPND; i++) {
                    int64_t d;
                    if ((i < ACC_MAX_SRC ? i >= ox->nsrc
                                         : i - ACC_MAX_SRC >= ox->ndst))
                        continue;
                    if (!opnd_step(A, nth(ox, i), nth(oy, i), &d))
                        return;
                    if (j == 1) {
                        if (d > INT32_MAX || d < INT32_MIN)
                            return;
                        inc[k * NOPND + i] = (int32_t)d;
                    } else if (d != j * (int64_t)inc[k * NOPND + i]) {
                        return;
                    }
                }
            }
        }
    }
    A->nops = A->b[b0 + n].first;
    A->nb = b0 + n;
    GROW(A->reps, A->nreps, A->capreps);
    A->reps[A->nreps].first = b0;
    A->reps[A->nreps].n = n;
    A->reps[A->nreps].count = count;
    A->reps[A->nreps].inc = inc;
    A->nreps++;
}

static int has_word(Asm *A, const Line *lines, int n, const char *w0)
{
    char w[64];
    for (int i = 0; i < n; i++) {
        first_word(&lines[i], w, sizeof w);
        if (!strcmp(w, w0) || find_macro(A, w))
            return 1;
    }
    return 0;
}

static int rep(Asm *A, const Line *lines, int i, int end)
{
    int64_t count;
    char var[64] = "i";
    if (acc_asm_expr(A, &count))
        return -1;
    if (count < 0 || count > 100000000)
        return acc_asm_err(A, A->p, 0, DIAG_ACC_DIRECTIVE,
                           ".rep count %lld is out of 0..100000000",
                           (long long)count);
    if (!acc_asm_at_end(A) && !acc_asm_ident(A, var, sizeof var))
        return acc_asm_expected(A, "a variable name or the end of the line");
    if (!acc_asm_at_end(A))
        return acc_asm_expected(A, "the end of the line");
    if (A->nvars == MAX_VARS)
        return acc_asm_err(A, NULL, 0, DIAG_ACC_DIRECTIVE,
                           ".rep nested too deeply (at most %d)", MAX_VARS);
    const Line *body = lines + i + 1;
    int nbody = end - i - 1;
    int inner = !has_word(A, body, nbody, ".rep");
    int b0 = A->nb, rc = 0;
    A->vars[A->nvars].name = arena_strdup(&A->s->arena, var);
    A->nvars++;
    int nb_first = -1;
    for (int64_t j = 0; j < count && rc == 0; j++) {
        A->vars[A->nvars - 1].v = j;
        int before = A->s->nerrors;
        rc = run_lines(A, body, nbody);
        if (A->s->nerrors > before) {
            rc = -1;
            diag_note(A->s, lines[i].loc, "in iteration %lld of this .rep "
                      "(%%%s = %lld)", (long long)j, var, (long long)j);
        }
        if (j == 0)
            nb_first = A->nb - b0;
    }
    A->nvars--;
    if (rc == 0 && A->compress && inner)
        fold(A, b0, nb_first, count);
    return rc;
}

static int macro_def(Asm *A, const Line *lines, int i, int end)
{
    char name[64];
    if (!acc_asm_ident(A, name, sizeof name))
        return acc_asm_expected(A, "the macro's name");
    if (find_macro(A, name) || acc_op_find(name) >= 0)
        return acc_asm_err(A, A->p - strlen(name), (int)strlen(name),
                           DIAG_ACC_DIRECTIVE, "'%s' is already %s", name,
                           find_macro(A, name) ? "a macro" : "an instruction");
    GROW(A->macros, A->nmacros, A->capmacros);
    Macro *mc = &A->macros[A->nmacros++];
    memset(mc, 0, sizeof *mc);
    mc->name = arena_strdup(&A->s->arena, name);
    mc->params = arena_alloc(&A->s->arena, 16 * sizeof *mc->params);
    while (!acc_asm_at_end(A)) {
        char pn[64];
        if (mc->nparams == 16)
            return acc_asm_err(A, A->p, 1, DIAG_ACC_DIRECTIVE,
                               "too many macro parameters (at most 16)");
        if (!acc_asm_ident(A, pn, sizeof pn))
            return acc_asm_expected(A, "a parameter name");
        mc->params[mc->nparams++] = arena_strdup(&A->s->arena, pn);
        if (!acc_asm_at_end(A) && !acc_asm_accept(A, ','))
            return acc_asm_expected(A, "',' or the end of the line");
    }
    mc->body = (Line *)(lines + i + 1);
    mc->nbody = end - i - 1;
    return 0;
}

/* Substitutes %PARAM in a macro body line. */
static Line subst(Asm *A, const Macro *mc, const Line *l, char **args)
{
    TlBuf b;
    buf_init(&b);
    for (int i = 0; i < l->len; i++) {
        if (l->text[i] == '%') {
            int j = i + 1;
            while (j < l->len && (isalnum((unsigned char)l->text[j]) ||
                                  l->text[j] == '_'))
                j++;
            int hit = -1;
            for (int k = 0; k < mc->nparams; k++)
                if ((int)strlen(mc->params[k]) == j - i - 1 &&
                    !strncmp(mc->params[k], l->text + i + 1, j - i - 1))
                    hit = k;
            if (hit >= 0) {
                buf_puts(&b, args[hit]);
                i = j - 1;
                continue;
            }
        }
        buf_putc(&b, l->text[i]);
    }
    Line r = *A->ln;
    r.text = arena_strndup(&A->s->arena, b.s ? b.s : "", b.len);
    r.len = (int)b.len;
    r.macro = 1;
    buf_free(&b);
    return r;
}

static int macro_call(Asm *A, const Macro *mc)
{
    char *args[16];
    int nargs = 0;
    while (!acc_asm_at_end(A)) {
        const char *q = A->p;
        int depth = 0;
        while (A->p < A->ln->text + A->ln->len &&
               (depth || *A->p != ',')) {
            depth += *A->p == '[' || *A->p == '(';
            depth -= *A->p == ']' || *A->p == ')';
            A->p++;
        }
        const char *e = A->p;
        while (e > q && (e[-1] == ' ' || e[-1] == '\t'))
            e--;
        if (nargs == 16)
            return acc_asm_err(A, q, 1, DIAG_ACC_DIRECTIVE,
                               "too many macro arguments");
        args[nargs++] = arena_strndup(&A->s->arena, q, (size_t)(e - q));
        acc_asm_accept(A, ',');
    }
    if (nargs != mc->nparams)
        return acc_asm_err(A, NULL, 0, DIAG_ACC_DIRECTIVE,
                           "macro '%s' takes %d argument%s, not %d",
                           mc->name, mc->nparams,
                           mc->nparams == 1 ? "" : "s", nargs);
    if (A->depth == MAX_MACRO_DEPTH)
        return acc_asm_err(A, NULL, 0, DIAG_ACC_DIRECTIVE,
                           "macros nested too deeply (at most %d): is "
                           "'%s' calling itself?", MAX_MACRO_DEPTH,
                           mc->name);
    Line *body = arena_alloc(&A->s->arena,
                             (size_t)(mc->nbody + 1) * sizeof *body);
    for (int i = 0; i < mc->nbody; i++)
        body[i] = subst(A, mc, &mc->body[i], args);
    A->depth++;
    int rc = run_lines(A, body, mc->nbody);
    A->depth--;
    return rc;
}

static int run_lines(Asm *A, const Line *lines, int n)
{
    int rc = 0;
    for (int i = 0; i < n; i++) {
        Line l = lines[i];
        l.len = code_len(l.text, l.len);
        A->ln = &l;
        A->p = l.text;
        if (acc_asm_at_end(A))
            continue;
        char w[64];
        int wl = first_word(&l, w, sizeof w);
        const char *wat = A->p;
        if (w[0] == '.') {
            A->p = l.text + wl;
            if (!strcmp(w, ".rep") || !strcmp(w, ".macro")) {
                int rp = w[1] == 'r';
                int end = block_end(lines, i, n, w, rp ? ".endrep" : ".endm");
                if (end < 0) {
                    rc = acc_asm_err(A, wat, (int)strlen(w),
                                     DIAG_ACC_DIRECTIVE, "'%s' without "
                                     "'%s'", w, rp ? ".endrep" : ".endm");
                    break;
                }
                if (rp ? rep(A, lines, i, end) : macro_def(A, lines, i, end))
                    rc = -1;
                i = end;
                continue;
            }
            if (!strcmp(w, ".input") || !strcmp(w, ".output")) {
                if (io_directive(A, w[1] == 'o'))
                    rc = -1;
                continue;
            }
            if (!strcmp(w, ".assert")) {
                if (assert_directive(A))
                    rc = -1;
                continue;
            }
            if (!strcmp(w, ".image")) {
                if (acc_asm_image(A))
                    rc = -1;
                continue;
            }
            if (!strcmp(w, ".machine")) {
                if (A->bundles_seen)
                    rc = acc_asm_err(A, wat, (int)strlen(w),
                                     DIAG_ACC_DIRECTIVE, "'.machine' must "
                                     "come before the first bundle");
                continue;   /* its value was read before assembling */
            }
            if (!strcmp(w, ".endrep") || !strcmp(w, ".endm")) {
                rc = acc_asm_err(A, wat, (int)strlen(w), DIAG_ACC_DIRECTIVE,
                                 "'%s' without '%s'", w,
                                 w[4] == 'r' ? ".rep" : ".macro");
                continue;
            }
            rc = acc_asm_err(A, wat, (int)strlen(w), DIAG_ACC_DIRECTIVE,
                             "unknown directive '%s' (.machine, .input, "
                             ".output, .image, .assert, .rep, .endrep, "
                             ".macro, "
                             ".endm)", w);
            continue;
        }
        Macro *mc = find_macro(A, w);
        if (mc) {
            A->p = l.text + wl;
            if (macro_call(A, mc))
                rc = -1;
            continue;
        }
        if (acc_asm_bundle(A))
            rc = -1;
    }
    return rc;
}

/* The `.machine` line, read before assembling because every check
 * depends on the machine. */
static const AccMachine *machine_line(Asm *A, const Line *lines, int n,
                                      const AccMachine *given)
{
    for (int i = 0; i < n; i++) {
        Line l = lines[i];
        l.len = code_len(l.text, l.len);
        char w[64];
        int wl = first_word(&l, w, sizeof w);
        if (strcmp(w, ".machine") != 0)
            continue;
        A->ln = &l;
        A->p = l.text + wl;
        acc_asm_skip_ws(A);
        const char *q = A->p;
        while (A->p < l.text + l.len && *A->p != ' ' && *A->p != '\t')
            A->p++;
        char *name = arena_strndup(&A->s->arena, q, (size_t)(A->p - q));
        if (!*name || !acc_asm_at_end(A)) {
            acc_asm_expected(A, "a machine name, then the end of the line");
            return NULL;
        }
        if (given) {
            if (strcmp(given->name, name) != 0) {
                acc_asm_err(A, q, (int)strlen(name), DIAG_ACC_MACHINE,
                            "the program is written for machine '%s' but "
                            "runs on '%s'", name, given->name);
                return NULL;
            }
            return given;
        }
        TlBuf e;
        buf_init(&e);
        const AccMachine *m = acc_machine_get(A->s, name, &e);
        if (!m)
            acc_asm_err(A, q, (int)strlen(name), DIAG_ACC_MACHINE, "%s",
                        e.s);
        buf_free(&e);
        return m;
    }
    return given ? given : acc_machine_builtin("test");
}

#define COPY(dst, src, n)                                                \
    do {                                                                 \
        (dst) = arena_alloc(&s->arena, ((size_t)(n) + 1) * sizeof *(dst)); \
        if (n)                                                           \
            memcpy((dst), (src), (size_t)(n) * sizeof *(dst));           \
    } while (0)

AccProgram *acc_assemble(TlSession *s, int file, const AccMachine *m,
                         int compress)
{
    const TlSource *src = &s->src[file];
    int nlines = 1;
    for (size_t i = 0; i < src->len; i++)
        nlines += src->text[i] == '\n';
    Line *lines = tl_xmalloc((size_t)nlines * sizeof *lines);
    int n = 0;
    const char *t = src->text, *end = src->text + src->len;
    while (t <= end && n < nlines) {
        const char *e = memchr(t, '\n', (size_t)(end - t));
        if (!e)
            e = end;
        Line *l = &lines[n];
        l->text = t;
        l->len = (int)(e - t);
        if (l->len && t[l->len - 1] == '\r')
            l->len--;
        l->loc.file = file;
        l->loc.line = n + 1;
        l->loc.col = 1;
        l->loc.off = (int)(t - src->text);
        l->loc.len = 0;
        l->macro = 0;
        n++;
        t = e + 1;
    }
    Asm A;
    memset(&A, 0, sizeof A);
    A.s = s;
    A.compress = compress;
    int before = s->nerrors;
    A.m = machine_line(&A, lines, n, m);
    if (A.m)
        run_lines(&A, lines, n);
    /* Each image's runs, checked, into the arena. */
    for (int i = 0; i < A.nio; i++) {
        AccIO *io = &A.io[i];
        AccImgRun *r = io->img;
        TlBuf why;
        if (!io->nimg || s->nerrors != before) {
            free(r);
            io->img = NULL;
            continue;
        }
        buf_init(&why);
        if (acc_img_check(io, &why))
            diag_error(s, io->loc, DIAG_ACC_DIRECTIVE,
                       arena_printf(&s->arena, "the image of '%s': %s",
                                    io->name, why.s));
        buf_free(&why);
        COPY(io->img, r, io->nimgruns);
        free(r);
    }
    AccProgram *p = NULL;
    if (A.m && s->nerrors == before) {
        p = arena_alloc(&s->arena, sizeof *p);
        p->m = A.m;
        COPY(p->ops, A.ops, A.nops);
        p->nops = A.nops;
        COPY(p->b, A.b, A.nb);
        p->nb = A.nb;
        COPY(p->consts, A.consts, A.nconsts);
        p->nconsts = A.nconsts;
        COPY(p->io, A.io, A.nio);
        p->nio = A.nio;
        COPY(p->reps, A.reps, A.nreps);
        p->nreps = A.nreps;
    }
    free(A.ops);
    free(A.b);
    free(A.consts);
    free(A.io);
    free(A.reps);
    free(A.macros);
    free(lines);
    return p;
}

AccProgram *acc_expand(TlSession *s, const AccProgram *p)
{
    if (p->nreps == 0)
        return (AccProgram *)p;
    int64_t nb = p->nb, nops = p->nops;
    for (int r = 0; r < p->nreps; r++) {
        const AccRep *rp = &p->reps[r];
        int64_t k = 0;
        for (int j = 0; j < rp->n; j++)
            k += p->b[rp->first + j].nops;
        nb += (rp->count - 1) * rp->n;
        nops += (rp->count - 1) * k;
    }
    AccProgram *q = arena_alloc(&s->arena, sizeof *q);
    *q = *p;
    q->ops = arena_alloc(&s->arena, (size_t)(nops + 1) * sizeof *q->ops);
    q->b = arena_alloc(&s->arena, (size_t)(nb + 1) * sizeof *q->b);
    q->reps = NULL;
    q->nreps = 0;
    int no = 0, nbo = 0, r = 0;
    for (int b = 0; b < p->nb;) {
        const AccRep *rp = r < p->nreps && p->reps[r].first == b
                               ? &p->reps[r] : NULL;
        int64_t count = rp ? rp->count : 1;
        int len = rp ? rp->n : 1;
        for (int64_t j = 0; j < count; j++) {
            const int32_t *inc = rp ? rp->inc : NULL;
            for (int t = 0; t < len; t++) {
                const AccBundle *src = &p->b[b + t];
                AccBundle *d = &q->b[nbo++];
                *d = *src;
                d->first = no;
                for (int o = 0; o < src->nops; o++) {
                    AccOp *op = &q->ops[no++];
                    *op = p->ops[src->first + o];
                    if (!inc)
                        continue;
                    for (int i = 0; i < NOPND; i++) {
                        AccOpnd *x = i < ACC_MAX_SRC
                                         ? &op->src[i]
                                         : &op->dst[i - ACC_MAX_SRC];
                        x->addr = (int32_t)(x->addr + j * inc[i]);
                    }
                    inc += NOPND;
                }
            }
        }
        b += len;
        r += rp != NULL;
    }
    q->nb = nbo;
    q->nops = no;
    return q;
}
