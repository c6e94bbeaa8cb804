#!/usr/bin/env bash
# GPU check for xqzero's network and evaluator (docs/architecture.md §6): builds xqzero against the CUDA
# LibTorch of the machine's PyTorch, compares GPU outputs with a float32 CPU reference for the
# same weights and positions (`xqzero bench nncheck`), and prints the throughput table
# (`xqzero bench nn`), plays a few self-play games spread over two evaluators on the device
# (`evaluator.devices`), and trains the default config for TRAIN_SECONDS (default 60) with
# self-play and trainer on the device. Run it in one call on the lent GPU machine, carrying .deps/.
#
# The GPU machine has CUDA, CMake, ninja and PyTorch but no Protobuf C++ package and no
# network, so Protobuf and nlohmann-json come along as Debian packages (carry ".deps/debs",
# about 5 MB); without cpp-httplib there, `serve` is left out (-DXQZERO_SERVE=OFF):
#   scripts/gpu-check.sh --fetch-deps     on a development machine: apt-get download the
#                                         .deb files into .deps/debs (an ignored folder)
#   scripts/gpu-check.sh                  on the GPU machine: unpack .deps/debs/*.deb with
#                                         dpkg -x into .deps/prefix (never into /), build into
#                                         build-gpu with tests off, run the check and the bench
# Environment: DEVICE (default cuda), TORCH_PREFIX (default: torch.utils.cmake_prefix_path, or
# the system LibTorch when Python has no torch), BUILD_DIR (default build-gpu), BENCH_MS (time
# per measurement, default 500), NET_ARGS (network options for both commands, default: the
# config defaults, 6 blocks x 64 channels), MAX_BATCH (default 1024).
# Exit status: non-zero when the build fails or a GPU-vs-CPU difference exceeds its tolerance.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEPS="$ROOT/.deps"
DEB_PACKAGES=(libprotobuf-dev libprotobuf32 protobuf-compiler libprotoc32 zlib1g-dev nlohmann-json3-dev)

if [[ "${1:-}" == "--fetch-deps" ]]; then
  mkdir -p "$DEPS/debs"
  cd "$DEPS/debs"
  apt-get download "${DEB_PACKAGES[@]}"
  ls -l "$DEPS/debs"
  exit 0
fi
if [[ $# -gt 0 ]]; then
  echo "usage: scripts/gpu-check.sh [--fetch-deps]" >&2
  exit 2
fi

DEVICE="${DEVICE:-cuda}"
BUILD_DIR="${BUILD_DIR:-$ROOT/build-gpu}"
BENCH_MS="${BENCH_MS:-500}"
MAX_BATCH="${MAX_BATCH:-1024}"
read -r -a NET <<< "${NET_ARGS:-}"
JOBS="$(nproc 2>/dev/null || echo 4)"
log() { echo "== gpu-check: $*"; }

# LibTorch: the CUDA build shipped with PyTorch, else the system one (CPU-only checks).
if [[ -z "${TORCH_PREFIX:-}" ]]; then
  TORCH_PREFIX="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)' 2>/dev/null || true)"
fi
if [[ -n "$TORCH_PREFIX" ]]; then
  log "LibTorch from $TORCH_PREFIX"
  ABI="$(python3 -c 'import torch;print(int(torch._C._GLIBCXX_USE_CXX11_ABI))' 2>/dev/null || echo 1)"
  if [[ "$ABI" != "1" ]]; then
    log "warning: this PyTorch uses the pre-C++11 string ABI; Debian's Protobuf uses the new one, linking may fail"
  fi
  TORCH_LIB="$(dirname "$(dirname "$TORCH_PREFIX")")/lib"  # .../torch/share/cmake -> .../torch/lib
  [[ -d "$TORCH_LIB" ]] && export LD_LIBRARY_PATH="$TORCH_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
else
  log "no PyTorch found; using the system LibTorch"
fi

CMAKE_ARGS=(-S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DXQZERO_BUILD_TESTS=OFF)
PREFIX_PATH="$TORCH_PREFIX"

# Protobuf (and zlib headers) from the carried .deb files, unpacked into a private prefix.
if compgen -G "$DEPS/debs/*.deb" > /dev/null; then
  PREFIX="$DEPS/prefix"
  mkdir -p "$PREFIX"
  for deb in "$DEPS"/debs/*.deb; do dpkg -x "$deb" "$PREFIX"; done
  LIBDIR="$(dirname "$(find "$PREFIX" -name 'libprotobuf.so' | head -n1)")"
  [[ -n "$LIBDIR" && -e "$LIBDIR/libprotobuf.so" ]] || { log "libprotobuf.so missing from .deps/debs"; exit 1; }
  log "Protobuf from $PREFIX ($LIBDIR)"
  export LD_LIBRARY_PATH="$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export PATH="$PREFIX/usr/bin:$PATH"
  PREFIX_PATH="${PREFIX_PATH:+$PREFIX_PATH;}$PREFIX/usr"
  CMAKE_ARGS+=(
    -DProtobuf_PROTOC_EXECUTABLE="$PREFIX/usr/bin/protoc"
    -DProtobuf_INCLUDE_DIR="$PREFIX/usr/include"
    -DProtobuf_LIBRARY="$LIBDIR/libprotobuf.so"
    -DProtobuf_LIBRARY_RELEASE="$LIBDIR/libprotobuf.so"
  )
  if [[ -e "$LIBDIR/libz.so" ]]; then
    CMAKE_ARGS+=(-DZLIB_INCLUDE_DIR="$PREFIX/usr/include" -DZLIB_LIBRARY="$LIBDIR/libz.so")
  fi
else
  log "no .deps/debs/*.deb; using the system Protobuf (run --fetch-deps on a development machine first)"
fi
[[ -n "$PREFIX_PATH" ]] && CMAKE_ARGS+=(-DCMAKE_PREFIX_PATH="$PREFIX_PATH")
if ! pkg-config --exists cpp-httplib 2>/dev/null; then
  log "no cpp-httplib (pkg-config): serve left out"
  CMAKE_ARGS+=(-DXQZERO_SERVE=OFF)
fi
# nccl.h from PyTorch's nvidia-nccl wheel, so that the trainer's NCCL path compiles (it needs
# Gloo's headers too; the configure log says which data-parallel paths were built).
NCCL_INC="$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "include"))' 2>/dev/null || true)"
[[ -n "$NCCL_INC" && -e "$NCCL_INC/nccl.h" ]] && CMAKE_ARGS+=(-DXQZERO_NCCL_INCLUDE_DIR="$NCCL_INC")
# Our code compiles no CUDA kernels; name the architecture so Torch's CMake need not probe it.
export TORCH_CUDA_ARCH_LIST="${TORCH_CUDA_ARCH_LIST:-9.0}"

log "configure"
cmake "${CMAKE_ARGS[@]}" > "$BUILD_DIR.cmake.log" 2>&1 || { tail -n 40 "$BUILD_DIR.cmake.log"; exit 1; }
grep "xqzero:" "$BUILD_DIR.cmake.log" || true
log "build ($JOBS jobs)"
cmake --build "$BUILD_DIR" -j "$JOBS" --target xqzero > "$BUILD_DIR.build.log" 2>&1 ||
  { grep -E "error|Error" -A3 "$BUILD_DIR.build.log" | head -n 60; tail -n 20 "$BUILD_DIR.build.log"; exit 1; }
XQ="$BUILD_DIR/app/xqzero"

log "GPU-vs-CPU check on $DEVICE"
status=0
"$XQ" bench nncheck --device "$DEVICE" --positions 256 "${NET[@]}" | tee "$BUILD_DIR.nncheck.txt" || status=$?

log "throughput on $DEVICE"
"$XQ" bench nn --device "$DEVICE" --ms "$BENCH_MS" --max-batch "$MAX_BATCH" "${NET[@]}" | tee "$BUILD_DIR.bench.txt" ||
  status=$?

log "self-play spread over two evaluators on $DEVICE (evaluator.devices)"
"$XQ" selfplay --games 8 --threads 2 --quiet --out "$BUILD_DIR.devices-games" \
  --set "evaluator.devices=$DEVICE,$DEVICE" --set evaluator.device="$DEVICE" | tee "$BUILD_DIR.devices.txt" ||
  status=$?

log "training for ${TRAIN_SECONDS:-60} s on $DEVICE (the default config; self-play and trainer)"
rm -rf "$BUILD_DIR.train-run"
"$XQ" train --max-seconds "${TRAIN_SECONDS:-60}" --run-dir "$BUILD_DIR.train-run" --device "$DEVICE" \
  > "$BUILD_DIR.train.txt" 2>&1 || status=$?
tail -n 15 "$BUILD_DIR.train.txt"
cp "$BUILD_DIR.train-run/metrics.jsonl" "$BUILD_DIR.train-metrics.jsonl" 2>/dev/null || true

if [[ -n "${OUT:-}" && -d "${OUT:-}" ]]; then
  cp "$BUILD_DIR.nncheck.txt" "$BUILD_DIR.bench.txt" "$BUILD_DIR.devices.txt" "$BUILD_DIR.train.txt" \
    "$BUILD_DIR.train-metrics.jsonl" "$OUT/" 2>/dev/null || true
fi
echo
echo "== summary (device $DEVICE)"
tail -n 1 "$BUILD_DIR.nncheck.txt"
sed -n '/^batching evaluator/,$p' "$BUILD_DIR.bench.txt"
exit "$status"
