#!/usr/bin/env bash
# JPEG 2000 first runs and warm runs on the GPU machine, per binary: each binary in
# BINS (default .device/parvlc) on a 4K, a 2K and a 1K RGB 8-bit picture with
#   cold:  no parvlc pipeline cache and no driver shader cache (a fresh machine), with the
#          debug log's pipeline build times
#   warm:  three runs, one-kernel and three-kernel tier-1
# every output compared with the CPU's codestream and decoded by opj_decompress where it
# is on PATH; opj_compress -M 1 beside it. Here: ../shared/device/stage --openjpeg.
# There, from the project root:  bash scripts/h200-j2k-cold.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/j2k-cold.txt") 2>&1
# shellcheck disable=SC1091
source .device/env.sh
BINS=${BINS:-.device/parvlc}
D=${DATA:-/tmp/parvlc-j2k}
mkdir -p "$D"
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
python3 - "$D" <<'PY'
import sys, math
d = sys.argv[1]
for name, w, h in (("4k", 3840, 2160), ("2k", 1920, 1080), ("1k", 1024, 1024)):
    rows = []
    for y in range(h):
        r = bytearray(3 * w)
        for x in range(w):
            v = (x * 255 // w + int(40 * math.sin(y / 37.0) * math.cos(x / 53.0))) & 255
            r[3 * x] = v
            r[3 * x + 1] = (v + y) & 255
            r[3 * x + 2] = (x ^ y) & 255
        rows.append(bytes(r))
    open(f"{d}/{name}.ppm", "wb").write(b"P6\n%d %d\n255\n" % (w, h) + b"".join(rows))
PY
wall() { # label, command...: one run's wall, user and sys seconds
  local label=$1; shift
  /usr/bin/time -f "$label	wall %e s	user %U s	sys %S s" "$@" 2>&1 >/dev/null | tail -1
}
P0=${BINS%% *}
for pic in 4k 2k 1k; do
  $P0 j2k --backend cpu "$D/$pic.ppm" -o "$D/$pic-cpu.j2k" --force 2>/dev/null
  if command -v opj_decompress >/dev/null; then
    opj_decompress -i "$D/$pic-cpu.j2k" -o "$D/$pic-back.ppm" >/dev/null 2>&1
    python3 -c "import sys; a=open(sys.argv[1],'rb').read(); b=open(sys.argv[2],'rb').read(); n=len(a)-a.index(b'255\n')-4; print(sys.argv[1], 'opj_decompress exact' if a[-n:]==b[-n:] else 'MISMATCH')" "$D/$pic.ppm" "$D/$pic-back.ppm"
  fi
done
for P in $BINS; do
  echo "== $P"
  for strategy in one-kernel three-kernel; do
    export PARVLC_CACHE_DIR="$D/cache-$strategy"
    rm -rf "$PARVLC_CACHE_DIR" "$HOME/.cache/nvidia" "$HOME/.nv"
    J=("$P" j2k --tier1 "$strategy" "$D/4k.ppm" -o "$D/4k.j2k" --force)
    RUST_LOG=parvlc=debug /usr/bin/time -f "4k $strategy cold	wall %e s" "${J[@]}" 2> "$D/cold.log" >/dev/null
    grep -o "pipeline parvlc.j2k.tier1[^ ]* .*built in.*" "$D/cold.log" | sed 's/\[.*\]//'
    tail -1 "$D/cold.log"
    cmp -s "$D/4k.j2k" "$D/4k-cpu.j2k" || echo "MISMATCH 4k $strategy"
    for pic in 4k 2k 1k; do
      J=("$P" j2k --tier1 "$strategy" "$D/$pic.ppm" -o "$D/$pic.j2k" --force)
      "${J[@]}" 2>/dev/null
      cmp -s "$D/$pic.j2k" "$D/$pic-cpu.j2k" || echo "MISMATCH $pic $strategy"
      for r in 1 2 3; do wall "$pic $strategy warm $r" "${J[@]}"; done
    done
    RUST_LOG=parvlc=debug "$P" j2k --tier1 "$strategy" "$D/4k.ppm" -o "$D/4k.j2k" --force 2>&1 | grep -e "read in" -e "opened in" -e "tier-1" -e "encoded in" | sed 's/^\[[^]]*\] //'
  done
done
for pic in 4k 2k 1k; do
  wall "$pic cpu" "$P0" j2k --backend cpu "$D/$pic.ppm" -o "$D/$pic-cpu.j2k" --force
  if command -v opj_compress >/dev/null; then
    for r in 1 2 3; do
      wall "$pic opj_compress -M 1 -threads $(nproc) $r" opj_compress -i "$D/$pic.ppm" -o "$D/$pic-opj.j2k" -M 1 -threads "$(nproc)"
    done
  fi
done
