#!/usr/bin/env bash
# Every test of OTPKit: lint, build, unit and integration tests, then each scripts/test.d step.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v swift >/dev/null || export PATH=/opt/swift/usr/bin:$PATH
source scripts/lib.sh

step "swift format lint"
swift format lint --strict --recursive --parallel Sources Tests Stubs Examples Benchmarks Fuzz Package.swift

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

step "swift test"
test_log=$(mktemp)
if ! swift test --skip-build --parallel >"$test_log" 2>&1; then
  grep -E "✘|error|failed|recorded" "$test_log" | head -n 80
  tail -n 20 "$test_log"
  exit 1
fi
grep -E "Test run with|Executed" "$test_log" || tail -n 5 "$test_log"
rm -f "$test_log"

for s in scripts/test.d/*.sh; do
  [ -e "$s" ] || continue
  step "$(basename "$s")"
  bash "$s"
done
echo "all tests passed"
