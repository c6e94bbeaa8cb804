#!/usr/bin/env bash
# Installs what the browser test of `xqzero serve` needs (tests/app/serve_browser_test.sh):
# Debian's chromium and a CJK font (and nodejs and npm where node or npm is missing), then playwright-core from npm into
# tests/app/browser/node_modules (git-ignored). Best effort: anything that cannot be installed
# (no root, no network) is said, and the browser test is then skipped rather than failed.
set -uo pipefail
cd "$(dirname "$0")/.."
packages=(chromium fonts-wqy-microhei)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node and npm by command, not by package: a machine with another distribution's Node (whose
# nodejs package carries npm and conflicts with Debian's npm) needs neither.
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null && sudo="sudo"
  if [ "$(id -u)" -eq 0 ] || [ -n "$sudo" ]; then
    echo "setup_browser: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    { $sudo apt-get update -qq && $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; } ||
      echo "setup_browser: could not install ${missing[*]}; the browser test will be skipped" >&2
  else
    echo "setup_browser: need root to install ${missing[*]}; the browser test will be skipped" >&2
  fi
fi
if [ ! -d tests/app/browser/node_modules/playwright-core ] && command -v npm >/dev/null; then
  npm install --prefix tests/app/browser --no-audit --no-fund >/dev/null 2>&1 ||
    echo "setup_browser: npm install playwright-core failed; the browser test will be skipped" >&2
fi
exit 0
