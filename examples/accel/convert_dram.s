# A layout conversion through DRAM on the tiny machine: rows of X are
# spread over the PEs; every row moves to the PE 8 places on, which is
# in the other L1B, so it goes up to DRAM and back.  356 cycles.
#   tdsl sim examples/accel/convert_dram.s --in X=x.npy --out Y=y.npy
.machine tiny
.input X f32[16,8] d[0]
.output Y f32[16,8] d[64]
dma.dist.t0 d[0:64] -> lb[0]
wait t0
dist.L1 lb[0] -> lm0[0+]
nop
gather.L1 lm0[0+] -> lb[32]
nop
dma.st.t1@0 lb[32:64] -> d[128]
dma.st.t1@1 lb[32:64] -> d[96]      # waits for the DMA issue interval
wait t1
dma.ld.t2@0 d[96:128] -> lb[64]
dma.ld.t2@1 d[128:160] -> lb[64]
wait t2
dist.L1 lb[64] -> lm0[8+]
nop/2
gather.L1 lm0[8+] -> lb[96]
nop
dma.gather.t3 lb[96:128] -> d[64]
wait t3
