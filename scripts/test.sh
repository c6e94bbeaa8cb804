#!/usr/bin/env bash
# Installs missing dependencies, builds, and runs the test suite (tests labelled "slow"
# are left out; run them with: ctest --test-dir build -L slow).
# Takes the same environment as scripts/build.sh (XQZERO_SANITIZE=asan|tsan, BUILD_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=$(bash scripts/build.sh | tail -n 1)
ctest --test-dir "$build_dir" -LE slow --output-on-failure -j "$(nproc)"
