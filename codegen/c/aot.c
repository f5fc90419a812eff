/*
 * aot.c - ahead-of-time kernels: the loop IR of a kernel for `tdsl
 * lower`, and for `tdsl compile` a C file whose one exported function
 * has a calling convention a person can use, with a header declaring
 * it.  docs/c-abi.md is the reference of that convention; in short:
 *
 *     int SYM(const T *X, const int64_t *X_shape,
 *             const int64_t *X_strides,         (each input, in order)
 *             T a,                              (each scalar, in order)
 *             T *Y, const int64_t *Y_shape,
 *             const int64_t *Y_strides);        (each output)
 *
 * Strides count elements; NULL strides mean row-major and contiguous.
 * The caller allocates the outputs; their shapes must be the ones the
 * kernel computes.  It returns TDSL_OK (0), TDSL_ERR_SHAPE (shapes or
 * sizes that do not fit the kernel), TDSL_ERR_RANGE (a read the
 * checker could not prove in range fell outside its tensor),
 * TDSL_ERR_NOMEM or TDSL_ERR_BOUND (a `bound` directive does not hold
 * for these shapes; the stage it names was skipped).
 *
 * The exported function checks the shapes, binds the size variables
 * and calls the generated kernel (emit.c's entry, renamed per kernel
 * and hidden, so several kernels link into one program).
 */
#include "codegen/c/cgc.h"

#include <string.h>

LFunc *cgc_lower(TlSession *s, TlKernelInfo *k)
{
    CgKernel *ck;

    TL_ASSERT(k->ok && !k->generic);
    ck = cg_lower_kernel(s, k);
    return ck ? ck->fn : NULL;
}

const char *cgc_aot_symbol(TlSession *s, const TlKernelInfo *k)
{
    TlBuf b;
    const char *r;
    int under = 1;

    buf_init(&b);
    buf_puts(&b, "tdsl_");
    for (const char *p = k->name; *p; p++) {
        char c = *p;
        int word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                   (c >= '0' && c <= '9') || c == '_';
        if (word) {
            buf_putc(&b, c);
            under = c == '_';
        } else if (!under) {
            buf_putc(&b, '_');      /* relu<f32, ..2> -> relu_f32_2 */
            under = 1;
        }
    }
    while (b.len > 5 && b.s[b.len - 1] == '_' && under)
        b.s[--b.len] = '\0';
    r = arena_strdup(&s->arena, b.s);
    buf_free(&b);
    return r;
}

/* ====================================================================
 * Shapes: symbolic sizes as C expressions over the wrapper's names
 * ==================================================================== */

/* Appends e as an int64_t C expression: sizes are w_szI, scalars
 * w_scI.  Returns -1 when e is unknown or names anything else. */
static int sym_c(TlBuf *b, const TlSymExpr *e)
{
    if (!e)
        return -1;
    buf_putc(b, '(');
    if (e->c || !e->n)
        buf_printf(b, "(int64_t)%lldLL", (long long)e->c);
    for (int i = 0; i < e->n; i++) {
        const TlSymAtom *a = e->t[i].atom;
        static const char *const fn[] = {"", "tl_div", "tl_mod", "tl_imin",
                                         "tl_imax", "w_mul"};
        if (i || e->c)
            buf_puts(b, " + ");
        if (e->t[i].coef != 1)
            buf_printf(b, "%lldLL * ", (long long)e->t[i].coef);
        if (a->kind == SYM_VAR) {
            if (a->var->kind == VAR_SIZE)
                buf_printf(b, "w_sz%d", a->var->num);
            else if (a->var->kind == VAR_SCALAR &&
                     !dt_is_float(a->var->dtype))
                buf_printf(b, "(int64_t)w_sc%d", a->var->num);
            else
                return -1;
            continue;
        }
        buf_printf(b, "%s(", fn[a->kind]);
        if (sym_c(b, a->a) < 0)
            return -1;
        buf_puts(b, ", ");
        if (sym_c(b, a->b) < 0)
            return -1;
        buf_putc(b, ')');
    }
    buf_putc(b, ')');
    return 0;
}

/* hash(x) of an assert (SPEC 6.8): tl_tensor_hash (lang/tensor.c) of
 * the tensor, element by element in row-major order through its
 * strides: FNV-1a over the dtype's number, the rank and the shape (as
 * int64_t) and then the bytes of the elements. */
static const char hash_helper[] =
    "static int64_t w_hash(const char *p, size_t esz, int64_t dt, int rank,\n"
    "                      const int64_t *shape, const int64_t *st)\n"
    "{\n"
    "    uint64_t h = 0xcbf29ce484222325ull;\n"
    "    int64_t head[2 + 16], idx[16], n = 1;\n"
    "    const unsigned char *q = (const unsigned char *)head;\n"
    "    head[0] = dt;\n"
    "    head[1] = rank;\n"
    "    for (int j = 0; j < rank; j++) {\n"
    "        head[2 + j] = shape[j];\n"
    "        idx[j] = 0;\n"
    "        n *= shape[j];\n"
    "    }\n"
    "    for (size_t i = 0; i < (size_t)(rank + 2) * sizeof *head; i++)\n"
    "        h = (h ^ q[i]) * 0x100000001b3ull;\n"
    "    for (int64_t e = 0; e < n; e++) {\n"
    "        int64_t off = 0;\n"
    "        for (int j = 0; j < rank; j++)\n"
    "            off += idx[j] * st[j];\n"
    "        q = (const unsigned char *)p + off * (int64_t)esz;\n"
    "        if (dt == TL_DT_STR) {  /* its text and NUL, not its address */\n"
    "            const char *s;\n"
    "            memcpy(&s, q, sizeof s);\n"
    "            q = (const unsigned char *)(s ? s : \"\");\n"
    "            do\n"
    "                h = (h ^ *q) * 0x100000001b3ull;\n"
    "            while (*q++);\n"
    "        } else\n"
    "            for (size_t i = 0; i < esz; i++)\n"
    "                h = (h ^ q[i]) * 0x100000001b3ull;\n"
    "        for (int j = rank - 1; j >= 0 && ++idx[j] == shape[j]; j--)\n"
    "            idx[j] = 0;\n"
    "    }\n"
    "    return (int64_t)h;\n"
    "}\n\n";

static const char wrapper_helpers[] =
    "#if defined(__GNUC__)\n"
    "#define TDSL_EXPORT __attribute__((visibility(\"default\")))\n"
    "#else\n"
    "#define TDSL_EXPORT\n"
    "#endif\n"
    "\n"
    "/* Size arithmetic uses the kernel's own helpers (tl_div, tl_mod,\n"
    " * tl_imin, tl_imax) from the top of this file. */\n"
    "TL_HELPER int64_t w_mul(int64_t a, int64_t b)\n"
    "{\n"
    "    return (int64_t)((uint64_t)a * (uint64_t)b);\n"
    "}\n"
    "\n"
    "TL_HELPER void w_packed_strides(int64_t *st, int rank,\n"
    "                               const int64_t *shape)\n"
    "{\n"
    "    st[rank - 1] = 1;\n"
    "    for (int j = rank - 1; j > 0; j--)\n"
    "        st[j - 1] = st[j] * shape[j];\n"
    "}\n"
    "\n"
    "/* Copies between the strided tensor at t and a packed row-major\n"
    " * copy at p, element by element (to_p: from t to p). */\n"
    "TL_HELPER void w_copy(char *t, char *p, size_t size, int rank,\n"
    "                     const int64_t *shape, const int64_t *st,\n"
    "                     int to_p)\n"
    "{\n"
    "    int64_t idx[16] = {0}, n = 1;\n"
    "    for (int j = 0; j < rank; j++)\n"
    "        n *= shape[j];\n"
    "    for (int64_t e = 0; e < n; e++) {\n"
    "        int64_t off = 0;\n"
    "        for (int j = 0; j < rank; j++)\n"
    "            off += idx[j] * st[j];\n"
    "        if (to_p)\n"
    "            memcpy(p + e * (int64_t)size, t + off * (int64_t)size,\n"
    "                   size);\n"
    "        else\n"
    "            memcpy(t + off * (int64_t)size, p + e * (int64_t)size,\n"
    "                   size);\n"
    "        for (int j = rank - 1; j >= 0 && ++idx[j] == shape[j]; j--)\n"
    "            idx[j] = 0;\n"
    "    }\n"
    "}\n"
    "\n"
    "/* A packed copy of the tensor at t (its contents when in is set),\n"
    " * with st made its row-major strides; NULL when out of memory. */\n"
    "TL_HELPER char *w_pack(char *t, size_t size, int rank,\n"
    "                      const int64_t *shape, int64_t *st, int in)\n"
    "{\n"
    "    int64_t n = 1;\n"
    "    char *p;\n"
    "    for (int j = 0; j < rank; j++)\n"
    "        n *= shape[j];\n"
    "    p = malloc(n > 0 ? (size_t)n * size : 1);\n"
    "    if (p && in)\n"
    "        w_copy(t, p, size, rank, shape, st, 1);\n"
    "    w_packed_strides(st, rank, shape);\n"
    "    return p;\n"
    "}\n"
    "\n"
    "/* Writes the packed result p back to the caller's tensor at t. */\n"
    "TL_HELPER void w_unpack(char *t, char *p, size_t size, int rank,\n"
    "                       const int64_t *shape, const int64_t *st)\n"
    "{\n"
    "    w_copy(t, p, size, rank, shape, st, 0);\n"
    "}\n"
    "\n";

/* Every tensor of k in the order of the interface: inputs, outputs. */
static TlFunc *tensor_at(const TlKernelInfo *k, int i)
{
    return i < k->ninputs ? k->inputs[i] : k->outputs[i - k->ninputs];
}

static int tensor_index(const TlKernelInfo *k, const TlFunc *f)
{
    for (int i = 0; i < k->ninputs + k->noutputs; i++)
        if (tensor_at(k, i) == f)
            return i;
    return -1;
}

/* What an ahead-of-time kernel cannot take: reports it, returns -1. */
static int aot_refuse(TlSession *s, const TlKernelInfo *k)
{
    TlLoc at = k->item ? k->item->loc : (TlLoc){-1, 0, 0, 0, 0};

    if (k->nconsts > 0) {
        diag_error(s, k->consts[0]->loc, DIAG_CG_AOT_CONST, k->name,
                   k->consts[0]->name);
        return -1;
    }
    for (int i = 0; i < k->nsizes; i++)
        if (!k->sizes[i]->bound_by) {
            diag_error(s, at, DIAG_CG_UNSUPPORTED, arena_printf(&s->arena,
                       "in a compiled kernel, the size '%s' that no input "
                       "binds", k->sizes[i]->name));
            return -1;
        }
    for (int i = 0; i < k->noutputs; i++) {
        TlFunc *f = k->outputs[i];
        for (int j = 0; j < f->rank; j++) {
            TlBuf b;
            int bad;
            buf_init(&b);
            bad = sym_c(&b, f->axes[j].extent);
            buf_free(&b);
            if (bad) {
                diag_error(s, f->loc, DIAG_CG_UNSUPPORTED,
                           arena_printf(&s->arena, "in a compiled kernel, "
                                        "an output shape not computed from "
                                        "sizes and integer scalars ('%s')",
                                        f->name));
                return -1;
            }
        }
    }
    return 0;
}

/* The parameter list of the interface; names from name(i, what), the
 * same in the definition and the header. */
static void signature(TlBuf *b, const TlKernelInfo *k, const char *sym,
                      int def, const char *const *tnames,
                      const char *const *snames)
{
    int first = 1;

    buf_printf(b, "int %s(", sym);
#define SEP (first ? (first = 0, "") : ",\n        ")
    for (int i = 0; i < k->ninputs + k->noutputs + k->nscalars; i++) {
        int t = i < k->ninputs ? i : i < k->ninputs + k->nscalars
                                         ? -1 : i - k->nscalars;
        if (t < 0) {
            int j = i - k->ninputs;
            TlVar *v = k->scalars[j];
            buf_printf(b, "%s%s ", SEP, cgc_btype(v->dtype));
            if (def)
                buf_printf(b, "w_sc%d", j);
            else
                buf_puts(b, snames[j]);
            continue;
        }
        TlFunc *f = tensor_at(k, t);
        if (f->dtype == DT_STR)         /* docs/c-abi.md */
            buf_printf(b, "%s%s", SEP, t < k->ninputs ? "const char *const *"
                                                      : "const char **");
        else
            buf_printf(b, "%s%s%s *", SEP, t < k->ninputs ? "const " : "",
                       cgc_btype(f->dtype));
        if (def)
            buf_printf(b, "w_t%d, const int64_t *w_t%d_shape, "
                       "const int64_t *w_t%d_strides", t, t, t);
        else
            buf_printf(b, "%s, const int64_t *%s_shape, "
                       "const int64_t *%s_strides", tnames[t], tnames[t],
                       tnames[t]);
    }
    /* The strings the kernel makes come from the caller's allocator. */
    if (cg_kernel_str(k))
        buf_printf(b, "%stdsl_str_alloc *%s", SEP, def ? "w_strs"
                                                      : "tdsl_strs");
    if (first)
        buf_puts(b, "void");
#undef SEP
    buf_putc(b, ')');
}

/* C and C++ words a parameter may not be named. */
static int c_word(const char *n)
{
    static const char *const words[] = {
        "auto", "bool", "break", "case", "char", "class", "const",
        "continue", "default", "delete", "do", "double", "else", "enum",
        "extern", "false", "float", "for", "goto", "if", "inline", "int",
        "long", "namespace", "new", "operator", "private", "protected",
        "public", "register", "restrict", "return", "short", "signed",
        "sizeof", "static", "struct", "switch", "template", "this",
        "throw", "true", "try", "typedef", "union", "unsigned", "using",
        "virtual", "void", "volatile", "while", NULL};

    for (int i = 0; words[i]; i++)
        if (!strcmp(words[i], n))
            return 1;
    return 0;
}

/* Parameter names for the header: the kernel's, made distinct and
 * kept off C words. */
static void header_names(TlSession *s, const TlKernelInfo *k,
                         const char **tn, const char **sn)
{
    int nt = k->ninputs + k->noutputs;

    for (int i = 0; i < nt + k->nscalars; i++) {
        const char *n = i < nt ? tensor_at(k, i)->name
                               : k->scalars[i - nt]->name;
        int clash = c_word(n);
        for (int j = 0; j < i && !clash; j++) {
            const char *m = j < nt ? tn[j] : sn[j - nt];
            size_t len = strlen(m);
            clash = !strcmp(m, n) ||
                    (j < nt && !strncmp(n, m, len) &&
                     (!strcmp(n + len, "_shape") ||
                      !strcmp(n + len, "_strides")));
        }
        if (clash)
            n = arena_printf(&s->arena, "%s_%d", n, i);
        if (i < nt)
            tn[i] = n;
        else
            sn[i - nt] = n;
    }
}

/* s as a C string literal: octal escapes (three digits, which end
 * where they stop) for what is not printable ASCII. */
static void c_string(TlBuf *b, const char *s)
{
    buf_putc(b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\' || *p == '?')
            buf_printf(b, "\\%c", *p);
        else if (*p < 32 || *p > 126)
            buf_printf(b, "\\%03o", *p);
        else
            buf_putc(b, (char)*p);
    }
    buf_putc(b, '"');
}

/* The C type of the elements of f as the kernel's buffers hold them. */
static const char *elem_type(const TlFunc *f)
{
    return cgc_btype(f->dtype);
}

/* The entry: check the shapes, bind the sizes, pack tensors whose last
 * stride is not 1 (the kernel indexes its last axis contiguously), call
 * the kernel, unpack such outputs. */
static void wrapper(TlBuf *b, const TlKernelInfo *k, const CgKernel *ck,
                    const char *sym)
{
    int nt = k->ninputs + k->noutputs;

    buf_puts(b, "\n/* ---- the C entry: docs/c-abi.md ---- */\n\n"
                "#include <string.h>\n\n");
    buf_puts(b, wrapper_helpers);
    for (int p = 0; p < ck->nparams; p++)
        if (ck->params[p].kind == CGP_HASH) {
            buf_printf(b, "#define TL_DT_STR %d\n", (int)DT_STR);
            buf_puts(b, hash_helper);
            break;
        }
    /* Externs by their symbol, under names of their own (the symbol
     * may be a libm function <math.h> declared otherwise); the program
     * that loads the kernel provides them (docs/c-abi.md). */
    for (int p = 0; p < ck->nparams; p++) {
        const TlExternInfo *x = ck->params[p].ext;
        if (ck->params[p].kind != CGP_EXTERN)
            continue;
        buf_printf(b, "extern %s w_x%d(", cgc_btype(x->ret), p);
        for (int i = 0; i < x->nparams; i++)
            buf_printf(b, "%s%s", i ? ", " : "", cgc_btype(x->params[i]));
        buf_printf(b, "%s) __asm__(\"%s\");\n", x->nparams ? "" : "void",
                   x->name);
    }
    buf_puts(b, "TDSL_EXPORT ");
    signature(b, k, sym, 1, NULL, NULL);
    buf_puts(b, ";\nTDSL_EXPORT ");
    signature(b, k, sym, 1, NULL, NULL);
    buf_puts(b, "\n{\n");
    buf_printf(b, "    void *w_args[%d];\n", ck->nparams + 1);
    buf_puts(b, "    int32_t w_err = 0;\n    int w_rc = 0;\n");
    for (int t = 0; t < nt; t++) {
        TlFunc *f = tensor_at(k, t);
        if (f->rank == 0) {
            buf_printf(b, "    char *w_p%d = NULL;\n", t);
            buf_printf(b, "    (void)w_t%d_shape;\n    (void)w_t%d_strides;\n",
                       t, t);
            continue;
        }
        buf_printf(b, "    char *w_p%d = NULL;\n    int64_t w_st%d[%d];\n", t,
                   t, f->rank);
        buf_printf(b, "    for (int w_j = 0; w_j < %d; w_j++)\n"
                      "        if (w_t%d_shape[w_j] < 0)\n"
                      "            return 1;\n", f->rank, t);
        buf_printf(b, "    if (w_t%d_strides)\n"
                      "        memcpy(w_st%d, w_t%d_strides, sizeof w_st%d);\n"
                      "    else\n"
                      "        w_packed_strides(w_st%d, %d, w_t%d_shape);\n",
                   t, t, t, t, t, f->rank, t);
    }
    /* Sizes from the inputs that bind them, then every extent checked. */
    for (int i = 0; i < k->nsizes; i++) {
        TlVar *v = k->sizes[i];
        buf_printf(b, "    int64_t w_sz%d = w_t%d_shape[%d];  /* %s */\n",
                   i, tensor_index(k, v->bound_by), v->bound_axis, v->name);
        buf_printf(b, "    if (w_sz%d > INT32_MAX)\n        return 1;\n", i);
    }
    for (int t = 0; t < nt; t++) {
        TlFunc *f = tensor_at(k, t);
        for (int j = 0; j < f->rank; j++) {
            if (!f->axes[j].extent)
                continue;
            buf_printf(b, "    if (w_t%d_shape[%d] != ", t, j);
            sym_c(b, f->axes[j].extent);
            buf_puts(b, ")\n        return 1;\n");
        }
    }
    for (int t = 0; t < nt; t++) {
        TlFunc *f = tensor_at(k, t);
        if (f->rank == 0)
            continue;
        buf_printf(b, "    if (w_st%d[%d] != 1) {\n", t, f->rank - 1);
        buf_printf(b, "        w_p%d = w_pack((char *)w_t%d, sizeof(%s), %d, "
                      "w_t%d_shape, w_st%d, %d);\n", t, t, elem_type(f),
                   f->rank, t, t, t < k->ninputs);
        buf_printf(b, "        if (!w_p%d) {\n            w_rc = 3;\n"
                      "            goto w_done;\n        }\n", t);
        buf_printf(b, "    }\n");
    }
    buf_puts(b, "    {\n");
    for (int p = 0; p < ck->nparams; p++) {
        const CgParam *cp = &ck->params[p];
        int t = cp->f ? tensor_index(k, cp->f) : -1;
        switch (cp->kind) {
        case CGP_BUF:
            buf_printf(b, "        w_args[%d] = w_p%d ? (void *)w_p%d : "
                          "(void *)w_t%d;\n", p, t, t, t);
            break;
        case CGP_EXTENT:
            buf_printf(b, "        w_args[%d] = (void *)&w_t%d_shape[%d];\n",
                       p, t, cp->axis);
            break;
        case CGP_STRIDE:
            buf_printf(b, "        w_args[%d] = &w_st%d[%d];\n", p, t,
                       cp->axis);
            break;
        case CGP_SIZE:
            buf_printf(b, "        int32_t w_a%d = (int32_t)w_sz%d;\n", p,
                       cp->var->num);
            buf_printf(b, "        w_args[%d] = &w_a%d;\n", p, p);
            break;
        case CGP_SCALAR:
            if (dt_is_float(cp->var->dtype))
                buf_printf(b, "        double w_a%d = (double)w_sc%d;\n", p,
                           cp->var->num);
            else if (cp->var->dtype == DT_BOOL)
                buf_printf(b, "        int64_t w_a%d = w_sc%d != 0;\n", p,
                           cp->var->num);
            else
                buf_printf(b, "        int64_t w_a%d = (int64_t)w_sc%d;\n",
                           p, cp->var->num);
            buf_printf(b, "        w_args[%d] = &w_a%d;\n", p, p);
            break;
        case CGP_GIVEN:
            buf_printf(b, "        _Bool w_a%d = 1;\n", p);
            buf_printf(b, "        w_args[%d] = &w_a%d;\n", p, p);
            break;
        case CGP_ERR:
            buf_printf(b, "        w_args[%d] = &w_err;\n", p);
            break;
        case CGP_HASH:
            if (cp->f->rank == 0)
                buf_printf(b, "        int64_t w_a%d = w_hash((const char *)"
                              "w_t%d, sizeof(%s), %d, 0, NULL, NULL);\n", p,
                           t, elem_type(cp->f), (int)cp->f->dtype);
            else
                /* The packed copy where there is one: w_st is its
                 * strides then (w_pack). */
                buf_printf(b, "        int64_t w_a%d = w_hash(w_p%d ? "
                              "(const char *)w_p%d : (const char *)w_t%d, "
                              "sizeof(%s), %d, %d, w_t%d_shape, w_st%d);\n",
                           p, t, t, t, elem_type(cp->f), (int)cp->f->dtype,
                           cp->f->rank, t, t);
            buf_printf(b, "        w_args[%d] = &w_a%d;\n", p, p);
            break;
        case CGP_EXTERN:
            buf_printf(b, "        void (*w_a%d)(void) = (void (*)(void))"
                          "w_x%d;\n", p, p);
            buf_printf(b, "        w_args[%d] = &w_a%d;\n", p, p);
            break;
        case CGP_STRS:
            /* The literals live in the shared object, as long as it
             * is loaded. */
            buf_printf(b, "        static const char *const w_a%d[] = {", p);
            for (int i = 0; i < ck->nlits; i++) {
                buf_puts(b, i ? ", " : "");
                c_string(b, ck->lits[i]);
            }
            buf_printf(b, "};\n        w_args[%d] = (void *)w_a%d;\n", p, p);
            break;
        case CGP_STRMEM:
            buf_printf(b, "        w_args[%d] = (void *)w_strs;\n", p);
            break;
        }
    }
    buf_printf(b, "        %s__entry(w_args);\n", sym);
    buf_puts(b, "        w_rc = w_err == 0 ? 0 : (w_err & 8) ? 5 : "
             "(w_err & 16) ? 6 : (w_err & 4) ? 4 : w_err == 2 ? 3 : 2;\n"
             "    }\n");
    for (int t = k->ninputs; t < nt; t++) {
        TlFunc *f = tensor_at(k, t);
        if (f->rank > 0)
            buf_printf(b, "    if (w_p%d)\n        w_unpack((char *)w_t%d, "
                          "w_p%d, sizeof(%s), %d, w_t%d_shape, w_t%d_strides);"
                          "\n", t, t, t, elem_type(f), f->rank, t, t);
    }
    buf_puts(b, "w_done:\n");
    for (int t = 0; t < nt; t++)
        buf_printf(b, "    free(w_p%d);\n", t);
    buf_puts(b, "    return w_rc;\n}\n");
}

static int is_half(TlDType dt)
{
    return dt == DT_F16 || dt == DT_BF16;
}

/* An extern of f16 or bf16 values has no C signature: the error the
 * interpreter gives when it would call it (interp/ffi.c). */
static int extern_refuse(TlSession *s, const TlExternInfo *x)
{
    const TlItem *it = x->item;

    for (int i = 0; i < it->params.n; i++)
        if (is_half(it->params.v[i].dtype)) {
            diag_error(s, it->params.v[i].type_loc, DIAG_RT_EXTERN_TYPE,
                       x->name, arena_printf(&s->arena, "parameter '%s'",
                                             it->params.v[i].name),
                       dt_name(it->params.v[i].dtype));
            return -1;
        }
    if (is_half(x->ret)) {
        diag_error(s, it->ret_loc, DIAG_RT_EXTERN_TYPE, x->name,
                   "its result", dt_name(x->ret));
        return -1;
    }
    return 0;
}

int cgc_aot_source(TlSession *s, TlKernelInfo *k, const char *sym,
                   TlBuf *out)
{
    CgKernel *ck;

    TL_ASSERT(k->ok && !k->generic);
    if (aot_refuse(s, k) || !(ck = cg_lower_kernel(s, k)))
        return -1;
    for (int p = 0; p < ck->nparams; p++)
        if (ck->params[p].kind == CGP_EXTERN &&
            extern_refuse(s, ck->params[p].ext))
            return -1;
    buf_printf(out, "/* tdsl ahead-of-time kernel '%s': int %s(...), "
               "docs/c-abi.md */\n", k->name, sym);
    buf_puts(out, "#if defined(__GNUC__)\n"
                  "__attribute__((visibility(\"hidden\")))\n"
                  "#endif\n");
    buf_printf(out, "void %s__entry(void *const *args);\n", sym);
    buf_printf(out, "#define tdsl_entry %s__entry\n", sym);
    cgc_emit(s, out, ck->fn);
    buf_puts(out, "#undef tdsl_entry\n");
    wrapper(out, k, ck, sym);
    return 0;
}

/* "f32[M, K]" for the header's comment. */
static void tensor_type(TlBuf *b, const TlFunc *f)
{
    buf_printf(b, "%s[", dt_name(f->dtype));
    for (int j = 0; j < f->rank; j++) {
        buf_puts(b, j ? ", " : "");
        tl_sym_print(b, f->axes[j].extent);
    }
    buf_putc(b, ']');
}

/* The asserts of k and of the kernels it calls, in the header's
 * comment: the arguments they refuse make the entry return
 * TDSL_ERR_ASSERT (SPEC 6.8), with no message of its own. */
static int asserts_doc(TlBuf *out, const TlKernelInfo *k, int top)
{
    for (int i = 0; i < k->nfuncs; i++) {
        const TlStmt *st = k->funcs[i]->stmt;
        TlBuf m;
        if (!tl_func_is_assert(k->funcs[i]))
            continue;
        if (top)
            buf_puts(out, "\n * Returns TDSL_ERR_ASSERT (having computed "
                          "nothing after it) when an\n * assert does not "
                          "hold:");
        top = 0;
        buf_printf(out, "\n *   %s, line %d: ", k->name, st->loc.line);
        buf_init(&m);
        if (st->msg)
            buf_puts(&m, st->msg->str);
        else
            ast_print_expr(&m, st->value);
        for (const char *p = m.s; *p; p++) {    /* stays a comment */
            if (*p == '\n' || (*p == '*' && p[1] == '/'))
                buf_putc(out, ' ');
            else
                buf_putc(out, *p);
        }
        buf_free(&m);
    }
    for (int i = 0; i < k->ncalls; i++)
        top = asserts_doc(out, k->calls[i]->callee, top);
    return top;
}

int cgc_aot_header(TlSession *s, TlKernelInfo *k, const char *sym,
                   TlBuf *out)
{
    int nt = k->ninputs + k->noutputs;
    const char **tn, **sn;
    TlBuf guard;

    TL_ASSERT(k->ok && !k->generic);
    if (aot_refuse(s, k))
        return -1;
    tn = arena_alloc(&s->arena, (size_t)(nt + 1) * sizeof *tn);
    sn = arena_alloc(&s->arena, (size_t)(k->nscalars + 1) * sizeof *sn);
    header_names(s, k, tn, sn);
    buf_init(&guard);
    for (const char *p = sym; *p; p++)
        buf_putc(&guard, *p >= 'a' && *p <= 'z' ? (char)(*p - 'a' + 'A')
                                                : *p);
    buf_printf(out, "/* Generated by tdsl: the C entry of kernel '%s'.\n"
               " * The calling convention is described in docs/c-abi.md. */\n"
               "#ifndef %s_H\n#define %s_H\n\n#include <stdint.h>\n\n"
               "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n", k->name,
               guard.s, guard.s);
    buf_free(&guard);
    buf_puts(out, "/* What a tdsl kernel returns (the same in every "
                  "header). */\n"
                  "#ifndef TDSL_OK\n"
                  "#define TDSL_OK 0         /* done */\n"
                  "#define TDSL_ERR_SHAPE 1  /* a shape does not fit the "
                  "kernel; nothing written */\n"
                  "#define TDSL_ERR_RANGE 2  /* a read fell outside its "
                  "tensor */\n"
                  "#define TDSL_ERR_NOMEM 3  /* out of memory */\n"
                  "#endif\n"
                  "#ifndef TDSL_ERR_BOUND\n"
                  "#define TDSL_ERR_BOUND 4  /* a 'bound' of the schedule "
                  "does not hold */\n"
                  "#endif\n"
                  "#ifndef TDSL_ERR_ASSERT\n"
                  "#define TDSL_ERR_ASSERT 5 /* an 'assert' of the kernel "
                  "does not hold */\n"
                  "#endif\n"
                  "#ifndef TDSL_ERR_STR\n"
                  "#define TDSL_ERR_STR 6    /* a cast met a string that "
                  "is not a number */\n"
                  "#endif\n\n");
    if (cg_kernel_str(k))
        buf_puts(out, "#include <stddef.h>\n\n"
                      "#ifndef TDSL_STR_ALLOC_DEFINED\n"
                      "#define TDSL_STR_ALLOC_DEFINED\n"
                      "/* Where a kernel puts the strings it makes: "
                      "alloc(ctx, size) returns\n"
                      " * size bytes (NULL: out of memory) that the caller "
                      "owns and frees. */\n"
                      "typedef struct tdsl_str_alloc {\n"
                      "    void *(*alloc)(void *ctx, size_t size);\n"
                      "    void *ctx;\n"
                      "} tdsl_str_alloc;\n"
                      "#endif\n\n");
    buf_printf(out, "/* kernel %s(", k->name);
    for (int i = 0; i < k->ninputs; i++) {
        buf_printf(out, "%s%s: ", i ? ", " : "", k->inputs[i]->name);
        tensor_type(out, k->inputs[i]);
    }
    for (int i = 0; i < k->nscalars; i++) {
        TlVar *v = k->scalars[i];
        buf_printf(out, "%s%s: %s", i ? ", " : "; ", v->name,
                   dt_name(v->dtype));
        if (v->param && v->param->init) {
            TlBuf d;
            buf_init(&d);
            ast_print_expr(&d, v->param->init);
            buf_printf(out, " = %s", d.s);
            buf_free(&d);
        }
    }
    buf_puts(out, ")\n *     -> (");
    for (int i = 0; i < k->noutputs; i++) {
        buf_printf(out, "%s%s: ", i ? ", " : "", k->outputs[i]->name);
        tensor_type(out, k->outputs[i]);
    }
    buf_puts(out, ")\n * Tensors: data, shape[rank], strides[rank] in "
                  "elements (NULL: row-major);\n"
                  " * scalars by value (defaults are not applied: pass "
                  "them); outputs\n"
                  " * allocated by the caller with the shapes above.");
    (void)asserts_doc(out, k, 1);
    buf_puts(out, " */\n");
    signature(out, k, sym, 0, tn, sn);
    buf_puts(out, ";\n\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n");
    return 0;
}
