#!/usr/bin/env bash
# The wgpu vld kernel loading its next payload word only when it takes one (under a
# branch; benches/results/h200-2026-11-30-vldload33-exp.patch: .device/parvlc-ld) against
# the kernel that loads a word every step and takes it by select (.device/parvlc-auto2,
# aa35b5b), as `vld_ab` in h200-lib.sh runs them. There: bash scripts/h200-vldload33.sh
source scripts/h200-lib.sh
h200_start vldload33
unpack_device
vld_ab parvlc-ld parvlc-auto2
date -u
