#!/usr/bin/env bash
# Issue 13's bound on memory (512 MiB) for the CUDA routes: the pool's idle pinned buffers
# bounded differently (an experiment build, benches/results/h200-2026-12-03-pinned43.patch:
# PARVLC_EXP_PINNED_IDLE_N buffers and PARVLC_EXP_PINNED_IDLE_MIB bytes at most), on
# `decompress --backend cuda` of 4 GiB of system files (native and gzip, this build's
# files, outputs compared first) and `compress --backend cuda` from standard input, GNU
# time's wall and peak, settings alternating, two rounds.
# Carried in .device: parvlc (the experiment build, gzipped). There: bash scripts/h200-pinned43.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start "${NAME:-pinned43}"
unpack_device
P=.device/parvlc
D=/dev/shm/parvlc-pinned43
sys_compressed "$D"
for f in pvl gz; do
  $P decompress --backend cuda "$D/sys.$f" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "$f, --backend cuda: equals the input"
done
for round in 1 2; do
  for setting in "32 512" "32 256" "16 128" "8 512" "8 128"; do
    set -- $setting
    for f in pvl gz; do
      wall "round $round, idle $1 buffers / $2 MiB, decompress $f" "PARVLC_EXP_PINNED_IDLE_N=$1 PARVLC_EXP_PINNED_IDLE_MIB=$2 $P decompress --backend cuda $D/sys.$f -o - > /dev/null"
    done
    wall "round $round, idle $1 buffers / $2 MiB, compress gzip" "PARVLC_EXP_PINNED_IDLE_N=$1 PARVLC_EXP_PINNED_IDLE_MIB=$2 $P compress --backend cuda -f gzip - -o - < $D/sys.tar"
  done
done
rm -rf "$D"
date -u
