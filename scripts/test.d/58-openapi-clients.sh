#!/usr/bin/env bash
# openapi.yaml as generators read it: valid by openapi-spec-validator, a Python client made from it
# by openapi-python-client that runs a start, a wrong and a right check and gets an approval token
# a backend then verifies, against a live `otp serve`; and the webhooks the server sends (delivery,
# start guard, events) valid against the file's `webhooks`, signed as it says.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v swift >/dev/null || export PATH=/opt/swift/usr/bin:$PATH
python3 -m pip show -q openapi-spec-validator >/dev/null 2>&1 || python3 -m pip install -q openapi-spec-validator
command -v openapi-python-client >/dev/null || python3 -m pip install -q openapi-python-client

python3 -m openapi_spec_validator openapi.yaml

bin="${OTP_BIN:-$(swift build --show-bin-path)/otp}"
[ -x "$bin" ] || swift build --product otp -q 2>&1 | grep -v "prohibited flag" || true

work=$(mktemp -d)
key="oc-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
pk="pk_app_$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
source scripts/lib.sh
trap 'kill "${SERVE_PID:-}" 2>/dev/null || true; wait "${SERVE_PID:-}" 2>/dev/null || true; rm -rf "$work"' EXIT

# Generated afresh from the file as it stands; any warning about the document fails the step.
(cd "$work" && openapi-python-client generate --path "$OLDPWD/openapi.yaml" --output-path client >gen.log 2>&1) || {
  cat "$work/gen.log" >&2
  exit 1
}
if grep -qiE "warning|error|could not|unable" "$work/gen.log"; then
  cat "$work/gen.log" >&2
  echo "openapi-python-client warned about openapi.yaml" >&2
  exit 1
fi
package=$(basename "$(find "$work/client" -mindepth 1 -maxdepth 1 -type d -name '*_client' | head -n 1)")

start_serve --store memory --api-key "$key" --publishable-key "app=$pk" --sender "outbox:$work/outbox.jsonl"

PYTHONPATH="$work/client" OTP_URL="$SERVE_URL" OTP_PK="$pk" OTP_KEY="$key" OTP_OUTBOX="$work/outbox.jsonl" OTP_PACKAGE="$package" \
  python3 - >"$work/token" <<'PY'
import importlib, json, os, re, time

package = os.environ["OTP_PACKAGE"]
client_module = importlib.import_module(package)
start_api = importlib.import_module(f"{package}.api.default.start_verification")
check_api = importlib.import_module(f"{package}.api.default.check_code")
models = importlib.import_module(f"{package}.models")

client = client_module.AuthenticatedClient(base_url=os.environ["OTP_URL"], token=os.environ["OTP_PK"])
started = start_api.sync_detailed(client=client, body=models.StartRequest(to="+12015550100"))
assert started.status_code == 201, (started.status_code, started.content)
verification = started.parsed
assert verification.status == "pending" and verification.attempts_left == 3, verification

code = None
for _ in range(100):
    for line in open(os.environ["OTP_OUTBOX"]):
        message = json.loads(line)
        if message["verificationId"] == verification.id:
            code = re.search(r"code is ([0-9]+)", message["body"]).group(1)
    if code:
        break
    time.sleep(0.05)
assert code, "no code in the outbox"

wrong = "0" * len(code) if code != "0" * len(code) else "1" * len(code)
refused = check_api.sync_detailed(id=verification.id, client=client, body=models.CheckRequest(code=wrong))
assert refused.status_code == 422, (refused.status_code, refused.content)
assert refused.parsed.error.code == "incorrect_code" and refused.parsed.error.attempts_left == 2, refused.parsed

approved = check_api.sync_detailed(id=verification.id, client=client, body=models.CheckRequest(code=code))
assert approved.status_code == 200, (approved.status_code, approved.content)
assert approved.parsed.status == "approved", approved.parsed
assert isinstance(approved.parsed.approval_token, str) and approved.parsed.approval_token.count(".") == 2

# The support views, through a secret key: the search finds the verification with its attempt.
search_api = importlib.import_module(f"{package}.api.default.search_verifications")
deliveries_api = importlib.import_module(f"{package}.api.default.get_deliveries")
secret = client_module.AuthenticatedClient(base_url=os.environ["OTP_URL"], token=os.environ["OTP_KEY"])
page = search_api.sync_detailed(client=secret, destination="+1 201 555 0100")
assert page.status_code == 200, (page.status_code, page.content)
assert [item.id for item in page.parsed.items] == [verification.id], page.parsed
assert page.parsed.items[0].status == "approved" and page.parsed.items[0].deliveries[0].outcome == "sent"
assert page.parsed.next_cursor is None, page.parsed
attempts = deliveries_api.sync_detailed(id=verification.id, client=secret)
assert attempts.status_code == 200, (attempts.status_code, attempts.content)
assert [attempt.step for attempt in attempts.parsed.deliveries] == ["start"], attempts.parsed
forbidden = search_api.sync_detailed(client=client, destination="+12015550100")
assert forbidden.status_code == 403, (forbidden.status_code, forbidden.content)
print(approved.parsed.approval_token)
PY

"$bin" token verify "$(cat "$work/token")" --jwks "$SERVE_URL/.well-known/jwks.json" --audience app --issuer otpkit \
  --phone-number +12015550100 >"$work/verified"
grep -q '^valid: .*"phone_number":"+12015550100","phone_number_verified":true' "$work/verified" || {
  cat "$work/verified" >&2
  exit 1
}
python3 scripts/openapi_webhooks.py "$bin" openapi.yaml
echo "openapi.yaml: valid; generated Python client ($package): start 201, wrong code 422 (attemptsLeft 2), right code 200 with an approval token the backend check accepts; the support search and deliveries"
