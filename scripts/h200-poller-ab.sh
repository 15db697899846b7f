#!/usr/bin/env bash
# (A record: the poller build is benches/results/h200-2026-11-28-poller-exp.patch, tried
# and dropped; its binaries crashed at exit, see docs/results.md, "Tenth pass".)
# The device's one poller thread (this build, .device/parvlc) against every waiting
# readback polling on its own (.device/parvlc-old, the commit before), on the GPU machine:
# 4 GiB of system files, compress (gzip, native; stdin to /dev/null), decompress on the
# GPU (native, our gzip) and on the CPU, three rounds alternating; the library's
# host-to-host compress (examples/stream_bench, 1 GiB) both ways; then the bench's
# stream and vld rows of this build. Every output is checked first.
# Here: ../shared/device/stage, then the old build copied in as .device/parvlc-old and
# .device/stream_bench-old. There, from the project root, .device carried:
#   bash scripts/h200-poller-ab.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start poller-ab
D=/tmp/parvlc-poller
mkdir -p "$D"
sys_files "$D"
export PARVLC_CACHE_DIR="$D/cache-warm"
echo "== outputs checked"
.device/parvlc compress -f native "$D/sys.tar" -o "$D/o.pvlc" --force 2>/dev/null
.device/parvlc compress -f gzip "$D/sys.tar" -o "$D/o.gz" --force 2>/dev/null
gzip -dc "$D/o.gz" | cmp - "$D/sys.tar" && echo "gzip -dc gives the input"
for b in parvlc parvlc-old; do
  .device/$b compress -f gzip - -o - < "$D/sys.tar" 2>/dev/null | cmp - "$D/o.gz" && echo "$b: the same gzip bytes"
  for f in o.pvlc o.gz; do
    .device/$b decompress --backend wgpu "$D/$f" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "$b: the GPU decoder gives the input of $f"
  done
done
echo "== CLI, alternating"
for r in 1 2 3; do for b in parvlc-old parvlc; do
  wall "$b gzip stdin $r" ".device/$b compress -f gzip - -o - < $D/sys.tar"
  wall "$b native stdin $r" ".device/$b compress -f native - -o - < $D/sys.tar"
  wall "$b decompress wgpu native $r" ".device/$b decompress --backend wgpu $D/o.pvlc -o -"
  wall "$b decompress wgpu gzip $r" ".device/$b decompress --backend wgpu $D/o.gz -o -"
  wall "$b decompress cpu native $r" ".device/$b decompress --backend cpu $D/o.pvlc -o -"
done; done
echo "== library host to host, 1 GiB"
for r in 1 2; do for b in stream_bench-old stream_bench; do
  echo "-- $b, round $r"
  DEPTHS=6,10 CHUNKS_MIB=6 RUNS=3 .device/$b "$D/sys1g" | tail -n +2
  FORMAT=gzip DEPTHS=6 CHUNKS_MIB=6 RUNS=3 .device/$b "$D/sys1g" | tail -n +2
done; done
echo "== bench, this build, 1 GiB, 4.5 bits"
timeout 200 .device/parvlc bench --sizes 1073741824 --entropies 4.5 --strategies decoupled --no-baselines --cpu-max 0 --runs 3 --json "$OUT/bench-poller.jsonl" 2>&1 | grep -E "stream|cuvle|vld" | head -20
date -u
