source .device/env.sh
date -u; git log --oneline -1 2>/dev/null
D=/tmp/d; mkdir -p $D
for _ in 1 2 3 4 5 6 7 8; do tar cf - /usr /opt /etc 2>/dev/null; done | head -c 4294967296 > "$D/sys.tar"
X=.device/parvlc; OLD=.device/parvlc-prev
t() { /usr/bin/time -f "$1	wall %e s	peak %M KiB" sh -c "$2" 2>&1 >/dev/null | tail -1; }
$X compress -f native - -o - < $D/sys.tar 2>/dev/null > $D/o.pvlc
ls -l $D/o.pvlc | awk '{print "native file", $5, "bytes"}'
for be in cpu wgpu; do $X decompress --backend $be $D/o.pvlc -o - 2>/dev/null | cmp - $D/sys.tar && echo "new build, $be, from the file: gives the input"; done
cat $D/o.pvlc | $X decompress --backend wgpu - -o - 2>/dev/null | cmp - $D/sys.tar && echo "new build, wgpu, from a pipe: gives the input"
for r in 1 2 3; do for P in $OLD $X; do for be in cpu wgpu; do
  t "$P decompress --backend $be FILE" "$P decompress --backend $be $D/o.pvlc -o -"
done; done; done
t "$X: cat FILE | decompress --backend cpu" "cat $D/o.pvlc | $X decompress --backend cpu - -o -"
t "$X: cat FILE | decompress --backend wgpu" "cat $D/o.pvlc | $X decompress --backend wgpu - -o -"
RUST_LOG=parvlc=debug $X decompress --backend wgpu $D/o.pvlc -o - 2> $OUT/debug-new.log > /dev/null
grep "vld run" $OUT/debug-new.log | sed 's/.*frames, \([0-9]*\) bytes: codes checked \([0-9.]*\) ms, GPU round trip \([0-9.]*\) ms, CRCs \([0-9.]*\) ms/\1 \2 \3 \4/' | awk '{n++; b+=$1; c+=$2; g+=$3; r+=$4} END {printf "runs %d, mean bytes %.0f, codes %.2f ms, round trip %.2f ms, CRCs %.2f ms\n", n, b/n, c/n, g/n, r/n}'
grep "vld upload" $OUT/debug-new.log | sed 's/.*plan and tables \([0-9.]*\) ms, payload \([0-9.]*\) ms, blocks \([0-9.]*\) ms/\1 \2 \3/' | awk '{n++; a+=$1; b+=$2; c+=$3} END {printf "uploads %d: plan %.2f ms, payload %.2f ms, blocks %.2f ms\n", n, a/n, b/n, c/n}'
