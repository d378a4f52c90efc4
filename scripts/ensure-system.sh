#!/usr/bin/env bash
# Installs the system packages the browser tests need and are missing: Chromium, ChromeDriver, and a
# CJK font (the 简体中文 screenshots). Run as root with apt it installs them from Debian; otherwise it
# prints the exact command to run and fails, since installing system packages needs root.
# CHROMIUM / CHROMEDRIVER name other binaries (then those must exist; nothing is installed for them).
set -euo pipefail

chromium=${CHROMIUM:-/usr/bin/chromium}
chromedriver=${CHROMEDRIVER:-/usr/bin/chromedriver}

say() { printf 'ensure-system: %s\n' "$*" >&2; }

installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

missing=()
[[ -x "$chromium" ]] || missing+=(chromium)
[[ -x "$chromedriver" ]] || missing+=(chromium-driver)
if command -v dpkg-query >/dev/null 2>&1; then
  installed fonts-wqy-microhei || missing+=(fonts-wqy-microhei)
fi
(( ${#missing[@]} == 0 )) && exit 0

if [[ "$chromium" != /usr/bin/chromium || "$chromedriver" != /usr/bin/chromedriver ]] \
  && [[ " ${missing[*]} " == *" chromium "* || " ${missing[*]} " == *" chromium-driver "* ]]; then
  say "CHROMIUM=$chromium or CHROMEDRIVER=$chromedriver is not an executable file"
  exit 1
fi

if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
  say "installing ${missing[*]} (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update </dev/null
  apt-get install -y "${missing[@]}" </dev/null
  exit 0
fi

say "the browser tests need ${missing[*]}, and installing them needs root with apt. Run:"
say "  sudo apt-get update && sudo apt-get install -y ${missing[*]}"
exit 1
