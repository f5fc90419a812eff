/*
 * layout_draw.c - pictures of a layout: which element lives on which
 * node and address, as a text grid (in the manner of the MN-Core layout
 * slides: a column per PE, a row per long word, element indices in the
 * cells) and as an SVG document with the same grid.
 *
 * The picture is read from the layout's inverse (acc_layout_element),
 * so it shows what the layout means, copies included, rather than
 * what its text says.
 */
#include "codegen/acc/layout.h"

#include <stdlib.h>
#include <string.h>

/* The grid: blocks of columns (the children of one node of the level
 * above the owning nodes), rows (addresses), cells (sub-words). */
typedef struct Grid {
    const AccLayout *L;
    int level;          /* the owning nodes' level (-1: DRAM) */
    int64_t ncols;      /* columns per block */
    int64_t nblocks;    /* blocks in the machine */
    int64_t rows;       /* addresses base .. base + rows - 1 */
} Grid;

static void grid_init(Grid *g, const AccLayout *L)
{
    const AccMachine *m = L->m;
    g->L = L;
    g->level = L->node_level;
    g->ncols = g->level >= 0 ? m->level[g->level].fanout : 1;
    g->nblocks = g->level > 0 ? acc_level_nodes(m, g->level - 1) : 1;
    g->rows = L->addr_span;
}

/* The place of column col of block blk, at address row, word w. */
static void place(const Grid *g, int64_t blk, int64_t col, int64_t row,
                  int w, AccLoc *loc)
{
    const AccMachine *m = g->L->m;
    int64_t id = blk;

    memset(loc, 0, sizeof *loc);
    loc->node_level = g->level;
    loc->space = g->L->space;
    loc->addr = g->L->base + row;
    loc->word = w;
    for (int lv = ACC_MAX_LEVELS - 1; lv > g->level; lv--)
        loc->path[lv] = -1;
    if (g->level >= 0)
        loc->path[g->level] = col;
    for (int lv = g->level - 1; lv >= 0; lv--) {
        loc->path[lv] = id % m->level[lv].fanout;
        id /= m->level[lv].fanout;
    }
}

static int64_t at(const Grid *g, int64_t blk, int64_t col, int64_t row,
                  int w)
{
    AccLoc loc;
    place(g, blk, col, row, w, &loc);
    return acc_layout_element(g->L, &loc, NULL);
}

static int block_used(const Grid *g, int64_t blk)
{
    for (int64_t c = 0; c < g->ncols; c++)
        for (int64_t r = 0; r < g->rows; r++)
            for (int w = 0; w < g->L->epl; w++)
                if (at(g, blk, c, r, w) >= 0)
                    return 1;
    return 0;
}

static void index_text(TlBuf *b, const AccLayout *L, int64_t e)
{
    int64_t idx[ACC_LAYOUT_MAX_RANK];
    acc_layout_unflatten(L, e, idx);
    for (int a = 0; a < L->rank; a++)
        buf_printf(b, "%s%lld", a ? "," : "", (long long)idx[a]);
}

static int index_width(const AccLayout *L)
{
    int w = 0;
    for (int a = 0; a < L->rank; a++) {
        int64_t v = L->shape[a] > 0 ? L->shape[a] - 1 : 0;
        w += a ? 1 : 0;
        do {
            w++;
            v /= 10;
        } while (v);
    }
    return w ? w : 1;
}

static void block_title(TlBuf *out, const Grid *g, int64_t blk)
{
    AccLoc loc;
    const AccMachine *m = g->L->m;

    place(g, blk, 0, 0, 0, &loc);
    if (g->level <= 0) {
        buf_puts(out, g->level < 0 ? "DRAM\n" : "machine\n");
        return;
    }
    for (int lv = 0; lv < g->level; lv++)
        buf_printf(out, "%s%s %lld", lv ? ", " : "", m->level[lv].name,
                   (long long)loc.path[lv]);
    buf_putc(out, '\n');
}

static void summary(TlBuf *out, const Grid *g)
{
    const AccLayout *L = g->L;
    const AccMachine *m = L->m;
    int64_t used = 0, total = g->nblocks * g->ncols;

    for (int64_t b = 0; b < g->nblocks; b++)
        for (int64_t c = 0; c < g->ncols; c++) {
            int hit = 0;
            for (int64_t r = 0; r < g->rows && !hit; r++)
                for (int w = 0; w < L->epl && !hit; w++)
                    hit = at(g, b, c, r, w) >= 0;
            used += hit;
        }
    buf_printf(out, "%s %s on machine '%s': ", dt_name(L->dtype),
               L->rank ? "tensor" : "scalar", m->name);
    acc_layout_print(out, L);
    buf_printf(out, "\n%lld elements, %lld %s each; %lld of %lld %s nodes "
               "hold some, %lld long words each (%s %lld..%lld)\n\n",
               (long long)L->nelems, (long long)L->ncopies,
               L->ncopies == 1 ? "copy" : "copies", (long long)used,
               (long long)total,
               g->level >= 0 ? m->level[g->level].name : "DRAM",
               (long long)g->rows, acc_layout_space_name(L->space),
               (long long)L->base, (long long)(L->base + g->rows - 1));
}

/* Drops the spaces that padding left at the ends of lines from
 * out->s[from] on. */
static void trim_lines(TlBuf *out, size_t from)
{
    size_t w = from;
    for (size_t r = from; r < out->len; r++) {
        if (out->s[r] == '\n')
            while (w > from && out->s[w - 1] == ' ')
                w--;
        out->s[w++] = out->s[r];
    }
    out->len = w;
    if (out->s)
        out->s[w] = 0;
}

void acc_layout_draw_text(TlBuf *out, const AccLayout *L,
                          const AccDrawOpts *o)
{
    size_t from = out->len;
    Grid g;
    int iw = index_width(L), cw, shown = 0, aw;
    int64_t hidden = 0, rows;
    const char *lvl;

    grid_init(&g, L);
    lvl = g.level >= 0 ? L->m->level[g.level].name : "DRAM";
    summary(out, &g);
    /* A column: the sub-words side by side, or the column's title. */
    cw = L->epl * (iw + 1) - 1;
    if (cw < (int)strlen(lvl) + 3)
        cw = (int)strlen(lvl) + 3;
    aw = (int)strlen(acc_layout_space_name(L->space));
    if (aw < 4)
        aw = 4;
    rows = o->max_rows > 0 && o->max_rows < g.rows ? o->max_rows : g.rows;
    for (int64_t b = 0; b < g.nblocks; b++) {
        if (!block_used(&g, b))
            continue;
        if (o->max_blocks > 0 && shown == o->max_blocks) {
            hidden++;
            continue;
        }
        shown++;
        block_title(out, &g, b);
        buf_printf(out, "%*s", aw, acc_layout_space_name(L->space));
        for (int64_t c = 0; c < g.ncols; c++) {
            char t[32];
            snprintf(t, sizeof t, "%s %lld", g.level >= 0 ? lvl : "",
                     (long long)c);
            buf_printf(out, " | %-*s", cw, t);
        }
        buf_putc(out, '\n');
        for (int64_t r = 0; r < rows; r++) {
            buf_printf(out, "%*lld", aw, (long long)(L->base + r));
            for (int64_t c = 0; c < g.ncols; c++) {
                buf_puts(out, " |");
                for (int w = 0; w < L->epl; w++) {
                    int64_t e = at(&g, b, c, r, w);
                    TlBuf t;
                    buf_init(&t);
                    if (e >= 0)
                        index_text(&t, L, e);
                    else
                        buf_putc(&t, '.');
                    buf_printf(out, " %*s", iw, t.s);
                    buf_free(&t);
                }
                buf_printf(out, "%*s", cw - (L->epl * (iw + 1) - 1), "");
            }
            buf_putc(out, '\n');
        }
        if (rows < g.rows)
            buf_printf(out, "%*s (%lld more long words)\n", aw, "...",
                       (long long)(g.rows - rows));
        buf_putc(out, '\n');
    }
    if (hidden)
        buf_printf(out, "(%lld more blocks hold elements)\n",
                   (long long)hidden);
    trim_lines(out, from);
}

/* ====================================================================
 * SVG
 * ==================================================================== */

enum { CELL_W = 34, CELL_H = 16, GAP = 24, LEFT = 40, TITLE_H = 18 };

void acc_layout_draw_svg(TlBuf *out, const AccLayout *L)
{
    Grid g;
    int64_t used[64], nused = 0;
    int64_t bw, width, height, y;
    const char *lvl;

    grid_init(&g, L);
    lvl = g.level >= 0 ? L->m->level[g.level].name : "DRAM";
    for (int64_t b = 0; b < g.nblocks && nused < 64; b++)
        if (block_used(&g, b))
            used[nused++] = b;
    bw = g.ncols * L->epl * CELL_W;
    width = LEFT + bw + GAP;
    height = GAP + nused * (TITLE_H * 2 + g.rows * CELL_H + GAP);
    buf_printf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" "
               "width=\"%lld\" height=\"%lld\" font-family=\"monospace\" "
               "font-size=\"9\">\n", (long long)width, (long long)height);
    buf_puts(out, "<title>");
    acc_layout_print(out, L);
    buf_puts(out, "</title>\n<rect width=\"100%\" height=\"100%\" "
                  "fill=\"white\"/>\n");
    y = GAP;
    for (int64_t i = 0; i < nused; i++) {
        TlBuf t;
        buf_init(&t);
        block_title(&t, &g, used[i]);
        t.s[t.len - 1] = 0;
        buf_printf(out, "<text x=\"%d\" y=\"%lld\" font-size=\"11\">%s"
                   "</text>\n", LEFT, (long long)(y + 12), t.s);
        buf_free(&t);
        y += TITLE_H;
        for (int64_t c = 0; c < g.ncols; c++)
            buf_printf(out, "<text x=\"%lld\" y=\"%lld\">%s %lld</text>\n",
                       (long long)(LEFT + c * L->epl * CELL_W + 2),
                       (long long)(y + 12), lvl, (long long)c);
        y += TITLE_H;
        for (int64_t r = 0; r < g.rows; r++) {
            buf_printf(out, "<text x=\"4\" y=\"%lld\">%lld</text>\n",
                       (long long)(y + r * CELL_H + 11),
                       (long long)(L->base + r));
            for (int64_t c = 0; c < g.ncols; c++)
                for (int w = 0; w < L->epl; w++) {
                    int64_t e = at(&g, used[i], c, r, w);
                    int64_t x = LEFT + (c * L->epl + w) * CELL_W;
                    int64_t idx[ACC_LAYOUT_MAX_RANK];
                    TlBuf t2;
                    if (e < 0) {
                        buf_printf(out, "<rect x=\"%lld\" y=\"%lld\" "
                                   "width=\"%d\" height=\"%d\" "
                                   "fill=\"#eee\" stroke=\"#ccc\"/>\n",
                                   (long long)x, (long long)(y + r * CELL_H),
                                   CELL_W, CELL_H);
                        continue;
                    }
                    /* The colour follows the first axis, so rows (or
                     * whatever axis 0 is) stand out. */
                    acc_layout_unflatten(L, e, idx);
                    buf_printf(out, "<rect x=\"%lld\" y=\"%lld\" "
                               "width=\"%d\" height=\"%d\" "
                               "fill=\"hsl(%lld,70%%,80%%)\" "
                               "stroke=\"#888\"/>\n",
                               (long long)x, (long long)(y + r * CELL_H),
                               CELL_W, CELL_H,
                               (long long)(L->rank ? idx[0] * 47 % 360 : 0));
                    buf_init(&t2);
                    index_text(&t2, L, e);
                    buf_printf(out, "<text x=\"%lld\" y=\"%lld\">%s</text>\n",
                               (long long)(x + 2),
                               (long long)(y + r * CELL_H + 11), t2.s);
                    buf_free(&t2);
                }
        }
        y += g.rows * CELL_H + GAP;
    }
    buf_puts(out, "</svg>\n");
}
