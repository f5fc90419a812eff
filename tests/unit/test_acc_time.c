/*
 * test_acc_time.c - acc_time_program (codegen/acc/acc_time.c), the
 * layout planner's timing of an emitted program without running it,
 * against the simulator on the same program: cycles, steps, bundles,
 * stalls, each slot's busy steps and the DRAM long words must be the
 * simulator's exactly.  The programs: every op kind once (test), a
 * `.rep` stream kept compressed (tiny), DMA ops of every kind over the
 * channels of mn2 with waits between them and transfers that hold
 * their slot for several steps, and a halt before the end; and mn2's
 * DMA program again on a machine file whose DRAM moves 1.5 long words
 * a cycle (the timer once divided by the bandwidth truncated to a
 * whole number: 1, and 0 below 1).
 */
#include "codegen/acc/acc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static const char *const progs[] = {
    /* Every op kind, as test_acc_sim.c's round trip writes them. */
    ".machine test\n"
    "add.i32 $pe, #-7 -> r[0] ; add.f64 lm0[0+], lm0[0+] -> s[0+]\n"
    "max.f32 lm0[0,2,4,6], #1.5 -> r[8] ; fma.f16 r[8], r[8], aluf -> s[8]\n"
    "and.i32 r[0], r[2] -> r[4] ; mfma.f32 x, lm0[8+], mauf -> lm1[16+]\n"
    "or.i32 r[0], r[2] -> r[4] ; mmul.f16 y[0], lm0[0+] -> s[16+].dd\n"
    "xor.i16 r[0], r[2] -> r[4] ; mwrite.f16 lm0[0+] -> y[4]\n"
    "shl.i32 r[0], #3 -> r[4] ; mread.f32 x[2] -> lm1[0+]\n"
    "rsqrt.f32 r[0] -> r[4]\nrecip.f32 r[0] -> r[6]\n"
    "exp.f32 r[0] -> r[4]\nlog.bf16 r[0] -> r[4]\n"
    "mul.f64 r[0], r[0] -> r[4]\n"
    "cmplt.f32 $sub, r[2] -> m1\nsel.f32 m1, r[0], r[2] -> r[4]\n"
    "msl r[0] -> r[4]\nmsr lm0[0] -> r[6]\n"
    "bcast.L1 lb[0] -> r[0+] ; bcast.L2 lc[0:64] -> lb[0]\n"
    "dist.L1 lb[0] -> r[0+].dd ; dist.L2 lc[0:64] -> lb[0]\n"
    "mbcast.L1 lb[0] -> r[0+]\n"
    "gather.L1 r[0+] -> lb[0] ; gather.L2 lb[0:16] -> lc[0]\n"
    "ucast.L1@3 r[0+] -> lb[0] ; ucast.L2@1 lb[0:16] -> lc[0]\n"
    "redadd.L1.f32 r[0+] -> lb[0] ; redmax.L2.i32 lb[0:16] -> lc[0]\n"
    "dma.ld.t1@1 d[0:16] -> lc[0]\n"
    "dma.st.t2@0 lc[0:16] -> d[0]\n"
    "dma.bcast.t3 d[0:16] -> lc[0]\n"
    "dma.dist.t4 d[0:16] -> lc[0]\n"
    "dma.gather.t5 lc[0:16] -> d[0]\n"
    "dma.redadd.f32.t6 lc[0:16] -> d[0]\n"
    "nop/7 ; mov r[0] -> r[2]\n"
    "wait t6\n"
    "noforward ; add.i32 r[0], r[2] -> r[4]\n",
    /* A compressed .rep stream. */
    ".machine tiny\n"
    "mov.i32 $gpe -> r[0+]\n"
    ".rep 6\n"
    "  add.i32 r[0+], #3 -> lm0[8*%i+]\n"
    "  fma.f32 r[8+], r[8+], r[8+] -> lm1[8*%i+] ; nop/2\n"
    "  gather.L1 lm0[8*%i+] -> lb[32*%i]\n"
    ".endrep\n"
    ".rep 3 j\n"
    "  .rep 2\n"
    "    add.i32 r[0+], #1 -> r[16+]\n"
    "    mov r[16+] -> lm0[100+8*%j]\n"
    "  .endrep\n"
    ".endrep\n"
    "nop/3\n",
    /* DMA over mn2's channels: runs of each top node, broadcasts (one
     * to a node set: channels 0 and 3 only), distributions, waits on
     * some tags only; long transfers; a halt before bundles that must
     * not count. */
    ".machine mn2\n"
    ".rep 8 i\n"
    "  dma.ld.t0@%i d[0:512] -> lc[0]\n"
    ".endrep\n"
    "dma.bcast.t1 d[4096:4608] -> lc[512]\n"
    "dma.dist.t2 d[8192:12288] -> lc[1024]\n"
    "dma.bcast.t5@{0,1,6} d[4096:4608] -> lc[8192]\n"
    "wait t0\n"
    "dist.L2 lc[0:2048] -> lb[0]\n"
    "dist.L2 lc[0:2048] -> lb[0]\n"
    "bcast.L2 lc[0:64] -> lb[0]\n"
    "gather.L2 lb[0:64] -> lc[4096]\n"
    "gather.L1 lm0[0+] -> lb[0]\n"
    "wait t1\n"
    "dma.st.t3@2 lc[0:256] -> d[65536]\n"
    "dma.st.t3@7 lc[0:256] -> d[66000]\n"
    "dma.gather.t4 lc[0:16] -> d[70000]\n"
    "wait t3\n"
    "wait t5\n"
    "halt\n"
    "nop/100\n",
};

static void same_on(int i, const char *text, const char *machine)
{
    TlSession *s = tl_session_new();
    int f = tl_add_source(s, "t.s", text, strlen(text));
    const AccMachine *m = NULL;
    AccProgram *p;

    if (machine) {
        char path[] = "/tmp/tdsl_acc_time_XXXXXX";
        int fd = mkstemp(path);
        TlBuf err;
        CHECK(fd >= 0);
        if (fd < 0) {
            tl_session_free(s);
            return;
        }
        CHECK(write(fd, machine, strlen(machine)) ==
              (ssize_t)strlen(machine));
        close(fd);
        buf_init(&err);
        m = acc_machine_load(s, path, &err);
        unlink(path);
        CHECK(m != NULL);
        buf_free(&err);
    }
    p = acc_assemble(s, f, m, 1);
    AccTiming t;
    AccSim *sim;
    const AccStats *st;

    CHECK(p != NULL);
    if (!p) {
        tl_session_free(s);
        return;
    }
    acc_time_program(p, &t);
    /* Lenient: reads the program makes too early are counted, not
     * errors; they do not change the timing. */
    sim = acc_sim_new(s, p, 0);
    CHECK(acc_sim_run(sim) == 0);
    st = acc_sim_stats(sim);
    printf("program %d: %lld cycles simulated, %lld timed\n", i,
           (long long)st->cycles, (long long)t.cycles);
    CHECK(t.cycles == st->cycles);
    CHECK(t.steps == st->steps);
    CHECK(t.bundles == st->bundles);
    CHECK(t.stall_steps == st->stall_steps);
    CHECK(t.wait_stalls == st->wait_stalls);
    for (int k = 0; k < ACC_SLOT__MAX; k++)
        CHECK(t.busy[k] == st->busy[k]);
    CHECK(t.dram_words[0] == st->dram_words[0]);
    CHECK(t.dram_words[1] == st->dram_words[1]);
    CHECK(t.cycles > 0);
    acc_sim_free(sim);
    tl_session_free(s);
}

static void same(int i, const char *text)
{
    same_on(i, text, NULL);
}

int main(void)
{
    const char *last = progs[sizeof progs / sizeof *progs - 1];

    for (size_t i = 0; i < sizeof progs / sizeof *progs; i++)
        same((int)i, progs[i]);
    /* The last program without its `.machine`, on mn2 with slow DRAM. */
    same_on(99, strchr(last, '\n') + 1,
            "base = mn2\nname = slow\ndram_bw = 1.5\n");
    return check_done();
}
