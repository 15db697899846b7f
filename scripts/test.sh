#!/usr/bin/env bash
# The test command: installs what the tests need on a fresh Debian machine, then runs them.
#   - mesa-vulkan-drivers: lavapipe, the software Vulkan adapter the GPU tests run on
#   - gzip: third-party judge of our gzip output
#   - ffmpeg: third-party judge of our H.264 streams (decodes with -err_detect explode)
#   - python-matplotlib-data: the photograph the H.264 rate-distortion report pans over
#   - libopenjp2-tools: opj_decompress / opj_dump, third-party judges of our JPEG 2000 codestreams
#   - openjph-tools, grokj2k-tools: ojph_expand and grk_decompress, the other two judges of
#     our HTJ2K (Part 15) codestreams (and ojph_compress, the size anchor)
#   - chromium, and node/npm where missing: the browser test of web/ (WebGPU on
#     SwiftShader through playwright-core; see web/test/browser.test.mjs)
#   - g++: libFuzzer (built by the fuzz targets' libfuzzer-sys); cargo-fuzz itself is
#     installed by fuzz/run.sh when missing
#   - python3-pip: fetches NVRTC 13 (a Python wheel), which compiles the `cuda` feature's
#     kernels in the tests below (no driver or GPU needed)
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
for pkg in mesa-vulkan-drivers gzip chromium ffmpeg python-matplotlib-data libopenjp2-tools openjph-tools grokj2k-tools g++ python3-pip; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Mesa warns about this on headless machines; give it a private runtime dir.
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
cargo test --release "$@"

# The `cuda` feature's kernels (shaders/cuda/*.cu, compiled at run time by NVRTC) compile
# for the H200's architecture in every shape the code uses: NVRTC 13 from its wheel,
# unpacked into a temporary folder. With them, the feature's other unit tests (its pools,
# staged copies and module cache), none of which needs a GPU.
nvrtc_dir="$(mktemp -d)"
python3 -m pip download --quiet --no-deps --dest "$nvrtc_dir" "nvidia-cuda-nvrtc>=13,<14"
python3 -m zipfile -e "$nvrtc_dir"/nvidia_cuda_nvrtc-*.whl "$nvrtc_dir/wheel"
PARVLC_NVRTC="$(find "$nvrtc_dir/wheel" -name libnvrtc.so.13 | head -1)" PARVLC_REQUIRE_CUDA=1 \
  cargo test --release --features cuda --lib cuda::

# The H.264 rate-distortion report (issue 15) on small clips: bytes and PSNR per QP for
# parvlc and x264 (ffmpeg's libx264), every stream of ours decoded by FFmpeg to our
# reconstruction, the BD-rates printed. Its BD-rate arithmetic checks itself first.
python3 scripts/h264_rd.py --self-test
python3 scripts/h264_rd.py --clips small --out "$(mktemp -d)"

# The examples run as a user would run them (cargo test only builds them).
for ex in examples/*.rs; do
  cargo run --release --quiet --example "$(basename "$ex" .rs)"
done

# Every fuzz target (fuzz/README.md) for a bounded time each (PARVLC_FUZZ_SECONDS, default
# 60; 0 skips them); any crash fails the run.
fuzz_seconds="${PARVLC_FUZZ_SECONDS:-60}"
if [ "$fuzz_seconds" -gt 0 ]; then
  ./fuzz/run.sh "$fuzz_seconds"
fi

# The browser demo: build web/dist/, then drive it in headless Chromium (both scenarios:
# WebGPU on SwiftShader, and no WebGPU -> the CPU path). Screenshots: web/test/out/.
./web/build.sh
(cd web && npm ci --no-audit --no-fund --loglevel=error && node --test test/browser.test.mjs)
