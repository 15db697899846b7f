#!/usr/bin/env bash
# The CLI's decompress of 4 GiB of the machine's system files (native and our gzip,
# written by this build's compress) on every backend, after the CUDA twin of vld read
# and wrote 16 bytes at a time (4b34819, .device/parvlc, `cuda` feature). Each backend's
# output compared with the input first; then three rounds, to /dev/null, GNU time.
# There: bash scripts/h200-dec32.sh
source scripts/h200-lib.sh
h200_start dec32
unpack_device
D=/dev/shm/dec32; mkdir -p "$D"
sys_files "$D"
P=./.device/parvlc
$P compress -f native "$D/sys.tar" -o "$D/sys.pvl" 2>&1 | tail -1
$P compress -f gzip "$D/sys.tar" -o "$D/sys.gz" 2>&1 | tail -1
ls -l "$D"/sys.pvl "$D"/sys.gz
for f in pvl gz; do
  for be in cpu wgpu cuda; do
    $P decompress --backend $be "$D/sys.$f" -o - | cmp - "$D/sys.tar" && echo "$f, --backend $be: equals the input"
  done
done
for round in 1 2 3; do
  for f in pvl gz; do
    for be in cpu wgpu cuda; do
      wall "round $round, $f, decompress --backend $be" "$P decompress --backend $be $D/sys.$f -o - > /dev/null"
    done
  done
done
date -u
