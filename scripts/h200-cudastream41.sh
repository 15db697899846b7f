#!/usr/bin/env bash
# Issue 13: `parvlc compress --backend cuda` through the streaming pipeline (chunks coded
# by the CUDA kernel's framed pass) where it had read the whole file and coded it with
# one table (the thirty-ninth pass's build: 4 GiB in 13-16 s, 11.7 GB peak).
# 1. Its bytes: for each input and format, the CUDA output equals the CPU backend's byte
#    for byte, and gzip -dc / parvlc decompress give the input back; stdin to stdout too.
# 2. Its speed and memory beside the wgpu path: 4 GiB of system files from standard
#    input, three runs each, GNU time.
# There, from the project root, .device carried: bash scripts/h200-cudastream41.sh
# (NAME names the output file, FILES picks the inputs of part 1; the second call of this
# pass: NAME=cudastream41b FILES="r5000 sys100m sys1g".)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start "${NAME:-cudastream41}"
unpack_device
P=.device/parvlc
D=/dev/shm/parvlc-cudastream41
cuda_stream_inputs "$D"
echo "== 1. the CUDA stream's bytes against the CPU backend's"
# shellcheck disable=SC2086
cuda_stream_bytes "$D" "$P" ${FILES:-empty one r5000 random64m zero64m sys100m sys1g}
echo "== 2. 4 GiB of system files from standard input"
for r in 1 2 3; do
  for b in cuda wgpu; do
    wall "$b gzip run $r" "$P compress --backend $b -f gzip - -o - < $D/sys.tar"
    wall "$b native run $r" "$P compress --backend $b -f native - -o - < $D/sys.tar"
  done
done
rm -rf "$D"
date -u
