# A broadcast on the tiny machine (16 PEs): A goes from DRAM to both L1
# BMs, then to every PE; each PE adds its global index and the rows
# come back to DRAM.  168 cycles (tests/cli/acc_sim.sh has the sums).
#   tdsl sim examples/accel/broadcast.s --in A=a.npy --out C=c.npy --stats
.machine tiny
.input A f32[8] d[0]
.output C f32[16,8] d[16]
dma.bcast.t1 d[0:4] -> lb[0]
wait t1
bcast.L1 lb[0] -> lm0[0+]
mov.f32 $gpe -> r[0+]
add.f32 lm0[0+], r[0+] -> lm0[0+]
nop                                 # LM: readable two steps after
gather.L1 lm0[0+] -> lb[16]
nop
dma.gather.t2 lb[16:48] -> d[16]
wait t2
