#!/usr/bin/env bash
# Builds the `anqi` Python package (maturin + PyO3 on the Rust rules core) into a virtual
# environment and runs its tests (clients/python/tests, unittest), after building the `anqi`
# and `anqi-bot` programs the experiment tests start. Needs python3 (3.11 or later, with its
# venv module) and network access to PyPI the first time, for maturin and the extras' packages
# (matplotlib, pandas, numpy, PettingZoo, Gymnasium, OpenSpiel, Ray, PyTorch, sb3-contrib).
# PyPI's torch brings CUDA's libraries (gigabytes, about a minute to install) that the tests do
# not use; PIP_EXTRA_INDEX_URL set to PyTorch's own CPU-only wheel index before the first run
# installs the CPU build instead.
#
#   clients/python/test.sh            # the environment: $CARGO_TARGET_DIR/python-venv (or target/)
#   ANQI_VENV=DIR clients/python/test.sh
#   clients/python/test.sh --build-only   # the environment, the programs and the package; no test
#   clients/python/test.sh --no-build     # the tests alone, on what --build-only made
#   clients/python/test.sh -k chance      # arguments go to unittest (one process, all tests)
#
# The environment is reused when it exists; delete it to start from nothing. The two halves are
# for ../../test.sh, which builds everything first and then runs these tests beside the Rust
# ones. Any other arguments go to unittest.
set -euo pipefail
stage=all
case "${1:-}" in
  --build-only) stage=build; shift ;;
  --no-build) stage=run; shift ;;
esac
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
target="${CARGO_TARGET_DIR:-$repo/target}"
case "$target" in /*) ;; *) target="$repo/$target" ;; esac
venv="${ANQI_VENV:-$target/python-venv}"
# The programs the tests start (anqi.Server, anqi.play: `anqi` and `anqi-bot` beside it), copied
# out of target/debug: a cargo command run meanwhile (../../test.sh runs the Rust tests beside
# these) links target/debug/anqi anew, and a program started in that moment would not be there.
bin="$target/python-tests-bin"

# The environment, its packages, the programs and the package: what the tests need.
build() {
  if [ ! -x "$venv/bin/python" ]; then
    echo "== python venv $venv"
    python3 -m venv "$venv"
  fi
  if ! "$venv/bin/python" -c 'import maturin' 2>/dev/null; then
    echo "== pip install maturin"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check 'maturin>=1.9.4,<2'
  fi
  if ! "$venv/bin/python" -c 'import matplotlib, pandas' 2>/dev/null; then
    echo "== pip install matplotlib pandas (the analysis extras, for their tests)"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check 'matplotlib>=3.7' 'pandas>=2.0'
  fi
  if ! "$venv/bin/python" -c 'import numpy, pettingzoo, gymnasium' 2>/dev/null; then
    echo "== pip install numpy pettingzoo gymnasium (the rl extras, for their tests)"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check 'numpy>=1.24' 'pettingzoo>=1.24' 'gymnasium>=1.0'
  fi
  if ! "$venv/bin/python" -c 'import pyspiel' 2>/dev/null; then
    echo "== pip install open_spiel (the openspiel extra, for its tests)"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check 'open_spiel>=1.5'
  fi
  if ! "$venv/bin/python" -c 'import torch, sb3_contrib' 2>/dev/null; then
    echo "== pip install torch sb3-contrib (the examples extra, for the training examples' tests)"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check 'torch>=2.2' 'sb3-contrib>=2.3'
  fi
  if ! "$venv/bin/python" -c 'import pyarrow, moviepy' 2>/dev/null; then
    echo "== pip install pyarrow moviepy (Parquet datasets; Gymnasium's RecordVideo, for their tests)"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check 'pyarrow>=14' 'moviepy>=1.0'
  fi
  if ! "$venv/bin/python" -c 'import ray' 2>/dev/null; then
    echo "== pip install ray (the ray extra, for the example's test on a local Ray)"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check 'ray>=2.9'
  fi
  # The experiment tests run the real server and reference bot (anqi.Server, anqi.play).
  echo "== cargo build --workspace --bins (anqi, anqi-bot)"
  (cd "$repo" && cargo build --quiet --workspace --bins)
  mkdir -p "$bin"
  for program in anqi anqi-bot; do
    cp "$target/debug/$program" "$bin/$program.new" && mv -f "$bin/$program.new" "$bin/$program"
  done
  # The debug build: the wheel's own profile (pyproject.toml) is optimized across crates, much
  # slower to build and no help to the tests.
  echo "== maturin develop --profile dev (clients/python)"
  (cd "$here" && VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" maturin develop --quiet --profile dev)
}

case "$stage" in
  build) build; exit 0 ;;
  all) build ;;
  run)
    if ! "$venv/bin/python" -c 'import anqi' 2>/dev/null; then
      echo "clients/python/test.sh --no-build: no anqi package in $venv; run --build-only first" >&2
      exit 2
    fi
    ;;
esac
export ANQI_BIN="${ANQI_BIN:-$bin/anqi}"
if [ $# -gt 0 ]; then
  echo "== python tests (clients/python/tests) $*"
  exec "$venv/bin/python" -m unittest discover -s "$here/tests" -t "$here/tests" "$@"
fi
# The tests on a local Ray cluster (test_ray*.py) mostly wait (on Ray, and on bots that sleep
# between moves): they run in a process of their own beside the others, their output after.
cd "$here/tests"
cluster=() others=()
for file in test_*.py; do
  case "$file" in
    test_ray*) cluster+=("${file%.py}") ;;
    *) others+=("${file%.py}") ;;
  esac
done
cluster_log="$target/python-cluster-tests.log"
echo "== python tests (clients/python/tests): ${cluster[*]} beside the others (output in $cluster_log)"
"$venv/bin/python" -m unittest "${cluster[@]}" >"$cluster_log" 2>&1 &
cluster_pid=$!
status=0
"$venv/bin/python" -m unittest "${others[@]}" || status=1
wait "$cluster_pid" || status=1
echo "== the cluster tests (${cluster[*]}):"
grep -v "WARNING authentication_token_setup" "$cluster_log" || true
exit "$status"
