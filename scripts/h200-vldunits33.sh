#!/usr/bin/env bash
# The wgpu vld kernel storing the 16-byte units a block fills whole at once, through a
# second binding of its output (benches/results/h200-2026-11-30-vldunits33-exp.patch:
# .device/parvlc-units) against 8d03928's word stores (.device/parvlc-peak), as `vld_ab`
# in h200-lib.sh runs them. There: bash scripts/h200-vldunits33.sh
source scripts/h200-lib.sh
h200_start vldunits33
unpack_device
vld_ab parvlc-units parvlc-peak
date -u
