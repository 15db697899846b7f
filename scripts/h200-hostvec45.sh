#!/usr/bin/env bash
# Issue 13, the forty-fifth pass's second call: why the CUDA CLI's 4 GiB ran slower with
# the pass's build (0.87-0.96 s against 0.81-0.86) while the library ran faster. An
# experiment build (parvlc-x, stream_bench-x: this pass's code with an X_HOSTVEC switch,
# not kept) reads back into a pooled vector (unset), into a fresh zeroed one on a miss
# (calloc), or never recycles (none: the build before's allocation); the pass's build
# (new) and the build before alongside. Also what opening each backend costs a process.
set -uo pipefail
source scripts/h200-lib.sh
h200_start hostvec45
unpack_device
D=/dev/shm/parvlc-x45
sys_files "$D"
head -c 1073741824 "$D/sys.tar" > "$D/sys1g"
P=.device/parvlc-x
$P compress --backend cuda -f gzip - -o - < $D/sys.tar | gzip -dc | cmp - $D/sys.tar && echo "x build gzip decodes"
X_HOSTVEC=calloc $P compress --backend cuda -f gzip - -o - < $D/sys.tar | gzip -dc | cmp - $D/sys.tar && echo "x calloc gzip decodes"
X_HOSTVEC=none $P compress --backend cuda -f gzip - -o - < $D/sys.tar | gzip -dc | cmp - $D/sys.tar && echo "x none gzip decodes"
printf 'a' > "$D/one"
for r in 1 2 3; do
  for be in cuda wgpu; do
    wall "open cost: new $be one byte run $r" ".device/parvlc compress --backend $be -f gzip - -o - < $D/one"
  done
done
for r in 1 2 3 4; do
  for fmt in gzip native; do
    wall "x pool $fmt run $r" "$P compress --backend cuda -f $fmt - -o - < $D/sys.tar"
    wall "x calloc $fmt run $r" "X_HOSTVEC=calloc $P compress --backend cuda -f $fmt - -o - < $D/sys.tar"
    wall "x none $fmt run $r" "X_HOSTVEC=none $P compress --backend cuda -f $fmt - -o - < $D/sys.tar"
    wall "before $fmt run $r" ".device/parvlc-before compress --backend cuda -f $fmt - -o - < $D/sys.tar"
    wall "new $fmt run $r" ".device/parvlc compress --backend cuda -f $fmt - -o - < $D/sys.tar"
  done
done
for r in 1 2; do
  for x in pool calloc none; do
    for fmt in native gzip; do
      if [ $x = pool ]; then xv=; else xv="X_HOSTVEC=$x"; fi
      echo "stream_bench-x $x cuda $fmt round $r: $(env $xv BACKEND=cuda FORMAT=$fmt RUNS=5 .device/stream_bench-x $D/sys1g | sed -n 2p)"
    done
  done
  library_round $r "$D/sys1g" cuda stream_bench-before
done
echo "== the pipeline's depth, the pass's code (stream_bench-x, no switch), a GiB"
for r in 1 2; do
  for be in cuda wgpu; do
    for fmt in gzip native; do
      echo "-- $be $fmt round $r"
      DEPTHS=10,12,14,16 BACKEND=$be FORMAT=$fmt RUNS=5 .device/stream_bench-x "$D/sys1g" | grep "^depth"
    done
  done
done
rm -rf "$D"
date -u
