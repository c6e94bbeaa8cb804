#!/usr/bin/env bash
# Installs missing dependencies, builds, and runs xqzero's main job on its default
# configuration. Extra arguments go to the main job.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=$(bash scripts/build.sh | tail -n 1)
exec "$build_dir/app/xqzero" train "$@"
