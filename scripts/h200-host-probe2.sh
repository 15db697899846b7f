#!/usr/bin/env bash
# Second probe of the host side (experiment build, benches/results/
# h200-2026-11-28-host-probe-exp.patch applied; knobs: PARVLC_EXP_POLLER, one thread
# polls the device for every waiting readback; PARVLC_EXP_EXIT, the CLI leaves by _exit
# after its output is committed; SERIAL_OUT, stream_bench writes through one core):
#   A. the library's host-to-host compress, 1 GiB: serial against parallel output copy,
#      the poller on and off, depths 6 to 16, then a perf profile of one shape;
#   B. the CLI, 4 GiB, stdin to /dev/null: compress gzip and decompress (GPU) with the
#      knobs on and off, alternating; a perf profile of a compress.
# There, from the project root, .device (with perf in .device/perf) carried:
#   bash scripts/h200-host-probe2.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start host-probe2
B=.device/parvlc
D=/tmp/parvlc-probe
mkdir -p "$D"
sys_files "$D"
perf() { LD_LIBRARY_PATH=.device/perf/lib .device/perf/perf "$@"; }
echo 0 > /proc/sys/kernel/kptr_restrict 2>/dev/null
echo -1 > /proc/sys/kernel/perf_event_paranoid 2>/dev/null
export PARVLC_CACHE_DIR="$D/cache-warm"
echo "== A. library host to host, 1 GiB"
for p in "" 1; do
  echo "-- poller=${p:-0}, serial output"
  PARVLC_EXP_POLLER=$p SERIAL_OUT=1 DEPTHS=6,10 CHUNKS_MIB=6 RUNS=3 .device/stream_bench "$D/sys1g"
  echo "-- poller=${p:-0}, parallel output"
  PARVLC_EXP_POLLER=$p DEPTHS=6,10,16 CHUNKS_MIB=6 RUNS=3 .device/stream_bench "$D/sys1g"
  PARVLC_EXP_POLLER=$p FORMAT=gzip DEPTHS=6,10 CHUNKS_MIB=6 RUNS=3 .device/stream_bench "$D/sys1g"
done
/usr/bin/time -f "stream_bench depth 10 x8: wall %e s user %U s sys %S s invol %c vol %w" env DEPTHS=10 CHUNKS_MIB=6 RUNS=8 .device/stream_bench "$D/sys1g"
perf record -F 1999 -g -o "$D/lib.data" -- env DEPTHS=10 CHUNKS_MIB=6 RUNS=8 .device/stream_bench "$D/sys1g" > /dev/null 2>&1
perf report -i "$D/lib.data" --no-children --stdio --sort sym --percent-limit 0.7 -g none 2>/dev/null | grep -v '^$' | grep -v "^#" | head -60
perf report -i "$D/lib.data" --no-children --stdio --sort comm,dso --percent-limit 1 -g none 2>/dev/null | grep -v '^$' | grep -v "^#" | head -25
perf report -i "$D/lib.data" --children --stdio --sort sym --percent-limit 3 -g none 2>/dev/null | grep -v '^$' | grep -v "^#" | head -50
echo "== B. CLI, 4 GiB, stdin to /dev/null"
$B compress -f native "$D/sys.tar" -o "$D/o.pvlc" --force 2>/dev/null
$B decompress --backend wgpu "$D/o.pvlc" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "native: the GPU decoder gives the input"
$B compress -f gzip - -o - < "$D/sys.tar" 2>/dev/null | gzip -dc | cmp - "$D/sys.tar" && echo "gzip: gzip -dc gives the input"
PARVLC_EXP_POLLER=1 PARVLC_EXP_EXIT=1 $B compress -f gzip - -o - < "$D/sys.tar" 2>/dev/null | gzip -dc | cmp - "$D/sys.tar" && echo "gzip, knobs: gzip -dc gives the input"
for r in 1 2 3; do for k in "" POLLER EXIT "POLLER EXIT"; do
  envs=""; for x in $k; do envs="$envs PARVLC_EXP_$x=1"; done
  wall "gzip [$k] $r" "env $envs $B compress -f gzip - -o - < $D/sys.tar"
  wall "decompress wgpu [$k] $r" "env $envs $B decompress --backend wgpu $D/o.pvlc -o -"
done; done
perf record -F 1999 -o "$D/cli.data" -- sh -c "$B compress -f gzip - -o - < $D/sys.tar > /dev/null" 2>/dev/null
perf report -i "$D/cli.data" --no-children --stdio --sort sym --percent-limit 0.7 2>/dev/null | grep -v '^$' | grep -v "^#" | head -45
date -u
