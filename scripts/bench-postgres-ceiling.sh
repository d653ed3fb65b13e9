#!/usr/bin/env bash
# The ceiling PostgreSQL itself sets on the PostgreSQL store's rows of `make bench-all`: pgbench
# runs the statements of one check and of one start, as the store sends them (prepared, in two
# pipelined round trips inside one transaction), against a throwaway cluster on these same cores,
# beside the bare libmicrohttpd server the HTTP benchmark divides by, all in this one run.
#
# pgbench's transactions per second, divided by the bare server's requests per second, is the
# highest ratio any PostgreSQL client of these statements could show on this machine: it spends
# nothing on HTTP, JSON, hashing or the engine's rules, and its own client CPU is small.
#
#   OTP_BENCH_SECONDS (default 5)  OTP_BENCH_CLIENTS (32: pgbench's connections, as the store's
#   pool in the spread rows)  OTP_BENCH_SPREAD (4096: verifications and counters gone round, so no
#   row is hot)  OTP_BENCH_POSTGRES_OPTIONS ("-c synchronous_commit=off": more server settings)
#   OTP_BIN (a built otp, to make the tables with `otp migrate`; else one is built)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v swift >/dev/null || export PATH=/opt/swift/usr/bin:$PATH
command -v wrk >/dev/null || { echo "wrk is missing: run scripts/bootstrap.sh" >&2; exit 1; }
source scripts/lib.sh
[ -x "$POSTGRES_BIN/pgbench" ] || { echo "pgbench is missing: run scripts/bootstrap.sh" >&2; exit 1; }

seconds=${OTP_BENCH_SECONDS:-5}
clients=${OTP_BENCH_CLIENTS:-32}
spread=${OTP_BENCH_SPREAD:-4096}
[[ "$spread" =~ ^[0-9]+$ ]] && [ "$spread" -ge 1 ] || { echo "OTP_BENCH_SPREAD is a whole number" >&2; exit 2; }
work=$(mktemp -d)
chmod 755 "$work"
bare_pid=""
cleanup() {
  [ -n "$bare_pid" ] && { kill "$bare_pid" 2>/dev/null || true; wait "$bare_pid" 2>/dev/null || true; }
  rm -rf "$work"
}
on_exit cleanup

step "build"
bench_binaries "$work"

step "postgresql (${OTP_BENCH_POSTGRES_OPTIONS:--c synchronous_commit=off})"
# A cluster of its own, whatever the caller's environment names.
unset POSTGRES_URL
# shellcheck disable=SC2086 # the options are words for the server's command line
start_postgres ${OTP_BENCH_POSTGRES_OPTIONS:--c synchronous_commit=off}
"$otp" migrate --store "$POSTGRES_URL" >/dev/null
psql=(psql -h 127.0.0.1 -p "$POSTGRES_PORT" -U otp -d postgres -q -v ON_ERROR_STOP=1)
"${psql[@]}" <<SQL
INSERT INTO otp_verifications (id, channel, destination, code_length, code_hash, state, attempts_left,
  sends_used, created_at, expires_at, purge_at)
SELECT 'v' || n, 'sms', '+1203' || (2000000 + n), 6, decode(repeat('ab', 32), 'hex'), 'pending',
  1000000000, 1, 0, 9000000000000, 9000000000000
FROM generate_series(1, $spread) AS n;
SQL

# One check: lock the verification and its counters (one round trip), then write the attempt and
# the counters and commit (the second), as PostgresStore.check does.
cat >"$work/check.sql" <<SQL
\set n random(1, $spread)
\startpipeline
BEGIN;
SELECT id, channel, destination, code_length, code_hash, state, attempts_left, sends_used, created_at,
  expires_at, resend_available_at, purge_at, lease_token, lease_until, locale, ref, txn
  FROM otp_verifications WHERE id = 'v' || :n FOR UPDATE;
INSERT INTO otp_rates (key, arrival) VALUES ('ca:' || :n, -1)
  ON CONFLICT (key) DO UPDATE SET arrival = otp_rates.arrival RETURNING arrival;
INSERT INTO otp_rates (key, arrival) VALUES ('fd:' || :n, -1)
  ON CONFLICT (key) DO UPDATE SET arrival = otp_rates.arrival RETURNING arrival;
\endpipeline
\startpipeline
UPDATE otp_rates SET arrival = :n WHERE key = 'ca:' || :n;
UPDATE otp_rates SET arrival = :n WHERE key = 'fd:' || :n;
UPDATE otp_verifications SET code_hash = decode(repeat('ab', 32), 'hex'), state = 'pending',
  attempts_left = attempts_left - 1, sends_used = 1, expires_at = 9000000000000,
  resend_available_at = NULL, purge_at = 9000000000000, lease_token = NULL, lease_until = NULL
  WHERE id = 'v' || :n;
COMMIT;
\endpipeline
SQL

# The same check as one round trip: the statements in a server-side function, the shape a store
# written as PL/pgSQL functions (as the Redis store's scripts are) would have.
"${psql[@]}" <<'SQL'
CREATE FUNCTION ceiling_check(n bigint) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE left_ bigint;
BEGIN
  SELECT attempts_left INTO left_ FROM otp_verifications WHERE id = 'v' || n FOR UPDATE;
  INSERT INTO otp_rates (key, arrival) VALUES ('ca:' || n, -1)
    ON CONFLICT (key) DO UPDATE SET arrival = otp_rates.arrival;
  INSERT INTO otp_rates (key, arrival) VALUES ('fd:' || n, -1)
    ON CONFLICT (key) DO UPDATE SET arrival = otp_rates.arrival;
  UPDATE otp_rates SET arrival = n WHERE key = 'ca:' || n;
  UPDATE otp_rates SET arrival = n WHERE key = 'fd:' || n;
  UPDATE otp_verifications SET attempts_left = left_ - 1 WHERE id = 'v' || n;
  RETURN left_ - 1;
END $$;
SQL
cat >"$work/check-function.sql" <<SQL
\set n random(1, $spread)
SELECT ceiling_check(:n);
SQL

# One start: lock its counters (one round trip), then write them, insert the verification and
# commit (the second); then the delivery attempt, a transaction of its own, as the store notes it.
cat >"$work/start.sql" <<SQL
\set n random(1, $spread)
\set id random(1, 1000000000000)
\startpipeline
BEGIN;
INSERT INTO otp_rates (key, arrival) VALUES ('sd:' || :n, -1)
  ON CONFLICT (key) DO UPDATE SET arrival = otp_rates.arrival RETURNING arrival;
INSERT INTO otp_rates (key, arrival) VALUES ('sa:' || :n, -1)
  ON CONFLICT (key) DO UPDATE SET arrival = otp_rates.arrival RETURNING arrival;
\endpipeline
\startpipeline
UPDATE otp_rates SET arrival = :n WHERE key = 'sd:' || :n;
UPDATE otp_rates SET arrival = :n WHERE key = 'sa:' || :n;
INSERT INTO otp_verifications (id, channel, destination, code_length, code_hash, state, attempts_left,
  sends_used, created_at, expires_at, resend_available_at, purge_at, locale)
  VALUES ('s' || :client_id || '-' || :id, 'sms', '+1202' || :n, 6, decode(repeat('ab', 32), 'hex'),
  'pending', 5, 1, 0, 600000, 30000, 9000000000000, 'en')
  ON CONFLICT (id) DO NOTHING;
COMMIT;
\endpipeline
INSERT INTO otp_deliveries (verification_id, at, channel, step, outcome)
  SELECT 'v' || :n, 0, 'sms', 'start', 'sent';
SQL

run_pgbench() {
  local out
  out=$("$POSTGRES_BIN/pgbench" -h 127.0.0.1 -p "$POSTGRES_PORT" -U otp -n -M prepared -c "$clients" -j 2 \
    -T "$seconds" -f "$1" postgres 2>&1) || { echo "$out" >&2; return 1; }
  awk '/^tps = / {printf "%.0f", $3}' <<<"$out"
}

step "measure (bare POST, pgbench check, check as a function, start: ${seconds} s each)"
"$work/bare" 2 >"$work/bare.port" &
bare_pid=$!
for _ in $(seq 100); do [ -s "$work/bare.port" ] && break; sleep 0.05; done
bare_url="http://127.0.0.1:$(cat "$work/bare.port")"
wrk_prefix=()
command -v chrt >/dev/null && wrk_prefix=(chrt --batch 0)
bare=$("${wrk_prefix[@]}" wrk -t2 -c50 -d"${seconds}s" -s Benchmarks/http/post.lua "$bare_url/check" |
  awk '/^Requests\/sec:/ {printf "%.0f", $2}')
kill "$bare_pid" 2>/dev/null || true
wait "$bare_pid" 2>/dev/null || true
bare_pid=""
check=$(run_pgbench "$work/check.sql")
check_function=$(run_pgbench "$work/check-function.sql")
start=$(run_pgbench "$work/start.sql")

echo
echo "| ${clients} pgbench clients, ${spread} rows | per second | ratio to bare POST |"
echo "|---|---|---|"
echo "| bare libmicrohttpd POST (wrk -t2 -c50) | $bare | 1.00 |"
awk -v b="$bare" -v c="$check" -v f="$check_function" -v s="$start" 'BEGIN {
  printf "| a check'"'"'s statements, pgbench | %d | %.2f |\n", c, c / b
  printf "| a check in one server-side function, pgbench | %d | %.2f |\n", f, f / b
  printf "| a start'"'"'s statements, pgbench | %d | %.2f |\n", s, s / b
}'
