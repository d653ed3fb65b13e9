#!/usr/bin/env bash
# Every test of OTPKit: lint, build, unit and integration tests, then each scripts/test.d step.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v swift >/dev/null || export PATH=/opt/swift/usr/bin:$PATH
source scripts/lib.sh

step "swift format lint"
swift format lint --strict --recursive --parallel Sources Tests Package.swift

step "build"
swift build --build-tests 2>&1 | grep -v "prohibited flag" || true
swift build --build-tests -q 2>&1 | grep -v "prohibited flag"

step "redis for the tests"
start_redis
export OTP_TEST_REDIS_PORT="$REDIS_PORT"

step "swift test"
swift test --skip-build --parallel 2>&1 | tail -n 40
test "${PIPESTATUS[0]}" -eq 0

for s in scripts/test.d/*.sh; do
  [ -e "$s" ] || continue
  step "$(basename "$s")"
  bash "$s"
done
echo "all tests passed"
