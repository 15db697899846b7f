#!/usr/bin/env bash
# Where a compress's wall time and peak go, on the GPU machine (an experiment build:
# benches/results/h200-2026-11-28-host-probe-exp.patch applied, with
# two temporary knobs: PARVLC_EXP_HINTS, wgpu's memory hints; PARVLC_EXP_LEAK, the CLI
# leaves the device to the process's exit instead of dropping it):
#   A. the process's phases (GPU opened, work done, device dropped) against its wall;
#   B. wgpu's memory hints against peak RSS and wall (compress warm, cold and to a file;
#      the GPU decoder);
#   C. the library's host-to-host compress at several pipeline depths and chunk sizes
#      (examples/stream_bench, 1 GiB of the same files, outputs checked first).
# There, from the project root, .device carried: bash scripts/h200-host-probe.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start host-probe
B=.device/parvlc
D=/tmp/parvlc-probe
mkdir -p "$D"
sys_files "$D"
echo "== outputs checked"
$B compress -f gzip - -o - < "$D/sys.tar" 2>/dev/null > "$D/o.gz"
gzip -dc "$D/o.gz" | cmp - "$D/sys.tar" && echo "gzip: gzip -dc gives the input"
$B compress -f native "$D/sys.tar" -o "$D/o.pvlc" --force 2>/dev/null
$B decompress --backend wgpu "$D/o.pvlc" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "native: the GPU decoder gives the input"
export PARVLC_CACHE_DIR="$D/cache-warm"
$B compress -f gzip - -o - < "$D/sys.tar" >/dev/null 2>&1

echo "== A. phases of a warm compress (debug log stamps, then wall)"
for r in 1 2 3; do for leak in "" 1; do
  /usr/bin/time -f "leak=${leak:-0} run $r: wall %e s peak %M KiB" env PARVLC_EXP_LEAK=$leak RUST_LOG=parvlc=debug \
    $B compress -f gzip - -o - < "$D/sys.tar" 2>&1 >/dev/null | grep -E "opened in|GB/s|compress returns|done after|wall" | grep -v "chunk" | cut -c 1-200
done; done
echo "== A2. a process that opens the GPU and codes nothing"
for r in 1 2 3; do
  : > "$D/empty"
  /usr/bin/time -f "empty run $r: wall %e s peak %M KiB" env RUST_LOG=parvlc=debug $B compress -f gzip - -o - < "$D/empty" 2>&1 >/dev/null | grep -E "opened in|done after|wall" | cut -c 1-160
done

echo "== B. memory hints"
for r in 1 2; do for h in performance memory manual:16-64; do
  export PARVLC_EXP_HINTS=$h
  wall "$h warm gzip stdin $r" "$B compress -f gzip - -o - < $D/sys.tar"
  wall "$h warm native stdin $r" "$B compress -f native - -o - < $D/sys.tar"
  wall "$h gzip to file $r" "$B compress -f gzip $D/sys.tar -o $D/f.gz --force"
  wall "$h decompress wgpu $r" "$B decompress --backend wgpu $D/o.pvlc -o -"
  (export PARVLC_CACHE_DIR="$D/cache-cold-$h-$r"; rm -rf "$PARVLC_CACHE_DIR" "$HOME/.cache/nvidia" "$HOME/.nv"
   wall "$h cold gzip stdin $r" "$B compress -f gzip - -o - < $D/sys.tar")
done; done
rm -f "$D/f.gz"
unset PARVLC_EXP_HINTS

echo "== C. library host to host (examples/stream_bench), 1 GiB"
DEPTHS=6,10,16 CHUNKS_MIB=4,6,12 RUNS=3 .device/stream_bench "$D/sys1g"
FORMAT=gzip DEPTHS=6,16 CHUNKS_MIB=6 RUNS=3 .device/stream_bench "$D/sys1g"
PARVLC_EXP_HINTS=memory DEPTHS=6,16 CHUNKS_MIB=6 RUNS=3 .device/stream_bench "$D/sys1g"
date -u
