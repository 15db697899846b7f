source .device/env.sh
date -u
mkdir -p /work/main/target/release && cp .device/parvlc /work/main/target/release/parvlc
PARVLC_REQUIRE_CUDA=1 ./.device/gpu_decode cuda_decode_equals_input_and_names_a_damaged_frame --exact 2>&1 | tail -3
D=/tmp/d; mkdir -p $D
for _ in 1 2 3 4 5 6 7 8; do tar cf - /usr /opt /etc 2>/dev/null; done | head -c 4294967296 > "$D/sys.tar"
X=.device/parvlc
t() { /usr/bin/time -f "$1	wall %e s	peak %M KiB" sh -c "$2" 2>&1 >/dev/null | tail -1; }
$X compress -f native - -o - < $D/sys.tar 2>/dev/null > $D/o.pvlc
$X decompress --backend cuda $D/o.pvlc -o - 2>/dev/null | cmp - $D/sys.tar && echo "cuda: gives the input"
for r in 1 2 3; do for be in cpu wgpu cuda; do t "decompress --backend $be" "$X decompress --backend $be $D/o.pvlc -o -"; done; done
RUST_LOG=parvlc=debug $X decompress --backend cuda $D/o.pvlc -o - 2> $OUT/debug-cuda.log > /dev/null
grep "vld run" $OUT/debug-cuda.log | sed 's/.*frames, \([0-9]*\) bytes: codes checked \([0-9.]*\) ms, GPU round trip \([0-9.]*\) ms, CRCs \([0-9.]*\) ms/\1 \2 \3 \4/' | awk '{n++; b+=$1; c+=$2; g+=$3; r+=$4} END {if (n) printf "cuda runs %d, mean bytes %.0f, codes %.2f ms, round trip %.2f ms, CRCs %.2f ms\n", n, b/n, c/n, g/n, r/n}'
