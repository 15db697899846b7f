#!/usr/bin/env bash
# How the H200 takes per-lane output streams written a word, 16 bytes or a line at a
# time, and a warp's lanes writing their streams a whole line per store (what a decoder
# staging its lanes' output would do). Stage: cargo build --release --example
# memory_probe; strip --strip-debug, gzip into .device/probe.gz. Then there:
# bash scripts/h200-wlines31.sh. The probe twice without a ramp (the GPU's memory path in
# whatever state the run before left it), then with a second of back-to-back kernels
# before each case (the high state), twice.
source scripts/h200-lib.sh
h200_start wlines31
unpack_device
for r in 1 2; do echo "== plain, run $r"; ./.device/probe; done
for r in 1 2; do echo "== --ramp 1, run $r"; ./.device/probe --ramp 1 | grep -v "^ramp"; done
