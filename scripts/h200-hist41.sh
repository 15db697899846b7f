#!/usr/bin/env bash
# Issue 18 (whole compress at 1.3x nvCOMP ANS) and an open measurement of the thirty-ninth
# pass, in one call:
# 1. The histogram's 16-byte loads (.device/parvlc) against one word a load
#    (.device/parvlc-base): `parvlc bench --backend wgpu,cuda` (the high state, as nvCOMP
#    runs) at 1 GiB, 2, 4.5 and 7 bits, alternating; every output is checked before it
#    is timed.
# 2. The CUDA memory pool kept (the default) against the pool handing freed memory back
#    at every synchronisation (PARVLC_EXP_POOL_RELEASE=1, an experiment switch of this
#    build alone) for the CLI's `compress --backend cuda` of 4 GiB of system files, file
#    to file on tmpfs (the CUDA path takes no pipe), gzip and native, alternating; each
#    arm's outputs checked first. `PART=2` runs this part alone.
# There, from the project root, .device carried: bash scripts/h200-hist41.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start hist41
unpack_device
echo "== 1. the histogram's loads"
[ "${PART:-}" = 2 ] || for b in parvlc parvlc-base parvlc; do
  echo "== .device/$b"
  timeout 170 ".device/$b" bench --backend wgpu,cuda --sizes 1073741824 --entropies 2,4.5,7 \
    --strategies decoupled --no-baselines --cpu-max 0 --runs 3 2>&1 |
    grep -E "^  cuvle-(cuda-)?decoupled  " | grep -E "encode|compress"
done
echo "== 2. the CUDA pool and the CLI's compress --backend cuda (files: it takes no pipe)"
D=/dev/shm/parvlc-hist41
[ -f "$D/sys.tar" ] || sys_files "$D"
for arm in kept released; do
  env=""
  [ "$arm" = released ] && env="PARVLC_EXP_POOL_RELEASE=1"
  env $env .device/parvlc compress --backend cuda -f gzip "$D/sys.tar" -o "$D/c.gz" --force 2>&1 | tail -1
  gzip -dc "$D/c.gz" | cmp - "$D/sys.tar" && echo "$arm gzip: gzip -dc gives the input, $(stat -c %s "$D/c.gz") bytes"
  env $env .device/parvlc compress --backend cuda -f native "$D/sys.tar" -o "$D/c.pvlc" --force 2>&1 | tail -1
  .device/parvlc decompress "$D/c.pvlc" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "$arm native: decompress gives the input, $(stat -c %s "$D/c.pvlc") bytes"
done
for r in 1 2 3; do
  for arm in kept released; do
    env=""
    [ "$arm" = released ] && env="env PARVLC_EXP_POOL_RELEASE=1"
    rm -f "$D/c.gz" "$D/c.pvlc"
    wall "cuda gzip $arm run $r" "$env .device/parvlc compress --backend cuda -f gzip $D/sys.tar -o $D/c.gz"
    wall "cuda native $arm run $r" "$env .device/parvlc compress --backend cuda -f native $D/sys.tar -o $D/c.pvlc"
  done
done
for r in 1 2; do
  rm -f "$D/c.gz" "$D/c.pvlc"
  wall "wgpu gzip run $r (for reference)" ".device/parvlc compress -f gzip $D/sys.tar -o $D/c.gz"
  wall "wgpu native run $r (for reference)" ".device/parvlc compress -f native $D/sys.tar -o $D/c.pvlc"
done
rm -rf "$D"
date -u
