#!/usr/bin/env bash
# The torch-free suites (core, nn_base, search, records, selfplay, match) under AddressSanitizer with
# UndefinedBehaviorSanitizer and under ThreadSanitizer, as CI runs them after the test
# suite. The torch suites under a sanitizer take far longer to build; run them by hand with
# XQZERO_SANITIZE=asan|tsan bash scripts/test.sh.
#   usage: scripts/sanitize.sh [asan] [tsan]   (default: both)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
suites=(tests/core/core_tests tests/nn/nn_base_tests tests/search/search_tests tests/records/records_tests tests/selfplay/selfplay_tests tests/selfplay/match_tests)
kinds=("$@")
[ ${#kinds[@]} -eq 0 ] && kinds=(asan tsan)
for kind in "${kinds[@]}"; do
  case "$kind" in
    asan) flag=-DXQZERO_ASAN=ON ;;
    tsan) flag=-DXQZERO_TSAN=ON ;;
    *) echo "sanitize: expected asan or tsan, got '$kind'" >&2; exit 2 ;;
  esac
  dir="build-$kind"
  mkdir -p "$dir"
  # shellcheck disable=SC2086
  if ! cmake -S . -B "$dir" -G Ninja "$flag" -DCMAKE_BUILD_TYPE=RelWithDebInfo ${CMAKE_ARGS:-} >"$dir/configure.log" 2>&1; then
    cat "$dir/configure.log" >&2
    exit 1
  fi
  cmake --build "$dir" -j "$(nproc)" --target "${suites[@]##*/}" >&2
  for suite in "${suites[@]}"; do
    echo "sanitize: $kind $suite" >&2
    TSAN_OPTIONS="suppressions=$PWD/tests/tsan.supp halt_on_error=1" \
      ASAN_OPTIONS="detect_leaks=1" UBSAN_OPTIONS="print_stacktrace=1" \
      "$dir/$suite" --gtest_brief=1
  done
done
echo "sanitize: ${kinds[*]} clean" >&2
