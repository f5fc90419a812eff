/*
 * layout_parse.c - the text of a layout as the command line and tests
 * write it: an optional placement (`lm0[0:32]`), an optional shape
 * (`(128,64)/`) and a layout in canonical or compact form (layout.h).
 * The factors become the language's TlLayout, so that one checker
 * (layout.c) serves both this text and `layout` statements.
 *
 * A small hand-written scanner: the text is one line, and the forms
 * are few.  MN-Core's spelling `$lm[0:16]` is accepted too (`$` is
 * ignored, `lm` is `lm0`).
 */
#include "codegen/acc/layout.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *const space_names[ACC_LSP__COUNT] = {
    "lm0", "lm1", "r", "s", "lb", "lc", "d",
};

const char *acc_layout_space_name(AccLaySpace sp)
{
    return (unsigned)sp < ACC_LSP__COUNT ? space_names[sp] : "?";
}

int acc_layout_space_from_name(const char *name, size_t len)
{
    if (len == 2 && !memcmp(name, "lm", 2))
        return ACC_LSP_LM0;
    for (int i = 0; i < ACC_LSP__COUNT; i++)
        if (strlen(space_names[i]) == len && !memcmp(space_names[i], name,
                                                     len))
            return i;
    return -1;
}

/* ====================================================================
 * Scanner
 * ==================================================================== */

typedef enum { T_END, T_INT, T_NAME, T_FACTOR, T_PUNCT, T_BAD } TokKind;

typedef struct Tok {
    TokKind kind;
    const char *p;      /* text */
    int len;
    int64_t v;          /* T_INT, T_FACTOR: the count */
    const char *lvl;    /* T_FACTOR: after the '_' */
    int lvl_len;
} Tok;

typedef struct Ps {
    TlSession *s;
    int file;
    const char *text;
    const char *p;
    Tok t;
    int failed;
} Ps;

static TlLoc loc_of(Ps *x, const char *p, int len)
{
    TlLoc l;
    l.file = x->file;
    l.line = 1;
    l.off = (int)(p - x->text);
    l.col = l.off + 1;
    l.len = len;
    return l;
}

static TlLoc tloc(Ps *x)
{
    return loc_of(x, x->t.p, x->t.len ? x->t.len : 1);
}

static void next(Ps *x)
{
    const char *p = x->p;
    Tok *t = &x->t;

    while (*p == ' ' || *p == '\t' || *p == '$')
        p++;
    memset(t, 0, sizeof *t);
    t->p = p;
    if (!*p) {
        t->kind = T_END;
    } else if (isdigit((unsigned char)*p)) {
        int64_t v = 0;
        int big = 0;
        while (isdigit((unsigned char)*p)) {
            if (v > (INT64_MAX - 9) / 10)
                big = 1;
            else
                v = v * 10 + (*p - '0');
            p++;
        }
        t->kind = big ? T_BAD : T_INT;
        t->v = v;
        if (*p == '_' && (isalpha((unsigned char)p[1]))) {
            t->kind = big ? T_BAD : T_FACTOR;
            t->lvl = ++p;
            while (isalnum((unsigned char)*p) || *p == '_')
                p++;
            t->lvl_len = (int)(p - t->lvl);
        }
    } else if (isalpha((unsigned char)*p) || *p == '_') {
        t->kind = T_NAME;
        while (isalnum((unsigned char)*p) || *p == '_')
            p++;
    } else {
        t->kind = strchr("()[],:;@/", *p) ? T_PUNCT : T_BAD;
        p++;
    }
    t->len = (int)(p - t->p);
    x->p = p;
}

/* The current token, quoted, for messages. */
static const char *found(Ps *x)
{
    if (x->t.kind == T_END)
        return "the end of the text";
    return arena_printf(&x->s->arena, "'%.*s'", x->t.len, x->t.p);
}

static void expected(Ps *x, const char *what)
{
    if (!x->failed)
        diag_error(x->s, tloc(x), DIAG_LAYOUT_SYNTAX, what, found(x));
    x->failed = 1;
}

static int is_punct(Ps *x, char c)
{
    return x->t.kind == T_PUNCT && x->t.p[0] == c;
}

static int eat(Ps *x, char c, const char *what)
{
    if (!is_punct(x, c)) {
        expected(x, what);
        return 0;
    }
    next(x);
    return 1;
}

static int take_int(Ps *x, int64_t *v, const char *what)
{
    if (x->t.kind != T_INT) {
        expected(x, what);
        return 0;
    }
    *v = x->t.v;
    next(x);
    return 1;
}

/* ====================================================================
 * Parser
 * ==================================================================== */

static void push_factor(Ps *x, TlFactorList *l, const TlLayoutFactor *f)
{
    ast_push_factor(x->s, l, f);
}

/* n, n:s, n_LEVEL, n_LEVEL:s */
static int factor(Ps *x, TlFactorList *l)
{
    TlLayoutFactor f;
    const char *start = x->t.p;

    memset(&f, 0, sizeof f);
    if (x->t.kind != T_INT && x->t.kind != T_FACTOR) {
        expected(x, "a factor ('4', '2_PE', '2_W')");
        return 0;
    }
    f.n = x->t.v;
    if (x->t.kind == T_FACTOR)
        f.level = arena_strndup(&x->s->arena, x->t.lvl,
                                (size_t)x->t.lvl_len);
    if (f.n == 0 && !x->failed) {
        diag_error(x->s, tloc(x), DIAG_LAYOUT_ZERO, "size");
        x->failed = 1;
    }
    next(x);
    if (is_punct(x, ':')) {
        next(x);
        if (x->t.kind == T_INT && x->t.v == 0 && !x->failed) {
            diag_error(x->s, tloc(x), DIAG_LAYOUT_ZERO, "stride");
            x->failed = 1;
        }
        if (!take_int(x, &f.stride, "a stride after ':'"))
            return 0;
    }
    f.loc = loc_of(x, start, (int)(x->t.p - start));
    while (f.loc.len > 1 && start[f.loc.len - 1] == ' ')
        f.loc.len--;
    push_factor(x, l, &f);
    return 1;
}

static int axis(Ps *x, TlLayout *lay)
{
    TlFactorList l;

    memset(&l, 0, sizeof l);
    if (!eat(x, '(', "'(' to open an axis's factors"))
        return 0;
    do {
        if (!factor(x, &l))
            return 0;
    } while (is_punct(x, ',') && (next(x), 1));
    if (!eat(x, ')', "',' or ')' after a factor"))
        return 0;
    if (lay->axes.n == lay->axes.cap) {
        int cap = lay->axes.cap ? 2 * lay->axes.cap : 4;
        TlFactorList *v = arena_alloc(&x->s->arena,
                                      (size_t)cap * sizeof *v);
        if (lay->axes.n)
            memcpy(v, lay->axes.v, (size_t)lay->axes.n * sizeof *v);
        lay->axes.v = v;
        lay->axes.cap = cap;
    }
    lay->axes.v[lay->axes.n++] = l;
    return 1;
}

static char *tok_str(Ps *x)
{
    return arena_strndup(&x->s->arena, x->t.p, (size_t)x->t.len);
}

/* [i@L2B, j@PE] after the '[' */
static int compact(Ps *x, TlLayout *lay)
{
    do {
        TlLayoutFactor f;
        const char *start = x->t.p;
        memset(&f, 0, sizeof f);
        if (x->t.kind != T_NAME) {
            expected(x, "an axis name ('i@PE')");
            return 0;
        }
        f.axis = tok_str(x);
        next(x);
        if (!eat(x, '@', "'@' after the axis name"))
            return 0;
        if (x->t.kind != T_NAME) {
            expected(x, "a level name after '@'");
            return 0;
        }
        f.level = tok_str(x);
        next(x);
        f.loc = loc_of(x, start, (int)(x->t.p - start));
        push_factor(x, &lay->compact, &f);
    } while (is_punct(x, ',') && (next(x), 1));
    return eat(x, ']', "',' or ']' after 'axis@LEVEL'");
}

/* ; B@[L1B, MAB] */
static int bcast(Ps *x, TlLayout *lay)
{
    if (x->t.kind != T_NAME || x->t.len != 1 || x->t.p[0] != 'B') {
        expected(x, "'B@[...]' after ';'");
        return 0;
    }
    next(x);
    if (!eat(x, '@', "'@' after 'B'") ||
        !eat(x, '[', "'[' after 'B@'"))
        return 0;
    do {
        if (x->t.kind != T_NAME) {
            expected(x, "a level name in 'B@[...]'");
            return 0;
        }
        ast_push_ident(x->s, &lay->bcast, tok_str(x), tloc(x));
        next(x);
    } while (is_punct(x, ',') && (next(x), 1));
    return eat(x, ']', "',' or ']' in 'B@[...]'");
}

/* space[base:end] */
static int placement(Ps *x, AccLayoutText *out)
{
    const char *start = x->t.p;
    int sp = acc_layout_space_from_name(x->t.p, (size_t)x->t.len);

    if (sp < 0) {
        diag_error(x->s, tloc(x), DIAG_LAYOUT_SPACE,
                   arena_strndup(&x->s->arena, x->t.p, (size_t)x->t.len));
        x->failed = 1;
        return 0;
    }
    next(x);
    out->has_place = 1;
    out->space = (AccLaySpace)sp;
    if (!eat(x, '[', "'[' after the memory space") ||
        !take_int(x, &out->base, "the first address") ||
        !eat(x, ':', "':' between the first and the end address") ||
        !take_int(x, &out->end, "the end address") ||
        !eat(x, ']', "']' after the addresses"))
        return 0;
    out->place_loc = loc_of(x, start, (int)(x->t.p - start));
    if (out->end <= out->base && !x->failed) {
        diag_error(x->s, out->place_loc, DIAG_LAYOUT_PLACE_EMPTY,
                   out->base, out->end);
        x->failed = 1;
        return 0;
    }
    return eat(x, ',', "',' after the placement");
}

/* (128, 64)/ after the '(' */
static int shape(Ps *x, AccLayoutText *out, const char *start)
{
    do {
        int64_t v;
        if (out->rank == ACC_LAYOUT_MAX_RANK) {
            expected(x, "at most 8 sizes");
            return 0;
        }
        if (!take_int(x, &v, "a size"))
            return 0;
        out->shape[out->rank++] = v;
    } while (is_punct(x, ',') && (next(x), 1));
    if (!eat(x, ')', "',' or ')' after a size"))
        return 0;
    out->shape_loc = loc_of(x, start, (int)(x->t.p - start));
    return eat(x, '/', "'/' between the shape and the layout");
}

int acc_layout_parse(TlSession *s, const char *name, const char *text,
                     AccLayoutText *out)
{
    Ps x;
    TlLayout *lay;
    int canon;

    memset(out, 0, sizeof *out);
    memset(&x, 0, sizeof x);
    x.s = s;
    x.text = text;
    x.file = tl_add_source(s, name, text, strlen(text));
    x.text = s->src[x.file].text;
    x.p = x.text;
    next(&x);
    if (x.t.kind == T_NAME && !placement(&x, out))
        return -1;
    canon = 0;
    if (is_punct(&x, '(')) {
        const char *open = x.t.p;
        next(&x);
        canon = 1;
        if (x.t.kind == T_INT) {
            if (!shape(&x, out, open))
                return -1;
            canon = is_punct(&x, '(');
            if (!canon && !is_punct(&x, '[')) {
                expected(&x, "'(' or '[' to start the layout");
                return -1;
            }
            if (canon)
                next(&x);
        }
    } else if (!is_punct(&x, '[')) {
        expected(&x, "a layout ('((...), (...))' or '[i@L2B, ...]')");
        return -1;
    }
    /* Here: canonical with its '(' eaten, or compact at '['. */
    if (!canon) {
        lay = ast_layout(s, LAYOUT_COMPACT);
        next(&x);
        if (!compact(&x, lay))
            return -1;
    } else {
        lay = ast_layout(s, LAYOUT_CANONICAL);
        do {
            if (!axis(&x, lay))
                return -1;
        } while (is_punct(&x, ',') && (next(&x), 1));
        if (!eat(&x, ')', "',' or ')' after an axis"))
            return -1;
    }
    if (is_punct(&x, ';')) {
        next(&x);
        if (!bcast(&x, lay))
            return -1;
    }
    if (x.t.kind != T_END) {
        expected(&x, "the end of the layout");
        return -1;
    }
    out->layout = lay;
    return x.failed ? -1 : 0;
}
