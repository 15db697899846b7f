source .device/env.sh
P=./.device/memory_probe
summ() { awk '/ ms / {n++; v[n]=$4} /^own|^ramp/ {print "   " $0} END {printf "   GB/s first 4: %s %s %s %s; last 4: %s %s %s %s (%d kernels)\n", v[1],v[2],v[3],v[4],v[n-3],v[n-2],v[n-1],v[n],n}' "$1"; }
echo "== ramp 1 s busy, then 50 ms gaps"; $P --loop 2 --gap 50 --ramp 1 > $OUT/loop-ramp-gap50.txt; summ $OUT/loop-ramp-gap50.txt
echo "== ramp 1 s busy, then 10 ms gaps"; $P --loop 2 --gap 10 --ramp 1 > $OUT/loop-ramp-gap10.txt; summ $OUT/loop-ramp-gap10.txt
echo "== __GL_ExperimentalPerfStrategy=1, 50 ms gaps"; __GL_ExperimentalPerfStrategy=1 $P --loop 2 --gap 50 > $OUT/loop-perfstrategy.txt; summ $OUT/loop-perfstrategy.txt
D=/tmp/d; mkdir -p $D
for _ in 1 2 3 4 5 6 7 8; do tar cf - /usr /opt /etc 2>/dev/null; done | head -c 4294967296 > "$D/sys.tar"
X=./.device/parvlc
t() { /usr/bin/time -f "$1	wall %e s	peak %M KiB" sh -c "$2" 2>&1 >/dev/null | tail -1; }
$X compress -f native - -o - < $D/sys.tar 2>/dev/null > $D/o.pvlc
$X decompress --backend wgpu $D/o.pvlc -o - 2>/dev/null | cmp - $D/sys.tar && echo "GPU decoder gives the input"
EXP_CUDA=ctx $X decompress --backend wgpu $D/o.pvlc -o - 2>/dev/null | cmp - $D/sys.tar && echo "GPU decoder with ctx gives the input"
EXP_CUDA=ctx $X compress -f gzip - -o - < $D/sys.tar 2>/dev/null | gzip -dc | cmp - $D/sys.tar && echo "gzip with ctx: gzip -dc gives the input"
python3 scripts/ppm.py make $D/4k.ppm 3840 2160
for e in none ctx; do EXP_CUDA=$e $X j2k $D/4k.ppm -o $D/4k-$e.j2k --force 2>/dev/null; EXP_CUDA=$e $X j2k --ht $D/4k.ppm -o $D/4k-ht-$e.j2k --force 2>/dev/null; done
cmp $D/4k-none.j2k $D/4k-ctx.j2k && cmp $D/4k-ht-none.j2k $D/4k-ht-ctx.j2k && echo "j2k outputs equal with and without"
for r in 1 2 3; do for e in none ctx; do
  export EXP_CUDA=$e
  t "compress gzip $e" "$X compress -f gzip - -o - < $D/sys.tar"
  t "compress native $e" "$X compress -f native - -o - < $D/sys.tar"
  t "decompress wgpu $e" "$X decompress --backend wgpu $D/o.pvlc -o -"
  t "j2k 4k $e" "$X j2k $D/4k.ppm -o $D/x.j2k --force"
  t "j2k --ht 4k $e" "$X j2k --ht $D/4k.ppm -o $D/x.j2k --force"
done; done
unset EXP_CUDA
B="--sizes 1073741824 --entropies 4.5 --strategies decoupled --no-baselines --cpu-max 0 --runs 3"
EXP_CUDA=ctx $X bench --backend wgpu $B 2>&1 | grep -i "stream\|vld\|cuvle" | grep -v EXP | head
$X bench --backend wgpu $B 2>&1 | grep -i "stream\|vld\|cuvle" | grep -v EXP | head
