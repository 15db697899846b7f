#!/usr/bin/env bash
# The wgpu vld kernel reading its payload from runs of 32 blocks' words interleaved
# (PayloadLayout::Lanes, .device/parvlc-lanes) against each block reading its frame's
# words in order (.device/parvlc-vbase, c5e3a04), as `vld_ab` in h200-lib.sh runs them.
# There: bash scripts/h200-lanes37.sh
source scripts/h200-lib.sh
h200_start lanes37
unpack_device
vld_ab parvlc-lanes parvlc-vbase
date -u
