#!/usr/bin/env bash
# Installs the Debian packages the tests talk to: GNU Go (the Go rules differential test,
# Go matches over GTP), GRhino (Othello matches over GTP) and SWI-Prolog (the GDL
# reference reasoner against a Prolog translation of the rules). Idempotent: packages already
# installed are skipped, and the package lists are refreshed at most once per run, only
# when something is missing. Extra package names may be given as arguments.
set -euo pipefail

PACKAGES=(gnugo grhino swi-prolog-nox "$@")

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
