#!/usr/bin/env bash
# The test command: installs what the tests need on a fresh Debian machine, then runs them.
#   - mesa-vulkan-drivers: lavapipe, the software Vulkan adapter the GPU tests run on
#   - gzip: third-party judge of our gzip output
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
for pkg in mesa-vulkan-drivers gzip; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Mesa warns about this on headless machines; give it a private runtime dir.
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
cargo test --release "$@"
