#!/usr/bin/env bash
# decompress --backend auto with the threshold a core (this build, .device/parvlc-auto2,
# `--features cuda`; 160 MiB of input a core): the first 1, 2 and all 4 GiB of the system
# files, native and gzip, by `--backend cpu`, `--backend wgpu` and auto, to /dev/null, on
# all 16 cores and on 8 and 4 of them (taskset: the process and its threads), outputs
# compared first; then `--backend wgpu` without an adapter against `--backend cpu`.
# There: bash scripts/h200-auto33b.sh
source scripts/h200-lib.sh
h200_start auto33b
unpack_device
D=/dev/shm/dec33; mkdir -p "$D"
B=.device/parvlc-auto2
sys_files "$D"
for s in 1G 2G; do head -c "$s" "$D/sys.tar" > "$D/$s"; done
mv "$D/sys.tar" "$D/4G"; rm -f "$D/sys1g"
for s in 1G 2G 4G; do
  for f in native gzip; do $B compress -f $f "$D/$s" -o "$D/$s.$f" 2>&1 | tail -1; done
done
cat "$D"/* > /dev/null
for s in 1G 2G 4G; do
  for f in native gzip; do
    for b in cpu wgpu auto; do
      $B decompress --backend $b "$D/$s.$f" -o - 2>/dev/null | cmp - "$D/$s" || echo "MISMATCH $s $f $b"
    done
  done
done
echo "every output compared"
for round in 1 2 3; do
  for s in 2G 4G; do
    for f in native gzip; do
      for b in cpu wgpu auto; do
        wall "round $round, 16 cores, $s, $f, $b" "$B decompress --backend $b $D/$s.$f -o - 2>/dev/null > /dev/null"
      done
    done
  done
done
for round in 1 2; do
  for cores in 0-7 0-3; do
    for s in 1G 2G; do
      for f in native gzip; do
        for b in cpu wgpu auto; do
          wall "round $round, cores $cores, $s, $f, $b" "taskset -c $cores $B decompress --backend $b $D/$s.$f -o - 2>/dev/null > /dev/null"
        done
      done
    done
  done
done
no_adapter_rounds 3 $B "$D/4G.native" "$D/4G.gzip"
date -u
