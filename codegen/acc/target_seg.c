/*
 * target_seg.c - one program of a kernel split into segments
 * (cg_seg.c): the segments' instruction streams one after another, the
 * conversions between them as instructions (cg_seg_conv.c), so that
 * the simulator runs and counts them and `tdsl compile --target accel`
 * writes the whole kernel as one .s / .tam.
 *
 * Each segment's program (compiled as a call compiles it, its
 * intermediate inputs at their shapes) keeps its own DRAM addresses:
 * its `.input`/`.output` directives cut them into regions (a region
 * runs from one directive's address to the next, the last to the end
 * of what its DMA ops touch), and every `d[...]` operand moves with the
 * region its first address falls in.  A kernel input is placed by its
 * first consumer: in the image that segment reads (a route's image,
 * AccCgIn.map, or a broadcast expanded) when it holds every element,
 * declared so (`.input X ... image N` and its `.image` runs,
 * acc_image.c), for the host to lay out when it loads the input; else
 * row-major.  An input the segment reads as it is (`direct`) from a
 * tensor stored row-major is read where that tensor is; a kernel input
 * a later consumer reads in another order gets a copy of its own in
 * that order, declared again (`.input X ... image N`, host_copy: the
 * host lays out every copy when it loads X); any other (an image of
 * an intermediate stored elsewhere or in another order, an output
 * stored in its route's order: AccCgProgram.omap) is built before the
 * segment by a gather from the tensor's storage, element by element,
 * with the image's padding.  The last output, when stored in its
 * route's order, is declared in that image for the host to read back.
 * So the program takes the kernel's inputs and gives its output as
 * the runner and `tdsl sim --in/--out` have them, row-major, and the
 * layout of what crosses the host is not on the device.  A segment is
 * followed by a `wait` of each DMA tag it uses, so that the next one
 * reads what it stored.  Which image each intermediate is kept in
 * (an elementwise segment in its producer's, or every tensor
 * row-major): target_seg_lay.c.
 */
#include "codegen/acc/target_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_T = 2 * ACC_SEG_MAX + 64, MAX_R = 64, MAX_C = 8, MAX_COPY = 8 };

/* Another copy of a kernel input the host lays out: a later consumer's
 * image, declared `.input X ... image N` again. */
typedef struct Copy {
    int64_t at, n;
    AccImgRun *img;         /* malloc'd */
    int nimg;
} Copy;

/* Where a tensor lives in the one program. */
typedef struct Store {
    const char *name;
    int64_t at;             /* DRAM long word */
    int64_t n;              /* f32 elements there (an image's) */
    const int64_t *omap;    /* element e of the tensor at omap[e] */
    TlDType dt;
    int rank;
    int64_t shape[TL_MAX_RANK];
    int kin;                /* a kernel input */
    int placed;             /* a kernel input given its place (by its
                             * first consumer) */
    int64_t *own;           /* omap when malloc'd here */
    AccImgRun *img;         /* a kernel input's image, laid out by the
                             * host (malloc'd) */
    int nimg;
    int unpacked;           /* whether up holds its unpacked copy */
    AccSegUnpack up;
    Copy copy[MAX_COPY];    /* a kernel input's other host-laid copies */
    int ncopy;
} Store;

typedef struct Build {
    TlSession *s;
    const AccMachine *m;
    TlBuf *o, *why;
    Store t[MAX_T];
    int nt;
    int64_t next;           /* the next free DRAM long word */
    double cval[MAX_C];
    int64_t cat[MAX_C];
    int nc;
    int nconv;
    int64_t gathers;
    int nhost;              /* kernel inputs laid out by the host */
    int ncopies;            /* their other copies (host_copy) */
    TlBuf *mid;             /* the program without the kernel inputs'
                             * conversions */
    double est_seg, est_conv, est_in;   /* AccSegProg's */
    int nomodel;
} Build;

static int64_t lw_of(TlDType dt, int64_t n)
{
    return ((int64_t)dt_size(dt) * n + 7) / 8;
}

static int64_t alloc(Build *b, int64_t lw)
{
    int64_t at = b->next;

    b->next += (lw + 7) / 8 * 8;
    return at;
}

static Store *store_of(Build *b, const char *name)
{
    for (int i = b->nt - 1; i >= 0; i--)
        if (!strcmp(b->t[i].name, name))
            return &b->t[i];
    return NULL;
}

static int64_t numel(int rank, const int64_t *shape)
{
    int64_t n = 1;

    for (int j = 0; j < rank; j++)
        n *= shape[j];
    return n;
}

/* The area of constant v: -1 - its index. */
static int64_t konst(Build *b, double v)
{
    for (int i = 0; i < b->nc; i++)
        if (b->cval[i] == v)
            return -1 - i;
    if (b->nc == MAX_C)
        return 0;
    b->cat[b->nc] = alloc(b, acc_seg_const_words(b->m));
    if (acc_seg_emit_const(b->o, b->m, v, b->cat[b->nc]))
        return 0;
    b->cval[b->nc] = v;
    return -1 - b->nc++;
}

/* The unpacked long word of element l of tensor x. */
static int64_t elem_word(Build *b, Store *x, int64_t l)
{
    if (!x->unpacked) {
        acc_seg_unpack_init(&x->up, b->m, x->at, x->n, 0);
        x->up.dst = alloc(b, x->up.words);
        acc_seg_emit_unpack(b->o, &x->up);
        x->unpacked = 1;
    }
    return acc_seg_unpacked_at(&x->up, x->omap ? x->omap[l] : l);
}

/* The tensor element (or -1, the constant in *val) at position e of
 * the image input ci of program p reads (ci->map, or a broadcast);
 * v: the loop counters, stepped here. */
static int64_t source_of(const AccCgProgram *p, const AccCgIn *ci,
                         int64_t e, int64_t *v, double *val)
{
    int64_t l;

    *val = 0.0;
    if (ci->map) {
        int64_t mv = ci->map[e];
        if (mv < 0)
            *val = mv == ACC_CG_OUTSIDE ? ci->bpad : ci->pad;
        return mv < 0 ? -1 : mv;
    }
    l = ci->k;
    for (int j = 0; j < p->nloops; j++)
        l += ci->coef[j] * v[j];
    for (int j = p->nloops - 1; j >= 0; j--) {
        if (++v[j] < p->ext[j])
            break;
        v[j] = 0;
    }
    return l;
}

/* Builds the image input ci of program p reads (x: the tensor, NULL
 * for a pad flag image) at dst; nd: its elements.  -1 with why. */
static int convert(Build *b, const AccCgProgram *p, const AccCgIn *ci,
                   Store *x, int64_t nd, int64_t dst)
{
    int64_t *from = tl_xcalloc((size_t)nd + 1, sizeof *from);
    int64_t v[TL_MAX_RANK];
    TlBuf cv, *o = b->o;
    int rc = -1;

    buf_init(&cv);
    b->o = &cv;

    memset(v, 0, sizeof v);
    for (int64_t e = 0; e < nd; e++) {
        double c = 0.0;
        int64_t l = ci->direct && !ci->map ? e : source_of(p, ci, e, v, &c);
        if (l < 0 || !x) {
            from[e] = konst(b, l < 0 ? c : 0.0);
            l = -1;
        }
        if (l >= 0)
            from[e] = elem_word(b, x, l);
        else if (from[e] == 0) {
            buf_printf(b->why, "more than %d constants in images", MAX_C);
            goto done;
        }
    }
    b->gathers += acc_seg_emit_gather(&cv, b->m, from, nd, b->cat, dst);
    b->nconv++;
    buf_puts(o, cv.s);
    {
        double c = acc_seg_text_model(b->m, cv.s);
        b->est_conv += c;
        if (x && x->kin)
            b->est_in += c;
    }
    if (!x || !x->kin)
        buf_puts(b->mid, cv.s);
    rc = 0;
done:
    b->o = o;
    buf_free(&cv);
    free(from);
    return rc;
}

/* The naive layouts' fixed one (target_seg_lay.c): x, just stored in
 * its route's image, converted to a row-major copy that later
 * segments read instead.  -1 with why. */
static int to_row_major(Build *b, Store *x)
{
    int64_t n = numel(x->rank, x->shape);
    int64_t *from = tl_xcalloc((size_t)n + 1, sizeof *from);
    Store *y;
    TlBuf cv, *o = b->o;

    if (b->nt == MAX_T) {
        free(from);
        buf_printf(b->why, "more than %d tensors", MAX_T);
        return -1;
    }
    y = &b->t[b->nt++];
    *y = *x;
    y->omap = NULL;
    y->own = NULL;
    y->img = NULL;
    y->nimg = 0;
    y->unpacked = 0;
    y->n = n;
    y->at = alloc(b, lw_of(DT_F32, n) + acc_seg_conv_slack(b->m));
    buf_init(&cv);
    b->o = &cv;
    for (int64_t e = 0; e < n; e++)
        from[e] = elem_word(b, x, e);
    b->gathers += acc_seg_emit_gather(&cv, b->m, from, n, b->cat, y->at);
    b->nconv++;
    b->o = o;
    buf_puts(o, cv.s);
    buf_puts(b->mid, cv.s);
    buf_free(&cv);
    free(from);
    return 0;
}

/* Places kernel input x, not placed yet, for its first consumer ci of
 * program p (nd image elements, lw long words at least): in ci's image
 * when ci reads one that holds every element of x (so that later
 * consumers can convert from it), laid out by the host when it loads
 * the input, else row-major.  1 when in the image (nothing to convert
 * for ci), 0 when row-major. */
static int place_input(Build *b, const AccCgProgram *p, const AccCgIn *ci,
                       Store *x, int64_t nd, int64_t lw)
{
    int64_t *elem, *inv, v[TL_MAX_RANK];
    double *val;
    int64_t have = 0, n = x->n;

    x->placed = 1;
    if ((ci->direct && !ci->map) || acc_seg_naive()) {
        x->at = alloc(b, lw_of(x->dt, x->n) + acc_seg_conv_slack(b->m));
        return 0;
    }
    elem = tl_xcalloc((size_t)nd + 1, sizeof *elem);
    val = tl_xcalloc((size_t)nd + 1, sizeof *val);
    inv = tl_xcalloc((size_t)n + 1, sizeof *inv);
    for (int64_t l = 0; l < n; l++)
        inv[l] = -1;
    memset(v, 0, sizeof v);
    for (int64_t e = 0; e < nd; e++) {
        int64_t l = source_of(p, ci, e, v, &val[e]);
        elem[e] = l;
        if (l >= 0 && l < n && inv[l] < 0) {
            inv[l] = e;
            have++;
        }
    }
    if (have == n) {
        x->nimg = acc_img_runs(elem, val, nd, &x->img);
        x->own = inv;
        x->omap = inv;
        x->n = nd;
        x->at = alloc(b, lw + acc_seg_conv_slack(b->m));
        b->nhost++;
    } else {
        free(inv);
        x->at = alloc(b, lw_of(x->dt, x->n) + acc_seg_conv_slack(b->m));
    }
    free(elem);
    free(val);
    return have == n;
}

/* A copy of kernel input x in the image consumer ci of program p reads
 * (nd elements, lw long words at least), which the host lays out when
 * it loads x, as it does x's first consumer's: nothing converts it on
 * the device.  Its DRAM long word, or -1 when x has copies enough. */
static int64_t host_copy(Build *b, const AccCgProgram *p, const AccCgIn *ci,
                         Store *x, int64_t nd, int64_t lw)
{
    int64_t *elem, v[TL_MAX_RANK];
    double *val;
    Copy *c;

    if (x->ncopy == MAX_COPY)
        return -1;
    c = &x->copy[x->ncopy++];
    elem = tl_xcalloc((size_t)nd + 1, sizeof *elem);
    val = tl_xcalloc((size_t)nd + 1, sizeof *val);
    memset(v, 0, sizeof v);
    for (int64_t e = 0; e < nd; e++)
        elem[e] = ci->direct && !ci->map ? e
                                         : source_of(p, ci, e, v, &val[e]);
    c->nimg = acc_img_runs(elem, val, nd, &c->img);
    c->n = nd;
    c->at = alloc(b, lw + acc_seg_conv_slack(b->m));
    b->ncopies++;
    free(elem);
    free(val);
    return c->at;
}

/* A segment program's text split in lines, its directives and regions. */
typedef struct Region {
    int64_t lo, hi;         /* local long words */
    int64_t to;             /* global */
    const char *name;       /* of the directive; NULL: before them */
    int out;
} Region;

/* The leading integer of an address expression at p, its end in *end;
 * -1 when it does not start with one. */
static int64_t lead(const char *p, const char **end)
{
    char *e;
    long long v;

    while (*p == ' ')
        p++;
    if (!isdigit((unsigned char)*p))
        return -1;
    v = strtoll(p, &e, 10);
    *end = e;
    return v;
}

/* Scans a segment's text: its directives into r (sorted by address),
 * the last address its DMA ops touch in *top.  -1 with why. */
static int scan(const char *text, Region *r, int *nr, int64_t *top,
                TlBuf *why)
{
    const char *p = text;
    int64_t low = -1;

    *nr = 0;
    *top = 0;
    while (*p) {
        const char *nl = strchr(p, '\n'), *q;
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        int dir = !strncmp(p, ".input ", 7) || !strncmp(p, ".output ", 8);
        for (q = p; q < p + len; q++) {
            const char *e;
            int64_t a, z;
            if (q[0] != 'd' || q[1] != '[' || (q > p && isalnum(
                                                    (unsigned char)q[-1])))
                continue;
            if ((a = lead(q + 2, &e)) < 0) {
                buf_printf(why, "a DRAM address not written as a number "
                                "first");
                return -1;
            }
            z = a + 1;
            while (*e && *e != ':' && *e != ']')
                e++;
            if (*e == ':' && (z = lead(e + 1, &e)) < 0) {
                buf_printf(why, "a DRAM range not written as numbers "
                                "first");
                return -1;
            }
            if (dir) {
                const char *nm = p + (p[1] == 'i' ? 7 : 8), *sp;
                char *c;
                if (*nr == MAX_R) {
                    buf_printf(why, "more than %d tensors in a segment",
                               MAX_R);
                    return -1;
                }
                sp = strchr(nm, ' ');
                c = tl_xcalloc((size_t)(sp - nm) + 1, 1);
                memcpy(c, nm, (size_t)(sp - nm));
                r[*nr].lo = a;
                r[*nr].name = c;
                r[*nr].out = p[1] == 'o';
                ++*nr;
            } else {
                if (z > *top)
                    *top = z;
                if (low < 0 || a < low)
                    low = a;
            }
        }
        p += len + (nl != NULL);
    }
    for (int i = 1; i < *nr; i++)
        for (int j = i; j > 0 && r[j].lo < r[j - 1].lo; j--) {
            Region t = r[j];
            r[j] = r[j - 1];
            r[j - 1] = t;
        }
    if (!*nr || (low >= 0 && low < r[0].lo)) {
        buf_printf(why, "a segment that addresses DRAM outside its "
                        "tensors");
        return -1;
    }
    return 0;
}

/* Segment text with every DRAM address moved to its region's place,
 * without its directives, then a wait for each tag it uses. */
static void relocate(TlBuf *o, const char *text, const Region *r, int nr)
{
    const char *p = text;
    unsigned char tags[256];

    memset(tags, 0, sizeof tags);
    while (*p) {
        const char *nl = strchr(p, '\n'), *q, *from;
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (!strncmp(p, ".input ", 7) || !strncmp(p, ".output ", 8)) {
            p += len + (nl != NULL);
            continue;
        }
        from = p;
        for (q = p; q < p + len; q++) {
            const char *e;
            int64_t a, d = 0;
            if (!strncmp(q, "dma.", 4)) {
                const char *t = strstr(q, ".t");
                if (t && t < p + len && isdigit((unsigned char)t[2]))
                    tags[atoi(t + 2) & 255] = 1;
            }
            if (q[0] != 'd' || q[1] != '[' ||
                (q > p && isalnum((unsigned char)q[-1])))
                continue;
            a = lead(q + 2, &e);
            for (int i = 0; i < nr; i++)
                if (a >= r[i].lo)
                    d = r[i].to - r[i].lo;
            buf_putn(o, from, (size_t)(q + 2 - from));
            buf_printf(o, "%lld", (long long)(a + d));
            from = e;
            while (*e && *e != ':' && *e != ']')
                e++;
            if (*e == ':') {
                int64_t z;
                const char *ee;
                buf_putn(o, from, (size_t)(e + 1 - from));
                z = lead(e + 1, &ee);
                buf_printf(o, " %lld", (long long)(z + d));
                from = ee;
            }
            q = from - 1;
        }
        buf_putn(o, from, (size_t)(p + len - from));
        buf_puts(o, "\n");
        p += len + (nl != NULL);
    }
    for (int t = 0; t < 256; t++)
        if (tags[t])
            buf_printf(o, "wait t%d\n", t);
}

static void put_type(TlBuf *o, TlDType dt, int rank, const int64_t *shape)
{
    buf_printf(o, "%s[", dt_name(dt));
    for (int j = 0; j < rank; j++)
        buf_printf(o, "%s%lld", j ? "," : "", (long long)shape[j]);
    buf_puts(o, "]");
}

/* Segment i of sp: compiles it, places its regions, emits its
 * conversions into b->o and its text into o and bare. */
static int segment(Build *b, TlKernelInfo *k, const AccSegPlan *sp, int i,
                   TlTensor *const *in, AccCgProgram *p, AccSegProg *out,
                   int64_t *oshape)
{
    TlKernelInfo *sk = sp->seg[i].k;
    TlTensor **sin = tl_xcalloc((size_t)sk->ninputs + 1, sizeof *sin);
    Region r[MAX_R];
    int nr = 0, rc = -1;
    int64_t top, *order = NULL, norder = 0;
    TlLoc at = sk->outputs[0]->loc;

    for (int j = 0; j < sk->ninputs; j++) {
        const char *nm = sk->inputs[j]->name;
        for (int x = 0; x < k->ninputs && !sin[j]; x++)
            if (!strcmp(k->inputs[x]->name, nm))
                sin[j] = tl_tensor_ref(in[x]);
        if (!sin[j]) {
            Store *x = store_of(b, nm);
            if (!x) {
                buf_printf(b->why, "an input '%s' made by no segment", nm);
                goto done;
            }
            sin[j] = tl_tensor_new(x->dt, x->rank, x->shape, NULL, 0);
        }
    }
    /* The image its largest intermediate input lies in, for an
     * elementwise segment to compute in (target_seg_lay.c): one read
     * at each element's own position has as many elements as the
     * output, a broadcast one fewer. */
    {
        Store *best = NULL;
        for (int j = 0; j < sk->ninputs && !acc_seg_naive(); j++) {
            Store *x = store_of(b, sk->inputs[j]->name);
            if (x && !x->kin && x->omap && x->dt == DT_F32 &&
                (!best || numel(x->rank, x->shape) >
                              numel(best->rank, best->shape)))
                best = x;
        }
        if (best) {
            order = acc_seg_order(best->omap,
                                  numel(best->rank, best->shape), best->n);
            norder = best->n;
        }
    }
    rc = acc_tg_build_call(b->s, sk, b->m, sin, p, &out->route[i], oshape,
                           at, order, norder);
    free(order);
    if (rc) {
        rc = -1;
        buf_printf(b->why, "segment %d ('%s'), which does not compile "
                           "again", i + 1, sp->seg[i].out);
        goto done;
    }
    if (p->est_cycles > 0) {
        b->est_seg += p->est_cycles;
    } else {
        /* A route with no model of its own (the pipeline route): its
         * text, as a conversion's. */
        b->est_seg += acc_seg_text_model(b->m, p->text.s);
        b->nomodel++;
    }
    if (scan(p->text.s, r, &nr, &top, b->why))
        goto done;
    for (int j = 0; j < nr; j++) {
        int64_t hi = j + 1 < nr ? r[j + 1].lo : top;
        const AccCgIn *ci = NULL;
        Store *x = NULL;
        r[j].hi = hi > r[j].lo ? hi : r[j].lo;
        for (int q = 0; q < p->nins; q++)
            if (!strcmp(p->ins[q].name, r[j].name))
                ci = &p->ins[q];
        if (r[j].out) {
            int64_t lw = r[j].hi - r[j].lo;
            r[j].to = alloc(b, lw + acc_seg_conv_slack(b->m));
            continue;
        }
        if (!ci) {
            buf_printf(b->why, "an input '%s' of no operand", r[j].name);
            goto done;
        }
        if (ci->input >= 0 &&
            !(x = store_of(b, sk->inputs[ci->input]->name))) {
            buf_printf(b->why, "an input '%s' stored nowhere", r[j].name);
            goto done;
        }
        if (x && x->kin && !x->placed) {
            int64_t nd = ci->map ? ci->nmap
                         : ci->direct ? x->n
                                      : p->nelems;
            int64_t lw = lw_of(x->dt, nd);
            if (r[j].hi - r[j].lo > lw)
                lw = r[j].hi - r[j].lo;
            if (place_input(b, p, ci, x, nd, lw)) {
                r[j].to = x->at;
                continue;
            }
        }
        if ((ci->direct && !ci->map && x && !x->omap) ||
            (x && !x->kin && x->dt == DT_F32 &&
             acc_seg_in_place(ci, x->omap, numel(x->rank, x->shape),
                              x->n))) {
            r[j].to = x->at;
            continue;
        }
        if (x && x->kin && !acc_seg_naive()) {
            int64_t nd = ci->map ? ci->nmap
                         : ci->direct ? numel(x->rank, x->shape)
                                      : p->nelems;
            int64_t lw = lw_of(x->dt, nd);
            if (r[j].hi - r[j].lo > lw)
                lw = r[j].hi - r[j].lo;
            if ((r[j].to = host_copy(b, p, ci, x, nd, lw)) >= 0)
                continue;
        }
        if ((x && x->dt != DT_F32) ||
            (ci->input >= 0 && sin[ci->input]->dtype != DT_F32)) {
            buf_printf(b->why, "an image of a %s tensor ('%s')",
                       dt_name(x ? x->dt : sin[ci->input]->dtype),
                       r[j].name);
            goto done;
        }
        {
            int64_t nd = ci->map ? ci->nmap
                         : ci->direct ? numel(sin[ci->input]->rank,
                                              sin[ci->input]->shape)
                                      : p->nelems;
            int64_t lw = lw_of(DT_F32, nd);
            if (r[j].hi - r[j].lo > lw)
                lw = r[j].hi - r[j].lo;
            r[j].to = alloc(b, lw + acc_seg_conv_slack(b->m));
            if (convert(b, p, ci, x, nd, r[j].to))
                goto done;
        }
    }
    buf_printf(b->o, "# segment %d of %d: %s, the %s route\n", i + 1, sp->n,
               sp->seg[i].out, out->route[i]);
    buf_printf(&out->bare, "# segment %d of %d: %s, the %s route\n", i + 1,
               sp->n, sp->seg[i].out, out->route[i]);
    relocate(b->o, p->text.s, r, nr);
    relocate(&out->bare, p->text.s, r, nr);
    buf_printf(b->mid, "# segment %d of %d\n", i + 1, sp->n);
    relocate(b->mid, p->text.s, r, nr);
    for (int j = 0; j < nr; j++)
        if (r[j].out) {
            Store *x = &b->t[b->nt++];
            memset(x, 0, sizeof *x);
            x->name = sp->seg[i].out;
            x->at = r[j].to;
            x->dt = sk->outputs[0]->dtype;
            x->omap = p->omap;
            x->rank = sk->outputs[0]->rank;
            memcpy(x->shape, oshape, sizeof x->shape);
            x->n = p->omap ? p->oimage : numel(sk->outputs[0]->rank, oshape);
            if (x->omap && acc_seg_naive() && i + 1 < sp->n &&
                x->dt == DT_F32 && to_row_major(b, x))
                goto done;
        }
    rc = 0;
done:
    for (int j = 0; j < nr; j++)
        free((char *)r[j].name);
    for (int j = 0; j < sk->ninputs; j++)
        if (sin[j])
            tl_tensor_unref(sin[j]);
    free(sin);
    return rc;
}

int acc_seg_program(TlSession *s, TlKernelInfo *k, const AccMachine *m,
                    const AccSegPlan *sp, TlTensor *const *in,
                    AccSegProg *out, TlBuf *why)
{
    Build *b = tl_xcalloc(1, sizeof *b);
    AccCgProgram *p = tl_xcalloc((size_t)sp->n, sizeof *p);
    TlBuf body, head;
    int64_t oshape[TL_MAX_RANK], last_at = 0;
    int rc = -1, built = 0;
    TlFunc *of = k->outputs[0];

    memset(out, 0, sizeof *out);
    buf_init(&out->text);
    buf_init(&out->bare);
    buf_init(&out->mid);
    buf_init(&body);
    buf_init(&head);
    if (!acc_seg_conv_ok(m)) {
        buf_printf(why, "a program of segments on machine '%s' (no room "
                        "for the conversions between them)", m->name);
        goto done;
    }
    b->s = s;
    b->m = m;
    b->o = &body;
    b->mid = &out->mid;
    b->why = why;
    buf_printf(&head, "# accel: kernel %s, %d segments in one program, "
               "the conversions between them on the device\n", k->name,
               sp->n);
    for (int x = 0; x < k->ninputs; x++) {
        Store *t = &b->t[b->nt++];
        int64_t n = numel(in[x]->rank, in[x]->shape);
        memset(t, 0, sizeof *t);
        t->name = k->inputs[x]->name;
        t->kin = 1;
        t->dt = in[x]->dtype;
        t->n = n;
        t->rank = in[x]->rank;
        memcpy(t->shape, in[x]->shape, sizeof(int64_t) * (size_t)t->rank);
    }
    for (int i = 0; i < sp->n; i++, built++)
        if (segment(b, k, sp, i, in, &p[i], out, oshape))
            goto done;
    /* The inputs where their first consumers placed them (one no
     * segment reads, row-major). */
    for (int x = 0; x < k->ninputs; x++) {
        Store *t = &b->t[x];
        if (!t->placed) {
            t->placed = 1;
            t->at = alloc(b, lw_of(t->dt, t->n) + acc_seg_conv_slack(m));
        }
        buf_printf(&head, ".input %s ", t->name);
        put_type(&head, t->dt, t->rank, t->shape);
        buf_printf(&head, " d[%lld]", (long long)t->at);
        if (t->img)
            buf_printf(&head, " image %lld", (long long)t->n);
        buf_puts(&head, "\n");
        acc_img_print(&head, t->name, t->img, t->nimg);
        for (int c = 0; c < t->ncopy; c++) {
            buf_printf(&head, ".input %s ", t->name);
            put_type(&head, t->dt, t->rank, t->shape);
            buf_printf(&head, " d[%lld] image %lld\n",
                       (long long)t->copy[c].at, (long long)t->copy[c].n);
            acc_img_print(&head, t->name, t->copy[c].img, t->copy[c].nimg);
        }
    }
    {
        Store *x = store_of(b, sp->seg[sp->n - 1].out);
        int64_t n = numel(of->rank, oshape);
        AccImgRun *oimg = NULL;
        int noimg = 0;
        if (x->omap && n <= x->n && !acc_seg_naive()) {
            /* Read back from its producer's image by the host: position
             * omap[e] holds element e, the others none. */
            int64_t *elem = tl_xcalloc((size_t)x->n + 1, sizeof *elem);
            double *val = tl_xcalloc((size_t)x->n + 1, sizeof *val);
            for (int64_t q = 0; q < x->n; q++)
                elem[q] = -1;
            for (int64_t e = n - 1; e >= 0; e--)
                elem[x->omap[e]] = e;
            noimg = acc_img_runs(elem, val, x->n, &oimg);
            free(elem);
            free(val);
            last_at = x->at;
            out->out_host = 1;
        } else if (x->omap) {
            int64_t *from = tl_xcalloc((size_t)n + 1, sizeof *from);
            TlBuf cv;
            buf_init(&cv);
            b->o = &cv;
            last_at = alloc(b, lw_of(DT_F32, n) + acc_seg_conv_slack(m));
            for (int64_t e = 0; e < n; e++)
                from[e] = elem_word(b, x, e);
            b->gathers += acc_seg_emit_gather(&cv, m, from, n, b->cat,
                                              last_at);
            b->nconv++;
            b->est_conv += acc_seg_text_model(m, cv.s);
            b->o = &body;
            buf_puts(&body, cv.s);
            buf_puts(b->mid, cv.s);
            buf_free(&cv);
            free(from);
        } else {
            last_at = x->at;
        }
        buf_printf(&head, ".output %s ", of->name);
        put_type(&head, of->dtype, of->rank, oshape);
        buf_printf(&head, " d[%lld]", (long long)last_at);
        if (oimg)
            buf_printf(&head, " image %lld", (long long)x->n);
        buf_puts(&head, "\n");
        acc_img_print(&head, of->name, oimg, noimg);
        free(oimg);
    }
    if (b->next + acc_seg_conv_slack(m) > m->dram_words) {
        buf_printf(why, "a program of segments that needs %lld long words "
                   "of DRAM (machine '%s' has %lld)",
                   (long long)(b->next + acc_seg_conv_slack(m)), m->name,
                   (long long)m->dram_words);
        goto done;
    }
    buf_puts(&out->text, head.s);
    buf_puts(&out->text, body.s);
    {
        TlBuf bare;
        buf_init(&bare);
        buf_puts(&bare, head.s);
        buf_puts(&bare, out->bare.s);
        buf_free(&out->bare);
        out->bare = bare;
        buf_init(&bare);
        buf_puts(&bare, head.s);
        buf_puts(&bare, out->mid.s);
        buf_free(&out->mid);
        out->mid = bare;
    }
    out->nconv = b->nconv;
    out->gathers = b->gathers;
    out->nhost = b->nhost;
    out->ncopies = b->ncopies;
    out->est_seg = b->est_seg;
    out->est_conv = b->est_conv;
    out->est_in = b->est_in;
    out->nomodel = b->nomodel;
    rc = 0;
done:
    for (int i = 0; i < b->nt; i++) {
        free(b->t[i].own);
        free(b->t[i].img);
        for (int c = 0; c < b->t[i].ncopy; c++)
            free(b->t[i].copy[c].img);
    }
    for (int i = 0; i < built && i < sp->n; i++)
        acc_tg_free_program(&p[i]);
    free(p);
    buf_free(&body);
    buf_free(&head);
    if (rc)
        acc_seg_program_free(out);
    free(b);
    return rc;
}

void acc_seg_program_free(AccSegProg *sp)
{
    buf_free(&sp->text);
    buf_free(&sp->bare);
    buf_free(&sp->mid);
    sp->nconv = 0;
}

static AccProgram *assemble_text(TlSession *s, TlKernelInfo *k,
                                 const AccMachine *m, const TlBuf *text)
{
    char *name = arena_printf(&s->arena, "<accel %s>", k->name);
    int file = tl_add_source(s, name, text->s, text->len);
    AccProgram *prog = acc_assemble(s, file, m, 1);

    if (!prog)
        tl_internal_error(__FILE__, __LINE__, "the accel program of '%s' "
                          "does not assemble", k->name);
    return prog;
}

int acc_seg_run(TlSession *s, TlKernelInfo *k, const AccMachine *m,
                const AccSegCached *c, TlTensor *const *packed,
                TlTensor **out, TlBuf *stats, TlLoc loc)
{
    const char *dbg = getenv("TDSL_DEBUG");
    AccProgram *prog = assemble_text(s, k, m, &c->prog.text);
    AccSim *sim = acc_sim_new(s, prog, 1);
    TlBuf err;
    int rc = -1;

    if (dbg && strstr(dbg, "accel"))
        fputs(c->prog.text.s, stderr);
    buf_init(&err);
    for (int x = 0; x < k->ninputs; x++)
        if (acc_sim_set_input(sim, k->inputs[x]->name, packed[x], &err))
            tl_internal_error(__FILE__, __LINE__, "accel input: %s", err.s);
    if (acc_sim_run(sim) == 0) {
        const AccStats *st = acc_sim_stats(sim);
        int64_t dram = st->dram_words[0] + st->dram_words[1];
        AccTiming bare, mid;
        acc_tg_count_run(st);
        *out = acc_sim_get_output(sim, k->outputs[0]->name, &err);
        if (!*out)
            tl_internal_error(__FILE__, __LINE__, "accel output: %s", err.s);
        acc_time_program(assemble_text(s, k, m, &c->prog.bare), &bare);
        acc_time_program(assemble_text(s, k, m, &c->prog.mid), &mid);
        buf_printf(stats, "segments   %d in one program, the conversions "
                   "between them on the device\n", c->nseg);
        if (acc_seg_naive())
            buf_printf(stats, "layouts    naive: every tensor row-major in "
                       "DRAM (TDSL_ACC_LAYOUTS=naive)\n");
        acc_sim_print_stats(stats, sim);
        buf_puts(stats, c->lines);
        buf_printf(stats, "host       %d of %d inputs laid out in their "
                   "first route's image by the host at load, %d copies in "
                   "other routes' images, the output read back %s (not "
                   "counted)\n", c->prog.nhost, k->ninputs,
                   c->prog.ncopies, c->prog.out_host
                                   ? "from its route's image by the host"
                                   : "row-major");
        buf_printf(stats, "conversion %d in the program: %lld cycles, %lld "
                   "lw DRAM (%lld DMA gathers); of the kernel's inputs "
                   "into other routes' images %lld cycles, %lld lw\n",
                   c->prog.nconv, (long long)(st->cycles - bare.cycles),
                   (long long)(dram - bare.dram_words[0] -
                               bare.dram_words[1]),
                   (long long)c->prog.gathers,
                   (long long)(st->cycles - mid.cycles),
                   (long long)(dram - mid.dram_words[0] -
                               mid.dram_words[1]));
        acc_seg_plan_line(stats, &c->prog, st->cycles, bare.cycles);
        rc = 0;
    } else {
        diag_note(s, loc, "while the simulator ran '%s'", k->name);
    }
    acc_sim_free(sim);
    buf_free(&err);
    return rc;
}
