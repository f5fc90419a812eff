/*
 * onnx_ops_grid.c - GridSample (opset 16: 2-D).  Each output position
 * (n, h, w) takes the point grid[n, h, w] = (x, y) in [-1, 1], made a
 * pixel coordinate of X; the value there is interpolated from a few
 * pixels (taps) around it, as PyTorch's grid_sample does (the suite's
 * expected outputs are PyTorch's).  Per axis, three small stages hold
 * the coordinate, the taps' pixel indices and their weights:
 *     y_x[i0, i1, i2]       = the x coordinate of output (i0, i1, i2)
 *     y_xtap[i0, i1, i2, t] = the pixel column of tap t
 *     y_xw[i0, i1, i2, t]   = its weight
 * and the output sums the taps of both axes:
 *     y[i0, i1, i2, i3] = sum(r0 in 0..T, r1 in 0..T) y_yw[.., r0]
 *         * y_xw[.., r1] * X.zero_pad[i0, i1, y_ytap[.., r0],
 *                                     y_xtap[.., r1]]
 * zero_pad gives the zeros of padding_mode "zeros"; "border" and
 * "reflection" move the coordinate (bilinear, nearest) or each tap
 * (bicubic) back inside first.
 *
 * RoiAlign samples the same way, bilinearly, on a regular grid of
 * points inside each bin of each region, and averages them.
 */
#include "parser/onnx/onnx_int.h"

#include <stdio.h>
#include <string.h>

enum { G_NEAREST, G_BILINEAR, G_BICUBIC };
enum { P_ZEROS, P_BORDER, P_REFLECTION };

static int str_attr(OxModel *m, const char *name, const char *const *vals,
                    int n, int dflt)
{
    const Onnx__AttributeProto *a = ox_attr(m, name);

    if (!a)
        return dflt;
    for (int i = 0; a->has_s && i < n; i++)
        if (a->s.len == strlen(vals[i]) &&
            !memcmp(a->s.data, vals[i], a->s.len))
            return i;
    ox_unsupported(m, "unsupported %s '%.*s'", name,
                   a->has_s ? (int)a->s.len : 0,
                   a->has_s ? (const char *)a->s.data : "");
    return -1;
}

/* Appends the coordinate v (text, f32) moved inside an axis of size L
 * by the padding mode: clamped (border), or reflected about the edges
 * (at the pixel centres 0 and L - 1 with align_corners, else at -0.5
 * and L - 0.5) and then clamped. */
static void pad_coord(TlBuf *b, const char *v, int64_t L, int pmode,
                      int align)
{
    double lo = align ? 0 : -0.5, span = align ? (double)(L - 1) : L;
    char a[400];

    if (pmode == P_ZEROS) {
        buf_puts(b, v);
        return;
    }
    if (pmode == P_REFLECTION && span > 0) {
        /* a = |v - lo|; flips = floor(a / span); the remainder runs
         * forward after an even number of flips, back after an odd */
        char f[500];
        snprintf(a, sizeof a, "abs(%s - f32(%g))", v, lo);
        snprintf(f, sizeof f, "floor(%s / f32(%g))", a, span);
        buf_printf(b, "clamp(select(%s - f32(2) * floor(%s / f32(2)) == "
                   "f32(0), %s - %s * f32(%g) + f32(%g), f32(%g) - (%s - "
                   "%s * f32(%g)) + f32(%g)), f32(0), f32(%lld))", f, f, a,
                   f, span, lo, span, a, f, span, lo, (long long)(L - 1));
        return;
    }
    if (pmode == P_REFLECTION) {
        buf_puts(b, "f32(0)");
        return;
    }
    buf_printf(b, "clamp(%s, f32(0), f32(%lld))", v, (long long)(L - 1));
}

/* The cubic convolution weight (A = -0.75) of a tap at distance d. */
static void cubic_w(TlBuf *b, const char *d, int near)
{
    if (near)   /* |d| <= 1: ((A + 2) d - (A + 3)) d d + 1 */
        buf_printf(b, "(f32(1.25) * %s - f32(2.25)) * %s * %s + f32(1)",
                   d, d, d);
    else        /* 1 < |d| < 2: ((A d - 5 A) d + 8 A) d - 4 A */
        buf_printf(b, "((f32(-0.75) * %s + f32(3.75)) * %s - f32(6)) * %s "
                   "+ f32(3)", d, d, d);
}

/* The three stages of one axis (g: grid component 0 for x, 1 for y;
 * L: X's size on that axis); their names in ids. */
static void axis_stages(OxModel *m, OxValue *grid, OxValue *y, int g,
                        int64_t L, int mode, int pmode, int align,
                        const char **ids)
{
    static const char *const suffix[2][3] = {
        {"x", "xtap", "xw"}, {"y", "ytap", "yw"}};
    TlBuf *b = &m->body;
    char tmp[600], c[200];

    for (int k = 0; k < 3; k++) {
        snprintf(tmp, sizeof tmp, "%s_%s", y->name, suffix[g][k]);
        ids[k] = ox_ident(m, tmp);
    }
    grid->used = 1;
    /* the coordinate: [-1, 1] to pixels, then (but for bicubic, which
     * moves each tap) inside */
    snprintf(tmp, sizeof tmp, "%s[i0, i1, i2, %d]", grid->id, g);
    snprintf(c, sizeof c, align ? "(%s + f32(1)) / f32(2) * f32(%lld)"
                                : "((%s + f32(1)) * f32(%lld) - f32(1)) / "
                                  "f32(2)",
             tmp, (long long)(align ? L - 1 : L));
    buf_printf(b, "    %s[i0, i1, i2] = ", ids[0]);
    pad_coord(b, c, L, mode == G_BICUBIC ? P_ZEROS : pmode, align);
    buf_putc(b, '\n');
    snprintf(c, sizeof c, "%s[i0, i1, i2]", ids[0]);
    buf_printf(b, "    %s[i0, i1, i2, i3] = i32(", ids[1]);
    if (mode == G_NEAREST) {
        buf_printf(b, "round(%s)", c);
    } else if (mode == G_BILINEAR) {
        buf_printf(b, "floor(%s) + f32(i3)", c);
    } else {
        snprintf(tmp, sizeof tmp, "(floor(%s) - f32(1) + f32(i3))", c);
        pad_coord(b, tmp, L, pmode, align);
    }
    buf_puts(b, ")\n");
    buf_printf(b, "    %s[i0, i1, i2, i3] = ", ids[2]);
    if (mode == G_NEAREST) {
        buf_puts(b, "f32(1)");
    } else if (mode == G_BILINEAR) {
        buf_printf(b, "select(i3 == 0, f32(1) - (%s - floor(%s)), %s - "
                   "floor(%s))", c, c, c, c);
    } else {
        /* t = c - floor(c); taps at distances t + 1, t, 1 - t, 2 - t */
        snprintf(tmp, sizeof tmp, "(%s - floor(%s))", c, c);
        char d[4][640];
        snprintf(d[0], sizeof d[0], "(%s + f32(1))", tmp);
        snprintf(d[1], sizeof d[1], "%s", tmp);
        snprintf(d[2], sizeof d[2], "(f32(1) - %s)", tmp);
        snprintf(d[3], sizeof d[3], "(f32(2) - %s)", tmp);
        for (int k = 0; k < 3; k++) {
            buf_printf(b, "select(i3 == %d, ", k);
            cubic_w(b, d[k], k == 1 || k == 2);
            buf_puts(b, ", ");
        }
        cubic_w(b, d[3], 0);
        buf_puts(b, ")))");
    }
    buf_putc(b, '\n');
}

static int op_grid_sample(OxModel *m)
{
    static const char *const modes[] = {"nearest", "bilinear", "bicubic"};
    static const char *const pads[] = {"zeros", "border", "reflection"};
    OxValue *x = ox_in(m, 0), *grid = ox_in(m, 1), *y;
    int mode = str_attr(m, "mode", modes, 3, G_BILINEAR);
    int pmode = str_attr(m, "padding_mode", pads, 3, P_ZEROS);
    int align = (int)ox_attr_i(m, "align_corners", 0);
    int64_t dims[4];
    const char *ix[3], *iy[3];
    int taps;
    TlBuf *b = &m->body;

    if (mode < 0 || pmode < 0)
        return -1;
    if (!x || !grid || x->rank != 4 || grid->rank != 4 ||
        grid->dims[0] != x->dims[0] || grid->dims[3] != 2 ||
        !dt_is_float(x->dt) || grid->dt != x->dt || x->dt != DT_F32) {
        ox_unsupported(m, "needs f32 X of shape N, C, H, W and a grid of "
                       "shape N, H_out, W_out, 2");
        return -1;
    }
    dims[0] = x->dims[0];
    dims[1] = x->dims[1];
    dims[2] = grid->dims[1];
    dims[3] = grid->dims[2];
    if (!(y = ox_out(m, 0, x->dt, 4, dims)))
        return -1;
    taps = mode == G_NEAREST ? 1 : mode == G_BILINEAR ? 2 : 4;
    ox_comment(m);
    axis_stages(m, grid, y, 0, x->dims[3], mode, pmode, align, ix);
    axis_stages(m, grid, y, 1, x->dims[2], mode, pmode, align, iy);
    x->used = 1;
    buf_printf(b, "    %s[i0, i1, i2, i3] = sum(r0 in 0..%d, r1 in 0..%d) "
               "%s[i0, i2, i3, r0] * %s[i0, i2, i3, r1] * "
               "%s%s[i0, i1, %s[i0, i2, i3, r0], %s[i0, i2, i3, r1]]\n",
               y->id, taps, taps, iy[2], ix[2], ox_fixed(m, x), ".zero_pad",
               iy[1], ix[1]);
    return 0;
}

/* RoiAlign, one axis (k = 0: y, the region's corners 1 and 3, bins
 * out, X's size L): the sample coordinates, the low and high pixel and
 * their weights (zero for a sample outside -1 .. L), as stages over
 * (region, bin, sample); their names in ids. */
static void roi_axis(OxModel *m, OxValue *rois, OxValue *y, int k,
                     int64_t out, int64_t grid, int64_t L, double scale,
                     int half, const char **ids)
{
    static const char *const suffix[2][5] = {
        {"y", "ylo", "yhi", "ywlo", "ywhi"},
        {"x", "xlo", "xhi", "xwlo", "xwhi"}};
    TlBuf *b = &m->body, sc;
    char tmp[1024], start[200], size[1100], v[100], vc[140];

    for (int i = 0; i < 5; i++) {
        snprintf(tmp, sizeof tmp, "%s_%s", y->name, suffix[k][i]);
        ids[i] = ox_ident(m, tmp);
    }
    rois->used = 1;
    /* the scale as it reads back (%g kept 6 digits; NaN and inf have
     * no literal) */
    buf_init(&sc);
    ox_float_lit(&sc, scale);
    /* the region's start and size on this axis (size at least 1 for
     * output_half_pixel) */
    snprintf(start, sizeof start, "(%s[i0, %d] * f32(%s) - f32(%g))",
             rois->id, 1 - k, sc.s, half ? 0.5 : 0.0);
    snprintf(tmp, sizeof tmp, "(%s[i0, %d] - %s[i0, %d]) * f32(%s)",
             rois->id, 3 - k, rois->id, 1 - k, sc.s);
    buf_free(&sc);
    if (half)
        snprintf(size, sizeof size, "%s", tmp);
    else
        snprintf(size, sizeof size, "max(%s, f32(1))", tmp);
    buf_printf(b, "    %s[i0, i1, i2] = %s + f32(i1) * %s / f32(%lld) + "
               "(f32(i2) + f32(0.5)) * %s / f32(%lld)\n", ids[0], start,
               size, (long long)out, size, (long long)(out * grid));
    snprintf(v, sizeof v, "%s[i0, i1, i2]", ids[0]);
    snprintf(vc, sizeof vc, "max(%s, f32(0))", v);
    buf_printf(b, "    %s[i0, i1, i2] = i32(min(floor(%s), f32(%lld)))\n",
               ids[1], vc, (long long)(L - 1));
    buf_printf(b, "    %s[i0, i1, i2] = min(%s[i0, i1, i2] + 1, %lld)\n",
               ids[2], ids[1], (long long)(L - 1));
    /* the high pixel's weight: the fraction past the low one (none at
     * the last pixel) */
    snprintf(tmp, sizeof tmp, "select(%s >= f32(%lld), f32(0), %s - "
             "floor(%s))", vc, (long long)(L - 1), vc, vc);
    buf_printf(b, "    %s[i0, i1, i2] = select(%s >= f32(-1) && %s <= "
               "f32(%lld), f32(1) - %s, f32(0))\n", ids[3], v, v,
               (long long)L, tmp);
    buf_printf(b, "    %s[i0, i1, i2] = select(%s >= f32(-1) && %s <= "
               "f32(%lld), %s, f32(0))\n", ids[4], v, v, (long long)L,
               tmp);
}

static int op_roi_align(OxModel *m)
{
    static const char *const modes[] = {"avg", "max"};
    static const char *const cts[] = {"output_half_pixel", "half_pixel"};
    OxValue *x = ox_in(m, 0), *rois = ox_in(m, 1), *bi = ox_in(m, 2), *y;
    int mode = str_attr(m, "mode", modes, 2, 0);
    int half = str_attr(m, "coordinate_transformation_mode", cts, 2,
                        m->opset >= 16);
    int64_t oh = ox_attr_i(m, "output_height", 1);
    int64_t ow = ox_attr_i(m, "output_width", 1);
    int64_t g = ox_attr_i(m, "sampling_ratio", 0), dims[4];
    double scale = ox_attr_f(m, "spatial_scale", 1.0);
    const char *iy[5], *ix[5], *xs;
    TlBuf *b = &m->body;

    if (mode < 0 || half < 0)
        return -1;
    if (mode != 0) {
        ox_unsupported(m, "mode 'max' is not supported");
        return -1;
    }
    if (g < 1) {
        /* the count would depend on each region's size */
        ox_unsupported(m, "sampling_ratio 0 (adaptive) is not supported");
        return -1;
    }
    if (!x || !rois || !bi || x->rank != 4 || x->dt != DT_F32 ||
        rois->rank != 2 || rois->dims[1] != 4 || rois->dt != x->dt ||
        bi->rank != 1 || bi->dims[0] != rois->dims[0] ||
        dt_is_float(bi->dt) || bi->dt == DT_BOOL || oh < 1 || ow < 1 ||
        oh > OX_MAX_DIM || ow > OX_MAX_DIM || g > 64) {
        ox_unsupported(m, "needs f32 X of shape N, C, H, W, rois of shape "
                       "R, 4 and R batch indices");
        return -1;
    }
    dims[0] = rois->dims[0];
    dims[1] = x->dims[1];
    dims[2] = oh;
    dims[3] = ow;
    if (!(y = ox_out(m, 0, x->dt, 4, dims)))
        return -1;
    ox_comment(m);
    roi_axis(m, rois, y, 0, oh, g, x->dims[2], scale, half, iy);
    roi_axis(m, rois, y, 1, ow, g, x->dims[3], scale, half, ix);
    bi->used = 1;
    xs = ox_fixed(m, x);
    buf_printf(b, "    %s[i0, i1, i2, i3] = sum(r0 in 0..%lld, r1 in "
               "0..%lld) (", y->id, (long long)g, (long long)g);
    for (int k = 0; k < 4; k++) {
        const char *wy = iy[3 + k / 2], *wx = ix[3 + k % 2];
        const char *py = iy[1 + k / 2], *px = ix[1 + k % 2];
        buf_printf(b, "%s%s[i0, i2, r0] * %s[i0, i3, r1] * "
                   "%s.clamp_edge[%s[i0], i1, %s[i0, i2, r0], "
                   "%s[i0, i3, r1]]", k ? " + " : "", wy, wx, xs,
                   bi->id, py, px);
    }
    buf_printf(b, ") / f32(%lld)\n", (long long)(g * g));
    return 0;
}

static const OxOp ops[] = {
    {"GridSample", op_grid_sample},
    {"RoiAlign", op_roi_align},
};

OxOpFn ox_grid_op(const char *name)
{
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (!strcmp(ops[i].name, name))
            return ops[i].fn;
    return NULL;
}
