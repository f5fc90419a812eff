# acc_image.sh - tensors declared in a DRAM image (`.input/.output NAME
# TYPE d[ADDR] image N` and its `.image` runs, docs/accel-asm.md): the
# host lays a row-major input out in the image when it loads it and
# reads an output back from its image, outside the program's count.
# A hand-checked program on tiny: A (2x3) transposed with two pad
# positions, copied by DMA to B row-major, which shows the image, and to
# C, declared in an image that reads it back transposed again.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1

cat >img.s <<'S'
.machine tiny
.input A f32[2,3] d[0] image 8
.image A from 0 step 3 count 2 reps 3 rstep 1
.image A pad 7.5 count 2
.output B f32[8] d[16]
.output C f32[3,2] d[16] image 8
.image C from 0 step 2 count 3 reps 2 rstep 1
.image C pad 0 count 2
dma.ld.t0@0 d[0:4] -> lb[0]
wait t0
dma.st.t1@0 lb[0:4] -> d[16]
wait t1
S
/usr/bin/python3 -c "
import numpy as np
np.save('a.npy', (np.arange(6, dtype=np.float32) + 1).reshape(2, 3))" ||
    fail "inputs"
c1=$(cycles img.s --in A=a.npy --out B=b.npy --out C=c.npy --out A=back.npy)
[ -n "$c1" ] || fail "no cycles"
/usr/bin/python3 -c "
import numpy as np, sys
b, c, a = np.load('b.npy'), np.load('c.npy'), np.load('back.npy')
ok = (b.tolist() == [1, 4, 2, 5, 3, 6, 7.5, 7.5] and
      c.tolist() == [[1, 5], [4, 3], [2, 6]] and
      (a == np.load('a.npy')).all())
sys.exit(0 if ok else 1)" ||
    fail "images: B $(python3 -c "import numpy as np; print(np.load('b.npy'))")"
# The same from the binary (version 4 carries the runs), and the text
# round trip keeps them.
"$TDSL" asm img.s -o img.tam || fail "asm"
c2=$(cycles img.tam --in A=a.npy --out B=b2.npy)
[ "$c1" = "$c2" ] && cmp -s b.npy b2.npy || fail "img.tam: $c2 cycles"
asm_round_trip img
grep -q '^\.image A from 0 step 3 count 2 reps 3 rstep 1$' img.dis.s &&
    grep -q '^\.image A pad 7.5 count 2$' img.dis.s ||
    fail "disasm: $(cat img.dis.s)"
# An input declared again with an image of its own: another copy the
# host lays out (a second route's order, target_seg.c); B shows it, the
# row-major copy stays as it was, and the round trip keeps both.
cat >two.s <<'S'
.machine tiny
.input A f32[2,3] d[0]
.input A f32[2,3] d[8] image 8
.image A from 0 step 3 count 2 reps 3 rstep 1
.image A pad 7.5 count 2
.output B f32[24] d[16]
dma.ld.t0@0 d[0:12] -> lb[0]
wait t0
dma.st.t1@0 lb[0:12] -> d[16]
wait t1
S
cycles two.s --in A=a.npy --out B=two.npy >/dev/null || fail "two copies"
/usr/bin/python3 -c "
import numpy as np, sys
b = np.load('two.npy').tolist()
sys.exit(0 if b[:6] == [1, 2, 3, 4, 5, 6] and
         b[16:] == [1, 4, 2, 5, 3, 6, 7.5, 7.5] else 1)" ||
    fail "two copies: $(/usr/bin/python3 -c "import numpy as np; print(np.load('two.npy'))")"
asm_round_trip two
[ "$(grep -c '^\.input A f32\[2,3\] d\[' two.dis.s)" = 2 ] ||
    fail "two copies, disasm: $(cat two.dis.s)"
# An older binary is refused in words.
printf 'TAM\0\2\0\0\0' >old.tam
"$TDSL" sim old.tam 2>err
[ $? = 1 ] || fail "old .tam: exit $?"
grep -q "a .tam file of version 2; this tdsl reads version 4" err ||
    fail "old .tam: $(cat err)"
exit 0
