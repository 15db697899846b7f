#!/usr/bin/env bash
# This session's compress (the writer's batches of up to 8 chunks in one vectored write,
# the readbacks in the submissions that write them; .device/parvlc, .device/stream_bench)
# against the session's starting build (.device/parvlc-old, .device/stream_bench-old),
# alternating: the library's host-to-host compress of 1 GiB of system files (native and
# gzip), the CLI's compress of 4 GiB from stdin to /dev/null and file to file, and the
# decoders of the new build's files; then the machine's own copy bandwidth and CRC32
# speed (examples/host_copy_bench), the library path's ceiling. Every output is
# checked first.
# There, from the project root, .device carried: bash scripts/h200-final13.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start final13
D=/tmp/parvlc-final13
sys_files "$D"
for b in parvlc parvlc-old; do
  .device/$b compress -f gzip - -o - < "$D/sys.tar" 2>/dev/null | gzip -dc | cmp - "$D/sys.tar" && echo "$b gzip: gzip -dc gives the input"
done
.device/parvlc compress -f native "$D/sys.tar" -o "$D/n.pvlc" --force 2>&1 | tail -1
.device/parvlc compress -f gzip "$D/sys.tar" -o "$D/g.gz" --force 2>&1 | tail -1
for f in n.pvlc g.gz; do
  for be in cpu wgpu; do
    .device/parvlc decompress --backend $be "$D/$f" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "$f $be: decodes to the input"
  done
done
for r in 1 2 3; do
  for b in stream_bench-old stream_bench; do
    echo "== $b round $r"
    RUNS=3 .device/$b "$D/sys1g" | tail -n +2
    FORMAT=gzip RUNS=3 .device/$b "$D/sys1g" | tail -n +2
  done
done
for r in 1 2 3; do
  for b in parvlc-old parvlc; do
    wall "$b gzip stdin run $r" ".device/$b compress -f gzip - -o - < $D/sys.tar"
    wall "$b native stdin run $r" ".device/$b compress -f native - -o - < $D/sys.tar"
  done
done
for r in 1 2; do
  for b in parvlc-old parvlc; do
    rm -f "$D/o.gz"; sync
    wall "$b gzip file to file run $r" ".device/$b compress -f gzip $D/sys.tar -o $D/o.gz --force"
  done
done
for r in 1 2; do
  for b in parvlc-old parvlc; do
    for be in cpu wgpu; do
      wall "$b decompress native $be run $r" ".device/$b decompress --backend $be $D/n.pvlc -o -"
    done
  done
done
rm -rf "$D"
echo "== host copy bandwidth"
.device/host_copy_bench
date -u
