#!/usr/bin/env bash
# The API guide's backend step in Python with PyJWT (docs/api-guide.md), run as written against a
# live `otp serve`: an app's approval token passes for the verified number and transaction, and
# fails for another number, a changed transaction, a sign-in that expects no transaction and a
# test destination.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v swift >/dev/null || export PATH=/opt/swift/usr/bin:$PATH
python3 -c 'import jwt, cryptography' 2>/dev/null || python3 -m pip install -q "pyjwt[crypto]"

bin="${OTP_BIN:-$(swift build --show-bin-path)/otp}"
[ -x "$bin" ] || swift build --product otp -q 2>&1 | grep -v "prohibited flag" || true

work=$(mktemp -d)
key="bk-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
pk="pk_ios_$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
source scripts/lib.sh
trap 'kill "${SERVE_PID:-}" 2>/dev/null || true; wait "${SERVE_PID:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
start_serve --store memory --api-key "$key" --publishable-key "ios=$pk" \
  --sender "outbox:$work/outbox.jsonl" --test-destination "+15550155=123456"
url=$SERVE_URL

# The guide's block, as it stands.
python3 - docs/api-guide.md "$work/check_approval.py" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
block = re.search(r"<!-- backend-python -->\n```python\n(.*?)```", text, re.S)
assert block, "docs/api-guide.md has no backend-python block"
open(sys.argv[2], "w").write(block.group(1))
PY

# Starts through the app's key, checks the code from the outbox (or a fixed one), prints the token.
approve() {
  local body=$1 code=${2:-}
  local started id
  started=$(curl -s -X POST "$url/v1/verifications" -H "Authorization: Bearer $pk" \
    -H "Content-Type: application/json" -d "$body")
  id=$(echo "$started" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
  if [ -z "$code" ]; then
    code=$(python3 - "$work/outbox.jsonl" "$id" <<'PY'
import json, re, sys
for line in open(sys.argv[1]):
    m = json.loads(line)
    if m.get("verificationId") == sys.argv[2]:
        code = re.search(r"code is ([0-9]+)", m["body"]).group(1)
print(code)
PY
)
  fi
  curl -s -X POST "$url/v1/verifications/$id/check" -H "Authorization: Bearer $pk" \
    -H "Content-Type: application/json" -d "{\"code\":\"$code\"}" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["approvalToken"])'
}

check() {
  OTP_JWKS_URL="$url/.well-known/jwks.json" OTP_ISSUER=otpkit OTP_AUDIENCE=ios python3 "$work/check_approval.py"
}

transaction='{"amount":"12.50","currency":"EUR","payee":"ACME Ltd"}'
token=$(approve "{\"to\":\"+12015550100\",\"transaction\":$transaction}")
OTP_TOKEN=$token OTP_PHONE=+12015550100 OTP_TRANSACTION=$transaction check >"$work/good" ||
  { echo "the guide's check refused a good token"; exit 1; }
grep -q "'phone_number': '+12015550100'" "$work/good" || { echo "no phone_number: $(cat "$work/good")"; exit 1; }
echo "  ok: the verified number and transaction pass"

if OTP_TOKEN=$token OTP_PHONE=+12015550199 check >/dev/null 2>&1; then
  echo "the guide's check accepted a token for another number"; exit 1
fi
echo "  ok: another number is refused"
if OTP_TOKEN=$token OTP_PHONE=+12015550100 OTP_TRANSACTION='{"amount":"99.00","currency":"EUR","payee":"ACME Ltd"}' \
  check >/dev/null 2>&1; then
  echo "the guide's check accepted another transaction"; exit 1
fi
echo "  ok: another transaction is refused"
if OTP_TOKEN=$token OTP_PHONE=+12015550100 check >/dev/null 2>&1; then
  echo "the guide's check signed someone in with a payment's token"; exit 1
fi
sign_in=$(approve '{"to":"+12015550100"}')
OTP_TOKEN=$sign_in OTP_PHONE=+12015550100 check >/dev/null ||
  { echo "the guide's check refused a sign-in token"; exit 1; }
echo "  ok: a payment's token is no sign-in; a sign-in's token is"
test_token=$(approve '{"to":"+15550155"}' 123456)
if OTP_TOKEN=$test_token OTP_PHONE=+15550155 check >/dev/null 2>&1; then
  echo "the guide's check accepted a test destination's token"; exit 1
fi
echo "  ok: a test destination's token is refused"
hash=$(printf '%s' "$transaction" | python3 -c 'import base64, hashlib, json, sys
canonical = json.dumps(json.load(sys.stdin), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
print(base64.urlsafe_b64encode(hashlib.sha256(canonical.encode()).digest()).rstrip(b"=").decode())')
"$bin" token verify "$token" --jwks "$url/.well-known/jwks.json" --issuer otpkit --audience ios \
  --phone-number +12015550100 --transaction-hash "$hash" >/dev/null ||
  { echo "otp token verify refused the good token"; exit 1; }
if "$bin" token verify "$token" --jwks "$url/.well-known/jwks.json" --issuer otpkit --audience ios \
  --phone-number +12015550100 >/dev/null 2>&1; then
  echo "otp token verify signed someone in with a payment's token"; exit 1
fi
"$bin" token verify "$sign_in" --jwks "$url/.well-known/jwks.json" --issuer otpkit --audience ios \
  --phone-number +12015550100 >/dev/null || { echo "otp token verify refused a sign-in token"; exit 1; }
if "$bin" token verify "$token" --jwks "$url/.well-known/jwks.json" --issuer otpkit --audience ios \
  --phone-number +12015550199 >/dev/null 2>&1; then
  echo "otp token verify accepted another number"; exit 1
fi
echo "  ok: otp token verify agrees"
set +e
"$bin" token verify "$token" --jwks "http://verify.example.com/.well-known/jwks.json" --audience ios \
  >/dev/null 2>"$work/plain"
status=$?
set -e
[ "$status" -eq 2 ] && grep -q "https://" "$work/plain" || { echo "a plain-http key set was not refused: $status"; exit 1; }
echo "  ok: a plain-http key set off loopback is refused before any request"
