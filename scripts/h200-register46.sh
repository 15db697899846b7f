#!/usr/bin/env bash
# Issue 13, the forty-sixth pass: a CUDA upload straight out of the caller's memory,
# registered with the driver (src/cuda/registered.rs), against the staged copy through
# pinned pieces, in one call (PARVLC_CUDA_REGISTER: run = the whole input registered
# once, chunk = each coder its own chunk, 0 = staged, the build before's path):
# 0. The stream tests on CUDA in each mode (compress_to_vec's bytes against the CPU's).
# 1. Bytes: the CLI's CUDA output against the CPU backend's (chunk mode registers the
#    readers' buffers), and decoded.
# 2. The library host to host (a GiB of system files), the three modes and wgpu, two
#    rounds; then each mode's chunk phases and what registering costs.
# 3. The CLI, 4 GiB of system files from standard input, chunk against staged.
# The experiment's build (src/cuda/registered.rs, PARVLC_CUDA_REGISTER) was not kept:
# registering cost more than the copies it saved (docs/results.md, "Forty-sixth pass").
# Carried in .device: parvlc, stream_bench, framed (gzipped).
# There, from the project root: bash scripts/h200-register46.sh.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start "${NAME:-register46}"
unpack_device
P=.device/parvlc
D=/dev/shm/parvlc-register46
echo "transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled)"
echo "== 0. the stream tests on CUDA, each registration mode"
for mode in run chunk 0; do
  for t in every_engine the_cuda_coder compress_to_vec; do
    PARVLC_CUDA_REGISTER=$mode PARVLC_REQUIRE_CUDA=1 .device/framed $t 2>&1 | grep -E "test result|panicked|differ" | sed "s/^/$mode $t: /" | head -5
  done
done
cuda_stream_inputs "$D"
echo "== 1. the stream's bytes against the CPU backend's (chunk mode)"
PARVLC_CUDA_REGISTER=chunk stream_bytes cuda "$D" "$P" one r5000 sys100m
echo "== 2. the library, a GiB, host to host (best and median of five runs)"
for r in 1 2; do
  for mode in run chunk 0; do
    echo "-- mode $mode"
    PARVLC_CUDA_REGISTER=$mode library_round $r "$D/sys1g" cuda stream_bench
  done
  library_round $r "$D/sys1g" wgpu stream_bench
done
for mode in run chunk 0; do
  echo "-- phases, mode $mode"
  PARVLC_CUDA_REGISTER=$mode cuda_phase_runs "$D/sys1g" stream_bench
done
for mode in run chunk; do
  echo "-- registering, mode $mode (trace-logged, one gzip run)"
  PARVLC_CUDA_REGISTER=$mode BACKEND=cuda FORMAT=gzip RUNS=1 RUST_LOG=parvlc=trace .device/stream_bench "$D/sys1g" 2> "$D/t.log" | sed -n 2p
  grep "registered in" "$D/t.log" | python3 -c '
import re, sys, statistics as st
v = [(int(a), float(b)) for a, b in (re.search(r"(\d+) input bytes registered in ([0-9.]+) ms", l).groups() for l in sys.stdin)]
if v:
    ms = [b for _, b in v]
    print(f"  {len(v)} registrations, {sum(a for a, _ in v)} bytes, median {st.median(ms):.2f} ms, max {max(ms):.2f} ms, sum {sum(ms):.1f} ms")
'
done
echo "== 3. the CLI, 4 GiB of system files from standard input"
for r in 1 2 3; do
  for mode in chunk 0; do
    for fmt in gzip native; do
      wall "cuda $fmt mode $mode run $r" "PARVLC_CUDA_REGISTER=$mode $P compress --backend cuda -f $fmt - -o - < $D/sys.tar"
    done
  done
done
rm -rf "$D"
date -u
