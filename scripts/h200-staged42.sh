#!/usr/bin/env bash
# Issue 13: the CUDA stream coder's copies through pinned pieces (src/cuda/staged.rs), its
# cell histograms on the device, and the CUDA kernels kept compiled across processes
# (src/cuda/module_cache.rs), against the build before (pageable copies, cell histograms
# on the coder's core, NVRTC in every process) and against this build with the
# histograms on the host (`-hosthist`), in one call:
# 1. Bytes: for each input and format, the new CUDA output equals the CPU backend's byte
#    for byte and decodes (gzip -dc, parvlc decompress); 4 GiB from standard input too.
# 2. The CLI, 4 GiB of system files from standard input, GNU time, arms alternating;
#    this build also with an empty module cache each run (`cold`: NVRTC compiles).
# 3. The library host to host (examples/stream_bench, BACKEND=cuda, a GiB of the same
#    files; it decodes its output before timing), arms alternating; wgpu beside it.
# 4. Each chunk's phases, debug-logged, new and -hosthist (the library's GiB, gzip).
# (PART=4: part 4 alone, on a GiB of its own.)
# Carried in .device: parvlc, parvlc-before, parvlc-hosthist and stream_bench{,-before,
# -hosthist} (gzipped). There, from the project root: bash scripts/h200-staged42.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/h200-lib.sh
source scripts/h200-lib.sh
h200_start "${NAME:-staged42}"
unpack_device
P=.device/parvlc
D=/dev/shm/parvlc-staged42
if [ "${PART:-}" = 4 ]; then sys_1g "$D"; else
cuda_stream_inputs "$D"
echo "== 1. the CUDA stream's bytes against the CPU backend's"
cuda_stream_bytes "$D" "$P" empty one r5000 random64m sys100m sys1g
echo "== 2. the CLI, 4 GiB of system files from standard input"
for r in 1 2 3; do
  for b in parvlc parvlc-before parvlc-hosthist; do
    wall "$b cuda gzip run $r" ".device/$b compress --backend cuda -f gzip - -o - < $D/sys.tar"
    wall "$b cuda native run $r" ".device/$b compress --backend cuda -f native - -o - < $D/sys.tar"
  done
  rm -rf "$D/cold"; mkdir -p "$D/cold"; cp -r "${HOME:-/root}/.cache/parvlc/." "$D/cold/" 2>/dev/null; rm -f "$D"/cold/cuda-*
  wall "parvlc cold cuda gzip run $r" "PARVLC_CACHE_DIR=$D/cold $P compress --backend cuda -f gzip - -o - < $D/sys.tar"
  wall "parvlc wgpu gzip run $r" "$P compress --backend wgpu -f gzip - -o - < $D/sys.tar"
done
echo "the module cache: $(ls "${HOME:-/root}/.cache/parvlc" | tr '\n' ' ')"
echo "compiles and loads of one CUDA run, cold then warm:"
rm -rf "$D/cold"; mkdir -p "$D/cold"
for k in cold warm; do
  PARVLC_CACHE_DIR=$D/cold RUST_LOG=parvlc=debug $P compress --backend cuda -f gzip "$D/sys100m" -o "$D/c.cuda" --force 2>&1 | grep -E "NVRTC|module cache" | sed "s/^/  $k: /"
done
echo "== 3. the library, a GiB, host to host (medians of five runs)"
for r in 1 2; do
  library_round $r "$D/sys1g" cuda stream_bench stream_bench-before stream_bench-hosthist
  library_round $r "$D/sys1g" wgpu stream_bench
done
fi
echo "== 4. each chunk's phases (the library's GiB, gzip, two runs, debug-logged)"
cuda_phase_runs "$D/sys1g" stream_bench stream_bench-hosthist
rm -rf "$D"
date -u

