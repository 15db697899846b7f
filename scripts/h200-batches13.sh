#!/usr/bin/env bash
# The writer's batches (every chunk next in order when the writer is free, in one
# vectored write; a vector sink copies the batch on all cores at once) and the chunk's
# readbacks in the submissions that write them, against the session's starting build
# (.device/parvlc-old, .device/stream_bench-old): the library's host-to-host compress of
# 1 GiB of system files, native and gzip, and the CLI's compress of 4 GiB (stdin to
# /dev/null, and file to file), alternating; then the new build's per-chunk phases
# from a debug-logged library run. Every output is checked first.
# There, from the project root, .device carried: bash scripts/h200-batches13.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start batches13
D=/tmp/parvlc-batches13
sys_files "$D"
for b in parvlc parvlc-old; do
  .device/$b compress -f gzip - -o - < "$D/sys.tar" 2>/dev/null | gzip -dc | cmp - "$D/sys.tar" && echo "$b gzip: gzip -dc gives the input"
  .device/$b compress -f native "$D/sys.tar" -o "$D/n.pvlc" --force 2>/dev/null
  .device/parvlc decompress "$D/n.pvlc" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "$b native file: decodes to the input"
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
echo "== library, debug-logged (new build)"
RUST_LOG=parvlc=debug RUNS=1 .device/stream_bench "$D/sys1g" 2>&1 | chunk_phases
rm -rf "$D"
date -u
