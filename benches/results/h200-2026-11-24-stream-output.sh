#!/usr/bin/env bash
# The library's host-to-host compress (bench row `stream`, 1 GiB at 4.5 bits) with a fresh
# output vector per run (as committed) and with one reused (an experiment switch), beside
# the CLI on the same bytes (dumped by the bench) from a file to /dev/null.
set -uo pipefail
source .device/env.sh
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
D=/tmp/l; mkdir -p $D
B="--sizes 1073741824 --entropies 4.5 --strategies decoupled --no-baselines --cpu-max 0 --runs 3"
.device/parvlc bench $B --dump $D > /dev/null 2>&1; ls -l $D | head
f=$(ls $D/* | head -1)
for r in 1 2; do
  echo "-- fresh output"; .device/parvlc bench $B 2>&1 | grep -i "stream\|error"
  echo "-- reused output"; XREUSE=1 .device/parvlc bench $B 2>&1 | grep -i "stream\|error"
  for fmt in native gzip; do
    /usr/bin/time -f "CLI compress -f $fmt 1 GiB file to /dev/null: %e s, peak %M KiB" .device/parvlc compress -f $fmt "$f" -o - > /dev/null 2>> $D/t.txt; tail -1 $D/t.txt
  done
done
RUST_LOG=parvlc=debug .device/parvlc compress -f native "$f" -o - 2> $OUT/cli-debug.log > /dev/null
grep -c "chunk of" $OUT/cli-debug.log
