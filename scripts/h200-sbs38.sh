#!/usr/bin/env bash
# Issues 13, 14 and 18 in one call, at the pass's base build (the `cuda` build as
# .device/parvlc): parvlc against nvCOMP on the same bytes in the same run, and the
# Huffman figures a user sees.
# 1. scripts/h200-nvcomp.sh at 1 GiB and 2, 4.5, 7 bits: our rows on wgpu and CUDA
#    (encode, compress, compress in nvCOMP's scope, the decoders) beside nvCOMP's ANS,
#    GDeflate and Deflate compress and decompress, every output checked before timing.
# 2. Ratio on a GiB of the machine's system files: our CLI's gzip and native (both decoded
#    and compared first), zlib's Z_HUFFMAN_ONLY, nvCOMP's three codecs (same bytes).
# 3. The CLI on 4 GiB of system files from standard input (gzip, native) and its GPU
#    decompress of the native file (outputs checked first), three runs each; the library
#    host to host (examples/stream_bench, which decodes its output before timing).
# There, from the project root, .device carried: bash scripts/h200-sbs38.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start sbs38
unpack_device
D=/dev/shm/parvlc-sbs38
mkdir -p "$D"

echo "== 1. side by side with nvCOMP"
OUT="$OUT/sbs" PARVLC=.device/parvlc BACKENDS=wgpu,cuda SIZES=1073741824 ENTROPIES=2,4.5,7 \
  RUNS=5 DATA="$D/synthetic" timeout 420 bash scripts/h200-nvcomp.sh > /dev/null 2>&1
echo "nvcomp script exit $?"
cat "$OUT/sbs/table.md" 2>/dev/null
grep -E "decode|decompress|stream" "$OUT/sbs/parvlc.txt" 2>/dev/null | head -40
rm -rf "$D/synthetic"

echo "== 2. ratio on a GiB of system files"
sys_files "$D"
.device/parvlc compress -f gzip "$D/sys1g" -o "$D/s.gz" 2>/dev/null
gzip -dc "$D/s.gz" | cmp - "$D/sys1g" && echo "ours gzip: $(stat -c %s "$D/s.gz") bytes (gzip -dc gives the input)"
.device/parvlc compress -f native "$D/sys1g" -o "$D/s.pvlc" 2>/dev/null
.device/parvlc decompress "$D/s.pvlc" -o - 2>/dev/null | cmp - "$D/sys1g" && echo "ours native: $(stat -c %s "$D/s.pvlc") bytes (decompress gives the input)"
rm -f "$D/s.gz" "$D/s.pvlc"
python3 - "$D/sys1g" <<'PY'
import sys, zlib
data = open(sys.argv[1], "rb").read()
c = zlib.compressobj(6, zlib.DEFLATED, 31, 9, zlib.Z_HUFFMAN_ONLY)
n = len(c.compress(data)) + len(c.flush())
print(f"zlib Z_HUFFMAN_ONLY: {n} bytes, ratio {len(data) / n:.4f}")
PY
# (The run of 2026-12-01 had this one-liner inside single quotes with escaped double
# quotes, a syntax error to Python: no nvCOMP ratio came out. A heredoc now.)
timeout 120 python3 scripts/nvcomp_bench.py --runs 1 "$D/sys1g" 2>/dev/null |
  python3 /dev/fd/3 3<<'PY'
import sys, json
for l in sys.stdin:
    r = json.loads(l)
    print(f"nvCOMP {r.get('codec', r.get('variant'))}: {r['compressed']} bytes, ratio {r['ratio']:.4f}")
PY

echo "== 3. the CLI and the library"
.device/parvlc compress -f gzip - -o - < "$D/sys.tar" 2>/dev/null > "$D/c.gz"
gzip -dc "$D/c.gz" | cmp - "$D/sys.tar" && echo "CLI gzip: gzip -dc gives the input, $(stat -c %s "$D/c.gz") bytes"
rm -f "$D/c.gz"
.device/parvlc compress -f native - -o - < "$D/sys.tar" 2>/dev/null > "$D/c.pvlc"
.device/parvlc decompress --backend wgpu "$D/c.pvlc" -o - 2>/dev/null | cmp - "$D/sys.tar" && echo "CLI native: decompress --backend wgpu gives the input, $(stat -c %s "$D/c.pvlc") bytes"
for r in 1 2 3; do
  wall "gzip stdin run $r" ".device/parvlc compress -f gzip - -o - < $D/sys.tar"
  wall "native stdin run $r" ".device/parvlc compress -f native - -o - < $D/sys.tar"
  wall "decompress --backend wgpu run $r" ".device/parvlc decompress --backend wgpu $D/c.pvlc -o -"
  wall "decompress (auto) run $r" ".device/parvlc decompress $D/c.pvlc -o -"
done
RUNS=8 sb_rounds "$D" 2 stream_bench
rm -rf "$D"
date -u
