/*
 * acc_asm.c - the assembler: text (docs/accel-asm.md) to a program.
 *
 * Lines are read one at a time; a bundle line is parsed into ops, each
 * op is checked on its own (acc_check_op) and then the bundle as a
 * whole (acc_check_bundle), and every failure is a diagnostic at the
 * op.  `.rep` expands its body once per iteration with the variable
 * bound for address expressions; `.macro` bodies are substituted as
 * text, and their errors are reported at the call.  With compression
 * on, an innermost `.rep` whose iterations differ only by a constant
 * step in addresses is folded back into one AccRep.
 */
#include "codegen/acc/acc_int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>


static TlLoc loc_at(const Asm *A, const char *at, int len)
{
    TlLoc l = A->ln->loc;
    if (A->ln->macro || !at)
        return l;
    int off = (int)(at - A->ln->text);
    l.col += off;
    l.off += off;
    l.len = len;
    return l;
}

int acc_asm_err(Asm *A, const char *at, int len, TlDiagId id,
               const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    diag_error(A->s, loc_at(A, at, len), id, msg);
    return -1;
}

static const char *line_end(const Asm *A)
{
    return A->ln->text + A->ln->len;
}

void acc_asm_skip_ws(Asm *A)
{
    while (A->p < line_end(A) && (*A->p == ' ' || *A->p == '\t'))
        A->p++;
}

int acc_asm_at_end(Asm *A)
{
    acc_asm_skip_ws(A);
    return A->p >= line_end(A);
}

/* What is at the cursor, for messages: a word or one character. */
static const char *found(Asm *A, char *buf, size_t n)
{
    acc_asm_skip_ws(A);
    if (A->p >= line_end(A))
        return "the end of the line";
    size_t k = 0;
    const char *q = A->p;
    if (isalnum((unsigned char)*q) || *q == '_')
        while (q < line_end(A) && (isalnum((unsigned char)*q) ||
                                   *q == '_' || *q == '.') && k + 3 < n)
            buf[k++] = *q++;
    else
        buf[k++] = *q;
    buf[k] = 0;
    return buf;
}

int acc_asm_expected(Asm *A, const char *what)
{
    char fb[64], q[80];
    const char *f = found(A, fb, sizeof fb);
    if (strcmp(f, "the end of the line") == 0)
        snprintf(q, sizeof q, "%s", f);
    else
        snprintf(q, sizeof q, "'%s'", f);
    return acc_asm_err(A, A->p, (int)strlen(fb), DIAG_ACC_SYNTAX,
               "expected %s, found %s", what, q);
}

int acc_asm_accept(Asm *A, char c)
{
    acc_asm_skip_ws(A);
    if (A->p < line_end(A) && *A->p == c) {
        A->p++;
        return 1;
    }
    return 0;
}

int acc_asm_ident(Asm *A, char *buf, size_t n)
{
    acc_asm_skip_ws(A);
    const char *q = A->p;
    if (q >= line_end(A) || !(isalpha((unsigned char)*q) || *q == '_'))
        return 0;
    size_t k = 0;
    while (q < line_end(A) && (isalnum((unsigned char)*q) || *q == '_')) {
        if (k + 1 < n)
            buf[k++] = *q;
        q++;
    }
    buf[k] = 0;
    A->p = q;
    return 1;
}

int acc_asm_unquote(const char **p, const char *end, TlBuf *out)
{
    const char *q = *p;

    if (q >= end || *q != '"')
        return -1;
    for (q++; q < end && *q != '"'; q++) {
        if (*q != '\\') {
            buf_putc(out, *q);
            continue;
        }
        if (++q >= end)
            return -1;
        if (*q == 'x') {
            unsigned v = 0;
            for (int i = 0; i < 2; i++) {
                int c = ++q < end ? *q : 0;
                if (!isxdigit(c))
                    return -1;
                v = v * 16 + (unsigned)(isdigit(c) ? c - '0'
                                                   : (c | 32) - 'a' + 10);
            }
            if (!v)
                return -1;
            buf_putc(out, (char)v);
        } else if (*q == 'n' || *q == 't') {
            buf_putc(out, *q == 'n' ? '\n' : '\t');
        } else if (*q == '"' || *q == '\\') {
            buf_putc(out, *q);
        } else {
            return -1;
        }
    }
    if (q >= end)
        return -1;
    *p = q + 1;
    return 0;
}

/* --- address expressions -------------------------------------------- */

int acc_asm_expr(Asm *A, int64_t *v);

static int primary(Asm *A, int64_t *v)
{
    acc_asm_skip_ws(A);
    const char *start = A->p;
    if (acc_asm_accept(A, '(')) {
        if (acc_asm_expr(A, v))
            return -1;
        return acc_asm_accept(A, ')') ? 0 : acc_asm_expected(A, "')'");
    }
    if (acc_asm_accept(A, '-')) {
        if (primary(A, v))
            return -1;
        *v = -*v;
        return 0;
    }
    if (acc_asm_accept(A, '%')) {
        char name[64];
        if (!acc_asm_ident(A, name, sizeof name))
            return acc_asm_expected(A, "a variable name after '%'");
        for (int i = A->nvars - 1; i >= 0; i--)
            if (strcmp(A->vars[i].name, name) == 0) {
                *v = A->vars[i].v;
                return 0;
            }
        return acc_asm_err(A, start, (int)(A->p - start), DIAG_ACC_SYNTAX,
                   "'%%%s' is not a .rep variable here", name);
    }
    if (A->p < line_end(A) && isdigit((unsigned char)*A->p)) {
        char *end;
        errno = 0;
        long long x = strtoll(A->p, &end, 0);
        if (errno || end > line_end(A) || x > (1LL << 40))
            return acc_asm_err(A, start, (int)(end - start), DIAG_ACC_SYNTAX,
                       "number out of range");
        A->p = end;
        *v = x;
        return 0;
    }
    return acc_asm_expected(A, "a number");
}

static int term(Asm *A, int64_t *v)
{
    if (primary(A, v))
        return -1;
    for (;;) {
        acc_asm_skip_ws(A);
        const char *op = A->p;
        if (!acc_asm_accept(A, '*') && !acc_asm_accept(A, '/'))
            return 0;
        int64_t w;
        if (primary(A, &w))
            return -1;
        if (*op == '/' && w == 0)
            return acc_asm_err(A, op, 1, DIAG_ACC_SYNTAX, "division by zero");
        *v = *op == '*' ? *v * w : *v / w;
        if (*v > (1LL << 40) || *v < -(1LL << 40))
            return acc_asm_err(A, op, 1, DIAG_ACC_SYNTAX,
                               "number out of range");
    }
}

/* Stops before a '+' that closes an address ("lm0[4+]"). */
int acc_asm_expr(Asm *A, int64_t *v)
{
    if (term(A, v))
        return -1;
    for (;;) {
        acc_asm_skip_ws(A);
        const char *save = A->p;
        int plus = acc_asm_accept(A, '+');
        if (!plus && !acc_asm_accept(A, '-'))
            return 0;
        if (plus) {
            acc_asm_skip_ws(A);
            if (A->p < line_end(A) && *A->p == ']') {
                A->p = save;
                return 0;
            }
        }
        int64_t w;
        if (term(A, &w))
            return -1;
        *v = plus ? *v + w : *v - w;
    }
}

int acc_asm_add_const(Asm *A, double f, int64_t i)
{
    GROW(A->consts, A->nconsts, A->capc);
    A->consts[A->nconsts].f = f;
    A->consts[A->nconsts].i = i;
    return A->nconsts++;
}

static int32_t clamp32(int64_t v)
{
    return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

/* --- operands ----------------------------------------------------------- */

static int immediate(Asm *A, AccOpnd *o)
{
    const char *q = A->p, *e = q;
    while (e < line_end(A) && !strchr(",; \t", *e))
        e++;
    char text[64];
    size_t n = (size_t)(e - q);
    if (n == 0 || n >= sizeof text)
        return acc_asm_err(A, q - 1, (int)n + 1, DIAG_ACC_SYNTAX,
                   "expected a number after '#'");
    memcpy(text, q, n);
    text[n] = 0;
    double f;
    int64_t i;
    char *end;
    const char *t = text + (text[0] == '-' || text[0] == '+');
    if (!strcmp(t, "nan") || !strcmp(t, "inf")) {
        f = t[0] == 'n' ? NAN : INFINITY;
        if (text[0] == '-')
            f = -f;
        i = 0;
    } else {
        errno = 0;
        long long ll = strtoll(text, &end, 0);
        if (*end == 0 && !errno) {
            i = ll;
            f = (double)ll;
        } else {
            errno = 0;
            f = strtod(text, &end);
            if (*end || !strcmp(t, "infinity") || isnan(f) || isinf(f))
                return acc_asm_err(A, q - 1, (int)n + 1, DIAG_ACC_SYNTAX,
                           "'#%s' is not a number", text);
            i = fabs(f) < 9e18 ? (int64_t)f : 0;
        }
    }
    A->p = e;
    o->space = ACC_SP_IMM;
    o->addr = acc_asm_add_const(A, f, i);
    return 0;
}

static int id_operand(Asm *A, AccOpnd *o)
{
    const char *start = A->p - 1;
    char name[64];
    if (!acc_asm_ident(A, name, sizeof name))
        return acc_asm_expected(A, "an id name after '$'");
    o->space = ACC_SP_ID;
    if (!strcmp(name, "sub")) {
        o->k = ACC_ID_SUB;
        return 0;
    }
    if (!strcmp(name, "gpe")) {
        o->k = ACC_ID_GPE;
        return 0;
    }
    if (!strcmp(name, "peid"))
        strcpy(name, "pe");
    for (int i = 0; i < A->m->nlevels; i++) {
        const char *ln = A->m->level[i].name;
        size_t j = 0;
        while (ln[j] && tolower((unsigned char)ln[j]) == name[j])
            j++;
        if (!ln[j] && !name[j]) {
            o->k = (uint8_t)i;
            return 0;
        }
    }
    return acc_asm_err(A, start, (int)(A->p - start), DIAG_ACC_SYNTAX,
               "unknown id '$%s': $sub, $gpe or a level's name in lower "
               "case ($pe, $mab, ...)", name);
}

/* The bracket of lm0/lm1/r/s/t. */
static int pe_address(Asm *A, AccOpnd *o, int *autostride)
{
    char w[8];
    const char *save = A->p;
    if (acc_asm_ident(A, w, sizeof w) && !strcmp(w, "t") &&
        acc_asm_accept(A, ']')) {
        o->mode = ACC_MODE_INDIRECT;
        return 0;
    }
    A->p = save;
    int64_t a;
    if (acc_asm_expr(A, &a))
        return -1;
    if (acc_asm_accept(A, ',')) {
        int64_t v[4];
        v[0] = a;
        for (int c = 1; c < 4; c++) {
            if (c > 1 && !acc_asm_accept(A, ','))
                return acc_asm_expected(A, "',' (a flat list has 4 addresses)");
            if (acc_asm_expr(A, &v[c]))
                return -1;
        }
        o->mode = ACC_MODE_FLAT;
        o->addr = acc_asm_add_const(A, (double)v[0], v[0]);
        for (int c = 1; c < 4; c++)
            acc_asm_add_const(A, (double)v[c], v[c]);
        return acc_asm_accept(A, ']') ? 0 : acc_asm_expected(A, "']'");
    }
    o->addr = clamp32(a);
    if (acc_asm_accept(A, '+')) {
        *autostride = 1;
    } else {
        save = A->p;
        if (acc_asm_ident(A, w, sizeof w) && !strcmp(w, "by")) {
            int64_t k;
            if (acc_asm_expr(A, &k))
                return -1;
            o->stride = clamp32(k);
        } else {
            A->p = save;
        }
    }
    return acc_asm_accept(A, ']') ? 0 : acc_asm_expected(A, "']'");
}

static int range(Asm *A, AccOpnd *o)
{
    int64_t a, e;
    if (!acc_asm_accept(A, '['))
        return acc_asm_expected(A, "'['");
    if (acc_asm_expr(A, &a))
        return -1;
    o->addr = clamp32(a);
    if (acc_asm_accept(A, ':')) {
        const char *at = A->p;
        if (acc_asm_expr(A, &e))
            return -1;
        if (e <= a)
            return acc_asm_err(A, at, (int)(A->p - at), DIAG_ACC_SYNTAX,
                       "the end of a range must be above its start");
        o->stride = clamp32(e - a);
    }
    return acc_asm_accept(A, ']') ? 0 : acc_asm_expected(A, "']'");
}

static int operand(Asm *A, AccOpnd *o)
{
    memset(o, 0, sizeof *o);
    o->width = 1;
    acc_asm_skip_ws(A);
    const char *start = A->p;
    if (acc_asm_accept(A, '#'))
        return immediate(A, o);
    if (acc_asm_accept(A, '$'))
        return id_operand(A, o);
    char name[32];
    if (!acc_asm_ident(A, name, sizeof name))
        return acc_asm_expected(A, "an operand");
    int autostride = 0;
    static const char *const pe[] = {"lm0", "lm1", "r", "s", "t"};
    static const char *const fw[] = {"aluf", "mauf", "lbf"};
    for (int i = 0; i < 5; i++)
        if (!strcmp(name, pe[i])) {
            o->space = (uint8_t)(ACC_SP_LM0 + i);
            if (!acc_asm_accept(A, '['))
                return acc_asm_expected(A, "'[' and an address");
            if (pe_address(A, o, &autostride))
                return -1;
        }
    for (int i = 0; i < 3; i++)
        if (!strcmp(name, fw[i]))
            o->space = (uint8_t)(ACC_SP_ALUF + i);
    if (!strcmp(name, "x") || !strcmp(name, "y")) {
        o->space = ACC_SP_MREG;
        o->k = name[0] == 'y';
        if (acc_asm_accept(A, '[')) {
            int64_t r;
            if (acc_asm_expr(A, &r))
                return -1;
            o->addr = clamp32(r);
            if (!acc_asm_accept(A, ']'))
                return acc_asm_expected(A, "']'");
        }
        return 0;
    }
    int bk = 0;
    if (!strcmp(name, "lb"))
        bk = 1;
    else if (!strcmp(name, "lc"))
        bk = 2;
    else if (name[0] == 'b' && name[1] >= '1' && name[1] <= '9' && !name[2])
        bk = name[1] - '0';
    if (bk || !strcmp(name, "d")) {
        o->space = bk ? ACC_SP_BM : ACC_SP_DRAM;
        o->k = (uint8_t)bk;
        return range(A, o);
    }
    if (name[0] == 'm' && isdigit((unsigned char)name[1])) {
        char *end;
        long k = strtol(name + 1, &end, 10);
        if (*end || k > 255)
            return acc_asm_err(A, start, (int)(A->p - start), DIAG_ACC_SYNTAX,
                       "bad mask name '%s'", name);
        o->space = ACC_SP_MASK;
        o->addr = (int32_t)k;
        return 0;
    }
    if (!o->space)
        return acc_asm_err(A, start, (int)(A->p - start), DIAG_ACC_SYNTAX,
                   "unknown operand '%s'", name);
    /* Width, then a write mask. */
    if (A->p + 2 < line_end(A) && A->p[0] == '.' && A->p[1] == 'd') {
        int dd = A->p[2] == 'd';
        A->p += 2 + dd;
        o->width = (uint8_t)(1 + dd);
    }
    if (autostride)
        o->stride = 2 * o->width;
    if (A->p < line_end(A) && *A->p == '/') {
        const char *at = A->p++;
        char mname[16];
        if (!acc_asm_ident(A, mname, sizeof mname) || mname[0] != 'm' ||
            !isdigit((unsigned char)mname[1]) || strlen(mname) > 4)
            return acc_asm_err(A, at, (int)(A->p - at), DIAG_ACC_SYNTAX,
                       "expected a write mask '/mK' after '/'");
        o->mask = (uint8_t)atoi(mname + 1);
        if (!o->mask)
            return acc_asm_err(A, at, (int)(A->p - at), DIAG_ACC_SYNTAX,
                       "'/m0' is no mask: m0 is all ones, leave it out");
    }
    return 0;
}

/* --- ops and bundles ------------------------------------------------------ */

static int suffixes(Asm *A, AccOp *op, char *word, const char *start)
{
    char *save = NULL;
    char *part = strtok_r(word, ".", &save);
    char name[32];
    snprintf(name, sizeof name, "%s", part ? part : "");
    if (!strcmp(name, "dma")) {
        part = strtok_r(NULL, ".", &save);
        snprintf(name, sizeof name, "dma.%s", part ? part : "");
    }
    int opc = acc_op_find(name);
    if (opc < 0)
        return acc_asm_err(A, start, (int)strlen(name), DIAG_ACC_UNKNOWN_OP,
                   "%s", name);
    op->opc = (uint8_t)opc;
    op->child = -1;
    op->nsteps = 1;
    AccOpKind k = acc_op_kind((AccOpcode)opc);
    while ((part = strtok_r(NULL, ".", &save))) {
        TlDType dt = dt_from_name(part, strlen(part));
        if (part[0] == 'L' && isdigit((unsigned char)part[1]) &&
            (k == ACC_K_XDOWN || k == ACC_K_XUP) && !op->level) {
            op->level = (uint8_t)atoi(part + 1);
        } else if (part[0] == 't' && isdigit((unsigned char)part[1]) &&
                   k == ACC_K_DMA && atoi(part + 1) < 256) {
            op->tag = (uint8_t)atoi(part + 1);
        } else if (acc_dt_ok(dt) && !op->dt) {
            op->dt = (uint8_t)dt;
        } else if (acc_dt_ok(dt) && opc == ACC_OP_CVT && !op->dt2) {
            op->dt2 = (uint8_t)dt;
        } else {
            return acc_asm_err(A, start, (int)(A->p - start), DIAG_ACC_SYNTAX,
                       "unexpected suffix '.%s' on '%s'", part, name);
        }
    }
    if ((k == ACC_K_XDOWN || k == ACC_K_XUP) && !op->level)
        return acc_asm_err(A, start, (int)(A->p - start), DIAG_ACC_SYNTAX,
                   "'%s' needs a level suffix: .L1 up to .L%d", name,
                   acc_bm_levels(A->m));
    return 0;
}

/* `@{i, j, ...}` after dma.bcast (the top BM nodes it goes to,
 * MN-Core's mvb to several L2BMs) or after a down transfer of level k
 * (the children of each level-k node that receive, MN-Core's l2bmb@),
 * kept as a bit mask, so a node named twice or one the machine lacks
 * is refused here, at its column; acc_check_op refuses a set on any
 * other op. */
static int node_set(Asm *A, AccOp *op)
{
    const char *open = A->p++;
    const char *what, *under;
    int64_t nodes;

    /* A down transfer of a level the machine lacks: acc_check_op
     * names the level. */
    if (acc_set_children(A->m, op, &nodes, &what, &under) &&
        acc_op_kind(op->opc) == ACC_K_XDOWN)
        nodes = 64, what = under = "?";
    else if (acc_set_children(A->m, op, &nodes, &what, &under))
        return acc_asm_err(A, open, 1, DIAG_ACC_SYNTAX,
                   "only the down transfers (bcast, dist, mbcast) and "
                   "dma.bcast take a node set @{...}");
    if (nodes > 64 && under)
        return acc_asm_err(A, open, 1, DIAG_ACC_SYNTAX,
                   "a node set takes at most 64 nodes; an %s has %lld %ss",
                   under, (long long)nodes, what);
    if (nodes > 64)
        return acc_asm_err(A, open, 1, DIAG_ACC_SYNTAX,
                   "a node set takes at most 64 nodes; this machine's "
                   "level %s has %lld", what, (long long)nodes);
    acc_asm_skip_ws(A);
    if (A->p < line_end(A) && *A->p == '}')
        return acc_asm_err(A, open, (int)(A->p + 1 - open), DIAG_ACC_SYNTAX,
                   "an empty node set: name at least one node");
    do {
        acc_asm_skip_ws(A);
        const char *at = A->p;
        int64_t c;
        if (acc_asm_expr(A, &c))
            return -1;
        if ((c < 0 || c >= nodes) && under)
            return acc_asm_err(A, at, (int)(A->p - at), DIAG_ACC_SYNTAX,
                       "no %s %lld under an %s: it has %ss 0..%lld",
                       what, (long long)c, under, what,
                       (long long)nodes - 1);
        if (c < 0 || c >= nodes)
            return acc_asm_err(A, at, (int)(A->p - at), DIAG_ACC_SYNTAX,
                       "no node %lld at level %s: this machine has "
                       "nodes 0..%lld there", (long long)c, what,
                       (long long)nodes - 1);
        if (op->set >> c & 1)
            return acc_asm_err(A, at, (int)(A->p - at), DIAG_ACC_SYNTAX,
                       "node %lld twice in the set", (long long)c);
        op->set |= (uint64_t)1 << c;
    } while (acc_asm_accept(A, ','));
    if (!acc_asm_accept(A, '}'))
        return acc_asm_expected(A, "',' or '}' in the node set");
    return 0;
}

static int parse_op(Asm *A, AccOp *op)
{
    memset(op, 0, sizeof *op);
    acc_asm_skip_ws(A);
    const char *start = A->p;
    op->col = A->ln->loc.col + (int)(start - A->ln->text);
    char word[64];
    size_t n = 0;
    while (A->p < line_end(A) && (isalnum((unsigned char)*A->p) ||
                                  *A->p == '.' || *A->p == '_')) {
        if (n + 1 < sizeof word)
            word[n++] = *A->p;
        A->p++;
    }
    word[n] = 0;
    if (!n)
        return acc_asm_expected(A, "an instruction");
    if (suffixes(A, op, word, start))
        return -1;
    if (A->p < line_end(A) && *A->p == '@') {
        A->p++;
        int64_t c;
        if (A->p < line_end(A) && *A->p == '{') {
            if (node_set(A, op))
                return -1;
        } else {
            if (primary(A, &c))
                return -1;
            op->child = (int16_t)(c < 0 || c > 30000 ? 30000 : c);
        }
    }
    if (A->p < line_end(A) && *A->p == '/') {
        A->p++;
        int64_t c;
        if (op->opc != ACC_OP_NOP)
            return acc_asm_err(A, A->p - 1, 1, DIAG_ACC_SYNTAX,
                       "only nop takes a step count '/N'");
        if (primary(A, &c))
            return -1;
        if (c < 1 || c > 65535)
            return acc_asm_err(A, A->p - 1, 1, DIAG_ACC_SYNTAX,
                       "nop/N needs N in 1..65535");
        op->nsteps = (uint16_t)c;
    }
    if (op->opc == ACC_OP_WAIT) {
        char t[16];
        if (!acc_asm_ident(A, t, sizeof t) || t[0] != 't' ||
            !isdigit((unsigned char)t[1]) || atoi(t + 1) > 255)
            return acc_asm_expected(A, "a DMA tag t0..t255 after 'wait'");
        op->tag = (uint8_t)atoi(t + 1);
    }
    acc_asm_skip_ws(A);
    int arrow = A->p + 1 < line_end(A) && A->p[0] == '-' && A->p[1] == '>';
    if (!acc_asm_at_end(A) && *A->p != ';' && !arrow) {
        do {
            if (op->nsrc == ACC_MAX_SRC)
                return acc_asm_err(A, A->p, 1, DIAG_ACC_SYNTAX,
                           "too many sources (at most %d)", ACC_MAX_SRC);
            if (operand(A, &op->src[op->nsrc++]))
                return -1;
        } while (acc_asm_accept(A, ','));
    }
    acc_asm_skip_ws(A);
    if (A->p + 1 < line_end(A) && A->p[0] == '-' && A->p[1] == '>') {
        A->p += 2;
        do {
            if (op->ndst == ACC_MAX_DST)
                return acc_asm_err(A, A->p, 1, DIAG_ACC_SYNTAX,
                           "too many destinations (at most %d)",
                           ACC_MAX_DST);
            if (operand(A, &op->dst[op->ndst++]))
                return -1;
        } while (acc_asm_accept(A, ','));
    }
    for (int i = 0; i < op->nsrc; i++)
        if (op->src[i].mask)
            return acc_asm_err(A, start, 0, DIAG_ACC_OPERAND,
                       "a write mask belongs on a destination");
    op->slot = (uint8_t)acc_op_slot(op);
    return 0;
}

static const TlDiagId rule_ids[] = {DIAG_ACC_OPERAND, DIAG_ACC_SLOT_TWICE,
                                    DIAG_ACC_WRITE_TWICE, DIAG_ACC_PORT,
                                    DIAG_ACC_PRECISION};

static int op_error(Asm *A, const AccOp *op, TlDiagId id, const char *msg)
{
    TlLoc l = A->ln->loc;
    if (!A->ln->macro) {
        l.off += op->col - l.col;
        l.col = op->col;
        l.len = (int)strlen(acc_op_name((AccOpcode)op->opc));
    }
    diag_error(A->s, l, id, msg);
    return -1;
}

int acc_asm_bundle(Asm *A)
{
    int first = A->nops;
    for (;;) {
        GROW(A->ops, A->nops, A->capops);
        AccOp *op = &A->ops[A->nops];
        if (parse_op(A, op))
            goto fail;
        A->nops++;
        if (acc_asm_at_end(A))
            break;
        if (!acc_asm_accept(A, ';')) {
            acc_asm_expected(A, "';' between ops or the end of the line");
            goto fail;
        }
    }
    AccProgram view;
    memset(&view, 0, sizeof view);
    view.m = A->m;
    view.consts = A->consts;
    view.nconsts = A->nconsts;
    TlBuf why;
    buf_init(&why);
    for (int i = first; i < A->nops; i++) {
        why.len = 0;
        if (acc_check_op(A->m, &view, &A->ops[i], &why)) {
            op_error(A, &A->ops[i], DIAG_ACC_OPERAND, why.s);
            buf_free(&why);
            goto fail;
        }
    }
    int which = 0;
    why.len = 0;
    int rule = acc_check_bundle(A->m, A->ops + first, A->nops - first, &why,
                                &which);
    if (rule) {
        op_error(A, &A->ops[first + which], rule_ids[rule], why.s);
        buf_free(&why);
        goto fail;
    }
    buf_free(&why);
    GROW(A->b, A->nb, A->capb);
    A->b[A->nb].first = first;
    A->b[A->nb].nops = A->nops - first;
    A->b[A->nb].loc = A->ln->loc;
    A->b[A->nb].loc.len = A->ln->len;
    A->nb++;
    A->bundles_seen = 1;
    return 0;
fail:
    A->nops = first;
    return -1;
}

