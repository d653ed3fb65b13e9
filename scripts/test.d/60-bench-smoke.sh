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

# A bad option is a clear error and exit status 2, before anything is measured.
for bad in "--seconds 0" "--rounds x" "--stores memory,disk" "--concurrency" "--colour on"; do
  set +e
  # shellcheck disable=SC2086
  err=$("$bin" $bad 2>&1 >/dev/null)
  status=$?
  set -e
  if [ "$status" -ne 2 ] || ! grep -q "^OTPBenchmarks: " <<<"$err"; then
    echo "OTPBenchmarks $bad: status $status, stderr: $err"
    exit 1
  fi
done
echo "bad options refused"
