"""The requests `otp serve` sends (delivery webhook, start guard, lifecycle events) checked against
openapi.yaml's `webhooks`: each body validates against its schema, and each signature is the
documented HMAC-SHA256 under the secret's UTF-8 bytes with its purpose.

Usage: openapi_webhooks.py OTP_BINARY OPENAPI_YAML
"""

import hashlib
import hmac
import http.server
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import jsonschema
import yaml

binary, spec_path = sys.argv[1], sys.argv[2]
spec = yaml.safe_load(open(spec_path))
secrets = {"delivery": "delivery-secret-é", "guard": "guard-secret-ü", "event": "event-secret-ß"}
received = []  # (path, headers, body)
lock = threading.Lock()


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with lock:
            received.append((self.path, dict(self.headers), body))
        answer = b'{"allow": true}' if self.path == "/guard" else b"{}"
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *arguments):
        pass


receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
threading.Thread(target=receiver.serve_forever, daemon=True).start()
base = f"http://127.0.0.1:{receiver.server_address[1]}"
key = "wh-" + os.urandom(16).hex()
work = tempfile.mkdtemp()
environment = dict(os.environ, OTP_WEBHOOK_SECRET=secrets["delivery"], OTP_START_GUARD_SECRET=secrets["guard"],
                   OTP_EVENTS_SECRET=secrets["event"])
server = subprocess.Popen(
    [binary, "serve", "--port", "0", "--api-key", key, "--store", "memory", "--sender", f"webhook:{base}/hook",
     "--start-guard", f"webhook:{base}/guard", "--start-guard-secret-keys", "--events", f"webhook:{base}/events"],
    stdout=subprocess.PIPE, stderr=open(os.path.join(work, "stderr"), "w"), env=environment, text=True)
try:
    line = server.stdout.readline()
    match = re.search(r'listening on (http://[^" ]+)', line)
    url = match.group(1) if match else ""
    assert url.startswith("http://"), f"otp serve did not start: {line!r} {open(os.path.join(work, 'stderr')).read()}"

    def call(path, body):
        request = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST",
                                         headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    status, started = call("/v1/verifications", {"to": "+15555550100"})
    assert status == 201, (status, started)
    delivery = next(body for path, _, body in received if path == "/hook")
    code = re.search(r"code is ([0-9]+)", json.loads(delivery)["text"]).group(1)
    status, _ = call(f"/v1/verifications/{started['id']}/check", {"code": code})
    assert status == 200
    for _ in range(200):
        with lock:
            events = [json.loads(body)["type"] for path, _, body in received if path == "/events"]
        if "approved" in events:
            break
        time.sleep(0.05)
finally:
    server.terminate()
    server.wait(30)
    receiver.shutdown()

webhooks = {"/hook": ("deliveryMessage", "delivery"), "/guard": ("startGuard", "guard"),
            "/events": ("lifecycleEvent", "event")}
seen = {}
for path, headers, body in received:
    name, purpose = webhooks[path]
    operation = spec["webhooks"][name]["post"]
    reference = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    schema = spec["components"]["schemas"][reference.split("/")[-1]]
    jsonschema.validate(json.loads(body), schema)
    header = headers.get("X-OTP-Signature") or headers.get("X-Otp-Signature")
    pattern = spec["components"]["parameters"]["Signature"]["schema"]["pattern"]
    assert header and re.fullmatch(pattern, header), f"{path}: signature header {header!r}"
    fields = dict(part.split("=", 1) for part in header.split(","))
    assert fields["p"] == purpose, f"{path}: purpose {fields['p']}"
    expected = hmac.new(secrets[purpose].encode("utf-8"), f"{fields['t']}.{purpose}.".encode() + body,
                        hashlib.sha256).hexdigest()
    assert hmac.compare_digest(expected, fields["v1"]), f"{path}: the signature is not the documented HMAC"
    seen[name] = seen.get(name, 0) + 1
assert set(seen) == set(webhooks[p][0] for p in webhooks), f"not every webhook was called: {seen}"
print("webhooks: " + ", ".join(f"{name} {count}" for name, count in sorted(seen.items()))
      + " request(s), each body valid against openapi.yaml and signed as documented")
