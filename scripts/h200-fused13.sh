#!/usr/bin/env bash
# A chunk's two readbacks recorded into the submissions that write them (histograms,
# encode) against the build before (.device/parvlc-old, .device/stream_bench-old):
# compress of 4 GiB of system files from stdin to /dev/null (gzip, native; depth 10
# and 16), and the library's host-to-host compress of their first GiB, alternating.
# Every output is checked first.
# There, from the project root, .device carried: bash scripts/h200-fused13.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start fused13
D=/tmp/parvlc-fused13
sys_files "$D"
for b in parvlc parvlc-old; do
  .device/$b compress -f gzip - -o - < "$D/sys.tar" 2>/dev/null | gzip -dc | cmp - "$D/sys.tar" && echo "$b gzip: gzip -dc gives the input"
  .device/$b compress -f native - -o - < "$D/sys.tar" 2>/dev/null | .device/parvlc decompress - -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "$b native: decodes to the input"
done
for r in 1 2 3; do
  for b in parvlc-old parvlc; do
    for f in gzip native; do
      wall "$b $f d10 run $r" ".device/$b compress -f $f - -o - < $D/sys.tar"
    done
    wall "$b gzip d16 run $r" ".device/$b compress -f gzip --depth 16 - -o - < $D/sys.tar"
  done
done
for r in 1 2; do
  for b in stream_bench-old stream_bench; do
    echo "== $b round $r"
    DEPTHS=10,16 RUNS=3 .device/$b "$D/sys1g" | tail -n +2
    FORMAT=gzip RUNS=3 .device/$b "$D/sys1g" | tail -n +2
  done
done
rm -rf "$D"
date -u
