/*
 * ffi.c - `extern` functions called through libffi (SPEC 5.3).
 *
 * An extern is resolved the first time it is called, once per runtime:
 * its library is opened with dlopen (none written: the running
 * process, then libm.so.6; a relative path with a '/' is looked for
 * beside the file that declares the extern first), its symbol found with dlsym,
 * and a call interface prepared from its declared signature.  The
 * result, or the reason it failed, is cached in the runtime (in the
 * session's arena, beside the checked program it belongs to), so a
 * missing library is reported at the `extern` line each time a call
 * needs it, without trying again.  Libraries stay loaded.
 *
 * Scalar externs are called once per element from kernel expressions
 * (itp_ffi_call); externs with tensor parameters only from the top
 * level, through itp_call_extern, whose calling convention interp.h
 * documents.
 */
#include "interp/eval_int.h"

#include <dlfcn.h>
#include <ffi.h>
#include <stdlib.h>
#include <string.h>

/* The storage of one C argument or result. */
typedef union CArg {
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    int8_t i8;
    int16_t i16;
    int32_t i32;
    int64_t i64;
    float f32;
    double f64;
    const void *p;
    ffi_arg r;                  /* integer results are widened to this */
} CArg;

struct ItpFfiFn {
    TlExternInfo *x;
    ItpFfiFn *next;
    int ok;
    void (*fn)(void);
    ffi_cif cif;
    ffi_type **types;           /* [ncargs] */
    int ncargs;
    CArg *args;                 /* [ncargs] scratch of itp_ffi_call */
    void **argp;                /* [ncargs] pointers to them */
    /* Why it cannot be called: a message id, where, and its strings. */
    TlDiagId why;
    TlLoc loc;
    const char *s1, *s2, *s3;
    int status;
};

struct ItpFfiCache {
    ItpFfiFn *fns;
};

static ffi_type *c_type(TlDType dt)
{
    switch (dt) {
    case DT_BOOL:
    case DT_U8: return &ffi_type_uint8;
    case DT_I8: return &ffi_type_sint8;
    case DT_I16: return &ffi_type_sint16;
    case DT_I32: return &ffi_type_sint32;
    case DT_I64: return &ffi_type_sint64;
    case DT_U16: return &ffi_type_uint16;
    case DT_U32: return &ffi_type_uint32;
    case DT_U64: return &ffi_type_uint64;
    case DT_F32: return &ffi_type_float;
    case DT_F64: return &ffi_type_double;
    default: return NULL;       /* f16, bf16 */
    }
}

/* ====================================================================
 * Resolving
 * ==================================================================== */

static const char *dl_error(TlArena *a)
{
    const char *e = dlerror();
    return arena_strdup(a, e ? e : "unknown reason");
}

/* dlopen of the extern's library; NULL with *err set. */
static void *open_lib(TlSession *s, TlExternInfo *x, const char **err)
{
    const char *lib = x->lib;
    TlLoc loc = x->item->loc;
    void *h;

    if (strchr(lib, '/') && lib[0] != '/' && loc.file >= 0 &&
        loc.file < s->nsrc) {
        const char *path = s->src[loc.file].path;
        const char *slash = strrchr(path, '/');
        if (slash) {
            char *near = arena_printf(&s->arena, "%.*s/%s",
                                      (int)(slash - path), path, lib);
            if ((h = dlopen(near, RTLD_NOW | RTLD_LOCAL)))
                return h;
        }
    }
    if ((h = dlopen(lib, RTLD_NOW | RTLD_LOCAL)))
        return h;
    *err = dl_error(&s->arena);
    return NULL;
}

static void fail(ItpFfiFn *fn, TlDiagId why, TlLoc loc, const char *s1,
                 const char *s2, const char *s3)
{
    fn->ok = 0;
    fn->why = why;
    fn->loc = loc;
    fn->s1 = s1;
    fn->s2 = s2;
    fn->s3 = s3;
}

/* The call interface of x's signature: tensor parameters as a pointer
 * and one int64_t per axis. */
static int prepare(TlSession *s, ItpFfiFn *fn)
{
    TlExternInfo *x = fn->x;
    TlItem *it = x->item;
    ffi_type *ret = c_type(x->ret);
    ffi_status st;
    int n = 0;

    for (int i = 0; i < it->params.n; i++)
        n += it->params.v[i].is_scalar ? 1 : 1 + it->params.v[i].shape.n;
    fn->types = arena_alloc(&s->arena, (size_t)(n + 1) * sizeof *fn->types);
    fn->args = arena_alloc(&s->arena, (size_t)(n + 1) * sizeof *fn->args);
    fn->argp = arena_alloc(&s->arena, (size_t)(n + 1) * sizeof *fn->argp);
    for (int i = 0; i < it->params.n; i++) {
        TlParam *p = &it->params.v[i];
        ffi_type *t = c_type(p->dtype);
        if (!t) {
            fail(fn, DIAG_RT_EXTERN_TYPE, p->type_loc, x->name,
                 arena_printf(&s->arena, "parameter '%s'", p->name),
                 dt_name(p->dtype));
            return -1;
        }
        if (p->is_scalar) {
            fn->types[fn->ncargs++] = t;
            continue;
        }
        fn->types[fn->ncargs++] = &ffi_type_pointer;
        for (int j = 0; j < p->shape.n; j++)
            fn->types[fn->ncargs++] = &ffi_type_sint64;
    }
    if (!ret) {
        fail(fn, DIAG_RT_EXTERN_TYPE, it->ret_loc, x->name, "its result",
             dt_name(x->ret));
        return -1;
    }
    st = ffi_prep_cif(&fn->cif, FFI_DEFAULT_ABI, (unsigned)fn->ncargs, ret,
                      fn->types);
    if (st != FFI_OK) {
        fail(fn, DIAG_RT_EXTERN_FFI, it->name_loc, x->name, NULL, NULL);
        fn->status = (int)st;
        return -1;
    }
    return 0;
}

static void resolve(TlSession *s, ItpFfiFn *fn)
{
    TlExternInfo *x = fn->x;
    TlLoc loc = x->item->name_loc;
    const char *err = NULL, *where;
    void *h, *sym = NULL;

    if (prepare(s, fn))
        return;
    dlerror();
    if (x->lib) {
        if (!(h = open_lib(s, x, &err))) {
            fail(fn, DIAG_RT_EXTERN_LIB, x->item->lib_loc, x->lib, x->name,
                 err);
            return;
        }
        sym = dlsym(h, x->name);
        where = arena_printf(&s->arena, "'%s'", x->lib);
    } else {
        /* The process (which links libm), then libm itself. */
        if ((h = dlopen(NULL, RTLD_NOW)))
            sym = dlsym(h, x->name);
        if (!sym && (h = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL)))
            sym = dlsym(h, x->name);
        where = "the running program or libm.so.6";
    }
    if (!sym) {
        fail(fn, DIAG_RT_EXTERN_SYMBOL, loc, x->name, where, NULL);
        return;
    }
    /* POSIX: a function pointer may be stored in a void *. */
    memcpy(&fn->fn, &sym, sizeof fn->fn);
    fn->ok = 1;
}

static void report(TlSession *s, ItpFfiFn *fn, TlLoc use)
{
    if (fn->why == DIAG_RT_EXTERN_FFI)
        diag_error(s, fn->loc, fn->why, fn->x->name, fn->status);
    else if (fn->why == DIAG_RT_EXTERN_SYMBOL)
        diag_error(s, fn->loc, fn->why, fn->s1, fn->s2);
    else
        diag_error(s, fn->loc, fn->why, fn->s1, fn->s2, fn->s3);
    if (use.file >= 0)
        diag_note(s, use, "'%s' is called here", fn->x->name);
}

static ItpFfiFn *lookup(TlRuntime *rt, TlExternInfo *x)
{
    TlSession *s = rt->s;
    ItpFfiFn *fn;

    if (!rt->ffi)
        rt->ffi = arena_alloc(&s->arena, sizeof *rt->ffi);
    for (fn = rt->ffi->fns; fn; fn = fn->next)
        if (fn->x == x)
            return fn;
    fn = arena_alloc(&s->arena, sizeof *fn);
    fn->x = x;
    fn->next = rt->ffi->fns;
    rt->ffi->fns = fn;
    resolve(s, fn);
    return fn;
}

ItpFfiFn *itp_ffi_get(TlRuntime *rt, TlExternInfo *x, int quiet, TlLoc use)
{
    ItpFfiFn *fn = lookup(rt, x);

    if (fn->ok)
        return fn;
    if (!quiet)
        report(rt->s, fn, use);
    return NULL;
}

TlCFunc itp_extern_cfunc(TlRuntime *rt, TlExternInfo *x)
{
    TlLoc nowhere = {-1, 0, 0, 0, 0};
    ItpFfiFn *fn = itp_ffi_get(rt, x, 1, nowhere);

    return fn ? fn->fn : NULL;
}

/* ====================================================================
 * Calling
 * ==================================================================== */

static void set_arg(CArg *c, TlDType dt, ItpVal v)
{
    switch (dt) {
    case DT_BOOL: c->u8 = v.i != 0; break;
    case DT_U8: c->u8 = (uint8_t)v.i; break;
    case DT_I8: c->i8 = (int8_t)v.i; break;
    case DT_I16: c->i16 = (int16_t)v.i; break;
    case DT_I32: c->i32 = (int32_t)v.i; break;
    case DT_I64: case DT_U64: c->i64 = v.i; break;
    case DT_U16: c->u16 = (uint16_t)v.i; break;
    case DT_U32: c->u32 = (uint32_t)v.i; break;
    case DT_F32: c->f32 = (float)v.f; break;
    case DT_F64: c->f64 = v.f; break;
    default: tl_unreachable();
    }
}

static ItpVal get_result(TlDType dt, const CArg *r)
{
    ItpVal v;

    switch (dt) {
    case DT_BOOL: v.i = (uint8_t)r->r != 0; break;
    case DT_U8: v.i = (uint8_t)r->r; break;
    case DT_I8: v.i = (int8_t)r->r; break;
    case DT_I16: v.i = (int16_t)r->r; break;
    case DT_I32: v.i = (int32_t)r->r; break;
    case DT_I64: case DT_U64: v.i = (int64_t)r->r; break;
    case DT_U16: v.i = (uint16_t)r->r; break;
    case DT_U32: v.i = (uint32_t)r->r; break;
    case DT_F32: v.f = r->f32; break;
    case DT_F64: v.f = r->f64; break;
    default: tl_unreachable();
    }
    return v;
}

ItpVal itp_ffi_call(ItpFfiFn *fn, const ItpVal *args)
{
    TlExternInfo *x = fn->x;
    CArg r;

    TL_ASSERT(!x->tensors && fn->ncargs == x->nparams);
    for (int i = 0; i < x->nparams; i++) {
        set_arg(&fn->args[i], x->params[i], args[i]);
        fn->argp[i] = &fn->args[i];
    }
    memset(&r, 0, sizeof r);
    ffi_call(&fn->cif, fn->fn, &r, fn->argp);
    return get_result(x->ret, &r);
}

/* A shape name seen so far in a top-level extern call. */
typedef struct Bound {
    const char *name;
    int64_t value;
    const char *param;
    int axis;
} Bound;

/* Checks tensor argument t against parameter p of x; 0 if it fits. */
static int check_tensor(TlSession *s, TlExternInfo *x, TlParam *p,
                        const TlTensor *t, Bound *b, int *nb)
{
    if (t->dtype != p->dtype) {
        diag_error(s, p->loc, DIAG_RT_ARG_DTYPE, p->name, x->name,
                   dt_name(t->dtype), dt_name(p->dtype));
        return -1;
    }
    if (t->rank != p->shape.n) {
        diag_error(s, p->loc, DIAG_RT_ARG_RANK, p->name, x->name, t->rank,
                   p->shape.n);
        return -1;
    }
    for (int j = 0; j < p->shape.n; j++) {
        TlExpr *e = p->shape.v[j];
        const char *want = NULL;
        if (e && e->kind == EX_INT && e->ival != t->shape[j]) {
            want = arena_printf(&s->arena, "%lld", (long long)e->ival);
        } else if (e && e->kind == EX_NAME && e->str) {
            int k = 0;
            while (k < *nb && strcmp(b[k].name, e->str))
                k++;
            if (k == *nb) {
                b[(*nb)++] = (Bound){e->str, t->shape[j], p->name, j};
            } else if (b[k].value != t->shape[j]) {
                want = arena_printf(&s->arena, "%s = %lld (from '%s' axis %d)",
                                    e->str, (long long)b[k].value,
                                    b[k].param, b[k].axis);
            }
        }
        if (want) {
            diag_error(s, e->loc, DIAG_RT_EXTERN_SHAPE, j, p->name, x->name,
                       (long long)t->shape[j], want);
            return -1;
        }
    }
    return 0;
}

static int call_extern(TlRuntime *rt, TlExternInfo *x,
                       const TlExternArg *args, TlScalarArg *result,
                       TlLoc call_loc)
{
    TlSession *s = rt->s;
    TlItem *it = x->item;
    ItpFfiFn *fn = itp_ffi_get(rt, x, 0, call_loc);
    TlTensor **packed;
    CArg *c, r;
    void **av;
    Bound *bound;
    int nb = 0, k = 0, rc = -1;
    ItpVal v;

    if (!fn)
        return -1;
    packed = tl_xcalloc((size_t)it->params.n + 1, sizeof *packed);
    bound = tl_xcalloc((size_t)it->params.n * TL_MAX_RANK + 1,
                       sizeof *bound);
    c = tl_xcalloc((size_t)fn->ncargs + 1, sizeof *c);
    av = tl_xcalloc((size_t)fn->ncargs + 1, sizeof *av);
    for (int i = 0; i < it->params.n; i++) {
        TlParam *p = &it->params.v[i];
        if (p->is_scalar) {
            set_arg(&c[k], p->dtype, itp_scalar_arg(p->dtype, &args[i].s));
            av[k] = &c[k];
            k++;
            continue;
        }
        TL_ASSERT(args[i].t);
        if (check_tensor(s, x, p, args[i].t, bound, &nb)) {
            if (call_loc.file >= 0)
                diag_note(s, call_loc, "in this call of '%s'", x->name);
            goto done;
        }
        packed[i] = tl_tensor_contiguous(args[i].t);
        c[k].p = packed[i]->data;
        av[k] = &c[k];
        k++;
        for (int j = 0; j < p->shape.n; j++) {
            c[k].i64 = packed[i]->shape[j];
            av[k] = &c[k];
            k++;
        }
    }
    TL_ASSERT(k == fn->ncargs);
    memset(&r, 0, sizeof r);
    ffi_call(&fn->cif, fn->fn, &r, av);
    v = get_result(x->ret, &r);
    memset(result, 0, sizeof *result);
    result->given = 1;
    result->is_float = dt_is_float(x->ret);
    if (result->is_float)
        result->f = v.f;
    else
        result->i = v.i;
    rc = 0;
done:
    for (int i = 0; i < it->params.n; i++)
        tl_tensor_unref(packed[i]);
    free(packed);
    free(bound);
    free(c);
    free(av);
    return rc;
}

/* As in itp_call_kernel, the error cap must not longjmp past the
 * buffers above. */
int itp_call_extern(TlRuntime *rt, TlExternInfo *x, const TlExternArg *args,
                    TlScalarArg *result, TlLoc call_loc)
{
    jmp_buf *fatal = rt->s->fatal;
    int rc;

    rt->s->fatal = NULL;
    rc = call_extern(rt, x, args, result, call_loc);
    rt->s->fatal = fatal;
    return rc;
}
