#!/usr/bin/env bash
# Every test of the project, Rust and Python, in one command (README.md, Quick start). CI runs
# exactly this (.ci/run).
#
#   ./test.sh            # cargo test --workspace, then the Python package's tests
#   ./test.sh rust       # the Rust tests only
#   ./test.sh python     # the Python package's tests only (clients/python/test.sh)
#
# Anything after the word goes to that step: `./test.sh rust -- --nocapture`,
# `./test.sh python -k chance`. The Python step builds the `anqi` package into a virtual
# environment under target/ (python3 3.11 or later with its venv module; PyPI the first time,
# for maturin, matplotlib and pandas): see clients/python/PACKAGE.md. It runs after the Rust
# tests, so it reuses what they compiled.
set -euo pipefail
cd "$(dirname "$0")"

step="${1:-all}"
[ $# -gt 0 ] && shift

rust() {
  echo "== cargo test --workspace $*"
  cargo test --workspace "$@"
}

python() {
  echo "== clients/python/test.sh $*"
  clients/python/test.sh "$@"
}

case "$step" in
  all)
    if [ $# -gt 0 ]; then
      echo "test.sh: options go after a step: ./test.sh rust ... or ./test.sh python ..." >&2
      exit 2
    fi
    rust
    python
    ;;
  rust) rust "$@" ;;
  python) python "$@" ;;
  -h|--help)
    sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
    ;;
  *)
    echo "test.sh: unknown step $step (all, rust or python; --help)" >&2
    exit 2
    ;;
esac
