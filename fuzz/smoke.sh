#!/usr/bin/env bash
# The fuzzing smoke run (CI's last step, see fuzz/README.md): install cargo-fuzz if missing,
# build every target, build the seed corpus, then run each target for FUZZ_SECONDS seconds
# (default 20). Fails if any target finds a crash, a hang or a leak; every target runs either
# way, and the closing lines name the failures and their artifacts (fuzz/artifacts/TARGET/).
#
# Needs only what .ci/run needs: rustup's stable toolchain (cargo fuzz uses nightly-only
# flags, which RUSTC_BOOTSTRAP=1 lets the stable compiler accept), a C++ compiler (libFuzzer
# is C++; installed with apt-get when missing) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${FUZZ_SECONDS:-20}"
fuzz_dir="$PWD/fuzz"
# Fuzz builds (sanitizer flags, another workspace) stay out of the main target directory, even
# when CARGO_TARGET_DIR points there.
target_dir="$fuzz_dir/target"
logs="$target_dir/smoke-logs"
export RUSTC_BOOTSTRAP=1

if ! command -v c++ >/dev/null 2>&1; then
  apt-get update && apt-get install -y --no-install-recommends g++
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "== installing cargo-fuzz"
  timeout 900 cargo install cargo-fuzz --version '^0.13' --locked
fi

echo "== building the fuzz targets ($(cargo fuzz --version))"
cargo fuzz build --target-dir "$target_dir"
targets=$(cargo fuzz list)

echo "== seed corpus"
python3 fuzz/seed-corpus.py

# From a failed run's log: the panic or sanitizer message (without the backtrace) and where
# the input was written.
report() {
  awk '/panicked at|==ERROR: |ERROR: libFuzzer/ { show = 40 }
       /^stack backtrace:|^ *#[0-9]+ 0x/ { show = 0 }
       show > 0 { print; show-- }' "$1" | cut -c1-2000
  grep -E 'SUMMARY:|Test unit written to' "$1" || tail -n 20 "$1"
}

mkdir -p "$logs"
failed=()
for t in $targets; do
  echo "== fuzzing $t for ${seconds}s"
  # Every target but rules reads S-expressions (rules reads raw numbers).
  dict=()
  [[ $t == rules ]] || dict=(-dict=fuzz/dict/sexp.dict)
  # -timeout: one input running longer than 10 s is a hang, reported like a crash.
  if cargo fuzz run --target-dir "$target_dir" "$t" -- "${dict[@]}" \
    -max_total_time="$seconds" -timeout=10 -print_final_stats=1 >"$logs/$t.log" 2>&1; then
    # libFuzzer's closing status line: executions, coverage, corpus.
    grep -E '^#[0-9]+[[:space:]]+DONE' "$logs/$t.log" | tail -n 1
  else
    failed+=("$t")
    report "$logs/$t.log"
  fi
done

if ((${#failed[@]})); then
  echo "fuzz smoke run: ${#failed[@]} of $(wc -w <<<"$targets") targets failed: ${failed[*]} (logs in $logs)"
  exit 1
fi
echo "fuzz smoke run: $(wc -w <<<"$targets") targets ran ${seconds}s each, no crash"
