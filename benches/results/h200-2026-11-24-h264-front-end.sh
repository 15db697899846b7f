source .device/env.sh
date -u
D=/tmp/h; mkdir -p $D
python3 -c 'import sys; sys.path.insert(0, "scripts"); from h264_rd import write_pan
write_pan(1920, 1080, int(sys.argv[2]), sys.argv[1])' "$D/pan.y4m" 96
ls -l $D/pan.y4m
t() { /usr/bin/time -f "$1	wall %e s	user %U s	peak %M KiB" sh -c "$2" 2>&1 >/dev/null | tail -1; }
for luma in auto 16x16; do for depth in 16 8; do
  .device/parvlc-prev h264 $D/pan.y4m -o $D/prev-$luma-$depth.264 --force --qp 27 --luma $luma --depth $depth 2>/dev/null
  .device/parvlc h264 $D/pan.y4m -o $D/new-$luma-$depth.264 --force --qp 27 --luma $luma --depth $depth 2>/dev/null
  cmp $D/prev-$luma-$depth.264 $D/new-$luma-$depth.264 && echo "luma $luma depth $depth: the same bytes from both builds"
done; done
for r in 1 2; do for luma in auto 16x16; do for depth in 16 8; do for P in .device/parvlc-prev .device/parvlc; do
  t "$P --luma $luma --depth $depth" "$P h264 $D/pan.y4m -o $D/x.264 --force --qp 27 --luma $luma --depth $depth"
done; done; done; done
