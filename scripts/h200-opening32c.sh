#!/usr/bin/env bash
# The build of scripts/h200-opening32.sh with the batches taken before the GPU is open
# decoded one at a time on all the cores (rayon's shared pool), as the CPU decoder runs
# (.device/parvlc-new), against 4b34819 (.device/parvlc): the CLI's wgpu decompress of
# 4 GiB of system files, native and gzip, wall and peak memory, five rounds
# alternating; --backend cpu beside them; one debug-logged run each (batches on the CPU).
# There: bash scripts/h200-opening32c.sh
source scripts/h200-lib.sh
h200_start opening32c
unpack_device
D=/dev/shm/dec32; mkdir -p "$D"
sys_compressed "$D"
opening_log parvlc-new
decompress_rounds 5 1 parvlc parvlc-new
date -u
