source .device/env.sh; D=/tmp/parvlc-h264; mkdir -p $D
python3 -c 'import sys; sys.path.insert(0, "scripts"); from h264_rd import write_pan
write_pan(1920, 1080, 240, sys.argv[1])' $D/pan.y4m
cat $D/pan.y4m >/dev/null
.device/parvlc-a h264 $D/pan.y4m -o $D/ref.264 --force --luma 16x16 --qp 27 --front-end cpu --depth 16 2>/dev/null
for r in 1 2 3; do for b in a b; do for d in 16 32; do for s in one rows; do
  P=.device/parvlc-$b; [ $b = b ] && P=.device/parvlc
  x=(); [ $s = rows ] && x=(--slice-rows 1)
  /usr/bin/time -f "build $b depth $d slices $s run $r	wall %e s	user %U	peak %M KiB" $P h264 $D/pan.y4m -o $D/o.264 --force --luma 16x16 --qp 27 --depth $d "${x[@]}" 2>&1 | tail -1
  [ $s = one ] && { cmp -s $D/o.264 $D/ref.264 || echo MISMATCH; }
done; done; done; done
RUST_LOG=parvlc::h264=debug .device/parvlc h264 $D/pan.y4m -o $D/o.264 --force --luma 16x16 --qp 27 --depth 16 2>&1 | grep "batch of" | tail -3
