#!/usr/bin/env bash
# schemathesis against openapi.yaml and a live `otp serve`: no 5xx, no answer that breaks the schema,
# invalid input refused, wrong methods answered 405 with Allow. Bounded: a fixed number of examples
# per operation and a fixed seed, so a run takes seconds and repeats itself.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v swift >/dev/null || export PATH=/opt/swift/usr/bin:$PATH
command -v schemathesis >/dev/null || { echo "schemathesis is missing: run scripts/bootstrap.sh" >&2; exit 1; }

bin="${OTP_BIN:-$(swift build --show-bin-path)/otp}"
[ -x "$bin" ] || swift build --product otp -q 2>&1 | grep -v "prohibited flag" || true

work=$(mktemp -d)
key="st-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
source scripts/lib.sh
trap 'kill "${SERVE_PID:-}" 2>/dev/null || true; wait "${SERVE_PID:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
# Limits lifted so generated starts reach the checks instead of 429; the rules are the same.
start_serve --store memory --api-key "$key" --sender "outbox:$work/outbox.jsonl" \
  --limit-starts-per-destination 1000000000/31536000 --limit-starts-per-address 1000000000/31536000 \
  --limit-checks-per-address 1000000000/31536000 --limit-failed-checks-per-destination 1000000000/31536000 \
  --public-url http://127.0.0.1:8080 --hosted-return-origins http://127.0.0.1:9
url=$SERVE_URL

schemathesis run openapi.yaml --url "$url" -H "Authorization: Bearer $key" \
  --checks all --exclude-checks positive_data_acceptance \
  --max-examples "${OTP_SCHEMATHESIS_EXAMPLES:-30}" --seed "${OTP_SCHEMATHESIS_SEED:-20261130}" \
  --workers 1 --request-timeout 5 --no-color 2>&1 | tail -n 25
status=${PIPESTATUS[0]}

if grep -q '"status":5[0-9][0-9]' "$work/stderr"; then
  echo "the server answered 5xx during the run:" >&2
  grep '"status":5[0-9][0-9]' "$work/stderr" | head >&2
  exit 1
fi
exit "$status"
