#!/usr/bin/env bash
# make reliability: faults, load, bad input and timing, each on loopback with one figure line, and a
# non-zero exit when any figure misses its bound. `--ci` runs a shortened version of each, bounded
# in time, for the test command (scripts/test.d/80-reliability.sh).
#
# The tests are in scripts/reliability/ (one Python file each, stdlib only, plus fuzz.sh); the
# figure lines go to standard output, details to a log shown when a test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v swift >/dev/null || export PATH=/opt/swift/usr/bin:$PATH
source scripts/lib.sh

ci=0
case "${1:-}" in
  --ci) ci=1 ;;
  "") ;;
  *) echo "usage: scripts/reliability.sh [--ci]" >&2; exit 2 ;;
esac

if [ "$ci" = 1 ]; then
  crash_rounds=5 postgres_down_seconds=3 event_rounds=4 outage_seconds=3 failover_seconds=2 provider_starts=3 soak_seconds=120 measure_seconds=5
  brute_verifications=2 refill_seconds=4 timing_samples=2000 fuzz_runs=20000
else
  crash_rounds=20 postgres_down_seconds=5 event_rounds=12 outage_seconds=5 failover_seconds=5 provider_starts=6 soak_seconds=600 measure_seconds=10
  brute_verifications=5 refill_seconds=10 timing_samples=10000 fuzz_runs=2000000
fi

work=$(mktemp -d)
cleanup() {
  # Each test kills the processes it started by pid on its own exit; this only removes the logs.
  rm -rf "$work"
}
trap cleanup EXIT

# The server under test. The full run builds a release `otp` in a scratch path of its own; the CI
# run uses the binary the test command just built (as the schemathesis step does), or OTP_BIN.
if [ -n "${OTP_BIN:-}" ]; then
  bin=$OTP_BIN
elif [ "$ci" = 1 ] && [ -x "$(swift build --show-bin-path 2>/dev/null)/otp" ]; then
  bin="$(swift build --show-bin-path)/otp"
else
  step "build otp (release, .build-rel)"
  if ! swift build --scratch-path .build-rel -c release --product otp >"$work/build.log" 2>&1; then
    grep -v "prohibited flag" "$work/build.log" | tail -n 40
    exit 1
  fi
  bin="$PWD/.build-rel/release/otp"
fi
export OTP_BIN="$bin"
[ "$ci" = 1 ] && export OTP_RELIABILITY_CI=1

figures=()
failed=()
started_all=$(date +%s)

# run NAME COMMAND...: runs one test, keeps its figure line, shows its log when it fails.
run() {
  local name=$1
  shift
  local began
  began=$(date +%s)
  step "$name"
  if "$@" >"$work/$name.out" 2>"$work/$name.log"; then
    :
  else
    failed+=("$name")
    tail -n 40 "$work/$name.log" >&2
  fi
  local line
  line=$(tail -n 1 "$work/$name.out" 2>/dev/null || true)
  [ -n "$line" ] || line="$name: no figure (the test did not finish)"
  figures+=("$line")
  echo "$line ($(($(date +%s) - began)) s)"
}

run crash python3 scripts/reliability/crash.py "$crash_rounds"
run events-crash python3 scripts/reliability/events_crash.py "$event_rounds"
run store-outage python3 scripts/reliability/store_outage.py "$outage_seconds"
run sentinel-failover python3 scripts/reliability/sentinel_failover.py "$failover_seconds"
run postgres-crash python3 scripts/reliability/postgres_crash.py "$postgres_down_seconds"
run provider-outage python3 scripts/reliability/provider_outage.py "$provider_starts"
run soak python3 scripts/reliability/soak.py "$soak_seconds" "$measure_seconds"
run brute-force python3 scripts/reliability/brute_force.py "$brute_verifications" "$refill_seconds"
run timing python3 scripts/reliability/timing.py "$timing_samples"
run hostile python3 scripts/reliability/hostile.py
run fuzz bash scripts/reliability/fuzz.sh "$fuzz_runs"
run sanitizers bash scripts/reliability/sanitizers.sh
run threats python3 scripts/reliability/threats_check.py

echo
echo "== figures ($(nproc) cores, $(($(date +%s) - started_all)) s in all$([ "$ci" = 1 ] && echo ", CI version"))"
printf '%s\n' "${figures[@]}"
if [ "${#failed[@]}" -gt 0 ]; then
  echo "out of bounds: ${failed[*]}" >&2
  exit 1
fi
echo "every figure within its bound"
