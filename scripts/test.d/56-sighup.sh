#!/usr/bin/env bash
# SIGHUP to a running `otp serve`, by its pid: the API key file is read again (the old key stops
# working, the new one works), a file that is wrong keeps the keys in force and logs an error, and
# SIGTERM afterwards still finishes and exits 0. Every line on standard error is a JSON log line.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v swift >/dev/null || export PATH=/opt/swift/usr/bin:$PATH

bin="${OTP_BIN:-$(swift build --show-bin-path)/otp}"
[ -x "$bin" ] || swift build --product otp -q 2>&1 | grep -v "prohibited flag" || true

work=$(mktemp -d)
source scripts/lib.sh
trap 'kill "${SERVE_PID:-}" 2>/dev/null || true; wait "${SERVE_PID:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
fail() { echo "sighup test: $*" >&2; cat "$work/stderr" >&2; exit 1; }

old="old-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
new="new-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
umask 077
echo "$old" >"$work/keys"
start_serve --store memory --api-key-file "$work/keys" --sender "outbox:$work/outbox.jsonl"

answer() {
  curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $1" "$SERVE_URL/v1/verifications/vf_missing"
}
# Waits for the Nth log line holding TEXT (the log is written out every 100 ms).
wait_for_line() {
  for _ in $(seq 100); do
    [ "$(grep -c "$1" "$work/stderr" || true)" -ge "$2" ] && return 0
    kill -0 "$SERVE_PID" 2>/dev/null || fail "otp serve exited"
    sleep 0.05
  done
  fail "no log line with $1"
}

[ "$(answer "$old")" = 404 ] || fail "the first key did not work"
[ "$(answer "$new")" = 401 ] || fail "a key not yet in the file worked"

echo "$new" >"$work/keys"
kill -HUP "$SERVE_PID"
wait_for_line '"SIGHUP: reloaded' 1
[ "$(answer "$old")" = 401 ] || fail "the old key still works after the reload"
[ "$(answer "$new")" = 404 ] || fail "the new key does not work after the reload"

echo "short" >"$work/keys"
kill -HUP "$SERVE_PID"
wait_for_line '"SIGHUP: reload failed' 1
grep '"SIGHUP: reload failed' "$work/stderr" | grep -q '"level":"error"' || fail "the failed reload is not an error"
[ "$(answer "$new")" = 404 ] || fail "a bad file took the keys in force away"

kill -TERM "$SERVE_PID"
status=0
wait "$SERVE_PID" || status=$?
SERVE_PID=""
[ "$status" = 0 ] || fail "otp serve exited $status after SIGTERM"
python3 - "$work/stderr" <<'PY' || fail "a line on standard error is not a JSON log line"
import json, sys
for line in open(sys.argv[1]):
    entry = json.loads(line)
    assert {"time", "level", "message"} <= entry.keys(), line
    assert entry["level"] in ("debug", "info", "warning", "error"), line
PY
grep -q '"message":"SIGTERM: finishing requests in flight"' "$work/stderr" || fail "no SIGTERM line"
echo "sighup: reload by SIGHUP, a bad file kept out, SIGTERM drains"
