#!/usr/bin/env bash
# Issue 13: where the library's CPU goes once coders write their own places (e7867d5):
# perf profiles (by symbol, by thread, and memcpy's callers) of the timed runs alone
# (stream_bench's PERF_CTL) of 1 GiB of system files, chunks of 8 MiB at 12 coders,
# native and gzip. perf travels as .device/perf.tgz (the development machine's perf and
# the libraries it links, but libc and libm: the GPU machine's own).
# There, from the project root, .device carried: bash scripts/h200-profile29.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start profile29
unpack_device
perf_tools
D=/dev/shm/parvlc-profile29
sys_1g "$D"
mkfifo "$D/ctl"
for f in native gzip; do
  echo "== perf: library, 1 GiB $f, chunks of 8 MiB, twelve coders, eight runs"
  perf record -D -1 --control=fifo:"$D/ctl" -F 1999 -g -o "$D/$f.data" -- \
    env FORMAT=$f RUNS=8 CHUNKS_MIB=8 PERF_CTL="$D/ctl" .device/sb-new "$D/sys1g" 2>&1 | tail -3
  perf report -i "$D/$f.data" --no-children --stdio --sort dso,sym --percent-limit 0.4 2>/dev/null | grep -v '^#' | grep -v '^$' | grep -v -- "--" | grep "%" | head -50
  perf report -i "$D/$f.data" --no-children --stdio --sort comm --percent-limit 1 2>/dev/null | grep -v '^#' | grep -v '^$' | grep "%" | head -12
  echo "-- callers of the largest libc symbol"
  perf report -i "$D/$f.data" --no-children --stdio --sort sym -G --percent-limit 5 2>/dev/null | grep -v '^#' | grep -v '^$' | head -70
done
rm -rf "$D"
date -u
