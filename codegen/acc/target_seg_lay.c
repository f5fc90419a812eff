/*
 * target_seg_lay.c - which DRAM image each tensor of a program of
 * segments (target_seg.c) is kept in, so that the conversions between
 * segments are only those the layouts make necessary.
 *
 * Chosen (the default): an elementwise segment computes in the image
 * its first intermediate input was stored in by its producer (a
 * matmul's tiles, a pipeline's rows: AccCgProgram.omap), which the
 * elementwise route follows (AccCgCall.order, cg_elem_lay.c), so that
 * input, and every other read at each element's own position in that
 * image, is read where it lies and nothing converts it; the output
 * stays in that image for the next consumer.  This is what the layout
 * planner does with an elementwise stage (it costs nothing to compute
 * in any layout, so the plan gives it its producer's and converts
 * nothing there: docs/accel-layouts.md, "Whole programs").
 *
 * Naive (TDSL_ACC_LAYOUTS=naive, for bench/plan_layouts.sh's
 * comparison): one fixed layout for every intermediate, row-major in
 * DRAM, which is the elementwise route's own (blocks of the row-major
 * order over all PEs, 4 long words a PE a group): a route that writes
 * its output in another image has it converted to row-major after it,
 * and a route that reads its own image of an input has it converted
 * from row-major.  The kernel's inputs are laid out alike in both (by
 * the host in their first consumer's image, not counted).
 */
#include "codegen/acc/target_int.h"

#include <stdlib.h>
#include <string.h>

int acc_seg_naive(void)
{
    const char *e = getenv("TDSL_ACC_LAYOUTS");

    return e && !strcmp(e, "naive");
}

int64_t *acc_seg_order(const int64_t *omap, int64_t n, int64_t nimage)
{
    int64_t *order = tl_xmalloc((size_t)nimage * sizeof *order + 1);

    for (int64_t q = 0; q < nimage; q++)
        order[q] = -1;
    for (int64_t e = n - 1; e >= 0; e--)
        if (omap[e] >= 0 && omap[e] < nimage)
            order[omap[e]] = e;
    return order;
}

int acc_seg_in_place(const AccCgIn *ci, const int64_t *omap, int64_t n,
                     int64_t nimage)
{
    if (!ci->map || !omap)
        return 0;
    for (int64_t q = 0; q < ci->nmap; q++) {
        int64_t e = ci->map[q];
        if (e == -1)
            continue;
        if (e < 0 || e >= n || q >= nimage || omap[e] != q)
            return 0;
    }
    return 1;
}
