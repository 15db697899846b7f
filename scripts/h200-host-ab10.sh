#!/usr/bin/env bash
# Tenth pass, on the GPU machine: the library's host-to-host compress through
# compress_to_vec (coded chunks copied into the vector on all cores) against one core's
# copy (SERIAL_OUT), and the host-vector pool at 4 (as before) and 16 vectors
# (PARVLC_EXP_HOSTPOOL, a knob of benches/results/h200-2026-11-28-host-probe-exp.patch),
# in examples/stream_bench and in the CLI
# (4 GiB, stdin to /dev/null, a file, the GPU decoder), alternating; then the bench's
# `stream` row. Every output is checked first.
# There, from the project root, .device carried: bash scripts/h200-host-ab10.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start host-ab10
B=.device/parvlc
D=/tmp/parvlc-ab10
mkdir -p "$D"
sys_files "$D"
export PARVLC_CACHE_DIR="$D/cache-warm"
echo "== library host to host, 1 GiB (stream_bench checks each shape's output first)"
for r in 1 2; do for pool in 4 16; do
  echo "-- pool $pool, round $r, one core's copy"
  PARVLC_EXP_HOSTPOOL=$pool SERIAL_OUT=1 DEPTHS=6 CHUNKS_MIB=6 RUNS=3 .device/stream_bench "$D/sys1g" | tail -n +2
  echo "-- pool $pool, round $r, compress_to_vec"
  PARVLC_EXP_HOSTPOOL=$pool DEPTHS=6,10 CHUNKS_MIB=6 RUNS=3 .device/stream_bench "$D/sys1g" | tail -n +2
  PARVLC_EXP_HOSTPOOL=$pool FORMAT=gzip DEPTHS=6,10 CHUNKS_MIB=6 RUNS=3 .device/stream_bench "$D/sys1g" | tail -n +2
done; done
echo "== CLI, 4 GiB"
$B compress -f native "$D/sys.tar" -o "$D/o.pvlc" --force 2>/dev/null
$B decompress --backend wgpu "$D/o.pvlc" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "native: the GPU decoder gives the input"
for pool in 4 16; do
  PARVLC_EXP_HOSTPOOL=$pool $B compress -f gzip - -o - < "$D/sys.tar" 2>/dev/null | gzip -dc | cmp - "$D/sys.tar" && echo "pool $pool gzip: gzip -dc gives the input"
done
for r in 1 2 3; do for pool in 4 16; do
  export PARVLC_EXP_HOSTPOOL=$pool
  wall "pool $pool gzip stdin $r" "$B compress -f gzip - -o - < $D/sys.tar"
  wall "pool $pool native stdin $r" "$B compress -f native - -o - < $D/sys.tar"
  wall "pool $pool decompress wgpu $r" "$B decompress --backend wgpu $D/o.pvlc -o -"
  wall "pool $pool gzip to file $r" "$B compress -f gzip $D/sys.tar -o $D/f.gz --force"
done; done
unset PARVLC_EXP_HOSTPOOL
rm -f "$D/f.gz"
echo "== bench stream row, 1 GiB, 4.5 bits"
timeout 200 $B bench --sizes 1073741824 --entropies 4.5 --strategies decoupled --no-baselines --cpu-max 0 --runs 3 --json "$OUT/bench10.jsonl" 2>&1 | grep -E "stream|cuvle|vld" | head -20
date -u
