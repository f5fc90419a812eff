# A sum up two levels on the test machine (64 PEs): over the MABs of
# each L1B, then over the L1Bs of each L2B, PE positions kept apart.
# 100 cycles.   tdsl sim examples/accel/reduce2.s --out S=s.npy --stats
.machine test
.output S f32[2,4,4,2] d[0]
mov.f32 $gpe -> lm0[0+]
nop
redadd.L1.f32 lm0[0+] -> lb[0]
nop
redadd.L2.f32 lb[0:16] -> lc[0]
nop/2                               # L2 BM: readable three steps after
dma.gather.t0 lc[0:16] -> d[0]
wait t0
