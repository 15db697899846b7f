#!/usr/bin/env bash
# Issue 13, the forty-seventh pass: how fast one file can be written on the GPU machine,
# the floor under any CLI run with files out: 4 GiB of its system files (and 3.2 GB,
# our gzip output's size) copied into a tmpfs file and onto the disk by cat, cp and dd
# at several block sizes (GNU time: wall, CPU); dd into a fresh file with
# oflag=direct is left out (tmpfs has no direct I/O).
# There, from the project root: bash scripts/h200-floor47.sh.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start "${NAME:-floor47}"
D=/dev/shm/parvlc-floor47
sys_files "$D"
rm -f "$D/sys1g"
head -c 3212995030 "$D/sys.tar" > "$D/gz-size"
cat "$D/gz-size" > /dev/null
for r in 1 2 3; do
  for src in sys.tar gz-size; do
    rm -f "$D/out"; wall "tmpfs cat $src run $r" "cat $D/$src > $D/out"
    rm -f "$D/out"; wall "tmpfs cp $src run $r" "cp $D/$src $D/out"
    for bs in 1M 32M; do
      rm -f "$D/out"; wall "tmpfs dd bs=$bs $src run $r" "dd if=$D/$src of=$D/out bs=$bs status=none"
    done
  done
done
W=./floor47-scratch
mkdir -p "$W"
for r in 1 2; do
  rm -f "$W/out"; sync
  wall "disk cp+sync sys.tar run $r" "cp $D/sys.tar $W/out && sync $W/out"
  rm -f "$W/out"; sync
  wall "disk cp+sync gz-size run $r" "cp $D/gz-size $W/out && sync $W/out"
done
rm -rf "$W" "$D"
date -u
