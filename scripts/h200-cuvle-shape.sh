#!/usr/bin/env bash
# cuvle's launch shape (NET words per invocation, invocations per workgroup) on the GPU
# machine, one build, subgroup flavour, 1 GiB at 4.5 bits (the bench checks each row's
# output first); then where compress's peak memory goes: the process on a 1 MiB input
# (driver and pipelines, no stream to speak of), cold and warm, and 4 GiB at depths 4 and
# 6, cold and warm. There, from the project root, .device carried:
#   bash scripts/h200-cuvle-shape.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/cuvle-shape.txt") 2>&1
# shellcheck disable=SC1091
source .device/env.sh
P=${P:-.device/parvlc}
SHAPES=${SHAPES:-"16:256 32:256 16:128 8:512 16:512"}
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for shape in $SHAPES; do
  net=${shape%%:*}; wg=${shape##*:}
  echo "== net $net, workgroup $wg"
  $P bench --backend wgpu --sizes 1073741824 --entropies 4.5 --strategies decoupled \
    --no-baselines --cpu-max 0 --runs 5 --net "$net" --workgroup-size "$wg" 2>&1 |
    grep -E "error|cuvle-decoupled +(encode|compress) "
done
D=/tmp/parvlc-shape
mkdir -p "$D"
for _ in 1 2 3 4 5 6 7 8; do tar cf - /usr /opt /etc 2>/dev/null; done | head -c 4294967296 > "$D/sys.tar"
head -c 1048576 "$D/sys.tar" > "$D/small"
t() { /usr/bin/time -f "$1	wall %e s	peak %M KiB" sh -c "$2" 2>&1 >/dev/null | tail -1; }
$P compress -f gzip - -o - < "$D/sys.tar" 2>/dev/null | gzip -dc | cmp - "$D/sys.tar" && echo "gzip -dc gives the input"
echo "== peak memory"
for r in 1 2; do
  export PARVLC_CACHE_DIR="$D/cache-cold"
  rm -rf "$PARVLC_CACHE_DIR" "$HOME/.cache/nvidia" "$HOME/.nv"
  t "1 MiB gzip cold $r" "$P compress -f gzip - -o - < $D/small"
  t "1 MiB gzip warm $r" "$P compress -f gzip - -o - < $D/small"
  for depth in 4 6; do
    rm -rf "$PARVLC_CACHE_DIR" "$HOME/.cache/nvidia" "$HOME/.nv"
    t "4 GiB gzip depth $depth cold $r" "$P compress -f gzip --depth $depth - -o - < $D/sys.tar"
    t "4 GiB gzip depth $depth warm $r" "$P compress -f gzip --depth $depth - -o - < $D/sys.tar"
  done
done
rm -rf "$D"
