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
# is compiled first; then the crates' unit tests and the Python tests run while the integration
# tests do (most of those wait on sockets and child processes, not on the processor). The
# integration tests' output shows as it comes, the others' follows (also kept in
# target/crate-tests.log and target/python-tests.log).
set -euo pipefail
cd "$(dirname "$0")"

step="${1:-all}"
[ $# -gt 0 ] && shift

# axe-core, for the web pages' accessibility audit (tests/integration/browser_audit.rs): from
# npm into target/axe/, the project's own files (no global install), when missing or another
# version. Without npm the audit says SKIPPED (CI installs npm: .ci/run).
AXE_CORE_VERSION=4.10.3
axe_core() {
  local installed=target/axe/node_modules/axe-core/package.json
  if [ -f "$installed" ] && grep -q "\"version\": \"$AXE_CORE_VERSION\"" "$installed"; then
    return
  fi
  if ! command -v npm >/dev/null 2>&1; then
    echo "test.sh: no npm: the accessibility audit will say SKIPPED (apt-get install npm)" >&2
    return
  fi
  echo "== npm install --prefix target/axe axe-core@$AXE_CORE_VERSION"
  npm install --prefix target/axe --no-audit --no-fund --silent "axe-core@$AXE_CORE_VERSION" ||
    echo "test.sh: npm could not install axe-core: the accessibility audit will say SKIPPED" >&2
}

# Every package of Cargo.lock, also those no build here compiles: the layout test reads
# `cargo metadata --offline`, which resolves for every platform (tracing-core's `valuable`, a
# dependency only under cfg(tracing_unstable), is in its graph but in no build). Quick once
# they are there.
fetch_crates() {
  cargo fetch --quiet || echo "test.sh: cargo fetch failed: the layout test may not read cargo metadata" >&2
}

rust() {
  axe_core
  fetch_crates
  echo "== cargo test --workspace $*"
  cargo test --workspace "$@"
}

python() {
  echo "== clients/python/test.sh $*"
  clients/python/test.sh "$@"
}

# The test programs `cargo test --workspace` builds, from its JSON messages on stdin: a line
# each, "KIND NAME PACKAGE_DIR EXECUTABLE" separated by tabs (KIND: lib, bin or test).
test_programs() {
  python3 -c '
import json, os, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        t = m["target"]
        print(t["kind"][0], t["name"], os.path.dirname(m["manifest_path"]), m["executable"], sep="\t")
'
}

# Runs one test program as `cargo test` would: in its package's folder, with the test threads
# .cargo/config.toml sets for cargo (4).
run_program() {
  local dir=$1 program=$2
  echo "     Running $program"
  (cd "$dir" && RUST_TEST_THREADS="${RUST_TEST_THREADS:-4}" "$program")
}

# Compiles everything, then runs three groups at once: the integration tests (the real server
# over TCP: most of them wait on sockets and child processes, not on the processor) on the
# terminal as they come; the crates' own unit and doc tests, and the Python tests, into logs
# printed after them. The test programs are run directly, not through cargo, so that nothing
# links target/debug/anqi anew while a test starts it. Fails when any group fails, naming which.
all() {
  local logs="${CARGO_TARGET_DIR:-target}"
  local crates_log="$logs/crate-tests.log" python_log="$logs/python-tests.log"
  local programs="$logs/test-programs.txt"
  axe_core
  fetch_crates
  echo "== build: clients/python/test.sh --build-only"
  clients/python/test.sh --build-only
  echo "== build: cargo test --workspace --no-run"
  cargo test --workspace --no-run --message-format=json-render-diagnostics | test_programs >"$programs"
  local integration_dir integration
  IFS=$'\t' read -r integration_dir integration < <(awk -F'\t' '$1 == "test" && $2 == "integration" { print $3 "\t" $4 }' "$programs") || true
  if [ -z "${integration:-}" ]; then
    echo "test.sh: cargo built no integration tests (see $programs)" >&2
    exit 1
  fi
  # Every program is built (clients/python/test.sh --build-only): the tests build none.
  export ANQI_TESTS_BUILT=1
  echo "== the crates' unit and doc tests, and clients/python/test.sh --no-build, beside the"
  echo "   integration tests (their output follows)"
  (
    status=0
    while IFS=$'\t' read -r _kind _name dir program; do
      run_program "$dir" "$program" || status=1
    done < <(awk -F'\t' '!($1 == "test" && $2 == "integration")' "$programs")
    cargo test --workspace --doc || status=1
    exit "$status"
  ) >"$crates_log" 2>&1 &
  local crates=$!
  clients/python/test.sh --no-build >"$python_log" 2>&1 &
  local py=$!
  # Stopped early (Ctrl-C, a failed step): the groups beside stop too.
  trap 'pkill -P "$crates" 2>/dev/null; kill "$crates" "$py" 2>/dev/null || true' EXIT
  local integration_status=0 crates_status=0 python_status=0
  echo "== the integration tests (tests/integration)"
  run_program "$integration_dir" "$integration" || integration_status=$?
  wait "$crates" || crates_status=$?
  wait "$py" || python_status=$?
  trap - EXIT
  echo "== the crates' unit and doc tests ($crates_log)"
  cat "$crates_log"
  echo "== the Python tests ($python_log)"
  cat "$python_log"
  if [ "$integration_status" != 0 ] || [ "$crates_status" != 0 ] || [ "$python_status" != 0 ]; then
    echo "test.sh: failed: integration tests exit $integration_status, crates' tests exit $crates_status, Python tests exit $python_status" >&2
    exit 1
  fi
  echo "== test.sh: the integration, the crates' and the Python tests passed"
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
    sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
    ;;
  *)
    echo "test.sh: unknown step $step (all, rust or python; --help)" >&2
    exit 2
    ;;
esac
