#!/usr/bin/env bash
# Readbacks copied out of mapped memory on a pool of copy threads shared by the coders
# (this build: sb-new, parvlc) against on the coder's own thread (the commit before:
# sb-old, parvlc-old), alternating: the library's 1 GiB of system files at 4 MiB x 10 and
# x 14 (stream_bench decodes its output before timing), then the CLI's compress of 4 GiB
# from standard input to /dev/null at its default depth and at 14 (wall, CPU, peak
# memory; the output checked by gzip -dc and our decompress once). The copy pool was
# not committed: the library went from 10.1-10.2 to 6.9-7.9 GB/s native (a slower machine
# instance than the session's others: the same build ran 12.0-12.4 there); dropped.
# There, from the project root, .device carried: bash scripts/h200-copy20.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start copy20
unpack_device
D=/tmp/parvlc-copy20
sys_files "$D"
for round in 1 2 3; do
  for f in native gzip; do
    for depth in 10 14; do
      for v in old new; do
        echo -n "round $round, $f, sb-$v: "
        FORMAT=$f DEPTHS=$depth RUNS=6 .device/sb-$v "$D/sys1g" | tail -1
      done
    done
  done
done
.device/parvlc compress -f gzip - -o - < "$D/sys.tar" > "$D/out.gz" 2>/dev/null
gzip -dc "$D/out.gz" | cmp - "$D/sys.tar" && echo "parvlc: gzip -dc decodes its gzip to the input"
.device/parvlc compress -f native --depth 14 - -o - < "$D/sys.tar" > "$D/out.pvlc" 2>/dev/null
.device/parvlc decompress "$D/out.pvlc" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "parvlc: its native (depth 14) decodes to the input"
rm -f "$D/out.gz" "$D/out.pvlc"
for round in 1 2; do
  for f in gzip native; do
    for v in parvlc-old parvlc; do
      wall "$v compress $f stdin run $round" ".device/$v compress -f $f - -o - < $D/sys.tar"
      wall "$v compress $f stdin depth 14 run $round" ".device/$v compress -f $f --depth 14 - -o - < $D/sys.tar"
    done
  done
done
date -u
