#!/usr/bin/env bash
# Build the `cuda` feature for the GPU machine into .device-cuda/ (git-ignored): the
# Vulkan loader and env script from ../shared/device/stage (run it first; it fills
# .device/), the CLI and the test binaries of the suites that run on every backend,
# stripped (the machine has no Rust toolchain). Carry .device-cuda along and run
# scripts/h200-cuda.sh there (see the README's "CUDA path").
set -euo pipefail
cd "$(dirname "$0")/.."
D=.device-cuda
grep -qx "/$D/" .git/info/exclude 2>/dev/null || echo "/$D/" >> .git/info/exclude
mkdir -p "$D/bin"
rm -rf "$D/gl"
cp -r .device/gl "$D/gl"
sed "s|\.device/|$D/|g" .device/env.sh > "$D/env.sh"
cargo build --release --features cuda --bin parvlc
cp target/release/parvlc "$D/bin/parvlc"
for t in cuvle formats cli bench stages framed; do
  exe=$(cargo test --release --features cuda --no-run --test "$t" 2>&1 |
        sed -n "s|.*Executable tests/$t.rs (\(.*\))|\1|p" | tail -1)
  cp "$exe" "$D/bin/$t"
done
# The library's own unit tests (src/cuda/mod.rs compiles the kernels with NVRTC).
exe=$(cargo test --release --features cuda --no-run --lib 2>&1 |
      sed -n "s|.*Executable unittests src/lib.rs (\(.*\))|\1|p" | tail -1)
cp "$exe" "$D/bin/lib"
strip "$D"/bin/*
du -sh "$D" "$D"/bin/*
