/*
 * acc_machine.c - machine configurations as data: the built-in tiny,
 * test and mn2 machines of ACCELERATOR.md 3.1, machine files, and the
 * questions the rest of the backend asks of a machine (PE counts, BM
 * levels, peaks, the hash a binary records).
 *
 * The figures are the document's: MN-Core 2 rates where it gives them,
 * stated assumptions elsewhere (DRAM bandwidth and latency).  Rates
 * are per node, so the small machines have the same per-PE bandwidth
 * and compute as mn2, only fewer nodes.
 */
#include "codegen/acc/acc.h"

#include <ctype.h>
#include <stddef.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The lowest BM level moves data between a BM and the PEs (MN-Core's
 * L1BM tables); every BM level above it between BMs (the L2BM tables).
 * Order: bcast, dist, red, gather; BM side then child side. */
static const double l1_bm[ACC_XK__COUNT] = {4, 64, 4, 64};
static const double l1_child[ACC_XK__COUNT] = {1, 1, 1, 1};
static const double l2_bm[ACC_XK__COUNT] = {16, 64, 16, 64};
static const double l2_child[ACC_XK__COUNT] = {16, 8, 16, 8};
enum { L1_LAT = 2, L2_LAT = 3 };

static void set_rates(AccLevel *l, int lowest)
{
    memcpy(l->bw_bm, lowest ? l1_bm : l2_bm, sizeof l->bw_bm);
    memcpy(l->bw_child, lowest ? l1_child : l2_child, sizeof l->bw_child);
    l->lat_steps = lowest ? L1_LAT : L2_LAT;
}

/* What every machine shares unless it says otherwise. */
static void set_common(AccMachine *m)
{
    m->t_words = 8;
    m->mask_entries = 16;
    m->step_cycles = 4;
    m->dram_bw = 32;
    m->dma_latency = 64;
    m->dma_issue_steps = 4;
    m->clock_hz = 750e6;
    m->lat_grf = 1;
    m->lat_lm = 2;
    m->lat_mreg = 1;
    m->lat_mau_lm = 2;
    m->lat_long = 4;
    m->long_op_steps = 4;
    m->mau_m_f64 = 2, m->mau_n_f64 = 4;
    m->mau_m_f32 = 8, m->mau_n_f32 = 4;
    m->mau_m_f16 = 16, m->mau_n_f16 = 16;
}

static void add_level(AccMachine *m, const char *name, int fanout,
                      int64_t bm)
{
    AccLevel *l = &m->level[m->nlevels++];
    memset(l, 0, sizeof *l);
    l->name = name;
    l->fanout = fanout;
    l->bm_words = bm;
}

/* Rates for every BM level whose rates were not given. */
static void default_rates(AccMachine *m)
{
    int lowest = 1;
    for (int i = m->nlevels - 1; i >= 0; i--) {
        AccLevel *l = &m->level[i];
        if (l->bm_words <= 0)
            continue;
        if (l->bw_bm[0] == 0)
            set_rates(l, lowest);
        lowest = 0;
    }
}

static AccMachine builtin[3];
static int builtin_ready;

static void make_builtins(void)
{
    AccMachine *m = &builtin[0];
    m->name = "tiny";
    add_level(m, "L1B", 2, 256);
    add_level(m, "MAB", 2, 0);
    add_level(m, "PE", 4, 0);
    m->dram_words = (int64_t)1 << 16;
    m->lm_words = 256;
    m->grf_words = 64;
    m->dram_channels = 1;

    m = &builtin[1];
    m->name = "test";
    add_level(m, "L2B", 2, 2048);
    add_level(m, "L1B", 2, 2048);
    add_level(m, "MAB", 4, 0);
    add_level(m, "PE", 4, 0);
    m->dram_words = (int64_t)1 << 24;
    m->lm_words = 2048;
    m->grf_words = 256;
    m->dram_channels = 1;

    m = &builtin[2];
    m->name = "mn2";
    add_level(m, "L2B", 8, 32768);
    add_level(m, "L1B", 8, 8192);
    add_level(m, "MAB", 16, 0);
    add_level(m, "PE", 4, 0);
    m->dram_words = (int64_t)1 << 31;
    m->lm_words = 2048;
    m->grf_words = 256;
    m->dram_channels = 4;

    for (int i = 0; i < 3; i++) {
        set_common(&builtin[i]);
        default_rates(&builtin[i]);
    }
    builtin_ready = 1;
}

const AccMachine *acc_machine_builtin(const char *name)
{
    if (!builtin_ready)
        make_builtins();
    for (int i = 0; i < 3; i++)
        if (strcmp(builtin[i].name, name) == 0)
            return &builtin[i];
    return NULL;
}

int64_t acc_machine_pes(const AccMachine *m)
{
    return acc_level_nodes(m, m->nlevels - 1);
}

int64_t acc_level_nodes(const AccMachine *m, int i)
{
    int64_t n = 1;
    for (int j = 0; j <= i && j < m->nlevels; j++)
        n *= m->level[j].fanout;
    return n;
}

int64_t acc_level_span(const AccMachine *m, int i)
{
    int64_t n = 1;
    for (int j = i + 1; j < m->nlevels; j++)
        n *= m->level[j].fanout;
    return n;
}

int acc_bm_levels(const AccMachine *m)
{
    int n = 0;
    for (int i = 0; i < m->nlevels; i++)
        n += m->level[i].bm_words > 0;
    return n;
}

int acc_bm_level(const AccMachine *m, int k)
{
    int seen = 0;
    for (int i = m->nlevels - 1; i >= 0; i--)
        if (m->level[i].bm_words > 0 && ++seen == k)
            return i;
    return -1;
}

/* "L" followed by decimal digits, no leading zero. */
static int bm_level_name(const char *name)
{
    if (name[0] != 'L' || name[1] < '1' || name[1] > '9')
        return 0;
    int k = 0;
    for (const char *p = name + 1; *p; p++) {
        if (!isdigit((unsigned char)*p) || k > 1000)
            return 0;
        k = k * 10 + (*p - '0');
    }
    return k;
}

int acc_level_index(const AccMachine *m, const char *name)
{
    for (int i = 0; i < m->nlevels; i++)
        if (strcmp(m->level[i].name, name) == 0)
            return i;
    int k = bm_level_name(name);
    return k ? acc_bm_level(m, k) : -1;
}

double acc_peak_flops(const AccMachine *m, TlDType dt)
{
    int64_t groups = m->nlevels >= 2 ? acc_level_nodes(m, m->nlevels - 2)
                                     : 1;
    int mn;
    switch (dt) {
    case DT_F16:
    case DT_BF16: mn = m->mau_m_f16 * m->mau_n_f16; break;
    case DT_F32: mn = m->mau_m_f32 * m->mau_n_f32; break;
    case DT_F64: mn = m->mau_m_f64 * m->mau_n_f64; break;
    default: return 0;
    }
    return (double)groups * 2.0 * mn;
}

/* --- machine files ---------------------------------------------------- */

/* The scalar keys: name, offset, kind (0 int, 1 int64, 2 double), and
 * the allowed range. */
typedef struct Key {
    const char *name;
    size_t off;
    int kind;
    double lo, hi;
} Key;

#define KI(f, lo, hi) {#f, offsetof(AccMachine, f), 0, lo, hi}
#define KL(f, lo, hi) {#f, offsetof(AccMachine, f), 1, lo, hi}
#define KD(f, lo, hi) {#f, offsetof(AccMachine, f), 2, lo, hi}
static const Key keys[] = {
    KL(dram_words, 64, 4294967296.0),
    KL(lm_words, 16, 1 << 20),
    KL(grf_words, 4, 1 << 20),
    KI(t_words, 8, 8),
    KI(mask_entries, 2, 16),
    KI(step_cycles, 4, 4),
    KI(dram_channels, 1, 1024),
    KD(dram_bw, 0.001, 1e6),
    KI(dma_latency, 0, 1 << 20),
    KI(dma_issue_steps, 1, 1024),
    KD(clock_hz, 1, 1e12),
    KI(lat_grf, 1, 64),
    KI(lat_lm, 1, 64),
    KI(lat_mreg, 1, 64),
    KI(lat_mau_lm, 1, 64),
    KI(lat_long, 1, 64),
    KI(long_op_steps, 1, 64),
};
#undef KI
#undef KL
#undef KD

static const char *const xk_names[ACC_XK__COUNT] = {"bcast", "dist", "red",
                                                    "gather"};

typedef struct Loader {
    TlSession *s;
    const char *path;
    int line;
    TlBuf *err;
    AccMachine *m;
    int levels_given;   /* a `level` line replaced the base's levels */
    int nkeys;          /* keys read so far */
} Loader;

static int fail(Loader *ld, const char *fmt, ...) TL_PRINTF(2, 3);
static int fail(Loader *ld, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_printf(ld->err, "%s:%d: ", ld->path, ld->line);
    buf_vprintf(ld->err, fmt, ap);
    va_end(ap);
    return -1;
}

/* Parses a number filling the whole of text; 0 on success. */
static int number(const char *text, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(text, &end);
    return end == text || *end || errno ? -1 : 0;
}

/* Splits value into at most n whitespace-separated fields. */
static int split(char *value, char **f, int n)
{
    int k = 0;
    for (char *p = strtok(value, " \t"); p; p = strtok(NULL, " \t")) {
        if (k == n)
            return n + 1;
        f[k++] = p;
    }
    return k;
}

static int valid_name(const char *n)
{
    if (!isalpha((unsigned char)*n) || bm_level_name(n))
        return 0;
    for (; *n; n++)
        if (!isalnum((unsigned char)*n) && *n != '_')
            return 0;
    return 1;
}

static int key_level(Loader *ld, char *value)
{
    AccMachine *m = ld->m;
    char *f[4];
    int n = split(value, f, 3);
    double fan, bm = 0;
    if (n < 2 || n > 3)
        return fail(ld, "'level' wants NAME FANOUT [BM_WORDS]");
    if (!valid_name(f[0]))
        return fail(ld, "bad level name '%s': letters, digits and _, "
                    "not L1, L2, ...", f[0]);
    if (number(f[1], &fan) || fan != (int)fan || fan < 1 || fan > 4096)
        return fail(ld, "bad fan-out '%s': an integer 1..4096", f[1]);
    if (n == 3 && (number(f[2], &bm) || bm != (int64_t)bm || bm < 0 ||
                   bm > (1 << 24)))
        return fail(ld, "bad BM size '%s': long words, 0..16777216",
                    f[2]);
    if (!ld->levels_given)
        m->nlevels = 0;
    ld->levels_given = 1;
    if (m->nlevels == ACC_MAX_LEVELS)
        return fail(ld, "too many levels (at most 8)");
    for (int i = 0; i < m->nlevels; i++)
        if (strcmp(m->level[i].name, f[0]) == 0)
            return fail(ld, "level '%s' given twice", f[0]);
    add_level(m, arena_strdup(&ld->s->arena, f[0]), (int)fan, (int64_t)bm);
    return 0;
}

static int key_level_rate(Loader *ld, const char *key, char *value)
{
    AccMachine *m = ld->m;
    const char *dot = strchr(key, '.');
    char lname[64];
    size_t ln = (size_t)(dot - key);
    if (ln >= sizeof lname)
        return fail(ld, "unknown key '%s'", key);
    memcpy(lname, key, ln);
    lname[ln] = 0;
    int li = -1;
    for (int i = 0; i < m->nlevels; i++)
        if (strcmp(m->level[i].name, lname) == 0)
            li = i;
    if (li < 0)
        return fail(ld, "no level '%s' (give its 'level' line first)",
                    lname);
    AccLevel *l = &m->level[li];
    const char *what = dot + 1;
    if (l->bm_words <= 0)
        return fail(ld, "level '%s' has no BM, so no rates", lname);
    int lowest = 1;
    for (int i = li + 1; i < m->nlevels; i++)
        if (m->level[i].bm_words > 0)
            lowest = 0;
    char *f[3];
    double a, b;
    if (strcmp(what, "latency") == 0) {
        if (split(value, f, 1) != 1 || number(f[0], &a) || a != (int)a ||
            a < 1 || a > 64)
            return fail(ld, "'%s' wants a number of steps 1..64", key);
        if (l->bw_bm[0] == 0)
            set_rates(l, lowest);
        l->lat_steps = (int)a;
        return 0;
    }
    for (int k = 0; k < ACC_XK__COUNT; k++) {
        if (strcmp(what, xk_names[k]) != 0)
            continue;
        if (split(value, f, 2) != 2 || number(f[0], &a) ||
            number(f[1], &b) || a <= 0 || b <= 0 || a > 1e6 || b > 1e6)
            return fail(ld, "'%s' wants two positive rates: BM side and "
                        "child side, long words per cycle", key);
        if (l->bw_bm[0] == 0)
            set_rates(l, lowest);   /* the other kinds keep a default */
        l->bw_bm[k] = a;
        l->bw_child[k] = b;
        return 0;
    }
    return fail(ld, "unknown key '%s' (a level has bcast, dist, red, "
                "gather, latency)", key);
}

static int key_mau(Loader *ld, const char *key, char *value)
{
    AccMachine *m = ld->m;
    int *mp, *np;
    if (strcmp(key, "mau_f64") == 0)
        mp = &m->mau_m_f64, np = &m->mau_n_f64;
    else if (strcmp(key, "mau_f32") == 0)
        mp = &m->mau_m_f32, np = &m->mau_n_f32;
    else
        mp = &m->mau_m_f16, np = &m->mau_n_f16;
    char *f[3];
    double a, b;
    if (split(value, f, 2) != 2 || number(f[0], &a) || number(f[1], &b) ||
        a != (int)a || b != (int)b || a < 1 || b < 1 || a > 64 || b > 64)
        return fail(ld, "'%s' wants ROWS COLUMNS, integers 1..64", key);
    *mp = (int)a;
    *np = (int)b;
    return 0;
}

static int one_key(Loader *ld, char *key, char *value)
{
    AccMachine *m = ld->m;
    if (strcmp(key, "base") == 0) {
        const AccMachine *b = acc_machine_builtin(value);
        if (ld->nkeys > 0)
            return fail(ld, "'base' must come before every other key");
        if (!b)
            return fail(ld, "unknown base machine '%s' (tiny, test, mn2)",
                        value);
        *m = *b;
        return 0;
    }
    if (strcmp(key, "name") == 0) {
        if (!valid_name(value))
            return fail(ld, "bad machine name '%s'", value);
        m->name = arena_strdup(&ld->s->arena, value);
        return 0;
    }
    if (strcmp(key, "level") == 0)
        return key_level(ld, value);
    if (strncmp(key, "mau_", 4) == 0 &&
        (!strcmp(key + 4, "f64") || !strcmp(key + 4, "f32") ||
         !strcmp(key + 4, "f16")))
        return key_mau(ld, key, value);
    if (strchr(key, '.'))
        return key_level_rate(ld, key, value);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const Key *k = &keys[i];
        if (strcmp(k->name, key) != 0)
            continue;
        double v;
        char lo[32], hi[32];
        if (number(value, &v) || v < k->lo || v > k->hi ||
            (k->kind != 2 && v != (double)(int64_t)v)) {
            snprintf(lo, sizeof lo, "%.15g", k->lo);
            snprintf(hi, sizeof hi, "%.15g", k->hi);
            buf_printf(ld->err, "%s:%d: '%s' must be %s in %s..%s, not "
                       "'%s'", ld->path, ld->line, key,
                       k->kind == 2 ? "a number" : "an integer", lo, hi,
                       value);
            return -1;
        }
        char *p = (char *)m + k->off;
        if (k->kind == 0)
            *(int *)p = (int)v;
        else if (k->kind == 1)
            *(int64_t *)p = (int64_t)v;
        else
            *(double *)p = v;
        return 0;
    }
    return fail(ld, "unknown key '%s'", key);
}

static char *trim(char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    char *e = p + strlen(p);
    while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
        *--e = 0;
    return p;
}

/* Whole-machine rules once every line is read. */
static int validate(Loader *ld)
{
    AccMachine *m = ld->m;
    const char *why = NULL;
    int64_t pes = 1;
    for (int i = 0; i < m->nlevels; i++) {
        pes *= m->level[i].fanout;
        if (pes > (1 << 20))
            why = "more than 1048576 PEs";
    }
    if (m->nlevels < 2)
        why = "a machine needs at least two levels, the last one 'PE'";
    else if (strcmp(m->level[m->nlevels - 1].name, "PE") != 0)
        why = "the last level must be 'PE'";
    else if (m->level[m->nlevels - 1].bm_words ||
             m->level[m->nlevels - 2].bm_words)
        why = "the PE level and the level above it (the matrix-unit "
              "group) have no BM";
    else if (acc_bm_levels(m) == 0)
        why = "at least one level needs a BM (DMA goes to the top one)";
    if (why) {
        buf_printf(ld->err, "%s: %s", ld->path, why);
        return -1;
    }
    default_rates(m);
    return 0;
}

AccMachine *acc_machine_load(TlSession *s, const char *path, TlBuf *err)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        buf_printf(err, "cannot read '%s': %s", path, strerror(errno));
        return NULL;
    }
    AccMachine *m = arena_alloc(&s->arena, sizeof *m);
    *m = *acc_machine_builtin("test");
    m->name = "custom";
    Loader ld = {s, path, 0, err, m, 0, 0};
    char line[512];
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        ld.line++;
        if (!strchr(line, '\n') && !feof(f)) {
            rc = fail(&ld, "line too long (at most 510 characters)");
            break;
        }
        line[strcspn(line, "\n#")] = 0;
        char *p = trim(line);
        if (!*p)
            continue;
        char *eq = strchr(p, '=');
        if (!eq) {
            rc = fail(&ld, "expected 'key = value', not '%s'", p);
            break;
        }
        *eq = 0;
        char *key = trim(p), *value = trim(eq + 1);
        if (!*value) {
            rc = fail(&ld, "'%s' has no value", key);
            break;
        }
        rc = one_key(&ld, key, value);
        ld.nkeys++;
    }
    fclose(f);
    if (rc == 0 && validate(&ld) == 0)
        return m;
    return NULL;
}

const AccMachine *acc_machine_get(TlSession *s, const char *spec,
                                  TlBuf *err)
{
    const AccMachine *m = acc_machine_builtin(spec);
    if (m)
        return m;
    if (!strchr(spec, '/') && !strchr(spec, '.')) {
        buf_printf(err, "unknown machine '%s': tiny, test, mn2 or a "
                   "machine file", spec);
        return NULL;
    }
    return acc_machine_load(s, spec, err);
}

void acc_machine_print(TlBuf *out, const AccMachine *m)
{
    buf_printf(out, "name = %s\n", m->name);
    for (int i = 0; i < m->nlevels; i++) {
        const AccLevel *l = &m->level[i];
        buf_printf(out, "level = %s %d %lld\n", l->name, l->fanout,
                   (long long)l->bm_words);
    }
    for (int i = 0; i < m->nlevels; i++) {
        const AccLevel *l = &m->level[i];
        if (l->bm_words <= 0)
            continue;
        for (int k = 0; k < ACC_XK__COUNT; k++)
            buf_printf(out, "%s.%s = %.17g %.17g\n", l->name, xk_names[k],
                       l->bw_bm[k], l->bw_child[k]);
        buf_printf(out, "%s.latency = %d\n", l->name, l->lat_steps);
    }
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const Key *k = &keys[i];
        const char *p = (const char *)m + k->off;
        if (k->kind == 0)
            buf_printf(out, "%s = %d\n", k->name, *(const int *)p);
        else if (k->kind == 1)
            buf_printf(out, "%s = %lld\n", k->name,
                       (long long)*(const int64_t *)p);
        else
            buf_printf(out, "%s = %.17g\n", k->name, *(const double *)p);
    }
    buf_printf(out, "mau_f64 = %d %d\nmau_f32 = %d %d\nmau_f16 = %d %d\n",
               m->mau_m_f64, m->mau_n_f64, m->mau_m_f32, m->mau_n_f32,
               m->mau_m_f16, m->mau_n_f16);
}

uint64_t acc_machine_hash(const AccMachine *m)
{
    TlBuf b;
    buf_init(&b);
    acc_machine_print(&b, m);
    /* FNV-1a over everything after the name line. */
    const char *p = strchr(b.s, '\n');
    uint64_t h = 1469598103934665603ull;
    for (p = p ? p + 1 : b.s; *p; p++) {
        h ^= (unsigned char)*p;
        h *= 1099511628211ull;
    }
    buf_free(&b);
    return h;
}
