#!/usr/bin/env bash
# Builds the browser demo into web/dist/ (serve that folder with any static server):
#   - the wasm32-unknown-unknown target (rustup)
#   - wasm-bindgen-cli at exactly the wasm-bindgen version Cargo.lock pins
#   - the parvlc-web crate in release, bound with `wasm-bindgen --target web`
#   - the static page from web/www/
set -euo pipefail
cd "$(dirname "$0")/.."

rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown \
  || rustup target add wasm32-unknown-unknown

# The wasm-bindgen version Cargo.lock pins: the CLI must match it exactly.
version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if [ -z "$version" ]; then
  echo "web/build.sh: no wasm-bindgen in Cargo.lock" >&2
  exit 1
fi
have=$(wasm-bindgen --version 2>/dev/null | awk '{ print $2 }' || true)
if [ "$have" != "$version" ]; then
  echo "web/build.sh: installing wasm-bindgen-cli $version (found: ${have:-none})"
  # --locked where the registry still offers the CLI's own locked dependencies;
  # otherwise the newest compatible ones (the CLI's version stays exact).
  cargo install wasm-bindgen-cli --version "=$version" --locked \
    || cargo install wasm-bindgen-cli --version "=$version"
fi

# No debug info in the wasm (the release profile keeps line tables for native profiling).
CARGO_PROFILE_RELEASE_DEBUG=false \
  cargo build --release --target wasm32-unknown-unknown -p parvlc-web

out=web/dist
rm -rf "$out"
mkdir -p "$out"
wasm-bindgen --target web --no-typescript --out-dir "$out" \
  "${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release/parvlc_web.wasm"
cp web/www/* "$out"/
echo "web/build.sh: built $out/ ($(du -sh "$out" | cut -f1)); serve it, e.g."
echo "  python3 -m http.server -d $out 8000   # then open http://127.0.0.1:8000/"
