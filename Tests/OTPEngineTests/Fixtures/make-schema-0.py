#!/usr/bin/env python3
"""Makes schema-0.sqlite3 and schema-0.json: a SQLite store written by `otp serve` before the
schema had a version, holding one pending verification and one confirmed authenticator factor.

Run once with the otp of that time (python3 make-schema-0.py PATH/TO/otp); the migration tests
open a copy of the database and check that both still verify after `otp migrate`.
"""
import base64, hashlib, hmac, json, os, re, shutil, struct, subprocess, sys, tempfile, time, urllib.request

otp = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
work = tempfile.mkdtemp()
key = "fixture-key-" + os.urandom(12).hex()
server = subprocess.Popen(
    [otp, "serve", "--port", "0", "--api-key", key, "--store", f"sqlite:{work}/otp.sqlite3",
     "--sender", f"outbox:{work}/outbox.jsonl", "--secret-file", f"{work}/otp.secret"],
    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
url = None
for line in server.stdout:
    match = re.search(r'listening on (http://[^" ]+)', line)
    if match:
        url = match.group(1)
        break


def call(method, path, body=None):
    request = urllib.request.Request(
        url + path, method=method, data=json.dumps(body).encode() if body is not None else None,
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request) as answer:
        return json.loads(answer.read() or b"{}")


def totp(secret, at):
    counter = struct.pack(">Q", int(at) // 30)
    digest = hmac.new(secret, counter, hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    value = struct.unpack(">I", digest[offset:offset + 4])[0] & 0x7FFFFFFF
    return f"{value % 1_000_000:06d}"


try:
    started = call("POST", "/v1/verifications", {"to": "+15555550100", "channel": "sms", "ref": "fixture"})
    for _ in range(100):
        if os.path.exists(f"{work}/outbox.jsonl") and os.path.getsize(f"{work}/outbox.jsonl") > 0:
            break
        time.sleep(0.05)
    message = json.loads(open(f"{work}/outbox.jsonl").readline())
    code = re.search(r"\b(\d{6})\b", message["body"]).group(1)
    enrolled = call("POST", "/v1/totp", {"account": "fixture@example.com", "issuer": "OTPKit"})
    uri = enrolled["otpauthUri"]
    secret32 = uri.split("secret=")[1].split("&")[0]
    secret = base64.b32decode(secret32 + "=" * (-len(secret32) % 8))
    confirmed_at = time.time()
    confirmed = call("POST", f"/v1/totp/{enrolled['id']}/check", {"code": totp(secret, confirmed_at)})
    facts = {
        "verificationID": started["id"], "code": code, "createdAt": started["createdAt"],
        "factorID": enrolled["id"], "totpSecretBase32": secret32, "confirmedAt": confirmed_at,
        "recoveryCode": confirmed["recoveryCodes"][0],
        "secretHex": open(f"{work}/otp.secret", "rb").read().hex(),
    }
finally:
    server.terminate()
    server.wait()
shutil.copy(f"{work}/otp.sqlite3", os.path.join(here, "schema-0.sqlite3"))
json.dump(facts, open(os.path.join(here, "schema-0.json"), "w"), indent=2)
shutil.rmtree(work)
print(json.dumps(facts, indent=2))
