/*
 * onnx_ops_nms.c - NonMaxSuppression, whose output (one row per box
 * kept) has a size that depends on the values of the boxes and scores.
 * As NonZero (onnx_ops_dd.c), it imports when every input is known at
 * import (constants, or data bound with --bind): the number of boxes
 * kept is counted then by the interpreter running the same stages the
 * kernel has, and the kernel computes which boxes it keeps from its
 * inputs.
 *
 * The choice is greedy, per batch and class: in order of score
 * (highest first; of equal scores, the lower index first), a box above
 * the score threshold is kept when no box kept before it overlaps it
 * with an IoU above the threshold, until max_output_boxes_per_class
 * are kept.  A stage cannot read itself (SPEC 6.4), so the choice is
 * written as rounds: round 0 keeps every candidate; round t keeps a
 * candidate that no box kept in round t - 1 and ahead of it in score
 * order suppresses.  The box at place p in score order only depends on
 * the boxes ahead of it, so by induction its choice is final from
 * round p on: N - 1 rounds (one stage each, over every batch, class
 * and box at once) give the greedy choice for any data of N boxes.
 * The rows are then written in (batch, class, score order).
 */
#include "parser/onnx/onnx_int.h"

#include <stdio.h>
#include <string.h>

/* Boxes per batch: a stage per round, each over N x N pairs. */
#define NMS_MAX_BOXES 256
/* Batches x classes x boxes: each output row counts over all. */
#define NMS_MAX_CHOICES 4096

/* Optional input i, known at import: NULL when absent or empty (as
 * ONNX's reference takes an empty one), *bad after a message. */
static OxValue *opt_scalar(OxModel *m, int i, int *bad)
{
    OxValue *v = ox_in(m, i);

    if (!v)
        return NULL;
    if (ox_dd_known(m, v) < 0) {
        *bad = 1;
        return NULL;
    }
    if (!ox_numel(v))
        return NULL;
    if (ox_numel(v) != 1) {
        ox_unsupported(m, "'%s' has %lld elements (a scalar is expected)",
                       v->name, (long long)ox_numel(v));
        *bad = 1;
        return NULL;
    }
    if (i == 2 ? v->dt != DT_I64 : !dt_is_float(v->dt)) {
        ox_unsupported(m, "'%s' is %s", v->name, dt_name(v->dt));
        *bad = 1;
    }
    return v;
}

/* v's one element, or dflt when v is absent. */
static void scalar(TlBuf *b, OxValue *v, const char *dflt)
{
    OxIdx idx[TL_MAX_RANK];

    if (!v) {
        buf_puts(b, dflt);
        return;
    }
    for (int i = 0; i < v->rank; i++)
        snprintf(idx[i], sizeof idx[i], "0");
    ox_read(b, v, idx);
}

/* boxes[i0, i1, at]. */
static void box(TlBuf *b, OxValue *x, const char *at)
{
    OxIdx idx[3] = {"i0", "i1", ""};

    snprintf(idx[2], sizeof idx[2], "%s", at);
    ox_read(b, x, idx);
}

/* name[i0, i1, i2]: one end of batch i0's box i1 on axis i2, of the
 * centre and size (op: - or +), or of the corners (fn: min or max). */
static void extent(TlBuf *b, OxValue *x, const char *name, int center,
                   const char *op, const char *fn)
{
    buf_printf(b, "    %s[i0, i1, i2] = ", name);
    if (!center)
        buf_printf(b, "%s(", fn);
    box(b, x, "i2");
    buf_puts(b, center ? " " : ", ");
    if (center)
        buf_printf(b, "%s ", op);
    box(b, x, "i2 + 2");
    buf_puts(b, center ? " / 2.0\n" : ")\n");
}

/* scores[i0, i1, at]. */
static void score(TlBuf *b, OxValue *s, const char *at)
{
    OxIdx idx[3] = {"i0", "i1", ""};

    snprintf(idx[2], sizeof idx[2], "%s", at);
    ox_read(b, s, idx);
}

/* The stages up to `sel` (bool [B, C, N]: box i2 of batch i0 is kept
 * for class i1); the names of sel and of the score order are put in
 * *sel and *order. */
static void choice_stages(OxModel *m, TlBuf *b, OxValue *x, OxValue *s,
                          OxValue *maxo, OxValue *iou, OxValue *sthr,
                          int center, char **sel, char **order)
{
    char *lo = ox_ident(m, "nms_lo"), *hi = ox_ident(m, "nms_hi");
    char *area = ox_ident(m, "nms_area"), *ext = ox_ident(m, "nms_ext");
    char *inter = ox_ident(m, "nms_inter"), *uni = ox_ident(m, "nms_union");
    char *sup = ox_ident(m, "nms_suppress"), *cand = NULL, *prev;
    int64_t n = x->dims[1];

    /* lo, hi: each box's extent on its axes 0 and 1 (y and x for
     * corners, x and y for centres: IoU does not care which) */
    extent(b, x, lo, center, "-", "min");
    extent(b, x, hi, center, "+", "max");
    buf_printf(b, "    %s[i0, i1] = (%s[i0, i1, 1] - %s[i0, i1, 1]) * "
               "(%s[i0, i1, 0] - %s[i0, i1, 0])\n", area, hi, lo, hi, lo);
    /* ext: the overlap of boxes i1 and i2 on axis i3 */
    buf_printf(b, "    %s[i0, i1, i2, i3] = min(%s[i0, i1, i3], %s[i0, i2, "
               "i3]) - max(%s[i0, i1, i3], %s[i0, i2, i3])\n", ext, hi, hi,
               lo, lo);
    buf_printf(b, "    %s[i0, i1, i2] = select(%s[i0, i1, i2, 0] > 0.0 && "
               "%s[i0, i1, i2, 1] > 0.0, %s[i0, i1, i2, 0] * %s[i0, i1, "
               "i2, 1], 0.0)\n", inter, ext, ext, ext, ext);
    buf_printf(b, "    %s[i0, i1, i2] = %s[i0, i1] + %s[i0, i2] - "
               "%s[i0, i1, i2]\n", uni, area, area, inter);
    /* suppress: boxes i1 and i2 overlap too much (either way) */
    buf_printf(b, "    %s[i0, i1, i2] = select(%s[i0, i1, i2] > 0.0 && "
               "%s[i0, i1] > 0.0 && %s[i0, i2] > 0.0 && %s[i0, i1, i2] > "
               "0.0, %s[i0, i1, i2] / %s[i0, i1, i2] > ", sup, inter, area,
               area, uni, inter, uni);
    scalar(b, iou, "0.0");
    buf_puts(b, ", false)\n");
    /* order: the place of box i2 in score order */
    *order = ox_ident(m, "nms_order");
    buf_printf(b, "    %s[i0, i1, i2] = sum(r0 in 0..%lld) select(", *order,
               (long long)n);
    score(b, s, "r0");
    buf_puts(b, " > ");
    score(b, s, "i2");
    buf_puts(b, " || ");
    score(b, s, "r0");
    buf_puts(b, " == ");
    score(b, s, "i2");
    buf_puts(b, " && r0 < i2, 1, 0)\n");
    /* round 0: the candidates */
    prev = ox_ident(m, "nms_keep");
    buf_printf(b, "    %s[i0, i1, i2] = ", prev);
    if (sthr) {
        score(b, s, "i2");
        buf_puts(b, " > ");
        scalar(b, sthr, "");
        cand = prev;
    } else {
        buf_puts(b, "true");
    }
    buf_putc(b, '\n');
    for (int64_t t = 1; t < n; t++) {
        char *k = ox_ident(m, "nms_keep");
        buf_printf(b, "    %s[i0, i1, i2] = ", k);
        if (cand)
            buf_printf(b, "%s[i0, i1, i2] && ", cand);
        buf_printf(b, "!(max(r0 in 0..%lld) (%s[i0, i1, r0] && "
                   "%s[i0, i1, r0] < %s[i0, i1, i2] && %s[i0, r0, i2]))\n",
                   (long long)n, prev, *order, *order, sup);
        prev = k;
    }
    /* sel: the first max_output_boxes_per_class of those */
    *sel = ox_ident(m, "nms_sel");
    buf_printf(b, "    %s[i0, i1, i2] = %s[i0, i1, i2] && (sum(r0 in "
               "0..%lld) select(%s[i0, i1, r0] && %s[i0, i1, r0] < %s[i0, "
               "i1, i2], i64(1), 0)) < ", *sel, prev, (long long)n, prev,
               *order, *order);
    scalar(b, maxo, "i64(0)");
    buf_putc(b, '\n');
}

/* "r0 in 0..B, r1 in 0..C, r2 in 0..N" */
static void over_choices(TlBuf *b, const int64_t *d)
{
    buf_printf(b, "r0 in 0..%lld, r1 in 0..%lld, r2 in 0..%lld",
               (long long)d[0], (long long)d[1], (long long)d[2]);
}

static int op_nms(OxModel *m)
{
    OxValue *x = ox_need_in(m, 0), *s = ox_need_in(m, 1), *y;
    OxValue *maxo, *iou, *sthr, *ins[5];
    int64_t center = ox_attr_i(m, "center_point_box", 0), d[3], k, dims[2];
    int bad = 0, nin = 0;
    char *sel, *order, *key, *pos;
    TlBuf st, *b = &m->body;

    if (!x || !s || ox_dd_known(m, x) < 0 || ox_dd_known(m, s) < 0)
        return -1;
    maxo = opt_scalar(m, 2, &bad);
    iou = bad ? NULL : opt_scalar(m, 3, &bad);
    sthr = bad ? NULL : opt_scalar(m, 4, &bad);
    if (bad)
        return -1;
    if (center != 0 && center != 1) {
        ox_unsupported(m, "center_point_box %lld is not 0 or 1",
                       (long long)center);
        return -1;
    }
    if (x->rank != 3 || x->dims[2] != 4 || s->rank != 3 ||
        s->dims[0] != x->dims[0] || s->dims[2] != x->dims[1]) {
        ox_unsupported(m, "the boxes must be [batches, N, 4] and the "
                       "scores [batches, classes, N]");
        return -1;
    }
    if (!dt_is_float(x->dt) || s->dt != x->dt) {
        ox_unsupported(m, "the boxes and the scores must be of one float "
                       "dtype");
        return -1;
    }
    d[0] = s->dims[0];
    d[1] = s->dims[1];
    d[2] = s->dims[2];
    if (d[2] > NMS_MAX_BOXES || d[0] * d[1] * d[2] > NMS_MAX_CHOICES) {
        ox_unsupported(m, "%lld batches x %lld classes x %lld boxes (at "
                       "most %d boxes and %d in all are supported: the "
                       "choice takes a stage per box)", (long long)d[0],
                       (long long)d[1], (long long)d[2], NMS_MAX_BOXES,
                       NMS_MAX_CHOICES);
        return -1;
    }
    buf_init(&st);
    choice_stages(m, &st, x, s, maxo, iou, sthr, (int)center, &sel, &order);
    {
        TlBuf cnt;
        buf_init(&cnt);
        buf_printf(&cnt, "%s    count[] = sum(", st.s);
        over_choices(&cnt, d);
        buf_printf(&cnt, ") select(%s[r0, r1, r2], 1, 0)\n", sel);
        /* the inputs the stages read, each once (a model may give
         * one value as both thresholds) */
        OxValue *given[5] = {x, s, maxo, iou, sthr};
        for (int i = 0; i < 5; i++) {
            int dup = !given[i];
            for (int j = 0; j < nin && !dup; j++)
                dup = ins[j] == given[i];
            if (!dup)
                ins[nin++] = given[i];
        }
        k = ox_dd_count(m, cnt.s, ins, nin);
        buf_free(&cnt);
    }
    if (k < 0) {
        buf_free(&st);
        return -1;
    }
    ox_comment(m);
    buf_putn(b, st.s, st.len);
    buf_free(&st);
    /* key: the order of the rows (batch, class, score order); pos: the
     * row of each box kept */
    key = ox_ident(m, "nms_key");
    buf_printf(b, "    %s[i0, i1, i2] = (i64(i0) * %lld + i64(i1)) * %lld + "
               "i64(%s[i0, i1, i2])\n", key, (long long)d[1],
               (long long)d[2], order);
    pos = ox_ident(m, "nms_row");
    buf_printf(b, "    %s[i0, i1, i2] = sum(", pos);
    over_choices(b, d);
    buf_printf(b, ") select(%s[r0, r1, r2] && %s[r0, r1, r2] < %s[i0, i1, "
               "i2], i64(1), 0)\n", sel, key, key);
    dims[0] = k;
    dims[1] = 3;
    if (!(y = ox_out(m, 0, DT_I64, 2, dims)))
        return -1;
    ox_lhs_fixed(m, b, y);
    buf_puts(b, "sum(");
    over_choices(b, d);
    buf_printf(b, ") select(%s[r0, r1, r2] && %s[r0, r1, r2] == i0, "
               "select(i1 == 0, i64(r0), select(i1 == 1, i64(r1), "
               "i64(r2))), 0)\n", sel, pos);
    return 0;
}

OxOpFn ox_nms_op(const char *name)
{
    return strcmp(name, "NonMaxSuppression") ? NULL : op_nms;
}
