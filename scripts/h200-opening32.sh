#!/usr/bin/env bash
# The CLI's GPU decompress of a file with the GPU opened while the stream starts (this
# build, .device/parvlc-new: the batches ready before wgpu is open decode on the CPU
# cores) against 4b34819 (.device/parvlc: the stream waits for the GPU), 4 GiB of the
# machine's system files, native and our gzip, to /dev/null; --backend cpu beside them.
# Outputs compared with the input first; four rounds alternating; one debug-logged run
# each (how many batches the CPU took). Both builds with the `cuda` feature.
# There: bash scripts/h200-opening32.sh
source scripts/h200-lib.sh
h200_start opening32
unpack_device
D=/dev/shm/dec32; mkdir -p "$D"
sys_compressed "$D"
opening_log parvlc-new
decompress_rounds 4 1 parvlc parvlc-new
date -u
