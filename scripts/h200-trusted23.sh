#!/usr/bin/env bash
# (Run with an experiment build of 771e09e whose switch PARVLC_TRUSTED=1 built every
# module as the default now builds all but the decoder's; the call hit the device tool's
# 600 s limit in the 4 GiB rounds.)
# Shader modules built without naga's runtime checks (PARVLC_TRUSTED=1: no index clamps
# on workgroup and private arrays, no loop counters; storage buffers stay bounded by the
# driver's robust buffer access) against the default, one build, alternating in one call:
# the kernel suites (Huffman 1 GiB at 4.5 bits: cuvle, vld; CAVLC 1080p; JPEG 2000 4K;
# bit-stuffing), each checking every output before timing it; the library's 1 GiB of
# system files, native and gzip, three rounds of six runs (stream_bench decodes its
# output first); the library on 4 GiB (steady state), two rounds of three.
# There, from the project root, .device carried: bash scripts/h200-trusted23.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start trusted23
unpack_device
D=/tmp/parvlc-trusted23
sys_files "$D"
mode() { if [ "$1" = trusted ]; then export PARVLC_TRUSTED=1; else unset PARVLC_TRUSTED; fi; }
for round in 1 2; do
  for m in checked trusted; do
    mode $m
    echo "== $m, round $round: kernels"
    timeout 120 .device/parvlc bench --sizes 1073741824 --entropies 4.5 --strategies decoupled --no-baselines --cpu-max 0 --runs 3 2>&1 | grep -E "^  (cuvle|vld)" | grep -v "end-to-end"
    timeout 60 .device/parvlc bench cavlc --sizes 1080p --qps 27 --variants cavlcu --no-cpu --runs 20 2>&1 | grep -E "cavlcu" | head -3
    timeout 120 .device/parvlc bench j2k --sizes 4K --no-openjpeg --no-one-core --runs 3 2>&1 | grep -E "tier1|ht_cleanup|encoder" | head -8
    timeout 60 .device/parvlc bench bitstuff --runs 5 2>&1 | grep -E "vote|fsm|solo" | head -6
  done
done
for round in 1 2 3; do
  for f in native gzip; do
    for m in checked trusted; do
      mode $m
      echo -n "round $round, $f, $m: "
      FORMAT=$f RUNS=6 .device/sb "$D/sys1g" | tail -1
    done
  done
done
for round in 1 2; do
  for f in native gzip; do
    for m in checked trusted; do
      mode $m
      echo -n "4 GiB, round $round, $f, $m: "
      FORMAT=$f RUNS=3 .device/sb "$D/sys.tar" | tail -1
    done
  done
done
date -u
