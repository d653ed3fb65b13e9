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
for bad in "--seconds 0" "--rounds x" "--stores memory,disk" "--stores sqlite-fast" "--concurrency" "--colour on"; do
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

# The HTTP benchmark as a smoke test too: one short round of every row, the check-floor rows at a few
# connections, on the debug build. It fails when a row cannot be measured, never on a figure.
otp_bin="$(swift build --show-bin-path)/otp"
[ -x "$otp_bin" ] || swift build --product otp -q 2>&1 | grep -v "prohibited flag" || true
smoke_log=$(mktemp)
trap 'rm -f "$smoke_log"' EXIT
if ! OTP_BIN="$otp_bin" OTP_BENCH_SECONDS=1 OTP_BENCH_ROUNDS=1 OTP_BENCH_CONNECTIONS=4 \
  OTP_BENCH_FLOOR_CONNECTIONS=20 OTP_BENCH_CAPACITY_CONNECTIONS=40 bash scripts/bench-http.sh >"$smoke_log" 2>&1; then
  tail -n 30 "$smoke_log"
  exit 1
fi
for row in "POST /v1/verifications/{id}/check" "POST /v1/verifications (start)" "floor 50 ms (the default), 20 conn." \
  "floor 50 ms, 40 connections"; do
  line=$(grep -F "$row" "$smoke_log" || true)
  rate=0
  [ -n "$line" ] && read -r rate _ <<<"${line#*"$row"}"
  # A row with no requests answered prints a rate of 0.
  if ! awk -v rate="$rate" 'BEGIN { exit !(rate + 0 > 0) }'; then
    echo "bench-http smoke: no figure for \"$row\""
    tail -n 30 "$smoke_log"
    exit 1
  fi
done
grep -E "^POST|^floor" "$smoke_log"

# The PostgreSQL ceiling as a smoke test: pgbench runs each row's statements for a second; it fails
# when a row cannot run (a statement PostgreSQL refuses, a table that changed), never on a figure.
if ! OTP_BIN="$otp_bin" OTP_BENCH_SECONDS=1 OTP_BENCH_CLIENTS=4 OTP_BENCH_SPREAD=64 \
  bash scripts/bench-postgres-ceiling.sh >"$smoke_log" 2>&1; then
  tail -n 30 "$smoke_log"
  exit 1
fi
for row in "a check's statements" "a check in one server-side function" "a start's statements"; do
  rate=$(grep -F "| $row" "$smoke_log" | awk -F'|' '{print $3 + 0}')
  if ! awk -v rate="${rate:-0}" 'BEGIN { exit !(rate > 0) }'; then
    echo "postgres ceiling smoke: no figure for \"$row\""
    tail -n 30 "$smoke_log"
    exit 1
  fi
done
grep -F "pgbench" "$smoke_log"
