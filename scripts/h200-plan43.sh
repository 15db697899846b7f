#!/usr/bin/env bash
# Issue 13: the CUDA stream coder's frames planned on the device (shaders/cuda/frame_plan.cu,
# the twin of the wgpu frame plan) against the build before (the frames planned on the
# coder's core), in one call:
# 0. The CUDA frame plan against its CPU twin (tests/stages.rs
#    frame_plan_cuda_equals_its_twin) and the stream coders against the CPU's bytes, both
#    planners (tests/framed.rs), PARVLC_REQUIRE_CUDA=1.
# 1. Bytes: for each input and format, the new CUDA output equals the CPU backend's byte
#    for byte and decodes (gzip -dc, parvlc decompress); 4 GiB from standard input too.
# 2. The CLI, 4 GiB of system files from standard input, GNU time, arms alternating.
# 3. The library host to host (examples/stream_bench, a GiB of the same files; it decodes
#    its output before timing), CUDA new and before alternating, new with its frames
#    planned on the host (PLANNER=host), wgpu beside them.
# 4. Each chunk's phases, debug-logged (the library's GiB, gzip).
# Carried in .device: parvlc, parvlc-before, stream_bench, stream_bench-before, stages,
# framed (gzipped). There, from the project root: bash scripts/h200-plan43.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start "${NAME:-plan43}"
unpack_device
P=.device/parvlc
D=/dev/shm/parvlc-plan43
echo "== 0. the CUDA frame plan and stream coders against the CPU"
PARVLC_REQUIRE_CUDA=1 PARVLC_TEST_BACKENDS=cuda .device/stages frame_plan_cuda 2>&1 | grep -E "^test |test result|panicked|differ" | head -20
for t in every_engine the_cuda_coder; do
  PARVLC_REQUIRE_CUDA=1 PARVLC_TEST_BACKENDS=cuda .device/framed $t 2>&1 | grep -E "^test |test result|panicked|differ" | head -20
done
sys_files "$D"
: > "$D/empty"
printf 'a' > "$D/one"
head -c 5000 /dev/urandom > "$D/r5000"
head -c 67108864 /dev/urandom > "$D/random64m"
head -c 100000007 "$D/sys.tar" > "$D/sys100m"
echo "== 1. the CUDA stream's bytes against the CPU backend's"
for f in empty one r5000 random64m sys100m sys1g; do
  for fmt in gzip native; do
    "$P" compress --backend cuda -f $fmt "$D/$f" -o "$D/c.cuda" --force 2>&1 | tail -1
    "$P" compress --backend cpu -f $fmt "$D/$f" -o "$D/c.cpu" --force 2>/dev/null
    if cmp -s "$D/c.cuda" "$D/c.cpu"; then same="the CPU's bytes"; else same="DIFFERENT FROM THE CPU'S"; fi
    if [ $fmt = gzip ]; then back=$(gzip -dc "$D/c.cuda" | cmp - "$D/$f" && echo "gzip -dc ok"); else back=$("$P" decompress "$D/c.cuda" -o - 2>/dev/null | cmp - "$D/$f" && echo "decompress ok"); fi
    echo "$f $fmt: $(stat -c %s "$D/c.cuda") bytes, $same, $back"
  done
done
"$P" compress --backend cuda -f gzip - -o - < "$D/sys.tar" 2>/dev/null > "$D/c.cuda"
gzip -dc "$D/c.cuda" | cmp - "$D/sys.tar" && echo "4 GiB stdin to stdout, gzip: gzip -dc gives the input, $(stat -c %s "$D/c.cuda") bytes"
"$P" compress --backend cuda -f native - -o - < "$D/sys.tar" 2>/dev/null > "$D/c.cuda"
"$P" decompress "$D/c.cuda" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "4 GiB stdin to stdout, native: decompress gives the input, $(stat -c %s "$D/c.cuda") bytes"
rm -f "$D/c.cuda" "$D/c.cpu"
echo "== 2. the CLI, 4 GiB of system files from standard input"
for r in 1 2 3; do
  for b in parvlc parvlc-before; do
    wall "$b cuda gzip run $r" ".device/$b compress --backend cuda -f gzip - -o - < $D/sys.tar"
    wall "$b cuda native run $r" ".device/$b compress --backend cuda -f native - -o - < $D/sys.tar"
  done
  wall "parvlc wgpu gzip run $r" "$P compress --backend wgpu -f gzip - -o - < $D/sys.tar"
  wall "parvlc wgpu native run $r" "$P compress --backend wgpu -f native - -o - < $D/sys.tar"
done
echo "== 3. the library, a GiB, host to host (medians of five runs)"
for r in 1 2; do
  for b in stream_bench stream_bench-before; do
    for fmt in native gzip; do
      echo "$b cuda $fmt round $r: $(BACKEND=cuda FORMAT=$fmt RUNS=5 .device/$b "$D/sys1g" | sed -n 2p)"
    done
  done
  for fmt in native gzip; do
    echo "stream_bench cuda, planned on the host, $fmt round $r: $(BACKEND=cuda PLANNER=host FORMAT=$fmt RUNS=5 .device/stream_bench "$D/sys1g" | sed -n 2p)"
  done
  for fmt in native gzip; do
    echo "stream_bench wgpu $fmt round $r: $(BACKEND=wgpu FORMAT=$fmt RUNS=5 .device/stream_bench "$D/sys1g" | sed -n 2p)"
  done
done
echo "== 4. each chunk's phases (the library's GiB, gzip, two runs, debug-logged)"
for b in stream_bench stream_bench-before; do
  BACKEND=cuda FORMAT=gzip RUNS=2 RUST_LOG=parvlc=debug ".device/$b" "$D/sys1g" 2> "$D/p.log" | sed -n 2p
  python3 -c '
import re, sys, statistics as st
ph = {}
for line in sys.stdin:
    if "on CUDA" not in line:
        continue
    for k, v in re.findall(r"(upload|histograms and plan|histograms|codes and tables|plan and tables|encode and readback|headers\+crc) ([0-9.]+) ms", line):
        ph.setdefault(k, []).append(float(v))
for k, v in ph.items():
    print(f"  {sys.argv[1]} {k}: {len(v)} chunks, median {st.median(v):.2f} ms, p90 {sorted(v)[int(len(v)*0.9)]:.2f} ms")
' "$b" < "$D/p.log"
  grep -m1 "on CUDA" "$D/p.log" | cut -c1-300
done
rm -rf "$D"
date -u
