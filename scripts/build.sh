#!/usr/bin/env bash
# Installs missing dependencies, configures and builds xqzero.
#   BUILD_DIR      build folder (default: build)
#   XQZERO_SANITIZE  asan | tsan (default: none); the build folder defaults to build-asan / build-tsan
#   CMAKE_ARGS     extra arguments for cmake (for example -DCMAKE_PREFIX_PATH=<a CUDA LibTorch>)
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh

sanitize="${XQZERO_SANITIZE:-}"
flags=()
case "$sanitize" in
  "") build_dir="${BUILD_DIR:-build}" ;;
  asan) build_dir="${BUILD_DIR:-build-asan}"; flags+=(-DXQZERO_ASAN=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo) ;;
  tsan) build_dir="${BUILD_DIR:-build-tsan}"; flags+=(-DXQZERO_TSAN=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo) ;;
  *) echo "build: XQZERO_SANITIZE must be asan or tsan, got '$sanitize'" >&2; exit 2 ;;
esac

# Build output goes to stderr; the last line on stdout is the build folder, for the
# scripts that call this one.
mkdir -p "$build_dir"
# shellcheck disable=SC2086
if ! cmake -S . -B "$build_dir" -G Ninja "${flags[@]}" ${CMAKE_ARGS:-} >"$build_dir/configure.log" 2>&1; then
  cat "$build_dir/configure.log" >&2
  exit 1
fi
cmake --build "$build_dir" -j "$(nproc)" >&2
echo "$build_dir"
