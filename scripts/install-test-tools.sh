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
