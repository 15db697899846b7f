#!/usr/bin/env bash
# The host's side of the link (issue 13): how fast 1-16 threads copy into mapped upload
# buffers (BAR memory on this GPU: each byte crosses PCIe) and out of mapped readback
# buffers, beside the link's own figures (examples/link_bench.rs).
# There, from the project root, .device carried: bash scripts/h200-hostlink20.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start hostlink20
unpack_device
CHUNK_MIB=4 N=128 .device/link_bench
date -u
