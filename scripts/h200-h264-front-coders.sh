#!/usr/bin/env bash
# The H.264 GPU front end (I_16x16) at 2-4 coders (PARVLC_H264_CODERS) and depths 8-32 on
# 240 frames of the 1080p pan, each stream compared with the CPU front end's, then x264
# ultrafast beside it and the debug log's batch timings. Written at 48ea90c; no run of it
# is on record. There, .device carried (x264 staged as .device/x264):
#   bash scripts/h200-h264-front-coders.sh
source .device/env.sh; D=/tmp/parvlc-h264; mkdir -p $D
python3 -c 'import sys; sys.path.insert(0, "scripts"); from h264_rd import write_pan
write_pan(1920, 1080, 240, sys.argv[1])' $D/pan.y4m; cat $D/pan.y4m > /dev/null
.device/parvlc h264 $D/pan.y4m -o $D/ref.264 --force --luma 16x16 --qp 27 --front-end cpu --depth 16 2>/dev/null
for c in 2 3 4; do for d in 8 16 32; do for r in 1 2; do
/usr/bin/time -f "coders $c depth $d run $r wall %e s user %U peak %M KiB" env PARVLC_H264_CODERS=$c .device/parvlc h264 $D/pan.y4m -o $D/o.264 --force --luma 16x16 --qp 27 --depth $d 2>&1 | tail -1
cmp -s $D/o.264 $D/ref.264 || echo MISMATCH; done; done; done
export LD_LIBRARY_PATH=.device/x264; for r in 1 2; do /usr/bin/time -f "x264 ultrafast wall %e s" .device/x264/x264_intra ultrafast 27 $D/pan.y4m $D/x.264 2>&1 | tail -1; done
RUST_LOG=parvlc::h264=debug PARVLC_H264_CODERS=3 .device/parvlc h264 $D/pan.y4m -o $D/o.264 --force --luma 16x16 --qp 27 --depth 16 2>&1 | grep -E "waited|batch of|frames" | cut -c15-220 | tail -14
