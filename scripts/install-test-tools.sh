#!/usr/bin/env bash
# Installs the programs the test suite talks to, from Debian's archive. Idempotent: a
# package already installed is left alone, and apt is not touched when nothing is missing.
set -euo pipefail
# The Debian packages the tests need; more may be named on the command line.
needed=("$@")
missing=()
for pkg in "${needed[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Installs the Debian packages some tests need (GNU Go for the Go rules differential test).
# Idempotent: packages already installed are skipped, and the package lists are refreshed
# at most once per run, only when something is missing.
set -euo pipefail

PACKAGES=(gnugo)

missing=()
for pkg in "${PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$pkg")
    fi
done

if [ "${#missing[@]}" -eq 0 ]; then
    echo "install-test-tools: all present (${PACKAGES[*]})"
    exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi

echo "install-test-tools: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
