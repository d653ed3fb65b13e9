#!/usr/bin/env bash
# The engine benchmark as a smoke test: every store, a fraction of a second each, no bound on time.
# It fails when a benchmark cannot run (a wrong code approved, a refusal it does not expect), not
# when the machine is slow; `make bench-engine` measures for real.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v swift >/dev/null || export PATH=/opt/swift/usr/bin:$PATH
bin="$(swift build --show-bin-path)/OTPBenchmarks"
[ -x "$bin" ] || swift build --product OTPBenchmarks -q 2>&1 | grep -v "prohibited flag" || true
redis=()
[ -n "${OTP_TEST_REDIS_PORT:-}" ] && redis=(--redis-port "$OTP_TEST_REDIS_PORT")
"$bin" "${redis[@]}" --seconds 0.1 --rounds 1 --concurrency 2 | tail -n 5
