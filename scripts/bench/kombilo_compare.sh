#!/usr/bin/env bash
# Side-by-side with Kombilo 0.8.4 (libkombilo, from PyPI) on the same SGF collection: both
# import it, then the same queries of every kind go to both; the games found must be equal,
# and the times are reported side by side (scripts/bench/kombilo_compare.py).
#
# Usage: scripts/bench/kombilo_compare.sh [WORK_DIR] [extra arguments for kombilo_compare.py]
# WORK_DIR (default /tmp/kombilo-compare) holds the virtual environment and both databases.
set -euo pipefail
cd "$(dirname "$0")/../.."
WORK="${1:-/tmp/kombilo-compare}"
shift || true
mkdir -p "$WORK"

# Kombilo's C++ core needs Boost's headers, and (written before C++17) a C++14 compiler mode.
bash scripts/install-test-tools.sh libboost-dev
if [ ! -x "$WORK/venv/bin/python" ]; then
    python3 -m venv "$WORK/venv"
fi
if ! "$WORK/venv/bin/python" -c "import kombilo.libkombilo" 2>/dev/null; then
    mkdir -p "$WORK/cxx14"
    printf '#!/bin/sh\nexec /usr/bin/g++ -std=c++14 "$@"\n' > "$WORK/cxx14/g++"
    chmod +x "$WORK/cxx14/g++"
    PATH="$WORK/cxx14:$PATH" "$WORK/venv/bin/pip" install --quiet kombilo==0.8.4
fi

cargo build --release --quiet -p tabula
"$WORK/venv/bin/python" scripts/bench/kombilo_compare.py --tabula target/release/tabula \
    --collection ../shared/data/sgf --work "$WORK" "$@"
