#!/usr/bin/env bash
# The Python package's tests against a small run made by the built binary (ctest runs this).
# usage: bash python/tests/run.sh BUILD_DIR   (or the path of the xqzero binary itself)
# A few seconds of `xqzero train` (tiny net with squeeze-excitation, the training-only heads and
# no global pooling, short capped games) leave record files and checkpoints; test_xqzero.py
# then reads them and checks them against `xqzero dump` and `xqzero judge`. Exits 77 (a skip for ctest) when Debian's
# python3-protobuf, python3-numpy or python3-torch is missing. XQZERO_PYTHON picks the Python
# (default /usr/bin/python3, where Debian's packages are).
set -euo pipefail

arg=${1:?usage: run.sh BUILD_DIR|XQZERO_BINARY}
if [ -f "$arg" ]; then bin=$(cd "$(dirname "$arg")" && pwd)/$(basename "$arg"); else bin=$(cd "$arg" && pwd)/app/xqzero; fi
py=${XQZERO_PYTHON:-/usr/bin/python3}
here=$(cd "$(dirname "$0")" && pwd)
[ -x "$bin" ] || { echo "run.sh: no binary at $bin" >&2; exit 1; }
if ! "$py" -c 'import google.protobuf, numpy, torch' 2>/dev/null; then
  echo "run.sh: skipped: $py lacks protobuf, numpy or torch (apt-get install python3-protobuf python3-numpy python3-torch)" >&2
  exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/xqzero-pytest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
run="$tmp/run"
"$bin" train --run-dir "$run" --max-steps 4 --device cpu \
  --set network.se=true --set network.global_pool=false --set network.value_channels=2 \
  --set network.short_value_head=true --set network.soft_policy_head=true --set network.reply_policy_head=true \
  --set selfplay.threads=1 --set selfplay.games_per_thread=8 --set selfplay.games_per_file=4 \
  --set selfplay.max_plies=40 --set selfplay.full_visits=8 --set selfplay.fast_visits=4 \
  --set training.min_positions=200 --set training.window_min=200 --set training.batch_size=32 \
  --set training.checkpoint_every=2 --set training.eval_every=1000000 >"$tmp/train.log" 2>&1 ||
  { cat "$tmp/train.log" >&2; echo "run.sh: xqzero train failed" >&2; exit 1; }

ckpt="$run/checkpoints/$(cat "$run/latest")"
export XDG_CACHE_HOME="$tmp/cache"  # the protos are compiled afresh: that path is tested too
export PYTHONDONTWRITEBYTECODE=1    # no __pycache__ in the source tree
"$py" "$here/test_xqzero.py" --records "$run" --checkpoint "$ckpt" --bin "$bin" -v
