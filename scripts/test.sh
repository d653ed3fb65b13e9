#!/usr/bin/env bash
# Every test of OTPKit: lint, build, unit and integration tests, then each scripts/test.d step.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v swift >/dev/null || export PATH=/opt/swift/usr/bin:$PATH
source scripts/lib.sh

step "swift format lint"
swift format lint --strict --recursive --parallel Sources Tests Stubs Examples Benchmarks Fuzz Plugins Package.swift

step "build"
# hiredis.pc carries a flag SwiftPM drops with a harmless warning; keep the log readable.
build_log=$(mktemp)
if ! swift build --build-tests >"$build_log" 2>&1; then
  grep -v "prohibited flag" "$build_log" | tail -n 60
  exit 1
fi
grep -v "prohibited flag" "$build_log" | grep -E "warning:|error:" | sort -u | head -n 20 || true
rm -f "$build_log"

step "redis for the tests"
start_redis
export OTP_TEST_REDIS_PORT="$REDIS_PORT"

step "postgresql for the tests"
# A throwaway cluster: no waiting for the disk, which the tests' hundreds of schemas would.
start_postgres -c fsync=off -c synchronous_commit=off -c full_page_writes=off
export OTP_TEST_POSTGRES_URL="$POSTGRES_URL"

# Suites that bound real time run on their own after the rest, one test at a time: in the parallel
# run, hundreds of tests share Swift's two-thread pool, and a finished call can wait seconds for its
# turn to resume; and two of them at once share process-wide pools (libcurl's delivery transfers),
# so one test's transfer in flight was counted against another's bound on a loaded machine.
timed="ReliabilityRegressionTests|GracefulStopTests|TOTPCommandTests"
# The PostgreSQL store against stopped, frozen and silent servers: real time too, and apart from
# the suites above, since it starts PostgreSQL clusters of its own.
deadlines="PostgresDeadlineTests"
run_tests() {
  local title=$1
  shift
  step "$title"
  local log
  log=$(mktemp)
  # Bounded (the suite takes about half a minute): a hang fails with its log instead of stalling CI.
  if ! timeout --kill-after=10 900 swift test --skip-build "$@" >"$log" 2>&1; then
    # Failures only (a passing test's name may say "error"); `|| true`: head closing the pipe early
    # must not end the report under pipefail before the crash and the tail are shown.
    grep -E "^✘|error:|XCTAssert|Fatal error" "$log" | head -n 80 || true
    if grep -q "Program crashed" "$log"; then
      # A crash ends the run with no verdict: show what was running and the crashed thread.
      echo "-- tests started and not finished:"
      python3 scripts/unfinished-tests.py "$log" | tail -n 5 || true
      echo "-- the crash:"
      sed -n '/Program crashed/,/^Registers/p' "$log" | head -n 80 || true
    fi
    tail -n 20 "$log"
    exit 1
  fi
  grep -E "Test run with|Executed" "$log" || tail -n 5 "$log"
  rm -f "$log"
}
# In parallel. The SIGSEGV that once made this serial was Foundation's Process.run() on Linux (a
# memcpy inside it while other tests opened and closed sockets, 1 to 3 crashes a run, with launches
# serialised too); tests start children through OTPTestSupport's ChildProcess (posix_spawn, the
# child closing every descriptor above 2) instead, and the parallel run takes about 12 s.
run_tests "swift test" --parallel --skip "$timed|$deadlines"
run_tests "swift test: suites with real-time bounds" --no-parallel --filter "$timed"
run_tests "swift test: PostgreSQL deadlines" --filter "$deadlines"

for s in scripts/test.d/*.sh; do
  [ -e "$s" ] || continue
  step "$(basename "$s")"
  bash "$s"
done
echo "all tests passed"
