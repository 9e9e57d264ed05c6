#!/usr/bin/env bash
# Every test of the project, Rust and Python, in one command (README.md, Quick start). CI runs
# exactly this (.ci/run).
#
#   ./test.sh            # build everything, then the Rust and the Python tests side by side
#   ./test.sh rust       # the Rust tests only (cargo test --workspace)
#   ./test.sh python     # the Python package's tests only (clients/python/test.sh)
#
# Anything after the word goes to that step: `./test.sh rust -- --nocapture`,
# `./test.sh python -k chance`. The Python step builds the `anqi` package into a virtual
# environment under target/ (python3 3.11 or later with its venv module; PyPI the first time,
# for maturin, matplotlib and pandas): see clients/python/PACKAGE.md. With no step, everything
# is compiled first; then the Python tests run while the Rust tests do (most tests wait on
# sockets and child processes, not on the processor), the Rust output shows as it comes and
# the Python output follows it (also kept in target/python-tests.log).
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

# Compiles both halves, then runs them at once: the Rust tests on the terminal, the Python ones
# into a log printed after them. Fails when either half fails, naming which.
all() {
  echo "== build: cargo test --workspace --no-run"
  cargo test --workspace --no-run
  echo "== build: clients/python/test.sh --build-only"
  clients/python/test.sh --build-only
  local log="${CARGO_TARGET_DIR:-target}/python-tests.log"
  echo "== clients/python/test.sh --no-build, beside the Rust tests (its output follows theirs)"
  clients/python/test.sh --no-build >"$log" 2>&1 &
  local py=$!
  # Stopped early (Ctrl-C, a failed step): the Python tests stop too.
  trap 'kill "$py" 2>/dev/null || true' EXIT
  local rust_status=0 python_status=0
  rust || rust_status=$?
  wait "$py" || python_status=$?
  trap - EXIT
  echo "== the Python tests ($log)"
  cat "$log"
  if [ "$rust_status" != 0 ] || [ "$python_status" != 0 ]; then
    echo "test.sh: failed: Rust tests exit $rust_status, Python tests exit $python_status" >&2
    exit 1
  fi
  echo "== test.sh: the Rust and the Python tests passed"
}

case "$step" in
  all)
    if [ $# -gt 0 ]; then
      echo "test.sh: options go after a step: ./test.sh rust ... or ./test.sh python ..." >&2
      exit 2
    fi
    all
    ;;
  rust) rust "$@" ;;
  python) python "$@" ;;
  -h|--help)
    sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
    ;;
  *)
    echo "test.sh: unknown step $step (all, rust or python; --help)" >&2
    exit 2
    ;;
esac
