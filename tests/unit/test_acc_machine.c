/*
 * test_acc_machine.c - the machine configurations (codegen/acc/
 * acc_machine.c): the built-ins' shapes from ACCELERATOR.md 3.1, level
 * lookups by name and by "Lk", printing and reloading a machine file,
 * a five-level machine, and every error of the file format.
 */
#include "codegen/acc/acc.h"

#include <stdio.h>
#include <string.h>

#include "check.h"

static TlSession *sess;

/* Writes TEXT to a temporary file and loads it; the error (if any) in
 * err. */
static AccMachine *load_text(const char *text, TlBuf *err)
{
    char path[] = "/tmp/tdsl_acc_machine_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    err->len = 0;
    if (err->s)
        err->s[0] = 0;
    AccMachine *m = acc_machine_load(sess, path, err);
    remove(path);
    return m;
}

/* The error message without the "path:" prefix. */
static const char *load_error(const char *text)
{
    static TlBuf err;
    static char msg[512];
    AccMachine *m = load_text(text, &err);
    CHECK(m == NULL);
    /* Temporary paths hold no ':'. */
    const char *p = err.s ? strchr(err.s, ':') : NULL;
    if (p && p[1] == ' ')
        p++;
    snprintf(msg, sizeof msg, "%s", p ? p + 1 : "(none)");
    return msg;
}

static void builtins(void)
{
    const AccMachine *t = acc_machine_builtin("tiny");
    const AccMachine *s = acc_machine_builtin("test");
    const AccMachine *m = acc_machine_builtin("mn2");
    CHECK(t && s && m);
    CHECK(acc_machine_builtin("big") == NULL);
    CHECK(acc_machine_pes(t) == 16);
    CHECK(acc_machine_pes(s) == 64);
    CHECK(acc_machine_pes(m) == 4096);
    CHECK(t->nlevels == 3 && s->nlevels == 4 && m->nlevels == 4);
    CHECK(acc_level_index(s, "L2B") == 0);
    CHECK(acc_level_index(s, "PE") == 3);
    CHECK(acc_level_index(s, "L1") == 1);
    CHECK(acc_level_index(s, "L2") == 0);
    CHECK(acc_level_index(s, "L3") == -1);
    CHECK(acc_level_index(t, "L1") == 0);
    CHECK(acc_level_index(t, "L2") == -1);
    CHECK(acc_level_index(t, "L2B") == -1);
    CHECK(acc_bm_levels(t) == 1 && acc_bm_levels(m) == 2);
    CHECK(acc_level_nodes(s, 2) == 16);    /* MABs */
    CHECK(acc_level_span(s, 1) == 16);     /* PEs per L1B */
    CHECK(s->level[1].bm_words == 2048 && m->level[0].bm_words == 32768);
    /* Lowest BM level: MN-Core's L1BM rates; above: L2BM rates. */
    CHECK(s->level[1].bw_child[ACC_XK_BCAST] == 1);
    CHECK(s->level[0].bw_bm[ACC_XK_DIST] == 64);
    CHECK(s->level[0].bw_child[ACC_XK_DIST] == 8);
    CHECK(s->level[0].lat_steps == 3 && s->level[1].lat_steps == 2);
    CHECK(t->level[0].lat_steps == 2);
    /* f16 peak on mn2: 512 FLOP per cycle per MAB, 1024 MABs. */
    CHECK(acc_peak_flops(m, DT_F16) == 512.0 * 1024);
    CHECK(acc_peak_flops(s, DT_F32) == 64.0 * 16);
    CHECK(acc_machine_hash(s) != acc_machine_hash(m));
}

static void roundtrip(void)
{
    const char *names[] = {"tiny", "test", "mn2"};
    for (int i = 0; i < 3; i++) {
        const AccMachine *m = acc_machine_builtin(names[i]);
        TlBuf text, err, again;
        buf_init(&text);
        buf_init(&err);
        buf_init(&again);
        acc_machine_print(&text, m);
        AccMachine *r = load_text(text.s, &err);
        CHECK(r != NULL);
        if (r) {
            acc_machine_print(&again, r);
            CHECK_STR(again.s, text.s);
            CHECK(acc_machine_hash(r) == acc_machine_hash(m));
        }
        buf_free(&text);
        buf_free(&err);
        buf_free(&again);
    }
}

static void five_levels(void)
{
    TlBuf err;
    buf_init(&err);
    AccMachine *m = load_text(
        "# a deeper tree\n"
        "base = test\n"
        "name = deep\n"
        "level = L3B 2 4096\n"
        "level = L2B 2 1024\n"
        "level = L1B 2 512\n"
        "level = MAB 2\n"
        "level = PE 4\n"
        "L3B.dist = 32 4   # BM side, child side\n"
        "L1B.latency = 5\n"
        "dram_bw = 8\n", &err);
    CHECK(m != NULL);
    if (!m) {
        fprintf(stderr, "%s\n", err.s);
        buf_free(&err);
        return;
    }
    CHECK_STR(m->name, "deep");
    CHECK(m->nlevels == 5 && acc_machine_pes(m) == 64);
    CHECK(acc_bm_levels(m) == 3);
    CHECK(acc_level_index(m, "L3") == 0);
    CHECK(acc_level_index(m, "L1") == 2);
    CHECK(m->level[0].bw_bm[ACC_XK_DIST] == 32);
    CHECK(m->level[0].bw_child[ACC_XK_DIST] == 4);
    CHECK(m->level[0].bw_bm[ACC_XK_BCAST] == 16);   /* L2 default */
    CHECK(m->level[2].lat_steps == 5);
    CHECK(m->level[2].bw_child[ACC_XK_BCAST] == 1);  /* L1 default */
    CHECK(m->dram_bw == 8);
    buf_free(&err);
}

static void errors(void)
{
    CHECK_STR(load_error("lm_words = 3\n"),
              "1: 'lm_words' must be an integer in 16..1048576, not '3'");
    CHECK_STR(load_error("name = a\nbase = tiny\n"),
              "2: 'base' must come before every other key");
    CHECK_STR(load_error("base = huge\n"),
              "1: unknown base machine 'huge' (tiny, test, mn2)");
    CHECK_STR(load_error("frobs = 2\n"), "1: unknown key 'frobs'");
    CHECK_STR(load_error("lm_words 3\n"),
              "1: expected 'key = value', not 'lm_words 3'");
    CHECK_STR(load_error("lm_words =\n"), "1: 'lm_words' has no value");
    CHECK_STR(load_error("level = PE\n"),
              "1: 'level' wants NAME FANOUT [BM_WORDS]");
    CHECK_STR(load_error("level = L2 4\n"),
              "1: bad level name 'L2': letters, digits and _, "
              "not L1, L2, ...");
    CHECK_STR(load_error("level = X 0\n"),
              "1: bad fan-out '0': an integer 1..4096");
    CHECK_STR(load_error("level = X 2 -1\n"),
              "1: bad BM size '-1': long words, 0..16777216");
    CHECK_STR(load_error("level = X 2 64\nlevel = X 2\n"),
              "2: level 'X' given twice");
    CHECK_STR(load_error("level = A 2 64\nlevel = B 2\nlevel = C 2\n"
                         "level = D 2\nlevel = E 2\nlevel = F 2\n"
                         "level = G 2\nlevel = H 2\nlevel = I 2\n"),
              "9: too many levels (at most 8)");
    CHECK_STR(load_error("Q.dist = 1 1\n"),
              "1: no level 'Q' (give its 'level' line first)");
    CHECK_STR(load_error("MAB.dist = 1 1\n"),
              "1: level 'MAB' has no BM, so no rates");
    CHECK_STR(load_error("L1B.dist = 1\n"),
              "1: 'L1B.dist' wants two positive rates: BM side and child "
              "side, long words per cycle");
    CHECK_STR(load_error("L1B.latency = 0\n"),
              "1: 'L1B.latency' wants a number of steps 1..64");
    CHECK_STR(load_error("L1B.speed = 2\n"),
              "1: unknown key 'L1B.speed' (a level has bcast, dist, red, "
              "gather, latency)");
    CHECK_STR(load_error("mau_f16 = 16\n"),
              "1: 'mau_f16' wants ROWS COLUMNS, integers 1..64");
    CHECK_STR(load_error("name = 9x\n"), "1: bad machine name '9x'");
    CHECK_STR(load_error("level = X 4 64\nlevel = Y 4\n"),
              "the last level must be 'PE'");
    CHECK_STR(load_error("level = PE 4\n"),
              "a machine needs at least two levels, the last one 'PE'");
    CHECK_STR(load_error("level = A 4 64\nlevel = PE 4\n"),
              "the PE level and the level above it (the matrix-unit "
              "group) have no BM");
    CHECK_STR(load_error("level = A 4\nlevel = B 4\nlevel = PE 4\n"),
              "at least one level needs a BM (DMA goes to the top one)");
    CHECK_STR(load_error("level = A 4096 64\nlevel = B 4096\n"
                         "level = PE 4\n"), "more than 1048576 PEs");
    TlBuf err;
    buf_init(&err);
    CHECK(acc_machine_get(sess, "nosuch", &err) == NULL);
    CHECK_STR(err.s, "unknown machine 'nosuch': tiny, test, mn2 or a "
              "machine file");
    buf_free(&err);
}

int main(void)
{
    sess = tl_session_new();
    builtins();
    roundtrip();
    five_levels();
    errors();
    tl_session_free(sess);
    return check_done();
}
