#!/usr/bin/env bash
# Installs xqzero's build dependencies from Debian's packages when any is missing.
# Safe to run repeatedly: it does nothing when everything is installed.
set -euo pipefail

packages=(
  g++ cmake ninja-build ccache pkg-config
  libtorch-dev            # LibTorch (CPU); point CMAKE_PREFIX_PATH at another LibTorch to override
  libopenblas0-openmp     # its float32 linear layers: else the reference BLAS, 18x slower (nn/blas.h)
  libprotobuf-dev protobuf-compiler zlib1g-dev
  libgtest-dev
  nlohmann-json3-dev      # JSON: `xqzero analyse`, metrics.jsonl
  libcpp-httplib-dev      # HTTP: `xqzero serve`
  libgloo-dev             # Gloo headers for torch c10d: data-parallel training
  python3-protobuf python3-numpy python3-torch   # python/: records and checkpoints in Python, and its test
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup: installing ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
