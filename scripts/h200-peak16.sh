#!/usr/bin/env bash
# Sixteenth pass, eighth call (2026-11-28):
#   A. Issue 13's peak memory: `parvlc compress` of 4 GiB of the machine's system files,
#      file to file (synced, as the CLI writes files) and standard input to a file, native
#      and gzip, at --depth 10 (the default), 8 and 6, three rounds alternating; wall and
#      peak RSS by GNU time; every output decoded and compared with the input once.
#   B. The H.264 CLI's batch shape with this pass's front end: 960 frames of the 1080p
#      pan, QP 27, --depth 16 with 4 batches in flight (the default) against 32 with 3
#      and 4, two rounds, streams compared.
# There, from the project root, .device carried: bash scripts/h200-peak16.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start peak16
B=.device/parvlc
D=/tmp/parvlc-peak16
mkdir -p "$D"
sys_files "$D"
rm -f "$D/sys1g"
echo "== A. compress peaks, 4 GiB"
for f in native gzip; do
  $B compress -f $f "$D/sys.tar" -o "$D/check.$f" --force 2>/dev/null
  $B decompress "$D/check.$f" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "$f output decodes to the input"
  rm -f "$D/check.$f"
done
gzip -dc < <($B compress -f gzip - -o - < "$D/sys.tar" 2>/dev/null) | cmp - "$D/sys.tar" && echo "gzip -dc of the stdin run's output gives the input"
for r in 1 2 3; do
  for depth in 10 8 6; do
    wall "native file to file, depth $depth, run $r" "$B compress -f native $D/sys.tar -o $D/out --force --depth $depth"
    wall "gzip file to file, depth $depth, run $r" "$B compress -f gzip $D/sys.tar -o $D/out --force --depth $depth"
    wall "gzip stdin to file, depth $depth, run $r" "$B compress -f gzip - -o - --depth $depth < $D/sys.tar > $D/out"
  done
done
rm -rf "$D"
echo "== B. H.264 batch shapes"
mkdir -p "$D"
pan_y4m "$D/p240.y4m"
pan_y4m_times "$D/p240.y4m" "$D/p960.y4m" 4
$B h264 "$D/p960.y4m" --qp 27 --force -o "$D/ref.264" 2>/dev/null
for r in 1 2; do
  for shape in "16 4" "32 3" "32 4"; do
    set -- $shape
    wall "960 frames depth $1 coders $2, run $r" "PARVLC_H264_CODERS=$2 $B h264 $D/p960.y4m --qp 27 --force -o $D/x.264 --depth $1"
    cmp -s "$D/x.264" "$D/ref.264" || echo "OTHER BYTES"
  done
done
rm -rf "$D"
date -u
